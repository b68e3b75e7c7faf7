package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// The look-ups of a write's warnings run in every expense write: each
// seeks the index it needs (docs/domain.md, What warnings cost).
func TestWarningQueryPlans(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	from, to := finance.NewDate(2025, 3, 1), finance.NewDate(2025, 3, 3)
	for _, tc := range []struct {
		name, query, plan string
		args              []any
	}{
		// The expenses of one amount, then their dates; the few of them are
		// sorted by nearness.
		{"look-alike expenses", store.ExpensesLikeSQL, "SEARCH e USING INDEX expenses_active_amount (user_seq=? AND amount=?)",
			[]any{"u", finance.Money(100_00), from, to, "", from, 50}},
		{"open bills", store.OpenBillsDueSQL, "SEARCH b USING INDEX bill_instances_user_due (user_id=? AND due_date>? AND due_date<?)",
			[]any{"u", from, to, 50}},
		{"open installments", store.OpenInstancesDueSQL, "SEARCH li USING INDEX loan_instances_user_due (user_id=? AND status=? AND due_date>? AND due_date<?)",
			[]any{"u", from, to}},
	} {
		plan, err := db.PlanOf(ctx, tc.query, tc.args...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !strings.Contains(plan, tc.plan) || strings.Contains(plan, "SCAN ") {
			t.Errorf("%s: plan %q, want %q and no scan", tc.name, plan, tc.plan)
		}
	}
}
