package web_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// addLine posts a manual line on an account straight through the ledger.
func addLine(t *testing.T, env *testEnv, u finance.User, accountID, typ string, amount finance.Money, date finance.Date, what string) {
	t.Helper()
	if _, err := env.srv.Ledger().CreateAccountTransaction(context.Background(), u.ID, accountID, finance.AccountTransactionRequest{
		Type: finance.Of(typ), Amount: finance.Of(amount), Date: finance.Of(date), Description: finance.Of(what)}); err != nil {
		t.Fatal(err)
	}
}

func newAccount(t *testing.T, env *testEnv, u finance.User, name string, opening finance.Money) finance.Account {
	t.Helper()
	a, err := env.srv.Ledger().CreateAccount(context.Background(), u.ID, finance.AccountRequest{Name: finance.Of(name),
		Type: finance.Of("savings"), OpeningBalance: finance.Of(opening)})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// csvOf checks that x is a CSV download named filename and returns its rows.
func csvOf(t *testing.T, x testkit.Exchange, filename string) [][]string {
	t.Helper()
	if x.Status != http.StatusOK || x.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		x.Header.Get("Content-Disposition") != `attachment; filename="`+filename+`"` {
		t.Fatalf("CSV: %d %v\n%s", x.Status, x.Header, x.Body)
	}
	rows, err := csv.NewReader(strings.NewReader(string(x.Body))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestListPagesNeedSignIn(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanFree)
	b := env.browser(t)
	const id = "0190f1a2-0000-7000-8000-000000000000"
	for _, path := range []string{web.AccountLinesPath, web.AccountLinesPath + ".csv", web.CardTransactionsPath, web.CardTransactionsPath + ".csv?cardId=" + id} {
		x := b.Get(path)
		if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath+"?next="+url.QueryEscape(path) {
			t.Errorf("GET %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
	for _, path := range []string{web.AccountsPath + "/" + id + "/adjust", web.StatementsPath + "/" + id, web.StatementsPath + "/" + id + "/lines"} {
		x := b.Post(path, url.Values{"target_balance": {"10"}, "type": {"fee"}, "amount": {"1"}, "description": {"Fee"}})
		if x.Status != http.StatusSeeOther || !strings.HasPrefix(x.Header.Get("Location"), web.LoginPath) {
			t.Errorf("POST %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
	if n := len(accountsOf(t, env, u, finance.StatusAll)); n != 0 {
		t.Errorf("%d accounts after signed-out posts", n)
	}
}

func TestAccountLinesList(t *testing.T) {
	env, u, b := webApp(t)
	payroll := newAccount(t, env, u, "Payroll", 20000)
	wallet := newAccount(t, env, u, "Wallet", 5000)
	for i := range 21 {
		addLine(t, env, u, payroll.ID, finance.LineDebit, finance.Money(100*(i+1)), finance.NewDate(2025, 2, 1).AddDays(i), fmt.Sprintf("move %02d", i))
	}
	addLine(t, env, u, wallet.ID, finance.LineCredit, 725, finance.NewDate(2025, 2, 10), "=interest")

	testkit.WantPage(t, "accounts", b.Get(web.AccountsPath), http.StatusOK, `href="/accounts/lines">All account lines</a>`)
	first := b.Get(web.AccountLinesPath)
	testkit.WantPage(t, "all lines", first, http.StatusOK, "<h1>All account lines</h1>", "22 lines", "move 20", "Page 1 of 2",
		`href="/accounts/lines?page=2"`, `<a href="/accounts/`+wallet.ID+`">Wallet</a>`, `<a href="/accounts/`+payroll.ID+`">Payroll</a>`,
		`<option value="`+wallet.ID+`">Wallet</option>`, `href="/accounts/lines.csv" download>Download CSV</a>`, `aria-current="page">Accounts</a>`)
	testkit.CheckPageHeaders(t, first)
	if first.Contains("move 00") {
		t.Error("the first page shows the 22nd newest line")
	}
	if x := b.Get(web.AccountLinesPath + "?page=2"); !x.Contains("move 00") || x.Contains("move 20") {
		t.Errorf("second page:\n%s", x.Body)
	}

	// The API's filters and sort, each row naming its account.
	one := b.Get(web.AccountLinesPath + "?accountId=" + wallet.ID)
	testkit.WantPage(t, "one account", one, http.StatusOK, "1 line<", "=interest", `<option value="`+wallet.ID+`" selected>Wallet</option>`,
		`href="/accounts/lines.csv?accountId=`+wallet.ID+`"`)
	if one.Contains("move 0") {
		t.Error("the wallet's lines include Payroll's")
	}
	testkit.WantPage(t, "credits", b.Get(web.AccountLinesPath+"?type=credit"), http.StatusOK, "1 line<", "=interest")
	ranged := b.Get(web.AccountLinesPath + "?dateFrom=2025-02-05&dateTo=2025-02-07&search=move")
	testkit.WantPage(t, "range and search", ranged, http.StatusOK, "3 lines", "move 04", "move 06")
	asc := testkit.Unescaped(b.Get(web.AccountLinesPath + "?sortBy=amount&sortOrder=asc&accountId=" + payroll.ID))
	if i, j := strings.Index(asc, "move 00"), strings.Index(asc, "move 01"); i < 0 || j < 0 || i > j {
		t.Errorf("by amount, ascending:\n%s", asc)
	}
	for _, tc := range []struct{ query, want string }{
		{"accountId=nope", `id="account-error">Account `},
		{"dateFrom=2025-02-20&dateTo=2025-02-10", `id="from-error">From must not be after dateTo<`},
		{"sortBy=description", `id="sort-error">Sort by must be one of`},
		{"type=sideways", `role="alert">Type must be one of`},
	} {
		x := b.Get(web.AccountLinesPath + "?" + tc.query)
		if x.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(x), tc.want) || x.Contains("move 20") {
			t.Errorf("?%s: %d, want 400 with %q and no rows\n%s", tc.query, x.Status, tc.want, x.Body)
		}
	}

	// Downloads: every line through the filter; a debit is negative; a formula stays text.
	all := csvOf(t, b.Get(web.AccountLinesPath+".csv"), "account-lines.csv")
	if len(all) != 23 || strings.Join(all[0], ",") != "date,account,description,type,amount,source,status,account_id,id" {
		t.Fatalf("all lines CSV: %d rows, header %v", len(all), all[0])
	}
	walletCSV := csvOf(t, b.Get(web.AccountLinesPath+".csv?accountId="+wallet.ID+"&dateFrom=2025-02-01"), "account-lines-from-2025-02-01.csv")
	if len(walletCSV) != 2 || strings.Join(walletCSV[1][:7], ",") != "2025-02-10,Wallet,'=interest,credit,7.25,manual,posted" {
		t.Errorf("wallet CSV = %v", walletCSV)
	}
	if rows := csvOf(t, b.Get(web.AccountLinesPath+".csv?search=move+20"), "account-lines.csv"); len(rows) != 2 || rows[1][4] != "-21.00" {
		t.Errorf("a debit's row = %v", rows)
	}
	if x := b.Get(web.AccountLinesPath + ".csv?sortBy=description"); x.Status != http.StatusBadRequest || x.Header.Get("Content-Disposition") != "" {
		t.Errorf("a refused download: %d %v", x.Status, x.Header)
	}

	// One account's page downloads its own lines through its filter.
	testkit.WantPage(t, "account page", b.Get(web.AccountsPath+"/"+payroll.ID+"?type=debit"), http.StatusOK,
		`href="/accounts/lines.csv?accountId=`+payroll.ID+`&type=debit" download>Download CSV</a>`)

	// Another user's account is not found, on the page's filter and in a download.
	other := env.createUser(finance.PlanFree)
	theirs := newAccount(t, env, other, "Theirs", 100)
	addLine(t, env, other, theirs.ID, finance.LineDebit, 50, finance.NewDate(2025, 2, 1), "their line")
	if x := b.Get(web.AccountLinesPath + ".csv?accountId=" + theirs.ID); x.Status != http.StatusNotFound {
		t.Errorf("another user's account download: %d", x.Status)
	}
	if x := b.Get(web.AccountLinesPath + "?accountId=" + theirs.ID); x.Contains("their line") || !x.Contains("0 lines") {
		t.Errorf("another user's lines shown:\n%s", x.Body)
	}
}

func TestAccountAdjust(t *testing.T) {
	env, u, b := webApp(t)
	a := newAccount(t, env, u, "Payroll", 20000)
	path := web.AccountsPath + "/" + a.ID
	page := b.Get(path)
	testkit.WantPage(t, "account", page, http.StatusOK, `action="`+path+`/adjust"`, `name="target_balance" inputmode="decimal" autocomplete="off" value="200.00"`)
	token := testkit.CSRF(t, page)
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   []string
	}{
		{"no form token", url.Values{"target_balance": {"250"}}, http.StatusForbidden, []string{"This form has expired"}},
		{"no balance", url.Values{"csrf": {token}, "target_balance": {" "}}, http.StatusBadRequest,
			[]string{`id="adjust-target-error">Balance is required<`, "Not adjusted."}},
		{"the same balance", url.Values{"csrf": {token}, "target_balance": {"200.00"}, "reason": {"Check"}}, http.StatusBadRequest,
			[]string{`id="adjust-target-error">Balance equals the current balance 200.00; nothing to adjust<`, `value="Check"`}},
		{"not a number", url.Values{"csrf": {token}, "target_balance": {"12.345"}}, http.StatusBadRequest,
			[]string{`id="adjust-target-error">Balance must be`, `value="12.345"`}},
		{"a bad date", url.Values{"csrf": {token}, "target_balance": {"250"}, "date": {"2025-02-30"}}, http.StatusBadRequest,
			[]string{`id="adjust-date-error">Date `}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testkit.WantPage(t, "refused adjustment", b.Post(path+"/adjust", tc.form), tc.status, tc.want...)
			if got := getAccount(t, env, u, a.ID).CurrentBalance; got != 20000 || len(linesOf(t, env, u, a.ID, finance.LinePosted)) != 0 {
				t.Fatalf("a refused adjustment wrote: balance %s", got)
			}
		})
	}
	testkit.WantRedirect(t, "adjust", b.Post(path+"/adjust", url.Values{"csrf": {token}, "target_balance": {"150.25"}, "date": {"2025-03-01"},
		"reason": {"Bank says so"}}), path+"?notice=balance-adjusted")
	lines := linesOf(t, env, u, a.ID, finance.LinePosted)
	if got := getAccount(t, env, u, a.ID).CurrentBalance; got != 15025 || len(lines) != 1 || lines[0].Source != finance.SourceAdjustment ||
		lines[0].Type != finance.LineDebit || lines[0].Amount != 4975 || web.Deref(lines[0].Description) != "Bank says so" {
		t.Fatalf("after adjusting to 150.25: balance %s, lines %+v", got, lines)
	}
	testkit.WantPage(t, "adjusted", b.Get(path+"?notice=balance-adjusted"), http.StatusOK, "Balance adjusted", "Bank says so", "₱150.25")
	if x := b.Post(web.AccountsPath+"/0190f1a2-0000-7000-8000-000000000000/adjust", url.Values{"csrf": {token}, "target_balance": {"1"}}); x.Status != http.StatusNotFound {
		t.Errorf("adjusting a missing account: %d", x.Status)
	}
}

func TestCardTransactionsList(t *testing.T) {
	env, u, b := webApp(t)
	cs := newCardSetup(t, env, u)
	testkit.WantPage(t, "cards", b.Get(web.CardsPath), http.StatusOK, `href="/cards/transactions">All card transactions</a>`)
	testkit.WantPage(t, "card", b.Get(web.CardsPath+"/"+cs.card.ID), http.StatusOK, `href="/cards/transactions?cardId=`+cs.card.ID+`"`,
		`href="/cards/transactions.csv?cardId=`+cs.card.ID+`" download>Download CSV</a>`)

	page := b.Get(web.CardTransactionsPath)
	testkit.WantPage(t, "all card transactions", page, http.StatusOK, "<h1>All card transactions</h1>", "3 transactions", "Books", "Lunch", "Shoes",
		`<a href="/statements/`+cs.soa.ID+`">Billed: open the statement</a>`, `<a href="/cards/`+cs.card.ID+`">Visa</a>`, "· Unbilled",
		`<option value="billed">Billed</option>`, `href="/cards/transactions.csv" download>Download CSV</a>`, `aria-current="page">Cards</a>`)
	testkit.CheckPageHeaders(t, page)
	billed := b.Get(web.CardTransactionsPath + "?status=billed&cardId=" + cs.card.ID)
	testkit.WantPage(t, "billed", billed, http.StatusOK, "2 transactions", "Books", "Lunch", `<option value="billed" selected>`,
		`href="/cards/transactions.csv?cardId=`+cs.card.ID+`&status=billed"`)
	if billed.Contains("Shoes") {
		t.Error("an unbilled purchase is listed as billed")
	}
	testkit.WantPage(t, "search", b.Get(web.CardTransactionsPath+"?search=shoe&dateFrom=2025-03-11"), http.StatusOK, "1 transaction<", "Shoes",
		`name="dateFrom" value="2025-03-11"`, `name="search" value="shoe"`, `<a class="button secondary" href="/cards/transactions">Clear</a>`)
	asc := testkit.Unescaped(b.Get(web.CardTransactionsPath + "?sortBy=amount&sortOrder=asc"))
	if i, j := strings.Index(asc, "Lunch"), strings.Index(asc, "Shoes"); i < 0 || j < 0 || i > j {
		t.Errorf("by amount, ascending:\n%s", asc)
	}
	for _, tc := range []struct{ query, want string }{
		{"status=paid", `id="status-error">Status must be one of`},
		{"cardId=nope", `id="card-error">Card `},
		{"type=gift", `id="type-error">Type must be one of`},
		{"sortOrder=up", `id="order-error">Order must be asc or desc<`},
	} {
		x := b.Get(web.CardTransactionsPath + "?" + tc.query)
		if x.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(x), tc.want) || x.Contains("Books") {
			t.Errorf("?%s: %d, want 400 with %q and no rows\n%s", tc.query, x.Status, tc.want, x.Body)
		}
	}

	rows := csvOf(t, b.Get(web.CardTransactionsPath+".csv?cardId="+cs.card.ID+"&sortBy=date&sortOrder=asc"), "card-transactions.csv")
	if len(rows) != 4 || strings.Join(rows[0], ",") != "date,card,description,type,category,amount,status,statement_id,card_id,id" ||
		strings.Join(rows[1][:8], ",") != "2025-03-05,Visa,Books,purchase,Shopping,12.00,billed,"+cs.soa.ID ||
		strings.Join(rows[3][:8], ",") != "2025-03-12,Visa,Shoes,purchase,Shopping,30.00,unbilled," {
		t.Errorf("card CSV = %v", rows)
	}
	if x := b.Get(web.CardTransactionsPath + ".csv?status=paid"); x.Status != http.StatusBadRequest || x.Header.Get("Content-Disposition") != "" {
		t.Errorf("a refused download: %d %v", x.Status, x.Header)
	}
	other := env.createUser(finance.PlanFree)
	var cr finance.CardRequest
	fromJSON(t, `{"name":"Theirs","credit_limit":"500","statement_day":10,"due_day":5,"cycle_start_date":"2025-01-01"}`, &cr)
	theirs, err := env.srv.Ledger().CreateCreditCard(context.Background(), other.ID, cr)
	if err != nil {
		t.Fatal(err)
	}
	if x := b.Get(web.CardTransactionsPath + ".csv?cardId=" + theirs.ID); x.Status != http.StatusNotFound {
		t.Errorf("another user's card download: %d", x.Status)
	}
}

func TestStatementLinesAndEdit(t *testing.T) {
	env, u, b := webApp(t)
	cs := newCardSetup(t, env, u)
	path := web.StatementsPath + "/" + cs.soa.ID
	before := getSOA(t, env, u, cs.soa.ID)
	page := b.Get(path)
	testkit.WantPage(t, "statement", page, http.StatusOK, `action="`+path+`/lines"`, `<input type="radio" name="type" value="fee" checked>`,
		`name="date" value="2025-03-10"`, `action="`+path+`"`, `name="due_date" value="`+before.DueDate.String()+`"`,
		`<option value="Shopping">Shopping</option>`)
	token := testkit.CSRF(t, page)

	// A line of its own: refused forms write nothing.
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   []string
	}{
		{"no form token", url.Values{"type": {"fee"}, "amount": {"3"}, "description": {"Late fee"}}, http.StatusForbidden, []string{"This form has expired"}},
		{"no amount", url.Values{"csrf": {token}, "type": {"fee"}, "description": {"Late fee"}}, http.StatusBadRequest,
			[]string{`id="line-amount-error">Sum is required<`, `value="Late fee"`, "Not added."}},
		{"a refund without a category", url.Values{"csrf": {token}, "type": {"refund"}, "amount": {"2"}, "description": {"Return"}},
			http.StatusBadRequest, []string{`id="line-category-error">Category is required<`, `value="refund" checked`}},
		{"after the statement date", url.Values{"csrf": {token}, "type": {"interest"}, "amount": {"2"}, "description": {"Interest"},
			"date": {"2025-03-11"}}, http.StatusBadRequest, []string{`id="line-date-error">Date must not be after the statement date 2025-03-10<`}},
		{"an unknown kind", url.Values{"csrf": {token}, "type": {"purchase"}, "amount": {"2"}, "description": {"X"}}, http.StatusBadRequest,
			[]string{`id="line-type-error">Kind must be one of`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testkit.WantPage(t, "refused line", b.Post(path+"/lines", tc.form), tc.status, tc.want...)
			if got := getSOA(t, env, u, cs.soa.ID); got.StatementBalance != 2000 || len(got.Transactions) != 2 {
				t.Fatalf("a refused line wrote: balance %s, %d lines", got.StatementBalance, len(got.Transactions))
			}
		})
	}
	testkit.WantRedirect(t, "fee", b.Post(path+"/lines", url.Values{"csrf": {token}, "type": {"fee"}, "amount": {"3.50"}, "description": {"Late fee"},
		"category": {"Shopping"}}), path+"?notice=statement-line-added")
	testkit.WantRedirect(t, "refund", b.Post(path+"/lines", url.Values{"csrf": {token}, "type": {"refund"}, "amount": {"2"}, "description": {"Returned book"},
		"category": {"Shopping"}, "date": {"2025-03-09"}}), path+"?notice=statement-line-added")
	got := getSOA(t, env, u, cs.soa.ID)
	if got.StatementBalance != 2150 || len(got.Transactions) != 4 {
		t.Fatalf("after a fee of 3.50 and a refund of 2.00: balance %s, %d lines", got.StatementBalance, len(got.Transactions))
	}
	testkit.WantPage(t, "with lines", b.Get(path+"?notice=statement-line-added"), http.StatusOK, "Line added to the statement.", "Late fee",
		"Returned book", "Card fees", "statement line")

	// The editable fields, as PUT does.
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   []string
	}{
		{"no form token", url.Values{"due_date": {"2025-04-20"}}, http.StatusForbidden, []string{"This form has expired"}},
		{"due before the statement", url.Values{"csrf": {token}, "due_date": {"2025-03-01"}, "notes": {"Typo"}}, http.StatusBadRequest,
			[]string{`id="edit-due-error">Due date must be after the statement date 2025-03-10<`, ">Typo</textarea>", "Not saved."}},
		{"no due date", url.Values{"csrf": {token}, "due_date": {""}}, http.StatusBadRequest, []string{`id="edit-due-error">Due date is required<`}},
		{"a minimum above the balance", url.Values{"csrf": {token}, "due_date": {"2025-04-20"}, "minimum_due": {"30"}}, http.StatusBadRequest,
			[]string{`id="edit-minimum-error">Minimum due must not exceed the statement balance 21.50<`, `value="30"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testkit.WantPage(t, "refused edit", b.Post(path, tc.form), tc.status, tc.want...)
			if now := getSOA(t, env, u, cs.soa.ID); now.DueDate != before.DueDate || now.MinimumDue != got.MinimumDue || now.Notes != nil {
				t.Fatalf("a refused edit wrote: %+v", now.SOA)
			}
		})
	}
	testkit.WantRedirect(t, "edit", b.Post(path, url.Values{"csrf": {token}, "due_date": {"2025-04-20"}, "minimum_due": {"5.00"}, "notes": {"Called the bank"}}),
		path+"?notice=statement-saved")
	edited := getSOA(t, env, u, cs.soa.ID)
	if edited.DueDate != finance.NewDate(2025, 4, 20) || edited.MinimumDue != 500 || edited.MinimumDueSource != finance.MinimumDueUser ||
		web.Deref(edited.Notes) != "Called the bank" {
		t.Fatalf("after the edit: %+v", edited.SOA)
	}
	testkit.WantPage(t, "edited", b.Get(path), http.StatusOK, `name="minimum_due" inputmode="decimal" autocomplete="off" value="5.00"`, "Called the bank")
	// An emptied minimum due goes back to the computed one; emptied notes are cleared.
	testkit.WantRedirect(t, "revert", b.Post(path, url.Values{"csrf": {token}, "due_date": {"2025-04-20"}, "minimum_due": {""}, "notes": {""}}),
		path+"?notice=statement-saved")
	if r := getSOA(t, env, u, cs.soa.ID); r.MinimumDueSource != finance.MinimumDueComputed || r.Notes != nil {
		t.Errorf("after emptying: %s, notes %v", r.MinimumDueSource, r.Notes)
	}
}

// TestStatementLineEdit: a statement's own line is edited whole (kind, sum,
// description, refund category, date) as PUT
// /credit-cards/soa/{id}/transactions/{transactionId} does, refusals beside
// the field changing nothing; a linked transaction shows and changes only
// its description; voided rows and rows of other statements are not found.
func TestStatementLineEdit(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	cs := newCardSetup(t, env, u)
	path := web.StatementsPath + "/" + cs.soa.ID
	var req finance.SOALineRequest
	fromJSON(t, `{"type":"fee","amount":"3.50","description":"Late fee"}`, &req)
	a, err := env.srv.Ledger().AddSOALine(ctx, u.ID, cs.soa.ID, req)
	if err != nil {
		t.Fatal(err)
	}
	var fee, books finance.CardTransaction
	for _, row := range getSOA(t, env, u, a.SOA.ID).Transactions {
		switch row.Description {
		case "Late fee":
			fee = row
		case "Books":
			books = row
		}
	}
	rowOf := func(id string) finance.CardTransaction {
		t.Helper()
		for _, row := range getSOA(t, env, u, cs.soa.ID).Transactions {
			if row.ID == id {
				return row
			}
		}
		t.Fatalf("row %s is not on the statement", id)
		return finance.CardTransaction{}
	}

	testkit.WantPage(t, "statement", b.Get(path), http.StatusOK, `href="`+path+`/lines/`+fee.ID+`/edit"`, `href="`+path+`/lines/`+books.ID+`/edit"`)
	feePath := path + "/lines/" + fee.ID + "/edit"
	page := b.Get(feePath)
	testkit.WantPage(t, "edit a line", page, http.StatusOK, "<h1>Edit statement line</h1>", `<input type="radio" name="type" value="fee" checked>`,
		`id="edit-amount" name="amount" inputmode="decimal" autocomplete="off" value="3.50"`, `value="Late fee"`, `name="date" value="2025-03-10"`)
	token := testkit.CSRF(t, page)
	form := func(kind, amount, desc, category, date string) url.Values {
		return url.Values{"csrf": {token}, "type": {kind}, "amount": {amount}, "description": {desc}, "category": {category}, "date": {date}}
	}
	for _, c := range []struct {
		what string
		form url.Values
		want string
	}{
		{"an emptied sum", form("fee", "", "Late fee", "", "2025-03-10"), `id="edit-amount-error">Sum is required<`},
		{"after the statement date", form("fee", "4", "Late fee", "", "2025-03-11"), `id="edit-date-error">Date must not be after the statement date 2025-03-10<`},
		{"a refund without a category", form("refund", "4", "Late fee", "", "2025-03-10"), `id="edit-category-error">Category is required<`},
	} {
		testkit.WantPage(t, c.what, b.Post(feePath, c.form), http.StatusBadRequest, c.want, "Not saved.")
		if got := rowOf(fee.ID); got.Amount != 350 || got.Type != finance.CardFee || got.Date != finance.NewDate(2025, 3, 10) {
			t.Fatalf("%s changed the line: %+v", c.what, got)
		}
	}
	testkit.WantRedirect(t, "save", b.Post(feePath, form("refund", "4.25", "Waived fee", "Shopping", "2025-03-09")), path+"?notice=statement-line-saved")
	got := rowOf(fee.ID)
	if got.Type != finance.CardRefund || got.Amount != 425 || got.Description != "Waived fee" || web.Deref(got.Category) != "Shopping" ||
		got.Date != finance.NewDate(2025, 3, 9) {
		t.Fatalf("after the edit: %+v", got)
	}
	if s := getSOA(t, env, u, cs.soa.ID); s.StatementBalance != 2000-425 {
		t.Errorf("statement balance %s after the fee became a refund of 4.25", s.StatementBalance)
	}
	testkit.WantPage(t, "saved", b.Get(path+"?notice=statement-line-saved"), http.StatusOK, "The statement line has been saved.", "Waived fee")

	// A linked purchase: its description only; money fields sent anyway
	// are not its form's and are ignored.
	booksPath := path + "/lines/" + books.ID + "/edit"
	linked := b.Get(booksPath)
	testkit.WantPage(t, "edit a linked row", linked, http.StatusOK, "<h1>Edit linked transaction</h1>", `value="Books"`, "Un-link it from the statement")
	if linked.Contains(`name="amount"`) || linked.Contains(`name="type"`) {
		t.Errorf("a linked row's form offers its money fields:\n%s", linked.Body)
	}
	testkit.WantPage(t, "an emptied description", b.Post(booksPath, url.Values{"csrf": {token}, "description": {" "}}), http.StatusBadRequest,
		`id="edit-description-error">Description is required<`)
	testkit.WantRedirect(t, "rename", b.Post(booksPath, url.Values{"csrf": {token}, "description": {"Books for school"}, "amount": {"1"}}),
		path+"?notice=statement-line-saved")
	if got := rowOf(books.ID); got.Description != "Books for school" || got.Amount != 1200 {
		t.Errorf("the linked row after the edit: %+v", got)
	}

	// Voided rows, unknown rows and another statement's ids are not found.
	if _, err := env.srv.Ledger().RemoveSOALine(ctx, u.ID, cs.soa.ID, fee.ID); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{feePath, path + "/lines/0190f1a2-0000-7000-8000-000000000000/edit", path + "/lines/nope/edit",
		web.StatementsPath + "/0190f1a2-0000-7000-8000-000000000000/lines/" + books.ID + "/edit"} {
		if x := b.Get(p); x.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d", p, x.Status)
		}
	}
	if x := b.Post(feePath, form("fee", "9", "Again", "", "2025-03-10")); x.Status != http.StatusNotFound {
		t.Errorf("POST to a voided line: %d", x.Status)
	}
}
