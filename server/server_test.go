package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

func TestSuccessEnvelope(t *testing.T) {
	env := newTestEnv(t)
	key := env.createKey(env.createUser(finance.PlanPro).ID, auth.ScopeRead)
	runScenarios(t, env, []apiScenario{
		{
			name:        "healthz has null data",
			method:      http.MethodGet,
			url:         "/healthz",
			wantStatus:  http.StatusOK,
			wantMessage: "OK",
			wantHeaders: map[string]string{"Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store"},
			check: func(t testing.TB, res apiResult) {
				if string(res.env.Data) != "null" {
					t.Errorf("data = %s, want null", res.env.Data)
				}
			},
		},
		{
			name:        "health carries the report",
			method:      http.MethodGet,
			url:         "/api/v1/health",
			headers:     bearer(key),
			wantStatus:  http.StatusOK,
			wantMessage: "Service is healthy",
			wantData:    Health{Status: "ok", Version: "test-version", Database: "ok"},
		},
	})
}

// unreachableDatabase is the test database whose reads always fail.
type unreachableDatabase struct{ Database }

func (unreachableDatabase) Ping(context.Context) error { return errors.New("database is gone") }

// ReadAnsweredSince: a database that is gone answered nothing.
func (unreachableDatabase) ReadAnsweredSince(time.Time) bool { return false }

// unwritableDatabase is the test database that reads but cannot commit a
// write, as with a full disk; it counts its write probes.
type unwritableDatabase struct {
	Database
	probes *atomic.Int64
}

func (d unwritableDatabase) ProbeWrite(context.Context) error {
	d.probes.Add(1)
	return errors.New("database or disk is full")
}

// A database that does not answer (unavailable) or answers reads but cannot
// commit a write (read_only) fails both health routes, without the cause in
// the body. Polled three times, the routes run the write probe once: its
// result stands for writeProbeInterval.
func TestHealthDegraded(t *testing.T) {
	env := newTestEnv(t)
	key := env.createKey(env.createUser(finance.PlanPro).ID, auth.ScopeRead)
	probes := &atomic.Int64{}
	for _, tc := range []struct {
		db         Database
		state      string
		wantProbes int64
	}{
		{unreachableDatabase{env.db}, "unavailable", 0},
		{unwritableDatabase{env.db, probes}, "read_only", 1},
	} {
		t.Run(tc.state, func(t *testing.T) {
			degraded := *env
			degraded.srv = New(Config{Version: "test-version"}, env.srv.log, env.auth, tc.db)
			noCause := func(t testing.TB, res apiResult) {
				if strings.Contains(string(res.raw), "gone") || strings.Contains(string(res.raw), "full") {
					t.Errorf("body leaks the cause: %s", res.raw)
				}
			}
			for range 3 {
				runScenarios(t, &degraded, []apiScenario{
					{
						name:        "health reports the database",
						method:      http.MethodGet,
						url:         "/api/v1/health",
						headers:     bearer(key),
						wantStatus:  http.StatusServiceUnavailable,
						wantMessage: "Service is degraded",
						wantData:    Health{Status: "degraded", Version: "test-version", Database: tc.state},
						check:       noCause,
					},
					{
						name:        "healthz fails without a credential",
						method:      http.MethodGet,
						url:         "/healthz",
						wantStatus:  http.StatusServiceUnavailable,
						wantMessage: "Unavailable",
						wantData:    json.RawMessage("null"), // the contract's NoDataEnvelope, even on 503
						check:       noCause,
					},
				})
			}
			if n := probes.Load(); n != tc.wantProbes {
				t.Errorf("6 health checks ran the write probe %d times, want %d", n, tc.wantProbes)
			}
		})
	}
}

// The write probe's result stands for writeProbeInterval, then the next
// check probes again; a recovered database is healthy again.
func TestWriteProbeInterval(t *testing.T) {
	var p writeProbe
	calls, fail := 0, true
	probe := func(context.Context) error {
		calls++
		if fail {
			return errors.New("disk full")
		}
		return nil
	}
	start := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		after     time.Duration
		fail      bool
		wantErr   bool
		wantCalls int
	}{
		{0, true, true, 1},
		{writeProbeInterval - time.Millisecond, false, true, 1}, // still the stored failure
		{writeProbeInterval, false, false, 2},                   // probed again: recovered
		{2 * writeProbeInterval, true, true, 3},
	} {
		fail = tc.fail
		err := p.check(context.Background(), probe, start.Add(tc.after))
		if (err != nil) != tc.wantErr || calls != tc.wantCalls {
			t.Errorf("after %v: err %v, %d probes; want error %v, %d probes", tc.after, err, calls, tc.wantErr, tc.wantCalls)
		}
	}
}

func TestRouting(t *testing.T) {
	env := newTestEnv(t)
	key := env.createKey(env.createUser(finance.PlanPro).ID, auth.ScopeRead)
	runScenarios(t, env, []apiScenario{
		{
			name:        "unknown route",
			method:      http.MethodGet,
			url:         "/api/v1/no-such-thing",
			wantStatus:  http.StatusNotFound,
			wantCode:    CodeNotFound,
			wantMessage: "No route for GET on this path; the routes are listed at /api/docs",
		},
		{
			name:        "root sends a browser to sign in",
			method:      http.MethodGet,
			url:         "/",
			wantStatus:  http.StatusSeeOther,
			wantHeaders: map[string]string{"Location": "/login"},
		},
		{
			name:        "unknown route with credentials",
			method:      http.MethodPost,
			url:         "/api/v1/expenses-typo",
			headers:     bearer(key),
			body:        `{}`,
			wantStatus:  http.StatusNotFound,
			wantCode:    CodeNotFound,
			wantMessage: "No route for POST on this path; the routes are listed at /api/docs",
		},
		{
			name:        "POST on a GET route",
			method:      http.MethodPost,
			url:         "/api/v1/health",
			body:        `{}`,
			wantStatus:  http.StatusMethodNotAllowed,
			wantCode:    CodeValidation,
			wantMessage: "Method POST is not allowed on this path; allowed: GET, HEAD",
			wantHeaders: map[string]string{"Allow": "GET, HEAD"},
		},
		{
			name:        "DELETE on a POST route",
			method:      http.MethodDelete,
			url:         "/api/v1/auth/login",
			wantStatus:  http.StatusMethodNotAllowed,
			wantCode:    CodeValidation,
			wantHeaders: map[string]string{"Allow": "POST"},
		},
		{
			name:        "HEAD on a POST route",
			method:      http.MethodHead,
			url:         "/api/v1/auth/login",
			wantStatus:  http.StatusMethodNotAllowed,
			wantHeaders: map[string]string{"Allow": "POST"},
		},
		{
			name:        "HEAD on a public GET route",
			method:      http.MethodHead,
			url:         "/healthz",
			wantStatus:  http.StatusOK,
			wantHeaders: map[string]string{"Content-Type": "application/json; charset=utf-8"},
		},
		{
			name:       "HEAD on an authenticated GET route",
			method:     http.MethodHead,
			url:        "/api/v1/health",
			headers:    bearer(key),
			wantStatus: http.StatusOK,
		},
		{
			// HEAD reaches the GET route's handler with its path parameters.
			name:       "HEAD on a GET route with a path parameter",
			method:     http.MethodHead,
			url:        "/api/v1/expenses/01a21d79-0000-7000-8000-000000000000",
			headers:    bearer(key),
			wantStatus: http.StatusNotFound,
		},
		{
			name:       "HEAD on an authenticated GET route without credentials",
			method:     http.MethodHead,
			url:        "/api/v1/health",
			wantStatus: http.StatusUnauthorized,
		},
		{
			name:        "trailing slash on POST is not redirected",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login/",
			body:        `{"email":"a@example.com","password":"whatever1"}`,
			wantStatus:  http.StatusNotFound,
			wantCode:    CodeNotFound,
			wantMessage: "No route for POST on this path; the routes are listed at /api/docs",
			noHeaders:   []string{"Location"},
		},
		{
			name:       "trailing slash on GET is not redirected",
			method:     http.MethodGet,
			url:        "/api/v1/health/",
			headers:    bearer(key),
			wantStatus: http.StatusNotFound,
			wantCode:   CodeNotFound,
			noHeaders:  []string{"Location"},
		},
		{
			name:       "double slash is not redirected",
			method:     http.MethodGet,
			url:        "/api/v1//health",
			headers:    bearer(key),
			wantStatus: http.StatusNotFound,
			wantCode:   CodeNotFound,
			noHeaders:  []string{"Location"},
		},
		{
			// bunrouter panicked on a NUL at the end of a path parameter.
			name:       "a NUL in a path parameter",
			method:     http.MethodGet,
			url:        "/api/v1/categories/%00",
			headers:    bearer(key),
			wantStatus: http.StatusNotFound,
			wantCode:   CodeNotFound,
		},
		{
			name:       "a NUL in a page's path",
			method:     http.MethodGet,
			url:        "/reports/%00",
			wantStatus: http.StatusNotFound,
			check: func(t testing.TB, res apiResult) {
				if !bytes.Contains(res.raw, []byte("<h1>Page not found</h1>")) {
					t.Errorf("not the not-found page: %s", res.raw)
				}
			},
		},
		{
			name:       "dot segment is not redirected",
			method:     http.MethodGet,
			url:        "/api/v1/./health",
			headers:    bearer(key),
			wantStatus: http.StatusNotFound,
			wantCode:   CodeNotFound,
			noHeaders:  []string{"Location"},
		},
	})
}

// TestOverTheWire checks what only a real connection shows: HEAD has no body,
// and a chunked body over the limit is refused.
func TestOverTheWire(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.MaxBodyBytes = 64 })
	ts := httptest.NewServer(env.srv.Handler())
	t.Cleanup(ts.Close)

	resp, err := http.Head(ts.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(body) != 0 {
		t.Errorf("HEAD /healthz = %d with %d body bytes, want 200 with none", resp.StatusCode, len(body))
	}
	if resp.Header.Get("X-Request-Id") == "" {
		t.Error("HEAD /healthz has no X-Request-Id")
	}

	// io.MultiReader hides the length, so the client sends the body chunked.
	big := `{"email":"a@example.com","password":"` + strings.Repeat("x", 200) + `"}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/api/v1/auth/login", io.MultiReader(strings.NewReader(big)))
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), `"code":"VALIDATION_ERROR"`) {
		t.Errorf("chunked oversized login = %d %s, want 413 VALIDATION_ERROR", resp.StatusCode, body)
	}
}

func TestLoginBodyDecoding(t *testing.T) {
	env := newTestEnv(t)
	runScenarios(t, env, []apiScenario{
		{
			name:       "malformed JSON",
			method:     http.MethodPost,
			url:        "/api/v1/auth/login",
			body:       `{"email": "a@example.com",`,
			wantStatus: http.StatusBadRequest,
			wantCode:   CodeValidation,
			wantInMsg:  []string{"not valid JSON"},
		},
		{
			name:       "trailing garbage",
			method:     http.MethodPost,
			url:        "/api/v1/auth/login",
			body:       `{"email":"a@example.com","password":"whatever1"} x`,
			wantStatus: http.StatusBadRequest,
			wantCode:   CodeValidation,
			wantInMsg:  []string{"not valid JSON"},
		},
		{
			name:        "number where a string is expected",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			body:        `{"email":"a@example.com","password":12345678}`,
			wantStatus:  http.StatusBadRequest,
			wantCode:    CodeValidation,
			wantMessage: "Validation failed: password must be a string",
			wantFields:  map[string]string{"password": "must be a string"},
		},
		{
			name:       "array where a string is expected",
			method:     http.MethodPost,
			url:        "/api/v1/auth/login",
			body:       `{"email":["a@example.com"],"password":"whatever1"}`,
			wantStatus: http.StatusBadRequest,
			wantCode:   CodeValidation,
			wantFields: map[string]string{"email": "must be a string"},
		},
		{
			name:        "array body",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			body:        `["a@example.com","whatever1"]`,
			wantStatus:  http.StatusBadRequest,
			wantCode:    CodeValidation,
			wantMessage: "Request body must be a JSON object",
		},
		{
			name:        "wrong content type",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			body:        `{"email":"a@example.com","password":"whatever1"}`,
			headers:     map[string]string{"Content-Type": "text/plain"},
			wantStatus:  http.StatusBadRequest,
			wantCode:    CodeValidation,
			wantMessage: "Content-Type must be application/json or multipart/form-data",
		},
		{
			name:        "a multipart type over a body that is not a form",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			body:        `{"email":"a@example.com","password":"whatever1"}`,
			headers:     map[string]string{"Content-Type": "multipart/form-data; boundary=x"},
			wantStatus:  http.StatusBadRequest,
			wantCode:    CodeValidation,
			wantMessage: "Request body is not a valid multipart form",
		},
		{
			name:        "empty body",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			wantStatus:  http.StatusBadRequest,
			wantCode:    CodeValidation,
			wantMessage: "Request body is required: send a JSON object",
		},
		{
			name:        "blank body",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			body:        " \n\t ",
			wantStatus:  http.StatusBadRequest,
			wantCode:    CodeValidation,
			wantMessage: "Request body is required: send a JSON object",
		},
		{
			name:        "missing fields are all reported",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			body:        `{}`,
			wantStatus:  http.StatusBadRequest,
			wantCode:    CodeValidation,
			wantMessage: "Validation failed",
			wantFields:  map[string]string{"email": "is required", "password": "is required"},
		},
		{
			name:        "JSON with charset and unknown fields is read",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			body:        `{"email":"nobody@example.com","password":"whatever1","remember":true}`,
			headers:     map[string]string{"Content-Type": "application/json; charset=utf-8"},
			wantStatus:  http.StatusUnauthorized,
			wantCode:    CodeUnauthorized,
			wantMessage: "Invalid email or password",
		},
	})
}

func TestBodyLimit(t *testing.T) {
	const limit = 64
	env := newTestEnv(t, func(c *Config) { c.MaxBodyBytes = limit })
	env.srv.handle(http.MethodPost, "/api/v1/test/upload", auth.Write(auth.ScopeExpensesWrite), echoPrincipal)

	pad := func(n int) string {
		s := `{"email":"nobody@example.com","password":"`
		return s + strings.Repeat("p", n-len(s)-2) + `"}`
	}
	tooLarge := fmt.Sprintf("Request body is larger than the %d byte limit of this route", limit)
	runScenarios(t, env, []apiScenario{
		{
			name:        "at the limit is read",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			body:        pad(limit),
			wantStatus:  http.StatusUnauthorized,
			wantCode:    CodeUnauthorized,
			wantMessage: "Invalid email or password",
		},
		{
			name:        "at the limit, chunked, is read",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			body:        pad(limit),
			chunked:     true,
			wantStatus:  http.StatusUnauthorized,
			wantCode:    CodeUnauthorized,
			wantMessage: "Invalid email or password",
		},
		{
			name:        "over the limit with Content-Length",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			body:        pad(limit + 1),
			wantStatus:  http.StatusRequestEntityTooLarge,
			wantCode:    CodeValidation,
			wantMessage: tooLarge,
		},
		{
			name:        "over the limit chunked",
			method:      http.MethodPost,
			url:         "/api/v1/auth/login",
			body:        pad(limit + 1),
			chunked:     true,
			wantStatus:  http.StatusRequestEntityTooLarge,
			wantCode:    CodeValidation,
			wantMessage: tooLarge,
		},
		{
			name:        "declared length is refused before authentication",
			method:      http.MethodPost,
			url:         "/api/v1/test/upload",
			body:        strings.Repeat(" ", limit+1),
			testRoute:   true,
			wantStatus:  http.StatusRequestEntityTooLarge,
			wantCode:    CodeValidation,
			wantMessage: tooLarge,
		},
	})
}

func TestErrorRendering(t *testing.T) {
	env := newTestEnv(t)
	logged := env.logs
	routes := []struct {
		path string
		err  error
	}{
		{"/api/v1/test/not-found", finance.NotFound("expense")},
		{"/api/v1/test/invalid-status", fmt.Errorf("void: %w", finance.InvalidStatus("expense is already voided"))},
		{"/api/v1/test/validation", finance.Invalid("amount", "must be greater than 0")},
		{"/api/v1/test/forbidden", &auth.Error{Kind: auth.ErrForbidden, Message: "no"}},
		{"/api/v1/test/unexpected", errors.New("disk full at /var/secret/path")},
	}
	for _, r := range routes {
		env.srv.handle(http.MethodGet, r.path, auth.Public, func(http.ResponseWriter, bunrouter.Request) error { return r.err })
	}
	runScenarios(t, env, []apiScenario{
		{
			name: "not found", method: http.MethodGet, url: "/api/v1/test/not-found", testRoute: true,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Expense not found",
		},
		{
			name: "invalid status", method: http.MethodGet, url: "/api/v1/test/invalid-status", testRoute: true,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantMessage: "Void: expense is already voided",
		},
		{
			name: "validation", method: http.MethodGet, url: "/api/v1/test/validation", testRoute: true,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantMessage: "Validation failed: amount must be greater than 0",
			wantFields:  map[string]string{"amount": "must be greater than 0"},
		},
		{
			name: "forbidden", method: http.MethodGet, url: "/api/v1/test/forbidden", testRoute: true,
			wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantMessage: "no",
			noHeaders: []string{"WWW-Authenticate"},
		},
		{
			name: "unexpected", method: http.MethodGet, url: "/api/v1/test/unexpected", testRoute: true,
			headers:    map[string]string{"X-Request-Id": "req-500"},
			wantStatus: http.StatusInternalServerError, wantCode: CodeInternal,
			wantMessage: "An unexpected error occurred; quote request id req-500 when reporting it",
			check: func(t testing.TB, res apiResult) {
				if res.env.Error == nil || res.env.Error.RequestID != "req-500" {
					t.Errorf("request_id = %+v, want req-500", res.env.Error)
				}
				if strings.Contains(string(res.raw), "disk full") || strings.Contains(string(res.raw), "/var/secret") {
					t.Errorf("body leaks the cause: %s", res.raw)
				}
			},
		},
	})
	// The cause of a 500 goes to the log, under the request id; 4xx are not logged as errors.
	if log := logged.String(); !strings.Contains(log, "request_id=req-500") || !strings.Contains(log, "disk full at /var/secret/path") {
		t.Errorf("the 500's cause is not logged with its request id; log:\n%s", log)
	}
	if n := strings.Count(logged.String(), "level=ERROR"); n != 1 {
		t.Errorf("%d error lines logged, want 1 (only the 500); log:\n%s", n, logged.String())
	}
}

func TestPanicIsInternalError(t *testing.T) {
	env := newTestEnv(t)
	logged := env.logs
	key := env.createKey(env.createUser(finance.PlanPro).ID, auth.ScopeRead)
	env.srv.handle(http.MethodGet, "/api/v1/test/panic", auth.Read(auth.ScopeExpensesWrite), func(http.ResponseWriter, bunrouter.Request) error {
		panic("boom: secret-token-123")
	})
	for _, tc := range []struct {
		name      string
		requestID string // sent by the client
	}{
		{"server-made request id", ""},
		{"client request id", "client-req-42"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			headers := bearer(key)
			if tc.requestID != "" {
				headers["X-Request-Id"] = tc.requestID
			}
			res := apiScenario{
				method: http.MethodGet, url: "/api/v1/test/panic", headers: headers, testRoute: true,
				wantStatus: http.StatusInternalServerError, wantCode: CodeInternal,
			}.run(t, env)
			id := res.header.Get("X-Request-Id")
			if tc.requestID != "" && id != tc.requestID {
				t.Errorf("X-Request-Id = %q, want %q", id, tc.requestID)
			}
			if tc.requestID == "" && !finance.ValidID(id) {
				t.Errorf("X-Request-Id = %q, want a generated UUID", id)
			}
			if res.env.Error == nil || res.env.Error.RequestID != id {
				t.Errorf("error.request_id = %+v, want %q (the X-Request-Id header)", res.env.Error, id)
			}
			if !strings.Contains(res.message(), id) {
				t.Errorf("message %q does not quote the request id %q", res.message(), id)
			}
			for _, leak := range []string{"boom", "secret-token-123", "goroutine", ".go:"} {
				if strings.Contains(string(res.raw), leak) {
					t.Errorf("body leaks %q: %s", leak, res.raw)
				}
			}
			if log := logged.String(); !strings.Contains(log, "request_id="+id) || !strings.Contains(log, "secret-token-123") {
				t.Errorf("the panic is not logged with request id %s; log:\n%s", id, log)
			}
		})
	}
	// The server keeps serving after a panic.
	apiScenario{method: http.MethodGet, url: "/healthz", wantStatus: http.StatusOK}.run(t, env)
}

func TestRequestID(t *testing.T) {
	env := newTestEnv(t)
	for _, tc := range []struct {
		name string
		sent string
		echo bool
	}{
		{"sane id is echoed", "abc-DEF_123.x", true},
		{"64 characters are echoed", strings.Repeat("a", 64), true},
		{"missing id is generated", "", false},
		{"65 characters are replaced", strings.Repeat("a", 65), false},
		{"spaces are replaced", "abc def", false},
		{"markup is replaced", "<script>alert(1)</script>", false},
		{"non-ASCII is replaced", "réquest", false},
		{"header injection is replaced", "abc\tdef", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var headers map[string]string
			if tc.sent != "" {
				headers = map[string]string{"X-Request-Id": tc.sent}
			}
			// Both a success and an error response carry the id.
			for _, sc := range []apiScenario{
				{method: http.MethodGet, url: "/healthz", headers: headers, wantStatus: http.StatusOK},
				{method: http.MethodGet, url: "/api/v1/health", headers: headers, wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized},
			} {
				url := sc.url
				res := sc.run(t, env)
				got := res.header.Get("X-Request-Id")
				switch {
				case tc.echo && got != tc.sent:
					t.Errorf("%s: X-Request-Id = %q, want %q echoed", url, got, tc.sent)
				case !tc.echo && !finance.ValidID(got):
					t.Errorf("%s: X-Request-Id = %q, want a generated UUID", url, got)
				}
			}
		})
	}
	a := apiScenario{method: http.MethodGet, url: "/healthz"}.run(t, env).header.Get("X-Request-Id")
	b := apiScenario{method: http.MethodGet, url: "/healthz"}.run(t, env).header.Get("X-Request-Id")
	if a == b {
		t.Errorf("two requests got the same generated id %q", a)
	}
}

func TestRouteWithoutRequirementPanics(t *testing.T) {
	env := newTestEnv(t)
	defer func() {
		v := recover()
		if v == nil {
			t.Fatal("registering a route with the zero auth.Requirement did not panic")
		}
		if msg := fmt.Sprint(v); !strings.Contains(msg, "GET /api/v1/test/forgotten declares no scope") {
			t.Errorf("panic = %q, want it to name the route", msg)
		}
	}()
	env.srv.handle(http.MethodGet, "/api/v1/test/forgotten", auth.Requirement{}, echoPrincipal)
}

func TestEveryRouteDeclaresARequirement(t *testing.T) {
	env := newTestEnv(t)
	routes := env.srv.Routes()
	if len(routes) == 0 {
		t.Fatal("no routes registered")
	}
	for _, rt := range routes {
		if !rt.Access.Valid() {
			t.Errorf("%s %s has no requirement", rt.Method, rt.Path)
		}
	}
}

// countingPings is the real store counting the health checks' own reads.
type countingPings struct {
	Database
	pings *atomic.Int64
}

func (d countingPings) Ping(ctx context.Context) error {
	d.pings.Add(1)
	return d.Database.Ping(ctx)
}

// Health does not read the database when a read begun in the second before
// the request was answered: an authenticated request's credentials'
// freshness check, or an earlier health check's own read. So a monitor
// polling /healthz, or a crowd of authenticated health checks, adds at most
// one read a second.
func TestHealthReadsOncePerRequest(t *testing.T) {
	env := newTestEnv(t)
	pings := &atomic.Int64{}
	counted := *env
	counted.srv = New(Config{Version: "test-version"}, env.srv.log, env.auth, countingPings{env.db, pings})
	for range 2 {
		rec := httptest.NewRecorder()
		counted.srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/healthz", nil))
		if rec.Code != http.StatusOK {
			t.Fatalf("/healthz: %d %s", rec.Code, rec.Body)
		}
	}
	if n := pings.Load(); n != 1 {
		t.Errorf("2 /healthz checks in a row pinged the database %d times, want 1", n)
	}
	key := env.createKey(env.createUser(finance.PlanPro).ID, auth.ScopeRead)
	for range 3 {
		runScenarios(t, &counted, []apiScenario{{
			name: "health with a key", method: http.MethodGet, url: "/api/v1/health", headers: bearer(key),
			wantStatus: http.StatusOK, wantMessage: "Service is healthy",
			wantData: Health{Status: "ok", Version: "test-version", Database: "ok"},
		}})
	}
	if n := pings.Load(); n != 1 {
		t.Errorf("3 authenticated health checks then pinged the database %d more times, want 0", n-1)
	}
}
