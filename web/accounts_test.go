package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// accountsOf lists the user's accounts in status (active, archived or all) straight from the ledger.
func accountsOf(t *testing.T, env *testEnv, u finance.User, status string) []finance.Account {
	t.Helper()
	p, err := env.srv.Ledger().ListAccounts(context.Background(), u.ID, finance.AccountFilter{Status: status},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "name"})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func getAccount(t *testing.T, env *testEnv, u finance.User, id string) finance.Account {
	t.Helper()
	a, err := env.srv.Ledger().GetAccount(context.Background(), u.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// linesOf lists an account's lines of a status (posted or voided).
func linesOf(t *testing.T, env *testEnv, u finance.User, accountID, status string) []finance.AccountTransaction {
	t.Helper()
	p, err := env.srv.Ledger().ListAccountTransactions(context.Background(), u.ID,
		finance.AccountTransactionFilter{AccountID: accountID, Status: status}, finance.ListParams{Page: 1, Limit: 100, SortBy: "date", Desc: true})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func TestAccountsAndCardsNeedSignIn(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanFree)
	b := env.browser(t)
	const id = "0190f1a2-0000-7000-8000-000000000000"
	for _, path := range []string{web.AccountsPath, web.AccountsPath + "/" + id, web.CardsPath, web.CardsPath + "/" + id, web.StatementsPath + "/" + id,
		web.StatementsPath + "/" + id + "/void", web.InstallmentsPath + "/" + id, web.InstallmentsPath + "/" + id + "/cancel",
		web.ConvertPath + "/" + id + "/convert"} {
		x := b.Get(path)
		if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath+"?next="+url.QueryEscape(path) {
			t.Errorf("GET %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
	for _, path := range []string{web.AccountsPath, web.AccountsPath + "/" + id, web.AccountsPath + "/" + id + "/lines", web.CardsPath,
		web.StatementsPath + "/" + id + "/pay", web.StatementsPath + "/" + id + "/void", web.InstallmentsPath + "/" + id + "/cancel"} {
		x := b.Post(path, url.Values{"name": {"Payroll"}, "type": {"savings"}, "credit_limit": {"5000"}, "statement_day": {"1"}, "due_day": {"20"}})
		if x.Status != http.StatusSeeOther || !strings.HasPrefix(x.Header.Get("Location"), web.LoginPath) {
			t.Errorf("POST %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
	if n := len(accountsOf(t, env, u, finance.StatusAll)); n != 0 {
		t.Errorf("%d accounts written by signed-out posts", n)
	}
}

func TestAccountsPage(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.AccountsPath)
	testkit.WantPage(t, "empty accounts", page, http.StatusOK, "<h1>Accounts</h1>", `aria-current="page">Accounts</a>`, "No accounts yet",
		`<option value="e_wallet">E-wallet</option>`)
	testkit.CheckPageHeaders(t, page)
	token := testkit.CSRF(t, page)
	valid := func() url.Values {
		return url.Values{"csrf": {token}, "name": {"Payroll"}, "type": {"savings"}, "opening_balance": {"12500.50"},
			"institution": {"BPI"}, "account_number_last4": {"1234"}}
	}
	for _, tc := range []struct {
		name   string
		edit   func(url.Values)
		status int
		want   []string
	}{
		{"no form token", func(f url.Values) { f.Del("csrf") }, http.StatusForbidden, []string{"This form has expired"}},
		{"a wrong form token", func(f url.Values) { f.Set("csrf", "forged") }, http.StatusForbidden, []string{"This form has expired"}},
		{"no name", func(f url.Values) { f.Set("name", " ") }, http.StatusBadRequest,
			[]string{`id="new-name-error">Name is required<`, `value="12500.50"`, "Not created."}},
		{"a bad last 4 and balance", func(f url.Values) { f.Set("account_number_last4", "12a4"); f.Set("opening_balance", "1.234") },
			http.StatusBadRequest, []string{`id="new-last4-error">Last 4 digits must be exactly 4 digits<`,
				`id="new-opening-error">Opening balance must be a number with at most 2 decimal places`}},
		{"an unknown type", func(f url.Values) { f.Set("type", "vault") }, http.StatusBadRequest, []string{`id="new-type-error">Type must be one of`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := valid()
			tc.edit(f)
			x := b.Post(web.AccountsPath, f)
			testkit.WantPage(t, "refused create", x, tc.status, tc.want...)
			if n := len(accountsOf(t, env, u, finance.StatusAll)); n != 0 {
				t.Fatalf("a refused form wrote %d accounts", n)
			}
		})
	}
	x := b.Post(web.AccountsPath, valid())
	created := accountsOf(t, env, u, finance.StatusAll)
	if len(created) != 1 {
		t.Fatalf("%d accounts after a valid form", len(created))
	}
	a := created[0]
	testkit.WantRedirect(t, "create", x, web.AccountsPath+"/"+a.ID+"?notice=account-created")
	if a.Name != "Payroll" || a.Type != finance.AccountSavings || a.OpeningBalance != 1250050 || a.Institution == nil || *a.Institution != "BPI" {
		t.Errorf("account = %+v", a)
	}
	// The same name again is refused in the API's words.
	testkit.WantPage(t, "a taken name", b.Post(web.AccountsPath, valid()), http.StatusBadRequest, "Name is already used by another active account")

	list := b.Get(web.AccountsPath)
	testkit.WantPage(t, "accounts", list, http.StatusOK, "1 account · ₱12,500.50", `href="/accounts/`+a.ID+`">Payroll</a>`, "Savings · BPI · ···1234")

	// Archived accounts are behind the filter, marked.
	if _, err := env.srv.Ledger().CreateAccount(context.Background(), u.ID, finance.AccountRequest{Name: finance.Of("Old wallet"), Type: finance.Of("e_wallet")}); err != nil {
		t.Fatal(err)
	}
	old := accountsOf(t, env, u, finance.StatusActive)[0] // by name: Old wallet, Payroll
	if _, err := env.srv.Ledger().ArchiveAccount(context.Background(), u.ID, old.ID); err != nil {
		t.Fatal(err)
	}
	if x := b.Get(web.AccountsPath); strings.Contains(testkit.Unescaped(x), "Old wallet") {
		t.Error("an archived account is in the active list")
	}
	testkit.WantPage(t, "archived filter", b.Get(web.AccountsPath+"?status=archived"), http.StatusOK, "Old wallet", `class="badge status-archived">Archived<`)
	testkit.WantPage(t, "all filter", b.Get(web.AccountsPath+"?status=all"), http.StatusOK, "Old wallet", "Payroll")
	testkit.WantPage(t, "a bad filter", b.Get(web.AccountsPath+"?status=gone"), http.StatusBadRequest, "Status must be active, archived or all")
}

func TestAccountPage(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	a, err := env.srv.Ledger().CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("Payroll"), Type: finance.Of("savings"),
		Institution: finance.Of("BPI"), OpeningBalance: finance.Of(finance.Money(1000000))})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.srv.Ledger().CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(25000)),
		Date: finance.Of(finance.NewDate(2025, 3, 2)), Description: finance.Of("Groceries run"), Category: finance.Of("Groceries"),
		PaymentMethod: finance.Of("Account Debit"), AccountID: finance.Of(a.ID)}); err != nil {
		t.Fatal(err)
	}
	path := web.AccountsPath + "/" + a.ID
	page := b.Get(path)
	testkit.WantPage(t, "account", page, http.StatusOK, "<h1>Payroll</h1>", "<dt>Balance</dt><dd class=\"\">₱9,750.00</dd>", "1 line",
		"Groceries run", "−₱250.00", "2025-03-02 · Expense · Balance ₱9,750.00", `name="date" value="2025-03-15"`)
	testkit.CheckPageHeaders(t, page)
	if strings.Contains(string(page.Body), "/lines/") && strings.Contains(string(page.Body), "/void\"") {
		t.Error("an expense's line offers a void button; it changes only through its expense")
	}
	token := testkit.CSRF(t, page)

	// A manual line: refused, then added.
	linePath := path + "/lines"
	if x := b.Post(linePath, url.Values{"type": {"credit"}, "amount": {"500"}, "date": {"2025-03-10"}}); x.Status != http.StatusForbidden {
		t.Errorf("a line without a form token: %d", x.Status)
	}
	refused := b.Post(linePath, url.Values{"csrf": {token}, "type": {"credit"}, "amount": {"-5"}, "date": {"2025-03-10"}, "description": {"Interest"}})
	testkit.WantPage(t, "a refused line", refused, http.StatusBadRequest, `id="line-amount-error">Amount must be greater than 0<`, `value="Interest"`, "Not added.")
	if n := len(linesOf(t, env, u, a.ID, finance.LinePosted)); n != 1 {
		t.Fatalf("a refused line wrote one: %d lines", n)
	}
	testkit.WantRedirect(t, "add a line", b.Post(linePath, url.Values{"csrf": {token}, "type": {"credit"}, "amount": {"125.75"}, "date": {"2025-03-10"},
		"description": {"Bank interest"}}), path+"?notice=line-added")
	if got := getAccount(t, env, u, a.ID).CurrentBalance; got != 1000000-25000+12575 {
		t.Errorf("balance %s after a credit of 125.75", got)
	}
	// Each line shows the account's balance right after it, the page's newest
	// line the account's balance.
	testkit.WantPage(t, "running balances", b.Get(path), http.StatusOK,
		"2025-03-10 · Manual · Balance ₱9,875.75", "2025-03-02 · Expense · Balance ₱9,750.00")

	// Filters, sort and their refusals in the API's words.
	testkit.WantPage(t, "by source", b.Get(path+"?source=manual"), http.StatusOK, "1 line", "Bank interest")
	if x := b.Get(path + "?source=manual"); strings.Contains(testkit.Unescaped(x), "Groceries run") {
		t.Error("the source filter lets an expense line through")
	}
	asc := testkit.Unescaped(b.Get(path + "?sortBy=amount&sortOrder=asc"))
	if strings.Index(asc, "Bank interest") > strings.Index(asc, "Groceries run") {
		t.Error("sorted by amount ascending, 125.75 is not before 250.00")
	}
	testkit.WantPage(t, "a reversed range", b.Get(path+"?dateFrom=2025-03-10&dateTo=2025-03-01"), http.StatusBadRequest,
		`id="from-error">From must not be after dateTo<`)
	testkit.WantPage(t, "a bad sort", b.Get(path+"?sortBy=name"), http.StatusBadRequest, `id="sort-error">Sort by must be one of: date, amount, created_at<`)

	// Void the manual line, back to the filtered page it was on.
	manual := linesOf(t, env, u, a.ID, finance.LinePosted)[0]
	filtered := b.Get(path + "?source=manual")
	back := path + "?source=manual"
	if !strings.Contains(string(filtered.Body), `action="`+path+`/lines/`+manual.ID+`/void"`) {
		t.Fatalf("no void button on the manual line:\n%s", filtered.Body)
	}
	testkit.WantRedirect(t, "void", b.Post(path+"/lines/"+manual.ID+"/void", url.Values{"csrf": {token}, "back": {back}}), back+"&notice=line-voided")
	if v := linesOf(t, env, u, a.ID, finance.LineVoided); len(v) != 1 || v[0].ID != manual.ID {
		t.Errorf("voided lines = %+v", v)
	}
	testkit.WantPage(t, "void twice", b.Post(path+"/lines/"+manual.ID+"/void", url.Values{"csrf": {token}}), http.StatusBadRequest, "voided")
	testkit.WantPage(t, "voided filter", b.Get(path+"?status=voided"), http.StatusOK, "Bank interest", "· Voided")

	// Edit: a refusal keeps what was sent; an emptied field clears it.
	testkit.WantPage(t, "a refused edit", b.Post(path, url.Values{"csrf": {token}, "name": {""}, "type": {"checking"},
		"institution": {"BPI"}, "opening_balance": {"10000.00"}, "account_number_last4": {""}, "notes": {""}}), http.StatusBadRequest,
		`id="edit-name-error">Name is required<`, `<option value="checking" selected>`)
	if got := getAccount(t, env, u, a.ID); got.Name != "Payroll" || got.Type != finance.AccountSavings {
		t.Errorf("a refused edit changed the account: %+v", got)
	}
	testkit.WantRedirect(t, "edit", b.Post(path, url.Values{"csrf": {token}, "name": {"Payroll BPI"}, "type": {"checking"}, "institution": {""},
		"opening_balance": {"10000.00"}, "account_number_last4": {""}, "notes": {""}}), path+"?notice=account-saved")
	if got := getAccount(t, env, u, a.ID); got.Name != "Payroll BPI" || got.Type != finance.AccountChecking || got.Institution != nil {
		t.Errorf("after edit: %+v", got)
	}

	// Archive and unarchive; an archived account takes no lines, in the API's words.
	testkit.WantRedirect(t, "archive", b.Post(path+"/archive", url.Values{"csrf": {token}}), path+"?notice=account-archived")
	if got := getAccount(t, env, u, a.ID); got.Status != finance.StatusArchived {
		t.Fatalf("status %s after archive", got.Status)
	}
	testkit.WantPage(t, "archived account", b.Get(path), http.StatusOK, "Unarchive account", `class="badge status-archived">Archived<`)
	testkit.WantPage(t, "a line on an archived account", b.Post(linePath, url.Values{"csrf": {token}, "type": {"credit"}, "amount": {"1"}, "date": {"2025-03-10"}}),
		http.StatusBadRequest, "Account is archived; unarchive it before writing to it")
	testkit.WantPage(t, "archive twice", b.Post(path+"/archive", url.Values{"csrf": {token}}), http.StatusBadRequest, "Account is already archived")
	testkit.WantRedirect(t, "unarchive", b.Post(path+"/unarchive", url.Values{"csrf": {token}}), path+"?notice=account-unarchived")
	if got := getAccount(t, env, u, a.ID); got.Status != finance.StatusActive {
		t.Errorf("status %s after unarchive", got.Status)
	}

	// Another user's account, or no account at all, is not found.
	other := env.createUser(finance.PlanFree)
	theirs, err := env.srv.Ledger().CreateAccount(ctx, other.ID, finance.AccountRequest{Name: finance.Of("Theirs"), Type: finance.Of("cash")})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{web.AccountsPath + "/" + theirs.ID, web.AccountsPath + "/not-an-id"} {
		if x := b.Get(p); x.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d", p, x.Status)
		}
	}
	if x := b.Post(web.AccountsPath+"/"+theirs.ID+"/lines", url.Values{"csrf": {token}, "type": {"credit"}, "amount": {"1"}, "date": {"2025-03-10"}}); x.Status != http.StatusNotFound {
		t.Errorf("a line on another user's account: %d", x.Status)
	}
	if n := len(linesOf(t, env, other, theirs.ID, finance.LinePosted)); n != 0 {
		t.Errorf("another user's account got %d lines", n)
	}
}

// TestPagesRefuseTextThatIsNotText: a NUL or bytes that are not UTF-8, in a
// form or a query, are refused with 400 naming the field before anything
// reads them (the store refuses NUL in text, which was a 500), and nothing is
// written. The pages' length bound keeps a search below what SQLite's LIKE
// refuses.
func TestPagesRefuseTextThatIsNotText(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	a, err := env.srv.Ledger().CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("Payroll"), Type: finance.Of("savings")})
	if err != nil {
		t.Fatal(err)
	}
	path := web.AccountsPath + "/" + a.ID
	token := testkit.CSRF(t, b.Get(path))
	edit := func(field, value string) url.Values {
		f := url.Values{"csrf": {token}, "name": {"Payroll"}, "type": {"savings"}, "institution": {""}, "opening_balance": {"0"},
			"account_number_last4": {""}, "notes": {""}}
		f.Set(field, value)
		return f
	}
	for _, c := range []struct{ field, value, problem string }{
		{"institution", "BPI\x00", "institution must be UTF-8 text without NUL characters"},
		{"name", "Pay\xffroll", "name must be UTF-8 text without NUL characters"},
		{"notes", strings.Repeat("n", web.MaxPageValueLen+1), "notes must be at most 10000 characters"},
	} {
		testkit.WantPage(t, "edit with "+c.field, b.Post(path, edit(c.field, c.value)), http.StatusBadRequest, c.problem)
		if got := getAccount(t, env, u, a.ID); got.Name != "Payroll" || got.Institution != nil || got.Notes != nil {
			t.Errorf("a refused edit changed the account: %+v", got)
		}
	}
	testkit.WantPage(t, "a new account with a NUL", b.Post(web.AccountsPath, url.Values{"csrf": {token}, "name": {"Cash\x00"}, "type": {"cash"}}),
		http.StatusBadRequest, "name must be UTF-8 text without NUL characters")
	if got := accountsOf(t, env, u, "all"); len(got) != 1 {
		t.Errorf("accounts after a refused create: %+v", got)
	}

	for _, q := range []string{"search=%00", "search=a%FFb", "back=%00", "%00=1", "search=" + strings.Repeat("%25", web.MaxPageValueLen+1)} {
		for _, p := range []string{web.ExpensesPath, web.ExpensesPath + ".csv", web.IncomePath, web.AccountLinesPath, path, web.CardTransactionsPath} {
			if x := b.Get(p + "?" + q); x.Status != http.StatusBadRequest || !x.Contains("must be") {
				t.Errorf("GET %s?%.20s: %d\n%s", p, q, x.Status, x.Body)
			}
		}
	}
	// Long but not too long: a search of 1,000 percent signs is a search.
	testkit.WantPage(t, "a long search", b.Get(web.ExpensesPath+"?search="+strings.Repeat("%25", 1000)), http.StatusOK, "No expenses")
}
