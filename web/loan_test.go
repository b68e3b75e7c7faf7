package web_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// loansOf lists every loan of the user from the ledger.
func loansOf(t *testing.T, env *testEnv, u finance.User) []finance.Loan {
	t.Helper()
	p, err := env.srv.Ledger().ListLoans(context.Background(), u.ID, finance.LoanFilter{}, finance.ListParams{Page: 1, Limit: 100, SortBy: "start_date"})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func loanOf(t *testing.T, env *testEnv, u finance.User, id string) finance.LoanDetail {
	t.Helper()
	l, err := env.srv.Ledger().GetLoan(context.Background(), u.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestLoanCreate(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.LoanNewPath)
	if page.Status != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", web.LoanNewPath, page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)
	for _, want := range []string{`value="diminishing" checked`, `name="start_date" value="2025-03-15"`, `action="/loans"`,
		`aria-current="page">Loans</a>`, `<label for="n-principal">`} {
		if !page.Contains(want) {
			t.Errorf("new loan form lacks %s", want)
		}
	}
	token := testkit.CSRF(t, page)
	valid := func() url.Values {
		return url.Values{"csrf": {token}, "name": {"Car loan"}, "lender": {"Bank"}, "principal": {"100000"}, "interest_type": {"diminishing"},
			"interest_rate": {"12"}, "rate_period": {""}, "term_months": {"12"}, "start_date": {"2025-02-15"}, "first_due_date": {""},
			"monthly_amount": {""}, "notes": {""}}
	}
	refused := []struct {
		name   string
		edit   func(url.Values)
		status int
		want   []string
	}{
		{"no form token", func(f url.Values) { f.Del("csrf") }, http.StatusForbidden, []string{"This form has expired"}},
		{"nothing", func(f url.Values) {
			for _, k := range []string{"name", "principal", "term_months", "start_date", "interest_rate"} {
				f.Set(k, "")
			}
		}, http.StatusBadRequest, []string{`id="n-name-error">Name is required<`, `id="n-principal-error">Principal is required<`,
			`id="n-term-error">Term is required<`, `id="n-start-error">Start date is required<`,
			`id="n-rate-error">Interest rate is required when interest_type is diminishing<`, `value="Bank"`}},
		{"a rate without interest", func(f url.Values) { f.Set("interest_type", "none") }, http.StatusBadRequest,
			[]string{`id="n-rate-error">Interest rate must be absent when interest_type is none<`, `value="none" checked`}},
		{"too long a term", func(f url.Values) { f.Set("term_months", "361") }, http.StatusBadRequest,
			[]string{`id="n-term-error">Term must be an integer from 1 to 360<`, `value="361"`}},
		{"first due before release", func(f url.Values) { f.Set("first_due_date", "2025-02-01") }, http.StatusBadRequest,
			[]string{`id="n-first-error">First due date must be after start_date 2025-02-15<`}},
		{"a quote below the first interest", func(f url.Values) { f.Set("monthly_amount", "500") }, http.StatusBadRequest,
			[]string{`id="n-monthly-error">Monthly amount `}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			f := valid()
			tc.edit(f)
			x := b.Post(web.LoansPath, f)
			if x.Status != tc.status {
				t.Errorf("status %d, want %d\n%s", x.Status, tc.status, x.Body)
			}
			for _, want := range tc.want {
				if !strings.Contains(testkit.Unescaped(x), want) {
					t.Errorf("page lacks %q", want)
				}
			}
			if n := len(loansOf(t, env, u)); n != 0 {
				t.Fatalf("a refused form wrote %d loans", n)
			}
		})
	}

	// 100,000.00 at 12% a year over 12 months (domain.md §4.5): M = 8,884.88.
	x := b.Post(web.LoansPath, valid())
	ls := loansOf(t, env, u)
	if len(ls) != 1 {
		t.Fatalf("loans %+v", ls)
	}
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoansPath+"/"+ls[0].ID+"?notice=loan-created" {
		t.Fatalf("create: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	l := loanOf(t, env, u, ls[0].ID)
	if l.Principal != 10000000 || *l.RatePeriod != finance.RateAnnual || l.TotalInterest != 661853 || len(l.Instances) != 12 ||
		l.Instances[0].AmountDue != 888488 || l.Instances[0].DueDate.String() != "2025-03-15" || *l.Lender != "Bank" || l.Notes != nil {
		t.Errorf("loan %+v", l.Loan)
	}
	after := testkit.Unescaped(b.Get(x.Header.Get("Location")))
	for _, want := range []string{"Loan created. This is its schedule.", "<h1>Car loan</h1>", "<dt>Interest</dt><dd>Diminishing balance, 12% a year</dd>",
		`<td data-label="Principal" class="num">₱7,884.88</td>`, `<td data-label="Amount" class="num">₱8,884.85</td>`,
		"<dt>Total payable</dt><dd>₱106,618.53</dd>"} {
		if !strings.Contains(after, want) {
			t.Errorf("the new loan's page lacks %q", want)
		}
	}
	if n := strings.Count(after, `<tr id="installment-`); n != 12 {
		t.Errorf("%d schedule rows, want 12", n)
	}

	// Add-on with the lender's quoted amount: the schedule follows it.
	f := valid()
	f.Set("name", "Appliance")
	f.Set("interest_type", "add_on")
	f.Set("interest_rate", "")
	f.Set("monthly_amount", "9850")
	if x := b.Post(web.LoansPath, f); x.Status != http.StatusSeeOther {
		t.Fatalf("add-on: %d\n%s", x.Status, x.Body)
	}
	for _, l := range loansOf(t, env, u) {
		if l.Name == "Appliance" && (l.TotalInterest != 1820000 || l.InterestType != finance.InterestAddOn) {
			t.Errorf("add-on loan %+v", l)
		}
	}
}

func TestLoanPage(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	var req finance.LoanRequest
	fromJSON(t, `{"name":"Car loan","principal":"100000","interest_type":"diminishing","interest_rate":"12","term_months":12,
		"start_date":"2025-02-15"}`, &req)
	created, err := env.srv.Ledger().CreateLoan(ctx, u.ID, req)
	if err != nil {
		t.Fatal(err)
	}
	path := web.LoansPath + "/" + created.ID
	in := created.Instances

	page := b.Get(path)
	if page.Status != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", path, page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)
	body := testkit.Unescaped(page)
	for _, want := range []string{`href="/loans">Loans</a>`, "Installment 1 · due 2025-03-15", `action="/loans/instances/` + in[0].ID + `/pay"`,
		`<input type="hidden" name="from" value="loan">`, `id="pay-amount" name="amount" inputmode="decimal" autocomplete="off" value="8884.88"`,
		`<option value="">None (cash)</option>`, `aria-current="true"><span class="sr-only">Installment </span>1</a>`, "Mark paid without money",
		"Waive the rest", "Cancel the loan", "Delete the loan", "Edit the loan", `<input type="text" id="e-name" name="name" maxlength="100" value="Car loan"`,
		`id="e-principal" name="principal" inputmode="decimal" autocomplete="off" value="100000.00"`, `id="e-rate" name="interest_rate" inputmode="decimal" autocomplete="off" value="12"`,
		`id="e-first" name="first_due_date" value="2025-03-15"`, `<option value="annual" selected>Year</option>`} {
		if !strings.Contains(body, want) {
			t.Errorf("loan page lacks %q", want)
		}
	}
	if x := b.Get(path + "?installment=2"); !strings.Contains(testkit.Unescaped(x), "Installment 2 · due 2025-04-15") {
		t.Errorf("?installment=2 does not pick the second installment")
	}
	for name, target := range map[string]string{"unknown": web.LoansPath + "/0190f1a2-0000-7000-8000-000000000000", "malformed": web.LoansPath + "/nope"} {
		if x := b.Get(target); x.Status != http.StatusNotFound || !x.Contains("Loan not found") {
			t.Errorf("%s loan: %d", name, x.Status)
		}
	}
	other := env.createUser(finance.PlanFree)
	ob := env.browser(t)
	ob.SignIn(other)
	if x := ob.Get(path); x.Status != http.StatusNotFound {
		t.Errorf("another user's loan: %d", x.Status)
	}
	token := testkit.CSRF(t, page)
	// Every form of the page is refused without its token, and changes nothing.
	for target, f := range map[string]url.Values{
		path:             {"name": {"Renamed"}},
		path + "/status": {"status": {"cancelled"}},
		path + "/delete": {},
		web.LoansPath + "/instances/" + in[0].ID + "/pay":    {"from": {"loan"}, "amount": {"100"}},
		web.LoansPath + "/instances/" + in[0].ID + "/status": {"status": {"waived"}},
	} {
		if x := b.Post(target, f); x.Status != http.StatusForbidden {
			t.Errorf("POST %s without a form token: %d", target, x.Status)
		}
	}
	if l := loanOf(t, env, u, created.ID); l.Name != "Car loan" || l.Status != finance.LoanActive || l.PaidTotal != 0 ||
		l.Instances[0].Status != finance.InstanceUnpaid {
		t.Fatalf("refused forms changed the loan: %+v", l.Loan)
	}

	// Paying from the loan's page: refused forms come back to it; 600.00 pays interest only.
	pay := func(id, amount string) testkit.Exchange {
		return b.Post(web.LoansPath+"/instances/"+id+"/pay", url.Values{"csrf": {token}, "from": {"loan"}, "amount": {amount}, "date": {"2025-03-15"}})
	}
	over := pay(in[0].ID, "8884.89")
	if over.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(over), `id="pay-amount-error">Amount must not exceed the remaining amount 8884.88<`) ||
		!over.Contains("<h1>Car loan</h1>") || !over.Contains(`value="8884.89"`) {
		t.Errorf("over the remaining: %d\n%s", over.Status, over.Body)
	}
	if l := loanOf(t, env, u, created.ID); l.PaidTotal != 0 {
		t.Fatalf("a refused payment wrote %s", l.PaidTotal)
	}
	x := pay(in[0].ID, "600")
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != path+"?installment=1&notice=loan-paid#installment" {
		t.Fatalf("pay: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	l := loanOf(t, env, u, created.ID)
	if p := l.Instances[0].Payments; len(p) != 1 || p[0].InterestPart != 60000 || p[0].PrincipalPart != 0 || l.Instances[0].Status != finance.InstancePartiallyPaid {
		t.Fatalf("installment 1 after 600.00: %+v", l.Instances[0])
	}
	after := testkit.Unescaped(b.Get(path + "?installment=1&notice=loan-paid"))
	for _, want := range []string{"Loan payment recorded.", `<span class="badge status-partially_paid">Partially paid</span>`, `value="8284.88"`,
		`<td data-label="Interest" class="num">₱600.00</td>`} {
		if !strings.Contains(after, want) {
			t.Errorf("loan page after a payment lacks %q", want)
		}
	}
	if strings.Contains(after, "Delete the loan") {
		t.Error("a loan with payments offers to be deleted")
	}
	// With a payment, only the name, lender and notes stay editable, and the page says why.
	for _, want := range []string{`<input type="text" id="l-name" name="name" maxlength="100" value="Car loan"`,
		"The amount, rate, term and dates stay as they are: the loan has installments paid, marked paid or waived."} {
		if !strings.Contains(after, want) {
			t.Errorf("loan page after a payment lacks %q", want)
		}
	}
	if strings.Contains(after, `id="e-principal"`) {
		t.Error("a loan with a payment offers its principal to edit")
	}

	// Installment status: waive the second, open it again; payments make the first paid for good.
	status := func(id, s string) testkit.Exchange {
		return b.Post(web.LoansPath+"/instances/"+id+"/status", url.Values{"csrf": {token}, "status": {s}})
	}
	if x := b.Post(web.LoansPath+"/instances/"+in[1].ID+"/status", url.Values{"status": {"waived"}}); x.Status != http.StatusForbidden {
		t.Errorf("status without a token: %d", x.Status)
	}
	if x := status(in[1].ID, "waived"); x.Status != http.StatusSeeOther || x.Header.Get("Location") != path+"?installment=2&notice=installment-waived#installment" {
		t.Fatalf("waive: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	if got := loanOf(t, env, u, created.ID).Instances[1]; got.Status != finance.InstanceWaived {
		t.Errorf("installment 2 is %s", got.Status)
	}
	if !strings.Contains(testkit.Unescaped(b.Get(path+"?installment=2")), "Set back to unpaid") {
		t.Error("a waived installment offers no way back")
	}
	if x := status(in[1].ID, "waived"); x.Status != http.StatusBadRequest || !x.Contains("Loan instance is already waived") {
		t.Errorf("waive twice: %d\n%s", x.Status, x.Body)
	}
	if x := status(in[1].ID, "unpaid"); x.Status != http.StatusSeeOther || x.Header.Get("Location") != path+"?installment=2&notice=installment-unpaid#installment" {
		t.Errorf("unpaid: %d to %q", x.Status, x.Header.Get("Location"))
	}
	if x := pay(in[0].ID, "8284.88"); x.Status != http.StatusSeeOther {
		t.Fatalf("pay the rest: %d\n%s", x.Status, x.Body)
	}
	if x := status(in[0].ID, "unpaid"); x.Status != http.StatusBadRequest ||
		!x.Contains("Loan instance is paid by its payments, which are permanent; it cannot be set back to unpaid") {
		t.Errorf("unpay a paid installment: %d\n%s", x.Status, x.Body)
	}
	if got := loanOf(t, env, u, created.ID).Instances[0]; got.Status != finance.InstancePaid || got.PaidTotal != 888488 {
		t.Errorf("installment 1 %+v", got)
	}

	// The name, lender and notes: a name is required; an empty lender clears it.
	edit := func(name, lender string) testkit.Exchange {
		return b.Post(path, url.Values{"csrf": {token}, "name": {name}, "lender": {lender}, "notes": {"Plate ABC 123"}})
	}
	if x := edit(" ", "Bank"); x.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(x), `id="l-name-error">Name is required<`) ||
		!x.Contains(`value="Bank"`) {
		t.Errorf("no name: %d\n%s", x.Status, x.Body)
	}
	if got := loanOf(t, env, u, created.ID); got.Name != "Car loan" || got.Notes != nil {
		t.Fatalf("a refused edit changed the loan: %+v", got.Loan)
	}
	if x := edit("Car", ""); x.Status != http.StatusSeeOther || x.Header.Get("Location") != path+"?notice=loan-saved" {
		t.Fatalf("edit: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	if got := loanOf(t, env, u, created.ID); got.Name != "Car" || got.Lender != nil || *got.Notes != "Plate ABC 123" {
		t.Errorf("loan after the edit: %+v", got.Loan)
	}

	// Cancel and reactivate (§3.5); the API's refusals at the top.
	setStatus := func(s string) testkit.Exchange {
		return b.Post(path+"/status", url.Values{"csrf": {token}, "status": {s}})
	}
	if x := setStatus("cancelled"); x.Status != http.StatusSeeOther || x.Header.Get("Location") != path+"?notice=loan-cancelled" {
		t.Fatalf("cancel: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	got := loanOf(t, env, u, created.ID)
	if got.Status != finance.LoanCancelled || got.Instances[1].Status != finance.InstanceCancelled || got.Instances[0].Status != finance.InstancePaid {
		t.Errorf("after the cancel: %s, %s, %s", got.Status, got.Instances[0].Status, got.Instances[1].Status)
	}
	cancelled := testkit.Unescaped(b.Get(path))
	if !strings.Contains(cancelled, "Reactivate the loan") || strings.Contains(cancelled, "Record a payment") ||
		!strings.Contains(cancelled, "reactivate it to pay or change its installments") {
		t.Errorf("cancelled loan page:\n%s", cancelled)
	}
	if x := setStatus("cancelled"); x.Status != http.StatusBadRequest || !x.Contains(`role="alert">Loan is already cancelled<`) {
		t.Errorf("cancel twice: %d\n%s", x.Status, x.Body)
	}
	if x := setStatus("completed"); x.Status != http.StatusBadRequest ||
		!x.Contains("Status cannot be set: a loan completes by itself once every instance is paid or waived") {
		t.Errorf("completed: %d\n%s", x.Status, x.Body)
	}
	if x := b.Get(web.LoansPath); !strings.Contains(testkit.Unescaped(x), `<h2 id="closed-heading">Completed and cancelled</h2>`) ||
		!x.Contains(`<a href="/loans/`+created.ID+`">Car</a>`) {
		t.Errorf("the loans page does not list the cancelled loan:\n%s", x.Body)
	}
	if x := setStatus("active"); x.Status != http.StatusSeeOther || x.Header.Get("Location") != path+"?notice=loan-active" {
		t.Fatalf("reactivate: %d to %q", x.Status, x.Header.Get("Location"))
	}
	if got := loanOf(t, env, u, created.ID); got.Status != finance.LoanActive || got.Instances[1].Status != finance.InstanceUnpaid {
		t.Errorf("after reactivating: %s, %s", got.Status, got.Instances[1].Status)
	}

	// Delete: refused with payments; a loan without payments is erased.
	if x := b.Post(path+"/delete", url.Values{"csrf": {token}}); x.Status != http.StatusBadRequest ||
		!x.Contains("Loan has payments, which are permanent; cancel the loan instead") {
		t.Errorf("delete a loan with payments: %d\n%s", x.Status, x.Body)
	}
	var typoReq finance.LoanRequest
	fromJSON(t, `{"name":"Typo","principal":"1000","interest_type":"none","term_months":2,"start_date":"2025-03-01"}`, &typoReq)
	typo, err := env.srv.Ledger().CreateLoan(ctx, u.ID, typoReq)
	if err != nil {
		t.Fatal(err)
	}
	if x := b.Post(web.LoansPath+"/"+typo.ID+"/delete", url.Values{"csrf": {"forged"}}); x.Status != http.StatusForbidden {
		t.Errorf("delete with a wrong token: %d", x.Status)
	}
	if x := b.Post(web.LoansPath+"/"+typo.ID+"/delete", url.Values{"csrf": {token}}); x.Status != http.StatusSeeOther ||
		x.Header.Get("Location") != web.LoansPath+"?notice=loan-deleted" {
		t.Fatalf("delete: %d to %q", x.Status, x.Header.Get("Location"))
	}
	if _, err := env.srv.Ledger().GetLoan(ctx, u.ID, typo.ID); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("the deleted loan: %v", err)
	}
	if n := len(loansOf(t, env, u)); n != 1 {
		t.Errorf("%d loans after the delete, want 1", n)
	}
}
