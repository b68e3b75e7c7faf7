package server

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Tests of docs/domain.md "Money in more than one currency": what each
// expense, income and transfer is in, card purchases abroad and transfers
// between currencies.

// newMovesEnv is a server whose today is 2025-03-11, with two PHP users whose
// keys write expenses, cards, accounts, income and settings (rates).
func newMovesEnv(t *testing.T) (env *testEnv, alice, bob ledgerUser) {
	t.Helper()
	env = newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	mk := func() ledgerUser {
		u := env.createUser(finance.PlanPro)
		return ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeExpensesWrite, auth.ScopeCardsWrite,
			auth.ScopeAccountsWrite, auth.ScopeIncomeWrite, auth.ScopeSettingsWrite)}
	}
	return env, mk(), mk()
}

// accountIn opens an account in currency: a new account takes the reporting
// currency, so the user's is set to it for the create and back to PHP after.
func (u ledgerUser) accountIn(t testing.TB, currency, body string) finance.Account {
	t.Helper()
	u.do(t, http.MethodPut, "/api/v1/user-settings/app", `{"currency":"`+currency+`"}`, http.StatusOK)
	defer u.do(t, http.MethodPut, "/api/v1/user-settings/app", `{"currency":"PHP"}`, http.StatusOK)
	a := u.createAccount(t, body)
	if a.Currency != currency {
		t.Fatalf("account %s is in %s, want %s", a.Name, a.Currency, currency)
	}
	return a
}

// setForeignFee gives a card its foreign transaction fee, straight in the store.
func setForeignFee(t testing.TB, env *testEnv, u ledgerUser, cardID, percent string) {
	t.Helper()
	fee, err := finance.ParseFeePercent(percent)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	err = env.db.Write(ctx, func(tx finance.Repo) error {
		c, err := tx.CreditCard(ctx, u.user.ID, cardID, finance.NewDate(2025, 3, 11))
		if err != nil {
			return err
		}
		c.ForeignFeePercent = fee
		return tx.UpdateCreditCard(ctx, u.user.ID, c)
	})
	if err != nil {
		t.Fatalf("set the card's fee: %v", err)
	}
}

// enterRates enters the person's own rates of 2025-03-10, as "BASE QUOTE rate".
func (u ledgerUser) enterRates(t testing.TB, rates ...[3]string) {
	t.Helper()
	for _, r := range rates {
		u.do(t, http.MethodPost, "/api/v1/exchange-rates",
			`{"base":"`+r[0]+`","quote":"`+r[1]+`","date":"2025-03-10","rate":"`+r[2]+`"}`, http.StatusCreated)
	}
}

// The worked example of domain.md "A purchase abroad on a card", through
// REST: ¥12,345 on a PHP card with a 3% fee, EUR → PHP 65.20 and EUR → JPY
// 162.40, is billed ₱5,104.93, on an expense and on a card purchase alike.
func TestPurchaseAbroadIsBilledAtTheDaysRatePlusTheCardsFee(t *testing.T) {
	env, alice, _ := newMovesEnv(t)
	card := alice.createCard(t, visaBody)
	setForeignFee(t, env, alice, card.ID, "3")
	alice.enterRates(t, [3]string{"EUR", "PHP", "65.20"}, [3]string{"EUR", "JPY", "162.40"})

	res := alice.do(t, http.MethodPost, "/api/v1/expenses", `{"date":"2025-03-10","description":"Ramen","category":"Food & Dining",
		"payment_method":"credit card","credit_card_id":"`+card.ID+`","original_amount":12345,"original_currency":"jpy"}`, http.StatusCreated)
	for field, want := range map[string]string{"amount": "5104.93", "currency": `"PHP"`, "original_amount": "12345.00", "original_currency": `"JPY"`} {
		if got := rawField(t, res, field); got != want {
			t.Errorf("expense %s = %s, want %s", field, got, want)
		}
	}
	var e finance.Expense
	res.decodeData(t, &e)
	stored := alice.storedExpense(t, e.ID)
	if stored.Amount != 5104_93 || stored.Currency != "PHP" || *stored.OriginalAmount != 12345_00 || *stored.OriginalCurrency != "JPY" {
		t.Errorf("stored expense: amount %d %s, original %v %v", stored.Amount, stored.Currency, *stored.OriginalAmount, *stored.OriginalCurrency)
	}
	row := alice.getCardRow(t, *e.CardTransactionID)
	if row.Amount != 5104_93 || row.Currency != "PHP" || row.OriginalAmount == nil || *row.OriginalAmount != 12345_00 ||
		*row.OriginalCurrency != "JPY" {
		t.Errorf("card row: %s %s, original %v %v", row.Amount, row.Currency, row.OriginalAmount, row.OriginalCurrency)
	}

	// The statement shows the real figure: amount changes, the original stays.
	fixed := send[finance.Expense](t, alice, http.MethodPut, "/api/v1/expenses/"+e.ID, `{"amount":"5110.40"}`, http.StatusOK)
	if fixed.Amount != 5110_40 || *fixed.OriginalAmount != 12345_00 || *fixed.OriginalCurrency != "JPY" {
		t.Errorf("after the correction: %s, original %v %v", fixed.Amount, *fixed.OriginalAmount, *fixed.OriginalCurrency)
	}
	if row := alice.getCardRow(t, *e.CardTransactionID); row.Amount != 5110_40 || *row.OriginalAmount != 12345_00 {
		t.Errorf("card row after the correction: %s, original %v", row.Amount, *row.OriginalAmount)
	}

	// A card purchase abroad through the card's route: the same bill, and its
	// expense keeps the original too.
	bought := alice.createCardRow(t, `{"credit_card_id":"`+card.ID+`","type":"purchase","date":"2025-03-10",
		"description":"Ramen","category":"Food & Dining","original_amount":"12345","original_currency":"JPY"}`)
	if bought.Amount != 5104_93 || *bought.OriginalAmount != 12345_00 || *bought.OriginalCurrency != "JPY" {
		t.Errorf("card purchase: %s, original %v %v", bought.Amount, bought.OriginalAmount, bought.OriginalCurrency)
	}
	if x := alice.storedExpense(t, *bought.ExpenseID); x.Amount != 5104_93 || *x.OriginalAmount != 12345_00 || *x.OriginalCurrency != "JPY" {
		t.Errorf("the purchase's expense: %s, original %v %v", x.Amount, x.OriginalAmount, x.OriginalCurrency)
	}

	// A billed amount given is stored as given.
	given := alice.createExpense(t, `{"amount":"5200","date":"2025-03-10","description":"Ramen","category":"Food & Dining",
		"payment_method":"Credit Card","credit_card_id":"`+card.ID+`","original_amount":12345,"original_currency":"JPY"}`)
	if given.Amount != 5200_00 || *given.OriginalAmount != 12345_00 {
		t.Errorf("a given billed amount: %s, original %v", given.Amount, *given.OriginalAmount)
	}
}

// A card billed in yen bills whole yen, rounded half to even.
func TestPurchaseAbroadOnAYenCardIsBilledInWholeYen(t *testing.T) {
	_, alice, _ := newMovesEnv(t)
	alice.do(t, http.MethodPut, "/api/v1/user-settings/app", `{"currency":"JPY"}`, http.StatusOK)
	card := alice.createCard(t, `{"name":"JCB","credit_limit":500000,"statement_day":15,"due_day":5}`)
	alice.enterRates(t, [3]string{"USD", "JPY", "150"})
	for _, c := range []struct{ paid, want string }{{"0.03", "4.00"}, {"0.05", "8.00"}, {"19.99", "2998.00"}} {
		res := alice.do(t, http.MethodPost, "/api/v1/expenses", `{"date":"2025-03-10","description":"Snack","category":"Food & Dining",
			"payment_method":"Credit Card","credit_card_id":"`+card.ID+`","original_amount":"`+c.paid+`","original_currency":"USD"}`, http.StatusCreated)
		if got := rawField(t, res, "amount"); got != c.want {
			t.Errorf("$%s billed %s, want %s", c.paid, got, c.want)
		}
	}
}

func TestExpenseCurrencyByPaymentMethod(t *testing.T) {
	_, alice, _ := newMovesEnv(t)
	usd := alice.accountIn(t, "USD", `{"name":"Savings","type":"savings","opening_balance":"1000"}`)
	php := alice.createAccount(t, `{"name":"Checking","type":"checking","opening_balance":"20000"}`)
	const body = `"date":"2025-03-10","description":"Taxi","category":"Transportation"`

	if e := alice.createExpense(t, `{"amount":"25",`+body+`,"payment_method":"Cash","currency":"usd"}`); e.Currency != "USD" {
		t.Errorf("a Cash expense naming usd is in %q, want USD", e.Currency)
	}
	cash := alice.createExpense(t, `{"amount":"25",`+body+`,"payment_method":"Cash"}`)
	if cash.Currency != "PHP" {
		t.Errorf("a Cash expense naming nothing is in %q, want the reporting PHP", cash.Currency)
	}
	debit := alice.createExpense(t, `{"amount":"25",`+body+`,"payment_method":"Account Debit","account_id":"`+usd.ID+`","currency":"USD"}`)
	if debit.Currency != "USD" || alice.storedExpense(t, debit.ID).Currency != "USD" {
		t.Errorf("an Account Debit from a USD account is in %q, want USD", debit.Currency)
	}
	if got := alice.account(t, usd.ID).CurrentBalance; got != 975_00 {
		t.Errorf("Savings balance %s, want 975.00 (dollars)", got)
	}
	// Paid from another account, the money moved in that one's currency.
	moved := send[finance.Expense](t, alice, http.MethodPut, "/api/v1/expenses/"+debit.ID, `{"account_id":"`+php.ID+`"}`, http.StatusOK)
	if moved.Currency != "PHP" || alice.storedExpense(t, debit.ID).Currency != "PHP" {
		t.Errorf("moved to a PHP account: in %q, want PHP", moved.Currency)
	}
	// A Cash expense named in another currency keeps its amount and takes it.
	if e := send[finance.Expense](t, alice, http.MethodPut, "/api/v1/expenses/"+cash.ID, `{"currency":"USD"}`, http.StatusOK); e.Currency != "USD" {
		t.Errorf("Cash changed to USD: in %q", e.Currency)
	}
	items := send[finance.BulkExpenses](t, alice, http.MethodPost, "/api/v1/expenses/bulk", `{"items":[
		{"amount":"1500",`+body+`,"payment_method":"Cash","currency":"JPY"},
		{"amount":"3",`+body+`,"payment_method":"Account Debit","account_id":"`+usd.ID+`"}]}`, http.StatusCreated)
	if got := []string{items.Items[0].Currency, items.Items[1].Currency}; !cmp.Equal(got, []string{"JPY", "USD"}) {
		t.Errorf("bulk items are in %v, want JPY and USD", got)
	}
}

func TestExpenseCurrencyRefusals(t *testing.T) {
	env, alice, bob := newMovesEnv(t)
	usd := alice.accountIn(t, "USD", `{"name":"Savings","type":"savings"}`)
	card := alice.createCard(t, visaBody)
	cash := alice.createExpense(t, `{"amount":"10","date":"2025-03-10","description":"Tea","category":"Food & Dining","payment_method":"Cash"}`)
	abroad := alice.createExpense(t, `{"amount":"500","date":"2025-03-10","description":"Ramen","category":"Food & Dining",
		"payment_method":"Credit Card","credit_card_id":"`+card.ID+`","original_amount":"1500","original_currency":"JPY"}`)
	const body = `"date":"2025-03-10","description":"Taxi","category":"Transportation"`
	onCard := `"payment_method":"Credit Card","credit_card_id":"` + card.ID + `"`
	post := func(name, b string, fields ...string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: "/api/v1/expenses", body: `{` + b + `}`,
			wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR", wantFields: fieldsOf(fields...)})
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		post("a currency of 3 decimals", `"amount":"1",`+body+`,"payment_method":"Cash","currency":"KWD"`,
			"currency", "KWD has 3 decimal places; records take currencies with at most 2"),
		post("an unknown currency", `"amount":"1",`+body+`,"payment_method":"Cash","currency":"XYZ"`,
			"currency", "must be an ISO 4217 currency code, like PHP, USD or EUR"),
		post("yen with centavos", `"amount":"100.50",`+body+`,"payment_method":"Cash","currency":"JPY"`,
			"amount", "must be a number with at most 0 decimal places"),
		post("another currency than the account's", `"amount":"1",`+body+`,"payment_method":"Account Debit","account_id":"`+usd.ID+`","currency":"PHP"`,
			"currency", "must be USD, the account's currency: the money moved in it"),
		post("another currency than the card's", `"amount":"1",`+body+`,`+onCard+`,"currency":"usd"`,
			"currency", "must be PHP, the card's currency: the money moved in it"),
		post("an original amount without its currency", `"amount":"1",`+body+`,`+onCard+`,"original_amount":"5"`,
			"original_currency", "is required with original_amount"),
		post("an original currency without its amount", body+`,`+onCard+`,"original_currency":"JPY"`,
			"original_amount", "is required with original_currency", "amount", "is required"),
		post("an original in the card's own currency", `"amount":"1",`+body+`,`+onCard+`,"original_amount":"5","original_currency":"PHP"`,
			"original_currency", "must differ from PHP, the card's currency: a purchase in it has no original amount"),
		post("an original yen amount with centavos", `"amount":"1",`+body+`,`+onCard+`,"original_amount":"5.5","original_currency":"JPY"`,
			"original_amount", "must be a number with at most 0 decimal places"),
		post("no rate and no billed amount", body+`,`+onCard+`,"original_amount":"1500","original_currency":"JPY"`,
			"amount", "no exchange rate from JPY to PHP on or before 2025-03-10; enter the billed amount"),
		post("an original on a Cash expense", `"amount":"1",`+body+`,"payment_method":"Cash","original_amount":"5","original_currency":"USD"`,
			"original_amount", "must be absent unless payment_method is Credit Card: only a card bills a purchase abroad"),
		alice.sc(apiScenario{name: "bulk: one item's currency refuses them all", method: http.MethodPost, url: "/api/v1/expenses/bulk",
			body:       `{"items":[{"amount":"1",` + body + `,"payment_method":"Cash"},{"amount":"1.50",` + body + `,"payment_method":"Cash","currency":"JPY"}]}`,
			wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR",
			wantFields: fieldsOf("items[1].amount", "must be a number with at most 0 decimal places")}),
		alice.sc(apiScenario{name: "PUT: yen named on an amount with centavos", method: http.MethodPut, url: "/api/v1/expenses/" + cash.ID,
			body: `{"amount":"10.25","currency":"JPY"}`, wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR",
			wantFields: fieldsOf("amount", "must be a number with at most 0 decimal places")}),
		alice.sc(apiScenario{name: "PUT: a card purchase abroad moved to a card in its original currency", method: http.MethodPut,
			url: "/api/v1/expenses/" + abroad.ID, body: `{"original_currency":"PHP","original_amount":"1"}`,
			wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR",
			wantFields: fieldsOf("original_currency", "must differ from PHP, the card's currency: a purchase in it has no original amount")}),
		alice.sc(apiScenario{name: "card route: no rate", method: http.MethodPost, url: "/api/v1/credit-cards/transactions",
			body: `{"credit_card_id":"` + card.ID + `","type":"purchase","date":"2025-03-10","description":"Ramen","category":"Food & Dining",` +
				`"original_amount":"1500","original_currency":"JPY"}`,
			wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR",
			wantFields: fieldsOf("amount", "no exchange rate from JPY to PHP on or before 2025-03-10; enter the billed amount")}),
		alice.sc(apiScenario{name: "card route: an original on a fee", method: http.MethodPost, url: "/api/v1/credit-cards/transactions",
			body:       `{"credit_card_id":"` + card.ID + `","type":"fee","amount":"5","date":"2025-03-10","description":"Fee","original_amount":"1","original_currency":"USD"}`,
			wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR",
			wantFields: fieldsOf("original_amount", "must be absent for fee transactions: only a purchase is made abroad")}),
	})
}

func TestIncomeCurrency(t *testing.T) {
	env, alice, bob := newMovesEnv(t)
	usd := alice.accountIn(t, "USD", `{"name":"Savings","type":"savings"}`)
	const body = `"amount":"100","date":"2025-03-10","category":"Salary"`
	if in := send[finance.Income](t, alice, http.MethodPost, "/api/v1/income", `{`+body+`,"currency":"usd"}`, http.StatusCreated); in.Currency != "USD" {
		t.Errorf("income without an account naming usd is in %q", in.Currency)
	}
	plain := send[finance.Income](t, alice, http.MethodPost, "/api/v1/income", `{`+body+`}`, http.StatusCreated)
	if plain.Currency != "PHP" {
		t.Errorf("income naming nothing is in %q, want PHP", plain.Currency)
	}
	into := send[finance.Income](t, alice, http.MethodPost, "/api/v1/income", `{`+body+`,"account_id":"`+usd.ID+`"}`, http.StatusCreated)
	if into.Currency != "USD" {
		t.Errorf("income into a USD account is in %q", into.Currency)
	}
	// Put into the USD account, the income takes its currency.
	if in := send[finance.Income](t, alice, http.MethodPut, "/api/v1/income/"+plain.ID, `{"account_id":"`+usd.ID+`"}`, http.StatusOK); in.Currency != "USD" {
		t.Errorf("moved into the USD account: in %q", in.Currency)
	}
	runRejected(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "another currency than the account's", method: http.MethodPost, url: "/api/v1/income",
			body: `{` + body + `,"account_id":"` + usd.ID + `","currency":"PHP"}`, wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR",
			wantFields: fieldsOf("currency", "must be USD, the account's currency: the money arrived in it")}),
		alice.sc(apiScenario{name: "yen with centavos", method: http.MethodPost, url: "/api/v1/income",
			body: `{"amount":"100.5","date":"2025-03-10","category":"Salary","currency":"JPY"}`, wantStatus: http.StatusBadRequest,
			wantCode: "VALIDATION_ERROR", wantFields: fieldsOf("amount", "must be a number with at most 0 decimal places")}),
		alice.sc(apiScenario{name: "a currency of 3 decimals", method: http.MethodPost, url: "/api/v1/income",
			body: `{` + body + `,"currency":"BHD"}`, wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR",
			wantFields: fieldsOf("currency", "BHD has 3 decimal places; records take currencies with at most 2")}),
		alice.sc(apiScenario{name: "PUT: another currency than the account's", method: http.MethodPut, url: "/api/v1/income/" + into.ID,
			body: `{"currency":"EUR"}`, wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR",
			wantFields: fieldsOf("currency", "must be USD, the account's currency: the money arrived in it")}),
	})
}

// transfersOf reads the user's transfers straight from the store.
func transfersOf(t testing.TB, env *testEnv, userID string) []finance.Transfer {
	t.Helper()
	var out []finance.Transfer
	for _, status := range finance.TransferStatuses {
		items, _, err := env.db.Read().ListTransfers(context.Background(), userID, finance.TransferFilter{Status: status}, all)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, items...)
	}
	return out
}

// The example of domain.md "Transfers between currencies", and one left to
// the rate of its date.
func TestTransferBetweenCurrencies(t *testing.T) {
	env, alice, bob := newMovesEnv(t)
	savings := alice.accountIn(t, "USD", `{"name":"Savings","type":"savings","opening_balance":"1000"}`)
	checking := alice.createAccount(t, `{"name":"Checking","type":"checking","opening_balance":"20000"}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)

	res := alice.do(t, http.MethodPost, "/api/v1/transfers",
		transferBody(savings.ID, checking.ID, `,"amount":"100","to_amount":"5650","date":"2025-03-10"`), http.StatusCreated)
	for field, want := range map[string]string{"amount": "100.00", "to_amount": "5650.00", "rate": "56.5000000000",
		"from_currency": `"USD"`, "to_currency": `"PHP"`} {
		if got := rawField(t, res, field); got != want {
			t.Errorf("transfer %s = %s, want %s", field, got, want)
		}
	}
	var tr finance.Transfer
	res.decodeData(t, &tr)
	if s, c := alice.account(t, savings.ID).CurrentBalance, alice.account(t, checking.ID).CurrentBalance; s != 900_00 || c != 25650_00 {
		t.Errorf("balances: Savings %s (want 900.00 dollars), Checking %s (want 25650.00 pesos)", s, c)
	}
	if got := alice.line(t, tr.ToLineID).Amount; got != 5650_00 {
		t.Errorf("the destination line credits %s, want 5650.00", got)
	}

	// PHP → USD left to the rate of its date: ₱5,650.00 at USD → PHP 56.50 is $100.00.
	alice.enterRates(t, [3]string{"USD", "PHP", "56.50"})
	back := alice.createTransfer(t, transferBody(checking.ID, savings.ID, `,"amount":"5650","date":"2025-03-10"`))
	if back.ToAmount != 100_00 || back.Rate != "0.0176991150" {
		t.Errorf("converted: to_amount %s, rate %s; want 100.00 at 0.0176991150", back.ToAmount, back.Rate)
	}
	if got := alice.account(t, savings.ID).CurrentBalance; got != 1000_00 {
		t.Errorf("Savings after the way back %s, want 1000.00", got)
	}
	// One currency: to_amount is amount.
	same := alice.createTransfer(t, transferBody(checking.ID, gcash.ID, `,"amount":"50","date":"2025-03-10"`))
	if same.ToAmount != 50_00 || same.Rate != "1.0000000000" {
		t.Errorf("one currency: to_amount %s, rate %s", same.ToAmount, same.Rate)
	}
	// Deleting reverses both lines, each in its own currency.
	alice.do(t, http.MethodDelete, "/api/v1/transfers/"+tr.ID, "", http.StatusOK)
	if s, c := alice.account(t, savings.ID).CurrentBalance, alice.account(t, checking.ID).CurrentBalance; s != 1100_00 || c != 20000_00-5650_00-50_00 {
		t.Errorf("after the delete: Savings %s, Checking %s", s, c)
	}

	eur := alice.accountIn(t, "EUR", `{"name":"Euro","type":"savings"}`)
	jpy := alice.accountIn(t, "JPY", `{"name":"Wallet","type":"cash"}`)
	transfers := func(t testing.TB, env *testEnv, userID string) any {
		return []any{snapshotLedger(t, env, userID), transfersOf(t, env, userID)}
	}
	tx := func(name, body string, fields ...string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: "/api/v1/transfers", body: body,
			wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR", wantFields: fieldsOf(fields...)})
	}
	runUnchanged(t, env, []ledgerUser{alice, bob}, transfers, []apiScenario{
		tx("one currency, another figure", transferBody(checking.ID, gcash.ID, `,"amount":"50","to_amount":"49","date":"2025-03-10"`),
			"to_amount", "must equal amount (50.00): both accounts are in PHP"),
		tx("no rate", transferBody(checking.ID, eur.ID, `,"amount":"50","date":"2025-03-10"`),
			"to_amount", "no exchange rate from PHP to EUR on or before 2025-03-10; enter the amount received"),
		tx("yen received with centavos", transferBody(checking.ID, jpy.ID, `,"amount":"50","to_amount":"120.5","date":"2025-03-10"`),
			"to_amount", "must be a number with at most 0 decimal places"),
		tx("yen sent with centavos", transferBody(jpy.ID, checking.ID, `,"amount":"120.5","to_amount":"50","date":"2025-03-10"`),
			"amount", "must be a number with at most 0 decimal places"),
		tx("to_amount 0", transferBody(checking.ID, eur.ID, `,"amount":"50","to_amount":"0","date":"2025-03-10"`),
			"to_amount", "must be greater than 0"),
	})
}

// A file in one currency is not committed into an account in another.
func TestImportCommitRefusesAnotherCurrency(t *testing.T) {
	e := newImportEnv(t)
	b, err := e.srv.Ledger().PreviewImport(e.ctx, e.user.ID, finance.ImportTargetRequest{AccountID: e.acct}, finance.ImportFile{
		Name: "usd.ofx", Format: "ofx", Currency: "USD",
		Rows: []finance.ImportFileRow{{Line: 1, Date: finance.NewDate(2026, 11, 7), Amount: 30_00, Direction: finance.LineDebit, Description: "LUNCH"}}})
	e.must(err)
	before := e.expenses(finance.StatusActive)
	apiScenario{method: http.MethodPost, url: "/api/v1/imports/" + b.ID + "/commit", headers: bearer(e.key),
		wantStatus: http.StatusBadRequest, wantCode: "VALIDATION_ERROR",
		wantFields: fieldsOf("currency", `the file is in USD and the account "BPI Savings" is in PHP; import it into one in USD`)}.run(t, e.testEnv)
	if diff := cmp.Diff(before, e.expenses(finance.StatusActive)); diff != "" {
		t.Errorf("a refused commit wrote expenses (-before +after):\n%s", diff)
	}
	if got, err := e.srv.Ledger().GetImport(e.ctx, e.user.ID, b.ID); err != nil || got.Status != finance.ImportPreview {
		t.Errorf("the batch is %q (%v), want still in preview", got.Status, err)
	}
}
