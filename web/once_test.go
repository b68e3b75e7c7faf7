package web_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

var onceValue = regexp.MustCompile(`name="once" value="([^"]+)"`)

// onceOf returns the once id of the first form of page that has one.
func onceOf(t *testing.T, page testkit.Exchange) string {
	t.Helper()
	m := onceValue.FindSubmatch(page.Body)
	if m == nil {
		t.Fatalf("no once field in the page (status %d):\n%s", page.Status, page.Body)
	}
	return string(m[1])
}

// TestRecordFormCountsOnce: the record form sent twice with its once id
// (a double click, a resend after a lost answer) records one expense, and
// the second answer is the first one's redirect; every rendering of the
// form is a new form; a refused form is not kept, so the same id corrected
// records; the id with other values is refused and writes nothing.
func TestRecordFormCountsOnce(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.RecordPath)
	token, once := testkit.CSRF(t, page), onceOf(t, page)
	if again := onceOf(t, b.Get(web.RecordPath)); again == once || !finance.ValidID(again) {
		t.Errorf("two renderings share the once id %s, or it is no id: %s", once, again)
	}
	form := func(amount string) url.Values {
		return url.Values{"csrf": {token}, "once": {once}, "kind": {"expense"}, "amount": {amount}, "date": {"2025-03-15"},
			"description": {"Market"}, "category": {"Groceries"}, "payment_method": {"Cash"}}
	}

	refused := b.Post(web.RecordPath, form("1.234"))
	if refused.Status != http.StatusBadRequest || !refused.Contains("Amount must be a number with at most 2 decimal places") {
		t.Fatalf("a refused form: %d\n%s", refused.Status, refused.Body)
	}
	if fresh := onceOf(t, refused); fresh == once {
		t.Error("the refused form is shown again with its old once id")
	}
	first := b.Post(web.RecordPath, form("90"))
	second := b.Post(web.RecordPath, form("90"))
	const want = "/?month=2025-03&notice=expense-recorded&amount=90.00"
	for i, x := range []testkit.Exchange{first, second} {
		if x.Status != http.StatusSeeOther || x.Header.Get("Location") != want {
			t.Errorf("send %d: %d to %q, want 303 to %s\n%s", i+1, x.Status, x.Header.Get("Location"), want, x.Body)
		}
	}
	if got := expensesOf(t, env, u, ""); len(got) != 1 || got[0].Amount != 9000 {
		t.Fatalf("expenses after sending the form twice: %+v", got)
	}

	other := b.Post(web.RecordPath, form("95"))
	if other.Status != http.StatusBadRequest || !other.Contains("This form was already sent with other values") {
		t.Errorf("the once id with other values: %d\n%s", other.Status, other.Body)
	}
	if got := expensesOf(t, env, u, ""); len(got) != 1 {
		t.Fatalf("the once id with other values wrote: %+v", got)
	}

	// Without the field (an older page, a script), each send records.
	plain := form("20")
	plain.Set("once", "")
	for range 2 {
		if x := b.Post(web.RecordPath, plain); x.Status != http.StatusSeeOther {
			t.Fatalf("a form without once: %d\n%s", x.Status, x.Body)
		}
	}
	if got := expensesOf(t, env, u, ""); len(got) != 3 {
		t.Errorf("expenses after two forms without once: %d, want 3", len(got))
	}
}

// TestRecordFormCountsOnceConcurrently: sends of one form that arrive
// together (clicks faster than the answer) record one expense, and each
// gets the redirect.
func TestRecordFormCountsOnceConcurrently(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.RecordPath)
	body := url.Values{"csrf": {testkit.CSRF(t, page)}, "once": {onceOf(t, page)}, "kind": {"expense"}, "amount": {"42.50"},
		"date": {"2025-03-15"}, "description": {"Taxi"}, "category": {"Transportation"}, "payment_method": {"Cash"}}.Encode()
	h := env.srv.Handler()
	const n = 8
	var wg sync.WaitGroup
	results := make([]*httptest.ResponseRecorder, n)
	for i := range n {
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodPost, web.RecordPath, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for _, c := range b.Cookies {
				req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			results[i] = rec
		})
	}
	wg.Wait()
	for i, rec := range results {
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/?month=2025-03&notice=expense-recorded&amount=42.50" {
			t.Errorf("send %d: %d to %q\n%s", i, rec.Code, rec.Header().Get("Location"), rec.Body)
		}
	}
	if got := expensesOf(t, env, u, ""); len(got) != 1 || got[0].Amount != 4250 {
		t.Fatalf("%d sends of one form recorded %+v", n, got)
	}
}

// TestBillPayFormCountsOnce: a partial bill payment sent twice is one
// payment (without the once id, the second would be a second payment).
func TestBillPayFormCountsOnce(t *testing.T) {
	env, u, b := webApp(t)
	power := marchBill(t, env, u, `{"name":"Electricity","amount":"1500","category":"Utilities","frequency":"monthly",
		"start_date":"2025-01-01","due_day":20,"default_payment_method":"Cash"}`)
	page := b.Get(web.BillsPath + "/" + power.ID)
	form := url.Values{"csrf": {testkit.CSRF(t, page)}, "once": {onceOf(t, page)}, "from": {"bill"}, "amount": {"500"}, "date": {"2025-03-15"},
		"payment_method": {"Cash"}}
	path := web.BillsPath + "/" + power.ID + "/pay"
	first, second := b.Post(path, form), b.Post(path, form)
	if first.Status != http.StatusSeeOther || second.Status != http.StatusSeeOther || first.Header.Get("Location") != second.Header.Get("Location") {
		t.Fatalf("pay twice: %d to %q, then %d to %q\n%s", first.Status, first.Header.Get("Location"), second.Status,
			second.Header.Get("Location"), second.Body)
	}
	if pays := billPayments(t, env, u, power.ID); len(pays) != 1 || pays[0].Amount != 50000 {
		t.Fatalf("payments after sending the form twice: %+v", pays)
	}
	if got := getBill(t, env, u, power.ID); got.Status != finance.BillPartiallyPaid {
		t.Errorf("the bill is %s, want partially paid", got.Status)
	}
}
