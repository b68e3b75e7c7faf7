package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// addIncome records income straight through the ledger.
func addIncome(t *testing.T, env *testEnv, u finance.User, amount finance.Money, date finance.Date, category, description string) finance.Income {
	t.Helper()
	req := finance.IncomeRequest{Amount: finance.Of(amount), Date: finance.Of(date), Category: finance.Of(category)}
	if description != "" {
		req.Description = finance.Of(description)
	}
	in, err := env.srv.Ledger().CreateIncome(context.Background(), u.ID, req)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// addExpense records a cash expense straight through the ledger.
func addExpense(t *testing.T, env *testEnv, u finance.User, amount finance.Money, date finance.Date, category, description string) finance.Expense {
	t.Helper()
	e, err := env.srv.Ledger().CreateExpense(context.Background(), u.ID, finance.ExpenseRequest{Amount: finance.Of(amount),
		Date: finance.Of(date), Description: finance.Of(description), Category: finance.Of(category), PaymentMethod: finance.Of("Cash")})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// incomeOf lists the user's income of a status straight from the ledger, newest first.
func incomeOf(t *testing.T, env *testEnv, u finance.User, status string) []finance.Income {
	t.Helper()
	p, err := env.srv.Ledger().ListIncome(context.Background(), u.ID, finance.IncomeFilter{Status: status},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "date", Desc: true})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func TestIncomeAndReportsNeedSignIn(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanFree)
	in := addIncome(t, env, u, 1000, finance.NewDate(2025, 3, 1), "Salary", "March pay")
	b := env.browser(t)
	for _, path := range []string{web.IncomePath, web.IncomePath + ".csv", web.ExpensesPath + ".csv?dateFrom=2025-03-01", web.ReportsPath,
		web.ReportsPath + "/cash-flow", web.ReportsPath + "/cash-flow.csv"} {
		x := b.Get(path)
		if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath+"?next="+url.QueryEscape(path) {
			t.Errorf("GET %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
	x := b.Post(web.IncomePath+"/"+in.ID+"/void", url.Values{"back": {web.IncomePath}})
	if x.Status != http.StatusSeeOther || !strings.HasPrefix(x.Header.Get("Location"), web.LoginPath) {
		t.Errorf("POST void signed out: %d to %q", x.Status, x.Header.Get("Location"))
	}
	if n := len(incomeOf(t, env, u, finance.StatusVoided)); n != 0 {
		t.Errorf("a signed-out post voided %d income", n)
	}
}

func TestIncomePage(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	for i := range 23 {
		cat := "Salary"
		if i%2 == 1 {
			cat = "Freelance"
		}
		addIncome(t, env, u, finance.Money(1000*(i+1)), finance.NewDate(2025, 2, 1).AddDays(i), cat, fmt.Sprintf("pay %02d", i))
	}
	first := b.Get(web.IncomePath)
	if first.Status != http.StatusOK {
		t.Fatalf("GET /income: %d\n%s", first.Status, first.Body)
	}
	testkit.CheckPageHeaders(t, first)
	body := testkit.Unescaped(first)
	for _, want := range []string{"23 income entries · total ₱2,760.00", "pay 22", `href="/income?page=2"`, "Page 1 of 2", `aria-current="page">Income</a>`,
		`<option value="amount">Amount</option>`, `href="/income.csv"`} {
		if !strings.Contains(body, want) {
			t.Errorf("first page lacks %q", want)
		}
	}
	if strings.Contains(body, "pay 02") {
		t.Error("the first page shows the 21st newest entry")
	}
	latest := incomeOf(t, env, u, finance.StatusActive)[0]
	if !first.Contains(`href="/income/` + latest.ID + `/edit"`) {
		t.Error("a row does not link to its edit form")
	}
	second := b.Get(web.IncomePath + "?page=2")
	if !second.Contains("pay 02") || !second.Contains("pay 00") || second.Contains("pay 03") || !second.Contains(`href="/income"`) {
		t.Errorf("second page:\n%s", second.Body)
	}

	// The API's filters, search and sort.
	filtered := b.Get(web.IncomePath + "?dateFrom=2025-02-10&dateTo=2025-02-15&category=Freelance")
	if !filtered.Contains("3 income entries · total ₱360.00") || !filtered.Contains("pay 09") || !filtered.Contains("pay 13") || filtered.Contains("pay 10") ||
		!filtered.Contains(`href="/income.csv?category=Freelance&amp;dateFrom=2025-02-10&amp;dateTo=2025-02-15"`) {
		t.Errorf("filtered:\n%s", filtered.Body)
	}
	if x := b.Get(web.IncomePath + "?search=pay+07"); !x.Contains("1 income entry · total ₱80.00<") || !x.Contains("pay 07") {
		t.Errorf("search:\n%s", x.Body)
	}
	asc := testkit.Unescaped(b.Get(web.IncomePath + "?sortBy=amount&sortOrder=asc"))
	if i, j := strings.Index(asc, "pay 00"), strings.Index(asc, "pay 01"); i < 0 || j < 0 || i > j ||
		!strings.Contains(asc, `<option value="amount" selected>`) || !strings.Contains(asc, `<option value="asc" selected>`) {
		t.Errorf("sorted by amount, ascending:\n%s", asc)
	}
	for _, tc := range []struct{ query, want string }{
		{"dateFrom=2025-02-20&dateTo=2025-02-10", `id="from-error">From must not be after To<`},
		{"dateFrom=20-02-2025", `id="from-error">From must be`},
		{"sortBy=description", `id="sort-error">Sort by must be one of: date, amount, created_at<`},
		{"sortOrder=up", `id="order-error">Order must be asc or desc<`},
		{"page=0", `Not filtered. Page must be an integer from 1 to 10000000.<`}, // no field shows the page: the banner words it
	} {
		x := b.Get(web.IncomePath + "?" + tc.query)
		if x.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(x), tc.want) || x.Contains("pay 22") {
			t.Errorf("?%s: %d, want 400 with %q and no rows\n%s", tc.query, x.Status, tc.want, x.Body)
		}
	}

	// Void: the confirm step is on the page; a post without the form token voids nothing.
	acct, err := env.srv.Ledger().CreateAccount(ctx, u.ID, finance.AccountRequest{
		Name: finance.Of("Payroll"), Type: finance.Of("savings"), OpeningBalance: finance.Of(finance.Money(0))})
	if err != nil {
		t.Fatal(err)
	}
	target, err := env.srv.Ledger().CreateIncome(ctx, u.ID, finance.IncomeRequest{Amount: finance.Of(finance.Money(50000)),
		Date: finance.Of(finance.NewDate(2025, 3, 10)), Category: finance.Of("Salary"), Description: finance.Of("Bonus"),
		AccountID: finance.Of(acct.ID)})
	if err != nil {
		t.Fatal(err)
	}
	page := b.Get(web.IncomePath + "?search=Bonus")
	confirm := testkit.Unescaped(page)
	for _, want := range []string{`<details class="confirm item-action">`, `Void<span class="sr-only"> Bonus, ₱500.00</span></summary>`,
		`action="/income/` + target.ID + `/void"`, "Void Bonus of ₱500.00 on 2025-03-10? Its credit to the account is reversed.",
		">Void this income</button>"} {
		if !strings.Contains(confirm, want) {
			t.Errorf("the confirm step lacks %q", want)
		}
	}
	voidPath := web.IncomePath + "/" + target.ID + "/void"
	back := web.IncomePath + "?search=Bonus"
	for name, f := range map[string]url.Values{"no form token": {"back": {back}}, "a wrong form token": {"csrf": {"forged"}, "back": {back}}} {
		if x := b.Post(voidPath, f); x.Status != http.StatusForbidden {
			t.Errorf("void with %s: %d, want 403", name, x.Status)
		}
	}
	if n := len(incomeOf(t, env, u, finance.StatusVoided)); n != 0 {
		t.Fatalf("a refused void voided %d entries", n)
	}
	if a, _ := env.srv.Ledger().GetAccount(ctx, u.ID, acct.ID); a.CurrentBalance != 50000 {
		t.Fatalf("balance %s before the void", a.CurrentBalance)
	}
	x := b.Post(voidPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "back": {back}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != back+"&notice=income-voided" {
		t.Fatalf("void: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	voided := incomeOf(t, env, u, finance.StatusVoided)
	if len(voided) != 1 || voided[0].ID != target.ID {
		t.Errorf("voided = %+v", voided)
	}
	if a, _ := env.srv.Ledger().GetAccount(ctx, u.ID, acct.ID); a.CurrentBalance != 0 {
		t.Errorf("balance %s after voiding the income that credited it", a.CurrentBalance)
	}
	if after := b.Get(x.Header.Get("Location")); !after.Contains("The income has been voided.") || !after.Contains("No income entries") {
		t.Errorf("after void:\n%s", after.Body)
	}
	// Again: refused in the API's words, on the list; an off-site back is never followed.
	again := b.Post(voidPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "back": {"https://evil.example/"}})
	if again.Status != http.StatusBadRequest || !again.Contains(`role="alert">Income is already voided<`) || again.Header.Get("Location") != "" {
		t.Errorf("void twice: %d to %q\n%s", again.Status, again.Header.Get("Location"), again.Body)
	}
	if x := b.Post(web.IncomePath+"/0190f1a2-0000-7000-8000-000000000000/void", url.Values{"csrf": {testkit.CSRF(t, page)}}); x.Status != http.StatusNotFound {
		t.Errorf("void an unknown entry: %d", x.Status)
	}
	// A back that is not the list's page returns to the list.
	other := addIncome(t, env, u, 100, finance.NewDate(2025, 3, 11), "Salary", "Tip")
	x = b.Post(web.IncomePath+"/"+other.ID+"/void", url.Values{"csrf": {testkit.CSRF(t, page)}, "back": {"/income-elsewhere"}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.IncomePath+"?notice=income-voided" {
		t.Errorf("a back outside the list: %d to %q", x.Status, x.Header.Get("Location"))
	}
}
