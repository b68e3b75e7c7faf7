package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// fromJSON decodes a request body as the REST routes would.
func fromJSON(t *testing.T, body string, dst any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), dst); err != nil {
		t.Fatal(err)
	}
}

// marchBill creates a monthly template and returns its March 2025 bill.
func marchBill(t *testing.T, env *testEnv, u finance.User, body string) finance.Bill {
	t.Helper()
	ctx := context.Background()
	var req finance.BillTemplateRequest
	fromJSON(t, body, &req)
	tpl, err := env.srv.Ledger().CreateBillTemplate(ctx, u.ID, req)
	if err != nil {
		t.Fatal(err)
	}
	list, err := env.srv.Ledger().ListBills(ctx, u.ID, finance.BillFilter{TemplateID: tpl.ID,
		DateFrom: finance.NewDate(2025, 3, 1), DateTo: finance.NewDate(2025, 3, 31)}, finance.ListParams{Page: 1, Limit: 10, SortBy: "due_date"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("March bills of %s: %+v, %v", tpl.Name, list.Items, err)
	}
	return list.Items[0]
}

func billPayments(t *testing.T, env *testEnv, u finance.User, billID string) []finance.BillPayment {
	t.Helper()
	p, err := env.srv.Ledger().ListBillPayments(context.Background(), u.ID, billID, finance.BillPaymentFilter{},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "date"})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func getBill(t *testing.T, env *testEnv, u finance.User, id string) finance.Bill {
	t.Helper()
	b, err := env.srv.Ledger().GetBill(context.Background(), u.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestBillsAndLoansNeedSignIn(t *testing.T) {
	env := newTestEnv(t)
	env.createUser(finance.PlanFree)
	b := env.browser(t)
	for _, path := range []string{web.BillsPath, web.BillsPath + "?month=2025-02", web.LoansPath} {
		x := b.Get(path)
		if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath+"?next="+url.QueryEscape(path) {
			t.Errorf("GET %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
	const id = "0190f1a2-0000-7000-8000-000000000000"
	for _, path := range []string{web.BillsPath + "/" + id + "/pay", web.BillsPath + "/" + id + "/status", web.LoansPath + "/instances/" + id + "/pay"} {
		x := b.Post(path, url.Values{"amount": {"5"}, "status": {"skipped"}})
		if x.Status != http.StatusSeeOther || !strings.HasPrefix(x.Header.Get("Location"), web.LoginPath) {
			t.Errorf("POST %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
}

func TestBillsPage(t *testing.T) {
	env, u, b := webApp(t)
	power := marchBill(t, env, u, `{"name":"Electricity","amount":"1500","category":"Utilities","frequency":"monthly",
		"start_date":"2025-01-01","due_day":20,"default_payment_method":"Cash"}`)
	net := marchBill(t, env, u, `{"name":"Internet","amount":"1299","category":"Utilities","frequency":"monthly",
		"start_date":"2025-01-01","due_day":10,"default_payment_method":"Cash"}`)
	water := marchBill(t, env, u, `{"name":"Water","amount":"450","category":"Utilities","frequency":"monthly",
		"start_date":"2025-01-01","due_day":25}`)

	page := b.Get(web.BillsPath)
	if page.Status != http.StatusOK {
		t.Fatalf("GET /bills: %d\n%s", page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)
	body := testkit.Unescaped(page)
	for _, want := range []string{
		"<h1>Bills · March 2025</h1>", `aria-current="page">Bills</a>`, `href="/bills?month=2025-02"`, `href="/bills?month=2025-04"`,
		"Electricity", "Due 2025-03-20", "₱1,500.00 remaining", `name="amount" inputmode="decimal" autocomplete="off" value="1500.00"`,
		`name="date" value="2025-03-15"`, `<option value="Cash" selected>Cash</option>`, `action="/bills/` + power.ID + `/pay"`,
		`<span class="badge overdue">Overdue</span>`, // Internet, due on the 10th
		`<label for="pay-` + power.ID + `-amount">`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("bills page lacks %q", want)
		}
	}
	token := testkit.CSRF(t, page)
	payPath := web.BillsPath + "/" + power.ID + "/pay"

	// Refused: no form token, a wrong one, more than remains. Nothing is written.
	for name, f := range map[string]url.Values{
		"no form token":      {"amount": {"1500"}, "payment_method": {"Cash"}},
		"a wrong form token": {"csrf": {"forged"}, "amount": {"1500"}, "payment_method": {"Cash"}},
	} {
		if x := b.Post(payPath, f); x.Status != http.StatusForbidden {
			t.Errorf("pay with %s: %d, want 403", name, x.Status)
		}
		if x := b.Post(web.BillsPath+"/"+water.ID+"/status", url.Values{"status": {"skipped"}}); x.Status != http.StatusForbidden {
			t.Errorf("skip with %s: %d, want 403", name, x.Status)
		}
	}
	over := b.Post(payPath, url.Values{"csrf": {token}, "amount": {"1600"}, "date": {"2025-03-15"}, "payment_method": {"Cash"}})
	if over.Status != http.StatusBadRequest {
		t.Errorf("over the remaining: %d\n%s", over.Status, over.Body)
	}
	errID := `id="pay-` + power.ID + `-amount-error">Amount must not exceed the remaining amount 1500.00<`
	if !strings.Contains(testkit.Unescaped(over), errID) || !over.Contains(`aria-describedby="pay-`+power.ID+`-amount-error"`) ||
		!over.Contains(`value="1600"`) || !over.Contains(`role="alert"`) {
		t.Errorf("over the remaining: no field error\n%s", over.Body)
	}
	if n := len(billPayments(t, env, u, power.ID)); n != 0 {
		t.Fatalf("a refused form wrote %d bill payments", n)
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 {
		t.Fatalf("a refused form wrote %d expenses", n)
	}
	if got := getBill(t, env, u, water.ID); got.Status != finance.BillUnpaid {
		t.Fatalf("a refused skip left water %s", got.Status)
	}

	// A valid payment: one payment, one expense from it, the bill paid.
	x := b.Post(payPath, url.Values{"csrf": {token}, "amount": {"1500.00"}, "date": {"2025-03-15"}, "payment_method": {"Cash"},
		"account_id": {"0190f1a2-0000-7000-8000-000000000000"}}) // a picker of another method is not sent on
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != "/bills?month=2025-03&notice=bill-paid" {
		t.Fatalf("pay: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	pays := billPayments(t, env, u, power.ID)
	if len(pays) != 1 || pays[0].Amount != 150000 || pays[0].PaymentMethod != finance.MethodCash {
		t.Fatalf("payments = %+v", pays)
	}
	es := expensesOf(t, env, u, "")
	if len(es) != 1 || es[0].Source != finance.ExpenseBillPayment || es[0].Amount != 150000 || es[0].ID != pays[0].ExpenseID {
		t.Fatalf("expenses = %+v", es)
	}
	if got := getBill(t, env, u, power.ID); got.Status != finance.BillPaid || got.Remaining != 0 {
		t.Errorf("bill after payment: %s, remaining %s", got.Status, got.Remaining)
	}
	after := b.Get(x.Header.Get("Location"))
	if !after.Contains("Bill payment recorded.") || after.Contains(`action="/bills/`+power.ID+`/pay"`) ||
		!strings.Contains(testkit.Unescaped(after), `Electricity</a> <span class="num">₱1,500.00</span>`) ||
		!after.Contains(`<span class="badge status-paid">Paid</span>`) {
		t.Errorf("bills after payment:\n%s", after.Body)
	}

	// Skip the unpaid water bill; mark the overdue internet bill paid (no money).
	x = b.Post(web.BillsPath+"/"+water.ID+"/status", url.Values{"csrf": {token}, "status": {"skipped"}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != "/bills?month=2025-03&notice=bill-skipped" {
		t.Fatalf("skip: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	if got := getBill(t, env, u, water.ID); got.Status != finance.BillSkipped {
		t.Errorf("water is %s after skip", got.Status)
	}
	x = b.Post(web.BillsPath+"/"+net.ID+"/status", url.Values{"csrf": {token}, "status": {"paid"}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != "/bills?month=2025-03&notice=bill-paid" {
		t.Fatalf("mark paid: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	if got := getBill(t, env, u, net.ID); got.Status != finance.BillPaid || !got.MarkedPaidManually {
		t.Errorf("internet after mark paid: %+v", got)
	}
	if n := len(billPayments(t, env, u, net.ID)); n != 0 {
		t.Errorf("mark paid wrote %d payments", n)
	}
	// Skipping it again is refused in the API's words; paying a paid bill too.
	again := b.Post(web.BillsPath+"/"+water.ID+"/status", url.Values{"csrf": {token}, "status": {"skipped"}})
	if again.Status != http.StatusBadRequest || !again.Contains("Bill is already skipped") {
		t.Errorf("skip twice: %d\n%s", again.Status, again.Body)
	}
	paid := b.Post(payPath, url.Values{"csrf": {token}, "amount": {"1"}, "payment_method": {"Cash"}})
	if paid.Status != http.StatusBadRequest || !paid.Contains("Bill is paid; only an unpaid or partially paid bill takes payments") {
		t.Errorf("pay a paid bill: %d\n%s", paid.Status, paid.Body)
	}
	if n := len(expensesOf(t, env, u, "")); n != 1 {
		t.Errorf("%d expenses after the refusals, want 1", n)
	}
	if x := b.Get(web.BillsPath + "?month=2025-04"); x.Status != http.StatusOK || !x.Contains("<h1>Bills · April 2025</h1>") ||
		!x.Contains(`href="/bills">This month`) {
		t.Errorf("April: %d", x.Status)
	}
}

func TestLoansPage(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	var req finance.LoanRequest
	fromJSON(t, `{"name":"Motorbike","principal":"12000","interest_type":"add_on","interest_rate":"1","rate_period":"monthly",
		"term_months":12,"start_date":"2025-02-15"}`, &req)
	loan, err := env.srv.Ledger().CreateLoan(ctx, u.ID, req)
	if err != nil {
		t.Fatal(err)
	}
	dues, err := env.srv.Ledger().CurrentMonthLoanDues(ctx, u.ID, finance.ListParams{Page: 1, Limit: 10, SortBy: "due_date"})
	if err != nil || len(dues.Items) != 1 {
		t.Fatalf("dues = %+v, %v", dues.Items, err)
	}
	x0 := dues.Items[0]
	if x0.InterestDue <= 0 || x0.InterestDue >= 50000 {
		t.Fatalf("instance interest %s: the test expects 0 < interest < 500", x0.InterestDue)
	}

	page := b.Get(web.LoansPath)
	if page.Status != http.StatusOK {
		t.Fatalf("GET /loans: %d\n%s", page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)
	body := testkit.Unescaped(page)
	for _, want := range []string{
		`aria-current="page">Loans</a>`, "1 active loan", "Motorbike", "<dt>Remaining principal</dt><dd>₱12,000.00</dd>",
		"<dt>Next due</dt><dd>" + x0.DueDate.String() + "</dd>", `value="` + x0.Remaining.String() + `"`,
		`action="/loans/instances/` + x0.ID + `/pay"`, `<option value="">None (cash)</option>`,
		`<a class="button small" href="/loans/new">New loan</a>`, `<a href="/loans/` + loan.ID + `">Motorbike</a>`,
		`<a href="/loans/` + loan.ID + `?installment=1#installment">Motorbike · installment 1</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("loans page lacks %q", want)
		}
	}
	token := testkit.CSRF(t, page)
	payPath := web.LoansPath + "/instances/" + x0.ID + "/pay"
	paymentsOf := func() []finance.LoanPayment {
		d, err := env.srv.Ledger().GetLoan(ctx, u.ID, loan.ID)
		if err != nil {
			t.Fatal(err)
		}
		var out []finance.LoanPayment
		for _, in := range d.Instances {
			out = append(out, in.Payments...)
		}
		return out
	}
	if x := b.Post(payPath, url.Values{"amount": {"500"}}); x.Status != http.StatusForbidden {
		t.Errorf("no form token: %d", x.Status)
	}
	over := b.Post(payPath, url.Values{"csrf": {token}, "amount": {"999999"}})
	if over.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(over),
		`id="loanpay-`+x0.ID+`-amount-error">Amount must not exceed the remaining amount `+x0.Remaining.String()+`<`) {
		t.Errorf("over the remaining: %d\n%s", over.Status, over.Body)
	}
	if n := len(paymentsOf()); n != 0 {
		t.Fatalf("refused forms wrote %d loan payments", n)
	}

	x := b.Post(payPath, url.Values{"csrf": {token}, "amount": {"500"}, "date": {"2025-03-15"}, "account_id": {""}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != "/loans?notice=loan-paid" {
		t.Fatalf("pay: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	ps := paymentsOf()
	if len(ps) != 1 || ps[0].Amount != 50000 || ps[0].InterestPart != x0.InterestDue || ps[0].PrincipalPart != 50000-x0.InterestDue ||
		ps[0].AccountID != nil {
		t.Fatalf("payments = %+v (interest due %s)", ps, x0.InterestDue)
	}
	remaining := x0.Remaining - 50000
	principal := finance.Money(1200000) - ps[0].PrincipalPart
	after := testkit.Unescaped(b.Get(x.Header.Get("Location")))
	for _, want := range []string{"Loan payment recorded.", web.PHPMoney(remaining) + " remaining",
		"<dt>Remaining principal</dt><dd>" + web.PHPMoney(principal) + "</dd>", "Partially paid"} {
		if !strings.Contains(after, want) {
			t.Errorf("loans after payment lacks %q", want)
		}
	}
}

func TestBillsCalendar(t *testing.T) {
	env, u, b := webApp(t)
	rent := marchBill(t, env, u, `{"name":"Rent","amount":"12000","category":"Rent & Housing","frequency":"monthly",
		"start_date":"2025-01-01","due_day":31,"default_payment_method":"Cash"}`)
	water := marchBill(t, env, u, `{"name":"Water","amount":"450","category":"Utilities","frequency":"monthly",
		"start_date":"2025-01-01","due_day":15}`)

	page := b.Get(web.BillsPath + "?month=2025-03")
	if page.Status != http.StatusOK {
		t.Fatalf("GET /bills: %d\n%s", page.Status, page.Body)
	}
	body := testkit.Unescaped(page)
	// March 2025 starts on a Saturday: with weeks from Monday, five empty
	// cells lead, and the 31st is alone in the sixth week.
	for _, want := range []string{
		`<caption class="sr-only">Bills due in March 2025, by day</caption>`,
		`<th scope="col"><abbr title="Monday">Mon</abbr></th><th scope="col"><abbr title="Tuesday">Tue</abbr></th>`,
		`<td class="day has-bills today" aria-current="date">`,
		`<span class="day-num"><span class="day-weekday">Sat </span>15 <span class="day-today">today</span></span>`,
		`<a href="/bills/` + water.ID + `" class="cal-bill"><span class="cal-name">Water</span> <span class="cal-amount">₱450.00</span> <span class="badge status-unpaid">Unpaid</span></a>`,
		`<a href="/bills/` + rent.ID + `" class="cal-bill"><span class="cal-name">Rent</span>`,
		`href="/bills/templates">Bill templates</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("calendar lacks %q", want)
		}
	}
	if n := strings.Count(body, "<tr>\n        <td"); n != 6 {
		t.Errorf("%d weeks, want 6", n)
	}
	if n := strings.Count(body, `<td class="outside"></td>`); n != 5+6 {
		t.Errorf("%d cells outside the month, want 11", n)
	}
	if n := strings.Count(body, `class="day has-bills`); n != 2 {
		t.Errorf("%d days with bills, want 2", n)
	}
	if !regexp.MustCompile(`(?s)<span class="day-weekday">Mon </span>31</span>\s*<ul class="cal-bills">\s*<li><a href="/bills/` + rent.ID).MatchString(body) {
		t.Error("Rent is not on Monday the 31st")
	}

	// Weeks from Sunday: six empty cells lead.
	if _, err := env.srv.Ledger().UpdateAppSettings(context.Background(), u.ID, finance.AppSettingsRequest{WeekStart: finance.Of("sunday")}); err != nil {
		t.Fatal(err)
	}
	sunday := testkit.Unescaped(b.Get(web.BillsPath + "?month=2025-03"))
	if !strings.Contains(sunday, `<tr><th scope="col"><abbr title="Sunday">Sun</abbr></th>`) ||
		strings.Count(sunday, `<td class="outside"></td>`) != 6+5 {
		t.Errorf("weeks from Sunday:\n%s", sunday)
	}
	// A month without bills says so; a malformed month is refused.
	if x := b.Get(web.BillsPath + "?month=2024-12"); !x.Contains("No bills due in December 2024.") || x.Contains("has-bills") {
		t.Errorf("December 2024:\n%s", x.Body)
	}
	if x := b.Get(web.BillsPath + "?month=2025-7"); x.Status != http.StatusBadRequest {
		t.Errorf("month 2025-7: %d", x.Status)
	}
	// The first and last months the API accepts link only inward.
	for _, edge := range []struct{ month, in, out string }{{"1900-01", `href="/bills?month=1900-02"`, `rel="prev"`}, {"2100-12", `href="/bills?month=2100-11"`, `rel="next"`}} {
		if x := b.Get(web.BillsPath + "?month=" + edge.month); x.Status != http.StatusOK || !x.Contains(edge.in) || x.Contains(edge.out) {
			t.Errorf("bills at %s: %d\n%s", edge.month, x.Status, x.Body)
		}
	}
}

func TestBillPage(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	power := marchBill(t, env, u, `{"name":"Electricity","amount":"1500","category":"Utilities","frequency":"monthly",
		"start_date":"2025-01-01","due_day":20,"default_payment_method":"Cash"}`)
	path := web.BillsPath + "/" + power.ID

	page := b.Get(path)
	if page.Status != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", path, page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)
	body := testkit.Unescaped(page)
	for _, want := range []string{
		"<h1>Electricity</h1>", `aria-current="page">Bills</a>`, `href="/bills?month=2025-03">Bills · March 2025</a>`,
		"<dt>Due date</dt><dd>2025-03-20</dd>", "<dt>Category</dt><dd>Utilities</dd>", "<dt>Usually paid with</dt><dd>Cash</dd>", `href="/bills/templates/` + power.TemplateID + `"`,
		`<form method="post" action="/bills/` + power.ID + `/pay"`, `<input type="hidden" name="from" value="bill">`,
		`id="pay-amount" name="amount" inputmode="decimal" autocomplete="off" value="1500.00"`, "Skip this bill", "No payments yet.",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("bill page lacks %q", want)
		}
	}
	for name, target := range map[string]string{"unknown": web.BillsPath + "/0190f1a2-0000-7000-8000-000000000000", "malformed": web.BillsPath + "/x1"} {
		if x := b.Get(target); x.Status != http.StatusNotFound || !x.Contains("Bill not found") {
			t.Errorf("%s bill: %d", name, x.Status)
		}
	}
	other := env.createUser(finance.PlanFree)
	ob := env.browser(t)
	ob.SignIn(other)
	if x := ob.Get(path); x.Status != http.StatusNotFound {
		t.Errorf("another user's bill: %d", x.Status)
	}

	token := testkit.CSRF(t, page)
	pay := func(amount string) testkit.Exchange {
		return b.Post(path+"/pay", url.Values{"csrf": {token}, "from": {"bill"}, "amount": {amount}, "date": {"2025-03-15"}, "payment_method": {"Cash"}})
	}
	if x := b.Post(path+"/pay", url.Values{"from": {"bill"}, "amount": {"5"}, "payment_method": {"Cash"}}); x.Status != http.StatusForbidden {
		t.Errorf("pay without a form token: %d", x.Status)
	}
	over := pay("1500.01")
	if over.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(over), `id="pay-amount-error">Amount must not exceed the remaining amount 1500.00<`) ||
		!over.Contains("<h1>Electricity</h1>") || !over.Contains(`value="1500.01"`) {
		t.Errorf("over the remaining, from the bill page: %d\n%s", over.Status, over.Body)
	}
	if n := len(billPayments(t, env, u, power.ID)); n != 0 {
		t.Fatalf("a refused form wrote %d payments", n)
	}

	x := pay("500")
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != path+"?notice=bill-paid" {
		t.Fatalf("pay: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	pays := billPayments(t, env, u, power.ID)
	if len(pays) != 1 || pays[0].Amount != 50000 {
		t.Fatalf("payments %+v", pays)
	}
	after := testkit.Unescaped(b.Get(x.Header.Get("Location")))
	for _, want := range []string{"Bill payment recorded.", `<span class="badge status-partially_paid">Partially paid</span>`,
		"<dt>Remaining</dt><dd>₱1,000.00</dd>", `<td data-label="Amount" class="num">₱500.00</td>`,
		`action="/bills/payments/` + pays[0].ID + `/delete"`, `aria-label="Delete the payment of ₱500.00 on 2025-03-15"`} {
		if !strings.Contains(after, want) {
			t.Errorf("bill page after a payment lacks %q", want)
		}
	}

	// Deleting it: refused without a token; then the payment and its expense are voided.
	del := web.BillsPath + "/payments/" + pays[0].ID + "/delete"
	if x := b.Post(del, url.Values{"csrf": {"forged"}}); x.Status != http.StatusForbidden {
		t.Errorf("delete with a wrong token: %d", x.Status)
	}
	if got := billPayments(t, env, u, power.ID); len(got) != 1 {
		t.Fatalf("a refused delete left %d posted payments", len(got))
	}
	if x := ob.Post(del, url.Values{"csrf": {testkit.CSRF(t, ob.Get(web.SettingsPath))}}); x.Status != http.StatusNotFound {
		t.Errorf("another user deletes the payment: %d", x.Status)
	}
	x = b.Post(del, url.Values{"csrf": {token}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != path+"?notice=bill-payment-deleted" {
		t.Fatalf("delete: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	if n := len(billPayments(t, env, u, power.ID)); n != 0 {
		t.Errorf("%d posted payments after the delete", n)
	}
	if es := expensesOf(t, env, u, finance.StatusVoided); len(es) != 1 || es[0].ID != pays[0].ExpenseID {
		t.Errorf("voided expenses %+v", es)
	}
	if got := getBill(t, env, u, power.ID); got.Status != finance.BillUnpaid || got.PaidTotal != 0 {
		t.Errorf("bill after the delete: %s, paid %s", got.Status, got.PaidTotal)
	}
	if again := b.Post(del, url.Values{"csrf": {token}}); again.Status != http.StatusBadRequest ||
		!again.Contains("Bill payment is already voided") || !again.Contains("<h1>Electricity</h1>") {
		t.Errorf("delete twice: %d\n%s", again.Status, again.Body)
	}
	if got := testkit.Unescaped(b.Get(path)); !strings.Contains(got, `<span class="badge status-voided">Voided</span>`) ||
		strings.Contains(got, "/delete\"") {
		t.Errorf("a voided payment still offers a delete button")
	}

	// A card payment already on a statement cannot be taken back: the API's words, nothing changed.
	var cardReq finance.CardRequest
	fromJSON(t, `{"name":"Billed","credit_limit":50000,"statement_day":1,"due_day":20,"cycle_start_date":"2025-02-01"}`, &cardReq)
	card, err := env.srv.Ledger().CreateCreditCard(ctx, u.ID, cardReq)
	if err != nil {
		t.Fatal(err)
	}
	x = b.Post(path+"/pay", url.Values{"csrf": {token}, "from": {"bill"}, "amount": {"300"}, "date": {"2025-02-20"},
		"payment_method": {"Credit Card"}, "credit_card_id": {card.ID}})
	if x.Status != http.StatusSeeOther {
		t.Fatalf("card payment: %d\n%s", x.Status, x.Body)
	}
	billed := billPayments(t, env, u, power.ID)[0]
	refused := b.Post(web.BillsPath+"/payments/"+billed.ID+"/delete", url.Values{"csrf": {token}})
	if refused.Status != http.StatusBadRequest || !refused.Contains(`role="alert">Bill payment&#39;s card transaction is billed; only a payment whose card transaction is unbilled can be deleted<`) {
		t.Errorf("delete a billed card payment: %d\n%s", refused.Status, refused.Body)
	}
	if got := billPayments(t, env, u, power.ID); len(got) != 1 || got[0].Status != finance.PaymentPosted {
		t.Errorf("the refused delete changed the payments: %+v", got)
	}

	// Skip needs an unpaid bill without payments; from the page, unpaid undoes a skip.
	water := marchBill(t, env, u, `{"name":"Water","amount":"450","category":"Utilities","frequency":"monthly","start_date":"2025-01-01","due_day":25}`)
	wpath := web.BillsPath + "/" + water.ID
	status := func(s string) testkit.Exchange {
		return b.Post(wpath+"/status", url.Values{"csrf": {token}, "from": {"bill"}, "status": {s}})
	}
	if x := status("skipped"); x.Status != http.StatusSeeOther || x.Header.Get("Location") != wpath+"?notice=bill-skipped" {
		t.Fatalf("skip: %d to %q", x.Status, x.Header.Get("Location"))
	}
	skipped := testkit.Unescaped(b.Get(wpath))
	if !strings.Contains(skipped, "Set back to unpaid") || strings.Contains(skipped, "Record payment") {
		t.Errorf("skipped bill page:\n%s", skipped)
	}
	if x := status("skipped"); x.Status != http.StatusBadRequest || !x.Contains("Bill is already skipped") || !x.Contains("<h1>Water</h1>") {
		t.Errorf("skip twice: %d\n%s", x.Status, x.Body)
	}
	if x := status("unpaid"); x.Status != http.StatusSeeOther || x.Header.Get("Location") != wpath+"?notice=bill-unpaid" {
		t.Fatalf("unpaid: %d to %q", x.Status, x.Header.Get("Location"))
	}
	if got := getBill(t, env, u, water.ID); got.Status != finance.BillUnpaid {
		t.Errorf("water is %s", got.Status)
	}
}

// TestBillEdit: a bill's page edits its amount, due date and notes as PUT
// /bills/{id} does; refusals (below what was paid, an emptied amount, a bad
// date) are shown beside the field with what was sent and change nothing;
// emptied notes are cleared; another user's bill is not found.
func TestBillEdit(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	power := marchBill(t, env, u, `{"name":"Electricity","amount":"1500","category":"Utilities","frequency":"monthly",
		"start_date":"2025-01-01","due_day":20,"default_payment_method":"Cash"}`)
	path := web.BillsPath + "/" + power.ID
	page := b.Get(path)
	testkit.WantPage(t, "bill page", page, http.StatusOK, "Edit this bill", `action="/bills/`+power.ID+`"`, `name="amount" inputmode="decimal" autocomplete="off" value="1500.00"`,
		`name="due_date" value="2025-03-20"`)
	token := testkit.CSRF(t, page)
	if _, err := env.srv.Ledger().PayBill(ctx, u.ID, power.ID, finance.BillPaymentRequest{Amount: finance.Of(finance.Money(40000)),
		Date: finance.Of(finance.NewDate(2025, 3, 15)), PaymentMethod: finance.Of("Cash")}); err != nil {
		t.Fatal(err)
	}
	edit := func(amount, due, notes string) url.Values {
		return url.Values{"csrf": {token}, "amount": {amount}, "due_date": {due}, "notes": {notes}}
	}
	for _, c := range []struct {
		what string
		form url.Values
		want []string
	}{
		{"below what was paid", edit("300", "2025-03-22", "x"), []string{`id="e-amount-error">Amount must be at least the amount already paid, 400.00<`, `value="300"`, "Not saved."}},
		{"an emptied amount", edit("", "2025-03-22", ""), []string{`id="e-amount-error">Amount is required<`}},
		{"a bad date", edit("1600", "2025-02-30", ""), []string{`id="e-due-error">Due date must be a real calendar date`, `value="2025-02-30"`}},
	} {
		x := b.Post(path, c.form)
		testkit.WantPage(t, c.what, x, http.StatusBadRequest, append(c.want, "<details class=\"pay toggle\" open>")...)
		if got := getBill(t, env, u, power.ID); got.Amount != 150000 || got.DueDate != finance.NewDate(2025, 3, 20) || got.Notes != nil || got.Edited {
			t.Fatalf("%s changed the bill: %+v", c.what, got)
		}
	}

	testkit.WantRedirect(t, "save", b.Post(path, edit("1620.50", "2025-03-22", "  higher this month ")), path+"?notice=bill-saved")
	got := getBill(t, env, u, power.ID)
	if got.Amount != 162050 || got.DueDate != finance.NewDate(2025, 3, 22) || got.Notes == nil || *got.Notes != "higher this month" ||
		!got.Edited || got.Remaining != 122050 || got.Status != finance.BillPartiallyPaid {
		t.Fatalf("after edit: %+v", got)
	}
	testkit.WantPage(t, "after save", b.Get(path+"?notice=bill-saved"), http.StatusOK, "The bill has been saved", "₱1,620.50", "higher this month")
	testkit.WantRedirect(t, "clear notes", b.Post(path, edit("1620.50", "2025-03-22", "")), path+"?notice=bill-saved")
	if got := getBill(t, env, u, power.ID); got.Notes != nil {
		t.Errorf("emptied notes kept: %q", *got.Notes)
	}

	other := env.createUser(finance.PlanPro)
	theirs := marchBill(t, env, other, `{"name":"Rent","amount":"9000","category":"Utilities","frequency":"monthly","start_date":"2025-01-01","due_day":5}`)
	if x := b.Post(web.BillsPath+"/"+theirs.ID, edit("1", "2025-03-05", "")); x.Status != http.StatusNotFound {
		t.Errorf("another user's bill: %d", x.Status)
	}
	if got := getBill(t, env, other, theirs.ID); got.Amount != 900000 || got.Edited {
		t.Errorf("another user's bill changed: %+v", got)
	}
	if x := b.Post(path, url.Values{"amount": {"1"}, "due_date": {"2025-03-22"}}); x.Status != http.StatusForbidden {
		t.Errorf("no form token: %d", x.Status)
	}
}
