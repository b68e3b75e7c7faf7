package server

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// setToday pins the ledger's clock to noon of day in Asia/Manila.
func setToday(env *testEnv, day string) {
	d, err := finance.ParseDate(day)
	if err != nil {
		panic(err)
	}
	at := time.Date(d.Year(), d.Month(), d.Day(), 4, 0, 0, 0, time.UTC) // 12:00 in Manila
	env.srv.Ledger().SetClock(func() time.Time { return at })
}

func (u ledgerUser) soas(t testing.TB, url string) []finance.SOA {
	t.Helper()
	items, _ := page[finance.SOA](t, u, url)
	return items
}

func (u ledgerUser) soa(t testing.TB, id string) finance.SOADetail {
	t.Helper()
	return send[finance.SOADetail](t, u, http.MethodGet, "/api/v1/credit-cards/soa/"+id, "", http.StatusOK)
}

// purchase records a card purchase of amount on date and returns the row as the reply shows it.
func (u ledgerUser) purchase(t testing.TB, cardID, amount, date string) finance.CardTransaction {
	t.Helper()
	return u.createCardRow(t, fmt.Sprintf(`{"credit_card_id":%q,"type":"purchase","amount":%q,"date":%q,"description":"bought on %s","category":"Shopping"}`,
		cardID, amount, date, date))
}

// latePosting leaves an unbilled card purchase dated in a period that
// already has a statement, to be linked by hand: recorded as an expense, it
// joins the unpaid statement of its period, and taking it off that
// statement leaves it unbilled (domain.md, Back-dated card charges, rule 2).
func (u ledgerUser) latePosting(t testing.TB, cardID, amount, date string) finance.CardTransaction {
	t.Helper()
	e := send[finance.Expense](t, u, http.MethodPost, "/api/v1/expenses", fmt.Sprintf(
		`{"amount":%q,"date":%q,"description":"late %s","category":"Shopping","payment_method":"Credit Card","credit_card_id":%q}`,
		amount, date, date, cardID), http.StatusCreated)
	row := u.getCardRow(t, *e.CardTransactionID)
	if row.SOAID != nil {
		u.do(t, http.MethodDelete, "/api/v1/credit-cards/soa/"+*row.SOAID+"/transactions/"+row.ID, "", http.StatusOK)
	}
	return u.getCardRow(t, row.ID)
}

// statementOn returns the one live statement of a card dated sd, failing when there is not exactly one.
func (u ledgerUser) statementOn(t testing.TB, cardID, sd string) finance.SOA {
	t.Helper()
	var found []finance.SOA
	for _, a := range u.soas(t, "/api/v1/credit-cards/soa?limit=100&cardId="+cardID) {
		if a.StatementDate.String() == sd {
			found = append(found, a)
		}
	}
	if len(found) != 1 {
		t.Fatalf("card %s has %d live statements dated %s, want 1", cardID, len(found), sd)
	}
	return found[0]
}

// statementSummary is what the generation tests compare: a statement's
// dates, totals and status.
type statementSummary struct {
	StatementDate, PeriodStart, PeriodEnd, DueDate string
	Balance, MinimumDue                            string
	Count                                          int
	Status                                         string
}

func summarize(items []finance.SOA) []statementSummary {
	out := make([]statementSummary, len(items))
	for i, a := range items {
		out[i] = statementSummary{a.StatementDate.String(), a.PeriodStart.String(), a.PeriodEnd.String(), a.DueDate.String(),
			a.StatementBalance.String(), a.MinimumDue.String(), a.TransactionCount, a.Status}
	}
	return out
}

// TestStatementGeneration is the generation example of domain.md §4.2: a
// card billed on the 15th and due on the 5th, its cycle starting 2025-01-01.
func TestStatementGeneration(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	setToday(env, "2025-04-15")
	c := alice.createCard(t, `{"name":"Gold","credit_limit":100000,"statement_day":15,"due_day":5,"cycle_start_date":"2025-01-01"}`)

	// A back-dated purchase is billed by the reply of its own request.
	jan := alice.purchase(t, c.ID, "100.00", "2025-01-10")
	if jan.Status != finance.CardBilled || jan.SOAID == nil {
		t.Fatalf("a purchase of 01-10 recorded on 04-15 is %s (soa %v), want billed at once", jan.Status, jan.SOAID)
	}
	feb := alice.purchase(t, c.ID, "200.00", "2025-02-01")
	onCutoff := alice.purchase(t, c.ID, "400.00", "2025-04-15")
	after := alice.purchase(t, c.ID, "800.00", "2025-04-16")
	for _, r := range []finance.CardTransaction{onCutoff, after} {
		if r.Status != finance.CardUnbilled {
			t.Errorf("purchase of %s is %s on 04-15, want unbilled (day S is still open)", r.Date, r.Status)
		}
	}
	// Nothing was bought from 02-16 to 03-15: no empty statement.
	want := []statementSummary{
		{"2025-02-15", "2025-01-16", "2025-02-15", "2025-03-05", "200.00", "200.00", 1, "unpaid"},
		{"2025-01-15", "2024-12-16", "2025-01-15", "2025-02-05", "100.00", "100.00", 1, "unpaid"},
	}
	if diff := cmp.Diff(want, summarize(alice.soas(t, "/api/v1/credit-cards/soa"))); diff != "" {
		t.Errorf("statements on 04-15 (-want +got):\n%s", diff)
	}
	if got := alice.getCardRow(t, feb.ID); got.SOAID == nil || got.Status != finance.CardBilled {
		t.Errorf("the 02-01 purchase is %s, want billed", got.Status)
	}

	// The 04-15 statement exists from 04-16 on, with nobody running a job.
	setToday(env, "2025-04-16")
	apr := alice.statementOn(t, c.ID, "2025-04-15")
	if diff := cmp.Diff(statementSummary{"2025-04-15", "2025-03-16", "2025-04-15", "2025-05-05", "400.00", "400.00", 1, "unpaid"},
		summarize([]finance.SOA{apr})[0]); diff != "" {
		t.Errorf("the April statement (-want +got):\n%s", diff)
	}
	if got := alice.getCardRow(t, after.ID); got.Status != finance.CardUnbilled {
		t.Errorf("the 04-16 purchase is %s, want unbilled until 05-15", got.Status)
	}

	// A late posting joins the unpaid statement of its period, whose figures
	// are worked out again; a back-filled period (no statement yet) gets one at once.
	late := alice.purchase(t, c.ID, "16.00", "2025-04-10")
	if late.SOAID == nil || *late.SOAID != apr.ID || len(late.Warnings) != 0 {
		t.Errorf("a late posting of 04-10 is on %v with %v, want on the April statement", late.SOAID, late.Warnings)
	}
	if got := alice.soa(t, apr.ID); got.StatementBalance.String() != "416.00" || got.TransactionCount != 2 || got.MinimumDue.String() != "416.00" {
		t.Errorf("the April statement after the late posting: %+v", got.SOA)
	}
	backfill := alice.purchase(t, c.ID, "32.00", "2025-03-01")
	mar := alice.statementOn(t, c.ID, "2025-03-15")
	if backfill.SOAID == nil || *backfill.SOAID != mar.ID || mar.PeriodStart.String() != "2025-02-16" || mar.DueDate.String() != "2025-04-05" {
		t.Errorf("back-filled purchase on %v, March statement %+v", backfill.SOAID, mar)
	}

	setToday(env, "2025-05-16")
	may := alice.soa(t, alice.statementOn(t, c.ID, "2025-05-15").ID)
	if diff := cmp.Diff([]string{after.ID}, cardRowIDs(may.Transactions)); diff != "" {
		t.Errorf("May statement lines (-want +got):\n%s", diff)
	}
	if may.StatementBalance.String() != "800.00" || may.DueDate.String() != "2025-06-05" {
		t.Errorf("May statement: balance %s due %s", may.StatementBalance, may.DueDate)
	}
	// Card figures read the statements: every open statement and the earliest due date.
	card := alice.getCard(t, c.ID)
	if card.OpenSOACount != 5 || card.OpenStatementBalance.String() != "1548.00" || card.NextDueDate.String() != "2025-02-05" ||
		card.UnbilledTotal.String() != "0.00" || card.NextStatementDate.String() != "2025-06-15" {
		t.Errorf("card figures %+v", card.CardFigures)
	}
	// The log has one generated entry per statement.
	var generated int
	for _, l := range listLogs(t, env, alice.user.ID) {
		if l.EntityType == finance.LogSOA && l.Action == finance.LogGenerated {
			generated++
		}
	}
	if generated != 5 {
		t.Errorf("%d generated log entries, want 5", generated)
	}
}

// listLogs reads a user's activity log from the store.
func listLogs(t testing.TB, env *testEnv, userID string) []finance.CardLog {
	t.Helper()
	items, _, err := env.db.Read().ListCardLogs(context.Background(), userID, finance.CardLogFilter{},
		finance.ListParams{Page: 1, Limit: 1000, SortBy: "created_at"})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// TestStatementGenerationMovesTheCycleStartBack: a row older than
// cycle_start_date moves it back to that row's period while no statement
// has a payment (domain.md, Back-dated card charges).
func TestStatementGenerationMovesTheCycleStartBack(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	setToday(env, "2025-04-20")
	c := alice.createCard(t, `{"name":"Gold","credit_limit":100000,"statement_day":31,"due_day":5,"cycle_start_date":"2025-02-10"}`)
	item := `{"amount":%q,"date":%q,"description":"x","category":"Shopping","payment_method":"Credit Card","credit_card_id":%q}`
	alice.do(t, http.MethodPost, "/api/v1/expenses/bulk", `{"items":[`+fmt.Sprintf(item, "1", "2024-11-02", c.ID)+","+
		fmt.Sprintf(item, "2", "2025-02-01", c.ID)+","+fmt.Sprintf(item, "4", "2025-03-31", c.ID)+`]}`, http.StatusCreated)
	want := []statementSummary{
		{"2025-03-31", "2025-03-01", "2025-03-31", "2025-04-05", "4.00", "4.00", 1, "unpaid"},
		{"2025-02-28", "2025-02-01", "2025-02-28", "2025-03-05", "2.00", "2.00", 1, "unpaid"},
		{"2024-11-30", "2024-11-01", "2024-11-30", "2024-12-05", "1.00", "1.00", 1, "unpaid"},
	}
	if diff := cmp.Diff(want, summarize(alice.soas(t, "/api/v1/credit-cards/soa"))); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
}

// TestStatementGenerationIsIdempotentUnderConcurrency: many requests at
// once, all finding the same statements due, create each statement once.
func TestStatementGenerationIsIdempotentUnderConcurrency(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	setToday(env, "2025-01-20")
	c := alice.createCard(t, `{"name":"Gold","credit_limit":100000,"statement_day":15,"due_day":5}`)
	alice.purchase(t, c.ID, "10.00", "2025-01-25")
	alice.purchase(t, c.ID, "20.00", "2025-02-20")
	setToday(env, "2025-03-16")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			alice.do(t, http.MethodGet, "/api/v1/credit-cards/soa/counts", "", http.StatusOK)
		}()
	}
	wg.Wait()
	want := []statementSummary{
		{"2025-03-15", "2025-02-16", "2025-03-15", "2025-04-05", "20.00", "20.00", 1, "unpaid"},
		{"2025-02-15", "2025-01-16", "2025-02-15", "2025-03-05", "10.00", "10.00", 1, "unpaid"},
	}
	if diff := cmp.Diff(want, summarize(alice.soas(t, "/api/v1/credit-cards/soa"))); diff != "" {
		t.Errorf("statements after 8 concurrent requests (-want +got):\n%s", diff)
	}
}

// soaState is a user's statements and payments, read from the store, with
// their spending state: what a rejected statement request must not change.
type soaState struct {
	Spending spendingState
	SOAs     []finance.SOA
	Payments []finance.SOAPayment
}

func snapshotSOAs(t testing.TB, env *testEnv, userID string) soaState {
	t.Helper()
	ctx := context.Background()
	all := finance.ListParams{Page: 1, Limit: 10_000, SortBy: "created_at"}
	st := soaState{Spending: snapshotSpending(t, env, userID)}
	for _, status := range []string{"", finance.StatusVoided} {
		items, _, err := env.db.Read().ListSOAs(ctx, userID, finance.SOAFilter{Status: status}, all)
		if err != nil {
			t.Fatal(err)
		}
		st.SOAs = append(st.SOAs, items...)
	}
	for _, a := range st.SOAs {
		for _, status := range finance.PaymentStatuses {
			ps, _, err := env.db.Read().ListSOAPayments(ctx, userID, a.ID, finance.SOAPaymentFilter{Status: status}, all)
			if err != nil {
				t.Fatal(err)
			}
			st.Payments = append(st.Payments, ps...)
		}
	}
	return st
}

// runRejectedSOA runs scenarios that must fail and checks that nothing of
// either user changed, statements and payments included.
func runRejectedSOA(t *testing.T, env *testEnv, users []ledgerUser, scenarios []apiScenario) {
	t.Helper()
	runUnchanged(t, env, users, snapshotSOAs, scenarios)
}

// statementFixture is a card billed on the 5th and due on the 25th, whose
// March statement holds purchases of 12,000.00 and 4,683.35 (16,683.35:
// minimum due 500.50, §4.3), and an account holding 20,000.00.
type statementFixture struct {
	card    finance.CreditCard
	soa     finance.SOA
	account finance.Account
	rows    []finance.CardTransaction
}

func newStatementFixture(t *testing.T, u ledgerUser) statementFixture {
	t.Helper()
	var f statementFixture
	f.card = u.createCard(t, `{"name":"Rewards","credit_limit":50000,"statement_day":5,"due_day":25,"cycle_start_date":"2025-02-01"}`)
	f.account = u.createAccount(t, `{"name":"Payroll","type":"savings","opening_balance":20000}`)
	// One request, so the statement generated before it commits bills both.
	item := `{"amount":%q,"date":%q,"description":%q,"category":"Shopping","payment_method":"Credit Card","credit_card_id":%q}`
	bulk := send[finance.BulkExpenses](t, u, http.MethodPost, "/api/v1/expenses/bulk", `{"items":[`+
		fmt.Sprintf(item, "12000", "2025-02-10", "Laptop", f.card.ID)+","+fmt.Sprintf(item, "4683.35", "2025-03-01", "Dock", f.card.ID)+`]}`,
		http.StatusCreated)
	for _, e := range bulk.Items {
		if e.CardTransactionStatus == nil || *e.CardTransactionStatus != finance.CardBilled {
			t.Fatalf("a back-dated card expense replied with card row status %v, want billed", e.CardTransactionStatus)
		}
		f.rows = append(f.rows, u.getCardRow(t, *e.CardTransactionID))
	}
	f.soa = u.statementOn(t, f.card.ID, "2025-03-05")
	return f
}

func TestSOAPaymentsAndVoid(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	f := newStatementFixture(t, alice)
	if f.soa.StatementBalance.String() != "16683.35" || f.soa.MinimumDue.String() != "500.50" || f.soa.DueDate.String() != "2025-03-25" ||
		f.soa.Remaining.String() != "16683.35" || f.soa.DaysUntilDue != 14 || f.soa.IsOverdue || f.soa.MinimumMet {
		t.Fatalf("statement %+v", f.soa)
	}
	url := "/api/v1/credit-cards/soa/" + f.soa.ID
	bobAccount := bob.createAccount(t, `{"name":"Bob's","type":"savings","opening_balance":100000}`)
	archived := alice.createAccount(t, `{"name":"Old","type":"savings","opening_balance":100000}`)
	alice.archive(t, archived.ID)

	paid := send[finance.SOAPaymentResult](t, alice, http.MethodPost, url+"/payments",
		`{"amount":"10000.00","account_id":"`+f.account.ID+`","notes":"first half"}`, http.StatusCreated)
	p := paid.Payment
	if p.Amount.String() != "10000.00" || p.Date.String() != ledgerToday || p.Status != finance.PaymentPosted || p.AccountName != "Payroll" ||
		paid.SOA.Status != finance.SOAPartiallyPaid || paid.SOA.PaidTotal.String() != "10000.00" || paid.SOA.Remaining.String() != "6683.35" || !paid.SOA.MinimumMet {
		t.Errorf("payment reply %+v / %+v", p, paid.SOA)
	}
	line := alice.line(t, p.AccountTransactionID)
	if line.Type != finance.LineDebit || line.Source != finance.SourceSOAPayment || line.SourceID == nil || *line.SourceID != p.ID || line.Amount.String() != "10000.00" {
		t.Errorf("payment's account line %+v", line)
	}
	if got := alice.account(t, f.account.ID).CurrentBalance.String(); got != "10000.00" {
		t.Errorf("account balance %s after paying 10,000.00 of 20,000.00", got)
	}
	if got := alice.getCard(t, f.card.ID); got.OutstandingBalance.String() != "6683.35" || got.OpenStatementBalance.String() != "6683.35" {
		t.Errorf("card after a payment: %+v", got.CardFigures)
	}

	runRejectedSOA(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "more than remains", method: http.MethodPost, url: url + "/payments",
			body:       `{"amount":"6683.36","account_id":"` + f.account.ID + `"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("amount", "must not exceed the remaining balance 6683.35")}),
		alice.sc(apiScenario{name: "another user's account", method: http.MethodPost, url: url + "/payments",
			body:       `{"amount":1,"account_id":"` + bobAccount.ID + `"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("account_id", "must be the id of one of your active accounts")}),
		alice.sc(apiScenario{name: "archived account", method: http.MethodPost, url: url + "/payments",
			body:       `{"amount":1,"account_id":"` + archived.ID + `"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("account_id", "must be the id of one of your active accounts")}),
		alice.sc(apiScenario{name: "missing fields", method: http.MethodPost, url: url + "/payments", body: `{"date":"2025-02-30"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("amount", "is required", "account_id", "is required", "date", "must be a real calendar date in YYYY-MM-DD format between 1900 and 2100")}),
		alice.sc(apiScenario{name: "zero", method: http.MethodPost, url: url + "/payments", body: `{"amount":0,"account_id":"` + f.account.ID + `"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("amount", "must be greater than 0")}),
		bob.sc(apiScenario{name: "another user's statement", method: http.MethodPost, url: url + "/payments",
			body: `{"amount":1,"account_id":"` + bobAccount.ID + `"}`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's statement read", method: http.MethodGet, url: url,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})

	// A fee line raises what remains; paying all of it settles the statement.
	fee := send[finance.SOALineResult](t, alice, http.MethodPost, url+"/transactions", `{"type":"fee","amount":150,"description":"Late fee"}`, http.StatusCreated)
	if fee.SOA.StatementBalance.String() != "16833.35" || fee.SOA.Remaining.String() != "6833.35" || fee.SOA.TransactionCount != 3 ||
		fee.Transaction.Description != "Late fee" || !fee.Transaction.IsSOALine || fee.Transaction.Status != finance.CardBilled {
		t.Errorf("after a fee line: %+v", fee)
	}
	settled := send[finance.SOAPaymentResult](t, alice, http.MethodPost, url+"/payments",
		`{"amount":"6833.35","account_id":"`+f.account.ID+`","date":"2025-03-09"}`, http.StatusCreated)
	if settled.SOA.Status != finance.SOAPaid || settled.SOA.Remaining != 0 {
		t.Errorf("after paying the rest: %+v", settled.SOA)
	}
	runRejectedSOA(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "paying a paid statement", method: http.MethodPost, url: url + "/payments",
			body: `{"amount":1,"account_id":"` + f.account.ID + `"}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
	})
	if got := alice.getCard(t, f.card.ID); got.OutstandingBalance != 0 || got.OpenSOACount != 0 || !got.NextDueDate.IsZero() {
		t.Errorf("card after settling: %+v", got.CardFigures)
	}

	// Void resets the statement: payments and their debits, the fee line,
	// and a fresh statement for the same date bills the released purchases.
	voided := send[finance.SOA](t, alice, http.MethodPost, url+"/void", "", http.StatusOK)
	if voided.Status != finance.StatusVoided || voided.VoidedAt == nil || voided.ReplacedByID == nil ||
		voided.StatementBalance.String() != "16833.35" || voided.PaidTotal.String() != "16833.35" {
		t.Fatalf("voided statement %+v", voided)
	}
	fresh := alice.soa(t, *voided.ReplacedByID)
	if fresh.StatementDate != f.soa.StatementDate || fresh.StatementBalance.String() != "16683.35" || fresh.Status != finance.SOAUnpaid ||
		fresh.PaidTotal != 0 || cmp.Diff(cardRowIDs(f.rows), cardRowIDs(fresh.Transactions)) != "" {
		t.Errorf("fresh statement %+v with %v", fresh.SOA, cardRowIDs(fresh.Transactions))
	}
	if got := alice.account(t, f.account.ID).CurrentBalance.String(); got != "20000.00" {
		t.Errorf("account balance %s after the void, want 20000.00", got)
	}
	if got := alice.line(t, p.AccountTransactionID); got.Status != finance.StatusVoided {
		t.Errorf("payment's account line is %s after the void", got.Status)
	}
	if got := alice.getCardRow(t, fee.Transaction.ID); got.Status != finance.StatusVoided {
		t.Errorf("fee line is %s after the void", got.Status)
	}
	payments, _ := page[finance.SOAPayment](t, alice, url+"/payments?status=voided")
	if len(payments) != 2 || payments[0].Status != finance.StatusVoided {
		t.Errorf("voided payments %+v", payments)
	}
	if got, _ := page[finance.SOAPayment](t, alice, url+"/payments"); len(got) != 0 {
		t.Errorf("posted payments after the void: %+v", got)
	}
	if got := alice.soas(t, "/api/v1/credit-cards/soa?status=voided"); len(got) != 1 || got[0].ID != f.soa.ID {
		t.Errorf("voided list %+v", got)
	}
	runRejectedSOA(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "void twice", method: http.MethodPost, url: url + "/void", wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "pay a voided statement", method: http.MethodPost, url: url + "/payments",
			body: `{"amount":1,"account_id":"` + f.account.ID + `"}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "add a line to a voided statement", method: http.MethodPost, url: url + "/transactions",
			body: `{"type":"fee","amount":1,"description":"x"}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "edit a voided statement", method: http.MethodPut, url: url,
			body: `{"notes":"x"}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
	})
}

// TestSOAVoidReplacement: a void bills every unbilled row its period can
// take on the fresh statement, un-linked ones included; a statement left with
// only its own lines is voided with no replacement.
func TestSOAVoidReplacement(t *testing.T) {
	_, alice, _ := newSpendingEnv(t)
	f := newStatementFixture(t, alice)
	url := "/api/v1/credit-cards/soa/" + f.soa.ID
	for _, r := range f.rows {
		alice.do(t, http.MethodDelete, url+"/transactions/"+r.ID, "", http.StatusOK)
	}
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+f.rows[0].ID, "", http.StatusOK)
	alice.do(t, http.MethodPost, url+"/transactions", `{"type":"interest","amount":"12.34","description":"Finance charge"}`, http.StatusCreated)
	voided := send[finance.SOA](t, alice, http.MethodPost, url+"/void", "", http.StatusOK)
	if voided.ReplacedByID == nil {
		t.Fatal("the un-linked purchase was not billed on a fresh statement")
	}
	fresh := alice.soa(t, *voided.ReplacedByID)
	if diff := cmp.Diff([]string{f.rows[1].ID}, cardRowIDs(fresh.Transactions)); diff != "" {
		t.Errorf("fresh statement lines (-want +got):\n%s", diff)
	}

	freshURL := "/api/v1/credit-cards/soa/" + fresh.ID
	alice.do(t, http.MethodDelete, freshURL+"/transactions/"+f.rows[1].ID, "", http.StatusOK)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+f.rows[1].ID, "", http.StatusOK)
	alice.do(t, http.MethodPost, freshURL+"/transactions", `{"type":"fee","amount":1,"description":"Fee"}`, http.StatusCreated)
	last := send[finance.SOA](t, alice, http.MethodPost, freshURL+"/void", "", http.StatusOK)
	if last.ReplacedByID != nil {
		t.Errorf("replaced by %v, want none: nothing was left to bill", *last.ReplacedByID)
	}
	if got := alice.soas(t, "/api/v1/credit-cards/soa?cardId="+f.card.ID); len(got) != 0 {
		t.Errorf("live statements after voiding everything: %+v", got)
	}
}

func TestSOALinesAndLinks(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	f := newStatementFixture(t, alice)
	url := "/api/v1/credit-cards/soa/" + f.soa.ID
	other := alice.createCard(t, `{"name":"Other","credit_limit":1000,"statement_day":20,"due_day":10}`)
	otherRow := alice.purchase(t, other.ID, "5.00", "2025-03-01")
	late := alice.latePosting(t, f.card.ID, "50.00", "2025-03-02") // its period has a statement: a late posting
	later := alice.purchase(t, f.card.ID, "70.00", "2025-03-08")
	if late.Status != finance.CardUnbilled {
		t.Fatalf("late posting is %s", late.Status)
	}
	bobCard := bob.createCard(t, visaBody)
	bobRow := bob.purchase(t, bobCard.ID, "1.00", "2025-03-01")

	runRejectedSOA(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "link: one bad id links nothing", method: http.MethodPost, url: url + "/transactions/link",
			body:       `{"transaction_ids":["` + late.ID + `","` + unknownID + `","` + otherRow.ID + `","` + bobRow.ID + `","` + later.ID + `","nope"]}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("transaction_ids[1]", "must be the id of a transaction on this statement's card",
				"transaction_ids[2]", "must be the id of a transaction on this statement's card",
				"transaction_ids[3]", "must be the id of a transaction on this statement's card",
				"transaction_ids[4]", "is dated 2025-03-08, after the statement date 2025-03-05; it belongs on a later statement",
				"transaction_ids[5]", "must be the id of a transaction on this statement's card")}),
		alice.sc(apiScenario{name: "link: a repeated id", method: http.MethodPost, url: url + "/transactions/link",
			body:       `{"transaction_ids":["` + late.ID + `","` + late.ID + `"]}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("transaction_ids[1]", "repeats an earlier id")}),
		alice.sc(apiScenario{name: "link: an empty list", method: http.MethodPost, url: url + "/transactions/link", body: `{"transaction_ids":[]}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("transaction_ids", "must hold 1 to 100 transaction ids (got 0)")}),
		alice.sc(apiScenario{name: "link: not a list", method: http.MethodPost, url: url + "/transactions/link", body: `{"transaction_ids":"x"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("transaction_ids", "must be an array of strings")}),
		alice.sc(apiScenario{name: "link: an already billed row", method: http.MethodPost, url: url + "/transactions/link",
			body: `{"transaction_ids":["` + f.rows[0].ID + `"]}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "line: refund without category", method: http.MethodPost, url: url + "/transactions",
			body: `{"type":"refund","amount":5,"description":"Returned"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("category", "is required")}),
		alice.sc(apiScenario{name: "line: purchase type, late date, fee with category", method: http.MethodPost, url: url + "/transactions",
			body: `{"type":"purchase","amount":5,"description":"x","date":"2025-03-06"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("type", "must be one of: fee, interest, refund", "date", "must not be after the statement date 2025-03-05")}),
		alice.sc(apiScenario{name: "line: fee with a category", method: http.MethodPost, url: url + "/transactions",
			body: `{"type":"fee","amount":5,"description":"x","category":"Shopping"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("category", "must be absent for fee lines; they count under Card Fees & Interest")}),
		alice.sc(apiScenario{name: "edit a linked row's amount", method: http.MethodPut, url: url + "/transactions/" + f.rows[0].ID,
			body: `{"amount":1}`, wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "a row not on this statement", method: http.MethodPut, url: url + "/transactions/" + late.ID,
			body: `{"description":"x"}`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		alice.sc(apiScenario{name: "a row not on this statement, bad body", method: http.MethodDelete, url: url + "/transactions/" + unknownID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
		bob.sc(apiScenario{name: "another user's statement line", method: http.MethodPut, url: url + "/transactions/" + f.rows[0].ID,
			body: `{`, wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})

	linked := send[finance.SOALinkResult](t, alice, http.MethodPost, url+"/transactions/link", `{"transaction_ids":["`+late.ID+`"]}`, http.StatusOK)
	if linked.SOA.StatementBalance.String() != "16733.35" || linked.SOA.TransactionCount != 3 || len(linked.Transactions) != 1 ||
		linked.Transactions[0].ID != late.ID || linked.Transactions[0].Status != finance.CardBilled || *linked.Transactions[0].SOAID != f.soa.ID {
		t.Errorf("after linking: %+v", linked)
	}
	if got := cardRowIDs(alice.soa(t, f.soa.ID).Transactions); len(got) != 3 || got[2] != late.ID {
		t.Errorf("the statement's lines after linking: %v", got)
	}
	refund := send[finance.SOALineResult](t, alice, http.MethodPost, url+"/transactions",
		`{"type":"refund","amount":"33.35","description":"Returned cable","category":"Shopping","date":"2025-03-04"}`, http.StatusCreated)
	if refund.SOA.CreditsTotal.String() != "33.35" || refund.SOA.StatementBalance.String() != "16700.00" || refund.SOA.MinimumDue.String() != "501.00" {
		t.Errorf("after a refund line: %+v", refund.SOA)
	}
	refundLine := refund.Transaction
	if !refundLine.IsSOALine || refundLine.Status != finance.CardBilled || refundLine.Category == nil || *refundLine.Category != "Shopping" || refundLine.Date.String() != "2025-03-04" {
		t.Errorf("refund line %+v", refundLine)
	}
	// A line changes its type and amount; a linked row only its description (kept on its expense).
	edited := send[finance.SOALineResult](t, alice, http.MethodPut, url+"/transactions/"+refundLine.ID, `{"type":"fee","amount":10,"category":null}`, http.StatusOK)
	if edited.SOA.StatementBalance.String() != "16743.35" || edited.SOA.CreditsTotal != 0 || edited.Transaction.ID != refundLine.ID ||
		edited.Transaction.Type != finance.CardFee || edited.Transaction.Amount.String() != "10.00" || edited.Transaction.Category != nil {
		t.Errorf("after turning the refund into a fee: %+v", edited)
	}
	alice.do(t, http.MethodPut, url+"/transactions/"+f.rows[0].ID, `{"description":"Laptop (work)"}`, http.StatusOK)
	if e := alice.getExpense(t, *f.rows[0].ExpenseID); e.Description != "Laptop (work)" {
		t.Errorf("linked purchase's expense description %q", e.Description)
	}
	// DELETE voids a line and un-links a linked row.
	alice.do(t, http.MethodDelete, url+"/transactions/"+refundLine.ID, "", http.StatusOK)
	after := send[finance.SOALineResult](t, alice, http.MethodDelete, url+"/transactions/"+late.ID, "", http.StatusOK)
	if after.SOA.StatementBalance.String() != "16683.35" || after.SOA.TransactionCount != 2 || after.Transaction.ID != late.ID ||
		after.Transaction.Status != finance.CardUnbilled || after.Transaction.SOAID != nil {
		t.Errorf("after removing both: %+v", after)
	}
	if got := alice.getCardRow(t, refundLine.ID); got.Status != finance.StatusVoided {
		t.Errorf("removed line is %s", got.Status)
	}
	if got := alice.getCardRow(t, late.ID); got.Status != finance.CardUnbilled || got.SOAID != nil {
		t.Errorf("un-linked row %+v", got)
	}
	runRejectedSOA(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "remove a voided line", method: http.MethodDelete, url: url + "/transactions/" + refundLine.ID,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}),
		alice.sc(apiScenario{name: "remove an un-linked row", method: http.MethodDelete, url: url + "/transactions/" + late.ID,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
}

func TestSOAUpdate(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	f := newStatementFixture(t, alice)
	url := "/api/v1/credit-cards/soa/" + f.soa.ID
	got := send[finance.SOA](t, alice, http.MethodPut, url, `{"due_date":"2025-03-28","minimum_due":"1000","notes":"  extended  "}`, http.StatusOK)
	if got.DueDate.String() != "2025-03-28" || got.MinimumDue.String() != "1000.00" || got.MinimumDueSource != finance.MinimumDueUser ||
		got.Notes == nil || *got.Notes != "extended" {
		t.Errorf("updated %+v", got)
	}
	// A kept minimum survives a line change; null reverts to the computed one.
	alice.do(t, http.MethodPost, url+"/transactions", `{"type":"fee","amount":100,"description":"Fee"}`, http.StatusCreated)
	if got := alice.soa(t, f.soa.ID); got.MinimumDue.String() != "1000.00" {
		t.Errorf("kept minimum %s", got.MinimumDue)
	}
	got = send[finance.SOA](t, alice, http.MethodPut, url, `{"minimum_due":null,"notes":null}`, http.StatusOK)
	if got.MinimumDue.String() != "503.50" || got.MinimumDueSource != finance.MinimumDueComputed || got.Notes != nil {
		t.Errorf("reverted %+v", got)
	}
	runRejectedSOA(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "due on the statement date", method: http.MethodPut, url: url, body: `{"due_date":"2025-03-05"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("due_date", "must be after the statement date 2025-03-05")}),
		alice.sc(apiScenario{name: "minimum above the balance", method: http.MethodPut, url: url, body: `{"minimum_due":"16783.36","due_date":null}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("minimum_due", "must not exceed the statement balance 16783.35", "due_date", "is required")}),
		alice.sc(apiScenario{name: "negative minimum", method: http.MethodPut, url: url, body: `{"minimum_due":-1}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("minimum_due", "must be 0 or greater")}),
		alice.sc(apiScenario{name: "statement id malformed", method: http.MethodPut, url: "/api/v1/credit-cards/soa/x", body: `{}`,
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound}),
	})
}

func TestSOACountsAndList(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	setToday(env, "2025-01-01")
	a := alice.createCard(t, `{"name":"A","credit_limit":100000,"statement_day":1,"due_day":10}`)
	b := alice.createCard(t, `{"name":"B","credit_limit":100000,"statement_day":10,"due_day":20}`)
	for _, d := range []string{"2025-01-15", "2025-02-15", "2025-03-05"} {
		alice.purchase(t, a.ID, "10.00", d)
		alice.purchase(t, b.ID, "20.00", d)
	}
	bob.createCard(t, visaBody)
	setToday(env, "2025-04-05")
	// Card A: 02-01 (due 02-10), 03-01 (due 03-10), 04-01 (due 04-10); card B: 02-10 (due 02-20), 03-10 (due 03-20).
	acct := alice.createAccount(t, `{"name":"Cash","type":"cash","opening_balance":1000}`)
	aFeb := alice.statementOn(t, a.ID, "2025-02-01")
	alice.do(t, http.MethodPost, "/api/v1/credit-cards/soa/"+aFeb.ID+"/payments", `{"amount":10,"account_id":"`+acct.ID+`"}`, http.StatusCreated)
	bMar := alice.statementOn(t, b.ID, "2025-03-10")
	alice.do(t, http.MethodPost, "/api/v1/credit-cards/soa/"+bMar.ID+"/payments", `{"amount":5,"account_id":"`+acct.ID+`"}`, http.StatusCreated)
	bFeb := alice.statementOn(t, b.ID, "2025-02-10")
	alice.do(t, http.MethodPost, "/api/v1/credit-cards/soa/"+bFeb.ID+"/void", "", http.StatusOK)
	bFebNew := alice.statementOn(t, b.ID, "2025-02-10")

	counts := send[finance.SOACounts](t, alice, http.MethodGet, "/api/v1/credit-cards/soa/counts", "", http.StatusOK)
	want := finance.SOACounts{Unpaid: 3, PartiallyPaid: 1, Paid: 1, Voided: 1, Open: 4, Overdue: 3, DueSoon: 1, Total: 5}
	if counts != want {
		t.Errorf("counts %+v, want %+v", counts, want)
	}
	if got := send[finance.SOACounts](t, alice, http.MethodGet, "/api/v1/credit-cards/soa/counts?cardId="+a.ID, "", http.StatusOK); got.Total != 3 || got.DueSoon != 1 {
		t.Errorf("card A counts %+v", got)
	}
	if got := send[finance.SOACounts](t, bob, http.MethodGet, "/api/v1/credit-cards/soa/counts?cardId="+a.ID, "", http.StatusOK); got != (finance.SOACounts{}) {
		t.Errorf("bob counting alice's card: %+v", got)
	}
	aMar, aApr := alice.statementOn(t, a.ID, "2025-03-01"), alice.statementOn(t, a.ID, "2025-04-01")
	soaIDs := func(url string) []string {
		return ids(alice.soas(t, url), func(s finance.SOA) string { return s.ID })
	}
	for _, tt := range []struct {
		url  string
		want []string
	}{
		{"/api/v1/credit-cards/soa", []string{aApr.ID, bMar.ID, aMar.ID, bFebNew.ID, aFeb.ID}},
		{"/api/v1/credit-cards/soa?status=open&sortBy=due_date&sortOrder=asc", []string{bFebNew.ID, aMar.ID, bMar.ID, aApr.ID}},
		{"/api/v1/credit-cards/soa?status=overdue", []string{bMar.ID, aMar.ID, bFebNew.ID}},
		{"/api/v1/credit-cards/soa?status=paid", []string{aFeb.ID}},
		{"/api/v1/credit-cards/soa?status=partially_paid", []string{bMar.ID}},
		{"/api/v1/credit-cards/soa?status=voided", []string{bFeb.ID}},
		{"/api/v1/credit-cards/soa?cardId=" + b.ID, []string{bMar.ID, bFebNew.ID}},
		{"/api/v1/credit-cards/soa?dateFrom=2025-02-10&dateTo=2025-03-01", []string{aMar.ID, bFebNew.ID}},
		{"/api/v1/credit-cards/soa?limit=2&page=3", []string{aFeb.ID}},
	} {
		if diff := cmp.Diff(tt.want, soaIDs(tt.url)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.url, diff)
		}
	}
	if got := alice.soas(t, "/api/v1/credit-cards/soa?status=overdue"); !got[0].IsOverdue || got[0].DaysUntilDue != -16 {
		t.Errorf("overdue statement %+v", got[0])
	}
	runRejectedSOA(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "bad filters", method: http.MethodGet,
			url:        "/api/v1/credit-cards/soa?status=late&cardId=x&dateFrom=2025-04-01&dateTo=2025-03-01&sortBy=amount",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
		alice.sc(apiScenario{name: "bad card id in counts", method: http.MethodGet, url: "/api/v1/credit-cards/soa/counts?cardId=x",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("cardId", "must be a UUID")}),
		alice.sc(apiScenario{name: "bad payment filter", method: http.MethodGet, url: "/api/v1/credit-cards/soa/" + aFeb.ID + "/payments?status=open",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
	})
}

// Every write on a statement answers the statement's figures and the rows
// it wrote, never the statement's lines: a payment, a line added, changed
// or removed, a link, an update and a void answer the same size on a
// statement of 2 lines as on one of 40 (GET /credit-cards/soa/{id} lists
// them, and still does).
func TestSOAWriteRepliesHoldNoLines(t *testing.T) {
	_, alice, _ := newSpendingEnv(t)
	f := newStatementFixture(t, alice)
	url := "/api/v1/credit-cards/soa/" + f.soa.ID
	// Without notes, a replacement or a void, those fields are left out.
	soaKeys := []string{"charges_total", "created_at", "credit_card_id", "credit_card_name", "credits_total", "currency", "days_until_due",
		"due_date", "id", "is_overdue", "minimum_due", "minimum_due_source", "minimum_met", "paid_total", "period_end",
		"period_start", "remaining", "statement_balance", "statement_date", "status", "transaction_count", "updated_at"}
	keys := func(raw json.RawMessage) []string {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return slices.Sorted(maps.Keys(m))
	}
	figures := func(what string, raw json.RawMessage) {
		t.Helper()
		if diff := cmp.Diff(soaKeys, keys(raw)); diff != "" {
			t.Errorf("%s: the statement's fields (-want +got):\n%s", what, diff)
		}
	}
	sizes := map[string][]int{}
	reply := func(what, method, target, body string, status int, want ...string) {
		t.Helper()
		res := alice.do(t, method, target, body, status)
		sizes[what] = append(sizes[what], len(res.env.Data))
		var data map[string]json.RawMessage
		res.decodeData(t, &data)
		if want == nil {
			figures(what, res.env.Data)
			return
		}
		if diff := cmp.Diff(want, keys(res.env.Data)); diff != "" {
			t.Errorf("%s: reply fields (-want +got):\n%s", what, diff)
		}
		figures(what, data["soa"])
	}
	const lines = 40
	var fees []string
	for n := 1; n <= lines; n++ {
		res := alice.do(t, http.MethodPost, url+"/transactions", `{"type":"fee","amount":"1.00","description":"Fee"}`, http.StatusCreated)
		var out finance.SOALineResult
		res.decodeData(t, &out)
		fees = append(fees, out.Transaction.ID)
		if n == 1 || n == lines {
			sizes["add a line"] = append(sizes["add a line"], len(res.env.Data))
		}
	}
	first, last := fees[0], fees[lines-1]
	reply("change a line", http.MethodPut, url+"/transactions/"+first, `{"amount":"2.00"}`, http.StatusOK, "soa", "transaction")
	reply("change a line", http.MethodPut, url+"/transactions/"+last, `{"amount":"2.00"}`, http.StatusOK, "soa", "transaction")
	reply("remove a line", http.MethodDelete, url+"/transactions/"+first, "", http.StatusOK, "soa", "transaction")
	reply("remove a line", http.MethodDelete, url+"/transactions/"+last, "", http.StatusOK, "soa", "transaction")
	soaKeys = slices.Sorted(slices.Values(append(soaKeys, "notes"))) // from here on it has notes
	reply("update", http.MethodPut, url, `{"notes":"checked"}`, http.StatusOK)
	late := alice.latePosting(t, f.card.ID, "5.00", "2025-03-02")
	reply("link", http.MethodPost, url+"/transactions/link", `{"transaction_ids":["`+late.ID+`"]}`, http.StatusOK, "soa", "transactions")
	reply("pay", http.MethodPost, url+"/payments", `{"amount":"1.00","account_id":"`+f.account.ID+`"}`, http.StatusCreated, "payment", "soa")
	// The lines are all still there to read: the two purchases, the fees
	// (two of them voided) and the late one linked.
	if got := len(alice.soa(t, f.soa.ID).Transactions); got != 2+lines+1 {
		t.Errorf("the statement lists %d rows, want %d", got, 2+lines+1)
	}
	soaKeys = slices.Sorted(slices.Values(append(soaKeys, "voided_at", "replaced_by_id"))) // a void replaces the statement
	reply("void", http.MethodPost, url+"/void", "", http.StatusOK)
	for what, n := range sizes {
		// The same fields with other values: within a few bytes whatever the line count.
		if len(n) == 2 && (n[1]-n[0] > 16 || n[0]-n[1] > 16) {
			t.Errorf("%s: the reply went from %d to %d bytes", what, n[0], n[1])
		}
		for _, size := range n {
			if size > 2000 {
				t.Errorf("%s: a %d byte reply", what, size)
			}
		}
	}
}
