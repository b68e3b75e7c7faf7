package main

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// TestBillsEndToEnd runs bills through the binary on dates relative to today
// (the binary's clock is the real one): a template materializes its bills, a
// payment by Account Debit records a bill_payment expense and debits the
// account, deleting it reverses both, and a payment acknowledged just before
// a kill -9 is there after the restart, with no bill materialized twice.
func TestBillsEndToEnd(t *testing.T) {
	l := startLedgerServer(t, "bills@example.com", "bills:write,accounts:write,finance:read")
	api, month := l.api, l.month

	account := decodeAs[finance.Account](t, api("POST", "/accounts", map[string]any{"name": "Payroll", "type": "savings",
		"opening_balance": "20000"}, http.StatusCreated))
	balance := func() string {
		t.Helper()
		return decodeAs[finance.Account](t, api("GET", "/accounts/"+account.ID, nil, http.StatusOK)).CurrentBalance.String()
	}
	tmpl := decodeAs[finance.BillTemplate](t, api("POST", "/bills/templates", map[string]any{"name": "Electricity", "amount": "3000",
		"category": "Utilities", "frequency": "monthly", "start_date": month(-1, 1), "due_day": 31,
		"default_payment_method": "Account Debit", "default_account_id": account.ID}, http.StatusCreated))
	bills := func() []finance.Bill {
		t.Helper()
		return decodeAs[finance.Page[finance.Bill]](t, api("GET", "/bills?templateId="+tmpl.ID, nil, http.StatusOK)).Items
	}
	// Last month's, this month's and next month's, each on its last day.
	want := []string{month(-1, 31), month(0, 31), month(1, 31)}
	list := bills()
	got := make([]string, len(list))
	for i, b := range list {
		got[i] = b.DueDate.String()
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("bills (-want +got):\n%s", diff)
	}
	last := list[0]
	if !last.IsOverdue || last.Status != finance.BillUnpaid {
		t.Errorf("last month's bill %+v", last)
	}

	// A payment with the template's defaults: an expense and a debit, in one transaction.
	pay := "/bills/" + last.ID + "/payments"
	first := decodeAs[finance.BillPaymentResult](t, api("POST", pay, map[string]any{"amount": "1200.50"}, http.StatusCreated))
	if first.Bill.Status != finance.BillPartiallyPaid || first.Bill.Remaining.String() != "1799.50" || first.Payment.PaymentMethod != finance.MethodAccountDebit {
		t.Errorf("after paying 1200.50: %+v / %+v", first.Payment, first.Bill)
	}
	expense := decodeAs[finance.Expense](t, api("GET", "/expenses/"+first.Payment.ExpenseID, nil, http.StatusOK))
	if expense.Source != finance.ExpenseBillPayment || expense.Description != "Electricity (due "+last.DueDate.String()+")" ||
		expense.AccountTransactionID == nil || *expense.Category != "Utilities" {
		t.Errorf("the payment's expense %+v", expense)
	}
	if got := balance(); got != "18799.50" {
		t.Errorf("balance after the payment %s, want 18799.50", got)
	}
	// More than remains is refused and writes nothing.
	if status, env := l.call("POST", pay, map[string]any{"amount": "1799.51"}); status != http.StatusBadRequest ||
		env.Error == nil || env.Error.Code != "VALIDATION_ERROR" {
		t.Errorf("overpayment: %d %+v", status, env.Error)
	}

	// Deleting the payment voids it, its expense and its debit.
	undone := decodeAs[finance.BillPaymentResult](t, api("DELETE", "/bills/payments/"+first.Payment.ID, nil, http.StatusOK))
	if undone.Payment.Status != finance.StatusVoided || undone.Bill.Status != finance.BillUnpaid {
		t.Errorf("after deleting the payment: %+v / %+v", undone.Payment, undone.Bill)
	}
	if e := decodeAs[finance.Expense](t, api("GET", "/expenses/"+first.Payment.ExpenseID, nil, http.StatusOK)); e.Status != finance.StatusVoided {
		t.Errorf("the payment's expense is %s after the delete", e.Status)
	}
	if got := balance(); got != "20000.00" {
		t.Errorf("balance after deleting the payment %s, want 20000.00", got)
	}

	// Paid in full, acknowledged, then kill -9: the payment survives, and the
	// restarted server materializes nothing twice.
	full := decodeAs[finance.BillPaymentResult](t, api("POST", pay, map[string]any{"amount": "3000"}, http.StatusCreated))
	if full.Bill.Status != finance.BillPaid {
		t.Fatalf("after paying in full: %+v", full.Bill)
	}
	l.killAndRestart()
	again := decodeAs[finance.Bill](t, api("GET", "/bills/"+last.ID, nil, http.StatusOK))
	if again.Status != finance.BillPaid || again.PaidTotal.String() != "3000.00" {
		t.Errorf("after kill -9: %+v", again)
	}
	if got := balance(); got != "17000.00" {
		t.Errorf("balance after kill -9 %s, want 17000.00", got)
	}
	if n := len(bills()); n != 3 {
		t.Errorf("%d bills after the restart, want 3", n)
	}
	payments := decodeAs[finance.Page[finance.BillPayment]](t, api("GET", pay, nil, http.StatusOK)).Items
	if len(payments) != 1 || payments[0].ID != full.Payment.ID {
		t.Errorf("posted payments after the restart %+v", payments)
	}
}
