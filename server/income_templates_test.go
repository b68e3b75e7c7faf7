package server

import (
	"context"
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

const (
	incomeTemplatesURL = "/api/v1/income/templates"
	expectedIncomeURL  = "/api/v1/income/expected"
	salaryTemplate     = `{"name":"Salary","amount":"25000.50","category":"Salary","frequency":"semimonthly",` +
		`"start_date":"2025-01-01","due_day":15,"second_due_day":31}`
)

func (u ledgerUser) createIncomeTemplate(t testing.TB, body string) finance.IncomeTemplate {
	t.Helper()
	return send[finance.IncomeTemplate](t, u, http.MethodPost, incomeTemplatesURL, body, http.StatusCreated)
}

func (u ledgerUser) expectedIncome(t testing.TB, query string) []finance.ExpectedIncome {
	t.Helper()
	items, _ := page[finance.ExpectedIncome](t, u, expectedIncomeURL+"?limit=100&"+query)
	return items
}

// expectedOn returns the one entry of a template expected on date.
func (u ledgerUser) expectedOn(t testing.TB, templateID, date string) finance.ExpectedIncome {
	t.Helper()
	found := u.expectedIncome(t, "templateId="+templateID+"&dateFrom="+date+"&dateTo="+date)
	if len(found) != 1 {
		t.Fatalf("template %s has %d entries on %s, want 1", templateID, len(found), date)
	}
	return found[0]
}

func expectedLines(items []finance.ExpectedIncome) []string {
	return ids(items, func(e finance.ExpectedIncome) string {
		return e.ExpectedDate.String() + " " + e.Amount.String() + " " + e.Status
	})
}

// incomeCount is how many active income records u has, read from the database.
func (u ledgerUser) incomeCount(t testing.TB) int {
	t.Helper()
	_, n, err := u.env.db.Read().ListIncome(context.Background(), u.user.ID, "PHP",
		finance.IncomeFilter{Status: finance.IncomeActive}, finance.ListParams{Page: 1, Limit: 1, SortBy: "date"})
	if err != nil {
		t.Fatal(err)
	}
	return n.Count
}

// The 15th and the last day from January through the horizon (today
// 2025-03-11: the end of April), and on to a dateTo in June: February's
// second date is the 28th, 30-day months end on the 30th.
func TestIncomeTemplateSemimonthlyDates(t *testing.T) {
	_, alice, _ := newLedgerEnv(t)
	res := alice.do(t, http.MethodPost, incomeTemplatesURL, salaryTemplate, http.StatusCreated)
	var tmpl finance.IncomeTemplate
	res.decodeData(t, &tmpl)
	want := map[string]any{"id": tmpl.ID, "name": "Salary", "amount": 25000.50, "currency": "PHP", "category_id": tmpl.CategoryID,
		"category": "Salary", "frequency": "semimonthly", "start_date": "2025-01-01", "due_day": 15, "second_due_day": 31,
		"status": "active", "created_at": ledgerStamp, "updated_at": ledgerStamp}
	if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, res.env.Data)); diff != "" {
		t.Errorf("template (-want +got):\n%s", diff)
	}
	got := expectedLines(alice.expectedIncome(t, ""))
	wantDates := []string{"2025-01-15", "2025-01-31", "2025-02-15", "2025-02-28", "2025-03-15", "2025-03-31",
		"2025-04-15", "2025-04-30"}
	var wantLines []string
	for _, d := range wantDates {
		wantLines = append(wantLines, d+" 25000.50 expected")
	}
	if diff := cmp.Diff(wantLines, got); diff != "" {
		t.Errorf("expected income (-want +got):\n%s", diff)
	}
	later := ids(alice.expectedIncome(t, "dateFrom=2025-05-01&dateTo=2025-06-30"),
		func(e finance.ExpectedIncome) string { return e.ExpectedDate.String() })
	if diff := cmp.Diff([]string{"2025-05-15", "2025-05-31", "2025-06-15", "2025-06-30"}, later); diff != "" {
		t.Errorf("a later dateTo (-want +got):\n%s", diff)
	}
}

// A semi-monthly bill template falls on both days too, through a leap February.
func TestBillTemplateSemimonthly(t *testing.T) {
	env, alice, _ := newBillEnv(t)
	setToday(env, "2024-02-10")
	tmpl := alice.createTemplate(t, `{"name":"Allowance","amount":500,"category":"Utilities","frequency":"semimonthly",`+
		`"start_date":"2024-01-20","due_day":10,"second_due_day":31}`)
	if tmpl.SecondDueDay == nil || *tmpl.SecondDueDay != 31 || *tmpl.DueDay != 10 {
		t.Fatalf("days %v and %v, want 10 and 31", tmpl.DueDay, tmpl.SecondDueDay)
	}
	got := dueDates(alice.bills(t, "templateId="+tmpl.ID))
	if diff := cmp.Diff([]string{"2024-01-31", "2024-02-10", "2024-02-29", "2024-03-10", "2024-03-31"}, got); diff != "" {
		t.Errorf("bills (-want +got):\n%s", diff)
	}
	// A change to monthly drops the second day.
	changed := send[finance.BillTemplate](t, alice, http.MethodPut, billTemplatesURL+"/"+tmpl.ID, `{"frequency":"monthly"}`, http.StatusOK)
	if changed.SecondDueDay != nil {
		t.Errorf("second_due_day %d after a change to monthly, want null", *changed.SecondDueDay)
	}
}

// Confirming records the income and its one account line in one go;
// confirming again records nothing more.
func TestExpectedIncomeConfirmIntoAccount(t *testing.T) {
	_, alice, _ := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"100.00"}`)
	tmpl := alice.createIncomeTemplate(t, `{"name":"Salary","amount":"25000.50","category":"Salary","frequency":"semimonthly",`+
		`"start_date":"2025-03-01","due_day":15,"second_due_day":31,"account_id":"`+bpi.ID+`"}`)
	entry := alice.expectedOn(t, tmpl.ID, "2025-03-15")
	if entry.AccountID == nil || *entry.AccountID != bpi.ID {
		t.Fatalf("entry account %v, want the template's %s", entry.AccountID, bpi.ID)
	}
	url := expectedIncomeURL + "/" + entry.ID + "/confirm"
	got := send[finance.ExpectedIncome](t, alice, http.MethodPost, url, ``, http.StatusOK)
	if got.Status != finance.ExpectedReceived || got.IncomeID == nil {
		t.Fatalf("after confirm: status %s income %v, want received with an income", got.Status, got.IncomeID)
	}
	in := alice.income(t, *got.IncomeID)
	if in.Amount.String() != "25000.50" || in.Date.String() != "2025-03-15" || in.Category != "Salary" ||
		in.Description == nil || *in.Description != "Salary" || in.AccountID == nil || *in.AccountID != bpi.ID {
		t.Errorf("income %+v, want 25000.50 on 2025-03-15 in Salary described Salary, into BPI", in)
	}
	if bal := alice.account(t, bpi.ID).CurrentBalance; bal.String() != "25100.50" {
		t.Errorf("balance %s, want 25100.50", bal)
	}
	posted, _ := alice.incomeLines(t, bpi.ID)
	if len(posted) != 1 || posted[0].Amount.String() != "25000.50" {
		t.Errorf("%d income lines, want one of 25000.50", len(posted))
	}

	// Twice: the same entry back, nothing written.
	again := send[finance.ExpectedIncome](t, alice, http.MethodPost, url, `{"amount":"1.00"}`, http.StatusOK)
	if *again.IncomeID != *got.IncomeID || alice.incomeCount(t) != 1 {
		t.Errorf("confirming twice: income %s (first %s), %d income records, want the first and 1", *again.IncomeID, *got.IncomeID, alice.incomeCount(t))
	}
	if bal := alice.account(t, bpi.ID).CurrentBalance; bal.String() != "25100.50" {
		t.Errorf("balance after a second confirm %s, want 25100.50", bal)
	}

	// With another amount and date and no account.
	other := alice.expectedOn(t, tmpl.ID, "2025-03-31")
	got = send[finance.ExpectedIncome](t, alice, http.MethodPost, expectedIncomeURL+"/"+other.ID+"/confirm",
		`{"amount":"24000","date":"2025-04-01","account_id":null}`, http.StatusOK)
	in = alice.income(t, *got.IncomeID)
	if in.Amount.String() != "24000.00" || in.Date.String() != "2025-04-01" || in.AccountID != nil {
		t.Errorf("overridden income %+v, want 24000.00 on 2025-04-01 with no account", in)
	}
	if bal := alice.account(t, bpi.ID).CurrentBalance; bal.String() != "25100.50" {
		t.Errorf("balance after a confirm without account %s, want 25100.50", bal)
	}

	// A voided income lets the entry be confirmed again.
	alice.do(t, http.MethodDelete, "/api/v1/income/"+*got.IncomeID, "", http.StatusOK)
	re := send[finance.ExpectedIncome](t, alice, http.MethodPost, expectedIncomeURL+"/"+other.ID+"/confirm", `{}`, http.StatusOK)
	if *re.IncomeID == *got.IncomeID || alice.incomeCount(t) != 2 {
		t.Errorf("after voiding its income, a confirm gave income %s (voided %s) and %d records, want a new one and 2", *re.IncomeID, *got.IncomeID, alice.incomeCount(t))
	}
}

// Skip marks an entry skipped and records nothing; a received one is refused.
func TestExpectedIncomeSkip(t *testing.T) {
	_, alice, _ := newLedgerEnv(t)
	tmpl := alice.createIncomeTemplate(t, salaryTemplate)
	entry := alice.expectedOn(t, tmpl.ID, "2025-03-15")
	skip := expectedIncomeURL + "/" + entry.ID + "/skip"
	got := send[finance.ExpectedIncome](t, alice, http.MethodPost, skip, ``, http.StatusOK)
	if got.Status != finance.ExpectedSkipped || got.IncomeID != nil || alice.incomeCount(t) != 0 {
		t.Errorf("skipped: status %s income %v, %d income records; want skipped, none, 0", got.Status, got.IncomeID, alice.incomeCount(t))
	}
	send[finance.ExpectedIncome](t, alice, http.MethodPost, skip, ``, http.StatusOK) // again: unchanged
	// A skipped entry can still be confirmed, and then not skipped.
	got = send[finance.ExpectedIncome](t, alice, http.MethodPost, expectedIncomeURL+"/"+entry.ID+"/confirm", ``, http.StatusOK)
	if got.Status != finance.ExpectedReceived {
		t.Errorf("confirmed after a skip: %s, want received", got.Status)
	}
	alice.sc(apiScenario{method: http.MethodPost, url: skip, wantStatus: http.StatusBadRequest, wantCode: "INVALID_STATUS"}).run(t, alice.env)
	if e := alice.expectedOn(t, tmpl.ID, "2025-03-15"); e.Status != finance.ExpectedReceived || alice.incomeCount(t) != 1 {
		t.Errorf("after a refused skip: %s and %d income, want received and 1", e.Status, alice.incomeCount(t))
	}
}

// Requests generating at once create each date once (the unique index).
func TestExpectedIncomeGenerationUnderConcurrency(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	tmpl := alice.createIncomeTemplate(t, `{"name":"Tips","amount":300,"category":"Salary","frequency":"weekly","start_date":"2025-03-03"}`)
	setToday(env, "2025-09-01") // horizon 2025-10-31: 35 weekly occurrences from 03-03
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			alice.do(t, http.MethodGet, expectedIncomeURL+"?templateId="+tmpl.ID, "", http.StatusOK)
		}()
	}
	wg.Wait()
	got := alice.expectedIncome(t, "templateId="+tmpl.ID)
	seen := map[string]bool{}
	for _, e := range got {
		if seen[e.ExpectedDate.String()] {
			t.Errorf("two entries on %s", e.ExpectedDate)
		}
		seen[e.ExpectedDate.String()] = true
	}
	if len(got) != 35 || got[0].ExpectedDate.String() != "2025-03-03" || got[34].ExpectedDate.String() != "2025-10-27" {
		t.Errorf("%d entries, want 35 from 2025-03-03 to 2025-10-27", len(got))
	}
}

// Refusals name the field and write nothing.
func TestIncomeTemplateRejected(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	bobAcct := bob.createAccount(t, `{"name":"Bob's","type":"savings"}`)
	base := `"name":"Pay","amount":1,"category":"Salary","start_date":"2025-03-01"`
	post := func(name, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: incomeTemplatesURL, body: body,
			wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR", wantFields: fields})
	}
	runScenarios(t, env, []apiScenario{
		post("semimonthly without a second day", `{`+base+`,"frequency":"semimonthly","due_day":15}`,
			map[string]string{"second_due_day": "is required"}),
		post("first day after 27", `{`+base+`,"frequency":"semimonthly","due_day":28,"second_due_day":31}`,
			map[string]string{"due_day": "must be from 1 to 27 for semimonthly (the first of the two days; 31 as second_due_day means the last day)"}),
		post("second day not after the first", `{`+base+`,"frequency":"semimonthly","due_day":15,"second_due_day":15}`,
			map[string]string{"second_due_day": "must be after due_day (up to 31, the last day of the month)"}),
		post("second day on monthly", `{`+base+`,"frequency":"monthly","second_due_day":20}`,
			map[string]string{"second_due_day": "must be absent unless frequency is semimonthly"}),
		post("second day out of range", `{`+base+`,"frequency":"semimonthly","due_day":1,"second_due_day":32}`,
			map[string]string{"second_due_day": "must be an integer from 1 to 31"}),
		post("an expense category", `{"name":"Pay","amount":1,"category":"Utilities","start_date":"2025-03-01","frequency":"monthly"}`, nil),
		post("another user's account", `{`+base+`,"frequency":"monthly","account_id":"`+bobAcct.ID+`"}`, nil),
		post("unknown frequency", `{`+base+`,"frequency":"daily"}`, nil),
	})
	if items := alice.expectedIncome(t, ""); len(items) != 0 {
		t.Errorf("%d entries after refused creates, want 0", len(items))
	}
	tmpl := alice.createIncomeTemplate(t, salaryTemplate)
	entry := alice.expectedOn(t, tmpl.ID, "2025-03-15")
	confirm := expectedIncomeURL + "/" + entry.ID + "/confirm"
	for _, c := range []struct{ body, field string }{
		{`{"amount":"-1"}`, "amount"},
		{`{"date":"2025-02-30"}`, "date"},
		{`{"account_id":"` + bobAcct.ID + `"}`, "account_id"},
	} {
		res := alice.sc(apiScenario{method: http.MethodPost, url: confirm, body: c.body, wantStatus: http.StatusBadRequest,
			wantCode: "VALIDATION_ERROR"}).run(t, env)
		if _, ok := res.env.Error.Fields[c.field]; !ok {
			t.Errorf("confirm %s: fields %v, want %s named", c.body, res.env.Error.Fields, c.field)
		}
	}
	if e := alice.expectedOn(t, tmpl.ID, "2025-03-15"); e.Status != finance.ExpectedPending || alice.incomeCount(t) != 0 {
		t.Errorf("after refused confirms: %s and %d income, want expected and 0", e.Status, alice.incomeCount(t))
	}
}

// Reading takes finance:read, writing income:write; another user's records are 404.
func TestIncomeTemplateScopesAndOwners(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	tmpl := alice.createIncomeTemplate(t, salaryTemplate)
	entry := alice.expectedOn(t, tmpl.ID, "2025-03-15")
	reader := ledgerUser{env: env, user: alice.user, key: env.createKey(alice.user.ID, auth.ScopeRead)}
	spender := ledgerUser{env: env, user: alice.user, key: env.createKey(alice.user.ID, auth.ScopeExpensesWrite)}
	reader.do(t, http.MethodGet, expectedIncomeURL, "", http.StatusOK)
	reader.do(t, http.MethodGet, incomeTemplatesURL+"/"+tmpl.ID, "", http.StatusOK)
	for _, r := range []struct{ method, url, body string }{
		{http.MethodPost, incomeTemplatesURL, salaryTemplate},
		{http.MethodPut, incomeTemplatesURL + "/" + tmpl.ID, `{"amount":1}`},
		{http.MethodDelete, incomeTemplatesURL + "/" + tmpl.ID, ``},
		{http.MethodPost, expectedIncomeURL + "/" + entry.ID + "/confirm", `{}`},
		{http.MethodPost, expectedIncomeURL + "/" + entry.ID + "/skip", ``},
	} {
		reader.sc(apiScenario{method: r.method, url: r.url, body: r.body, wantStatus: http.StatusForbidden, wantCode: "FORBIDDEN"}).run(t, env)
	}
	spender.sc(apiScenario{method: http.MethodGet, url: expectedIncomeURL, wantStatus: http.StatusForbidden, wantCode: "FORBIDDEN"}).run(t, env)
	for _, r := range []struct{ method, url, body string }{
		{http.MethodGet, incomeTemplatesURL + "/" + tmpl.ID, ``},
		{http.MethodPut, incomeTemplatesURL + "/" + tmpl.ID, `{"amount":1}`},
		{http.MethodDelete, incomeTemplatesURL + "/" + tmpl.ID, ``},
		{http.MethodPost, expectedIncomeURL + "/" + entry.ID + "/confirm", `{}`},
		{http.MethodPost, expectedIncomeURL + "/" + entry.ID + "/skip", ``},
	} {
		bob.sc(apiScenario{method: r.method, url: r.url, body: r.body, wantStatus: http.StatusNotFound, wantCode: "NOT_FOUND"}).run(t, env)
	}
	if items := bob.expectedIncome(t, ""); len(items) != 0 {
		t.Errorf("bob sees %d entries, want 0", len(items))
	}
	if e := alice.expectedOn(t, tmpl.ID, "2025-03-15"); e.Status != finance.ExpectedPending || e.Amount.String() != "25000.50" {
		t.Errorf("alice's entry after refused writes: %s %s, want expected 25000.50", e.Status, e.Amount)
	}
	if got := alice.expectedIncome(t, "templateId="+tmpl.ID); len(got) != 8 {
		t.Errorf("alice has %d entries after refused deletes, want 8", len(got))
	}
}

// Deleting a template deletes its entries still expected from today on;
// received, skipped and earlier ones stay.
func TestIncomeTemplateDelete(t *testing.T) {
	_, alice, _ := newLedgerEnv(t)
	tmpl := alice.createIncomeTemplate(t, salaryTemplate)
	received := alice.expectedOn(t, tmpl.ID, "2025-03-15")
	send[finance.ExpectedIncome](t, alice, http.MethodPost, expectedIncomeURL+"/"+received.ID+"/confirm", ``, http.StatusOK)
	skipped := alice.expectedOn(t, tmpl.ID, "2025-04-15")
	send[finance.ExpectedIncome](t, alice, http.MethodPost, expectedIncomeURL+"/"+skipped.ID+"/skip", ``, http.StatusOK)
	removed := send[finance.IncomeTemplate](t, alice, http.MethodDelete, incomeTemplatesURL+"/"+tmpl.ID, ``, http.StatusOK)
	if removed.Status != finance.TemplateRemoved {
		t.Errorf("status %s, want removed", removed.Status)
	}
	alice.sc(apiScenario{method: http.MethodGet, url: incomeTemplatesURL + "/" + tmpl.ID, wantStatus: http.StatusNotFound, wantCode: "NOT_FOUND"}).run(t, alice.env)
	got := expectedLines(alice.expectedIncome(t, ""))
	want := []string{"2025-01-15 25000.50 expected", "2025-01-31 25000.50 expected", "2025-02-15 25000.50 expected",
		"2025-02-28 25000.50 expected", "2025-03-15 25000.50 received", "2025-04-15 25000.50 skipped"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("entries after the delete (-want +got):\n%s", diff)
	}
	if alice.incomeCount(t) != 1 {
		t.Errorf("%d income records, want the received one", alice.incomeCount(t))
	}
}

// A second materialization of a date already there (another replica's, or a
// request that read the template before this one marked it generated) adds
// nothing: the entries are unique per (template, date) in the database.
func TestExpectedIncomeIsUniquePerDate(t *testing.T) {
	_, alice, _ := newLedgerEnv(t)
	tmpl := alice.createIncomeTemplate(t, salaryTemplate)
	entry := alice.expectedOn(t, tmpl.ID, "2025-03-15")
	again := entry
	again.ID = finance.NewID()
	again.Amount = 1
	err := alice.env.db.Write(context.Background(), func(tx finance.Repo) error {
		return tx.InsertExpectedIncome(context.Background(), alice.user.ID, []finance.ExpectedIncome{again})
	})
	if err != nil {
		t.Fatalf("a second insert of 2025-03-15: %v", err)
	}
	got := alice.expectedIncome(t, "templateId="+tmpl.ID+"&dateFrom=2025-03-15&dateTo=2025-03-15")
	if len(got) != 1 || got[0].ID != entry.ID || got[0].Amount != entry.Amount {
		t.Errorf("entries on 2025-03-15: %+v, want only the first", got)
	}
}
