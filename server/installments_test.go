package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// Helpers of the installment plan tests.

func convertURL(txID string) string {
	return "/api/v1/credit-cards/transactions/" + txID + "/convert-to-installment"
}

const plansURL = "/api/v1/credit-cards/installment-plans"

func (u ledgerUser) convert(t testing.TB, txID, body string) finance.InstallmentPlanDetail {
	t.Helper()
	return send[finance.InstallmentPlanDetail](t, u, http.MethodPost, convertURL(txID), body, http.StatusCreated)
}

func (u ledgerUser) plan(t testing.TB, id string) finance.InstallmentPlanDetail {
	t.Helper()
	return send[finance.InstallmentPlanDetail](t, u, http.MethodGet, plansURL+"/"+id, "", http.StatusOK)
}

func (u ledgerUser) cancelPlan(t testing.TB, id string) finance.InstallmentPlanDetail {
	t.Helper()
	return send[finance.InstallmentPlanDetail](t, u, http.MethodPost, plansURL+"/"+id+"/cancel", "", http.StatusOK)
}

func (u ledgerUser) summary(t testing.TB, from, to string) finance.ExpenseSummary {
	t.Helper()
	return send[finance.ExpenseSummary](t, u, http.MethodGet, "/api/v1/expenses/summary?dateFrom="+from+"&dateTo="+to, "", http.StatusOK)
}

// rowLines describes plan rows one per line, to compare schedules at a glance:
// "number date amount=principal+interest status" (number "-" on a
// pre-termination row).
func rowLines(rows []finance.CardTransaction) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		number := "-"
		if r.InstallmentNumber != nil {
			number = fmt.Sprint(*r.InstallmentNumber)
		}
		var principal, interest string
		if r.PrincipalPortion != nil {
			principal = r.PrincipalPortion.String()
		}
		if r.InterestPortion != nil {
			interest = r.InterestPortion.String()
		}
		out[i] = fmt.Sprintf("%s %s %s=%s+%s %s", number, r.Date, r.Amount, principal, interest, r.Status)
	}
	return out
}

// scheduleRun is count equal rows of a schedule.
type scheduleRun struct {
	count                       int
	amount, principal, interest string
}

// scheduleLines expands runs into rowLines for unbilled rows dated monthly
// from first.
func scheduleLines(first finance.Date, runs ...scheduleRun) []string {
	var out []string
	for _, r := range runs {
		for range r.count {
			k := len(out)
			out = append(out, fmt.Sprintf("%d %s %s=%s+%s unbilled", k+1, finance.MonthAdd(first, k, first.Day()),
				r.amount, r.principal, r.interest))
		}
	}
	return out
}

// cardLogs reads the user's activity log, oldest first, straight from the store.
func cardLogs(t testing.TB, env *testEnv, userID string) []finance.CardLog {
	t.Helper()
	logs, _, err := env.db.Read().ListCardLogs(context.Background(), userID, finance.CardLogFilter{},
		finance.ListParams{Page: 1, Limit: 10_000, SortBy: "created_at"})
	if err != nil {
		t.Fatalf("ListCardLogs: %v", err)
	}
	return logs
}

// logLines describes log entries about entityID as "entity_type action".
func logLines(logs []finance.CardLog, entityID string) []string {
	var out []string
	for _, l := range logs {
		if l.EntityID == entityID {
			out = append(out, l.EntityType+" "+l.Action)
		}
	}
	return out
}

// planState is everything a rejected installment request could have
// written: the spending state, plans, statements and the activity log.
type planState struct {
	Spending spendingState
	Plans    []finance.InstallmentPlan
	SOAs     []finance.SOA
	Logs     []finance.CardLog
}

func snapshotPlans(t testing.TB, env *testEnv, userID string) planState {
	t.Helper()
	ctx := context.Background()
	repo := env.db.Read()
	st := planState{Spending: snapshotSpending(t, env, userID), Logs: cardLogs(t, env, userID)}
	var err error
	st.Plans, _, err = repo.ListInstallmentPlans(ctx, userID, finance.PlanFilter{},
		finance.ListParams{Page: 1, Limit: 10_000, SortBy: "created_at"})
	if err != nil {
		t.Fatalf("ListInstallmentPlans: %v", err)
	}
	for _, status := range []string{"", finance.StatusVoided} {
		soas, _, err := repo.ListSOAs(ctx, userID, finance.SOAFilter{Status: status},
			finance.ListParams{Page: 1, Limit: 10_000, SortBy: "created_at"})
		if err != nil {
			t.Fatalf("ListSOAs: %v", err)
		}
		st.SOAs = append(st.SOAs, soas...)
	}
	return st
}

// runRejectedPlans runs scenarios that must fail and checks after each that
// neither user's data changed, plans, statements and the log included.
func runRejectedPlans(t *testing.T, env *testEnv, users []ledgerUser, scenarios []apiScenario) {
	t.Helper()
	runUnchanged(t, env, users, snapshotPlans, scenarios)
}

// The worked examples of domain.md §4.4 through the REST route, to the
// centavo, with what conversion does to the purchase, its expense, the card
// and the activity log.
func TestInstallmentConvertWorkedExamples(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	c := alice.createCard(t, `{"name":"Visa","credit_limit":100000,"statement_day":15,"due_day":5}`)
	tests := []struct {
		name, amount, body string
		first              finance.Date
		principal          finance.Money
		interest, payable  string
		rate, monthly      string // raw JSON of the plan's fields
		runs               []scheduleRun
	}{
		{name: "10,000.00 over 3 months, no interest", amount: "10000", body: `{"months":3}`,
			first: finance.NewDate(2025, 3, 11), principal: 10000_00, interest: "0.00", payable: "10000.00",
			rate: absent, monthly: absent,
			runs: []scheduleRun{{2, "3333.33", "3333.33", "0.00"}, {1, "3333.34", "3333.34", "0.00"}}},
		{name: "20,000.00 over 24 months, add-on 0.75%", amount: "20000.00",
			body:  `{"months":24,"interest_type":"add_on","interest_rate":"0.75","first_installment_date":"2025-04-01"}`,
			first: finance.NewDate(2025, 4, 1), principal: 20000_00, interest: "3600.00", payable: "23600.00",
			rate: "0.75", monthly: absent,
			runs: []scheduleRun{{23, "983.33", "833.33", "150.00"}, {1, "983.41", "833.41", "150.00"}}},
		{name: "12,345.67 over 5 months, add-on 0.5%", amount: "12345.67",
			body:  `{"months":"5","interest_type":"add_on","interest_rate":0.5,"description":" TV on installments "}`,
			first: finance.NewDate(2025, 3, 11), principal: 12345_67, interest: "308.64", payable: "12654.31",
			rate: "0.5", monthly: absent,
			runs: []scheduleRun{{4, "2530.85", "2469.13", "61.72"}, {1, "2530.91", "2469.15", "61.76"}}},
		{name: "20,000.00 over 24 months at a quoted 983.34", amount: "20000",
			body:  `{"months":24,"interest_type":"add_on","monthly_amount":"983.34","interest_rate":0.75}`,
			first: finance.NewDate(2025, 3, 11), principal: 20000_00, interest: "3600.16", payable: "23600.16",
			rate: "0.75", monthly: "983.34",
			runs: []scheduleRun{{23, "983.34", "833.34", "150.00"}, {1, "983.34", "833.18", "150.16"}}},
	}
	var outstanding finance.Money
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := alice.purchase(t, c.ID, tt.amount, "2025-03-11")
			expenseBefore := alice.getExpense(t, *p.ExpenseID)
			res := alice.do(t, http.MethodPost, convertURL(p.ID), tt.body, http.StatusCreated)
			if res.message() != "Purchase converted to an installment plan" {
				t.Errorf("message %q", res.message())
			}
			for path, want := range map[string]string{"principal": finance.Money(tt.principal).String(), "total_interest": tt.interest,
				"total_payable": tt.payable, "interest_rate": tt.rate, "monthly_amount": tt.monthly, "remaining_payable": tt.payable} {
				if got := rawField(t, res, path); got != want {
					t.Errorf("%s = %s, want %s", path, got, want)
				}
			}
			var got finance.InstallmentPlanDetail
			res.decodeData(t, &got)
			if diff := cmp.Diff(scheduleLines(tt.first, tt.runs...), rowLines(got.Installments)); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			for _, row := range got.Installments {
				if row.Type != finance.CardInstallment || row.CreditCardID != c.ID || row.InstallmentPlanID == nil ||
					*row.InstallmentPlanID != got.ID || row.ExpenseID != nil || row.Category != nil || row.SOAID != nil ||
					row.IsFuture != row.Date.After(finance.NewDate(2025, 3, 11)) {
					t.Errorf("row %+v", row)
				}
			}
			// The response is what is stored.
			if diff := cmp.Diff(got, alice.plan(t, got.ID), equateDates); diff != "" {
				t.Errorf("GET differs from the reply (-reply +get):\n%s", diff)
			}
			// The purchase is converted; its expense is untouched but for the
			// status it reports of its card row.
			if src := alice.getCardRow(t, p.ID); src.Status != finance.CardConverted || src.Amount != tt.principal {
				t.Errorf("source %+v", src)
			}
			expenseAfter := alice.getExpense(t, *p.ExpenseID)
			converted := finance.CardConverted
			expenseBefore.CardTransactionStatus = &converted
			if diff := cmp.Diff(expenseBefore, expenseAfter, equateDates); diff != "" {
				t.Errorf("the purchase's expense changed (-before +after):\n%s", diff)
			}
			// The card owes the rows (future ones included), not the converted purchase.
			total, _ := finance.ParseMoney(tt.payable)
			outstanding += total
			card := alice.getCard(t, c.ID)
			if card.OutstandingBalance != outstanding || card.UnbilledTotal != outstanding {
				t.Errorf("card outstanding %s, unbilled %s, want %s", card.OutstandingBalance, card.UnbilledTotal, outstanding)
			}
			logs := cardLogs(t, env, alice.user.ID)
			if diff := cmp.Diff([]string{"installment_plan created"}, logLines(logs, got.ID)); diff != "" {
				t.Errorf("plan log (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{"card_transaction created", "card_transaction converted"}, logLines(logs, p.ID)); diff != "" {
				t.Errorf("purchase log (-want +got):\n%s", diff)
			}
		})
	}

	// Every field of one plan.
	p := alice.purchase(t, c.ID, "600", "2025-03-02")
	got := alice.convert(t, p.ID, `{"months":2,"interest_type":"none","interest_rate":null,"monthly_amount":null,"description":null,"status":"completed"}`)
	first := finance.NewDate(2025, 3, 2)
	next := first
	want := finance.InstallmentPlan{ID: got.ID, CreditCardID: c.ID, CreditCardName: "Visa", Currency: "PHP", SourceTransactionID: p.ID,
		ExpenseID: p.ExpenseID, Description: "bought on 2025-03-02", Principal: 600_00, Months: 2, InterestType: finance.InterestNone,
		FirstInstallmentDate: first, TotalInterest: 0, TotalPayable: 600_00, Status: finance.PlanActive, RemainingCount: 2,
		RemainingPrincipal: 600_00, RemainingPayable: 600_00, NextInstallmentDate: &next, CreatedAt: ledgerNow, UpdatedAt: ledgerNow}
	if diff := cmp.Diff(want, got.InstallmentPlan, equateDates); diff != "" {
		t.Errorf("plan (-want +got):\n%s", diff)
	}
	if !finance.ValidID(got.ID) {
		t.Errorf("plan id %q", got.ID)
	}
	if rows := rowLines(got.Installments); !strings.HasPrefix(rows[1], "2 2025-04-02 300.00=300.00+0.00") ||
		got.Installments[0].Description != "bought on 2025-03-02 (installment 1 of 2)" {
		t.Errorf("rows %v, %q", rows, got.Installments[0].Description)
	}
}

// Row k is dated k−1 months after the first installment date, anchored on
// it: a month-end first date stays on each month's end.
func TestInstallmentConvertMonthEndDates(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	setToday(env, "2025-01-20") // the purchase is still unbilled
	c := alice.createCard(t, visaBody)
	p := alice.purchase(t, c.ID, "400", "2025-01-20")
	got := alice.convert(t, p.ID, `{"months":4,"first_installment_date":"2025-01-31"}`)
	var dates []string
	for _, r := range got.Installments {
		dates = append(dates, r.Date.String())
	}
	if diff := cmp.Diff([]string{"2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30"}, dates); diff != "" {
		t.Errorf("dates (-want +got):\n%s", diff)
	}
	if got.FirstInstallmentDate.String() != "2025-01-31" || got.NextInstallmentDate.String() != "2025-01-31" {
		t.Errorf("first %s, next %v", got.FirstInstallmentDate, got.NextInstallmentDate)
	}
}

func TestInstallmentConvertRejected(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	p := alice.purchase(t, c.ID, "1000", "2025-03-05")
	tiny := alice.purchase(t, c.ID, "1", "2025-03-05")
	post := func(name, id, body string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: convertURL(id), body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	state := func(name, id, body string, inMsg ...string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodPost, url: convertURL(id), body: body,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantInMsg: inMsg})
	}
	const (
		problemMonths   = "must be an integer from 2 to 60"
		problemRateNone = "must be absent when interest_type is none"
		problemNoRate   = "is required when interest_type is add_on, unless monthly_amount is given"
		problemMNone    = "must be absent when interest_type is none; a quoted monthly amount implies add_on interest"
		problemRate     = "must be a percent greater than 0 and at most 100, with at most 4 decimal places"
	)

	// Body shape (§1.1 step 3).
	shape := []apiScenario{
		post("months missing", p.ID, `{}`, fieldsOf("months", problemRequired)),
		post("months null", p.ID, `{"months":null}`, fieldsOf("months", problemRequired)),
		post("months 1", p.ID, `{"months":1}`, fieldsOf("months", problemMonths)),
		post("months 61", p.ID, `{"months":61}`, fieldsOf("months", problemMonths)),
		post("months x", p.ID, `{"months":"x"}`, fieldsOf("months", "must be an integer")),
		post("months 2.5", p.ID, `{"months":2.5}`, fieldsOf("months", "must be an integer")),
		post("unknown interest type", p.ID, `{"months":3,"interest_type":"flat"}`, fieldsOf("interest_type", "must be one of: none, add_on")),
		post("interest_rate with none", p.ID, `{"months":3,"interest_type":"none","interest_rate":1}`, fieldsOf("interest_rate", problemRateNone)),
		post("interest_rate with the default type", p.ID, `{"months":3,"interest_rate":"0.5"}`, fieldsOf("interest_rate", problemRateNone)),
		post("add_on without rate or amount", p.ID, `{"months":3,"interest_type":"add_on"}`, fieldsOf("interest_rate", problemNoRate)),
		post("add_on with null rate and amount", p.ID, `{"months":3,"interest_type":"add_on","interest_rate":null,"monthly_amount":null}`,
			fieldsOf("interest_rate", problemNoRate)),
		post("monthly_amount with none", p.ID, `{"months":3,"monthly_amount":400}`, fieldsOf("monthly_amount", problemMNone)),
		post("bad rate", p.ID, `{"months":3,"interest_type":"add_on","interest_rate":"0.12345"}`, fieldsOf("interest_rate", problemRate)),
		post("zero rate", p.ID, `{"months":3,"interest_type":"add_on","interest_rate":0}`, fieldsOf("interest_rate", problemRate)),
		post("zero monthly amount", p.ID, `{"months":3,"interest_type":"add_on","monthly_amount":0}`, fieldsOf("monthly_amount", problemPositive)),
		post("monthly amount with 3 decimals", p.ID, `{"months":3,"interest_type":"add_on","monthly_amount":"400.001"}`,
			fieldsOf("monthly_amount", problemMoney)),
		post("bad first date", p.ID, `{"months":3,"first_installment_date":"2025-02-30"}`, fieldsOf("first_installment_date", problemDate)),
		post("description too long", p.ID, `{"months":3,"description":"`+strings.Repeat("x", 256)+`"}`,
			fieldsOf("description", "must be at most 255 characters")),
		post("every problem at once", p.ID, `{"months":0,"interest_type":"none","interest_rate":2,"monthly_amount":5,"first_installment_date":"x"}`,
			fieldsOf("months", problemMonths, "interest_rate", problemRateNone, "monthly_amount", problemMNone, "first_installment_date", problemDate)),
		alice.sc(apiScenario{name: "no body", method: http.MethodPost, url: convertURL(p.ID),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
		alice.sc(apiScenario{name: "malformed JSON", method: http.MethodPost, url: convertURL(p.ID), body: `{"months":`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
	}
	// Checks against the purchase (§1.1 step 5).
	records := []apiScenario{
		post("first date before the purchase date", p.ID, `{"months":3,"first_installment_date":"2025-03-04"}`,
			fieldsOf("first_installment_date", "must not be before the purchase date 2025-03-05")),
		post("months × monthly_amount below the principal", p.ID, `{"months":3,"interest_type":"add_on","monthly_amount":"333.33"}`,
			fieldsOf("monthly_amount", "times 3 months is 999.99, less than the purchase amount 1000.00")),
		post("monthly_amount leaving a row without principal", tiny.ID, `{"months":60,"interest_type":"add_on","monthly_amount":1}`,
			fieldsOf("monthly_amount", "leaves installment 60 without principal: 1.18 of interest in a 1.00 payment")),
		post("last installment after 2100", p.ID, `{"months":12,"first_installment_date":"2100-06-30"}`,
			fieldsOf("first_installment_date", "puts the last installment on 2101-05-30, after 2100-12-31")),
	}

	// States (§1.1 step 4): a purchase billed by a real statement, a
	// converted one, a voided one, other row types, an installment row and a
	// purchase on an archived card.
	old := alice.createCard(t, `{"name":"Old cycle","credit_limit":50000,"statement_day":15,"due_day":5,"cycle_start_date":"2025-02-01"}`)
	billed := alice.purchase(t, old.ID, "500", "2025-02-10")
	if got := alice.getCardRow(t, billed.ID); got.Status != finance.CardBilled || got.SOAID == nil {
		t.Fatalf("the February purchase was not billed by generation: %+v", got)
	}
	converted := alice.purchase(t, c.ID, "300", "2025-03-05")
	plan := alice.convert(t, converted.ID, `{"months":3}`)
	voided := alice.purchase(t, c.ID, "200", "2025-03-05")
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+voided.ID, "", http.StatusOK)
	fee := alice.createCardRow(t, `{"credit_card_id":"`+c.ID+`","type":"fee","amount":10,"date":"2025-03-05","description":"Fee"}`)
	refund := alice.createCardRow(t, `{"credit_card_id":"`+c.ID+`","type":"refund","amount":10,"date":"2025-03-05","description":"Return","category":"Shopping"}`)
	archived := alice.createCard(t, `{"name":"Archived","credit_limit":1000,"statement_day":1,"due_day":2}`)
	onArchived := alice.purchase(t, archived.ID, "100", "2025-03-05")
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+archived.ID, "", http.StatusOK)
	bobs := bob.purchase(t, bob.createCard(t, visaBody).ID, "100", "2025-03-05")
	states := []apiScenario{
		state("billed purchase", billed.ID, `{"months":3}`, "billed", "only unbilled purchases"),
		state("converted purchase", converted.ID, `{"months":3}`, "already converted"),
		state("voided purchase", voided.ID, `{"months":3}`, "voided"),
		state("fee row", fee.ID, `{"months":3}`, "is a fee; only purchases"),
		state("refund row", refund.ID, `{"months":3}`, "is a refund; only purchases"),
		state("installment row", plan.Installments[0].ID, `{"months":3}`, "is an installment row; only purchases"),
		state("purchase on an archived card", onArchived.ID, `{"months":3}`, "Archived is archived"),
		// A bad body is reported before the state, the state before checks
		// against the purchase.
		post("bad body on a billed purchase", billed.ID, `{"months":1}`, fieldsOf("months", problemMonths)),
		state("short monthly amount on a billed purchase", billed.ID, `{"months":3,"interest_type":"add_on","monthly_amount":1}`, "billed"),
		state("early first date on an archived card", onArchived.ID, `{"months":3,"first_installment_date":"2025-01-01"}`, "archived"),
	}
	// Path ids (§1.1 step 2): 404 before the body is read.
	paths := []apiScenario{
		alice.sc(apiScenario{name: "unknown id", method: http.MethodPost, url: convertURL(unknownID), body: `{"months":3}`,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Card transaction not found"}),
		alice.sc(apiScenario{name: "malformed id", method: http.MethodPost, url: convertURL("nope"), body: `{"months":3}`,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "another user's purchase", method: http.MethodPost, url: convertURL(bobs.ID), body: `{"months":3}`,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "another user's purchase with a bad body", method: http.MethodPost, url: convertURL(bobs.ID), body: `[`,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	}
	runRejectedPlans(t, env, []ledgerUser{alice, bob}, append(append(append(shape, records...), states...), paths...))

	// The boundaries are accepted: 2 and 60 months, a first date on the
	// purchase date, a monthly amount that exactly covers the principal, and
	// a rate next to a quoted amount (informational).
	for _, body := range []string{`{"months":2,"first_installment_date":"2025-03-05"}`, `{"months":60}`,
		`{"months":4,"interest_type":"add_on","monthly_amount":250}`} {
		q := alice.purchase(t, c.ID, "1000", "2025-03-05")
		got := alice.convert(t, q.ID, body)
		var sum finance.Money
		for _, r := range got.Installments {
			sum += *r.PrincipalPortion
		}
		if sum != 1000_00 || got.TotalInterest != 0 {
			t.Errorf("%s: principal sums to %s, interest %s", body, sum, got.TotalInterest)
		}
	}
}

// Cancelling before any row is billed voids every row and returns the
// purchase to unbilled; its expense stays and counts once.
func TestInstallmentCancelBeforeBilling(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	p := alice.purchase(t, c.ID, "12345.67", "2025-03-11")
	plan := alice.convert(t, p.ID, `{"months":5,"interest_type":"add_on","interest_rate":"0.5"}`)
	before := alice.summary(t, "2025-03-01", "2025-07-31")
	if before.TotalExpenses != 12345_67 || before.Count != 1 || before.OtherSpending.CardFeesInterest != 308_64 {
		t.Fatalf("summary before the cancel: total %s, count %d, fees & interest %s", before.TotalExpenses, before.Count,
			before.OtherSpending.CardFeesInterest)
	}
	setToday(env, "2025-03-12")

	res := alice.do(t, http.MethodPost, plansURL+"/"+plan.ID+"/cancel", "", http.StatusOK)
	var got finance.InstallmentPlanDetail
	res.decodeData(t, &got)
	stamp := time.Date(2025, 3, 12, 4, 0, 0, 0, time.UTC)
	if res.message() != "Installment plan cancelled" || got.Status != finance.PlanCancelled || got.CancelledAt == nil ||
		!got.CancelledAt.Equal(stamp) || !got.UpdatedAt.Equal(stamp) || got.TotalInterest != 0 || got.TotalPayable != 12345_67 ||
		got.RemainingCount != 0 || got.RemainingPayable != 0 || got.NextInstallmentDate != nil || got.BilledCount != 0 {
		t.Errorf("cancelled plan %+v", got.InstallmentPlan)
	}
	want := []string{
		"1 2025-03-11 2530.85=2469.13+61.72 voided", "2 2025-04-11 2530.85=2469.13+61.72 voided",
		"3 2025-05-11 2530.85=2469.13+61.72 voided", "4 2025-06-11 2530.85=2469.13+61.72 voided",
		"5 2025-07-11 2530.91=2469.15+61.76 voided",
	}
	if diff := cmp.Diff(want, rowLines(got.Installments)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	for _, r := range got.Installments {
		if r.VoidedAt == nil || !r.VoidedAt.Equal(stamp) {
			t.Errorf("row %d voided_at %v", *r.InstallmentNumber, r.VoidedAt)
		}
	}
	if diff := cmp.Diff(got, alice.plan(t, plan.ID), equateDates); diff != "" {
		t.Errorf("GET differs from the reply (-reply +get):\n%s", diff)
	}
	// The purchase is unbilled again, and its expense still active: the
	// principal counts once, the interest not at all.
	if src := alice.getCardRow(t, p.ID); src.Status != finance.CardUnbilled {
		t.Errorf("source %+v", src)
	}
	if e := alice.getExpense(t, *p.ExpenseID); e.Status != finance.StatusActive || e.Amount != 12345_67 ||
		*e.CardTransactionStatus != finance.CardUnbilled {
		t.Errorf("expense %+v", e)
	}
	after := alice.summary(t, "2025-03-01", "2025-07-31")
	if after.TotalExpenses != 12345_67 || after.Count != 1 || after.OtherSpending.CardFeesInterest != 0 || after.TotalSpending != 12345_67 {
		t.Errorf("summary after the cancel: total %s, count %d, fees & interest %s, spending %s", after.TotalExpenses, after.Count,
			after.OtherSpending.CardFeesInterest, after.TotalSpending)
	}
	if card := alice.getCard(t, c.ID); card.OutstandingBalance != 12345_67 || card.UnbilledTotal != 12345_67 {
		t.Errorf("card outstanding %s, unbilled %s", card.OutstandingBalance, card.UnbilledTotal)
	}
	if diff := cmp.Diff([]string{"installment_plan created", "installment_plan cancelled"},
		logLines(cardLogs(t, env, alice.user.ID), plan.ID)); diff != "" {
		t.Errorf("plan log (-want +got):\n%s", diff)
	}

	runRejectedPlans(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "cancel twice", method: http.MethodPost, url: plansURL + "/" + plan.ID + "/cancel",
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus,
			wantMessage: "Installment plan is cancelled; only an active plan can be cancelled"}),
		bob.sc(apiScenario{name: "another user's plan", method: http.MethodPost, url: plansURL + "/" + plan.ID + "/cancel",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Installment plan not found"}),
		alice.sc(apiScenario{name: "unknown plan", method: http.MethodPost, url: plansURL + "/" + unknownID + "/cancel",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "malformed plan id", method: http.MethodPost, url: plansURL + "/x/cancel",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})

	// The purchase, unbilled again, can be converted anew.
	again := alice.convert(t, p.ID, `{"months":2}`)
	if again.ID == plan.ID || again.Status != finance.PlanActive || alice.getCardRow(t, p.ID).Status != finance.CardConverted {
		t.Errorf("second conversion %+v", again.InstallmentPlan)
	}
}

// Cancelling after a statement billed a row keeps the billed rows, voids the
// others with their interest, and bills their principal as one
// pre-termination row dated today. The cancelled plan keeps that row
// through the next statement.
func TestInstallmentCancelAfterBilling(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	c := alice.createCard(t, visaBody) // statements on the 15th from 2025-03-11
	p := alice.purchase(t, c.ID, "12345.67", "2025-03-11")
	plan := alice.convert(t, p.ID, `{"months":5,"interest_type":"add_on","interest_rate":"0.5"}`)

	// On March 20 the March 15 statement exists: a read under
	// /credit-cards generated it, billing row 1.
	setToday(env, "2025-03-20")
	got := alice.plan(t, plan.ID)
	if got.Status != finance.PlanActive || got.BilledCount != 1 || got.RemainingCount != 4 || got.RemainingPrincipal != 9876_54 ||
		got.RemainingPayable != 10123_46 || got.NextInstallmentDate.String() != "2025-04-11" {
		t.Errorf("plan after the first statement %+v", got.InstallmentPlan)
	}
	row1 := got.Installments[0]
	if row1.Status != finance.CardBilled || row1.SOAID == nil {
		t.Fatalf("row 1 %+v", row1)
	}
	soa := send[finance.SOADetail](t, alice, http.MethodGet, "/api/v1/credit-cards/soa/"+*row1.SOAID, "", http.StatusOK)
	if soa.StatementDate.String() != "2025-03-15" || soa.StatementBalance != 2530_85 || len(soa.Transactions) != 1 {
		t.Errorf("statement %+v", soa.SOA)
	}
	if s := alice.summary(t, "2025-03-01", "2025-07-31"); s.OtherSpending.CardFeesInterest != 308_64 {
		t.Errorf("fees & interest before the cancel %s", s.OtherSpending.CardFeesInterest)
	}

	got = alice.cancelPlan(t, plan.ID)
	want := []string{
		"1 2025-03-11 2530.85=2469.13+61.72 billed", "2 2025-04-11 2530.85=2469.13+61.72 voided",
		"3 2025-05-11 2530.85=2469.13+61.72 voided", "4 2025-06-11 2530.85=2469.13+61.72 voided",
		"5 2025-07-11 2530.91=2469.15+61.76 voided",
		"- 2025-03-20 9876.54=9876.54+0.00 unbilled", // Σ principal of rows 2–5
	}
	if diff := cmp.Diff(want, rowLines(got.Installments)); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	pre := got.Installments[5]
	if pre.Type != finance.CardInstallment || pre.InstallmentPlanID == nil || *pre.InstallmentPlanID != plan.ID ||
		pre.InstallmentNumber != nil || pre.CreditCardID != c.ID || pre.Description != "bought on 2025-03-11 (pre-termination)" {
		t.Errorf("pre-termination row %+v", pre)
	}
	if got.Status != finance.PlanCancelled || got.CancelledAt == nil || got.TotalInterest != 61_72 || got.TotalPayable != 12407_39 ||
		got.BilledCount != 1 || got.RemainingCount != 1 || got.RemainingPrincipal != 9876_54 || got.RemainingPayable != 9876_54 ||
		got.NextInstallmentDate.String() != "2025-03-20" {
		t.Errorf("cancelled plan %+v", got.InstallmentPlan)
	}
	if src := alice.getCardRow(t, p.ID); src.Status != finance.CardConverted {
		t.Errorf("source %+v", src)
	}
	// The card owes the principal and the billed row's interest; spending
	// keeps the principal once and only the billed interest.
	if card := alice.getCard(t, c.ID); card.OutstandingBalance != 12407_39 || card.UnbilledTotal != 9876_54 {
		t.Errorf("card outstanding %s, unbilled %s", card.OutstandingBalance, card.UnbilledTotal)
	}
	s := alice.summary(t, "2025-03-01", "2025-07-31")
	if s.TotalExpenses != 12345_67 || s.OtherSpending.CardFeesInterest != 61_72 || s.TotalSpending != 12407_39 {
		t.Errorf("summary after the cancel: total %s, fees & interest %s, spending %s", s.TotalExpenses,
			s.OtherSpending.CardFeesInterest, s.TotalSpending)
	}
	if diff := cmp.Diff([]string{"installment_plan created", "installment_plan cancelled"},
		logLines(cardLogs(t, env, alice.user.ID), plan.ID)); diff != "" {
		t.Errorf("plan log (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"card_transaction created"}, logLines(cardLogs(t, env, alice.user.ID), pre.ID)); diff != "" {
		t.Errorf("pre-termination row log (-want +got):\n%s", diff)
	}
	alice.do(t, http.MethodPost, plansURL+"/"+plan.ID+"/cancel", "", http.StatusBadRequest)

	// The April 15 statement bills the pre-termination row; the plan stays cancelled.
	setToday(env, "2025-04-16")
	got = alice.plan(t, plan.ID)
	if last := got.Installments[5]; last.Status != finance.CardBilled || last.SOAID == nil || got.Status != finance.PlanCancelled ||
		got.BilledCount != 2 || got.RemainingCount != 0 {
		t.Errorf("after the April statement: plan %+v, row %+v", got.InstallmentPlan, last)
	}
}

// A plan completes when generation bills its last row, and the status
// filter finds it; a completed plan cannot be cancelled.
func TestInstallmentPlanCompletes(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	done := alice.convert(t, alice.purchase(t, c.ID, "600", "2025-03-11").ID, `{"months":2}`)
	open := alice.convert(t, alice.purchase(t, c.ID, "900", "2025-03-11").ID, `{"months":3}`)

	setToday(env, "2025-04-16") // the March 15 and April 15 statements exist
	completed, _ := page[finance.InstallmentPlan](t, alice, plansURL+"?status=completed")
	if len(completed) != 1 || completed[0].ID != done.ID || completed[0].BilledCount != 2 || completed[0].RemainingCount != 0 ||
		completed[0].NextInstallmentDate != nil || completed[0].RemainingPayable != 0 {
		t.Errorf("completed plans %+v", completed)
	}
	active, _ := page[finance.InstallmentPlan](t, alice, plansURL+"?status=active")
	if len(active) != 1 || active[0].ID != open.ID || active[0].BilledCount != 2 || active[0].RemainingCount != 1 {
		t.Errorf("active plans %+v", active)
	}
	logs := cardLogs(t, env, alice.user.ID)
	if diff := cmp.Diff([]string{"installment_plan created", "installment_plan completed"}, logLines(logs, done.ID)); diff != "" {
		t.Errorf("log (-want +got):\n%s", diff)
	}
	alice.sc(apiScenario{method: http.MethodPost, url: plansURL + "/" + done.ID + "/cancel", wantStatus: http.StatusBadRequest,
		wantCode: CodeInvalidStatus, wantMessage: "Installment plan is completed; only an active plan can be cancelled"}).run(t, env)

	// An archived card takes no new charges, but its plans can still be cancelled.
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+c.ID, "", http.StatusOK)
	got := alice.cancelPlan(t, open.ID)
	want := []string{"1 2025-03-11 300.00=300.00+0.00 billed", "2 2025-04-11 300.00=300.00+0.00 billed",
		"3 2025-05-11 300.00=300.00+0.00 voided", "- 2025-04-16 300.00=300.00+0.00 unbilled"}
	if diff := cmp.Diff(want, rowLines(got.Installments)); diff != "" || got.Status != finance.PlanCancelled {
		t.Errorf("plan of an archived card, cancelled %s (-want +got):\n%s", got.Status, diff)
	}
}

func TestInstallmentPlanList(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	other := alice.createCard(t, `{"name":"Other","credit_limit":50000,"statement_day":1,"due_day":20}`)
	tv := alice.convert(t, alice.purchase(t, c.ID, "3000", "2025-03-01").ID, `{"months":3,"description":"Television"}`)
	setToday(env, "2025-03-11") // later the same day: the next plans are created after it
	fridge := alice.convert(t, alice.purchase(t, other.ID, "9000", "2025-03-02").ID,
		`{"months":6,"description":"Fridge","first_installment_date":"2025-04-10"}`)
	laptop := alice.convert(t, alice.purchase(t, c.ID, "5000", "2025-03-03").ID, `{"months":2,"description":"Laptop"}`)
	alice.cancelPlan(t, laptop.ID)
	bob.convert(t, bob.purchase(t, bob.createCard(t, visaBody).ID, "100", "2025-03-01").ID, `{"months":2}`)

	planIDs := func(items []finance.InstallmentPlan) []string {
		return ids(items, func(p finance.InstallmentPlan) string { return p.ID })
	}
	for _, tt := range []struct {
		url  string
		want []string
	}{
		{plansURL, []string{laptop.ID, fridge.ID, tv.ID}},
		{plansURL + "?sortOrder=asc", []string{tv.ID, fridge.ID, laptop.ID}},
		{plansURL + "?status=cancelled", []string{laptop.ID}},
		{plansURL + "?status=active", []string{fridge.ID, tv.ID}},
		{plansURL + "?status=completed", nil},
		{plansURL + "?cardId=" + other.ID, []string{fridge.ID}},
		{plansURL + "?cardId=" + unknownID, nil},
		{plansURL + "?dateFrom=2025-03-02&dateTo=2025-03-31", []string{laptop.ID}},
		{plansURL + "?dateFrom=2025-04-01", []string{fridge.ID}},
		{plansURL + "?search=FRID", []string{fridge.ID}},
		{plansURL + "?sortBy=principal", []string{fridge.ID, laptop.ID, tv.ID}},
		{plansURL + "?sortBy=first_installment_date&sortOrder=asc", []string{tv.ID, laptop.ID, fridge.ID}},
		{plansURL + "?limit=2&page=2", []string{tv.ID}},
	} {
		items, _ := page[finance.InstallmentPlan](t, alice, tt.url)
		if diff := cmp.Diff(tt.want, planIDs(items)); diff != "" && !(len(tt.want) == 0 && len(items) == 0) {
			t.Errorf("%s (-want +got):\n%s", tt.url, diff)
		}
	}
	items, p := page[finance.InstallmentPlan](t, alice, plansURL+"?limit=2")
	if p != (finance.Pagination{Page: 1, Limit: 2, TotalItems: 3, TotalPages: 2}) {
		t.Errorf("pagination %+v", p)
	}
	// List items carry the computed figures, as the detail does.
	if diff := cmp.Diff(alice.plan(t, fridge.ID).InstallmentPlan, items[1], equateDates); diff != "" {
		t.Errorf("list item differs from the detail (-detail +item):\n%s", diff)
	}
	runScenarios(t, env, []apiScenario{
		alice.sc(apiScenario{name: "bad filters", method: http.MethodGet,
			url:        plansURL + "?status=open&cardId=abc&dateFrom=2025-13-01&sortBy=date&sortOrder=up",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("status", "must be one of: active, completed, cancelled", "cardId", "must be a UUID",
				"dateFrom", problemDate, "sortBy", "must be one of: created_at, first_installment_date, principal",
				"sortOrder", "must be asc or desc")}),
		alice.sc(apiScenario{name: "dateFrom after dateTo", method: http.MethodGet, url: plansURL + "?dateFrom=2025-04-01&dateTo=2025-03-01",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("dateFrom", "must not be after dateTo")}),
		alice.sc(apiScenario{name: "unknown parameter", method: http.MethodGet, url: plansURL + "?type=purchase",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
		alice.sc(apiScenario{name: "malformed id", method: http.MethodGet, url: plansURL + "/nope",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Installment plan not found"}),
		bob.sc(apiScenario{name: "another user's plan", method: http.MethodGet, url: plansURL + "/" + tv.ID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's card filter", method: http.MethodGet, url: plansURL + "?cardId=" + c.ID,
			wantStatus: http.StatusOK, check: func(t testing.TB, res apiResult) {
				var pg finance.Page[finance.InstallmentPlan]
				res.decodeData(t, &pg)
				if len(pg.Items) != 0 {
					t.Errorf("bob sees alice's plans: %+v", pg.Items)
				}
			}}),
	})
}

// Installment rows change only through their plan, and a converted
// purchase's money and expense are frozen while the plan stands.
func TestInstallmentRowsAreFrozen(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	p := alice.purchase(t, c.ID, "900", "2025-03-05")
	plan := alice.convert(t, p.ID, `{"months":3}`)
	row := plan.Installments[0].ID
	runRejectedPlans(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "PUT an installment row", method: http.MethodPut, url: "/api/v1/credit-cards/transactions/" + row,
			body: `{"description":"x"}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus,
			wantMessage: "Installment rows change through their installment plan"}),
		alice.sc(apiScenario{name: "DELETE an installment row", method: http.MethodDelete, url: "/api/v1/credit-cards/transactions/" + row,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus,
			wantMessage: "Installment rows are voided only by cancelling their installment plan"}),
		alice.sc(apiScenario{name: "change the converted purchase's amount", method: http.MethodPut,
			url: "/api/v1/credit-cards/transactions/" + p.ID, body: `{"amount":901}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "void the converted purchase", method: http.MethodDelete,
			url: "/api/v1/credit-cards/transactions/" + p.ID, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "void the converted purchase's expense", method: http.MethodDelete,
			url: "/api/v1/expenses/" + *p.ExpenseID, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
	})
	// The unbilled list of the card shows the rows, future ones included,
	// and not the converted purchase.
	rows, _ := page[finance.CardTransaction](t, alice, "/api/v1/credit-cards/transactions?status=unbilled&cardId="+c.ID)
	if diff := cmp.Diff([]string{plan.Installments[2].ID, plan.Installments[1].ID, plan.Installments[0].ID}, cardRowIDs(rows)); diff != "" {
		t.Errorf("unbilled rows (-want +got):\n%s", diff)
	}
	// A description is still editable on the purchase, which keeps its expense in step.
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/transactions/"+p.ID, `{"description":"Big TV"}`, http.StatusOK)
	if e := alice.getExpense(t, *p.ExpenseID); e.Description != "Big TV" {
		t.Errorf("expense %+v", e)
	}
}
