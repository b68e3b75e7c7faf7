package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// beforeUserSeq is the last migration of the schema whose expense indexes
// led with user_id.
const beforeUserSeq = "20261127000300"

// A database whose expenses were written under the previous schema keeps
// every row, split part, card row, count and daily total through the
// rebuild, lists in the same order, and takes writes afterwards.
func TestExpenseRebuildKeepsRowsTotalsAndOrder(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, beforeUserSeq)
	exec := execer(t, db)
	// The rows as the previous schema's writes left them (the triggers of
	// that schema keep the counts and totals).
	const at = "2025-03-01 08:00:00+00:00"
	users := []string{finance.NewID(), finance.NewID()}
	type userData struct{ cats []string }
	data := map[string]*userData{}
	for n, u := range users {
		exec(`INSERT INTO users (id, email, name, password_hash, plan, created_at, updated_at) VALUES (?, ?, 'U', 'h', 'pro', ?, ?)`,
			u, fmt.Sprintf("u%d@example.com", n), at, at)
		d := &userData{}
		for _, name := range []string{"Groceries", "Transport", "Dining"} {
			id := finance.NewID()
			exec(`INSERT INTO categories (id, user_id, name, name_key, kind, status, created_at, updated_at)
				VALUES (?, ?, ?, ?, 'expense', 'active', ?, ?)`, id, u, name, strings.ToLower(name), at, at)
			d.cats = append(d.cats, id)
		}
		data[u] = d
	}
	alice := users[0]
	account, card := finance.NewID(), finance.NewID()
	exec(`INSERT INTO accounts (id, user_id, name, name_key, type, status, created_at, updated_at)
		VALUES (?, ?, 'Savings', 'savings', 'savings', 'active', ?, ?)`, account, alice, at, at)
	exec(`INSERT INTO credit_cards (id, user_id, name, name_key, credit_limit, statement_day, due_day, cycle_start_date,
		minimum_due_percent, minimum_due_floor, status, created_at, updated_at)
		VALUES (?, ?, 'Visa', 'visa', 10000000, 15, 5, '2025-01-01', '3', 50000, 'active', ?, ?)`, card, alice, at, at)
	for n, u := range users {
		for i := 0; i < 30-20*n; i++ {
			id := finance.NewID()
			method, acct, cc, line, row := "Cash", any(nil), any(nil), any(nil), any(nil)
			amount, date := 100+(i*37)%400, fmt.Sprintf("2025-%02d-%02d", 1+i%6, 1+(i*7)%28)
			if n == 0 && i%3 == 1 {
				method, acct, line = "Account Debit", account, finance.NewID()
				exec(`INSERT INTO account_transactions (id, user_id, account_id, type, amount, date, source, source_id, status,
					created_at, updated_at) VALUES (?, ?, ?, 'debit', ?, ?, 'expense', ?, 'posted', ?, ?)`, line, u, account, amount, date, id, at, at)
			}
			if n == 0 && i%3 == 2 {
				method, cc, row = "Credit Card", card, finance.NewID()
				exec(`INSERT INTO card_transactions (id, user_id, credit_card_id, type, amount, date, description, status, expense_id,
					created_at, updated_at) VALUES (?, ?, ?, 'purchase', ?, ?, 'card', 'unbilled', ?, ?, ?)`, row, u, card, amount, date, id, at, at)
			}
			// Descriptions of mixed case (the description sort ignores case)
			// and creation times with ties (broken by id).
			desc := []string{"apple", "Banana", "cherry", "Apple"}[i%4] + fmt.Sprint(i%5)
			created := fmt.Sprintf("2025-03-%02d 09:00:00+00:00", 1+i%4)
			cat := any(data[u].cats[i%3])
			if i == 4 {
				cat = nil // split below
			}
			exec(`INSERT INTO expenses (id, user_id, amount, date, description, category_id, payment_method, account_id, credit_card_id,
				status, source, account_transaction_id, card_transaction_id, created_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', 'manual', ?, ?, ?, ?)`,
				id, u, amount, date, desc, cat, method, acct, cc, line, row, created, created)
			if i == 4 {
				for p, share := range []int{amount - 30, 30} {
					exec(`INSERT INTO expense_splits (id, user_id, expense_id, position, amount, category_id) VALUES (?, ?, ?, ?, ?, ?)`,
						finance.NewID(), u, id, p, share, data[u].cats[p])
				}
			}
			if i%7 == 6 {
				exec(`UPDATE expenses SET status = 'voided', voided_at = ? WHERE id = ?`, at, id)
			}
		}
	}

	// What must survive.
	snapshot := func() map[string][]map[string]any {
		t.Helper()
		out := map[string][]map[string]any{}
		for _, q := range []string{
			"SELECT * FROM expenses ORDER BY id",
			"SELECT * FROM expense_splits ORDER BY id",
			"SELECT * FROM card_transactions ORDER BY id",
			"SELECT * FROM account_transactions ORDER BY id",
			"SELECT * FROM expense_counts ORDER BY user_id, status",
			"SELECT * FROM expense_days ORDER BY user_id, date, payment_method",
			"SELECT * FROM expense_category_days ORDER BY user_id, date, category_id",
			"SELECT * FROM expense_months ORDER BY user_id, month, payment_method",
			"SELECT * FROM expense_category_months ORDER BY user_id, month, category_id",
			"SELECT * FROM spending_days ORDER BY user_id, date, category_id, payment_method, credit_card_id",
			"SELECT * FROM account_line_totals",
			"SELECT * FROM card_totals",
			// Every trigger survives the rebuild (the users trigger that the user
			// number's migration adds is new, not rebuilt).
			"SELECT type, name, tbl_name FROM sqlite_schema WHERE type = 'trigger' AND name <> 'users_seq_required' ORDER BY name",
		} {
			var rows []map[string]any
			if err := db.ReaderScan(ctx, &rows, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for _, r := range rows {
				// Columns later migrations add are new, not rebuilt.
				delete(r, "user_seq")
				delete(r, "cleared")
				if strings.HasPrefix(q, "SELECT * FROM expense_counts") {
					delete(r, "total")
				}
			}
			out[q] = rows
		}
		return out
	}
	before := snapshot()
	if n := len(before["SELECT * FROM expenses ORDER BY id"]); n != 40 {
		t.Fatalf("%d expenses written, want 40", n)
	}
	type listCase struct {
		user, status, sortBy string
		desc                 bool
	}
	sortCols := map[string]string{"date": "date", "amount": "amount", "description": "description COLLATE NOCASE", "created_at": "created_at"}
	var lists []listCase
	for _, u := range users {
		for _, status := range []string{"active", "voided"} {
			for sortBy := range sortCols {
				lists = append(lists, listCase{u, status, sortBy, false}, listCase{u, status, sortBy, true})
			}
		}
	}
	order := func(c listCase) []string {
		t.Helper()
		dir := " ASC"
		if c.desc {
			dir = " DESC"
		}
		var ids []string
		if err := db.ReaderScan(ctx, &ids, "SELECT id FROM expenses WHERE user_id = ? AND status = ? ORDER BY "+
			sortCols[c.sortBy]+dir+", id"+dir, c.user, c.status); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	wantOrder := map[listCase][]string{}
	for _, c := range lists {
		wantOrder[c] = order(c)
	}

	// Through the last rebuild of expenses: later migrations add columns
	// (currency) of their own.
	if err := db.MigrateThrough(ctx, "20261202000120"); err != nil {
		t.Fatal(err)
	}

	if diff := cmp.Diff(before, snapshot()); diff != "" {
		t.Errorf("rows or totals changed by the rebuild (-before +after):\n%s", diff)
	}
	var wrong int
	if err := db.ReaderScan(ctx, &wrong, `SELECT count(*) FROM expenses AS e JOIN users AS u ON u.id = e.user_id
		WHERE e.user_seq IS NOT u.seq`); err != nil || wrong != 0 {
		t.Errorf("%d expenses with another user's user_seq (%v)", wrong, err)
	}
	// The service reads and writes today's schema.
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// TotalsDrift reads today's schema: the totals kept through the rebuild
	// and then re-keyed by currency still equal their rows.
	if drift, err := db.TotalsDrift(ctx); err != nil || len(drift) > 0 {
		t.Errorf("TotalsDrift = %v, %v", drift, err)
	}
	svc := finance.NewService(db)
	for _, c := range lists {
		var got []string
		for page := 1; ; page++ {
			p, err := svc.ListExpenses(ctx, c.user, finance.ExpenseFilter{Status: c.status},
				finance.ListParams{Page: page, Limit: 7, SortBy: c.sortBy, Desc: c.desc})
			if err != nil {
				t.Fatal(err)
			}
			if p.Pagination.TotalItems != len(wantOrder[c]) {
				t.Errorf("%+v: total_items %d, want %d", c, p.Pagination.TotalItems, len(wantOrder[c]))
			}
			for _, e := range p.Items {
				got = append(got, e.ID)
			}
			if len(p.Items) < 7 {
				break
			}
		}
		if diff := cmp.Diff(wantOrder[c], got); diff != "" {
			t.Errorf("%+v: list order changed (-before +after):\n%s", c, diff)
		}
	}

	// Writes after the rebuild keep the totals, and each user sees only
	// their own rows.
	e, err := svc.CreateExpense(ctx, users[1], finance.ExpenseRequest{Amount: finance.Of(finance.Money(500)),
		Date: finance.Of(finance.NewDate(2025, 3, 3)), Description: finance.Of("after"), Category: finance.Of("Dining"),
		PaymentMethod: finance.Of(finance.MethodCash)})
	if err != nil {
		t.Fatal(err)
	}
	first := wantOrder[listCase{alice, "active", "date", true}][0]
	if _, err := svc.VoidExpense(ctx, alice, first); err != nil {
		t.Fatal(err)
	}
	if drift, err := db.TotalsDrift(ctx); err != nil || len(drift) > 0 {
		t.Errorf("TotalsDrift after writes = %v, %v", drift, err)
	}
	for _, u := range users {
		p, err := svc.ListExpenses(ctx, u, finance.ExpenseFilter{Status: "active"}, finance.ListParams{Page: 1, Limit: 100, SortBy: "date", Desc: true})
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := db.ReaderScan(ctx, &n, "SELECT count(*) FROM expenses WHERE user_id = ? AND status = 'active'", u); err != nil {
			t.Fatal(err)
		}
		if len(p.Items) != n || p.Pagination.TotalItems != n {
			t.Errorf("user %s: %d items, total_items %d, want %d", u, len(p.Items), p.Pagination.TotalItems, n)
		}
		for _, x := range p.Items {
			if x.ID == first || (u == alice && x.ID == e.ID) {
				t.Errorf("user %s lists %s", u, x.ID)
			}
		}
	}
}
