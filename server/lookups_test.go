package server

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
)

// The store keeps categories by name and the statement cursors in memory
// (store/lookups.go); these tests hold it to the rule that a write is seen
// by the very next request.

// A category renamed or archived is seen by the next expense that names it,
// although the expenses before it were resolved from memory.
func TestCategoryRenameAndArchiveSeenByTheNextExpense(t *testing.T) {
	_, alice, _ := newSpendingEnv(t)
	cat := send[finance.Category](t, alice, http.MethodPost, "/api/v1/categories", `{"name":"Snacks","kind":"expense"}`, http.StatusCreated)
	expense := func(category string) string {
		return fmt.Sprintf(`{"amount":"10.00","date":"2025-03-11","description":"bite","category":%q,"payment_method":"Cash"}`, category)
	}
	refused := func(category, when string) {
		t.Helper()
		res := alice.do(t, http.MethodPost, "/api/v1/expenses", expense(category), http.StatusBadRequest)
		if msg := res.message(); !strings.Contains(msg, "category") {
			t.Errorf("%s: an expense in %q: message %q, want it to name the category", when, category, msg)
		}
	}
	for range 2 { // the second resolves the name from memory
		if e := alice.createExpense(t, expense("Snacks")); e.CategoryID == nil || *e.CategoryID != cat.ID {
			t.Fatalf("expense in Snacks has category %v, want %s", e.CategoryID, cat.ID)
		}
	}

	alice.do(t, http.MethodPut, "/api/v1/categories/"+cat.ID, `{"name":"Treats"}`, http.StatusOK)
	refused("Snacks", "after the rename")
	if e := alice.createExpense(t, expense("treats")); e.CategoryID == nil || *e.CategoryID != cat.ID {
		t.Fatalf("expense in treats has category %v, want %s", e.CategoryID, cat.ID)
	}

	alice.do(t, http.MethodDelete, "/api/v1/categories/"+cat.ID, "", http.StatusOK)
	refused("Treats", "after the archive")

	items, _ := page[finance.Expense](t, alice, "/api/v1/expenses?limit=100")
	if len(items) != 3 {
		t.Fatalf("%d expenses recorded, want 3 (two in Snacks, one in Treats)", len(items))
	}
	for _, e := range items {
		if e.CategoryID == nil || *e.CategoryID != cat.ID {
			t.Errorf("expense %s has category %v, want %s", e.ID, e.CategoryID, cat.ID)
		}
	}
}

// A card whose statement day moved before its next statement date gets the
// statement of the new day on the next request, although the check for due
// statements had kept the card's old day in memory.
func TestStatementDayMovedGeneratesOnTheNextRequest(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	setToday(env, "2025-04-10")
	c := alice.createCard(t, `{"name":"Gold","credit_limit":100000,"statement_day":15,"due_day":5,"cycle_start_date":"2025-03-01"}`)
	row := alice.purchase(t, c.ID, "250.00", "2025-04-05")
	for range 2 { // the second checks from memory
		if got := alice.soas(t, "/api/v1/credit-cards/soa"); len(got) != 0 {
			t.Fatalf("statements on 04-10 with the 15th as statement day: %d, want none", len(got))
		}
	}

	alice.do(t, http.MethodPut, "/api/v1/credit-cards/"+c.ID, `{"statement_day":8}`, http.StatusOK)
	got := alice.soas(t, "/api/v1/credit-cards/soa")
	if len(got) != 1 || got[0].StatementDate.String() != "2025-04-08" || got[0].StatementBalance.String() != "250.00" {
		t.Fatalf("statements after the statement day moved to the 8th: %+v, want one of 2025-04-08 for 250.00", summarize(got))
	}
	if r := alice.getCardRow(t, row.ID); r.Status != finance.CardBilled || r.SOAID == nil || *r.SOAID != got[0].ID {
		t.Errorf("the 04-05 purchase is %s on %v, want billed on %s", r.Status, r.SOAID, got[0].ID)
	}
}
