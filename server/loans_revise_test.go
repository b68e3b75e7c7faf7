package server

import (
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// The broad update of a loan and marking past installments paid in one
// step (domain.md, "Changing a loan's terms while nothing is paid" and
// "Marking past installments paid in one step"). Today is 2025-03-11.

const phoneLoan = `{"name":"Phone","principal":12000,"interest_type":"none","term_months":12,"start_date":"2024-12-11"}`

func (u ledgerUser) putLoan(t testing.TB, id, body string) finance.LoanDetail {
	t.Helper()
	return send[finance.LoanDetail](t, u, http.MethodPut, loansURL+"/"+id, body, http.StatusOK)
}

func markPaidURL(loanID string) string { return loansURL + "/" + loanID + "/instances/mark-paid" }

// loanSummaries are the activity summaries of the user's entries on kind, oldest first.
func loanSummaries(t testing.TB, env *testEnv, userID, kind string) []string {
	t.Helper()
	var out []string
	for _, a := range activityOf(t, env, userID, finance.ActivityFilter{Kind: kind}) {
		out = append(out, a.Summary)
	}
	slices.Reverse(out)
	return out
}

func instanceIDs(in []finance.LoanInstance) []string {
	ids := make([]string, len(in))
	for i, x := range in {
		ids[i] = x.ID
	}
	return ids
}

func TestLoanReplaceRebuildsTheScheduleWhileUnpaid(t *testing.T) {
	env, alice, bob := newLoanEnv(t)
	l := alice.createLoan(t, phoneLoan)
	old := instanceIDs(l.Instances)

	res := alice.do(t, http.MethodPut, loansURL+"/"+l.ID,
		`{"name":"Phone","principal":12000,"interest_type":"none","term_months":6,"start_date":"2024-12-11"}`, http.StatusOK)
	if res.message() != "Loan updated" {
		t.Errorf("message %q", res.message())
	}
	var got finance.LoanDetail
	res.decodeData(t, &got)
	want := []string{"1 2025-01-11 2000.00=2000.00+0.00 unpaid", "2 2025-02-11 2000.00=2000.00+0.00 unpaid",
		"3 2025-03-11 2000.00=2000.00+0.00 unpaid", "4 2025-04-11 2000.00=2000.00+0.00 unpaid",
		"5 2025-05-11 2000.00=2000.00+0.00 unpaid", "6 2025-06-11 2000.00=2000.00+0.00 unpaid"}
	if diff := strings.Join(instanceLines(got.Instances), "\n"); diff != strings.Join(want, "\n") {
		t.Errorf("instances after term 6:\n%s", diff)
	}
	if got.TermMonths != 6 || got.TotalPayable != 12000_00 || got.ID != l.ID {
		t.Errorf("loan after term 6: %+v", got.Loan)
	}
	// The database holds the six new instances, none of the old twelve.
	st := snapshotLoans(t, env, alice.user.ID)
	if len(st.Instances) != 6 {
		t.Fatalf("%d instances stored, want 6", len(st.Instances))
	}
	for _, x := range st.Instances {
		if slices.Contains(old, x.ID) {
			t.Errorf("instance %d kept its old id", x.InstallmentNumber)
		}
	}
	if s := loanSummaries(t, env, alice.user.ID, finance.RecordLoan); len(s) != 2 || s[1] != `Loan "Phone": term months 12 → 6` {
		t.Errorf("activity %q", s)
	}

	// Diminishing at 12% a year over 12 months from 100,000.00: the worked example of create.
	dim := alice.putLoan(t, l.ID, `{"name":"Phone","principal":100000,"interest_type":"diminishing","interest_rate":12,
		"term_months":12,"start_date":"2025-01-15"}`)
	if dim.TotalInterest != 6618_53 || len(dim.Instances) != 12 || dim.Instances[0].AmountDue != 8884_88 ||
		dim.Instances[11].AmountDue != 8884_85 || dim.Instances[0].DueDate.String() != "2025-02-15" || *dim.RatePeriod != finance.RateAnnual {
		t.Errorf("diminishing: %+v\n%s", dim.Loan, instanceLines(dim.Instances))
	}
	// The same terms with a new name and notes keep the instances as they are, and log the name only.
	kept := instanceIDs(dim.Instances)
	renamed := alice.putLoan(t, l.ID, `{"name":"Phone (Globe)","notes":"Plan 999","principal":100000,"interest_type":"diminishing",
		"interest_rate":12,"term_months":12,"start_date":"2025-01-15"}`)
	if !slices.Equal(instanceIDs(renamed.Instances), kept) || renamed.Name != "Phone (Globe)" || *renamed.Notes != "Plan 999" {
		t.Errorf("a rename rebuilt the schedule or missed: %+v", renamed.Loan)
	}
	before := loanSummaries(t, env, alice.user.ID, finance.RecordLoan)
	if last := before[len(before)-1]; last != `Loan "Phone (Globe)": name "Phone" → "Phone (Globe)", notes` {
		t.Errorf("rename logged %q", last)
	}
	alice.putLoan(t, l.ID, `{"name":"Phone (Globe)","notes":"Plan 999","principal":100000,"interest_type":"diminishing",
		"interest_rate":12,"term_months":12,"start_date":"2025-01-15"}`)
	if after := loanSummaries(t, env, alice.user.ID, finance.RecordLoan); len(after) != len(before) {
		t.Errorf("a PUT that changed nothing logged %q", after[len(after)-1])
	}

	// Refusals write nothing: bad input names the field, another user's loan is not found.
	put := func(name, body string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPut, url: loansURL + "/" + l.ID, body: body,
			wantStatus: status, wantCode: code, wantFields: fields})
	}
	runRejectedLoans(t, env, []ledgerUser{alice, bob}, []apiScenario{
		put("term of 0", `{"name":"Phone","principal":12000,"interest_type":"none","term_months":0,"start_date":"2024-12-11"}`,
			http.StatusBadRequest, CodeValidation, map[string]string{"term_months": "must be an integer from 1 to 360"}),
		put("no principal", `{"name":"Phone","interest_type":"none","term_months":6,"start_date":"2024-12-11"}`,
			http.StatusBadRequest, CodeValidation, map[string]string{"principal": "is required"}),
		put("a rate without interest", `{"name":"Phone","principal":12000,"interest_type":"none","interest_rate":5,"term_months":6,
			"start_date":"2024-12-11"}`, http.StatusBadRequest, CodeValidation,
			map[string]string{"interest_rate": "must be absent when interest_type is none"}),
		bob.sc(apiScenario{name: "another user's loan", method: http.MethodPut, url: loansURL + "/" + l.ID, body: phoneLoan,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})

	// Once an installment is marked paid the money terms stay: the refusal
	// names each term that would change; the name still changes.
	alice.setInstanceStatus(t, kept[0], finance.InstancePaid)
	fixed := "cannot change: the loan has installments paid, marked paid or waived"
	runRejectedLoans(t, env, []ledgerUser{alice, bob}, []apiScenario{
		put("a principal after a payment", `{"name":"Phone (Globe)","principal":90000,"interest_type":"diminishing","interest_rate":12,
			"term_months":24,"start_date":"2025-01-15"}`, http.StatusBadRequest, CodeInvalidStatus,
			map[string]string{"principal": fixed, "term_months": fixed}),
	})
	res = alice.sc(apiScenario{method: http.MethodPut, url: loansURL + "/" + l.ID, body: `{"name":"P","principal":1,
		"interest_type":"none","term_months":1,"start_date":"2025-01-15"}`, wantStatus: http.StatusBadRequest}).run(t, env)
	if res.env.Error == nil || res.env.Error.Message != "The loan has installments paid, marked paid or waived; its amounts, rate and dates stay as they are" {
		t.Errorf("refusal %s", res.raw)
	}
	named := alice.putLoan(t, l.ID, `{"name":"Phone 2","principal":100000,"interest_type":"diminishing","interest_rate":12,
		"term_months":12,"start_date":"2025-01-15"}`)
	if named.Name != "Phone 2" || !slices.Equal(instanceIDs(named.Instances), kept) || named.Instances[0].Status != finance.InstancePaid ||
		named.Notes != nil {
		t.Errorf("a rename after a payment: %+v %s", named.Loan, statuses(named.Instances))
	}

	// A cancelled loan's terms stay too, even with nothing paid.
	c := alice.createLoan(t, phoneLoan)
	alice.patchLoan(t, c.ID, `{"status":"cancelled"}`)
	runRejectedLoans(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "a cancelled loan", method: http.MethodPut, url: loansURL + "/" + c.ID,
			body: strings.Replace(phoneLoan, `"term_months":12`, `"term_months":6`, 1), wantStatus: http.StatusBadRequest,
			wantCode: CodeInvalidStatus, wantFields: map[string]string{"term_months": "cannot change: the loan is cancelled"}}),
	})
}

// Marking past installments paid in one step changes each exactly as the
// status route does one by one, by the same code: same statuses, same
// amounts, no payment, no account line, one log entry each.
func TestLoanMarkPastInstancesPaid(t *testing.T) {
	env, alice, bob := newLoanEnv(t)
	alice.createAccount(t, `{"name":"Wallet","type":"cash","balance":"5000"}`)
	bulk, single := alice.createLoan(t, phoneLoan), alice.createLoan(t, phoneLoan)
	for _, l := range []finance.LoanDetail{bulk, single} {
		alice.payInstance(t, l.Instances[1].ID, `{"amount":400}`) // installment 2 partly paid in cash
	}
	ledgerBefore := snapshotLedger(t, env, alice.user.ID)

	res := alice.do(t, http.MethodPost, markPaidURL(bulk.ID), `{"through":"2025-03-11"}`, http.StatusOK)
	if res.message() != "Loan instances marked paid" {
		t.Errorf("message %q", res.message())
	}
	var out finance.LoanMarkPaidResult
	res.decodeData(t, &out)
	var numbers []int
	for _, x := range out.Instances {
		numbers = append(numbers, x.InstallmentNumber)
		if x.Status != finance.InstancePaid || !x.MarkedPaidManually || x.Remaining != 0 || x.LoanID != bulk.ID {
			t.Errorf("instance %d: %+v", x.InstallmentNumber, x)
		}
	}
	if !slices.Equal(numbers, []int{1, 2, 3}) || out.Instances[1].PaidTotal != 400_00 || out.Loan.PaidCount != 3 ||
		out.Loan.Status != finance.LoanActive || out.Loan.NextDueDate.String() != "2025-04-11" {
		t.Errorf("answer: %v, loan %+v", numbers, out.Loan)
	}
	for _, n := range []int{0, 1, 2} {
		alice.setInstanceStatus(t, single.Instances[n].ID, finance.InstancePaid)
	}
	b, s := alice.loan(t, bulk.ID), alice.loan(t, single.ID)
	for i := range b.Instances {
		x, y := b.Instances[i], s.Instances[i]
		if x.Status != y.Status || x.MarkedPaidManually != y.MarkedPaidManually || x.PaidTotal != y.PaidTotal ||
			x.PaidInterest != y.PaidInterest || x.PaidPrincipal != y.PaidPrincipal || len(x.Payments) != len(y.Payments) {
			t.Errorf("installment %d marked in one step %+v, one by one %+v", i+1, x.LoanInstanceFigures, y.LoanInstanceFigures)
		}
	}
	if statuses(b.Instances) != "paid,paid,paid"+strings.Repeat(",unpaid", 9) {
		t.Errorf("statuses %s", statuses(b.Instances))
	}
	if diff := cmp.Diff(ledgerBefore, snapshotLedger(t, env, alice.user.ID)); diff != "" {
		t.Errorf("marking paid moved money:\n%s", diff)
	}
	if st := snapshotLoans(t, env, alice.user.ID); len(st.Payments) != 2 {
		t.Errorf("%d payments, want the 2 cash ones", len(st.Payments))
	}
	logged := loanSummaries(t, env, alice.user.ID, finance.RecordLoanInstance)
	wantLog := []string{
		`Loan "Phone" installment 1 due 2025-01-11: status unpaid → paid`,
		`Loan "Phone" installment 2 due 2025-02-11: status partially_paid → paid`,
		`Loan "Phone" installment 3 due 2025-03-11: status unpaid → paid`,
	}
	if !slices.Equal(logged, append(slices.Clone(wantLog), wantLog...)) {
		t.Errorf("activity of the instances:\n%s", strings.Join(logged, "\n"))
	}

	// Again: nothing open is due by then, so nothing is written.
	before := snapshotLoans(t, env, alice.user.ID)
	var again finance.LoanMarkPaidResult
	alice.do(t, http.MethodPost, markPaidURL(bulk.ID), `{"through":"2025-03-11"}`, http.StatusOK).decodeData(t, &again)
	if len(again.Instances) != 0 || again.Loan.PaidCount != 3 {
		t.Errorf("a repeat answered %+v", again)
	}
	if n := len(loanSummaries(t, env, alice.user.ID, finance.RecordLoanInstance)); n != 6 {
		t.Errorf("a repeat logged: %d entries", n)
	}
	if after := snapshotLoans(t, env, alice.user.ID); !slices.EqualFunc(before.Instances, after.Instances,
		func(a, b finance.LoanInstance) bool { return a.UpdatedAt.Equal(b.UpdatedAt) && a.Status == b.Status }) {
		t.Error("a repeat rewrote instances")
	}

	cancelled := alice.createLoan(t, phoneLoan)
	alice.patchLoan(t, cancelled.ID, `{"status":"cancelled"}`)
	mark := func(name, id, body string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: markPaidURL(id), body: body,
			wantStatus: status, wantCode: code, wantFields: fields})
	}
	runRejectedLoans(t, env, []ledgerUser{alice, bob}, []apiScenario{
		mark("after today", single.ID, `{"through":"2025-04-11"}`, http.StatusBadRequest, CodeValidation,
			map[string]string{"through": "must be on or before today, 2025-03-11: installments not yet due are paid one by one"}),
		mark("no date", single.ID, `{}`, http.StatusBadRequest, CodeValidation, map[string]string{"through": "is required"}),
		mark("not a date", single.ID, `{"through":"March"}`, http.StatusBadRequest, CodeValidation, nil),
		mark("a cancelled loan", cancelled.ID, `{"through":"2025-03-11"}`, http.StatusBadRequest, CodeInvalidStatus, nil),
		bob.sc(apiScenario{name: "another user's loan", method: http.MethodPost, url: markPaidURL(single.ID),
			body: `{"through":"2025-03-11"}`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		{name: "finance:read cannot mark", method: http.MethodPost, url: markPaidURL(single.ID), body: `{"through":"2025-03-11"}`,
			headers: bearer(env.createKey(alice.user.ID, auth.ScopeRead)), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "finance:read cannot put", method: http.MethodPut, url: loansURL + "/" + single.ID, body: phoneLoan,
			headers: bearer(env.createKey(alice.user.ID, auth.ScopeRead)), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
	})

	// The last open installments marked paid complete the loan.
	short := alice.createLoan(t, `{"name":"Short","principal":200,"interest_type":"none","term_months":2,"start_date":"2024-12-01"}`)
	var done finance.LoanMarkPaidResult
	alice.do(t, http.MethodPost, markPaidURL(short.ID), `{"through":"2025-03-11"}`, http.StatusOK).decodeData(t, &done)
	if len(done.Instances) != 2 || done.Loan.Status != finance.LoanCompleted {
		t.Errorf("a fully marked loan: %d instances, %s", len(done.Instances), done.Loan.Status)
	}
}

// Two requests marking the same installments at once: the writes run one
// after the other, so one marks them and the other finds nothing open.
func TestLoanMarkPaidTwiceAtOnceWritesOnce(t *testing.T) {
	env, alice, _ := newLoanEnv(t)
	l := alice.createLoan(t, phoneLoan)
	var wg sync.WaitGroup
	results := make([]finance.LoanMarkPaidResult, 2)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := alice.sc(apiScenario{method: http.MethodPost, url: markPaidURL(l.ID), body: `{"through":"2025-03-11"}`}).run(t, env)
			if res.status != http.StatusOK {
				t.Errorf("status %d: %s", res.status, res.raw)
				return
			}
			res.decodeData(t, &results[i])
		}()
	}
	wg.Wait()
	got := []int{len(results[0].Instances), len(results[1].Instances)}
	slices.Sort(got)
	if !slices.Equal(got, []int{0, 3}) {
		t.Errorf("instances changed by the two requests: %v", got)
	}
	if n := len(loanSummaries(t, env, alice.user.ID, finance.RecordLoanInstance)); n != 3 {
		t.Errorf("%d activity entries, want 3", n)
	}
	if s := statuses(alice.loan(t, l.ID).Instances); s != "paid,paid,paid"+strings.Repeat(",unpaid", 9) {
		t.Errorf("statuses %s", s)
	}
}
