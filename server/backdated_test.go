package server

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

func warningCodes(ws []finance.Warning) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Code)
	}
	return out
}

// TestBackdatedChargeMovesStatementsFrom: a charge before a new card's
// Statements from moves it back while nothing is paid, says so, and later
// charges of that period join its unpaid statement (domain.md, Back-dated
// card charges).
func TestBackdatedChargeMovesStatementsFrom(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	setToday(env, "2026-03-20")
	c := alice.createCard(t, `{"name":"Gold","credit_limit":100000,"statement_day":15,"due_day":5}`)

	first := alice.purchase(t, c.ID, "100.00", "2026-01-10")
	if diff := cmp.Diff([]string{finance.WarnStatementsFromMoved}, warningCodes(first.Warnings)); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}
	if m := first.Warnings[0].Message; !strings.Contains(m, "from 2026-03-20 to 2025-12-16") {
		t.Errorf("message %q does not name the old and new dates", m)
	}
	if got := alice.getCard(t, c.ID); got.CycleStartDate.String() != "2025-12-16" {
		t.Errorf("Statements from is %s, want 2025-12-16", got.CycleStartDate)
	}
	jan := alice.statementOn(t, c.ID, "2026-01-15")
	if first.Status != finance.CardBilled || first.SOAID == nil || *first.SOAID != jan.ID {
		t.Fatalf("the charge is %s on %v, want billed on the January statement %s", first.Status, first.SOAID, jan.ID)
	}

	// A later charge of the same period joins the unpaid statement: totals regenerated.
	second := alice.purchase(t, c.ID, "50.00", "2026-01-12")
	if len(second.Warnings) != 0 || second.SOAID == nil || *second.SOAID != jan.ID {
		t.Errorf("second charge on %v with warnings %v, want on %s with none", second.SOAID, warningCodes(second.Warnings), jan.ID)
	}
	want := []statementSummary{{"2026-01-15", "2025-12-16", "2026-01-15", "2026-02-05", "150.00", "150.00", 1 + 1, "unpaid"}}
	if diff := cmp.Diff(want, summarize(alice.soas(t, "/api/v1/credit-cards/soa?cardId="+c.ID))); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
}

// TestBackdatedChargeAfterAPayment: once a statement has a payment,
// Statements from stays and charges of paid periods wait for the next
// statement, and the answer says so.
func TestBackdatedChargeAfterAPayment(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	setToday(env, "2026-03-20")
	c := alice.createCard(t, `{"name":"Gold","credit_limit":100000,"statement_day":15,"due_day":5}`)
	alice.purchase(t, c.ID, "100.00", "2026-02-10")
	feb := alice.statementOn(t, c.ID, "2026-02-15")
	acct := alice.createAccount(t, `{"name":"Payroll","type":"savings","opening_balance":1000}`)
	alice.do(t, http.MethodPost, "/api/v1/credit-cards/soa/"+feb.ID+"/payments",
		`{"amount":40,"date":"2026-03-01","account_id":"`+acct.ID+`"}`, http.StatusCreated)

	inPaid := alice.purchase(t, c.ID, "7.00", "2026-02-11")
	before := alice.purchase(t, c.ID, "9.00", "2025-11-01")
	for _, r := range []finance.CardTransaction{inPaid, before} {
		if !cmp.Equal([]string{finance.WarnBilledOnNextStatement}, warningCodes(r.Warnings)) {
			t.Errorf("charge of %s has warnings %v, want %s", r.Date, warningCodes(r.Warnings), finance.WarnBilledOnNextStatement)
		}
	}
	// The first one opened the statement of March (no statement held its
	// period); the second finds March taken and waits for April.
	mar := alice.statementOn(t, c.ID, "2026-03-15")
	if inPaid.SOAID == nil || *inPaid.SOAID != mar.ID || !strings.Contains(inPaid.Warnings[0].Message, "is billed on the statement of 2026-03-15") {
		t.Errorf("the 02-11 charge is on %v: %q", inPaid.SOAID, inPaid.Warnings[0].Message)
	}
	if before.Status != finance.CardUnbilled || !strings.Contains(before.Warnings[0].Message, "stays unbilled until the next statement") {
		t.Errorf("the 2025-11-01 charge is %s: %q", before.Status, before.Warnings[0].Message)
	}
	if !strings.Contains(before.Warnings[0].Message, "before Statements from (2026-01-16)") {
		t.Errorf("message %q", before.Warnings[0].Message)
	}
	if got := alice.getCard(t, c.ID); got.CycleStartDate.String() != "2026-01-16" {
		t.Errorf("Statements from moved to %s after a payment", got.CycleStartDate)
	}
	got := alice.soa(t, feb.ID)
	if got.StatementBalance.String() != "100.00" || got.TransactionCount != 1 || got.Status != finance.SOAPartiallyPaid {
		t.Errorf("the partly paid statement changed: %+v", got.SOA)
	}
	// They are billed on the next statement generated.
	setToday(env, "2026-04-16")
	if got := alice.soa(t, alice.statementOn(t, c.ID, "2026-04-15").ID); got.StatementBalance.String() != "9.00" || got.TransactionCount != 1 {
		t.Errorf("the next statement: balance %s, %d lines, want 9.00 and 1", got.StatementBalance, got.TransactionCount)
	}
}

// TestBackfillOfSixMonths: 100 charges over six past periods, entered one by
// one in a shuffled order (on the card or as expenses) or in one bulk write,
// end as six statements that hold every charge.
func TestBackfillOfSixMonths(t *testing.T) {
	for _, route := range []string{"card", "expenses", "bulk"} {
		t.Run(route, func(t *testing.T) {
			env, alice, _ := newSpendingEnv(t)
			setToday(env, "2026-03-20")
			c := alice.createCard(t, `{"name":"Gold","credit_limit":10000000,"statement_day":15,"due_day":5}`)
			months := []string{"2025-09", "2025-10", "2025-11", "2025-12", "2026-01", "2026-02"}
			perPeriod := map[string]int64{} // statement date → cents
			var items []string
			for i := range 100 {
				// Interleaved periods, latest first, so the order of entry is not the order of dates.
				m := months[len(months)-1-i%6]
				day := 1 + (i*7)%14
				date := fmt.Sprintf("%s-%02d", m, day)
				cents := int64(100 + i)
				perPeriod[m+"-15"] += cents
				items = append(items, fmt.Sprintf(`{"amount":"%d.%02d","date":%q,"description":"charge %d","category":"Shopping","payment_method":"Credit Card","credit_card_id":%q}`,
					cents/100, cents%100, date, i, c.ID))
			}
			switch route {
			case "bulk":
				alice.do(t, http.MethodPost, "/api/v1/expenses/bulk", `{"items":[`+strings.Join(items, ",")+`]}`, http.StatusCreated)
			case "expenses":
				for _, it := range items {
					alice.do(t, http.MethodPost, "/api/v1/expenses", it, http.StatusCreated)
				}
			default:
				// One by one on the card route, as an agent back-filling history does.
				for _, it := range items {
					alice.do(t, http.MethodPost, "/api/v1/credit-cards/transactions",
						strings.Replace(it, `"payment_method":"Credit Card"`, `"type":"purchase"`, 1),
						http.StatusCreated)
				}
			}
			soas := alice.soas(t, "/api/v1/credit-cards/soa?limit=100&cardId="+c.ID)
			got := map[string]int64{}
			count := 0
			for _, a := range soas {
				got[a.StatementDate.String()] = int64(a.StatementBalance)
				count += a.TransactionCount
			}
			if diff := cmp.Diff(perPeriod, got); diff != "" || count != 100 {
				t.Errorf("%d statements holding %d charges; balances (-want +got):\n%s", len(soas), count, diff)
			}
			if card := alice.getCard(t, c.ID); card.UnbilledTotal != 0 || card.CycleStartDate.String() != "2025-08-16" {
				t.Errorf("unbilled %s, Statements from %s", card.UnbilledTotal, card.CycleStartDate)
			}
		})
	}
}

// TestBackdatedChargesAtOnce: two back-dated charges sent together both end
// on their statements, each billed once.
func TestBackdatedChargesAtOnce(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	setToday(env, "2026-03-20")
	c := alice.createCard(t, `{"name":"Gold","credit_limit":100000,"statement_day":15,"due_day":5}`)
	// t.Fatal may only be called from the test's goroutine: each request
	// reports its failure here and the test fails once all are back.
	dates := []string{"2026-01-03", "2026-01-04", "2025-12-01", "2025-12-02"}
	errs := make([]error, len(dates))
	var wg sync.WaitGroup
	for i, d := range dates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"credit_card_id":%q,"type":"purchase","amount":"10.00","date":%q,"description":"bought on %s","category":"Shopping"}`, c.ID, d, d)
			req := httptest.NewRequest(http.MethodPost, "/api/v1/credit-cards/transactions", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+alice.key)
			req.Header.Set("Content-Type", "application/json")
			rec := httptest.NewRecorder()
			env.srv.Handler().ServeHTTP(rec, req)
			if rec.Code != http.StatusCreated {
				errs[i] = fmt.Errorf("purchase of %s: status %d: %s", d, rec.Code, rec.Body)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	want := []statementSummary{
		{"2026-01-15", "2025-12-16", "2026-01-15", "2026-02-05", "20.00", "20.00", 2, "unpaid"},
		{"2025-12-15", "2025-11-16", "2025-12-15", "2026-01-05", "20.00", "20.00", 2, "unpaid"},
	}
	if diff := cmp.Diff(want, summarize(alice.soas(t, "/api/v1/credit-cards/soa?cardId="+c.ID))); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
}

// TestBackdatedExpenseJoinsOnce: a card expense joins its period's unpaid
// statement when it is created, and answers as the card route does; a row
// taken off the statement, or edited while unbilled, stays unbilled through
// later writes and generation.
func TestBackdatedExpenseJoinsOnce(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	setToday(env, "2026-03-20")
	c := alice.createCard(t, `{"name":"Gold","credit_limit":100000,"statement_day":15,"due_day":5}`)
	expense := func(amount, date string) finance.Expense {
		t.Helper()
		return send[finance.Expense](t, alice, http.MethodPost, "/api/v1/expenses", fmt.Sprintf(
			`{"amount":%q,"date":%q,"description":"on %s","category":"Shopping","payment_method":"Credit Card","credit_card_id":%q}`,
			amount, date, date, c.ID), http.StatusCreated)
	}
	// Every period up to today's has a statement, so no new one sweeps up
	// a row left unbilled.
	expense("5.00", "2026-03-01")
	first := expense("100.00", "2026-01-10")
	if diff := cmp.Diff([]string{finance.WarnStatementsFromMoved}, warningCodes(first.Warnings)); diff != "" {
		t.Fatalf("warnings (-want +got):\n%s", diff)
	}
	jan := alice.statementOn(t, c.ID, "2026-01-15")
	expense("7.00", "2026-02-01")
	second := expense("50.00", "2026-01-12")
	row := alice.getCardRow(t, *second.CardTransactionID)
	if len(second.Warnings) != 0 || row.SOAID == nil || *row.SOAID != jan.ID {
		t.Fatalf("the second expense's row is %s on %v with warnings %v, want on %s", row.Status, row.SOAID, warningCodes(second.Warnings), jan.ID)
	}
	if got := alice.soa(t, jan.ID); got.StatementBalance.String() != "150.00" || got.TransactionCount != 2 {
		t.Fatalf("January statement: %s over %d lines, want 150.00 over 2", got.StatementBalance, got.TransactionCount)
	}

	// Taken off the statement, it stays off through later writes.
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/soa/"+jan.ID+"/transactions/"+row.ID, "", http.StatusOK)
	third := expense("1.00", "2026-01-13")
	alice.do(t, http.MethodGet, "/api/v1/credit-cards/soa?cardId="+c.ID, "", http.StatusOK)
	// An edit of the unbilled row does not join it either.
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+second.ID, `{"date":"2026-01-11","amount":"51.00"}`, http.StatusOK)
	if got := alice.getCardRow(t, row.ID); got.Status != finance.CardUnbilled || got.SOAID != nil {
		t.Errorf("the row taken off is %s on %v, want unbilled", got.Status, got.SOAID)
	}
	if got := alice.soa(t, jan.ID); got.StatementBalance.String() != "101.00" || got.TransactionCount != 2 {
		t.Errorf("January statement: %s over %d lines, want 101.00 over 2 (the first and third)", got.StatementBalance, got.TransactionCount)
	}
	if r := alice.getCardRow(t, *third.CardTransactionID); r.SOAID == nil || *r.SOAID != jan.ID {
		t.Errorf("the third expense is on %v, want %s", r.SOAID, jan.ID)
	}
}

// TestBackdatedBulkWarnings: a bulk write that moves Statements from says so
// once, on the earliest charge, the one that set the new date.
func TestBackdatedBulkWarnings(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	setToday(env, "2026-03-20")
	c := alice.createCard(t, `{"name":"Gold","credit_limit":100000,"statement_day":15,"due_day":5}`)
	item := func(amount, date string) string {
		return fmt.Sprintf(`{"amount":%q,"date":%q,"description":"on %s","category":"Shopping","payment_method":"Credit Card","credit_card_id":%q}`,
			amount, date, date, c.ID)
	}
	got := send[finance.BulkExpenses](t, alice, http.MethodPost, "/api/v1/expenses/bulk",
		`{"items":[`+item("1.00", "2026-03-01")+","+item("2.00", "2026-01-10")+","+item("3.00", "2025-12-20")+`]}`, http.StatusCreated)
	var where []string
	for _, w := range got.Warnings {
		where = append(where, fmt.Sprintf("%d %s", *w.Index, w.Code))
	}
	if diff := cmp.Diff([]string{"2 " + finance.WarnStatementsFromMoved}, where); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if card := alice.getCard(t, c.ID); card.CycleStartDate.String() != "2025-12-16" || card.UnbilledTotal.String() != "0.00" {
		t.Errorf("Statements from %s, unbilled %s; want 2025-12-16 and 0.00", card.CycleStartDate, card.UnbilledTotal)
	}
}
