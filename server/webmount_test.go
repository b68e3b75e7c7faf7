package server

// The web app as the server mounts it, where the pages meet the API and the
// authorization server: a session cookie never authenticates the API, and
// the consent screen and the connected apps page run the OAuth flows.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

func TestCookiesNeverAuthenticateTheAPI(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)
	for _, target := range []string{"/api/v1/health", "/api/v1/categories"} {
		x := b.Get(target)
		if x.Status != http.StatusUnauthorized {
			t.Errorf("GET %s with only a session cookie: %d, want 401", target, x.Status)
		}
	}
	x := b.Post("/api/v1/categories", nil)
	if x.Status != http.StatusUnauthorized {
		t.Errorf("POST with only a session cookie: %d, want 401", x.Status)
	}

	// The MCP endpoint, mounted as the binary mounts it, with a stand-in handler.
	env.srv.MountMCP(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	mcp := func(header map[string]string) int {
		req := httptest.NewRequest(http.MethodPost, MCPPath, strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		for _, c := range b.Cookies {
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

func TestConnectedAppsPage(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	a, tok := env.connect(t, u, "finance:read", "expenses:write")
	env.health(t, tok.AccessToken)

	b := env.browser(t)
	b.SignIn(u)
	page := b.Get(web.ConnectedAppPath)
	if page.Status != http.StatusOK {
		t.Fatalf("status %d", page.Status)
	}
	testkit.CheckPageHeaders(t, page)
	grants, _ := env.oauth.ListGrants(context.Background(), u.ID)
	if len(grants) != 1 {
		t.Fatalf("grants %+v", grants)
	}
	manila, err := time.LoadLocation(finance.DefaultTimezone)
	if err != nil {
		t.Fatal(err)
	}
	// Times are in the person's timezone (Manila by default) and date format.
	connected := grants[0].CreatedAt.In(manila).Format("2006-01-02 15:04")
	for _, want := range []string{"Test client", "finance:read, expenses:write, mcp:connect", "Connected", "Last used", connected} {
		if !page.Contains(want) {
			t.Errorf("page lacks %q:\n%s", want, page.Body)
		}
	}
	if page.Contains("not yet") || page.Contains("UTC") {
		t.Error("last use is not shown, or times are in UTC")
	}

	// Another user sees nothing and cannot revoke it.
	other := env.browser(t)
	other.SignIn(env.createUser(finance.PlanPro))
	op := other.Get(web.ConnectedAppPath)
	if op.Contains("Test client") || !op.Contains("No apps are connected") {
		t.Error("another user sees the app")
	}
	if x := other.Post(web.ConnectedAppPath+"/"+grants[0].ID+"/revoke", url.Values{"csrf": {testkit.CSRF(t, other.Get(web.SettingsPath))}}); x.Status != http.StatusNotFound {
		t.Errorf("another user revoking: %d, want 404", x.Status)
	}
	if x := b.Post(web.ConnectedAppPath+"/"+grants[0].ID+"/revoke", url.Values{}); x.Status != http.StatusForbidden {
		t.Errorf("revoking without a form token: %d, want 403", x.Status)
	}
	if env.health(t, tok.AccessToken) != http.StatusOK {
		t.Fatal("the app lost access before it was disconnected")
	}

	x := b.Post(web.ConnectedAppPath+"/"+grants[0].ID+"/revoke", url.Values{"csrf": {testkit.CSRF(t, page)}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.ConnectedAppPath+"?notice=disconnected" {
		t.Fatalf("disconnect: %d to %q", x.Status, x.Header.Get("Location"))
	}
	if env.health(t, tok.AccessToken) != http.StatusUnauthorized {
		t.Error("the disconnected app's token still works")
	}
	wantOAuthError(t, env.refresh(t, a.clientID, tok.RefreshToken), http.StatusBadRequest, "invalid_grant")
	if p := b.Get(web.ConnectedAppPath + "?notice=disconnected"); p.Contains("Test client") || !p.Contains("has been disconnected") {
		t.Error("the page still lists the app")
	}
}

func TestConsentFormIsProtected(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	a := newAuthRequest(env.register(t, "App", testRedirect))
	b := env.browser(t)
	b.SignIn(u)
	page := consent(b, a)

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
			x := b.Post("/api/oauth/authorize", form())
			if x.Status != http.StatusForbidden || x.Header.Get("Location") != "" {
				t.Errorf("status %d, Location %q; want 403 and no code", x.Status, x.Header.Get("Location"))
			}
		})
	}
	t.Run("signed out", func(t *testing.T) {
		x := decide(env.browser(t), a, page, "approve", "finance:read")
		if x.Status != http.StatusUnauthorized || x.Header.Get("Location") != "" {
			t.Errorf("status %d; want 401 and no code", x.Status)
		}
	})
	t.Run("tampered redirect URI", func(t *testing.T) {
		f := a.query()
		f.Set("redirect_uri", "https://evil.example/cb")
		f.Set("csrf", testkit.CSRF(t, page))
		f.Set("decision", "approve")
		if x := b.Post("/api/oauth/authorize", f); x.Status != http.StatusBadRequest || x.Header.Get("Location") != "" {
			t.Errorf("status %d, Location %q; want 400 and no redirect", x.Status, x.Header.Get("Location"))
		}
	})
	t.Run("no decision", func(t *testing.T) {
		f := a.query()
		f.Set("csrf", testkit.CSRF(t, page))
		if x := b.Post("/api/oauth/authorize", f); x.Status != http.StatusBadRequest {
			t.Errorf("status %d", x.Status)
		}
	})
}
