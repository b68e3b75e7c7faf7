package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/finance-app/finance/finance"
)

// The unfiltered expense list reads total_items from counts that triggers
// keep; they must agree with COUNT(*) after creates, bulk creates and voids,
// per user and status.
func TestExpenseCountsFollowWrites(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	svc := finance.NewService(db)
	alice, bob := createUser(t, db, "alice@example.com"), createUser(t, db, "bob@example.com")
	req := func(i int) finance.ExpenseRequest {
		return finance.ExpenseRequest{Amount: finance.Of(finance.Money(100 + i)), Date: finance.Of(finance.NewDate(2026, 1, 1+i%28)),
			Description: finance.Of(fmt.Sprintf("e%d", i)), Category: finance.Of("Groceries"), PaymentMethod: finance.Of(finance.MethodCash)}
	}
	var ids []string
	for i := 0; i < 5; i++ {
		e, err := svc.CreateExpense(ctx, alice.ID, req(i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, e.ID)
	}
	if _, err := svc.CreateExpenses(ctx, alice.ID, finance.BulkExpenseRequest{Items: []finance.ExpenseRequest{req(7), req(8), req(9)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateExpense(ctx, bob.ID, req(1)); err != nil {
		t.Fatal(err)
	}
	for _, id := range ids[:2] {
		if _, err := svc.VoidExpense(ctx, alice.ID, id); err != nil {
			t.Fatal(err)
		}
	}
	// A rejected bulk (one bad item) must not move the count either.
	bad := req(10)
	bad.Category = finance.Of("No such category")
	if _, err := svc.CreateExpenses(ctx, alice.ID, finance.BulkExpenseRequest{Items: []finance.ExpenseRequest{req(11), bad}}); err == nil {
		t.Fatal("bulk with an unknown category was accepted")
	}

	for _, tc := range []struct {
		user   finance.User
		status string
		want   int
	}{{alice, "active", 6}, {alice, "voided", 2}, {bob, "active", 1}, {bob, "voided", 0}} {
		page, err := svc.ListExpenses(ctx, tc.user.ID, finance.ExpenseFilter{Status: tc.status},
			finance.ListParams{Page: 1, Limit: 1, SortBy: "date", Desc: true})
		if err != nil {
			t.Fatal(err)
		}
		counted, err := db.QueryInt(ctx, "SELECT count(*) FROM expenses WHERE user_id = ? AND status = ?", tc.user.ID, tc.status)
		if err != nil {
			t.Fatal(err)
		}
		if page.Pagination.TotalItems != tc.want || counted != tc.want {
			t.Errorf("%s %s: total_items %d, COUNT(*) %d, want %d", tc.user.Email, tc.status, page.Pagination.TotalItems, counted, tc.want)
		}
	}
}
