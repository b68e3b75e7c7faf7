package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// beforeKeptByCurrency is the last migration before the kept totals took
// currency into their keys, keptByCurrency the migration that did.
const (
	beforeKeptByCurrency = "20261215000100"
	keptByCurrency       = "20261215000200"
)

// keptTotalsQueries read every kept total without its currency, in key order:
// what every summary of a database in one currency is computed from. Rows
// an edit or a void emptied (0 in 0) count nothing and are not refilled.
var keptTotalsQueries = []string{
	`SELECT user_id, date, category_id, payment_method, credit_card_id, amount, lines FROM spending_days
		WHERE lines <> 0 OR amount <> 0 ORDER BY user_id, date, category_id, payment_method, credit_card_id`,
	`SELECT user_id, date, payment_method, amount, count FROM expense_days WHERE count <> 0 OR amount <> 0
		ORDER BY user_id, date, payment_method`,
	`SELECT user_id, date, category_id, amount, count FROM expense_category_days WHERE count <> 0 OR amount <> 0
		ORDER BY user_id, date, category_id`,
	`SELECT user_id, month, payment_method, amount, count FROM expense_months WHERE count <> 0 OR amount <> 0
		ORDER BY user_id, month, payment_method`,
	`SELECT user_id, month, category_id, amount, count FROM expense_category_months WHERE count <> 0 OR amount <> 0
		ORDER BY user_id, month, category_id`,
}

// A database from before the kept totals had a currency (one user in PHP,
// one in USD, with expenses, a split, an edit, a void, a card fee and a refund)
// keeps every kept total through the migration, each now under its user's
// currency, and the totals' triggers go on keeping them: so every summary
// of a household in one currency reads the figures it read before, with
// nothing to convert and no rate read.
func TestKeptTotalsByCurrencyKeepEveryTotal(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, beforeKeptByCurrency)
	svc := finance.NewService(db)
	svc.SetClock(func() time.Time { return time.Date(2025, 3, 20, 4, 0, 0, 0, time.UTC) })
	ana, ben := createUser(t, db, "ana@example.com"), createUser(t, db, "ben@example.com")
	if _, err := svc.UpdateAppSettings(ctx, ben.ID, finance.AppSettingsRequest{Currency: finance.Of("USD")}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []finance.User{ana, ben} {
		fillHousehold(t, svc, u.ID)
	}
	snapshot := func() map[string][]map[string]any {
		out := map[string][]map[string]any{}
		for _, q := range keptTotalsQueries {
			var rows []map[string]any
			if err := db.ReaderScan(ctx, &rows, q); err != nil {
				t.Fatal(err)
			}
			out[q] = rows
		}
		return out
	}
	before := snapshot()
	if n := len(before[keptTotalsQueries[0]]); n < 8 {
		t.Fatalf("%d spending rows before the migration, want at least 8", n)
	}
	summary := func(u finance.User) finance.ExpenseSummary {
		s, err := svc.ExpenseSummary(ctx, u.ID, finance.NewDate(2025, 1, 15), finance.NewDate(2025, 3, 31))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	// Through this migration only: the next one merges the tables these
	// queries read (kept_day_totals_test.go proves that one).
	if err := db.MigrateThrough(ctx, keptByCurrency); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, snapshot()); d != "" {
		t.Errorf("kept totals changed by the migration (-before +after):\n%s", d)
	}
	var wrong int
	for _, table := range []string{"spending_days", "expense_days", "expense_category_days", "expense_months", "expense_category_months"} {
		if err := db.ReaderScan(ctx, &wrong, `SELECT count(*) FROM `+table+` AS k
			WHERE k.currency IS NOT COALESCE((SELECT s.currency FROM user_settings AS s WHERE s.user_id = k.user_id), 'PHP')`); err != nil || wrong != 0 {
			t.Errorf("%s: %d rows not in their user's currency (%v)", table, wrong, err)
		}
	}
	// The service reads and writes today's schema.
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if drift, err := db.TotalsDrift(ctx); err != nil || len(drift) > 0 {
		t.Errorf("TotalsDrift = %v, %v", drift, err)
	}
	// The summaries equal a recount of the rows, with nothing converted.
	for _, u := range []finance.User{ana, ben} {
		got := summary(u)
		rows, err := db.RecountExpenseTotals(ctx, u.ID, got.DateFrom, got.DateTo)
		if err != nil {
			t.Fatal(err)
		}
		if got.TotalExpenses != rows.Total || got.Count != rows.Count || got.RatesAsOf != nil || len(got.MissingRates) != 0 {
			t.Errorf("%s: summary %v in %d (rates %v, missing %v), the rows %v in %d", u.Email, got.TotalExpenses, got.Count,
				got.RatesAsOf, got.MissingRates, rows.Total, rows.Count)
		}
	}
	// The triggers keep the new keys: an edit moves its totals, still without drift.
	fillHousehold(t, svc, ana.ID)
	if drift, err := db.TotalsDrift(ctx); err != nil || len(drift) > 0 {
		t.Errorf("after writing on the new keys, TotalsDrift = %v, %v", drift, err)
	}
}

// fillHousehold writes much of what the kept totals sum: expenses of each
// method across months, a split, an edit, a void, a card fee and a refund.
func fillHousehold(t *testing.T, svc *finance.Service, userID string) {
	t.Helper()
	ctx := context.Background()
	id := finance.NewID()
	suffix := func() string { return id[len(id)-8:] }
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	acct, err := svc.CreateAccount(ctx, userID, finance.AccountRequest{Name: finance.Of("Bank " + suffix()),
		Type: finance.Of("savings"), OpeningBalance: finance.Of(finance.Money(500_000_00))})
	must(err)
	card, err := svc.CreateCreditCard(ctx, userID, finance.CardRequest{Name: finance.Of("Card " + suffix()),
		Bank: finance.Of("BPI"), LastFour: finance.Of("1234"), CreditLimit: finance.Of(finance.Money(100_000_00)),
		StatementDay: finance.Of(5), DueDay: finance.Of(25)})
	must(err)
	expense := func(amount finance.Money, date finance.Date, category, method string) finance.Expense {
		r := finance.ExpenseRequest{Amount: finance.Of(amount), Date: finance.Of(date), Description: finance.Of("x"),
			Category: finance.Of(category), PaymentMethod: finance.Of(method)}
		switch method {
		case finance.MethodAccountDebit:
			r.AccountID = finance.Of(acct.ID)
		case finance.MethodCreditCard:
			r.CreditCardID = finance.Of(card.ID)
		}
		e, err := svc.CreateExpense(ctx, userID, r)
		must(err)
		return e
	}
	for i, d := range []finance.Date{finance.NewDate(2025, 1, 20), finance.NewDate(2025, 2, 1), finance.NewDate(2025, 2, 28),
		finance.NewDate(2025, 3, 15), finance.NewDate(2025, 3, 31)} {
		expense(finance.Money(100_00+i), d, "Groceries", finance.MethodCash)
		expense(finance.Money(250_50+i), d, "Transportation", finance.MethodAccountDebit)
		expense(finance.Money(1_000_00+i), d, "Shopping", finance.MethodCreditCard)
	}
	split := expense(300_00, finance.NewDate(2025, 3, 10), "Groceries", finance.MethodCash)
	_, err = svc.SplitExpense(ctx, userID, split.ID, finance.SplitRequest{Parts: []finance.SplitPart{
		{Amount: finance.Of(finance.Money(100_00)), Category: finance.Of("Groceries")},
		{Amount: finance.Of(finance.Money(200_00)), Category: finance.Of("Shopping")}}})
	must(err)
	edited := expense(75_00, finance.NewDate(2025, 2, 10), "Groceries", finance.MethodCash)
	_, err = svc.UpdateExpense(ctx, userID, edited.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(80_00)),
		Date: finance.Of(finance.NewDate(2025, 3, 11))})
	must(err)
	voided := expense(9_00, finance.NewDate(2025, 3, 12), "Groceries", finance.MethodCash)
	_, err = svc.VoidExpense(ctx, userID, voided.ID)
	must(err)
	for _, row := range []finance.CardTransactionRequest{
		{CreditCardID: finance.Of(card.ID), Type: finance.Of(finance.CardFee), Amount: finance.Of(finance.Money(150_00)),
			Date: finance.Of(finance.NewDate(2025, 3, 5)), Description: finance.Of("Fee")},
		{CreditCardID: finance.Of(card.ID), Type: finance.Of(finance.CardRefund), Amount: finance.Of(finance.Money(40_00)),
			Date: finance.Of(finance.NewDate(2025, 3, 6)), Description: finance.Of("Refund"), Category: finance.Of("Shopping")},
	} {
		_, err := svc.CreateCardTransaction(ctx, userID, row)
		must(err)
	}
}
