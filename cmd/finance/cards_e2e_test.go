package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
)

// decodeAs decodes an envelope's data.
func decodeAs[T any](t *testing.T, env envelope) T {
	t.Helper()
	var out T
	if err := json.Unmarshal(env.Data, &out); err != nil {
		t.Fatalf("data: %v: %s", err, env.Data)
	}
	return out
}

// TestCardStatementsEndToEnd runs the statement rules of domain.md §2.8 and
// §4.2-4.3 through the binary, on dates relative to today (the binary's
// clock is the real one): statements on the cycle with no empty ones, the
// minimum due to the centavo, a late posting, a payment that survives a
// kill -9, and void as reset.
func TestCardStatementsEndToEnd(t *testing.T) {
	l := startLedgerServer(t, "cards@example.com", "all")
	api, today, month := l.api, l.today, l.month
	card := decodeAs[finance.CreditCard](t, api("POST", "/credit-cards", map[string]any{"name": "Gold", "credit_limit": "100000",
		"statement_day": 15, "due_day": 5, "cycle_start_date": month(-4, 1)}, http.StatusCreated))
	account := decodeAs[finance.Account](t, api("POST", "/accounts", map[string]any{"name": "Payroll", "type": "savings",
		"opening_balance": "20000"}, http.StatusCreated))
	purchase := func(amount, date string) map[string]any {
		return map[string]any{"amount": amount, "date": date, "description": "bought " + date, "category": "Shopping",
			"payment_method": "Credit Card", "credit_card_id": card.ID}
	}
	// One request: both purchases of the first period land on its statement.
	api("POST", "/expenses/bulk", map[string]any{"items": []any{purchase("12000", month(-3, 10)), purchase("4683.35", month(-3, 12))}},
		http.StatusCreated)
	api("POST", "/expenses", purchase("300", month(-2, 20)), http.StatusCreated)

	soas := decodeAs[finance.Page[finance.SOA]](t, api("GET", "/credit-cards/soa?sortOrder=asc", nil, http.StatusOK)).Items
	got := make([]string, len(soas))
	for i, a := range soas {
		got[i] = fmt.Sprintf("%s %s..%s due %s: %s min %s %s", a.StatementDate, a.PeriodStart, a.PeriodEnd, a.DueDate,
			a.StatementBalance, a.MinimumDue, a.Status)
	}
	want := []string{
		fmt.Sprintf("%s %s..%s due %s: 16683.35 min 500.50 unpaid", month(-3, 15), finance.MonthAdd(today, -4, 15).AddDays(1), month(-3, 15), month(-2, 5)),
		// Nothing was bought in the period ending on the 15th two months ago: no statement for it.
		fmt.Sprintf("%s %s..%s due %s: 300.00 min 300.00 unpaid", month(-1, 15), finance.MonthAdd(today, -2, 15).AddDays(1), month(-1, 15), month(0, 5)),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("statements:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	first := soas[0]

	// Pay the minimum; more than remains is refused and writes nothing.
	pay := "/credit-cards/soa/" + first.ID + "/payments"
	status, env := l.call("POST", pay, map[string]any{"amount": "16683.36", "account_id": account.ID})
	if status != http.StatusBadRequest || env.Error == nil || env.Error.Code != "VALIDATION_ERROR" {
		t.Errorf("overpayment: %d %+v", status, env.Error)
	}
	paid := decodeAs[finance.SOAPaymentResult](t, api("POST", pay, map[string]any{"amount": "500.50", "account_id": account.ID}, http.StatusCreated))
	if paid.SOA.Status != finance.SOAPartiallyPaid || !paid.SOA.MinimumMet || paid.SOA.Remaining.String() != "16182.85" {
		t.Errorf("after paying the minimum: %+v", paid.SOA)
	}

	// A late posting whose period's statement has a payment leaves that
	// statement as it is and lands on the next statement generated: the one of
	// the empty period after it, made now (an unpaid one would take it in).
	late := decodeAs[finance.Expense](t, api("POST", "/expenses", purchase("16.65", month(-3, 14)), http.StatusCreated))
	row := decodeAs[finance.CardTransaction](t, api("GET", "/credit-cards/transactions/"+*late.CardTransactionID, nil, http.StatusOK))
	next := decodeAs[finance.SOADetail](t, api("GET", "/credit-cards/soa/"+*row.SOAID, nil, http.StatusOK))
	if next.StatementDate.String() != month(-2, 15) || next.StatementBalance.String() != "16.65" || next.DueDate.String() != month(-1, 5) {
		t.Errorf("late posting billed on %+v", next.SOA)
	}

	// A kill -9 loses no acknowledged write; the next start generates nothing twice.
	l.killAndRestart()
	again := decodeAs[finance.SOADetail](t, api("GET", "/credit-cards/soa/"+first.ID, nil, http.StatusOK))
	if again.PaidTotal.String() != "500.50" || again.Status != finance.SOAPartiallyPaid {
		t.Errorf("after kill -9: %+v", again.SOA)
	}
	if acct := decodeAs[finance.Account](t, api("GET", "/accounts/"+account.ID, nil, http.StatusOK)); acct.CurrentBalance.String() != "19499.50" {
		t.Errorf("account after the payment and a kill -9: %s", acct.CurrentBalance)
	}

	// Void resets: the payment is reversed and a fresh statement for the same
	// date bills the released purchases.
	voided := decodeAs[finance.SOA](t, api("POST", "/credit-cards/soa/"+first.ID+"/void", nil, http.StatusOK))
	if voided.Status != finance.StatusVoided || voided.ReplacedByID == nil {
		t.Fatalf("voided: %+v", voided)
	}
	fresh := decodeAs[finance.SOADetail](t, api("GET", "/credit-cards/soa/"+*voided.ReplacedByID, nil, http.StatusOK))
	if fresh.StatementDate != first.StatementDate || fresh.StatementBalance.String() != "16683.35" || fresh.TransactionCount != 2 ||
		fresh.MinimumDue.String() != "500.50" || fresh.PaidTotal != 0 {
		t.Errorf("fresh statement: %+v", fresh.SOA)
	}
	if acct := decodeAs[finance.Account](t, api("GET", "/accounts/"+account.ID, nil, http.StatusOK)); acct.CurrentBalance.String() != "20000.00" {
		t.Errorf("account after the void: %s", acct.CurrentBalance)
	}

	// An installment plan with add-on interest (domain.md §4.4): 20,000.00 over
	// 24 months at 0.75% a month.
	tv := decodeAs[finance.Expense](t, api("POST", "/expenses", purchase("20000", today.String()), http.StatusCreated))
	plan := decodeAs[finance.InstallmentPlanDetail](t, api("POST", "/credit-cards/transactions/"+*tv.CardTransactionID+"/convert-to-installment",
		map[string]any{"months": 24, "interest_type": "add_on", "interest_rate": "0.75"}, http.StatusCreated))
	if plan.TotalInterest.String() != "3600.00" || plan.TotalPayable.String() != "23600.00" || len(plan.Installments) != 24 {
		t.Fatalf("plan %+v with %d rows", plan.InstallmentPlan, len(plan.Installments))
	}
	for i, r := range plan.Installments {
		want := "983.33 = 833.33 + 150.00"
		if i == 23 {
			want = "983.41 = 833.41 + 150.00"
		}
		got := fmt.Sprintf("%s = %s + %s", r.Amount, r.PrincipalPortion, r.InterestPortion)
		if got != want || r.Date.String() != finance.MonthAdd(today, i, today.Day()).String() {
			t.Errorf("installment %d: %s on %s, want %s", i+1, got, r.Date, want)
		}
	}
}
