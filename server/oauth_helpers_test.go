package server

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
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
	authz := testkit.NewOAuth(env.db, env.auth, ocfg, clock.Now)
	cfg := env.srv.cfg
	cfg.OAuth = authz
	env.srv = New(cfg, slog.New(slog.DiscardHandler), env.auth, env.db)
	return &oauthEnv{testEnv: env, oauth: authz, clock: clock}
}

// oauthErr is an OAuth error body.
type oauthErr struct {
	Error       string `json:"error"`
	Description string `json:"error_description"`
}

// wantOAuthError checks an OAuth error response.
func wantOAuthError(t testing.TB, x testkit.Exchange, status int, code string) {
	t.Helper()
	if x.Status != status {
		t.Errorf("status = %d, want %d; body: %s", x.Status, status, x.Body)
	}
	var e oauthErr
	x.JSON(t, &e)
	if e.Error != code {
		t.Errorf("error = %q, want %q (%s)", e.Error, code, e.Description)
	}
}

// call sends a request straight to the handler; exchanges with API routes
// are checked against the contract.
func (e *oauthEnv) call(t testing.TB, method, target, contentType, body string, header map[string]string) testkit.Exchange {
	t.Helper()
	return testkit.Call(t, e.serve(), method, target, contentType, body, header)
}

// postForm sends a form-encoded POST, as OAuth clients talk to the token
// and revocation endpoints.
func (e *oauthEnv) postForm(t testing.TB, target string, form url.Values) testkit.Exchange {
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
	if x.Status != http.StatusCreated {
		t.Fatalf("register: status %d: %s", x.Status, x.Body)
	}
	var reg oauth.RegisterResponse
	x.JSON(t, &reg)
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
		"resource": {testkit.BaseURL + "/api/mcp"},
	}
	if a.scope != "" {
		q.Set("scope", a.scope)
	}
	return q
}

// browser is a browser on env's server whose requests are checked against
// the API contract.
func (e *testEnv) browser(t testing.TB) *testkit.Browser {
	var once []string
	for _, rt := range e.srv.Routes() {
		if rt.Once {
			once = append(once, rt.Path)
		}
	}
	return testkit.NewBrowser(t, e.serve(), once)
}

// serve serves a request through env's server and checks the exchange
// against the API contract.
func (e *testEnv) serve() testkit.ServeFunc {
	return func(t testing.TB, req *http.Request, body []byte) (*http.Response, []byte) {
		t.Helper()
		return serveAPI(t, e.srv.Handler(), req, body, true)
	}
}

// consent opens the consent page of a and returns it.
func consent(b *testkit.Browser, a authRequest) testkit.Exchange {
	b.T().Helper()
	x := b.Get(oauth.AuthorizePath + "?" + a.query().Encode())
	if x.Status != http.StatusOK {
		b.T().Fatalf("consent page: status %d: %s", x.Status, x.Body)
	}
	return x
}

// decide submits the consent form of a with decision and the ticked scopes.
func decide(b *testkit.Browser, a authRequest, page testkit.Exchange, decision string, scopes ...string) testkit.Exchange {
	b.T().Helper()
	form := a.query()
	form.Set("csrf", testkit.CSRF(b.T(), page))
	form.Set("decision", decision)
	form["scope_grant"] = scopes
	return b.Post(oauth.AuthorizePath, form)
}

// approve runs the consent screen for a and returns the authorization code.
func approve(b *testkit.Browser, a authRequest, scopes ...string) string {
	b.T().Helper()
	x := decide(b, a, consent(b, a), "approve", scopes...)
	if x.Status != http.StatusSeeOther {
		b.T().Fatalf("approve: status %d: %s", x.Status, x.Body)
	}
	code := x.Location(b.T()).Query().Get("code")
	if code == "" {
		b.T().Fatalf("approve: no code in %s", x.Header.Get("Location"))
	}
	return code
}

// redeem exchanges a code of a.
func (e *oauthEnv) redeem(t testing.TB, a authRequest, code string) testkit.Exchange {
	t.Helper()
	return e.postForm(t, oauth.TokenPath, url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {a.verifier},
		"redirect_uri": {a.redirectURI}, "client_id": {a.clientID}, "resource": {testkit.BaseURL + "/api/mcp"},
	})
}

// refresh uses a refresh token.
func (e *oauthEnv) refresh(t testing.TB, clientID, refreshToken string) testkit.Exchange {
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
	b.SignIn(u)
	x := e.redeem(t, a, approve(b, a, scopes...))
	if x.Status != http.StatusOK {
		t.Fatalf("redeem: status %d: %s", x.Status, x.Body)
	}
	var tok oauth.TokenResponse
	x.JSON(t, &tok)
	return a, tok
}

// health calls GET /api/v1/health with a bearer token and returns the status.
func (e *oauthEnv) health(t testing.TB, token string) int {
	t.Helper()
	return e.call(t, http.MethodGet, "/api/v1/health", "", "", bearer(token)).Status
}
