package main

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/finance-app/finance/finance"
)

// TestLoansEndToEnd runs the loan rules of domain.md §2.11 and §4.5 through
// the binary, on dates relative to today: the diminishing schedule of the
// worked example, a payment from an account allocated interest first that
// survives a kill -9 (payment, account line and spending), and the rest of
// the instance paying it off.
func TestLoansEndToEnd(t *testing.T) {
	l := startLedgerServer(t, "loans@example.com", "loans:write,accounts:write,finance:read")
	api, today := l.api, l.today
	start := today.AddDays(-20)
	account := decodeAs[finance.Account](t, api("POST", "/accounts", map[string]any{"name": "Payroll", "type": "savings",
		"opening_balance": "20000"}, http.StatusCreated))

	// 100,000.00 at 12% a year, diminishing, over 12 months (§4.5).
	loan := decodeAs[finance.LoanDetail](t, api("POST", "/loans", map[string]any{"name": "Car", "principal": "100000",
		"interest_type": "diminishing", "interest_rate": "12", "term_months": 12, "start_date": start.String()}, http.StatusCreated))
	if loan.TotalInterest.String() != "6618.53" || loan.TotalPayable.String() != "106618.53" || len(loan.Instances) != 12 {
		t.Fatalf("loan %+v with %d instances", loan.Loan, len(loan.Instances))
	}
	instances := decodeAs[finance.Page[finance.LoanInstance]](t, api("GET", "/loans/"+loan.ID+"/instances?limit=100", nil, http.StatusOK)).Items
	stated := map[int]string{1: "8884.88 = 7884.88 + 1000.00", 2: "8884.88 = 7963.73 + 921.15",
		11: "8884.88 = 8709.81 + 175.07", 12: "8884.85 = 8796.88 + 87.97"}
	for i, x := range instances {
		due := finance.MonthAdd(start, i+1, start.Day())
		got := fmt.Sprintf("%s = %s + %s", x.AmountDue, x.PrincipalDue, x.InterestDue)
		want, ok := stated[i+1]
		if !ok { // the rows the example does not state all ask the level payment
			got, want = x.AmountDue.String(), "8884.88"
		}
		if got != want || x.DueDate != due {
			t.Errorf("instance %d: %s due %s, want %s due %s", i+1, got, x.DueDate, want, due)
		}
	}
	row1 := instances[0]

	// 600.00 from the account: all interest.
	paid := decodeAs[finance.LoanPaymentResult](t, api("POST", "/loans/instances/"+row1.ID+"/payments",
		map[string]any{"amount": "600", "account_id": account.ID}, http.StatusCreated))
	if paid.Payment.InterestPart.String() != "600.00" || paid.Payment.PrincipalPart != 0 || paid.Instance.Status != finance.InstancePartiallyPaid ||
		paid.Instance.Remaining.String() != "8284.88" || paid.Payment.AccountTransactionID == nil {
		t.Fatalf("payment %+v / instance %+v", paid.Payment, paid.Instance)
	}

	// A kill -9 right after the acknowledged payment loses nothing.
	l.killAndRestart()
	after := decodeAs[finance.LoanDetail](t, api("GET", "/loans/"+loan.ID, nil, http.StatusOK))
	if x := after.Instances[0]; len(x.Payments) != 1 || x.Payments[0].ID != paid.Payment.ID || x.PaidInterest.String() != "600.00" ||
		x.Status != finance.InstancePartiallyPaid || after.PaidTotal.String() != "600.00" {
		t.Errorf("after kill -9: instance %+v, loan paid %s", x, after.PaidTotal)
	}
	lines := decodeAs[finance.Page[finance.AccountTransaction]](t, api("GET", "/accounts/"+account.ID+"/transactions", nil, http.StatusOK)).Items
	if len(lines) != 1 || lines[0].ID != *paid.Payment.AccountTransactionID || lines[0].Source != finance.SourceLoanPayment ||
		lines[0].Type != finance.LineDebit || lines[0].Amount.String() != "600.00" {
		t.Errorf("account lines after kill -9: %+v", lines)
	}
	if acct := decodeAs[finance.Account](t, api("GET", "/accounts/"+account.ID, nil, http.StatusOK)); acct.CurrentBalance.String() != "19400.00" {
		t.Errorf("account balance after kill -9: %s", acct.CurrentBalance)
	}
	day := "?dateFrom=" + today.String() + "&dateTo=" + today.String()
	summary := decodeAs[finance.ExpenseSummary](t, api("GET", "/expenses/summary"+day, nil, http.StatusOK))
	if summary.OtherSpending.LoanInterest.String() != "600.00" || summary.TotalSpending.String() != "600.00" {
		t.Errorf("spending after kill -9: loan interest %s, total %s", summary.OtherSpending.LoanInterest, summary.TotalSpending)
	}

	// The rest of row 1, in cash: 400.00 of interest and the principal.
	rest := decodeAs[finance.LoanPaymentResult](t, api("POST", "/loans/instances/"+row1.ID+"/payments",
		map[string]any{"amount": "8284.88"}, http.StatusCreated))
	if rest.Payment.InterestPart.String() != "400.00" || rest.Payment.PrincipalPart.String() != "7884.88" ||
		rest.Instance.Status != finance.InstancePaid || rest.Loan.RemainingPrincipal.String() != "92115.12" || rest.Loan.PaidCount != 1 {
		t.Errorf("paying the rest: %+v / %+v / %+v", rest.Payment, rest.Instance, rest.Loan.LoanFigures)
	}
	summary = decodeAs[finance.ExpenseSummary](t, api("GET", "/expenses/summary"+day, nil, http.StatusOK))
	if summary.OtherSpending.LoanInterest.String() != "1000.00" {
		t.Errorf("loan interest after row 1: %s", summary.OtherSpending.LoanInterest)
	}
}
