package web_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// The new loan form's schedule preview, editing an unpaid loan's terms, and
// marking past installments paid in one step. Today is 2025-03-15.

func carLoanForm(token string) url.Values {
	return url.Values{"csrf": {token}, "name": {"Car loan"}, "lender": {"Bank"}, "principal": {"100,000"}, "interest_type": {"diminishing"},
		"interest_rate": {"12"}, "rate_period": {""}, "term_months": {"12"}, "start_date": {"2025-02-15"}, "first_due_date": {""},
		"monthly_amount": {""}, "notes": {"Plate ABC 123"}}
}

// createLoan creates the loan of the POST /loans body for u.
func createLoan(t *testing.T, env *testEnv, u finance.User, body string) finance.LoanDetail {
	t.Helper()
	var req finance.LoanRequest
	fromJSON(t, body, &req)
	l, err := env.srv.Ledger().CreateLoan(context.Background(), u.ID, req)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLoanPreviewBeforeSaving(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.LoanNewPath)
	for _, want := range []string{`formaction="/loans/new#preview">Preview schedule</button>`, `<button type="submit" class="button">Save loan</button>`} {
		if !page.Contains(want) {
			t.Errorf("new loan form lacks %s", want)
		}
	}
	token := testkit.CSRF(t, page)

	// The preview: the schedule the save would write, under the form as typed; nothing saved.
	x := b.Post(web.LoanNewPath, carLoanForm(token))
	if x.Status != http.StatusOK {
		t.Fatalf("preview: %d\n%s", x.Status, x.Body)
	}
	testkit.CheckPageHeaders(t, x)
	body := testkit.Unescaped(x)
	for _, want := range []string{`<h2 id="preview-heading">Schedule preview</h2>`, "<dt>Total paid</dt><dd>₱106,618.53</dd>",
		"<dt>Total interest</dt><dd>₱6,618.53</dd>", "<dt>Installments</dt><dd>12</dd>",
		`<td data-label="Principal" class="num">₱7,884.88</td>`, `<td data-label="Interest" class="num">₱1,000.00</td>`,
		`<td data-label="Amount" class="num">₱8,884.85</td>`, `<td data-label="Due">2025-03-15</td>`,
		`id="n-name" name="name" maxlength="100" value="Car loan"`, `value="100000.00"`, `value="diminishing" checked`, ">Plate ABC 123</textarea>",
		`action="/loans"`, `name="once"`, "Save loan"} {
		if !strings.Contains(body, want) {
			t.Errorf("preview lacks %q", want)
		}
	}
	if n := strings.Count(body, `<th scope="row" data-label="No.">`); n != 12 {
		t.Errorf("%d preview rows, want 12", n)
	}
	if n := len(loansOf(t, env, u)); n != 0 {
		t.Fatalf("a preview wrote %d loans", n)
	}
	// The saved loan has the schedule the preview showed.
	if x := b.Post(web.LoansPath, carLoanForm(token)); x.Status != http.StatusSeeOther {
		t.Fatalf("save: %d\n%s", x.Status, x.Body)
	}
	ls := loansOf(t, env, u)
	if len(ls) != 1 || ls[0].TotalInterest != 661853 || ls[0].Principal != 10000000 {
		t.Fatalf("saved %+v", ls)
	}

	// Without interest the preview has no principal and interest columns.
	f := carLoanForm(token)
	f.Set("interest_type", "none")
	f.Set("interest_rate", "")
	f.Set("principal", "1000")
	f.Set("term_months", "3")
	none := testkit.Unescaped(b.Post(web.LoanNewPath, f))
	if !strings.Contains(none, `<td data-label="Amount" class="num">₱333.34</td>`) || strings.Contains(none, `data-label="Interest"`) ||
		!strings.Contains(none, "<dt>Total interest</dt><dd>₱0.00</dd>") {
		t.Errorf("no-interest preview:\n%s", none)
	}

	// An invalid field is shown beside it instead of a preview; nothing is written.
	bad := carLoanForm(token)
	bad.Set("term_months", "0")
	bad.Set("name", "")
	x = b.Post(web.LoanNewPath, bad)
	body = testkit.Unescaped(x)
	if x.Status != http.StatusBadRequest || !strings.Contains(body, `id="n-term-error">Term must be an integer from 1 to 360<`) ||
		!strings.Contains(body, `id="n-name-error">Name is required<`) || strings.Contains(body, "Schedule preview") ||
		!strings.Contains(body, "No schedule yet.") || !strings.Contains(body, `value="100000.00"`) {
		t.Errorf("invalid preview: %d\n%s", x.Status, body)
	}
	if x := b.Post(web.LoanNewPath, url.Values{"name": {"X"}}); x.Status != http.StatusForbidden {
		t.Errorf("preview without a form token: %d", x.Status)
	}
	if n := len(loansOf(t, env, u)); n != 1 {
		t.Errorf("refused previews wrote loans: %d", n)
	}
}

func TestLoanEditTermsWhileUnpaid(t *testing.T) {
	env, u, b := webApp(t)
	created := createLoan(t, env, u, `{"name":"Phone","principal":"12000","interest_type":"none","term_months":12,"start_date":"2025-01-10"}`)
	path := web.LoansPath + "/" + created.ID
	page := b.Get(path)
	token := testkit.CSRF(t, page)
	form := func() url.Values {
		return url.Values{"csrf": {token}, "name": {"Phone"}, "lender": {""}, "principal": {"12,000.00"}, "interest_type": {"none"},
			"interest_rate": {""}, "rate_period": {""}, "term_months": {"6"}, "start_date": {"2025-01-10"}, "first_due_date": {"2025-02-10"},
			"monthly_amount": {""}, "notes": {""}}
	}

	bad := form()
	bad.Set("term_months", "400")
	x := b.Post(path, bad)
	if body := testkit.Unescaped(x); x.Status != http.StatusBadRequest || !strings.Contains(body, `id="e-term-error">Term must be an integer from 1 to 360<`) ||
		!strings.Contains(body, `id="e-term" name="term_months" inputmode="numeric" autocomplete="off" value="400"`) {
		t.Errorf("a term of 400: %d\n%s", x.Status, body)
	}
	if l := loanOf(t, env, u, created.ID); len(l.Instances) != 12 || l.Instances[0].ID != created.Instances[0].ID {
		t.Fatalf("a refused edit changed the schedule: %d instances", len(l.Instances))
	}

	x = b.Post(path, form())
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != path+"?notice=loan-saved" {
		t.Fatalf("edit: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	l := loanOf(t, env, u, created.ID)
	if l.TermMonths != 6 || len(l.Instances) != 6 || l.Instances[0].AmountDue != 200000 || l.Instances[5].DueDate.String() != "2025-07-10" {
		t.Fatalf("after the edit: %+v, %d instances", l.Loan, len(l.Instances))
	}
	for _, x := range l.Instances {
		if slices.ContainsFunc(created.Instances, func(o finance.LoanInstance) bool { return o.ID == x.ID }) {
			t.Errorf("installment %d kept its old id", x.InstallmentNumber)
		}
	}
	after := testkit.Unescaped(b.Get(path + "?notice=loan-saved"))
	if !strings.Contains(after, "Loan saved.") || strings.Count(after, `<tr id="installment-`) != 6 ||
		!strings.Contains(after, `id="e-term" name="term_months" inputmode="numeric" autocomplete="off" value="6"`) {
		t.Errorf("the page after the edit:\n%s", after)
	}
}

func TestLoanMarkPastInstallmentsPaid(t *testing.T) {
	env, u, b := webApp(t)
	created := createLoan(t, env, u, `{"name":"Phone","principal":"12000","interest_type":"none","term_months":12,"start_date":"2024-12-15"}`)
	path := web.LoansPath + "/" + created.ID
	page := b.Get(path)
	body := testkit.Unescaped(page)
	for _, want := range []string{`<h2 id="past-heading">Past installments</h2>`, "3 installments were due by today",
		`action="/loans/` + created.ID + `/mark-paid"`, `<option value="2025-01-15">Installment 1 · due 2025-01-15</option>`,
		`<option value="2025-03-15" selected>Installment 3 · due 2025-03-15</option>`} {
		if !strings.Contains(body, want) {
			t.Errorf("loan page lacks %q", want)
		}
	}
	if strings.Contains(body, "Installment 4 · due 2025-04-15</option>") {
		t.Error("an installment not yet due is offered")
	}
	token := testkit.CSRF(t, page)
	mark := func(through string) testkit.Exchange {
		return b.Post(path+"/mark-paid", url.Values{"csrf": {token}, "through": {through}})
	}
	if x := b.Post(path+"/mark-paid", url.Values{"through": {"2025-02-15"}}); x.Status != http.StatusForbidden {
		t.Errorf("without a form token: %d", x.Status)
	}
	x := mark("2025-04-15")
	if body := testkit.Unescaped(x); x.Status != http.StatusBadRequest ||
		!strings.Contains(body, `id="past-through-error">Through must be on or before today, 2025-03-15: installments not yet due are paid one by one<`) {
		t.Errorf("through a future date: %d\n%s", x.Status, body)
	}
	if l := loanOf(t, env, u, created.ID); l.PaidCount != 0 {
		t.Fatalf("a refused mark changed %d installments", l.PaidCount)
	}

	x = mark("2025-02-15")
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != path+"?notice=installments-marked" {
		t.Fatalf("mark: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	l := loanOf(t, env, u, created.ID)
	var got []string
	for _, x := range l.Instances[:4] {
		got = append(got, x.Status)
		if x.Status == finance.InstancePaid && (!x.MarkedPaidManually || len(x.Payments) != 0) {
			t.Errorf("installment %d: %+v", x.InstallmentNumber, x.LoanInstanceFigures)
		}
	}
	if strings.Join(got, ",") != "paid,paid,unpaid,unpaid" {
		t.Errorf("statuses %s", got)
	}
	after := testkit.Unescaped(b.Get(path + "?notice=installments-marked"))
	if !strings.Contains(after, "Past installments marked paid.") || !strings.Contains(after, "1 installment was due by today") {
		t.Errorf("the page after marking:\n%s", after)
	}
	if x := mark("2025-02-15"); x.Header.Get("Location") != path+"?notice=installments-none-open" {
		t.Errorf("again: %d to %q", x.Status, x.Header.Get("Location"))
	}
}
