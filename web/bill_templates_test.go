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

// templatesOf lists the user's bill templates (active and paused) from the ledger.
func templatesOf(t *testing.T, env *testEnv, u finance.User) []finance.BillTemplate {
	t.Helper()
	p, err := env.srv.Ledger().ListBillTemplates(context.Background(), u.ID, finance.BillTemplateFilter{},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "name"})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

// billsOf lists a template's bills due from..to, by due date.
func billsOf(t *testing.T, env *testEnv, u finance.User, templateID, from, to string) []finance.Bill {
	t.Helper()
	f, _ := finance.ParseDate(from)
	l, _ := finance.ParseDate(to)
	p, err := env.srv.Ledger().ListBills(context.Background(), u.ID, finance.BillFilter{TemplateID: templateID, DateFrom: f, DateTo: l},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "due_date"})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func TestBillTemplatePagesNeedSignIn(t *testing.T) {
	env := newTestEnv(t)
	env.createUser(finance.PlanFree)
	b := env.browser(t)
	const id = "0190f1a2-0000-7000-8000-000000000000"
	for _, path := range []string{web.BillTemplatesPath, web.BillTemplatesPath + "/new", web.BillTemplatesPath + "/" + id, web.LoanNewPath, web.LoansPath + "/" + id,
		web.BillsPath + "/" + id} {
		if x := b.Get(path); x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath+"?next="+url.QueryEscape(path) {
			t.Errorf("GET %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
	for _, path := range []string{web.BillTemplatesPath, web.BillTemplatesPath + "/" + id, web.BillTemplatesPath + "/" + id + "/delete",
		web.BillsPath + "/payments/" + id + "/delete", web.LoansPath, web.LoansPath + "/" + id, web.LoansPath + "/" + id + "/status",
		web.LoansPath + "/" + id + "/delete", web.LoansPath + "/instances/" + id + "/status"} {
		if x := b.Post(path, url.Values{"name": {"x"}}); x.Status != http.StatusSeeOther || !strings.HasPrefix(x.Header.Get("Location"), web.LoginPath) {
			t.Errorf("POST %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
}

func TestBillTemplateCreate(t *testing.T) {
	env, u, b := webApp(t)
	list := b.Get(web.BillTemplatesPath)
	if list.Status != http.StatusOK || !list.Contains("No bill templates yet.") || !list.Contains(`href="/bills/templates/new"`) {
		t.Fatalf("GET /bills/templates: %d\n%s", list.Status, list.Body)
	}
	testkit.CheckPageHeaders(t, list)
	page := b.Get(web.BillTemplatesPath + "/new")
	if page.Status != http.StatusOK {
		t.Fatalf("GET new: %d\n%s", page.Status, page.Body)
	}
	for _, want := range []string{`<option value="monthly" selected>Monthly</option>`, `name="start_date" value="2025-03-15"`,
		`<option value="Rent &amp; Housing">`, `<option value="">None: choose when paying</option>`, `<label for="t-name">`,
		`action="/bills/templates"`, `aria-current="page">Bills</a>`} {
		if !page.Contains(want) {
			t.Errorf("new template form lacks %s", want)
		}
	}
	token := testkit.CSRF(t, page)
	valid := func() url.Values {
		return url.Values{"csrf": {token}, "name": {"Rent"}, "amount": {"12000"}, "category": {"Rent & Housing"}, "frequency": {"monthly"},
			"start_date": {"2025-03-01"}, "due_day": {"5"}, "end_date": {""}, "default_payment_method": {"Cash"},
			"default_account_id": {"0190f1a2-0000-7000-8000-000000000000"}, // another method's picker is not sent on
			"notes":              {"Landlord: Ana"}}
	}
	refused := []struct {
		name   string
		edit   func(url.Values)
		status int
		want   []string
	}{
		{"no form token", func(f url.Values) { f.Del("csrf") }, http.StatusForbidden, []string{"This form has expired"}},
		{"nothing", func(f url.Values) {
			for _, k := range []string{"name", "amount", "category", "start_date"} {
				f.Set(k, "")
			}
		}, http.StatusBadRequest, []string{`id="t-name-error">Name is required<`, `id="t-amount-error">Amount is required<`,
			`id="t-category-error">Category is required<`, `id="t-start-error">Start date is required<`, `>Landlord: Ana</textarea>`}},
		{"a due day on a weekly bill", func(f url.Values) { f.Set("frequency", "weekly") }, http.StatusBadRequest,
			[]string{`id="t-due-day-error">Due day must be absent for weekly bills, which repeat every 7 or 14 days from start_date<`,
				`<option value="weekly" selected>`}},
		{"a start too long ago", func(f url.Values) { f.Set("start_date", "2024-01-01") }, http.StatusBadRequest,
			[]string{`id="t-start-error">Start date must be on or after 2024-03-14 (at most 366 days before today)<`}},
		{"an end before the start", func(f url.Values) { f.Set("end_date", "2025-02-01") }, http.StatusBadRequest,
			[]string{`Ends`, `id="t-end-error">End date must be on or after start_date 2025-03-01<`}},
		{"debit without an account", func(f url.Values) { f.Set("default_payment_method", "Account Debit"); f.Set("default_account_id", "") },
			http.StatusBadRequest, []string{`id="t-account-error">Account is required when default_payment_method is Account Debit<`}},
		{"a due day of 32", func(f url.Values) { f.Set("due_day", "32") }, http.StatusBadRequest, []string{`id="t-due-day-error">Due day `,
			`value="32"`}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			f := valid()
			tc.edit(f)
			x := b.Post(web.BillTemplatesPath, f)
			if x.Status != tc.status {
				t.Errorf("status %d, want %d\n%s", x.Status, tc.status, x.Body)
			}
			for _, want := range tc.want {
				if !strings.Contains(testkit.Unescaped(x), want) {
					t.Errorf("page lacks %q", want)
				}
			}
			if n := len(templatesOf(t, env, u)); n != 0 {
				t.Fatalf("a refused form wrote %d templates", n)
			}
		})
	}

	x := b.Post(web.BillTemplatesPath, valid())
	ts := templatesOf(t, env, u)
	if len(ts) != 1 {
		t.Fatalf("templates %+v", ts)
	}
	tpl := ts[0]
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.BillTemplatesPath+"?notice=template-created#template-"+tpl.ID {
		t.Fatalf("create: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	if tpl.Name != "Rent" || tpl.Amount != 1200000 || tpl.Category != "Rent & Housing" || *tpl.DueDay != 5 ||
		*tpl.DefaultPaymentMethod != finance.MethodCash || tpl.DefaultAccountID != nil || *tpl.Notes != "Landlord: Ana" {
		t.Errorf("template %+v", tpl)
	}
	if bills := billsOf(t, env, u, tpl.ID, "2025-03-01", "2025-04-30"); len(bills) != 2 || bills[0].DueDate.String() != "2025-03-05" {
		t.Errorf("bills of the template %+v", bills)
	}
	target, _, _ := strings.Cut(x.Header.Get("Location"), "#") // a browser keeps the fragment to itself
	after := testkit.Unescaped(b.Get(target))
	for _, want := range []string{"Bill template created.", `<a href="/bills/templates/` + tpl.ID + `">Rent</a>`, "Monthly, on day 5",
		`<td data-label="Amount" class="num">₱12,000.00</td>`} {
		if !strings.Contains(after, want) {
			t.Errorf("templates list lacks %q", want)
		}
	}
}

func TestBillTemplateEditAndDelete(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	march := marchBill(t, env, u, `{"name":"Power","amount":"1500","category":"Utilities","frequency":"monthly",
		"start_date":"2025-01-01","due_day":20,"end_date":"2025-12-31","default_payment_method":"Cash","notes":"Meter 42"}`)
	tplID := march.TemplateID
	path := web.BillTemplatesPath + "/" + tplID
	if _, err := env.srv.Ledger().PayBill(ctx, u.ID, march.ID, finance.BillPaymentRequest{Amount: finance.Of(finance.Money(150000))}); err != nil {
		t.Fatal(err)
	}
	aprilBefore := billsOf(t, env, u, tplID, "2025-04-01", "2025-04-30")

	page := b.Get(path)
	if page.Status != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", path, page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)
	for _, want := range []string{"<h1>Edit Power</h1>", `name="amount" inputmode="decimal" autocomplete="off" value="1500.00"`,
		`name="due_day" inputmode="numeric" autocomplete="off" value="20"`, `name="end_date" value="2025-12-31"`, ">Meter 42</textarea>",
		`value="active" checked`, `action="/bills/templates/` + tplID + `/delete"`, `<option value="Cash" selected>Cash</option>`} {
		if !page.Contains(want) {
			t.Errorf("edit form lacks %s", want)
		}
	}
	for name, target := range map[string]string{"unknown": web.BillTemplatesPath + "/0190f1a2-0000-7000-8000-000000000000", "malformed": web.BillTemplatesPath + "/nope"} {
		if x := b.Get(target); x.Status != http.StatusNotFound || !x.Contains("Bill template not found") {
			t.Errorf("%s template: %d", name, x.Status)
		}
	}
	token := testkit.CSRF(t, page)
	form := func() url.Values {
		return url.Values{"csrf": {token}, "name": {"Power"}, "amount": {"1600"}, "category": {"Utilities"}, "frequency": {"monthly"},
			"start_date": {"2025-01-01"}, "due_day": {"20"}, "end_date": {""}, "default_payment_method": {"Cash"}, "notes": {""},
			"status": {"active"}}
	}

	// Refused: no token; amount 0; Account Debit with the account left empty. Nothing changes.
	if x := b.Post(path, url.Values{"csrf": {"forged"}, "amount": {"1"}}); x.Status != http.StatusForbidden {
		t.Errorf("edit with a wrong token: %d", x.Status)
	}
	f := form()
	f.Set("amount", "0")
	if x := b.Post(path, f); x.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(x), `id="t-amount-error">Amount must be greater than 0<`) ||
		!x.Contains(`value="0"`) {
		t.Errorf("amount 0: %d\n%s", x.Status, x.Body)
	}
	f = form()
	f.Set("default_payment_method", "Account Debit")
	if x := b.Post(path, f); x.Status != http.StatusBadRequest ||
		!strings.Contains(testkit.Unescaped(x), `id="t-account-error">Account is required when default_payment_method is Account Debit<`) {
		t.Errorf("debit without an account: %d\n%s", x.Status, x.Body)
	}
	if got, _ := env.srv.Ledger().GetBillTemplate(ctx, u.ID, tplID); got.Amount != 150000 || got.Notes == nil || got.EndDate.IsZero() {
		t.Fatalf("refused edits changed the template: %+v", got)
	}

	// Saved: the amount changes, the end date and notes are cleared; the untouched
	// April bill is made again from the new terms, the paid March bill keeps its own.
	x := b.Post(path, form())
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.BillTemplatesPath+"?notice=template-saved#template-"+tplID {
		t.Fatalf("save: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	got, err := env.srv.Ledger().GetBillTemplate(ctx, u.ID, tplID)
	if err != nil || got.Amount != 160000 || got.Notes != nil || !got.EndDate.IsZero() || got.Status != finance.TemplateActive {
		t.Fatalf("template after the edit: %+v, %v", got, err)
	}
	april := billsOf(t, env, u, tplID, "2025-04-01", "2025-04-30")
	if len(april) != 1 || april[0].Amount != 160000 || april[0].ID == aprilBefore[0].ID {
		t.Errorf("April after the edit %+v (before %+v)", april, aprilBefore)
	}
	if m := getBill(t, env, u, march.ID); m.Amount != 150000 || m.Status != finance.BillPaid {
		t.Errorf("March after the edit %+v", m)
	}
	// Paused: no upcoming bills.
	f = form()
	f.Set("status", "paused")
	if x := b.Post(path, f); x.Status != http.StatusSeeOther {
		t.Fatalf("pause: %d\n%s", x.Status, x.Body)
	}
	if n := len(billsOf(t, env, u, tplID, "2025-04-01", "2025-04-30")); n != 0 {
		t.Errorf("%d April bills while paused", n)
	}
	if !strings.Contains(testkit.Unescaped(b.Get(web.BillTemplatesPath)), `<span class="badge status-paused">Paused</span>`) {
		t.Error("the list does not show the template paused")
	}

	// Deleted: the template is gone (404), the paid March bill stays.
	del := path + "/delete"
	if x := b.Post(del, url.Values{}); x.Status != http.StatusForbidden {
		t.Errorf("delete without a token: %d", x.Status)
	}
	if _, err := env.srv.Ledger().GetBillTemplate(ctx, u.ID, tplID); err != nil {
		t.Fatalf("a refused delete removed the template: %v", err)
	}
	x = b.Post(del, url.Values{"csrf": {token}})
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.BillTemplatesPath+"?notice=template-deleted" {
		t.Fatalf("delete: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	if _, err := env.srv.Ledger().GetBillTemplate(ctx, u.ID, tplID); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("the template after the delete: %v", err)
	}
	if m := getBill(t, env, u, march.ID); m.Status != finance.BillPaid {
		t.Errorf("March after the delete %+v", m)
	}
	if x := b.Get(path); x.Status != http.StatusNotFound {
		t.Errorf("the deleted template's page: %d", x.Status)
	}
	if x := b.Post(del, url.Values{"csrf": {token}}); x.Status != http.StatusNotFound {
		t.Errorf("delete twice: %d", x.Status)
	}
	// The bill's page no longer links to a template to edit.
	if x := b.Get(web.BillsPath + "/" + march.ID); x.Status != http.StatusOK || x.Contains("Edit the bill template") {
		t.Errorf("bill page after the template's deletion: %d", x.Status)
	}
}
