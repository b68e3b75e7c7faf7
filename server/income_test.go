package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

func (u ledgerUser) createIncome(t testing.TB, body string) finance.Income {
	t.Helper()
	return send[finance.Income](t, u, http.MethodPost, "/api/v1/income", body, http.StatusCreated)
}

func (u ledgerUser) income(t testing.TB, id string) finance.Income {
	t.Helper()
	return send[finance.Income](t, u, http.MethodGet, "/api/v1/income/"+id, "", http.StatusOK)
}

// line reads an account line straight from the database.
func (u ledgerUser) line(t testing.TB, id string) finance.AccountTransaction {
	t.Helper()
	l, err := u.env.db.Read().AccountTransaction(context.Background(), u.user.ID, id)
	if err != nil {
		t.Fatalf("line %s: %v", id, err)
	}
	return l
}

// incomeLines are the posted and voided lines of source income of an account.
func (u ledgerUser) incomeLines(t testing.TB, accountID string) (posted, voided []finance.AccountTransaction) {
	t.Helper()
	posted, _ = u.lines(t, "/api/v1/accounts/"+accountID+"/transactions?source=income")
	voided, _ = u.lines(t, "/api/v1/accounts/"+accountID+"/transactions?source=income&status=voided")
	return posted, voided
}

func TestIncomeCreate(t *testing.T) {
	env, alice, _ := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"0.10"}`)

	// Without an account: only the income row.
	res := alice.do(t, http.MethodPost, "/api/v1/income",
		`{"amount":"45000.05","date":"2025-03-15","category":" salary ","notes":"March","status":"voided","account_transaction_id":"x"}`, http.StatusCreated)
	var in finance.Income
	res.decodeData(t, &in)
	want := map[string]any{
		"id": in.ID, "amount": 45000.05, "currency": "PHP", "date": "2025-03-15", "category_id": in.CategoryID, "category": "Salary",
		"notes": "March", "status": "active",
		"created_at": ledgerStamp, "updated_at": ledgerStamp,
	}
	if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, res.env.Data)); diff != "" {
		t.Errorf("income without an account (-want +got):\n%s", diff)
	}
	if res.message() != "Income created" || rawField(t, res, "amount") != "45000.05" || !finance.ValidID(in.CategoryID) {
		t.Errorf("message %q, amount %s", res.message(), rawField(t, res, "amount"))
	}
	alice.sc(apiScenario{method: http.MethodGet, url: "/api/v1/income/" + in.ID, wantStatus: http.StatusOK,
		wantMessage: "Income retrieved", wantData: want}).run(t, env)
	if posted, _ := alice.incomeLines(t, bpi.ID); len(posted) != 0 {
		t.Errorf("income without an account posted lines: %+v", posted)
	}

	// With an account: a credit line of source income, in the same write.
	res = alice.do(t, http.MethodPost, "/api/v1/income",
		`{"amount":0.2,"date":"2030-01-01","category":"Interest & Dividends","description":" Savings interest ","account_id":"`+bpi.ID+`"}`, http.StatusCreated)
	res.decodeData(t, &in)
	if in.AccountID == nil || *in.AccountID != bpi.ID || in.AccountTransactionID == nil || *in.Description != "Savings interest" {
		t.Fatalf("income with an account: %s", res.raw)
	}
	line := alice.line(t, *in.AccountTransactionID)
	wantLine := finance.AccountTransaction{
		ID: *in.AccountTransactionID, AccountID: bpi.ID, AccountName: "BPI", Currency: "PHP", Type: finance.LineCredit, Amount: 20,
		Date: in.Date, Description: in.Description, Source: finance.SourceIncome, SourceID: &in.ID, Status: finance.LinePosted,
		Cleared: finance.ClearedPending, RunningBalance: ptr[finance.Money](30), CreatedAt: ledgerNow, UpdatedAt: ledgerNow,
	}
	if diff := cmp.Diff(wantLine, line, equateDates); diff != "" {
		t.Errorf("income line (-want +got):\n%s", diff)
	}
	// 0.10 + 0.20 = 0.30 exactly.
	res = alice.do(t, http.MethodGet, "/api/v1/accounts/"+bpi.ID, "", http.StatusOK)
	if got := rawField(t, res, "current_balance"); got != "0.30" {
		t.Errorf("balance = %s, want 0.30", got)
	}
	// Without a description the line says which category the money came from.
	in = alice.createIncome(t, `{"amount":1,"date":"2025-03-01","category":"BONUS","account_id":"`+bpi.ID+`","description":"  "}`)
	if l := alice.line(t, *in.AccountTransactionID); in.Description != nil || l.Description == nil || *l.Description != "Bonus" {
		t.Errorf("line description = %v, want the category name", l.Description)
	}
	// An empty account_id is none.
	if in := alice.createIncome(t, `{"amount":1,"date":"2025-03-01","category":"Gifts","account_id":""}`); in.AccountID != nil {
		t.Errorf("empty account_id gave account %v", *in.AccountID)
	}
}

func TestIncomeCreateRejected(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings"}`)
	old := alice.createAccount(t, `{"name":"Old","type":"cash"}`)
	alice.archive(t, old.ID)
	bobs := bob.createAccount(t, `{"name":"Bob","type":"cash"}`)
	// An archived income category no longer matches names in writes.
	var cats finance.Page[finance.Category]
	settingsKey := env.createKey(alice.user.ID, auth.ScopeSettingsWrite)
	apiScenario{method: http.MethodGet, url: "/api/v1/categories?search=freelance&kind=income", headers: bearer(settingsKey),
		wantStatus: http.StatusOK}.run(t, env).decodeData(t, &cats)
	apiScenario{method: http.MethodDelete, url: "/api/v1/categories/" + cats.Items[0].ID, headers: bearer(settingsKey),
		wantStatus: http.StatusOK}.run(t, env)

	post := func(name, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: "/api/v1/income", body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	const base = `"amount":100,"date":"2025-03-01","category":"Salary"`
	const noIncomeCategory = "must be the name of an active income category"
	runRejected(t, env, []ledgerUser{alice, bob}, []apiScenario{
		post("empty body", `{}`, fieldsOf("amount", problemRequired, "date", problemRequired, "category", problemRequired)),
		post("zero amount", `{"amount":0,"date":"2025-03-01","category":"Salary"}`, fieldsOf("amount", problemPositive)),
		post("negative amount", `{"amount":-1,"date":"2025-03-01","category":"Salary"}`, fieldsOf("amount", problemPositive)),
		post("amount in fractions of a centavo", `{"amount":"0.001","date":"2025-03-01","category":"Salary"}`, fieldsOf("amount", problemMoney)),
		post("amount as a boolean", `{"amount":true,"date":"2025-03-01","category":"Salary"}`, fieldsOf("amount", problemMoney)),
		post("date with a time", `{"amount":1,"date":"2025-03-01 10:00","category":"Salary"}`, fieldsOf("date", problemDate)),
		post("date out of range", `{"amount":1,"date":"1899-12-31","category":"Salary"}`, fieldsOf("date", problemDate)),
		post("blank category", `{"amount":1,"date":"2025-03-01","category":" "}`, fieldsOf("category", problemRequired)),
		post("unknown category", `{"amount":1,"date":"2025-03-01","category":"Lottery"}`, fieldsOf("category", noIncomeCategory)),
		post("an expense category", `{"amount":1,"date":"2025-03-01","category":"Groceries"}`, fieldsOf("category", noIncomeCategory)),
		post("an archived income category", `{"amount":1,"date":"2025-03-01","category":"Freelance"}`, fieldsOf("category", noIncomeCategory)),
		post("description too long", `{`+base+`,"description":"`+strings.Repeat("d", 256)+`"}`, fieldsOf("description", "must be at most 255 characters")),
		post("notes too long", `{`+base+`,"notes":"`+strings.Repeat("n", 1001)+`"}`, fieldsOf("notes", "must be at most 1000 characters")),
		post("malformed account_id", `{`+base+`,"account_id":"BPI"}`, fieldsOf("account_id", problemAccount)),
		post("uppercase account_id", `{`+base+`,"account_id":"`+strings.ToUpper(bpi.ID)+`"}`, fieldsOf("account_id", problemAccount)),
		post("account_id a number", `{`+base+`,"account_id":42}`, fieldsOf("account_id", "must be a string")),
		post("unknown account_id", `{`+base+`,"account_id":"`+finance.NewID()+`"}`, fieldsOf("account_id", problemAccount)),
		post("another user's account_id", `{`+base+`,"account_id":"`+bobs.ID+`"}`, fieldsOf("account_id", problemAccount)),
		post("archived account_id", `{`+base+`,"account_id":"`+old.ID+`"}`, fieldsOf("account_id", problemAccount)),
		post("bad category and account together", `{"amount":1,"date":"2025-03-01","category":"Groceries","account_id":"`+old.ID+`"}`,
			fieldsOf("category", noIncomeCategory, "account_id", problemAccount)),
		post("shape problems come before references", `{"amount":0,"date":"2025-03-01","category":"Groceries","account_id":"`+old.ID+`"}`,
			fieldsOf("amount", problemPositive)),
		{name: "wrong content type", method: http.MethodPost, url: "/api/v1/income", body: `{` + base + `}`,
			headers:    map[string]string{"Authorization": "Bearer " + alice.key, "Content-Type": "text/plain"},
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation},
	})
}

func TestIncomeUpdate(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings"}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	in := alice.createIncome(t, `{"amount":100,"date":"2025-03-01","category":"Salary","description":"pay","account_id":"`+bpi.ID+`"}`)
	url := "/api/v1/income/" + in.ID
	firstLine := *in.AccountTransactionID

	// Same account: the line is updated in place.
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow.Add(time.Hour) })
	res := alice.do(t, http.MethodPut, url, `{"amount":"150.50","date":"2025-03-02","description":"March pay","category":"freelance","notes":"n"}`, http.StatusOK)
	var got finance.Income
	res.decodeData(t, &got)
	if res.message() != "Income updated" || got.Amount != 15050 || got.Category != "Freelance" || *got.Notes != "n" ||
		*got.AccountTransactionID != firstLine || !got.UpdatedAt.Equal(ledgerNow.Add(time.Hour)) || !got.CreatedAt.Equal(ledgerNow) {
		t.Errorf("update in place: %s %s", res.message(), res.raw)
	}
	if l := alice.line(t, firstLine); l.Amount != 15050 || l.Date.String() != "2025-03-02" || *l.Description != "March pay" || l.Status != finance.LinePosted {
		t.Errorf("line after update in place: %+v", l)
	}
	if bal := alice.account(t, bpi.ID).CurrentBalance; bal != 15050 {
		t.Errorf("BPI balance = %s, want 150.50", bal)
	}
	// Sending the current account_id is no change; clearing the description shows the category on the line.
	got = finance.Income{} // a description cleared is left out, so decode into a fresh value
	alice.do(t, http.MethodPut, url, `{"account_id":"`+bpi.ID+`","description":null}`, http.StatusOK).decodeData(t, &got)
	if *got.AccountTransactionID != firstLine || got.Description != nil || *alice.line(t, firstLine).Description != "Freelance" {
		t.Errorf("same account_id: %+v", got)
	}

	// Another account: the old line is voided, a new one posted.
	alice.do(t, http.MethodPut, url, `{"account_id":"`+gcash.ID+`"}`, http.StatusOK).decodeData(t, &got)
	if *got.AccountID != gcash.ID || *got.AccountTransactionID == firstLine {
		t.Fatalf("move: %+v", got)
	}
	secondLine := *got.AccountTransactionID
	if l := alice.line(t, firstLine); l.Status != finance.StatusVoided || l.VoidedAt == nil {
		t.Errorf("old line after the move: %+v", l)
	}
	if l := alice.line(t, secondLine); l.AccountID != gcash.ID || l.Amount != 15050 || l.Type != finance.LineCredit ||
		*l.SourceID != in.ID || l.Source != finance.SourceIncome {
		t.Errorf("new line after the move: %+v", l)
	}
	if b, g := alice.account(t, bpi.ID).CurrentBalance, alice.account(t, gcash.ID).CurrentBalance; b != 0 || g != 15050 {
		t.Errorf("balances after the move: BPI %s, GCash %s", b, g)
	}

	// null: the line is voided and the income no longer names an account.
	res = alice.do(t, http.MethodPut, url, `{"account_id":null}`, http.StatusOK)
	if rawField(t, res, "account_id") != absent || rawField(t, res, "account_transaction_id") != absent {
		t.Errorf("account_id null: %s", res.env.Data)
	}
	if l := alice.line(t, secondLine); l.Status != finance.StatusVoided {
		t.Errorf("line after account_id null: %+v", l)
	}
	// An account where there was none: a new line.
	alice.do(t, http.MethodPut, url, `{"account_id":"`+bpi.ID+`","amount":1}`, http.StatusOK).decodeData(t, &got)
	if got.AccountTransactionID == nil || *got.AccountID != bpi.ID {
		t.Fatalf("account where there was none: %+v", got)
	}
	posted, voided := alice.incomeLines(t, bpi.ID)
	if len(posted) != 1 || posted[0].Amount != 100 || len(voided) != 1 {
		t.Errorf("BPI income lines: posted %+v, voided %+v", posted, voided)
	}

	// Money of income on an archived account is frozen; its text is not, and it can move away.
	onOld := alice.createAccount(t, `{"name":"Old","type":"cash"}`)
	frozen := alice.createIncome(t, `{"amount":5,"date":"2025-03-01","category":"Gifts","account_id":"`+onOld.ID+`"}`)
	alice.archive(t, onOld.ID)
	frozenURL := "/api/v1/income/" + frozen.ID
	alice.do(t, http.MethodPut, frozenURL, `{"notes":"from grandma","account_id":"`+onOld.ID+`"}`, http.StatusOK)

	voidedIncome := alice.createIncome(t, `{"amount":5,"date":"2025-03-01","category":"Gifts"}`)
	alice.do(t, http.MethodDelete, "/api/v1/income/"+voidedIncome.ID, "", http.StatusOK)
	bobs := bob.createAccount(t, `{"name":"Bob","type":"cash"}`)
	bobIncome := bob.createIncome(t, `{"amount":5,"date":"2025-03-01","category":"Gifts"}`)

	put := func(name, target, body string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPut, url: target, body: body, wantStatus: status, wantCode: code, wantFields: fields})
	}
	runRejected(t, env, []ledgerUser{alice, bob}, []apiScenario{
		put("null amount", url, `{"amount":null}`, 400, CodeValidation, fieldsOf("amount", problemRequired)),
		put("null date", url, `{"date":null}`, 400, CodeValidation, fieldsOf("date", problemRequired)),
		put("null category", url, `{"category":null}`, 400, CodeValidation, fieldsOf("category", problemRequired)),
		put("expense category", url, `{"category":"Rent & Housing"}`, 400, CodeValidation, fieldsOf("category", "must be the name of an active income category")),
		put("another user's account", url, `{"account_id":"`+bobs.ID+`"}`, 400, CodeValidation, fieldsOf("account_id", problemAccount)),
		put("archived account", url, `{"account_id":"`+onOld.ID+`"}`, 400, CodeValidation, fieldsOf("account_id", problemAccount)),
		put("malformed account", url, `{"account_id":"bpi"}`, 400, CodeValidation, fieldsOf("account_id", problemAccount)),
		put("amount of income on an archived account", frozenURL, `{"amount":6}`, 400, CodeInvalidStatus, nil),
		put("date of income on an archived account", frozenURL, `{"date":"2025-03-02","account_id":"`+onOld.ID+`"}`, 400, CodeInvalidStatus, nil),
		put("voided income", "/api/v1/income/"+voidedIncome.ID, `{"notes":"x"}`, 400, CodeInvalidStatus, nil),
		put("voided income with a bad body: shape first", "/api/v1/income/"+voidedIncome.ID, `{"amount":0}`, 400, CodeValidation, fieldsOf("amount", problemPositive)),
		put("voided income with a bad reference: state first", "/api/v1/income/"+voidedIncome.ID, `{"account_id":"`+bobs.ID+`"}`, 400, CodeInvalidStatus, nil),
		put("unknown income", "/api/v1/income/"+finance.NewID(), `{"notes":"x"}`, 404, CodeNotFound, nil),
		put("malformed id", "/api/v1/income/form-option", `{"notes":"x"}`, 404, CodeNotFound, nil),
		put("another user's income", "/api/v1/income/"+bobIncome.ID, `{"notes":"x"}`, 404, CodeNotFound, nil),
	})
	// Moving income off an archived account voids its line there and posts on the new one.
	alice.do(t, http.MethodPut, frozenURL, `{"amount":6,"account_id":"`+gcash.ID+`"}`, http.StatusOK).decodeData(t, &got)
	if l := alice.line(t, *frozen.AccountTransactionID); l.Status != finance.StatusVoided {
		t.Errorf("line on the archived account after the move: %+v", l)
	}
	if *got.AccountID != gcash.ID || alice.line(t, *got.AccountTransactionID).Amount != 600 {
		t.Errorf("moved income: %+v", got)
	}
}

func TestIncomeVoid(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":10}`)
	in := alice.createIncome(t, `{"amount":"0.30","date":"2025-03-01","category":"Salary","account_id":"`+bpi.ID+`"}`)
	plain := alice.createIncome(t, `{"amount":1,"date":"2025-03-01","category":"Salary"}`)

	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow.Add(time.Minute) })
	res := alice.do(t, http.MethodDelete, "/api/v1/income/"+in.ID, "", http.StatusOK)
	var got finance.Income
	res.decodeData(t, &got)
	if res.message() != "Income voided" || got.Status != finance.StatusVoided || got.VoidedAt == nil || !got.VoidedAt.Equal(ledgerNow.Add(time.Minute)) ||
		*got.AccountTransactionID != *in.AccountTransactionID {
		t.Errorf("void: %s %s", res.message(), res.raw)
	}
	if l := alice.line(t, *in.AccountTransactionID); l.Status != finance.StatusVoided || l.VoidedAt == nil {
		t.Errorf("line after voiding its income: %+v", l)
	}
	if bal := alice.account(t, bpi.ID).CurrentBalance; bal != 1000 {
		t.Errorf("balance = %s, want 10.00", bal)
	}
	if got := alice.income(t, in.ID); got.Status != finance.StatusVoided {
		t.Errorf("voided income is still readable by id with its status: %+v", got)
	}
	alice.do(t, http.MethodDelete, "/api/v1/income/"+plain.ID, "", http.StatusOK)

	bobIncome := bob.createIncome(t, `{"amount":5,"date":"2025-03-01","category":"Gifts"}`)
	del := func(name, target string, status int, code, message string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodDelete, url: target, wantStatus: status, wantCode: code, wantMessage: message})
	}
	runRejected(t, env, []ledgerUser{alice, bob}, []apiScenario{
		del("already voided", "/api/v1/income/"+in.ID, 400, CodeInvalidStatus, "Income is already voided"),
		del("another user's income", "/api/v1/income/"+bobIncome.ID, 404, CodeNotFound, "Income not found"),
		del("unknown income", "/api/v1/income/"+finance.NewID(), 404, CodeNotFound, "Income not found"),
		del("malformed id", "/api/v1/income/123", 404, CodeNotFound, "Income not found"),
	})
}

func TestIncomeList(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings"}`)
	i1 := alice.createIncome(t, `{"amount":100,"date":"2025-01-31","category":"Salary","description":"January payroll","account_id":"`+bpi.ID+`"}`)
	i2 := alice.createIncome(t, `{"amount":50,"date":"2025-02-15","category":"Freelance","notes":"logo design"}`)
	i3 := alice.createIncome(t, `{"amount":75,"date":"2025-02-28","category":"Salary","description":"February payroll"}`)
	i4 := alice.createIncome(t, `{"amount":10,"date":"2025-02-15","category":"Gifts"}`)
	v := alice.createIncome(t, `{"amount":1,"date":"2025-01-01","category":"Salary"}`)
	alice.do(t, http.MethodDelete, "/api/v1/income/"+v.ID, "", http.StatusOK)
	bobs := bob.createAccount(t, `{"name":"Bob","type":"cash"}`)
	bob.createIncome(t, `{"amount":5,"date":"2025-02-01","category":"Salary","account_id":"`+bobs.ID+`"}`)
	// Archiving a category keeps it matching in the filter.
	settingsKey := env.createKey(alice.user.ID, auth.ScopeSettingsWrite)
	var gifts finance.Page[finance.Category]
	apiScenario{method: http.MethodGet, url: "/api/v1/categories?kind=income&search=gifts", headers: bearer(settingsKey), wantStatus: 200}.run(t, env).decodeData(t, &gifts)
	apiScenario{method: http.MethodDelete, url: "/api/v1/categories/" + gifts.Items[0].ID, headers: bearer(settingsKey), wantStatus: 200}.run(t, env)

	ids := func(items []finance.Income) []string {
		out := []string{}
		for _, in := range items {
			out = append(out, in.ID)
		}
		return out
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"", []string{i3.ID, i4.ID, i2.ID, i1.ID}}, // active, date descending, ties by id descending
		{"?status=active&sortOrder=asc", []string{i1.ID, i2.ID, i4.ID, i3.ID}},
		{"?status=voided", []string{v.ID}},
		{"?sortBy=amount", []string{i1.ID, i3.ID, i2.ID, i4.ID}},
		{"?sortBy=created_at&sortOrder=asc", []string{i1.ID, i2.ID, i3.ID, i4.ID}},
		{"?dateFrom=2025-02-15&dateTo=2025-02-15", []string{i4.ID, i2.ID}},
		{"?dateFrom=2025-02-16", []string{i3.ID}},
		{"?dateTo=2025-01-31", []string{i1.ID}},
		{"?search=PAYROLL", []string{i3.ID, i1.ID}},
		{"?search=logo", []string{i2.ID}}, // notes
		{"?category=salary", []string{i3.ID, i1.ID}},
		{"?category=GIFTS", []string{i4.ID}}, // archived category still matches
		{"?category=Lottery", []string{}},
		{"?category=Groceries", []string{}},
		{"?accountId=" + bpi.ID, []string{i1.ID}},
		{"?accountId=" + bobs.ID, []string{}},
		{"?accountId=" + bpi.ID + "&status=voided", []string{}},
		{"?limit=3&page=2", []string{i1.ID}},
	} {
		t.Run(tt.query, func(t *testing.T) {
			var page finance.Page[finance.Income]
			alice.do(t, http.MethodGet, "/api/v1/income"+tt.query, "", http.StatusOK).decodeData(t, &page)
			if diff := cmp.Diff(tt.want, ids(page.Items)); diff != "" {
				t.Errorf("ids (-want +got):\n%s", diff)
			}
			total := len(tt.want)
			if tt.query == "?limit=3&page=2" {
				total = 4
			}
			if page.Pagination.TotalItems != total {
				t.Errorf("total_items = %d, want %d", page.Pagination.TotalItems, total)
			}
		})
	}
	var page finance.Page[finance.Income]
	alice.do(t, http.MethodGet, "/api/v1/income?category=gifts", "", http.StatusOK).decodeData(t, &page)
	if page.Items[0].Category != "Gifts" {
		t.Errorf("income of an archived category shows %q", page.Items[0].Category)
	}

	bad := func(query string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: query, method: http.MethodGet, url: "/api/v1/income" + query,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	runScenarios(t, env, []apiScenario{
		bad("?status=all", fieldsOf("status", "must be one of: active, voided")),
		bad("?accountId=bpi", fieldsOf("accountId", "must be a UUID")),
		bad("?dateFrom=2025-03-01&dateTo=2025-02-01", fieldsOf("dateFrom", "must not be after dateTo")),
		bad("?dateTo=2025-02", fieldsOf("dateTo", problemDate)),
		bad("?sortBy=description", fieldsOf("sortBy", "must be one of: date, amount, created_at")),
		bad("?page=0&status=x", fieldsOf("page", "must be an integer from 1 to 10000000", "status", "must be one of: active, voided")),
	})
}

func TestIncomeFormOptions(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	zeta := alice.createAccount(t, `{"name":"zeta","type":"cash","opening_balance":"0.10"}`)
	alpha := alice.createAccount(t, `{"name":"Alpha","type":"savings"}`)
	old := alice.createAccount(t, `{"name":"Old","type":"cash"}`)
	alice.archive(t, old.ID)
	alice.createIncome(t, `{"amount":"0.20","date":"2025-03-01","category":"Salary","account_id":"`+zeta.ID+`"}`)
	bob.createAccount(t, `{"name":"Bob","type":"cash"}`)
	settingsKey := env.createKey(alice.user.ID, auth.ScopeSettingsWrite)
	var cats finance.Page[finance.Category]
	apiScenario{method: http.MethodGet, url: "/api/v1/categories?kind=income&limit=100", headers: bearer(settingsKey), wantStatus: 200}.run(t, env).decodeData(t, &cats)
	var wantCats []map[string]any
	for _, c := range cats.Items {
		if c.Name == "Business" {
			apiScenario{method: http.MethodDelete, url: "/api/v1/categories/" + c.ID, headers: bearer(settingsKey), wantStatus: 200}.run(t, env)
			continue
		}
		wantCats = append(wantCats, map[string]any{"id": c.ID, "name": c.Name})
	}
	if len(wantCats) != 6 {
		t.Fatalf("income categories: %d, want the 7 seeds less the archived one", len(wantCats))
	}
	alice.sc(apiScenario{method: http.MethodGet, url: "/api/v1/income/form-options", wantStatus: http.StatusOK,
		wantMessage: "Income form options retrieved",
		wantData: map[string]any{
			"categories": wantCats,
			"accounts": []map[string]any{
				{"id": alpha.ID, "name": "Alpha", "type": "savings", "currency": "PHP", "current_balance": 0},
				{"id": zeta.ID, "name": "zeta", "type": "cash", "currency": "PHP", "current_balance": 0.30},
			},
		}}).run(t, env)
	// A user with nothing active gets empty arrays, never null.
	nobody := env.createUser(finance.PlanPro)
	key := env.createKey(nobody.ID, auth.ScopeRead)
	res := apiScenario{method: http.MethodGet, url: "/api/v1/income/form-options", headers: bearer(key), wantStatus: http.StatusOK}.run(t, env)
	if got := rawField(t, res, "accounts"); got != "[]" {
		t.Errorf("accounts = %s, want []", got)
	}
}

// TestIncomeOwnerScopingAndScopes checks 404 for another user's income on
// every route, and the income scopes.
func TestIncomeOwnerScopingAndScopes(t *testing.T) {
	env, alice, bob := newLedgerEnv(t)
	bobs := bob.createAccount(t, `{"name":"Bob","type":"cash"}`)
	bobIncome := bob.createIncome(t, `{"amount":5,"date":"2025-03-01","category":"Gifts","account_id":"`+bobs.ID+`"}`)
	mine := alice.createIncome(t, `{"amount":5,"date":"2025-03-01","category":"Gifts"}`)
	url := "/api/v1/income/" + bobIncome.ID

	readKey := env.createKey(alice.user.ID, auth.ScopeRead)
	accountsKey := env.createKey(alice.user.ID, auth.ScopeAccountsWrite)
	const (
		needWrite = "This credential lacks the required scope income:write"
		needRead  = "This credential lacks the required scope finance:read (or income:write)"
	)
	scenarios := []apiScenario{
		alice.sc(apiScenario{name: "GET another user's income", method: http.MethodGet, url: url, wantStatus: 404, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "PUT another user's income", method: http.MethodPut, url: url, body: `{"amount":1}`, wantStatus: 404, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "DELETE another user's income", method: http.MethodDelete, url: url, wantStatus: 404, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "PUT another user's income with malformed JSON", method: http.MethodPut, url: url, body: `{"amount":`,
			wantStatus: 404, wantCode: CodeNotFound}),
	}
	for _, r := range []struct{ method, url, body string }{
		{http.MethodPost, "/api/v1/income", `{"amount":1,"date":"2025-03-01","category":"Salary"}`},
		{http.MethodPut, "/api/v1/income/" + mine.ID, `{"amount":1}`},
		{http.MethodDelete, "/api/v1/income/" + mine.ID, ""},
	} {
		scenarios = append(scenarios,
			apiScenario{name: "finance:read " + r.method, method: r.method, url: r.url, body: r.body, headers: bearer(readKey),
				wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantMessage: needWrite},
			apiScenario{name: "accounts:write " + r.method, method: r.method, url: r.url, body: r.body, headers: bearer(accountsKey),
				wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantMessage: needWrite})
	}
	for _, u := range []string{"/api/v1/income", "/api/v1/income/form-options", "/api/v1/income/" + mine.ID} {
		apiScenario{method: http.MethodGet, url: u, headers: bearer(readKey), wantStatus: http.StatusOK}.run(t, env)
		scenarios = append(scenarios, apiScenario{name: "accounts:write GET " + u, method: http.MethodGet, url: u, headers: bearer(accountsKey),
			wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantMessage: needRead})
	}
	runRejected(t, env, []ledgerUser{alice, bob}, scenarios)

	var page finance.Page[finance.Income]
	alice.do(t, http.MethodGet, "/api/v1/income?status=active", "", http.StatusOK).decodeData(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != mine.ID {
		t.Errorf("alice lists %+v", page.Items)
	}
	// The static route wins over {id}.
	alice.sc(apiScenario{method: http.MethodGet, url: "/api/v1/income/form-options", wantStatus: http.StatusOK,
		wantMessage: "Income form options retrieved"}).run(t, env)
}
