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

// accountIn opens an account in currency: a new account takes the
// reporting currency, so the user's is set to it for the create and back
// to PHP after.
func accountIn(t *testing.T, env *testEnv, u finance.User, currency, name string) finance.Account {
	t.Helper()
	return accountOpened(t, env, u, currency, name, 1000_00)
}

// accountOpened is accountIn with the opening balance given.
func accountOpened(t *testing.T, env *testEnv, u finance.User, currency, name string, opening finance.Money) finance.Account {
	t.Helper()
	ctx, l := context.Background(), env.srv.Ledger()
	setCurrency := func(c string) {
		if _, err := l.UpdateAppSettings(ctx, u.ID, finance.AppSettingsRequest{Currency: finance.Of(c)}); err != nil {
			t.Fatal(err)
		}
	}
	setCurrency(currency)
	defer setCurrency("PHP")
	a, err := l.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of(name), Type: finance.Of("savings"),
		OpeningBalance: finance.Of(opening)})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// manualRate enters the person's own rate of 2025-03-10.
func manualRate(t *testing.T, env *testEnv, u finance.User, base, quote, rate string) {
	t.Helper()
	r, err := finance.ParseFXRate(rate)
	if err == nil {
		_, err = env.srv.Ledger().CreateExchangeRate(context.Background(), u.ID, finance.ExchangeRateRequest{Base: finance.Of(base),
			Quote: finance.Of(quote), Date: finance.Of(finance.NewDate(2025, 3, 10)), Rate: finance.Of(r)})
	}
	if err != nil {
		t.Fatal(err)
	}
}

func TestRecordFormCurrencyAndPaidAbroad(t *testing.T) {
	env, u, b := webApp(t)
	ctx, l := context.Background(), env.srv.Ledger()
	card, err := l.CreateCreditCard(ctx, u.ID, finance.CardRequest{Name: finance.Of("Visa"), CreditLimit: finance.Of(finance.Money(50000_00)),
		StatementDay: finance.Of(15), DueDay: finance.Of(5)})
	if err != nil {
		t.Fatal(err)
	}
	manualRate(t, env, u, "EUR", "PHP", "65.20")
	manualRate(t, env, u, "EUR", "JPY", "162.40")

	page := b.Get("/record")
	for _, want := range []string{`<label for="currency" class="for-cash">Currency`, `<option value="PHP" selected>PHP · Philippine Peso</option>`,
		`<legend>Paid abroad <small>(optional)</small></legend>`, `name="original_amount"`, `name="original_currency"`,
		"the billed amount is worked out from the day's rate and the card's foreign fee"} {
		if !strings.Contains(testkit.Unescaped(page), want) {
			t.Errorf("the record form lacks %s", want)
		}
	}
	if page.Contains(`<option value="KWD"`) {
		t.Error("the currency picker offers KWD, which records do not take (3 decimals)")
	}
	token := testkit.CSRF(t, page)
	form := func(kv ...string) url.Values {
		f := url.Values{"csrf": {token}, "kind": {"expense"}, "date": {"2025-03-10"}, "description": {"Ramen"}, "category": {"Food & Dining"}}
		for i := 0; i+1 < len(kv); i += 2 {
			f.Set(kv[i], kv[i+1])
		}
		return f
	}
	if x := b.Post("/record", form("amount", "25", "payment_method", "Cash", "currency", "USD")); x.Status != http.StatusSeeOther {
		t.Fatalf("Cash in USD: %d\n%s", x.Status, x.Body)
	}
	// Typed as a person types it; the billed amount left to the day's rate:
	// 12,345 × 65.20 ÷ 162.40 = 4,956.2438… (the card has no fee).
	if x := b.Post("/record", form("amount", "", "payment_method", "Credit Card", "credit_card_id", card.ID,
		"original_amount", "12,345", "original_currency", "JPY", "currency", "PHP")); x.Status != http.StatusSeeOther {
		t.Fatalf("paid abroad: %d\n%s", x.Status, x.Body)
	}
	es := expensesOf(t, env, u, finance.StatusActive)
	if len(es) != 2 {
		t.Fatalf("expenses: %+v", es)
	}
	byDesc := map[string]finance.Expense{}
	for _, e := range es {
		byDesc[e.Currency] = e
	}
	if e := byDesc["USD"]; e.Amount != 25_00 || e.PaymentMethod != finance.MethodCash {
		t.Errorf("the Cash expense: %+v", e)
	}
	abroad := byDesc["PHP"]
	if abroad.Amount != 4956_24 || abroad.OriginalAmount == nil || *abroad.OriginalAmount != 12345_00 || *abroad.OriginalCurrency != "JPY" {
		t.Errorf("the purchase abroad: %s, original %v %v", abroad.Amount, abroad.OriginalAmount, abroad.OriginalCurrency)
	}
	list := testkit.Unescaped(b.Get(web.ExpensesPath))
	for _, want := range []string{"₱4,956.24 (¥12,345)", "$25.00"} {
		if !strings.Contains(list, want) {
			t.Errorf("the expenses list lacks %s", want)
		}
	}
	edit := testkit.Unescaped(b.Get(web.ExpensesPath + "/" + abroad.ID + "/edit"))
	for _, want := range []string{`id="original_amount" name="original_amount" inputmode="decimal" autocomplete="off" value="12345.00"`,
		`<option value="JPY" selected>`} {
		if !strings.Contains(edit, want) {
			t.Errorf("the edit form lacks %s", want)
		}
	}

	// Refused: yen with centavos, beside the field; nothing is written.
	x := b.Post("/record", form("amount", "10.50", "payment_method", "Cash", "currency", "JPY"))
	if x.Status != http.StatusBadRequest || !x.Contains(`id="amount-error">Amount must be a number with at most 0 decimal places<`) ||
		!x.Contains(`<option value="JPY" selected>`) {
		t.Errorf("yen with centavos: %d\n%s", x.Status, x.Body)
	}
	// No rate: the amount is asked for.
	x = b.Post("/record", form("payment_method", "Credit Card", "credit_card_id", card.ID, "original_amount", "20", "original_currency", "USD"))
	if x.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(x),
		`id="amount-error">Amount no exchange rate from USD to PHP on or before 2025-03-10; enter the billed amount<`) {
		t.Errorf("no rate: %d\n%s", x.Status, x.Body)
	}
	if n := len(expensesOf(t, env, u, finance.StatusActive)); n != 2 {
		t.Errorf("refused forms wrote expenses: %d", n)
	}
}

func TestRecordIncomeCurrency(t *testing.T) {
	env, u, b := webApp(t)
	usd := accountIn(t, env, u, "USD", "Savings")
	page := b.Get("/record?kind=income")
	if !page.Contains(`class="for-no-account"`) || !page.Contains(`<option value="PHP" selected>`) {
		t.Errorf("the income form has no currency picker\n%s", page.Body)
	}
	token := testkit.CSRF(t, page)
	post := func(kv ...string) testkit.Exchange {
		f := url.Values{"csrf": {token}, "kind": {"income"}, "date": {"2025-03-10"}, "category": {"Salary"}}
		for i := 0; i+1 < len(kv); i += 2 {
			f.Set(kv[i], kv[i+1])
		}
		return b.Post("/record", f)
	}
	if x := post("amount", "100", "currency", "USD"); x.Status != http.StatusSeeOther {
		t.Fatalf("income in USD: %d\n%s", x.Status, x.Body)
	}
	// Into an account, the picker's choice does not count: the account's currency does.
	if x := post("amount", "50", "currency", "EUR", "account_id", usd.ID); x.Status != http.StatusSeeOther {
		t.Fatalf("income into the USD account: %d\n%s", x.Status, x.Body)
	}
	p, err := env.srv.Ledger().ListIncome(context.Background(), u.ID, finance.IncomeFilter{Status: finance.StatusActive},
		finance.ListParams{Page: 1, Limit: 10, SortBy: "created_at"})
	if err != nil || len(p.Items) != 2 || p.Items[0].Currency != "USD" || p.Items[1].Currency != "USD" {
		t.Fatalf("income: %+v, %v", p.Items, err)
	}
	if list := testkit.Unescaped(b.Get(web.IncomePath)); !strings.Contains(list, "$100.00") || !strings.Contains(list, "$50.00") {
		t.Errorf("the income list does not show dollars\n%s", list)
	}
}

func TestTransferFormAmountReceived(t *testing.T) {
	env, u, b := webApp(t)
	ctx, l := context.Background(), env.srv.Ledger()
	savings := accountIn(t, env, u, "USD", "Savings")
	checking, err := l.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("Checking"), Type: finance.Of("checking"),
		OpeningBalance: finance.Of(finance.Money(20000_00))})
	if err != nil {
		t.Fatal(err)
	}
	page := b.Get(web.TransfersPath + "/new")
	if !page.Contains(`name="to_amount"`) || !page.Contains(">Received <small>") {
		t.Fatalf("the transfer form has no Received field\n%s", page.Body)
	}
	token := testkit.CSRF(t, page)
	x := b.Post(web.TransfersPath, url.Values{"csrf": {token}, "from_account_id": {savings.ID}, "to_account_id": {checking.ID},
		"amount": {"100"}, "to_amount": {"5,650"}, "date": {"2025-03-10"}})
	if x.Status != http.StatusSeeOther {
		t.Fatalf("transfer: %d\n%s", x.Status, x.Body)
	}
	p, err := l.ListTransfers(ctx, u.ID, finance.TransferFilter{Status: finance.LinePosted}, finance.ListParams{Page: 1, Limit: 10, SortBy: "created_at"})
	if err != nil || len(p.Items) != 1 || p.Items[0].ToAmount != 5650_00 || p.Items[0].Rate != "56.5000000000" {
		t.Fatalf("transfers: %+v, %v", p.Items, err)
	}
	tr := p.Items[0]
	shown := testkit.Unescaped(b.Get(web.TransfersPath + "/" + tr.ID))
	for _, want := range []string{`value="5650.00"`, "Savings is in USD and Checking in PHP", "Delete the transfer of $100.00"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the transfer's page lacks %s\n%s", want, shown)
		}
	}
	// No rate and no amount received: refused beside the field, nothing written.
	x = b.Post(web.TransfersPath, url.Values{"csrf": {token}, "from_account_id": {checking.ID}, "to_account_id": {savings.ID},
		"amount": {"100"}, "date": {"2025-03-10"}})
	if x.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(x),
		`Received no exchange rate from PHP to USD on or before 2025-03-10; enter the amount received`) {
		t.Errorf("no rate: %d\n%s", x.Status, x.Body)
	}
	if p, _ := l.ListTransfers(ctx, u.ID, finance.TransferFilter{Status: finance.LinePosted}, finance.ListParams{Page: 1, Limit: 10, SortBy: "created_at"}); len(p.Items) != 1 {
		t.Errorf("a refused transfer was written: %d", len(p.Items))
	}
}
