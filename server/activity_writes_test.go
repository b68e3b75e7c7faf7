package server

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// The activity of reconciling, recurring income, reminders and category
// rules (docs/domain.md "Reconciling, recurring income, reminders and
// category rules"), read as a client reads it: through GET /activity.

// activityReader reads u's activity through GET /api/v1/activity with a
// finance:read key of u's own.
type activityReader struct {
	u   ledgerUser
	key string
}

func newActivityReader(u ledgerUser) activityReader {
	return activityReader{u: u, key: u.env.createKey(u.user.ID, auth.ScopeRead)}
}

// list returns the entries the query selects, newest first.
func (r activityReader) list(t testing.TB, query string) []finance.Activity {
	t.Helper()
	var page finance.Page[finance.Activity]
	apiScenario{method: http.MethodGet, url: "/api/v1/activity?limit=100" + query, headers: bearer(r.key),
		wantStatus: http.StatusOK}.run(t, r.u.env).decodeData(t, &page)
	return page.Items
}

// loggedEntry is what a test compares of an entry: what a person reads.
type loggedEntry struct {
	Actor, Source, Kind, RecordID, Action, Summary, Amount string
}

func logged(items []finance.Activity) []loggedEntry {
	out := make([]loggedEntry, len(items))
	for i, a := range items {
		amount := "none"
		if a.Amount != nil {
			amount = a.Amount.String()
		}
		out[i] = loggedEntry{Actor: a.Actor.Kind + " " + a.Actor.Name, Source: a.Source, Kind: a.Kind, RecordID: a.RecordID,
			Action: a.Action, Summary: a.Summary, Amount: amount}
	}
	return out
}

// since runs write and returns the entries it added, oldest first.
func (r activityReader) since(t testing.TB, write func()) []loggedEntry {
	t.Helper()
	before := len(r.list(t, ""))
	write()
	after := r.list(t, "")
	added := after[:len(after)-before]
	out := logged(added)
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// checkAdded runs write and checks the entries it added, oldest first.
func (r activityReader) checkAdded(t testing.TB, what string, want []loggedEntry, write func()) {
	t.Helper()
	got := r.since(t, write)
	if want == nil {
		want = []loggedEntry{}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: entries added (-want +got):\n%s", what, diff)
	}
}

// keyEntry is an entry of u's key through REST.
func keyEntry(kind, id, action, summary, amount string) loggedEntry {
	return loggedEntry{Actor: finance.ActorAPIKey + " test key", Source: finance.WriteManual, Kind: kind, RecordID: id,
		Action: action, Summary: summary, Amount: amount}
}

// Ticking lines off one at a time records each line; the bulk route and a
// reconcile that marks lines record the account once, with the count. A
// mark that changes nothing, and a refused one, record nothing.
func TestActivityRecordsReconciling(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	r := newActivityReader(alice)
	b := newReconcileBook(t, env, alice)
	if got := logged(r.list(t, "&kind=account"))[0]; got != keyEntry("account", b.bpi.ID, "updated",
		`Marked 3 lines cleared on "BPI"`, "2249.50") {
		t.Errorf("the book's bulk mark of three lines: %+v", got)
	}
	lineURL := func(id string) string { return "/api/v1/accounts/" + b.bpi.ID + "/transactions/" + id }

	r.checkAdded(t, "a transfer's line ticked off on its own route", []loggedEntry{
		keyEntry("account_transaction", b.transferLine, "updated",
			`Debit of 500.00 on 2025-03-05 marked cleared on "BPI": "Transfer to GCash"`, "500.00"),
	}, func() { alice.do(t, http.MethodPut, lineURL(b.transferLine), `{"cleared":"cleared"}`, http.StatusOK) })
	r.checkAdded(t, "the same mark again", nil, func() {
		alice.do(t, http.MethodPut, lineURL(b.transferLine), `{"cleared":"cleared"}`, http.StatusOK)
		b.mark(t, "cleared", b.salary.ID, b.transferLine)
	})
	r.checkAdded(t, "a reconcile with a difference", nil, func() {
		alice.do(t, http.MethodPost, b.reconcile, `{"date":"2025-03-15","statement_balance":4000}`, http.StatusOK)
	})
	r.checkAdded(t, "a reconcile that matches", []loggedEntry{
		keyEntry("account", b.bpi.ID, "updated", `Reconciled 3 lines on "BPI": statement of 2025-03-15, balance 4249.50`, "2249.50"),
	}, func() {
		alice.do(t, http.MethodPost, b.reconcile, `{"date":"2025-03-15","statement_balance":4249.50}`, http.StatusOK)
	})
	r.checkAdded(t, "the same reconcile again", nil, func() {
		alice.do(t, http.MethodPost, b.reconcile, `{"date":"2025-03-15","statement_balance":4249.50}`, http.StatusOK)
	})
	r.checkAdded(t, "a bulk mark un-reconciling one line", []loggedEntry{
		keyEntry("account", b.bpi.ID, "updated", `Marked 2 lines pending on "BPI", 1 of them no longer reconciled`, "2249.50"),
	}, func() { b.mark(t, "pending", b.groceries.ID, b.rent.ID) })
	r.checkAdded(t, "one line un-reconciled on its own route", []loggedEntry{
		keyEntry("account_transaction", b.salary.ID, "updated",
			`Credit of 5000.00 on 2025-03-01 un-reconciled and marked cleared on "BPI": "Salary"`, "5000.00"),
	}, func() { alice.do(t, http.MethodPut, lineURL(b.salary.ID), `{"cleared":"cleared"}`, http.StatusOK) })
	r.checkAdded(t, "a manual line's mark with a money edit", []loggedEntry{
		keyEntry("account_transaction", b.salary.ID, "updated",
			`Line on "BPI": cleared "cleared" → "pending", amount 5000.00 → 4900.00`, "4900.00"),
	}, func() {
		alice.do(t, http.MethodPut, lineURL(b.salary.ID), `{"cleared":"pending","amount":4900}`, http.StatusOK)
	})

	before := clearedStates(t, env, alice.user.ID, b.salary.ID, b.groceries.ID, b.rent.ID)
	r.checkAdded(t, "refused marks", nil, func() {
		alice.do(t, http.MethodPost, "/api/v1/accounts/"+b.bpi.ID+"/cleared",
			`{"cleared":"cleared","transaction_ids":["`+b.salary.ID+`","`+b.coffee.ID+`"]}`, http.StatusBadRequest)
		alice.do(t, http.MethodPut, lineURL(b.groceries.ID), `{"cleared":"reconciled"}`, http.StatusBadRequest)
		alice.do(t, http.MethodPut, lineURL(b.coffee.ID), `{"cleared":"cleared"}`, http.StatusBadRequest)
		alice.do(t, http.MethodPost, b.reconcile, `{"date":"2025-03-15"}`, http.StatusBadRequest)
	})
	if got := clearedStates(t, env, alice.user.ID, b.salary.ID, b.groceries.ID, b.rent.ID); !cmp.Equal(got, before) {
		t.Errorf("refused marks changed lines: %v, were %v", got, before)
	}
	alice.archive(t, b.bpi.ID)
	r.checkAdded(t, "a mark on an archived account", nil, func() {
		alice.do(t, http.MethodPost, "/api/v1/accounts/"+b.bpi.ID+"/cleared",
			`{"cleared":"cleared","transaction_ids":["`+b.rent.ID+`"]}`, http.StatusBadRequest)
	})
}

// Income templates record their creation, changes and deletion; a confirm
// records the income and the entry it received, a skip the entry. Writes
// that change nothing, or are refused, record nothing.
func TestActivityRecordsRecurringIncome(t *testing.T) {
	_, alice, _ := newLedgerEnv(t)
	r := newActivityReader(alice)
	var tmpl finance.IncomeTemplate
	added := r.since(t, func() { tmpl = alice.createIncomeTemplate(t, salaryTemplate) })
	if diff := cmp.Diff([]loggedEntry{keyEntry("income_template", tmpl.ID, "created",
		`Income template "Salary" of 25000.50, semimonthly from 2025-01-01`, "25000.50")}, added); diff != "" {
		t.Errorf("a template created (-want +got):\n%s", diff)
	}

	first, second := alice.expectedOn(t, tmpl.ID, "2025-01-15"), alice.expectedOn(t, tmpl.ID, "2025-01-31")
	var received finance.ExpectedIncome
	added = r.since(t, func() {
		received = send[finance.ExpectedIncome](t, alice, http.MethodPost, expectedIncomeURL+"/"+first.ID+"/confirm",
			`{"amount":"24000","date":"2025-01-16"}`, http.StatusOK)
	})
	if diff := cmp.Diff([]loggedEntry{
		keyEntry("income", *received.IncomeID, "created", `Income 24000.00 on 2025-01-16, "Salary"`, "24000.00"),
		keyEntry("expected_income", first.ID, "updated", `Received "Salary" due 2025-01-15 as income of 24000.00 on 2025-01-16`, "25000.50"),
	}, added); diff != "" {
		t.Errorf("a confirm (-want +got):\n%s", diff)
	}
	r.checkAdded(t, "a second confirm", nil, func() {
		alice.do(t, http.MethodPost, expectedIncomeURL+"/"+first.ID+"/confirm", ``, http.StatusOK)
	})
	r.checkAdded(t, "a skip", []loggedEntry{
		keyEntry("expected_income", second.ID, "updated", `Skipped "Salary" of 25000.50 due 2025-01-31`, "25000.50"),
	}, func() { alice.do(t, http.MethodPost, expectedIncomeURL+"/"+second.ID+"/skip", ``, http.StatusOK) })
	r.checkAdded(t, "a second skip, a refused skip, a confirm of another's entry", nil, func() {
		alice.do(t, http.MethodPost, expectedIncomeURL+"/"+second.ID+"/skip", ``, http.StatusOK)
		alice.do(t, http.MethodPost, expectedIncomeURL+"/"+first.ID+"/skip", ``, http.StatusBadRequest)
		alice.do(t, http.MethodPost, expectedIncomeURL+"/"+finance.NewID()+"/confirm", ``, http.StatusNotFound)
		alice.do(t, http.MethodPost, expectedIncomeURL+"/"+second.ID+"/confirm", `{"amount":-5}`, http.StatusBadRequest)
	})
	if e := alice.expectedOn(t, tmpl.ID, "2025-01-31"); e.Status != finance.ExpectedSkipped || alice.incomeCount(t) != 1 {
		t.Errorf("after refused writes: %s and %d income, want skipped and 1", e.Status, alice.incomeCount(t))
	}

	url := incomeTemplatesURL + "/" + tmpl.ID
	r.checkAdded(t, "a change", []loggedEntry{
		keyEntry("income_template", tmpl.ID, "updated",
			`Income template "Salary": amount 25000.50 → 26000.00, end date none → 2025-12-31, status "active" → "paused"`, "26000.00"),
	}, func() {
		alice.do(t, http.MethodPut, url, `{"amount":"26000","end_date":"2025-12-31","status":"paused"}`, http.StatusOK)
	})
	r.checkAdded(t, "a change to the same values, a refused change", nil, func() {
		alice.do(t, http.MethodPut, url, `{"amount":"26000.00","status":"paused"}`, http.StatusOK)
		alice.do(t, http.MethodPut, url, `{"amount":"-1"}`, http.StatusBadRequest)
	})
	if got := send[finance.IncomeTemplate](t, alice, http.MethodGet, url, "", http.StatusOK); got.Amount.String() != "26000.00" {
		t.Errorf("a refused change changed the amount to %s", got.Amount)
	}
	r.checkAdded(t, "a deletion", []loggedEntry{
		keyEntry("income_template", tmpl.ID, "deleted", `Income template "Salary" of 26000.00, semimonthly, deleted`, "26000.00"),
	}, func() { alice.do(t, http.MethodDelete, url, "", http.StatusOK) })
	r.checkAdded(t, "a second deletion", nil, func() { alice.do(t, http.MethodDelete, url, "", http.StatusNotFound) })
}

// Reminder preferences record each changed field; a PUT that changes
// nothing, or is refused, records nothing.
func TestActivityRecordsReminderSettings(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	alice.key = env.createKey(alice.user.ID, auth.ScopeSettingsWrite)
	r := newActivityReader(alice)
	const url = "/api/v1/user-settings/reminders"
	r.checkAdded(t, "reminders turned on", []loggedEntry{
		keyEntry("reminder_settings", alice.user.ID, "updated",
			`Reminders: enabled false → true, bill days 3 → 5, quiet start "22:00" → none, quiet end "07:00" → none`, "none"),
	}, func() {
		alice.do(t, http.MethodPut, url, `{"enabled":true,"bill_days":5,"quiet_start":null,"quiet_end":null}`, http.StatusOK)
	})
	r.checkAdded(t, "nothing changed, a refused change", nil, func() {
		alice.do(t, http.MethodPut, url, `{}`, http.StatusOK)
		alice.do(t, http.MethodPut, url, `{"enabled":true,"bill_days":5}`, http.StatusOK)
		alice.do(t, http.MethodPut, url, `{"enabled":false,"bill_days":40}`, http.StatusBadRequest)
	})
	if got := send[finance.ReminderSettings](t, alice, http.MethodGet, url, "", http.StatusOK); !got.Enabled || got.BillDays != 5 {
		t.Errorf("a refused change changed the preferences: %+v", got)
	}
}

// Category rules record their creation, changes (the position after a
// move) and deletion; the rules a move shifts record nothing, nor does a
// refused write.
func TestActivityRecordsCategoryRules(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	alice.key = env.createKey(alice.user.ID, auth.ScopeSettingsWrite)
	r := newActivityReader(alice)
	const url = "/api/v1/category-rules"
	var grab, meralco finance.CategoryRule
	added := r.since(t, func() {
		grab = send[finance.CategoryRule](t, alice, http.MethodPost, url,
			`{"description_contains":"GRAB","category":"Transportation"}`, http.StatusCreated)
		meralco = send[finance.CategoryRule](t, alice, http.MethodPost, url,
			`{"payee_equals":"Meralco","amount_min":"500","category":"Utilities","position":1}`, http.StatusCreated)
	})
	if diff := cmp.Diff([]loggedEntry{
		keyEntry("category_rule", grab.ID, "created", `Category rule 1: description contains "GRAB" → Transportation`, "none"),
		keyEntry("category_rule", meralco.ID, "created", `Category rule 1: payee is "Meralco", amount at least 500.00 → Utilities`, "none"),
	}, added); diff != "" {
		t.Errorf("rules created (-want +got):\n%s", diff)
	}
	r.checkAdded(t, "a rule moved and pointed elsewhere", []loggedEntry{
		keyEntry("category_rule", grab.ID, "updated", `Category rule 1: position 2 → 1, category "Transportation" → "Food & Dining"`, "none"),
	}, func() {
		alice.do(t, http.MethodPut, url+"/"+grab.ID, `{"position":1,"category":"Food & Dining"}`, http.StatusOK)
	})
	r.checkAdded(t, "an unchanged rule, refused writes", nil, func() {
		alice.do(t, http.MethodPut, url+"/"+grab.ID, `{"position":1}`, http.StatusOK)
		alice.do(t, http.MethodPut, url+"/"+grab.ID, `{"category":"No such category"}`, http.StatusBadRequest)
		alice.do(t, http.MethodPost, url, `{"category":"Utilities"}`, http.StatusBadRequest)
		alice.do(t, http.MethodDelete, url+"/"+finance.NewID(), "", http.StatusNotFound)
	})
	if got := storedRules(t, env, alice.user.ID); len(got) != 2 {
		t.Errorf("refused writes changed the rules: %v", got)
	}
	r.checkAdded(t, "a rule deleted", []loggedEntry{
		keyEntry("category_rule", meralco.ID, "deleted", `Category rule 2 deleted: payee is "Meralco", amount at least 500.00 → Utilities`, "none"),
	}, func() { alice.do(t, http.MethodDelete, url+"/"+meralco.ID, "", http.StatusOK) })
}

// The kind filter selects each new kind, and only it.
func TestActivityKindFilterNewKinds(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	alice.key = env.createKey(alice.user.ID, auth.ScopeIncomeWrite, auth.ScopeSettingsWrite)
	r := newActivityReader(alice)
	tmpl := alice.createIncomeTemplate(t, salaryTemplate)
	entry := alice.expectedOn(t, tmpl.ID, "2025-01-15")
	alice.do(t, http.MethodPost, expectedIncomeURL+"/"+entry.ID+"/skip", ``, http.StatusOK)
	alice.do(t, http.MethodPut, "/api/v1/user-settings/reminders", `{"enabled":true}`, http.StatusOK)
	rule := send[finance.CategoryRule](t, alice, http.MethodPost, "/api/v1/category-rules",
		`{"description_contains":"GRAB","category":"Transportation"}`, http.StatusCreated)
	for kind, want := range map[string]string{
		"income_template": tmpl.ID, "expected_income": entry.ID, "reminder_settings": alice.user.ID, "category_rule": rule.ID,
	} {
		got := r.list(t, "&kind="+kind)
		if len(got) != 1 || got[0].Kind != kind || got[0].RecordID != want {
			t.Errorf("?kind=%s: %+v, want the one entry about %s", kind, got, want)
		}
	}
	if n := len(r.list(t, "")); n != 4 {
		t.Errorf("%d entries in all, want 4", n)
	}
}
