package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// pagePolicy is the Content-Security-Policy of every page but Import's:
// this origin's files only (app.js, the stylesheet, images, the manifest),
// never an inline script, no requests of a page's own.
const pagePolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; manifest-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// Every page, signed in or not, runs app.js and nothing else under the
// strict policy; the script is served like the stylesheet.
func TestPagesRunAppScriptUnderStrictPolicy(t *testing.T) {
	env, _, b := webApp(t)
	visitor := env.browser(t)
	for _, c := range []struct {
		b    *testkit.Browser
		path string
	}{{b, web.HomePath}, {b, web.RecordPath}, {b, web.MorePath}, {b, web.APIKeysPath}, {b, web.BillsPath}, {b, web.BudgetsPath},
		{b, web.ExchangeRatesPath}, {visitor, web.LoginPath}} {
		x := c.b.Get(c.path)
		if x.Status != http.StatusOK {
			t.Fatalf("GET %s: %d", c.path, x.Status)
		}
		if got := x.Header.Get("Content-Security-Policy"); got != pagePolicy {
			t.Errorf("GET %s: policy\n%s\nwant\n%s", c.path, got, pagePolicy)
		}
		if n := strings.Count(string(x.Body), "<script"); n != 1 || !x.Contains(`<script src="/static/app.js" defer></script>`) {
			t.Errorf("GET %s has %d scripts, want app.js alone", c.path, n)
		}
	}
	js := visitor.Get("/static/app.js")
	if js.Status != http.StatusOK || !strings.HasPrefix(js.Header.Get("Content-Type"), "text/javascript") ||
		js.Header.Get("Cache-Control") != "public, max-age=3600" || !js.Contains("button[data-copy]") {
		t.Errorf("app.js: %d %q %q", js.Status, js.Header.Get("Content-Type"), js.Header.Get("Cache-Control"))
	}
}

// The navigation is one bar of every destination; on a phone the
// stylesheet shows Home, Record, Cards, Bills and More. More lists the rest
// and signs out, as Settings does; the bar itself holds no Sign out.
func TestNavigationMoreAndSignOut(t *testing.T) {
	env, u, b := webApp(t)
	home := b.Get(web.HomePath)
	nav := navOf(t, home)
	for _, want := range []string{`<a href="/" class="nav-main nav-home" aria-current="page">Home</a>`,
		`<a href="/record" class="nav-main nav-record">Record</a>`, `<a href="/cards" class="nav-main nav-cards">Cards</a>`,
		`<a href="/bills" class="nav-main nav-bills">Bills</a>`, `<a href="/more" class="nav-more">More</a>`} {
		if !strings.Contains(nav, want) {
			t.Errorf("Home's navigation lacks %s", want)
		}
	}
	if strings.Contains(nav, "logout") || strings.Contains(nav, "Sign out") {
		t.Error("the navigation still signs out")
	}
	// On a page only More reaches on a phone, More is marked as holding it.
	if nav := navOf(t, b.Get(web.AccountsPath)); !strings.Contains(nav, `<a href="/more" class="nav-more nav-within">More</a>`) {
		t.Errorf("on Accounts, More is not marked: %s", nav)
	}
	// Budgets is in the top bar and, on a phone, behind More.
	if nav := navOf(t, b.Get(web.BudgetsPath)); !strings.Contains(nav, `<a href="/budgets" aria-current="page">Budgets</a>`) ||
		!strings.Contains(nav, `<a href="/more" class="nav-more nav-within">More</a>`) {
		t.Errorf("on Budgets, Budgets is not current or More is not marked: %s", nav)
	}

	more := b.Get(web.MorePath)
	testkit.WantPage(t, "more", more, http.StatusOK, "<h1>More</h1>", `<a href="/more" class="nav-more" aria-current="page">More</a>`,
		`<a href="/expenses"><strong>Expenses</strong>`, `<a href="/income"><strong>Income</strong>`, `<a href="/accounts"><strong>Accounts</strong>`,
		`<a href="/budgets"><strong>Budgets</strong>`, `<a href="/loans"><strong>Loans</strong>`, `<a href="/reports"><strong>Reports</strong>`, `<a href="/settings"><strong>Settings</strong>`,
		`<form method="post" action="/logout">`, "Signed in as "+u.Email)
	testkit.CheckPageHeaders(t, more)
	settings := b.Get(web.SettingsPath)
	testkit.WantPage(t, "settings", settings, http.StatusOK, `<form method="post" action="/logout">`, `<button type="submit" class="button secondary">Sign out</button>`)

	// Signing out from Settings ends the session: the next page asks to sign in.
	testkit.WantRedirect(t, "sign out", b.Post(web.LogoutPath, url.Values{"csrf": {testkit.CSRF(t, settings)}}), web.LoginPath)
	if x := b.Get(web.MorePath); x.Status != http.StatusSeeOther || !strings.HasPrefix(x.Header.Get("Location"), web.LoginPath) {
		t.Errorf("after signing out, More: %d to %q", x.Status, x.Header.Get("Location"))
	}
	if x := env.browser(t).Get(web.MorePath); x.Status != http.StatusSeeOther {
		t.Errorf("More for a visitor: %d", x.Status)
	}
}

// navOf is the page's main navigation.
func navOf(t *testing.T, x testkit.Exchange) string {
	t.Helper()
	body := string(x.Body)
	start := strings.Index(body, `<nav class="nav" aria-label="Main">`)
	end := strings.Index(body[max(start, 0):], "</nav>")
	if start < 0 || end < 0 {
		t.Fatalf("no main navigation (%d):\n%s", x.Status, body)
	}
	return body[start : start+end]
}

// The web app installs: a manifest anyone may read, opening Home in its own
// window, with PNG icons of the sizes it names, one of them maskable; every
// page links it and Apple's icon.
func TestWebAppManifest(t *testing.T) {
	env := newTestEnv(t)
	env.createUser(finance.PlanFree) // else sign-in sends the visitor to setup
	visitor := env.browser(t)
	x := visitor.Get(web.ManifestPath)
	if x.Status != http.StatusOK || x.Header.Get("Content-Type") != "application/manifest+json" ||
		x.Header.Get("Cache-Control") != "public, max-age=3600" {
		t.Fatalf("manifest: %d %q %q\n%s", x.Status, x.Header.Get("Content-Type"), x.Header.Get("Cache-Control"), x.Body)
	}
	var m struct {
		Name, Scope, Display string
		ShortName            string `json:"short_name"`
		StartURL             string `json:"start_url"`
		ThemeColor           string `json:"theme_color"`
		BackgroundColor      string `json:"background_color"`
		Icons                []struct{ Src, Sizes, Type, Purpose string }
	}
	if err := json.Unmarshal(x.Body, &m); err != nil {
		t.Fatal(err)
	}
	if m.Name != "finance" || m.ShortName != "finance" || m.StartURL != "/" || m.Scope != "/" || m.Display != "standalone" ||
		m.ThemeColor != "#0f766e" || m.BackgroundColor == "" {
		t.Errorf("manifest = %+v", m)
	}
	sizes := map[string]int{}
	for _, icon := range m.Icons {
		sizes[icon.Sizes+" "+icon.Purpose]++
		wantPNG(t, visitor, icon.Src, icon.Sizes)
		if icon.Type != "image/png" {
			t.Errorf("%s: type %q", icon.Src, icon.Type)
		}
	}
	for _, want := range []string{"192x192 any", "512x512 any", "512x512 maskable"} {
		if sizes[want] != 1 {
			t.Errorf("manifest icons %v lack %s", sizes, want)
		}
	}
	login := visitor.Get(web.LoginPath)
	testkit.WantPage(t, "sign-in", login, http.StatusOK, `<link rel="manifest" href="/manifest.webmanifest">`,
		`<link rel="apple-touch-icon" href="/static/icon-180.png">`)
	wantPNG(t, visitor, "/static/icon-180.png", "180x180")
}

// wantPNG checks that src is served as a PNG of sizes ("192x192").
func wantPNG(t *testing.T, b *testkit.Browser, src, sizes string) {
	t.Helper()
	x := b.Get(src)
	if x.Status != http.StatusOK || x.Header.Get("Content-Type") != "image/png" {
		t.Errorf("%s: %d %q", src, x.Status, x.Header.Get("Content-Type"))
		return
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(x.Body))
	if err != nil {
		t.Errorf("%s: %v", src, err)
		return
	}
	if got := fmt.Sprintf("%dx%d", cfg.Width, cfg.Height); got != sizes {
		t.Errorf("%s is %s, want %s", src, got, sizes)
	}
}

// A new key comes with Copy buttons for it and the MCP settings, hidden
// until app.js shows them (a browser without scripts selects the text);
// the keys' times are in the person's timezone, not UTC.
func TestAPIKeyCopyButtonsAndLocalTimes(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)
	page := b.Get(web.APIKeysPath)
	x := b.Post(web.APIKeysPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "name": {"laptop agent"},
		"scopes": {"finance:read", "mcp:connect"}, "expires_in": {"30d"}})
	testkit.WantPage(t, "new key", x, http.StatusOK,
		`<button type="button" class="button secondary small" data-copy="new-key" aria-label="Copy the key" hidden>Copy</button>`,
		`data-copy="mcp-url" aria-label="Copy the MCP endpoint" hidden>`, `data-copy="mcp-claude-code"`, `data-copy="mcp-json"`)
	keys, err := env.auth.ListKeys(context.Background(), u.ID)
	if err != nil || len(keys) != 1 {
		t.Fatalf("keys %v, %v", keys, err)
	}
	manila, err := time.LoadLocation(finance.DefaultTimezone)
	if err != nil {
		t.Fatal(err)
	}
	list := b.Get(web.APIKeysPath)
	testkit.WantPage(t, "keys", list, http.StatusOK,
		"<dt>Created</dt><dd>"+keys[0].CreatedAt.In(manila).Format("2006-01-02 15:04")+"</dd>",
		"<dt>Expires</dt><dd>"+keys[0].ExpiresAt.In(manila).Format("2006-01-02 15:04")+"</dd>",
		"<dt>Last used</dt><dd>never</dd>")
	if list.Contains("UTC") {
		t.Error("the keys page still shows UTC times")
	}
}

// An empty month of bills offers to add one; each open bill says how far
// its due date is in words, never as a signed number of days.
func TestBillsSayDueInWords(t *testing.T) {
	env, u, b := webApp(t) // today is 15 March 2025
	empty := b.Get(web.BillsPath)
	testkit.WantPage(t, "no bills", empty, http.StatusOK, "No bills due in March 2025.",
		`<a class="button" href="/bills/templates/new">Add a bill</a>`)
	for day, name := range map[int]string{10: "Internet", 14: "Water", 15: "Rent", 16: "Gym", 20: "Electricity"} {
		marchBill(t, env, u, fmt.Sprintf(`{"name":%q,"amount":"100","category":"Utilities","frequency":"monthly",
			"start_date":"2025-01-01","due_day":%d}`, name, day))
	}
	page := b.Get(web.BillsPath)
	testkit.WantPage(t, "bills", page, http.StatusOK, "Due 2025-03-10 · 5 days overdue · Utilities", "Due 2025-03-14 · 1 day overdue",
		"Due 2025-03-15 · due today", "Due 2025-03-16 · due tomorrow", "Due 2025-03-20 · due in 5 days")
	if page.Contains("days)") || page.Contains("Add a bill") {
		t.Error("the bills page still counts days with a sign, or offers to add a bill beside its bills")
	}
}

// A budget spent past its limit says by how much it is over, not a
// negative amount left.
func TestBudgetOverInWords(t *testing.T) {
	env, u, b := webApp(t)
	f := budgetsForm(t, env, u, b, map[string]string{"Groceries": "100", "Transportation": "1000"})
	testkit.WantRedirect(t, "budgets", b.Post(web.BudgetsPath, f), web.BudgetsPath+"?notice=budgets-saved")
	for _, e := range []struct{ amount, category string }{{"299", "Groceries"}, {"250", "Transportation"}} {
		rec := b.Get(web.RecordPath)
		x := b.Post(web.RecordPath, url.Values{"csrf": {testkit.CSRF(t, rec)}, "kind": {"expense"}, "amount": {e.amount},
			"description": {e.category}, "category": {e.category}, "date": {"2025-03-15"}, "payment_method": {"Cash"}})
		if x.Status != http.StatusSeeOther {
			t.Fatalf("record %s: %d\n%s", e.category, x.Status, x.Body)
		}
	}
	testkit.WantPage(t, "budgets", b.Get(web.BudgetsPath), http.StatusOK,
		`<span class="num left negative">₱199.00 over</span>`, `<span class="spent">₱299.00</span> spent of <span class="limit">₱100.00</span>`,
		`<span class="num left">₱750.00 left</span>`, `<span class="spent">₱250.00</span> spent of <span class="limit">₱1,000.00</span>`)
	if x := b.Get(web.BudgetsPath); x.Contains("-₱199.00") {
		t.Error("the budgets page shows a negative amount left")
	}
}

// A refused form says once, beside each field, what is wrong; the banner
// over it only says to fix the fields marked below, and never shows the
// API's keys for them. Nothing is saved.
func TestRefusedFormBannerNamesNoFieldKeys(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	x := b.Post(web.BudgetsPath, budgetsForm(t, env, u, b, map[string]string{"Groceries": "-5", "Transportation": "2000"}))
	testkit.WantPage(t, "refused budgets", x, http.StatusBadRequest,
		`<p class="alert" role="alert">Not saved. Please fix the fields marked below.</p>`, `class="field-error"`, "Monthly limit ")
	if x.Contains("thresholds[") || x.Contains("monthly_limit ") || strings.Count(string(x.Body), "role=\"alert\"") != 1 {
		t.Errorf("the banner repeats the problems or names the API's fields:\n%s", x.Body)
	}
	saved, err := env.srv.Ledger().BudgetThresholds(ctx, u.ID, finance.Date{}, finance.ListParams{Page: 1, Limit: 100, SortBy: "category"})
	if err != nil || len(saved.Items) != 0 {
		t.Errorf("a refused form saved budgets: %+v, %v", saved.Items, err)
	}

	rec := b.Get(web.RecordPath)
	x = b.Post(web.RecordPath, url.Values{"csrf": {testkit.CSRF(t, rec)}, "kind": {"expense"}, "description": {"Lunch"},
		"category": {"Groceries"}, "date": {"2025-03-15"}, "payment_method": {"Cash"}})
	testkit.WantPage(t, "refused expense", x, http.StatusBadRequest,
		`role="alert">Not recorded. Please fix the fields marked below.</p>`, `id="amount-error">Amount is required`)
	if x.Contains("Validation failed") {
		t.Errorf("the banner repeats the API's words:\n%s", x.Body)
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 {
		t.Errorf("%d expenses saved", n)
	}
}

// budgetsForm is the Budgets form as the page sends it: every expense
// category's row in order, with the monthly limits of limits and no warning.
func budgetsForm(t *testing.T, env *testEnv, u finance.User, b *testkit.Browser, limits map[string]string) url.Values {
	t.Helper()
	cats, err := env.srv.Ledger().CategoryOptions(context.Background(), u.ID, finance.KindExpense)
	if err != nil {
		t.Fatal(err)
	}
	f := url.Values{"csrf": {testkit.CSRF(t, b.Get(web.BudgetsPath))}}
	for _, c := range cats {
		f.Add("category", c.Name)
		f.Add("monthly_limit", limits[c.Name])
		f.Add("warning_percent", "")
	}
	return f
}
