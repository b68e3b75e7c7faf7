package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/finance-app/finance/finance"
)

// listSummary reads a list route's summary and checks it is the same on
// every page the test walks.
func listSummary(t *testing.T, u ledgerUser, url string) finance.Summary {
	t.Helper()
	first := send[finance.ConvertedPage[json.RawMessage]](t, u, http.MethodGet, url+"&page=1", "", http.StatusOK)
	for page := 2; page <= first.Pagination.TotalPages; page++ {
		next := send[finance.ConvertedPage[json.RawMessage]](t, u, http.MethodGet, fmt.Sprintf("%s&page=%d", url, page), "", http.StatusOK)
		if next.Summary.Summary != first.Summary.Summary {
			t.Fatalf("%s page %d: summary %+v, page 1 had %+v", url, page, next.Summary, first.Summary)
		}
	}
	if first.Summary.Count != first.Pagination.TotalItems {
		t.Fatalf("%s: summary count %d, total_items %d", url, first.Summary.Count, first.Pagination.TotalItems)
	}
	return first.Summary.Summary
}

// The expense list's summary counts and sums every expense its filters
// select, over several pages of two, never another person's: each case's
// figure is the test's own sum of what it wrote. The status-only lists read
// the kept totals, so they are checked again after an edit of the amount, a
// split, a void and a change of method.
func TestExpenseListSummary(t *testing.T) {
	env, alice, bob := newReportEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":100000}`)
	type row struct {
		amount  finance.Money
		method  string
		voided  bool
		expense finance.Expense
	}
	var rows []*row
	add := func(amount, method, extra string) *row {
		e := alice.createExpense(t, `{"amount":"`+amount+`","date":"2025-03-0`+fmt.Sprint(len(rows)%9+1)+`","description":"Row `+fmt.Sprint(len(rows))+`",`+
			`"category":"Groceries","payment_method":"`+method+`"`+extra+`}`)
		r := &row{amount: e.Amount, method: method, expense: e}
		rows = append(rows, r)
		return r
	}
	for _, a := range []string{"250.00", "180.50", "0.01", "99.99", "1200.00"} {
		add(a, "Cash", "")
	}
	onBPI := `,"account_id":"` + bpi.ID + `"`
	for _, a := range []string{"1234.56", "800.00", "0.49"} {
		add(a, "Account Debit", onBPI)
	}
	coffee := add("120.00", "Cash", "")
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+coffee.expense.ID, "", http.StatusOK)
	coffee.voided = true
	bob.createExpense(t, `{"amount":"777.77","date":"2025-03-02","description":"Bob's","category":"Groceries","payment_method":"Cash"}`)

	want := func(voided bool, method string) finance.Summary {
		var s finance.Summary
		for _, r := range rows {
			if r.voided == voided && (method == "" || r.method == method) {
				s.Count++
				s.Total += r.amount
			}
		}
		return s
	}
	check := func(step string) {
		t.Helper()
		for _, c := range []struct {
			query  string
			voided bool
			method string
		}{
			{"limit=2", false, ""},
			{"limit=2&status=voided", true, ""},
			{"limit=2&payment_method=Cash", false, "Cash"},
			{"limit=2&accountId=" + bpi.ID, false, "Account Debit"},
			{"limit=2&search=Row", false, ""},
			{"limit=2&category=Groceries&dateFrom=2025-03-01&dateTo=2025-03-31", false, ""},
		} {
			if got, w := listSummary(t, alice, "/api/v1/expenses?"+c.query), want(c.voided, c.method); got != w {
				t.Errorf("after %s, %s: summary %+v, want %+v", step, c.query, got, w)
			}
		}
		if got := listSummary(t, alice, "/api/v1/expenses?limit=2&search=nothing-like-this"); got != (finance.Summary{}) {
			t.Errorf("after %s, an empty list's summary %+v", step, got)
		}
	}
	check("the rows")
	if got := listSummary(t, bob, "/api/v1/expenses?limit=2"); got != (finance.Summary{Count: 1, Total: 77777}) {
		t.Errorf("bob's summary %+v, want his one expense of 777.77", got)
	}

	alice.do(t, http.MethodPut, "/api/v1/expenses/"+rows[0].expense.ID, `{"amount":"260.25"}`, http.StatusOK)
	rows[0].amount = 26025
	check("an edit of the amount")
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+rows[1].expense.ID+"/split",
		`{"parts":[{"amount":"80.50","category":"Groceries"},{"amount":100,"category":"Transportation"}]}`, http.StatusOK)
	check("a split")
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+rows[4].expense.ID, "", http.StatusOK)
	rows[4].voided = true
	check("a void")
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+rows[2].expense.ID, `{"payment_method":"Account Debit"`+onBPI+`,"amount":"5.00"}`, http.StatusOK)
	rows[2].method, rows[2].amount = "Account Debit", 500
	check("a change of method and amount")
	_ = env
}

// Income, account lines, card rows and transfers carry the same summary:
// each figure below is the test's own sum of what it wrote, over pages of
// two, and bob's rows (of every kind) never count in alice's.
func TestOtherListSummaries(t *testing.T) {
	_, alice, bob := newReportEnv(t)
	for _, u := range []ledgerUser{alice, bob} {
		bpi := u.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":10000}`)
		gcash := u.createAccount(t, `{"name":"GCash","type":"e_wallet","opening_balance":0}`)
		visa := u.createCard(t, `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5,"cycle_start_date":"2025-01-01"}`)
		for _, l := range []string{`"credit","amount":"500.00"`, `"debit","amount":"200.25"`, `"credit","amount":"0.10"`, `"debit","amount":"50.00"`} {
			u.addLine(t, bpi.ID, `{"type":`+l+`,"date":"2025-03-02"}`)
		}
		u.createTransfer(t, transferBody(bpi.ID, gcash.ID, `,"amount":"300.00","date":"2025-03-03"`))
		u.createTransfer(t, transferBody(gcash.ID, bpi.ID, `,"amount":"12.34","date":"2025-03-04"`))
		u.createIncome(t, `{"amount":1000,"date":"2025-03-05","category":"Salary","account_id":"`+gcash.ID+`"}`)
		u.createIncome(t, `{"amount":250,"date":"2025-03-06","category":"Freelance"}`)
		u.createIncome(t, `{"amount":"99.99","date":"2025-03-07","category":"Freelance"}`)
		card := `{"credit_card_id":"` + visa.ID + `","date":"2025-03-08","description":"Row",`
		for _, r := range []string{`"type":"purchase","amount":1000,"category":"Shopping"`, `"type":"fee","amount":50`,
			`"type":"refund","amount":40,"category":"Shopping"`, `"type":"purchase","amount":"9.99","category":"Shopping"`} {
			u.createCardRow(t, card+r+`}`)
		}
		u.createExpense(t, `{"amount":300,"date":"2025-03-09","description":"Headphones","category":"Shopping",`+
			`"payment_method":"Credit Card","credit_card_id":"`+visa.ID+`"}`)
		if u == alice {
			// Only alice's BPI lines: 500.00 - 200.25 + 0.10 - 50.00, 300.00 out, 12.34 in.
			if got, want := listSummary(t, alice, "/api/v1/accounts/"+bpi.ID+"/transactions?limit=2"), (finance.Summary{Count: 6, Total: -3781}); got != want {
				t.Errorf("BPI's lines: summary %+v, want %+v", got, want)
			}
		}
	}
	voided := alice.createIncome(t, `{"amount":5,"date":"2025-03-07","category":"Freelance"}`)
	alice.do(t, http.MethodDelete, "/api/v1/income/"+voided.ID, "", http.StatusOK)

	for _, c := range []struct {
		url  string
		want finance.Summary
	}{
		{"/api/v1/income?limit=2", finance.Summary{Count: 3, Total: 134999}},
		{"/api/v1/income?limit=2&status=voided", finance.Summary{Count: 1, Total: 500}},
		// BPI's six lines (-37.81) and GCash's: 300.00 in, 12.34 out, 1,000.00 of income.
		{"/api/v1/accounts/transactions?limit=2", finance.Summary{Count: 9, Total: -3781 + 128766}},
		{"/api/v1/accounts/transactions?limit=2&type=debit", finance.Summary{Count: 4, Total: -(20025 + 5000 + 30000 + 1234)}},
		{"/api/v1/transfers?limit=1", finance.Summary{Count: 2, Total: 31234}},
		// Charges add, the refund subtracts; the card expense wrote a row too.
		{"/api/v1/credit-cards/transactions?limit=2", finance.Summary{Count: 5, Total: 100000 + 5000 - 4000 + 999 + 30000}},
		{"/api/v1/credit-cards/transactions?limit=2&type=refund&search=Row", finance.Summary{Count: 1, Total: -4000}},
	} {
		if got := listSummary(t, alice, c.url); got != c.want {
			t.Errorf("%s: summary %+v, want %+v", c.url, got, c.want)
		}
	}
}

// amountMin and amountMax narrow the expense list and its summary, both
// ends counted, read exactly; a bad bound is a 400 naming it, and nothing
// about the expenses changes.
func TestExpenseAmountRange(t *testing.T) {
	_, alice, bob := newReportEnv(t)
	for _, a := range []string{"99.99", "100.00", "180.50", "250.00", "250.01", "1200.00"} {
		alice.createExpense(t, `{"amount":"`+a+`","date":"2025-03-02","description":"Row","category":"Groceries","payment_method":"Cash"}`)
	}
	bob.createExpense(t, `{"amount":"150.00","date":"2025-03-02","description":"Bob's","category":"Groceries","payment_method":"Cash"}`)
	for _, c := range []struct {
		query string
		want  finance.Summary
	}{
		{"amountMin=100&amountMax=250", finance.Summary{Count: 3, Total: 10000 + 18050 + 25000}},
		{"amountMin=100.00&amountMax=250.00&search=Row", finance.Summary{Count: 3, Total: 53050}},
		{"amountMin=250.01", finance.Summary{Count: 2, Total: 25001 + 120000}},
		{"amountMax=99.99", finance.Summary{Count: 1, Total: 9999}},
		{"amountMin=250&amountMax=250", finance.Summary{Count: 1, Total: 25000}},
		{"amountMin=0", finance.Summary{Count: 6, Total: 9999 + 10000 + 18050 + 25000 + 25001 + 120000}},
	} {
		if got := listSummary(t, alice, "/api/v1/expenses?limit=2&"+c.query); got != c.want {
			t.Errorf("%s: summary %+v, want %+v", c.query, got, c.want)
		}
		page := send[finance.ConvertedPage[finance.Expense]](t, alice, http.MethodGet, "/api/v1/expenses?limit=100&"+c.query, "", http.StatusOK)
		for _, e := range page.Items {
			if (c.query == "amountMax=99.99" && e.Amount > 9999) || (c.query == "amountMin=250.01" && e.Amount < 25001) {
				t.Errorf("%s lists %s", c.query, e.Amount)
			}
		}
	}
	before := listSummary(t, alice, "/api/v1/expenses?limit=2")
	for _, c := range []struct{ query, field, problem string }{
		{"amountMin=abc", "amountMin", ""},
		{"amountMax=1e3", "amountMax", ""},
		{"amountMin=10.001", "amountMin", ""},
		{"amountMin=-5", "amountMin", "must not be negative"},
		{"amountMin=300&amountMax=200", "amountMin", "must not be more than amountMax"},
	} {
		res := alice.do(t, http.MethodGet, "/api/v1/expenses?"+c.query, "", http.StatusBadRequest)
		got := res.env.Error
		if got == nil || got.Code != "VALIDATION_ERROR" || got.Fields[c.field] == "" || len(got.Fields) != 1 ||
			(c.problem != "" && got.Fields[c.field] != c.problem) {
			t.Errorf("%s: %s, want a 400 naming only %s (%q)", c.query, res.raw, c.field, c.problem)
		}
	}
	if after := listSummary(t, alice, "/api/v1/expenses?limit=2"); after != before {
		t.Errorf("the refused reads changed the expenses: %+v, then %+v", before, after)
	}
}

// An expense names the account or card it was paid with, in the answer of
// its write and in the list, and a list after a rename shows the new name.
func TestExpenseNamesItsAccountOrCard(t *testing.T) {
	_, alice, _ := newReportEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":1000}`)
	visa := alice.createCard(t, `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5,"cycle_start_date":"2025-01-01"}`)
	name := func(p *string) string {
		if p == nil {
			return "<null>"
		}
		return *p
	}
	debit := alice.createExpense(t, `{"amount":10,"date":"2025-03-02","description":"A","category":"Groceries","payment_method":"Account Debit","account_id":"`+bpi.ID+`"}`)
	card := alice.createExpense(t, `{"amount":20,"date":"2025-03-03","description":"B","category":"Groceries","payment_method":"Credit Card","credit_card_id":"`+visa.ID+`"}`)
	cash := alice.createExpense(t, `{"amount":30,"date":"2025-03-04","description":"C","category":"Groceries","payment_method":"Cash"}`)
	for _, c := range []struct {
		e             finance.Expense
		account, card string
	}{{debit, "BPI", "<null>"}, {card, "<null>", "Visa"}, {cash, "<null>", "<null>"}} {
		if name(c.e.AccountName) != c.account || name(c.e.CreditCardName) != c.card {
			t.Errorf("created %s: account_name %s, credit_card_name %s; want %s, %s", c.e.Description, name(c.e.AccountName), name(c.e.CreditCardName), c.account, c.card)
		}
	}
	alice.do(t, http.MethodPut, "/api/v1/accounts/"+bpi.ID, `{"name":"BPI Savings"}`, http.StatusOK)
	moved := send[finance.Expense](t, alice, http.MethodPut, "/api/v1/expenses/"+cash.ID, `{"payment_method":"Account Debit","account_id":"`+bpi.ID+`"}`, http.StatusOK)
	if name(moved.AccountName) != "BPI Savings" {
		t.Errorf("cash moved to the account: account_name %s", name(moved.AccountName))
	}
	list := send[finance.ConvertedPage[finance.Expense]](t, alice, http.MethodGet, "/api/v1/expenses?sortBy=date&sortOrder=asc", "", http.StatusOK)
	var got []string
	for _, e := range list.Items {
		got = append(got, e.Description+":"+name(e.AccountName)+"/"+name(e.CreditCardName))
	}
	if want := []string{"A:BPI Savings/<null>", "B:<null>/Visa", "C:BPI Savings/<null>"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("list names %v, want %v", got, want)
	}
}
