package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Tests of the card metrics, the usage summary and the activity log
// (domain.md §5.2, §2.12).

// exactJSON decodes JSON keeping numbers as written, so money compares digit
// for digit ("885.01", never 885.0100000001).
func exactJSON(t testing.TB, raw []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

// checkExactData compares the response data with want (a Go value whose
// numbers are json.Number) digit for digit.
func checkExactData(t testing.TB, res apiResult, want any) {
	t.Helper()
	wantRaw, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(exactJSON(t, wantRaw), exactJSON(t, res.env.Data)); diff != "" {
		t.Errorf("data mismatch (-want +got):\n%s", diff)
	}
}

// jsonMoney is an exact JSON number.
func jsonMoney(s string) json.Number { return json.Number(s) }

// metricFigures is the JSON of finance.MetricFigures.
func metricFigures(limit, outstanding, available, utilization, unbilled, open, minimumDue string, overdue, plans int, commitment string) map[string]any {
	return map[string]any{"credit_limit": jsonMoney(limit), "outstanding_balance": jsonMoney(outstanding), "available_credit": jsonMoney(available),
		"utilization_percent": jsonMoney(utilization), "unbilled_total": jsonMoney(unbilled), "open_statement_balance": jsonMoney(open),
		"minimum_due_open": jsonMoney(minimumDue), "overdue_soa_count": overdue, "active_installment_plans": plans,
		"monthly_installment_commitment": jsonMoney(commitment)}
}

// metricCard is the JSON of one finance.CardMetric.
func metricCard(c finance.CreditCard, status string, figures map[string]any, level, nextStatement string, nextDue any) map[string]any {
	out := map[string]any{"id": c.ID, "name": c.Name, "status": status, "currency": c.Currency, "utilization_level": level,
		"next_statement_date": nextStatement, "next_due": nextDue}
	for k, v := range figures {
		out[k] = v
	}
	return out
}

// storedPlanRow is one row of a plan that storeInstallmentPlan stores.
type storedPlanRow struct {
	date      string
	principal finance.Money
	interest  finance.Money
	status    string
}

// storeInstallmentPlan stores an installment plan over the purchase source and its
// rows straight in the store, the way conversion and cancel leave them: an
// active plan's source is converted; a cancelled plan with nothing billed
// has its rows voided and its source unbilled.
func storeInstallmentPlan(t testing.TB, env *testEnv, userID string, source finance.CardTransaction, status string, rows ...storedPlanRow) finance.InstallmentPlan {
	t.Helper()
	ctx := context.Background()
	now := ledgerNow.UTC()
	rate := finance.Rate(15_000) // 1.5% a month, informational here
	var interest finance.Money
	for _, r := range rows {
		interest += r.interest
	}
	p := finance.InstallmentPlan{ID: finance.NewID(), CreditCardID: source.CreditCardID, SourceTransactionID: source.ID,
		ExpenseID: source.ExpenseID, Description: source.Description, Principal: source.Amount, Months: len(rows),
		InterestType: finance.InterestAddOn, InterestRate: &rate, FirstInstallmentDate: figureDate(t, rows[0].date),
		TotalInterest: interest, Status: status, CreatedAt: now, UpdatedAt: now}
	err := env.db.Write(ctx, func(tx finance.Repo) error {
		if err := tx.InsertInstallmentPlan(ctx, userID, p); err != nil {
			return err
		}
		for i, r := range rows {
			number, principal, interest := i+1, r.principal, r.interest
			row := finance.CardTransaction{ID: finance.NewID(), CreditCardID: source.CreditCardID, Type: finance.CardInstallment,
				Amount: principal + interest, Date: figureDate(t, r.date), Description: source.Description, Status: r.status,
				InstallmentPlanID: &p.ID, InstallmentNumber: &number, PrincipalPortion: &principal, InterestPortion: &interest,
				CreatedAt: now, UpdatedAt: now}
			if r.status == finance.StatusVoided {
				row.VoidedAt = &now
			}
			if err := tx.InsertCardTransaction(ctx, userID, row); err != nil {
				return err
			}
		}
		if status != finance.PlanActive {
			return nil
		}
		src, err := tx.CardTransaction(ctx, userID, source.ID)
		if err != nil {
			return err
		}
		src.Status = finance.CardConverted
		return tx.UpdateCardTransaction(ctx, userID, src)
	})
	if err != nil {
		t.Fatalf("insert plan: %v", err)
	}
	return p
}

func figureDate(t testing.TB, s string) finance.Date {
	t.Helper()
	d, err := finance.ParseDate(s)
	if err != nil {
		t.Fatalf("ParseDate(%q): %v", s, err)
	}
	return d
}

// moveLedgerClock pins the clock of env at at.
func moveLedgerClock(env *testEnv, at time.Time) {
	env.srv.Ledger().SetClock(func() time.Time { return at })
}

// The worked example: a card with purchases, a refund, a fee, a generated
// statement, a partial payment and an installment plan; a card at the
// critical level; an archived card. Every figure is checked to the centavo.
func TestCardMetrics(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	visa := alice.createCard(t, `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5}`)
	master := alice.createCard(t, `{"name":"Mastercard","credit_limit":10000,"statement_day":28,"due_day":18}`)
	old := alice.createCard(t, `{"name":"Old","credit_limit":5000,"statement_day":1,"due_day":20}`)
	row := func(c finance.CreditCard, body string) finance.CardTransaction {
		return alice.createCardRow(t, `{"credit_card_id":"`+c.ID+`",`+body)
	}
	row(visa, `"type":"purchase","amount":"25000.00","date":"2025-03-01","description":"Laptop","category":"Shopping"}`)
	alice.createExpense(t, `{"amount":"3500.50","date":"2025-03-12","description":"Groceries","category":"Groceries",
		"payment_method":"Credit Card","credit_card_id":"`+visa.ID+`"}`)
	row(visa, `"type":"refund","amount":"500.25","date":"2025-03-13","description":"Returned cable","category":"Shopping"}`)
	row(visa, `"type":"fee","amount":"1500.00","date":"2025-03-14","description":"Annual fee"}`)
	phone := row(visa, `"type":"purchase","amount":"2000.00","date":"2025-03-20","description":"Phone","category":"Shopping"}`)
	storeInstallmentPlan(t, env, alice.user.ID, phone, finance.PlanActive,
		storedPlanRow{"2025-03-20", 666_66, 30_00, finance.CardUnbilled},
		storedPlanRow{"2025-04-20", 666_66, 30_00, finance.CardUnbilled},
		storedPlanRow{"2025-05-20", 666_68, 30_00, finance.CardUnbilled})
	// A cancelled plan: its rows are voided and its source is unbilled again.
	chair := row(visa, `"type":"purchase","amount":"1200.00","date":"2025-03-21","description":"Chair","category":"Shopping"}`)
	storeInstallmentPlan(t, env, alice.user.ID, chair, finance.PlanCancelled,
		storedPlanRow{"2025-03-21", 600_00, 0, finance.StatusVoided},
		storedPlanRow{"2025-04-21", 600_00, 0, finance.StatusVoided})
	row(master, `"type":"purchase","amount":"9000.00","date":"2025-03-05","description":"Flights","category":"Travel"}`)
	row(old, `"type":"purchase","amount":"1000.00","date":"2025-03-02","description":"Books","category":"Education"}`)
	alice.do(t, http.MethodPatch, "/api/v1/credit-cards/"+old.ID+"/archive", "", http.StatusOK)
	bob.createCard(t, `{"name":"Bob's","credit_limit":100,"statement_day":1,"due_day":2}`)

	// On March 16 (Manila) any request under /credit-cards generates the
	// March 15 statement: 25,000.00 + 3,500.50 - 500.25 + 1,500.00.
	moveLedgerClock(env, time.Date(2025, 3, 16, 2, 0, 0, 0, time.UTC))
	soas, _ := page[finance.SOA](t, alice, "/api/v1/credit-cards/soa")
	if len(soas) != 1 || soas[0].StatementBalance != 29_500_25 || soas[0].MinimumDue != 885_01 || soas[0].DueDate.String() != "2025-04-05" {
		t.Fatalf("generated statements: %+v", soas)
	}
	soa := soas[0]
	acc := alice.createAccount(t, `{"name":"Savings","type":"savings","opening_balance":100000}`)
	alice.do(t, http.MethodPost, "/api/v1/credit-cards/soa/"+soa.ID+"/payments", `{"amount":"300.00","account_id":"`+acc.ID+`"}`, http.StatusCreated)

	// The database holds what the figures are computed from.
	stored, err := env.db.Read().SOA(context.Background(), alice.user.ID, soa.ID)
	if err != nil || stored.StatementBalance != 29_500_25 || stored.PaidTotal != 300_00 || stored.MinimumDue != 885_01 ||
		stored.Status != finance.SOAPartiallyPaid {
		t.Fatalf("stored statement %+v, %v", stored, err)
	}

	// Visa: charges 25,000.00 + 3,500.50 + 1,500.00 + 2,090.00 (installment
	// rows, which replace the converted phone) + 1,200.00 (the chair, back
	// to unbilled); refunds 500.25; payments 300.00. Outstanding 32,490.25
	// of 50,000.00 is 64.9805%, 64.98. Minimum due 885.01 (3% of 29,500.25,
	// half-up) less 300.00 paid: 585.01. The installment due in March is
	// 696.66; the cancelled plan's voided rows count nowhere.
	visaNextDue := map[string]any{"soa_id": soa.ID, "due_date": "2025-04-05", "remaining": jsonMoney("29200.25")}
	visaWant := metricCard(visa, "active",
		metricFigures("50000.00", "32490.25", "17509.75", "64.98", "3290.00", "29200.25", "585.01", 0, 1, "696.66"),
		"moderate", "2025-04-15", visaNextDue)
	masterWant := metricCard(master, "active",
		metricFigures("10000.00", "9000.00", "1000.00", "90.00", "9000.00", "0.00", "0.00", 0, 0, "0.00"),
		"critical", "2025-03-28", nil)
	oldWant := metricCard(old, "archived",
		metricFigures("5000.00", "1000.00", "4000.00", "20.00", "1000.00", "0.00", "0.00", 0, 0, "0.00"),
		"low", "2025-04-01", nil)

	res := alice.do(t, http.MethodGet, "/api/v1/credit-cards/metrics", "", http.StatusOK)
	if res.message() != "Credit card metrics retrieved" {
		t.Errorf("message = %q", res.message())
	}
	// Totals: 41,490.25 of 60,000.00 is 69.1504%, from the sums, not an average.
	checkExactData(t, res, map[string]any{"currency": "PHP", "rates_as_of": nil, "missing_rates": []any{},
		"totals": metricFigures("60000.00", "41490.25", "18509.75", "69.15", "12290.00", "29200.25", "585.01", 0, 1, "696.66"),
		"cards":  []any{masterWant, visaWant}})

	res = alice.do(t, http.MethodGet, "/api/v1/credit-cards/metrics?includeArchived=true", "", http.StatusOK)
	checkExactData(t, res, map[string]any{"currency": "PHP", "rates_as_of": nil, "missing_rates": []any{},
		"totals": metricFigures("65000.00", "42490.25", "22509.75", "65.37", "13290.00", "29200.25", "585.01", 0, 1, "696.66"),
		"cards":  []any{masterWant, oldWant, visaWant}})
	res = alice.do(t, http.MethodGet, "/api/v1/credit-cards/metrics?includeArchived=false&cardId="+visa.ID, "", http.StatusOK)
	checkExactData(t, res, map[string]any{"currency": "PHP", "rates_as_of": nil, "missing_rates": []any{},
		"totals": metricFigures("50000.00", "32490.25", "17509.75", "64.98", "3290.00", "29200.25", "585.01", 0, 1, "696.66"),
		"cards":  []any{visaWant}})

	empty := map[string]any{"currency": "PHP", "rates_as_of": nil, "missing_rates": []any{},
		"totals": metricFigures("0.00", "0.00", "0.00", "0.00", "0.00", "0.00", "0.00", 0, 0, "0.00"), "cards": []any{}}
	// An archived card needs includeArchived; another user's card gives nothing.
	checkExactData(t, alice.do(t, http.MethodGet, "/api/v1/credit-cards/metrics?cardId="+old.ID, "", http.StatusOK), empty)
	checkExactData(t, bob.do(t, http.MethodGet, "/api/v1/credit-cards/metrics?includeArchived=true&cardId="+visa.ID, "", http.StatusOK), empty)
	checkExactData(t, alice.do(t, http.MethodGet, "/api/v1/credit-cards/metrics?cardId="+unknownID, "", http.StatusOK), empty)

	// April 6: the March statement is overdue; Mastercard's March 28 and the
	// archived card's April 1 statements are generated; April's installment
	// is the commitment.
	moveLedgerClock(env, time.Date(2025, 4, 6, 2, 0, 0, 0, time.UTC))
	res = alice.do(t, http.MethodGet, "/api/v1/credit-cards/metrics", "", http.StatusOK)
	var m finance.CardMetrics
	res.decodeData(t, &m)
	mcSOAs, _ := page[finance.SOA](t, alice, "/api/v1/credit-cards/soa?cardId="+master.ID)
	if len(mcSOAs) != 1 {
		t.Fatalf("Mastercard statements: %+v", mcSOAs)
	}
	checkExactData(t, res, map[string]any{"currency": "PHP", "rates_as_of": nil, "missing_rates": []any{},
		"totals": metricFigures("60000.00", "41490.25", "18509.75", "69.15", "3290.00", "38200.25", "1085.01", 1, 1, "696.66"),
		"cards": []any{
			metricCard(master, "active",
				metricFigures("10000.00", "9000.00", "1000.00", "90.00", "0.00", "9000.00", "500.00", 0, 0, "0.00"),
				"critical", "2025-04-28", map[string]any{"soa_id": mcSOAs[0].ID, "due_date": "2025-04-18", "remaining": jsonMoney("9000.00")}),
			metricCard(visa, "active",
				metricFigures("50000.00", "32490.25", "17509.75", "64.98", "3290.00", "29200.25", "585.01", 1, 1, "696.66"),
				"moderate", "2025-04-15", visaNextDue),
		}})

	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "malformed cardId and includeArchived", method: http.MethodGet,
			url: "/api/v1/credit-cards/metrics?cardId=visa&includeArchived=yes", wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("cardId", "must be a UUID", "includeArchived", "must be true or false")}),
		alice.sc(apiScenario{name: "includeArchived in another case", method: http.MethodGet,
			url: "/api/v1/credit-cards/metrics?includeArchived=TRUE", wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("includeArchived", "must be true or false")}),
		alice.sc(apiScenario{name: "a parameter of another route", method: http.MethodGet,
			url: "/api/v1/credit-cards/metrics?month=2025-03", wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
	})
}

// The utilization level bands: below 30 low, below 70 moderate, below 90
// high, from 90 critical.
func TestCardMetricsUtilizationLevels(t *testing.T) {
	_, alice, _ := newSpendingEnv(t)
	for _, tc := range []struct{ owed, level string }{
		{"29.99", "low"}, {"30.00", "moderate"}, {"69.99", "moderate"}, {"70.00", "high"},
		{"89.99", "high"}, {"90.00", "critical"}, {"120.00", "critical"},
	} {
		c := alice.createCard(t, `{"name":"Owes `+tc.owed+`","credit_limit":100,"statement_day":28,"due_day":5}`)
		alice.createCardRow(t, `{"credit_card_id":"`+c.ID+`","type":"fee","amount":"`+tc.owed+`","date":"2025-03-01","description":"x"}`)
		res := alice.do(t, http.MethodGet, "/api/v1/credit-cards/metrics?cardId="+c.ID, "", http.StatusOK)
		var m finance.CardMetrics
		res.decodeData(t, &m)
		if len(m.Cards) != 1 || m.Cards[0].UtilizationPercent.String() != tc.owed || m.Cards[0].UtilizationLevel != tc.level {
			t.Errorf("owing %s of 100.00: %+v, want level %s", tc.owed, m.Cards, tc.level)
		}
	}
	// A card with credits above its charges is at 0%.
	c := alice.createCard(t, `{"name":"Credit","credit_limit":100,"statement_day":28,"due_day":5}`)
	alice.createCardRow(t, `{"credit_card_id":"`+c.ID+`","type":"refund","amount":"5","date":"2025-03-01","description":"x","category":"Shopping"}`)
	res := alice.do(t, http.MethodGet, "/api/v1/credit-cards/metrics?cardId="+c.ID, "", http.StatusOK)
	if got := rawField(t, res, "cards"); !bytes.Contains([]byte(got), []byte(`"outstanding_balance":-5.00,"available_credit":105.00,"utilization_percent":0.00`)) ||
		!bytes.Contains([]byte(got), []byte(`"utilization_level":"low"`)) {
		t.Errorf("over-refunded card: %s", got)
	}
}

// Statements are generated on the day after their statement date by any
// request under /credit-cards, billing the card's unbilled rows dated on or
// before it, and the generation is logged.
func TestStatementGeneratedOnTheDayAfterItsDate(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	visa := alice.createCard(t, `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5}`)
	fee := alice.createCardRow(t, `{"credit_card_id":"`+visa.ID+`","type":"fee","amount":"1500.00","date":"2025-03-14","description":"Annual fee"}`)
	later := alice.createCardRow(t, `{"credit_card_id":"`+visa.ID+`","type":"fee","amount":"1.00","date":"2025-03-16","description":"Late"}`)

	// On the statement date itself nothing is generated yet.
	moveLedgerClock(env, time.Date(2025, 3, 15, 2, 0, 0, 0, time.UTC))
	if soas, _ := page[finance.SOA](t, alice, "/api/v1/credit-cards/soa"); len(soas) != 0 {
		t.Fatalf("statements on the statement date: %+v", soas)
	}
	moveLedgerClock(env, time.Date(2025, 3, 16, 2, 0, 0, 0, time.UTC))
	got := alice.getCard(t, visa.ID)
	if got.OpenSOACount != 1 || got.OpenStatementBalance != 1500_00 || got.NextDueDate.String() != "2025-04-05" || got.UnbilledTotal != 1_00 {
		t.Errorf("card after generation: %+v", got.CardFigures)
	}
	soas, _ := page[finance.SOA](t, alice, "/api/v1/credit-cards/soa")
	if len(soas) != 1 || soas[0].StatementDate.String() != "2025-03-15" || soas[0].StatementBalance != 1500_00 {
		t.Fatalf("statements: %+v", soas)
	}
	if row := alice.getCardRow(t, fee.ID); row.Status != finance.CardBilled || row.SOAID == nil || *row.SOAID != soas[0].ID {
		t.Errorf("the fee after generation: %+v", row)
	}
	if row := alice.getCardRow(t, later.ID); row.Status != finance.CardUnbilled {
		t.Errorf("the row after the statement date: %+v", row)
	}
	logs, _ := page[finance.CardLog](t, alice, "/api/v1/credit-cards/logs?action=generated")
	if len(logs) != 1 || logs[0].EntityID != soas[0].ID || logs[0].Message != "Statement of 2025-03-15 generated for Visa: 1 transactions, balance 1500.00, due 2025-04-05" {
		t.Errorf("generation log: %+v", logs)
	}
}

// The usage summary of a month: rows dated in it, converted purchases
// included, split purchases by their parts, payments and statements of the
// month; archived cards only with activity in the month.
func TestCardUsageSummary(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	// Everything is recorded on March 1, before the March 5 statement.
	moveLedgerClock(env, time.Date(2025, 3, 1, 2, 0, 0, 0, time.UTC))
	visa := alice.createCard(t, `{"name":"Visa","credit_limit":100000,"statement_day":5,"due_day":25,"cycle_start_date":"2025-02-01"}`)
	old := alice.createCard(t, `{"name":"Old","credit_limit":1000,"statement_day":20,"due_day":10}`)
	dormant := alice.createCard(t, `{"name":"Dormant","credit_limit":1000,"statement_day":15,"due_day":5,"cycle_start_date":"2025-02-01"}`)
	empty := alice.createCard(t, `{"name":"Empty","credit_limit":1000,"statement_day":1,"due_day":20}`)
	bobs := bob.createCard(t, `{"name":"Bob's","credit_limit":100,"statement_day":1,"due_day":2}`)
	row := func(c finance.CreditCard, body string) finance.CardTransaction {
		return alice.createCardRow(t, `{"credit_card_id":"`+c.ID+`",`+body)
	}
	cardExpense := func(body string) finance.Expense {
		return alice.createExpense(t, `{"payment_method":"Credit Card","credit_card_id":"`+visa.ID+`",`+body)
	}
	cardExpense(`"amount":"1000.00","date":"2025-03-01","description":"Market","category":"Groceries"}`)
	tv := row(visa, `"type":"purchase","amount":"3000.00","date":"2025-03-02","description":"TV","category":"Shopping"}`)
	storeInstallmentPlan(t, env, alice.user.ID, tv, finance.PlanActive,
		storedPlanRow{"2025-03-02", 1000_00, 15_00, finance.CardUnbilled},
		storedPlanRow{"2025-04-02", 1000_00, 15_00, finance.CardUnbilled},
		storedPlanRow{"2025-05-02", 1000_00, 15_00, finance.CardUnbilled})
	dinner := cardExpense(`"amount":"600.00","date":"2025-03-03","description":"Dinner and cab","category":"Food & Dining"}`)
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+dinner.ID+"/split",
		`{"parts":[{"amount":"400.00","category":"Food & Dining"},{"amount":"200.00","category":"Transportation"}]}`, http.StatusOK)
	row(visa, `"type":"purchase","amount":"250.00","date":"2025-03-04","description":"Taxi","category":"Transportation"}`)
	oops := row(visa, `"type":"purchase","amount":"999.00","date":"2025-03-04","description":"Mistake","category":"Shopping"}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+oops.ID, "", http.StatusOK)
	row(visa, `"type":"purchase","amount":"70.00","date":"2025-02-28","description":"Bread","category":"Groceries"}`)
	row(visa, `"type":"purchase","amount":"50.00","date":"2025-03-31","description":"Vitamins","category":"Health & Medical"}`)
	row(visa, `"type":"purchase","amount":"50.00","date":"2025-03-08","description":"Cinema","category":"Entertainment"}`)
	row(visa, `"type":"purchase","amount":"500.00","date":"2025-04-01","description":"Shoes","category":"Shopping"}`)
	row(visa, `"type":"fee","amount":"100.00","date":"2025-03-05","description":"Late fee"}`)
	row(visa, `"type":"interest","amount":"45.50","date":"2025-03-06","description":"Finance charge"}`)
	row(visa, `"type":"refund","amount":"80.00","date":"2025-03-07","description":"Returned shirt","category":"Shopping"}`)
	row(old, `"type":"fee","amount":"10.00","date":"2025-03-09","description":"Fee"}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+old.ID, "", http.StatusOK)
	row(dormant, `"type":"purchase","amount":"300.00","date":"2025-02-10","description":"Books","category":"Education"}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+dormant.ID, "", http.StatusOK)

	// March 11: the March 5 statement bills 1,000.00 + 1,015.00 (the first
	// installment) + 600.00 + 250.00 + 70.00 + 100.00; it is paid 500.00 in
	// March and 200.00 dated April 1.
	moveLedgerClock(env, ledgerNow)
	visaSOAs, _ := page[finance.SOA](t, alice, "/api/v1/credit-cards/soa?cardId="+visa.ID)
	if len(visaSOAs) != 1 || visaSOAs[0].StatementBalance != 3035_00 {
		t.Fatalf("Visa statements: %+v", visaSOAs)
	}
	march := visaSOAs[0]
	acc := alice.createAccount(t, `{"name":"Savings","type":"savings","opening_balance":10000}`)
	for _, body := range []string{`{"amount":500,"date":"2025-03-10","account_id":"` + acc.ID + `"}`, `{"amount":200,"date":"2025-04-01","account_id":"` + acc.ID + `"}`} {
		alice.do(t, http.MethodPost, "/api/v1/credit-cards/soa/"+march.ID+"/payments", body, http.StatusCreated)
	}
	dormantSOAs, _ := page[finance.SOA](t, alice, "/api/v1/credit-cards/soa?cardId="+dormant.ID)
	if len(dormantSOAs) != 1 || dormantSOAs[0].StatementDate.String() != "2025-02-15" {
		t.Fatalf("Dormant statements: %+v", dormantSOAs)
	}

	usage := func(purchases string, count int, fees, interest, refunds, installments, payments string) map[string]any {
		return map[string]any{"purchases_total": jsonMoney(purchases), "purchases_count": count, "fees_total": jsonMoney(fees),
			"interest_total": jsonMoney(interest), "refunds_total": jsonMoney(refunds), "installments_total": jsonMoney(installments),
			"payments_total": jsonMoney(payments)}
	}
	card := func(c finance.CreditCard, status string, figures map[string]any, statements []any, top ...any) map[string]any {
		out := map[string]any{"id": c.ID, "name": c.Name, "status": status, "currency": "PHP", "statements": statements,
			"top_categories": append([]any{}, top...)}
		for k, v := range figures {
			out[k] = v
		}
		return out
	}
	cat := func(name, amount string) any { return map[string]any{"category": name, "amount": jsonMoney(amount)} }
	none := usage("0.00", 0, "0.00", "0.00", "0.00", "0.00", "0.00")

	// March. Visa: purchases 1,000 + 3,000 (converted, still a purchase) +
	// 600 (split) + 250 + 50 + 50; the voided one, February's and April's
	// are out. Interest 45.50 + 15.00 of the installment. Top categories:
	// Transportation is 250 + the 200 part; Entertainment and Health &
	// Medical tie at 50 and the name decides.
	visaMarch := card(visa, "active", usage("4950.00", 6, "100.00", "60.50", "80.00", "1015.00", "500.00"),
		[]any{map[string]any{"id": march.ID, "statement_date": "2025-03-05", "statement_balance": jsonMoney("3035.00"),
			"due_date": "2025-03-25", "status": "partially_paid"}},
		cat("Shopping", "3000.00"), cat("Groceries", "1000.00"), cat("Transportation", "450.00"), cat("Food & Dining", "400.00"),
		cat("Entertainment", "50.00"))
	res := alice.do(t, http.MethodGet, "/api/v1/credit-cards/usage-summary?month=2025-03", "", http.StatusOK)
	if res.message() != "Credit card usage summary retrieved" {
		t.Errorf("message = %q", res.message())
	}
	checkExactData(t, res, map[string]any{"month": "2025-03", "currency": "PHP", "rates_as_of": nil, "missing_rates": []any{},
		"cards": []any{
			card(empty, "active", none, []any{}),
			card(old, "archived", usage("0.00", 0, "10.00", "0.00", "0.00", "0.00", "0.00"), []any{}),
			visaMarch,
		},
		"totals": usage("4950.00", 6, "110.00", "60.50", "80.00", "1015.00", "500.00")})
	// The current month is the default.
	checkExactData(t, alice.do(t, http.MethodGet, "/api/v1/credit-cards/usage-summary?cardId="+visa.ID, "", http.StatusOK),
		map[string]any{"month": "2025-03", "currency": "PHP", "rates_as_of": nil, "missing_rates": []any{}, "cards": []any{visaMarch},
			"totals": usage("4950.00", 6, "100.00", "60.50", "80.00", "1015.00", "500.00")})

	// February: the archived card is in, with its statement; Old is out.
	res = alice.do(t, http.MethodGet, "/api/v1/credit-cards/usage-summary?month=2025-02", "", http.StatusOK)
	checkExactData(t, res, map[string]any{"month": "2025-02", "currency": "PHP", "rates_as_of": nil, "missing_rates": []any{},
		"cards": []any{
			card(dormant, "archived", usage("300.00", 1, "0.00", "0.00", "0.00", "0.00", "0.00"),
				[]any{map[string]any{"id": dormantSOAs[0].ID, "statement_date": "2025-02-15", "statement_balance": jsonMoney("300.00"),
					"due_date": "2025-03-05", "status": "unpaid"}},
				cat("Education", "300.00")),
			card(empty, "active", none, []any{}),
			card(visa, "active", usage("70.00", 1, "0.00", "0.00", "0.00", "0.00", "0.00"), []any{}, cat("Groceries", "70.00")),
		},
		"totals": usage("370.00", 1+1, "0.00", "0.00", "0.00", "0.00", "0.00")})

	// April: a purchase, the second installment and the payment dated April 1.
	res = alice.do(t, http.MethodGet, "/api/v1/credit-cards/usage-summary?month=2025-04&cardId="+visa.ID, "", http.StatusOK)
	checkExactData(t, res, map[string]any{"month": "2025-04", "currency": "PHP", "rates_as_of": nil, "missing_rates": []any{},
		"cards":  []any{card(visa, "active", usage("500.00", 1, "0.00", "15.00", "0.00", "1015.00", "200.00"), []any{}, cat("Shopping", "500.00"))},
		"totals": usage("500.00", 1, "0.00", "15.00", "0.00", "1015.00", "200.00")})

	// An archived card without activity, another user's card: no cards.
	noCards := map[string]any{"month": "2025-03", "currency": "PHP", "rates_as_of": nil, "missing_rates": []any{}, "cards": []any{}, "totals": none}
	checkExactData(t, alice.do(t, http.MethodGet, "/api/v1/credit-cards/usage-summary?month=2025-03&cardId="+dormant.ID, "", http.StatusOK), noCards)
	checkExactData(t, bob.do(t, http.MethodGet, "/api/v1/credit-cards/usage-summary?month=2025-03&cardId="+visa.ID, "", http.StatusOK), noCards)
	checkExactData(t, alice.do(t, http.MethodGet, "/api/v1/credit-cards/usage-summary?month=2025-03&cardId="+bobs.ID, "", http.StatusOK), noCards)

	// The database is as the summary says: the purchase stayed converted
	// with its expense, and the statement holds both payments.
	ctx := context.Background()
	if got, err := env.db.Read().CardTransaction(ctx, alice.user.ID, tv.ID); err != nil || got.Status != finance.CardConverted {
		t.Errorf("converted purchase: %+v, %v", got, err)
	}
	if e := alice.getExpense(t, *tv.ExpenseID); e.Status != finance.StatusActive || e.Amount != 3000_00 {
		t.Errorf("the converted purchase's expense: %+v", e)
	}
	if got, err := env.db.Read().SOA(ctx, alice.user.ID, march.ID); err != nil || got.PaidTotal != 700_00 || got.Status != finance.SOAPartiallyPaid {
		t.Errorf("stored statement: %+v, %v", got, err)
	}

	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "month 13 and a malformed card", method: http.MethodGet,
			url: "/api/v1/credit-cards/usage-summary?month=2025-13&cardId=visa", wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("month", "must be a month in YYYY-MM format between 1900-01 and 2100-12", "cardId", "must be a UUID")}),
		alice.sc(apiScenario{name: "one-digit month", method: http.MethodGet, url: "/api/v1/credit-cards/usage-summary?month=2025-3",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("month", "must be a month in YYYY-MM format between 1900-01 and 2100-12")}),
		alice.sc(apiScenario{name: "a date", method: http.MethodGet, url: "/api/v1/credit-cards/usage-summary?month=2025-03-01",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("month", "must be a month in YYYY-MM format between 1900-01 and 2100-12")}),
		alice.sc(apiScenario{name: "before 1900", method: http.MethodGet, url: "/api/v1/credit-cards/usage-summary?month=1899-12",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("month", "must be a month in YYYY-MM format between 1900-01 and 2100-12")}),
	})

	// The current month is the user's: 16:30 UTC on March 31 is already
	// April 1 in Manila.
	moveLedgerClock(env, time.Date(2025, 3, 31, 16, 30, 0, 0, time.UTC))
	res = alice.do(t, http.MethodGet, "/api/v1/credit-cards/usage-summary?cardId="+visa.ID, "", http.StatusOK)
	if got := rawField(t, res, "month"); got != `"2025-04"` {
		t.Errorf("default month at 2025-03-31T16:30Z = %s, want 2025-04", got)
	}
}

// Every card-related change appends one entry, in its own transaction;
// changes to anything else append none.
func TestCardLogEntries(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	step := 0
	// tick moves the clock one minute per change, so each entry has its own
	// created_at and the list order is the order of the changes.
	tick := func() time.Time {
		step++
		at := ledgerNow.Add(time.Duration(step) * time.Minute)
		moveLedgerClock(env, at)
		return at
	}
	type want struct {
		card       string
		entityType string
		entityID   string
		action     string
		message    string
		amount     *finance.Money
		at         time.Time
	}
	amount := func(m finance.Money) *finance.Money { return &m }
	var wants []want
	expect := func(w want) { wants = append(wants, w) }

	at := tick()
	visa := alice.createCard(t, `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5}`)
	expect(want{visa.ID, "credit_card", visa.ID, "created", "Credit card Visa added: limit 50000.00, statement day 15, due day 5", amount(50000_00), at})
	at = tick()
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/"+visa.ID, `{"credit_limit":60000,"notes":"main card","due_day":7}`, http.StatusOK)
	expect(want{visa.ID, "credit_card", visa.ID, "updated", "Credit card Visa updated: credit limit 50000.00 → 60000.00, due day 5 → 7, notes", amount(60000_00), at})
	at = tick()
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/"+visa.ID, `{"name":"Visa Gold"}`, http.StatusOK)
	expect(want{visa.ID, "credit_card", visa.ID, "updated", `Credit card Visa Gold updated: name "Visa" → "Visa Gold"`, nil, at})
	at = tick()
	master := alice.createCard(t, `{"name":"Mastercard","credit_limit":"1000.50","statement_day":1,"due_day":20}`)
	expect(want{master.ID, "credit_card", master.ID, "created", "Credit card Mastercard added: limit 1000.50, statement day 1, due day 20", amount(1000_50), at})

	// Card transactions through their own routes.
	at = tick()
	fee := alice.createCardRow(t, `{"credit_card_id":"`+visa.ID+`","type":"fee","amount":1500,"date":"2025-03-01","description":"Annual fee"}`)
	expect(want{visa.ID, "card_transaction", fee.ID, "created", `Fee "Annual fee" of 1500.00 recorded on Visa Gold`, amount(1500_00), at})
	at = tick()
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/transactions/"+fee.ID, `{"amount":"1200","description":"Annual fee, half"}`, http.StatusOK)
	expect(want{visa.ID, "card_transaction", fee.ID, "updated",
		`Fee "Annual fee, half" on Visa Gold updated: amount 1500.00 → 1200.00, description "Annual fee" → "Annual fee, half"`, amount(1200_00), at})
	at = tick()
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+fee.ID, "", http.StatusOK)
	expect(want{visa.ID, "card_transaction", fee.ID, "voided", `Fee "Annual fee, half" of 1200.00 voided on Visa Gold`, amount(1200_00), at})
	at = tick()
	lunch := alice.createCardRow(t, `{"credit_card_id":"`+visa.ID+`","type":"purchase","amount":250,"date":"2025-03-02","description":"Lunch","category":"Food & Dining"}`)
	expect(want{visa.ID, "card_transaction", lunch.ID, "created", `Purchase "Lunch" of 250.00 recorded on Visa Gold`, amount(250_00), at})
	at = tick()
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/transactions/"+lunch.ID, `{"category":"Groceries","credit_card_id":"`+master.ID+`"}`, http.StatusOK)
	expect(want{master.ID, "card_transaction", lunch.ID, "updated",
		`Purchase "Lunch" on Mastercard updated: card Visa Gold → Mastercard, category "Food & Dining" → "Groceries"`, amount(250_00), at})

	// The card rows of Credit Card expenses.
	at = tick()
	coffee := alice.createExpense(t, `{"amount":"99.50","date":"2025-03-03","description":"Coffee","category":"Food & Dining",
		"payment_method":"Credit Card","credit_card_id":"`+visa.ID+`"}`)
	first := *coffee.CardTransactionID
	expect(want{visa.ID, "card_transaction", first, "created", `Purchase "Coffee" of 99.50 recorded on Visa Gold`, amount(99_50), at})
	at = tick()
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+coffee.ID, `{"amount":120,"date":"2025-03-04"}`, http.StatusOK)
	expect(want{visa.ID, "card_transaction", first, "updated",
		`Purchase "Coffee" on Visa Gold updated: amount 99.50 → 120.00, date 2025-03-03 → 2025-03-04`, amount(120_00), at})
	tick() // the category lives on the expense: the card row is not written
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+coffee.ID, `{"category":"Groceries","notes":"beans"}`, http.StatusOK)
	at = tick()
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+coffee.ID, `{"payment_method":"Cash","credit_card_id":null}`, http.StatusOK)
	expect(want{visa.ID, "card_transaction", first, "voided", `Purchase "Coffee" of 120.00 voided on Visa Gold`, amount(120_00), at})
	at = tick()
	coffee = send[finance.Expense](t, alice, http.MethodPut, "/api/v1/expenses/"+coffee.ID,
		`{"payment_method":"Credit Card","credit_card_id":"`+master.ID+`"}`, http.StatusOK)
	second := *coffee.CardTransactionID
	expect(want{master.ID, "card_transaction", second, "created", `Purchase "Coffee" of 120.00 recorded on Mastercard`, amount(120_00), at})
	at = tick()
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+coffee.ID, "", http.StatusOK)
	expect(want{master.ID, "card_transaction", second, "voided", `Purchase "Coffee" of 120.00 voided on Mastercard`, amount(120_00), at})
	at = tick()
	bulk := send[finance.BulkExpenses](t, alice, http.MethodPost, "/api/v1/expenses/bulk", `{"items":[
		{"amount":5,"date":"2025-03-05","description":"Gum","category":"Groceries","payment_method":"Credit Card","credit_card_id":"`+visa.ID+`"},
		{"amount":6,"date":"2025-03-05","description":"Cash gum","category":"Groceries","payment_method":"Cash"},
		{"amount":7,"date":"2025-03-05","description":"Mints","category":"Groceries","payment_method":"Credit Card","credit_card_id":"`+master.ID+`"}]}`,
		http.StatusCreated)
	expect(want{visa.ID, "card_transaction", *bulk.Items[0].CardTransactionID, "created", `Purchase "Gum" of 5.00 recorded on Visa Gold`, amount(5_00), at})
	expect(want{master.ID, "card_transaction", *bulk.Items[2].CardTransactionID, "created", `Purchase "Mints" of 7.00 recorded on Mastercard`, amount(7_00), at})

	// Archive and unarchive.
	at = tick()
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+visa.ID, "", http.StatusOK)
	expect(want{visa.ID, "credit_card", visa.ID, "archived", "Credit card Visa Gold archived with 5.00 outstanding", nil, at})
	at = tick()
	alice.do(t, http.MethodPatch, "/api/v1/credit-cards/"+visa.ID+"/unarchive", "", http.StatusOK)
	expect(want{visa.ID, "credit_card", visa.ID, "unarchived", "Credit card Visa Gold unarchived", nil, at})

	// Changes to anything else log nothing, and neither do refused writes
	// or updates that change nothing.
	tick()
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/"+visa.ID, `{"name":"Visa Gold","credit_limit":"60000.00"}`, http.StatusOK)
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/transactions/"+lunch.ID, `{"description":" Lunch ","amount":250}`, http.StatusOK)
	acc := alice.createAccount(t, `{"name":"Wallet","type":"cash"}`)
	alice.createExpense(t, `{"amount":1,"date":"2025-03-05","description":"Candy","category":"Groceries","payment_method":"Account Debit","account_id":"`+acc.ID+`"}`)
	alice.do(t, http.MethodPost, "/api/v1/categories", `{"name":"Hobbies","kind":"expense"}`, http.StatusCreated)
	alice.do(t, http.MethodPost, "/api/v1/credit-cards", `{"name":"mastercard","credit_limit":1,"statement_day":1,"due_day":1}`, http.StatusBadRequest)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+fee.ID, "", http.StatusBadRequest)
	alice.do(t, http.MethodPatch, "/api/v1/credit-cards/"+master.ID+"/unarchive", "", http.StatusBadRequest)
	bob.createCard(t, `{"name":"Bob's","credit_limit":1,"statement_day":1,"due_day":1}`)

	// Newest first; the bulk write's two entries share a second, and the
	// id, newest first, breaks the tie.
	got, p := page[finance.CardLog](t, alice, "/api/v1/credit-cards/logs?limit=100")
	if p.TotalItems != len(wants) {
		t.Errorf("total_items = %d, want %d", p.TotalItems, len(wants))
	}
	var gotEntries, wantEntries []finance.CardLog
	for i := len(wants) - 1; i >= 0; i-- {
		w := wants[i]
		wantEntries = append(wantEntries, finance.CardLog{CreditCardID: &w.card, EntityType: w.entityType, EntityID: w.entityID,
			Action: w.action, Message: w.message, Amount: w.amount, CreatedAt: w.at})
	}
	for _, g := range got {
		if !finance.ValidID(g.ID) {
			t.Errorf("entry id %q", g.ID)
		}
		g.ID = ""
		gotEntries = append(gotEntries, g)
	}
	if diff := cmp.Diff(wantEntries, gotEntries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	// The route reads exactly what the store holds.
	stored, _, err := env.db.Read().ListCardLogs(context.Background(), alice.user.ID, finance.CardLogFilter{},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "created_at", Desc: true})
	if err != nil || len(stored) != len(got) || stored[0].ID != got[0].ID {
		t.Errorf("stored entries: %d, %v", len(stored), err)
	}
	// Amounts are money on the wire; entries without one leave it out.
	res := alice.do(t, http.MethodGet, "/api/v1/credit-cards/logs?limit=1&entity_type=credit_card&action=created&cardId="+master.ID, "", http.StatusOK)
	if !bytes.Contains(res.env.Data, []byte(`"amount":1000.50,"created_at":"2025-03-10T20:04:00Z"`)) {
		t.Errorf("entry JSON: %s", res.env.Data)
	}
	res = alice.do(t, http.MethodGet, "/api/v1/credit-cards/logs?limit=1&action=unarchived", "", http.StatusOK)
	if bytes.Contains(res.env.Data, []byte(`"amount"`)) {
		t.Errorf("entry JSON: %s", res.env.Data)
	}
	if items, _ := page[finance.CardLog](t, bob, "/api/v1/credit-cards/logs"); len(items) != 1 || items[0].Message != "Credit card Bob's added: limit 1.00, statement day 1, due day 1" {
		t.Errorf("Bob's log: %+v", items)
	}
}

// The log's filters, paging and date bounds, which are days in the user's
// timezone (Asia/Manila, UTC+8).
func TestCardLogFilters(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	visa := alice.createCard(t, `{"name":"Visa","credit_limit":1000,"statement_day":15,"due_day":5}`)
	fee := alice.createCardRow(t, `{"credit_card_id":"`+visa.ID+`","type":"fee","amount":10,"date":"2025-03-01","description":"Fee"}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+fee.ID, "", http.StatusOK)
	// 23:59:59 on March 11 and 00:00:00 on March 12 in Manila.
	moveLedgerClock(env, time.Date(2025, 3, 11, 15, 59, 59, 0, time.UTC))
	late := alice.createCard(t, `{"name":"Midnight late","credit_limit":1000,"statement_day":15,"due_day":5}`)
	moveLedgerClock(env, time.Date(2025, 3, 11, 16, 0, 0, 0, time.UTC))
	early := alice.createCard(t, `{"name":"Midnight early","credit_limit":1000,"statement_day":15,"due_day":5}`)
	bob.createCard(t, `{"name":"Midnight Bob","credit_limit":1000,"statement_day":15,"due_day":5}`)

	entities := func(u ledgerUser, query string) []string {
		items, p := page[finance.CardLog](t, u, "/api/v1/credit-cards/logs?"+query)
		if p.TotalItems < len(items) {
			t.Errorf("%s: total_items %d below the page's %d", query, p.TotalItems, len(items))
		}
		return ids(items, func(l finance.CardLog) string { return l.EntityID + " " + l.Action })
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{early.ID + " created", late.ID + " created", fee.ID + " voided", fee.ID + " created", visa.ID + " created"}},
		{"sortOrder=asc&limit=2", []string{visa.ID + " created", fee.ID + " created"}},
		{"limit=2&page=2", []string{fee.ID + " voided", fee.ID + " created"}},
		{"page=9", nil},
		{"cardId=" + visa.ID, []string{fee.ID + " voided", fee.ID + " created", visa.ID + " created"}},
		{"action=voided", []string{fee.ID + " voided"}},
		{"entity_type=card_transaction&action=created", []string{fee.ID + " created"}},
		{"search=MIDNIGHT", []string{early.ID + " created", late.ID + " created"}},
		{"search=midnight&dateTo=2025-03-11", []string{late.ID + " created"}},
		{"search=midnight&dateFrom=2025-03-12", []string{early.ID + " created"}},
		{"search=midnight&dateFrom=2025-03-12&dateTo=2025-03-12", []string{early.ID + " created"}},
		{"search=midnight&dateFrom=2025-03-11&dateTo=2025-03-11", []string{late.ID + " created"}},
		{"dateTo=2025-03-10", nil}, // the first entries were made at 20:00 UTC on March 10: March 11 in Manila
		{"dateFrom=2025-03-11&dateTo=2025-03-11", []string{late.ID + " created", fee.ID + " voided", fee.ID + " created", visa.ID + " created"}},
		{"cardId=" + unknownID, nil},
		{"search=%25", nil},
	} {
		got := entities(alice, tc.query)
		if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("?%s (-want +got):\n%s", tc.query, diff)
		}
	}
	if got := entities(bob, "cardId="+visa.ID); len(got) != 0 {
		t.Errorf("Bob filtering on Alice's card: %v", got)
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "unknown action and entity type", method: http.MethodGet,
			url: "/api/v1/credit-cards/logs?action=deleted&entity_type=card", wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf(
				"action", "must be one of: created, updated, archived, unarchived, voided, generated, linked, unlinked, paid, converted, cancelled, completed",
				"entity_type", "must be one of: credit_card, card_transaction, soa, soa_payment, installment_plan")}),
		alice.sc(apiScenario{name: "sort by message, malformed card", method: http.MethodGet,
			url: "/api/v1/credit-cards/logs?sortBy=message&cardId=visa", wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("sortBy", "must be one of: created_at", "cardId", "must be a UUID")}),
		alice.sc(apiScenario{name: "reversed and malformed dates", method: http.MethodGet,
			url: "/api/v1/credit-cards/logs?dateFrom=2025-03-12&dateTo=2025-03-11", wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("dateFrom", "must not be after dateTo")}),
		alice.sc(apiScenario{name: "a date with a time", method: http.MethodGet,
			url: "/api/v1/credit-cards/logs?dateTo=2025-03-11T00:00:00Z&limit=0", wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("dateTo", problemDate, "limit", "must be an integer from 1 to 100")}),
		alice.sc(apiScenario{name: "upper-case action", method: http.MethodGet, url: "/api/v1/credit-cards/logs?action=CREATED",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
	})
}

// The three routes are reads of the card scope: finance:read and
// credit_cards:write reach them, other write scopes do not.
func TestCardFigureRoutesNeedTheirScope(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	readKey := env.createKey(alice.user.ID, auth.ScopeRead)
	cardsKey := env.createKey(alice.user.ID, auth.ScopeCardsWrite)
	expensesKey := env.createKey(alice.user.ID, auth.ScopeExpensesWrite)
	for _, url := range []string{"/api/v1/credit-cards/metrics", "/api/v1/credit-cards/usage-summary", "/api/v1/credit-cards/logs"} {
		for _, key := range []string{readKey, cardsKey} {
			apiScenario{method: http.MethodGet, url: url, headers: bearer(key), wantStatus: http.StatusOK}.run(t, env)
		}
		apiScenario{method: http.MethodGet, url: url, headers: bearer(expensesKey), wantStatus: http.StatusForbidden, wantCode: CodeForbidden}.run(t, env)
		apiScenario{method: http.MethodPost, url: url, headers: bearer(cardsKey), wantStatus: http.StatusMethodNotAllowed, wantCode: CodeValidation}.run(t, env)
	}
}
