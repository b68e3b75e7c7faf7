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
	"github.com/finance-app/finance/internal/testkit"
)

// Helpers shared by the card, card transaction and expense tests.

// newSpendingEnv is newLedgerEnv with keys holding expenses:write,
// credit_cards:write, accounts:write and settings:write (to archive
// categories): today is 2025-03-11 in the users' timezone.
func newSpendingEnv(t *testing.T) (env *testEnv, alice, bob ledgerUser) {
	t.Helper()
	env = newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	mk := func() ledgerUser {
		u := env.createUser(finance.PlanPro)
		return ledgerUser{env: env, user: u,
			key: env.createKey(u.ID, auth.ScopeExpensesWrite, auth.ScopeCardsWrite, auth.ScopeAccountsWrite, auth.ScopeSettingsWrite)}
	}
	return env, mk(), mk()
}

func (u ledgerUser) createCard(t testing.TB, body string) finance.CreditCard {
	t.Helper()
	return send[finance.CreditCard](t, u, http.MethodPost, "/api/v1/credit-cards", body, http.StatusCreated)
}

func (u ledgerUser) getCard(t testing.TB, id string) finance.CreditCard {
	t.Helper()
	return send[finance.CreditCard](t, u, http.MethodGet, "/api/v1/credit-cards/"+id, "", http.StatusOK)
}

func (u ledgerUser) createExpense(t testing.TB, body string) finance.Expense {
	t.Helper()
	return send[finance.Expense](t, u, http.MethodPost, "/api/v1/expenses", body, http.StatusCreated)
}

func (u ledgerUser) getExpense(t testing.TB, id string) finance.Expense {
	t.Helper()
	return send[finance.Expense](t, u, http.MethodGet, "/api/v1/expenses/"+id, "", http.StatusOK)
}

func (u ledgerUser) createCardRow(t testing.TB, body string) finance.CardTransaction {
	t.Helper()
	return send[finance.CardTransaction](t, u, http.MethodPost, "/api/v1/credit-cards/transactions", body, http.StatusCreated)
}

func (u ledgerUser) getCardRow(t testing.TB, id string) finance.CardTransaction {
	t.Helper()
	return send[finance.CardTransaction](t, u, http.MethodGet, "/api/v1/credit-cards/transactions/"+id, "", http.StatusOK)
}

// page decodes a list response at url into items.
func page[T any](t testing.TB, u ledgerUser, url string) ([]T, finance.Pagination) {
	t.Helper()
	p := send[finance.Page[T]](t, u, http.MethodGet, url, "", http.StatusOK)
	return p.Items, p.Pagination
}

// ids returns the ids of items, in order.
func ids[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = id(it)
	}
	return out
}

func expenseIDs(items []finance.Expense) []string {
	return ids(items, func(e finance.Expense) string { return e.ID })
}

func cardRowIDs(items []finance.CardTransaction) []string {
	return ids(items, func(t finance.CardTransaction) string { return t.ID })
}

// spendingState is everything the ledger holds for one user, cards and
// expenses included, read straight from the store.
type spendingState struct {
	Ledger   ledgerState
	Cards    []finance.CreditCard
	CardRows []finance.CardTransaction
	Expenses []finance.Expense
}

func snapshotSpending(t testing.TB, env *testEnv, userID string) spendingState {
	t.Helper()
	ctx := context.Background()
	repo := env.db.Read()
	all := finance.ListParams{Page: 1, Limit: 10_000, SortBy: "created_at"}
	st := spendingState{Ledger: snapshotLedger(t, env, userID)}
	var err error
	if st.Cards, _, err = repo.ListCreditCards(ctx, userID, finance.CardFilter{Status: finance.StatusAll}, finance.ListParams{Page: 1, Limit: 10_000, SortBy: "name"}, finance.NewDate(2025, 3, 11)); err != nil {
		t.Fatalf("ListCreditCards: %v", err)
	}
	for _, status := range finance.CardStatuses {
		rows, _, err := repo.ListCardTransactions(ctx, userID, finance.CardTransactionFilter{Status: status}, all)
		if err != nil {
			t.Fatalf("ListCardTransactions: %v", err)
		}
		st.CardRows = append(st.CardRows, rows...)
	}
	for _, status := range finance.ExpenseStatuses {
		rows, _, err := repo.ListExpenses(ctx, userID, "PHP", finance.ExpenseFilter{Status: status}, all)
		if err != nil {
			t.Fatalf("ListExpenses: %v", err)
		}
		st.Expenses = append(st.Expenses, rows...)
	}
	return st
}

// runRejectedSpending runs scenarios that must fail and checks after each
// that neither user's data changed, cards and expenses included.
func runRejectedSpending(t *testing.T, env *testEnv, users []ledgerUser, scenarios []apiScenario) {
	t.Helper()
	runUnchanged(t, env, users, snapshotSpending, scenarios)
}

const (
	problemCard     = "must be the id of one of your active credit cards"
	problemCategory = "must be the name of an active expense category"
	unknownID       = "01956a3e-7d2c-7b4e-9a1f-3c5d7e9f1a2b"
)

const visaBody = `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5}`

func TestCardCreateAndGet(t *testing.T) {
	_, alice, bob := newSpendingEnv(t)
	res := alice.do(t, http.MethodPost, "/api/v1/credit-cards",
		`{"name":"  BPI Gold ","bank":"BPI","last_four":"4321","credit_limit":"80000.50","statement_day":31,"due_day":"5",
		  "cycle_start_date":"2024-01-15","minimum_due_percent":"3.5","minimum_due_floor":0,"notes":" main card ",
		  "status":"archived","outstanding_balance":99,"id":"x"}`, http.StatusCreated)
	if res.message() != "Credit card created" {
		t.Errorf("message = %q", res.message())
	}
	var c finance.CreditCard
	res.decodeData(t, &c)
	want := map[string]any{
		"id": c.ID, "name": "BPI Gold", "bank": "BPI", "last_four": "4321", "credit_limit": 80000.50, "currency": "PHP",
		"statement_day": 31, "due_day": 5, "cycle_start_date": "2024-01-15", "minimum_due_percent": 3.5, "foreign_fee_percent": 0,
		"minimum_due_floor": 0, "notes": "main card", "status": "active",
		"created_at": ledgerStamp, "updated_at": ledgerStamp,
		"outstanding_balance": 0, "available_credit": 80000.50, "utilization_percent": 0, "unbilled_total": 0,
		"open_statement_balance": 0, "next_statement_date": "2025-03-31", "open_soa_count": 0,
	}
	if diff := cmp.Diff(jsonValue(t, want), jsonValue(t, res.env.Data)); diff != "" {
		t.Errorf("created card (-want +got):\n%s", diff)
	}
	for path, digits := range map[string]string{"credit_limit": "80000.50", "available_credit": "80000.50",
		"minimum_due_floor": "0.00", "utilization_percent": "0.00", "minimum_due_percent": "3.5"} {
		if got := rawField(t, res, path); got != digits {
			t.Errorf("%s = %s, want %s", path, got, digits)
		}
	}
	got := alice.getCard(t, c.ID)
	if got.Name != "BPI Gold" || got.CycleStartDate.String() != "2024-01-15" || got.MinimumDuePercent.String() != "3.5" {
		t.Errorf("read back %+v", got)
	}

	// Defaults: cycle start today, 3%, 500.00; the next statement date is the
	// first statement day on or after today.
	d := alice.createCard(t, `{"name":"Visa","credit_limit":1000,"statement_day":5,"due_day":25}`)
	if d.CycleStartDate.String() != ledgerToday || d.MinimumDuePercent.String() != "3" ||
		d.MinimumDueFloor.String() != "500.00" || d.NextStatementDate.String() != "2025-04-05" {
		t.Errorf("defaults: cycle %s, percent %s, floor %s, next statement %s", d.CycleStartDate, d.MinimumDuePercent,
			d.MinimumDueFloor, d.NextStatementDate)
	}
	if today := alice.createCard(t, `{"name":"Today","credit_limit":1000,"statement_day":11,"due_day":1}`); today.NextStatementDate.String() != ledgerToday {
		t.Errorf("statement day today: next statement %s, want %s", today.NextStatementDate, ledgerToday)
	}

	// Not found: malformed, unknown, another user's.
	runScenarios(t, alice.env, []apiScenario{
		alice.sc(apiScenario{name: "malformed id", method: http.MethodGet, url: "/api/v1/credit-cards/nope",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Credit card not found"}),
		alice.sc(apiScenario{name: "unknown id", method: http.MethodGet, url: "/api/v1/credit-cards/" + unknownID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's card", method: http.MethodGet, url: "/api/v1/credit-cards/" + c.ID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
}

func TestCardCreateRejected(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	alice.createCard(t, visaBody)
	post := func(name, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: "/api/v1/credit-cards", body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		post("empty object", `{}`, fieldsOf("name", problemRequired, "credit_limit", problemRequired,
			"statement_day", problemRequired, "due_day", problemRequired)),
		post("duplicate name, other case", `{"name":" VISA ","credit_limit":1,"statement_day":1,"due_day":1}`,
			fieldsOf("name", "is already used by another active credit card")),
		post("bad values", `{"name":"X","credit_limit":0,"statement_day":0,"due_day":32,"last_four":"12a4",
			"minimum_due_percent":0,"minimum_due_floor":-1,"bank":"`+strings.Repeat("b", 101)+`"}`,
			fieldsOf("credit_limit", problemPositive, "statement_day", "must be an integer from 1 to 31",
				"due_day", "must be an integer from 1 to 31", "last_four", "must be exactly 4 digits",
				"minimum_due_percent", "must be a percent greater than 0 and at most 100, with at most 4 decimal places",
				"minimum_due_floor", "must be 0 or greater", "bank", "must be at most 100 characters")),
		post("ill-typed values", `{"name":5,"credit_limit":"1e3","statement_day":1.5,"due_day":"x","minimum_due_percent":"1.23456",
			"cycle_start_date":"2025-2-3"}`,
			fieldsOf("name", "must be a string", "credit_limit", problemMoney, "statement_day", "must be an integer",
				"due_day", "must be an integer",
				"minimum_due_percent", "must be a percent greater than 0 and at most 100, with at most 4 decimal places",
				"cycle_start_date", problemDate)),
		post("percent over 100", `{"name":"X","credit_limit":1,"statement_day":1,"due_day":1,"minimum_due_percent":100.5}`,
			fieldsOf("minimum_due_percent", "must be a percent greater than 0 and at most 100, with at most 4 decimal places")),
		post("cycle start in the future", `{"name":"X","credit_limit":1,"statement_day":1,"due_day":1,"cycle_start_date":"2025-03-12"}`,
			fieldsOf("cycle_start_date", "must be from 2020-03-11 to 2025-03-11 (today, at most 5 years back)")),
		post("cycle start over 5 years back", `{"name":"X","credit_limit":1,"statement_day":1,"due_day":1,"cycle_start_date":"2020-03-10"}`,
			fieldsOf("cycle_start_date", "must be from 2020-03-11 to 2025-03-11 (today, at most 5 years back)")),
		post("malformed JSON", `{"name":`, nil),
	})
	// The window's ends are inside it.
	alice.createCard(t, `{"name":"Old","credit_limit":1,"statement_day":1,"due_day":1,"cycle_start_date":"2020-03-11"}`)
	alice.createCard(t, `{"name":"New","credit_limit":1,"statement_day":1,"due_day":1,"cycle_start_date":"2025-03-11"}`)
}

func TestCardUpdate(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, `{"name":"Visa","bank":"BPI","last_four":"1111","credit_limit":50000,"statement_day":15,"due_day":5,"notes":"x","minimum_due_percent":2}`)
	other := alice.createCard(t, `{"name":"Amex","credit_limit":1000,"statement_day":1,"due_day":20}`)

	res := alice.do(t, http.MethodPut, "/api/v1/credit-cards/"+c.ID,
		`{"credit_limit":"60000.10","bank":null,"notes":"","statement_day":20,"minimum_due_percent":null}`, http.StatusOK)
	var got finance.CreditCard
	res.decodeData(t, &got)
	if got.CreditLimit.String() != "60000.10" || got.Bank != nil || got.Notes != nil || got.StatementDay != 20 ||
		got.LastFour == nil || *got.LastFour != "1111" || got.Name != "Visa" || got.MinimumDuePercent.String() != "3" ||
		got.NextStatementDate.String() != "2025-03-20" || got.AvailableCredit.String() != "60000.10" {
		t.Errorf("updated card %+v", got)
	}
	if rawField(t, res, "credit_limit") != "60000.10" {
		t.Errorf("credit_limit = %s", rawField(t, res, "credit_limit"))
	}
	// Renaming to its own name in another case is not a clash.
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/"+c.ID, `{"name":"VISA"}`, http.StatusOK)

	archived := alice.createCard(t, `{"name":"Old","credit_limit":1000,"statement_day":1,"due_day":20}`)
	alice.do(t, http.MethodPatch, "/api/v1/credit-cards/"+archived.ID+"/archive", "", http.StatusOK)

	put := func(name, id, body string, status int, code string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPut, url: "/api/v1/credit-cards/" + id, body: body,
			wantStatus: status, wantCode: code, wantFields: fields})
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		put("name taken", other.ID, `{"name":"visa"}`, http.StatusBadRequest, CodeValidation,
			fieldsOf("name", "is already used by another active credit card")),
		put("null required", c.ID, `{"name":null,"credit_limit":null,"due_day":null}`, http.StatusBadRequest, CodeValidation,
			fieldsOf("name", problemRequired, "credit_limit", problemRequired, "due_day", problemRequired)),
		put("archived card", archived.ID, `{"notes":"x"}`, http.StatusBadRequest, CodeInvalidStatus, nil),
		put("archived card with a bad body", archived.ID, `{"credit_limit":-1}`, http.StatusBadRequest, CodeValidation,
			fieldsOf("credit_limit", problemPositive)),
		put("unknown card", unknownID, `{"notes":"x"}`, http.StatusNotFound, CodeNotFound, nil),
		bob.sc(apiScenario{name: "another user's card", method: http.MethodPut, url: "/api/v1/credit-cards/" + c.ID,
			body: `{"notes":"mine"}`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's card with malformed JSON", method: http.MethodPut, url: "/api/v1/credit-cards/" + c.ID,
			body: `{"notes":`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
}

func TestCardArchive(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	e := alice.createExpense(t, `{"amount":100,"date":"2025-03-01","description":"Lunch","category":"Groceries",
		"payment_method":"Credit Card","credit_card_id":"`+c.ID+`"}`)

	res := alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+c.ID, "", http.StatusOK)
	var got finance.CreditCard
	res.decodeData(t, &got)
	if res.message() != "Credit card archived" || got.Status != finance.StatusArchived || got.ArchivedAt == nil ||
		got.OutstandingBalance.String() != "100.00" {
		t.Errorf("archived card %+v (%s)", got, res.message())
	}
	// History stays: the card still lists its rows and its balance counts.
	rows, _ := page[finance.CardTransaction](t, alice, "/api/v1/credit-cards/transactions?cardId="+c.ID)
	if len(rows) != 1 || rows[0].ExpenseID == nil || *rows[0].ExpenseID != e.ID {
		t.Errorf("rows of the archived card: %+v", rows)
	}
	cards, _ := page[finance.CreditCard](t, alice, "/api/v1/credit-cards")
	if len(cards) != 0 {
		t.Errorf("active cards: %+v", cards)
	}
	cards, _ = page[finance.CreditCard](t, alice, "/api/v1/credit-cards?status=archived")
	if len(cards) != 1 || cards[0].OutstandingBalance.String() != "100.00" {
		t.Errorf("archived cards: %+v", cards)
	}

	// A new card may take the archived one's name; unarchiving then clashes.
	clash := alice.createCard(t, visaBody)
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "archive again", method: http.MethodPatch, url: "/api/v1/credit-cards/" + c.ID + "/archive",
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantMessage: `Credit card is already archived`}),
		alice.sc(apiScenario{name: "delete again", method: http.MethodDelete, url: "/api/v1/credit-cards/" + c.ID,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "unarchive an active card", method: http.MethodPatch, url: "/api/v1/credit-cards/" + clash.ID + "/unarchive",
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "unarchive into a name clash", method: http.MethodPatch, url: "/api/v1/credit-cards/" + c.ID + "/unarchive",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("name", "is already used by another active credit card")}),
		bob.sc(apiScenario{name: "another user's card", method: http.MethodPatch, url: "/api/v1/credit-cards/" + clash.ID + "/archive",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		// An archived card takes no new charges.
		alice.sc(apiScenario{name: "expense on the archived card", method: http.MethodPost, url: "/api/v1/expenses",
			body:       `{"amount":1,"date":"2025-03-01","description":"x","category":"Groceries","payment_method":"Credit Card","credit_card_id":"` + c.ID + `"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("credit_card_id", problemCard)}),
		alice.sc(apiScenario{name: "fee on the archived card", method: http.MethodPost, url: "/api/v1/credit-cards/transactions",
			body:       `{"credit_card_id":"` + c.ID + `","type":"fee","amount":1,"date":"2025-03-01","description":"Fee"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("credit_card_id", problemCard)}),
	})

	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+clash.ID, "", http.StatusOK)
	res = alice.do(t, http.MethodPatch, "/api/v1/credit-cards/"+c.ID+"/unarchive", "", http.StatusOK)
	got = finance.CreditCard{} // archived_at is left out now, so a reused value would keep the old one
	res.decodeData(t, &got)
	if res.message() != "Credit card unarchived" || got.Status != finance.StatusActive || got.ArchivedAt != nil {
		t.Errorf("unarchived card %+v", got)
	}
	// Unarchived, it takes charges again.
	alice.createExpense(t, `{"amount":1,"date":"2025-03-01","description":"x","category":"Groceries","payment_method":"Credit Card","credit_card_id":"`+c.ID+`"}`)
}

func TestCardFigures(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	c := alice.createCard(t, `{"name":"Small","credit_limit":"8.00","statement_day":15,"due_day":5}`)
	card := `"credit_card_id":"` + c.ID + `"`
	purchase := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":"3.00","date":"2025-03-01","description":"a","category":"Shopping"}`)
	billed := alice.createCardRow(t, `{`+card+`,"type":"fee","amount":"1.00","date":"2025-03-01","description":"annual fee"}`)
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, billed.ID, finance.CardBilled)
	converted := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":"100.00","date":"2025-03-01","description":"tv","category":"Shopping"}`)
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, converted.ID, finance.CardConverted)
	voided := alice.createCardRow(t, `{`+card+`,"type":"interest","amount":"50.00","date":"2025-03-01","description":"x"}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+voided.ID, "", http.StatusOK)
	alice.createCardRow(t, `{`+card+`,"type":"refund","amount":"0.95","date":"2025-03-02","description":"return","category":"Shopping"}`)
	_ = purchase

	// charges 3.00 + 1.00 (billed); refund 0.95; outstanding 3.05 of 8.00 = 38.125% -> 38.13 (half-up).
	res := alice.do(t, http.MethodGet, "/api/v1/credit-cards/"+c.ID, "", http.StatusOK)
	for path, want := range map[string]string{"outstanding_balance": "3.05", "available_credit": "4.95",
		"utilization_percent": "38.13", "unbilled_total": "2.05", "open_statement_balance": "0.00",
		"next_statement_date": `"2025-03-15"`, "next_due_date": absent, "open_soa_count": "0"} {
		if got := rawField(t, res, path); got != want {
			t.Errorf("%s = %s, want %s", path, got, want)
		}
	}

	// Refunds above the charges: negative balance, utilization 0, credit above the limit.
	alice.createCardRow(t, `{`+card+`,"type":"refund","amount":"10.00","date":"2025-03-02","description":"return","category":"Shopping"}`)
	got := alice.getCard(t, c.ID)
	if got.OutstandingBalance.String() != "-6.95" || got.AvailableCredit.String() != "14.95" || got.UtilizationPercent.String() != "0.00" {
		t.Errorf("over-refunded card: %s / %s / %s", got.OutstandingBalance, got.AvailableCredit, got.UtilizationPercent)
	}
	// The list computes the same figures.
	cards, _ := page[finance.CreditCard](t, alice, "/api/v1/credit-cards")
	if len(cards) != 1 || cards[0].CardFigures != got.CardFigures {
		t.Errorf("listed figures %+v, want %+v", cards, got.CardFigures)
	}
}

func TestCardList(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	b := alice.createCard(t, `{"name":"beta","credit_limit":300,"statement_day":1,"due_day":2,"notes":"travel perks"}`)
	a := alice.createCard(t, `{"name":"Alpha","credit_limit":200,"statement_day":1,"due_day":2,"bank":"Metrobank"}`)
	g := alice.createCard(t, `{"name":"Gamma","credit_limit":100,"statement_day":1,"due_day":2}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+g.ID, "", http.StatusOK)
	bob.createCard(t, visaBody)
	cardIDs := func(url string) []string {
		items, _ := page[finance.CreditCard](t, alice, url)
		return ids(items, func(c finance.CreditCard) string { return c.ID })
	}
	for _, tt := range []struct {
		url  string
		want []string
	}{
		{"/api/v1/credit-cards", []string{a.ID, b.ID}},
		{"/api/v1/credit-cards?status=all", []string{a.ID, b.ID, g.ID}},
		{"/api/v1/credit-cards?status=archived", []string{g.ID}},
		{"/api/v1/credit-cards?status=all&sortBy=credit_limit", []string{g.ID, a.ID, b.ID}},
		{"/api/v1/credit-cards?status=all&sortBy=credit_limit&sortOrder=desc", []string{b.ID, a.ID, g.ID}},
		{"/api/v1/credit-cards?search=METRO", []string{a.ID}},
		{"/api/v1/credit-cards?search=perks", []string{b.ID}},
		{"/api/v1/credit-cards?limit=1&page=2", []string{b.ID}},
	} {
		if diff := cmp.Diff(tt.want, cardIDs(tt.url)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.url, diff)
		}
	}
	_, p := page[finance.CreditCard](t, alice, "/api/v1/credit-cards?limit=1")
	if p != (finance.Pagination{Page: 1, Limit: 1, TotalItems: 2, TotalPages: 2}) {
		t.Errorf("pagination %+v", p)
	}
	runRejectedSpending(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "bad status", method: http.MethodGet, url: "/api/v1/credit-cards?status=closed",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("status", "must be active, archived or all")}),
		alice.sc(apiScenario{name: "bad sort", method: http.MethodGet, url: "/api/v1/credit-cards?sortBy=balance&limit=0",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("sortBy", "must be one of: name, credit_limit, created_at", "limit", "must be an integer from 1 to 100")}),
	})
}

func TestCardUnbilledTransactions(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	other := alice.createCard(t, `{"name":"Other","credit_limit":1000,"statement_day":1,"due_day":20}`)
	card := `"credit_card_id":"` + c.ID + `"`
	p1 := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":10,"date":"2025-03-01","description":"Groceries run","category":"Groceries"}`)
	fee := alice.createCardRow(t, `{`+card+`,"type":"fee","amount":20,"date":"2025-03-05","description":"Late fee"}`)
	future := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":5,"date":"2025-04-01","description":"Preorder","category":"Shopping"}`)
	billed := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":7,"date":"2025-02-01","description":"Old","category":"Shopping"}`)
	testkit.SetCardRowStatus(t, env.db, alice.user.ID, billed.ID, finance.CardBilled)
	voided := alice.createCardRow(t, `{`+card+`,"type":"purchase","amount":8,"date":"2025-03-02","description":"Oops","category":"Shopping"}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+voided.ID, "", http.StatusOK)
	alice.createCardRow(t, `{"credit_card_id":"`+other.ID+`","type":"fee","amount":1,"date":"2025-03-01","description":"x"}`)

	base := "/api/v1/credit-cards/" + c.ID + "/unbilled-transactions"
	for _, tt := range []struct {
		url  string
		want []string
	}{
		{base, []string{future.ID, fee.ID, p1.ID}},
		{base + "?type=fee", []string{fee.ID}},
		{base + "?dateFrom=2025-03-02&dateTo=2025-03-31", []string{fee.ID}},
		{base + "?search=RUN", []string{p1.ID}},
		{base + "?sortBy=amount&sortOrder=asc", []string{future.ID, p1.ID, fee.ID}},
	} {
		items, _ := page[finance.CardTransaction](t, alice, tt.url)
		if diff := cmp.Diff(tt.want, cardRowIDs(items)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.url, diff)
		}
	}
	items, _ := page[finance.CardTransaction](t, alice, base)
	if !items[0].IsFuture || items[1].IsFuture {
		t.Errorf("is_future: %v, %v", items[0].IsFuture, items[1].IsFuture)
	}
	// Archived cards keep listing their rows.
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+c.ID, "", http.StatusOK)
	if items, _ := page[finance.CardTransaction](t, alice, base); len(items) != 3 {
		t.Errorf("archived card lists %d unbilled rows, want 3", len(items))
	}
	runScenarios(t, env, []apiScenario{
		bob.sc(apiScenario{name: "another user's card", method: http.MethodGet, url: base,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's card with a bad query", method: http.MethodGet, url: base + "?type=payment",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "malformed card id", method: http.MethodGet, url: "/api/v1/credit-cards/x/unbilled-transactions",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "bad type", method: http.MethodGet, url: base + "?type=payment&dateFrom=2025-03-02&dateTo=2025-03-01",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("type", "must be one of: purchase, fee, interest, refund, installment", "dateFrom", "must not be after dateTo")}),
	})
}

func TestCardFormOptions(t *testing.T) {
	_, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, `{"name":"Visa","last_four":"1234","credit_limit":1000,"statement_day":1,"due_day":2}`)
	old := alice.createCard(t, `{"name":"Old","credit_limit":1000,"statement_day":1,"due_day":2}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+old.ID, "", http.StatusOK)
	acc := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"100.10"}`)
	closed := alice.createAccount(t, `{"name":"Closed","type":"cash"}`)
	alice.archive(t, closed.ID)
	alice.createExpense(t, `{"amount":"250.25","date":"2025-03-01","description":"x","category":"Groceries","payment_method":"Credit Card","credit_card_id":"`+c.ID+`"}`)
	bob.createCard(t, visaBody)

	res := alice.do(t, http.MethodGet, "/api/v1/credit-cards/form-options", "", http.StatusOK)
	var opts finance.CardFormOptions
	res.decodeData(t, &opts)
	wantCards := []finance.CardOption{{ID: c.ID, Name: "Visa", LastFour: opts.CreditCards[0].LastFour, Currency: "PHP", AvailableCredit: 749_75}}
	if diff := cmp.Diff(wantCards, opts.CreditCards); diff != "" || *opts.CreditCards[0].LastFour != "1234" {
		t.Errorf("credit_cards (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]finance.AccountOption{{ID: acc.ID, Name: "BPI", Type: finance.AccountSavings, Currency: "PHP", CurrentBalance: 100_10}}, opts.Accounts); diff != "" {
		t.Errorf("accounts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"purchase", "fee", "interest", "refund"}, opts.TransactionTypes); diff != "" {
		t.Errorf("transaction_types (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"none", "add_on"}, opts.InterestTypes); diff != "" {
		t.Errorf("interest_types (-want +got):\n%s", diff)
	}
	names := ids(opts.Categories, func(c finance.CategoryOption) string { return c.Name })
	if len(names) != 17 || names[0] != "Card Fees & Interest" || strings.Contains(strings.Join(names, ","), "Salary") {
		t.Errorf("categories: %v", names)
	}
}

func TestCardRoutesNeedTheirScope(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	readKey := env.createKey(alice.user.ID, auth.ScopeRead)
	expensesKey := env.createKey(alice.user.ID, auth.ScopeExpensesWrite)
	runRejectedSpending(t, env, []ledgerUser{alice}, []apiScenario{
		{name: "finance:read cannot create a card", method: http.MethodPost, url: "/api/v1/credit-cards", body: `{"name":"X","credit_limit":1,"statement_day":1,"due_day":1}`,
			headers: bearer(readKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "expenses:write cannot archive a card", method: http.MethodPatch, url: "/api/v1/credit-cards/" + c.ID + "/archive",
			headers: bearer(expensesKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "expenses:write cannot read cards", method: http.MethodGet, url: "/api/v1/credit-cards",
			headers: bearer(expensesKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "expenses:write cannot record a card row", method: http.MethodPost, url: "/api/v1/credit-cards/transactions",
			body:    `{"credit_card_id":"` + c.ID + `","type":"fee","amount":1,"date":"2025-03-01","description":"x"}`,
			headers: bearer(expensesKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
	})
	for _, url := range []string{"/api/v1/credit-cards", "/api/v1/credit-cards/" + c.ID, "/api/v1/credit-cards/form-options",
		"/api/v1/credit-cards/transactions", "/api/v1/credit-cards/" + c.ID + "/unbilled-transactions"} {
		apiScenario{method: http.MethodGet, url: url, headers: bearer(readKey), wantStatus: http.StatusOK}.run(t, env)
	}
}
