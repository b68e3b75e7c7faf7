package server

// The OpenAPI contract (embed/openapi.yaml) and the router must not drift
// apart. The tests here check that every registered API route has an
// operation with the same scope and the reverse, keep a golden list of routes
// and scopes for review, and provide checkContract, which validates a request
// and its response against the contract. Handler tests call it on every
// exchange, so a body, status or header the contract does not describe fails
// the test that produced it.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	assets "github.com/finance-app/finance/embed"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/store"
)

// contractUpdateFlag registers -update unless another test file of the
// package already did (a second flag.Bool("update") would panic at init).
// Any golden-file test of the package can share it through contractUpdate.
var _ = func() bool {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files under testdata/")
	}
	return true
}()

// contractUpdate reports whether the test run was asked to rewrite golden files.
func contractUpdate() bool {
	f := flag.Lookup("update")
	if f == nil {
		return false
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return false
	}
	v, _ := g.Get().(bool)
	return v
}

// contract is the loaded and validated OpenAPI document, its router, and the
// page routes of the server, which are deliberately outside the contract.
type contract struct {
	doc    *openapi3.T
	router routers.Router
	pages  []Route
}

var (
	contractOnce   sync.Once
	contractLoaded contract
	contractErr    error
)

// loadContract parses embed/openapi.yaml once per test binary and validates
// the document itself before anything is checked against it.
func loadContract() (contract, error) {
	contractOnce.Do(func() {
		loader := openapi3.NewLoader()
		doc, err := loader.LoadFromData(assets.OpenAPI)
		if err != nil {
			contractErr = fmt.Errorf("load embed/openapi.yaml: %w", err)
			return
		}
		if err := doc.Validate(loader.Context); err != nil {
			contractErr = fmt.Errorf("embed/openapi.yaml is not a valid OpenAPI document: %w", err)
			return
		}
		router, err := gorillamux.NewRouter(doc)
		if err != nil {
			contractErr = fmt.Errorf("route embed/openapi.yaml: %w", err)
			return
		}
		// Registration only records routes, so a server without
		// dependencies is enough to list them.
		var pages []Route
		for _, rt := range contractRoutes() {
			if rt.Page {
				pages = append(pages, rt)
			}
		}
		contractLoaded = contract{doc: doc, router: router, pages: pages}
	})
	return contractLoaded, contractErr
}

// contractRoutes lists the routes of the server as the binary builds it:
// New, plus the MCP endpoint, which cmd/finance mounts with MountMCP once
// the MCP handler (which needs the finished server) exists. A stand-in takes
// the handler's place; only the registration matters here.
func contractRoutes() []Route {
	s := New(Config{}, contractLogger(), nil, nil)
	s.MountMCP(http.NotFoundHandler())
	return s.Routes()
}

func mustLoadContract(t testing.TB) contract {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func contractLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// contractRouteMatches reports whether a request path matches a bunrouter
// pattern: ":name" matches one non-empty segment, "*name" the rest.
func contractRouteMatches(pattern, path string) bool {
	ps, rs := strings.Split(pattern, "/"), strings.Split(path, "/")
	for i, p := range ps {
		if strings.HasPrefix(p, "*") {
			return len(rs) >= i
		}
		if i >= len(rs) {
			return false
		}
		if strings.HasPrefix(p, ":") {
			if rs[i] == "" {
				return false
			}
			continue
		}
		if p != rs[i] {
			return false
		}
	}
	return len(ps) == len(rs)
}

func contractScope(op *openapi3.Operation) (string, bool) {
	s, ok := op.Extensions["x-scope"].(string)
	return s, ok
}

// checkContract validates one exchange against the contract: the request
// (path, query, headers, body; authentication is left to the server) and the
// response (the status must be declared, declared headers must be present
// and match, and the body must match its schema). reqBody is the request
// body as sent, since req.Body has usually been read by then.
//
// A request the contract rejects is fine as long as the server rejected it
// too (4xx): tests send bad requests on purpose. A server that accepts it
// fails the check. Paths and methods outside the contract must get the
// router's own 404 or 405; HTML pages (Route.Page) are not checked.
func checkContract(t testing.TB, req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Errorf("contract: %v", err)
		return
	}
	where := req.Method + " " + req.URL.RequestURI()
	for _, p := range c.pages {
		if contractRouteMatches(p.Path, req.URL.Path) {
			return
		}
	}

	// Validate a copy carrying the body as sent. HEAD is the GET operation
	// without a body; a body without Content-Type is read as JSON.
	vreq := req.Clone(context.Background())
	vreq.Body = io.NopCloser(bytes.NewReader(reqBody))
	vreq.ContentLength = int64(len(reqBody))
	if len(reqBody) > 0 && vreq.Header.Get("Content-Type") == "" {
		vreq.Header.Set("Content-Type", "application/json")
	}
	if strings.HasPrefix(vreq.Header.Get("Content-Type"), "multipart/form-data") && !declaresMultipart(c, vreq) {
		// A form stands for the JSON object with the same fields (the
		// contract's description says so): validate that object. An
		// operation that declares its own form (a file upload) is validated
		// against that instead.
		r := req.Clone(context.Background())
		r.Body = io.NopCloser(bytes.NewReader(reqBody))
		if asJSON, err := (&Server{cfg: Config{MaxBodyBytes: DefaultMaxBodyBytes}}).formAsJSON(r); err == nil {
			vreq.Body, vreq.ContentLength = io.NopCloser(bytes.NewReader(asJSON)), int64(len(asJSON))
			vreq.Header.Set("Content-Type", "application/json")
		}
	}
	head := vreq.Method == http.MethodHead
	if head {
		vreq.Method = http.MethodGet
	}
	opts := &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc, // the server's job, tested by behaviour tests
		IncludeResponseStatus: true,
		MultiError:            true,
		ExcludeResponseBody:   head,
	}

	route, pathParams, err := c.router.FindRoute(vreq)
	if err != nil {
		checkUnrouted(t, c.doc, where, vreq, err, resp, respBody, opts)
		return
	}
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: pathParams, Route: route, Options: opts}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil && resp.StatusCode < 400 {
		t.Errorf("contract: %s: the contract rejects this request, yet the server answered %d:\n%v",
			where, resp.StatusCode, err)
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header, Options: opts,
	}
	out.SetBodyBytes(respBody)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("contract: %s answered %d, which the contract (operation %s) does not allow:\n%v\nresponse body: %s",
			where, resp.StatusCode, route.Operation.OperationID, err, contractSnippet(respBody))
	}
}

// declaresMultipart reports whether the operation of req describes a
// multipart/form-data body of its own.
func declaresMultipart(c contract, req *http.Request) bool {
	route, _, err := c.router.FindRoute(req)
	if err != nil || route.Operation.RequestBody == nil || route.Operation.RequestBody.Value == nil {
		return false
	}
	return route.Operation.RequestBody.Value.Content.Get("multipart/form-data") != nil
}

// checkUnrouted handles a request with no operation in the contract. The
// only acceptable answers are the router's own 404 (unknown path) and 405
// (known path, other method), in the shapes components.responses declares.
func checkUnrouted(t testing.TB, doc *openapi3.T, where string, req *http.Request, routeErr error,
	resp *http.Response, respBody []byte, opts *openapi3filter.Options,
) {
	t.Helper()
	var want int
	var name, messagePrefix string
	switch {
	case errors.Is(routeErr, routers.ErrPathNotFound) && !forPrograms(req.URL.Path):
		// A person's wrong address: the not-found page, outside the contract.
		if resp.StatusCode != http.StatusNotFound || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") ||
			(!opts.ExcludeResponseBody && !bytes.Contains(respBody, []byte("<h1>Page not found</h1>"))) {
			t.Errorf("contract: %s is no route, yet the server answered %d %s (want the not-found page):\n%s",
				where, resp.StatusCode, resp.Header.Get("Content-Type"), contractSnippet(respBody))
		}
		return
	case errors.Is(routeErr, routers.ErrPathNotFound):
		want, name, messagePrefix = http.StatusNotFound, "NotFound", "No route for "
	case errors.Is(routeErr, routers.ErrMethodNotAllowed):
		want, name, messagePrefix = http.StatusMethodNotAllowed, "MethodNotAllowed", "Method "
	default:
		t.Errorf("contract: %s: %v", where, routeErr)
		return
	}
	// A handler's own 404 (a missing record) has another message: only the
	// router's answer proves that no route exists.
	if resp.StatusCode != want || !bytes.Contains(respBody, []byte(`"message":"`+messagePrefix)) {
		t.Errorf("contract: %s has no operation in the contract, yet the server answered %d (want the router's %d):\n%s",
			where, resp.StatusCode, want, contractSnippet(respBody))
		return
	}
	ref := doc.Components.Responses[name]
	if ref == nil {
		t.Errorf("contract: components.responses.%s is missing", name)
		return
	}
	op := openapi3.NewOperation()
	op.OperationID = "router" + name
	op.Responses = openapi3.NewResponses(openapi3.WithStatus(want, ref))
	in := &openapi3filter.RequestValidationInput{
		Request: req, Options: opts,
		Route: &routers.Route{Spec: doc, Path: req.URL.Path, Method: req.Method, Operation: op},
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: resp.StatusCode, Header: resp.Header, Options: opts}
	out.SetBodyBytes(respBody)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Errorf("contract: %s answered %d, which does not match components.responses.%s:\n%v\nresponse body: %s",
			where, resp.StatusCode, name, err, contractSnippet(respBody))
	}
}

func contractSnippet(b []byte) string {
	const max = 2000
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// TestContractMatchesRoutes fails when a registered API route has no
// operation, an operation has no route, or a scope differs.
func TestContractMatchesRoutes(t *testing.T) {
	c := mustLoadContract(t)
	routes := contractRoutes()

	registered := map[string]Route{}
	for _, rt := range routes {
		registered[rt.Method+" "+contractPath(rt.Path)] = rt
	}
	operations := map[string]*openapi3.Operation{}
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			operations[method+" "+path] = op
		}
	}

	for _, key := range slices.Sorted(maps.Keys(registered)) {
		rt := registered[key]
		op, ok := operations[key]
		switch {
		case rt.Page && ok:
			t.Errorf("%s is an HTML page (Page: true) but has an operation in the contract; pages are outside it", key)
		case rt.Page:
		case !ok:
			t.Errorf("route %s (scope %s) has no operation in embed/openapi.yaml", key, rt.Access)
		default:
			scope, ok := contractScope(op)
			if !ok {
				t.Errorf("operation %s (%s) has no x-scope string; the route requires %q", op.OperationID, key, rt.Access)
			} else if scope != rt.Access.String() {
				t.Errorf("operation %s (%s): x-scope is %q, but the route requires %q", op.OperationID, key, scope, rt.Access)
			}
			// Public operations must say so with security: [], the others
			// inherit or name the credential schemes.
			public := op.Security != nil && len(*op.Security) == 0
			if public != rt.Access.IsPublic() {
				t.Errorf("operation %s (%s): security is public=%v, but the route's scope is %q", op.OperationID, key, public, rt.Access)
			}
			// The query parameters the route takes (and refuses others
			// than, under /api/v1) are the ones the contract documents.
			var documented []string
			for _, ref := range append(c.doc.Paths.Find(contractPath(rt.Path)).Parameters, op.Parameters...) {
				if ref.Value.In == openapi3.ParameterInQuery {
					documented = append(documented, ref.Value.Name)
				}
			}
			slices.Sort(documented)
			if strings.HasPrefix(rt.Path, APIPrefix) {
				if diff := cmp.Diff(documented, slices.Sorted(slices.Values(rt.Query))); diff != "" {
					t.Errorf("operation %s (%s): query parameters of the contract and the route differ (-contract +route):\n%s",
						op.OperationID, key, diff)
				}
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(operations)) {
		if _, ok := registered[key]; !ok {
			t.Errorf("operation %s (%s) in embed/openapi.yaml has no registered route", operations[key].OperationID, key)
		}
	}
}

// TestContractOperationsComplete keeps every operation documented to the
// same standard, so routes added later cannot leave out the error answers
// that the middleware gives every route of their kind.
// storesNothing are the operations of the API, other than reads, that write
// nothing to the disk, not even for a while: they cannot find it full.
// Parsing receipt photos is not one: the photos wait in files while they
// are read.
var storesNothing = map[string]bool{
	"POST /api/v1/auth/login":             true,
	"POST /api/v1/expenses/ai/parse-text": true,
}

func TestContractOperationsComplete(t *testing.T) {
	c := mustLoadContract(t)
	byKey := map[string]Route{}
	for _, rt := range contractRoutes() {
		byKey[rt.Method+" "+contractPath(rt.Path)] = rt
	}
	ids := map[string]string{}
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			key := method + " " + path
			t.Run(key, func(t *testing.T) {
				if op.OperationID == "" || op.Summary == "" || op.Description == "" || len(op.Tags) == 0 {
					t.Errorf("needs operationId, summary, description and tags (got %q, %q, %d characters, %v)",
						op.OperationID, op.Summary, len(op.Description), op.Tags)
				}
				if other, dup := ids[op.OperationID]; dup {
					t.Errorf("operationId %s is also used by %s", op.OperationID, other)
				}
				ids[op.OperationID] = key

				want := []string{"500"}
				scope, _ := contractScope(op)
				switch scope {
				case "public":
				case "platform-secret":
					// The messaging webhook: a wrong secret, no bot configured, a busy source.
					want = append(want, "401", "404", "429")
				default:
					want = append(want, "401", "402", "429")
				}
				if scope != "public" && scope != "any" && scope != "platform-secret" {
					want = append(want, "403")
				}
				if byKey[key].PerIP != nil {
					want = append(want, "429")
				}
				if op.RequestBody != nil {
					want = append(want, "400", "413")
				}
				if strings.HasPrefix(path, APIPrefix) {
					want = append(want, "400") // a query parameter the route does not take
					if method != http.MethodGet && !storesNothing[key] {
						want = append(want, "507") // the disk is full: nothing was saved
					}
				}
				if strings.Contains(path, "{") {
					want = append(want, "404")
				}
				for _, status := range want {
					if op.Responses.Value(status) == nil {
						t.Errorf("declares no %s response", status)
					}
				}
				success := false
				for status, ref := range op.Responses.Map() {
					if n, err := strconv.Atoi(status); err == nil && n >= 200 && n < 300 {
						success = true
					}
					if h := ref.Value.Headers["X-Request-Id"]; h == nil || !h.Value.Required {
						t.Errorf("response %s does not declare the required X-Request-Id header", status)
					}
				}
				if !success {
					t.Error("declares no 2xx response")
				}
			})
		}
	}
}

// TestContractIdempotencyKey fails when a POST operation under /api/v1 that
// needs a credential lacks the shared Idempotency-Key parameter, or a success
// response of one does not declare Idempotent-Replayed; the server wraps
// every such route (see TestIdempotencyKeyOnEveryWrite). Sign-in, which is
// public and writes no record, does not take the header.
func TestContractIdempotencyKey(t *testing.T) {
	c := mustLoadContract(t)
	writesNothingRoutes, noKeyRoutes := map[string]bool{}, map[string]bool{}
	for _, rt := range contractRoutes() {
		if rt.WritesNothing {
			writesNothingRoutes[contractPath(rt.Path)] = true
		}
		if rt.NoIdempotencyKey {
			noKeyRoutes[contractPath(rt.Path)] = true
		}
	}
	const param, header = "#/components/parameters/IdempotencyKey", "#/components/headers/Idempotent-Replayed"
	const conflict = "#/components/responses/IdempotencyConflict"
	if p := c.doc.Components.Parameters["IdempotencyKey"]; p == nil || p.Value.In != openapi3.ParameterInHeader ||
		p.Value.Name != IdempotencyKeyHeader || p.Value.Required {
		t.Fatalf("components.parameters.IdempotencyKey must be the optional header %s", IdempotencyKeyHeader)
	}
	checked := 0
	for path, item := range c.doc.Paths.Map() {
		op := item.Post
		if op == nil || !strings.HasPrefix(path, APIPrefix) {
			continue
		}
		public := op.Security != nil && len(*op.Security) == 0
		has := slices.ContainsFunc(op.Parameters, func(p *openapi3.ParameterRef) bool { return p.Ref == param })
		writesNothing := op.Extensions["x-writes-nothing"] == true
		if writesNothing != writesNothingRoutes[path] {
			t.Errorf("POST %s (%s): x-writes-nothing is %v, but the route's WritesNothing is %v", path, op.OperationID, writesNothing, writesNothingRoutes[path])
		}
		// The assistant's routes write but keep their own transactions
		// (chat after its model call, confirm by proposal id).
		noKey := op.Extensions["x-no-idempotency-key"] == true
		if noKey != noKeyRoutes[path] {
			t.Errorf("POST %s (%s): x-no-idempotency-key is %v, but the route's NoIdempotencyKey is %v", path, op.OperationID, noKey, noKeyRoutes[path])
		}
		switch {
		case noKey && has:
			t.Errorf("POST %s (%s) is not wrapped for %s, so it must not take it", path, op.OperationID, IdempotencyKeyHeader)
		case noKey:
		case writesNothing && has:
			// AI parsing: not wrapped for keys, since the wrapper's write
			// transaction would hold the single writer during a model call.
			t.Errorf("POST %s (%s) writes nothing and is not wrapped for %s, so it must not take it", path, op.OperationID, IdempotencyKeyHeader)
		case writesNothing:
		case public && has:
			t.Errorf("POST %s (%s) is public but takes %s, which needs a user", path, op.OperationID, IdempotencyKeyHeader)
		case public:
		case !has:
			t.Errorf("POST %s (%s) lacks parameters: [$ref: %q]", path, op.OperationID, param)
		default:
			checked++
			if r := op.Responses.Value("422"); r == nil || r.Ref != conflict {
				t.Errorf("POST %s (%s) lacks responses: {\"422\": {$ref: %q}}", path, op.OperationID, conflict)
			}
			for status, ref := range op.Responses.Map() {
				if !strings.HasPrefix(status, "2") {
					continue
				}
				if h := ref.Value.Headers[IdempotentReplayedHeader]; h == nil || h.Ref != header {
					t.Errorf("POST %s (%s): response %s does not declare %s ($ref: %q)", path, op.OperationID, status, IdempotentReplayedHeader, header)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("no POST operation under /api/v1 takes the header; the check looked at nothing")
	}
}

// TestRoutesGolden lists every route with its scope in testdata/routes.golden,
// so that a new route or a changed scope shows in review. Regenerate with
//
//	go test ./server -run TestRoutesGolden -update
func TestRoutesGolden(t *testing.T) {
	routes := contractRoutes()
	slices.SortFunc(routes, func(a, b Route) int {
		if c := strings.Compare(contractPath(a.Path), contractPath(b.Path)); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	var b strings.Builder
	b.WriteString("# METHOD PATH SCOPE of every registered route, by path then method. HTML pages are marked (page).\n")
	b.WriteString("# Regenerate: go test ./server -run TestRoutesGolden -update\n")
	for _, rt := range routes {
		line := rt.Method + " " + contractPath(rt.Path) + " " + rt.Access.String()
		if rt.Page {
			line += " (page)"
		}
		b.WriteString(line + "\n")
	}
	got := b.String()

	golden := filepath.Join("testdata", "routes.golden")
	if contractUpdate() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (create it with: go test ./server -run TestRoutesGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("routes differ from %s (-want +got):\n%s\nIf the change is intended, run: go test ./server -run TestRoutesGolden -update", golden, diff)
	}
}

// contractEnv is a server on its own migrated database, with a Pro user
// holding a finance:read key and a settings:write key, and a free user
// holding a finance:read key.
type contractEnv struct {
	handler  http.Handler
	db       *store.DB
	auth     *auth.Service
	user     finance.User
	key      string // the Pro user's finance:read key
	writeKey string // the Pro user's settings:write key
	freeKey  string // a key of a user on the free plan
}

const contractPassword = "correct horse battery staple"

// contractTestServer builds the real router on a fresh database in
// t.TempDir(). With dbDown the health checks see a database that does not answer.
func contractTestServer(t testing.TB, cfg Config, dbDown bool) *contractEnv {
	t.Helper()
	db := testkit.OpenDB(t)
	jwt, err := auth.NewJWT([]byte(rand.Text()+rand.Text()), 15*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	svc := auth.NewService(db, jwt)
	env := &contractEnv{db: db, auth: svc}
	env.user, env.key = contractUser(t, svc, "owner@example.com", finance.PlanPro)
	env.writeKey = contractKey(t, svc, env.user, auth.ScopeSettingsWrite)
	_, env.freeKey = contractUser(t, svc, "free@example.com", finance.PlanFree)
	var database Database = db
	if dbDown {
		database = contractDownDB{db}
	}
	env.handler = New(cfg, contractLogger(), svc, database).Handler()
	return env
}

func contractUser(t testing.TB, svc *auth.Service, email string, plan finance.Plan) (finance.User, string) {
	t.Helper()
	ctx := context.Background()
	u, err := svc.CreateUser(ctx, auth.CreateUserRequest{Email: email, Name: "Test", Plan: plan, Password: contractPassword})
	if err != nil {
		t.Fatal(err)
	}
	return u, contractKey(t, svc, u, auth.ScopeRead)
}

func contractKey(t testing.TB, svc *auth.Service, u finance.User, scope auth.Scope) string {
	t.Helper()
	_, key, err := svc.CreateKey(context.Background(), auth.CreateKeyRequest{UserID: u.ID, Name: "contract test", Scopes: []string{string(scope)}})
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// do sends one request through the real router and checks the exchange
// against the contract.
func (e *contractEnv) do(t testing.TB, method, target string, header http.Header, body []byte) (*http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	maps.Copy(req.Header, header)
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	resp := rec.Result()
	respBody := rec.Body.Bytes()
	checkContract(t, req, body, resp, respBody)
	return resp, respBody
}

// contractDownDB is the store with a health check that always fails.
type contractDownDB struct{ *store.DB }

func (contractDownDB) Ping(context.Context) error { return errors.New("database is gone") }

func (contractDownDB) ReadAnsweredSince(time.Time) bool { return false }

// TestContractExchanges sends each current API route its success and error
// cases through the real router; every exchange is validated by checkContract.
func TestContractExchanges(t *testing.T) {
	withToken := func(token string) http.Header { return http.Header{"Authorization": {"Bearer " + token}} }
	jsonBody := http.Header{"Content-Type": {"application/json"}}
	login := func(email, password string) []byte {
		return []byte(`{"email":"` + email + `","password":"` + password + `"}`)
	}

	type exchange struct {
		method, target string
		header         func(*contractEnv) http.Header
		body           []byte
	}
	tests := []struct {
		name       string
		cfg        Config
		dbDown     bool
		setup      func(env *contractEnv)
		before     []exchange // sent first, e.g. to use up a rate limit
		send       exchange
		wantStatus int
		wantCode   string // error.code, for error responses
		check      func(t *testing.T, env *contractEnv, resp *http.Response, body []byte)
	}{
		{
			name:       "health with an API key",
			send:       exchange{method: "GET", target: "/api/v1/health", header: func(e *contractEnv) http.Header { return withToken(e.key) }},
			wantStatus: http.StatusOK,
			check: func(t *testing.T, _ *contractEnv, _ *http.Response, body []byte) {
				if !bytes.Contains(body, []byte(`"version":"1.2.3"`)) {
					t.Errorf("body does not report version 1.2.3: %s", body)
				}
			},
		},
		{
			name: "health with X-Service-API-Key",
			send: exchange{method: "GET", target: "/api/v1/health",
				header: func(e *contractEnv) http.Header { return http.Header{"X-Service-Api-Key": {e.key}} }},
			wantStatus: http.StatusOK,
		},
		{
			name:       "health HEAD",
			send:       exchange{method: "HEAD", target: "/api/v1/health", header: func(e *contractEnv) http.Header { return withToken(e.key) }},
			wantStatus: http.StatusOK,
		},
		{
			name:       "health without a credential",
			send:       exchange{method: "GET", target: "/api/v1/health"},
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized,
		},
		{
			name: "health with a retired key format",
			send: exchange{method: "GET", target: "/api/v1/health",
				header: func(*contractEnv) http.Header { return withToken("abcdef.ghijkl") }},
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized,
		},
		{
			name:       "health with a free plan key",
			send:       exchange{method: "GET", target: "/api/v1/health", header: func(e *contractEnv) http.Header { return withToken(e.freeKey) }},
			wantStatus: http.StatusPaymentRequired, wantCode: CodeSubscriptionRequired,
		},
		{
			name:       "health over the rate limit",
			cfg:        Config{RateLimit: Rate{Count: 1, Window: time.Minute, Burst: 1}},
			before:     []exchange{{method: "GET", target: "/api/v1/health", header: func(e *contractEnv) http.Header { return withToken(e.key) }}},
			send:       exchange{method: "GET", target: "/api/v1/health", header: func(e *contractEnv) http.Header { return withToken(e.key) }},
			wantStatus: http.StatusTooManyRequests, wantCode: CodeRateLimitExceeded,
		},
		{
			name:       "health with the database down",
			dbDown:     true,
			send:       exchange{method: "GET", target: "/api/v1/health", header: func(e *contractEnv) http.Header { return withToken(e.key) }},
			wantStatus: http.StatusServiceUnavailable,
		},
		{
			name:       "health with a wrong method",
			send:       exchange{method: "POST", target: "/api/v1/health", header: func(e *contractEnv) http.Header { return withToken(e.key) }},
			wantStatus: http.StatusMethodNotAllowed, wantCode: CodeValidation,
			check: func(t *testing.T, _ *contractEnv, resp *http.Response, _ []byte) {
				if got := resp.Header.Get("Allow"); got != "GET, HEAD" {
					t.Errorf("Allow = %q, want %q", got, "GET, HEAD")
				}
			},
		},
		{
			name:       "unknown route",
			send:       exchange{method: "GET", target: "/api/v1/nothing-here"},
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound,
		},
		{
			name:       "login",
			send:       exchange{method: "POST", target: "/api/v1/auth/login", header: func(*contractEnv) http.Header { return jsonBody }, body: login("owner@example.com", contractPassword)},
			wantStatus: http.StatusOK,
			check: func(t *testing.T, env *contractEnv, _ *http.Response, body []byte) {
				// The token must work as a bearer credential.
				_, token, ok := bytes.Cut(body, []byte(`"access_token":"`))
				token, _, _ = bytes.Cut(token, []byte(`"`))
				if !ok || len(token) == 0 {
					t.Fatalf("no access_token in %s", body)
				}
				resp, _ := env.do(t, "GET", "/api/v1/health", withToken(string(token)), nil)
				if resp.StatusCode != http.StatusOK {
					t.Errorf("health with the issued token: status %d, want 200", resp.StatusCode)
				}
			},
		},
		{
			name:       "login without Content-Type",
			send:       exchange{method: "POST", target: "/api/v1/auth/login", body: login("owner@example.com", contractPassword)},
			wantStatus: http.StatusOK,
		},
		{
			name:       "login with malformed JSON",
			send:       exchange{method: "POST", target: "/api/v1/auth/login", header: func(*contractEnv) http.Header { return jsonBody }, body: []byte(`{"email":`)},
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		},
		{
			name:       "login without a password",
			send:       exchange{method: "POST", target: "/api/v1/auth/login", header: func(*contractEnv) http.Header { return jsonBody }, body: []byte(`{"email":"owner@example.com"}`)},
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			check: func(t *testing.T, _ *contractEnv, _ *http.Response, body []byte) {
				if !bytes.Contains(body, []byte(`"fields":{"password":"is required"}`)) {
					t.Errorf("error does not name the password field: %s", body)
				}
			},
		},
		{
			name:       "login with a wrong password",
			send:       exchange{method: "POST", target: "/api/v1/auth/login", header: func(*contractEnv) http.Header { return jsonBody }, body: login("owner@example.com", "wrong password")},
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized,
		},
		{
			name:       "login with a body over the limit",
			cfg:        Config{MaxBodyBytes: 64},
			send:       exchange{method: "POST", target: "/api/v1/auth/login", header: func(*contractEnv) http.Header { return jsonBody }, body: login("owner@example.com", strings.Repeat("x", 100))},
			wantStatus: http.StatusRequestEntityTooLarge, wantCode: CodeValidation,
		},
		{
			name:       "login over the per-IP rate limit",
			cfg:        Config{LoginRateLimit: Rate{Count: 1, Window: time.Minute, Burst: 1}},
			before:     []exchange{{method: "POST", target: "/api/v1/auth/login", body: login("owner@example.com", "wrong password")}},
			send:       exchange{method: "POST", target: "/api/v1/auth/login", body: login("owner@example.com", contractPassword)},
			wantStatus: http.StatusTooManyRequests, wantCode: CodeRateLimitExceeded,
		},
		{
			name:       "healthz",
			send:       exchange{method: "GET", target: "/healthz"},
			wantStatus: http.StatusOK,
			check: func(t *testing.T, _ *contractEnv, _ *http.Response, body []byte) {
				if !bytes.Contains(body, []byte(`"data":null`)) {
					t.Errorf("healthz data is not null: %s", body)
				}
			},
		},
		{
			name:       "healthz with the database down",
			dbDown:     true,
			send:       exchange{method: "GET", target: "/healthz"},
			wantStatus: http.StatusServiceUnavailable,
		},
		{
			name:       "openapi.yaml",
			send:       exchange{method: "GET", target: "/api/openapi.yaml"},
			wantStatus: http.StatusOK,
			check: func(t *testing.T, _ *contractEnv, resp *http.Response, body []byte) {
				if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/yaml") {
					t.Errorf("Content-Type = %q, want application/yaml", ct)
				}
				if !bytes.Equal(body, assets.OpenAPI) {
					t.Error("body is not the embedded contract")
				}
			},
		},
		{
			name:       "internal error carries the request id",
			setup:      func(env *contractEnv) { env.db.Close() }, // the key lookup fails
			send:       exchange{method: "GET", target: "/api/v1/health", header: func(e *contractEnv) http.Header { return withToken(e.key) }},
			wantStatus: http.StatusInternalServerError, wantCode: CodeInternal,
			check: func(t *testing.T, _ *contractEnv, resp *http.Response, body []byte) {
				id := resp.Header.Get("X-Request-Id")
				if id == "" || !bytes.Contains(body, []byte(`"request_id":"`+id+`"`)) {
					t.Errorf("error.request_id does not carry X-Request-Id %q: %s", id, body)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.Version = "1.2.3"
			env := contractTestServer(t, cfg, tt.dbDown)
			if tt.setup != nil {
				tt.setup(env)
			}
			headerOf := func(x exchange) http.Header {
				if x.header == nil {
					return nil
				}
				return x.header(env)
			}
			for _, x := range tt.before {
				env.do(t, x.method, x.target, headerOf(x), x.body)
			}
			resp, body := env.do(t, tt.send.method, tt.send.target, headerOf(tt.send), tt.send.body)
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d, want %d; body: %s", resp.StatusCode, tt.wantStatus, body)
			}
			if tt.wantCode != "" && !bytes.Contains(body, []byte(`"code":"`+tt.wantCode+`"`)) {
				t.Errorf("body does not carry code %s: %s", tt.wantCode, body)
			}
			if tt.check != nil {
				tt.check(t, env, resp, body)
			}
		})
	}
}

// TestContractCategoryExchanges walks a category through its life at both
// prefixes, with the error answers on the way; checkContract validates each step.
func TestContractCategoryExchanges(t *testing.T) {
	for _, base := range []string{"/api/v1/categories", "/api/v1/user-settings/categories"} {
		t.Run(base, func(t *testing.T) {
			env := contractTestServer(t, Config{}, false)
			read := http.Header{"Authorization": {"Bearer " + env.key}}
			write := http.Header{"Authorization": {"Bearer " + env.writeKey}, "Content-Type": {"application/json"}}
			free := http.Header{"Authorization": {"Bearer " + env.freeKey}}
			step := func(name, method, target string, header http.Header, body string, wantStatus int, wantCode string) []byte {
				t.Helper()
				resp, got := env.do(t, method, target, header, []byte(body))
				if resp.StatusCode != wantStatus {
					t.Errorf("%s: %s %s: status %d, want %d; body: %s", name, method, target, resp.StatusCode, wantStatus, got)
				}
				if wantCode != "" && !bytes.Contains(got, []byte(`"code":"`+wantCode+`"`)) {
					t.Errorf("%s: body does not carry code %s: %s", name, wantCode, got)
				}
				return got
			}

			step("list", "GET", base+"?kind=expense&sortBy=created_at&sortOrder=desc&limit=5", read, "", http.StatusOK, "")
			step("list with a bad sortBy", "GET", base+"?sortBy=color", read, "", http.StatusBadRequest, CodeValidation)
			step("list with a bad status", "GET", base+"?status=gone", read, "", http.StatusBadRequest, CodeValidation)
			step("list on the free plan", "GET", base, free, "", http.StatusPaymentRequired, CodeSubscriptionRequired)
			step("create with a read key", "POST", base, read, `{"name":"Coffee","kind":"expense"}`, http.StatusForbidden, CodeForbidden)
			step("create without a kind", "POST", base, write, `{"name":"Coffee"}`, http.StatusBadRequest, CodeValidation)
			step("create with a wrong type", "POST", base, write, `{"name":7,"kind":"expense"}`, http.StatusBadRequest, CodeValidation)
			created := step("create", "POST", base, write, `{"name":"Coffee","kind":"expense","color":"#6F4E37","icon":"cup"}`, http.StatusCreated, "")
			step("create a duplicate", "POST", base, write, `{"name":"coffee","kind":"expense"}`, http.StatusBadRequest, CodeValidation)

			var c struct {
				Data struct {
					ID string `json:"id"`
				} `json:"data"`
			}
			if err := json.Unmarshal(created, &c); err != nil || c.Data.ID == "" {
				t.Fatalf("no id in the created category: %v; body: %s", err, created)
			}
			item := base + "/" + c.Data.ID
			step("get", "GET", item, read, "", http.StatusOK, "")
			step("get an unknown id", "GET", base+"/"+finance.NewID(), read, "", http.StatusNotFound, CodeNotFound)
			step("get a malformed id", "GET", base+"/not-an-id", read, "", http.StatusNotFound, CodeNotFound)
			step("update", "PUT", item, write, `{"name":"Coffee & Tea","color":null}`, http.StatusOK, "")
			step("update the kind", "PUT", item, write, `{"kind":"income"}`, http.StatusBadRequest, CodeValidation)
			step("archive", "DELETE", item, write, "", http.StatusOK, "")
			step("archive again", "DELETE", item, write, "", http.StatusBadRequest, CodeInvalidStatus)
			step("update an archived category", "PUT", item, write, `{"name":"Tea"}`, http.StatusBadRequest, CodeInvalidStatus)
			step("list archived", "GET", base+"?status=archived", read, "", http.StatusOK, "")
		})
	}
}

// contractRecorder is a testing.TB that records failures instead of
// failing, to prove that checkContract reports what it should.
type contractRecorder struct {
	testing.TB
	failures []string
}

func (r *contractRecorder) Helper() {}
func (r *contractRecorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *contractRecorder) Error(args ...any) { r.failures = append(r.failures, fmt.Sprint(args...)) }
func (r *contractRecorder) Fatalf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *contractRecorder) Fatal(args ...any) { r.failures = append(r.failures, fmt.Sprint(args...)) }

// TestCheckContractCatchesMismatches feeds checkContract fabricated
// exchanges that break the contract in one way each, plus valid ones.
func TestCheckContractCatchesMismatches(t *testing.T) {
	okHeaders := func(extra ...string) http.Header {
		h := http.Header{"Content-Type": {"application/json; charset=utf-8"}, "X-Request-Id": {"req-1"}}
		for i := 0; i+1 < len(extra); i += 2 {
			h.Set(extra[i], extra[i+1])
		}
		return h
	}
	tests := []struct {
		name       string
		method     string
		target     string
		reqHeader  http.Header
		reqBody    string
		status     int
		respHeader http.Header
		respBody   string
		want       string // substring of the reported failure; "" means no failure
	}{
		{
			name: "valid health", method: "GET", target: "/api/v1/health",
			status: 200, respHeader: okHeaders(),
			respBody: `{"success":true,"message":"Service is healthy","data":{"status":"ok","version":"1","database":"ok","extra":1}}`,
		},
		{
			name: "health without data.status", method: "GET", target: "/api/v1/health",
			status: 200, respHeader: okHeaders(),
			respBody: `{"success":true,"message":"Service is healthy","data":{"version":"1","database":"ok"}}`,
			want:     "'status'",
		},
		{
			name: "health with a wrong type", method: "GET", target: "/api/v1/health",
			status: 200, respHeader: okHeaders(),
			respBody: `{"success":true,"message":"Service is healthy","data":{"status":"ok","version":1,"database":"ok"}}`,
			want:     "/data/version",
		},
		{
			name: "success false on a 200", method: "GET", target: "/api/v1/health",
			status: 200, respHeader: okHeaders(),
			respBody: `{"success":false,"message":"Service is healthy","data":{"status":"ok","version":"1","database":"ok"}}`,
			want:     "/success",
		},
		{
			name: "status the operation does not declare", method: "GET", target: "/api/v1/health",
			status: http.StatusTeapot, respHeader: okHeaders(), respBody: `{}`,
			want: "status is not supported",
		},
		{
			name: "401 with the wrong code", method: "GET", target: "/api/v1/health",
			status: 401, respHeader: okHeaders("WWW-Authenticate", `Bearer realm="finance"`),
			respBody: `{"success":false,"error":{"message":"no","code":"FORBIDDEN"}}`,
			want:     "/error/code",
		},
		{
			name: "401 without WWW-Authenticate", method: "GET", target: "/api/v1/health",
			status: 401, respHeader: okHeaders(),
			respBody: `{"success":false,"error":{"message":"no","code":"UNAUTHORIZED"}}`,
			want:     "WWW-Authenticate",
		},
		{
			name: "429 without Retry-After", method: "GET", target: "/api/v1/health",
			status: 429, respHeader: okHeaders("RateLimit-Policy", `"per-credential";q=1;w=60`, "RateLimit", `"per-credential";r=0;t=60`),
			respBody: `{"success":false,"error":{"message":"slow down","code":"RATE_LIMIT_EXCEEDED"}}`,
			want:     "Retry-After",
		},
		{
			name: "response without X-Request-Id", method: "GET", target: "/healthz",
			status: 200, respHeader: http.Header{"Content-Type": {"application/json"}},
			respBody: `{"success":true,"message":"OK","data":null}`,
			want:     "X-Request-Id",
		},
		{
			name: "500 without request_id", method: "GET", target: "/healthz",
			status: 500, respHeader: okHeaders(),
			respBody: `{"success":false,"error":{"message":"oops","code":"INTERNAL_SERVER_ERROR"}}`,
			want:     "request_id",
		},
		{
			name: "request the contract rejects, accepted by the server", method: "POST", target: "/api/v1/auth/login",
			reqHeader: http.Header{"Content-Type": {"application/json"}}, reqBody: `{"email":5,"password":"x"}`,
			status: 200, respHeader: okHeaders(),
			respBody: `{"success":true,"message":"Signed in","data":{"access_token":"t","token_type":"Bearer","expires_in":900}}`,
			want:     "the contract rejects this request",
		},
		{
			name: "request the contract rejects, rejected by the server", method: "POST", target: "/api/v1/auth/login",
			reqHeader: http.Header{"Content-Type": {"application/json"}}, reqBody: `{"email":5,"password":"x"}`,
			status: 400, respHeader: okHeaders(),
			respBody: `{"success":false,"error":{"message":"Validation failed: email must be a string","code":"VALIDATION_ERROR","fields":{"email":"must be a string"}}}`,
		},
		{
			name: "route not in the contract", method: "GET", target: "/api/v1/not-in-contract",
			status: 200, respHeader: okHeaders(),
			respBody: `{"success":true,"message":"ok","data":null}`,
			want:     "has no operation in the contract",
		},
		{
			name: "a handler's 404 on a path outside the contract", method: "GET", target: "/api/v1/widgets/1",
			status: 404, respHeader: okHeaders(),
			respBody: `{"success":false,"error":{"message":"Widget not found","code":"NOT_FOUND"}}`,
			want:     "has no operation in the contract",
		},
		{
			name: "the router's 404", method: "GET", target: "/api/v1/not-in-contract",
			status: 404, respHeader: okHeaders(),
			respBody: `{"success":false,"error":{"message":"No route for GET on this path; the routes are listed at /api/docs","code":"NOT_FOUND"}}`,
		},
		{
			name: "405 without Allow", method: "DELETE", target: "/api/v1/health",
			status: 405, respHeader: okHeaders(),
			respBody: `{"success":false,"error":{"message":"Method DELETE is not allowed on this path; allowed: GET, HEAD","code":"VALIDATION_ERROR"}}`,
			want:     "Allow",
		},
		{
			name: "a page is outside the contract", method: "GET", target: "/api/docs/init.js",
			status: 200, respHeader: http.Header{"Content-Type": {"text/javascript"}}, respBody: `window`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.target, strings.NewReader(tt.reqBody))
			maps.Copy(req.Header, tt.reqHeader)
			resp := &http.Response{StatusCode: tt.status, Header: tt.respHeader, Body: http.NoBody}
			rec := &contractRecorder{TB: t}
			checkContract(rec, req, []byte(tt.reqBody), resp, []byte(tt.respBody))
			switch {
			case tt.want == "" && len(rec.failures) > 0:
				t.Errorf("checkContract reported a valid exchange:\n%s", strings.Join(rec.failures, "\n"))
			case tt.want != "" && len(rec.failures) == 0:
				t.Errorf("checkContract accepted the exchange; want a failure mentioning %q", tt.want)
			case tt.want != "" && !strings.Contains(strings.Join(rec.failures, "\n"), tt.want):
				t.Errorf("checkContract failure does not mention %q:\n%s", tt.want, strings.Join(rec.failures, "\n"))
			}
		})
	}
}
