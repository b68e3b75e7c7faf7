package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// savedBudget is a stored threshold as the tests compare it.
type savedBudget struct {
	Category string
	Limit    finance.Money
	Warning  int
}

func savedBudgets(t *testing.T, env *testEnv, u finance.User) []savedBudget {
	t.Helper()
	p, err := env.srv.Ledger().BudgetThresholds(context.Background(), u.ID, finance.Date{},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "category"})
	if err != nil {
		t.Fatal(err)
	}
	out := []savedBudget{}
	for _, b := range p.Items {
		out = append(out, savedBudget{b.Category, b.MonthlyLimit, b.WarningPercent})
	}
	return out
}

// budgetsFixture is a month with two budgets: Groceries (₱1,000.00) spent
// past its limit in March 2025 and under it in February, Transportation
// (₱500.00, warning at 50%) near its limit; and ₱75.00 of Shopping, which
// has no budget.
func budgetsFixture(t *testing.T) (*testEnv, finance.User, *testkit.Browser) {
	t.Helper()
	env, u, b := webApp(t)
	ctx := context.Background()
	l := env.srv.Ledger()
	if _, err := l.ReplaceBudgetThresholds(ctx, u.ID, finance.BudgetThresholdsRequest{Thresholds: finance.Of([]finance.BudgetThresholdInput{
		{Category: finance.Of("Groceries"), MonthlyLimit: finance.Of(finance.Money(100000))},
		{Category: finance.Of("Transportation"), MonthlyLimit: finance.Of(finance.Money(50000)), WarningPercent: finance.Of(50)},
	})}); err != nil {
		t.Fatal(err)
	}
	for _, e := range []struct {
		amount   finance.Money
		date     finance.Date
		category string
	}{{119900, finance.NewDate(2025, 3, 10), "Groceries"}, {40000, finance.NewDate(2025, 2, 5), "Groceries"},
		{26000, finance.NewDate(2025, 3, 12), "Transportation"}, {7500, finance.NewDate(2025, 3, 1), "Shopping"}} {
		if _, err := l.CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(e.amount), Date: finance.Of(e.date),
			Description: finance.Of(e.category), Category: finance.Of(e.category), PaymentMethod: finance.Of("Cash")}); err != nil {
			t.Fatal(err)
		}
	}
	return env, u, b
}

// The Budgets page draws each budget's bar for the month and the month
// before, with what is left or over and spent of limit in words, the
// category's colour, the total of the budgeted categories and the spending
// outside them. Its figures are the ones Home and GET /dashboard show.
func TestBudgetsPageBarsThisMonthAndLast(t *testing.T) {
	env, u, b := budgetsFixture(t)
	x := b.Get(web.BudgetsPath)
	testkit.WantPage(t, "budgets", x, http.StatusOK, "<h1>Budgets</h1>", "Spending in March 2025 against each category’s monthly limit, with February 2025",
		`<a href="/budgets" aria-current="page">Budgets</a>`,
		// The total: ₱1,459.00 of ₱1,500.00 in March, ₱400.00 in February; ₱75.00 elsewhere.
		`<h2 id="total-heading">All budgeted categories <span class="badge budget-warning">Near limit</span></h2>`,
		`<span class="when">March 2025</span> <span class="num left">₱41.00 left</span>`,
		`<span class="spent">₱1,459.00</span> spent of <span class="limit">₱1,500.00</span>`,
		`<span class="when">February 2025</span> <span class="num left">₱1,100.00 left</span>`,
		`Spending outside your budgets in March 2025: <span class="num" id="unbudgeted">₱75.00</span>`,
		// Groceries: over this month, in the warning colour and in words; under it last month.
		`<circle cx="7" cy="7" r="7" fill="#22C55E"/></svg> <span>Groceries</span> <span class="badge budget-exceeded">Over limit</span>`,
		`<span class="when">March 2025</span> <span class="num left negative">₱199.00 over</span>`,
		`<rect class="fill budget-exceeded" width="100.00%"`,
		`<span class="spent">₱1,199.00</span> spent of <span class="limit">₱1,000.00</span>`,
		`<span class="when">February 2025</span> <span class="num left">₱600.00 left</span>`,
		`<span class="spent">₱400.00</span> spent of <span class="limit">₱1,000.00</span>`,
		`<rect class="fill budget-ok" width="40.00%"`,
		// Transportation: near its 50% warning; nothing spent in February.
		`<span>Transportation</span> <span class="badge budget-warning">Near limit</span>`,
		`<span class="when">March 2025</span> <span class="num left">₱240.00 left</span>`,
		`<span class="spent">₱0.00</span> spent of <span class="limit">₱500.00</span>`,
		// The limits, editable in place; the unbudgeted categories offered to add.
		`id="budget-0-limit" name="monthly_limit" value="1000.00"`, `id="budget-1-warning" name="warning_percent" value="50"`,
		`<button type="submit" class="button secondary small" name="remove" value="Transportation">Remove<span class="sr-only"> the budget of Transportation</span></button>`,
		`<h2 id="add-heading">Add a limit</h2>`, `<option>Shopping</option>`)
	if x.Contains("<option>Groceries</option>") || x.Contains("-₱") {
		t.Error("the page offers a budgeted category to add, or shows a negative amount")
	}
	testkit.CheckPageHeaders(t, x)

	// Home and the dashboard read the same figures.
	d, err := env.srv.Ledger().Dashboard(context.Background(), u.ID, finance.Date{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][2]finance.Money{}
	for _, bd := range d.Budgets {
		got[bd.Category] = [2]finance.Money{bd.Spent, bd.MonthlyLimit}
	}
	if diff := cmp.Diff(map[string][2]finance.Money{"Groceries": {119900, 100000}, "Transportation": {26000, 50000}}, got); diff != "" {
		t.Errorf("dashboard budgets (-want +got):\n%s", diff)
	}
	testkit.WantPage(t, "home", b.Get(web.HomePath), http.StatusOK, `<h2 id="budgets-heading"><a href="/budgets">Budgets</a></h2>`,
		`<span class="num negative">₱199.00 over</span>`, `<span class="spent">₱1,199.00</span> spent of <span class="limit">₱1,000.00</span>`)
}

// Month navigation: another month's page measures that month and the one
// before, links the months around it and this month, and a save from it
// returns to it.
func TestBudgetsPageMonths(t *testing.T) {
	env, u, b := budgetsFixture(t)
	x := b.Get(web.BudgetsPath + "?month=2025-02")
	testkit.WantPage(t, "February", x, http.StatusOK, "Spending in February 2025", `href="/budgets?month=2025-01" rel="prev"`,
		`href="/budgets?month=2025-03" rel="next"`, `<a class="button secondary small" href="/budgets">This month</a>`,
		`<span class="when">February 2025</span> <span class="num left">₱600.00 left</span>`,
		`<span class="when">January 2025</span> <span class="num left">₱1,000.00 left</span>`,
		`<input type="hidden" name="month" value="2025-02">`)
	if this := b.Get(web.BudgetsPath); this.Contains(`name="month"`) || this.Contains(">This month<") {
		t.Error("this month's page sends a month back or links to itself")
	}
	f := url.Values{"csrf": {testkit.CSRF(t, x)}, "month": {"2025-02"}, "category": {"Groceries", "Transportation"},
		"monthly_limit": {"1000.00", "500.00"}, "warning_percent": {"80", "50"}}
	testkit.WantRedirect(t, "save from February", b.Post(web.BudgetsPath, f), web.BudgetsPath+"?notice=budgets-saved&month=2025-02")
	testkit.WantPage(t, "a month the API refuses", b.Get(web.BudgetsPath+"?month=2025-13"), http.StatusBadRequest)
	if diff := cmp.Diff([]savedBudget{{"Groceries", 100000, 80}, {"Transportation", 50000, 50}}, savedBudgets(t, env, u)); diff != "" {
		t.Errorf("budgets (-want +got):\n%s", diff)
	}
}

// Editing in place sends every row, so changing one limit keeps the
// others; Remove leaves its row out; the add row joins the set. Each save
// is the whole set, written at once.
func TestBudgetsEditInPlace(t *testing.T) {
	env, u, b := budgetsFixture(t)
	page := b.Get(web.BudgetsPath)
	rows := func(groceries string) url.Values {
		return url.Values{"csrf": {testkit.CSRF(t, page)}, "category": {"Groceries", "Transportation"},
			"monthly_limit": {groceries, "500.00"}, "warning_percent": {"80", "50"},
			"new.category": {""}, "new.monthly_limit": {""}, "new.warning_percent": {""}}
	}
	for name, f := range forged(rows("1,500")) {
		if x := b.Post(web.BudgetsPath, f); x.Status != http.StatusForbidden {
			t.Errorf("save with %s: %d", name, x.Status)
		}
	}
	// One limit raised, typed as a person types it.
	testkit.WantRedirect(t, "edit", b.Post(web.BudgetsPath, rows("1,500")), web.BudgetsPath+"?notice=budgets-saved")
	if diff := cmp.Diff([]savedBudget{{"Groceries", 150000, 80}, {"Transportation", 50000, 50}}, savedBudgets(t, env, u)); diff != "" {
		t.Fatalf("after the edit (-want +got):\n%s", diff)
	}
	testkit.WantPage(t, "after the edit", b.Get(web.BudgetsPath+"?notice=budgets-saved"), http.StatusOK, "Your budgets have been saved.",
		`<span class="when">March 2025</span> <span class="num left">₱301.00 left</span>`,
		`<span class="spent">₱1,199.00</span> spent of <span class="limit">₱1,500.00</span>`)

	// A limit added under Add a limit.
	f := rows("1500.00")
	f.Set("new.category", "Shopping")
	f.Set("new.monthly_limit", "300")
	testkit.WantRedirect(t, "add", b.Post(web.BudgetsPath, f), web.BudgetsPath+"?notice=budgets-saved")
	if diff := cmp.Diff([]savedBudget{{"Groceries", 150000, 80}, {"Shopping", 30000, 80}, {"Transportation", 50000, 50}}, savedBudgets(t, env, u)); diff != "" {
		t.Fatalf("after adding (-want +got):\n%s", diff)
	}

	// Remove names one row; the others stay as sent.
	f = url.Values{"csrf": {testkit.CSRF(t, page)}, "category": {"Groceries", "Shopping", "Transportation"},
		"monthly_limit": {"1500.00", "300.00", "500.00"}, "warning_percent": {"80", "80", "50"}, "remove": {"Transportation"}}
	testkit.WantRedirect(t, "remove", b.Post(web.BudgetsPath, f), web.BudgetsPath+"?notice=budget-removed")
	if diff := cmp.Diff([]savedBudget{{"Groceries", 150000, 80}, {"Shopping", 30000, 80}}, savedBudgets(t, env, u)); diff != "" {
		t.Fatalf("after removing (-want +got):\n%s", diff)
	}
	testkit.WantPage(t, "after removing", b.Get(web.BudgetsPath+"?notice=budget-removed"), http.StatusOK, "The budget was removed.",
		`<option>Transportation</option>`)

	// Emptying a row's limit and warning removes it too.
	f = url.Values{"csrf": {testkit.CSRF(t, page)}, "category": {"Groceries", "Shopping"},
		"monthly_limit": {"1500.00", ""}, "warning_percent": {"80", ""}}
	testkit.WantRedirect(t, "empty row", b.Post(web.BudgetsPath, f), web.BudgetsPath+"?notice=budgets-saved")
	if diff := cmp.Diff([]savedBudget{{"Groceries", 150000, 80}}, savedBudgets(t, env, u)); diff != "" {
		t.Fatalf("after emptying a row (-want +got):\n%s", diff)
	}

	// Rows that do not line up are not guessed at.
	f = rows("900")
	f["monthly_limit"] = f["monthly_limit"][:1]
	testkit.WantPage(t, "misaligned rows", b.Post(web.BudgetsPath, f), http.StatusBadRequest)
	if diff := cmp.Diff([]savedBudget{{"Groceries", 150000, 80}}, savedBudgets(t, env, u)); diff != "" {
		t.Errorf("misaligned rows changed the budgets (-want +got):\n%s", diff)
	}
}

// A refused save says beside each field what is wrong, keeps every row and
// the add row as typed, and changes nothing.
func TestBudgetsRefusedKeepsWhatWasTyped(t *testing.T) {
	env, u, b := budgetsFixture(t)
	before := savedBudgets(t, env, u)
	page := b.Get(web.BudgetsPath)
	f := url.Values{"csrf": {testkit.CSRF(t, page)}, "category": {"Groceries", "Transportation"},
		"monthly_limit": {"1,250", "-5"}, "warning_percent": {"80", "50"}, "remove": {""},
		"new.category": {""}, "new.monthly_limit": {"300"}, "new.warning_percent": {"120"}}
	x := b.Post(web.BudgetsPath, f)
	testkit.WantPage(t, "refused", x, http.StatusBadRequest,
		`<p class="alert" role="alert">Not saved. Please fix the fields marked below.</p>`,
		// The edited row keeps its new limit (read as an amount), the refused one what was typed.
		`id="budget-0-limit" name="monthly_limit" value="1250.00"`,
		`id="budget-1-limit" name="monthly_limit" value="-5" inputmode="decimal" autocomplete="off" placeholder="No budget" aria-invalid="true" aria-describedby="budget-1-limit-error">`,
		`<small class="field-error" id="budget-1-limit-error">Monthly limit must be greater than 0</small>`,
		// The bars stay: nothing was saved.
		`<span class="spent">₱1,199.00</span> spent of <span class="limit">₱1,000.00</span>`,
		// The add row: its category is missing, its warning out of range, its limit kept.
		`<small class="field-error" id="budget-new-category-error">Category is required</small>`,
		`id="budget-new-limit" name="new.monthly_limit" value="300"`,
		`<small class="field-error" id="budget-new-warning-error">Warning percent must be an integer from 1 to 100</small>`,
		`id="budget-new-warning" name="new.warning_percent" value="120"`)
	if x.Contains("thresholds[") {
		t.Errorf("the page names the API's fields:\n%s", x.Body)
	}
	if diff := cmp.Diff(before, savedBudgets(t, env, u)); diff != "" {
		t.Errorf("a refused save changed the budgets (-want +got):\n%s", diff)
	}
}

// With no budgets the page says so and offers the first limit; Settings'
// old address leads to the page, its query kept.
func TestBudgetsEmptyAndOldAddress(t *testing.T) {
	env, u, b := webApp(t)
	x := b.Get(web.BudgetsPath)
	testkit.WantPage(t, "empty", x, http.StatusOK, `<p class="card budget-empty">No budgets yet.`,
		`<h2 id="add-heading">Add your first limit</h2>`, `<option>Groceries</option>`, `<button type="submit" class="button small">Add limit</button>`)
	if x.Contains("All budgeted categories") || x.Contains(`class="budget-rows"`) {
		t.Error("an empty page shows a total or rows")
	}
	f := url.Values{"csrf": {testkit.CSRF(t, x)}, "new.category": {"Groceries"}, "new.monthly_limit": {"2,000"}, "new.warning_percent": {""}}
	testkit.WantRedirect(t, "first limit", b.Post(web.BudgetsPath, f), web.BudgetsPath+"?notice=budgets-saved")
	if diff := cmp.Diff([]savedBudget{{"Groceries", 200000, 80}}, savedBudgets(t, env, u)); diff != "" {
		t.Errorf("after the first limit (-want +got):\n%s", diff)
	}
	testkit.WantRedirect(t, "old address", b.Get("/settings/budgets?month=2025-02"), web.BudgetsPath+"?month=2025-02")
	// A form left open at the old address still saves.
	f = url.Values{"csrf": {testkit.CSRF(t, x)}, "category": {"Groceries"}, "monthly_limit": {"2500"}, "warning_percent": {"90"}}
	testkit.WantRedirect(t, "old form", b.Post("/settings/budgets", f), web.BudgetsPath+"?notice=budgets-saved")
	if diff := cmp.Diff([]savedBudget{{"Groceries", 250000, 90}}, savedBudgets(t, env, u)); diff != "" {
		t.Errorf("after the old form (-want +got):\n%s", diff)
	}
	if strings.Contains(string(b.Get(web.BudgetsPath).Body), "No budgets yet.") {
		t.Error("the page still says there are no budgets")
	}
}
