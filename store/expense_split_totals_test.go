package store_test

import (
	"context"
	"testing"

	"github.com/finance-app/finance/finance"
)

// TestSplitIntoPartsOfOneCategoryKeepsTotals: an expense split into parts
// of which two share a category, then moved to another day and voided,
// leaves the kept day and month totals equal to the rows they sum, and the
// day's row counts both parts.
func TestSplitIntoPartsOfOneCategoryKeepsTotals(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	svc := finance.NewService(db)
	u := createUser(t, db, "alice@example.com")
	e, err := svc.CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(300_00)),
		Date: finance.Of(finance.NewDate(2026, 1, 2)), Description: finance.Of("Market"), Category: finance.Of("Groceries"),
		PaymentMethod: finance.Of(finance.MethodCash)})
	if err != nil {
		t.Fatal(err)
	}
	part := func(amount finance.Money, category string) finance.SplitPart {
		return finance.SplitPart{Amount: finance.Of(amount), Category: finance.Of(category)}
	}
	if _, err := svc.SplitExpense(ctx, u.ID, e.ID, finance.SplitRequest{Parts: []finance.SplitPart{
		part(100_00, "Groceries"), part(150_00, "Groceries"), part(50_00, "Transportation")}}); err != nil {
		t.Fatal(err)
	}
	drift := func(when string) {
		t.Helper()
		if d, err := db.TotalsDrift(ctx); err != nil || len(d) > 0 {
			t.Fatalf("%s: kept totals drift %v, %v", when, d, err)
		}
	}
	drift("after the split")
	lines, err := db.QueryInt(ctx, `SELECT d.lines FROM spending_days AS d JOIN categories AS c ON c.id = d.category_id
		WHERE d.user_id = ? AND d.date = '2026-01-02' AND c.name = 'Groceries'`, u.ID)
	if err != nil || lines != 2 {
		t.Errorf("Groceries lines on the day = %d, %v; want 2", lines, err)
	}
	if _, err := svc.UpdateExpense(ctx, u.ID, e.ID, finance.ExpenseRequest{Date: finance.Of(finance.NewDate(2026, 2, 3))}); err != nil {
		t.Fatal(err)
	}
	drift("after moving it")
	if _, err := svc.VoidExpense(ctx, u.ID, e.ID); err != nil {
		t.Fatal(err)
	}
	drift("after voiding it")
}
