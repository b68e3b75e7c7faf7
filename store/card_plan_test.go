package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// Every query of a card's rows seeks an index: billing a statement moves
// rows from unbilled to billed, so the card's index leaves the status out
// (billing does not move its entries) and the reads of unbilled rows seek
// the partial index of the unbilled rows, from which billing only deletes.
// No query scans card_transactions.
func TestCardRowQueryPlans(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	u := createUser(t, db, "card-plans@example.com")
	cardID := finance.NewID()
	soaID := finance.NewID()
	from, to := finance.NewDate(2025, 3, 1), finance.NewDate(2025, 3, 31)
	repo := db.Read()
	plans, err := db.ReaderPlans(ctx, func() error {
		for _, f := range []finance.CardTransactionFilter{
			{CardID: cardID, Status: "unbilled"},
			{CardID: cardID, Status: "billed", DateFrom: from, DateTo: to},
			{CardID: cardID},
		} {
			if _, _, err := repo.ListCardTransactions(ctx, u.ID, f, finance.ListParams{Page: 1, Limit: 50, SortBy: "date", Desc: true}); err != nil {
				return err
			}
		}
		if _, err := repo.CardUsage(ctx, []string{cardID}, from, to); err != nil {
			return err
		}
		if _, err := repo.CardMetricTotals(ctx, []string{cardID}, to, from, to); err != nil {
			return err
		}
		if _, err := repo.SOALines(ctx, u.ID, soaID); err != nil {
			return err
		}
		_, err := repo.SOATotals(ctx, soaID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	seeks := 0
	for q, plan := range plans {
		if !strings.Contains(q, "card_transactions") {
			continue
		}
		seeks++
		if !strings.Contains(plan, "SEARCH t USING ") {
			t.Errorf("the query %s\nseeks no index of card rows: %q", q, plan)
		}
		for _, step := range strings.Split(plan, "; ") {
			if step == "SCAN t" || strings.HasPrefix(step, "SCAN t ") || strings.HasPrefix(step, "SCAN card_transactions") {
				t.Errorf("the query %s\nscans card rows: %q", q, plan)
			}
		}
	}
	if seeks < 7 {
		t.Errorf("%d queries of card rows, want at least 7: %v", seeks, plans)
	}

	// The queries of a statement's generation, each to its index.
	for _, c := range []struct {
		name, query, want string
		args              []any
	}{
		{"the statement cursors' earliest unbilled date", store.StatementCursorsSQL,
			"USING COVERING INDEX card_transactions_unbilled (credit_card_id=?)", []any{u.ID}},
		{"billing's rows", "UPDATE OR FAIL card_transactions SET status = 'billed', soa_id = ?, updated_at = ? WHERE " + store.BacklogRowsWhere,
			"SEARCH card_transactions USING INDEX card_transactions_unbilled (credit_card_id=? AND date<?)",
			[]any{soaID, "2025-03-31", cardID, u.ID, "2025-03-31"}},
		{"a statement's rows", "SELECT id FROM card_transactions WHERE soa_id = ? ORDER BY date, id",
			"SEARCH card_transactions USING COVERING INDEX card_transactions_soa (soa_id=?)", []any{soaID}},
	} {
		plan, err := db.PlanOf(ctx, c.query, c.args...)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !strings.Contains(plan, c.want) {
			t.Errorf("%s: the plan is %q, want it to contain %q", c.name, plan, c.want)
		}
	}
}

// A card row's move between unbilled and billed changes no spending (both
// count), so billing writes nothing to the kept day totals; a change that
// does change spending (an amount, a void) still moves them.
func TestBillingLeavesSpendingDaysAlone(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	u := createUser(t, db, "billing-spending@example.com")
	exec := execer(t, db)
	cardID := finance.NewID()
	exec(`INSERT INTO credit_cards (id, user_id, name, name_key, credit_limit, statement_day, due_day, cycle_start_date,
		minimum_due_percent, minimum_due_floor, status, currency, created_at, updated_at)
		VALUES (?, ?, 'Visa', 'visa', 999999999, 31, 5, '2025-01-01', '3', 50000, 'active', 'PHP', '2025-01-01 08:00:00+00:00', '2025-01-01 08:00:00+00:00')`,
		cardID, u.ID)
	rowID := finance.NewID()
	exec(`INSERT INTO card_transactions (id, user_id, credit_card_id, type, amount, date, description, status,
		created_at, updated_at) VALUES (?, ?, ?, 'fee', 15000, '2025-03-10', 'annual fee', 'unbilled', '2025-03-10 08:00:00+00:00', '2025-03-10 08:00:00+00:00')`,
		rowID, u.ID, cardID)
	// Every write to spending_days is counted from here on.
	exec(`CREATE TABLE spending_day_writes (n INTEGER)`)
	exec(`CREATE TRIGGER spending_day_writes_insert AFTER INSERT ON spending_days BEGIN INSERT INTO spending_day_writes VALUES (1); END`)
	exec(`CREATE TRIGGER spending_day_writes_update AFTER UPDATE ON spending_days BEGIN INSERT INTO spending_day_writes VALUES (1); END`)
	state := func() (writes, amount, lines int) {
		t.Helper()
		var err error
		if writes, err = db.QueryInt(ctx, `SELECT COUNT(*) FROM spending_day_writes`); err != nil {
			t.Fatal(err)
		}
		if amount, err = db.QueryInt(ctx, `SELECT COALESCE(SUM(amount), 0) FROM spending_days WHERE user_id = ? AND credit_card_id = ?`, u.ID, cardID); err != nil {
			t.Fatal(err)
		}
		if lines, err = db.QueryInt(ctx, `SELECT COALESCE(SUM(lines), 0) FROM spending_days WHERE user_id = ? AND credit_card_id = ?`, u.ID, cardID); err != nil {
			t.Fatal(err)
		}
		return writes, amount, lines
	}
	check := func(step string, wantWrites, wantAmount, wantLines int) {
		t.Helper()
		if w, a, l := state(); w != wantWrites || a != wantAmount || l != wantLines {
			t.Errorf("%s: %d writes to spending_days, amount %d in %d lines; want %d writes, amount %d in %d lines",
				step, w, a, l, wantWrites, wantAmount, wantLines)
		}
	}
	check("before billing", 0, 15000, 1)
	exec(`UPDATE card_transactions SET status = 'billed' WHERE id = ?`, rowID)
	check("billed", 0, 15000, 1)
	exec(`UPDATE card_transactions SET status = 'unbilled' WHERE id = ?`, rowID)
	check("released", 0, 15000, 1)
	exec(`UPDATE card_transactions SET amount = 20000 WHERE id = ?`, rowID)
	check("a new amount", 2, 20000, 1)
	exec(`UPDATE card_transactions SET status = 'voided' WHERE id = ?`, rowID)
	check("voided", 3, 0, 0)
}
