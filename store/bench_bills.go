package store

import (
	"context"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

// SeedBillHistory gives the user with the given email n monthly bill
// templates that started `years` years before today, each with one instance
// per month through the end of next month (the generation horizon, so the
// first request finds nothing to generate). Instances due before the current
// month are paid except every 40th, which is left overdue; the current and
// next month's are unpaid. It is the history a household that has tracked its
// bills for years carries.
func SeedBillHistory(ctx context.Context, db *DB, email string, n, years int, today finance.Date) (int, error) {
	var userID string
	if err := db.reader.NewRaw("SELECT id FROM users WHERE email = ?", email).Scan(ctx, &userID); err != nil {
		return 0, fmt.Errorf("seed: user %s: %w", email, err)
	}
	var cats []string
	if err := db.reader.NewRaw("SELECT id FROM categories WHERE user_id = ? AND kind = 'expense' AND status = 'active' AND is_system = 0", userID).Scan(ctx, &cats); err != nil {
		return 0, err
	}
	month := finance.MonthAdd(today, 0, 1)
	horizon := finance.MonthAdd(today, 1, 31)
	now := time.Now().UTC().Truncate(time.Second)
	count := 0
	err := db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		tmpl, err := tx.PrepareContext(ctx, `INSERT INTO bill_templates (id, user_id, name, amount, category_id, frequency,
			start_date, due_day, default_payment_method, status, generated_through, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, 'monthly', ?, ?, 'Cash', 'active', ?, ?, ?)`)
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
	_, err = db.writer.ExecContext(ctx, "ANALYZE")
	return count, err
}

// SettleLoanHistory marks the instances of the user's loans due before the
// current month as paid (by hand, no money), except every 25th, which stays
// overdue: loans repaid on time for years, with a few missed installments.
func SettleLoanHistory(ctx context.Context, db *DB, email string, today finance.Date) error {
	var userID string
	if err := db.reader.NewRaw("SELECT id FROM users WHERE email = ?", email).Scan(ctx, &userID); err != nil {
		return fmt.Errorf("seed: user %s: %w", email, err)
	}
	_, err := db.writer.ExecContext(ctx, `UPDATE loan_instances SET status = 'paid', marked_paid_manually = 1
		WHERE user_id = ? AND due_date < ? AND installment_number % 25 <> 0`, userID, finance.MonthAdd(today, 0, 1).String())
	if err != nil {
		return err
	}
	_, err = db.writer.ExecContext(ctx, "ANALYZE")
	return err
}
