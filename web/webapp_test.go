package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/web"
)

// webApp is a signed-in browser on a server whose ledger clock is pinned.
func webApp(t *testing.T, configure ...func(*server.Config)) (*testEnv, finance.User, *testkit.Browser) {
	t.Helper()
	env := newTestEnv(t, configure...)
	env.srv.Ledger().SetClock(func() time.Time { return testkit.Now })
	u := env.createUser(finance.PlanFree) // the web app is not an API feature: every plan has it
	b := env.browser(t)
	b.SignIn(u)
	return env, u, b
}

func TestWebAppNeedsSignIn(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	if x := b.Get(web.HomePath); x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath {
		t.Errorf("GET / signed out: %d to %q, want sign-in", x.Status, x.Header.Get("Location"))
	}
	for _, path := range []string{web.RecordPath, web.RecordPath + "?kind=income", web.ExpensesPath} {
		x := b.Get(path)
		if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath+"?next="+url.QueryEscape(path) {
			t.Errorf("GET %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
	for _, path := range []string{web.RecordPath, web.ExpensesPath + "/0190f1a2-0000-7000-8000-000000000000/void"} {
		x := b.Post(path, url.Values{"amount": {"5"}, "description": {"x"}, "category": {"Groceries"}, "payment_method": {"Cash"}})
		if x.Status != http.StatusSeeOther || !strings.HasPrefix(x.Header.Get("Location"), web.LoginPath) {
			t.Errorf("POST %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
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

	page := b.Get(web.RecordPath)
	if page.Status != http.StatusOK {
		t.Fatalf("GET /record: %d\n%s", page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)
	for _, want := range []string{
		`name="date" value="2025-03-15"`,                                   // today in the user's timezone
		`<option value="Food &amp; Dining">`,                               // categories from the form options
		`value="Cash" checked`,                                             // the user's default method
		`<option value="` + acct.ID + `">Wallet bank · ₱1,000.00</option>`, // accounts with their balance
		`aria-current="page">Record</a>`,
	} {
		if !page.Contains(want) {
			t.Errorf("record page lacks %s", want)
		}
	}
	token := testkit.CSRF(t, page)
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
			x := b.Post(web.RecordPath, f)
			if x.Status != tc.status {
				t.Errorf("status %d, want %d\n%s", x.Status, tc.status, x.Body)
			}
			for _, want := range tc.want {
				if !strings.Contains(testkit.Unescaped(x), want) {
					t.Errorf("page lacks %q", want)
				}
			}
			if tc.status == http.StatusBadRequest && !x.Contains(`role="alert"`) {
				t.Error("no summary of the problems")
			}
			if n := len(expensesOf(t, env, u, "")); n != 0 {
				t.Fatalf("a refused form wrote %d expenses", n)
			}
		})
	}

	x := b.Post(web.RecordPath, valid())
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != "/?month=2025-03&notice=expense-recorded&amount=250.50" {
		t.Fatalf("valid form: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
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
	home := b.Get(x.Header.Get("Location"))
	if home.Status != http.StatusOK {
		t.Fatalf("home: %d\n%s", home.Status, home.Body)
	}
	testkit.CheckPageHeaders(t, home)
	body := testkit.Unescaped(home)
	svg := regexp.MustCompile(`(?s)<svg class="chart".*?</svg>`).FindString(body)
	if !strings.Contains(svg, `role="img"`) || !strings.Contains(svg, `aria-label="Spending by category, March 2025: Food & Dining ₱250.50"`) ||
		!strings.Contains(svg, `>Food & Dining</text>`) || !strings.Contains(svg, `>₱250.50</text>`) {
		t.Errorf("chart lacks the expense:\n%s", svg)
	}
	table := regexp.MustCompile(`(?s)<table id="spending-table">.*?</table>`).FindString(body)
	if !regexp.MustCompile(`<th scope="row">Food & Dining</th><td class="num">₱250.50</td>`).MatchString(table) {
		t.Errorf("chart table lacks the expense:\n%s", table)
	}
	for _, want := range []string{"Expense recorded: ₱250.50.", "<h1>March 2025</h1>", "Lunch with Ana", "2025-03-14"} {
		if !strings.Contains(body, want) {
			t.Errorf("home lacks %q", want)
		}
	}

	// Paid by debit, the account's balance drops, as through the API.
	f := valid()
	f.Set("payment_method", "Account Debit")
	f.Set("credit_card_id", "0190f1a2-0000-7000-8000-000000000000") // the card picker is ignored for a debit
	if x := b.Post(web.RecordPath, f); x.Status != http.StatusSeeOther {
		t.Fatalf("debit: %d\n%s", x.Status, x.Body)
	}
	if a, _ := env.srv.Ledger().GetAccount(ctx, u.ID, acct.ID); a.CurrentBalance != 100000-25050 {
		t.Errorf("account balance %s after a debit of 250.50", a.CurrentBalance)
	}
}

func TestRecordIncome(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.RecordPath + "?kind=income")
	if page.Status != http.StatusOK || !page.Contains(`<option value="Salary">`) || page.Contains(`name="payment_method"`) {
		t.Fatalf("income form: %d\n%s", page.Status, page.Body)
	}
	f := url.Values{"csrf": {testkit.CSRF(t, page)}, "kind": {"income"}, "amount": {""}, "date": {"2025-03-01"}, "category": {"Salary"}}
	if x := b.Post(web.RecordPath, f); x.Status != http.StatusBadRequest || !x.Contains("Amount is required") || !x.Contains(`name="kind" value="income"`) {
		t.Errorf("income without an amount: %d", x.Status)
	}
	f.Set("amount", "30000")
	x := b.Post(web.RecordPath, f)
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != "/?month=2025-03&notice=income-recorded&amount=30000.00" {
		t.Fatalf("income: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	in, err := env.srv.Ledger().ListIncome(context.Background(), u.ID, finance.IncomeFilter{Status: finance.StatusActive}, finance.ListParams{Page: 1, Limit: 10, SortBy: "date"})
	if err != nil || len(in.Items) != 1 || in.Items[0].Amount != 3000000 {
		t.Fatalf("income = %+v, %v", in.Items, err)
	}
	home := b.Get(x.Header.Get("Location"))
	if !strings.Contains(testkit.Unescaped(home), "<dt>Income</dt><dd>₱30,000.00</dd>") || !strings.Contains(testkit.Unescaped(home), "Income recorded: ₱30,000.00.") {
		t.Errorf("home does not show the income:\n%s", home.Body)
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
	current := b.Get(web.HomePath)
	if current.Status != http.StatusOK || !current.Contains("<h1>March 2025</h1>") || !current.Contains("No spending recorded in March 2025") {
		t.Errorf("home defaults to the current month: %d", current.Status)
	}
	jan := b.Get(web.HomePath + "?month=2025-01")
	body := testkit.Unescaped(jan)
	for _, want := range []string{"<h1>January 2025</h1>", "$1,234.56", "31 Jan 2025", `href="/?month=2024-12"`, `href="/?month=2025-02"`, `href="/">This month`} {
		if !strings.Contains(body, want) {
			t.Errorf("January lacks %q", want)
		}
	}
	// The first and last months the API accepts link only inward.
	for _, edge := range []struct{ month, in, out string }{{"1900-01", `href="/?month=1900-02"`, `rel="prev"`}, {"2100-12", `href="/?month=2100-11"`, `rel="next"`}} {
		if x := b.Get(web.HomePath + "?month=" + edge.month); x.Status != http.StatusOK || !x.Contains(edge.in) || x.Contains(edge.out) {
			t.Errorf("home at %s: %d\n%s", edge.month, x.Status, x.Body)
		}
	}
	if x := b.Get(web.HomePath + "?month=2101-01"); x.Status != http.StatusBadRequest {
		t.Errorf("month 2101-01: %d", x.Status)
	}
	if current.Contains(`href="/">This month`) {
		t.Error("the current month links to itself")
	}
	bad := b.Get(web.HomePath + "?month=2025-13")
	if bad.Status != http.StatusBadRequest || !bad.Contains("month must be a month in YYYY-MM format") {
		t.Errorf("a bad month: %d\n%s", bad.Status, bad.Body)
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
	first := b.Get(web.ExpensesPath)
	if first.Status != http.StatusOK || !first.Contains("23 expenses · total ₱276.00") || !first.Contains("item 22") || first.Contains("item 02") ||
		!first.Contains(`href="/expenses?page=2"`) || !first.Contains("Page 1 of 2") {
		t.Fatalf("first page: %d\n%s", first.Status, first.Body)
	}
	testkit.CheckPageHeaders(t, first)
	second := b.Get(web.ExpensesPath + "?page=2")
	if !second.Contains("item 02") || !second.Contains("item 00") || second.Contains("item 03") || !second.Contains(`href="/expenses"`) {
		t.Errorf("second page:\n%s", second.Body)
	}

	filtered := b.Get(web.ExpensesPath + "?dateFrom=2025-02-10&dateTo=2025-02-15&category=Transportation")
	if !filtered.Contains("3 expenses · total ₱36.00") || !filtered.Contains("item 09") || !filtered.Contains("item 13") || filtered.Contains("item 10") {
		t.Errorf("filtered:\n%s", filtered.Body)
	}
	if x := b.Get(web.ExpensesPath + "?search=item+07"); !x.Contains("1 expense · total ₱8.00<") || !x.Contains("item 07") {
		t.Errorf("search:\n%s", x.Body)
	}
	bad := b.Get(web.ExpensesPath + "?dateFrom=2025-02-20&dateTo=2025-02-10")
	if bad.Status != http.StatusBadRequest || !bad.Contains(`id="from-error">From must not be after To<`) {
		t.Errorf("a reversed range: %d\n%s", bad.Status, bad.Body)
	}

	// Void, from a filtered page: CSRF first, then back to the same page.
	target := expensesOf(t, env, u, finance.StatusActive)[0] // item 22, the latest
	page := b.Get(web.ExpensesPath + "?search=item+22")
	voidPath := web.ExpensesPath + "/" + target.ID + "/void"
	back := web.ExpensesPath + "?search=item+22"
	for name, f := range map[string]url.Values{
		"no form token":      {"back": {back}},
		"a wrong form token": {"csrf": {"forged"}, "back": {back}},
	} {
		if x := b.Post(voidPath, f); x.Status != http.StatusForbidden {
			t.Errorf("void with %s: %d, want 403", name, x.Status)
		}
	}
	if n := len(expensesOf(t, env, u, finance.StatusVoided)); n != 0 {
		t.Fatalf("a refused void voided %d expenses", n)
	}
	x := b.Post(voidPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "back": {back}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != back+"&notice=expense-voided" {
		t.Fatalf("void: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	voided := expensesOf(t, env, u, finance.StatusVoided)
	if len(voided) != 1 || voided[0].ID != target.ID {
		t.Errorf("voided = %+v", voided)
	}
	if after := b.Get(x.Header.Get("Location")); !after.Contains("The expense has been voided.") || !after.Contains("No expenses") {
		t.Errorf("after void:\n%s", after.Body)
	}
	// Voiding it again is refused in the API's words; an off-site back is ignored.
	again := b.Post(voidPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "back": {"https://evil.example/"}})
	if again.Status != http.StatusBadRequest || !again.Contains("voided") || again.Header.Get("Location") != "" {
		t.Errorf("void twice: %d to %q\n%s", again.Status, again.Header.Get("Location"), again.Body)
	}
	other := b.Post(web.ExpensesPath+"/0190f1a2-0000-7000-8000-000000000000/void", url.Values{"csrf": {testkit.CSRF(t, page)}})
	if other.Status != http.StatusNotFound {
		t.Errorf("void an unknown expense: %d", other.Status)
	}
}

// The Expenses page filters by method, account, card and amount as GET
// /expenses does, says how many expenses the filter selects and what they
// come to (all of them, not the page), names each row's account or card,
// and refuses a filter it cannot read beside its field, in its words.
func TestExpensesPageFilters(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	l := env.srv.Ledger()
	bpi, err := l.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("BPI Savings"), Type: finance.Of("savings"),
		OpeningBalance: finance.Of(finance.Money(10_000_00))})
	if err != nil {
		t.Fatal(err)
	}
	var cardReq finance.CardRequest
	fromJSON(t, `{"name":"Metrobank Visa","credit_limit":50000,"statement_day":1,"due_day":20,"cycle_start_date":"2025-02-01"}`, &cardReq)
	visa, err := l.CreateCreditCard(ctx, u.ID, cardReq)
	if err != nil {
		t.Fatal(err)
	}
	add := func(desc string, amount finance.Money, method, accountID, cardID string) finance.Expense {
		req := finance.ExpenseRequest{Amount: finance.Of(amount), Date: finance.Of(finance.NewDate(2025, 3, 10)),
			Description: finance.Of(desc), Category: finance.Of("Food & Dining"), PaymentMethod: finance.Of(method)}
		if accountID != "" {
			req.AccountID = finance.Of(accountID)
		}
		if cardID != "" {
			req.CreditCardID = finance.Of(cardID)
		}
		e, err := l.CreateExpense(ctx, u.ID, req)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	add("Lunch", 250_00, "Cash", "", "")
	add("Taxi", 180_50, "Cash", "", "")
	add("Groceries", 1_200_00, "Account Debit", bpi.ID, "")
	add("Shoes", 3_500_00, "Credit Card", "", visa.ID)
	coffee := add("Coffee", 120_00, "Cash", "", "")
	if _, err := l.VoidExpense(ctx, u.ID, coffee.ID); err != nil {
		t.Fatal(err)
	}

	all := testkit.Unescaped(b.Get(web.ExpensesPath))
	for _, want := range []string{`<h2 id="list-heading">4 expenses · total ₱5,130.50</h2>`,
		" · Food & Dining · BPI Savings", " · Food & Dining · Metrobank Visa", " · Food & Dining · Cash",
		`<option value="` + bpi.ID + `">BPI Savings</option>`, `<option value="` + visa.ID + `">Metrobank Visa</option>`,
		`<option value="Account Debit">Account Debit</option>`, `<summary>Filter</summary>`} {
		if !strings.Contains(all, want) {
			t.Errorf("the unfiltered page lacks %q", want)
		}
	}
	if strings.Contains(all, " · Account Debit") || strings.Contains(all, " · Credit Card") {
		t.Error("a row names its method where it should name its account or card")
	}

	for _, tc := range []struct {
		name, query, heading, on string
		rows, not                []string
	}{
		{"by account", "accountId=" + bpi.ID, "1 expense · total ₱1,200.00", "Filter · BPI Savings", []string{"Groceries"}, []string{"Lunch", "Shoes"}},
		{"by card", "cardId=" + visa.ID, "1 expense · total ₱3,500.00", "Filter · Metrobank Visa", []string{"Shoes"}, []string{"Groceries"}},
		{"by method", "payment_method=Cash", "2 expenses · total ₱430.50", "Filter · Cash", []string{"Lunch", "Taxi"}, []string{"Coffee", "Shoes"}},
		{"by amount, both ends inclusive, grouping read", "amountMin=180.50&amountMax=1%2C200", "3 expenses · total ₱1,630.50",
			"Filter · ₱180.50 to ₱1,200.00", []string{"Lunch", "Taxi", "Groceries"}, []string{"Shoes"}},
		{"by amount and account", "amountMin=1000&accountId=" + bpi.ID, "1 expense · total ₱1,200.00",
			"Filter · BPI Savings · at least ₱1,000.00", []string{"Groceries"}, []string{"Shoes"}},
		{"nothing", "amountMin=5000", "No expenses", "Filter · at least ₱5,000.00", []string{"No expenses match."}, []string{"Shoes"}},
		{"voided", "status=voided", "1 voided expense · total ₱120.00", "Filter · Voided", []string{"Coffee"}, []string{"Lunch"}},
	} {
		x := b.Get(web.ExpensesPath + "?" + tc.query)
		body := testkit.Unescaped(x)
		if x.Status != http.StatusOK || !strings.Contains(body, `<h2 id="list-heading">`+tc.heading+`</h2>`) ||
			!strings.Contains(body, "<summary>"+tc.on+"</summary>") {
			t.Errorf("%s: %d, want %q under %q\n%s", tc.name, x.Status, tc.heading, tc.on, body)
			continue
		}
		for _, row := range tc.rows {
			if !strings.Contains(body, row) {
				t.Errorf("%s: %q is not listed", tc.name, row)
			}
		}
		for _, row := range tc.not {
			if strings.Contains(body, row+" <span") {
				t.Errorf("%s: %q is listed", tc.name, row)
			}
		}
	}
	// The filter stays in the form as typed, and in the page's links.
	grouped := testkit.Unescaped(b.Get(web.ExpensesPath + "?amountMax=1%2C200&accountId=" + bpi.ID))
	for _, want := range []string{`name="amountMax" inputmode="decimal" autocomplete="off" value="1,200"`,
		`<option value="` + bpi.ID + `" selected>BPI Savings</option>`,
		`href="/expenses.csv?accountId=` + bpi.ID + `&amountMax=1%2C200"`} {
		if !strings.Contains(grouped, want) {
			t.Errorf("the filtered page lacks %q\n%s", want, grouped)
		}
	}

	// A filter it cannot read: 400, the problem beside its field in the page's words, the form as typed, no rows.
	for _, tc := range []struct{ query, want string }{
		{"amountMin=abc", `id="amount-min-error">Amount from must be a number with at most 2 decimal places<`},
		{"amountMax=-5", `id="amount-max-error">Amount to must not be negative<`},
		{"amountMin=500&amountMax=100", `id="amount-min-error">Amount from must not be more than Amount to<`},
		{"amountMin=1,2345", `id="amount-min-error">Amount from must be a number with at most 2 decimal places<`},
		{"accountId=bpi", `id="account-error">Account must be a UUID<`},
		{"payment_method=Cheque", `id="method-error">Paid with must be one of: Cash, Account Debit, Credit Card<`},
	} {
		x := b.Get(web.ExpensesPath + "?" + tc.query)
		body := testkit.Unescaped(x)
		if x.Status != http.StatusBadRequest || !strings.Contains(body, tc.want) || !strings.Contains(body, "Not filtered. Please fix the fields marked below.") ||
			strings.Contains(body, "amountMin must") || strings.Contains(body, "amountMax") && !strings.Contains(body, `name="amountMax"`) ||
			strings.Contains(body, "Lunch <span") || !strings.Contains(body, `<details class="filter-fold" open>`) ||
			!strings.Contains(body, "Correct the filter above to list your expenses.") || strings.Contains(body, "No expenses") ||
			!strings.Contains(body, `aria-current="page">Expenses</a>`) {
			t.Errorf("?%s: %d, want 400 with %q, the form open and no rows\n%s", tc.query, x.Status, tc.want, body)
		}
	}
	if strings.Contains(testkit.Unescaped(b.Get(web.ExpensesPath+"?amountMin=500&amountMax=100")), "than amountMax") {
		t.Error("a refusal names the API's parameter")
	}

	// The download holds the same rows, naming the account or card.
	rows := csvOf(t, b.Get(web.ExpensesPath+".csv?amountMin=1%2C000"), "expenses.csv")
	want := [][]string{{"date", "description", "category", "payment_method", "amount", "split_parts", "notes", "id", "account_or_card"}}
	got := [][]string{rows[0]}
	for _, r := range rows[1:] {
		got = append(got, append(r[:5:5], r[8]))
	}
	want = append(want, []string{"2025-03-10", "Shoes", "Food & Dining", "Credit Card", "3500.00", "Metrobank Visa"},
		[]string{"2025-03-10", "Groceries", "Food & Dining", "Account Debit", "1200.00", "BPI Savings"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CSV through amountMin=1,000 (-want +got):\n%s", diff)
	}
	if x := b.Get(web.ExpensesPath + ".csv?amountMin=abc"); x.Status != http.StatusBadRequest {
		t.Errorf("CSV with a bad amount: %d", x.Status)
	}
	// Reading lists changes nothing: the four active expenses and the voided one are as they were.
	if a, v := len(expensesOf(t, env, u, finance.StatusActive)), len(expensesOf(t, env, u, finance.StatusVoided)); a != 4 || v != 1 {
		t.Errorf("after the filters: %d active, %d voided expenses", a, v)
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
		x := b.Get(path)
		testkit.WantPage(t, "signed in, GET "+path, x, http.StatusNotFound, "<h1>Page not found</h1>", "There is no page at this address.",
			nav, `href="/more"`, `href="/">Go to the start page</a>`)
		testkit.CheckPageHeaders(t, x)
		if ct := x.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", path, ct)
		}
		if x.Contains("No route for") || x.Contains("planted") || x.Contains(`"success"`) {
			t.Errorf("GET %s shows the API's answer or the address:\n%s", path, x.Body)
		}
		v := visitor.Get(path)
		testkit.WantPage(t, "signed out, GET "+path, v, http.StatusNotFound, "<h1>Page not found</h1>", `<a class="button" href="/login">Sign in</a>`)
		if v.Contains(nav) || v.Contains("planted") {
			t.Errorf("signed out, GET %s shows the navigation or the address:\n%s", path, v.Body)
		}
	}
	if x := b.Post("/nope", url.Values{"csrf": {"x"}}); x.Status != http.StatusNotFound || !x.Contains("<h1>Page not found</h1>") {
		t.Errorf("POST /nope: %d\n%s", x.Status, x.Body)
	}
	if x := b.Send(http.MethodHead, "/nope", "", ""); x.Status != http.StatusNotFound || len(x.Body) != 0 {
		t.Errorf("HEAD /nope: %d with %d bytes", x.Status, len(x.Body))
	}
	// Programs keep the envelope, a session cookie or not.
	for _, path := range []string{"/api/v1/nope", "/api/nope", "/api", "/api/v1/health/", "/.well-known/nope"} {
		x := b.Get(path)
		var env envelope
		if err := json.Unmarshal(x.Body, &env); err != nil || x.Status != http.StatusNotFound || env.Error == nil ||
			env.Error.Code != httperr.CodeNotFound || env.Error.Message != "No route for GET on this path; the routes are listed at /api/docs" {
			t.Errorf("GET %s: %d %s\n%s", path, x.Status, x.Header.Get("Content-Type"), x.Body)
		}
	}
}

// Voiding an expense takes the confirm step the income list has, and the
// Voided filter lists what was voided, through the page, its links and
// its download.
func TestExpenseVoidConfirmAndVoidedFilter(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	c := newCardSetup(t, env, u) // Books, Lunch (billed) and Shoes (unbilled) on Visa; a Payroll account
	cash := addExpense(t, env, u, 25050, finance.NewDate(2025, 3, 14), "Food & Dining", "Lunch with Ana")
	if _, err := env.srv.Ledger().CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(4000)),
		Date: finance.Of(finance.NewDate(2025, 3, 13)), Description: finance.Of("Taxi"), Category: finance.Of("Transportation"),
		PaymentMethod: finance.Of("Account Debit"), AccountID: finance.Of(c.account.ID)}); err != nil {
		t.Fatal(err)
	}

	page := b.Get(web.ExpensesPath)
	body := testkit.Unescaped(page)
	for _, want := range []string{
		`<summary class="button danger small">Void<span class="sr-only"> Lunch with Ana, ₱250.50</span></summary>`,
		`action="/expenses/` + cash.ID + `/void"`,
		"Void Lunch with Ana of ₱250.50 on 2025-03-14? This cannot be undone; the expense stays in the list of voided ones.",
		"Void Taxi of ₱40.00 on 2025-03-13? Its debit from the account is reversed.",
		"Void Shoes of ₱30.00 on 2025-03-12? Its card purchase is voided too.",
		`>Void this expense</button>`,
		`<select id="f-status" name="status">`, `<option value="active">Active</option>`, `<option value="voided">Voided</option>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the list lacks %q", want)
		}
	}
	// The only Void buttons are the confirm steps' own.
	if n, m := strings.Count(body, `class="button danger small">Void this expense</button>`), strings.Count(body, `aria-label="Void `); n != 5 || m != 0 {
		t.Errorf("%d confirm buttons for 5 expenses, %d one-click Void buttons", n, m)
	}

	x := b.Post(web.ExpensesPath+"/"+cash.ID+"/void", url.Values{"csrf": {testkit.CSRF(t, page)}, "back": {web.ExpensesPath + "?search=Ana"}})
	testkit.WantRedirect(t, "void", x, web.ExpensesPath+"?search=Ana&notice=expense-voided")
	if v := expensesOf(t, env, u, finance.StatusVoided); len(v) != 1 || v[0].ID != cash.ID {
		t.Fatalf("voided = %+v", v)
	}

	// The voided one is gone from the list and found under the filter, with
	// no actions; the filter stays in the page links and the download.
	active := b.Get(web.ExpensesPath)
	if !active.Contains("4 expenses · total ₱") || active.Contains("Lunch with Ana") {
		t.Errorf("the active list:\n%s", active.Body)
	}
	voided := b.Get(web.ExpensesPath + "?status=voided")
	testkit.WantPage(t, "the voided list", voided, http.StatusOK, "1 voided expense · total ₱", `<option value="voided" selected>Voided</option>`,
		`<p class="item-title status-voided">Lunch with Ana`, `<span class="badge status-voided">Voided</span>`,
		`href="/expenses.csv?status=voided"`)
	if voided.Contains("Taxi") || voided.Contains("/expenses/"+cash.ID+"/edit") || voided.Contains("Void this expense") {
		t.Errorf("the voided list shows active rows or actions on a voided one:\n%s", voided.Body)
	}
	rows := csvOf(t, b.Get(web.ExpensesPath+".csv?status=voided"), "expenses.csv")
	if len(rows) != 2 || rows[1][1] != "Lunch with Ana" {
		t.Errorf("voided download = %q", rows)
	}
	if rows := csvOf(t, b.Get(web.ExpensesPath+".csv"), "expenses.csv"); len(rows) != 5 {
		t.Errorf("the download has %d rows, want the 4 active ones and a header", len(rows))
	}
	for i := range 21 {
		addExpense(t, env, u, 100, finance.NewDate(2025, 3, 1), "Groceries", fmt.Sprintf("bread %02d", i))
	}
	for _, e := range expensesOf(t, env, u, finance.StatusActive) {
		if strings.HasPrefix(e.Description, "bread") {
			if _, err := env.srv.Ledger().VoidExpense(ctx, u.ID, e.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	if x := b.Get(web.ExpensesPath + "?status=voided"); !x.Contains(`href="/expenses?page=2&amp;status=voided"`) || !x.Contains("22 voided expenses · total ₱") {
		t.Errorf("the voided list's next page:\n%s", x.Body)
	}
	bad := b.Get(web.ExpensesPath + "?status=deleted")
	testkit.WantPage(t, "an unknown status", bad, http.StatusBadRequest, `id="status-error">Status must be one of: active, voided<`)
	if bad.Contains("Taxi") {
		t.Error("a refused filter lists rows")
	}

	// Income has the same filter.
	in := addIncome(t, env, u, 500000, finance.NewDate(2025, 3, 1), "Salary", "March pay")
	if _, err := env.srv.Ledger().VoidIncome(ctx, u.ID, in.ID); err != nil {
		t.Fatal(err)
	}
	testkit.WantPage(t, "voided income", b.Get(web.IncomePath+"?status=voided"), http.StatusOK, "1 voided income entry · total ₱5,000.00<",
		`<p class="item-title status-voided">March pay`, `<option value="voided" selected>Voided</option>`)
	if x := b.Get(web.IncomePath); !x.Contains("No income entries") {
		t.Errorf("the income list shows a voided entry:\n%s", x.Body)
	}
}

// A refused void says what to do instead, with a link to where it is done,
// on the same filtered page of the list; nothing changes.
func TestExpenseVoidRefusedWithAdvice(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	c := newCardSetup(t, env, u)
	books := expenseNamed(t, env, u, "Books") // on the statement of 10 March
	soa := getSOA(t, env, u, c.soa.ID)
	var booksTx finance.CardTransaction
	for _, t := range soa.Transactions {
		if t.Description == "Books" {
			booksTx = t
		}
	}
	back := web.ExpensesPath + "?search=o&sortBy=amount&sortOrder=asc"
	page := b.Get(back)
	x := b.Post(web.ExpensesPath+"/"+books.ID+"/void", url.Values{"csrf": {testkit.CSRF(t, page)}, "back": {back}})
	link := web.StatementsPath + "/" + c.soa.ID + "?refund=" + booksTx.ID + "#line-heading"
	testkit.WantPage(t, "a billed purchase", x, http.StatusBadRequest,
		`role="alert">Books is on the Visa statement of 2025-03-10, so it can no longer be voided. If the purchase was returned or charged by mistake, add a refund line on that statement instead. <a href="`+link+`">Add a refund on the statement</a></p>`,
		// The list is the one the person was on: its filter and sort, and its rows.
		`name="search" value="o"`, `<option value="amount" selected>`, `<option value="asc" selected>`, "2 expenses · total ₱",
		`name="back" value="`+back+`"`)
	if strings.Contains(testkit.Unescaped(x), "card transaction is billed") || x.Contains("Lunch") {
		t.Error("the refusal is in the API's words, or the list lost its search")
	}
	if got := expenseNamed(t, env, u, "Books"); got.Status != finance.StatusActive {
		t.Errorf("the refused void changed the expense: %+v", got)
	}

	// The link opens the statement with the refund ready to add.
	stmt := b.Get(strings.TrimSuffix(link, "#line-heading"))
	testkit.WantPage(t, "the statement with a refund suggested", stmt, http.StatusOK,
		`<details class="pay toggle" open>`, `name="type" value="refund" checked`, `id="line-amount" name="amount" inputmode="decimal" autocomplete="off" value="12.00"`,
		`id="line-description" name="description" maxlength="255" autocomplete="off" value="Refund: Books"`,
		`<option value="Shopping" selected>Shopping</option>`, `id="line-date" name="date" value="2025-03-10"`)
	for _, other := range []string{"?refund=" + c.unbilled.ID, "?refund=nonsense", ""} { // not on it: the form as usual
		if x := b.Get(web.StatementsPath + "/" + c.soa.ID + other); !x.Contains(`name="type" value="fee" checked`) || x.Contains(`Refund: `) {
			t.Errorf("statement%s suggests a refund:\n%s", other, x.Body)
		}
	}
	add := url.Values{"csrf": {testkit.CSRF(t, stmt)}, "type": {"refund"}, "amount": {"12.00"}, "description": {"Refund: Books"},
		"category": {"Shopping"}, "date": {"2025-03-10"}}
	testkit.WantRedirect(t, "the refund", b.Post(web.StatementsPath+"/"+c.soa.ID+"/lines", add), web.StatementsPath+"/"+c.soa.ID+"?notice=statement-line-added")
	if got := getSOA(t, env, u, c.soa.ID); got.StatementBalance != 800 {
		t.Errorf("statement balance %s after a refund of the 12.00 purchase, want 8.00", got.StatementBalance)
	}

	// A purchase converted to installments points at its card, a bill
	// payment at its bill; voiding twice stays in the API's words.
	shoes := expenseNamed(t, env, u, "Shoes")
	var conv finance.ConvertRequest
	fromJSON(t, `{"months":3}`, &conv)
	if _, err := env.srv.Ledger().ConvertToInstallment(ctx, u.ID, c.unbilled.ID, conv); err != nil {
		t.Fatal(err)
	}
	x = b.Post(web.ExpensesPath+"/"+shoes.ID+"/void", url.Values{"csrf": {testkit.CSRF(t, page)}, "back": {web.ExpensesPath}})
	testkit.WantPage(t, "a converted purchase", x, http.StatusBadRequest,
		`Shoes was converted to installments, so it cannot be voided. Cancel its installment plan on the card's page instead. <a href="/cards/`+c.card.ID+`">Open Visa</a>`)
	bill := marchBill(t, env, u, `{"name":"Electricity","amount":"1500","category":"Utilities","frequency":"monthly","start_date":"2025-01-01","due_day":20}`)
	paid, err := env.srv.Ledger().PayBill(ctx, u.ID, bill.ID, finance.BillPaymentRequest{Amount: finance.Of(finance.Money(150000)),
		PaymentMethod: finance.Of("Cash")})
	if err != nil {
		t.Fatal(err)
	}
	x = b.Post(web.ExpensesPath+"/"+paid.Payment.ExpenseID+"/void", url.Values{"csrf": {testkit.CSRF(t, page)}, "back": {web.ExpensesPath}})
	testkit.WantPage(t, "a bill payment", x, http.StatusBadRequest,
		`Delete the payment on the bill's page instead; that voids this expense too. <a href="/bills/`+bill.ID+`">Open the bill</a>`)
	cash := addExpense(t, env, u, 500, finance.NewDate(2025, 3, 14), "Groceries", "Milk")
	if _, err := env.srv.Ledger().VoidExpense(ctx, u.ID, cash.ID); err != nil {
		t.Fatal(err)
	}
	x = b.Post(web.ExpensesPath+"/"+cash.ID+"/void", url.Values{"csrf": {testkit.CSRF(t, page)}, "back": {web.ExpensesPath}})
	testkit.WantPage(t, "voided twice", x, http.StatusBadRequest, `role="alert">Expense is already voided</p>`)
	if n := len(expensesOf(t, env, u, finance.StatusVoided)); n != 1 {
		t.Errorf("%d voided expenses after refused voids, want the one voided directly", n)
	}
}

// expenseNamed is the user's expense with description what, of any status.
func expenseNamed(t *testing.T, env *testEnv, u finance.User, what string) finance.Expense {
	t.Helper()
	for _, e := range expensesOf(t, env, u, "") {
		if e.Description == what {
			return e
		}
	}
	t.Fatalf("no expense %q", what)
	return finance.Expense{}
}
