package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// The benchmark's data: large histories written straight into the tables
// through the store's raw transactions, which through the API would take far
// longer than the measurements themselves.

// seedExpenses adds n Cash expenses for the user with the given email, spread
// over the expense categories and the days of the three years ending at end,
// in transactions of 10,000 rows.
func seedExpenses(ctx context.Context, db *store.DB, email string, n int, end finance.Date) error {
	var userID string
	if err := queryRow(ctx, db, []any{&userID}, "SELECT id FROM users WHERE email = ?", email); err != nil {
		return fmt.Errorf("seed: user %s: %w", email, err)
	}
	const ofUser = "FROM categories WHERE user_id = ? AND kind = 'expense' AND status = 'active' AND is_system = 0 ORDER BY id"
	cats, err := queryStrings(ctx, db, "SELECT id "+ofUser, userID)
	if err != nil {
		return err
	}
	catNames, err := queryStrings(ctx, db, "SELECT name "+ofUser, userID)
	if err != nil {
		return err
	}
	// Each expense has the activity entry a create through the API appends
	// (docs/domain.md "Activity: who did what"), made by the bench's key, so
	// the bytes per expense count it.
	if err := rawExec(ctx, db, `INSERT INTO activity_actors (user_seq, kind, ref, name, source)
		SELECT seq, 'api_key', 'bench', 'bench', 'manual' FROM users WHERE id = ? ON CONFLICT DO NOTHING`, userID); err != nil {
		return err
	}
	var actor int64
	if err := queryRow(ctx, db, []any{&actor}, `SELECT a.id FROM activity_actors AS a JOIN users AS u ON u.seq = a.user_seq
		WHERE u.id = ? AND a.name = 'bench' ORDER BY a.id LIMIT 1`, userID); err != nil {
		return err
	}
	// A large page cache on the writer keeps the four expense indexes in
	// memory while rows land at scattered positions in them.
	if err := rawExec(ctx, db, "PRAGMA cache_size = -262144"); err != nil {
		return err
	}
	const batch = 50_000
	now := time.Now().UTC().Truncate(time.Second)
	for done := 0; done < n; {
		size := min(batch, n-done)
		err := db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
			stmt, err := tx.PrepareContext(ctx, `INSERT INTO expenses (id, currency, user_id, user_seq, amount, date, description, category_id,
				payment_method, status, source, created_at, updated_at)
				VALUES (?1, 'PHP', ?2, (SELECT seq FROM users WHERE id = ?2), ?3, ?4, ?5, ?6, 'Cash', 'active', 'manual', ?7, ?8)`)
			if err != nil {
				return err
			}
			defer stmt.Close()
			entry, err := tx.PrepareContext(ctx, `INSERT INTO activity (id, user_seq, at, actor, kind, record_id, action, summary, amount)
				VALUES (?1, (SELECT seq FROM users WHERE id = ?2), ?3, ?4, 'expense', ?5, 'created', ?6, ?7)`)
			if err != nil {
				return err
			}
			defer entry.Close()
			for i := done; i < done+size; i++ {
				date := end.AddDays(-(i % 1096))
				amount := int64(100 + (i*7919)%500000)
				id, description := finance.NewID(), fmt.Sprintf("seeded expense %d", i)
				if _, err := stmt.ExecContext(ctx, id, userID, amount, date.String(),
					description, cats[i%len(cats)], now, now); err != nil {
					return err
				}
				summary := fmt.Sprintf("Expense %q %s on %s, %s, Cash", description, finance.Money(amount), date, catNames[i%len(cats)])
				if _, err := entry.ExecContext(ctx, finance.NewID(), userID, now.Unix(), actor, id, summary, amount); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		done += size
	}
	return rawExec(ctx, db, "ANALYZE")
}

// seedAccountLines adds n posted manual lines (alternating credit and debit)
// to an account.
func seedAccountLines(ctx context.Context, db *store.DB, accountID string, n int, end finance.Date) error {
	var userID string
	if err := queryRow(ctx, db, []any{&userID}, "SELECT user_id FROM accounts WHERE id = ?", accountID); err != nil {
		return fmt.Errorf("seed: account %s: %w", accountID, err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	return db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO account_transactions (id, user_id, account_id, type, amount, date,
			description, source, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'seeded', 'manual', 'posted', ?, ?)`)
		if err != nil {
			return err
		}
		defer stmt.Close()
		for i := 0; i < n; i++ {
			typ := finance.LineCredit
			if i%2 == 1 {
				typ = finance.LineDebit
			}
			if _, err := stmt.ExecContext(ctx, finance.NewID(), userID, accountID, typ, int64(100+i%1000),
				end.AddDays(-(i % 1096)).String(), now, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// seedCardPurchases adds n unbilled card purchases, each with its Credit
// Card expense, to a card, spread over the days from start to end, in one
// transaction: the backlog a card with that history has before its first
// statement is generated.
func seedCardPurchases(ctx context.Context, db *store.DB, cardID string, n int, start, end finance.Date) error {
	var row struct {
		UserID string
		Cat    string
	}
	if err := queryRow(ctx, db, []any{&row.UserID, &row.Cat}, `SELECT c.user_id, (SELECT id FROM categories WHERE user_id = c.user_id
		AND kind = 'expense' AND is_system = 0 ORDER BY name_key LIMIT 1) AS cat FROM credit_cards AS c WHERE c.id = ?`, cardID); err != nil {
		return fmt.Errorf("seed: card %s: %w", cardID, err)
	}
	days := start.DaysUntil(end) + 1
	now := time.Now().UTC().Truncate(time.Second)
	return db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		exp, err := tx.PrepareContext(ctx, `INSERT INTO expenses (id, currency, user_id, user_seq, amount, date, description, category_id,
			payment_method, credit_card_id, status, source, card_transaction_id, created_at, updated_at)
			VALUES (?1, 'PHP', ?2, (SELECT seq FROM users WHERE id = ?2), ?3, ?4, ?5, ?6, 'Credit Card', ?7, 'active', 'manual', ?8, ?9, ?10)`)
		if err != nil {
			return err
		}
		defer exp.Close()
		row2, err := tx.PrepareContext(ctx, `INSERT INTO card_transactions (id, user_id, credit_card_id, type, amount, date,
			description, status, expense_id, created_at, updated_at) VALUES (?, ?, ?, 'purchase', ?, ?, ?, 'unbilled', ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer row2.Close()
		for i := 0; i < n; i++ {
			date := start.AddDays(i * days / n).String()
			amount := int64(100 + (i*7919)%500000)
			desc := fmt.Sprintf("seeded purchase %d", i)
			e, t := finance.NewID(), finance.NewID()
			if _, err := exp.ExecContext(ctx, e, row.UserID, amount, date, desc, row.Cat, cardID, t, now, now); err != nil {
				return err
			}
			if _, err := row2.ExecContext(ctx, t, row.UserID, cardID, amount, date, desc, e, now, now); err != nil {
				return err
			}
		}
		return nil
	})
}

// historyVolume is how much history seedReportData gives a user.
type historyVolume struct {
	Expenses, CardRows, Bills, Loans int
}

// seedReportData gives the user with the given email five years of history
// ending at end, written straight into the tables in transactions of 50,000
// rows, with the triggers that keep the daily totals firing as on any write:
// v.Expenses expenses (Cash, and Account Debit on one account) over the
// expense categories and days; a card with v.CardRows rows (purchases, fees,
// interest and refunds, already billed, so that no statement is due); v.Bills
// bill instances of 50 paused templates; v.Loans loans of 24 monthly
// instances each, those due before end paid interest first.
func seedReportData(ctx context.Context, db *store.DB, email string, v historyVolume, end finance.Date) error {
	var userID string
	if err := queryRow(ctx, db, []any{&userID}, "SELECT id FROM users WHERE email = ?", email); err != nil {
		return fmt.Errorf("seed: user %s: %w", email, err)
	}
	cats, err := queryStrings(ctx, db, "SELECT id FROM categories WHERE user_id = ? AND kind = 'expense' AND status = 'active' AND is_system = 0 ORDER BY name_key", userID)
	if err != nil {
		return err
	}
	if err := rawExec(ctx, db, "PRAGMA cache_size = -262144"); err != nil {
		return err
	}
	start := finance.MonthAdd(end, -60, end.Day()).AddDays(1)
	days := start.DaysUntil(end) + 1
	dayOf := func(i, n int) string { return start.AddDays(int(int64(i) * int64(days) / int64(n))).String() }
	now := time.Now().UTC().Truncate(time.Second)
	accountID, cardID := finance.NewID(), finance.NewID()
	exec := func(tx *sql.Tx, query string, args ...any) error {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	}
	err = db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		if err := exec(tx, `INSERT INTO accounts (id, currency, user_id, name, name_key, type, opening_balance, status, created_at, updated_at)
			VALUES (?, 'PHP', ?, 'Seeded checking', 'seeded checking', 'checking', 100000000, 'active', ?, ?)`, accountID, userID, now, now); err != nil {
			return err
		}
		return exec(tx, `INSERT INTO credit_cards (id, currency, user_id, name, name_key, credit_limit, statement_day, due_day, cycle_start_date,
			minimum_due_percent, minimum_due_floor, status, created_at, updated_at)
			VALUES (?, 'PHP', ?, 'Seeded card', 'seeded card', 99999999999, 15, 5, ?, '3', 50000, 'active', ?, ?)`, cardID, userID, end.String(), now, now)
	})
	if err != nil {
		return err
	}
	batches := func(n int, query string, row func(i int) []any) error {
		for done := 0; done < n; {
			size := min(50_000, n-done)
			err := db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
				stmt, err := tx.PrepareContext(ctx, query)
				if err != nil {
					return err
				}
				defer stmt.Close()
				for i := done; i < done+size; i++ {
					if _, err := stmt.ExecContext(ctx, row(i)...); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			done += size
		}
		return nil
	}
	err = batches(v.Expenses, `INSERT INTO expenses (id, currency, user_id, user_seq, amount, date, description, category_id, payment_method,
		account_id, status, source, created_at, updated_at)
		VALUES (?1, 'PHP', ?2, (SELECT seq FROM users WHERE id = ?2), ?3, ?4, ?5, ?6, ?7, ?8, 'active', 'manual', ?9, ?10)`, func(i int) []any {
		method, account := finance.MethodCash, any(nil)
		if i%4 == 0 {
			method, account = finance.MethodAccountDebit, accountID
		}
		return []any{finance.NewID(), userID, int64(100 + (i*7919)%500000), dayOf(i, v.Expenses), "seeded expense",
			cats[i%len(cats)], method, account, now, now}
	})
	if err != nil {
		return err
	}
	types := []string{"purchase", "purchase", "purchase", "purchase", "purchase", "purchase", "purchase", "fee", "interest", "refund"}
	err = batches(v.CardRows, `INSERT INTO card_transactions (id, user_id, credit_card_id, type, amount, date, description, category_id,
		status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'seeded row', ?, 'billed', ?, ?)`, func(i int) []any {
		typ, cat := types[i%len(types)], any(nil)
		if typ == "refund" || typ == "purchase" {
			cat = cats[i%len(cats)]
		}
		return []any{finance.NewID(), userID, cardID, typ, int64(100 + (i*104729)%200000), dayOf(i, v.CardRows), cat, now, now}
	})
	if err != nil {
		return err
	}
	templates := make([]string, 50)
	err = db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for i := range templates {
			templates[i] = finance.NewID()
			if err := exec(tx, `INSERT INTO bill_templates (id, currency, user_id, name, amount, category_id, frequency, start_date, due_day,
				status, created_at, updated_at) VALUES (?, 'PHP', ?, ?, 150000, ?, 'monthly', ?, 10, 'paused', ?, ?)`,
				templates[i], userID, fmt.Sprintf("Seeded bill %d", i), cats[i%len(cats)], start.String(), now, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	endText := end.String()
	err = batches(v.Bills, `INSERT INTO bill_instances (id, user_id, template_id, name, category_id, amount, scheduled_date, due_date,
		status, paid_total, marked_paid_manually, edited, created_at, updated_at)
		VALUES (?, ?, ?, 'Seeded bill', ?, 150000, ?, ?, ?, ?, 0, 0, ?, ?)`, func(i int) []any {
		date := start.AddDays(i % days).String()
		status, paid := "paid", int64(150000)
		if date > endText || i%7 == 0 {
			status, paid = "unpaid", 0
		}
		return []any{finance.NewID(), userID, templates[i%len(templates)], cats[i%len(cats)], date, date, status, paid, now, now}
	})
	if err != nil {
		return err
	}
	return db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		for k := 0; k < v.Loans; k++ {
			loanID := finance.NewID()
			first := finance.MonthAdd(start, k%36, 15)
			if err := exec(tx, `INSERT INTO loans (id, currency, user_id, name, name_key, principal, interest_type, interest_rate, rate_period,
				term_months, start_date, first_due_date, status, total_interest, created_at, updated_at)
				VALUES (?, 'PHP', ?, ?, ?, 2400000, 'add_on', '1', 'monthly', 24, ?, ?, 'active', 576000, ?, ?)`,
				loanID, userID, fmt.Sprintf("Seeded loan %d", k), fmt.Sprintf("seeded loan %d", k),
				finance.MonthAdd(first, -1, 15).String(), first.String(), now, now); err != nil {
				return err
			}
			for n := 1; n <= 24; n++ {
				due := finance.MonthAdd(first, n-1, 15)
				instanceID, status, paidP, paidI := finance.NewID(), "unpaid", int64(0), int64(0)
				if due.Before(end) {
					status, paidP, paidI = "paid", 100000, 24000
				}
				if err := exec(tx, `INSERT INTO loan_instances (id, user_id, loan_id, installment_number, due_date, amount_due,
					principal_due, interest_due, paid_total, paid_principal, paid_interest, status, created_at, updated_at)
					VALUES (?, ?, ?, ?, ?, 124000, 100000, 24000, ?, ?, ?, ?, ?, ?)`,
					instanceID, userID, loanID, n, due.String(), paidP+paidI, paidP, paidI, status, now, now); err != nil {
					return err
				}
				if status == "paid" {
					if err := exec(tx, `INSERT INTO loan_payments (id, user_id, loan_id, instance_id, amount, interest_part, principal_part,
						date, created_at, updated_at) VALUES (?, ?, ?, ?, 124000, 24000, 100000, ?, ?, ?)`,
						finance.NewID(), userID, loanID, instanceID, due.String(), now, now); err != nil {
						return err
					}
				}
			}
		}
		_, err := tx.ExecContext(ctx, "ANALYZE")
		return err
	})
}

// seedBillHistory gives the user with the given email n monthly bill
// templates that started `years` years before today, each with one instance
// per month through the end of next month (the generation horizon, so the
// first request finds nothing to generate). Instances due before the current
// month are paid except every 40th, which is left overdue; the current and
// next month's are unpaid. It is the history a household that has tracked its
// bills for years carries.
func seedBillHistory(ctx context.Context, db *store.DB, email string, n, years int, today finance.Date) (int, error) {
	var userID string
	if err := queryRow(ctx, db, []any{&userID}, "SELECT id FROM users WHERE email = ?", email); err != nil {
		return 0, fmt.Errorf("seed: user %s: %w", email, err)
	}
	cats, err := queryStrings(ctx, db, "SELECT id FROM categories WHERE user_id = ? AND kind = 'expense' AND status = 'active' AND is_system = 0", userID)
	if err != nil {
		return 0, err
	}
	month := finance.MonthAdd(today, 0, 1)
	horizon := finance.MonthAdd(today, 1, 31)
	now := time.Now().UTC().Truncate(time.Second)
	count := 0
	err = db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		tmpl, err := tx.PrepareContext(ctx, `INSERT INTO bill_templates (id, currency, user_id, name, amount, category_id, frequency,
			start_date, due_day, default_payment_method, status, generated_through, created_at, updated_at)
			VALUES (?, 'PHP', ?, ?, ?, ?, 'monthly', ?, ?, 'Cash', 'active', ?, ?, ?)`)
		if err != nil {
			return err
		}
		defer tmpl.Close()
		inst, err := tx.PrepareContext(ctx, `INSERT INTO bill_instances (id, user_id, template_id, name, category_id, amount,
			scheduled_date, due_date, status, paid_total, marked_paid_manually, edited, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, 0, ?, ?)`)
		if err != nil {
			return err
		}
		defer inst.Close()
		for t := range n {
			id, name, cat := finance.NewID(), fmt.Sprintf("Seeded bill %d", t), cats[t%len(cats)]
			amount := int64(50_000 + t*1_234)
			dueDay := 1 + t%31
			first := finance.MonthAdd(today, -12*years, dueDay)
			if _, err := tmpl.ExecContext(ctx, id, userID, name, amount, cat, first.String(), dueDay, horizon.String(), now, now); err != nil {
				return err
			}
			for k := 0; ; k++ {
				due := finance.MonthAdd(first, k, dueDay)
				if due.After(horizon) {
					break
				}
				status, manual := "paid", true
				if !due.Before(month) || (t+k)%40 == 0 {
					status, manual = "unpaid", false
				}
				if _, err := inst.ExecContext(ctx, finance.NewID(), userID, id, name, cat, amount, due.String(), due.String(),
					status, manual, now, now); err != nil {
					return err
				}
				count++
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	err = rawExec(ctx, db, "ANALYZE")
	return count, err
}

// settleLoanHistory marks the instances of the user's loans due before the
// current month as paid (by hand, no money), except every 25th, which stays
// overdue: loans repaid on time for years, with a few missed installments.
func settleLoanHistory(ctx context.Context, db *store.DB, email string, today finance.Date) error {
	var userID string
	if err := queryRow(ctx, db, []any{&userID}, "SELECT id FROM users WHERE email = ?", email); err != nil {
		return fmt.Errorf("seed: user %s: %w", email, err)
	}
	err := rawExec(ctx, db, `UPDATE loan_instances SET status = 'paid', marked_paid_manually = 1
		WHERE user_id = ? AND due_date < ? AND installment_number % 25 <> 0`, userID, finance.MonthAdd(today, 0, 1).String())
	if err != nil {
		return err
	}
	return rawExec(ctx, db, "ANALYZE")
}

// queryRow scans the one row of query into dest, in a transaction of its own.
func queryRow(ctx context.Context, db *store.DB, dest []any, query string, args ...any) error {
	return db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		return tx.QueryRowContext(ctx, query, args...).Scan(dest...)
	})
}

// queryStrings returns the one text column of query's rows.
func queryStrings(ctx context.Context, db *store.DB, query string, args ...any) ([]string, error) {
	var out []string
	err := db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				return err
			}
			out = append(out, s)
		}
		return rows.Err()
	})
	return out, err
}

// rawExec runs one statement in a transaction of its own.
func rawExec(ctx context.Context, db *store.DB, query string, args ...any) error {
	return db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	})
}
