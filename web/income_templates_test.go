package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// expectedOf lists the user's expected income, by date, from the ledger.
func expectedOf(t *testing.T, env *testEnv, u finance.User) []finance.ExpectedIncome {
	t.Helper()
	p, err := env.srv.Ledger().ListExpectedIncome(context.Background(), u.ID, finance.ExpectedIncomeFilter{},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "expected_date"})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

// A person sets up a salary on the 15th and the last day, sees what it
// expects, records one payday with the amount that came, and skips another.
func TestRecurringIncomePages(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	var acct finance.AccountRequest
	fromJSON(t, `{"name":"Payroll","type":"savings"}`, &acct)
	payroll, err := env.srv.Ledger().CreateAccount(ctx, u.ID, acct)
	if err != nil {
		t.Fatal(err)
	}
	page := b.Get(web.RecurringIncomePath + "/new")
	if page.Status != http.StatusOK || !page.Contains(`<option value="semimonthly" selected>Twice a month</option>`) {
		t.Fatalf("GET new: %d\n%s", page.Status, page.Body)
	}
	token := testkit.CSRF(t, page)
	form := url.Values{"csrf": {token}, "name": {"Salary"}, "amount": {"25,000.00"}, "category": {"Salary"},
		"frequency": {"semimonthly"}, "start_date": {"2025-03-01"}, "due_day": {"15"}, "second_due_day": {""},
		"account_id": {payroll.ID}}
	x := b.Post(web.RecurringIncomePath, form)
	if x.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(x), `id="t-second-day-error">Second day is required<`) {
		t.Fatalf("without a second day: %d\n%s", x.Status, x.Body)
	}
	if n := len(expectedOf(t, env, u)); n != 0 {
		t.Fatalf("a refused form wrote %d entries", n)
	}
	form.Set("second_due_day", "31")
	if x := b.Post(web.RecurringIncomePath, form); x.Status != http.StatusSeeOther ||
		x.Header.Get("Location") != web.RecurringIncomePath+"?notice=income-template-created" {
		t.Fatalf("create: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	entries := expectedOf(t, env, u)
	var dates []string
	for _, e := range entries {
		dates = append(dates, e.ExpectedDate.String())
	}
	if strings.Join(dates, " ") != "2025-03-15 2025-03-31 2025-04-15 2025-04-30" || entries[0].Amount != 2500000 {
		t.Fatalf("entries on %v of %s, want the 15th and last day of March and April, 25000.00", dates, entries[0].Amount)
	}
	if home := b.Get(web.HomePath); !home.Contains("Still expected this month: ₱50,000.00 of recurring income (2 paydays)") {
		t.Errorf("Home does not say what is still expected this month:\n%s", home.Body)
	}
	list := b.Get(web.RecurringIncomePath)
	for _, want := range []string{`action="/income/expected/` + entries[0].ID + `/confirm"`, `action="/income/expected/` + entries[1].ID + `/skip"`,
		`Twice a month, on day 15 and 31`} {
		if !list.Contains(want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	token = testkit.CSRF(t, list)
	if x := b.Post("/income/expected/"+entries[0].ID+"/confirm", url.Values{"csrf": {token}, "amount": {"25,500.00"}}); x.Status != http.StatusSeeOther {
		t.Fatalf("confirm: %d\n%s", x.Status, x.Body)
	}
	if x := b.Post("/income/expected/"+entries[1].ID+"/skip", url.Values{"csrf": {token}}); x.Status != http.StatusSeeOther {
		t.Fatalf("skip: %d\n%s", x.Status, x.Body)
	}
	after := expectedOf(t, env, u)
	if after[0].Status != finance.ExpectedReceived || after[1].Status != finance.ExpectedSkipped || after[2].Status != finance.ExpectedPending {
		t.Fatalf("statuses %s %s %s, want received skipped expected", after[0].Status, after[1].Status, after[2].Status)
	}
	in, err := env.srv.Ledger().GetIncome(ctx, u.ID, *after[0].IncomeID)
	if err != nil || in.Amount != 2550000 || in.AccountID == nil || *in.AccountID != payroll.ID {
		t.Errorf("income %+v (%v), want 25500.00 into Payroll", in, err)
	}
	// A second confirm of the same entry (a stale page) records nothing more.
	if x := b.Post("/income/expected/"+entries[0].ID+"/confirm", url.Values{"csrf": {token}, "amount": {"1"}}); x.Status != http.StatusSeeOther {
		t.Fatalf("second confirm: %d\n%s", x.Status, x.Body)
	}
	all, err := env.srv.Ledger().ListIncome(ctx, u.ID, finance.IncomeFilter{Status: finance.IncomeActive},
		finance.ListParams{Page: 1, Limit: 10, SortBy: "date"})
	if err != nil || all.Pagination.TotalItems != 1 {
		t.Errorf("%d income records after two confirms (%v), want 1", all.Pagination.TotalItems, err)
	}
}
