package store_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/finance-app/finance/finance"
)

// beforeCurrencies is the last migration before records named their currency.
const beforeCurrencies = "20261214000100"

// A database from before currencies: every account, card, loan, bill and
// income template takes its user's currency (USD for a user who chose it,
// PHP for one who never saved settings), each amount as it was, and the
// currency checks take them as they are.
func TestRecordsFromBeforeCurrenciesTakeTheirUsersCurrency(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, beforeCurrencies)
	exec := execer(t, db)
	alice, bob := createUser(t, db, "alice@example.com"), createUser(t, db, "bob@example.com")
	d := finance.DefaultAppSettings()
	exec(`INSERT INTO user_settings (user_id, currency, timezone, date_format, week_start, default_payment_method,
		budget_warning_percent, due_soon_days, updated_at) VALUES (?, 'USD', ?, ?, ?, ?, ?, ?, '2026-12-01 00:00:00')`,
		alice.ID, d.Timezone, d.DateFormat, d.WeekStart, d.DefaultPaymentMethod, d.BudgetWarningPercent, d.DueSoonDays)
	const at = "'2026-12-01 00:00:00'"
	ids := map[string]map[string]string{}
	for _, u := range []finance.User{alice, bob} {
		var cat string
		if err := db.ReaderScan(ctx, &cat, "SELECT id FROM categories WHERE user_id = ? ORDER BY name LIMIT 1", u.ID); err != nil {
			t.Fatal(err)
		}
		id := func() string { return finance.NewID() }
		m := map[string]string{"account": id(), "card": id(), "loan": id(), "bill": id(), "income": id()}
		ids[u.ID] = m
		exec(`INSERT INTO accounts (id, user_id, name, name_key, type, opening_balance, status, created_at, updated_at)
			VALUES (?, ?, 'Savings', 'savings', 'savings', 100050, 'active', `+at+`, `+at+`)`, m["account"], u.ID)
		exec(`INSERT INTO credit_cards (id, user_id, name, name_key, credit_limit, statement_day, due_day, cycle_start_date,
			minimum_due_percent, minimum_due_floor, status, created_at, updated_at)
			VALUES (?, ?, 'Visa', 'visa', 5000000, 15, 5, '2026-11-01', '3', 50000, 'active', `+at+`, `+at+`)`, m["card"], u.ID)
		exec(`INSERT INTO loans (id, user_id, name, name_key, principal, interest_type, term_months, start_date, first_due_date,
			status, total_interest, created_at, updated_at)
			VALUES (?, ?, 'Car', 'car', 1200000, 'none', 12, '2026-11-01', '2026-12-01', 'active', 0, `+at+`, `+at+`)`, m["loan"], u.ID)
		exec(`INSERT INTO bill_templates (id, user_id, name, amount, category_id, frequency, start_date, due_day, status, created_at, updated_at)
			VALUES (?, ?, 'Rent', 1500000, ?, 'monthly', '2026-12-01', 1, 'active', `+at+`, `+at+`)`, m["bill"], u.ID, cat)
		exec(`INSERT INTO income_templates (id, user_id, name, amount, category_id, frequency, start_date, due_day, status, created_at, updated_at)
			VALUES (?, ?, 'Pay', 2500050, ?, 'monthly', '2026-12-01', 15, 'active', `+at+`, `+at+`)`, m["income"], u.ID, cat)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}

	repo := db.Read()
	today := finance.NewDate(2026, 12, 15)
	for _, c := range []struct {
		user finance.User
		want string
	}{{alice, "USD"}, {bob, "PHP"}} {
		m := ids[c.user.ID]
		a, err := repo.Account(ctx, c.user.ID, m["account"])
		check(t, "account", err, a.Currency, c.want, a.OpeningBalance, 100050)
		card, err := repo.CreditCard(ctx, c.user.ID, m["card"], today)
		check(t, "card", err, card.Currency, c.want, card.CreditLimit, 5000000)
		if card.ForeignFeePercent != 0 {
			t.Errorf("card fee %s, want 0", card.ForeignFeePercent)
		}
		l, err := repo.Loan(ctx, c.user.ID, m["loan"])
		check(t, "loan", err, l.Currency, c.want, l.Principal, 1200000)
		b, err := repo.BillTemplate(ctx, c.user.ID, m["bill"])
		check(t, "bill template", err, b.Currency, c.want, b.Amount, 1500000)
		in, err := repo.IncomeTemplate(ctx, c.user.ID, m["income"])
		check(t, "income template", err, in.Currency, c.want, in.Amount, 2500050)
	}
}

func check(t *testing.T, what string, err error, currency, want string, amount, wantAmount finance.Money) {
	t.Helper()
	if err != nil || currency != want || amount != wantAmount {
		t.Errorf("%s: %s %s, %v; want %s %s", what, currency, amount, err, want, fmt.Sprint(wantAmount))
	}
}
