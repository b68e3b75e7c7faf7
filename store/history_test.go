package store_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// RecentExpenseChoices is what AI parsing learns from: the user's own
// newest active expenses with an active category, at most limit of them.
func TestRecentExpenseChoices(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	svc := finance.NewService(db)
	alice, bob := createUser(t, db, "alice@example.com"), createUser(t, db, "bob@example.com")
	create := func(u finance.User, desc, category string) finance.Expense {
		t.Helper()
		e, err := svc.CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(100)),
			Date: finance.Of(finance.NewDate(2026, 1, 1)), Description: finance.Of(desc), Category: finance.Of(category),
			PaymentMethod: finance.Of(finance.MethodCash)})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	hobby, err := svc.CreateCategory(ctx, alice.ID, finance.CategoryRequest{Name: finance.Of("Hobby"), Kind: finance.Of(string(finance.KindExpense))})
	if err != nil {
		t.Fatal(err)
	}
	create(alice, "Paint", "Hobby")
	create(alice, "Puregold", "Groceries")
	voided := create(alice, "Cinema", "Entertainment")
	create(alice, "Jeep", "Transportation")
	create(bob, "Bob's lunch", "Food & Dining")
	if _, err := svc.VoidExpense(ctx, alice.ID, voided.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ArchiveCategory(ctx, alice.ID, hobby.ID); err != nil {
		t.Fatal(err)
	}
	got, err := db.Read().RecentExpenseChoices(ctx, alice.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []finance.ExpenseChoice{{Description: "Jeep", Category: "Transportation"}, {Description: "Puregold", Category: "Groceries"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got, _ := db.Read().RecentExpenseChoices(ctx, alice.ID, 1); len(got) != 1 || got[0].Description != "Jeep" {
		t.Errorf("limit 1: %v", got)
	}
}
