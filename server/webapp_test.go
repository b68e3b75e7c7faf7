package server

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
)

// webAppNow is the ledger's clock in these tests: 15 March 2025 at noon in
// Manila, the default timezone.
var webAppNow = time.Date(2025, 3, 15, 4, 0, 0, 0, time.UTC)

// webApp is a signed-in browser on a server whose ledger clock is pinned.
func webApp(t *testing.T, configure ...func(*Config)) (*testEnv, finance.User, *browser) {
	t.Helper()
	env := newTestEnv(t, configure...)
	env.srv.Ledger().SetClock(func() time.Time { return webAppNow })
	u := env.createUser(finance.PlanFree) // the web app is not an API feature: every plan has it
	b := env.browser(t)
	b.signIn(u)
	return env, u, b
}

// expensesOf lists the user's expenses of a status ("": any) straight from the ledger.
func expensesOf(t *testing.T, env *testEnv, u finance.User, status string) []finance.Expense {
	t.Helper()
	if status == "" {
		return append(expensesOf(t, env, u, finance.StatusActive), expensesOf(t, env, u, finance.StatusVoided)...)
	}
	p, err := env.srv.Ledger().ListExpenses(context.Background(), u.ID, finance.ExpenseFilter{Status: status},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "date", Desc: true})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

// unescaped is the page's body with HTML entities decoded, for matching text.
func unescaped(x exchange) string { return html.UnescapeString(string(x.body)) }

func TestWebAppNeedsSignIn(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	if x := b.get(HomePath); x.status != http.StatusSeeOther || x.header.Get("Location") != LoginPath {
		t.Errorf("GET / signed out: %d to %q, want sign-in", x.status, x.header.Get("Location"))
	}
	for _, path := range []string{RecordPath, RecordPath + "?kind=income", ExpensesPath} {
		x := b.get(path)
		if x.status != http.StatusSeeOther || x.header.Get("Location") != LoginPath+"?next="+url.QueryEscape(path) {
			t.Errorf("GET %s signed out: %d to %q", path, x.status, x.header.Get("Location"))
		}
	}
	for _, path := range []string{RecordPath, ExpensesPath + "/0190f1a2-0000-7000-8000-000000000000/void"} {
		x := b.post(path, url.Values{"amount": {"5"}, "description": {"x"}, "category": {"Groceries"}, "payment_method": {"Cash"}})
		if x.status != http.StatusSeeOther || !strings.HasPrefix(x.header.Get("Location"), LoginPath) {
			t.Errorf("POST %s signed out: %d to %q", path, x.status, x.header.Get("Location"))
		}
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 {
		t.Errorf("%d expenses written by signed-out posts", n)
	}
}

func TestRecordExpense(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	acct, err := env.srv.Ledger().CreateAccount(ctx, u.ID, finance.AccountRequest{
		Name: finance.Of("Wallet bank"), Type: finance.Of("savings"), OpeningBalance: finance.Of(finance.Money(100000))})
	if err != nil {
		t.Fatal(err)
	}

	page := b.get(RecordPath)
	if page.status != http.StatusOK {
		t.Fatalf("GET /record: %d\n%s", page.status, page.body)
	}
	checkPageHeaders(t, page)
	for _, want := range []string{
		`name="date" value="2025-03-15"`,                                   // today in the user's timezone
		`<option value="Food &amp; Dining">`,                               // categories from the form options
		`value="Cash" checked`,                                             // the user's default method
		`<option value="` + acct.ID + `">Wallet bank · ₱1,000.00</option>`, // accounts with their balance
		`aria-current="page">Record</a>`,
	} {
		if !page.contains(want) {
			t.Errorf("record page lacks %s", want)
		}
	}
	token := csrf(t, page)
	valid := func() url.Values {
		return url.Values{"csrf": {token}, "kind": {"expense"}, "amount": {"250.50"}, "date": {"2025-03-14"},
			"description": {"Lunch with Ana"}, "category": {"Food & Dining"}, "payment_method": {"Cash"},
			"account_id": {acct.ID}} // a picker left filled in for another method is not sent on
	}

	refused := []struct {
		name   string
		edit   func(url.Values)
		status int
		want   []string // in the page, unescaped
	}{
		{"no form token", func(f url.Values) { f.Del("csrf") }, http.StatusForbidden, []string{"This form has expired"}},
		{"a wrong form token", func(f url.Values) { f.Set("csrf", "forged") }, http.StatusForbidden, []string{"This form has expired"}},
		{"no amount", func(f url.Values) { f.Set("amount", "") }, http.StatusBadRequest,
			[]string{`id="amount-error">Amount is required<`, `value="Lunch with Ana"`, `value="2025-03-14"`}},
		{"three decimals", func(f url.Values) { f.Set("amount", "12.345") }, http.StatusBadRequest,
			[]string{`Amount must be a number with at most 2 decimal places`, `value="12.345"`}},
		{"zero", func(f url.Values) { f.Set("amount", "0") }, http.StatusBadRequest, []string{`Amount must be greater than 0`}},
		{"an unknown category", func(f url.Values) { f.Set("category", "Yachts") }, http.StatusBadRequest,
			[]string{`id="category-error">Category `}},
		{"debit without an account", func(f url.Values) { f.Set("payment_method", "Account Debit"); f.Set("account_id", "") },
			http.StatusBadRequest, []string{`Account is required when payment_method is Account Debit`, `value="Account Debit" checked`}},
		{"card without a card", func(f url.Values) { f.Set("payment_method", "Credit Card") }, http.StatusBadRequest,
			[]string{`Card is required when payment_method is Credit Card`}},
		{"several problems at once", func(f url.Values) { f.Set("description", " "); f.Set("date", "14/03/2025") }, http.StatusBadRequest,
			[]string{`Description is required`, `id="date-error">Date must be`, `value="250.50"`}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			f := valid()
			tc.edit(f)
			x := b.post(RecordPath, f)
			if x.status != tc.status {
				t.Errorf("status %d, want %d\n%s", x.status, tc.status, x.body)
			}
			for _, want := range tc.want {
				if !strings.Contains(unescaped(x), want) {
					t.Errorf("page lacks %q", want)
				}
			}
			if tc.status == http.StatusBadRequest && !x.contains(`role="alert"`) {
				t.Error("no summary of the problems")
			}
			if n := len(expensesOf(t, env, u, "")); n != 0 {
				t.Fatalf("a refused form wrote %d expenses", n)
			}
		})
	}

	x := b.post(RecordPath, valid())
	if x.status != http.StatusSeeOther || x.header.Get("Location") != "/?month=2025-03&notice=expense-recorded" {
		t.Fatalf("valid form: %d to %q\n%s", x.status, x.header.Get("Location"), x.body)
	}
	got := expensesOf(t, env, u, "")
	if len(got) != 1 {
		t.Fatalf("%d expenses written, want 1", len(got))
	}
	e := got[0]
	if e.Amount != 25050 || e.Date != finance.NewDate(2025, 3, 14) || e.Description != "Lunch with Ana" ||
		e.Category == nil || *e.Category != "Food & Dining" || e.PaymentMethod != finance.MethodCash || e.AccountID != nil {
		t.Errorf("expense = %+v", e)
	}

	// Home shows it: the notice, the totals, the chart and its table, recent activity.
	home := b.get(x.header.Get("Location"))
	if home.status != http.StatusOK {
		t.Fatalf("home: %d\n%s", home.status, home.body)
	}
	checkPageHeaders(t, home)
	body := unescaped(home)
	svg := regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`).FindString(body)
	if !strings.Contains(svg, `role="img"`) || !strings.Contains(svg, `aria-label="Spending by category, March 2025: Food & Dining ₱250.50"`) ||
		!strings.Contains(svg, `>Food & Dining</text>`) || !strings.Contains(svg, `>₱250.50</text>`) {
		t.Errorf("chart lacks the expense:\n%s", svg)
	}
	table := regexp.MustCompile(`(?s)<table id="spending-table">.*?</table>`).FindString(body)
	if !regexp.MustCompile(`<th scope="row">Food & Dining</th><td class="num">₱250.50</td>`).MatchString(table) {
		t.Errorf("chart table lacks the expense:\n%s", table)
	}
	for _, want := range []string{"Expense recorded.", "<h1>March 2025</h1>", "Lunch with Ana", "2025-03-14"} {
		if !strings.Contains(body, want) {
			t.Errorf("home lacks %q", want)
		}
	}

	// Paid by debit, the account's balance drops, as through the API.
	f := valid()
	f.Set("payment_method", "Account Debit")
	f.Set("credit_card_id", "0190f1a2-0000-7000-8000-000000000000") // the card picker is ignored for a debit
	if x := b.post(RecordPath, f); x.status != http.StatusSeeOther {
		t.Fatalf("debit: %d\n%s", x.status, x.body)
	}
	if a, _ := env.srv.Ledger().GetAccount(ctx, u.ID, acct.ID); a.CurrentBalance != 100000-25050 {
		t.Errorf("account balance %s after a debit of 250.50", a.CurrentBalance)
	}
}

func TestRecordIncome(t *testing.T) {
	env, u, b := webApp(t)
	page := b.get(RecordPath + "?kind=income")
	if page.status != http.StatusOK || !page.contains(`<option value="Salary">`) || page.contains(`name="payment_method"`) {
		t.Fatalf("income form: %d\n%s", page.status, page.body)
	}
	f := url.Values{"csrf": {csrf(t, page)}, "kind": {"income"}, "amount": {""}, "date": {"2025-03-01"}, "category": {"Salary"}}
	if x := b.post(RecordPath, f); x.status != http.StatusBadRequest || !x.contains("Amount is required") || !x.contains(`name="kind" value="income"`) {
		t.Errorf("income without an amount: %d", x.status)
	}
	f.Set("amount", "30000")
	x := b.post(RecordPath, f)
	if x.status != http.StatusSeeOther || x.header.Get("Location") != "/?month=2025-03&notice=income-recorded" {
		t.Fatalf("income: %d to %q\n%s", x.status, x.header.Get("Location"), x.body)
	}
	in, err := env.srv.Ledger().ListIncome(context.Background(), u.ID, finance.IncomeFilter{Status: finance.StatusActive}, finance.ListParams{Page: 1, Limit: 10, SortBy: "date"})
	if err != nil || len(in.Items) != 1 || in.Items[0].Amount != 3000000 {
		t.Fatalf("income = %+v, %v", in.Items, err)
	}
	home := b.get(x.header.Get("Location"))
	if !strings.Contains(unescaped(home), "<dt>Income</dt><dd>₱30,000.00</dd>") || !home.contains("Income recorded.") {
		t.Errorf("home does not show the income:\n%s", home.body)
	}
}

func TestHomeMonthAndFormats(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	if _, err := env.srv.Ledger().UpdateAppSettings(ctx, u.ID, finance.AppSettingsRequest{
		Currency: finance.Of("USD"), DateFormat: finance.Of("DD MMM YYYY")}); err != nil {
		t.Fatal(err)
	}
	if _, err := env.srv.Ledger().CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(123456)),
		Date: finance.Of(finance.NewDate(2025, 1, 31)), Description: finance.Of("Rent share"), Category: finance.Of("Rent & Housing"),
		PaymentMethod: finance.Of("Cash")}); err != nil {
		t.Fatal(err)
	}
	current := b.get(HomePath)
	if current.status != http.StatusOK || !current.contains("<h1>March 2025</h1>") || !current.contains("No spending recorded in March 2025") {
		t.Errorf("home defaults to the current month: %d", current.status)
	}
	jan := b.get(HomePath + "?month=2025-01")
	body := unescaped(jan)
	for _, want := range []string{"<h1>January 2025</h1>", "$1,234.56", "31 Jan 2025", `href="/?month=2024-12"`, `href="/?month=2025-02"`, `href="/">This month`} {
		if !strings.Contains(body, want) {
			t.Errorf("January lacks %q", want)
		}
	}
	// The first and last months the API accepts link only inward.
	for _, edge := range []struct{ month, in, out string }{{"1900-01", `href="/?month=1900-02"`, `rel="prev"`}, {"2100-12", `href="/?month=2100-11"`, `rel="next"`}} {
		if x := b.get(HomePath + "?month=" + edge.month); x.status != http.StatusOK || !x.contains(edge.in) || x.contains(edge.out) {
			t.Errorf("home at %s: %d\n%s", edge.month, x.status, x.body)
		}
	}
	if x := b.get(HomePath + "?month=2101-01"); x.status != http.StatusBadRequest {
		t.Errorf("month 2101-01: %d", x.status)
	}
	if current.contains(`href="/">This month`) {
		t.Error("the current month links to itself")
	}
	bad := b.get(HomePath + "?month=2025-13")
	if bad.status != http.StatusBadRequest || !bad.contains("month must be a month in YYYY-MM format") {
		t.Errorf("a bad month: %d\n%s", bad.status, bad.body)
	}
}

func TestExpensesList(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	for i := range 23 {
		cat := "Groceries"
		if i%2 == 1 {
			cat = "Transportation"
		}
		if _, err := env.srv.Ledger().CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(100 * (i + 1))),
			Date: finance.Of(finance.NewDate(2025, 2, 1).AddDays(i)), Description: finance.Of(fmt.Sprintf("item %02d", i)),
			Category: finance.Of(cat), PaymentMethod: finance.Of("Cash")}); err != nil {
			t.Fatal(err)
		}
	}
	first := b.get(ExpensesPath)
	if first.status != http.StatusOK || !first.contains("23 expenses") || !first.contains("item 22") || first.contains("item 02") ||
		!first.contains(`href="/expenses?page=2"`) || !first.contains("Page 1 of 2") {
		t.Fatalf("first page: %d\n%s", first.status, first.body)
	}
	checkPageHeaders(t, first)
	second := b.get(ExpensesPath + "?page=2")
	if !second.contains("item 02") || !second.contains("item 00") || second.contains("item 03") || !second.contains(`href="/expenses"`) {
		t.Errorf("second page:\n%s", second.body)
	}

	filtered := b.get(ExpensesPath + "?dateFrom=2025-02-10&dateTo=2025-02-15&category=Transportation")
	if !filtered.contains("3 expenses") || !filtered.contains("item 09") || !filtered.contains("item 13") || filtered.contains("item 10") {
		t.Errorf("filtered:\n%s", filtered.body)
	}
	if x := b.get(ExpensesPath + "?search=item+07"); !x.contains("1 expense<") || !x.contains("item 07") {
		t.Errorf("search:\n%s", x.body)
	}
	bad := b.get(ExpensesPath + "?dateFrom=2025-02-20&dateTo=2025-02-10")
	if bad.status != http.StatusBadRequest || !bad.contains("From must not be after dateTo") {
		t.Errorf("a reversed range: %d\n%s", bad.status, bad.body)
	}

	// Void, from a filtered page: CSRF first, then back to the same page.
	target := expensesOf(t, env, u, finance.StatusActive)[0] // item 22, the latest
	page := b.get(ExpensesPath + "?search=item+22")
	voidPath := ExpensesPath + "/" + target.ID + "/void"
	back := ExpensesPath + "?search=item+22"
	for name, f := range map[string]url.Values{
		"no form token":      {"back": {back}},
		"a wrong form token": {"csrf": {"forged"}, "back": {back}},
	} {
		if x := b.post(voidPath, f); x.status != http.StatusForbidden {
			t.Errorf("void with %s: %d, want 403", name, x.status)
		}
	}
	if n := len(expensesOf(t, env, u, finance.StatusVoided)); n != 0 {
		t.Fatalf("a refused void voided %d expenses", n)
	}
	x := b.post(voidPath, url.Values{"csrf": {csrf(t, page)}, "back": {back}})
	if x.status != http.StatusSeeOther || x.header.Get("Location") != back+"&notice=expense-voided" {
		t.Fatalf("void: %d to %q\n%s", x.status, x.header.Get("Location"), x.body)
	}
	voided := expensesOf(t, env, u, finance.StatusVoided)
	if len(voided) != 1 || voided[0].ID != target.ID {
		t.Errorf("voided = %+v", voided)
	}
	if after := b.get(x.header.Get("Location")); !after.contains("The expense has been voided.") || !after.contains("0 expenses") {
		t.Errorf("after void:\n%s", after.body)
	}
	// Voiding it again is refused in the API's words; an off-site back is ignored.
	again := b.post(voidPath, url.Values{"csrf": {csrf(t, page)}, "back": {"https://evil.example/"}})
	if again.status != http.StatusBadRequest || !again.contains("voided") || again.header.Get("Location") != "" {
		t.Errorf("void twice: %d to %q\n%s", again.status, again.header.Get("Location"), again.body)
	}
	other := b.post(ExpensesPath+"/0190f1a2-0000-7000-8000-000000000000/void", url.Values{"csrf": {csrf(t, page)}})
	if other.status != http.StatusNotFound {
		t.Errorf("void an unknown expense: %d", other.status)
	}
}

// An address no route has is a page for a person (the navigation when
// signed in, a way to sign in when not) and the JSON envelope for a
// program, with status 404 either way; the address is never repeated.
func TestUnknownPathPage(t *testing.T) {
	env, _, b := webApp(t)
	visitor := env.browser(t)
	const planted = "/nope%3Cb%3Eplanted%3C%2Fb%3E"
	nav := `<nav class="nav" aria-label="Main">`
	for _, path := range []string{"/nope", planted, "/expenses/", "/settings/nope/deeper", "/api-keys"} {
		x := b.get(path)
		wantPage(t, "signed in, GET "+path, x, http.StatusNotFound, "<h1>Page not found</h1>", "There is no page at this address.",
			nav, `action="/logout"`, `href="/">Go to the start page</a>`)
		checkPageHeaders(t, x)
		if ct := x.header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", path, ct)
		}
		if x.contains("No route for") || x.contains("planted") || x.contains(`"success"`) {
			t.Errorf("GET %s shows the API's answer or the address:\n%s", path, x.body)
		}
		v := visitor.get(path)
		wantPage(t, "signed out, GET "+path, v, http.StatusNotFound, "<h1>Page not found</h1>", `<a class="button" href="/login">Sign in</a>`)
		if v.contains(nav) || v.contains("planted") {
			t.Errorf("signed out, GET %s shows the navigation or the address:\n%s", path, v.body)
		}
	}
	if x := b.post("/nope", url.Values{"csrf": {"x"}}); x.status != http.StatusNotFound || !x.contains("<h1>Page not found</h1>") {
		t.Errorf("POST /nope: %d\n%s", x.status, x.body)
	}
	if x := b.send(http.MethodHead, "/nope", "", ""); x.status != http.StatusNotFound || len(x.body) != 0 {
		t.Errorf("HEAD /nope: %d with %d bytes", x.status, len(x.body))
	}
	// Programs keep the envelope, a session cookie or not.
	for _, path := range []string{"/api/v1/nope", "/api/nope", "/api", "/api/v1/health/", "/.well-known/nope"} {
		x := b.get(path)
		var env apiEnvelope
		if err := json.Unmarshal(x.body, &env); err != nil || x.status != http.StatusNotFound || env.Error == nil ||
			env.Error.Code != CodeNotFound || env.Error.Message != "No route for GET on this path; the routes are listed at /api/docs" {
			t.Errorf("GET %s: %d %s\n%s", path, x.status, x.header.Get("Content-Type"), x.body)
		}
	}
}
