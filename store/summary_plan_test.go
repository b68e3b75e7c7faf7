package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// The expense summary's queries seek the user's kept day rows (or the few
// card spending rows) by date; none scans a table, so a summary's cost
// follows the days and months of its range, not the number of expenses. The
// sums by method and by category are one read of the kept rows.
func TestExpenseSummaryQueryPlans(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	u := newUser("plans@example.com")
	if err := db.CreateUser(ctx, u, "hash"); err != nil {
		t.Fatal(err)
	}
	from, to := finance.NewDate(2025, 3, 1), finance.NewDate(2025, 3, 31)
	repo := db.Read()
	plans, err := db.ReaderPlans(ctx, func() error {
		if _, err := repo.ExpenseTotals(ctx, u.ID, finance.DefaultCurrency, from, to); err != nil {
			return err
		}
		if _, err := repo.CardSpending(ctx, u.ID, from, to); err != nil {
			return err
		}
		_, err := repo.LoanInterestPaid(ctx, u.ID, from, to)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		// The whole months of the range, and the days at its ends.
		"spending_days": {"SEARCH days USING PRIMARY KEY (user_id=? AND date>? AND date<?)",
			"SEARCH months USING PRIMARY KEY (user_id=? AND month>? AND month<?)"},
		// Whether any expense is in another currency.
		"expense_counts":    {"SEARCH expense_counts USING PRIMARY KEY (user_id=? AND status=?)"},
		"card_transactions": {"SEARCH t USING COVERING INDEX card_transactions_user_spending (user_id=? AND date>? AND date<?)"},
		"loan_payments":     {"SEARCH lp USING COVERING INDEX loan_payments_user_date (user_id=? AND date>? AND date<?)"},
	}
	queries := map[string]int{"spending_days": 1, "expense_counts": 1, "card_transactions": 1, "loan_payments": 1}
	if len(plans) != 4 {
		t.Fatalf("%d queries, want 4: %v", len(plans), plans)
	}
	seen := map[string]int{}
	for q, plan := range plans {
		var table string
		for name := range want {
			if strings.Contains(q, " "+name+" ") && (table == "" || len(name) > len(table)) {
				table = name
			}
		}
		if table == "" {
			t.Errorf("an unexpected query: %s", q)
			continue
		}
		seen[table]++
		for _, w := range want[table] {
			if !strings.Contains(plan, w) {
				t.Errorf("the %s query's plan is %q, want it to contain %q", table, plan, w)
			}
		}
		for _, step := range strings.Split(plan, "; ") {
			// s and d are the subqueries' results (the seeks above), and the
			// constant row is the one EXISTS answers, not tables.
			if strings.HasPrefix(step, "SCAN ") && step != "SCAN s" && step != "SCAN d" && step != "SCAN CONSTANT ROW" {
				t.Errorf("the %s query scans: %q", table, plan)
			}
		}
	}
	if d := cmp.Diff(queries, seen); d != "" {
		t.Errorf("queries per table (-want +got):\n%s", d)
	}
}
