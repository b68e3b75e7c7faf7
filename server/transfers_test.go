package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

func (u ledgerUser) createTransfer(t testing.TB, body string) finance.Transfer {
	t.Helper()
	return send[finance.Transfer](t, u, http.MethodPost, "/api/v1/transfers", body, http.StatusCreated)
}

func (u ledgerUser) transfer(t testing.TB, id string) finance.Transfer {
	t.Helper()
	return send[finance.Transfer](t, u, http.MethodGet, "/api/v1/transfers/"+id, "", http.StatusOK)
}

// storedExpense reads an expense straight from the database.
func (u ledgerUser) storedExpense(t testing.TB, id string) finance.Expense {
	t.Helper()
	e, err := u.env.db.Read().Expense(context.Background(), u.user.ID, id)
	if err != nil {
		t.Fatalf("expense %s: %v", id, err)
	}
	return e
}

// transferBody is a POST /transfers body from one account to another.
func transferBody(from, to, rest string) string {
	return `{"from_account_id":"` + from + `","to_account_id":"` + to + `"` + rest + `}`
}

func TestTransferCreateWritesTwoLinesAndAFee(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"10000.00"}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet","opening_balance":"50.00"}`)

	res := alice.do(t, http.MethodPost, "/api/v1/transfers",
		transferBody(bpi.ID, gcash.ID, `,"amount":"2000.10","date":"2025-03-09","description":" Top-up ","fee":"15.00"`), http.StatusCreated)
	var tr finance.Transfer
	res.decodeData(t, &tr)
	if res.message() != "Transfer created" || rawField(t, res, "amount") != "2000.10" || rawField(t, res, "fee") != "15.00" {
		t.Errorf("message %q, amount %s, fee %s", res.message(), rawField(t, res, "amount"), rawField(t, res, "fee"))
	}
	want := map[string]any{
		"id": tr.ID, "from_account_id": bpi.ID, "from_account_name": "BPI", "to_account_id": gcash.ID, "to_account_name": "GCash",
		"amount": 2000.10, "to_amount": 2000.10, "rate": 1, "from_currency": "PHP", "to_currency": "PHP",
		"fee": 15.00, "fee_category": "Miscellaneous", "fee_expense_id": *tr.FeeExpenseID,
		"from_transaction_id": tr.FromLineID, "to_transaction_id": tr.ToLineID, "date": "2025-03-09", "description": "Top-up",
		"status": "posted", "created_at": ledgerStamp, "updated_at": ledgerStamp,
	}
	if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, res.env.Data)); diff != "" {
		t.Errorf("created transfer (-want +got):\n%s", diff)
	}
	alice.sc(apiScenario{method: http.MethodGet, url: "/api/v1/transfers/" + tr.ID, wantStatus: http.StatusOK,
		wantMessage: "Transfer retrieved", wantData: want}).run(t, env)

	// Balances: the from-account loses the amount and the fee, the
	// to-account gains the amount.
	if got := alice.account(t, bpi.ID).CurrentBalance; got != 1000000-200010-1500 {
		t.Errorf("BPI balance %s, want 7984.90", got)
	}
	if got := alice.account(t, gcash.ID).CurrentBalance; got != 5000+200010 {
		t.Errorf("GCash balance %s, want 2050.10", got)
	}

	// Each side's line links to the other account.
	from, _ := alice.lines(t, "/api/v1/accounts/"+bpi.ID+"/transactions?source=transfer")
	to, _ := alice.lines(t, "/api/v1/accounts/"+gcash.ID+"/transactions")
	if len(from) != 1 || len(to) != 1 {
		t.Fatalf("lines: from %+v, to %+v", from, to)
	}
	wantFrom := finance.AccountTransaction{ID: tr.FromLineID, AccountID: bpi.ID, AccountName: "BPI", Currency: "PHP", Type: finance.LineDebit,
		Amount: 200010, Date: tr.Date, Description: tr.Description, Source: finance.SourceTransfer, SourceID: &tr.ID,
		Status: finance.LinePosted, Cleared: finance.ClearedPending,
		Transfer:       &finance.LineTransfer{ID: tr.ID, OtherAccountID: gcash.ID, OtherAccountName: "GCash"},
		RunningBalance: ptr[finance.Money](10000_00 - 2000_10), CreatedAt: ledgerNow, UpdatedAt: ledgerNow}
	wantTo := wantFrom
	wantTo.ID, wantTo.AccountID, wantTo.AccountName, wantTo.Type = tr.ToLineID, gcash.ID, "GCash", finance.LineCredit
	wantTo.RunningBalance = ptr[finance.Money](50_00 + 2000_10)
	wantTo.Transfer = &finance.LineTransfer{ID: tr.ID, OtherAccountID: bpi.ID, OtherAccountName: "BPI"}
	if diff := cmp.Diff(jsonValue(t, []finance.AccountTransaction{wantFrom, wantTo}),
		jsonValue(t, []finance.AccountTransaction{from[0], to[0]})); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}

	// The fee is an Account Debit expense from the from-account.
	fee := alice.storedExpense(t, *tr.FeeExpenseID)
	if fee.Amount != 1500 || fee.PaymentMethod != finance.MethodAccountDebit || *fee.AccountID != bpi.ID ||
		fee.Source != finance.ExpenseTransfer || *fee.Category != "Miscellaneous" || fee.Description != "Transfer fee: BPI to GCash" ||
		fee.Date != tr.Date {
		t.Errorf("fee expense %+v", fee)
	}

	// Without a description the lines say where the money went and came from;
	// with a "Bank Fees" category the fee goes there.
	settings := ledgerUser{env: env, user: alice.user, key: env.createKey(alice.user.ID, auth.ScopeSettingsWrite)}
	settings.do(t, http.MethodPost, "/api/v1/categories", `{"name":"Bank Fees","kind":"expense"}`, http.StatusCreated)
	tr2 := alice.createTransfer(t, transferBody(gcash.ID, bpi.ID, `,"amount":"1","date":"2025-03-10","fee":"0.50"`))
	if d := alice.line(t, tr2.FromLineID).Description; d == nil || *d != "Transfer to BPI" {
		t.Errorf("from line description %v", d)
	}
	if d := alice.line(t, tr2.ToLineID).Description; d == nil || *d != "Transfer from GCash" {
		t.Errorf("to line description %v", d)
	}
	if tr2.FeeCategory == nil || *tr2.FeeCategory != "Bank Fees" {
		t.Errorf("fee category %v, want Bank Fees", tr2.FeeCategory)
	}
}

func TestTransferValidation(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings"}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	old := alice.createAccount(t, `{"name":"Old","type":"cash"}`)
	alice.archive(t, old.ID)
	bobs := bob.createAccount(t, `{"name":"Bob's","type":"cash"}`)
	const active = "must be the id of one of your active accounts"
	for _, c := range []struct {
		name, body string
		fields     map[string]string
	}{
		{"empty", `{}`, map[string]string{"from_account_id": "is required", "to_account_id": "is required",
			"amount": "is required", "date": "is required"}},
		{"same account", transferBody(bpi.ID, bpi.ID, `,"amount":"1","date":"2025-03-01"`),
			map[string]string{"to_account_id": "must be another account than from_account_id"}},
		{"archived and foreign", transferBody(old.ID, bobs.ID, `,"amount":"1","date":"2025-03-01"`),
			map[string]string{"from_account_id": active, "to_account_id": active}},
		{"malformed id", transferBody("x", gcash.ID, `,"amount":"1","date":"2025-03-01"`),
			map[string]string{"from_account_id": active}},
		{"zero amount, negative fee", transferBody(bpi.ID, gcash.ID, `,"amount":"0","date":"2025-03-01","fee":"-1"`),
			map[string]string{"amount": "must be greater than 0", "fee": "must be 0 or more"}},
		{"inexact amount", transferBody(bpi.ID, gcash.ID, `,"amount":"1.005","date":"2025-03-01"`), nil},
		{"unknown fee category", transferBody(bpi.ID, gcash.ID, `,"amount":"1","date":"2025-03-01","fee":"1","fee_category":"Nope"`),
			map[string]string{"fee_category": "must be the name of an active expense category"}},
		{"fee category without a fee", transferBody(bpi.ID, gcash.ID, `,"amount":"1","date":"2025-03-01","fee_category":"Groceries"`),
			map[string]string{"fee_category": "is only taken with a fee greater than 0"}},
	} {
		res := alice.sc(apiScenario{method: http.MethodPost, url: "/api/v1/transfers", body: c.body,
			wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR", wantFields: c.fields}).run(t, env)
		if c.fields == nil && res.env.Error.Fields["amount"] == "" {
			t.Errorf("%s: fields %v, want amount named", c.name, res.env.Error.Fields)
		}
	}
	// Nothing was written.
	if p, _ := alice.lines(t, "/api/v1/accounts/transactions"); len(p) != 0 {
		t.Errorf("refused transfers wrote lines: %+v", p)
	}
	if items, _ := page[finance.Transfer](t, alice, "/api/v1/transfers"); len(items) != 0 {
		t.Errorf("refused transfers were stored: %+v", items)
	}

	// The scope: a key without accounts:write cannot transfer, and another
	// user's transfer is not found.
	reader := ledgerUser{env: env, user: alice.user, key: env.createKey(alice.user.ID, auth.ScopeIncomeWrite)}
	reader.sc(apiScenario{method: http.MethodPost, url: "/api/v1/transfers",
		body: transferBody(bpi.ID, gcash.ID, `,"amount":"1","date":"2025-03-01"`), wantStatus: http.StatusForbidden,
		wantMessage: "This credential lacks the required scope accounts:write"}).run(t, env)
	reader.sc(apiScenario{method: http.MethodGet, url: "/api/v1/transfers", wantStatus: http.StatusForbidden,
		wantMessage: "This credential lacks the required scope finance:read (or accounts:write)"}).run(t, env)
	tr := alice.createTransfer(t, transferBody(bpi.ID, gcash.ID, `,"amount":"1","date":"2025-03-01"`))
	bob.do(t, http.MethodGet, "/api/v1/transfers/"+tr.ID, "", http.StatusNotFound)
	bob.do(t, http.MethodDelete, "/api/v1/transfers/"+tr.ID, "", http.StatusNotFound)
	bob.do(t, http.MethodPut, "/api/v1/transfers/"+tr.ID, `{"amount":"x"}`, http.StatusNotFound)
}

func TestTransferBelowZeroWarns(t *testing.T) {
	_, alice, _ := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"100.00"}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	tr := alice.createTransfer(t, transferBody(bpi.ID, gcash.ID, `,"amount":"150","date":"2025-03-01"`))
	if len(tr.Warnings) != 1 || tr.Warnings[0].Code != finance.WarnAccountBelowZero || tr.Warnings[0].AccountID != bpi.ID {
		t.Errorf("warnings %+v, want ACCOUNT_BELOW_ZERO on BPI", tr.Warnings)
	}
}

func TestTransferUpdateRewritesBothLinesAndTheFee(t *testing.T) {
	_, alice, _ := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"1000.00"}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	cash := alice.createAccount(t, `{"name":"Wallet","type":"cash"}`)
	tr := alice.createTransfer(t, transferBody(bpi.ID, gcash.ID, `,"amount":"100","date":"2025-03-01","fee":"5"`))
	feeID := *tr.FeeExpenseID

	// Another to-account, amount, date and fee: both lines move in place.
	got := send[finance.Transfer](t, alice, http.MethodPut, "/api/v1/transfers/"+tr.ID,
		`{"to_account_id":"`+cash.ID+`","amount":"200","date":"2025-03-02","fee":"7.25","fee_category":"Groceries"}`, http.StatusOK)
	if got.ToAccountName != "Wallet" || got.Amount != 20000 || got.Fee != 725 || *got.FeeCategory != "Groceries" ||
		got.FromLineID != tr.FromLineID || got.ToLineID != tr.ToLineID || *got.FeeExpenseID != feeID {
		t.Errorf("updated %+v", got)
	}
	balances := func() [3]finance.Money {
		return [3]finance.Money{alice.account(t, bpi.ID).CurrentBalance, alice.account(t, gcash.ID).CurrentBalance,
			alice.account(t, cash.ID).CurrentBalance}
	}
	if b := balances(); b != [3]finance.Money{100000 - 20000 - 725, 0, 20000} {
		t.Errorf("balances %v", b)
	}
	if l := alice.line(t, got.ToLineID); l.AccountID != cash.ID || l.Amount != 20000 || l.Date.String() != "2025-03-02" {
		t.Errorf("to line %+v", l)
	}
	fee := alice.storedExpense(t, feeID)
	if fee.Amount != 725 || *fee.Category != "Groceries" || fee.Date.String() != "2025-03-02" || fee.Description != "Transfer fee: BPI to Wallet" {
		t.Errorf("fee %+v", fee)
	}

	// Fee 0 voids the fee expense; the transfer keeps its lines.
	got = send[finance.Transfer](t, alice, http.MethodPut, "/api/v1/transfers/"+tr.ID, `{"fee":0}`, http.StatusOK)
	if got.FeeExpenseID != nil || got.Fee != 0 || got.FeeCategory != nil {
		t.Errorf("without fee %+v", got)
	}
	if e := alice.storedExpense(t, feeID); e.Status != finance.StatusVoided {
		t.Errorf("old fee expense %s", e.Status)
	}
	if b := balances(); b != [3]finance.Money{80000, 0, 20000} {
		t.Errorf("balances without fee %v", b)
	}

	// Moving it onto itself, or changing it while an account is archived, is refused.
	alice.sc(apiScenario{method: http.MethodPut, url: "/api/v1/transfers/" + tr.ID, body: `{"from_account_id":"` + cash.ID + `"}`,
		wantStatus: http.StatusBadRequest, wantFields: map[string]string{"to_account_id": "must be another account than from_account_id"}}).run(t, alice.env)
	alice.archive(t, cash.ID)
	res := alice.do(t, http.MethodPut, "/api/v1/transfers/"+tr.ID, `{"amount":"1"}`, http.StatusBadRequest)
	if res.env.Error.Code != "INVALID_STATUS" || !strings.Contains(res.env.Error.Message, `"Wallet"`) {
		t.Errorf("archived: %s", res.raw)
	}
	if b := balances(); b != [3]finance.Money{80000, 0, 20000} {
		t.Errorf("balances after refusals %v", b)
	}
}

func TestTransferDeleteVoidsBothLinesAndTheFee(t *testing.T) {
	_, alice, _ := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"1000.00"}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	tr := alice.createTransfer(t, transferBody(bpi.ID, gcash.ID, `,"amount":"100","date":"2025-03-01","fee":"5"`))
	alice.archive(t, gcash.ID) // a void reverses history, also on an archived account

	res := alice.do(t, http.MethodDelete, "/api/v1/transfers/"+tr.ID, "", http.StatusOK)
	var got finance.Transfer
	res.decodeData(t, &got)
	if res.message() != "Transfer deleted" || got.Status != finance.LineVoided || got.VoidedAt == nil {
		t.Errorf("deleted: %s", res.raw)
	}
	for _, id := range []string{tr.FromLineID, tr.ToLineID} {
		if l := alice.line(t, id); l.Status != finance.LineVoided {
			t.Errorf("line %s is %s", id, l.Status)
		}
	}
	if e := alice.storedExpense(t, *tr.FeeExpenseID); e.Status != finance.StatusVoided {
		t.Errorf("fee expense %s", e.Status)
	}
	if b := alice.account(t, bpi.ID).CurrentBalance; b != 100000 {
		t.Errorf("BPI balance %s after delete", b)
	}
	if b := alice.account(t, gcash.ID).CurrentBalance; b != 0 {
		t.Errorf("GCash balance %s after delete", b)
	}
	alice.do(t, http.MethodDelete, "/api/v1/transfers/"+tr.ID, "", http.StatusBadRequest)
	voided, _ := page[finance.Transfer](t, alice, "/api/v1/transfers?status=voided")
	if posted, _ := page[finance.Transfer](t, alice, "/api/v1/transfers"); len(posted) != 0 || len(voided) != 1 {
		t.Errorf("posted %d, voided %d", len(posted), len(voided))
	}
}

// A transfer's lines and fee expense change only through the transfer.
func TestTransferLinesAndFeeRefuseTheirOwnRoutes(t *testing.T) {
	_, alice, _ := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"1000.00"}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	tr := alice.createTransfer(t, transferBody(bpi.ID, gcash.ID, `,"amount":"100","date":"2025-03-01","fee":"5"`))
	lineURL := "/api/v1/accounts/" + bpi.ID + "/transactions/" + tr.FromLineID
	for _, c := range []struct{ method, url, body string }{
		{http.MethodPut, lineURL, `{"amount":"1"}`},
		{http.MethodDelete, lineURL, ""},
		{http.MethodDelete, "/api/v1/accounts/" + gcash.ID + "/transactions/" + tr.ToLineID, ""},
	} {
		res := alice.do(t, c.method, c.url, c.body, http.StatusBadRequest)
		if res.env.Error.Code != "INVALID_STATUS" || !strings.Contains(res.env.Error.Message, "/api/v1/transfers/"+tr.ID) {
			t.Errorf("%s %s: %s", c.method, c.url, res.raw)
		}
	}
	expenses := ledgerUser{env: alice.env, user: alice.user, key: alice.env.createKey(alice.user.ID, auth.ScopeExpensesWrite)}
	feeURL := "/api/v1/expenses/" + *tr.FeeExpenseID
	for _, c := range []struct{ method, url, body string }{
		{http.MethodDelete, feeURL, ""},
		{http.MethodPut, feeURL, `{"amount":"9"}`},
		{http.MethodPost, feeURL + "/split", `{"parts":[{"amount":"2","category":"Groceries"},{"amount":"3","category":"Shopping"}]}`},
	} {
		res := expenses.do(t, c.method, c.url, c.body, http.StatusBadRequest)
		if res.env.Error.Code != "INVALID_STATUS" || !strings.Contains(res.env.Error.Message, "fee of a transfer") {
			t.Errorf("%s %s: %s", c.method, c.url, res.raw)
		}
	}
	if l := alice.line(t, tr.FromLineID); l.Status != finance.LinePosted || l.Amount != 10000 || l.IsEditable {
		t.Errorf("from line %+v", l)
	}
	if b := alice.account(t, bpi.ID).CurrentBalance; b != 100000-10000-500 {
		t.Errorf("BPI balance %s", b)
	}
}

// reportPaths are every figure that counts income or spending.
var reportPaths = []string{
	"/api/v1/dashboard?month=2025-03",
	"/api/v1/expenses/summary?dateFrom=2025-03-01&dateTo=2025-03-31",
	"/api/v1/reports/spending-by-category?dateFrom=2025-03-01&dateTo=2025-03-31",
	"/api/v1/reports/spending-trend?dateFrom=2025-03-01&dateTo=2025-03-31",
	"/api/v1/reports/payment-methods?dateFrom=2025-03-01&dateTo=2025-03-31",
	"/api/v1/reports/income-vs-expenses?dateFrom=2025-03-01&dateTo=2025-03-31",
	"/api/v1/reports/cash-flow?dateFrom=2025-03-01&dateTo=2025-03-31",
	"/api/v1/reports/budget-vs-actual?month=2025-03",
	"/api/v1/reports/net-worth?dateFrom=2025-03-01&dateTo=2025-03-31",
}

// figures reads every report of reportPaths as generic JSON.
func figures(t *testing.T, u ledgerUser) map[string]any {
	t.Helper()
	out := map[string]any{}
	for _, p := range reportPaths {
		res := u.do(t, http.MethodGet, p, "", http.StatusOK)
		var v any
		if err := json.Unmarshal(res.env.Data, &v); err != nil {
			t.Fatal(err)
		}
		out[p] = v
	}
	return out
}

// Transfers are neither income nor spending in any summary, report or
// dashboard figure, and leave net worth unchanged; only a fee is spending.
func TestTransfersAreNeitherIncomeNorSpending(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	reader := ledgerUser{env: env, user: alice.user, key: env.createKey(alice.user.ID, auth.ScopeRead)}
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"5000.00"}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	alice.createIncome(t, `{"amount":"1000","date":"2025-03-03","category":"Salary","account_id":"`+bpi.ID+`"}`)
	expenses := ledgerUser{env: env, user: alice.user, key: env.createKey(alice.user.ID, auth.ScopeExpensesWrite)}
	expenses.createExpense(t, `{"amount":"300","date":"2025-03-04","description":"Lunch","category":"Food & Dining",
		"payment_method":"Account Debit","account_id":"`+bpi.ID+`"}`)
	before := figures(t, reader)

	// The dashboard and net worth list account balances, which a transfer
	// moves; every other figure stays the same.
	tr := alice.createTransfer(t, transferBody(bpi.ID, gcash.ID, `,"amount":"2500","date":"2025-03-05"`))
	after := figures(t, reader)
	for _, p := range reportPaths {
		if diff := cmp.Diff(before[p], after[p]); diff != "" && p != reportPaths[0] && p != reportPaths[8] {
			t.Errorf("%s changed by a transfer (-before +after):\n%s", p, diff)
		}
	}
	dash := send[finance.Dashboard](t, reader, http.MethodGet, reportPaths[0], "", http.StatusOK)
	var sum finance.ExpenseSummary
	reader.do(t, http.MethodGet, reportPaths[1], "", http.StatusOK).decodeData(t, &sum)
	ive := reader.do(t, http.MethodGet, reportPaths[5], "", http.StatusOK)
	nw := reader.do(t, http.MethodGet, reportPaths[8], "", http.StatusOK)
	if sum.TotalExpenses != 30000 || rawPath(t, ive, "totals", "income") != "1000.00" || rawPath(t, ive, "totals", "spending") != "300.00" {
		t.Errorf("summary total %s, income-vs-expenses %s", sum.TotalExpenses, ive.raw)
	}
	if dash.Totals.Spending != 30000 || dash.Totals.Income != 100000 || dash.Accounts.TotalBalance != 570000 {
		t.Errorf("dashboard %+v, accounts total %s", dash.Totals, dash.Accounts.TotalBalance)
	}
	if got := rawPath(t, nw, "net_worth"); got != "5700.00" {
		t.Errorf("net worth %s after a transfer, want 5700.00: %s", got, nw.raw)
	}

	// A fee is spending, and net worth drops by it alone.
	send[finance.Transfer](t, alice, http.MethodPut, "/api/v1/transfers/"+tr.ID, `{"fee":"25"}`, http.StatusOK)
	reader.do(t, http.MethodGet, reportPaths[1], "", http.StatusOK).decodeData(t, &sum)
	ive = reader.do(t, http.MethodGet, reportPaths[5], "", http.StatusOK)
	nw = reader.do(t, http.MethodGet, reportPaths[8], "", http.StatusOK)
	if sum.TotalExpenses != 32500 || rawPath(t, ive, "totals", "spending") != "325.00" || rawPath(t, ive, "totals", "income") != "1000.00" {
		t.Errorf("with a fee: summary total %s, income-vs-expenses %s", sum.TotalExpenses, ive.raw)
	}
	if got := rawPath(t, nw, "net_worth"); got != "5675.00" {
		t.Errorf("net worth %s with a fee, want 5675.00", got)
	}
	if a, b := alice.account(t, bpi.ID).CurrentBalance, alice.account(t, gcash.ID).CurrentBalance; a != 500000+100000-30000-250000-2500 || b != 250000 {
		t.Errorf("balances %s, %s", a, b)
	}
}

// rawPath is the JSON text at a path of objects in res's data.
func rawPath(t *testing.T, res apiResult, path ...string) string {
	t.Helper()
	raw := json.RawMessage(res.env.Data)
	for _, k := range path {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%v at %s: %s", err, k, res.raw)
		}
		raw = m[k]
	}
	return strings.Trim(string(raw), `"`)
}
