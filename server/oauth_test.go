package server

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/oauth"
	"github.com/finance-app/finance/web"
)

func TestOAuthMetadata(t *testing.T) {
	env := newOAuthEnv(t)
	wantResource := map[string]any{
		"resource":                 testkit.BaseURL + "/api/mcp",
		"authorization_servers":    []any{testkit.BaseURL},
		"scopes_supported":         jsonValue(t, testkit.AllScopeNames),
		"bearer_methods_supported": []any{"header"},
		"resource_name":            "finance MCP endpoint",
		"resource_documentation":   testkit.BaseURL + "/api/docs",
	}
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/api/mcp"} {
		t.Run(path, func(t *testing.T) {
			x := env.call(t, http.MethodGet, path, "", "", nil)
			if x.Status != http.StatusOK {
				t.Fatalf("status %d: %s", x.Status, x.Body)
			}
			if diff := cmp.Diff(any(wantResource), jsonValue(t, json.RawMessage(x.Body))); diff != "" {
				t.Errorf("metadata (-want +got):\n%s", diff)
			}
			if got := x.Header.Get("Access-Control-Allow-Origin"); got != "*" {
				t.Errorf("Access-Control-Allow-Origin = %q, want *", got)
			}
		})
	}

	x := env.call(t, http.MethodGet, "/.well-known/oauth-authorization-server", "", "", nil)
	want := map[string]any{
		"issuer":                                         testkit.BaseURL,
		"authorization_endpoint":                         testkit.BaseURL + "/api/oauth/authorize",
		"token_endpoint":                                 testkit.BaseURL + "/api/oauth/token",
		"registration_endpoint":                          testkit.BaseURL + "/api/oauth/register",
		"revocation_endpoint":                            testkit.BaseURL + "/api/oauth/revoke",
		"scopes_supported":                               jsonValue(t, testkit.AllScopeNames),
		"response_types_supported":                       []any{"code"},
		"response_modes_supported":                       []any{"query"},
		"grant_types_supported":                          []any{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported":          []any{"none"},
		"revocation_endpoint_auth_methods_supported":     []any{"none"},
		"code_challenge_methods_supported":               []any{"S256"},
		"authorization_response_iss_parameter_supported": true,
		"client_id_metadata_document_supported":          true,
		"service_documentation":                          testkit.BaseURL + "/api/docs",
	}
	if diff := cmp.Diff(any(want), jsonValue(t, json.RawMessage(x.Body))); diff != "" {
		t.Errorf("authorization server metadata (-want +got):\n%s", diff)
	}

	t.Run("CORS preflight", func(t *testing.T) {
		x := env.call(t, http.MethodOptions, oauth.RegisterPath, "", "", map[string]string{
			"Origin": "http://localhost:6274", "Access-Control-Request-Method": "POST",
			"Access-Control-Request-Headers": "content-type",
		})
		if x.Status != http.StatusNoContent || x.Header.Get("Access-Control-Allow-Origin") != "*" ||
			!strings.Contains(x.Header.Get("Access-Control-Allow-Headers"), "Content-Type") {
			t.Errorf("preflight: status %d, headers %v", x.Status, x.Header)
		}
	})

	t.Run("a 401 points at the metadata and names the scopes an agent needs", func(t *testing.T) {
		x := env.call(t, http.MethodGet, "/api/v1/health", "", "", nil)
		want := `Bearer realm="finance", scope="finance:read mcp:connect", resource_metadata="` + testkit.BaseURL + `/.well-known/oauth-protected-resource"`
		if got := x.Header.Get("WWW-Authenticate"); x.Status != http.StatusUnauthorized || got != want {
			t.Errorf("status %d, WWW-Authenticate = %q, want 401 with %q", x.Status, got, want)
		}
	})
	t.Run("a 401 for a dead token says invalid_token", func(t *testing.T) {
		x := env.call(t, http.MethodGet, "/api/v1/health", "", "", map[string]string{"Authorization": "Bearer fat_expired-or-revoked"})
		got := x.Header.Get("WWW-Authenticate")
		if x.Status != http.StatusUnauthorized || !strings.HasPrefix(got, `Bearer realm="finance", error="invalid_token", error_description="`) ||
			!strings.HasSuffix(got, `", scope="finance:read mcp:connect", resource_metadata="`+testkit.BaseURL+`/.well-known/oauth-protected-resource"`) {
			t.Errorf("status %d, WWW-Authenticate = %q, want 401 with error=invalid_token", x.Status, got)
		}
	})
}

func TestOAuthRegistration(t *testing.T) {
	env := newOAuthEnv(t)
	tests := []struct {
		name     string
		body     string
		ct       string
		wantErr  string // OAuth error code; "" means 201
		wantName string
		wantURIs []string
	}{
		{name: "https", body: `{"client_name":"Web app","redirect_uris":["https://app.example/cb"]}`,
			wantName: "Web app", wantURIs: []string{"https://app.example/cb"}},
		{name: "loopback IPv4, IPv6 and localhost",
			body:     `{"redirect_uris":["http://127.0.0.1:33418/cb","http://[::1]/cb","http://localhost:6274/oauth/callback"]}`,
			wantURIs: []string{"http://127.0.0.1:33418/cb", "http://[::1]/cb", "http://localhost:6274/oauth/callback"}},
		{name: "private-use scheme of a native app", body: `{"client_name":"Cursor","redirect_uris":["cursor://anysphere.cursor-retrieval/oauth/callback"]}`,
			wantName: "Cursor", wantURIs: []string{"cursor://anysphere.cursor-retrieval/oauth/callback"}},
		{name: "reverse-DNS scheme", body: `{"redirect_uris":["com.example.app:/oauth2redirect"]}`,
			wantURIs: []string{"com.example.app:/oauth2redirect"}},
		{name: "control characters dropped from the name",
			body:     `{"client_name":"  Evil\u202eppA \u0007 Client ","redirect_uris":["https://app.example/cb"],"logo_uri":"https://x"}`,
			wantName: "EvilppA Client", wantURIs: []string{"https://app.example/cb"}},
		{name: "Content-Type with charset", ct: "application/json; charset=utf-8",
			body: `{"redirect_uris":["https://app.example/cb"]}`, wantURIs: []string{"https://app.example/cb"}},

		{name: "no redirect URIs", body: `{"client_name":"x"}`, wantErr: "invalid_redirect_uri"},
		{name: "empty redirect URIs", body: `{"redirect_uris":[]}`, wantErr: "invalid_redirect_uri"},
		{name: "http on a public host", body: `{"redirect_uris":["http://app.example/cb"]}`, wantErr: "invalid_redirect_uri"},
		{name: "http on a LAN address", body: `{"redirect_uris":["http://192.168.1.5/cb"]}`, wantErr: "invalid_redirect_uri"},
		{name: "fragment", body: `{"redirect_uris":["https://app.example/cb#x"]}`, wantErr: "invalid_redirect_uri"},
		{name: "empty fragment", body: `{"redirect_uris":["https://app.example/cb#"]}`, wantErr: "invalid_redirect_uri"},
		{name: "relative", body: `{"redirect_uris":["/cb"]}`, wantErr: "invalid_redirect_uri"},
		{name: "user info", body: `{"redirect_uris":["https://user@app.example/cb"]}`, wantErr: "invalid_redirect_uri"},
		{name: "javascript", body: `{"redirect_uris":["javascript:alert(1)"]}`, wantErr: "invalid_redirect_uri"},
		{name: "data", body: `{"redirect_uris":["data:text/html,hi"]}`, wantErr: "invalid_redirect_uri"},
		{name: "file", body: `{"redirect_uris":["file:///etc/passwd"]}`, wantErr: "invalid_redirect_uri"},
		{name: "https without host", body: `{"redirect_uris":["https:///cb"]}`, wantErr: "invalid_redirect_uri"},
		{name: "Windows troubleshooter (ms-msdt)", body: `{"redirect_uris":["ms-msdt:/id=PCWDiagnostic"]}`, wantErr: "invalid_redirect_uri"},
		{name: "Windows search (search-ms)", body: `{"redirect_uris":["search-ms:query=invoice&crumb=location:evil.example"]}`, wantErr: "invalid_redirect_uri"},
		{name: "Office (ms-word)", body: `{"redirect_uris":["ms-word:ofe|u|https://evil.example/doc"]}`, wantErr: "invalid_redirect_uri"},
		{name: "macOS Terminal (x-man-page)", body: `{"redirect_uris":["x-man-page://ls"]}`, wantErr: "invalid_redirect_uri"},
		{name: "one bad among good", body: `{"redirect_uris":["https://app.example/cb","http://evil.example/cb"]}`, wantErr: "invalid_redirect_uri"},
		{name: "eleven redirect URIs", body: `{"redirect_uris":["https://a.example/1","https://a.example/2","https://a.example/3","https://a.example/4","https://a.example/5","https://a.example/6","https://a.example/7","https://a.example/8","https://a.example/9","https://a.example/10","https://a.example/11"]}`,
			wantErr: "invalid_redirect_uri"},
		{name: "a secret method is registered as public", body: `{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"client_secret_post"}`,
			wantURIs: []string{"https://app.example/cb"}},
		{name: "key-based client authentication", body: `{"redirect_uris":["https://app.example/cb"],"token_endpoint_auth_method":"private_key_jwt"}`,
			wantErr: "invalid_client_metadata"},
		{name: "client credentials grant", body: `{"redirect_uris":["https://app.example/cb"],"grant_types":["client_credentials"]}`,
			wantErr: "invalid_client_metadata"},
		{name: "refresh without code grant", body: `{"redirect_uris":["https://app.example/cb"],"grant_types":["refresh_token"]}`,
			wantErr: "invalid_client_metadata"},
		{name: "implicit response type", body: `{"redirect_uris":["https://app.example/cb"],"response_types":["token"]}`,
			wantErr: "invalid_client_metadata"},
		{name: "unknown scope", body: `{"redirect_uris":["https://app.example/cb"],"scope":"finance:read admin"}`,
			wantErr: "invalid_client_metadata"},
		{name: "malformed JSON", body: `{"redirect_uris":`, wantErr: "invalid_client_metadata"},
		{name: "wrong type", body: `{"redirect_uris":"https://app.example/cb"}`, wantErr: "invalid_client_metadata"},
		{name: "not JSON", ct: "text/plain", body: `{"redirect_uris":["https://app.example/cb"]}`, wantErr: "invalid_client_metadata"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := tt.ct
			if ct == "" {
				ct = "application/json"
			}
			x := env.call(t, http.MethodPost, oauth.RegisterPath, ct, tt.body, nil)
			if x.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("no CORS header")
			}
			if tt.wantErr != "" {
				wantOAuthError(t, x, http.StatusBadRequest, tt.wantErr)
				return
			}
			if x.Status != http.StatusCreated {
				t.Fatalf("status %d: %s", x.Status, x.Body)
			}
			var reg oauth.RegisterResponse
			x.JSON(t, &reg)
			want := oauth.RegisterResponse{ClientID: reg.ClientID, ClientIDIssuedAt: reg.ClientIDIssuedAt, ClientName: tt.wantName,
				RedirectURIs: tt.wantURIs, GrantTypes: []string{"authorization_code", "refresh_token"},
				ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: "none"}
			if diff := cmp.Diff(want, reg); diff != "" {
				t.Errorf("registration (-want +got):\n%s", diff)
			}
			if reg.ClientID == "" || reg.ClientIDIssuedAt == 0 {
				t.Errorf("no client_id or issued_at: %+v", reg)
			}
			c, err := env.db.OAuthClient(context.Background(), reg.ClientID)
			if err != nil || c.Name != tt.wantName {
				t.Errorf("stored client = %+v, %v", c, err)
			}
		})
	}
}

func TestOAuthRegistrationRateLimited(t *testing.T) {
	env := newOAuthEnv(t, func(c *Config) { c.LoginRateLimit = Rate{Count: 2, Window: time.Minute} })
	body := `{"redirect_uris":["https://app.example/cb"]}`
	for i := range 3 {
		x := env.call(t, http.MethodPost, oauth.RegisterPath, "application/json", body, nil)
		want := http.StatusCreated
		if i == 2 {
			want = http.StatusTooManyRequests
		}
		if x.Status != want {
			t.Errorf("registration %d: status %d, want %d", i+1, x.Status, want)
		}
	}
}

// TestOAuthAuthorizeErrors covers the authorization request checks. Every
// refused request is shown on a page (400) and never redirected, whether the
// user is signed in or not: any client can register, so a redirect carrying
// an error would make this server an open redirector (RFC 9700 §4.11.2).
func TestOAuthAuthorizeErrors(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	clientID := env.register(t, "Test client", testRedirect, "https://app.example/cb")
	single := env.register(t, "Single", "https://single.example/cb")
	signedIn := env.browser(t)
	signedIn.SignIn(u)
	browsers := map[string]*testkit.Browser{"signed in": signedIn, "signed out": env.browser(t)}

	refused := []struct {
		name   string
		modify func(q url.Values)
		want   string // what the page says is wrong
	}{
		{"no client_id", func(q url.Values) { q.Del("client_id") }, "names no client_id"},
		{"unknown client_id", func(q url.Values) { q.Set("client_id", "no-such-client") }, "unknown client_id"},
		{"unregistered redirect URI", func(q url.Values) { q.Set("redirect_uri", "https://evil.example/cb") }, "is not registered"},
		{"redirect URI with another path", func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:43210/other") }, "is not registered"},
		{"redirect URI on another loopback host", func(q url.Values) { q.Set("redirect_uri", "http://localhost:43210/callback") }, "is not registered"},
		{"redirect URI with a query added", func(q url.Values) { q.Set("redirect_uri", "https://app.example/cb?x=1") }, "is not registered"},
		{"https redirect URI on another port", func(q url.Values) { q.Set("redirect_uri", "https://app.example:8443/cb") }, "is not registered"},
		{"no redirect URI while several are registered", func(q url.Values) { q.Del("redirect_uri") }, "registered several"},
		{"redirect URI twice", func(q url.Values) { q.Add("redirect_uri", testRedirect) }, "redirect_uri appears more than once"},
		{"no PKCE challenge", func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }, "PKCE is required"},
		{"plain PKCE", func(q url.Values) { q.Set("code_challenge_method", "plain") }, "plain is not supported; use S256"},
		{"challenge without method (means plain)", func(q url.Values) { q.Del("code_challenge_method") }, "must be S256"},
		{"malformed challenge", func(q url.Values) { q.Set("code_challenge", "short") }, "43 characters"},
		{"implicit flow", func(q url.Values) { q.Set("response_type", "token") }, "only response_type=code"},
		{"no response type", func(q url.Values) { q.Del("response_type") }, "response_type is required"},
		{"unknown scope", func(q url.Values) { q.Set("scope", "finance:read admin") }, "unknown scope admin"},
		{"another resource", func(q url.Values) { q.Set("resource", "https://other.example/api/mcp") }, "unknown resource"},
		{"the REST API as resource", func(q url.Values) { q.Set("resource", testkit.BaseURL+"/api/v1") }, "unknown resource"},
		{"two resources", func(q url.Values) { q.Add("resource", "https://other.example") }, "only one resource"},
		{"state twice", func(q url.Values) { q.Add("state", "again") }, "state appears more than once"},
		{"state too long", func(q url.Values) { q.Set("state", strings.Repeat("s", 1025)) }, "state must be at most 1024"},
	}
	for _, tt := range refused {
		for who, b := range browsers {
			t.Run(tt.name+", "+who, func(t *testing.T) {
				q := newAuthRequest(clientID).query()
				tt.modify(q)
				wantRefusalPage(t, b.Get(oauth.AuthorizePath+"?"+q.Encode()), tt.want)
			})
		}
	}
	wantNoGrant(t, env, u)

	accepted := []struct {
		name   string
		modify func(q url.Values)
	}{
		{"loopback redirect on another port", func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1:51999/callback") }},
		{"loopback redirect without port", func(q url.Values) { q.Set("redirect_uri", "http://127.0.0.1/callback") }},
		{"no resource", func(q url.Values) { q.Del("resource") }},
		{"no scope", func(q url.Values) { q.Del("scope") }},
		{"no redirect URI, one registered", func(q url.Values) { q.Set("client_id", single); q.Del("redirect_uri") }},
	}
	for _, tt := range accepted {
		t.Run("accepted: "+tt.name, func(t *testing.T) {
			q := newAuthRequest(clientID).query()
			tt.modify(q)
			if x := signedIn.Get(oauth.AuthorizePath + "?" + q.Encode()); x.Status != http.StatusOK || !x.Contains("wants to use your finance data") {
				t.Errorf("status %d, want the consent page: %s", x.Status, x.Body)
			}
		})
	}
}

// TestOAuthAuthorizeIsNoOpenRedirector is the attack of RFC 9700 §4.11.2:
// register a client whose redirect URI is the attacker's page, then send
// people links to the authorization endpoint that fail on purpose. Before the
// user has signed in and seen a valid request, nothing may send the browser
// to the client; on the consent form, only the user's own Deny does.
func TestOAuthAuthorizeIsNoOpenRedirector(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	evil := env.register(t, "Totally legit", "https://evil.example/cb")

	t.Run("a bare link, signed out", func(t *testing.T) {
		q := url.Values{"client_id": {evil}, "redirect_uri": {"https://evil.example/cb"}}
		wantRefusalPage(t, env.browser(t).Get(oauth.AuthorizePath+"?"+q.Encode()), "response_type is required")
	})

	// A client stored before private-use schemes of OS protocol handlers were
	// refused at registration: its requests are refused at authorization too.
	handler := oauth.Client{ID: "pre-existing-msdt-client", Name: "Old client", RedirectURIs: []string{"ms-msdt:/id=PCWDiagnostic/skip=force"},
		GrantTypes: []string{"authorization_code"}, CreatedAt: env.clock.Now()}
	if err := env.db.CreateOAuthClient(context.Background(), handler); err != nil {
		t.Fatal(err)
	}
	signedIn := env.browser(t)
	signedIn.SignIn(u)
	for who, b := range map[string]*testkit.Browser{"signed in": signedIn, "signed out": env.browser(t)} {
		t.Run("an OS protocol handler as redirect URI, "+who, func(t *testing.T) {
			a := newAuthRequest(handler.ID)
			a.redirectURI = handler.RedirectURIs[0]
			wantRefusalPage(t, b.Get(oauth.AuthorizePath+"?"+a.query().Encode()), "ms-msdt")
			q := a.query()
			q.Set("response_type", "token")
			wantRefusalPage(t, b.Get(oauth.AuthorizePath+"?"+q.Encode()), "ms-msdt")
		})
	}

	// The consent form checks the request again; a request made invalid
	// after the page was shown is refused there the same way, approve or deny.
	a := newAuthRequest(evil)
	a.redirectURI = "https://evil.example/cb"
	page := consent(signedIn, a)
	for _, decision := range []string{"approve", "deny"} {
		t.Run("consent form with a tampered request, "+decision, func(t *testing.T) {
			bad := a
			bad.challenge = "short"
			wantRefusalPage(t, decide(signedIn, bad, page, decision, "finance:read"), "43 characters")
		})
	}
	wantNoGrant(t, env, u)

	t.Run("the user's deny goes back to the client", func(t *testing.T) {
		x := decide(signedIn, a, page, "deny", "finance:read")
		if loc := x.Location(t); x.Status != http.StatusSeeOther || loc.Host != "evil.example" || loc.Query().Get("error") != "access_denied" {
			t.Errorf("deny: status %d to %s; want 303 to the client with access_denied", x.Status, loc)
		}
	})
	wantNoGrant(t, env, u)
}

// wantRefusalPage checks that an authorization request was refused on an
// error page saying want, with no redirect.
func wantRefusalPage(t *testing.T, x testkit.Exchange, want string) {
	t.Helper()
	if x.Status != http.StatusBadRequest || x.Header.Get("Location") != "" {
		t.Fatalf("status %d, Location %q; want 400 and no redirect", x.Status, x.Header.Get("Location"))
	}
	testkit.CheckPageHeaders(t, x)
	if !x.Contains("This connection request cannot be completed") || !x.Contains(html.EscapeString(want)) {
		t.Errorf("the page does not say %q:\n%s", want, x.Body)
	}
}

// wantNoGrant checks that u has approved nothing: no grant was stored.
func wantNoGrant(t *testing.T, env *oauthEnv, u finance.User) {
	t.Helper()
	if grants, err := env.oauth.ListGrants(context.Background(), u.ID); err != nil || len(grants) != 0 {
		t.Errorf("grants = %+v, %v; want none", grants, err)
	}
}

func TestOAuthConsentNeedsSignIn(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	a := newAuthRequest(env.register(t, "Claude <Desktop>", testRedirect))
	a.scope = "finance:read expenses:write mcp:connect"
	b := env.browser(t)

	target := oauth.AuthorizePath + "?" + a.query().Encode()
	x := b.Get(target)
	if x.Status != http.StatusSeeOther {
		t.Fatalf("without a session: status %d, want 303 to sign-in", x.Status)
	}
	loc := x.Location(t)
	if loc.Path != web.LoginPath || loc.Query().Get("next") != target {
		t.Fatalf("redirected to %s; want /login?next=<the request>", loc)
	}

	login := b.Get(loc.String())
	if !login.Contains("Sign in to review the app") {
		t.Errorf("sign-in page does not say an app is waiting:\n%s", login.Body)
	}
	x = b.Post(web.LoginPath, url.Values{"csrf": {testkit.CSRF(t, login)}, "email": {u.Email}, "password": {testkit.Password},
		"next": {loc.Query().Get("next")}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != target {
		t.Fatalf("after sign-in: status %d, Location %q; want back to %s", x.Status, x.Header.Get("Location"), target)
	}

	page := b.Get(target)
	for _, want := range []string{
		"Claude &lt;Desktop&gt;", // the client's name, escaped
		"an app on this device (127.0.0.1:43210)",
		auth.ScopeDescriptions[auth.ScopeRead], auth.ScopeDescriptions[auth.ScopeExpensesWrite],
		auth.ScopeDescriptions[auth.ScopeMCP],
		`value="finance:read" checked`, `value="expenses:write" checked`,
		`name="decision" value="approve"`, `name="decision" value="deny"`,
	} {
		if !page.Contains(want) {
			t.Errorf("consent page lacks %q", want)
		}
	}
	if page.Contains(auth.ScopeDescriptions[auth.ScopeIncomeWrite]) {
		t.Error("consent page offers a scope the client did not ask for")
	}
	if csp := page.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "form-action 'self' http://127.0.0.1:43210;") {
		t.Errorf("CSP %q does not let the form redirect to the client", csp)
	}
}

func TestOAuthConsentWithoutScopeOffersReadOnlyFirst(t *testing.T) {
	env := newOAuthEnv(t)
	a := newAuthRequest(env.register(t, "App", testRedirect))
	a.scope = ""
	b := env.browser(t)
	b.SignIn(env.createUser(finance.PlanPro))
	page := consent(b, a)
	if !page.Contains(`value="finance:read" checked`) || page.Contains(`value="expenses:write" checked`) ||
		!page.Contains(`value="settings:write"`) {
		t.Errorf("without a scope every scope is offered, only finance:read ticked:\n%s", page.Body)
	}
}

func TestOAuthFullFlow(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	a := newAuthRequest(env.register(t, "Flow client", testRedirect))
	a.redirectURI = "http://127.0.0.1:50505/callback" // another loopback port than registered
	b := env.browser(t)
	b.SignIn(u)

	x := decide(b, a, consent(b, a), "approve", "finance:read", "expenses:write")
	if x.Status != http.StatusSeeOther {
		t.Fatalf("approve: status %d: %s", x.Status, x.Body)
	}
	loc := x.Location(t)
	if got := loc.Scheme + "://" + loc.Host + loc.Path; got != a.redirectURI {
		t.Errorf("redirected to %s, want %s", got, a.redirectURI)
	}
	q := loc.Query()
	if q.Get("state") != a.state || q.Get("iss") != testkit.BaseURL || q.Get("code") == "" {
		t.Fatalf("redirect query %v; want code, state %q and iss %q", q, a.state, testkit.BaseURL)
	}

	tx := env.redeem(t, a, q.Get("code"))
	if tx.Status != http.StatusOK || tx.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token: status %d, Cache-Control %q: %s", tx.Status, tx.Header.Get("Cache-Control"), tx.Body)
	}
	var tok oauth.TokenResponse
	tx.JSON(t, &tok)
	if !strings.HasPrefix(tok.AccessToken, "fat_") || !strings.HasPrefix(tok.RefreshToken, "frt_") ||
		tok.TokenType != "Bearer" || tok.ExpiresIn != 3600 || tok.Scope != "finance:read expenses:write mcp:connect" {
		t.Fatalf("token response %+v", tok)
	}

	// The access token authenticates as the user, with the granted scopes.
	res := apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(tok.AccessToken), wantStatus: http.StatusOK}.run(t, env.testEnv)
	if res.status != http.StatusOK {
		t.Fatal("access token refused")
	}
	p, err := env.auth.Authenticate(context.Background(), tok.AccessToken)
	if err != nil || p.Method != auth.MethodOAuth || p.UserID() != u.ID || p.CredentialID == "" ||
		!slices.Equal(p.Scopes, []auth.Scope{auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP}) {
		t.Errorf("principal = %+v, %v", p, err)
	}

	// Stored only as hashes: the database holds neither token.
	for _, secret := range []string{tok.AccessToken, tok.RefreshToken, q.Get("code")} {
		if testkit.DBContains(t, env.db, secret) {
			t.Errorf("the database holds a token in clear text")
		}
	}

	// Refresh rotates: new tokens, and the old refresh token is spent.
	rx := env.refresh(t, a.clientID, tok.RefreshToken)
	if rx.Status != http.StatusOK {
		t.Fatalf("refresh: status %d: %s", rx.Status, rx.Body)
	}
	var tok2 oauth.TokenResponse
	rx.JSON(t, &tok2)
	if tok2.RefreshToken == tok.RefreshToken || tok2.AccessToken == tok.AccessToken || tok2.RefreshToken == "" {
		t.Fatalf("refresh did not rotate: %+v", tok2)
	}
	if env.health(t, tok2.AccessToken) != http.StatusOK {
		t.Error("refreshed access token refused")
	}
	rx3 := env.refresh(t, a.clientID, tok2.RefreshToken)
	var tok3 oauth.TokenResponse
	rx3.JSON(t, &tok3)
	if rx3.Status != http.StatusOK {
		t.Fatalf("second refresh: %d %s", rx3.Status, rx3.Body)
	}

	// Replaying a spent refresh token revokes the whole grant.
	wantOAuthError(t, env.refresh(t, a.clientID, tok.RefreshToken), http.StatusBadRequest, "invalid_grant")
	for _, at := range []string{tok.AccessToken, tok2.AccessToken, tok3.AccessToken} {
		if got := env.health(t, at); got != http.StatusUnauthorized {
			t.Errorf("access token after replay: status %d, want 401", got)
		}
	}
	wantOAuthError(t, env.refresh(t, a.clientID, tok3.RefreshToken), http.StatusBadRequest, "invalid_grant")
	if grants, _ := env.oauth.ListGrants(context.Background(), u.ID); len(grants) != 0 {
		t.Errorf("connected apps after replay: %+v, want none", grants)
	}
}

func TestOAuthScopesLimitTheToken(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	// The client asks for reading and writing expenses; the user unticks the write.
	_, tok := env.connect(t, u, "finance:read")
	if tok.Scope != "finance:read mcp:connect" {
		t.Fatalf("granted %q, want finance:read mcp:connect", tok.Scope)
	}
	runScenarios(t, env.testEnv, []apiScenario{
		{name: "health", method: http.MethodGet, url: "/api/v1/health", headers: bearer(tok.AccessToken), wantStatus: http.StatusOK},
		{name: "a read route", method: http.MethodGet, url: "/api/v1/categories", headers: bearer(tok.AccessToken), wantStatus: http.StatusOK},
		{name: "a write route outside the grant", method: http.MethodPost, url: "/api/v1/categories", headers: bearer(tok.AccessToken),
			body: `{"name":"Coffee","kind":"expense"}`, wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
	})

	t.Run("no scope ticked grants mcp:connect alone", func(t *testing.T) {
		_, tok := env.connect(t, u)
		if tok.Scope != "mcp:connect" {
			t.Errorf("granted %q", tok.Scope)
		}
		apiScenario{method: http.MethodGet, url: "/api/v1/categories", headers: bearer(tok.AccessToken),
			wantStatus: http.StatusForbidden, wantCode: CodeForbidden}.run(t, env.testEnv)
	})

	t.Run("a tampered form cannot add a scope", func(t *testing.T) {
		a := newAuthRequest(env.register(t, "App", testRedirect))
		a.scope = "finance:read"
		b := env.browser(t)
		b.SignIn(u)
		x := decide(b, a, consent(b, a), "approve", "finance:read", "settings:write")
		if x.Status != http.StatusBadRequest || x.Header.Get("Location") != "" {
			t.Errorf("status %d, Location %q; want 400 and no code", x.Status, x.Header.Get("Location"))
		}
	})

	t.Run("refresh may narrow, never widen", func(t *testing.T) {
		a, tok := env.connect(t, u, "finance:read", "expenses:write")
		x := env.postForm(t, oauth.TokenPath, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken},
			"client_id": {a.clientID}, "scope": {"finance:read settings:write"}})
		wantOAuthError(t, x, http.StatusBadRequest, "invalid_scope")
		x = env.postForm(t, oauth.TokenPath, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken},
			"client_id": {a.clientID}, "scope": {"finance:read"}})
		var narrow oauth.TokenResponse
		x.JSON(t, &narrow)
		if x.Status != http.StatusOK || narrow.Scope != "finance:read" {
			t.Fatalf("narrowing refresh: %d %s", x.Status, x.Body)
		}
		// The new refresh token keeps the full grant.
		x = env.refresh(t, a.clientID, narrow.RefreshToken)
		var full oauth.TokenResponse
		x.JSON(t, &full)
		if full.Scope != "finance:read expenses:write mcp:connect" {
			t.Errorf("after narrowing, the next refresh grants %q", full.Scope)
		}
	})
}

func TestOAuthDeny(t *testing.T) {
	env := newOAuthEnv(t)
	a := newAuthRequest(env.register(t, "App", testRedirect))
	b := env.browser(t)
	b.SignIn(env.createUser(finance.PlanPro))
	x := decide(b, a, consent(b, a), "deny", "finance:read")
	if x.Status != http.StatusSeeOther {
		t.Fatalf("deny: status %d", x.Status)
	}
	q := x.Location(t).Query()
	if q.Get("error") != "access_denied" || q.Get("state") != a.state || q.Get("iss") != testkit.BaseURL || q.Get("code") != "" {
		t.Errorf("deny redirect query = %v", q)
	}
}

func TestOAuthPKCEAndRedirectAtTheTokenEndpoint(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	clientID := env.register(t, "App", testRedirect)
	b := env.browser(t)
	b.SignIn(u)

	tests := []struct {
		name   string
		modify func(form url.Values)
		status int
		want   string
	}{
		{"wrong verifier", func(f url.Values) { _, c := pkce(); f.Set("code_verifier", c+"-not-the-verifier") }, 400, "invalid_grant"},
		{"another valid verifier", func(f url.Values) { v, _ := pkce(); f.Set("code_verifier", v) }, 400, "invalid_grant"},
		{"verifier too short", func(f url.Values) { f.Set("code_verifier", "abc") }, 400, "invalid_grant"},
		{"the challenge as verifier (plain)", nil, 400, "invalid_grant"},
		{"no verifier", func(f url.Values) { f.Del("code_verifier") }, 400, "invalid_request"},
		{"another redirect URI", func(f url.Values) { f.Set("redirect_uri", "http://127.0.0.1:43210/other") }, 400, "invalid_grant"},
		{"another loopback port than authorized", func(f url.Values) { f.Set("redirect_uri", "http://127.0.0.1:1234/callback") }, 400, "invalid_grant"},
		{"no redirect URI", func(f url.Values) { f.Del("redirect_uri") }, 400, "invalid_grant"},
		{"no code", func(f url.Values) { f.Del("code") }, 400, "invalid_request"},
		{"unknown code", func(f url.Values) { f.Set("code", "nope") }, 400, "invalid_grant"},
		{"another resource", func(f url.Values) { f.Set("resource", "https://other.example/api/mcp") }, 400, "invalid_target"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := newAuthRequest(clientID)
			code := approve(b, a, "finance:read")
			form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {a.verifier},
				"redirect_uri": {a.redirectURI}, "client_id": {a.clientID}}
			if tt.modify != nil {
				tt.modify(form)
			} else {
				form.Set("code_verifier", a.challenge)
			}
			wantOAuthError(t, env.postForm(t, oauth.TokenPath, form), tt.status, tt.want)
		})
	}

	t.Run("a failed attempt spends the code", func(t *testing.T) {
		a := newAuthRequest(clientID)
		code := approve(b, a, "finance:read")
		form := url.Values{"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {a.challenge},
			"redirect_uri": {a.redirectURI}, "client_id": {a.clientID}}
		wantOAuthError(t, env.postForm(t, oauth.TokenPath, form), 400, "invalid_grant")
		wantOAuthError(t, env.redeem(t, a, code), 400, "invalid_grant")
	})

	t.Run("a code of another client", func(t *testing.T) {
		a := newAuthRequest(clientID)
		code := approve(b, a, "finance:read")
		a.clientID = env.register(t, "Other", testRedirect)
		wantOAuthError(t, env.redeem(t, a, code), 400, "invalid_grant")
	})

	t.Run("redirect URI omitted in both requests", func(t *testing.T) {
		single := env.register(t, "Single", "https://single.example/cb")
		a := newAuthRequest(single)
		q := a.query()
		q.Del("redirect_uri")
		page := b.Get(oauth.AuthorizePath + "?" + q.Encode())
		q.Set("csrf", testkit.CSRF(t, page))
		q.Set("decision", "approve")
		x := b.Post(oauth.AuthorizePath, q)
		loc := x.Location(t)
		if loc.Host != "single.example" {
			t.Fatalf("redirected to %s", loc)
		}
		form := url.Values{"grant_type": {"authorization_code"}, "code": {loc.Query().Get("code")},
			"code_verifier": {a.verifier}, "client_id": {single}}
		if x := env.postForm(t, oauth.TokenPath, form); x.Status != http.StatusOK {
			t.Errorf("status %d: %s", x.Status, x.Body)
		}
	})
}

func TestOAuthCodeExpiresAfter60Seconds(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	clientID := env.register(t, "App", testRedirect)
	b := env.browser(t)
	b.SignIn(u)

	a := newAuthRequest(clientID)
	code := approve(b, a, "finance:read")
	env.clock.Advance(59 * time.Second)
	if x := env.redeem(t, a, code); x.Status != http.StatusOK {
		t.Errorf("after 59 s: status %d: %s", x.Status, x.Body)
	}

	a = newAuthRequest(clientID)
	code = approve(b, a, "finance:read")
	env.clock.Advance(60 * time.Second)
	x := env.redeem(t, a, code)
	wantOAuthError(t, x, http.StatusBadRequest, "invalid_grant")
	var e oauthErr
	x.JSON(t, &e)
	if !strings.Contains(e.Description, "expired") {
		t.Errorf("description %q does not say the code expired", e.Description)
	}
}

func TestOAuthCodeReuseRevokesTheGrant(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	a := newAuthRequest(env.register(t, "App", testRedirect))
	b := env.browser(t)
	b.SignIn(u)
	code := approve(b, a, "finance:read")
	var tok oauth.TokenResponse
	env.redeem(t, a, code).JSON(t, &tok)
	if env.health(t, tok.AccessToken) != http.StatusOK {
		t.Fatal("first redemption's token refused")
	}
	wantOAuthError(t, env.redeem(t, a, code), http.StatusBadRequest, "invalid_grant")
	if got := env.health(t, tok.AccessToken); got != http.StatusUnauthorized {
		t.Errorf("after the code was reused, its access token gets %d, want 401", got)
	}
	wantOAuthError(t, env.refresh(t, a.clientID, tok.RefreshToken), http.StatusBadRequest, "invalid_grant")
}

func TestOAuthAccessTokenExpiresAfterAnHour(t *testing.T) {
	env := newOAuthEnv(t)
	a, tok := env.connect(t, env.createUser(finance.PlanPro), "finance:read")
	env.clock.Advance(59 * time.Minute)
	if env.health(t, tok.AccessToken) != http.StatusOK {
		t.Error("refused before the hour is over")
	}
	env.clock.Advance(time.Minute)
	apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(tok.AccessToken),
		wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized, wantInMsg: []string{"expired"}}.run(t, env.testEnv)
	if x := env.refresh(t, a.clientID, tok.RefreshToken); x.Status != http.StatusOK {
		t.Errorf("refresh after the access token expired: %d %s", x.Status, x.Body)
	}
}

func TestOAuthProUsersOnly(t *testing.T) {
	env := newOAuthEnv(t)
	free := env.createUser(finance.PlanFree)
	a := newAuthRequest(env.register(t, "App", testRedirect))
	b := env.browser(t)
	b.SignIn(free)
	page := consent(b, a)
	if !page.Contains("Connecting apps is a Pro plan feature") || !page.Contains(`value="approve" class="button" disabled`) {
		t.Errorf("a free user's consent page does not refuse:\n%s", page.Body)
	}
	x := decide(b, a, page, "approve", "finance:read")
	if x.Status != http.StatusPaymentRequired || x.Header.Get("Location") != "" {
		t.Errorf("free user approving: status %d, Location %q; want 402 and no code", x.Status, x.Header.Get("Location"))
	}
	// Denying still tells the client.
	if x := decide(b, a, page, "deny"); x.Location(t).Query().Get("error") != "access_denied" {
		t.Error("a free user cannot deny")
	}

	t.Run("a user moved to free gets 402 at once", func(t *testing.T) {
		u := env.createUser(finance.PlanPro)
		_, tok := env.connect(t, u, "finance:read")
		if _, err := env.auth.SetPlan(context.Background(), u.Email, finance.PlanFree); err != nil {
			t.Fatal(err)
		}
		apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(tok.AccessToken),
			wantStatus: http.StatusPaymentRequired, wantCode: CodeSubscriptionRequired}.run(t, env.testEnv)
		if _, err := env.auth.SetPlan(context.Background(), u.Email, finance.PlanPro); err != nil {
			t.Fatal(err)
		}
		if env.health(t, tok.AccessToken) != http.StatusOK {
			t.Error("back on Pro, the token is refused")
		}
	})
}

// TestOAuthClientIDAloneGrantsNothing: registering gives an id, and nothing
// it can do at the token endpoint without the user's approval yields a token.
func TestOAuthClientIDAloneGrantsNothing(t *testing.T) {
	env := newOAuthEnv(t)
	env.createUser(finance.PlanPro)
	clientID := env.register(t, "App", testRedirect)
	v, _ := pkce()
	for _, form := range []url.Values{
		{"grant_type": {"authorization_code"}, "client_id": {clientID}, "code": {"guess"}, "code_verifier": {v}, "redirect_uri": {testRedirect}},
		{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {"frt_guess"}},
		{"grant_type": {"refresh_token"}, "client_id": {clientID}, "refresh_token": {"fat_guess"}},
	} {
		wantOAuthError(t, env.postForm(t, oauth.TokenPath, form), http.StatusBadRequest, "invalid_grant")
	}
	wantOAuthError(t, env.postForm(t, oauth.TokenPath, url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}}),
		http.StatusBadRequest, "unsupported_grant_type")
	wantOAuthError(t, env.postForm(t, oauth.TokenPath, url.Values{"grant_type": {"password"}, "client_id": {clientID}, "username": {"a"}, "password": {"b"}}),
		http.StatusBadRequest, "unsupported_grant_type")
	apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer("fat_" + strings.Repeat("a", 52)),
		wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized}.run(t, env.testEnv)
	apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(clientID),
		wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized}.run(t, env.testEnv)
}

func TestOAuthTokenEndpointRequests(t *testing.T) {
	env := newOAuthEnv(t)
	clientID := env.register(t, "App", testRedirect)
	codeOnly := func() string {
		body := `{"redirect_uris":["` + testRedirect + `"],"grant_types":["authorization_code"]}`
		var reg oauth.RegisterResponse
		env.call(t, http.MethodPost, oauth.RegisterPath, "application/json", body, nil).JSON(t, &reg)
		return reg.ClientID
	}()
	tests := []struct {
		name   string
		ct     string
		body   string
		header map[string]string
		status int
		want   string
	}{
		{"JSON body", "application/json", `{"grant_type":"refresh_token"}`, nil, 400, "invalid_request"},
		{"no grant type", "", "client_id=" + clientID, nil, 400, "invalid_request"},
		{"no client id", "", "grant_type=refresh_token&refresh_token=frt_x", nil, 400, "invalid_request"},
		{"unknown client", "", "grant_type=refresh_token&refresh_token=frt_x&client_id=nobody", nil, 401, "invalid_client"},
		{"a client secret", "", "grant_type=refresh_token&refresh_token=frt_x&client_id=" + clientID + "&client_secret=s", nil, 401, "invalid_client"},
		{"Basic authentication", "", "grant_type=refresh_token&refresh_token=frt_x&client_id=" + clientID,
			map[string]string{"Authorization": "Basic YTpi"}, 401, "invalid_client"},
		{"repeated parameter", "", "grant_type=refresh_token&grant_type=refresh_token&client_id=" + clientID, nil, 400, "invalid_request"},
		{"refresh by a client that did not register it", "", "grant_type=refresh_token&refresh_token=frt_x&client_id=" + codeOnly, nil, 400, "unauthorized_client"},
		{"another resource", "", "grant_type=refresh_token&refresh_token=frt_x&client_id=" + clientID + "&resource=https%3A%2F%2Fx.example", nil, 400, "invalid_target"},
		// The store refuses NUL in text; these were a 500.
		{"a NUL in the client id", "", "grant_type=refresh_token&refresh_token=frt_x&client_id=%00", nil, 400, "invalid_request"},
		{"a NUL in a code", "", "grant_type=authorization_code&code=%00&redirect_uri=x&code_verifier=x&client_id=" + clientID, nil, 400, "invalid_request"},
		{"bytes that are not UTF-8", "", "grant_type=refresh_token&refresh_token=a%FFb&client_id=" + clientID, nil, 400, "invalid_request"},
		{"a NUL in another parameter", "", "grant_type=refresh_token&refresh_token=frt_x&client_id=" + clientID + "&x%00=1", nil, 400, "invalid_request"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ct := tt.ct
			if ct == "" {
				ct = "application/x-www-form-urlencoded"
			}
			x := env.call(t, http.MethodPost, oauth.TokenPath, ct, tt.body, tt.header)
			wantOAuthError(t, x, tt.status, tt.want)
			if tt.header != nil && x.Header.Get("WWW-Authenticate") == "" {
				t.Error("a 401 to a client that sent Authorization has no challenge")
			}
		})
	}
}

func TestOAuthRevocation(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)

	t.Run("an access token", func(t *testing.T) {
		a, tok := env.connect(t, u, "finance:read")
		x := env.postForm(t, oauth.RevokePath, url.Values{"token": {tok.AccessToken}, "client_id": {a.clientID}})
		if x.Status != http.StatusOK {
			t.Fatalf("status %d: %s", x.Status, x.Body)
		}
		if env.health(t, tok.AccessToken) != http.StatusUnauthorized {
			t.Error("revoked access token still works")
		}
		if x := env.refresh(t, a.clientID, tok.RefreshToken); x.Status != http.StatusOK {
			t.Errorf("revoking an access token also stopped the refresh token: %s", x.Body)
		}
	})
	t.Run("a refresh token revokes the grant", func(t *testing.T) {
		a, tok := env.connect(t, u, "finance:read")
		x := env.postForm(t, oauth.RevokePath, url.Values{"token": {tok.RefreshToken}, "token_type_hint": {"refresh_token"}})
		if x.Status != http.StatusOK {
			t.Fatalf("status %d", x.Status)
		}
		if env.health(t, tok.AccessToken) != http.StatusUnauthorized {
			t.Error("access token of a revoked grant still works")
		}
		wantOAuthError(t, env.refresh(t, a.clientID, tok.RefreshToken), 400, "invalid_grant")
	})
	t.Run("another client's token is left alone", func(t *testing.T) {
		_, tok := env.connect(t, u, "finance:read")
		other := env.register(t, "Other", testRedirect)
		if x := env.postForm(t, oauth.RevokePath, url.Values{"token": {tok.AccessToken}, "client_id": {other}}); x.Status != http.StatusOK {
			t.Errorf("status %d", x.Status)
		}
		if env.health(t, tok.AccessToken) != http.StatusOK {
			t.Error("another client revoked the token")
		}
	})
	for name, form := range map[string]url.Values{
		"unknown token": {"token": {"fat_unknown"}},
		"garbage":       {"token": {"x"}},
	} {
		t.Run(name, func(t *testing.T) {
			if x := env.postForm(t, oauth.RevokePath, form); x.Status != http.StatusOK || len(x.Body) != 0 {
				t.Errorf("status %d, body %q; want 200 and nothing", x.Status, x.Body)
			}
		})
	}
	t.Run("no token", func(t *testing.T) {
		wantOAuthError(t, env.postForm(t, oauth.RevokePath, url.Values{"client_id": {"x"}}), 400, "invalid_request")
	})
}

func TestOAuthLastUseIsBatched(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	_, tok := env.connect(t, u, "finance:read")
	ctx := context.Background()
	for range 3 {
		env.health(t, tok.AccessToken)
	}
	grants, err := env.db.ListOAuthGrants(ctx, u.ID, env.clock.Now())
	if err != nil || len(grants) != 1 {
		t.Fatalf("grants %+v, %v", grants, err)
	}
	if grants[0].LastUsedAt != nil {
		t.Error("last use was written on the request path")
	}
	if err := env.oauth.FlushUsage(ctx); err != nil {
		t.Fatal(err)
	}
	grants, _ = env.db.ListOAuthGrants(ctx, u.ID, env.clock.Now())
	if grants[0].LastUsedAt == nil || grants[0].ClientName != "Test client" {
		t.Errorf("after flushing: %+v", grants[0])
	}
}

func TestOAuthPrune(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	a, tok := env.connect(t, u, "finance:read")
	unused := env.register(t, "Never approved", testRedirect)
	ctx := context.Background()
	now := env.clock.Now()
	if err := env.db.PruneOAuth(ctx, now.Add(2*time.Hour), now.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	// The expired access token is gone, the refresh token and the clients stay.
	env.clock.Advance(2 * time.Hour)
	if env.health(t, tok.AccessToken) != http.StatusUnauthorized {
		t.Error("expired access token works")
	}
	if x := env.refresh(t, a.clientID, tok.RefreshToken); x.Status != http.StatusOK {
		t.Errorf("refresh after prune: %s", x.Body)
	}
	if _, err := env.db.OAuthClient(ctx, unused); err != nil {
		t.Errorf("a new client was pruned: %v", err)
	}
	// Much later, the client that never got a grant goes; the one with a grant stays.
	if err := env.db.PruneOAuth(ctx, now.Add(24*time.Hour), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := env.db.OAuthClient(ctx, unused); err == nil {
		t.Error("a client that never got a grant was kept")
	}
	if _, err := env.db.OAuthClient(ctx, a.clientID); err != nil {
		t.Errorf("a connected client was pruned: %v", err)
	}
}

// TestOAuthConcurrentRefreshRevokes: two uses of one refresh token at once
// mean a copy exists; at most one gets tokens and the grant ends revoked.
func TestOAuthConcurrentRefreshRevokes(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	a, tok := env.connect(t, u, "finance:read")
	results := make(chan testkit.Exchange, 4)
	for range 4 {
		go func() { results <- env.refresh(t, a.clientID, tok.RefreshToken) }()
	}
	ok := 0
	var fresh oauth.TokenResponse
	for range 4 {
		if x := <-results; x.Status == http.StatusOK {
			ok++
			x.JSON(t, &fresh)
		}
	}
	if ok > 1 {
		t.Fatalf("%d concurrent refreshes succeeded", ok)
	}
	if fresh.AccessToken != "" && env.health(t, fresh.AccessToken) != http.StatusUnauthorized {
		t.Error("the grant survived a concurrent reuse of its refresh token")
	}
	if grants, _ := env.oauth.ListGrants(context.Background(), u.ID); len(grants) != 0 {
		t.Errorf("grant still listed: %+v", grants)
	}
}

// TestOAuthErrorsDoNotRepeatInput: the authorization server's errors, on
// pages and in JSON, never repeat a URI or a value that is not a plain
// token, so a crafted request cannot make them say something else.
func TestOAuthErrorsDoNotRepeatInput(t *testing.T) {
	env := newOAuthEnv(t)
	const planted = "call-support-555-0100"
	clientID := env.register(t, "App", testRedirect)

	reg := env.call(t, http.MethodPost, oauth.RegisterPath, "application/json",
		`{"redirect_uris":["https://app.example/`+planted+` now"],"grant_types":["authorization_code","<b>`+planted+`</b>"]}`, nil)
	wantOAuthError(t, reg, http.StatusBadRequest, "invalid_redirect_uri")
	reg2 := env.call(t, http.MethodPost, oauth.RegisterPath, "application/json",
		`{"redirect_uris":["https://app.example/cb"],"scope":"finance:read <i>`+planted+`</i>"}`, nil)
	wantOAuthError(t, reg2, http.StatusBadRequest, "invalid_client_metadata")

	a := newAuthRequest(clientID)
	unregistered := a.query()
	unregistered.Set("redirect_uri", "https://evil.example/"+planted)
	badMethod := a.query()
	badMethod.Set("code_challenge_method", "S256 "+planted)
	badResource := a.query()
	badResource.Set("resource", "https://evil.example/"+planted)
	b := env.browser(t)
	pages := []testkit.Exchange{
		b.Get(oauth.AuthorizePath + "?" + unregistered.Encode()),
		b.Get(oauth.AuthorizePath + "?" + badMethod.Encode()),
		b.Get(oauth.AuthorizePath + "?" + badResource.Encode()),
	}
	token := env.postForm(t, oauth.TokenPath, url.Values{"grant_type": {"<b>" + planted}, "client_id": {clientID}})
	wantOAuthError(t, token, http.StatusBadRequest, "unsupported_grant_type")
	token2 := env.postForm(t, oauth.TokenPath, url.Values{"grant_type": {"refresh_token"}, "client_id": {clientID},
		"refresh_token": {"frt_x"}, "resource": {"https://evil.example/" + planted}})
	wantOAuthError(t, token2, http.StatusBadRequest, "invalid_target")

	for i, x := range append(pages, reg, reg2, token, token2) {
		if x.Status != http.StatusBadRequest {
			t.Errorf("answer %d: status %d, want 400: %s", i, x.Status, x.Body)
		}
		if x.Contains(planted) {
			t.Errorf("answer %d repeats the request's text: %s", i, x.Body)
		}
	}
	// A plain token is still named, which helps the app's developer.
	plain := env.postForm(t, oauth.TokenPath, url.Values{"grant_type": {"password"}, "client_id": {clientID}})
	if !plain.Contains("grant_type password is not supported") {
		t.Errorf("a plain grant type is not named: %s", plain.Body)
	}
}

// offline_access and openid, which many OAuth clients add to every request,
// are dropped rather than refused; other unknown scopes are still refused.
func TestOAuthHarmlessScopesAreIgnored(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)
	clientID := env.register(t, "App", testRedirect)

	a := newAuthRequest(clientID)
	a.scope = "openid finance:read offline_access"
	page := consent(b, a)
	if !page.Contains(`value="finance:read" checked`) || page.Contains(`value="expenses:write"`) || page.Contains(`value="offline_access"`) {
		t.Errorf("openid and offline_access beside finance:read: the page should offer finance:read alone:\n%s", page.Body)
	}

	a = newAuthRequest(clientID)
	a.scope = "offline_access openid"
	page = consent(b, a)
	if !page.Contains(`value="finance:read" checked`) || !page.Contains(`value="settings:write"`) || page.Contains(`value="expenses:write" checked`) {
		t.Errorf("only ignored scopes is like no scope: every scope offered, finance:read ticked:\n%s", page.Body)
	}

	x := env.call(t, http.MethodPost, oauth.RegisterPath, "application/json",
		`{"client_name":"OIDC app","redirect_uris":["`+testRedirect+`"],"scope":"openid offline_access finance:read"}`, nil)
	if x.Status != http.StatusCreated {
		t.Errorf("register with openid and offline_access: status %d: %s", x.Status, x.Body)
	}

	a, tok := env.connect(t, u, "finance:read")
	x = env.postForm(t, oauth.TokenPath, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken},
		"client_id": {a.clientID}, "scope": {"offline_access"}})
	var refreshed oauth.TokenResponse
	x.JSON(t, &refreshed)
	if x.Status != http.StatusOK || refreshed.Scope != "finance:read mcp:connect" {
		t.Errorf("refresh asking offline_access: status %d, scope %q; want the grant's scopes: %s", x.Status, refreshed.Scope, x.Body)
	}

	a = newAuthRequest(clientID)
	a.scope = "finance:read profile"
	x = b.Get(oauth.AuthorizePath + "?" + a.query().Encode())
	if x.Status != http.StatusBadRequest || !x.Contains("invalid_scope") {
		t.Errorf("an unknown scope: status %d, want 400 invalid_scope", x.Status)
	}
}

// The default endpoints of the 2025-03-26 authorization spec (/authorize,
// /token, /register at the origin) are the same endpoints, so a client that
// falls back to them keeps working, refresh included.
func TestOAuthEndpointsAtTheOrigin(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)

	x := env.call(t, http.MethodPost, oauth.FallbackRegisterPath, "application/json",
		`{"client_name":"Old SDK","redirect_uris":["`+testRedirect+`"]}`, nil)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	x.JSON(t, &reg)
	if x.Status != http.StatusCreated || reg.ClientID == "" {
		t.Fatalf("POST /register: status %d: %s", x.Status, x.Body)
	}

	a := newAuthRequest(reg.ClientID)
	b := env.browser(t)
	if x := b.Get(oauth.FallbackAuthorizePath + "?" + a.query().Encode()); x.Status != http.StatusSeeOther ||
		!strings.HasPrefix(x.Header.Get("Location"), web.LoginPath+"?next="+url.QueryEscape(oauth.FallbackAuthorizePath+"?")) {
		t.Errorf("GET /authorize signed out: status %d, Location %q; want the sign-in page, then back", x.Status, x.Header.Get("Location"))
	}
	b.SignIn(u)
	page := b.Get(oauth.FallbackAuthorizePath + "?" + a.query().Encode())
	if page.Status != http.StatusOK || !page.Contains("Old SDK") {
		t.Fatalf("GET /authorize: status %d: %s", page.Status, page.Body)
	}
	form := a.query()
	form.Set("csrf", testkit.CSRF(t, page))
	form.Set("decision", "approve")
	form["scope_grant"] = []string{"finance:read"}
	x = b.Post(oauth.FallbackAuthorizePath, form)
	code := x.Location(t).Query().Get("code")
	if x.Status != http.StatusSeeOther || code == "" {
		t.Fatalf("POST /authorize: status %d: %s", x.Status, x.Body)
	}

	x = env.postForm(t, oauth.FallbackTokenPath, url.Values{
		"grant_type": {"authorization_code"}, "code": {code}, "code_verifier": {a.verifier},
		"redirect_uri": {a.redirectURI}, "client_id": {a.clientID},
	})
	var tok oauth.TokenResponse
	x.JSON(t, &tok)
	if x.Status != http.StatusOK || tok.RefreshToken == "" {
		t.Fatalf("POST /token (code): status %d: %s", x.Status, x.Body)
	}
	x = env.postForm(t, oauth.FallbackTokenPath, url.Values{
		"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {a.clientID},
	})
	var refreshed oauth.TokenResponse
	x.JSON(t, &refreshed)
	if x.Status != http.StatusOK || env.health(t, refreshed.AccessToken) != http.StatusOK {
		t.Errorf("POST /token (refresh): status %d: %s", x.Status, x.Body)
	}
}
