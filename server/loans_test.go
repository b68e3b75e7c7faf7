package server

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Helpers of the loan tests.

const loansURL = "/api/v1/loans"

func instanceURL(id, what string) string { return loansURL + "/instances/" + id + "/" + what }

// newLoanEnv is a server with a pinned clock (today 2025-03-11 in Manila)
// and two users whose keys hold loans:write, accounts:write and
// expenses:write (which reads the spending summary).
func newLoanEnv(t *testing.T) (env *testEnv, alice, bob ledgerUser) {
	t.Helper()
	env = newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	mk := func() ledgerUser {
		u := env.createUser(finance.PlanPro)
		return ledgerUser{env: env, user: u,
			key: env.createKey(u.ID, auth.ScopeLoansWrite, auth.ScopeAccountsWrite, auth.ScopeExpensesWrite)}
	}
	return env, mk(), mk()
}

func (u ledgerUser) createLoan(t testing.TB, body string) finance.LoanDetail {
	t.Helper()
	return send[finance.LoanDetail](t, u, http.MethodPost, loansURL, body, http.StatusCreated)
}

func (u ledgerUser) loan(t testing.TB, id string) finance.LoanDetail {
	t.Helper()
	return send[finance.LoanDetail](t, u, http.MethodGet, loansURL+"/"+id, "", http.StatusOK)
}

func (u ledgerUser) payInstance(t testing.TB, instanceID, body string) finance.LoanPaymentResult {
	t.Helper()
	return send[finance.LoanPaymentResult](t, u, http.MethodPost, instanceURL(instanceID, "payments"), body, http.StatusCreated)
}

func (u ledgerUser) setInstanceStatus(t testing.TB, instanceID, status string) finance.LoanInstanceResult {
	t.Helper()
	return send[finance.LoanInstanceResult](t, u, http.MethodPatch, instanceURL(instanceID, "status"),
		`{"status":"`+status+`"}`, http.StatusOK)
}

func (u ledgerUser) patchLoan(t testing.TB, id, body string) finance.LoanDetail {
	t.Helper()
	return send[finance.LoanDetail](t, u, http.MethodPatch, loansURL+"/"+id, body, http.StatusOK)
}

// instanceLines describes instances one per line: "number due amount=principal+interest status".
func instanceLines(in []finance.LoanInstance) []string {
	out := make([]string, len(in))
	for i, x := range in {
		out[i] = fmt.Sprintf("%d %s %s=%s+%s %s", x.InstallmentNumber, x.DueDate, x.AmountDue, x.PrincipalDue, x.InterestDue, x.Status)
	}
	return out
}

// statuses lists the instances' statuses in order.
func statuses(in []finance.LoanInstance) string {
	s := make([]string, len(in))
	for i, x := range in {
		s[i] = x.Status
	}
	return strings.Join(s, ",")
}

// loanState is everything a rejected loan request could have written: the
// ledger (accounts and their lines), and every loan with its instances and
// payments, read straight from the store.
type loanState struct {
	Ledger    ledgerState
	Loans     []finance.Loan
	Instances []finance.LoanInstance
	Payments  []finance.LoanPayment
}

func snapshotLoans(t testing.TB, env *testEnv, userID string) loanState {
	t.Helper()
	ctx := context.Background()
	repo := env.db.Read()
	st := loanState{Ledger: snapshotLedger(t, env, userID)}
	var err error
	st.Loans, _, err = repo.ListLoans(ctx, userID, finance.LoanFilter{}, finance.ListParams{Page: 1, Limit: 10_000, SortBy: "created_at"})
	if err != nil {
		t.Fatalf("ListLoans: %v", err)
	}
	var ids []string
	for _, l := range st.Loans {
		in, err := repo.LoanInstances(ctx, userID, l.ID)
		if err != nil {
			t.Fatalf("LoanInstances: %v", err)
		}
		for _, x := range in {
			ids = append(ids, x.ID)
		}
		st.Instances = append(st.Instances, in...)
	}
	if st.Payments, err = repo.LoanPayments(ctx, userID, ids); err != nil {
		t.Fatalf("LoanPayments: %v", err)
	}
	return st
}

// runRejectedLoans runs scenarios that must fail and checks after each that
// no user's loans, instances, payments, accounts or lines changed.
func runRejectedLoans(t *testing.T, env *testEnv, users []ledgerUser, scenarios []apiScenario) {
	t.Helper()
	runUnchanged(t, env, users, snapshotLoans, scenarios)
}

// The worked examples of domain.md §4.5 through POST /loans, to the centavo:
// the instances, their due dates, and the loan's figures before any payment.
func TestLoanCreateWorkedExamples(t *testing.T) {
	_, alice, _ := newLoanEnv(t)
	type run struct {
		count                       int
		amount, principal, interest string
	}
	tests := []struct {
		name, body       string
		interest, total  string
		runs             []run             // every instance, as runs of equal ones
		rows             map[int]string    // or the instances the example states: "amount=principal+interest"
		rate, period, mo string            // raw JSON of interest_rate, rate_period, monthly_amount
		extra            map[string]string // other raw fields of the reply
	}{
		{name: "100,000.00 add-on 1.5%/month over 12 months",
			body:     `{"name":"Motorbike","principal":100000,"interest_type":"add_on","interest_rate":1.5,"term_months":12,"start_date":"2025-01-15"}`,
			interest: "18000.00", total: "118000.00", rate: "1.5", period: `"monthly"`, mo: absent,
			runs: []run{{11, "9833.33", "8333.33", "1500.00"}, {1, "9833.37", "8333.37", "1500.00"}}},
		{name: "25,000.00 add-on 18%/year over 9 months",
			body:     `{"name":"Laptop","principal":"25000.00","interest_type":"add_on","interest_rate":"18","rate_period":"annual","term_months":9,"start_date":"2025-01-15"}`,
			interest: "3375.00", total: "28375.00", rate: "18", period: `"annual"`, mo: absent,
			runs: []run{{8, "3152.77", "2777.77", "375.00"}, {1, "3152.84", "2777.84", "375.00"}}},
		{name: "100,000.00 add-on over 12 months at a quoted 9,850.00",
			body:     `{"name":"Quoted","principal":100000,"interest_type":"add_on","monthly_amount":9850,"term_months":12,"start_date":"2025-01-15"}`,
			interest: "18200.00", total: "118200.00", rate: absent, period: `"monthly"`, mo: "9850.00",
			runs: []run{{11, "9850.00", "8333.34", "1516.66"}, {1, "9850.00", "8333.26", "1516.74"}}},
		{name: "100,000.00 diminishing 12%/year over 12 months",
			body:     `{"name":"Car","principal":100000,"interest_type":"diminishing","interest_rate":12,"term_months":12,"start_date":"2025-01-15"}`,
			interest: "6618.53", total: "106618.53", rate: "12", period: `"annual"`, mo: absent,
			rows: map[int]string{1: "8884.88=7884.88+1000.00", 2: "8884.88=7963.73+921.15", 11: "8884.88=8709.81+175.07",
				12: "8884.85=8796.88+87.97"}},
		{name: "50,000.00 diminishing 2%/month over 6 months",
			body:     `{"name":"Personal","principal":50000,"interest_type":"diminishing","interest_rate":2,"rate_period":"monthly","term_months":6,"start_date":"2025-01-15"}`,
			interest: "3557.75", total: "53557.75", rate: "2", period: `"monthly"`, mo: absent,
			rows: map[int]string{1: "8926.29=7926.29+1000.00", 6: "8926.30=8751.27+175.03"}},
		{name: "10,000.00 without interest over 3 months",
			body:     `{"name":"From Mom","principal":10000,"interest_type":"none","term_months":3,"start_date":"2025-01-15","lender":" Mom ","notes":"no rush"}`,
			interest: "0.00", total: "10000.00", rate: absent, period: absent, mo: absent,
			runs:  []run{{2, "3333.33", "3333.33", "0.00"}, {1, "3333.34", "3333.34", "0.00"}},
			extra: map[string]string{"lender": `"Mom"`, "notes": `"no rush"`}},
	}
	first := finance.NewDate(2025, 2, 15)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := alice.do(t, http.MethodPost, loansURL, tt.body, http.StatusCreated)
			if res.message() != "Loan created" {
				t.Errorf("message %q", res.message())
			}
			want := map[string]string{"total_interest": tt.interest, "total_payable": tt.total, "interest_rate": tt.rate,
				"rate_period": tt.period, "monthly_amount": tt.mo, "status": `"active"`, "first_due_date": `"2025-02-15"`,
				"paid_total": "0.00", "paid_principal": "0.00", "paid_interest": "0.00", "paid_count": "0",
				"remaining_payable": tt.total, "next_due_date": `"2025-02-15"`}
			for k, v := range tt.extra {
				want[k] = v
			}
			for path, w := range want {
				if got := rawField(t, res, path); got != w {
					t.Errorf("%s = %s, want %s", path, got, w)
				}
			}
			var got finance.LoanDetail
			res.decodeData(t, &got)
			if got.RemainingPrincipal != got.Principal || got.NextDueAmount == nil || *got.NextDueAmount != got.Instances[0].AmountDue {
				t.Errorf("figures %+v", got.LoanFigures)
			}
			lines := instanceLines(got.Instances)
			if tt.runs != nil {
				var want []string
				for _, r := range tt.runs {
					for range r.count {
						k := len(want)
						want = append(want, fmt.Sprintf("%d %s %s=%s+%s unpaid", k+1, finance.MonthAdd(first, k, 15), r.amount, r.principal, r.interest))
					}
				}
				if diff := cmp.Diff(want, lines); diff != "" {
					t.Errorf("instances (-want +got):\n%s", diff)
				}
			}
			for k, w := range tt.rows {
				x := got.Instances[k-1]
				if g := fmt.Sprintf("%s=%s+%s", x.AmountDue, x.PrincipalDue, x.InterestDue); g != w {
					t.Errorf("instance %d is %s, want %s", k, g, w)
				}
			}
			var principal, interest finance.Money
			for i, x := range got.Instances {
				principal += x.PrincipalDue
				interest += x.InterestDue
				if x.LoanID != got.ID || x.LoanName != got.Name || x.InstallmentNumber != i+1 || x.DueDate != finance.MonthAdd(first, i, 15) ||
					x.Remaining != x.AmountDue || x.PaidTotal != 0 || x.MarkedPaidManually || len(x.Payments) != 0 ||
					x.IsOverdue != x.DueDate.Before(finance.NewDate(2025, 3, 11)) {
					t.Errorf("instance %+v", x)
				}
			}
			if principal != got.Principal || interest != got.TotalInterest {
				t.Errorf("instances sum to %s principal and %s interest", principal, interest)
			}
			// The reply is what is stored, and the list shows the same figures.
			if diff := cmp.Diff(got, alice.loan(t, got.ID), equateDates); diff != "" {
				t.Errorf("GET differs from the reply (-reply +get):\n%s", diff)
			}
			items, _ := page[finance.Loan](t, alice, loansURL+"?search="+url.QueryEscape(got.Name))
			if len(items) != 1 || cmp.Diff(got.Loan, items[0], equateDates) != "" {
				t.Errorf("list item %+v, want %+v", items, got.Loan)
			}
		})
	}
}

// Due dates are anchored: on first_due_date's day when it is given, else on
// start_date's day, clamped to each month's end and never chained.
func TestLoanDueDates(t *testing.T) {
	_, alice, _ := newLoanEnv(t)
	dates := func(d finance.LoanDetail) []string {
		var out []string
		for _, x := range d.Instances {
			out = append(out, x.DueDate.String())
		}
		return out
	}
	defaulted := alice.createLoan(t, `{"name":"A","principal":400,"interest_type":"none","term_months":4,"start_date":"2025-01-31"}`)
	if diff := cmp.Diff([]string{"2025-02-28", "2025-03-31", "2025-04-30", "2025-05-31"}, dates(defaulted)); diff != "" ||
		defaulted.FirstDueDate.String() != "2025-02-28" {
		t.Errorf("defaulted first due %s (-want +got):\n%s", defaulted.FirstDueDate, diff)
	}
	given := alice.createLoan(t, `{"name":"B","principal":300,"interest_type":"none","term_months":3,"start_date":"2025-01-31","first_due_date":"2025-02-28"}`)
	if diff := cmp.Diff([]string{"2025-02-28", "2025-03-28", "2025-04-28"}, dates(given)); diff != "" {
		t.Errorf("given first due (-want +got):\n%s", diff)
	}
	leap := alice.createLoan(t, `{"name":"C","principal":300,"interest_type":"none","term_months":3,"start_date":"2024-01-30","first_due_date":"2024-02-29"}`)
	if diff := cmp.Diff([]string{"2024-02-29", "2024-03-29", "2024-04-29"}, dates(leap)); diff != "" {
		t.Errorf("leap first due (-want +got):\n%s", diff)
	}
}

func TestLoanCreateRejected(t *testing.T) {
	env, alice, bob := newLoanEnv(t)
	post := func(name, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: loansURL, body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	const (
		base         = `"name":"L","principal":1000,"term_months":3,"start_date":"2025-01-15"`
		problemMonth = "must be an integer from 1 to 360"
		problemNone  = "must be absent when interest_type is none"
		problemRate  = "must be a percent greater than 0 and at most 100, with at most 4 decimal places"
	)
	runRejectedLoans(t, env, []ledgerUser{alice, bob}, []apiScenario{
		post("empty body", `{}`, fieldsOf("name", problemRequired, "principal", problemRequired, "interest_type", problemRequired,
			"term_months", problemRequired, "start_date", problemRequired)),
		post("bad values", `{"name":" ","principal":-5,"interest_type":"compound","term_months":0,"start_date":"2025-02-30","lender":"`+strings.Repeat("x", 101)+`"}`,
			fieldsOf("name", problemRequired, "principal", problemPositive, "interest_type", "must be one of: none, add_on, diminishing",
				"term_months", problemMonth, "start_date", problemDate, "lender", "must be at most 100 characters")),
		post("term over 360", `{"name":"L","principal":1000,"term_months":361,"start_date":"2025-01-15","interest_type":"none"}`,
			fieldsOf("term_months", problemMonth)),
		post("principal with 3 decimals", `{"name":"L","principal":"10.005","interest_type":"none","term_months":1,"start_date":"2025-01-15"}`,
			fieldsOf("principal", problemMoney)),
		post("rate, period and amount with none", `{`+base+`,"interest_type":"none","interest_rate":1,"rate_period":"monthly","monthly_amount":400}`,
			fieldsOf("interest_rate", problemNone, "rate_period", problemNone, "monthly_amount", problemNone)),
		post("add-on without rate or amount", `{`+base+`,"interest_type":"add_on"}`,
			fieldsOf("interest_rate", "is required when interest_type is add_on, unless monthly_amount is given")),
		post("diminishing without rate, even with an amount", `{`+base+`,"interest_type":"diminishing","monthly_amount":400}`,
			fieldsOf("interest_rate", "is required when interest_type is diminishing")),
		post("bad rate and period", `{`+base+`,"interest_type":"add_on","interest_rate":"0.12345","rate_period":"weekly"}`,
			fieldsOf("interest_rate", problemRate, "rate_period", "must be one of: monthly, annual")),
		post("zero monthly amount", `{`+base+`,"interest_type":"add_on","monthly_amount":0}`, fieldsOf("monthly_amount", problemPositive)),
		post("first due on the start date", `{`+base+`,"interest_type":"none","first_due_date":"2025-01-15"}`,
			fieldsOf("first_due_date", "must be after start_date 2025-01-15")),
		post("last due after 2100", `{"name":"L","principal":1000,"interest_type":"none","term_months":360,"start_date":"2080-01-15"}`,
			fieldsOf("term_months", "puts the last due date on 2110-01-15, after 2100-12-31")),
		post("diminishing M not above the first interest",
			`{"name":"L","principal":100000,"interest_type":"diminishing","interest_rate":12,"term_months":12,"start_date":"2025-01-15","monthly_amount":1000}`,
			fieldsOf("monthly_amount", "must be more than the interest of installment 1 (1000.00)")),
		post("diminishing M repaying early",
			`{"name":"L","principal":100000,"interest_type":"diminishing","interest_rate":12,"term_months":12,"start_date":"2025-01-15","monthly_amount":20000}`,
			fieldsOf("monthly_amount", "repays the loan by installment 6 of 12; the term and the monthly amount disagree")),
		post("add-on M not covering the principal",
			`{"name":"L","principal":100000,"interest_type":"add_on","term_months":12,"start_date":"2025-01-15","monthly_amount":8000}`,
			fieldsOf("monthly_amount", "times 12 months is 96000.00, less than the principal 100000.00")),
		post("add-on M leaving an instance without principal",
			`{"name":"L","principal":0.01,"interest_type":"add_on","term_months":2,"start_date":"2025-01-15","monthly_amount":1}`,
			fieldsOf("monthly_amount", "leaves installment 2 without principal: 1.00 of interest in a 1.00 payment")),
		post("principal too small for the term", `{"name":"L","principal":1,"interest_type":"none","term_months":360,"start_date":"2025-01-15"}`,
			fieldsOf("principal", "is too small to spread over 360 monthly installments")),
		{name: "a key without loans:write", method: http.MethodPost, url: loansURL, body: `{` + base + `,"interest_type":"none"}`,
			headers: bearer(env.createKey(alice.user.ID, auth.ScopeRead)), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
	})
}

// A payment's reply holds the payment, the instance's figures and the loan,
// never the instance's list of payments: its size does not grow with the
// payments on the instance. GET /loans/{id} still lists them all.
func TestLoanPaymentReplyHoldsOnlyTheNewPayment(t *testing.T) {
	env, alice, _ := newLoanEnv(t)
	l := alice.createLoan(t, `{"name":"Phone","principal":10000,"interest_type":"none","term_months":1,"start_date":"2025-02-01"}`)
	instance := l.Instances[0].ID
	instanceKeys := []string{"amount_due", "created_at", "currency", "due_date", "id", "installment_number", "interest_due", "is_overdue",
		"loan_id", "loan_name", "marked_paid_manually", "paid_interest", "paid_principal", "paid_total", "principal_due",
		"remaining", "status", "updated_at"}
	keys := func(m map[string]json.RawMessage) []string { return slices.Sorted(maps.Keys(m)) }
	const payments = 30
	var ids []string
	for n := 1; n <= payments; n++ {
		res := alice.do(t, http.MethodPost, instanceURL(instance, "payments"), `{"amount":"1.00","date":"2025-03-01"}`, http.StatusCreated)
		var data map[string]json.RawMessage
		res.decodeData(t, &data)
		if diff := cmp.Diff([]string{"instance", "loan", "payment"}, keys(data)); diff != "" {
			t.Fatalf("payment %d: reply fields (-want +got):\n%s", n, diff)
		}
		var in map[string]json.RawMessage
		if err := json.Unmarshal(data["instance"], &in); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(instanceKeys, keys(in)); diff != "" {
			t.Fatalf("payment %d: instance fields (-want +got):\n%s", n, diff)
		}
		// No list anywhere in the reply: nothing in it grows with the payments.
		if strings.Contains(string(res.env.Data), "[") {
			t.Fatalf("payment %d: the reply holds a list: %s", n, res.env.Data)
		}
		var out finance.LoanPaymentResult
		res.decodeData(t, &out)
		paid := finance.Money(n * 100)
		if out.Payment.Amount != 1_00 || out.Payment.InstanceID != instance || slices.Contains(ids, out.Payment.ID) ||
			out.Instance.PaidTotal != paid || out.Instance.Remaining != 10000_00-paid || out.Instance.Status != finance.InstancePartiallyPaid ||
			out.Loan.PaidTotal != paid {
			t.Fatalf("payment %d: %+v / %+v / paid %s", n, out.Payment, out.Instance, out.Loan.PaidTotal)
		}
		ids = append(ids, out.Payment.ID)
	}
	// Every payment is kept, and the loan's detail lists them on the instance, oldest first.
	if st := snapshotLoans(t, env, alice.user.ID); len(st.Payments) != payments || st.Instances[0].PaidTotal != payments*100 {
		t.Errorf("stored: %d payments, paid %s", len(st.Payments), st.Instances[0].PaidTotal)
	}
	var got []string
	for _, p := range alice.loan(t, l.ID).Instances[0].Payments {
		got = append(got, p.ID)
	}
	if diff := cmp.Diff(ids, got); diff != "" {
		t.Errorf("payments on the detail (-replies +detail):\n%s", diff)
	}
}

// The allocation example of §4.5 through the routes: row 1 of the
// 12%/year loan is 8,884.88, 1,000.00 of it interest. 600.00 from an
// account pays interest only; 8,284.88 in cash pays the rest of the
// interest and the principal. Spending grows by 600.00, then by 400.00.
func TestLoanPaymentAllocation(t *testing.T) {
	_, alice, _ := newLoanEnv(t)
	acct := alice.createAccount(t, `{"name":"Payroll","type":"savings","opening_balance":20000}`)
	l := alice.createLoan(t, `{"name":"Car","lender":"City Bank","principal":100000,"interest_type":"diminishing","interest_rate":12,"term_months":12,"start_date":"2025-01-15"}`)
	row1 := l.Instances[0]
	before := alice.summary(t, "2025-03-01", "2025-03-31")
	if before.OtherSpending.LoanInterest != 0 || before.TotalSpending != 0 {
		t.Fatalf("summary before any payment %+v", before.OtherSpending)
	}

	res := alice.do(t, http.MethodPost, instanceURL(row1.ID, "payments"), `{"amount":"600.00","account_id":"`+acct.ID+`","notes":"part"}`, http.StatusCreated)
	if res.message() != "Loan payment recorded" {
		t.Errorf("message %q", res.message())
	}
	var first finance.LoanPaymentResult
	res.decodeData(t, &first)
	p := first.Payment
	if p.Amount != 600_00 || p.InterestPart != 600_00 || p.PrincipalPart != 0 || p.Date.String() != ledgerToday ||
		p.AccountID == nil || *p.AccountID != acct.ID || p.AccountName == nil || *p.AccountName != "Payroll" ||
		p.AccountTransactionID == nil || p.Notes == nil || *p.Notes != "part" || p.InstanceID != row1.ID || p.LoanID != l.ID {
		t.Errorf("payment %+v", p)
	}
	in := first.Instance
	if in.Status != finance.InstancePartiallyPaid || in.Remaining != 8284_88 || in.PaidTotal != 600_00 || in.PaidInterest != 600_00 ||
		in.PaidPrincipal != 0 || in.ID != row1.ID {
		t.Errorf("instance after 600.00: %+v", in)
	}
	if f := first.Loan.LoanFigures; f.PaidTotal != 600_00 || f.PaidInterest != 600_00 || f.PaidPrincipal != 0 ||
		f.RemainingPrincipal != 100000_00 || f.RemainingPayable != 106018_53 || f.PaidCount != 0 ||
		f.NextDueDate.String() != "2025-02-15" || *f.NextDueAmount != 8284_88 {
		t.Errorf("loan after 600.00: %+v", f)
	}
	line := alice.line(t, *p.AccountTransactionID)
	if line.Type != finance.LineDebit || line.Source != finance.SourceLoanPayment || line.SourceID == nil || *line.SourceID != p.ID ||
		line.Amount != 600_00 || line.Date.String() != ledgerToday || line.AccountID != acct.ID ||
		line.Description == nil || *line.Description != "Loan payment: Car, installment 1 of 12" {
		t.Errorf("account line %+v", line)
	}
	if got := alice.account(t, acct.ID).CurrentBalance; got != 19400_00 {
		t.Errorf("account balance %s, want 19400.00", got)
	}
	after := alice.summary(t, "2025-03-01", "2025-03-31")
	if after.OtherSpending.LoanInterest != 600_00 || after.TotalSpending != 600_00 || after.TotalExpenses != 0 {
		t.Errorf("summary after 600.00: loan interest %s, spending %s", after.OtherSpending.LoanInterest, after.TotalSpending)
	}

	// The rest in cash: 400.00 of interest, then the principal.
	second := alice.payInstance(t, row1.ID, `{"amount":8284.88,"date":"2025-03-12"}`)
	if q := second.Payment; q.InterestPart != 400_00 || q.PrincipalPart != 7884_88 || q.AccountID != nil || q.AccountName != nil ||
		q.AccountTransactionID != nil || q.Date.String() != "2025-03-12" {
		t.Errorf("second payment %+v", q)
	}
	if in := second.Instance; in.Status != finance.InstancePaid || in.Remaining != 0 || in.PaidInterest != 1000_00 ||
		in.PaidPrincipal != 7884_88 || in.MarkedPaidManually || in.IsOverdue {
		t.Errorf("instance after paying in full: %+v", in)
	}
	if f := second.Loan.LoanFigures; f.PaidTotal != 8884_88 || f.PaidInterest != 1000_00 || f.PaidPrincipal != 7884_88 ||
		f.RemainingPrincipal != 92115_12 || f.RemainingPayable != 97733_65 || f.PaidCount != 1 ||
		f.NextDueDate.String() != "2025-03-15" || *f.NextDueAmount != 8884_88 || second.Loan.Status != finance.LoanActive {
		t.Errorf("loan after row 1: %+v", f)
	}
	if got := alice.account(t, acct.ID).CurrentBalance; got != 19400_00 {
		t.Errorf("a cash payment moved the account: %s", got)
	}
	s := alice.summary(t, "2025-03-01", "2025-03-31")
	if s.OtherSpending.LoanInterest != 1000_00 || s.TotalSpending != 1000_00 {
		t.Errorf("summary after the rest: loan interest %s, spending %s", s.OtherSpending.LoanInterest, s.TotalSpending)
	}
	// Each part counts on its own date.
	if s := alice.summary(t, "2025-03-12", "2025-03-12"); s.OtherSpending.LoanInterest != 400_00 {
		t.Errorf("loan interest on 03-12: %s", s.OtherSpending.LoanInterest)
	}
	// The detail shows the payments on the instance, oldest first.
	d := alice.loan(t, l.ID)
	if got := d.Instances[0].Payments; len(got) != 2 || got[0].ID != p.ID || got[1].ID != second.Payment.ID {
		t.Errorf("payments on the detail: %+v", got)
	}
}

func TestLoanPaymentRejected(t *testing.T) {
	env, alice, bob := newLoanEnv(t)
	acct := alice.createAccount(t, `{"name":"Payroll","type":"savings","opening_balance":20000}`)
	old := alice.createAccount(t, `{"name":"Old","type":"savings"}`)
	alice.archive(t, old.ID)
	bobAcct := bob.createAccount(t, `{"name":"Bob's","type":"savings"}`)
	l := alice.createLoan(t, `{"name":"Car","principal":1000,"interest_type":"add_on","interest_rate":1,"term_months":2,"start_date":"2025-01-15"}`)
	row1, row2 := l.Instances[0], l.Instances[1] // 510.00 = 500.00 + 10.00 each
	alice.payInstance(t, row1.ID, `{"amount":510}`)
	pay := func(name string, u ledgerUser, id, body string, status int, code string, fields map[string]string, msg string) apiScenario {
		return u.sc(apiScenario{name: name, method: http.MethodPost, url: instanceURL(id, "payments"), body: body,
			wantStatus: status, wantCode: code, wantFields: fields, wantMessage: msg})
	}
	bad := http.StatusBadRequest
	runRejectedLoans(t, env, []ledgerUser{alice, bob}, []apiScenario{
		pay("another user's instance, whatever the body", bob, row2.ID, `{"amount":"x"}`, http.StatusNotFound, CodeNotFound, nil, "Loan instance not found"),
		pay("malformed instance id", alice, "nope", `{"amount":1}`, http.StatusNotFound, CodeNotFound, nil, "Loan instance not found"),
		pay("unknown instance id", alice, unknownID, `{"amount":1}`, http.StatusNotFound, CodeNotFound, nil, ""),
		pay("shape before state", alice, row1.ID, `{"date":"2025-02-30","notes":5}`, bad, CodeValidation,
			fieldsOf("amount", problemRequired, "date", problemDate, "notes", "must be a string"), ""),
		pay("zero amount", alice, row2.ID, `{"amount":0}`, bad, CodeValidation, fieldsOf("amount", problemPositive), ""),
		pay("account_id not a string", alice, row2.ID, `{"amount":1,"account_id":7}`, bad, CodeValidation, fieldsOf("account_id", "must be a string"), ""),
		pay("state before totals: a paid instance", alice, row1.ID, `{"amount":9999}`, bad, CodeInvalidStatus, nil,
			"Loan instance is paid; only an unpaid or partially paid instance takes payments"),
		pay("more than remains", alice, row2.ID, `{"amount":"510.01"}`, bad, CodeValidation, fieldsOf("amount", "must not exceed the remaining amount 510.00"), ""),
		pay("archived account", alice, row2.ID, `{"amount":1,"account_id":"`+old.ID+`"}`, bad, CodeValidation, fieldsOf("account_id", problemAccount), ""),
		pay("another user's account", alice, row2.ID, `{"amount":1,"account_id":"`+bobAcct.ID+`"}`, bad, CodeValidation, fieldsOf("account_id", problemAccount), ""),
		pay("malformed account id", alice, row2.ID, `{"amount":1,"account_id":"abc"}`, bad, CodeValidation, fieldsOf("account_id", problemAccount), ""),
		pay("both cross-record problems", alice, row2.ID, `{"amount":600,"account_id":"`+old.ID+`"}`, bad, CodeValidation,
			fieldsOf("account_id", problemAccount, "amount", "must not exceed the remaining amount 510.00"), ""),
	})
	runRejectedLoans(t, env, []ledgerUser{alice}, []apiScenario{
		{name: "finance:read cannot pay", method: http.MethodPost, url: instanceURL(row2.ID, "payments"), body: `{"amount":1}`,
			headers: bearer(env.createKey(alice.user.ID, auth.ScopeRead)), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
	})

	// A cancelled loan takes no payment.
	alice.patchLoan(t, l.ID, `{"status":"cancelled"}`)
	runRejectedLoans(t, env, []ledgerUser{alice}, []apiScenario{
		pay("cancelled loan", alice, row2.ID, `{"amount":1,"account_id":"`+acct.ID+`"}`, bad, CodeInvalidStatus, nil,
			"Loan is cancelled; payments are recorded only on an active loan"),
	})
}

// Completion is automatic and reverses; the instance state table of §3.6.
func TestLoanInstanceStatusAndCompletion(t *testing.T) {
	env, alice, bob := newLoanEnv(t)
	l := alice.createLoan(t, `{"name":"Small","principal":300,"interest_type":"none","term_months":3,"start_date":"2025-01-15"}`)
	r1, r2, r3 := l.Instances[0].ID, l.Instances[1].ID, l.Instances[2].ID
	alice.payInstance(t, r1, `{"amount":100}`)
	alice.payInstance(t, r2, `{"amount":40}`)

	res := alice.do(t, http.MethodPatch, instanceURL(r2, "status"), `{"status":"paid"}`, http.StatusOK)
	if res.message() != "Loan instance status updated" {
		t.Errorf("message %q", res.message())
	}
	var marked finance.LoanInstanceResult
	res.decodeData(t, &marked)
	if x := marked.Instance; x.Status != finance.InstancePaid || !x.MarkedPaidManually || x.Remaining != 0 || x.PaidTotal != 40_00 ||
		x.ID != r2 || marked.Loan.Status != finance.LoanActive || marked.Loan.PaidCount != 2 {
		t.Errorf("marked paid: %+v, loan %s", x, marked.Loan.Status)
	}
	// Marking paid records no money and no spending.
	if s := alice.summary(t, "2025-03-01", "2025-03-31"); s.TotalSpending != 0 {
		t.Errorf("spending after a manual paid: %s", s.TotalSpending)
	}
	done := alice.setInstanceStatus(t, r3, "waived")
	if done.Instance.Status != finance.InstanceWaived || done.Instance.Remaining != 0 || done.Loan.Status != finance.LoanCompleted ||
		done.Loan.RemainingPayable != 0 || done.Loan.NextDueDate != nil || done.Loan.NextDueAmount != nil || done.Loan.PaidCount != 2 {
		t.Errorf("after the last instance: %+v / %+v", done.Instance, done.Loan)
	}
	st := func(name, id, body string, code string, msg string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPatch, url: instanceURL(id, "status"), body: body,
			wantStatus: http.StatusBadRequest, wantCode: code, wantMessage: msg})
	}
	runRejectedLoans(t, env, []ledgerUser{alice, bob}, []apiScenario{
		st("paid by payments cannot go back", r1, `{"status":"unpaid"}`, CodeInvalidStatus,
			"Loan instance is paid by its payments, which are permanent; it cannot be set back to unpaid"),
		st("same state", r3, `{"status":"waived"}`, CodeInvalidStatus, "Loan instance is already waived"),
		st("waived to paid", r3, `{"status":"paid"}`, CodeInvalidStatus,
			"Loan instance is waived; only an unpaid or partially paid instance can be set to paid"),
		st("partially_paid is computed", r3, `{"status":"partially_paid"}`, CodeValidation, ""),
		st("cancelled is not a target", r3, `{"status":"cancelled"}`, CodeValidation, ""),
		st("missing status", r3, `{}`, CodeValidation, ""),
		bob.sc(apiScenario{name: "another user's instance", method: http.MethodPatch, url: instanceURL(r3, "status"), body: `{"status":"x"}`,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "a completed loan cannot be cancelled", method: http.MethodPatch, url: loansURL + "/" + l.ID,
			body: `{"status":"cancelled"}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "completed cannot be set", method: http.MethodPatch, url: loansURL + "/" + l.ID,
			body: `{"status":"completed"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("status", "cannot be set: a loan completes by itself once every instance is paid or waived")}),
		alice.sc(apiScenario{name: "no payment on a completed loan", method: http.MethodPost, url: instanceURL(r3, "payments"),
			body: `{"amount":1}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
	})

	// Setting the waived instance back to unpaid reopens the loan.
	reopened := alice.setInstanceStatus(t, r3, "unpaid")
	if reopened.Instance.Status != finance.InstanceUnpaid || reopened.Loan.Status != finance.LoanActive ||
		reopened.Loan.NextDueDate.String() != "2025-04-15" || *reopened.Loan.NextDueAmount != 100_00 {
		t.Errorf("reopened: %+v / %+v", reopened.Instance, reopened.Loan)
	}
	// The manually paid instance goes back to what its payments make it.
	back := alice.setInstanceStatus(t, r2, "unpaid")
	if back.Instance.Status != finance.InstancePartiallyPaid || back.Instance.MarkedPaidManually || back.Instance.Remaining != 60_00 ||
		back.Loan.NextDueDate.String() != "2025-03-15" || *back.Loan.NextDueAmount != 60_00 || back.Loan.RemainingPayable != 160_00 {
		t.Errorf("manual paid undone: %+v / %+v", back.Instance, back.Loan.LoanFigures)
	}
	runRejectedLoans(t, env, []ledgerUser{alice}, []apiScenario{
		st("partially paid to unpaid", r2, `{"status":"unpaid"}`, CodeInvalidStatus,
			"Loan instance is partially_paid; only an instance marked paid or waived can be set back to unpaid"),
	})
	// Paying everything that remains completes the loan by payments.
	alice.payInstance(t, r2, `{"amount":60}`)
	last := alice.payInstance(t, r3, `{"amount":100}`)
	if last.Loan.Status != finance.LoanCompleted || last.Loan.PaidTotal != 300_00 || last.Loan.PaidCount != 3 {
		t.Errorf("paid in full: %+v", last.Loan)
	}
	if got := alice.loan(t, l.ID); statuses(got.Instances) != "paid,paid,paid" || got.Status != finance.LoanCompleted {
		t.Errorf("stored %s / %s", got.Status, statuses(got.Instances))
	}
}

// Cancel closes the open instances and keeps their payments; reactivation
// reopens them from their payments (§3.5).
func TestLoanCancelAndReactivate(t *testing.T) {
	env, alice, _ := newLoanEnv(t)
	l := alice.createLoan(t, `{"name":"Gadget","principal":300,"interest_type":"none","term_months":3,"start_date":"2025-01-15"}`)
	r1, r2, r3 := l.Instances[0].ID, l.Instances[1].ID, l.Instances[2].ID
	alice.payInstance(t, r1, `{"amount":100}`)
	alice.payInstance(t, r2, `{"amount":25}`)

	res := alice.do(t, http.MethodPatch, loansURL+"/"+l.ID, `{"status":"cancelled","notes":"sold it"}`, http.StatusOK)
	if res.message() != "Loan updated" {
		t.Errorf("message %q", res.message())
	}
	var cancelled finance.LoanDetail
	res.decodeData(t, &cancelled)
	if cancelled.Status != finance.LoanCancelled || statuses(cancelled.Instances) != "paid,cancelled,cancelled" ||
		cancelled.Notes == nil || *cancelled.Notes != "sold it" || cancelled.PaidTotal != 125_00 || cancelled.RemainingPayable != 0 ||
		cancelled.RemainingPrincipal != 0 || cancelled.NextDueDate != nil || len(cancelled.Instances[1].Payments) != 1 ||
		cancelled.Instances[1].PaidTotal != 25_00 || cancelled.Instances[1].Remaining != 0 || cancelled.Instances[1].IsOverdue {
		t.Errorf("cancelled %+v / %s", cancelled.Loan, statuses(cancelled.Instances))
	}
	runRejectedLoans(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "cancel twice", method: http.MethodPatch, url: loansURL + "/" + l.ID, body: `{"status":"cancelled"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantMessage: "Loan is already cancelled"}),
		alice.sc(apiScenario{name: "instance of a cancelled loan", method: http.MethodPatch, url: instanceURL(r3, "status"), body: `{"status":"waived"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "paid instance of a cancelled loan", method: http.MethodPatch, url: instanceURL(r1, "status"), body: `{"status":"unpaid"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "bad status", method: http.MethodPatch, url: loansURL + "/" + l.ID, body: `{"status":"paused"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("status", "must be one of: active, cancelled")}),
		alice.sc(apiScenario{name: "null name", method: http.MethodPatch, url: loansURL + "/" + l.ID, body: `{"name":null}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("name", problemRequired)}),
	})

	active := alice.patchLoan(t, l.ID, `{"status":"active","lender":"Shop","principal":1}`)
	if active.Status != finance.LoanActive || statuses(active.Instances) != "paid,partially_paid,unpaid" ||
		active.Principal != 300_00 || active.Lender == nil || *active.Lender != "Shop" || active.RemainingPayable != 175_00 ||
		active.Instances[1].Remaining != 75_00 {
		t.Errorf("reactivated %+v / %s", active.Loan, statuses(active.Instances))
	}
	renamed := alice.patchLoan(t, l.ID, `{"name":" Phone ","lender":null}`)
	if renamed.Name != "Phone" || renamed.Lender != nil || renamed.Instances[0].LoanName != "Phone" || renamed.Status != finance.LoanActive {
		t.Errorf("renamed %+v", renamed.Loan)
	}
	runRejectedLoans(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "reactivate an active loan", method: http.MethodPatch, url: loansURL + "/" + l.ID, body: `{"status":"active"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantMessage: "Loan is already active"}),
	})
}

func TestLoanDelete(t *testing.T) {
	env, alice, bob := newLoanEnv(t)
	unpaid := alice.createLoan(t, `{"name":"Unpaid","principal":300,"interest_type":"none","term_months":3,"start_date":"2025-01-15"}`)
	paid := alice.createLoan(t, `{"name":"Paid","principal":300,"interest_type":"none","term_months":3,"start_date":"2025-01-15"}`)
	alice.payInstance(t, paid.Instances[0].ID, `{"amount":1}`)
	alice.patchLoan(t, paid.ID, `{"status":"cancelled"}`)

	runRejectedLoans(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "a loan with payments", method: http.MethodDelete, url: loansURL + "/" + paid.ID,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantMessage: "Loan has payments, which are permanent; cancel the loan instead"}),
		bob.sc(apiScenario{name: "another user's loan", method: http.MethodDelete, url: loansURL + "/" + unpaid.ID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Loan not found"}),
	})
	deleted := send[finance.Loan](t, alice, http.MethodDelete, loansURL+"/"+unpaid.ID, "", http.StatusOK)
	if deleted.ID != unpaid.ID || deleted.Name != "Unpaid" {
		t.Errorf("deleted %+v", deleted)
	}
	alice.do(t, http.MethodGet, loansURL+"/"+unpaid.ID, "", http.StatusNotFound)
	alice.do(t, http.MethodPost, instanceURL(unpaid.Instances[0].ID, "payments"), `{"amount":1}`, http.StatusNotFound)
	st := snapshotLoans(t, env, alice.user.ID)
	if len(st.Loans) != 1 || st.Loans[0].ID != paid.ID || len(st.Instances) != 3 || len(st.Payments) != 1 {
		t.Errorf("after the delete: %d loans, %d instances, %d payments", len(st.Loans), len(st.Instances), len(st.Payments))
	}
}

func TestLoanList(t *testing.T) {
	env, alice, bob := newLoanEnv(t)
	car := alice.createLoan(t, `{"name":"Car","lender":"City Bank","principal":100000,"interest_type":"none","term_months":10,"start_date":"2025-01-15"}`)
	setToday(env, "2025-03-12") // created a day later
	house := alice.createLoan(t, `{"name":"house","principal":500000,"interest_type":"none","term_months":10,"start_date":"2024-06-01","notes":"the big one"}`)
	phone := alice.createLoan(t, `{"name":"Phone","principal":300,"interest_type":"none","term_months":1,"start_date":"2025-02-01"}`)
	alice.payInstance(t, phone.Instances[0].ID, `{"amount":300}`) // completes it
	alice.patchLoan(t, house.ID, `{"status":"cancelled"}`)
	bob.createLoan(t, `{"name":"Car","principal":100,"interest_type":"none","term_months":1,"start_date":"2025-01-15"}`)

	loanIDs := func(items []finance.Loan) []string { return ids(items, func(l finance.Loan) string { return l.ID }) }
	for _, tt := range []struct {
		url  string
		want []string
	}{
		{loansURL, []string{phone.ID, car.ID, house.ID}},
		{loansURL + "?sortOrder=asc", []string{house.ID, car.ID, phone.ID}},
		{loansURL + "?status=active", []string{car.ID}},
		{loansURL + "?status=completed", []string{phone.ID}},
		{loansURL + "?status=cancelled", []string{house.ID}},
		{loansURL + "?dateFrom=2025-01-01&dateTo=2025-01-31", []string{car.ID}},
		{loansURL + "?search=CITY", []string{car.ID}},
		{loansURL + "?search=big", []string{house.ID}},
		{loansURL + "?sortBy=name&sortOrder=asc", []string{car.ID, house.ID, phone.ID}},
		{loansURL + "?sortBy=principal", []string{house.ID, car.ID, phone.ID}},
		{loansURL + "?sortBy=created_at", []string{phone.ID, house.ID, car.ID}},
		{loansURL + "?limit=2&page=2", []string{house.ID}},
	} {
		items, _ := page[finance.Loan](t, alice, tt.url)
		if diff := cmp.Diff(tt.want, loanIDs(items)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.url, diff)
		}
	}
	if _, p := page[finance.Loan](t, alice, loansURL+"?limit=2"); p != (finance.Pagination{Page: 1, Limit: 2, TotalItems: 3, TotalPages: 2}) {
		t.Errorf("pagination %+v", p)
	}
	runScenarios(t, env, []apiScenario{
		alice.sc(apiScenario{name: "bad filters", method: http.MethodGet,
			url:        loansURL + "?status=open&dateFrom=2025-13-01&sortBy=date&sortOrder=up&limit=0",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("status", "must be one of: active, completed, cancelled", "dateFrom", problemDate,
				"sortBy", "must be one of: start_date, name, principal, created_at", "sortOrder", "must be asc or desc",
				"limit", "must be an integer from 1 to 100")}),
		alice.sc(apiScenario{name: "unknown parameter", method: http.MethodGet, url: loansURL + "?cardId=" + unknownID,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
		alice.sc(apiScenario{name: "malformed id", method: http.MethodGet, url: loansURL + "/nope",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Loan not found"}),
		bob.sc(apiScenario{name: "another user's loan", method: http.MethodGet, url: loansURL + "/" + car.ID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's instances", method: http.MethodGet, url: loansURL + "/" + car.ID + "/instances?status=bogus",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
}

func TestLoanInstanceList(t *testing.T) {
	env, alice, _ := newLoanEnv(t)
	// Due 01-15, 02-15, …, 06-15; today is 2025-03-11.
	l := alice.createLoan(t, `{"name":"L","principal":600,"interest_type":"none","term_months":6,"start_date":"2024-12-15"}`)
	in := l.Instances
	alice.payInstance(t, in[0].ID, `{"amount":100}`)
	alice.payInstance(t, in[1].ID, `{"amount":50}`)
	alice.setInstanceStatus(t, in[3].ID, "waived")
	url := loansURL + "/" + l.ID + "/instances"
	idsOf := func(items []finance.LoanInstance) []string {
		return ids(items, func(x finance.LoanInstance) string { return x.ID })
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"", []string{in[0].ID, in[1].ID, in[2].ID, in[3].ID, in[4].ID, in[5].ID}},
		{"?sortBy=due_date&sortOrder=desc&limit=2", []string{in[5].ID, in[4].ID}},
		{"?status=overdue", []string{in[1].ID}},
		{"?status=paid", []string{in[0].ID}},
		{"?status=waived", []string{in[3].ID}},
		{"?status=unpaid", []string{in[2].ID, in[4].ID, in[5].ID}},
		{"?status=partially_paid", []string{in[1].ID}},
		{"?dateFrom=2025-03-01&dateTo=2025-04-30", []string{in[2].ID, in[3].ID}},
		{"?page=3&limit=2", []string{in[4].ID, in[5].ID}},
	} {
		items, _ := page[finance.LoanInstance](t, alice, url+tt.query)
		if diff := cmp.Diff(tt.want, idsOf(items)); diff != "" && !(len(tt.want) == 0 && len(items) == 0) {
			t.Errorf("%s (-want +got):\n%s", tt.query, diff)
		}
	}
	// List items equal the detail's instances, payments and computed fields included.
	items, _ := page[finance.LoanInstance](t, alice, url+"?limit=100")
	if diff := cmp.Diff(alice.loan(t, l.ID).Instances, items, equateDates); diff != "" {
		t.Errorf("list differs from the detail (-detail +list):\n%s", diff)
	}
	if !items[1].IsOverdue || items[1].Remaining != 50_00 || items[0].IsOverdue || items[2].IsOverdue || len(items[1].Payments) != 1 {
		t.Errorf("computed fields %+v", items[:3])
	}
	runScenarios(t, env, []apiScenario{
		alice.sc(apiScenario{name: "bad filters", method: http.MethodGet, url: url + "?status=open&sortBy=amount&dateFrom=2025-04-01&dateTo=2025-03-01",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("status", "must be one of: unpaid, partially_paid, paid, waived, cancelled, overdue",
				"sortBy", "must be one of: installment_number, due_date", "dateFrom", "must not be after dateTo")}),
		alice.sc(apiScenario{name: "unknown loan", method: http.MethodGet, url: loansURL + "/" + unknownID + "/instances",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "search is not a filter here", method: http.MethodGet, url: url + "?search=x",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
	})
}

// GET /loans/current-month-dues (§5.6): active loans' instances due this
// month, paid ones included, and open ones overdue from earlier months; the
// summary covers every match, not the page.
func TestLoanCurrentMonthDues(t *testing.T) {
	env, alice, bob := newLoanEnv(t)
	setToday(env, "2025-03-20")
	const dues = loansURL + "/current-month-dues"
	// Due 01-10, 02-10, 03-10, 04-10: the January one is paid, February's half paid (overdue),
	// March's paid in part (overdue since 03-10), April's not in the window.
	a := alice.createLoan(t, `{"name":"A","principal":400,"interest_type":"none","term_months":4,"start_date":"2024-12-10"}`)
	alice.payInstance(t, a.Instances[0].ID, `{"amount":100}`)
	alice.payInstance(t, a.Instances[1].ID, `{"amount":50}`)
	alice.payInstance(t, a.Instances[2].ID, `{"amount":30}`)
	// Due 03-25 (open, not overdue), 04-25 and 05-25.
	b := alice.createLoan(t, `{"name":"B","principal":1500,"interest_type":"none","term_months":3,"start_date":"2025-02-25","first_due_date":"2025-03-25"}`)
	c := alice.createLoan(t, `{"name":"C","principal":700,"interest_type":"none","term_months":1,"start_date":"2025-02-28","first_due_date":"2025-03-05"}`)
	alice.payInstance(t, c.Instances[0].ID, `{"amount":700}`) // completes C: left out
	// A waived instance due this month and a cancelled loan are left out.
	w := alice.createLoan(t, `{"name":"W","principal":200,"interest_type":"none","term_months":2,"start_date":"2025-02-01"}`)
	alice.setInstanceStatus(t, w.Instances[0].ID, "waived") // due 03-01
	x := alice.createLoan(t, `{"name":"X","principal":200,"interest_type":"none","term_months":1,"start_date":"2025-02-15"}`)
	alice.patchLoan(t, x.ID, `{"status":"cancelled"}`)
	bob.createLoan(t, `{"name":"Bob","principal":200,"interest_type":"none","term_months":1,"start_date":"2025-02-15"}`)
	// An instance due next month, marked paid, stays out of this month's dues.
	alice.payInstance(t, b.Instances[1].ID, `{"amount":200}`)
	alice.setInstanceStatus(t, b.Instances[1].ID, "paid")
	if b.Instances[1].DueDate.String() != "2025-04-25" {
		t.Fatalf("B's second instance is due %s", b.Instances[1].DueDate)
	}

	res := alice.do(t, http.MethodGet, dues, "", http.StatusOK)
	if res.message() != "Loan dues of the current month retrieved" {
		t.Errorf("message %q", res.message())
	}
	var got finance.LoanDues
	res.decodeData(t, &got)
	wantIDs := []string{a.Instances[1].ID, a.Instances[2].ID, b.Instances[0].ID}
	if diff := cmp.Diff(wantIDs, ids(got.Items, func(x finance.LoanInstance) string { return x.ID })); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	want := finance.LoanDuesSummary{DueAmount: 100_00 + 100_00 + 500_00, PaidAmount: 50_00 + 30_00, RemainingAmount: 50_00 + 70_00 + 500_00,
		OverdueAmount: 50_00 + 70_00, Count: 3}
	if got.Month != "2025-03" || got.Currency != "PHP" || got.Summary != want || got.Pagination.TotalItems != 3 {
		t.Errorf("month %s, currency %s, summary %+v (want %+v), pagination %+v", got.Month, got.Currency, got.Summary, want, got.Pagination)
	}
	if x := got.Items[0]; x.LoanName != "A" || !x.IsOverdue || x.Remaining != 50_00 || len(x.Payments) != 1 {
		t.Errorf("first item %+v", x)
	}
	if got.Items[2].IsOverdue || got.Items[2].LoanName != "B" {
		t.Errorf("item due 03-25: %+v", got.Items[2])
	}
	// Paid instances due in the month are included; the summary is over all matches.
	alice.payInstance(t, b.Instances[0].ID, `{"amount":500}`)
	pg := send[finance.LoanDues](t, alice, http.MethodGet, dues+"?limit=1&page=2&sortOrder=desc", "", http.StatusOK)
	want = finance.LoanDuesSummary{DueAmount: 700_00, PaidAmount: 580_00, RemainingAmount: 120_00, OverdueAmount: 120_00, Count: 3}
	if pg.Summary != want || len(pg.Items) != 1 || pg.Items[0].ID != a.Instances[2].ID ||
		pg.Pagination != (finance.Pagination{Page: 2, Limit: 1, TotalItems: 3, TotalPages: 3}) {
		t.Errorf("page 2 of 1: %+v %+v %+v", pg.Summary, ids(pg.Items, func(x finance.LoanInstance) string { return x.ID }), pg.Pagination)
	}
	empty := send[finance.LoanDues](t, alice, http.MethodGet, dues+"?page=9", "", http.StatusOK)
	if len(empty.Items) != 0 || empty.Summary != want {
		t.Errorf("past the end: %+v", empty)
	}
	if other := send[finance.LoanDues](t, bob, http.MethodGet, dues, "", http.StatusOK); other.Summary.Count != 1 || other.Items[0].LoanName != "Bob" {
		t.Errorf("bob's dues %+v", other.Summary)
	}
	runScenarios(t, env, []apiScenario{
		alice.sc(apiScenario{name: "no filters", method: http.MethodGet, url: dues + "?month=2025-03",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
		alice.sc(apiScenario{name: "sorts by due date only", method: http.MethodGet, url: dues + "?sortBy=amount_due",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("sortBy", "must be one of: due_date")}),
	})
}

// Reads take finance:read or loans:write; writes take loans:write only.
func TestLoanRoutesNeedTheirScope(t *testing.T) {
	env, alice, _ := newLoanEnv(t)
	l := alice.createLoan(t, `{"name":"L","principal":300,"interest_type":"none","term_months":3,"start_date":"2025-01-15"}`)
	readKey := env.createKey(alice.user.ID, auth.ScopeRead)
	billsKey := env.createKey(alice.user.ID, auth.ScopeBillsWrite)
	inst := l.Instances[0].ID
	runRejectedLoans(t, env, []ledgerUser{alice}, []apiScenario{
		{name: "finance:read cannot patch", method: http.MethodPatch, url: loansURL + "/" + l.ID, body: `{"name":"X"}`,
			headers: bearer(readKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "finance:read cannot delete", method: http.MethodDelete, url: loansURL + "/" + l.ID,
			headers: bearer(readKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "finance:read cannot set a status", method: http.MethodPatch, url: instanceURL(inst, "status"), body: `{"status":"paid"}`,
			headers: bearer(readKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "bills:write cannot read loans", method: http.MethodGet, url: loansURL,
			headers: bearer(billsKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "bills:write cannot pay", method: http.MethodPost, url: instanceURL(inst, "payments"), body: `{"amount":1}`,
			headers: bearer(billsKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
	})
	for _, url := range []string{loansURL, loansURL + "/" + l.ID, loansURL + "/" + l.ID + "/instances", loansURL + "/current-month-dues"} {
		apiScenario{method: http.MethodGet, url: url, headers: bearer(readKey), wantStatus: http.StatusOK}.run(t, env)
	}
}

// A payment retried with its Idempotency-Key is answered from the first
// response and pays once.
func TestLoanPaymentIdempotent(t *testing.T) {
	env, alice, _ := newLoanEnv(t)
	l := alice.createLoan(t, `{"name":"L","principal":300,"interest_type":"none","term_months":3,"start_date":"2025-01-15"}`)
	sc := alice.sc(apiScenario{method: http.MethodPost, url: instanceURL(l.Instances[0].ID, "payments"), body: `{"amount":40}`,
		wantStatus: http.StatusCreated})
	sc.headers[IdempotencyKeyHeader] = "pay-once"
	first := sc.run(t, env)
	sc.wantHeaders = map[string]string{IdempotentReplayedHeader: "true"}
	again := sc.run(t, env)
	if string(first.env.Data) != string(again.env.Data) {
		t.Errorf("replay differs:\n%s\n%s", first.env.Data, again.env.Data)
	}
	if st := snapshotLoans(t, env, alice.user.ID); len(st.Payments) != 1 || st.Instances[0].PaidTotal != 40_00 {
		t.Errorf("%d payments, paid %s", len(st.Payments), st.Instances[0].PaidTotal)
	}
}

// The interest part of loan payments is spending under Loan Interest in the
// budget of the month it was paid in; the principal part never is.
func TestLoanInterestCountsInBudgets(t *testing.T) {
	env, alice, _ := newLoanEnv(t) // today: 2025-03-11
	alice.key = env.createKey(alice.user.ID, auth.ScopeLoansWrite, auth.ScopeSettingsWrite)
	l := alice.createLoan(t, `{"name":"Car","principal":100000,"interest_type":"diminishing","interest_rate":12,"term_months":12,"start_date":"2025-01-15"}`)
	alice.payInstance(t, l.Instances[0].ID, `{"amount":"600","date":"2025-02-28"}`)     // February: interest only
	alice.payInstance(t, l.Instances[0].ID, `{"amount":"8284.88","date":"2025-03-02"}`) // March: 400.00 interest, 7,884.88 principal
	got := send[finance.BudgetThresholdPage](t, alice, http.MethodPut, thresholdsURL,
		`{"thresholds":[{"category":"Loan Interest","monthly_limit":"500"}]}`, http.StatusOK)
	want := []thresholdItem{{"Loan Interest", "500.00", "400.00", "100.00", 80, "80.00", finance.BudgetWarning}}
	if diff := cmp.Diff(want, thresholdItems(got)); diff != "" {
		t.Errorf("March (-want +got):\n%s", diff)
	}
	feb := send[finance.BudgetThresholdPage](t, alice, http.MethodGet, thresholdsURL+"?month=2025-02", "", http.StatusOK)
	if diff := cmp.Diff([]thresholdItem{{"Loan Interest", "500.00", "600.00", "-100.00", 80, "120.00", finance.BudgetExceeded}},
		thresholdItems(feb)); diff != "" {
		t.Errorf("February (-want +got):\n%s", diff)
	}
}
