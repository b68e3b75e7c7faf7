package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
)

// expenseBody is a create body with the given method fields (the JSON text
// after "payment_method":).
func expenseBody(amount, method string) string {
	return `{"amount":` + amount + `,"date":"2025-03-05","description":"Lunch","category":"Food & Dining","payment_method":` + method + `}`
}

func TestExpenseCreatePaymentMethods(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	acc := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":1000}`)
	c := alice.createCard(t, visaBody)

	t.Run("Cash writes only the expense", func(t *testing.T) {
		before := snapshotSpending(t, env, alice.user.ID)
		res := alice.do(t, http.MethodPost, "/api/v1/expenses",
			`{"amount":"0.10","date":"2025-03-05","description":"  Candy ","category":"food & DINING","payment_method":"Cash",
			  "account_id":null,"credit_card_id":null,"notes":"corner store","status":"voided","id":"x"}`, http.StatusCreated)
		var e finance.Expense
		res.decodeData(t, &e)
		// A Cash expense without splits has no account, card, original amount or link:
		// those fields are left out, not null (docs/api.md "Records").
		want := map[string]any{"id": e.ID, "amount": 0.10, "currency": "PHP", "date": "2025-03-05", "description": "Candy",
			"category_id": categoryID(t, alice, "Food & Dining"), "category": "Food & Dining", "payment_method": "Cash",
			"notes": "corner store", "status": "active", "source": "manual",
			"created_at": ledgerStamp, "updated_at": ledgerStamp}
		if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, res.env.Data)); diff != "" {
			t.Errorf("created expense (-want +got):\n%s", diff)
		}
		if rawField(t, res, "amount") != "0.10" || res.message() != "Expense created" {
			t.Errorf("amount %s, message %q", rawField(t, res, "amount"), res.message())
		}
		after := snapshotSpending(t, env, alice.user.ID)
		if len(after.Expenses) != len(before.Expenses)+1 || len(after.CardRows) != len(before.CardRows) ||
			len(after.Ledger.Lines) != len(before.Ledger.Lines) {
			t.Errorf("Cash wrote more than the expense: %d lines, %d card rows", len(after.Ledger.Lines), len(after.CardRows))
		}
		if diff := cmp.Diff(jsonValue(t, res.env.Data), jsonValue(t, alice.getExpense(t, e.ID))); diff != "" {
			t.Errorf("read back (-created +read):\n%s", diff)
		}
	})

	t.Run("Account Debit posts a debit line", func(t *testing.T) {
		e := alice.createExpense(t, expenseBody(`"250.75"`, `"Account Debit","account_id":"`+acc.ID+`"`))
		if e.AccountID == nil || *e.AccountID != acc.ID || e.AccountTransactionID == nil || e.CardTransactionID != nil {
			t.Fatalf("expense %+v", e)
		}
		line := alice.line(t, *e.AccountTransactionID)
		want := finance.AccountTransaction{ID: line.ID, AccountID: acc.ID, AccountName: "BPI", Currency: "PHP", Type: finance.LineDebit,
			Amount: 250_75, Date: e.Date, Description: &e.Description, Source: finance.SourceExpense, SourceID: &e.ID,
			Status: finance.LinePosted, Cleared: finance.ClearedPending,
			RunningBalance: ptr(acc.OpeningBalance - 250_75), CreatedAt: line.CreatedAt, UpdatedAt: line.UpdatedAt}
		if diff := cmp.Diff(want, line, equateDates); diff != "" {
			t.Errorf("debit line (-want +got):\n%s", diff)
		}
		if got := alice.account(t, acc.ID).CurrentBalance; got != 749_25 {
			t.Errorf("balance %s, want 749.25", got)
		}
	})

	t.Run("Credit Card records an unbilled purchase", func(t *testing.T) {
		e := alice.createExpense(t, expenseBody("99.99", `"Credit Card","credit_card_id":"`+c.ID+`"`))
		if e.CreditCardID == nil || *e.CreditCardID != c.ID || e.CardTransactionID == nil || e.AccountTransactionID != nil ||
			e.CardTransactionStatus == nil || *e.CardTransactionStatus != finance.CardUnbilled {
			t.Fatalf("expense %+v", e)
		}
		row := alice.getCardRow(t, *e.CardTransactionID)
		want := finance.CardTransaction{ID: row.ID, CreditCardID: c.ID, CreditCardName: "Visa", Type: finance.CardPurchase,
			Amount: 99_99, Currency: "PHP", Date: e.Date, Description: "Lunch", CategoryID: e.CategoryID, Category: e.Category,
			Status: finance.CardUnbilled, ExpenseID: &e.ID, Cleared: finance.ClearedPending, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt}
		if diff := cmp.Diff(want, row, equateDates); diff != "" {
			t.Errorf("purchase (-want +got):\n%s", diff)
		}
		if got := alice.getCard(t, c.ID); got.OutstandingBalance != 99_99 || got.AvailableCredit != 49900_01 {
			t.Errorf("card figures %s / %s", got.OutstandingBalance, got.AvailableCredit)
		}
	})
}

func TestExpenseCreateRejected(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	acc := alice.createAccount(t, `{"name":"BPI","type":"savings"}`)
	closed := alice.createAccount(t, `{"name":"Closed","type":"savings"}`)
	alice.archive(t, closed.ID)
	c := alice.createCard(t, visaBody)
	oldCard := alice.createCard(t, `{"name":"Old","credit_limit":1000,"statement_day":1,"due_day":2}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+oldCard.ID, "", http.StatusOK)
	bobsAccount := bob.createAccount(t, `{"name":"BPI","type":"savings"}`)
	bobsCard := bob.createCard(t, visaBody)
	alice.do(t, http.MethodDelete, "/api/v1/categories/"+categoryID(t, alice, "Travel"), "", http.StatusOK)

	post := func(name, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: "/api/v1/expenses", body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	withCategory := func(category string) string {
		return `{"amount":1,"date":"2025-03-05","description":"x","category":"` + category + `","payment_method":"Cash"}`
	}
	const (
		cashNoAccount = "must be null or absent when payment_method is Cash"
		debitNoCard   = "must be null or absent when payment_method is Account Debit"
		cardNoAccount = "must be null or absent when payment_method is Credit Card"
	)
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		post("empty object", `{}`, fieldsOf("amount", problemRequired, "date", problemRequired, "description", problemRequired,
			"category", problemRequired, "payment_method", problemRequired)),
		post("bad values", `{"amount":-5,"date":"2025-02-30","description":"   ","category":7,"payment_method":"Bitcoin","notes":"`+strings.Repeat("n", 1001)+`"}`,
			fieldsOf("amount", problemPositive, "date", problemDate, "description", problemRequired, "category", "must be a string",
				"payment_method", "must be one of: Cash, Account Debit, Credit Card", "notes", "must be at most 1000 characters")),
		post("amount with 3 decimals", expenseBody(`10.505`, `"Cash"`), fieldsOf("amount", problemMoney)),
		post("amount as exponent", expenseBody(`"1e3"`, `"Cash"`), fieldsOf("amount", problemMoney)),
		post("zero amount", expenseBody(`0`, `"Cash"`), fieldsOf("amount", problemPositive)),
		post("amount too large", expenseBody(`1000000000`, `"Cash"`), fieldsOf("amount", "must be at most 999999999.99 in magnitude")),
		post("description too long", `{"amount":1,"date":"2025-03-05","description":"`+strings.Repeat("d", 256)+`","category":"Groceries","payment_method":"Cash"}`,
			fieldsOf("description", "must be at most 255 characters")),
		post("Cash with an account", expenseBody("1", `"Cash","account_id":"`+acc.ID+`"`), fieldsOf("account_id", cashNoAccount)),
		post("Cash with a card", expenseBody("1", `"Cash","credit_card_id":"`+c.ID+`"`), fieldsOf("credit_card_id", cashNoAccount)),
		post("Cash with an empty account id", expenseBody("1", `"Cash","account_id":""`), fieldsOf("account_id", cashNoAccount)),
		post("Account Debit without account", expenseBody("1", `"Account Debit"`),
			fieldsOf("account_id", "is required when payment_method is Account Debit")),
		post("Account Debit with null account", expenseBody("1", `"Account Debit","account_id":null`),
			fieldsOf("account_id", "is required when payment_method is Account Debit")),
		post("Account Debit with a card too", expenseBody("1", `"Account Debit","account_id":"`+acc.ID+`","credit_card_id":"`+c.ID+`"`),
			fieldsOf("credit_card_id", debitNoCard)),
		post("Account Debit, malformed account", expenseBody("1", `"Account Debit","account_id":"BPI"`), fieldsOf("account_id", problemAccount)),
		post("Account Debit, account id not a string", expenseBody("1", `"Account Debit","account_id":5`), fieldsOf("account_id", "must be a string")),
		post("Account Debit, unknown account", expenseBody("1", `"Account Debit","account_id":"`+unknownID+`"`), fieldsOf("account_id", problemAccount)),
		post("Account Debit, another user's account", expenseBody("1", `"Account Debit","account_id":"`+bobsAccount.ID+`"`), fieldsOf("account_id", problemAccount)),
		post("Account Debit, archived account", expenseBody("1", `"Account Debit","account_id":"`+closed.ID+`"`), fieldsOf("account_id", problemAccount)),
		post("Credit Card without card", expenseBody("1", `"Credit Card"`),
			fieldsOf("credit_card_id", "is required when payment_method is Credit Card")),
		post("Credit Card with an account too", expenseBody("1", `"Credit Card","credit_card_id":"`+c.ID+`","account_id":"`+acc.ID+`"`),
			fieldsOf("account_id", cardNoAccount)),
		post("Credit Card, malformed card", expenseBody("1", `"Credit Card","credit_card_id":"`+strings.ToUpper(c.ID)+`"`), fieldsOf("credit_card_id", problemCard)),
		post("Credit Card, unknown card", expenseBody("1", `"Credit Card","credit_card_id":"`+unknownID+`"`), fieldsOf("credit_card_id", problemCard)),
		post("Credit Card, another user's card", expenseBody("1", `"Credit Card","credit_card_id":"`+bobsCard.ID+`"`), fieldsOf("credit_card_id", problemCard)),
		post("Credit Card, archived card", expenseBody("1", `"Credit Card","credit_card_id":"`+oldCard.ID+`"`), fieldsOf("credit_card_id", problemCard)),
		post("unknown category", withCategory("Yachts"), fieldsOf("category", problemCategory)),
		post("archived category", withCategory("travel"), fieldsOf("category", problemCategory)),
		post("income category", withCategory("Salary"), fieldsOf("category", problemCategory)),
		post("category and account both wrong", `{"amount":1,"date":"2025-03-05","description":"x","category":"Yachts","payment_method":"Account Debit","account_id":"`+closed.ID+`"}`,
			fieldsOf("category", problemCategory, "account_id", problemAccount)),
		post("malformed JSON", `{"amount":`, nil),
		post("not an object", `[1]`, nil),
	})
}

func TestExpenseGetNotFound(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	e := alice.createExpense(t, expenseBody("1", `"Cash"`))
	runScenarios(t, env, []apiScenario{
		alice.sc(apiScenario{name: "malformed id", method: http.MethodGet, url: "/api/v1/expenses/123",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Expense not found"}),
		alice.sc(apiScenario{name: "unknown id", method: http.MethodGet, url: "/api/v1/expenses/" + unknownID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's expense", method: http.MethodGet, url: "/api/v1/expenses/" + e.ID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
}

func TestExpenseUpdate(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":1000}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet","opening_balance":1000}`)
	visa := alice.createCard(t, visaBody)
	amex := alice.createCard(t, `{"name":"Amex","credit_limit":1000,"statement_day":1,"due_day":2}`)
	put := func(t *testing.T, id, body string) finance.Expense {
		t.Helper()
		var e finance.Expense
		res := alice.do(t, http.MethodPut, "/api/v1/expenses/"+id, body, http.StatusOK)
		if res.message() != "Expense updated" {
			t.Errorf("message %q", res.message())
		}
		res.decodeData(t, &e)
		return e
	}

	t.Run("same account: the line is updated in place", func(t *testing.T) {
		e := alice.createExpense(t, expenseBody("100", `"Account Debit","account_id":"`+bpi.ID+`"`))
		got := put(t, e.ID, `{"amount":"120.50","date":"2025-03-06","description":"Team lunch","notes":"n","account_id":"`+bpi.ID+`"}`)
		if *got.AccountTransactionID != *e.AccountTransactionID || got.Amount != 120_50 || got.Notes == nil {
			t.Errorf("updated %+v", got)
		}
		line := alice.line(t, *e.AccountTransactionID)
		if line.Amount != 120_50 || line.Date.String() != "2025-03-06" || *line.Description != "Team lunch" || line.Status != finance.LinePosted {
			t.Errorf("line %+v", line)
		}
		if b := alice.account(t, bpi.ID).CurrentBalance; b != 879_50 {
			t.Errorf("balance %s", b)
		}
		alice.do(t, http.MethodDelete, "/api/v1/expenses/"+e.ID, "", http.StatusOK)
	})

	t.Run("another account: the line is voided and replaced", func(t *testing.T) {
		e := alice.createExpense(t, expenseBody("100", `"Account Debit","account_id":"`+bpi.ID+`"`))
		got := put(t, e.ID, `{"account_id":"`+gcash.ID+`"}`)
		if *got.AccountID != gcash.ID || *got.AccountTransactionID == *e.AccountTransactionID {
			t.Fatalf("updated %+v", got)
		}
		if old := alice.line(t, *e.AccountTransactionID); old.Status != finance.StatusVoided {
			t.Errorf("old line %+v", old)
		}
		if line := alice.line(t, *got.AccountTransactionID); line.AccountID != gcash.ID || line.Amount != 100_00 || *line.SourceID != e.ID {
			t.Errorf("new line %+v", line)
		}
		if alice.account(t, bpi.ID).CurrentBalance != 1000_00 || alice.account(t, gcash.ID).CurrentBalance != 900_00 {
			t.Error("balances did not follow the move")
		}
		alice.do(t, http.MethodDelete, "/api/v1/expenses/"+e.ID, "", http.StatusOK)
	})

	t.Run("method changes: Account Debit to Cash to Credit Card to Account Debit", func(t *testing.T) {
		e := alice.createExpense(t, expenseBody("40", `"Account Debit","account_id":"`+bpi.ID+`"`))
		cash := put(t, e.ID, `{"payment_method":"Cash"}`)
		if cash.AccountID != nil || cash.AccountTransactionID != nil || cash.PaymentMethod != finance.MethodCash {
			t.Errorf("to Cash %+v", cash)
		}
		if alice.line(t, *e.AccountTransactionID).Status != finance.StatusVoided {
			t.Error("the debit line was not voided")
		}
		card := put(t, e.ID, `{"payment_method":"Credit Card","credit_card_id":"`+visa.ID+`","account_id":null}`)
		if *card.CreditCardID != visa.ID || card.CardTransactionID == nil || *card.CardTransactionStatus != finance.CardUnbilled {
			t.Fatalf("to Credit Card %+v", card)
		}
		if row := alice.getCardRow(t, *card.CardTransactionID); row.Amount != 40_00 || *row.ExpenseID != e.ID {
			t.Errorf("purchase %+v", row)
		}
		back := put(t, e.ID, `{"payment_method":"Account Debit","account_id":"`+gcash.ID+`"}`)
		if back.CreditCardID != nil || back.CardTransactionID != nil || *back.AccountID != gcash.ID {
			t.Errorf("to Account Debit %+v", back)
		}
		if row := alice.getCardRow(t, *card.CardTransactionID); row.Status != finance.StatusVoided {
			t.Errorf("the purchase was not voided: %+v", row)
		}
		alice.do(t, http.MethodDelete, "/api/v1/expenses/"+e.ID, "", http.StatusOK)
	})

	t.Run("same card: the purchase is updated in place; another card replaces it", func(t *testing.T) {
		e := alice.createExpense(t, expenseBody("10", `"Credit Card","credit_card_id":"`+visa.ID+`"`))
		got := put(t, e.ID, `{"amount":11,"description":"Brunch"}`)
		row := alice.getCardRow(t, *e.CardTransactionID)
		if *got.CardTransactionID != row.ID || row.Amount != 11_00 || row.Description != "Brunch" || row.Status != finance.CardUnbilled {
			t.Errorf("purchase after in-place update %+v", row)
		}
		moved := put(t, e.ID, `{"credit_card_id":"`+amex.ID+`"}`)
		if *moved.CardTransactionID == row.ID || alice.getCardRow(t, row.ID).Status != finance.StatusVoided {
			t.Errorf("moved %+v", moved)
		}
		if alice.getCard(t, visa.ID).OutstandingBalance != 0 || alice.getCard(t, amex.ID).OutstandingBalance != 11_00 {
			t.Error("card balances did not follow")
		}
		alice.do(t, http.MethodDelete, "/api/v1/expenses/"+e.ID, "", http.StatusOK)
	})

	t.Run("billed purchase: description and category only, copied to the row", func(t *testing.T) {
		e := alice.createExpense(t, expenseBody("10", `"Credit Card","credit_card_id":"`+visa.ID+`"`))
		testkit.SetCardRowStatus(t, env.db, alice.user.ID, *e.CardTransactionID, finance.CardBilled)
		got := put(t, e.ID, `{"description":"Dinner","category":"Groceries","notes":"x","amount":10,"payment_method":"Credit Card"}`)
		if got.Description != "Dinner" || *got.Category != "Groceries" || *got.CardTransactionStatus != finance.CardBilled {
			t.Errorf("updated %+v", got)
		}
		if row := alice.getCardRow(t, *e.CardTransactionID); row.Description != "Dinner" || *row.Category != "Groceries" {
			t.Errorf("row %+v", row)
		}
	})

	t.Run("category on a split expense removes the split", func(t *testing.T) {
		e := alice.createExpense(t, expenseBody("30", `"Cash"`))
		alice.do(t, http.MethodPost, "/api/v1/expenses/"+e.ID+"/split",
			`{"parts":[{"amount":10,"category":"Groceries"},{"amount":20,"category":"Shopping"}]}`, http.StatusOK)
		got := put(t, e.ID, `{"category":"Shopping","amount":35}`)
		if got.IsSplit || len(got.Splits) != 0 || *got.Category != "Shopping" || got.Amount != 35_00 {
			t.Errorf("unsplit %+v", got)
		}
	})

	t.Run("description only, on an archived account", func(t *testing.T) {
		acc := alice.createAccount(t, `{"name":"Old","type":"savings"}`)
		e := alice.createExpense(t, expenseBody("5", `"Account Debit","account_id":"`+acc.ID+`"`))
		alice.archive(t, acc.ID)
		put(t, e.ID, `{"description":"Snack","amount":5,"account_id":"`+acc.ID+`"}`)
		if line := alice.line(t, *e.AccountTransactionID); *line.Description != "Snack" {
			t.Errorf("line %+v", line)
		}
		// Moving it off the archived account voids the old line there.
		moved := put(t, e.ID, `{"payment_method":"Cash"}`)
		if moved.AccountID != nil || alice.line(t, *e.AccountTransactionID).Status != finance.StatusVoided {
			t.Errorf("moved off %+v", moved)
		}
	})
}

func TestExpenseUpdateRejected(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	acc := alice.createAccount(t, `{"name":"BPI","type":"savings"}`)
	closed := alice.createAccount(t, `{"name":"Closed","type":"savings"}`)
	onClosed := alice.createExpense(t, expenseBody("5", `"Account Debit","account_id":"`+closed.ID+`"`))
	alice.archive(t, closed.ID)
	c := alice.createCard(t, visaBody)
	oldCard := alice.createCard(t, `{"name":"Old","credit_limit":1000,"statement_day":1,"due_day":2}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+oldCard.ID, "", http.StatusOK)

	cash := alice.createExpense(t, expenseBody("10", `"Cash"`))
	debit := alice.createExpense(t, expenseBody("10", `"Account Debit","account_id":"`+acc.ID+`"`))
	billed := alice.createExpense(t, expenseBody("10", `"Credit Card","credit_card_id":"`+c.ID+`"`))
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, *billed.CardTransactionID, finance.CardBilled)
	converted := alice.createExpense(t, expenseBody("10", `"Credit Card","credit_card_id":"`+c.ID+`"`))
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, *converted.CardTransactionID, finance.CardConverted)
	split := alice.createExpense(t, expenseBody("10", `"Cash"`))
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+split.ID+"/split",
		`{"parts":[{"amount":4,"category":"Groceries"},{"amount":6,"category":"Shopping"}]}`, http.StatusOK)
	voided := alice.createExpense(t, expenseBody("10", `"Cash"`))
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+voided.ID, "", http.StatusOK)
	bill := insertExpense(t, env, alice.user.ID, finance.Expense{Amount: 500, Date: finance.NewDate(2025, 3, 1),
		Description: "Electricity (due 2025-03-01)", PaymentMethod: finance.MethodCash, Source: finance.ExpenseBillPayment}, "Utilities")

	put := func(name, id, body string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPut, url: "/api/v1/expenses/" + id, body: body,
			wantStatus: status, wantCode: code, wantFields: fields})
	}
	invalid := func(name, id, body string) apiScenario {
		return put(name, id, body, http.StatusBadRequest, CodeInvalidStatus, nil)
	}
	bad := func(name, id, body string, fields map[string]string) apiScenario {
		return put(name, id, body, http.StatusBadRequest, CodeValidation, fields)
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		invalid("voided", voided.ID, `{"description":"x"}`),
		invalid("amount of a billed card expense", billed.ID, `{"amount":11}`),
		invalid("date of a billed card expense", billed.ID, `{"date":"2025-03-06"}`),
		invalid("method of a converted card expense", converted.ID, `{"payment_method":"Cash"}`),
		invalid("card of a billed card expense", billed.ID, `{"credit_card_id":"`+unknownID+`"}`),
		invalid("amount of a bill payment", bill.ID, `{"amount":6}`),
		invalid("amount of a split expense without category", split.ID, `{"amount":11}`),
		invalid("amount on an archived account", onClosed.ID, `{"amount":6}`),
		bad("bill payment with a bad body", bill.ID, `{"amount":"x"}`, fieldsOf("amount", problemMoney)),
		bad("voided with a bad body", voided.ID, `{"date":"soon"}`, fieldsOf("date", problemDate)),
		bad("null required fields", cash.ID, `{"amount":null,"description":null,"category":null,"payment_method":null,"date":null}`,
			fieldsOf("amount", problemRequired, "description", problemRequired, "category", problemRequired,
				"payment_method", problemRequired, "date", problemRequired)),
		bad("to Account Debit without account", cash.ID, `{"payment_method":"Account Debit"}`,
			fieldsOf("account_id", "is required when payment_method is Account Debit")),
		bad("Cash with the old account still named", debit.ID, `{"payment_method":"Cash","account_id":"`+acc.ID+`"}`,
			fieldsOf("account_id", "must be null or absent when payment_method is Cash")),
		bad("a card on an Account Debit expense", debit.ID, `{"credit_card_id":"`+c.ID+`"}`,
			fieldsOf("credit_card_id", "must be null or absent when payment_method is Account Debit")),
		bad("null account on Account Debit", debit.ID, `{"account_id":null}`,
			fieldsOf("account_id", "is required when payment_method is Account Debit")),
		bad("to an archived account", debit.ID, `{"account_id":"`+closed.ID+`"}`, fieldsOf("account_id", problemAccount)),
		bad("to an archived card", cash.ID, `{"payment_method":"Credit Card","credit_card_id":"`+oldCard.ID+`"}`, fieldsOf("credit_card_id", problemCard)),
		bad("unknown category", cash.ID, `{"category":"Yachts"}`, fieldsOf("category", problemCategory)),
		put("unknown expense", unknownID, `{"description":"x"}`, http.StatusNotFound, CodeNotFound, nil),
		bob.sc(apiScenario{name: "another user's expense", method: http.MethodPut, url: "/api/v1/expenses/" + cash.ID,
			body: `{"description":"mine"}`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's expense with malformed JSON", method: http.MethodPut, url: "/api/v1/expenses/" + cash.ID,
			body: `{"description":`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
	// The same values count as no change: a billed expense echoed back is fine.
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+billed.ID,
		`{"amount":10,"date":"2025-03-05","payment_method":"Credit Card","credit_card_id":"`+c.ID+`","description":"Lunch"}`, http.StatusOK)
}

// insertExpense stores an expense the way bill payments will (they are not
// built yet): straight in the store.
func insertExpense(t testing.TB, env *testEnv, userID string, e finance.Expense, category string) finance.Expense {
	t.Helper()
	ctx := t.Context()
	err := env.db.Write(ctx, func(tx finance.Repo) error {
		cat, err := tx.ActiveCategoryByName(ctx, userID, finance.KindExpense, category)
		if err != nil {
			return err
		}
		e.ID, e.CategoryID, e.Status = finance.NewID(), &cat.ID, finance.StatusActive
		e.CreatedAt, e.UpdatedAt = ledgerNow, ledgerNow
		if e.Currency == "" {
			e.Currency = "PHP"
		}
		return tx.InsertExpense(ctx, userID, e)
	})
	if err != nil {
		t.Fatalf("insert expense: %v", err)
	}
	return e
}

func TestExpenseVoid(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	acc := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":100}`)
	c := alice.createCard(t, visaBody)

	cash := alice.createExpense(t, expenseBody("10", `"Cash"`))
	res := alice.do(t, http.MethodDelete, "/api/v1/expenses/"+cash.ID, "", http.StatusOK)
	var got finance.Expense
	res.decodeData(t, &got)
	if res.message() != "Expense voided" || got.Status != finance.StatusVoided || got.VoidedAt == nil {
		t.Errorf("voided %+v", got)
	}

	debit := alice.createExpense(t, expenseBody("30", `"Account Debit","account_id":"`+acc.ID+`"`))
	alice.archive(t, acc.ID) // voiding reverses history, so an archived account is fine
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+debit.ID, "", http.StatusOK)
	if line := alice.line(t, *debit.AccountTransactionID); line.Status != finance.StatusVoided || line.VoidedAt == nil {
		t.Errorf("line %+v", line)
	}
	if b := alice.account(t, acc.ID).CurrentBalance; b != 100_00 {
		t.Errorf("balance %s after the void", b)
	}

	card := alice.createExpense(t, expenseBody("20", `"Credit Card","credit_card_id":"`+c.ID+`"`))
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+card.ID, "", http.StatusOK).decodeData(t, &got)
	if *got.CardTransactionStatus != finance.StatusVoided || alice.getCardRow(t, *card.CardTransactionID).Status != finance.StatusVoided {
		t.Errorf("voided card expense %+v", got)
	}
	if alice.getCard(t, c.ID).OutstandingBalance != 0 {
		t.Error("the card still owes the voided purchase")
	}

	billed := alice.createExpense(t, expenseBody("20", `"Credit Card","credit_card_id":"`+c.ID+`"`))
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, *billed.CardTransactionID, finance.CardBilled)
	converted := alice.createExpense(t, expenseBody("20", `"Credit Card","credit_card_id":"`+c.ID+`"`))
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, *converted.CardTransactionID, finance.CardConverted)
	bill := insertExpense(t, env, alice.user.ID, finance.Expense{Amount: 500, Date: finance.NewDate(2025, 3, 1),
		Description: "Water", PaymentMethod: finance.MethodCash, Source: finance.ExpenseBillPayment}, "Utilities")
	del := func(name, id string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodDelete, url: "/api/v1/expenses/" + id,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus})
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		del("already voided", cash.ID),
		del("billed card row", billed.ID),
		del("converted card row", converted.ID),
		del("bill payment", bill.ID),
		bob.sc(apiScenario{name: "another user's expense", method: http.MethodDelete, url: "/api/v1/expenses/" + billed.ID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
}

func TestExpenseSplit(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	e := alice.createExpense(t, expenseBody(`"100.00"`, `"Credit Card","credit_card_id":"`+c.ID+`"`))
	before := snapshotSpending(t, env, alice.user.ID)

	res := alice.do(t, http.MethodPost, "/api/v1/expenses/"+e.ID+"/split",
		`{"parts":[{"amount":"33.33","category":"groceries","description":" milk "},{"amount":"33.33","category":"Shopping"},{"amount":"33.34","category":"Groceries"}]}`,
		http.StatusOK)
	var got finance.Expense
	res.decodeData(t, &got)
	if res.message() != "Expense split" || !got.IsSplit || got.CategoryID != nil || got.Category != nil || len(got.Splits) != 3 {
		t.Fatalf("split %+v", got)
	}
	parts := []string{}
	for _, p := range got.Splits {
		d := ""
		if p.Description != nil {
			d = *p.Description
		}
		parts = append(parts, fmt.Sprintf("%s %s %s", p.Amount, p.Category, d))
	}
	if diff := cmp.Diff([]string{"33.33 Groceries milk", "33.33 Shopping ", "33.34 Groceries "}, parts); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	// No money row changes.
	after := snapshotSpending(t, env, alice.user.ID)
	if diff := cmp.Diff(before.CardRows[0].Amount, after.CardRows[0].Amount); diff != "" || after.CardRows[0].UpdatedAt != before.CardRows[0].UpdatedAt {
		t.Errorf("the card row changed")
	}
	// A new split replaces the old parts.
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+e.ID+"/split",
		`{"parts":[{"amount":50,"category":"Travel"},{"amount":50,"category":"Education"}]}`, http.StatusOK).decodeData(t, &got)
	if len(got.Splits) != 2 || got.Splits[0].Category != "Travel" || got.Splits[1].Category != "Education" {
		t.Errorf("re-split %+v", got.Splits)
	}

	voided := alice.createExpense(t, expenseBody("10", `"Cash"`))
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+voided.ID, "", http.StatusOK)
	split := func(name, id, body string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: "/api/v1/expenses/" + id + "/split", body: body,
			wantStatus: status, wantCode: code, wantFields: fields})
	}
	many := make([]string, 21)
	for i := range many {
		many[i] = `{"amount":1,"category":"Groceries"}`
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		split("one part", e.ID, `{"parts":[{"amount":100,"category":"Groceries"}]}`, http.StatusBadRequest, CodeValidation,
			fieldsOf("parts", "must hold 2 to 20 parts (got 1)")),
		split("21 parts", e.ID, `{"parts":[`+strings.Join(many, ",")+`]}`, http.StatusBadRequest, CodeValidation,
			fieldsOf("parts", "must hold 2 to 20 parts (got 21)")),
		split("no parts", e.ID, `{}`, http.StatusBadRequest, CodeValidation, fieldsOf("parts", "must hold 2 to 20 parts (got 0)")),
		split("parts not an array", e.ID, `{"parts":"a"}`, http.StatusBadRequest, CodeValidation, fieldsOf("parts", "must be an array")),
		split("sum too small", e.ID, `{"parts":[{"amount":"49.99","category":"Groceries"},{"amount":50,"category":"Shopping"}]}`,
			http.StatusBadRequest, CodeValidation, fieldsOf("parts", "must sum exactly to the expense amount 100.00 (they sum to 99.99)")),
		split("bad parts", e.ID, `{"parts":[{"amount":0,"category":"Groceries"},{"amount":100}]}`, http.StatusBadRequest, CodeValidation,
			fieldsOf("parts[0].amount", problemPositive, "parts[1].category", problemRequired)),
		split("unknown category and wrong sum", e.ID, `{"parts":[{"amount":1,"category":"Yachts"},{"amount":2,"category":"Groceries"}]}`,
			http.StatusBadRequest, CodeValidation,
			fieldsOf("parts[0].category", problemCategory, "parts", "must sum exactly to the expense amount 100.00 (they sum to 3.00)")),
		split("voided expense", voided.ID, `{"parts":[{"amount":5,"category":"Groceries"},{"amount":5,"category":"Shopping"}]}`,
			http.StatusBadRequest, CodeInvalidStatus, nil),
		split("unknown expense", unknownID, `{"parts":[]}`, http.StatusNotFound, CodeNotFound, nil),
		bob.sc(apiScenario{name: "another user's expense", method: http.MethodPost, url: "/api/v1/expenses/" + e.ID + "/split",
			body:       `{"parts":[{"amount":50,"category":"Groceries"},{"amount":50,"category":"Shopping"}]}`,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's expense with parts not an array", method: http.MethodPost,
			url: "/api/v1/expenses/" + e.ID + "/split", body: `{"parts":"a"}`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
}

func TestExpenseBulk(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	acc := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":100}`)
	c := alice.createCard(t, visaBody)

	res := alice.do(t, http.MethodPost, "/api/v1/expenses/bulk", `{"items":[
		{"amount":"0.10","date":"2025-03-01","description":"a","category":"Groceries","payment_method":"Cash"},
		{"amount":"0.20","date":"2025-03-02","description":"b","category":"Shopping","payment_method":"Account Debit","account_id":"`+acc.ID+`"},
		{"amount":"0.30","date":"2025-03-01","description":"c","category":"groceries","payment_method":"Credit Card","credit_card_id":"`+c.ID+`"}]}`,
		http.StatusCreated)
	var out finance.BulkExpenses
	res.decodeData(t, &out)
	if res.message() != "Expenses created" || out.Count != 3 || len(out.Items) != 3 {
		t.Fatalf("bulk reply %+v", out)
	}
	if diff := cmp.Diff([]string{"a", "b", "c"}, ids(out.Items, func(e finance.Expense) string { return e.Description })); diff != "" {
		t.Errorf("input order (-want +got):\n%s", diff)
	}
	if out.Items[1].AccountTransactionID == nil || out.Items[2].CardTransactionID == nil {
		t.Errorf("method rows missing: %+v", out.Items)
	}
	if alice.account(t, acc.ID).CurrentBalance != 99_80 || alice.getCard(t, c.ID).OutstandingBalance != 30 {
		t.Error("method effects missing")
	}
	for _, e := range out.Items {
		if diff := cmp.Diff(jsonValue(t, e), jsonValue(t, alice.getExpense(t, e.ID))); diff != "" {
			t.Errorf("item %s read back (-reply +read):\n%s", e.Description, diff)
		}
	}

	items := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = `{"amount":1,"date":"2025-03-01","description":"x","category":"Groceries","payment_method":"Cash"}`
		}
		return `{"items":[` + strings.Join(parts, ",") + `]}`
	}
	bulk := func(name, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: "/api/v1/expenses/bulk", body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		bulk("no items", `{"items":[]}`, fieldsOf("items", "must hold 1 to 100 expenses (got 0)")),
		bulk("items absent", `{}`, fieldsOf("items", "must hold 1 to 100 expenses (got 0)")),
		bulk("101 items", items(101), fieldsOf("items", "must hold 1 to 100 expenses (got 101)")),
		bulk("every error of every item", `{"items":[
			{"amount":1,"date":"2025-03-01","description":"ok","category":"Groceries","payment_method":"Cash"},
			{"amount":0,"date":"2025-03-01","description":"x","category":"Groceries","payment_method":"Cash"},
			{"amount":1,"date":"2025-03-01","description":"x","category":"Yachts","payment_method":"Account Debit","account_id":"`+unknownID+`"},
			{"amount":1,"date":"bad","category":"Groceries","payment_method":"Credit Card"}]}`,
			fieldsOf("items[1].amount", problemPositive, "items[2].category", problemCategory, "items[2].account_id", problemAccount,
				"items[3].date", problemDate, "items[3].description", problemRequired,
				"items[3].credit_card_id", "is required when payment_method is Credit Card")),
	})
	// 100 items is the limit, and they all land.
	alice.do(t, http.MethodPost, "/api/v1/expenses/bulk", items(100), http.StatusCreated).decodeData(t, &out)
	if out.Count != 100 {
		t.Errorf("count %d", out.Count)
	}
}

func TestExpenseList(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	acc := alice.createAccount(t, `{"name":"BPI","type":"savings"}`)
	c := alice.createCard(t, visaBody)
	mk := func(amount, date, desc, category, method string) finance.Expense {
		return alice.createExpense(t, `{"amount":`+amount+`,"date":"`+date+`","description":"`+desc+`","category":"`+category+
			`","payment_method":`+method+`,"notes":"note of `+desc+`"}`)
	}
	cash := `"Cash"`
	debit := `"Account Debit","account_id":"` + acc.ID + `"`
	card := `"Credit Card","credit_card_id":"` + c.ID + `"`
	e1 := mk("10", "2025-03-01", "apple", "Groceries", cash)
	e2 := mk("30", "2025-03-02", "Banana", "Shopping", debit)
	e3 := mk("20", "2025-03-02", "cherry", "Groceries", card)
	e4 := mk("40", "2025-03-04", "Durian", "Shopping", cash)
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+e4.ID+"/split",
		`{"parts":[{"amount":15,"category":"Groceries"},{"amount":25,"category":"Shopping"}]}`, http.StatusOK)
	v := mk("50", "2025-03-03", "voided one", "Groceries", cash)
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+v.ID, "", http.StatusOK)
	bob.createExpense(t, expenseBody("1", `"Cash"`))
	// An archived category still matches by name.
	alice.do(t, http.MethodDelete, "/api/v1/categories/"+categoryID(t, alice, "Shopping"), "", http.StatusOK)

	base := "/api/v1/expenses"
	for _, tt := range []struct {
		url  string
		want []string
	}{
		{base, []string{e4.ID, e3.ID, e2.ID, e1.ID}}, // date desc, ties by id desc
		{base + "?sortOrder=asc", []string{e1.ID, e2.ID, e3.ID, e4.ID}},
		{base + "?sortBy=amount", []string{e4.ID, e2.ID, e3.ID, e1.ID}},
		{base + "?sortBy=description&sortOrder=asc", []string{e1.ID, e2.ID, e3.ID, e4.ID}},
		{base + "?sortBy=created_at&sortOrder=asc", []string{e1.ID, e2.ID, e3.ID, e4.ID}},
		{base + "?status=voided", []string{v.ID}},
		{base + "?dateFrom=2025-03-02&dateTo=2025-03-02", []string{e3.ID, e2.ID}},
		{base + "?dateFrom=2025-03-03", []string{e4.ID}},
		{base + "?search=BANANA", []string{e2.ID}},
		{base + "?search=note%20of%20apple", []string{e1.ID}},
		{base + "?search=%25", nil},
		{base + "?category=groceries", []string{e4.ID, e3.ID, e1.ID}}, // e4 through a split part
		{base + "?category=SHOPPING", []string{e4.ID, e2.ID}},
		{base + "?category=Yachts", nil},
		{base + "?category=Groceries&dateFrom=2025-03-02&sortBy=amount&sortOrder=asc", []string{e3.ID, e4.ID}},
		{base + "?payment_method=Cash", []string{e4.ID, e1.ID}},
		{base + "?payment_method=Account%20Debit", []string{e2.ID}},
		{base + "?cardId=" + c.ID, []string{e3.ID}},
		{base + "?accountId=" + acc.ID, []string{e2.ID}},
		{base + "?accountId=" + unknownID, nil},
		{base + "?limit=3&page=2", []string{e1.ID}},
		{base + "?limit=3&page=3", nil},
	} {
		items, _ := page[finance.Expense](t, alice, tt.url)
		if diff := cmp.Diff(tt.want, expenseIDs(items)); diff != "" && !(len(tt.want) == 0 && len(items) == 0) {
			t.Errorf("%s (-want +got):\n%s", tt.url, diff)
		}
	}
	items, p := page[finance.Expense](t, alice, base+"?limit=3")
	if p != (finance.Pagination{Page: 1, Limit: 3, TotalItems: 4, TotalPages: 2}) {
		t.Errorf("pagination %+v", p)
	}
	if !items[0].IsSplit || len(items[0].Splits) != 2 || items[0].Splits[0].Category != "Groceries" || *items[1].CardTransactionStatus != finance.CardUnbilled {
		t.Errorf("list items carry splits and card status: %+v", items[:2])
	}
	if _, p := page[finance.Expense](t, alice, base+"?category=Yachts"); p != (finance.Pagination{Page: 1, Limit: 20, TotalItems: 0, TotalPages: 0}) {
		t.Errorf("empty pagination %+v", p)
	}
	runScenarios(t, env, []apiScenario{
		alice.sc(apiScenario{name: "bad parameters", method: http.MethodGet,
			url:        base + "?status=all&payment_method=Bitcoin&cardId=x&accountId=y&dateFrom=2025-03-05&dateTo=2025-03-04&sortBy=category&page=0",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("status", "must be one of: active, voided", "payment_method", "must be one of: Cash, Account Debit, Credit Card",
				"cardId", "must be a UUID", "accountId", "must be a UUID", "dateFrom", "must not be after dateTo",
				"sortBy", "must be one of: date, amount, description, created_at", "page", "must be an integer from 1 to 10000000")}),
	})
}

func TestExpenseFormOptions(t *testing.T) {
	_, alice, bob := newSpendingEnv(t)
	acc := alice.createAccount(t, `{"name":"BPI","type":"checking","opening_balance":"10.01"}`)
	closed := alice.createAccount(t, `{"name":"Closed","type":"cash"}`)
	alice.archive(t, closed.ID)
	c := alice.createCard(t, `{"name":"Visa","credit_limit":"100.00","statement_day":1,"due_day":2}`)
	old := alice.createCard(t, `{"name":"Old","credit_limit":1,"statement_day":1,"due_day":2}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+old.ID, "", http.StatusOK)
	alice.createExpense(t, expenseBody(`"0.01"`, `"Credit Card","credit_card_id":"`+c.ID+`"`))
	alice.do(t, http.MethodDelete, "/api/v1/categories/"+categoryID(t, alice, "Travel"), "", http.StatusOK)
	bob.createAccount(t, `{"name":"Bob's","type":"cash"}`)

	res := alice.do(t, http.MethodGet, "/api/v1/expenses/form-options", "", http.StatusOK)
	var opts finance.ExpenseFormOptions
	res.decodeData(t, &opts)
	if diff := cmp.Diff([]string{"Cash", "Account Debit", "Credit Card"}, opts.PaymentMethods); diff != "" || opts.DefaultPaymentMethod != "Cash" {
		t.Errorf("methods (-want +got):\n%s default %q", diff, opts.DefaultPaymentMethod)
	}
	if diff := cmp.Diff([]finance.AccountOption{{ID: acc.ID, Name: "BPI", Type: finance.AccountChecking, Currency: "PHP", CurrentBalance: 10_01}}, opts.Accounts); diff != "" {
		t.Errorf("accounts (-want +got):\n%s", diff)
	}
	if len(opts.CreditCards) != 1 || opts.CreditCards[0].ID != c.ID || opts.CreditCards[0].AvailableCredit != 99_99 || opts.CreditCards[0].LastFour != nil {
		t.Errorf("credit_cards %+v", opts.CreditCards)
	}
	names := ids(opts.Categories, func(c finance.CategoryOption) string { return c.Name })
	if len(names) != 16 || strings.Contains(strings.Join(names, ","), "Travel") || strings.Contains(strings.Join(names, ","), "Salary") {
		t.Errorf("categories %v", names)
	}
	if rawField(t, res, "credit_cards") != `[{"id":"`+c.ID+`","name":"Visa","last_four":null,"currency":"PHP","available_credit":99.99}]` {
		t.Errorf("raw credit_cards %s", rawField(t, res, "credit_cards"))
	}
}

func TestExpenseSummary(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	acc := alice.createAccount(t, `{"name":"BPI","type":"savings"}`)
	c := alice.createCard(t, visaBody)
	exp := func(amount, date, category, method string) finance.Expense {
		return alice.createExpense(t, `{"amount":`+amount+`,"date":"`+date+`","description":"x","category":"`+category+`","payment_method":`+method+`}`)
	}
	// March: 0.10 + 0.20 cash groceries (exactly 0.30), a card purchase of
	// 5.00 (counted once, as its expense), and a split 3.00 = 1.00 groceries + 2.00 shopping.
	exp(`"0.10"`, "2025-03-01", "Groceries", `"Cash"`)
	exp(`"0.20"`, "2025-03-31", "Groceries", `"Cash"`)
	alice.createCardRow(t, `{"credit_card_id":"`+c.ID+`","type":"purchase","amount":5,"date":"2025-03-10","description":"p","category":"Shopping"}`)
	s := exp("3", "2025-03-15", "Transportation", `"Account Debit","account_id":"`+acc.ID+`"`)
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+s.ID+"/split",
		`{"parts":[{"amount":1,"category":"Groceries"},{"amount":2,"category":"Shopping"}]}`, http.StatusOK)
	// Not in March's expenses: voided, another month, another user.
	v := exp("100", "2025-03-02", "Groceries", `"Cash"`)
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+v.ID, "", http.StatusOK)
	exp("4", "2025-02-28", "Groceries", `"Cash"`)
	// March compares with February (the previous calendar month), not with
	// the 31 days before March, which would reach back to January 29.
	exp("50", "2025-01-30", "Groceries", `"Cash"`)
	exp("1000", "2025-04-01", "Groceries", `"Cash"`)
	bob.createExpense(t, expenseBody("77", `"Cash"`))
	// Card fees and interest add to spending, refunds subtract; billed ones
	// count, voided ones do not; a converted purchase is not double counted.
	card := `"credit_card_id":"` + c.ID + `"`
	alice.createCardRow(t, `{`+card+`,"type":"fee","amount":"1.50","date":"2025-03-05","description":"fee"}`)
	in := alice.createCardRow(t, `{`+card+`,"type":"interest","amount":"0.25","date":"2025-03-06","description":"interest"}`)
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, in.ID, finance.CardBilled)
	gone := alice.createCardRow(t, `{`+card+`,"type":"fee","amount":9,"date":"2025-03-05","description":"waived"}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+gone.ID, "", http.StatusOK)
	alice.createCardRow(t, `{`+card+`,"type":"refund","amount":"0.40","date":"2025-03-20","description":"r","category":"Shopping"}`)
	alice.createCardRow(t, `{`+card+`,"type":"fee","amount":7,"date":"2025-04-01","description":"next month"}`)
	insertCardRow(t, env, alice.user.ID, finance.CardTransaction{CreditCardID: c.ID, Type: finance.CardInstallment, Amount: 10_00,
		Date: finance.NewDate(2025, 3, 25), Description: "Installment 1", Status: finance.CardUnbilled,
		PrincipalPortion: ptr(finance.Money(9_00)), InterestPortion: ptr(finance.Money(1_00))})

	res := alice.do(t, http.MethodGet, "/api/v1/expenses/summary", "", http.StatusOK)
	groceries, shopping := categoryID(t, alice, "Groceries"), categoryID(t, alice, "Shopping")
	want := map[string]any{
		"date_from": "2025-03-01", "date_to": "2025-03-31", "currency": "PHP",
		"rates_as_of": nil, "missing_rates": []any{}, // one currency: nothing converted
		"total_expenses": 8.30, "count": 4, "daily_average": 0.27, // 8.30 / 31 = 0.2677...
		"by_category": []any{
			map[string]any{"category_id": shopping, "category": "Shopping", "amount": 7.00, "count": 2, "percent": 84.34},
			map[string]any{"category_id": groceries, "category": "Groceries", "amount": 1.30, "count": 3, "percent": 15.66},
		},
		"by_payment_method": []any{
			map[string]any{"payment_method": "Cash", "amount": 0.30, "count": 2},
			map[string]any{"payment_method": "Account Debit", "amount": 3.00, "count": 1},
			map[string]any{"payment_method": "Credit Card", "amount": 5.00, "count": 1},
		},
		"other_spending":  map[string]any{"card_fees_interest": 2.75, "loan_interest": 0, "card_refunds": 0.40},
		"total_spending":  10.65,
		"previous_period": map[string]any{"date_from": "2025-02-01", "date_to": "2025-02-28", "total_expenses": 4.00},
		"change_percent":  107.50,
	}
	if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, res.env.Data)); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	for path, digits := range map[string]string{"total_expenses": "8.30", "total_spending": "10.65", "change_percent": "107.50"} {
		if got := rawField(t, res, path); got != digits {
			t.Errorf("%s = %s, want %s", path, got, digits)
		}
	}

	// One day each; the day before 03-31 has no spending, so its change is null.
	res = alice.do(t, http.MethodGet, "/api/v1/expenses/summary?dateFrom=2025-03-01&dateTo=2025-03-01", "", http.StatusOK)
	res2 := alice.do(t, http.MethodGet, "/api/v1/expenses/summary?dateFrom=2025-03-31&dateTo=2025-03-31", "", http.StatusOK)
	if rawField(t, res, "total_expenses") != "0.10" || rawField(t, res2, "total_expenses") != "0.20" ||
		rawField(t, res, "change_percent") != "-97.50" || rawField(t, res2, "change_percent") != "null" {
		t.Errorf("one-day summaries: %s", res.raw)
	}
	res = alice.do(t, http.MethodGet, "/api/v1/expenses/summary?dateFrom=2025-03-01&dateTo=2025-03-02", "", http.StatusOK)
	if rawField(t, res, "total_expenses") != "0.10" || rawField(t, res, "previous_period") != `{"date_from":"2025-02-27","date_to":"2025-02-28","total_expenses":4.00}` ||
		rawField(t, res, "change_percent") != "-97.50" {
		t.Errorf("two-day summary: %s", res.raw)
	}
	res = alice.do(t, http.MethodGet, "/api/v1/expenses/summary?dateFrom=2025-03-31", "", http.StatusOK)
	if rawField(t, res, "total_expenses") != "0.20" || rawField(t, res, "by_category") != `[{"category_id":"`+groceries+`","category":"Groceries","amount":0.20,"count":1,"percent":100.00}]` {
		t.Errorf("open-ended summary: %s", res.raw)
	}
	runScenarios(t, env, []apiScenario{
		alice.sc(apiScenario{name: "from after to", method: http.MethodGet, url: "/api/v1/expenses/summary?dateFrom=2025-03-05&dateTo=2025-03-04",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("dateFrom", "must not be after dateTo")}),
		alice.sc(apiScenario{name: "from after the default to", method: http.MethodGet, url: "/api/v1/expenses/summary?dateFrom=2025-04-01",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("dateFrom", "must not be after dateTo (2025-03-31)")}),
		alice.sc(apiScenario{name: "bad date", method: http.MethodGet, url: "/api/v1/expenses/summary?dateTo=2025-03",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("dateTo", problemDate)}),
	})
}

func ptr[T any](v T) *T { return &v }

func TestExpenseRoutes(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	e := alice.createExpense(t, expenseBody("1", `"Cash"`))
	readKey := env.createKey(alice.user.ID, auth.ScopeRead)
	cardsKey := env.createKey(alice.user.ID, auth.ScopeCardsWrite)
	// Static segments win over {id}.
	for _, url := range []string{"/api/v1/expenses/summary", "/api/v1/expenses/form-options", "/api/v1/expenses/" + e.ID, "/api/v1/expenses"} {
		apiScenario{method: http.MethodGet, url: url, headers: bearer(readKey), wantStatus: http.StatusOK}.run(t, env)
	}
	runRejectedSpending(t, env, []ledgerUser{alice}, []apiScenario{
		{name: "finance:read cannot record", method: http.MethodPost, url: "/api/v1/expenses", body: expenseBody("1", `"Cash"`),
			headers: bearer(readKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "finance:read cannot void", method: http.MethodDelete, url: "/api/v1/expenses/" + e.ID,
			headers: bearer(readKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "credit_cards:write cannot record", method: http.MethodPost, url: "/api/v1/expenses/bulk", body: `{"items":[]}`,
			headers: bearer(cardsKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "credit_cards:write cannot read expenses", method: http.MethodGet, url: "/api/v1/expenses/summary",
			headers: bearer(cardsKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "credit_cards:write cannot split", method: http.MethodPost, url: "/api/v1/expenses/" + e.ID + "/split", body: `{"parts":[]}`,
			headers: bearer(cardsKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
	})
}

// A page of 50 typical expenses (most Cash, a quarter from an account, some
// with notes, one split) leaves out every field without a value: 19,672
// bytes, where writing a dozen nulls an item made it 33,867. A field with a
// value is still there, and a single read has the same shape.
func TestExpensePageLeavesOutFieldsWithoutValue(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	acc := alice.createAccount(t, `{"name":"BPI Savings","type":"savings","opening_balance":100000}`)
	categories := []string{"Food & Dining", "Groceries", "Transportation", "Utilities", "Shopping"}
	var items []string
	for i := range 50 {
		item := fmt.Sprintf(`{"amount":"%d.%02d","date":"2025-03-%02d","description":"Groceries run %d","category":%q`,
			100+i*37, i%100, 1+i%10, i, categories[i%len(categories)])
		switch {
		case i%4 == 0:
			item += `,"payment_method":"Account Debit","account_id":"` + acc.ID + `"`
		case i%10 == 3:
			item += `,"payment_method":"Cash","notes":"with the team"`
		default:
			item += `,"payment_method":"Cash"`
		}
		items = append(items, item+"}")
	}
	alice.do(t, http.MethodPost, "/api/v1/expenses/bulk", `{"items":[`+strings.Join(items, ",")+`]}`, http.StatusCreated)
	listed, _ := page[finance.Expense](t, alice, "/api/v1/expenses?limit=50")
	split := listed[len(listed)-1]
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+split.ID+"/split",
		`{"parts":[{"amount":"50.00","category":"Groceries"},{"amount":"50.00","category":"Food & Dining"}]}`, http.StatusOK)
	voided := alice.createExpense(t, expenseBody(`"12.00"`, `"Cash"`))
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+voided.ID, "", http.StatusOK)

	res := alice.do(t, http.MethodGet, "/api/v1/expenses?limit=50", "", http.StatusOK)
	const maxPage = 20_000 // bytes; the page's size does not vary (ids, stamps and amounts are fixed-width here)
	if len(res.raw) > maxPage {
		t.Errorf("a 50-item page is %d bytes, want at most %d", len(res.raw), maxPage)
	}
	t.Logf("a 50-item page of typical expenses: %d bytes", len(res.raw))
	var data struct {
		Items      []map[string]json.RawMessage `json:"items"`
		Pagination map[string]int               `json:"pagination"`
	}
	res.decodeData(t, &data)
	if len(data.Items) != 50 || data.Pagination["total_items"] != 50 || data.Pagination["total_pages"] != 1 {
		t.Fatalf("%d items, pagination %v", len(data.Items), data.Pagination)
	}
	stored := map[string]finance.Expense{}
	for _, e := range snapshotSpending(t, env, alice.user.ID).Expenses {
		stored[e.ID] = e
	}
	always := []string{"id", "amount", "currency", "date", "description", "payment_method", "status", "source", "created_at", "updated_at"}
	for _, item := range data.Items {
		var id string
		_ = json.Unmarshal(item["id"], &id)
		e, ok := stored[id]
		if !ok {
			t.Fatalf("item %s is not a stored expense", id)
		}
		want := map[string]bool{"category_id": e.CategoryID != nil, "category": e.Category != nil,
			"account_id": e.AccountID != nil, "account_name": e.AccountID != nil, "account_transaction_id": e.AccountTransactionID != nil,
			"notes": e.Notes != nil, "is_split": e.IsSplit, "splits": e.IsSplit, "original_amount": false, "original_currency": false,
			"credit_card_id": false, "credit_card_name": false, "card_transaction_id": false, "card_transaction_status": false,
			"bill_payment_id": false, "voided_at": false}
		for _, name := range always {
			want[name] = true
		}
		for name, present := range want {
			if _, got := item[name]; got != present {
				t.Errorf("%s (%s): %s present = %v, want %v", e.Description, e.PaymentMethod, name, got, present)
			}
		}
		for name, v := range item {
			if _, known := want[name]; !known {
				t.Errorf("%s: unexpected field %s = %s", e.Description, name, v)
			}
			if string(v) == "null" || string(v) == "[]" || string(v) == "false" {
				t.Errorf("%s: %s is %s, want it left out", e.Description, name, v)
			}
		}
		if e.ID == split.ID && (string(item["is_split"]) != "true" || bytes.Count(item["splits"], []byte(`"category_id"`)) != 2) {
			t.Errorf("the split expense: is_split %s, splits %s", item["is_split"], item["splits"])
		}
	}
	// A single read has the same shape, and a voided expense says when.
	one := alice.do(t, http.MethodGet, "/api/v1/expenses/"+voided.ID, "", http.StatusOK)
	if rawField(t, one, "voided_at") == absent || rawField(t, one, "status") != `"voided"` || rawField(t, one, "account_id") != absent {
		t.Errorf("voided expense: %s", one.env.Data)
	}
}
