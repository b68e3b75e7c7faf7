package web_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/oauth"
	"github.com/finance-app/finance/web"
)

// activityOf is the user's activity, newest first, read straight from the ledger.
func activityOf(t testing.TB, env *testEnv, userID string, f finance.ActivityFilter) []finance.Activity {
	t.Helper()
	return testkit.ActivityOf(t, env.srv.Ledger(), userID, f)
}

// A form posted on the web app writes as the web app.
func TestActivityRecordsTheWebApp(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.RecordPath)
	x := b.Post(web.RecordPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "kind": {"expense"}, "amount": {"250.50"},
		"date": {"2025-03-14"}, "description": {"Lunch with Ana"}, "category": {"Food & Dining"}, "payment_method": {"Cash"}})
	if x.Status != http.StatusSeeOther {
		t.Fatalf("POST /record: %d\n%s", x.Status, x.Body)
	}
	es := expensesOf(t, env, u, "")
	if len(es) != 1 {
		t.Fatalf("%d expenses", len(es))
	}
	got := activityOf(t, env, u.ID, finance.ActivityFilter{})
	if len(got) != 1 || got[0].RecordID != es[0].ID || got[0].Actor != finance.WebActor ||
		got[0].Source != finance.WriteManual || got[0].Action != finance.LogCreated {
		t.Errorf("a page's write: %+v", got)
	}
}

// proApp is a Pro user signed in on a server with the authorization
// server, its ledger clock at testkit.Now.
func proApp(t *testing.T) (*testEnv, finance.User, *testkit.Browser) {
	t.Helper()
	env := newOAuthEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return testkit.Now })
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)
	return env, u, b
}

// postExpense records an expense through the API with key and returns its id.
func postExpense(t *testing.T, env *testEnv, key, description, amount string) string {
	t.Helper()
	x := env.api(t, http.MethodPost, "/api/v1/expenses", key, fmt.Sprintf(
		`{"amount":%s,"date":"2025-03-10","description":%q,"category":"Groceries","payment_method":"Cash"}`, amount, description))
	var e struct{ Data finance.Expense }
	x.JSON(t, &e)
	if x.Status != http.StatusCreated {
		t.Fatalf("POST /expenses: %d %s", x.Status, x.Body)
	}
	return e.Data.ID
}

// inOrder reports whether body holds each of parts, in that order.
func inOrder(body string, parts ...string) bool {
	for _, p := range parts {
		i := strings.Index(body, p)
		if i < 0 {
			return false
		}
		body = body[i+len(p):]
	}
	return true
}

// The Activity page lists the user's writes newest first, with who made
// each (a key by its name, the web app), through which door, what changed
// and a link to the record; its filters are the API's, a refused filter is
// shown beside its field, and another user's writes never appear.
func TestActivityPage(t *testing.T) {
	env, u, b := proApp(t)
	k, key := env.createKeyRecord(u.ID, auth.ScopeRead, auth.ScopeExpensesWrite)
	lunch := postExpense(t, env, key, "Lunch", "350")
	if x := env.api(t, http.MethodPut, "/api/v1/expenses/"+lunch, key, `{"amount":300}`); x.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", x.Status, x.Body)
	}
	form := b.Get(web.RecordPath)
	if x := b.Post(web.RecordPath, url.Values{"csrf": {testkit.CSRF(t, form)}, "kind": {"expense"}, "amount": {"80"},
		"date": {"2025-03-14"}, "description": {"Taxi home"}, "category": {"Transportation"}, "payment_method": {"Cash"}}); x.Status != http.StatusSeeOther {
		t.Fatalf("POST /record: %d\n%s", x.Status, x.Body)
	}
	other := env.createUser(finance.PlanPro)
	postExpense(t, env, env.createKey(other.ID, auth.ScopeExpensesWrite), "Secret purchase", "99")

	x := b.Get(web.ActivityPath)
	testkit.CheckPageHeaders(t, x)
	body := testkit.Unescaped(x)
	if x.Status != http.StatusOK || !strings.Contains(body, "3 entries") || !inOrder(body,
		`Expense "Taxi home" 80.00 on 2025-03-14, Transportation, Cash`, "By</dt><dd>Web app</dd>", "Web, API or chat",
		`href="/expenses/`+lunch+`/edit"`, `amount 350.00 → 300.00`, "test key (API key)",
		`Expense "Lunch" 350.00 on 2025-03-10, Groceries, Cash`, "test key (API key)") {
		t.Fatalf("the activity, newest first: %d\n%s", x.Status, body)
	}
	if strings.Contains(body, "Secret purchase") {
		t.Error("another user's write is listed")
	}
	if !b.Get(web.SettingsPath).Contains(`href="/activity"`) {
		t.Error("Settings does not link the Activity page")
	}

	for query, want := range map[string]string{
		"?actor=api_key":                         "2 entries",
		"?actor=web":                             "1 entry",
		"?actorId=" + k.ID:                       "2 entries",
		"?kind=expense&source=agent":             "0 entries",
		"?dateFrom=2025-03-15&dateTo=2025-03-15": "3 entries", // testkit.Now is 12:00 in Manila on the 15th
		"?dateFrom=2025-03-16":                   "0 entries",
		"?kind=account":                          "0 entries",
		"?actorId=" + k.ID + "&page=2":           "2 entries",
	} {
		x := b.Get(web.ActivityPath + query)
		if x.Status != http.StatusOK || !x.Contains(want) {
			t.Errorf("%s: %d, want %q\n%s", query, x.Status, want, x.Body)
		}
		if strings.Contains(query, "actorId") && !x.Contains("Only the writes of one key or app") {
			t.Errorf("%s: does not say it shows one credential's writes", query)
		}
	}
	if x := b.Get(web.ActivityPath + "?actor=api_key"); x.Contains("Taxi home") {
		t.Error("?actor=api_key lists the web app's write")
	}
	for query, field := range map[string]string{"?kind=expenses": "kind-error", "?actor=robot": "actor-error",
		"?dateFrom=2025-3-1": "from-error", "?actorId=abc": "actorId"} {
		x := b.Get(web.ActivityPath + query)
		if x.Status != http.StatusBadRequest || !x.Contains(field) {
			t.Errorf("%s: %d, want 400 naming %s\n%s", query, x.Status, field, x.Body)
		}
	}
	signedOut := env.browser(t).Get(web.ActivityPath)
	if signedOut.Status != http.StatusSeeOther || !strings.HasPrefix(signedOut.Header.Get("Location"), web.LoginPath) {
		t.Errorf("signed out: %d to %q", signedOut.Status, signedOut.Header.Get("Location"))
	}
}

// connectApp stores a connection of u with an app called name, as the
// consent screen would, and returns the grant's id.
func connectApp(t *testing.T, env *testEnv, u finance.User, name string) string {
	t.Helper()
	ctx := context.Background()
	now := time.Now()
	c := oauth.Client{ID: finance.NewID(), Name: name, RedirectURIs: []string{"http://127.0.0.1/callback"},
		GrantTypes: []string{"authorization_code"}, CreatedAt: now}
	code := oauth.Code{Hash: []byte(rand.Text()), ClientID: c.ID, UserID: u.ID, RedirectURI: c.RedirectURIs[0],
		Challenge: rand.Text(), Scopes: []auth.Scope{auth.ScopeRead}, CreatedAt: now, ExpiresAt: now.Add(time.Minute)}
	g := oauth.Grant{ID: finance.NewID(), UserID: u.ID, ClientID: c.ID, Scopes: code.Scopes, CreatedAt: now, ExpiresAt: now.Add(24 * time.Hour)}
	if err := env.db.CreateOAuthClient(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := env.db.CreateOAuthCode(ctx, code, nil); err != nil {
		t.Fatal(err)
	}
	if err := env.db.CreateOAuthGrant(ctx, g, code.Hash); err != nil {
		t.Fatal(err)
	}
	return g.ID
}

// The API keys and Connected apps pages show each credential's last five
// writes, newest first, with a link to all of them on the Activity page;
// a credential that wrote nothing says so.
func TestCredentialPagesShowLastWrites(t *testing.T) {
	env, u, b := proApp(t)
	busy, key := env.createKeyRecord(u.ID, auth.ScopeExpensesWrite)
	idle, _ := env.createKeyRecord(u.ID, auth.ScopeRead)
	for i := range 6 {
		postExpense(t, env, key, fmt.Sprintf("Item %d", i), "10")
	}
	x := b.Get(web.APIKeysPath)
	body := testkit.Unescaped(x)
	if x.Status != http.StatusOK || !inOrder(body, `"Item 5"`, `"Item 4"`, `"Item 3"`, `"Item 2"`, `"Item 1"`,
		`href="/activity?actorId=`+busy.ID+`"`) || strings.Contains(body, `"Item 0"`) {
		t.Errorf("the busy key's last five writes: %d\n%s", x.Status, body)
	}
	if !inOrder(body, idle.ID, "Nothing written yet.") && !inOrder(body, "Nothing written yet.", busy.ID) {
		t.Errorf("the idle key does not say it wrote nothing:\n%s", body)
	}

	grant := connectApp(t, env, u, "Claude")
	ctx := finance.WithActor(context.Background(), finance.Actor{Kind: finance.ActorOAuthClient, ID: grant, Name: "Claude"})
	if _, err := env.srv.Ledger().CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(35000)),
		Date: finance.Of(finance.NewDate(2025, 3, 10)), Description: finance.Of("Agent lunch"), Category: finance.Of("Food & Dining"),
		PaymentMethod: finance.Of("Cash")}); err != nil {
		t.Fatal(err)
	}
	x = b.Get(web.ConnectedAppPath)
	body = testkit.Unescaped(x)
	if x.Status != http.StatusOK || !inOrder(body, "Claude", `Expense "Agent lunch" 350.00`, `href="/activity?actorId=`+grant+`"`) ||
		strings.Contains(body, `"Item 5"`) {
		t.Errorf("the app's last writes: %d\n%s", x.Status, body)
	}
}

// The Activity page lists the writes of recurring income, reminders and
// category rules in words, each linked to its page, and filters by them.
func TestActivityPageShowsRecurringIncomeRemindersAndRules(t *testing.T) {
	env, u, b := proApp(t)
	_, key := env.createKeyRecord(u.ID, auth.ScopeIncomeWrite, auth.ScopeSettingsWrite)
	x := env.api(t, http.MethodPost, "/api/v1/income/templates", key, `{"name":"Salary","amount":"25000","category":"Salary",`+
		`"frequency":"semimonthly","start_date":"2025-03-01","due_day":15,"second_due_day":31}`)
	var tmpl struct{ Data finance.IncomeTemplate }
	if x.JSON(t, &tmpl); x.Status != http.StatusCreated {
		t.Fatalf("POST /income/templates: %d %s", x.Status, x.Body)
	}
	for _, w := range []struct{ method, path, body string }{
		{http.MethodPut, "/api/v1/user-settings/reminders", `{"enabled":true}`},
		{http.MethodPost, "/api/v1/category-rules", `{"description_contains":"GRAB","category":"Transportation"}`},
	} {
		if x := env.api(t, w.method, w.path, key, w.body); x.Status/100 != 2 {
			t.Fatalf("%s %s: %d %s", w.method, w.path, x.Status, x.Body)
		}
	}
	entry := expectedOf(t, env, u)[0]
	list := b.Get(web.RecurringIncomePath)
	if x := b.Post("/income/expected/"+entry.ID+"/skip", url.Values{"csrf": {testkit.CSRF(t, list)}}); x.Status != http.StatusSeeOther {
		t.Fatalf("skip: %d\n%s", x.Status, x.Body)
	}

	x = b.Get(web.ActivityPath)
	body := testkit.Unescaped(x)
	if x.Status != http.StatusOK || !strings.Contains(body, "4 entries") || !inOrder(body,
		`Expected income updated · <a href="/income/recurring">Open</a>`, `Skipped "Salary" of 25000.00 due 2025-03-15`, "Web app",
		`Category rule created · <a href="/settings/category-rules">Open</a>`, `Category rule 1: description contains "GRAB" → Transportation`,
		`Reminder settings updated · <a href="/settings/reminders">Open</a>`, `Reminders: enabled false → true`, "test key (API key)",
		`Income template created · <a href="/income/recurring/`+tmpl.Data.ID+`">Open</a>`,
		`Income template "Salary" of 25000.00, semimonthly from 2025-03-01`) {
		t.Fatalf("the activity, newest first: %d\n%s", x.Status, body)
	}
	for _, option := range []string{`<option value="income_template">Income template</option>`,
		`<option value="expected_income">Expected income</option>`, `<option value="reminder_settings">Reminder settings</option>`,
		`<option value="category_rule">Category rule</option>`} {
		if !strings.Contains(body, option) {
			t.Errorf("the record filter lacks %s", option)
		}
	}
	x = b.Get(web.ActivityPath + "?kind=expected_income")
	if x.Status != http.StatusOK || !x.Contains("1 entry") || !x.Contains(`<option value="expected_income" selected>`) ||
		x.Contains("GRAB") {
		t.Errorf("?kind=expected_income: %d\n%s", x.Status, x.Body)
	}
}
