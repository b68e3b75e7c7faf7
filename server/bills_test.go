package server

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Helpers of the bill tests.

const (
	billsURL         = "/api/v1/bills"
	billTemplatesURL = "/api/v1/bills/templates"
)

// newBillEnv is newSpendingEnv with keys that also hold bills:write: today
// is 2025-03-11 in the users' timezone.
func newBillEnv(t *testing.T) (env *testEnv, alice, bob ledgerUser) {
	t.Helper()
	env = newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	mk := func() ledgerUser {
		u := env.createUser(finance.PlanPro)
		return ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeBillsWrite, auth.ScopeExpensesWrite,
			auth.ScopeCardsWrite, auth.ScopeAccountsWrite, auth.ScopeSettingsWrite)}
	}
	return env, mk(), mk()
}

func (u ledgerUser) createTemplate(t testing.TB, body string) finance.BillTemplate {
	t.Helper()
	return send[finance.BillTemplate](t, u, http.MethodPost, billTemplatesURL, body, http.StatusCreated)
}

func (u ledgerUser) bills(t testing.TB, query string) []finance.Bill {
	t.Helper()
	items, _ := page[finance.Bill](t, u, billsURL+"?limit=100&"+query)
	return items
}

func (u ledgerUser) bill(t testing.TB, id string) finance.Bill {
	t.Helper()
	return send[finance.Bill](t, u, http.MethodGet, billsURL+"/"+id, "", http.StatusOK)
}

// billOn returns the one instance of a template due on date.
func (u ledgerUser) billOn(t testing.TB, templateID, date string) finance.Bill {
	t.Helper()
	found := u.bills(t, "templateId="+templateID+"&dateFrom="+date+"&dateTo="+date)
	if len(found) != 1 {
		t.Fatalf("template %s has %d bills due %s, want 1", templateID, len(found), date)
	}
	return found[0]
}

func (u ledgerUser) payBill(t testing.TB, billID, body string) finance.BillPaymentResult {
	t.Helper()
	return send[finance.BillPaymentResult](t, u, http.MethodPost, billsURL+"/"+billID+"/payments", body, http.StatusCreated)
}

// billLines describes bills one per line, to compare lists at a glance:
// "due_date name amount status paid_total".
func billLines(items []finance.Bill) []string {
	out := make([]string, len(items))
	for i, b := range items {
		out[i] = fmt.Sprintf("%s %s %s %s %s", b.DueDate, b.Name, b.Amount, b.Status, b.PaidTotal)
	}
	return out
}

func dueDates(items []finance.Bill) []string {
	return ids(items, func(b finance.Bill) string { return b.DueDate.String() })
}

func billIDs(items []finance.Bill) []string {
	return ids(items, func(b finance.Bill) string { return b.ID })
}

// billState is everything a rejected bill request could have written: the
// spending state (accounts, lines, cards, card rows, expenses), the
// templates, every instance, and every payment.
type billState struct {
	Spending  spendingState
	Templates []finance.BillTemplate
	Bills     []finance.Bill
	Payments  []finance.BillPayment
}

func snapshotBills(t testing.TB, env *testEnv, userID string) billState {
	t.Helper()
	ctx := context.Background()
	repo := env.db.Read()
	all := finance.ListParams{Page: 1, Limit: 10_000, SortBy: "created_at"}
	st := billState{Spending: snapshotSpending(t, env, userID)}
	var err error
	if st.Templates, _, err = repo.ListBillTemplates(ctx, userID, finance.BillTemplateFilter{}, all); err != nil {
		t.Fatalf("ListBillTemplates: %v", err)
	}
	if st.Bills, _, err = repo.ListBills(ctx, userID, finance.BillFilter{}, all); err != nil {
		t.Fatalf("ListBills: %v", err)
	}
	for _, b := range st.Bills {
		for _, status := range finance.PaymentStatuses {
			ps, _, err := repo.ListBillPayments(ctx, userID, b.ID, finance.BillPaymentFilter{Status: status}, all)
			if err != nil {
				t.Fatalf("ListBillPayments: %v", err)
			}
			st.Payments = append(st.Payments, ps...)
		}
	}
	return st
}

// runRejectedBills runs scenarios that must fail and checks after each that
// neither user's data changed, bills and their payments included.
func runRejectedBills(t *testing.T, env *testEnv, users []ledgerUser, scenarios []apiScenario) {
	t.Helper()
	runUnchanged(t, env, users, snapshotBills, scenarios)
}

// The calendar examples of domain.md §4.2 (bill rows) through the routes:
// templates materialize their instances through the end of next month, a
// later dateTo extends that up to a year ahead, and tomorrow's horizon is
// reached with nobody running a job.
func TestBillTemplatesMaterializeInstances(t *testing.T) {
	env, alice, _ := newBillEnv(t)
	// today 2025-03-11: the horizon is 2025-04-30.
	dueDates31 := alice.createTemplate(t, `{"name":"Rent","amount":"15000","category":"Rent & Housing","frequency":"monthly",
		"start_date":"2025-01-10","due_day":31}`)
	if dueDates31.DueDay == nil || *dueDates31.DueDay != 31 || dueDates31.Status != finance.TemplateActive || dueDates31.Category != "Rent & Housing" {
		t.Errorf("created template %+v", dueDates31)
	}
	day5 := alice.createTemplate(t, `{"name":"Water","amount":450,"category":"Utilities","frequency":"monthly","start_date":"2025-02-10","due_day":5}`)
	biweekly := alice.createTemplate(t, `{"name":"Cleaner","amount":800,"category":"Miscellaneous","frequency":"biweekly","start_date":"2025-03-03"}`)
	quarterly := alice.createTemplate(t, `{"name":"Insurance","amount":9000,"category":"Insurance","frequency":"quarterly","start_date":"2024-11-30"}`)
	semiannual := alice.createTemplate(t, `{"name":"Car tax","amount":2500,"category":"Transportation","frequency":"semiannual","start_date":"2024-08-31","end_date":"2025-12-31"}`)
	yearly := alice.createTemplate(t, `{"name":"Domain","amount":900,"category":"Subscriptions","frequency":"yearly","start_date":"2024-03-29","due_day":29}`)
	if quarterly.DueDay == nil || *quarterly.DueDay != 30 {
		t.Errorf("due_day defaults to the start date's day: %v", quarterly.DueDay)
	}
	if biweekly.DueDay != nil {
		t.Errorf("a biweekly template has due_day %d", *biweekly.DueDay)
	}
	check := func(when string, rows []struct {
		template finance.BillTemplate
		query    string
		want     []string
	}) {
		t.Helper()
		for _, tt := range rows {
			got := alice.bills(t, "templateId="+tt.template.ID+tt.query)
			if diff := cmp.Diff(tt.want, dueDates(got)); diff != "" {
				t.Errorf("%s: %s %s (-want +got):\n%s", when, tt.template.Name, tt.query, diff)
			}
		}
	}
	type row = struct {
		template finance.BillTemplate
		query    string
		want     []string
	}
	check("03-11", []row{
		{dueDates31, "", []string{"2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30"}},
		{day5, "", []string{"2025-03-05", "2025-04-05"}},
		{biweekly, "", []string{"2025-03-03", "2025-03-17", "2025-03-31", "2025-04-14", "2025-04-28"}},
		{quarterly, "", []string{"2024-11-30", "2025-02-28"}},
		{semiannual, "", []string{"2024-08-31", "2025-02-28"}},
		{yearly, "", []string{"2024-03-29", "2025-03-29"}},
	})
	rent := alice.billOn(t, dueDates31.ID, "2025-02-28")
	want := finance.Bill{ID: rent.ID, TemplateID: dueDates31.ID, Name: "Rent", CategoryID: dueDates31.CategoryID, Category: "Rent & Housing",
		Amount: 1500000, Currency: "PHP", ScheduledDate: finance.NewDate(2025, 2, 28), DueDate: finance.NewDate(2025, 2, 28), Status: finance.BillUnpaid,
		Remaining: 1500000, IsOverdue: true, DaysUntilDue: -11, CreatedAt: rent.CreatedAt, UpdatedAt: rent.UpdatedAt}
	if diff := cmp.Diff(want, rent, equateDates); diff != "" {
		t.Errorf("an overdue instance (-want +got):\n%s", diff)
	}
	if got := alice.bill(t, rent.ID); cmp.Diff(rent, got, equateDates) != "" {
		t.Errorf("GET /bills/{id} differs from the list: %+v", got)
	}
	// Reading again creates nothing: one instance per occurrence.
	_, before := page[finance.Bill](t, alice, billsURL)
	alice.do(t, http.MethodGet, billsURL+"/summary", "", http.StatusOK)
	if _, after := page[finance.Bill](t, alice, billsURL); after.TotalItems != before.TotalItems || before.TotalItems != 17 {
		t.Errorf("%d bills after a second read, %d before, want 17", after.TotalItems, before.TotalItems)
	}

	// Seven weeks later the horizon is the end of June, with no write in between.
	setToday(env, "2025-05-02")
	check("05-02", []row{
		{day5, "", []string{"2025-03-05", "2025-04-05", "2025-05-05", "2025-06-05"}},
		{yearly, "", []string{"2024-03-29", "2025-03-29"}},
	})
	// A later dateTo materializes further, capped at today + 12 months (2026-05-02).
	check("05-02 with dateTo", []row{
		{quarterly, "&dateTo=2025-12-31", []string{"2024-11-30", "2025-02-28", "2025-05-30", "2025-08-30", "2025-11-30"}},
		{semiannual, "&dateTo=2030-01-01", []string{"2024-08-31", "2025-02-28", "2025-08-31"}}, // end_date 2025-12-31
		{yearly, "&dateTo=2030-01-01", []string{"2024-03-29", "2025-03-29", "2026-03-29"}},
		{dueDates31, "&dateTo=2030-01-01", []string{"2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30", "2025-05-31", "2025-06-30",
			"2025-07-31", "2025-08-31", "2025-09-30", "2025-10-31", "2025-11-30", "2025-12-31", "2026-01-31", "2026-02-28", "2026-03-31", "2026-04-30"}},
	})
}

// Many requests at once, all finding the same template behind, create each
// occurrence once.
func TestBillGenerationIsIdempotentUnderConcurrency(t *testing.T) {
	env, alice, _ := newBillEnv(t)
	tmpl := alice.createTemplate(t, `{"name":"Laundry","amount":300,"category":"Personal Care","frequency":"weekly","start_date":"2025-03-03"}`)
	setToday(env, "2025-09-01") // horizon 2025-10-31: 35 weekly occurrences from 03-03
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			url := billsURL + "/summary"
			if i%2 == 1 {
				url = billsURL + "?templateId=" + tmpl.ID
			}
			alice.do(t, http.MethodGet, url, "", http.StatusOK)
		}()
	}
	wg.Wait()
	got := alice.bills(t, "templateId="+tmpl.ID)
	seen := map[string]bool{}
	for _, b := range got {
		if seen[b.ScheduledDate.String()] {
			t.Errorf("two instances scheduled %s", b.ScheduledDate)
		}
		seen[b.ScheduledDate.String()] = true
	}
	if len(got) != 35 || got[0].DueDate.String() != "2025-03-03" || got[34].DueDate.String() != "2025-10-27" {
		t.Errorf("%d instances from %s to %s, want 35 from 2025-03-03 to 2025-10-27", len(got), got[0].DueDate, got[len(got)-1].DueDate)
	}
}

func TestBillTemplateRejected(t *testing.T) {
	env, alice, bob := newBillEnv(t)
	acct := alice.createAccount(t, `{"name":"Payroll","type":"savings","opening_balance":1000}`)
	bobAcct := bob.createAccount(t, `{"name":"Bob's","type":"savings"}`)
	card := alice.createCard(t, visaBody)
	archived := send[finance.Category](t, alice, http.MethodPost, "/api/v1/categories", `{"name":"Old","kind":"expense"}`, http.StatusCreated)
	alice.do(t, http.MethodDelete, "/api/v1/categories/"+archived.ID, "", http.StatusOK)
	tmpl := alice.createTemplate(t, `{"name":"Rent","amount":1000,"category":"Rent & Housing","frequency":"monthly","start_date":"2025-03-01"}`)
	url := billTemplatesURL + "/" + tmpl.ID
	base := `"name":"X","amount":1,"category":"Utilities","start_date":"2025-03-01"`
	post := func(name, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: billTemplatesURL, body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	runRejectedBills(t, env, []ledgerUser{alice, bob}, []apiScenario{
		post("nothing", `{}`, fieldsOf("name", problemRequired, "amount", problemRequired, "category", problemRequired,
			"frequency", problemRequired, "start_date", problemRequired)),
		post("bad values", `{"name":" ","amount":0,"category":"Utilities","frequency":"daily","start_date":"2025-02-30","end_date":"x","notes":7}`,
			fieldsOf("name", problemRequired, "amount", problemPositive, "frequency", "must be one of: weekly, biweekly, semimonthly, monthly, quarterly, semiannual, yearly",
				"start_date", problemDate, "end_date", problemDate, "notes", "must be a string")),
		post("due_day on a weekly bill", `{`+base+`,"frequency":"weekly","due_day":3}`,
			fieldsOf("due_day", "must be absent for weekly bills, which repeat every 7 or 14 days from start_date")),
		post("due_day out of range", `{`+base+`,"frequency":"monthly","due_day":32}`, fieldsOf("due_day", "must be an integer from 1 to 31")),
		post("start more than 366 days back", `{"name":"X","amount":1,"category":"Utilities","frequency":"yearly","start_date":"2024-03-09"}`,
			fieldsOf("start_date", "must be on or after 2024-03-10 (at most 366 days before today)")),
		post("end before start", `{`+base+`,"frequency":"monthly","end_date":"2025-02-28"}`, fieldsOf("end_date", "must be on or after start_date 2025-03-01")),
		post("archived category", `{"name":"X","amount":1,"category":"old","frequency":"monthly","start_date":"2025-03-01"}`, fieldsOf("category", problemCategory)),
		post("unknown category", `{"name":"X","amount":1,"category":"Nope","frequency":"monthly","start_date":"2025-03-01"}`, fieldsOf("category", problemCategory)),
		post("account debit without an account", `{`+base+`,"frequency":"monthly","default_payment_method":"Account Debit"}`,
			fieldsOf("default_account_id", "is required when default_payment_method is Account Debit")),
		post("a card id with cash", `{`+base+`,"frequency":"monthly","default_payment_method":"cash","default_credit_card_id":"`+card.ID+`"}`,
			fieldsOf("default_credit_card_id", "must be null or absent when default_payment_method is Cash")),
		post("an account id without a method", `{`+base+`,"frequency":"monthly","default_account_id":"`+acct.ID+`"}`,
			fieldsOf("default_account_id", "must be null or absent without a default_payment_method")),
		post("another user's account", `{`+base+`,"frequency":"monthly","default_payment_method":"Account Debit","default_account_id":"`+bobAcct.ID+`"}`,
			fieldsOf("default_account_id", problemAccount)),
		alice.sc(apiScenario{name: "update: weekly keeps no due day", method: http.MethodPut, url: url, body: `{"frequency":"weekly","due_day":1}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("due_day", "must be absent for weekly bills, which repeat every 7 or 14 days from start_date")}),
		alice.sc(apiScenario{name: "update: bad status", method: http.MethodPut, url: url, body: `{"status":"removed"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("status", "must be one of: active, paused")}),
		alice.sc(apiScenario{name: "update: end before the kept start", method: http.MethodPut, url: url, body: `{"end_date":"2025-01-01"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("end_date", "must be on or after start_date 2025-03-01")}),
		bob.sc(apiScenario{name: "another user's template, bad body", method: http.MethodPut, url: url, body: `{`,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's template delete", method: http.MethodDelete, url: url, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "malformed id", method: http.MethodGet, url: billTemplatesURL + "/x", wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "unknown query parameter", method: http.MethodGet, url: billTemplatesURL + "?frequency=monthly",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
		alice.sc(apiScenario{name: "bad list status", method: http.MethodGet, url: billTemplatesURL + "?status=removed",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("status", "must be one of: active, paused")}),
	})
	// A reader without bills:write cannot write bills.
	reader := ledgerUser{env: env, user: alice.user, key: env.createKey(alice.user.ID, auth.ScopeRead)}
	runRejectedBills(t, env, []ledgerUser{alice}, []apiScenario{
		reader.sc(apiScenario{name: "finance:read cannot create", method: http.MethodPost, url: billTemplatesURL,
			body: `{` + base + `,"frequency":"monthly"}`, wantStatus: http.StatusForbidden, wantCode: CodeForbidden}),
	})
	reader.do(t, http.MethodGet, billsURL, "", http.StatusOK)
}

// PUT, pause, resume and DELETE of a template (§2.10): only untouched
// instances (due today or later, unpaid, never paid, never edited) are
// deleted; PUT regenerates from today with the new terms; a paused stretch
// stays empty; other instances keep their own copies.
func TestBillTemplateChanges(t *testing.T) {
	env, alice, _ := newBillEnv(t)
	acct := alice.createAccount(t, `{"name":"Payroll","type":"savings","opening_balance":10000}`)
	tmpl := alice.createTemplate(t, `{"name":"Rent","amount":1500,"category":"Rent & Housing","frequency":"monthly","start_date":"2025-02-01",
		"due_day":15,"default_payment_method":"Account Debit","default_account_id":"`+acct.ID+`"}`)
	url := billTemplatesURL + "/" + tmpl.ID
	list := func() []string { return billLines(alice.bills(t, "templateId="+tmpl.ID)) }
	if diff := cmp.Diff([]string{"2025-02-15 Rent 1500.00 unpaid 0.00", "2025-03-15 Rent 1500.00 unpaid 0.00", "2025-04-15 Rent 1500.00 unpaid 0.00"}, list()); diff != "" {
		t.Fatalf("instances (-want +got):\n%s", diff)
	}
	apr := alice.billOn(t, tmpl.ID, "2025-04-15")
	alice.do(t, http.MethodPut, billsURL+"/"+apr.ID, `{"amount":1600}`, http.StatusOK) // edited: kept from now on
	// A payment made and deleted still touches the instance.
	mar := alice.billOn(t, tmpl.ID, "2025-03-15")
	paid := alice.payBill(t, mar.ID, `{"amount":100}`)
	alice.do(t, http.MethodDelete, billsURL+"/payments/"+paid.Payment.ID, "", http.StatusOK)

	updated := send[finance.BillTemplate](t, alice, http.MethodPut, url, `{"amount":2000,"due_day":20,"name":"Rent (new lease)"}`, http.StatusOK)
	if updated.Amount.String() != "2000.00" || *updated.DueDay != 20 || updated.StartDate.String() != "2025-02-01" {
		t.Errorf("updated template %+v", updated)
	}
	want := []string{"2025-02-15 Rent 1500.00 unpaid 0.00", "2025-03-15 Rent 1500.00 unpaid 0.00", "2025-03-20 Rent (new lease) 2000.00 unpaid 0.00",
		"2025-04-15 Rent 1600.00 unpaid 0.00", "2025-04-20 Rent (new lease) 2000.00 unpaid 0.00"}
	if diff := cmp.Diff(want, list()); diff != "" {
		t.Errorf("after PUT (-want +got):\n%s", diff)
	}
	// A PUT of notes alone regenerates the untouched ones with new ids.
	before := alice.billOn(t, tmpl.ID, "2025-04-20")
	alice.do(t, http.MethodPut, url, `{"notes":"landlord: Ana"}`, http.StatusOK)
	if after := alice.billOn(t, tmpl.ID, "2025-04-20"); after.ID == before.ID {
		t.Errorf("the untouched instance kept its id %s through a PUT", before.ID)
	}

	paused := send[finance.BillTemplate](t, alice, http.MethodPut, url, `{"status":"paused"}`, http.StatusOK)
	if paused.Status != finance.TemplatePaused {
		t.Errorf("paused template %+v", paused)
	}
	if diff := cmp.Diff([]string{want[0], want[1], want[3]}, list()); diff != "" {
		t.Errorf("after pause (-want +got):\n%s", diff)
	}
	if got, _ := page[finance.BillTemplate](t, alice, billTemplatesURL+"?status=paused"); len(got) != 1 || got[0].ID != tmpl.ID {
		t.Errorf("paused templates %+v", got)
	}
	setToday(env, "2025-05-02")
	if diff := cmp.Diff([]string{want[0], want[1], want[3]}, list()); diff != "" {
		t.Errorf("a paused template generated (-want +got):\n%s", diff)
	}
	// Resuming on 05-02 generates from today on: the paused stretch stays empty.
	alice.do(t, http.MethodPut, url, `{"status":"active"}`, http.StatusOK)
	resumed := []string{want[0], want[1], want[3], "2025-05-20 Rent (new lease) 2000.00 unpaid 0.00", "2025-06-20 Rent (new lease) 2000.00 unpaid 0.00"}
	if diff := cmp.Diff(resumed, list()); diff != "" {
		t.Errorf("after resume (-want +got):\n%s", diff)
	}

	removed := send[finance.BillTemplate](t, alice, http.MethodDelete, url, "", http.StatusOK)
	if removed.Status != finance.TemplateRemoved || removed.ID != tmpl.ID {
		t.Errorf("removed template %+v", removed)
	}
	left := alice.bills(t, "templateId="+tmpl.ID)
	if diff := cmp.Diff([]string{want[0], want[1], want[3]}, billLines(left)); diff != "" {
		t.Errorf("after delete (-want +got):\n%s", diff)
	}
	if left[0].DefaultPaymentMethod != nil || left[0].TemplateID != tmpl.ID || left[0].Category != "Rent & Housing" {
		t.Errorf("an instance of a removed template %+v", left[0])
	}
	if got, _ := page[finance.BillTemplate](t, alice, billTemplatesURL); len(got) != 0 {
		t.Errorf("templates after delete %+v", got)
	}
	runRejectedBills(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "read a removed template", method: http.MethodGet, url: url, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "update a removed template", method: http.MethodPut, url: url, body: `{"amount":1}`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "delete twice", method: http.MethodDelete, url: url, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
	// An instance outliving its template is still paid, with a method given.
	res := alice.payBill(t, left[0].ID, `{"amount":1500,"payment_method":"Cash"}`)
	if res.Bill.Status != finance.BillPaid {
		t.Errorf("paying an orphaned instance: %+v", res.Bill)
	}
}

// Payments (§2.10, §3.4): each records an expense with its method's row,
// defaults come from the template, and deleting one voids it all.
func TestBillPayments(t *testing.T) {
	env, alice, bob := newBillEnv(t)
	acct := alice.createAccount(t, `{"name":"Payroll","type":"savings","opening_balance":10000}`)
	card := alice.createCard(t, visaBody) // statement day 15: a purchase of 03-12 stays unbilled
	bobAcct := bob.createAccount(t, `{"name":"Bob's","type":"savings","opening_balance":10000}`)
	tmpl := alice.createTemplate(t, `{"name":"Electricity","amount":3200,"category":"Utilities","frequency":"monthly","start_date":"2025-03-01",
		"due_day":15,"default_payment_method":"Account Debit","default_account_id":"`+acct.ID+`"}`)
	mar := alice.billOn(t, tmpl.ID, "2025-03-15")
	apr := alice.billOn(t, tmpl.ID, "2025-04-15")
	if mar.DefaultPaymentMethod == nil || *mar.DefaultPaymentMethod != finance.MethodAccountDebit || *mar.DefaultAccountID != acct.ID {
		t.Errorf("instance's default payment fields %+v", mar)
	}
	marURL := billsURL + "/" + mar.ID

	// The template's defaults: Account Debit from Payroll, dated today.
	first := alice.payBill(t, mar.ID, `{"amount":"1200","notes":"  first half "}`)
	p := first.Payment
	if p.PaymentMethod != finance.MethodAccountDebit || p.AccountID == nil || *p.AccountID != acct.ID || p.CreditCardID != nil ||
		p.Date.String() != ledgerToday || p.Status != finance.PaymentPosted || p.BillID != mar.ID || *p.Notes != "first half" {
		t.Errorf("payment %+v", p)
	}
	if b := first.Bill; b.Status != finance.BillPartiallyPaid || b.PaidTotal.String() != "1200.00" || b.Remaining.String() != "2000.00" {
		t.Errorf("bill after the first payment %+v", b)
	}
	e := alice.getExpense(t, p.ExpenseID)
	if e.Source != finance.ExpenseBillPayment || e.BillPaymentID == nil || *e.BillPaymentID != p.ID || e.Description != "Electricity (due 2025-03-15)" ||
		*e.Category != "Utilities" || e.Amount.String() != "1200.00" || e.PaymentMethod != finance.MethodAccountDebit || e.AccountTransactionID == nil ||
		e.Notes == nil || *e.Notes != "first half" || e.Status != finance.StatusActive {
		t.Errorf("the payment's expense %+v", e)
	}
	if line := alice.line(t, *e.AccountTransactionID); line.Type != finance.LineDebit || line.Amount.String() != "1200.00" || line.Source != finance.SourceExpense {
		t.Errorf("the expense's account line %+v", line)
	}
	if got := alice.account(t, acct.ID).CurrentBalance.String(); got != "8800.00" {
		t.Errorf("account balance %s, want 8800.00", got)
	}

	// The rest by card, with a category override; the method parses in any case.
	second := alice.payBill(t, mar.ID, `{"amount":2000,"payment_method":"credit card","credit_card_id":"`+card.ID+`","category":"shopping","date":"2025-03-12"}`)
	if b := second.Bill; b.Status != finance.BillPaid || b.Remaining != 0 || b.PaidTotal.String() != "3200.00" || b.MarkedPaidManually {
		t.Errorf("bill after the second payment %+v", b)
	}
	cardExpense := alice.getExpense(t, second.Payment.ExpenseID)
	if *cardExpense.Category != "Shopping" || cardExpense.CardTransactionStatus == nil || *cardExpense.CardTransactionStatus != finance.CardUnbilled ||
		cardExpense.Date.String() != "2025-03-12" {
		t.Errorf("the card payment's expense %+v", cardExpense)
	}
	if got := alice.getCard(t, card.ID); got.OutstandingBalance.String() != "2000.00" {
		t.Errorf("card outstanding %s after a 2000.00 bill payment", got.OutstandingBalance)
	}

	gym := alice.createTemplate(t, `{"name":"Gym","amount":1000,"category":"Health & Medical","frequency":"monthly","start_date":"2025-03-20"}`)
	gymBill := alice.billOn(t, gym.ID, "2025-03-20")
	aprURL := billsURL + "/" + apr.ID
	runRejectedBills(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "pay a paid bill", method: http.MethodPost, url: marURL + "/payments", body: `{"amount":1}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantMessage: "Bill is paid; only an unpaid or partially paid bill takes payments"}),
		alice.sc(apiScenario{name: "a bad body beats the state", method: http.MethodPost, url: marURL + "/payments", body: `{"amount":"1.005"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("amount", problemMoney)}),
		alice.sc(apiScenario{name: "more than remains", method: http.MethodPost, url: aprURL + "/payments", body: `{"amount":"3200.01"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("amount", "must not exceed the remaining amount 3200.00")}),
		alice.sc(apiScenario{name: "shape", method: http.MethodPost, url: aprURL + "/payments",
			body:       `{"payment_method":"Cheque","account_id":"x","date":"2025-3-1","category":" "}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("amount", problemRequired,
				"payment_method", "must be one of: Cash, Account Debit, Credit Card", "account_id", problemAccount, "date", problemDate,
				"category", problemRequired)}),
		alice.sc(apiScenario{name: "an account id with cash", method: http.MethodPost, url: aprURL + "/payments",
			body: `{"amount":1,"payment_method":"Cash","account_id":"` + acct.ID + `"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("account_id", "must be null or absent when payment_method is Cash")}),
		alice.sc(apiScenario{name: "another user's account", method: http.MethodPost, url: aprURL + "/payments",
			body: `{"amount":1,"account_id":"` + bobAcct.ID + `"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("account_id", problemAccount)}),
		alice.sc(apiScenario{name: "card method without a card", method: http.MethodPost, url: aprURL + "/payments",
			body: `{"amount":1,"payment_method":"Credit Card"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("credit_card_id", "is required when payment_method is Credit Card")}),
		alice.sc(apiScenario{name: "no method and no default", method: http.MethodPost, url: billsURL + "/" + gymBill.ID + "/payments",
			body: `{"amount":1}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("payment_method", "is required: the bill's template has no default payment method")}),
		alice.sc(apiScenario{name: "unknown category override", method: http.MethodPost, url: aprURL + "/payments",
			body: `{"amount":1,"category":"Nope"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("category", problemCategory)}),
		bob.sc(apiScenario{name: "another user's bill, bad body", method: http.MethodPost, url: aprURL + "/payments", body: `{`,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's payment", method: http.MethodDelete, url: billsURL + "/payments/" + p.ID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "DELETE /expenses refuses a bill payment", method: http.MethodDelete, url: "/api/v1/expenses/" + p.ExpenseID,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "PUT /expenses refuses its amount", method: http.MethodPut, url: "/api/v1/expenses/" + p.ExpenseID, body: `{"amount":1}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
	})

	// An archived category must be overridden.
	utilities := ""
	for _, c := range send[finance.Page[finance.Category]](t, alice, http.MethodGet, "/api/v1/categories?search=Utilities", "", http.StatusOK).Items {
		utilities = c.ID
	}
	alice.do(t, http.MethodDelete, "/api/v1/categories/"+utilities, "", http.StatusOK)
	runRejectedBills(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "archived category without an override", method: http.MethodPost, url: aprURL + "/payments",
			body: `{"amount":1}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("category", `is required: the bill's category "Utilities" is archived; name an active expense category`)}),
	})
	alice.payBill(t, apr.ID, `{"amount":1,"category":"Miscellaneous","payment_method":"Cash"}`)

	// Deleting the card payment voids the expense and its unbilled row.
	del := send[finance.BillPaymentResult](t, alice, http.MethodDelete, billsURL+"/payments/"+second.Payment.ID, "", http.StatusOK)
	if del.Payment.Status != finance.StatusVoided || del.Payment.VoidedAt == nil || del.Bill.Status != finance.BillPartiallyPaid ||
		del.Bill.PaidTotal.String() != "1200.00" {
		t.Errorf("after deleting the card payment: %+v / %+v", del.Payment, del.Bill)
	}
	if got := alice.getExpense(t, second.Payment.ExpenseID); got.Status != finance.StatusVoided || *got.CardTransactionStatus != finance.StatusVoided {
		t.Errorf("the card payment's expense after the delete %+v", got)
	}
	if got := alice.getCard(t, card.ID); got.OutstandingBalance != 0 {
		t.Errorf("card outstanding %s after the delete", got.OutstandingBalance)
	}
	del = send[finance.BillPaymentResult](t, alice, http.MethodDelete, billsURL+"/payments/"+p.ID, "", http.StatusOK)
	if del.Bill.Status != finance.BillUnpaid || del.Bill.PaidTotal != 0 {
		t.Errorf("after deleting both payments %+v", del.Bill)
	}
	if got := alice.account(t, acct.ID).CurrentBalance.String(); got != "10000.00" {
		t.Errorf("account balance %s after the delete, want 10000.00", got)
	}
	if got := alice.line(t, *e.AccountTransactionID); got.Status != finance.StatusVoided {
		t.Errorf("the account line is %s after the delete", got.Status)
	}
	if got, _ := page[finance.BillPayment](t, alice, marURL+"/payments"); len(got) != 0 {
		t.Errorf("posted payments after deleting both %+v", got)
	}
	if got, _ := page[finance.BillPayment](t, alice, marURL+"/payments?status=voided&sortBy=amount&sortOrder=asc"); len(got) != 2 ||
		got[0].ID != p.ID || got[1].ID != second.Payment.ID {
		t.Errorf("voided payments %+v", got)
	}

	// A back-dated card payment is billed before the reply; it can no longer be deleted.
	billed := alice.createCard(t, `{"name":"Billed","credit_limit":50000,"statement_day":1,"due_day":20,"cycle_start_date":"2025-02-01"}`)
	late := alice.payBill(t, mar.ID, `{"amount":500,"payment_method":"Credit Card","credit_card_id":"`+billed.ID+`","date":"2025-02-20","category":"Miscellaneous"}`)
	if got := alice.getExpense(t, late.Payment.ExpenseID); got.CardTransactionStatus == nil || *got.CardTransactionStatus != finance.CardBilled {
		t.Fatalf("a back-dated card payment's row is %v, want billed", got.CardTransactionStatus)
	}
	runRejectedBills(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "delete a payment whose card row is billed", method: http.MethodDelete, url: billsURL + "/payments/" + late.Payment.ID,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus,
			wantMessage: "Bill payment's card transaction is billed; only a payment whose card transaction is unbilled can be deleted"}),
		alice.sc(apiScenario{name: "delete a voided payment", method: http.MethodDelete, url: billsURL + "/payments/" + p.ID,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantMessage: "Bill payment is already voided"}),
	})
}

// The state table of §3.4 through POST /bills/{id}/status, each row with the
// status, the manual flag and the money recorded (none).
func TestBillStatusTransitions(t *testing.T) {
	env, alice, _ := newBillEnv(t)
	tmpl := alice.createTemplate(t, `{"name":"Internet","amount":1000,"category":"Utilities","frequency":"weekly","start_date":"2025-03-03",
		"default_payment_method":"Cash"}`)
	items := alice.bills(t, "templateId="+tmpl.ID)
	status := func(b finance.Bill, want string) finance.Bill {
		t.Helper()
		return send[finance.Bill](t, alice, http.MethodPost, billsURL+"/"+b.ID+"/status", `{"status":"`+want+`"}`, http.StatusOK)
	}
	refused := func(name string, b finance.Bill, body, msg string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: billsURL + "/" + b.ID + "/status", body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantMessage: msg})
	}
	a, b, c, d := items[0], items[1], items[2], items[3]

	// unpaid → paid by hand → unpaid: no money is recorded.
	got := status(a, "paid")
	if got.Status != finance.BillPaid || !got.MarkedPaidManually || got.PaidTotal != 0 || got.IsOverdue {
		t.Errorf("manual paid %+v", got)
	}
	if expenses, _ := page[finance.Expense](t, alice, "/api/v1/expenses"); len(expenses) != 0 {
		t.Errorf("a manual paid recorded expenses: %+v", expenses)
	}
	if got = status(a, "unpaid"); got.Status != finance.BillUnpaid || got.MarkedPaidManually {
		t.Errorf("back to unpaid %+v", got)
	}
	// unpaid → skipped → unpaid.
	if got = status(b, "skipped"); got.Status != finance.BillSkipped || got.IsOverdue {
		t.Errorf("skipped %+v", got)
	}
	// partially paid → paid by hand keeps the payment; deleting it keeps paid (sticky).
	part := alice.payBill(t, c.ID, `{"amount":400}`)
	if got = status(c, "paid"); got.Status != finance.BillPaid || !got.MarkedPaidManually || got.PaidTotal.String() != "400.00" {
		t.Errorf("partially paid → paid %+v", got)
	}
	// d: paid in full through a payment.
	alice.payBill(t, d.ID, `{"amount":1000}`)
	runRejectedBills(t, env, []ledgerUser{alice}, []apiScenario{
		refused("unpaid → unpaid", a, `{"status":"unpaid"}`, "Bill is already unpaid"),
		refused("skipped → skipped", b, `{"status":"skipped"}`, "Bill is already skipped"),
		refused("skipped → paid", b, `{"status":"paid"}`, "Bill is skipped; set it to unpaid first"),
		refused("manual paid → paid", c, `{"status":"paid"}`, "Bill is already paid"),
		refused("manual paid → skipped", c, `{"status":"skipped"}`, "Bill is paid; only an unpaid bill without payments can be skipped (delete its payments first)"),
		refused("paid from payments → unpaid", d, `{"status":"unpaid"}`, "Bill is paid from its payments; delete the payments instead"),
		refused("paid from payments → skipped", d, `{"status":"skipped"}`, "Bill is paid; only an unpaid bill without payments can be skipped (delete its payments first)"),
		alice.sc(apiScenario{name: "pay a skipped bill", method: http.MethodPost, url: billsURL + "/" + b.ID + "/payments", body: `{"amount":1}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "partially_paid is computed, never requested", method: http.MethodPost, url: billsURL + "/" + a.ID + "/status",
			body: `{"status":"partially_paid"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("status", "must be one of: paid, unpaid, skipped")}),
		alice.sc(apiScenario{name: "no status", method: http.MethodPost, url: billsURL + "/" + a.ID + "/status", body: `{}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("status", problemRequired)}),
	})
	alice.payBill(t, a.ID, `{"amount":300}`)
	runRejectedBills(t, env, []ledgerUser{alice}, []apiScenario{
		refused("partially paid → unpaid", a, `{"status":"unpaid"}`, "Bill is partially_paid from its payments; delete the payments instead"),
		refused("partially paid → skipped", a, `{"status":"skipped"}`,
			"Bill is partially_paid; only an unpaid bill without payments can be skipped (delete its payments first)"),
	})
	res := send[finance.BillPaymentResult](t, alice, http.MethodDelete, billsURL+"/payments/"+part.Payment.ID, "", http.StatusOK)
	if res.Bill.Status != finance.BillPaid || !res.Bill.MarkedPaidManually || res.Bill.PaidTotal != 0 {
		t.Errorf("deleting the payment of a manual paid bill: %+v", res.Bill)
	}
	// Manual paid → unpaid recomputes from the payments; skipped → unpaid.
	if got = status(c, "unpaid"); got.Status != finance.BillUnpaid || got.MarkedPaidManually {
		t.Errorf("manual paid → unpaid %+v", got)
	}
	if got = status(b, "unpaid"); got.Status != finance.BillUnpaid {
		t.Errorf("skipped → unpaid %+v", got)
	}
}

// PUT /bills/{id} changes amount (not below what was paid), due date and
// notes, and recomputes the status.
func TestBillUpdate(t *testing.T) {
	env, alice, bob := newBillEnv(t)
	tmpl := alice.createTemplate(t, `{"name":"Phone","amount":999,"category":"Utilities","frequency":"monthly","start_date":"2025-03-20",
		"default_payment_method":"Cash"}`)
	b := alice.billOn(t, tmpl.ID, "2025-03-20")
	url := billsURL + "/" + b.ID
	alice.payBill(t, b.ID, `{"amount":500}`)
	runRejectedBills(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "below what was paid", method: http.MethodPut, url: url, body: `{"amount":"499.99"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("amount", "must be at least the amount already paid, 500.00")}),
		alice.sc(apiScenario{name: "bad values", method: http.MethodPut, url: url, body: `{"amount":-1,"due_date":null,"notes":1}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("amount", problemPositive, "due_date", problemRequired, "notes", "must be a string")}),
		bob.sc(apiScenario{name: "another user's bill", method: http.MethodPut, url: url, body: `{"amount":"x"}`,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
	got := send[finance.Bill](t, alice, http.MethodPut, url, `{"amount":500,"due_date":"2025-03-01","notes":" late fee waived "}`, http.StatusOK)
	if got.Status != finance.BillPaid || got.Remaining != 0 || got.DueDate.String() != "2025-03-01" || got.ScheduledDate.String() != "2025-03-20" ||
		*got.Notes != "late fee waived" || got.IsOverdue || got.DaysUntilDue != -10 {
		t.Errorf("after lowering the amount to the paid total %+v", got)
	}
	got = send[finance.Bill](t, alice, http.MethodPut, url, `{"amount":800,"notes":null}`, http.StatusOK)
	if got.Status != finance.BillPartiallyPaid || got.Remaining.String() != "300.00" || !got.IsOverdue || got.Notes != nil {
		t.Errorf("after raising the amount %+v", got)
	}
	// Edited: a template change leaves it alone even though it is due later... or earlier.
	alice.do(t, http.MethodPut, billTemplatesURL+"/"+tmpl.ID, `{"amount":1}`, http.StatusOK)
	if again := alice.bill(t, b.ID); again.Amount.String() != "800.00" {
		t.Errorf("a template PUT changed an edited bill: %+v", again)
	}
}

// GET /bills/summary (§5.4) to the centavo, and the list's filters.
func TestBillSummaryAndList(t *testing.T) {
	env, alice, bob := newBillEnv(t)
	// today 2025-03-11; due soon runs to 03-18.
	a := alice.createTemplate(t, `{"name":"Association dues","amount":100,"category":"Rent & Housing","frequency":"monthly","start_date":"2025-02-01","due_day":5,"default_payment_method":"Cash"}`)
	b := alice.createTemplate(t, `{"name":"Broadband","amount":200,"category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":12,"default_payment_method":"Cash"}`)
	c := alice.createTemplate(t, `{"name":"Cleaner","amount":50,"category":"Miscellaneous","frequency":"biweekly","start_date":"2025-03-03","notes":"every other Monday"}`)
	bob.createTemplate(t, `{"name":"Bob's","amount":7,"category":"Utilities","frequency":"weekly","start_date":"2025-03-01"}`)
	aFeb, aMar, bMar := alice.billOn(t, a.ID, "2025-02-05"), alice.billOn(t, a.ID, "2025-03-05"), alice.billOn(t, b.ID, "2025-03-12")
	c03, c17, c31 := alice.billOn(t, c.ID, "2025-03-03"), alice.billOn(t, c.ID, "2025-03-17"), alice.billOn(t, c.ID, "2025-03-31")
	alice.payBill(t, aMar.ID, `{"amount":40}`)
	alice.payBill(t, bMar.ID, `{"amount":150}`)
	alice.do(t, http.MethodPost, billsURL+"/"+c03.ID+"/status", `{"status":"skipped"}`, http.StatusOK)
	alice.do(t, http.MethodPost, billsURL+"/"+c17.ID+"/status", `{"status":"paid"}`, http.StatusOK)
	alice.do(t, http.MethodPut, billsURL+"/"+c17.ID, `{"notes":"paid the ramp cleaning in cash"}`, http.StatusOK)

	sum := send[finance.BillSummary](t, alice, http.MethodGet, billsURL+"/summary", "", http.StatusOK)
	upcoming := billIDs(sum.Upcoming)
	sum.Upcoming = nil
	// A household of one currency: every figure as it always was, nothing converted or left out.
	want := finance.BillSummary{Month: "2025-03", Currency: "PHP", ConversionNote: finance.ConversionNote{MissingRates: []finance.MissingRate{}}, TotalCount: 5, TotalAmount: 40000, PaidAmount: 19000, RemainingAmount: 16000,
		ByStatus: finance.BillStatusTotals{Unpaid: finance.CountAmount{Count: 1, Amount: 5000}, PartiallyPaid: finance.CountAmount{Count: 2, Amount: 30000},
			Paid: finance.CountAmount{Count: 1, Amount: 5000}, Skipped: finance.CountAmount{Count: 1, Amount: 5000}},
		Overdue: finance.CountAmount{Count: 2, Amount: 16000}, DueSoon: finance.CountAmount{Count: 1, Amount: 5000}}
	if diff := cmp.Diff(want, sum); diff != "" {
		t.Errorf("March summary (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{bMar.ID, c31.ID}, upcoming); diff != "" {
		t.Errorf("March upcoming (-want +got):\n%s", diff)
	}
	// The due-soon window is the user's due_soon_days: 20 days reach the cleaner on 03-31 too.
	alice.do(t, http.MethodPut, "/api/v1/user-settings/app", `{"due_soon_days":20}`, http.StatusOK)
	wide := send[finance.BillSummary](t, alice, http.MethodGet, billsURL+"/summary", "", http.StatusOK)
	if want := (finance.CountAmount{Count: 2, Amount: 10000}); wide.DueSoon != want {
		t.Errorf("due soon within 20 days = %+v, want %+v", wide.DueSoon, want)
	}
	alice.do(t, http.MethodPut, "/api/v1/user-settings/app", `{"due_soon_days":7}`, http.StatusOK)
	res := alice.do(t, http.MethodGet, billsURL+"/summary?month=2025-04", "", http.StatusOK)
	for field, want := range map[string]string{"total_count": "4", "total_amount": "400.00", "paid_amount": "0.00", "remaining_amount": "400.00",
		"overdue": `{"count":2,"amount":160.00}`, "due_soon": `{"count":0,"amount":0.00}`, "month": `"2025-04"`} {
		if got := rawField(t, res, field); got != want {
			t.Errorf("April summary %s = %s, want %s", field, got, want)
		}
	}
	var apr finance.BillSummary
	res.decodeData(t, &apr)
	if diff := cmp.Diff([]string{"2025-04-05", "2025-04-12", "2025-04-14", "2025-04-28"}, dueDates(apr.Upcoming)); diff != "" {
		t.Errorf("April upcoming (-want +got):\n%s", diff)
	}
	// A month beyond the horizon materializes it first; one past the one-year cap is empty.
	if dec := send[finance.BillSummary](t, alice, http.MethodGet, billsURL+"/summary?month=2025-12", "", http.StatusOK); dec.TotalCount != 4 {
		t.Errorf("December summary counts %d bills, want 4 (05, 08, 12, 22)", dec.TotalCount)
	}
	if far := send[finance.BillSummary](t, alice, http.MethodGet, billsURL+"/summary?month=2027-01", "", http.StatusOK); far.TotalCount != 0 || len(far.Upcoming) != 0 {
		t.Errorf("a month past the cap: %+v", far)
	}

	q := func(query string) []string { return billIDs(alice.bills(t, query+"&dateTo=2025-03-31")) }
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"", []string{aFeb.ID, c03.ID, aMar.ID, bMar.ID, c17.ID, c31.ID}},
		{"status=open", []string{aFeb.ID, aMar.ID, bMar.ID, c31.ID}},
		{"status=overdue", []string{aFeb.ID, aMar.ID}},
		{"status=partially_paid", []string{aMar.ID, bMar.ID}},
		{"status=skipped", []string{c03.ID}},
		{"status=paid", []string{c17.ID}},
		{"dateFrom=2025-03-05&status=unpaid", []string{c31.ID}},
		{"category=UTILITIES", []string{bMar.ID}},
		{"category=nope", nil},
		{"search=CLEAN", []string{c03.ID, c17.ID, c31.ID}},
		{"search=ramp", []string{c17.ID}}, // the instance's own notes
		{"search=ASSOC", []string{aFeb.ID, aMar.ID}},
		{"templateId=" + c.ID + "&sortOrder=desc", []string{c31.ID, c17.ID, c03.ID}},
		{"templateId=" + unknownID, nil},
		{"sortBy=amount&sortOrder=desc&dateFrom=2025-03-01", []string{bMar.ID, aMar.ID, c31.ID, c17.ID, c03.ID}},
		{"sortBy=name&dateFrom=2025-03-04", []string{aMar.ID, bMar.ID, c17.ID, c31.ID}},
	} {
		want := tt.want
		if want == nil {
			want = []string{}
		}
		if diff := cmp.Diff(want, q(tt.query)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.query, diff)
		}
	}
	if got, pg := page[finance.Bill](t, alice, billsURL+"?limit=2&page=2&dateTo=2025-03-31"); cmp.Diff([]string{aMar.ID, bMar.ID}, billIDs(got)) != "" ||
		pg != (finance.Pagination{Page: 2, Limit: 2, TotalItems: 6, TotalPages: 3}) {
		t.Errorf("page 2: %v %+v", billIDs(got), pg)
	}
	runRejectedBills(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "bad filters", method: http.MethodGet,
			url:        billsURL + "?status=late&templateId=x&dateFrom=2025-04-01&dateTo=2025-03-01&sortBy=date",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("status", "must be one of: unpaid, partially_paid, paid, skipped, open, overdue", "templateId", "must be a UUID",
				"dateFrom", "must not be after dateTo", "sortBy", "must be one of: due_date, amount, name, created_at")}),
		alice.sc(apiScenario{name: "unknown parameter", method: http.MethodGet, url: billsURL + "?month=2025-03",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
		alice.sc(apiScenario{name: "bad month", method: http.MethodGet, url: billsURL + "/summary?month=2025-13",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("month", "must be a month in YYYY-MM format between 1900-01 and 2100-12")}),
		alice.sc(apiScenario{name: "bad payment list filter", method: http.MethodGet, url: billsURL + "/" + aMar.ID + "/payments?status=open",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
	})

	opts := send[finance.BillFormOptions](t, alice, http.MethodGet, billsURL+"/form-options", "", http.StatusOK)
	if diff := cmp.Diff([]finance.TemplateOption{{ID: a.ID, Name: "Association dues"}, {ID: b.ID, Name: "Broadband"}, {ID: c.ID, Name: "Cleaner"}}, opts.Templates); diff != "" {
		t.Errorf("form options templates (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(finance.Frequencies, opts.Frequencies); diff != "" || len(opts.Categories) == 0 ||
		cmp.Diff([]string{"unpaid", "partially_paid", "paid", "skipped"}, opts.Statuses) != "" {
		t.Errorf("form options %+v", opts)
	}
	tpls, _ := page[finance.BillTemplate](t, alice, billTemplatesURL+"?sortBy=amount&sortOrder=desc")
	if diff := cmp.Diff([]string{b.ID, a.ID, c.ID}, ids(tpls, func(t finance.BillTemplate) string { return t.ID })); diff != "" {
		t.Errorf("templates by amount (-want +got):\n%s", diff)
	}
	if got, _ := page[finance.BillTemplate](t, alice, billTemplatesURL+"?category=utilities&search=band"); len(got) != 1 || got[0].ID != b.ID {
		t.Errorf("templates by category and search %+v", got)
	}
}

// BenchmarkGenerateBillsNothingDue is the cost every request under /bills
// pays when no template is behind its horizon: one indexed EXISTS read,
// whatever the number of templates (here 50, each materialized).
func BenchmarkGenerateBillsNothingDue(b *testing.B) {
	env := newTestEnv(b)
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	u := env.createUser(finance.PlanPro)
	alice := ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeBillsWrite)}
	for i := range 50 {
		alice.createTemplate(b, fmt.Sprintf(`{"name":"Bill %d","amount":100,"category":"Utilities","frequency":"weekly","start_date":"2025-01-06"}`, i))
	}
	ctx := context.Background()
	for b.Loop() {
		if err := env.srv.Ledger().GenerateBills(ctx, u.ID, finance.Date{}); err != nil {
			b.Fatal(err)
		}
	}
}
