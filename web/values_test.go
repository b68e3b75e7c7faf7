package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// TestMoneyFieldsReadGrouping: every page's money field takes an amount as
// a person types it, "50,000" as 50000.00, reading a lone "1,234" by the
// person's currency; the confirmation says what was written, and a refused
// amount writes nothing and stays as typed.
func TestMoneyFieldsReadGrouping(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	token := testkit.CSRF(t, b.Get(web.RecordPath))
	expense := func(amount string) url.Values {
		return url.Values{"csrf": {token}, "kind": {"expense"}, "amount": {amount}, "date": {"2025-03-14"},
			"description": {"Rent"}, "category": {"Rent & Housing"}, "payment_method": {"Cash"}}
	}

	x := b.Post(web.RecordPath, expense("50,000"))
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != "/?month=2025-03&notice=expense-recorded&amount=50000.00" {
		t.Fatalf("50,000: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	if got := expensesOf(t, env, u, ""); len(got) != 1 || got[0].Amount != 5_000_000 {
		t.Fatalf("expenses after 50,000: %+v", got)
	}
	if home := b.Get(x.Header.Get("Location")); !strings.Contains(testkit.Unescaped(home), "Expense recorded: ₱50,000.00.") {
		t.Errorf("Home does not say what was recorded:\n%s", home.Body)
	}

	// Other forms read their money fields the same way.
	x = b.Post(web.AccountsPath, url.Values{"csrf": {token}, "name": {"Payroll"}, "type": {"savings"}, "opening_balance": {"1 234,56"}})
	if a := accountsOf(t, env, u, finance.StatusAll); x.Status != http.StatusSeeOther || len(a) != 1 || a[0].OpeningBalance != 123_456 {
		t.Fatalf("account with 1 234,56: %d, %+v\n%s", x.Status, a, x.Body)
	}
	x = b.Post(web.CardsPath, url.Values{"csrf": {token}, "name": {"Visa"}, "credit_limit": {"150,000.00"}, "statement_day": {"10"},
		"due_day": {"5"}, "cycle_start_date": {"2025-01-01"}})
	if c := cardsOf(t, env, u); x.Status != http.StatusSeeOther || len(c) != 1 || c[0].CreditLimit != 15_000_000 {
		t.Fatalf("card with 150,000.00: %d, %+v\n%s", x.Status, c, x.Body)
	}

	// A lone mark before three digits is the currency's decimal mark or its
	// grouping: "1,234" is 1234.00 in pesos, refused in euros (three decimals).
	if _, err := env.srv.Ledger().UpdateAppSettings(ctx, u.ID, finance.AppSettingsRequest{Currency: finance.Field[string]{Set: true, Value: "EUR"}}); err != nil {
		t.Fatal(err)
	}
	x = b.Post(web.RecordPath, expense("1,234"))
	testkit.WantPage(t, "1,234 in euros", x, http.StatusBadRequest, "Amount must be a number with at most 2 decimal places", `value="1,234"`)
	if n := len(expensesOf(t, env, u, "")); n != 1 {
		t.Fatalf("a refused amount wrote an expense: %d expenses", n)
	}
	x = b.Post(web.RecordPath, expense("1.234,50"))
	if got := expensesOf(t, env, u, ""); x.Status != http.StatusSeeOther || len(got) != 2 || got[0].Amount+got[1].Amount != 5_000_000+123_450 {
		t.Fatalf("1.234,50 in euros: %d, %+v\n%s", x.Status, got, x.Body)
	}
	if home := b.Get(x.Header.Get("Location")); !strings.Contains(testkit.Unescaped(home), "Expense recorded: €1,234.50.") {
		t.Errorf("Home does not say what was recorded in euros")
	}
}
