package server

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/finance-app/finance/finance"
)

// listSummary reads a list route's summary and checks it is the same on
// every page the test walks.
func listSummary(t *testing.T, u ledgerUser, url string) finance.Summary {
	t.Helper()
	first := send[finance.SummedPage[finance.Expense]](t, u, http.MethodGet, url+"&page=1", "", http.StatusOK)
	for page := 2; page <= first.Pagination.TotalPages; page++ {
		next := send[finance.SummedPage[finance.Expense]](t, u, http.MethodGet, fmt.Sprintf("%s&page=%d", url, page), "", http.StatusOK)
		if next.Summary != first.Summary {
			t.Fatalf("%s page %d: summary %+v, page 1 had %+v", url, page, next.Summary, first.Summary)
		}
	}
	if first.Summary.Count != first.Pagination.TotalItems {
		t.Fatalf("%s: summary count %d, total_items %d", url, first.Summary.Count, first.Pagination.TotalItems)
	}
	return first.Summary
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
