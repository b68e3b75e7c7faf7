package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

// This file serves the benchmark tool (cmd/bench): it measures the storage
// limit and loads large data sets directly, which through the API would take
// far longer than the measurements themselves.

// RawCommitRate measures single-row committed inserts per second into a
// scratch database at path, opened with the same pragmas as the service's
// writer. It is the ceiling against which the API's write rate is read.
func RawCommitRate(ctx context.Context, path string, n int) (float64, error) {
	db, err := Open(path)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	if _, err := db.writer.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS bench_rows (id TEXT PRIMARY KEY, amount INTEGER NOT NULL, date TEXT NOT NULL, description TEXT NOT NULL)"); err != nil {
		return 0, err
	}
	start := time.Now()
	for i := 0; i < n; i++ {
		err := db.writer.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.ExecContext(ctx, "INSERT INTO bench_rows (id, amount, date, description) VALUES (?, ?, ?, ?)",
				finance.NewID(), 12345, "2026-01-01", "raw commit")
			return err
		})
		if err != nil {
			return 0, err
		}
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// SeedExpenses adds n Cash expenses for the user with the given email, spread
// over the expense categories and the days of the three years ending at end,
// in transactions of 10,000 rows.
func SeedExpenses(ctx context.Context, db *DB, email string, n int, end finance.Date) error {
	var userID string
	if err := db.reader.NewRaw("SELECT id FROM users WHERE email = ?", email).Scan(ctx, &userID); err != nil {
		return fmt.Errorf("seed: user %s: %w", email, err)
	}
	var cats []string
	if err := db.reader.NewRaw("SELECT id FROM categories WHERE user_id = ? AND kind = 'expense' AND status = 'active' AND is_system = 0", userID).Scan(ctx, &cats); err != nil {
		return err
	}
	// A large page cache on the writer keeps the four expense indexes in
	// memory while rows land at scattered positions in them.
	if _, err := db.writer.ExecContext(ctx, "PRAGMA cache_size = -262144"); err != nil {
		return err
	}
	const batch = 50_000
	now := time.Now().UTC().Truncate(time.Second)
	for done := 0; done < n; {
		size := min(batch, n-done)
		err := db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
			stmt, err := tx.PrepareContext(ctx, `INSERT INTO expenses (id, user_id, amount, date, description, category_id,
				payment_method, status, source, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'Cash', 'active', 'manual', ?, ?)`)
			if err != nil {
				return err
			}
			defer stmt.Close()
			for i := done; i < done+size; i++ {
				date := end.AddDays(-(i % 1096))
				amount := int64(100 + (i*7919)%500000)
				if _, err := stmt.ExecContext(ctx, finance.NewID(), userID, amount, date.String(),
					fmt.Sprintf("seeded expense %d", i), cats[i%len(cats)], now, now); err != nil {
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
	_, err := db.writer.ExecContext(ctx, "ANALYZE")
	return err
}

// SeedAccountLines adds n posted manual lines (alternating credit and debit)
// to an account.
func SeedAccountLines(ctx context.Context, db *DB, accountID string, n int, end finance.Date) error {
	var userID string
	if err := db.reader.NewRaw("SELECT user_id FROM accounts WHERE id = ?", accountID).Scan(ctx, &userID); err != nil {
		return fmt.Errorf("seed: account %s: %w", accountID, err)
	}
	now := time.Now().UTC().Truncate(time.Second)
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
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

// SeedCardPurchases adds n unbilled card purchases, each with its Credit
// Card expense, to a card, spread over the days from start to end, in one
// transaction: the backlog a card with that history has before its first
// statement is generated.
func SeedCardPurchases(ctx context.Context, db *DB, cardID string, n int, start, end finance.Date) error {
	var row struct {
		UserID string
		Cat    string
	}
	if err := db.reader.NewRaw(`SELECT c.user_id, (SELECT id FROM categories WHERE user_id = c.user_id AND kind = 'expense'
		AND is_system = 0 ORDER BY name_key LIMIT 1) AS cat FROM credit_cards AS c WHERE c.id = ?`, cardID).Scan(ctx, &row.UserID, &row.Cat); err != nil {
		return fmt.Errorf("seed: card %s: %w", cardID, err)
	}
	days := start.DaysUntil(end) + 1
	now := time.Now().UTC().Truncate(time.Second)
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		exp, err := tx.PrepareContext(ctx, `INSERT INTO expenses (id, user_id, amount, date, description, category_id,
			payment_method, credit_card_id, status, source, card_transaction_id, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, 'Credit Card', ?, 'active', 'manual', ?, ?, ?)`)
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

// StatementCheckCost is the mean time of the check every card, expense,
// bill, dashboard and report request makes before it runs: whether a
// statement is due for the user with the given email.
func StatementCheckCost(ctx context.Context, db *DB, email string, n int) (time.Duration, error) {
	var userID string
	if err := db.reader.NewRaw("SELECT id FROM users WHERE email = ?", email).Scan(ctx, &userID); err != nil {
		return 0, err
	}
	svc := finance.NewService(db)
	start := time.Now()
	for range n {
		due, err := svc.StatementsDue(ctx, userID)
		if err != nil {
			return 0, err
		}
		if due {
			return 0, fmt.Errorf("a statement is due; the check measures the case with nothing to generate")
		}
	}
	return time.Since(start) / time.Duration(n), nil
}
