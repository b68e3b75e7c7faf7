package server

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"html"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/oauth"
)

// testClock is a clock the test moves by hand.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// oauthEnv is a test server wired as cmd/finance wires it: the
// authorization server verifies access tokens for auth, on a clock the test
// controls.
type oauthEnv struct {
	*testEnv
	oauth *oauth.Server
	clock *testClock
}

func newOAuthEnv(t testing.TB, configure ...func(*Config)) *oauthEnv {
	t.Helper()
	return newOAuthEnvWith(t, oauth.Config{}, configure...)
}

// newOAuthEnvWith is newOAuthEnv with the authorization server configured
// by ocfg (its issuer, clock and log are the test's).
func newOAuthEnvWith(t testing.TB, ocfg oauth.Config, configure ...func(*Config)) *oauthEnv {
	t.Helper()
	env := newTestEnv(t, configure...)
	clock := &testClock{now: time.Now().UTC().Truncate(time.Second)}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	ocfg.Issuer, ocfg.Now, ocfg.Log = testBaseURL, clock.Now, log
	authz := oauth.New(env.db, ocfg)
	env.auth.SetTokenVerifier(authz)
	cfg := env.srv.cfg
	cfg.OAuth = authz
	env.srv = New(cfg, log, env.auth, env.db)
	return &oauthEnv{testEnv: env, oauth: authz, clock: clock}
}

// exchange is one raw request and its response.
type exchange struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the response body into v.
func (x exchange) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(x.body, v); err != nil {
		t.Fatalf("decode %s: %v", x.body, err)
	}
}

// oauthErr is an OAuth error body.
type oauthErr struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// wantOAuthError checks an OAuth error response.
func (x exchange) wantOAuthError(t testing.TB, status int, code string) {
	t.Helper()
	if x.status != status {
		t.Errorf("status = %d, want %d; body: %s", x.status, status, x.body)
	}
	var e oauthErr
	x.json(t, &e)
	if e.Error != code {
		t.Errorf("error = %q, want %q (%s)", e.Error, code, e.Description)
	}
}

// call sends a request straight to the handler; exchanges with API routes
// are checked against the contract.
func (e *oauthEnv) call(t testing.TB, method, target, contentType, body string, header map[string]string) exchange {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, raw := serveAPI(t, e.srv.Handler(), req, []byte(body), true)
	return exchange{status: resp.StatusCode, header: resp.Header, body: raw}
}

// postForm sends a form-encoded POST, as OAuth clients talk to the token
// and revocation endpoints.
func (e *oauthEnv) postForm(t testing.TB, target string, form url.Values) exchange {
	t.Helper()
	return e.call(t, http.MethodPost, target, "application/x-www-form-urlencoded", form.Encode(), nil)
}

// register registers a public client and returns its client_id.
func (e *oauthEnv) register(t testing.TB, name string, redirectURIs ...string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"client_name": name, "redirect_uris": redirectURIs, "token_endpoint_auth_method": "none",
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
	})
	x := e.call(t, http.MethodPost, oauth.RegisterPath, "application/json", string(body), nil)
	if x.status != http.StatusCreated {
		t.Fatalf("register: status %d: %s", x.status, x.body)
	}
	var reg oauth.RegisterResponse
	x.json(t, &reg)
	return reg.ClientID
}

// pkce returns a fresh code verifier and its S256 challenge.
func pkce() (verifier, challenge string) {
	verifier = base64.RawURLEncoding.EncodeToString([]byte(rand.Text() + rand.Text()))[:64]
	sum := sha256.Sum256([]byte(verifier))
	return verifier, base64.RawURLEncoding.EncodeToString(sum[:])
}

// testRedirect is the redirect URI the test clients register.
const testRedirect = "http://127.0.0.1:43210/callback"

// authRequest is an authorization request under construction.
type authRequest struct {
	clientID, redirectURI, state, scope, verifier, challenge string
}

// newAuthRequest returns a valid request for clientID with a fresh PKCE pair.
func newAuthRequest(clientID string) authRequest {
	v, c := pkce()
	return authRequest{clientID: clientID, redirectURI: testRedirect, state: "st-" + rand.Text()[:8],
		scope: "finance:read expenses:write mcp:connect", verifier: v, challenge: c}
}

func (a authRequest) query() url.Values {
	q := url.Values{
		"response_type": {"code"}, "client_id": {a.clientID}, "redirect_uri": {a.redirectURI},
		"code_challenge": {a.challenge}, "code_challenge_method": {"S256"}, "state": {a.state},
		"resource": {testBaseURL + "/api/mcp"},
	}
	if a.scope != "" {
		q.Set("scope", a.scope)
	}
	return q
}

// browser is a user agent with a cookie jar, talking to the handler directly.
type browser struct {
	t       testing.TB
	h       http.Handler
	cookies map[string]*http.Cookie
	header  map[string]string // sent with every request
	once    [][]string        // the paths of the forms that count once, split at "/"
}

func (e *testEnv) browser(t testing.TB) *browser {
	b := &browser{t: t, h: e.srv.Handler(), cookies: map[string]*http.Cookie{}, header: map[string]string{}}
	for _, rt := range e.srv.Routes() {
		if rt.Once {
			b.once = append(b.once, strings.Split(rt.Path, "/"))
		}
	}
	return b
}

// do sends a request, a form when form is not nil. As a browser sends what
// the page holds, a form to a route that counts once gets a fresh once id
// when the test gave none (a test sends the field itself, empty or not, to
// choose), so that every form test also runs the route as pages send it.
func (b *browser) do(method, target string, form url.Values) exchange {
	b.t.Helper()
	if form == nil {
		return b.send(method, target, "", "")
	}
	if form.Has("csrf") && !form.Has(onceField) && b.countsOnce(target) {
		form = maps.Clone(form)
		form.Set(onceField, finance.NewID())
	}
	return b.send(method, target, form.Encode(), "application/x-www-form-urlencoded")
}

// countsOnce reports whether target's path is that of a route that counts
// once (":name" segments match any one segment).
func (b *browser) countsOnce(target string) bool {
	path, _, _ := strings.Cut(target, "?")
	parts := strings.Split(path, "/")
	return slices.ContainsFunc(b.once, func(route []string) bool {
		return slices.EqualFunc(route, parts, func(r, p string) bool { return r == p || strings.HasPrefix(r, ":") })
	})
}

// send makes a request with body of contentType ("" for none).
func (b *browser) send(method, target, body, contentType string) exchange {
	b.t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range b.header {
		req.Header.Set(k, v)
	}
	for _, c := range b.cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	resp, raw := serveAPI(b.t, b.h, req, []byte(body), true)
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.cookies, c.Name)
		} else {
			b.cookies[c.Name] = c
		}
	}
	return exchange{status: resp.StatusCode, header: resp.Header, body: raw}
}

func (b *browser) get(target string) exchange { b.t.Helper(); return b.do(http.MethodGet, target, nil) }

func (b *browser) post(target string, form url.Values) exchange {
	b.t.Helper()
	return b.do(http.MethodPost, target, form)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf returns the form token of an HTML page.
func csrf(t testing.TB, page exchange) string {
	t.Helper()
	m := csrfField.FindSubmatch(page.body)
	if m == nil {
		t.Fatalf("no csrf field in page (status %d):\n%s", page.status, page.body)
	}
	return html.UnescapeString(string(m[1]))
}

// signIn signs u in through the sign-in page.
func (b *browser) signIn(u finance.User) {
	b.t.Helper()
	page := b.get(LoginPath)
	if page.status != http.StatusOK {
		b.t.Fatalf("GET /login: status %d: %s", page.status, page.body)
	}
	x := b.post(LoginPath, url.Values{"csrf": {csrf(b.t, page)}, "email": {u.Email}, "password": {testPassword}})
	if x.status != http.StatusSeeOther {
		b.t.Fatalf("POST /login: status %d: %s", x.status, x.body)
	}
}

// location is the parsed Location header of a redirect.
func (x exchange) location(t testing.TB) *url.URL {
	t.Helper()
	loc := x.header.Get("Location")
	if loc == "" {
		t.Fatalf("no Location (status %d): %s", x.status, x.body)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("Location %q: %v", loc, err)
	}
	return u
}

// consent opens the consent page of a and returns it.
func (b *browser) consent(a authRequest) exchange {
	b.t.Helper()
	x := b.get(oauth.AuthorizePath + "?" + a.query().Encode())
	if x.status != http.StatusOK {
		b.t.Fatalf("consent page: status %d: %s", x.status, x.body)
	}
	return x
}

// decide submits the consent form of a with decision and the ticked scopes.
func (b *browser) decide(a authRequest, page exchange, decision string, scopes ...string) exchange {
	b.t.Helper()
	form := a.query()
	form.Set("csrf", csrf(b.t, page))
	form.Set("decision", decision)
	form["scope_grant"] = scopes
	return b.post(oauth.AuthorizePath, form)
}

// approve runs the consent screen for a and returns the authorization code.
func (b *browser) approve(a authRequest, scopes ...string) string {
	b.t.Helper()
	x := b.decide(a, b.consent(a), "approve", scopes...)
	if x.status != http.StatusSeeOther {
		b.t.Fatalf("approve: status %d: %s", x.status, x.body)
	}
	code := x.location(b.t).Query().Get("code")
	if code == "" {
		b.t.Fatalf("approve: no code in %s", x.header.Get("Location"))
	}
	return code
}

// redeem exchanges a code of a.
func (e *oauthEnv) redeem(t testing.TB, a authRequest, code string) exchange {
	t.Helper()
	return e.postForm(t, oauth.TokenPath, url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {a.verifier},
		"redirect_uri": {a.redirectURI}, "client_id": {a.clientID}, "resource": {testBaseURL + "/api/mcp"},
	})
}

// refresh uses a refresh token.
func (e *oauthEnv) refresh(t testing.TB, clientID, refreshToken string) exchange {
	t.Helper()
	return e.postForm(t, oauth.TokenPath, url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {refreshToken}, "client_id": {clientID},
	})
}

// connect runs the whole flow for u and returns the tokens.
func (e *oauthEnv) connect(t testing.TB, u finance.User, scopes ...string) (authRequest, oauth.TokenResponse) {
	t.Helper()
	a := newAuthRequest(e.register(t, "Test client", testRedirect))
	b := e.browser(t)
	b.signIn(u)
	x := e.redeem(t, a, b.approve(a, scopes...))
	if x.status != http.StatusOK {
		t.Fatalf("redeem: status %d: %s", x.status, x.body)
	}
	var tok oauth.TokenResponse
	x.json(t, &tok)
	return a, tok
}

// health calls GET /api/v1/health with a bearer token and returns the status.
func (e *oauthEnv) health(t testing.TB, token string) int {
	t.Helper()
	return e.call(t, http.MethodGet, "/api/v1/health", "", "", bearer(token)).status
}

// contains reports whether the body holds s.
func (x exchange) contains(s string) bool { return bytes.Contains(x.body, []byte(s)) }
