package store_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// TestExpensesSortAndSearchIgnoreCase: the description sort and the search ignore
// the case of ASCII letters on either database (SQLite's NOCASE and LIKE,
// lower() and ILIKE on Postgres), in both directions.
func TestExpensesSortAndSearchIgnoreCase(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	svc := finance.NewService(db)
	u := createUser(t, db, "alice@example.com")
	for _, d := range []string{"banana", "Apple", "cherry", "apricot", "Banana split"} {
		if _, err := svc.CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(100)),
			Date: finance.Of(finance.NewDate(2026, 1, 2)), Description: finance.Of(d), Category: finance.Of("Groceries"),
			PaymentMethod: finance.Of(finance.MethodCash)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, desc := range []bool{false, true} {
		for _, f := range []finance.ExpenseFilter{{Status: finance.StatusActive}, {Status: finance.StatusActive, Search: "a"}} {
			page, err := svc.ListExpenses(ctx, u.ID, f, finance.ListParams{Page: 1, Limit: 10, SortBy: "description", Desc: desc})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range page.Items {
				got = append(got, e.Description)
			}
			want := []string{"Apple", "apricot", "banana", "Banana split", "cherry"}
			if desc {
				want = []string{"cherry", "Banana split", "banana", "apricot", "Apple"}
			}
			if f.Search != "" { // every one but cherry holds an a, of either case
				want = slices.DeleteFunc(want, func(d string) bool { return d == "cherry" })
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("desc %v, search %q (-want +got):\n%s", desc, f.Search, d)
			}
		}
	}
}
