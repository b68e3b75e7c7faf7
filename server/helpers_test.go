package server

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/store"
)

// testEnv is one server over its own migrated SQLite database. Tests build it
// with newTestEnv, may register extra routes on srv before the first request,
// and send requests through apiScenario.run.
type testEnv struct {
	t         testing.TB
	db        *store.DB
	jwtSecret []byte
	jwt       *auth.JWT
	auth      *auth.Service
	srv       *Server
	// logs holds what srv logged, in text lines (jsonLogs: JSON), each
	// logged during a request with its request_id, as the binary's.
	logs *testkit.LogBuffer
}

// newTextLog is the binary's default logger, writing to w.
func newTextLog(w io.Writer) *slog.Logger { return slog.New(LogHandler(slog.NewTextHandler(w, nil))) }

// jsonLogs rebuilds e's server to log JSON lines from level up into e.logs,
// as serve --log-format json --log-level LEVEL does. Call it before the
// first request.
func (e *testEnv) jsonLogs(level slog.Level) {
	e.t.Helper()
	log := slog.New(LogHandler(slog.NewJSONHandler(e.logs, &slog.HandlerOptions{Level: level})))
	e.srv = New(e.srv.cfg, log, e.auth, e.srv.db)
}

// newTestEnv returns a server with unlimited rate limits and the default body
// limit; configure adjusts the Config before the server is built.
func newTestEnv(t testing.TB, configure ...func(*Config)) *testEnv {
	t.Helper()
	return newTestEnvOn(t, nil, configure...)
}

// newTestEnvOn is newTestEnv with the server on wrap(db) rather than on the
// database itself (a database whose disk is full, say); nil wraps nothing.
func newTestEnvOn(t testing.TB, wrap func(*store.DB) Database, configure ...func(*Config)) *testEnv {
	t.Helper()
	db := testkit.OpenDB(t)
	secret, issuer, svc := testkit.NewAuth(t, db)
	cfg := Config{BaseURL: testkit.BaseURL, Version: "test-version", UploadDir: t.TempDir()}
	for _, c := range configure {
		c(&cfg)
	}
	logs := &testkit.LogBuffer{}
	log := newTextLog(logs)
	var sdb Database = db
	if wrap != nil {
		sdb = wrap(db)
	}
	return &testEnv{t: t, db: db, jwtSecret: secret, jwt: issuer, auth: svc, srv: New(cfg, log, svc, sdb), logs: logs}
}

// createUser stores a user on plan whose password is testkit.Password.
func (e *testEnv) createUser(plan finance.Plan) finance.User {
	e.t.Helper()
	return testkit.CreateUser(e.t, e.auth, plan)
}

// createKey creates an API key for userID with scopes and returns the full key string.
func (e *testEnv) createKey(userID string, scopes ...auth.Scope) string {
	e.t.Helper()
	_, key := e.createKeyRecord(userID, scopes...)
	return key
}

// createKeyRecord is createKey that also returns the stored key.
func (e *testEnv) createKeyRecord(userID string, scopes ...auth.Scope) (auth.APIKey, string) {
	e.t.Helper()
	return testkit.CreateKey(e.t, e.auth, userID, scopes...)
}

// createExpiredKey creates a key that has already expired.
func (e *testEnv) createExpiredKey(userID string, scopes ...auth.Scope) string {
	e.t.Helper()
	return testkit.CreateExpiredKey(e.t, e.db, userID, scopes...)
}

// login signs u in through POST /api/v1/auth/login and returns the JWT.
func (e *testEnv) login(u finance.User) string {
	e.t.Helper()
	res := apiScenario{
		method:     http.MethodPost,
		url:        "/api/v1/auth/login",
		body:       fmt.Sprintf(`{"email":%q,"password":%q}`, u.Email, testkit.Password),
		wantStatus: http.StatusOK,
	}.run(e.t, e)
	var data LoginResponse
	res.decodeData(e.t, &data)
	if data.AccessToken == "" {
		e.t.Fatalf("login returned no access token: %s", res.raw)
	}
	return data.AccessToken
}

// bearer returns the Authorization header for token.
func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// echoPrincipal is a test handler answering with who called it.
func echoPrincipal(w http.ResponseWriter, r bunrouter.Request) error {
	p, ok := auth.FromContext(r.Context())
	if !ok {
		return fmt.Errorf("no principal in context")
	}
	scopes := make([]string, len(p.Scopes))
	for i, s := range p.Scopes {
		scopes[i] = string(s)
	}
	writeData(w, http.StatusOK, "Reached", map[string]any{"user_id": p.UserID(), "method": string(p.Method), "scopes": scopes})
	return nil
}

// apiScenario is one HTTP exchange and what must come back, in the manner of
// PocketBase's ApiScenario. Zero-valued expectations are not checked, except
// that every JSON response must be one of the specification's envelopes, and
// success must be false when wantCode is set or wantStatus is 4xx/5xx (and no
// wantData is given), true otherwise.
type apiScenario struct {
	name    string
	method  string
	url     string
	body    string            // sent as is; Content-Type application/json is added when body is not empty and headers has none
	headers map[string]string // request headers
	// remoteAddr overrides the client address (httptest's default is 192.0.2.1:1234).
	remoteAddr string
	// chunked hides the body's length: no Content-Length, Transfer-Encoding chunked.
	chunked bool
	// testRoute marks a route registered by the test itself, which the
	// OpenAPI contract does not describe.
	testRoute bool

	wantStatus  int
	wantCode    string            // error.code; empty means a success envelope is expected
	wantMessage string            // exact message (error.message or the success message)
	wantInMsg   []string          // substrings the message must contain
	wantFields  map[string]string // exact error.fields; nil means not checked
	wantData    any               // compared with data after a JSON round trip
	wantHeaders map[string]string // exact response header values
	noHeaders   []string          // response headers that must be absent
	check       func(t testing.TB, res apiResult)
}

// apiResult is a response with its decoded envelope.
type apiResult struct {
	resp   *http.Response
	status int
	header http.Header
	raw    []byte
	env    apiEnvelope // zero unless the response is JSON
}

// apiEnvelope is both envelopes of the specification in one type.
type apiEnvelope struct {
	Success *bool           `json:"success"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
	Error   *apiError       `json:"error"`
}

type apiError struct {
	Message   string            `json:"message"`
	Code      string            `json:"code"`
	Fields    map[string]string `json:"fields"`
	RequestID string            `json:"request_id"`
}

// message is the error message of an error response, else the success message.
func (r apiResult) message() string {
	if r.env.Error != nil {
		return r.env.Error.Message
	}
	return r.env.Message
}

// decodeData unmarshals data into v.
func (r apiResult) decodeData(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.env.Data, v); err != nil {
		t.Fatalf("decode data %s: %v", r.env.Data, err)
	}
}

// serveAPI is the one place where a test request is served: it sends req
// (whose body is reqBody) through h and returns the response and its body.
func serveAPI(t testing.TB, h http.Handler, req *http.Request, reqBody []byte, inContract bool) (*http.Response, []byte) {
	t.Helper()
	resp, body := testkit.Serve(h)(t, req, reqBody)
	// inContract is false for routes the test registers itself, which the
	// OpenAPI contract does not describe.
	if inContract {
		checkContract(t, req, reqBody, resp, body)
	}
	return resp, body
}

// lengthHidden is a body reader whose length net/http cannot discover.
type lengthHidden struct{ io.Reader }

// run performs the scenario against env and checks every expectation.
func (sc apiScenario) run(t testing.TB, env *testEnv) apiResult {
	t.Helper()
	var body io.Reader = strings.NewReader(sc.body)
	if sc.chunked {
		body = lengthHidden{body}
	}
	req := httptest.NewRequest(sc.method, sc.url, body)
	if sc.chunked {
		req.ContentLength = -1
		req.TransferEncoding = []string{"chunked"}
	}
	if sc.remoteAddr != "" {
		req.RemoteAddr = sc.remoteAddr
	}
	if sc.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range sc.headers {
		req.Header.Set(k, v)
	}
	resp, raw := serveAPI(t, env.srv.Handler(), req, []byte(sc.body), !sc.testRoute)
	res := apiResult{resp: resp, status: resp.StatusCode, header: resp.Header, raw: raw}

	if sc.wantStatus != 0 && res.status != sc.wantStatus {
		t.Errorf("%s %s: status = %d, want %d; body: %s", sc.method, sc.url, res.status, sc.wantStatus, raw)
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") && sc.method != http.MethodHead {
		res.env = checkEnvelope(t, raw)
		// An error code, or an error status without data, means the error
		// envelope; a non-error status, or expected data, the success envelope.
		wantSuccess := sc.wantCode == "" && (sc.wantStatus < 400 || sc.wantData != nil)
		if res.env.Success != nil && *res.env.Success != wantSuccess {
			t.Errorf("%s %s: success = %v, want %v; body: %s", sc.method, sc.url, *res.env.Success, wantSuccess, raw)
		}
		if sc.wantCode != "" && res.env.Error != nil && res.env.Error.Code != sc.wantCode {
			t.Errorf("%s %s: error.code = %q, want %q; body: %s", sc.method, sc.url, res.env.Error.Code, sc.wantCode, raw)
		}
	} else if sc.wantCode != "" || sc.wantData != nil || sc.wantFields != nil {
		t.Errorf("%s %s: Content-Type = %q, want a JSON envelope; body: %s", sc.method, sc.url, ct, raw)
	}
	if sc.wantMessage != "" && res.message() != sc.wantMessage {
		t.Errorf("%s %s: message = %q, want %q", sc.method, sc.url, res.message(), sc.wantMessage)
	}
	for _, s := range sc.wantInMsg {
		if !strings.Contains(res.message(), s) {
			t.Errorf("%s %s: message %q does not contain %q", sc.method, sc.url, res.message(), s)
		}
	}
	if sc.wantFields != nil {
		var got map[string]string
		if res.env.Error != nil {
			got = res.env.Error.Fields
		}
		if diff := cmp.Diff(sc.wantFields, got); diff != "" {
			t.Errorf("%s %s: error.fields mismatch (-want +got):\n%s", sc.method, sc.url, diff)
		}
	}
	if sc.wantData != nil {
		if diff := cmp.Diff(jsonValue(t, sc.wantData), jsonValue(t, res.env.Data)); diff != "" {
			t.Errorf("%s %s: data mismatch (-want +got):\n%s", sc.method, sc.url, diff)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sc.wantHeaders)) {
		if got := resp.Header.Get(k); got != sc.wantHeaders[k] {
			t.Errorf("%s %s: header %s = %q, want %q", sc.method, sc.url, k, got, sc.wantHeaders[k])
		}
	}
	for _, k := range sc.noHeaders {
		if v, ok := resp.Header[http.CanonicalHeaderKey(k)]; ok {
			t.Errorf("%s %s: header %s = %q, want it absent", sc.method, sc.url, k, v)
		}
	}
	if sc.check != nil {
		sc.check(t, res)
	}
	return res
}

// checkEnvelope decodes raw and checks it is exactly one of the two envelopes:
// {success: true, message, data} or {success: false, error: {message, code, fields?, request_id?}}.
func checkEnvelope(t testing.TB, raw []byte) apiEnvelope {
	t.Helper()
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		t.Errorf("response is not a JSON object: %v; body: %s", err, raw)
		return apiEnvelope{}
	}
	var env apiEnvelope
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Errorf("response is not an envelope: %v; body: %s", err, raw)
		return apiEnvelope{}
	}
	switch {
	case env.Success == nil:
		t.Errorf("envelope has no boolean success: %s", raw)
	case *env.Success:
		if diff := cmp.Diff([]string{"data", "message", "success"}, slices.Sorted(maps.Keys(keys))); diff != "" {
			t.Errorf("success envelope keys mismatch (-want +got):\n%s", diff)
		}
		var msg string
		if json.Unmarshal(keys["message"], &msg) != nil || msg == "" {
			t.Errorf("success envelope needs a non-empty string message: %s", raw)
		}
	default:
		if diff := cmp.Diff([]string{"error", "success"}, slices.Sorted(maps.Keys(keys))); diff != "" {
			t.Errorf("error envelope keys mismatch (-want +got):\n%s", diff)
		}
		var detail map[string]json.RawMessage
		if err := json.Unmarshal(keys["error"], &detail); err != nil {
			t.Errorf("error is not an object: %s", raw)
			break
		}
		for k := range detail {
			if !slices.Contains([]string{"message", "code", "fields", "request_id"}, k) {
				t.Errorf("error has unexpected key %q: %s", k, raw)
			}
		}
		if env.Error == nil || env.Error.Message == "" || env.Error.Code == "" {
			t.Errorf("error needs a message and a code: %s", raw)
		}
	}
	return env
}

// jsonValue normalizes v (a Go value or raw JSON) to the generic form
// encoding/json produces, so values of different Go types compare by content.
func jsonValue(t testing.TB, v any) any {
	t.Helper()
	raw, ok := v.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("marshal %#v: %v", v, err)
		}
		raw = b
	}
	var out any
	if len(raw) == 0 {
		return nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("unmarshal %s: %v", raw, err)
	}
	return out
}

// runScenarios runs each scenario as a subtest against env.
func runScenarios(t *testing.T, env *testEnv, scenarios []apiScenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			sc.run(t, env)
		})
	}
}
