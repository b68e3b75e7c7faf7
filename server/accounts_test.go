package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// ledgerNow is the pinned clock of the ledger tests: 20:00 UTC on March 10,
// which is already March 11 in Asia/Manila, the default timezone.
var ledgerNow = time.Date(2025, 3, 10, 20, 0, 0, 0, time.UTC)

const (
	ledgerStamp = "2025-03-10T20:00:00Z"
	ledgerToday = "2025-03-11"
)

// ledgerUser is one Pro user and a key of theirs, sending requests through the real router.
type ledgerUser struct {
	env  *testEnv
	user finance.User
	key  string
}

// newLedgerEnv returns a server with a pinned clock and two users, each with
// a key holding accounts:write and income:write.
func newLedgerEnv(t *testing.T) (env *testEnv, alice, bob ledgerUser) {
	t.Helper()
	env = newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	mk := func() ledgerUser {
		u := env.createUser(finance.PlanPro)
		return ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeAccountsWrite, auth.ScopeIncomeWrite)}
	}
	return env, mk(), mk()
}

// do sends one request as u and checks its status.
func (u ledgerUser) do(t testing.TB, method, url, body string, wantStatus int) apiResult {
	t.Helper()
	return apiScenario{method: method, url: url, body: body, headers: bearer(u.key), wantStatus: wantStatus}.run(t, u.env)
}

// send sends one request as u, checks its status and decodes data as T.
func send[T any](t testing.TB, u ledgerUser, method, url, body string, wantStatus int) T {
	t.Helper()
	var out T
	u.do(t, method, url, body, wantStatus).decodeData(t, &out)
	return out
}

// sc is a scenario sent with u's key.
func (u ledgerUser) sc(sc apiScenario) apiScenario {
	sc.headers = bearer(u.key)
	return sc
}

func (u ledgerUser) createAccount(t testing.TB, body string) finance.Account {
	t.Helper()
	return send[finance.Account](t, u, http.MethodPost, "/api/v1/accounts", body, http.StatusCreated)
}

func (u ledgerUser) account(t testing.TB, id string) finance.Account {
	t.Helper()
	return send[finance.Account](t, u, http.MethodGet, "/api/v1/accounts/"+id, "", http.StatusOK)
}

func (u ledgerUser) addLine(t testing.TB, accountID, body string) finance.AccountTransaction {
	t.Helper()
	return send[finance.AccountTransaction](t, u, http.MethodPost, "/api/v1/accounts/"+accountID+"/transactions", body, http.StatusCreated)
}

func (u ledgerUser) archive(t testing.TB, accountID string) {
	t.Helper()
	u.do(t, http.MethodPatch, "/api/v1/accounts/"+accountID+"/archive", "", http.StatusOK)
}

// lines returns the items of a line list at url.
func (u ledgerUser) lines(t testing.TB, url string) ([]finance.AccountTransaction, finance.Pagination) {
	t.Helper()
	return page[finance.AccountTransaction](t, u, url)
}

func (u ledgerUser) accounts(t testing.TB, url string) ([]finance.Account, finance.Pagination) {
	t.Helper()
	return page[finance.Account](t, u, url)
}

// ledgerState is everything the ledger holds for one user, read straight
// from the database, archived and voided rows included.
type ledgerState struct {
	Accounts []finance.Account
	Lines    []finance.AccountTransaction
	Income   []finance.Income
}

func snapshotLedger(t testing.TB, env *testEnv, userID string) ledgerState {
	t.Helper()
	ctx := context.Background()
	repo := env.db.Read()
	all := finance.ListParams{Page: 1, Limit: 10_000, SortBy: "created_at"}
	var st ledgerState
	var err error
	if st.Accounts, _, err = repo.ListAccounts(ctx, userID, finance.AccountFilter{Status: finance.StatusAll}, all); err != nil {
		t.Fatalf("ListAccounts: %v", err)
	}
	for _, status := range finance.LineStatuses {
		lines, _, err := repo.ListAccountTransactions(ctx, userID, finance.AccountTransactionFilter{Status: status}, all)
		if err != nil {
			t.Fatalf("ListAccountTransactions: %v", err)
		}
		st.Lines = append(st.Lines, lines...)
	}
	for _, status := range finance.IncomeStatuses {
		in, _, err := repo.ListIncome(ctx, userID, "PHP", finance.IncomeFilter{Status: status}, all)
		if err != nil {
			t.Fatalf("ListIncome: %v", err)
		}
		st.Income = append(st.Income, in...)
	}
	return st
}

// equateDates lets cmp compare finance.Date, whose fields are unexported.
var equateDates = cmpopts.EquateComparable(finance.Date{})

// runRejected runs scenarios that must fail, and checks after each that
// neither user's data changed: a rejected request writes nothing.
func runRejected(t *testing.T, env *testEnv, users []ledgerUser, scenarios []apiScenario) {
	t.Helper()
	runUnchanged(t, env, users, snapshotLedger, scenarios)
}

// runUnchanged runs scenarios that must fail and checks after each that
// snapshot, what a user's rejected request must leave alone, reads the same
// for every user as before it.
func runUnchanged[S any](t *testing.T, env *testEnv, users []ledgerUser, snapshot func(testing.TB, *testEnv, string) S, scenarios []apiScenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			if sc.wantStatus < 400 {
				t.Fatalf("scenario %q expects %d; it must be a failure", sc.name, sc.wantStatus)
			}
			before := make([]S, len(users))
			for i, u := range users {
				before[i] = snapshot(t, env, u.user.ID)
			}
			sc.run(t, env)
			for i, u := range users {
				if diff := cmp.Diff(before[i], snapshot(t, env, u.user.ID), equateDates); diff != "" {
					t.Errorf("a rejected request changed the data of user %d (-before +after):\n%s", i, diff)
				}
			}
		})
	}
}

// rawField returns the raw JSON text of data.<path> (dot separated), to
// check money digit for digit.
// absent is what rawField answers for a member the object leaves out: a
// record's field without a value (docs/api.md "Records").
const absent = ""

func rawField(t testing.TB, res apiResult, path string) string {
	t.Helper()
	raw := res.env.Data
	for _, key := range strings.Split(path, ".") {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			t.Fatalf("data%s is not an object: %s", path, raw)
		}
		raw = obj[key]
	}
	return string(raw)
}

func fieldsOf(kv ...string) map[string]string {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return m
}

const (
	problemRequired = "is required"
	problemMoney    = "must be a number with at most 2 decimal places"
	problemPositive = "must be greater than 0"
	problemDate     = "must be a real calendar date in YYYY-MM-DD format between 1900 and 2100"
	problemAccount  = "must be the id of one of your active accounts"
)

func TestAccountCreateAndGet(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	res := alice.do(t, http.MethodPost, "/api/v1/accounts",
		`{"name":"  BPI Savings ","type":"savings","institution":"BPI","account_number_last4":"0042",
		  "opening_balance":"999999999.99","notes":"payroll","status":"archived","current_balance":5,"id":"x"}`,
		http.StatusCreated)
	if res.message() != "Account created" {
		t.Errorf("message = %q", res.message())
	}
	var a finance.Account
	res.decodeData(t, &a)
	want := map[string]any{
		"id": a.ID, "name": "BPI Savings", "type": "savings", "institution": "BPI", "account_number_last4": "0042",
		"opening_balance": 999999999.99, "currency": "PHP", "notes": "payroll", "status": "active",
		"current_balance": 999999999.99, "created_at": ledgerStamp, "updated_at": ledgerStamp,
	}
	if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, res.env.Data)); diff != "" {
		t.Errorf("created account (-want +got):\n%s", diff)
	}
	if got := rawField(t, res, "opening_balance"); got != "999999999.99" {
		t.Errorf("opening_balance = %s, want 999999999.99 digit for digit", got)
	}
	if !finance.ValidID(a.ID) {
		t.Errorf("id %q is not a lowercase UUID", a.ID)
	}
	alice.sc(apiScenario{method: http.MethodGet, url: "/api/v1/accounts/" + a.ID, wantStatus: http.StatusOK,
		wantMessage: "Account retrieved", wantData: want}).run(t, env)

	// Optional fields default: no institution, 0 opening balance; empty text counts as absent.
	res = alice.do(t, http.MethodPost, "/api/v1/accounts", `{"name":"Wallet","type":"cash","institution":"  ","notes":""}`, http.StatusCreated)
	for path, want := range map[string]string{"opening_balance": "0.00", "current_balance": "0.00", "institution": absent,
		"notes": absent, "account_number_last4": absent} {
		if got := rawField(t, res, path); got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
	// Signed opening balances are allowed.
	res = alice.do(t, http.MethodPost, "/api/v1/accounts", `{"name":"Overdraft","type":"checking","opening_balance":-10.5}`, http.StatusCreated)
	if got := rawField(t, res, "current_balance"); got != "-10.50" {
		t.Errorf("current_balance = %s, want -10.50", got)
	}
}

func TestAccountCreateRejected(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	alice.createAccount(t, `{"name":"BPI Savings","type":"savings"}`)
	old := alice.createAccount(t, `{"name":"Old Wallet","type":"cash"}`)
	alice.archive(t, old.ID)

	post := func(name, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: "/api/v1/accounts", body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	runRejected(t, env, []ledgerUser{alice, bob}, []apiScenario{
		post("no body fields", `{}`, fieldsOf("name", problemRequired, "type", problemRequired)),
		post("blank name", `{"name":"   ","type":"cash"}`, fieldsOf("name", problemRequired)),
		post("null name", `{"name":null,"type":"cash"}`, fieldsOf("name", problemRequired)),
		post("name too long", `{"name":"`+strings.Repeat("é", 101)+`","type":"cash"}`, fieldsOf("name", "must be at most 100 characters")),
		post("name not a string", `{"name":5,"type":"cash"}`, fieldsOf("name", "must be a string")),
		post("unknown type", `{"name":"A","type":"crypto"}`, fieldsOf("type", "must be one of: savings, checking, e_wallet, cash, other")),
		post("type is case-sensitive", `{"name":"A","type":"Savings"}`, fieldsOf("type", "must be one of: savings, checking, e_wallet, cash, other")),
		post("last4 with a letter", `{"name":"A","type":"cash","account_number_last4":"12a4"}`, fieldsOf("account_number_last4", "must be exactly 4 digits")),
		post("last4 too long", `{"name":"A","type":"cash","account_number_last4":"12345"}`, fieldsOf("account_number_last4", "must be at most 4 characters")),
		post("last4 a number", `{"name":"A","type":"cash","account_number_last4":1234}`, fieldsOf("account_number_last4", "must be a string")),
		post("opening balance of fractions of a centavo", `{"name":"A","type":"cash","opening_balance":10.505}`, fieldsOf("opening_balance", problemMoney)),
		post("opening balance with an exponent", `{"name":"A","type":"cash","opening_balance":1e3}`, fieldsOf("opening_balance", problemMoney)),
		post("opening balance too large", `{"name":"A","type":"cash","opening_balance":1000000000}`, fieldsOf("opening_balance", "must be at most 999999999.99 in magnitude")),
		post("opening balance not a number", `{"name":"A","type":"cash","opening_balance":"ten"}`, fieldsOf("opening_balance", problemMoney)),
		post("institution too long", `{"name":"A","type":"cash","institution":"`+strings.Repeat("x", 101)+`"}`, fieldsOf("institution", "must be at most 100 characters")),
		post("notes too long", `{"name":"A","type":"cash","notes":"`+strings.Repeat("x", 1001)+`"}`, fieldsOf("notes", "must be at most 1000 characters")),
		post("name of an active account, in another case", `{"name":"bpi SAVINGS ","type":"cash"}`, fieldsOf("name", "is already used by another active account")),
		{name: "malformed JSON", method: http.MethodPost, url: "/api/v1/accounts", body: `{"name":`, headers: bearer(alice.key),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation},
		{name: "a JSON array", method: http.MethodPost, url: "/api/v1/accounts", body: `[]`, headers: bearer(alice.key),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation},
		{name: "no body", method: http.MethodPost, url: "/api/v1/accounts", headers: bearer(alice.key),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation},
	})

	// An archived account's name is free again; another user's names never clash.
	alice.createAccount(t, `{"name":"old wallet","type":"cash"}`)
	bob.createAccount(t, `{"name":"BPI Savings","type":"savings"}`)
}

func TestAccountList(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI Savings","type":"savings","institution":"Bank of the Philippine Islands","opening_balance":500}`)
	gcash := alice.createAccount(t, `{"name":"gcash","type":"e_wallet","opening_balance":1500}`)
	cash := alice.createAccount(t, `{"name":"Cash","type":"cash","notes":"kept in the drawer","opening_balance":20}`)
	old := alice.createAccount(t, `{"name":"Old Checking","type":"checking","opening_balance":99}`)
	alice.archive(t, old.ID)
	bob.createAccount(t, `{"name":"Bob's","type":"cash"}`)

	names := func(items []finance.Account) []string {
		out := []string{}
		for _, a := range items {
			out = append(out, a.Name)
		}
		return out
	}
	for _, tt := range []struct {
		query string
		want  []string
		total int
	}{
		{"", []string{"BPI Savings", "Cash", "gcash"}, 3}, // active only, by name ignoring case
		{"?status=active", []string{"BPI Savings", "Cash", "gcash"}, 3},
		{"?status=archived", []string{"Old Checking"}, 1},
		{"?status=all", []string{"BPI Savings", "Cash", "gcash", "Old Checking"}, 4},
		{"?type=e_wallet", []string{"gcash"}, 1},
		{"?type=checking", []string{}, 0},
		{"?type=checking&status=all", []string{"Old Checking"}, 1},
		{"?search=PHILIPPINE", []string{"BPI Savings"}, 1}, // institution
		{"?search=drawer", []string{"Cash"}, 1},            // notes
		{"?search=GC", []string{"gcash"}, 1},               // name
		{"?search=%25", []string{}, 0},                     // LIKE wildcards are literal
		{"?sortBy=current_balance", []string{"Cash", "BPI Savings", "gcash"}, 3},
		{"?sortBy=current_balance&sortOrder=desc", []string{"gcash", "BPI Savings", "Cash"}, 3},
		{"?sortBy=created_at&sortOrder=desc", []string{"Cash", "gcash", "BPI Savings"}, 3},
		{"?limit=2&page=2", []string{"gcash"}, 3},
		{"?page=9", []string{}, 3},
	} {
		t.Run(tt.query, func(t *testing.T) {
			items, p := alice.accounts(t, "/api/v1/accounts"+tt.query)
			if diff := cmp.Diff(tt.want, names(items)); diff != "" {
				t.Errorf("names (-want +got):\n%s", diff)
			}
			if p.TotalItems != tt.total {
				t.Errorf("total_items = %d, want %d", p.TotalItems, tt.total)
			}
		})
	}
	items, p := alice.accounts(t, "/api/v1/accounts?limit=2")
	if p != (finance.Pagination{Page: 1, Limit: 2, TotalItems: 3, TotalPages: 2}) || len(items) != 2 {
		t.Errorf("pagination = %+v with %d items", p, len(items))
	}
	_ = bpi
	_ = gcash
	_ = cash

	bad := func(query string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: query, method: http.MethodGet, url: "/api/v1/accounts" + query,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	runScenarios(t, env, []apiScenario{
		bad("?status=voided", fieldsOf("status", "must be active, archived or all")),
		bad("?type=bank", fieldsOf("type", "must be one of: savings, checking, e_wallet, cash, other")),
		bad("?sortBy=balance", fieldsOf("sortBy", "must be one of: name, current_balance, created_at")),
		bad("?sortBy=amount&sortOrder=up&limit=0", fieldsOf("sortBy", "must be one of: name, current_balance, created_at",
			"sortOrder", "must be asc or desc", "limit", "must be an integer from 1 to 100")),
	})
}

func TestAccountUpdate(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	a := alice.createAccount(t, `{"name":"BPI","type":"savings","institution":"BPI","account_number_last4":"1234","opening_balance":100,"notes":"n"}`)
	alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	alice.addLine(t, a.ID, `{"type":"credit","amount":"0.10","date":"2025-03-01"}`)
	url := "/api/v1/accounts/" + a.ID

	// Only the fields present change.
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow.Add(time.Hour) })
	res := alice.do(t, http.MethodPut, url, `{"notes":"  payroll  "}`, http.StatusOK)
	var got finance.Account
	res.decodeData(t, &got)
	if res.message() != "Account updated" || got.Name != "BPI" || got.Type != finance.AccountSavings || *got.Institution != "BPI" ||
		*got.Notes != "payroll" || got.OpeningBalance != 10000 || got.CurrentBalance != 10010 {
		t.Errorf("after a notes-only update: %s %+v", res.message(), got)
	}
	if got.UpdatedAt.Equal(got.CreatedAt) || !got.UpdatedAt.Equal(ledgerNow.Add(time.Hour)) {
		t.Errorf("updated_at = %v, created_at = %v; want updated_at one hour later", got.UpdatedAt, got.CreatedAt)
	}
	// null clears optional fields; opening_balance null resets to 0.
	res = alice.do(t, http.MethodPut, url, `{"institution":null,"account_number_last4":"","notes":null,"opening_balance":null}`, http.StatusOK)
	for path, want := range map[string]string{"institution": absent, "account_number_last4": absent, "notes": absent,
		"opening_balance": "0.00", "current_balance": "0.10"} {
		if got := rawField(t, res, path); got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}
	// Renaming to its own name in another case, changing type and balance.
	res = alice.do(t, http.MethodPut, url, `{"name":"bpi","type":"checking","opening_balance":"-0.30"}`, http.StatusOK)
	if rawField(t, res, "name") != `"bpi"` || rawField(t, res, "type") != `"checking"` || rawField(t, res, "current_balance") != "-0.20" {
		t.Errorf("rename: %s", res.env.Data)
	}

	archived := alice.createAccount(t, `{"name":"Old","type":"cash"}`)
	alice.archive(t, archived.ID)
	bobs := bob.createAccount(t, `{"name":"Bob","type":"cash"}`)
	put := func(name, target, body string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPut, url: target, body: body,
			wantStatus: status, wantCode: code, wantFields: fields})
	}
	runRejected(t, env, []ledgerUser{alice, bob}, []apiScenario{
		put("null name", url, `{"name":null}`, 400, CodeValidation, fieldsOf("name", problemRequired)),
		put("blank name", url, `{"name":" "}`, 400, CodeValidation, fieldsOf("name", problemRequired)),
		put("null type", url, `{"type":null}`, 400, CodeValidation, fieldsOf("type", problemRequired)),
		put("bad type", url, `{"type":"bank"}`, 400, CodeValidation, fieldsOf("type", "must be one of: savings, checking, e_wallet, cash, other")),
		put("bad balance", url, `{"opening_balance":"1.001"}`, 400, CodeValidation, fieldsOf("opening_balance", problemMoney)),
		put("name of another active account", url, `{"name":"gcash"}`, 400, CodeValidation, fieldsOf("name", "is already used by another active account")),
		put("archived account", "/api/v1/accounts/"+archived.ID, `{"notes":"x"}`, 400, CodeInvalidStatus, nil),
		put("archived account with a bad body: shape first", "/api/v1/accounts/"+archived.ID, `{"type":"bank"}`, 400, CodeValidation,
			fieldsOf("type", "must be one of: savings, checking, e_wallet, cash, other")),
		put("unknown id", "/api/v1/accounts/"+finance.NewID(), `{"notes":"x"}`, 404, CodeNotFound, nil),
		put("malformed id", "/api/v1/accounts/123", `{"notes":"x"}`, 404, CodeNotFound, nil),
		put("another user's account", "/api/v1/accounts/"+bobs.ID, `{"notes":"x"}`, 404, CodeNotFound, nil),
		put("another user's account with a bad body: 404 first", "/api/v1/accounts/"+bobs.ID, `{"type":"bank"}`, 404, CodeNotFound, nil),
	})
	// A name taken only by an archived account is free.
	alice.do(t, http.MethodPut, url, `{"name":"OLD"}`, http.StatusOK)
}

func TestAccountArchiveAndUnarchive(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	a := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":1000}`)
	alice.addLine(t, a.ID, `{"type":"debit","amount":250.25,"date":"2025-03-01","description":"rent"}`)
	url := "/api/v1/accounts/" + a.ID

	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow.Add(time.Minute) })
	res := alice.do(t, http.MethodDelete, url, "", http.StatusOK)
	var got finance.Account
	res.decodeData(t, &got)
	if res.message() != "Account archived" || got.Status != finance.StatusArchived || got.ArchivedAt == nil ||
		!got.ArchivedAt.Equal(ledgerNow.Add(time.Minute)) || got.CurrentBalance != 74975 {
		t.Errorf("DELETE: %s %s", res.message(), res.raw)
	}
	// Archived, not erased: still readable, with its balance and its history.
	if got := alice.account(t, a.ID); got.Status != finance.StatusArchived || got.CurrentBalance != 74975 {
		t.Errorf("GET after archive: %+v", got)
	}
	if items, p := alice.lines(t, url+"/transactions"); p.TotalItems != 1 || items[0].IsEditable {
		t.Errorf("archived account's lines: %+v (lines on an archived account are not editable)", items)
	}
	if _, p := alice.lines(t, "/api/v1/accounts/transactions"); p.TotalItems != 1 {
		t.Errorf("all-accounts lines total = %d, want 1 (archived history stays listed)", p.TotalItems)
	}
	if items, _ := alice.accounts(t, "/api/v1/accounts"); len(items) != 0 {
		t.Errorf("default list shows archived accounts: %+v", items)
	}

	// Taking its name while it is archived blocks its unarchive.
	clash := alice.createAccount(t, `{"name":"bpi","type":"cash"}`)
	runRejected(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "DELETE an archived account", method: http.MethodDelete, url: url,
			wantStatus: 400, wantCode: CodeInvalidStatus, wantMessage: `Account is already archived`}),
		alice.sc(apiScenario{name: "archive an archived account", method: http.MethodPatch, url: url + "/archive",
			wantStatus: 400, wantCode: CodeInvalidStatus, wantMessage: `Account is already archived`}),
		alice.sc(apiScenario{name: "unarchive an active account", method: http.MethodPatch, url: "/api/v1/accounts/" + clash.ID + "/unarchive",
			wantStatus: 400, wantCode: CodeInvalidStatus, wantMessage: `Account is not archived`}),
		alice.sc(apiScenario{name: "unarchive onto a taken name", method: http.MethodPatch, url: url + "/unarchive",
			wantStatus: 400, wantCode: CodeValidation, wantFields: fieldsOf("name", "is already used by another active account")}),
		alice.sc(apiScenario{name: "archive an unknown account", method: http.MethodPatch, url: "/api/v1/accounts/" + finance.NewID() + "/archive",
			wantStatus: 404, wantCode: CodeNotFound, wantMessage: "Account not found"}),
		alice.sc(apiScenario{name: "unarchive a malformed id", method: http.MethodPatch, url: "/api/v1/accounts/nope/unarchive",
			wantStatus: 404, wantCode: CodeNotFound}),
	})

	alice.do(t, http.MethodPatch, "/api/v1/accounts/"+clash.ID+"/archive", "", http.StatusOK)
	res = alice.do(t, http.MethodPatch, url+"/unarchive", "", http.StatusOK)
	got = finance.Account{} // archived_at is left out now, so a reused value would keep the old one
	res.decodeData(t, &got)
	if res.message() != "Account unarchived" || got.Status != finance.StatusActive || got.ArchivedAt != nil || got.CurrentBalance != 74975 {
		t.Errorf("unarchive: %s %s", res.message(), res.raw)
	}
	// Active again: writable.
	alice.addLine(t, a.ID, `{"type":"credit","amount":1,"date":"2025-03-02"}`)
}

func TestAccountTransactionCreate(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	a := alice.createAccount(t, `{"name":"BPI","type":"savings"}`)
	url := "/api/v1/accounts/" + a.ID + "/transactions"

	res := alice.do(t, http.MethodPost, url, `{"type":"credit","amount":"0.10","date":"2025-03-01","description":" interest ","source":"income","status":"voided"}`, http.StatusCreated)
	var line finance.AccountTransaction
	res.decodeData(t, &line)
	want := map[string]any{
		"id": line.ID, "account_id": a.ID, "account_name": "BPI", "currency": "PHP", "type": "credit", "amount": 0.10, "date": "2025-03-01",
		"description": "interest", "source": "manual", "status": "posted", "cleared": "pending", "is_editable": true,
		"running_balance": 0.10, "created_at": ledgerStamp, "updated_at": ledgerStamp,
	}
	if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, res.env.Data)); diff != "" {
		t.Errorf("created line (-want +got):\n%s", diff)
	}
	if res.message() != "Account transaction created" || rawField(t, res, "amount") != "0.10" {
		t.Errorf("message %q, amount %s", res.message(), rawField(t, res, "amount"))
	}
	// Exact money: 0.10 + 0.20 = 0.30, never 0.30000000000000004.
	alice.addLine(t, a.ID, `{"type":"credit","amount":0.2,"date":"2025-03-02"}`)
	res = alice.do(t, http.MethodGet, "/api/v1/accounts/"+a.ID, "", http.StatusOK)
	if got := rawField(t, res, "current_balance"); got != "0.30" {
		t.Errorf("balance after 0.10 + 0.20 = %s, want 0.30", got)
	}
	// Debits take money out; future dates are allowed; a description is optional.
	alice.addLine(t, a.ID, `{"type":"debit","amount":"1.00","date":"2030-01-01"}`)
	if got := alice.account(t, a.ID).CurrentBalance; got != -70 {
		t.Errorf("balance = %s, want -0.70", got)
	}

	archived := alice.createAccount(t, `{"name":"Old","type":"cash"}`)
	alice.archive(t, archived.ID)
	bobs := bob.createAccount(t, `{"name":"Bob","type":"cash"}`)
	post := func(name, target, body string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: target, body: body,
			wantStatus: status, wantCode: code, wantFields: fields})
	}
	const ok = `{"type":"debit","amount":5,"date":"2025-03-01"}`
	runRejected(t, env, []ledgerUser{alice, bob}, []apiScenario{
		post("empty body", url, `{}`, 400, CodeValidation, fieldsOf("type", problemRequired, "amount", problemRequired, "date", problemRequired)),
		post("unknown type", url, `{"type":"transfer","amount":5,"date":"2025-03-01"}`, 400, CodeValidation, fieldsOf("type", "must be one of: debit, credit")),
		post("zero amount", url, `{"type":"debit","amount":0,"date":"2025-03-01"}`, 400, CodeValidation, fieldsOf("amount", problemPositive)),
		post("negative amount", url, `{"type":"debit","amount":"-5","date":"2025-03-01"}`, 400, CodeValidation, fieldsOf("amount", problemPositive)),
		post("amount with 3 decimals", url, `{"type":"debit","amount":1.234,"date":"2025-03-01"}`, 400, CodeValidation, fieldsOf("amount", problemMoney)),
		post("amount with a plus", url, `{"type":"debit","amount":"+5","date":"2025-03-01"}`, 400, CodeValidation, fieldsOf("amount", problemMoney)),
		post("impossible date", url, `{"type":"debit","amount":5,"date":"2025-02-30"}`, 400, CodeValidation, fieldsOf("date", problemDate)),
		post("date without zero padding", url, `{"type":"debit","amount":5,"date":"2025-3-1"}`, 400, CodeValidation, fieldsOf("date", problemDate)),
		post("date with a time", url, `{"type":"debit","amount":5,"date":"2025-03-01T00:00:00Z"}`, 400, CodeValidation, fieldsOf("date", problemDate)),
		post("description too long", url, `{"type":"debit","amount":5,"date":"2025-03-01","description":"`+strings.Repeat("d", 256)+`"}`,
			400, CodeValidation, fieldsOf("description", "must be at most 255 characters")),
		post("archived account", "/api/v1/accounts/"+archived.ID+"/transactions", ok, 400, CodeInvalidStatus, nil),
		post("archived account with a bad body: shape first", "/api/v1/accounts/"+archived.ID+"/transactions", `{"type":"x","amount":5,"date":"2025-03-01"}`,
			400, CodeValidation, fieldsOf("type", "must be one of: debit, credit")),
		post("unknown account", "/api/v1/accounts/"+finance.NewID()+"/transactions", ok, 404, CodeNotFound, nil),
		post("another user's account", "/api/v1/accounts/"+bobs.ID+"/transactions", ok, 404, CodeNotFound, nil),
		post("malformed account id", "/api/v1/accounts/BPI/transactions", ok, 404, CodeNotFound, nil),
	})
}

func TestAccountTransactionLists(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings"}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	l1 := alice.addLine(t, bpi.ID, `{"type":"credit","amount":100,"date":"2025-01-15","description":"Transfer from GCash"}`)
	l2 := alice.addLine(t, bpi.ID, `{"type":"debit","amount":30,"date":"2025-02-01","description":"ATM withdrawal"}`)
	l3 := alice.addLine(t, gcash.ID, `{"type":"debit","amount":100,"date":"2025-01-15","description":"Transfer to BPI"}`)
	var adj finance.BalanceAdjustment
	alice.do(t, http.MethodPost, "/api/v1/accounts/"+gcash.ID+"/balance-adjustment", `{"target_balance":0,"date":"2025-03-01"}`,
		http.StatusCreated).decodeData(t, &adj)
	l4 := adj.Transaction
	voided := alice.addLine(t, bpi.ID, `{"type":"credit","amount":7,"date":"2025-02-10","description":"typo"}`)
	alice.do(t, http.MethodDelete, "/api/v1/accounts/"+bpi.ID+"/transactions/"+voided.ID, "", http.StatusOK)
	bobs := bob.createAccount(t, `{"name":"Bob","type":"cash"}`)
	bob.addLine(t, bobs.ID, `{"type":"credit","amount":1,"date":"2025-01-01"}`)

	ids := func(items []finance.AccountTransaction) []string {
		out := []string{}
		for _, l := range items {
			out = append(out, l.ID)
		}
		return out
	}
	all := "/api/v1/accounts/transactions"
	one := "/api/v1/accounts/" + bpi.ID + "/transactions"
	for _, tt := range []struct {
		url  string
		want []string
	}{
		// Default: posted, by date descending, ties by id descending.
		{all, []string{l4.ID, l2.ID, l3.ID, l1.ID}},
		{all + "?sortOrder=asc", []string{l1.ID, l3.ID, l2.ID, l4.ID}},
		{all + "?sortBy=amount", []string{l4.ID, l3.ID, l1.ID, l2.ID}},
		{all + "?sortBy=created_at&sortOrder=asc", []string{l1.ID, l2.ID, l3.ID, l4.ID}},
		{all + "?status=voided", []string{voided.ID}},
		{all + "?status=posted&type=debit", []string{l2.ID, l3.ID}},
		{all + "?source=adjustment", []string{l4.ID}},
		{all + "?source=manual&type=credit", []string{l1.ID}},
		{all + "?source=income", []string{}},
		{all + "?dateFrom=2025-01-15&dateTo=2025-01-15", []string{l3.ID, l1.ID}},
		{all + "?dateFrom=2025-02-01", []string{l4.ID, l2.ID}},
		{all + "?dateTo=2025-01-31", []string{l3.ID, l1.ID}},
		{all + "?search=transfer", []string{l3.ID, l1.ID}},
		{all + "?search=BALANCE", []string{l4.ID}},
		{all + "?accountId=" + bpi.ID, []string{l2.ID, l1.ID}},
		{all + "?accountId=" + bobs.ID, []string{}},         // another user's account: empty
		{all + "?accountId=" + finance.NewID(), []string{}}, // unknown: empty
		{all + "?limit=1&page=2", []string{l2.ID}},
		{one, []string{l2.ID, l1.ID}},
		{one + "?status=voided", []string{voided.ID}},
		{one + "?type=credit", []string{l1.ID}},
		{"/api/v1/accounts/" + gcash.ID + "/transactions", []string{l4.ID, l3.ID}},
	} {
		t.Run(tt.url, func(t *testing.T) {
			items, p := alice.lines(t, tt.url)
			if diff := cmp.Diff(tt.want, ids(items)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			if tt.url == all+"?limit=1&page=2" {
				if p != (finance.Pagination{Page: 2, Limit: 1, TotalItems: 4, TotalPages: 4}) {
					t.Errorf("pagination = %+v", p)
				}
			} else if p.TotalItems != len(tt.want) {
				t.Errorf("total_items = %d, want %d", p.TotalItems, len(tt.want))
			}
		})
	}
	items, _ := alice.lines(t, all+"?source=adjustment")
	if l := items[0]; l.AccountName != "GCash" || l.Source != finance.SourceAdjustment || !l.IsEditable || l.Type != finance.LineCredit || l.Amount != 10000 {
		t.Errorf("adjustment line = %+v", l)
	}

	bad := func(url string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: url, method: http.MethodGet, url: url, wantStatus: status, wantCode: code, wantFields: fields})
	}
	runScenarios(t, env, []apiScenario{
		bad(all+"?status=active", 400, CodeValidation, fieldsOf("status", "must be one of: posted, voided")),
		bad(all+"?type=withdrawal", 400, CodeValidation, fieldsOf("type", "must be one of: debit, credit")),
		bad(all+"?source=bank", 400, CodeValidation, fieldsOf("source", "must be one of: manual, adjustment, expense, income, soa_payment, loan_payment, transfer")),
		bad(all+"?dateFrom=2025-02-01&dateTo=2025-01-01", 400, CodeValidation, fieldsOf("dateFrom", "must not be after dateTo")),
		bad(all+"?dateFrom=2025-02-30", 400, CodeValidation, fieldsOf("dateFrom", problemDate)),
		bad(all+"?accountId=BPI", 400, CodeValidation, fieldsOf("accountId", "must be a UUID")),
		bad(all+"?sortBy=description", 400, CodeValidation, fieldsOf("sortBy", "must be one of: date, amount, created_at")),
		bad(one+"?status=all", 400, CodeValidation, fieldsOf("status", "must be one of: posted, voided")),
		// accountId filters only the list of every account's lines; here it
		// would look like a filter that worked.
		bad(one+"?accountId="+gcash.ID, 400, CodeValidation, fieldsOf("accountId",
			"is not a query parameter of this route; it takes: page, limit, sortBy, sortOrder, status, type, source, dateFrom, dateTo, search, cleared")),
		bad("/api/v1/accounts/"+bobs.ID+"/transactions", 404, CodeNotFound, nil),
		bad("/api/v1/accounts/"+finance.NewID()+"/transactions", 404, CodeNotFound, nil),
		bad("/api/v1/accounts/"+bobs.ID+"/transactions?status=bogus", 404, CodeNotFound, nil), // path ids come first
	})
}

func TestAccountTransactionUpdateAndVoid(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	a := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":100}`)
	other := alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	line := alice.addLine(t, a.ID, `{"type":"debit","amount":10,"date":"2025-03-01","description":"ATM"}`)
	lineURL := fmt.Sprintf("/api/v1/accounts/%s/transactions/%s", a.ID, line.ID)

	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow.Add(time.Hour) })
	res := alice.do(t, http.MethodPut, lineURL, `{"amount":"12.5"}`, http.StatusOK)
	var got finance.AccountTransaction
	res.decodeData(t, &got)
	if res.message() != "Account transaction updated" || got.Amount != 1250 || got.Type != finance.LineDebit || got.Date.String() != "2025-03-01" ||
		*got.Description != "ATM" || got.ID != line.ID || !got.UpdatedAt.Equal(ledgerNow.Add(time.Hour)) || !got.CreatedAt.Equal(ledgerNow) {
		t.Errorf("partial update: %s %s", res.message(), res.raw)
	}
	res = alice.do(t, http.MethodPut, lineURL, `{"type":"credit","date":"2025-03-05","description":null}`, http.StatusOK)
	if rawField(t, res, "description") != absent || rawField(t, res, "type") != `"credit"` || rawField(t, res, "amount") != "12.50" {
		t.Errorf("update: %s", res.env.Data)
	}
	if bal := alice.account(t, a.ID).CurrentBalance; bal != 11250 {
		t.Errorf("balance = %s, want 112.50", bal)
	}

	// An adjustment line is editable too.
	var adj finance.BalanceAdjustment
	alice.do(t, http.MethodPost, "/api/v1/accounts/"+a.ID+"/balance-adjustment", `{"target_balance":200}`, http.StatusCreated).decodeData(t, &adj)
	adjURL := fmt.Sprintf("/api/v1/accounts/%s/transactions/%s", a.ID, adj.Transaction.ID)
	alice.do(t, http.MethodPut, adjURL, `{"description":"Reconciled"}`, http.StatusOK)

	// Lines owned by other records change only through them.
	var income finance.Income
	alice.do(t, http.MethodPost, "/api/v1/income", `{"amount":50,"date":"2025-03-01","category":"Salary","account_id":"`+a.ID+`"}`,
		http.StatusCreated).decodeData(t, &income)
	incomeLineURL := fmt.Sprintf("/api/v1/accounts/%s/transactions/%s", a.ID, *income.AccountTransactionID)

	voidedLine := alice.addLine(t, a.ID, `{"type":"debit","amount":1,"date":"2025-03-01"}`)
	voidedURL := fmt.Sprintf("/api/v1/accounts/%s/transactions/%s", a.ID, voidedLine.ID)
	alice.do(t, http.MethodDelete, voidedURL, "", http.StatusOK)

	otherLine := alice.addLine(t, other.ID, `{"type":"debit","amount":1,"date":"2025-03-01"}`)
	archived := alice.createAccount(t, `{"name":"Old","type":"cash"}`)
	archivedLine := alice.addLine(t, archived.ID, `{"type":"credit","amount":5,"date":"2025-03-01"}`)
	alice.archive(t, archived.ID)
	archivedURL := fmt.Sprintf("/api/v1/accounts/%s/transactions/%s", archived.ID, archivedLine.ID)
	bobs := bob.createAccount(t, `{"name":"Bob","type":"cash"}`)
	bobLine := bob.addLine(t, bobs.ID, `{"type":"credit","amount":5,"date":"2025-03-01"}`)

	req := func(name, method, target, body string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: method, url: target, body: body, wantStatus: status, wantCode: code, wantFields: fields})
	}
	put, del := http.MethodPut, http.MethodDelete
	runRejected(t, env, []ledgerUser{alice, bob}, []apiScenario{
		req("PUT null amount", put, lineURL, `{"amount":null}`, 400, CodeValidation, fieldsOf("amount", problemRequired)),
		req("PUT zero amount", put, lineURL, `{"amount":0}`, 400, CodeValidation, fieldsOf("amount", problemPositive)),
		req("PUT null date", put, lineURL, `{"date":null}`, 400, CodeValidation, fieldsOf("date", problemRequired)),
		req("PUT bad date", put, lineURL, `{"date":"03/01/2025"}`, 400, CodeValidation, fieldsOf("date", problemDate)),
		req("PUT bad type", put, lineURL, `{"type":"Debit"}`, 400, CodeValidation, fieldsOf("type", "must be one of: debit, credit")),
		req("PUT an income line", put, incomeLineURL, `{"amount":1}`, 400, CodeInvalidStatus, nil),
		req("DELETE an income line", del, incomeLineURL, "", 400, CodeInvalidStatus, nil),
		req("PUT a voided line", put, voidedURL, `{"amount":1}`, 400, CodeInvalidStatus, nil),
		req("DELETE a voided line", del, voidedURL, "", 400, CodeInvalidStatus, nil),
		req("PUT a voided line with a bad body: shape first", put, voidedURL, `{"amount":-1}`, 400, CodeValidation, fieldsOf("amount", problemPositive)),
		req("PUT on an archived account", put, archivedURL, `{"amount":1}`, 400, CodeInvalidStatus, nil),
		req("DELETE on an archived account", del, archivedURL, "", 400, CodeInvalidStatus, nil),
		req("PUT a line of another account", put, fmt.Sprintf("/api/v1/accounts/%s/transactions/%s", a.ID, otherLine.ID), `{"amount":1}`, 404, CodeNotFound, nil),
		req("DELETE a line of another account", del, fmt.Sprintf("/api/v1/accounts/%s/transactions/%s", a.ID, otherLine.ID), "", 404, CodeNotFound, nil),
		req("PUT an unknown line", put, fmt.Sprintf("/api/v1/accounts/%s/transactions/%s", a.ID, finance.NewID()), `{"amount":1}`, 404, CodeNotFound, nil),
		req("DELETE a malformed line id", del, fmt.Sprintf("/api/v1/accounts/%s/transactions/x", a.ID), "", 404, CodeNotFound, nil),
		req("PUT another user's line under their account", put, fmt.Sprintf("/api/v1/accounts/%s/transactions/%s", bobs.ID, bobLine.ID), `{"amount":1}`, 404, CodeNotFound, nil),
		req("DELETE another user's line under my account", del, fmt.Sprintf("/api/v1/accounts/%s/transactions/%s", a.ID, bobLine.ID), "", 404, CodeNotFound, nil),
	})
	for _, msg := range []struct{ url, want string }{
		{incomeLineURL, "Account transaction belongs to an income record; change or void it through that record"},
		{voidedURL, "Account transaction is already voided"},
		{archivedURL, `Account is archived; unarchive it before writing to it`},
	} {
		alice.sc(apiScenario{method: del, url: msg.url, wantStatus: 400, wantCode: CodeInvalidStatus, wantMessage: msg.want}).run(t, env)
	}

	// DELETE voids: the line stays readable, leaves the balance and the default list.
	before := alice.account(t, a.ID).CurrentBalance
	res = alice.do(t, del, lineURL, "", http.StatusOK)
	res.decodeData(t, &got)
	if res.message() != "Account transaction voided" || got.Status != finance.StatusVoided || got.VoidedAt == nil || got.IsEditable {
		t.Errorf("void: %s %s", res.message(), res.raw)
	}
	if after := alice.account(t, a.ID).CurrentBalance; after != before-1250 {
		t.Errorf("balance after voiding a 12.50 credit: %s, want %s", after, before-1250)
	}
	items, _ := alice.lines(t, "/api/v1/accounts/"+a.ID+"/transactions?status=voided")
	if len(items) != 2 {
		t.Errorf("voided lines = %d, want 2", len(items))
	}
}

func TestBalanceAdjustment(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	a := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"100.10"}`)
	alice.addLine(t, a.ID, `{"type":"debit","amount":"0.20","date":"2025-03-01"}`)
	url := "/api/v1/accounts/" + a.ID + "/balance-adjustment"

	// Up: a credit for the difference, dated today in Manila, described by default.
	res := alice.do(t, http.MethodPost, url, `{"target_balance":"150"}`, http.StatusCreated)
	var adj finance.BalanceAdjustment
	res.decodeData(t, &adj)
	want := map[string]any{
		"transaction": map[string]any{
			"id": adj.Transaction.ID, "account_id": a.ID, "account_name": "BPI", "currency": "PHP", "type": "credit", "amount": 50.10,
			"date": ledgerToday, "description": "Balance adjustment", "source": "adjustment",
			"status": "posted", "cleared": "cleared", "is_editable": true, "running_balance": 150.00, "created_at": ledgerStamp, "updated_at": ledgerStamp,
		},
		"previous_balance": 99.90,
		"new_balance":      150.00,
	}
	if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, res.env.Data)); diff != "" {
		t.Errorf("adjustment (-want +got):\n%s", diff)
	}
	if res.message() != "Balance adjusted" || rawField(t, res, "new_balance") != "150.00" || rawField(t, res, "transaction.amount") != "50.10" {
		t.Errorf("message %q, new_balance %s", res.message(), rawField(t, res, "new_balance"))
	}
	// Down, below zero: a debit, with the reason as description and the given date.
	res = alice.do(t, http.MethodPost, url, `{"target_balance":-0.05,"date":"2025-02-28","reason":" Matched the bank app "}`, http.StatusCreated)
	res.decodeData(t, &adj)
	if adj.Transaction.Type != finance.LineDebit || adj.Transaction.Amount != 15005 || *adj.Transaction.Description != "Matched the bank app" ||
		adj.Transaction.Date.String() != "2025-02-28" || adj.PreviousBalance != 15000 || adj.NewBalance != -5 {
		t.Errorf("downward adjustment: %s", res.raw)
	}
	if got := alice.account(t, a.ID).CurrentBalance; got != -5 {
		t.Errorf("balance = %s, want -0.05", got)
	}
	// An explicit null date is today.
	res = alice.do(t, http.MethodPost, url, `{"target_balance":0,"date":null,"reason":null}`, http.StatusCreated)
	if rawField(t, res, "transaction.date") != `"`+ledgerToday+`"` || rawField(t, res, "new_balance") != "0.00" {
		t.Errorf("null date: %s", res.raw)
	}

	archived := alice.createAccount(t, `{"name":"Old","type":"cash"}`)
	alice.archive(t, archived.ID)
	bobs := bob.createAccount(t, `{"name":"Bob","type":"cash"}`)
	post := func(name, target, body string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: target, body: body, wantStatus: status, wantCode: code, wantFields: fields})
	}
	runRejected(t, env, []ledgerUser{alice, bob}, []apiScenario{
		post("difference of zero", url, `{"target_balance":"0.00"}`, 400, CodeValidation,
			fieldsOf("target_balance", "equals the current balance 0.00; nothing to adjust")),
		post("no target", url, `{"reason":"x"}`, 400, CodeValidation, fieldsOf("target_balance", problemRequired)),
		post("null target", url, `{"target_balance":null}`, 400, CodeValidation, fieldsOf("target_balance", problemRequired)),
		post("target with 3 decimals", url, `{"target_balance":1.001}`, 400, CodeValidation, fieldsOf("target_balance", problemMoney)),
		post("bad date", url, `{"target_balance":1,"date":"2025-13-01"}`, 400, CodeValidation, fieldsOf("date", problemDate)),
		post("reason too long", url, `{"target_balance":1,"reason":"`+strings.Repeat("r", 256)+`"}`, 400, CodeValidation,
			fieldsOf("reason", "must be at most 255 characters")),
		post("archived account", "/api/v1/accounts/"+archived.ID+"/balance-adjustment", `{"target_balance":1}`, 400, CodeInvalidStatus, nil),
		post("archived account, zero difference: the state comes first", "/api/v1/accounts/"+archived.ID+"/balance-adjustment",
			`{"target_balance":0}`, 400, CodeInvalidStatus, nil),
		post("another user's account", "/api/v1/accounts/"+bobs.ID+"/balance-adjustment", `{"target_balance":1}`, 404, CodeNotFound, nil),
		post("unknown account", "/api/v1/accounts/"+finance.NewID()+"/balance-adjustment", `{"target_balance":1}`, 404, CodeNotFound, nil),
	})
	// Adjustments are ledger lines, not income or spending.
	if items, _ := alice.lines(t, "/api/v1/accounts/transactions?source=adjustment"); len(items) != 3 {
		t.Errorf("adjustment lines = %d, want 3", len(items))
	}
}

// TestAccountsOwnerScoping checks that another user's account id in a path
// is 404 on every accounts route, and that lists never show it.
func TestAccountsOwnerScoping(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	bobs := bob.createAccount(t, `{"name":"Bob Savings","type":"savings","opening_balance":1000}`)
	bobLine := bob.addLine(t, bobs.ID, `{"type":"credit","amount":5,"date":"2025-03-01"}`)
	alice.createAccount(t, `{"name":"Alice","type":"cash"}`)

	acct := "/api/v1/accounts/" + bobs.ID
	line := acct + "/transactions/" + bobLine.ID
	var scenarios []apiScenario
	for _, r := range []struct{ method, url, body string }{
		{http.MethodGet, acct, ""},
		{http.MethodPut, acct, `{"notes":"mine now"}`},
		{http.MethodDelete, acct, ""},
		{http.MethodPatch, acct + "/archive", ""},
		{http.MethodPatch, acct + "/unarchive", ""},
		{http.MethodGet, acct + "/transactions", ""},
		{http.MethodPost, acct + "/transactions", `{"type":"debit","amount":5,"date":"2025-03-01"}`},
		{http.MethodPut, line, `{"amount":1}`},
		{http.MethodDelete, line, ""},
		{http.MethodPost, acct + "/balance-adjustment", `{"target_balance":0}`},
		// Path ids are checked before the body: malformed JSON is still 404.
		{http.MethodPut, acct, `{"notes":`},
		{http.MethodPost, acct + "/transactions", `not json`},
		{http.MethodPut, line, `[`},
		{http.MethodPost, acct + "/balance-adjustment", `{"target_balance":1e}`},
		{http.MethodGet, acct + "/transactions?status=bogus&page=0", ""},
	} {
		scenarios = append(scenarios, alice.sc(apiScenario{name: r.method + " " + strings.Replace(r.url, bobs.ID, "{bob}", 1) + " " + r.body,
			method: r.method, url: r.url, body: r.body, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}))
	}
	runRejected(t, env, []ledgerUser{alice, bob}, scenarios)

	if items, p := alice.accounts(t, "/api/v1/accounts?status=all"); p.TotalItems != 1 || items[0].Name != "Alice" {
		t.Errorf("alice sees accounts %+v", items)
	}
	if _, p := alice.lines(t, "/api/v1/accounts/transactions"); p.TotalItems != 0 {
		t.Errorf("alice sees %d lines of bob's", p.TotalItems)
	}
	if got := bob.account(t, bobs.ID); got.Status != finance.StatusActive || got.CurrentBalance != 100500 {
		t.Errorf("bob's account changed: %+v", got)
	}
}

// TestAccountsScopes checks the scope of each kind of accounts route: reads
// take finance:read or accounts:write, writes only accounts:write.
func TestAccountsScopes(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	a := alice.createAccount(t, `{"name":"BPI","type":"savings"}`)
	line := alice.addLine(t, a.ID, `{"type":"credit","amount":5,"date":"2025-03-01"}`)
	readKey := env.createKey(alice.user.ID, auth.ScopeRead)
	incomeKey := env.createKey(alice.user.ID, auth.ScopeIncomeWrite)
	const (
		needWrite = "This credential lacks the required scope accounts:write"
		needRead  = "This credential lacks the required scope finance:read (or accounts:write)"
	)
	acct := "/api/v1/accounts/" + a.ID
	lineURL := acct + "/transactions/" + line.ID
	reads := []string{"/api/v1/accounts", "/api/v1/accounts/transactions", acct, acct + "/transactions"}
	writes := []struct{ method, url, body string }{
		{http.MethodPost, "/api/v1/accounts", `{"name":"X","type":"cash"}`},
		{http.MethodPut, acct, `{"notes":"x"}`},
		{http.MethodDelete, acct, ""},
		{http.MethodPatch, acct + "/archive", ""},
		{http.MethodPatch, acct + "/unarchive", ""},
		{http.MethodPost, acct + "/transactions", `{"type":"debit","amount":5,"date":"2025-03-01"}`},
		{http.MethodPut, lineURL, `{"amount":1}`},
		{http.MethodDelete, lineURL, ""},
		{http.MethodPost, acct + "/balance-adjustment", `{"target_balance":0}`},
	}
	var scenarios []apiScenario
	for _, url := range reads {
		apiScenario{method: http.MethodGet, url: url, headers: bearer(readKey), wantStatus: http.StatusOK}.run(t, env)
		scenarios = append(scenarios, apiScenario{name: "income:write GET " + url, method: http.MethodGet, url: url,
			headers: bearer(incomeKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantMessage: needRead})
	}
	for _, w := range writes {
		for name, key := range map[string]string{"finance:read": readKey, "income:write": incomeKey} {
			scenarios = append(scenarios, apiScenario{name: name + " " + w.method + " " + w.url, method: w.method, url: w.url, body: w.body,
				headers: bearer(key), wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantMessage: needWrite})
		}
	}
	runRejected(t, env, []ledgerUser{alice}, scenarios)
}

// TestArchivedAccountHistory checks that archiving keeps the history listed
// and counted, and that records posted to it can still be voided.
func TestArchivedAccountHistory(t *testing.T) {
	_, alice, _ := newLedgerEnv(t)
	a := alice.createAccount(t, `{"name":"Old Bank","type":"savings","opening_balance":10}`)
	alice.createAccount(t, `{"name":"New Bank","type":"savings","opening_balance":5}`)
	alice.addLine(t, a.ID, `{"type":"credit","amount":"0.10","date":"2025-01-01"}`)
	var income finance.Income
	alice.do(t, http.MethodPost, "/api/v1/income", `{"amount":"0.20","date":"2025-01-02","category":"Interest & Dividends","account_id":"`+a.ID+`"}`,
		http.StatusCreated).decodeData(t, &income)
	alice.do(t, http.MethodDelete, "/api/v1/accounts/"+a.ID, "", http.StatusOK)

	if got := alice.account(t, a.ID); got.CurrentBalance != 1030 || got.Status != finance.StatusArchived {
		t.Errorf("archived account = %+v, want balance 10.30", got)
	}
	if items, p := alice.accounts(t, "/api/v1/accounts?status=archived"); p.TotalItems != 1 || items[0].CurrentBalance != 1030 {
		t.Errorf("archived list = %+v", items)
	}
	if _, p := alice.accounts(t, "/api/v1/accounts?status=all"); p.TotalItems != 2 {
		t.Errorf("status=all total = %d, want 2", p.TotalItems)
	}
	if _, p := alice.lines(t, "/api/v1/accounts/transactions?accountId="+a.ID); p.TotalItems != 2 {
		t.Errorf("archived account's lines in the all-accounts list = %d, want 2", p.TotalItems)
	}
	if _, p := alice.lines(t, "/api/v1/accounts/"+a.ID+"/transactions"); p.TotalItems != 2 {
		t.Errorf("archived account's own lines = %d, want 2", p.TotalItems)
	}
	// Voiding the income reverses its line, even on the archived account.
	alice.do(t, http.MethodDelete, "/api/v1/income/"+income.ID, "", http.StatusOK)
	if got := alice.account(t, a.ID); got.CurrentBalance != 1010 {
		t.Errorf("balance after voiding the income = %s, want 10.10", got.CurrentBalance)
	}
}
