package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/ai/aitest"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/store"
)

// activityOf is the user's activity, newest first, read straight from the ledger.
func activityOf(t testing.TB, env *testEnv, userID string, f finance.ActivityFilter) []finance.Activity {
	t.Helper()
	return testkit.ActivityOf(t, env.srv.Ledger(), userID, f)
}

// onlyEntry is the one entry about the record id; the test fails unless there is exactly one.
func onlyEntry(t testing.TB, env *testEnv, userID, id string) finance.Activity {
	t.Helper()
	var found []finance.Activity
	for _, a := range activityOf(t, env, userID, finance.ActivityFilter{}) {
		if a.RecordID == id {
			found = append(found, a)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d entries about %s, want 1: %+v", len(found), id, found)
	}
	return found[0]
}

const lunchBody = `{"amount":350,"date":"2025-03-10","description":"Lunch","category":"Food & Dining","payment_method":"Cash"}`

// A write through each credential records that credential as its actor,
// with the name it has, and source manual: an API key by id and name, the
// first-party sign-in token, and an OAuth connection by the app's name.
func TestActivityRecordsTheCredential(t *testing.T) {
	env := newOAuthEnv(t)
	u := env.createUser(finance.PlanPro)
	k, key := env.createKeyRecord(u.ID, auth.ScopeRead, auth.ScopeExpensesWrite)
	_, tok := env.connect(t, u, "finance:read", "expenses:write")
	jwt := env.login(u)

	for _, tc := range []struct {
		name  string
		token string
		want  finance.Actor
	}{
		{"api key", key, finance.Actor{Kind: finance.ActorAPIKey, ID: k.ID, Name: k.Name}},
		{"sign-in token", jwt, finance.Actor{Kind: finance.ActorApp, ID: u.ID, Name: "Signed-in app"}},
		{"oauth token", tok.AccessToken, finance.Actor{Kind: finance.ActorOAuthClient, Name: "Test client"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e finance.Expense
			apiScenario{method: http.MethodPost, url: "/api/v1/expenses", body: lunchBody, headers: bearer(tc.token),
				wantStatus: http.StatusCreated}.run(t, env.testEnv).decodeData(t, &e)
			got := onlyEntry(t, env.testEnv, u.ID, e.ID)
			if tc.want.Kind == finance.ActorOAuthClient {
				tc.want.ID = got.Actor.ID // the connection's id, checked below
				if !finance.ValidID(got.Actor.ID) {
					t.Errorf("an OAuth write's actor id %q is not its connection's", got.Actor.ID)
				}
			}
			want := finance.Activity{ID: got.ID, CreatedAt: got.CreatedAt, Actor: tc.want, Source: finance.WriteManual,
				Kind: finance.RecordExpense, RecordID: e.ID, Action: finance.LogCreated,
				Summary: `Expense "Lunch" 350.00 on 2025-03-10, Food & Dining, Cash`, Amount: &e.Amount}
			gotJSON, _ := json.Marshal(got)
			if diff := cmpJSON(t, want, gotJSON); diff != "" {
				t.Errorf("entry (-want +got):\n%s", diff)
			}
			if e.Source != finance.ExpenseManual {
				t.Errorf("a REST expense's source is %q", e.Source)
			}
		})
	}
	grants, err := env.oauth.ListGrants(context.Background(), u.ID)
	if err != nil || len(grants) != 1 {
		t.Fatalf("grants %v, %v", grants, err)
	}
	if got := activityOf(t, env.testEnv, u.ID, finance.ActivityFilter{ActorID: grants[0].ID}); len(got) != 1 {
		t.Errorf("the connection's writes: %+v", got)
	}
}

// A key renamed or revoked after a write still reads as it was called then.
func TestActivityKeepsTheNameOfTheTime(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	k, key := env.createKeyRecord(u.ID, auth.ScopeExpensesWrite)
	apiScenario{method: http.MethodPost, url: "/api/v1/expenses", body: lunchBody, headers: bearer(key),
		wantStatus: http.StatusCreated}.run(t, env)
	if _, err := env.auth.RevokeKey(context.Background(), u.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	got := activityOf(t, env, u.ID, finance.ActivityFilter{ActorID: k.ID})
	if len(got) != 1 || got[0].Actor.Name != k.Name || got[0].Actor.Kind != finance.ActorAPIKey {
		t.Errorf("after the key was revoked: %+v", got)
	}
}

// What the Telegram bot records on a draft's Confirm is the bot's, for the
// linked user; a proposal of the assistant confirmed in the chat is the
// assistant's, as a confirm through any other door is.
func TestActivityRecordsTelegram(t *testing.T) {
	env := newBotEnv(t, func(c *Config) { c.AI = ai.New(ai.Config{OCR: fakeOCR(t)}) })
	u := env.createUser(finance.PlanPro)
	env.link(400, u)
	env.fake.AddFile("receipt-1", aitest.ReceiptPNG(t, []string{"a receipt"}))
	env.deliver(photoUpdate(400, "receipt-1"))
	env.deliver(buttonUpdate(400, env.latestButtons(400)[0]))
	env.deliver(textUpdate(400, "lunch 250 cash"))
	env.deliver(buttonUpdate(400, env.latestButtons(400)[0]))

	got := activityOf(t, env.testEnv, u.ID, finance.ActivityFilter{Kind: finance.RecordExpense})
	if len(got) != 2 {
		t.Fatalf("%d entries, want the draft's and the proposal's: %+v", len(got), got)
	}
	if want := (finance.Actor{Kind: finance.ActorTelegram, ID: u.ID, Name: "Telegram"}); got[1].Actor != want ||
		got[1].Source != finance.WriteManual || got[1].Amount.String() != "492.00" {
		t.Errorf("the draft's entry: %+v", got[1])
	}
	if got[0].Actor.Kind != finance.ActorAssistant || got[0].Actor.Name != "Assistant" || got[0].Amount.String() != "250.00" {
		t.Errorf("the proposal's entry: %+v", got[0])
	}
	if tg := activityOf(t, env.testEnv, u.ID, finance.ActivityFilter{Actor: finance.ActorTelegram}); len(tg) != 1 {
		t.Errorf("the bot's own writes: %+v", tg)
	}
}

// A confirmed proposal is the assistant's write, by the proposal's id; the
// chat itself writes nothing to the activity.
func TestActivityRecordsTheAssistant(t *testing.T) {
	env, _, alice, _ := newAssistantEnv(t)
	answer := chat(t, alice, alice.key, "lunch 250 cash yesterday", "")
	if n := len(activityOf(t, env, alice.user.ID, finance.ActivityFilter{})); n != 0 {
		t.Fatalf("%d entries after a chat", n)
	}
	p := answer.Proposals[0]
	apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(p.ID, "confirm"), headers: bearer(alice.key),
		wantStatus: http.StatusOK}.run(t, env)
	got := activityOf(t, env, alice.user.ID, finance.ActivityFilter{})
	want := finance.Actor{Kind: finance.ActorAssistant, ID: p.ID, Name: "Assistant"}
	if len(got) != 1 || got[0].Actor != want || got[0].Kind != finance.RecordExpense {
		t.Errorf("the assistant's write: %+v", got)
	}
}

// A refused write records nothing: a validation error, a state error, and
// a bulk create with one bad item among good ones.
func TestActivityFailedWriteRecordsNothing(t *testing.T) {
	env, _, alice, _ := newAssistantEnv(t)
	e := send[finance.Expense](t, alice, http.MethodPost, "/api/v1/expenses", lunchBody, http.StatusCreated)
	before := activityOf(t, env, alice.user.ID, finance.ActivityFilter{})
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+e.ID+"/split",
		`{"parts":[{"amount":100,"category":"Groceries"},{"amount":100,"category":"Transportation"}]}`, http.StatusBadRequest)
	alice.do(t, http.MethodPost, "/api/v1/expenses/bulk",
		`{"items":[`+lunchBody+`,{"amount":-1,"date":"2025-03-10","description":"x","category":"Groceries","payment_method":"Cash"}]}`,
		http.StatusBadRequest)
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+e.ID, "", http.StatusOK)
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+e.ID, "", http.StatusBadRequest)
	after := activityOf(t, env, alice.user.ID, finance.ActivityFilter{})
	if len(after) != len(before)+1 || after[0].Action != finance.LogVoided || after[0].RecordID != e.ID {
		t.Errorf("entries after refused writes and one void:\n%+v", after)
	}
}

// What the list answers: newest first, the envelope and paging of every
// list, each filter, the bad values it refuses naming the parameter, and
// only the caller's own entries.
func TestActivityListRoute(t *testing.T) {
	env, clock, alice, bob := newAssistantEnv(t)
	reader := env.createKey(alice.user.ID, auth.ScopeRead)
	writeOnly := env.createKey(alice.user.ID, auth.ScopeExpensesWrite)
	e := send[finance.Expense](t, alice, http.MethodPost, "/api/v1/expenses", lunchBody, http.StatusCreated)
	clock.Advance(24 * time.Hour) // 2025-03-12 in Manila
	send[finance.Expense](t, alice, http.MethodPut, "/api/v1/expenses/"+e.ID, `{"amount":300,"description":"Team lunch"}`, http.StatusOK)
	acct := alice.createAccount(t, `{"name":"Savings","type":"savings","opening_balance":1000}`)
	send[finance.Expense](t, bob, http.MethodPost, "/api/v1/expenses", lunchBody, http.StatusCreated)

	type entry = finance.Activity
	list := func(token, query string, status int) ([]entry, finance.Pagination) {
		t.Helper()
		var data finance.Page[entry]
		res := apiScenario{method: http.MethodGet, url: "/api/v1/activity" + query, headers: bearer(token), wantStatus: status}.run(t, env)
		if status == http.StatusOK {
			res.decodeData(t, &data)
		}
		return data.Items, data.Pagination
	}

	items, pg := list(reader, "", http.StatusOK)
	if len(items) != 3 || pg != (finance.Pagination{Page: 1, Limit: 20, TotalItems: 3, TotalPages: 1}) {
		t.Fatalf("list: %+v %+v", items, pg)
	}
	if items[0].Kind != finance.RecordAccount || items[0].RecordID != acct.ID ||
		items[1].Action != finance.LogUpdated || items[1].Summary != `amount 350.00 → 300.00, description "Lunch" → "Team lunch"` ||
		items[1].Amount.String() != "300.00" || items[2].Action != finance.LogCreated {
		t.Errorf("newest first, with what changed: %+v", items)
	}
	if items, _ := list(reader, "?sortOrder=asc&limit=1&page=2", http.StatusOK); len(items) != 1 || items[0].Action != finance.LogUpdated {
		t.Errorf("oldest first, page 2 of 1: %+v", items)
	}
	for query, want := range map[string]int{
		"?kind=expense":                              2,
		"?kind=account":                              1,
		"?actor=api_key":                             3,
		"?actor=web":                                 0,
		"?actorId=" + bob.user.ID:                    0,
		"?source=agent":                              0,
		"?dateFrom=2025-03-12":                       2,
		"?dateTo=2025-03-11":                         1,
		"?dateFrom=2025-03-11&dateTo=2025-03-11":     1,
		"?kind=expense&dateFrom=2025-03-12&limit=10": 1,
	} {
		if items, pg := list(reader, query, http.StatusOK); len(items) != want || pg.TotalItems != want {
			t.Errorf("%s: %d entries (total %d), want %d", query, len(items), pg.TotalItems, want)
		}
	}
	for query, field := range map[string]string{
		"?actor=robot": "actor", "?kind=expenses": "kind", "?source=mcp": "source", "?actorId=abc": "actorId",
		"?dateFrom=2025-3-1": "dateFrom", "?dateFrom=2025-03-12&dateTo=2025-03-11": "dateFrom", "?sortBy=amount": "sortBy",
		"?limit=101": "limit",
	} {
		res := apiScenario{method: http.MethodGet, url: "/api/v1/activity" + query, headers: bearer(reader),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}.run(t, env)
		if !strings.Contains(string(res.raw), `"`+field+`"`) {
			t.Errorf("%s: the refusal does not name %s: %s", query, field, res.raw)
		}
	}
	// finance:read alone: a write scope does not read the activity.
	list(writeOnly, "", http.StatusForbidden)
	// Bob sees his one write, never Alice's, and Alice's key id filters nothing of his.
	var bobItems finance.Page[entry]
	bobReader := env.createKey(bob.user.ID, auth.ScopeRead)
	apiScenario{method: http.MethodGet, url: "/api/v1/activity?kind=expense", headers: bearer(bobReader),
		wantStatus: http.StatusOK}.run(t, env).decodeData(t, &bobItems)
	if len(bobItems.Items) != 1 || bobItems.Items[0].RecordID == e.ID {
		t.Errorf("bob's activity: %+v", bobItems.Items)
	}
	if items, _ := list(bobReader, "?actorId="+items[0].Actor.ID, http.StatusOK); len(items) != 0 {
		t.Errorf("another user's key id shows %d entries", len(items))
	}
}

// Concurrent writes, committed together by the group commit, each get their
// own entry, naming their own key.
func TestActivityConcurrentWritesEachRecorded(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	const n = 24
	keys := make([]auth.APIKey, 4)
	tokens := make([]string, len(keys))
	for i := range keys {
		keys[i], tokens[i] = env.createKeyRecord(u.ID, auth.ScopeExpensesWrite)
	}
	errs := make(chan error, n)
	for i := range n {
		go func() {
			body := fmt.Sprintf(`{"amount":%d,"date":"2025-03-10","description":"Item %d","category":"Groceries","payment_method":"Cash"}`, i+1, i)
			req := httptest.NewRequest(http.MethodPost, "/api/v1/expenses", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+tokens[i%len(tokens)])
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			env.srv.Handler().ServeHTTP(rec, req)
			if rec.Code != http.StatusCreated {
				errs <- fmt.Errorf("write %d: %d %s", i, rec.Code, rec.Body)
				return
			}
			errs <- nil
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	entries := activityOf(t, env, u.ID, finance.ActivityFilter{})
	byRecord := map[string]finance.Activity{}
	for _, a := range entries {
		byRecord[a.RecordID] = a
	}
	es := expensesOf(t, env, u, finance.StatusActive)
	if len(entries) != n || len(es) != n || len(byRecord) != n {
		t.Fatalf("%d entries for %d expenses (%d records)", len(entries), len(es), len(byRecord))
	}
	for _, e := range es {
		a, ok := byRecord[e.ID]
		if !ok {
			t.Errorf("expense %s has no entry", e.ID)
			continue
		}
		var i int
		fmt.Sscanf(e.Description, "Item %d", &i)
		if want := keys[i%len(keys)].ID; a.Actor.ID != want || a.Amount.String() != e.Amount.String() {
			t.Errorf("%s: entry %+v, want the key %s", e.Description, a, want)
		}
	}
}

// faultyWrites is the test database with two faults to turn on: the
// activity append fails, or the write fails after everything it did,
// entry included, as a commit that finds no room would.
type faultyWrites struct {
	*store.DB
	failAppend, failAfter atomic.Bool
}

var errInjected = errors.New("injected fault")

func (d *faultyWrites) Write(ctx context.Context, fn func(finance.Repo) error) error {
	return d.DB.Write(ctx, func(r finance.Repo) error {
		if d.failAppend.Load() {
			r = failingAppend{r}
		}
		if err := fn(r); err != nil {
			return err
		}
		if d.failAfter.Load() {
			return errInjected
		}
		return nil
	})
}

type failingAppend struct{ finance.Repo }

func (failingAppend) AppendActivity(context.Context, string, finance.Activity) error {
	return errInjected
}

// An entry and its write are one transaction: an Account Debit expense (the
// expense, the account's line and balance, and the entry) whose entry
// cannot be appended saves nothing, and one that fails after its entry was
// appended leaves no entry.
func TestActivityIsPartOfTheWrite(t *testing.T) {
	db := &faultyWrites{}
	env := newTestEnvOn(t, func(s *store.DB) Database { db.DB = s; return db })
	u := env.createUser(finance.PlanPro)
	alice := ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeAccountsWrite)}
	acct := alice.createAccount(t, `{"name":"Wallet","type":"cash","opening_balance":1000}`)
	debit := `{"amount":250,"date":"2025-03-10","description":"Groceries","category":"Groceries","payment_method":"Account Debit","account_id":"` + acct.ID + `"}`

	unchanged := func(when string) {
		t.Helper()
		if es := expensesOf(t, env, u, ""); len(es) != 0 {
			t.Errorf("%s: %d expenses saved", when, len(es))
		}
		a := send[finance.Account](t, alice, http.MethodGet, "/api/v1/accounts/"+acct.ID, "", http.StatusOK)
		if a.CurrentBalance.String() != "1000.00" {
			t.Errorf("%s: balance %s, want 1000.00", when, a.CurrentBalance)
		}
		if _, p := page[finance.AccountTransaction](t, alice, "/api/v1/accounts/"+acct.ID+"/transactions"); p.TotalItems != 0 {
			t.Errorf("%s: %d account lines", when, p.TotalItems)
		}
		if got := activityOf(t, env, u.ID, finance.ActivityFilter{}); len(got) != 1 || got[0].Kind != finance.RecordAccount {
			t.Errorf("%s: entries %+v, want the account's alone", when, got)
		}
	}
	db.failAppend.Store(true)
	alice.do(t, http.MethodPost, "/api/v1/expenses", debit, http.StatusInternalServerError)
	unchanged("the entry failed")
	db.failAppend.Store(false)
	db.failAfter.Store(true)
	alice.do(t, http.MethodPost, "/api/v1/expenses", debit, http.StatusInternalServerError)
	unchanged("the write failed after its entry")
	db.failAfter.Store(false)

	e := send[finance.Expense](t, alice, http.MethodPost, "/api/v1/expenses", debit, http.StatusCreated)
	if got := activityOf(t, env, u.ID, finance.ActivityFilter{Kind: finance.RecordExpense}); len(got) != 1 || got[0].RecordID != e.ID {
		t.Errorf("after the faults: %+v", got)
	}
}

// expensesOf is the user's expenses of one status ("" for every status), read straight from the ledger.
func expensesOf(t *testing.T, env *testEnv, u finance.User, status string) []finance.Expense {
	t.Helper()
	return testkit.ExpensesOf(t, env.srv.Ledger(), u, status)
}
