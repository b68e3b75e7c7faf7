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

// Each record's currency on the pages (domain.md "The reporting currency
// and each record's currency"): a picker on the new and edit forms, the
// reporting currency chosen first, text once money is recorded in it, and
// every amount of the record shown in it.

const (
	pesoChosen = `<option value="PHP" selected>PHP · Philippine Peso</option>`
	yenOption  = `<option value="JPY">JPY · Yen</option>`
)

func TestAccountCurrencyOnThePages(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	page := b.Get(web.AccountsPath)
	testkit.WantPage(t, "new account form", page, http.StatusOK, `<select id="new-currency" name="currency">`, pesoChosen, yenOption)
	if page.Contains(`value="KWD"`) {
		t.Error("the picker offers KWD, a 3-decimal currency records refuse")
	}
	token := testkit.CSRF(t, page)
	form := func(balance string) url.Values {
		return url.Values{"csrf": {token}, "name": {"Travel yen"}, "type": {"cash"}, "opening_balance": {balance}, "currency": {"JPY"}}
	}
	testkit.WantPage(t, "centavos on yen", b.Post(web.AccountsPath, form("1,500.50")), http.StatusBadRequest,
		`id="new-opening-error">Opening balance must be a number with at most 0 decimal places<`,
		`<option value="JPY" selected>JPY · Yen</option>`, "Not created.")
	if n := len(accountsOf(t, env, u, finance.StatusAll)); n != 0 {
		t.Fatalf("a refused form wrote %d accounts", n)
	}
	b.Post(web.AccountsPath, form("50,000"))
	created := accountsOf(t, env, u, finance.StatusAll)
	if len(created) != 1 || created[0].Currency != "JPY" || created[0].OpeningBalance != 50_000_00 {
		t.Fatalf("accounts after a yen form: %+v", created)
	}
	yen := created[0]
	var usd finance.AccountRequest
	fromJSON(t, `{"name":"Dollar savings","type":"savings","opening_balance":"1000","currency":"USD"}`, &usd)
	if _, err := env.srv.Ledger().CreateAccount(ctx, u.ID, usd); err != nil {
		t.Fatal(err)
	}
	testkit.WantPage(t, "accounts list", b.Get(web.AccountsPath), http.StatusOK,
		// No rate was entered: each balance says so beside it, never converted 1:1.
		`href="/accounts/`+yen.ID+`">Travel yen</a> <span class="num">¥50,000 <span class="converted">no rate</span></span>`,
		`<span class="num">$1,000.00 <span class="converted">no rate</span></span>`)

	one := b.Get(web.AccountsPath + "/" + yen.ID)
	testkit.WantPage(t, "a yen account", one, http.StatusOK, "<dd>¥50,000</dd>", `<select id="edit-currency" name="currency">`,
		`<option value="JPY" selected>JPY · Yen</option>`)
	// While it holds no money, its currency changes from the edit form.
	edit := url.Values{"csrf": {token}, "name": {"Travel yen"}, "type": {"cash"}, "opening_balance": {"50000"}, "currency": {"KRW"}}
	testkit.WantRedirect(t, "currency changed", b.Post(web.AccountsPath+"/"+yen.ID, edit), web.AccountsPath+"/"+yen.ID+"?notice=account-saved")
	if got := getAccount(t, env, u, yen.ID); got.Currency != "KRW" {
		t.Fatalf("currency after the edit %s, want KRW", got.Currency)
	}
	var line finance.AccountTransactionRequest
	fromJSON(t, `{"type":"debit","amount":"500","date":"2025-03-10"}`, &line)
	if _, err := env.srv.Ledger().CreateAccountTransaction(ctx, u.ID, yen.ID, line); err != nil {
		t.Fatal(err)
	}
	fixed := b.Get(web.AccountsPath + "/" + yen.ID)
	testkit.WantPage(t, "a fixed currency", fixed, http.StatusOK, `<p id="edit-currency">Currency <strong>KRW</strong>`,
		"It has transactions in it; open an account in another currency and transfer to it.", "−₩500")
	if fixed.Contains(`id="edit-currency" name="currency"`) {
		t.Error("a fixed currency still has its picker")
	}
	edit.Set("currency", "USD")
	testkit.WantPage(t, "a fixed currency posted", b.Post(web.AccountsPath+"/"+yen.ID, edit), http.StatusConflict,
		`The account "Travel yen" has transactions in KRW; open an account in USD and transfer to it`)
	if got := getAccount(t, env, u, yen.ID); got.Currency != "KRW" {
		t.Errorf("currency after a refused edit %s, want KRW", got.Currency)
	}
}

func TestCardCurrencyAndForeignFeeOnThePages(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.CardsPath)
	testkit.WantPage(t, "new card form", page, http.StatusOK, `<select id="new-currency" name="currency">`, pesoChosen,
		`<label for="new-fee">Foreign transaction fee (%) <small>(what the bank adds to a purchase in another currency, 0 to 10; 0 for none)</small>`)
	token := testkit.CSRF(t, page)
	f := url.Values{"csrf": {token}, "name": {"Travel"}, "credit_limit": {"3,000"}, "statement_day": {"10"}, "due_day": {"5"},
		"cycle_start_date": {"2025-01-01"}, "currency": {"usd"}, "foreign_fee_percent": {"12"}}
	testkit.WantPage(t, "a fee over 10", b.Post(web.CardsPath, f), http.StatusBadRequest,
		`id="new-fee-error">Foreign transaction fee must be a percent from 0 to 10, with at most 4 decimal places<`)
	f.Set("foreign_fee_percent", "1.75")
	if x := b.Post(web.CardsPath, f); x.Status != http.StatusSeeOther {
		t.Fatalf("create: %d\n%s", x.Status, x.Body)
	}
	cards, err := env.srv.Ledger().ListCreditCards(context.Background(), u.ID, finance.CardFilter{Status: finance.StatusAll},
		finance.ListParams{Page: 1, Limit: 10, SortBy: "name"})
	if err != nil || len(cards.Items) != 1 {
		t.Fatalf("cards %+v, %v", cards.Items, err)
	}
	c := cards.Items[0]
	if c.Currency != "USD" || c.ForeignFeePercent.String() != "1.75" {
		t.Errorf("card in %s with fee %s, want USD and 1.75", c.Currency, c.ForeignFeePercent)
	}
	testkit.WantPage(t, "cards list", b.Get(web.CardsPath), http.StatusOK, "$3,000.00")
	testkit.WantPage(t, "the card", b.Get(web.CardsPath+"/"+c.ID), http.StatusOK, "<dd>$3,000.00</dd>",
		`<option value="USD" selected>USD · US Dollar</option>`, `name="foreign_fee_percent" inputmode="decimal" autocomplete="off" placeholder="0" value="1.75"`)
}

// The loan, bill template and income template forms offer the picker, and
// what they save is in the currency picked.
func TestLoanAndTemplateCurrencyOnThePages(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	for _, path := range []string{web.LoansPath + "/new", web.BillTemplatesPath + "/new", web.RecurringIncomePath + "/new"} {
		x := b.Get(path)
		prefix := "t"
		if strings.HasPrefix(path, web.LoansPath) {
			prefix = "n"
		}
		testkit.WantPage(t, path, x, http.StatusOK, `<select id="`+prefix+`-currency" name="currency">`, pesoChosen, yenOption)
	}
	token := testkit.CSRF(t, b.Get(web.LoansPath+"/new"))
	loan := carLoanForm(token)
	loan.Set("currency", "JPY")
	loan.Set("principal", "1,000,000.50")
	testkit.WantPage(t, "centavos on a yen loan", b.Post(web.LoansPath, loan), http.StatusBadRequest,
		`id="n-principal-error">Principal must be a number with at most 0 decimal places<`)
	loan.Set("principal", "1,000,000")
	if x := b.Post(web.LoansPath, loan); x.Status != http.StatusSeeOther {
		t.Fatalf("loan create: %d\n%s", x.Status, x.Body)
	}
	loans, err := env.srv.Ledger().ListLoans(ctx, u.ID, finance.LoanFilter{}, finance.ListParams{Page: 1, Limit: 10, SortBy: "name"})
	if err != nil || len(loans.Items) != 1 || loans.Items[0].Currency != "JPY" {
		t.Fatalf("loans %+v, %v", loans.Items, err)
	}
	testkit.WantPage(t, "the yen loan", b.Get(web.LoansPath+"/"+loans.Items[0].ID), http.StatusOK, "<dd>¥1,000,000</dd>")

	bill := url.Values{"csrf": {token}, "name": {"Dorm"}, "amount": {"450"}, "category": {"Utilities"}, "frequency": {"monthly"},
		"start_date": {"2025-03-01"}, "due_day": {"5"}, "currency": {"USD"}}
	if x := b.Post(web.BillTemplatesPath, bill); x.Status != http.StatusSeeOther {
		t.Fatalf("bill template create: %d\n%s", x.Status, x.Body)
	}
	testkit.WantPage(t, "bill templates", b.Get(web.BillTemplatesPath), http.StatusOK, "$450.00")
	pay := url.Values{"csrf": {token}, "name": {"Stipend"}, "amount": {"800"}, "category": {"Salary"}, "frequency": {"monthly"},
		"start_date": {"2025-03-01"}, "due_day": {"5"}, "currency": {"EUR"}}
	if x := b.Post(web.RecurringIncomePath, pay); x.Status != http.StatusSeeOther {
		t.Fatalf("income template create: %d\n%s", x.Status, x.Body)
	}
	testkit.WantPage(t, "recurring income", b.Get(web.RecurringIncomePath), http.StatusOK, "€800.00")
}
