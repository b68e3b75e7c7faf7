package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Each record's currency (domain.md "Money in more than one currency"):
// accounts, cards, loans, bill and income templates name it on create and
// PUT, their amounts keep to its decimals, and it is fixed once money is
// recorded in it.

// currencyRecord is one kind of record as these tests drive it.
type currencyRecord struct {
	kind, url string
	// body is a create body (and, for a loan, a PUT body) with amount in
	// the record's money field and extra appended (`,"currency":"usd"`).
	body        func(n int, amount, extra string) string
	amountField string
	// recordMoney writes money in the record's currency through the API.
	recordMoney func(t *testing.T, u ledgerUser, id string)
}

var currencyRecords = []currencyRecord{{
	kind: finance.RecordAccount, url: "/api/v1/accounts", amountField: "opening_balance",
	body: func(n int, amount, extra string) string {
		return fmt.Sprintf(`{"name":"Wallet %d","type":"cash","opening_balance":%q%s}`, n, amount, extra)
	},
	recordMoney: func(t *testing.T, u ledgerUser, id string) {
		u.addLine(t, id, `{"type":"credit","amount":"10","date":"2025-03-01"}`)
	},
}, {
	kind: finance.LogCreditCard, url: "/api/v1/credit-cards", amountField: "credit_limit",
	body: func(n int, amount, extra string) string {
		return fmt.Sprintf(`{"name":"Card %d","credit_limit":%q,"statement_day":15,"due_day":5%s}`, n, amount, extra)
	},
	recordMoney: func(t *testing.T, u ledgerUser, id string) { u.purchase(t, id, "100", "2025-03-01") },
}, {
	kind: finance.RecordLoan, url: loansURL, amountField: "principal",
	body: func(n int, amount, extra string) string {
		return fmt.Sprintf(`{"name":"Car %d","principal":%q,"interest_type":"none","term_months":12,"start_date":"2025-01-10"%s}`,
			n, amount, extra)
	},
	recordMoney: func(t *testing.T, u ledgerUser, id string) {
		u.payInstance(t, u.loan(t, id).Instances[0].ID, `{"amount":"100","date":"2025-03-01"}`)
	},
}, {
	kind: finance.RecordBillTemplate, url: billTemplatesURL, amountField: "amount",
	body: func(n int, amount, extra string) string {
		return fmt.Sprintf(`{"name":"Rent %d","amount":%q,"category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":5%s}`,
			n, amount, extra)
	},
	recordMoney: func(t *testing.T, u ledgerUser, id string) {
		u.payBill(t, u.billOn(t, id, "2025-03-05").ID, `{"amount":100,"payment_method":"Cash"}`)
	},
}, {
	kind: finance.RecordIncomeTemplate, url: incomeTemplatesURL, amountField: "amount",
	body: func(n int, amount, extra string) string {
		return fmt.Sprintf(`{"name":"Salary %d","amount":%q,"category":"Salary","frequency":"monthly","start_date":"2025-03-01","due_day":5%s}`,
			n, amount, extra)
	},
	recordMoney: func(t *testing.T, u ledgerUser, id string) {
		send[finance.ExpectedIncome](t, u, http.MethodPost, expectedIncomeURL+"/"+u.expectedOn(t, id, "2025-03-05").ID+"/confirm", ``, http.StatusOK)
	},
}}

// currencyEnv is a server with a pinned clock and one user whose reporting
// currency is EUR, with a key of every scope.
func currencyEnv(t *testing.T) ledgerUser {
	t.Helper()
	env := newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	u := env.createUser(finance.PlanPro)
	alice := ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeAll)}
	alice.do(t, http.MethodPut, "/api/v1/user-settings/app", `{"currency":"EUR"}`, http.StatusOK)
	return alice
}

// recordJSON is the record at url as the API reads it, without the loan's
// instances' timestamps, which no refused write may change either.
func recordJSON(t *testing.T, u ledgerUser, url string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(u.do(t, http.MethodGet, url, "", http.StatusOK).env.Data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func listTotal(t *testing.T, u ledgerUser, url string) int {
	t.Helper()
	var p struct{ Pagination finance.Pagination }
	u.do(t, http.MethodGet, url, "", http.StatusOK).decodeData(t, &p)
	return p.Pagination.TotalItems
}

func TestRecordCurrencyOnCreate(t *testing.T) {
	const unknown = "must be an ISO 4217 currency code, like PHP, USD or EUR"
	for _, rec := range currencyRecords {
		t.Run(rec.kind, func(t *testing.T) {
			alice := currencyEnv(t)
			created := func(body string) map[string]any {
				t.Helper()
				var m map[string]any
				if err := json.Unmarshal(alice.do(t, http.MethodPost, rec.url, body, http.StatusCreated).env.Data, &m); err != nil {
					t.Fatal(err)
				}
				return m
			}
			for _, c := range []struct {
				name, amount, extra, want string
			}{
				{"absent takes the reporting currency", "1500.50", ``, "EUR"},
				{"null takes the reporting currency", "1500.50", `,"currency":null`, "EUR"},
				{"lower case is stored in capitals", "1500.50", `,"currency":"usd"`, "USD"},
				{"a whole amount in yen", "1500.00", `,"currency":"JPY"`, "JPY"},
			} {
				got := created(rec.body(len(c.name), c.amount, c.extra))
				if got["currency"] != c.want || fmt.Sprint(got[rec.amountField]) != strings.TrimSuffix(strings.TrimSuffix(c.amount, "0"), ".0") {
					t.Errorf("%s: currency %v, %s %v; want %s, %s", c.name, got["currency"], rec.amountField, got[rec.amountField], c.want, c.amount)
				}
				if read := recordJSON(t, alice, rec.url+"/"+got["id"].(string)); read["currency"] != c.want {
					t.Errorf("%s: read back currency %v, want %s", c.name, read["currency"], c.want)
				}
			}

			before := listTotal(t, alice, rec.url)
			for _, c := range []struct {
				name, amount, extra string
				fields              map[string]string
			}{
				{"unknown code", "100", `,"currency":"XYZ"`, map[string]string{"currency": unknown}},
				{"not a code", "100", `,"currency":"peso"`, map[string]string{"currency": unknown}},
				{"a number", "100", `,"currency":608`, map[string]string{"currency": "must be a string"}},
				{"three decimals", "100", `,"currency":"kwd"`,
					map[string]string{"currency": "KWD has 3 decimal places; records take currencies with at most 2"}},
				{"centavos on yen", "1500.5", `,"currency":"jpy"`,
					map[string]string{rec.amountField: "must be a number with at most 0 decimal places"}},
				{"one sen", "1500.01", `,"currency":"JPY"`,
					map[string]string{rec.amountField: "must be a number with at most 0 decimal places"}},
			} {
				alice.sc(apiScenario{name: c.name, method: http.MethodPost, url: rec.url, body: rec.body(100+len(c.name), c.amount, c.extra),
					wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: c.fields}).run(t, alice.env)
			}
			if after := listTotal(t, alice, rec.url); after != before {
				t.Errorf("refused creates wrote records: %d before, %d after", before, after)
			}
		})
	}
}

func TestRecordCurrencyOnPut(t *testing.T) {
	for _, rec := range currencyRecords {
		t.Run(rec.kind, func(t *testing.T) {
			alice := currencyEnv(t)
			log := newActivityReader(alice)
			var made map[string]any
			if err := json.Unmarshal(alice.do(t, http.MethodPost, rec.url, rec.body(1, "1500", `,"currency":"JPY"`), http.StatusCreated).env.Data, &made); err != nil {
				t.Fatal(err)
			}
			id, name := made["id"].(string), made["name"].(string)
			itemURL := rec.url + "/" + id
			put := func(extra string) string {
				if rec.kind == finance.RecordLoan { // PUT /loans/{id} takes the whole body
					return rec.body(1, "1500", extra)
				}
				return "{" + strings.TrimPrefix(extra, ",") + "}"
			}

			// The same currency, in any case, changes nothing and logs nothing.
			log.checkAdded(t, "the same currency", nil, func() {
				if got := recordJSON(t, alice, itemURL); got["currency"] != "JPY" {
					t.Fatalf("currency %v", got["currency"])
				}
				alice.do(t, http.MethodPut, itemURL, put(`,"currency":"jpy"`), http.StatusOK)
			})
			// An amount with centavos is refused by the record's currency.
			if rec.kind != finance.RecordLoan {
				before := recordJSON(t, alice, itemURL)
				alice.sc(apiScenario{method: http.MethodPut, url: itemURL, body: fmt.Sprintf(`{%q:"1500.50"}`, rec.amountField),
					wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
					wantFields: map[string]string{rec.amountField: "must be a number with at most 0 decimal places"}}).run(t, alice.env)
				if diff := cmp.Diff(before, recordJSON(t, alice, itemURL)); diff != "" {
					t.Errorf("a refused amount changed the record (-before +after):\n%s", diff)
				}
			}

			// Another currency while no money is recorded: taken, logged, the
			// figures kept.
			var loanBefore finance.LoanDetail
			if rec.kind == finance.RecordLoan {
				loanBefore = alice.loan(t, id)
			}
			entries := log.since(t, func() {
				got := recordJSON(t, alice, itemURL)
				res := alice.do(t, http.MethodPut, itemURL, put(`,"currency":"usd"`), http.StatusOK)
				var after map[string]any
				res.decodeData(t, &after)
				if after["currency"] != "USD" || after[rec.amountField] != got[rec.amountField] {
					t.Errorf("after PUT: currency %v, %s %v; want USD, %v", after["currency"], rec.amountField, after[rec.amountField], got[rec.amountField])
				}
			})
			if len(entries) != 1 || entries[0].Action != finance.LogUpdated || entries[0].RecordID != id ||
				!strings.Contains(entries[0].Summary, `currency "JPY" → "USD"`) {
				t.Errorf("activity of the change = %+v, want one updated entry naming currency \"JPY\" → \"USD\"", entries)
			}
			if rec.kind == finance.RecordLoan {
				loanAfter := alice.loan(t, id)
				figures := func(d finance.LoanDetail) []string {
					var out []string
					for _, x := range d.Instances {
						out = append(out, fmt.Sprintf("%d %s %s %s", x.InstallmentNumber, x.DueDate, x.AmountDue, x.Status))
					}
					return out
				}
				if diff := cmp.Diff(figures(loanBefore), figures(loanAfter)); diff != "" || loanAfter.Currency != "USD" {
					t.Errorf("loan schedule in USD: currency %s, instances (-before +after):\n%s", loanAfter.Currency, diff)
				}
			}

			// Once money is recorded in USD it stays USD.
			rec.recordMoney(t, alice, id)
			before := recordJSON(t, alice, itemURL)
			w := map[string]struct{ record, held, instead string }{
				finance.RecordAccount:        {"account", "transactions", "open an account in EUR and transfer to it"},
				finance.LogCreditCard:        {"credit card", "transactions", "add a card billed in EUR for it"},
				finance.RecordLoan:           {"loan", "payments", "add a loan in EUR for money borrowed in it"},
				finance.RecordBillTemplate:   {"bill template", "paid bills", "add a bill template in EUR for bills due in it"},
				finance.RecordIncomeTemplate: {"income template", "received income", "add an income template in EUR for income in it"},
			}[rec.kind]
			log.checkAdded(t, "a fixed currency", nil, func() {
				alice.sc(apiScenario{method: http.MethodPut, url: itemURL, body: put(`,"currency":"eur"`),
					wantStatus: http.StatusConflict, wantCode: CodeCurrencyFixed,
					wantMessage: fmt.Sprintf("The %s %q has %s in USD; %s", w.record, name, w.held, w.instead),
					wantFields:  map[string]string{"currency": fmt.Sprintf("cannot change: the %s %q has %s in USD", w.record, name, w.held)},
				}).run(t, alice.env)
			})
			if diff := cmp.Diff(before, recordJSON(t, alice, itemURL)); diff != "" {
				t.Errorf("a refused currency changed the record (-before +after):\n%s", diff)
			}
			// Naming the currency it has is still accepted.
			alice.do(t, http.MethodPut, itemURL, put(`,"currency":"USD"`), http.StatusOK)
		})
	}
}

// A card's foreign transaction fee is set on create and PUT, reset by null,
// and refused outside 0 to 10 or with more than 4 decimals.
func TestCardForeignFeePercent(t *testing.T) {
	alice := currencyEnv(t)
	c := alice.createCard(t, `{"name":"Travel","credit_limit":"50000","statement_day":15,"due_day":5,"foreign_fee_percent":"1.75"}`)
	if c.ForeignFeePercent.String() != "1.75" {
		t.Errorf("created with fee %s, want 1.75", c.ForeignFeePercent)
	}
	if plain := alice.createCard(t, `{"name":"Plain","credit_limit":"50000","statement_day":15,"due_day":5}`); plain.ForeignFeePercent != 0 {
		t.Errorf("a card without a fee has %s, want 0", plain.ForeignFeePercent)
	}
	url := "/api/v1/credit-cards/" + c.ID
	got := send[finance.CreditCard](t, alice, http.MethodPut, url, `{"foreign_fee_percent":3}`, http.StatusOK)
	if got.ForeignFeePercent.String() != "3" || alice.getCard(t, c.ID).ForeignFeePercent.String() != "3" {
		t.Errorf("after PUT fee %s, want 3", got.ForeignFeePercent)
	}
	const problem = "must be a percent from 0 to 10, with at most 4 decimal places"
	before := recordJSON(t, alice, url)
	for _, bad := range []string{`"10.5"`, `-1`, `"0.00001"`, `"abc"`, `true`} {
		alice.sc(apiScenario{method: http.MethodPut, url: url, body: `{"foreign_fee_percent":` + bad + `}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: map[string]string{"foreign_fee_percent": problem}}).run(t, alice.env)
	}
	alice.sc(apiScenario{method: http.MethodPost, url: "/api/v1/credit-cards", wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		body:       `{"name":"Bad","credit_limit":"50000","statement_day":15,"due_day":5,"foreign_fee_percent":11}`,
		wantFields: map[string]string{"foreign_fee_percent": problem}}).run(t, alice.env)
	if diff := cmp.Diff(before, recordJSON(t, alice, url)); diff != "" {
		t.Errorf("refused fees changed the card (-before +after):\n%s", diff)
	}
	if got := send[finance.CreditCard](t, alice, http.MethodPut, url, `{"foreign_fee_percent":null}`, http.StatusOK); got.ForeignFeePercent != 0 {
		t.Errorf("null fee = %s, want 0", got.ForeignFeePercent)
	}
}

// Income into an account arrives in its currency: a template into a USD
// account is in USD unless it names another, which is refused.
func TestIncomeTemplateTakesItsAccountsCurrency(t *testing.T) {
	alice := currencyEnv(t)
	usd := alice.createAccount(t, `{"name":"Savings","type":"savings","currency":"USD"}`)
	tmpl := alice.createIncomeTemplate(t, `{"name":"Pay","amount":"2500.50","category":"Salary","frequency":"monthly",`+
		`"start_date":"2025-03-01","account_id":"`+usd.ID+`"}`)
	if tmpl.Currency != "USD" {
		t.Errorf("template into a USD account is in %s, want USD", tmpl.Currency)
	}
	before := listTotal(t, alice, incomeTemplatesURL)
	alice.sc(apiScenario{method: http.MethodPost, url: incomeTemplatesURL, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		body: `{"name":"Pay 2","amount":"2500","category":"Salary","frequency":"monthly","start_date":"2025-03-01",` +
			`"currency":"EUR","account_id":"` + usd.ID + `"}`,
		wantFields: map[string]string{"currency": `must be USD, the currency of the account "Savings": income into it arrives in it`}}).run(t, alice.env)
	jpy := alice.createAccount(t, `{"name":"Wallet","type":"cash","currency":"JPY"}`)
	alice.sc(apiScenario{method: http.MethodPut, url: incomeTemplatesURL + "/" + tmpl.ID, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		body:       `{"account_id":"` + jpy.ID + `"}`,
		wantFields: map[string]string{"amount": "must be a number with at most 0 decimal places"}}).run(t, alice.env)
	if after := listTotal(t, alice, incomeTemplatesURL); after != before {
		t.Errorf("refused templates wrote: %d before, %d after", before, after)
	}
	if got := recordJSON(t, alice, incomeTemplatesURL+"/"+tmpl.ID); got["currency"] != "USD" || got["account_id"] != usd.ID {
		t.Errorf("after refused PUT: %v in %v, want the USD account", got["account_id"], got["currency"])
	}
}
