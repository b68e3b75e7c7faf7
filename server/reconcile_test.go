package server

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// reconcileBook is the worked example of docs/domain.md "Reconciliation":
// BPI opened at 1,000.00 with a cleared salary and groceries, a pending
// transfer to GCash, a voided coffee and a cleared rent after the
// statement's date.
type reconcileBook struct {
	alice                               ledgerUser
	bpi, gcash                          finance.Account
	salary, groceries, coffee, rent     finance.AccountTransaction
	transferID, transferLine, reconcile string
}

func newReconcileBook(t *testing.T, env *testEnv, alice ledgerUser) reconcileBook {
	t.Helper()
	b := reconcileBook{alice: alice}
	b.bpi = alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":1000}`)
	b.gcash = alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	b.salary = alice.addLine(t, b.bpi.ID, `{"type":"credit","amount":5000,"date":"2025-03-01","description":"Salary"}`)
	b.groceries = alice.addLine(t, b.bpi.ID, `{"type":"debit","amount":1250.50,"date":"2025-03-03","description":"Groceries"}`)
	tr := send[finance.Transfer](t, alice, http.MethodPost, "/api/v1/transfers",
		`{"from_account_id":"`+b.bpi.ID+`","to_account_id":"`+b.gcash.ID+`","amount":500,"date":"2025-03-05"}`, http.StatusCreated)
	b.transferID, b.transferLine = tr.ID, tr.FromLineID
	b.coffee = alice.addLine(t, b.bpi.ID, `{"type":"debit","amount":150,"date":"2025-03-07","description":"Coffee"}`)
	alice.do(t, http.MethodDelete, "/api/v1/accounts/"+b.bpi.ID+"/transactions/"+b.coffee.ID, "", http.StatusOK)
	b.rent = alice.addLine(t, b.bpi.ID, `{"type":"debit","amount":2000,"date":"2025-03-20","description":"Rent"}`)
	b.mark(t, "cleared", b.salary.ID, b.groceries.ID, b.rent.ID)
	b.reconcile = "/api/v1/accounts/" + b.bpi.ID + "/reconcile"
	return b
}

// mark ticks lines of BPI off (or back) through the bulk route.
func (b reconcileBook) mark(t testing.TB, cleared string, ids ...string) finance.MarkedLines {
	t.Helper()
	return send[finance.MarkedLines](t, b.alice, http.MethodPost, "/api/v1/accounts/"+b.bpi.ID+"/cleared",
		`{"cleared":"`+cleared+`","transaction_ids":["`+strings.Join(ids, `","`)+`"]}`, http.StatusOK)
}

// clearedStates reads each line's cleared state from the database.
func clearedStates(t testing.TB, env *testEnv, userID string, ids ...string) []string {
	t.Helper()
	out := make([]string, len(ids))
	for i, id := range ids {
		line, err := env.db.Read().AccountTransaction(t.Context(), userID, id)
		if err != nil {
			t.Fatalf("line %s: %v", id, err)
		}
		out[i] = line.Cleared
	}
	return out
}

func TestReconcileArithmetic(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	b := newReconcileBook(t, env, alice)
	lines := []string{b.salary.ID, b.groceries.ID, b.transferLine, b.coffee.ID, b.rent.ID}
	if got, want := clearedStates(t, env, alice.user.ID, lines...), []string{"cleared", "cleared", "pending", "pending", "cleared"}; !cmp.Equal(got, want) {
		t.Fatalf("cleared before reconciling = %v, want %v", got, want)
	}

	// Unequal: the pending transfer is the difference; nothing changes.
	before := snapshotLedger(t, env, alice.user.ID)
	res := alice.do(t, http.MethodPost, b.reconcile, `{"date":"2025-03-15","statement_balance":4249.50}`, http.StatusOK)
	var miss finance.Reconciliation
	res.decodeData(t, &miss)
	if res.env.Message != "Statement balance differs from the cleared balance by -500.00" {
		t.Errorf("message = %q", res.env.Message)
	}
	if got := [4]string{rawField(t, res, "statement_balance"), rawField(t, res, "cleared_balance"), rawField(t, res, "difference"), rawField(t, res, "reconciled")}; got != [4]string{"4249.50", "4749.50", "-500.00", "false"} {
		t.Errorf("statement, cleared, difference, reconciled = %v", got)
	}
	if miss.ReconciledCount != 0 || miss.UnclearedCount != 1 || len(miss.Uncleared) != 1 || miss.Uncleared[0].ID != b.transferLine {
		t.Errorf("unequal answer = %+v, want the transfer's line alone uncleared", miss)
	}
	if diff := cmp.Diff(before, snapshotLedger(t, env, alice.user.ID), equateDates); diff != "" {
		t.Errorf("an unequal reconcile changed the ledger (-before +after):\n%s", diff)
	}

	// The transfer's line is ticked off on its own route (it belongs to the transfer, but cleared touches no money).
	ticked := send[finance.AccountTransaction](t, alice, http.MethodPut, "/api/v1/accounts/"+b.bpi.ID+"/transactions/"+b.transferLine,
		`{"cleared":"cleared"}`, http.StatusOK)
	if ticked.Cleared != "cleared" || ticked.Amount != 50000 {
		t.Errorf("ticked transfer line = %+v", ticked)
	}

	// Equal: every cleared line up to the date becomes reconciled; the rent (after it) stays cleared.
	res = alice.do(t, http.MethodPost, b.reconcile, `{"date":"2025-03-15","statement_balance":4249.50}`, http.StatusOK)
	var hit finance.Reconciliation
	res.decodeData(t, &hit)
	if res.env.Message != "Account reconciled" || !hit.Reconciled || hit.ReconciledCount != 3 || hit.Difference != 0 ||
		hit.ClearedBalance != 424950 || hit.UnclearedCount != 0 || len(hit.Uncleared) != 0 {
		t.Errorf("equal answer = %q %+v", res.env.Message, hit)
	}
	want := []string{"reconciled", "reconciled", "reconciled", "pending", "cleared"}
	if got := clearedStates(t, env, alice.user.ID, lines...); !cmp.Equal(got, want) {
		t.Errorf("cleared after reconciling = %v, want %v", got, want)
	}
	if a := alice.account(t, b.bpi.ID); a.CurrentBalance != 224950 {
		t.Errorf("balance = %s; a reconcile moves no money", a.CurrentBalance)
	}

	// Twice: it matches again and marks nothing new.
	again := send[finance.Reconciliation](t, alice, http.MethodPost, b.reconcile, `{"date":"2025-03-15","statement_balance":"4249.5"}`, http.StatusOK)
	if !again.Reconciled || again.ReconciledCount != 0 {
		t.Errorf("second reconcile = %+v, want reconciled with 0 lines", again)
	}
	if got := clearedStates(t, env, alice.user.ID, lines...); !cmp.Equal(got, want) {
		t.Errorf("cleared after the second reconcile = %v, want %v", got, want)
	}

	// A negative statement balance is an overdrawn account, not an error.
	over := send[finance.Reconciliation](t, alice, http.MethodPost, b.reconcile, `{"date":"2025-02-28","statement_balance":-10}`, http.StatusOK)
	if over.Reconciled || over.ClearedBalance != 100000 || over.Difference != -101000 {
		t.Errorf("reconcile before every line = %+v, want the opening balance alone", over)
	}

	// Bob's ledger is not touched by any of it.
	if lines, _ := bob.lines(t, "/api/v1/accounts/transactions"); len(lines) != 0 {
		t.Errorf("bob sees %d lines", len(lines))
	}
}

// TestReconciledLinesRefuseMoneyEdits checks every route that can change a
// line's money: a reconciled line refuses it with INVALID_STATUS and nothing
// is written; harmless edits pass; un-reconciling lets the money change.
func TestReconciledLinesRefuseMoneyEdits(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	alice.key = env.createKey(alice.user.ID, auth.ScopeAccountsWrite, auth.ScopeExpensesWrite, auth.ScopeIncomeWrite)
	b := newReconcileBook(t, env, alice)
	exp := send[finance.Expense](t, alice, http.MethodPost, "/api/v1/expenses",
		`{"amount":250,"date":"2025-03-04","description":"Lunch","category":"Groceries","payment_method":"Account Debit","account_id":"`+b.bpi.ID+`"}`,
		http.StatusCreated)
	expLines, _ := alice.lines(t, "/api/v1/accounts/"+b.bpi.ID+"/transactions?source=expense")
	if len(expLines) != 1 {
		t.Fatalf("expense lines = %+v", expLines)
	}
	expLine := expLines[0].ID
	b.mark(t, "cleared", b.transferLine, expLine)
	send[finance.Reconciliation](t, alice, http.MethodPost, b.reconcile, `{"date":"2025-03-15","statement_balance":3999.50}`, http.StatusOK)
	if got := clearedStates(t, env, alice.user.ID, b.groceries.ID, b.transferLine, expLine); !cmp.Equal(got, []string{"reconciled", "reconciled", "reconciled"}) {
		t.Fatalf("cleared = %v, want all reconciled", got)
	}

	line := "/api/v1/accounts/" + b.bpi.ID + "/transactions/" + b.groceries.ID
	reconciled := func(id string) []string { return []string{"Account transaction " + id + " is reconciled"} }
	var scenarios []apiScenario
	for _, r := range []struct {
		name, method, url, body, line string
	}{
		{"line amount", http.MethodPut, line, `{"amount":1}`, b.groceries.ID},
		{"line date", http.MethodPut, line, `{"date":"2025-03-02"}`, b.groceries.ID},
		{"line type", http.MethodPut, line, `{"type":"credit"}`, b.groceries.ID},
		{"line void", http.MethodDelete, line, "", b.groceries.ID},
		{"expense amount", http.MethodPut, "/api/v1/expenses/" + exp.ID, `{"amount":300}`, expLine},
		{"expense date", http.MethodPut, "/api/v1/expenses/" + exp.ID, `{"date":"2025-03-05"}`, expLine},
		{"expense to cash", http.MethodPut, "/api/v1/expenses/" + exp.ID, `{"payment_method":"Cash","account_id":null}`, expLine},
		{"expense void", http.MethodDelete, "/api/v1/expenses/" + exp.ID, "", expLine},
		{"transfer amount", http.MethodPut, "/api/v1/transfers/" + b.transferID, `{"amount":501}`, b.transferLine},
		{"transfer delete", http.MethodDelete, "/api/v1/transfers/" + b.transferID, "", b.transferLine},
	} {
		scenarios = append(scenarios, alice.sc(apiScenario{name: r.name, method: r.method, url: r.url, body: r.body,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantInMsg: reconciled(r.line)}))
	}
	runRejected(t, env, []ledgerUser{alice}, scenarios)

	// Harmless edits go through and leave the line reconciled.
	desc := send[finance.AccountTransaction](t, alice, http.MethodPut, line, `{"description":"Groceries (SM)"}`, http.StatusOK)
	if desc.Cleared != "reconciled" || *desc.Description != "Groceries (SM)" {
		t.Errorf("description edit = %+v", desc)
	}
	send[finance.Expense](t, alice, http.MethodPut, "/api/v1/expenses/"+exp.ID, `{"description":"Lunch with Ana","category":"Food & Dining"}`, http.StatusOK)
	if got := clearedStates(t, env, alice.user.ID, expLine); got[0] != "reconciled" {
		t.Errorf("expense line after a description edit is %s", got[0])
	}

	// Setting reconciled by hand is refused; setting cleared un-reconciles, and then the money changes.
	alice.sc(apiScenario{name: "reconciled by hand", method: http.MethodPut, url: line, body: `{"cleared":"reconciled"}`,
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		wantFields: fieldsOf("cleared", "must be pending or cleared; lines become reconciled only through POST /api/v1/accounts/{id}/reconcile")}).run(t, env)
	fixed := send[finance.AccountTransaction](t, alice, http.MethodPut, line, `{"cleared":"cleared","amount":1200}`, http.StatusOK)
	if fixed.Cleared != "cleared" || fixed.Amount != 120000 {
		t.Errorf("un-reconciled and fixed line = %+v", fixed)
	}
	b.mark(t, "pending", b.transferLine)
	send[finance.Transfer](t, alice, http.MethodPut, "/api/v1/transfers/"+b.transferID, `{"amount":501}`, http.StatusOK)
}

func TestReconcileRejected(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	b := newReconcileBook(t, env, alice)
	bobs := bob.createAccount(t, `{"name":"Bob","type":"cash"}`)
	bobLine := bob.addLine(t, bobs.ID, `{"type":"credit","amount":5,"date":"2025-03-01"}`)
	archived := alice.createAccount(t, `{"name":"Old","type":"cash"}`)
	oldLine := alice.addLine(t, archived.ID, `{"type":"credit","amount":5,"date":"2025-03-01"}`)
	alice.archive(t, archived.ID)
	cleared := "/api/v1/accounts/" + b.bpi.ID + "/cleared"
	bad := func(name, url, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: url, body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	const notLine = "must be the id of a posted line of this account"
	runRejected(t, env, []ledgerUser{alice, bob}, []apiScenario{
		bad("empty body", b.reconcile, `{}`, fieldsOf("date", problemRequired, "statement_balance", problemRequired)),
		bad("bad values", b.reconcile, `{"date":"2025-02-30","statement_balance":1.234}`, fieldsOf("date", problemDate, "statement_balance", problemMoney)),
		bad("no ids", cleared, `{"cleared":"cleared","transaction_ids":[]}`, fieldsOf("transaction_ids", "must hold 1 to 500 line ids (got 0)")),
		bad("bad state", cleared, `{"cleared":"done","transaction_ids":["`+b.salary.ID+`"]}`, fieldsOf("cleared", "must be pending or cleared")),
		bad("other lines", cleared, `{"cleared":"cleared","transaction_ids":["`+b.salary.ID+`","`+bobLine.ID+`","`+b.coffee.ID+`","`+b.salary.ID+`","x"]}`,
			fieldsOf("transaction_ids[1]", notLine, "transaction_ids[2]", notLine, "transaction_ids[3]", "repeats an id listed before it", "transaction_ids[4]", notLine)),
		bad("gcash line on bpi", cleared, `{"cleared":"cleared","transaction_ids":["`+b.transferLine+`","`+oldLine.ID+`"]}`, fieldsOf("transaction_ids[1]", notLine)),
		alice.sc(apiScenario{name: "archived reconcile", method: http.MethodPost, url: "/api/v1/accounts/" + archived.ID + "/reconcile",
			body: `{"date":"2025-03-15","statement_balance":5}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "archived mark", method: http.MethodPost, url: "/api/v1/accounts/" + archived.ID + "/cleared",
			body: `{"cleared":"cleared","transaction_ids":["` + oldLine.ID + `"]}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "voided line", method: http.MethodPut, url: "/api/v1/accounts/" + b.bpi.ID + "/transactions/" + b.coffee.ID,
			body: `{"cleared":"cleared"}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "cleared on create", method: http.MethodPost, url: "/api/v1/accounts/" + b.bpi.ID + "/transactions",
			body: `{"type":"debit","amount":5,"date":"2025-03-01","cleared":"cleared"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("cleared", "cannot be set on a new line, which starts pending; mark it once recorded")}),
		// Another person's account is 404 on both routes, before the body is read.
		alice.sc(apiScenario{name: "bob's reconcile", method: http.MethodPost, url: "/api/v1/accounts/" + bobs.ID + "/reconcile",
			body: `{"date":"2025-03-15","statement_balance":5}`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "bob's mark", method: http.MethodPost, url: "/api/v1/accounts/" + bobs.ID + "/cleared",
			body: `{"cleared":"cleared","transaction_ids":["` + bobLine.ID + `"]}`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "bob's line", method: http.MethodPut, url: "/api/v1/accounts/" + bobs.ID + "/transactions/" + bobLine.ID,
			body: `{"cleared":"cleared"}`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})

	// Scopes: both routes write, so finance:read and other write scopes are 403.
	readKey := env.createKey(alice.user.ID, auth.ScopeRead)
	incomeKey := env.createKey(alice.user.ID, auth.ScopeIncomeWrite)
	var scopes []apiScenario
	for name, key := range map[string]string{"finance:read": readKey, "income:write": incomeKey} {
		for _, w := range []struct{ url, body string }{
			{b.reconcile, `{"date":"2025-03-15","statement_balance":4749.50}`},
			{cleared, `{"cleared":"cleared","transaction_ids":["` + b.transferLine + `"]}`},
		} {
			scopes = append(scopes, apiScenario{name: name + " " + w.url, method: http.MethodPost, url: w.url, body: w.body, headers: bearer(key),
				wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantMessage: "This credential lacks the required scope accounts:write"})
		}
	}
	runRejected(t, env, []ledgerUser{alice}, scopes)
	// The read key lists lines by their cleared state.
	apiScenario{method: http.MethodGet, url: "/api/v1/accounts/" + b.bpi.ID + "/transactions?cleared=pending", headers: bearer(readKey), wantStatus: http.StatusOK}.run(t, env)
	pending, _ := alice.lines(t, "/api/v1/accounts/"+b.bpi.ID+"/transactions?cleared=pending")
	if len(pending) != 1 || pending[0].ID != b.transferLine {
		t.Errorf("pending lines = %+v, want the transfer's line", pending)
	}
}

// TestReconcileAtOnce sends two equal reconciles together: one marks the
// lines, the other finds them reconciled already (one transaction each).
func TestReconcileAtOnce(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	b := newReconcileBook(t, env, alice)
	var wg sync.WaitGroup
	counts := make([]int, 2)
	for i := range counts {
		wg.Go(func() {
			counts[i] = send[finance.Reconciliation](t, alice, http.MethodPost, b.reconcile,
				`{"date":"2025-03-15","statement_balance":4749.50}`, http.StatusOK).ReconciledCount
		})
	}
	wg.Wait()
	if counts[0]+counts[1] != 2 || counts[0]*counts[1] != 0 {
		t.Errorf("reconciled counts = %v, want 2 and 0", counts)
	}
}

func TestCardTransactionCleared(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	alice.key = env.createKey(alice.user.ID, auth.ScopeCardsWrite)
	card := send[finance.CreditCard](t, alice, http.MethodPost, "/api/v1/credit-cards",
		`{"name":"Visa","credit_limit":50000,"statement_day":5,"due_day":25}`, http.StatusCreated)
	row := send[finance.CardTransaction](t, alice, http.MethodPost, "/api/v1/credit-cards/transactions",
		`{"credit_card_id":"`+card.ID+`","type":"fee","amount":100,"date":"2025-03-01","description":"Annual fee"}`, http.StatusCreated)
	if row.Cleared != "pending" {
		t.Errorf("a new card row is %q, want pending", row.Cleared)
	}
	url := "/api/v1/credit-cards/transactions/" + row.ID
	got := send[finance.CardTransaction](t, alice, http.MethodPut, url, `{"cleared":"cleared"}`, http.StatusOK)
	if got.Cleared != "cleared" || got.Amount != 10000 || got.Description != "Annual fee" {
		t.Errorf("ticked card row = %+v", got)
	}
	alice.sc(apiScenario{name: "reconciled", method: http.MethodPut, url: url, body: `{"cleared":"reconciled"}`,
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("cleared", "must be one of: pending, cleared")}).run(t, env)
	got = send[finance.CardTransaction](t, alice, http.MethodPut, url, `{"description":"Annual fee 2025"}`, http.StatusOK)
	if got.Cleared != "cleared" {
		t.Errorf("a description edit changed cleared to %q", got.Cleared)
	}
}

// Lines an import writes start cleared (they came from the bank), and an
// import whose lines were reconciled since cannot be reverted until they are
// un-reconciled: the revert voids its lines in bulk, past each line's guard.
func TestImportedLinesClearedAndRevertRefusedWhenReconciled(t *testing.T) {
	e := newImportEnv(t)
	var b finance.ImportBatch
	e.preview(t, e.key, "target_account_id", e.acct, bankCSV, http.StatusCreated).decodeData(t, &b)
	e.call(t, http.MethodPost, "/api/v1/imports/"+b.ID+"/commit", "", http.StatusOK)
	_, rows, err := e.stored(b.ID)
	e.must(err)
	imported := map[string]bool{}
	for _, r := range rows {
		if r.CreatedRowID != nil {
			imported[*r.CreatedRowID] = true
		}
	}
	lines, _, err := e.db.Read().ListAccountTransactions(e.ctx, e.user.ID,
		finance.AccountTransactionFilter{AccountID: e.acct, Status: finance.LinePosted}, finance.ListParams{Page: 1, Limit: 100, SortBy: "date"})
	e.must(err)
	for _, l := range lines {
		if want := map[bool]string{true: "cleared", false: "pending"}[imported[l.ID]]; l.Cleared != want {
			t.Errorf("line %s (imported %v) is %s, want %s", l.ID, imported[l.ID], l.Cleared, want)
		}
	}

	url := "/api/v1/accounts/" + e.acct + "/reconcile"
	var probe finance.Reconciliation
	e.call(t, http.MethodPost, url, `{"date":"2026-11-30","statement_balance":0}`, http.StatusOK).decodeData(t, &probe)
	var hit finance.Reconciliation
	e.call(t, http.MethodPost, url, `{"date":"2026-11-30","statement_balance":"`+probe.ClearedBalance.String()+`"}`, http.StatusOK).decodeData(t, &hit)
	if !hit.Reconciled || hit.ReconciledCount != len(imported) {
		t.Fatalf("reconcile = %+v, want the %d imported lines reconciled", hit, len(imported))
	}
	posted := e.postedLines()
	apiScenario{method: http.MethodPost, url: "/api/v1/imports/" + b.ID + "/revert", headers: bearer(e.key),
		wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantInMsg: []string{"which is reconciled"}}.run(t, e.testEnv)
	if n := e.postedLines(); n != posted {
		t.Errorf("a refused revert voided %d lines", posted-n)
	}
	if got, _, _ := e.stored(b.ID); got.Status != finance.ImportCommitted {
		t.Errorf("the batch after a refused revert is %s", got.Status)
	}

	ids := `"` + strings.Join(slices.Collect(maps.Keys(imported)), `","`) + `"`
	e.call(t, http.MethodPost, "/api/v1/accounts/"+e.acct+"/cleared", `{"cleared":"cleared","transaction_ids":[`+ids+`]}`, http.StatusOK)
	e.call(t, http.MethodPost, "/api/v1/imports/"+b.ID+"/revert", "", http.StatusOK)
}
