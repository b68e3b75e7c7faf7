package server

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
)

func TestCardTransactionCreate(t *testing.T) {
	_, alice, _ := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	card := `"credit_card_id":"` + c.ID + `"`

	// A purchase creates its expense: method Credit Card, same amount, date
	// and description, the given category.
	res := alice.do(t, http.MethodPost, "/api/v1/credit-cards/transactions",
		`{`+card+`,"type":"purchase","amount":"1234.50","date":"2025-04-02","description":" Shoes ","category":"shopping"}`,
		http.StatusCreated)
	var p finance.CardTransaction
	res.decodeData(t, &p)
	if res.message() != "Card transaction created" || rawField(t, res, "amount") != "1234.50" {
		t.Errorf("%s, amount %s", res.message(), rawField(t, res, "amount"))
	}
	if p.Type != finance.CardPurchase || p.Status != finance.CardUnbilled || p.ExpenseID == nil || p.Category == nil ||
		*p.Category != "Shopping" || p.CategoryID == nil || p.CreditCardName != "Visa" || p.Description != "Shoes" ||
		!p.IsFuture || p.SOAID != nil || p.IsSOALine {
		t.Errorf("purchase %+v", p)
	}
	e := alice.getExpense(t, *p.ExpenseID)
	want := finance.Expense{ID: e.ID, Amount: 1234_50, Currency: "PHP", Date: finance.NewDate(2025, 4, 2), Description: "Shoes",
		CategoryID: p.CategoryID, Category: p.Category, PaymentMethod: finance.MethodCreditCard, CreditCardID: &c.ID,
		CreditCardName: &c.Name, Status: finance.StatusActive, Source: finance.ExpenseManual,
		CardTransactionID: &p.ID, CardTransactionStatus: &p.Status, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
	if diff := cmp.Diff(want, e, equateDates); diff != "" {
		t.Errorf("the purchase's expense (-want +got):\n%s", diff)
	}
	if got := alice.getCardRow(t, p.ID); got.Category == nil || *got.Category != "Shopping" || *got.ExpenseID != e.ID {
		t.Errorf("read back %+v", got)
	}

	// Fee and interest: no category, no expense. Refund: its own category.
	fee := alice.createCardRow(t, `{`+card+`,"type":"fee","amount":10,"date":"2025-03-01","description":"Annual fee","category":null}`)
	interest := alice.createCardRow(t, `{`+card+`,"type":"interest","amount":"0.01","date":"2025-03-01","description":"Interest"}`)
	refund := alice.createCardRow(t, `{`+card+`,"type":"refund","amount":5,"date":"2025-03-02","description":"Return","category":"Groceries"}`)
	if fee.ExpenseID != nil || fee.Category != nil || interest.Category != nil || interest.Amount != 1 {
		t.Errorf("fee %+v, interest %+v", fee, interest)
	}
	if refund.ExpenseID != nil || refund.Category == nil || *refund.Category != "Groceries" {
		t.Errorf("refund %+v", refund)
	}
	if got := alice.getCardRow(t, refund.ID); got.Category == nil || *got.Category != "Groceries" || got.CategoryID == nil {
		t.Errorf("refund read back %+v", got)
	}
	expenses, _ := page[finance.Expense](t, alice, "/api/v1/expenses")
	if diff := cmp.Diff([]string{e.ID}, expenseIDs(expenses)); diff != "" {
		t.Errorf("only the purchase has an expense (-want +got):\n%s", diff)
	}
	if got := alice.getCard(t, c.ID); got.OutstandingBalance.String() != "1239.51" || got.UnbilledTotal.String() != "1239.51" {
		t.Errorf("card figures: outstanding %s, unbilled %s", got.OutstandingBalance, got.UnbilledTotal)
	}
}

func TestCardTransactionCreateRejected(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	old := alice.createCard(t, `{"name":"Old","credit_limit":1000,"statement_day":1,"due_day":2}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+old.ID, "", http.StatusOK)
	bobs := bob.createCard(t, visaBody)
	alice.do(t, http.MethodDelete, "/api/v1/categories/"+categoryID(t, alice, "Travel"), "", http.StatusOK)
	post := func(name, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: "/api/v1/credit-cards/transactions", body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	row := func(cardID, rest string) string {
		return `{"credit_card_id":"` + cardID + `","amount":10,"date":"2025-03-01","description":"x",` + rest + `}`
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		post("empty object", `{}`, fieldsOf("credit_card_id", problemRequired, "type", problemRequired,
			"amount", problemRequired, "date", problemRequired, "description", problemRequired)),
		post("installment is system-only", row(c.ID, `"type":"installment"`),
			fieldsOf("type", "installment rows are created only by installment plans; use purchase, fee, interest or refund")),
		post("unknown type", row(c.ID, `"type":"payment"`), fieldsOf("type", "must be one of: purchase, fee, interest, refund")),
		post("purchase without category", row(c.ID, `"type":"purchase"`), fieldsOf("category", problemRequired)),
		post("refund without category", row(c.ID, `"type":"refund","category":" "`), fieldsOf("category", problemRequired)),
		post("fee with a category", row(c.ID, `"type":"fee","category":"Groceries"`),
			fieldsOf("category", "must be absent for fee transactions; they count under Card Fees & Interest")),
		post("interest with a category", row(c.ID, `"type":"interest","category":"Groceries"`),
			fieldsOf("category", "must be absent for interest transactions; they count under Card Fees & Interest")),
		post("bad money and date", `{"credit_card_id":"`+c.ID+`","type":"fee","amount":"10.505","date":"2025-02-30","description":"x"}`,
			fieldsOf("amount", problemMoney, "date", problemDate)),
		post("zero amount", `{"credit_card_id":"`+c.ID+`","type":"fee","amount":0,"date":"2025-03-01","description":"x"}`,
			fieldsOf("amount", problemPositive)),
		post("malformed card id", row("abc", `"type":"fee"`), fieldsOf("credit_card_id", problemCard)),
		post("unknown card", row(unknownID, `"type":"fee"`), fieldsOf("credit_card_id", problemCard)),
		post("another user's card", row(bobs.ID, `"type":"fee"`), fieldsOf("credit_card_id", problemCard)),
		post("archived card", row(old.ID, `"type":"purchase","category":"Groceries"`), fieldsOf("credit_card_id", problemCard)),
		post("unknown category", row(c.ID, `"type":"purchase","category":"Yachts"`), fieldsOf("category", problemCategory)),
		post("archived category", row(c.ID, `"type":"refund","category":"travel"`), fieldsOf("category", problemCategory)),
		post("income category", row(c.ID, `"type":"purchase","category":"Salary"`), fieldsOf("category", problemCategory)),
		post("card and category both wrong", row(old.ID, `"type":"purchase","category":"Yachts"`),
			fieldsOf("credit_card_id", problemCard, "category", problemCategory)),
	})
}

// categoryID finds one of u's categories by exact name.
func categoryID(t testing.TB, u ledgerUser, name string) string {
	t.Helper()
	cats, _ := page[finance.Category](t, u, "/api/v1/categories?limit=100&status=all")
	for _, c := range cats {
		if c.Name == name {
			return c.ID
		}
	}
	t.Fatalf("no category %q", name)
	return ""
}

func TestCardTransactionUpdate(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	other := alice.createCard(t, `{"name":"Other","credit_limit":1000,"statement_day":1,"due_day":2}`)
	card := `"credit_card_id":"` + c.ID + `"`
	p := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":100,"date":"2025-03-01","description":"Shoes","category":"Shopping"}`)

	// Money, description and card follow to the expense; the row keeps its id.
	res := alice.do(t, http.MethodPut, "/api/v1/credit-cards/transactions/"+p.ID,
		`{"amount":"90.10","date":"2025-03-02","description":"Shoes (sale)","credit_card_id":"`+other.ID+`","type":"purchase"}`, http.StatusOK)
	var got finance.CardTransaction
	res.decodeData(t, &got)
	if got.ID != p.ID || got.Amount != 90_10 || got.Date.String() != "2025-03-02" || got.Description != "Shoes (sale)" ||
		got.CreditCardID != other.ID || got.CreditCardName != "Other" || *got.Category != "Shopping" {
		t.Errorf("updated purchase %+v", got)
	}
	e := alice.getExpense(t, *p.ExpenseID)
	if e.Amount != 90_10 || e.Date.String() != "2025-03-02" || e.Description != "Shoes (sale)" || *e.CreditCardID != other.ID {
		t.Errorf("the purchase's expense %+v", e)
	}
	if alice.getCard(t, c.ID).OutstandingBalance != 0 || alice.getCard(t, other.ID).OutstandingBalance != 90_10 {
		t.Error("the purchase did not move to the other card")
	}
	// The category lives on the expense; naming one removes a split.
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+e.ID+"/split",
		`{"parts":[{"amount":"50.10","category":"Shopping"},{"amount":40,"category":"Groceries"}]}`, http.StatusOK)
	if row := alice.getCardRow(t, p.ID); row.Category != nil || row.CategoryID != nil {
		t.Errorf("a split purchase has no single category: %+v", row)
	}
	res = alice.do(t, http.MethodPut, "/api/v1/credit-cards/transactions/"+p.ID, `{"category":"groceries","amount":95}`, http.StatusOK)
	res.decodeData(t, &got)
	if *got.Category != "Groceries" || got.Amount != 95_00 {
		t.Errorf("recategorized purchase %+v", got)
	}
	if e = alice.getExpense(t, e.ID); e.IsSplit || len(e.Splits) != 0 || *e.Category != "Groceries" || e.Amount != 95_00 {
		t.Errorf("the expense after the category change %+v", e)
	}

	// A refund keeps its category on the row.
	refund := alice.createCardRow(t, `{`+card+`,"type":"refund","amount":5,"date":"2025-03-02","description":"Return","category":"Groceries"}`)
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/transactions/"+refund.ID, `{"category":"Shopping"}`, http.StatusOK).decodeData(t, &got)
	if *got.Category != "Shopping" {
		t.Errorf("refund category %v", got.Category)
	}

	// A billed row: description and category only.
	billed := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":70,"date":"2025-02-01","description":"Old","category":"Shopping"}`)
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, billed.ID, finance.CardBilled)
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/transactions/"+billed.ID,
		`{"description":"Old shoes","category":"Groceries","amount":70,"date":"2025-02-01"}`, http.StatusOK).decodeData(t, &got)
	if got.Description != "Old shoes" || *got.Category != "Groceries" || got.Status != finance.CardBilled {
		t.Errorf("billed row %+v", got)
	}
	if e := alice.getExpense(t, *billed.ExpenseID); e.Description != "Old shoes" || *e.Category != "Groceries" {
		t.Errorf("billed row's expense %+v", e)
	}

	// Rows already on an archived card can still be edited.
	fee := alice.createCardRow(t, `{`+card+`,"type":"fee","amount":10,"date":"2025-03-01","description":"Fee"}`)
	alice.do(t, http.MethodPatch, "/api/v1/credit-cards/"+c.ID+"/archive", "", http.StatusOK)
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/transactions/"+fee.ID, `{"amount":12}`, http.StatusOK).decodeData(t, &got)
	if got.Amount != 12_00 {
		t.Errorf("fee on an archived card: %+v", got)
	}

	installment := insertCardRow(t, env, alice.user.ID, finance.CardTransaction{CreditCardID: other.ID, Type: finance.CardInstallment,
		Amount: 1000, Date: finance.NewDate(2025, 3, 1), Description: "Installment 1 of 3", Status: finance.CardUnbilled})
	// Dated today: a row of a past period would join its unpaid statement.
	voided := alice.createCardRow(t, `{"credit_card_id":"`+other.ID+`","type":"fee","amount":1,"date":"2025-03-11","description":"x"}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+voided.ID, "", http.StatusOK)
	converted := alice.createCardRow(t, `{"credit_card_id":"`+other.ID+`","type":"purchase","amount":300,"date":"2025-03-01","description":"TV","category":"Shopping"}`)
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, converted.ID, finance.CardConverted)

	put := func(name, id, body string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPut, url: "/api/v1/credit-cards/transactions/" + id, body: body,
			wantStatus: status, wantCode: code, wantFields: fields})
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		put("amount of a billed row", billed.ID, `{"amount":71}`, http.StatusBadRequest, CodeInvalidStatus, nil),
		put("date of a billed row", billed.ID, `{"date":"2025-02-02"}`, http.StatusBadRequest, CodeInvalidStatus, nil),
		put("card of a converted row", converted.ID, `{"credit_card_id":"`+c.ID+`"}`, http.StatusBadRequest, CodeInvalidStatus, nil),
		put("a voided row", voided.ID, `{"description":"y"}`, http.StatusBadRequest, CodeInvalidStatus, nil),
		put("an installment row", installment.ID, `{"description":"y"}`, http.StatusBadRequest, CodeInvalidStatus, nil),
		put("type change", fee.ID, `{"type":"interest"}`, http.StatusBadRequest, CodeValidation,
			fieldsOf("type", "cannot change; void the transaction and create a new one")),
		put("category on a fee", fee.ID, `{"category":"Groceries"}`, http.StatusBadRequest, CodeValidation,
			fieldsOf("category", "must be absent for fee transactions; they count under Card Fees & Interest")),
		put("null category on a purchase", p.ID, `{"category":null}`, http.StatusBadRequest, CodeValidation, fieldsOf("category", problemRequired)),
		put("to an archived card", p.ID, `{"credit_card_id":"`+c.ID+`"}`, http.StatusBadRequest, CodeValidation, fieldsOf("credit_card_id", problemCard)),
		put("unknown category", p.ID, `{"category":"Yachts"}`, http.StatusBadRequest, CodeValidation, fieldsOf("category", problemCategory)),
		put("bad body on a billed row", billed.ID, `{"amount":-1}`, http.StatusBadRequest, CodeValidation, fieldsOf("amount", problemPositive)),
		put("unknown row", unknownID, `{"description":"y"}`, http.StatusNotFound, CodeNotFound, nil),
		bob.sc(apiScenario{name: "another user's row", method: http.MethodPut, url: "/api/v1/credit-cards/transactions/" + p.ID,
			body: `{"description":"mine"}`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's row with malformed JSON", method: http.MethodPut, url: "/api/v1/credit-cards/transactions/" + p.ID,
			body: `[`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
}

// insertCardRow stores a card row the way installment plans and statements
// will (they are not built yet): straight in the store.
func insertCardRow(t testing.TB, env *testEnv, userID string, ct finance.CardTransaction) finance.CardTransaction {
	t.Helper()
	ct.ID = finance.NewID()
	ct.CreatedAt, ct.UpdatedAt = ledgerNow, ledgerNow
	err := env.db.Write(context.Background(), func(tx finance.Repo) error {
		return tx.InsertCardTransaction(context.Background(), userID, ct)
	})
	if err != nil {
		t.Fatalf("insert card row: %v", err)
	}
	return ct
}

func TestCardTransactionVoid(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	card := `"credit_card_id":"` + c.ID + `"`
	p := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":100,"date":"2025-03-01","description":"Shoes","category":"Shopping"}`)

	res := alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+p.ID, "", http.StatusOK)
	var got finance.CardTransaction
	res.decodeData(t, &got)
	if res.message() != "Card transaction voided" || got.Status != finance.StatusVoided || got.VoidedAt == nil {
		t.Errorf("voided row %+v", got)
	}
	if e := alice.getExpense(t, *p.ExpenseID); e.Status != finance.StatusVoided || e.VoidedAt == nil ||
		*e.CardTransactionStatus != finance.StatusVoided {
		t.Errorf("the purchase's expense %+v", e)
	}
	if got := alice.getCard(t, c.ID); got.OutstandingBalance != 0 {
		t.Errorf("outstanding after the void %s", got.OutstandingBalance)
	}

	billed := alice.createCardRow(t, `{`+card+`,"type":"fee","amount":1,"date":"2025-03-01","description":"x"}`)
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, billed.ID, finance.CardBilled)
	converted := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":300,"date":"2025-03-01","description":"TV","category":"Shopping"}`)
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, converted.ID, finance.CardConverted)
	installment := insertCardRow(t, env, alice.user.ID, finance.CardTransaction{CreditCardID: c.ID, Type: finance.CardInstallment,
		Amount: 1000, Date: finance.NewDate(2025, 3, 1), Description: "Installment 1 of 3", Status: finance.CardUnbilled})
	del := func(name, id string, status int, code string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodDelete, url: "/api/v1/credit-cards/transactions/" + id,
			wantStatus: status, wantCode: code})
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		del("already voided", p.ID, http.StatusBadRequest, CodeInvalidStatus),
		del("billed", billed.ID, http.StatusBadRequest, CodeInvalidStatus),
		del("converted", converted.ID, http.StatusBadRequest, CodeInvalidStatus),
		del("installment row", installment.ID, http.StatusBadRequest, CodeInvalidStatus),
		del("malformed id", "x", http.StatusNotFound, CodeNotFound),
		bob.sc(apiScenario{name: "another user's row", method: http.MethodDelete, url: "/api/v1/credit-cards/transactions/" + billed.ID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})

	// Voiding a row of an archived card reverses history, so it is allowed.
	fee := alice.createCardRow(t, `{`+card+`,"type":"fee","amount":1,"date":"2025-03-01","description":"x"}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+c.ID, "", http.StatusOK)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+fee.ID, "", http.StatusOK)
}

func TestCardTransactionList(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	other := alice.createCard(t, `{"name":"Other","credit_limit":1000,"statement_day":1,"due_day":2}`)
	card := `"credit_card_id":"` + c.ID + `"`
	p1 := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":30,"date":"2025-03-01","description":"Weekly groceries","category":"Groceries"}`)
	p2 := alice.createCardRow(t, `{"credit_card_id":"`+other.ID+`","type":"purchase","amount":10,"date":"2025-03-03","description":"Shirt","category":"Shopping"}`)
	fee := alice.createCardRow(t, `{`+card+`,"type":"fee","amount":20,"date":"2025-03-02","description":"Late fee"}`)
	refund := alice.createCardRow(t, `{`+card+`,"type":"refund","amount":5,"date":"2025-03-04","description":"Returned milk","category":"groceries"}`)
	billed := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":40,"date":"2025-02-01","description":"Old","category":"Shopping"}`)
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, billed.ID, finance.CardBilled)
	voided := alice.createCardRow(t, `{`+card+`,"type":"interest","amount":50,"date":"2025-03-05","description":"x"}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+voided.ID, "", http.StatusOK)
	split := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":60,"date":"2025-03-06","description":"Mall","category":"Shopping"}`)
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+*split.ExpenseID+"/split",
		`{"parts":[{"amount":40,"category":"Shopping"},{"amount":20,"category":"Groceries"}]}`, http.StatusOK)
	bob.createCardRow(t, `{"credit_card_id":"`+bob.createCard(t, visaBody).ID+`","type":"fee","amount":1,"date":"2025-03-01","description":"x"}`)

	base := "/api/v1/credit-cards/transactions"
	for _, tt := range []struct {
		url  string
		want []string
	}{
		{base, []string{split.ID, refund.ID, p2.ID, fee.ID, p1.ID, billed.ID}},
		{base + "?status=voided", []string{voided.ID}},
		{base + "?status=billed", []string{billed.ID}},
		{base + "?type=purchase&sortBy=amount&sortOrder=asc", []string{p2.ID, p1.ID, billed.ID, split.ID}},
		{base + "?cardId=" + other.ID, []string{p2.ID}},
		{base + "?cardId=" + unknownID, nil},
		{base + "?dateFrom=2025-03-02&dateTo=2025-03-03", []string{p2.ID, fee.ID}},
		{base + "?search=GROCER", []string{p1.ID}},
		// A purchase matches through its expense (or a split part), a refund through its own category.
		{base + "?category=GROCERIES", []string{split.ID, refund.ID, p1.ID}},
		{base + "?category=Yachts", nil},
		{base + "?limit=2&page=2", []string{p2.ID, fee.ID}},
	} {
		items, _ := page[finance.CardTransaction](t, alice, tt.url)
		if diff := cmp.Diff(tt.want, cardRowIDs(items)); diff != "" && !(len(tt.want) == 0 && len(items) == 0) {
			t.Errorf("%s (-want +got):\n%s", tt.url, diff)
		}
	}
	_, p := page[finance.CardTransaction](t, alice, base+"?limit=4")
	if p != (finance.Pagination{Page: 1, Limit: 4, TotalItems: 6, TotalPages: 2}) {
		t.Errorf("pagination %+v", p)
	}
	runScenarios(t, env, []apiScenario{
		alice.sc(apiScenario{name: "bad filters", method: http.MethodGet,
			url:        base + "?status=open&type=payment&cardId=abc&dateFrom=2025-13-01&sortBy=description",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("status", "must be one of: unbilled, billed, converted, voided",
				"type", "must be one of: purchase, fee, interest, refund, installment", "cardId", "must be a UUID",
				"dateFrom", problemDate, "sortBy", "must be one of: date, amount, created_at")}),
		alice.sc(apiScenario{name: "malformed id", method: http.MethodGet, url: base + "/nope",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Card transaction not found"}),
		bob.sc(apiScenario{name: "another user's row", method: http.MethodGet, url: base + "/" + p1.ID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
}
