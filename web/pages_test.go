package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	assets "github.com/finance-app/finance/embed"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/web"
)

func TestSetupOnlyWhileThereIsNoUser(t *testing.T) {
	env := newOAuthEnv(t)
	b := env.browser(t)

	if x := b.Get("/"); x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.SetupPath {
		t.Fatalf("GET / with no user: %d to %q, want 303 to /setup", x.Status, x.Header.Get("Location"))
	}
	if x := b.Get(web.LoginPath); x.Header.Get("Location") != web.SetupPath {
		t.Errorf("sign-in with no user goes to %q, want /setup", x.Header.Get("Location"))
	}
	page := b.Get(web.SetupPath + "?code=" + env.setupCode())
	if page.Status != http.StatusOK || !page.Contains("Welcome to finance") || !page.Contains(`value="`+env.setupCode()+`"`) {
		t.Fatalf("setup page: %d\n%s", page.Status, page.Body)
	}
	testkit.CheckScriptPageHeaders(t, page)
	if !strings.HasSuffix(env.srv.SetupURL(), "/setup?code="+env.setupCode()) || !strings.HasPrefix(env.srv.SetupURL(), testkit.BaseURL) {
		t.Errorf("SetupURL = %q", env.srv.SetupURL())
	}

	form := func(code, password, confirm string) url.Values {
		return url.Values{"csrf": {testkit.CSRF(t, page)}, "code": {code}, "name": {"Owner"}, "email": {"owner@example.com"},
			"password": {password}, "password_confirm": {confirm}}
	}
	for name, f := range map[string]url.Values{
		"no code":          form("", testkit.Password, testkit.Password),
		"wrong code":       form("not-the-code", testkit.Password, testkit.Password),
		"passwords differ": form(env.setupCode(), testkit.Password, testkit.Password+"x"),
		"short password":   form(env.setupCode(), "short", "short"),
	} {
		t.Run(name, func(t *testing.T) {
			if x := b.Post(web.SetupPath, f); x.Status != http.StatusBadRequest {
				t.Errorf("status %d, want 400", x.Status)
			}
			if n, _ := env.auth.CountUsers(context.Background()); n != 0 {
				t.Fatalf("a user was created")
			}
		})
	}
	t.Run("no form token", func(t *testing.T) {
		f := form(env.setupCode(), testkit.Password, testkit.Password)
		f.Del("csrf")
		if x := b.Post(web.SetupPath, f); x.Status != http.StatusForbidden {
			t.Errorf("status %d, want 403", x.Status)
		}
	})

	x := b.Post(web.SetupPath, form(env.setupCode(), testkit.Password, testkit.Password))
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.HomePath+"?notice=welcome" {
		t.Fatalf("setup: %d to %q: %s", x.Status, x.Header.Get("Location"), x.Body)
	}
	u, err := env.auth.UserByEmail(context.Background(), "owner@example.com")
	if err != nil || u.Plan != finance.PlanPro || u.Name != "Owner" {
		t.Fatalf("first user = %+v, %v; want a Pro user", u, err)
	}
	if home := b.Get(web.HomePath + "?notice=welcome"); home.Status != http.StatusOK || !home.Contains("Your user is ready") {
		t.Errorf("after setup the browser is not signed in: %d", home.Status)
	}

	// Once a user exists, setup is closed, even with the code.
	other := env.browser(t)
	if x := other.Get(web.SetupPath + "?code=" + env.setupCode()); x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath {
		t.Errorf("setup page after setup: %d to %q", x.Status, x.Header.Get("Location"))
	}
	f := form(env.setupCode(), testkit.Password, testkit.Password)
	f.Set("email", "second@example.com")
	if x := other.Post(web.SetupPath, f); x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath {
		t.Errorf("setup form after setup: %d to %q", x.Status, x.Header.Get("Location"))
	}
	if n, _ := env.auth.CountUsers(context.Background()); n != 1 {
		t.Errorf("%d users, want 1", n)
	}
}

// TestSetupAsksCurrencyAndTimezone: the setup page offers a currency chosen
// from the browser's languages and the server's timezone (the browser's own
// corrects it, by zone.js), and the user starts with what was sent, in any
// case; a code or zone the API refuses creates no user.
func TestSetupAsksCurrencyAndTimezone(t *testing.T) {
	t.Setenv("TZ", "America/Chicago")
	env := newOAuthEnv(t)
	for lang, want := range map[string]string{"en-US,en;q=0.9": "USD", "fil-PH": "PHP", "fil": "PHP", "de-DE,de;q=0.8": "EUR",
		"ja": "JPY", "en-GB": "GBP", "": "PHP", "xx-invalid;;": "PHP"} {
		b := env.browser(t)
		b.Headers["Accept-Language"] = lang
		page := b.Get(web.SetupPath + "?code=" + env.setupCode())
		if !page.Contains(`<option value="` + want + `" selected>`) {
			t.Errorf("Accept-Language %q: %s is not chosen", lang, want)
		}
		if !page.Contains(`<option value="America/Chicago" selected>Chicago</option>`) || !page.Contains(`data-browser-zone`) ||
			!page.Contains(`<script src="/static/zone.js" defer></script>`) {
			t.Errorf("Accept-Language %q: the server's zone is not chosen, or the browser cannot correct it", lang)
		}
	}
	if js := env.browser(t).Get("/static/zone.js"); js.Status != http.StatusOK || !js.Contains("resolvedOptions().timeZone") {
		t.Errorf("zone.js: %d", js.Status)
	}

	b := env.browser(t)
	page := b.Get(web.SetupPath + "?code=" + env.setupCode())
	form := url.Values{"csrf": {testkit.CSRF(t, page)}, "code": {env.setupCode()}, "email": {"owner@example.com"},
		"password": {testkit.Password}, "password_confirm": {testkit.Password}, "currency": {"XYZ"}, "timezone": {"Mars/Olympus_Mons"}}
	x := b.Post(web.SetupPath, form)
	if x.Status != http.StatusBadRequest || !x.Contains(`id="currency-error">Currency must be an ISO 4217 currency code`) ||
		!x.Contains(`id="timezone-error">Timezone must be an IANA timezone name`) {
		t.Fatalf("refused settings: %d\n%s", x.Status, x.Body)
	}
	if n, _ := env.auth.CountUsers(context.Background()); n != 0 {
		t.Fatalf("a user was created with settings the API refuses")
	}

	form.Set("currency", "eur")
	form.Set("timezone", "Europe/Berlin")
	if x := b.Post(web.SetupPath, form); x.Status != http.StatusSeeOther {
		t.Fatalf("setup: %d\n%s", x.Status, x.Body)
	}
	u, err := env.auth.UserByEmail(context.Background(), "owner@example.com")
	if err != nil {
		t.Fatal(err)
	}
	st, err := env.srv.Ledger().AppSettings(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := finance.DefaultAppSettings()
	want.Currency, want.Timezone = "EUR", "Europe/Berlin"
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("settings after setup (-want +got):\n%s", diff)
	}
	settings := b.Get(web.AppSettingsPath)
	testkit.CheckPageHeaders(t, settings) // the settings page offers the same pickers, and runs no script
	if !settings.Contains(`<option value="EUR" selected>EUR · Euro</option>`) || !settings.Contains(`<option value="Europe/Berlin" selected>Berlin</option>`) {
		t.Errorf("the settings page does not offer the saved currency and zone:\n%s", settings.Body)
	}
}

func TestSetupRaceCreatesOneUser(t *testing.T) {
	env := newOAuthEnv(t)
	ctx := context.Background()
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			_, err := env.auth.SetupFirstUser(ctx, auth.CreateUserRequest{Email: "u" + string(rune('a'+i)) + "@example.com", Password: testkit.Password}, finance.AppSettingsRequest{})
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

	page := b.Get(web.LoginPath)
	if page.Status != http.StatusOK || !page.Contains(`name="password"`) {
		t.Fatalf("sign-in page: %d", page.Status)
	}
	testkit.CheckPageHeaders(t, page)
	formCookie := b.Cookies["finance_form"]
	if formCookie == nil || !formCookie.HttpOnly || formCookie.SameSite != http.SameSiteStrictMode {
		t.Errorf("form cookie = %+v; want HttpOnly, SameSite=Strict", formCookie)
	}

	x := b.Post(web.LoginPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "email": {u.Email}, "password": {"wrong password"}})
	if x.Status != http.StatusUnauthorized || !x.Contains("Wrong email or password") || b.Cookies["finance_session"] != nil {
		t.Errorf("wrong password: %d, session %v", x.Status, b.Cookies["finance_session"])
	}
	x = b.Post(web.LoginPath, url.Values{"email": {u.Email}, "password": {testkit.Password}})
	if x.Status != http.StatusForbidden || b.Cookies["finance_session"] != nil {
		t.Errorf("no form token: %d, want 403 and no session", x.Status)
	}
	x = b.Post(web.LoginPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "email": {u.Email}, "password": {testkit.Password}, "next": {"//evil.example/x"}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != "/" {
		t.Errorf("sign-in with an off-site next: %d to %q, want /", x.Status, x.Header.Get("Location"))
	}
	c := b.Cookies["finance_session"]
	if c == nil {
		t.Fatal("no session cookie")
	}
	if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure || c.Path != "/" ||
		c.MaxAge <= 0 || c.MaxAge > int(auth.SessionTTL.Seconds()) {
		t.Errorf("session cookie = %+v; want HttpOnly, SameSite=Lax, Path=/, not Secure over http, Max-Age within the session TTL", c)
	}
	if testkit.DBContains(t, env.db, c.Value) {
		t.Error("the session id is stored in clear text")
	}
	if x := b.Get(web.LoginPath); x.Status != http.StatusSeeOther {
		t.Errorf("sign-in page when signed in: %d, want a redirect", x.Status)
	}
	if x := b.Get("/"); x.Status != http.StatusOK || !x.Contains("Spending by category") {
		t.Errorf("GET / signed in: %d, want the home page", x.Status)
	}
}

func TestSecureCookiesOverHTTPS(t *testing.T) {
	env := newOAuthEnv(t, func(c *server.Config) { c.BaseURL = "https://finance.example" })
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)
	c := b.Cookies["__Host-finance_session"]
	if c == nil || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Domain != "" {
		t.Errorf("session cookie over https = %+v; want __Host- prefix, Secure, HttpOnly, SameSite=Lax", c)
	}
	if f := b.Cookies["__Host-finance_form"]; f == nil || !f.Secure {
		t.Errorf("form cookie over https = %+v", f)
	}
}

func TestSignInIsRateLimitedPerIP(t *testing.T) {
	env := newOAuthEnv(t, func(c *server.Config) { c.LoginRateLimit = server.Rate{Count: 3, Window: time.Minute} })
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	page := b.Get(web.LoginPath)
	var last testkit.Exchange
	for range 4 {
		last = b.Post(web.LoginPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "email": {u.Email}, "password": {"guess"}})
	}
	if last.Status != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" || !last.Contains("Too many attempts") {
		t.Errorf("4th attempt: %d, Retry-After %q; want a 429 page", last.Status, last.Header.Get("Retry-After"))
	}
	if !strings.HasPrefix(last.Header.Get("Content-Type"), "text/html") {
		t.Errorf("a person gets %s, want an HTML page", last.Header.Get("Content-Type"))
	}
	// Showing the sign-in page is not limited.
	if x := b.Get(web.LoginPath); x.Status != http.StatusOK {
		t.Errorf("sign-in page after the limit: %d", x.Status)
	}
}

func TestSettingsPagesNeedSignIn(t *testing.T) {
	env := newOAuthEnv(t)
	env.createUser(finance.PlanPro)
	b := env.browser(t)
	for _, path := range []string{web.APIKeysPath, web.ConnectedAppPath} {
		x := b.Get(path)
		if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath+"?next="+url.QueryEscape(path) {
			t.Errorf("GET %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
	if x := b.Post(web.APIKeysPath, url.Values{"name": {"k"}, "scopes": {"all"}}); x.Status != http.StatusSeeOther {
		t.Errorf("POST %s signed out: %d", web.APIKeysPath, x.Status)
	}
}

var newKeyField = regexp.MustCompile(`id="new-key"[^>]*>(svk_[a-z2-7]+_[a-z2-7]+)</textarea>`)

func TestAPIKeysPage(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)

	page := b.Get(web.APIKeysPath)
	if page.Status != http.StatusOK || !page.Contains("No keys yet") || !page.Contains(auth.ScopeDescriptions[auth.ScopeCardsWrite]) {
		t.Fatalf("keys page: %d\n%s", page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)

	x := b.Post(web.APIKeysPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "name": {"laptop agent"},
		"scopes": {"finance:read", "mcp:connect"}, "expires_in": {"30d"}})
	if x.Status != http.StatusOK {
		t.Fatalf("create: %d\n%s", x.Status, x.Body)
	}
	m := newKeyField.FindSubmatch(x.Body)
	if m == nil {
		t.Fatalf("the new key is not shown:\n%s", x.Body)
	}
	key := string(m[1])
	if x.Header.Get("Cache-Control") != "no-store" {
		t.Error("the page showing a key may be cached")
	}
	if env.health(t, key) != http.StatusOK {
		t.Error("the new key does not work")
	}
	wantAPIError(t, "a finance:read key adding a category", env.api(t, http.MethodPost, "/api/v1/categories", key,
		`{"name":"X","kind":"expense"}`), http.StatusForbidden, httperr.CodeForbidden, "")
	keys, _ := env.auth.ListKeys(context.Background(), u.ID)
	if len(keys) != 1 || keys[0].Name != "laptop agent" || auth.JoinScopes(keys[0].Scopes) != "finance:read, mcp:connect" ||
		keys[0].ExpiresAt == nil || keys[0].ExpiresAt.Sub(keys[0].CreatedAt) != 30*24*time.Hour {
		t.Errorf("stored key = %+v", keys)
	}

	// Shown once: the list has the public part only.
	list := b.Get(web.APIKeysPath)
	if list.Contains(key) || !list.Contains("laptop agent") || !list.Contains("svk_"+keys[0].PublicID+"_") {
		t.Errorf("the list shows the key again or misses it")
	}

	t.Run("validation", func(t *testing.T) {
		for name, f := range map[string]url.Values{
			"no scopes":      {"name": {"k"}, "expires_in": {"never"}},
			"no name":        {"scopes": {"all"}, "expires_in": {"never"}},
			"unknown expiry": {"name": {"k"}, "scopes": {"all"}, "expires_in": {"5y"}},
			"unknown scope":  {"name": {"k"}, "scopes": {"admin"}, "expires_in": {"never"}},
		} {
			f.Set("csrf", testkit.CSRF(t, list))
			if x := b.Post(web.APIKeysPath, f); x.Status != http.StatusBadRequest || !x.Contains("The key was not created") {
				t.Errorf("%s: %d", name, x.Status)
			}
		}
		if keys, _ := env.auth.ListKeys(context.Background(), u.ID); len(keys) != 1 {
			t.Errorf("%d keys after invalid forms", len(keys))
		}
	})

	t.Run("CSRF", func(t *testing.T) {
		f := url.Values{"name": {"sneaky"}, "scopes": {"all"}, "expires_in": {"never"}}
		if x := b.Post(web.APIKeysPath, f); x.Status != http.StatusForbidden {
			t.Errorf("no token: %d", x.Status)
		}
		f.Set("csrf", auth.CSRFToken("another session"))
		if x := b.Post(web.APIKeysPath, f); x.Status != http.StatusForbidden {
			t.Errorf("another session's token: %d", x.Status)
		}
		f.Set("csrf", testkit.CSRF(t, list))
		b.Headers["Sec-Fetch-Site"] = "cross-site"
		x := b.Post(web.APIKeysPath, f)
		delete(b.Headers, "Sec-Fetch-Site")
		if x.Status != http.StatusForbidden {
			t.Errorf("cross-site: %d", x.Status)
		}
		if keys, _ := env.auth.ListKeys(context.Background(), u.ID); len(keys) != 1 {
			t.Errorf("a forged form created a key")
		}
	})

	x = b.Post(web.APIKeysPath+"/"+keys[0].ID+"/revoke", url.Values{"csrf": {testkit.CSRF(t, list)}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.APIKeysPath+"?notice=revoked" {
		t.Fatalf("revoke: %d to %q", x.Status, x.Header.Get("Location"))
	}
	if env.health(t, key) != http.StatusUnauthorized {
		t.Error("the revoked key still works")
	}
	if p := b.Get(web.APIKeysPath + "?notice=revoked"); !p.Contains("has been revoked") || !p.Contains(`badge revoked`) {
		t.Error("the page does not show the revocation")
	}

	t.Run("another user's key", func(t *testing.T) {
		other := env.createUser(finance.PlanPro)
		k, _ := env.createKeyRecord(other.ID, auth.ScopeRead)
		if x := b.Post(web.APIKeysPath+"/"+k.ID+"/revoke", url.Values{"csrf": {testkit.CSRF(t, list)}}); x.Status != http.StatusNotFound {
			t.Errorf("revoking another user's key: %d, want 404", x.Status)
		}
	})
}

// textareaValue returns the text of the read-only field with id on a page.
func textareaValue(t *testing.T, page testkit.Exchange, id string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<textarea[^>]* id="` + id + `"[^>]*>(.*?)</textarea>`).FindSubmatch(page.Body)
	if m == nil {
		t.Fatalf("no textarea #%s on the page:\n%s", id, page.Body)
	}
	return html.UnescapeString(string(m[1]))
}

func TestAPIKeysPresetAndMCPSetup(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)
	checked := func(page testkit.Exchange, scope string) bool { return page.Contains(`value="` + scope + `" checked`) }

	plain := b.Get(web.APIKeysPath)
	if !plain.Contains(`href="/settings/api-keys?preset=mcp-agent#create"`) || plain.Contains(`aria-current="true"`) {
		t.Errorf("the page does not offer the MCP agent preset:\n%s", plain.Body)
	}
	for _, target := range []string{web.APIKeysPath, web.APIKeysPath + "?preset=nonsense"} {
		page := b.Get(target)
		if page.Status != http.StatusOK || !checked(page, "finance:read") || checked(page, "expenses:write") || checked(page, "mcp:connect") {
			t.Errorf("GET %s: status %d; want the default form (finance:read only)", target, page.Status)
		}
	}

	// The preset fills the form; nothing is created until it is sent.
	page := b.Get(web.APIKeysPath + "?preset=mcp-agent")
	testkit.CheckPageHeaders(t, page)
	for _, scope := range testkit.AllScopeNames {
		want := scope == "finance:read" || scope == "expenses:write" || scope == "mcp:connect"
		if checked(page, scope) != want {
			t.Errorf("preset form: %s ticked = %v, want %v", scope, !want, want)
		}
	}
	if !page.Contains(`name="name" value="MCP agent"`) || !page.Contains(`value="90d" selected`) || !page.Contains(`aria-current="true"`) {
		t.Errorf("the preset does not fill the name and expiry or mark itself:\n%s", page.Body)
	}
	if keys, _ := env.auth.ListKeys(context.Background(), u.ID); len(keys) != 0 {
		t.Fatalf("opening a preset created %d keys", len(keys))
	}

	// Created as the preset offers it (the user renamed it), the key comes
	// with the MCP endpoint and client configurations, holding this key.
	x := b.Post(web.APIKeysPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "name": {"claude on the laptop"},
		"scopes": {"finance:read", "expenses:write", "mcp:connect"}, "expires_in": {"90d"}})
	if x.Status != http.StatusOK {
		t.Fatalf("create: %d\n%s", x.Status, x.Body)
	}
	key := textareaValue(t, x, "new-key")
	keys, _ := env.auth.ListKeys(context.Background(), u.ID)
	if len(keys) != 1 || keys[0].Name != "claude on the laptop" || auth.JoinScopes(keys[0].Scopes) != "finance:read, expenses:write, mcp:connect" ||
		keys[0].ExpiresAt == nil || keys[0].ExpiresAt.Sub(keys[0].CreatedAt) != 90*24*time.Hour {
		t.Errorf("stored keys = %+v", keys)
	}
	mcpURL := testkit.BaseURL + "/api/mcp"
	if !x.Contains(`id="mcp-url" class="copy" readonly value="` + mcpURL + `"`) {
		t.Errorf("the MCP endpoint is not shown:\n%s", x.Body)
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
	if b.Get(web.APIKeysPath).Contains(key) {
		t.Error("the key, or a configuration holding it, is shown again")
	}

	// A key that cannot open MCP sessions gets no MCP configuration.
	x = b.Post(web.APIKeysPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "name": {"reports"}, "scopes": {"finance:read"}, "expires_in": {"7d"}})
	if x.Status != http.StatusOK || x.Contains(`id="mcp-url"`) || x.Contains(`id="mcp-json"`) || !x.Contains("lacks <code>mcp:connect</code>") {
		t.Errorf("a key without mcp:connect: status %d, MCP setup shown or no explanation:\n%s", x.Status, x.Body)
	}
	// "all" includes mcp:connect.
	x = b.Post(web.APIKeysPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "name": {"everything"}, "scopes": {"all"}, "expires_in": {"7d"}})
	if x.Status != http.StatusOK || !strings.Contains(textareaValue(t, x, "mcp-claude-code"), textareaValue(t, x, "new-key")) {
		t.Errorf("a key holding all: status %d, no MCP setup with the key:\n%s", x.Status, x.Body)
	}
	if keys, _ := env.auth.ListKeys(context.Background(), u.ID); len(keys) != 3 {
		t.Errorf("%d keys, want 3", len(keys))
	}
}

func TestSignOut(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)
	old := b.Cookies["finance_session"].Value
	page := b.Get(web.APIKeysPath)

	if x := b.Post(web.LogoutPath, url.Values{}); x.Status != http.StatusForbidden {
		t.Errorf("sign-out without a token: %d, want 403", x.Status)
	}
	x := b.Post(web.LogoutPath, url.Values{"csrf": {testkit.CSRF(t, page)}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath || b.Cookies["finance_session"] != nil {
		t.Fatalf("sign-out: %d to %q, cookie %v", x.Status, x.Header.Get("Location"), b.Cookies["finance_session"])
	}
	// The old session id no longer works, even if a copy was kept.
	if _, err := env.auth.SessionUser(context.Background(), old); err == nil {
		t.Error("the session survives sign-out")
	}
}

func TestPagesAndStaticFiles(t *testing.T) {
	env := newOAuthEnv(t)
	b := env.browser(t)
	css := b.Get("/static/app.css")
	if css.Status != http.StatusOK || !strings.HasPrefix(css.Header.Get("Content-Type"), "text/css") || !css.Contains("--accent") {
		t.Errorf("stylesheet: %d %s", css.Status, css.Header.Get("Content-Type"))
	}
	if x := b.Get("/static/icon.svg"); x.Status != http.StatusOK {
		t.Errorf("icon: %d", x.Status)
	}
	x := b.Get("/static/nope.css")
	if x.Status != http.StatusNotFound || !strings.HasPrefix(x.Header.Get("Content-Type"), "text/html") {
		t.Errorf("missing static file: %d %s, want an HTML 404", x.Status, x.Header.Get("Content-Type"))
	}
	if x := b.Get("/static/..%2fembed.go"); x.Status != http.StatusNotFound {
		t.Errorf("path traversal: %d", x.Status)
	}
	for _, name := range []string{"setup", "login", "consent", "apikeys", "apps", "error", "home", "record", "expenses"} {
		if !web.HasTemplate(name) {
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
		if got := web.SafeNext(in); got != want {
			t.Errorf("SafeNext(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPageTemplatesParsedOnFirstUse starts the server in a process of its
// own, where no other test has rendered a page yet: start parses no
// template, and the first requests for a page, however many come at once,
// parse the layout and that page once and render it.
func TestPageTemplatesParsedOnFirstUse(t *testing.T) {
	const fresh = "FINANCE_TEST_FRESH_PROCESS"
	if os.Getenv(fresh) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPageTemplatesParsedOnFirstUse$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), fresh+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("--- PASS: TestPageTemplatesParsedOnFirstUse")) {
			t.Fatalf("in a fresh process: %v\n%s", err, out)
		}
		return
	}
	env := newOAuthEnv(t)
	env.createUser(finance.PlanPro)
	h := env.srv.Handler()
	if n := web.TemplateParses(); n != 0 {
		t.Fatalf("after start: %d template files parsed, want 0", n)
	}
	var wg sync.WaitGroup
	bodies := make([]*httptest.ResponseRecorder, 8)
	for i := range bodies {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, web.LoginPath, nil))
			bodies[i] = rec
		})
	}
	wg.Wait()
	for i, rec := range bodies {
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `name="password"`) || !strings.Contains(rec.Body.String(), "<!doctype html>") {
			t.Errorf("request %d for the sign-in page: %d\n%s", i, rec.Code, rec.Body)
		}
	}
	if n := web.TemplateParses(); n != 2 {
		t.Errorf("after 8 requests for one page: %d template files parsed, want 2 (the layout with its partials, and the page)", n)
	}
}

// TestEveryPageTemplateParses parses every page template, which start no
// longer does: a broken template fails here rather than on its first visit.
func TestEveryPageTemplateParses(t *testing.T) {
	for _, name := range web.PageNames {
		if err := web.ParsePageTemplate(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := web.ParsePageTemplate("nope"); err == nil {
		t.Error("a page template that does not exist parsed")
	}
	files, err := fs.Glob(assets.Templates, "templates/*.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if name := strings.TrimSuffix(path.Base(f), ".html"); name != "layout" && !slices.Contains(web.PageNames, name) {
			t.Errorf("%s is not a page template (pageNames)", f)
		}
	}
}
