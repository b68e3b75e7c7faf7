package server

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// checkPageHeaders checks the security headers every page carries.
func checkPageHeaders(t testing.TB, x exchange) {
	t.Helper()
	csp := x.header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "frame-ancestors 'none'", "form-action 'self'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "script-src") {
		t.Errorf("CSP %q allows script", csp)
	}
	for k, want := range map[string]string{
		"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store",
	} {
		if got := x.header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

func TestSetupOnlyWhileThereIsNoUser(t *testing.T) {
	env := newOAuthEnv(t)
	b := env.browser(t)

	if x := b.get("/"); x.status != http.StatusSeeOther || x.header.Get("Location") != SetupPath {
		t.Fatalf("GET / with no user: %d to %q, want 303 to /setup", x.status, x.header.Get("Location"))
	}
	if x := b.get(LoginPath); x.header.Get("Location") != SetupPath {
		t.Errorf("sign-in with no user goes to %q, want /setup", x.header.Get("Location"))
	}
	page := b.get(SetupPath + "?code=" + env.srv.setupCode)
	if page.status != http.StatusOK || !page.contains("Welcome to finance") || !page.contains(`value="`+env.srv.setupCode+`"`) {
		t.Fatalf("setup page: %d\n%s", page.status, page.body)
	}
	checkPageHeaders(t, page)
	if !strings.HasSuffix(env.srv.SetupURL(), "/setup?code="+env.srv.setupCode) || !strings.HasPrefix(env.srv.SetupURL(), testBaseURL) {
		t.Errorf("SetupURL = %q", env.srv.SetupURL())
	}

	form := func(code, password, confirm string) url.Values {
		return url.Values{"csrf": {csrf(t, page)}, "code": {code}, "name": {"Owner"}, "email": {"owner@example.com"},
			"password": {password}, "password_confirm": {confirm}}
	}
	for name, f := range map[string]url.Values{
		"no code":          form("", testPassword, testPassword),
		"wrong code":       form("not-the-code", testPassword, testPassword),
		"passwords differ": form(env.srv.setupCode, testPassword, testPassword+"x"),
		"short password":   form(env.srv.setupCode, "short", "short"),
	} {
		t.Run(name, func(t *testing.T) {
			if x := b.post(SetupPath, f); x.status != http.StatusBadRequest {
				t.Errorf("status %d, want 400", x.status)
			}
			if n, _ := env.auth.CountUsers(context.Background()); n != 0 {
				t.Fatalf("a user was created")
			}
		})
	}
	t.Run("no form token", func(t *testing.T) {
		f := form(env.srv.setupCode, testPassword, testPassword)
		f.Del("csrf")
		if x := b.post(SetupPath, f); x.status != http.StatusForbidden {
			t.Errorf("status %d, want 403", x.status)
		}
	})

	x := b.post(SetupPath, form(env.srv.setupCode, testPassword, testPassword))
	if x.status != http.StatusSeeOther || x.header.Get("Location") != HomePath+"?notice=welcome" {
		t.Fatalf("setup: %d to %q: %s", x.status, x.header.Get("Location"), x.body)
	}
	u, err := env.auth.UserByEmail(context.Background(), "owner@example.com")
	if err != nil || u.Plan != finance.PlanPro || u.Name != "Owner" {
		t.Fatalf("first user = %+v, %v; want a Pro user", u, err)
	}
	if home := b.get(HomePath + "?notice=welcome"); home.status != http.StatusOK || !home.contains("Your user is ready") {
		t.Errorf("after setup the browser is not signed in: %d", home.status)
	}

	// Once a user exists, setup is closed, even with the code.
	other := env.browser(t)
	if x := other.get(SetupPath + "?code=" + env.srv.setupCode); x.status != http.StatusSeeOther || x.header.Get("Location") != LoginPath {
		t.Errorf("setup page after setup: %d to %q", x.status, x.header.Get("Location"))
	}
	f := form(env.srv.setupCode, testPassword, testPassword)
	f.Set("email", "second@example.com")
	if x := other.post(SetupPath, f); x.status != http.StatusSeeOther || x.header.Get("Location") != LoginPath {
		t.Errorf("setup form after setup: %d to %q", x.status, x.header.Get("Location"))
	}
	if n, _ := env.auth.CountUsers(context.Background()); n != 1 {
		t.Errorf("%d users, want 1", n)
	}
}

func TestSetupRaceCreatesOneUser(t *testing.T) {
	env := newOAuthEnv(t)
	ctx := context.Background()
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			_, err := env.auth.SetupFirstUser(ctx, auth.CreateUserRequest{Email: "u" + string(rune('a'+i)) + "@example.com", Password: testPassword})
			errs <- err
		}()
	}
	ok := 0
	for range 8 {
		if err := <-errs; err == nil {
			ok++
		}
	}
	if n, _ := env.auth.CountUsers(ctx); ok != 1 || n != 1 {
		t.Errorf("%d setups succeeded and %d users exist; want exactly one", ok, n)
	}
}

func TestSignIn(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)

	page := b.get(LoginPath)
	if page.status != http.StatusOK || !page.contains(`name="password"`) {
		t.Fatalf("sign-in page: %d", page.status)
	}
	checkPageHeaders(t, page)
	formCookie := b.cookies["finance_form"]
	if formCookie == nil || !formCookie.HttpOnly || formCookie.SameSite != http.SameSiteStrictMode {
		t.Errorf("form cookie = %+v; want HttpOnly, SameSite=Strict", formCookie)
	}

	x := b.post(LoginPath, url.Values{"csrf": {csrf(t, page)}, "email": {u.Email}, "password": {"wrong password"}})
	if x.status != http.StatusUnauthorized || !x.contains("Wrong email or password") || b.cookies["finance_session"] != nil {
		t.Errorf("wrong password: %d, session %v", x.status, b.cookies["finance_session"])
	}
	x = b.post(LoginPath, url.Values{"email": {u.Email}, "password": {testPassword}})
	if x.status != http.StatusForbidden || b.cookies["finance_session"] != nil {
		t.Errorf("no form token: %d, want 403 and no session", x.status)
	}
	x = b.post(LoginPath, url.Values{"csrf": {csrf(t, page)}, "email": {u.Email}, "password": {testPassword}, "next": {"//evil.example/x"}})
	if x.status != http.StatusSeeOther || x.header.Get("Location") != "/" {
		t.Errorf("sign-in with an off-site next: %d to %q, want /", x.status, x.header.Get("Location"))
	}
	c := b.cookies["finance_session"]
	if c == nil {
		t.Fatal("no session cookie")
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Path != "/" ||
		c.MaxAge <= 0 || c.MaxAge > int(auth.SessionTTL.Seconds()) {
		t.Errorf("session cookie = %+v; want HttpOnly, SameSite=Lax, Path=/, not Secure over http, Max-Age within the session TTL", c)
	}
	if dbContains(t, env.testEnv, c.Value) {
		t.Error("the session id is stored in clear text")
	}
	if x := b.get(LoginPath); x.status != http.StatusSeeOther {
		t.Errorf("sign-in page when signed in: %d, want a redirect", x.status)
	}
	if x := b.get("/"); x.status != http.StatusOK || !x.contains("Spending by category") {
		t.Errorf("GET / signed in: %d, want the home page", x.status)
	}
}

func TestSecureCookiesOverHTTPS(t *testing.T) {
	env := newOAuthEnv(t, func(c *Config) { c.BaseURL = "https://finance.example" })
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.signIn(u)
	c := b.cookies["__Host-finance_session"]
	if c == nil || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" {
		t.Errorf("session cookie over https = %+v; want __Host- prefix, Secure, HttpOnly, SameSite=Lax", c)
	}
	if f := b.cookies["__Host-finance_form"]; f == nil || !f.Secure {
		t.Errorf("form cookie over https = %+v", f)
	}
}

func TestSignInIsRateLimitedPerIP(t *testing.T) {
	env := newOAuthEnv(t, func(c *Config) { c.LoginRateLimit = Rate{Count: 3, Window: time.Minute} })
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	page := b.get(LoginPath)
	var last exchange
	for range 4 {
		last = b.post(LoginPath, url.Values{"csrf": {csrf(t, page)}, "email": {u.Email}, "password": {"guess"}})
	}
	if last.status != http.StatusTooManyRequests || last.header.Get("Retry-After") == "" || !last.contains("Too many attempts") {
		t.Errorf("4th attempt: %d, Retry-After %q; want a 429 page", last.status, last.header.Get("Retry-After"))
	}
	if !strings.HasPrefix(last.header.Get("Content-Type"), "text/html") {
		t.Errorf("a person gets %s, want an HTML page", last.header.Get("Content-Type"))
	}
	// Showing the sign-in page is not limited.
	if x := b.get(LoginPath); x.status != http.StatusOK {
		t.Errorf("sign-in page after the limit: %d", x.status)
	}
}

func TestCookiesNeverAuthenticateTheAPI(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.signIn(u)
	for _, target := range []string{"/api/v1/health", "/api/v1/categories"} {
		x := b.get(target)
		if x.status != http.StatusUnauthorized {
			t.Errorf("GET %s with only a session cookie: %d, want 401", target, x.status)
		}
	}
	x := b.post("/api/v1/categories", nil)
	if x.status != http.StatusUnauthorized {
		t.Errorf("POST with only a session cookie: %d, want 401", x.status)
	}

	// The MCP endpoint, mounted as the binary mounts it, with a stand-in handler.
	env.srv.MountMCP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	mcp := func(header map[string]string) int {
		req := httptest.NewRequest(http.MethodPost, MCPPath, strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		for _, c := range b.cookies {
			req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
		}
		rec := httptest.NewRecorder()
		env.srv.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	if got := mcp(nil); got != http.StatusUnauthorized {
		t.Errorf("POST /api/mcp with only a session cookie: %d, want 401", got)
	}
	_, tok := env.connect(t, u, "finance:read")
	if got := mcp(bearer(tok.AccessToken)); got != http.StatusNoContent {
		t.Errorf("POST /api/mcp with an OAuth access token: %d, want the endpoint", got)
	}
}

func TestSettingsPagesNeedSignIn(t *testing.T) {
	env := newOAuthEnv(t)
	env.createUser(finance.PlanPro)
	b := env.browser(t)
	for _, path := range []string{APIKeysPath, ConnectedAppPath} {
		x := b.get(path)
		if x.status != http.StatusSeeOther || x.header.Get("Location") != LoginPath+"?next="+url.QueryEscape(path) {
			t.Errorf("GET %s signed out: %d to %q", path, x.status, x.header.Get("Location"))
		}
	}
	if x := b.post(APIKeysPath, url.Values{"name": {"k"}, "scopes": {"all"}}); x.status != http.StatusSeeOther {
		t.Errorf("POST %s signed out: %d", APIKeysPath, x.status)
	}
}

var newKeyField = regexp.MustCompile(`id="new-key"[^>]*>(svk_[a-z2-7]+_[a-z2-7]+)</textarea>`)

func TestAPIKeysPage(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.signIn(u)

	page := b.get(APIKeysPath)
	if page.status != http.StatusOK || !page.contains("No keys yet") || !page.contains(auth.ScopeDescriptions[auth.ScopeCardsWrite]) {
		t.Fatalf("keys page: %d\n%s", page.status, page.body)
	}
	checkPageHeaders(t, page)

	x := b.post(APIKeysPath, url.Values{"csrf": {csrf(t, page)}, "name": {"laptop agent"},
		"scopes": {"finance:read", "mcp:connect"}, "expires_in": {"30d"}})
	if x.status != http.StatusOK {
		t.Fatalf("create: %d\n%s", x.status, x.body)
	}
	m := newKeyField.FindSubmatch(x.body)
	if m == nil {
		t.Fatalf("the new key is not shown:\n%s", x.body)
	}
	key := string(m[1])
	if x.header.Get("Cache-Control") != "no-store" {
		t.Error("the page showing a key may be cached")
	}
	if env.health(t, key) != http.StatusOK {
		t.Error("the new key does not work")
	}
	apiScenario{method: http.MethodPost, url: "/api/v1/categories", headers: bearer(key), body: `{"name":"X","kind":"expense"}`,
		wantStatus: http.StatusForbidden, wantCode: CodeForbidden}.run(t, env.testEnv)
	keys, _ := env.auth.ListKeys(context.Background(), u.ID)
	if len(keys) != 1 || keys[0].Name != "laptop agent" || auth.JoinScopes(keys[0].Scopes) != "finance:read, mcp:connect" ||
		keys[0].ExpiresAt == nil || keys[0].ExpiresAt.Sub(keys[0].CreatedAt) != 30*24*time.Hour {
		t.Errorf("stored key = %+v", keys)
	}

	// Shown once: the list has the public part only.
	list := b.get(APIKeysPath)
	if list.contains(key) || !list.contains("laptop agent") || !list.contains("svk_"+keys[0].PublicID+"_") {
		t.Errorf("the list shows the key again or misses it")
	}

	t.Run("validation", func(t *testing.T) {
		for name, f := range map[string]url.Values{
			"no scopes":      {"name": {"k"}, "expires_in": {"never"}},
			"no name":        {"scopes": {"all"}, "expires_in": {"never"}},
			"unknown expiry": {"name": {"k"}, "scopes": {"all"}, "expires_in": {"5y"}},
			"unknown scope":  {"name": {"k"}, "scopes": {"admin"}, "expires_in": {"never"}},
		} {
			f.Set("csrf", csrf(t, list))
			if x := b.post(APIKeysPath, f); x.status != http.StatusBadRequest || !x.contains("The key was not created") {
				t.Errorf("%s: %d", name, x.status)
			}
		}
		if keys, _ := env.auth.ListKeys(context.Background(), u.ID); len(keys) != 1 {
			t.Errorf("%d keys after invalid forms", len(keys))
		}
	})

	t.Run("CSRF", func(t *testing.T) {
		f := url.Values{"name": {"sneaky"}, "scopes": {"all"}, "expires_in": {"never"}}
		if x := b.post(APIKeysPath, f); x.status != http.StatusForbidden {
			t.Errorf("no token: %d", x.status)
		}
		f.Set("csrf", auth.CSRFToken("another session"))
		if x := b.post(APIKeysPath, f); x.status != http.StatusForbidden {
			t.Errorf("another session's token: %d", x.status)
		}
		f.Set("csrf", csrf(t, list))
		b.header["Sec-Fetch-Site"] = "cross-site"
		x := b.post(APIKeysPath, f)
		delete(b.header, "Sec-Fetch-Site")
		if x.status != http.StatusForbidden {
			t.Errorf("cross-site: %d", x.status)
		}
		if keys, _ := env.auth.ListKeys(context.Background(), u.ID); len(keys) != 1 {
			t.Errorf("a forged form created a key")
		}
	})

	x = b.post(APIKeysPath+"/"+keys[0].ID+"/revoke", url.Values{"csrf": {csrf(t, list)}})
	if x.status != http.StatusSeeOther || x.header.Get("Location") != APIKeysPath+"?notice=revoked" {
		t.Fatalf("revoke: %d to %q", x.status, x.header.Get("Location"))
	}
	if env.health(t, key) != http.StatusUnauthorized {
		t.Error("the revoked key still works")
	}
	if p := b.get(APIKeysPath + "?notice=revoked"); !p.contains("has been revoked") || !p.contains(`badge revoked`) {
		t.Error("the page does not show the revocation")
	}

	t.Run("another user's key", func(t *testing.T) {
		other := env.createUser(finance.PlanPro)
		k, _ := env.createKeyRecord(other.ID, auth.ScopeRead)
		if x := b.post(APIKeysPath+"/"+k.ID+"/revoke", url.Values{"csrf": {csrf(t, list)}}); x.status != http.StatusNotFound {
			t.Errorf("revoking another user's key: %d, want 404", x.status)
		}
	})
}

// textareaValue returns the text of the read-only field with id on a page.
func textareaValue(t *testing.T, page exchange, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<textarea[^>]* id="` + id + `"[^>]*>(.*?)</textarea>`).FindSubmatch(page.body)
	if m == nil {
		t.Fatalf("no textarea #%s on the page:\n%s", id, page.body)
	}
	return html.UnescapeString(string(m[1]))
}

func TestAPIKeysPresetAndMCPSetup(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.signIn(u)
	checked := func(page exchange, scope string) bool { return page.contains(`value="` + scope + `" checked`) }

	plain := b.get(APIKeysPath)
	if !plain.contains(`href="/settings/api-keys?preset=mcp-agent#create"`) || plain.contains(`aria-current="true"`) {
		t.Errorf("the page does not offer the MCP agent preset:\n%s", plain.body)
	}
	for _, target := range []string{APIKeysPath, APIKeysPath + "?preset=nonsense"} {
		page := b.get(target)
		if page.status != http.StatusOK || !checked(page, "finance:read") || checked(page, "expenses:write") || checked(page, "mcp:connect") {
			t.Errorf("GET %s: status %d; want the default form (finance:read only)", target, page.status)
		}
	}

	// The preset fills the form; nothing is created until it is sent.
	page := b.get(APIKeysPath + "?preset=mcp-agent")
	checkPageHeaders(t, page)
	for _, scope := range allScopeNames {
		want := scope == "finance:read" || scope == "expenses:write" || scope == "mcp:connect"
		if checked(page, scope) != want {
			t.Errorf("preset form: %s ticked = %v, want %v", scope, !want, want)
		}
	}
	if !page.contains(`name="name" value="MCP agent"`) || !page.contains(`value="90d" selected`) || !page.contains(`aria-current="true"`) {
		t.Errorf("the preset does not fill the name and expiry or mark itself:\n%s", page.body)
	}
	if keys, _ := env.auth.ListKeys(context.Background(), u.ID); len(keys) != 0 {
		t.Fatalf("opening a preset created %d keys", len(keys))
	}

	// Created as the preset offers it (the user renamed it), the key comes
	// with the MCP endpoint and client configurations, holding this key.
	x := b.post(APIKeysPath, url.Values{"csrf": {csrf(t, page)}, "name": {"claude on the laptop"},
		"scopes": {"finance:read", "expenses:write", "mcp:connect"}, "expires_in": {"90d"}})
	if x.status != http.StatusOK {
		t.Fatalf("create: %d\n%s", x.status, x.body)
	}
	key := textareaValue(t, x, "new-key")
	keys, _ := env.auth.ListKeys(context.Background(), u.ID)
	if len(keys) != 1 || keys[0].Name != "claude on the laptop" || auth.JoinScopes(keys[0].Scopes) != "finance:read, expenses:write, mcp:connect" ||
		keys[0].ExpiresAt == nil || keys[0].ExpiresAt.Sub(keys[0].CreatedAt) != 90*24*time.Hour {
		t.Errorf("stored keys = %+v", keys)
	}
	mcpURL := testBaseURL + "/api/mcp"
	if !x.contains(`id="mcp-url" class="copy" readonly value="` + mcpURL + `"`) {
		t.Errorf("the MCP endpoint is not shown:\n%s", x.body)
	}
	if got, want := textareaValue(t, x, "mcp-claude-code"),
		`claude mcp add --transport http finance `+mcpURL+` --header "Authorization: Bearer `+key+`"`; got != want {
		t.Errorf("Claude Code command = %q, want %q", got, want)
	}
	var mcpJSON struct {
		MCPServers map[string]struct {
			Type, URL string
			Headers   map[string]string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(textareaValue(t, x, "mcp-json")), &mcpJSON); err != nil {
		t.Fatalf(".mcp.json is not JSON: %v", err)
	}
	srv := mcpJSON.MCPServers["finance"]
	if len(mcpJSON.MCPServers) != 1 || srv.Type != "http" || srv.URL != mcpURL ||
		!cmp.Equal(srv.Headers, map[string]string{"Authorization": "Bearer ${FINANCE_API_KEY}"}) {
		t.Errorf(".mcp.json = %+v", mcpJSON)
	}
	if strings.Contains(textareaValue(t, x, "mcp-json"), key) {
		t.Error(".mcp.json holds the key; it should read it from the environment")
	}
	if env.health(t, key) != http.StatusOK {
		t.Error("the new key does not work")
	}
	if b.get(APIKeysPath).contains(key) {
		t.Error("the key, or a configuration holding it, is shown again")
	}

	// A key that cannot open MCP sessions gets no MCP configuration.
	x = b.post(APIKeysPath, url.Values{"csrf": {csrf(t, page)}, "name": {"reports"}, "scopes": {"finance:read"}, "expires_in": {"7d"}})
	if x.status != http.StatusOK || x.contains(`id="mcp-url"`) || x.contains(`id="mcp-json"`) || !x.contains("lacks <code>mcp:connect</code>") {
		t.Errorf("a key without mcp:connect: status %d, MCP setup shown or no explanation:\n%s", x.status, x.body)
	}
	// "all" includes mcp:connect.
	x = b.post(APIKeysPath, url.Values{"csrf": {csrf(t, page)}, "name": {"everything"}, "scopes": {"all"}, "expires_in": {"7d"}})
	if x.status != http.StatusOK || !strings.Contains(textareaValue(t, x, "mcp-claude-code"), textareaValue(t, x, "new-key")) {
		t.Errorf("a key holding all: status %d, no MCP setup with the key:\n%s", x.status, x.body)
	}
	if keys, _ := env.auth.ListKeys(context.Background(), u.ID); len(keys) != 3 {
		t.Errorf("%d keys, want 3", len(keys))
	}
}

func TestConnectedAppsPage(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	a, tok := env.connect(t, u, "finance:read", "expenses:write")
	env.health(t, tok.AccessToken)

	b := env.browser(t)
	b.signIn(u)
	page := b.get(ConnectedAppPath)
	if page.status != http.StatusOK {
		t.Fatalf("status %d", page.status)
	}
	checkPageHeaders(t, page)
	for _, want := range []string{"Test client", "finance:read, expenses:write, mcp:connect", "Connected", "Last used", "UTC"} {
		if !page.contains(want) {
			t.Errorf("page lacks %q:\n%s", want, page.body)
		}
	}
	if page.contains("not yet") {
		t.Error("last use is not shown")
	}
	grants, _ := env.oauth.ListGrants(context.Background(), u.ID)
	if len(grants) != 1 {
		t.Fatalf("grants %+v", grants)
	}

	// Another user sees nothing and cannot revoke it.
	other := env.browser(t)
	other.signIn(env.createUser(finance.PlanPro))
	op := other.get(ConnectedAppPath)
	if op.contains("Test client") || !op.contains("No apps are connected") {
		t.Error("another user sees the app")
	}
	if x := other.post(ConnectedAppPath+"/"+grants[0].ID+"/revoke", url.Values{"csrf": {csrf(t, op)}}); x.status != http.StatusNotFound {
		t.Errorf("another user revoking: %d, want 404", x.status)
	}
	if x := b.post(ConnectedAppPath+"/"+grants[0].ID+"/revoke", url.Values{}); x.status != http.StatusForbidden {
		t.Errorf("revoking without a form token: %d, want 403", x.status)
	}
	if env.health(t, tok.AccessToken) != http.StatusOK {
		t.Fatal("the app lost access before it was disconnected")
	}

	x := b.post(ConnectedAppPath+"/"+grants[0].ID+"/revoke", url.Values{"csrf": {csrf(t, page)}})
	if x.status != http.StatusSeeOther || x.header.Get("Location") != ConnectedAppPath+"?notice=disconnected" {
		t.Fatalf("disconnect: %d to %q", x.status, x.header.Get("Location"))
	}
	if env.health(t, tok.AccessToken) != http.StatusUnauthorized {
		t.Error("the disconnected app's token still works")
	}
	env.refresh(t, a.clientID, tok.RefreshToken).wantOAuthError(t, http.StatusBadRequest, "invalid_grant")
	if p := b.get(ConnectedAppPath + "?notice=disconnected"); p.contains("Test client") || !p.contains("has been disconnected") {
		t.Error("the page still lists the app")
	}
}

func TestConsentFormIsProtected(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	a := newAuthRequest(env.register(t, "App", testRedirect))
	b := env.browser(t)
	b.signIn(u)
	page := b.consent(a)

	for name, form := range map[string]func() url.Values{
		"no token": func() url.Values {
			f := a.query()
			f.Set("decision", "approve")
			return f
		},
		"another session's token": func() url.Values {
			f := a.query()
			f.Set("decision", "approve")
			f.Set("csrf", auth.CSRFToken("someone else"))
			return f
		},
	} {
		t.Run(name, func(t *testing.T) {
			x := b.post("/api/oauth/authorize", form())
			if x.status != http.StatusForbidden || x.header.Get("Location") != "" {
				t.Errorf("status %d, Location %q; want 403 and no code", x.status, x.header.Get("Location"))
			}
		})
	}
	t.Run("signed out", func(t *testing.T) {
		x := env.browser(t).decide(a, page, "approve", "finance:read")
		if x.status != http.StatusUnauthorized || x.header.Get("Location") != "" {
			t.Errorf("status %d; want 401 and no code", x.status)
		}
	})
	t.Run("tampered redirect URI", func(t *testing.T) {
		f := a.query()
		f.Set("redirect_uri", "https://evil.example/cb")
		f.Set("csrf", csrf(t, page))
		f.Set("decision", "approve")
		if x := b.post("/api/oauth/authorize", f); x.status != http.StatusBadRequest || x.header.Get("Location") != "" {
			t.Errorf("status %d, Location %q; want 400 and no redirect", x.status, x.header.Get("Location"))
		}
	})
	t.Run("no decision", func(t *testing.T) {
		f := a.query()
		f.Set("csrf", csrf(t, page))
		if x := b.post("/api/oauth/authorize", f); x.status != http.StatusBadRequest {
			t.Errorf("status %d", x.status)
		}
	})
}

func TestSignOut(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.signIn(u)
	old := b.cookies["finance_session"].Value
	page := b.get(APIKeysPath)

	if x := b.post(LogoutPath, url.Values{}); x.status != http.StatusForbidden {
		t.Errorf("sign-out without a token: %d, want 403", x.status)
	}
	x := b.post(LogoutPath, url.Values{"csrf": {csrf(t, page)}})
	if x.status != http.StatusSeeOther || x.header.Get("Location") != LoginPath || b.cookies["finance_session"] != nil {
		t.Fatalf("sign-out: %d to %q, cookie %v", x.status, x.header.Get("Location"), b.cookies["finance_session"])
	}
	// The old session id no longer works, even if a copy was kept.
	if _, err := env.auth.SessionUser(context.Background(), old); err == nil {
		t.Error("the session survives sign-out")
	}
}

func TestPagesAndStaticFiles(t *testing.T) {
	env := newOAuthEnv(t)
	b := env.browser(t)
	css := b.get("/static/app.css")
	if css.status != http.StatusOK || !strings.HasPrefix(css.header.Get("Content-Type"), "text/css") || !css.contains("--accent") {
		t.Errorf("stylesheet: %d %s", css.status, css.header.Get("Content-Type"))
	}
	if x := b.get("/static/icon.svg"); x.status != http.StatusOK {
		t.Errorf("icon: %d", x.status)
	}
	x := b.get("/static/nope.css")
	if x.status != http.StatusNotFound || !strings.HasPrefix(x.header.Get("Content-Type"), "text/html") {
		t.Errorf("missing static file: %d %s, want an HTML 404", x.status, x.header.Get("Content-Type"))
	}
	if x := b.get("/static/..%2fembed.go"); x.status != http.StatusNotFound {
		t.Errorf("path traversal: %d", x.status)
	}
	for _, name := range []string{"setup", "login", "consent", "apikeys", "apps", "error", "home", "record", "expenses"} {
		if pageTemplates[name] == nil {
			t.Errorf("template %s is missing", name)
		}
	}
}

func TestSafeNext(t *testing.T) {
	for in, want := range map[string]string{
		"":                           "/",
		"/settings/api-keys":         "/settings/api-keys",
		"/api/oauth/authorize?a=b":   "/api/oauth/authorize?a=b",
		"//evil.example":             "/",
		"/\\evil.example":            "/",
		"https://evil.example/":      "/",
		"javascript:alert(1)":        "/",
		"/ok\r\nSet-Cookie: x=y":     "/",
		"settings/api-keys":          "/",
		"/%2F%2Fevil.example/x?y=/z": "/%2F%2Fevil.example/x?y=/z",
	} {
		if got := safeNext(in); got != want {
			t.Errorf("safeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFormActionSource(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:5000/cb":         "http://127.0.0.1:5000",
		"https://claude.ai/api/mcp/cb?x=1": "https://claude.ai",
		"cursor://anysphere.cursor/cb":     "cursor:",
		"com.example.app:/cb":              "com.example.app:",
		"http://[::1]:5000/cb":             "http:",
	} {
		if got := formActionSource(in); got != want {
			t.Errorf("formActionSource(%q) = %q, want %q", in, got, want)
		}
	}
}
