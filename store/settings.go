package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type appSettingsRow struct {
	bun.BaseModel `bun:"table:user_settings"`
	UserID        string `bun:",pk"`
	finance.AppSettings
	UpdatedAt time.Time
}

func (l ledger) AppSettings(ctx context.Context, userID string) (finance.AppSettings, error) {
	var row appSettingsRow
	err := l.db.NewSelect().Model(&row).Where("user_id = ?", userID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return finance.DefaultAppSettings(), nil // never saved: the defaults
	}
	return row.AppSettings, err
}

func (l ledger) SaveAppSettings(ctx context.Context, userID string, st finance.AppSettings, at time.Time) error {
	_, err := l.db.NewInsert().Model(&appSettingsRow{UserID: userID, AppSettings: st, UpdatedAt: at}).
		On("CONFLICT (user_id) DO UPDATE").
		Set("currency = EXCLUDED.currency, timezone = EXCLUDED.timezone, date_format = EXCLUDED.date_format").
		Set("week_start = EXCLUDED.week_start, default_payment_method = EXCLUDED.default_payment_method").
		Set("budget_warning_percent = EXCLUDED.budget_warning_percent, due_soon_days = EXCLUDED.due_soon_days").
		Set("updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return err
}

func (l ledger) UserAccount(ctx context.Context, userID string) (finance.UserAccount, error) {
	var row userRow
	if err := l.db.NewSelect().Model(&row).Where("id = ?", userID).Scan(ctx); err != nil {
		return finance.UserAccount{}, notFound(err, "user")
	}
	return finance.UserAccount{User: row.user(),
		ProfilePicture: finance.ProfilePicture{URL: row.ProfilePictureURL, File: row.ProfilePictureFile}}, nil
}

func (l ledger) SetProfilePicture(ctx context.Context, userID string, pic finance.ProfilePicture, at time.Time) error {
	res, err := l.db.NewUpdate().Model((*userRow)(nil)).
		Set("profile_picture_url = ?", pic.URL).Set("profile_picture_file = ?", pic.File).Set("updated_at = ?", at).
		Where("id = ?", userID).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return finance.NotFound("user")
	}
	return nil
}

type budgetThresholdRow struct {
	bun.BaseModel  `bun:"table:budget_thresholds"`
	UserID         string
	CategoryID     string
	MonthlyLimit   finance.Money
	WarningPercent int
	CreatedAt      time.Time
}

func (l ledger) BudgetThresholds(ctx context.Context, userID string) ([]finance.BudgetLimit, error) {
	var out []finance.BudgetLimit
	err := l.db.NewSelect().TableExpr("budget_thresholds AS b").
		ColumnExpr("b.category_id, cat.name AS category, b.monthly_limit, b.warning_percent").
		Join("JOIN categories AS cat ON cat.id = b.category_id").
		Where("b.user_id = ?", userID).
		Scan(ctx, &out)
	return out, err
}

func (l ledger) ReplaceBudgetThresholds(ctx context.Context, userID string, limits []finance.BudgetLimit, at time.Time) error {
	if _, err := l.db.NewDelete().TableExpr("budget_thresholds").Where("user_id = ?", userID).Exec(ctx); err != nil {
		return err
	}
	if len(limits) == 0 {
		return nil
	}
	rows := make([]budgetThresholdRow, len(limits))
	for i, b := range limits {
		rows[i] = budgetThresholdRow{UserID: userID, CategoryID: b.CategoryID, MonthlyLimit: b.MonthlyLimit,
			WarningPercent: b.WarningPercent, CreatedAt: at}
	}
	_, err := l.db.NewInsert().Model(&rows).Exec(ctx)
	return err
}

func (l ledger) DeleteBudgetThreshold(ctx context.Context, userID, categoryID string) error {
	_, err := l.db.NewDelete().TableExpr("budget_thresholds").
		Where("user_id = ? AND category_id = ?", userID, categoryID).Exec(ctx)
	return err
}

// SpendingByCategory sums the spending lines of domain.md §1.6 dated from..to,
// per category, in one query: each branch of the UNION is a range scan of
// the user's rows in the date range on an index that starts with
// (user_id[, status], date), and only the sums leave the database.
//
// The terms, each counted on its own date and under its own category:
//  1. non-voided expenses; a split expense (category NULL) as its parts;
//  2. card fees and interest (unbilled or billed), under the system
//     category Card Fees & Interest;
//  3. the interest portion of installment rows (unbilled or billed), there too;
//  4. the interest part of loan payments, under the system category Loan
//     Interest (payments are permanent: there is no voided state to skip);
//  5. minus card refunds (unbilled or billed), in their own category.
//
// The dashboard and the reports read spending by category here too, so
// that every figure of the service counts the same pesos.
func (l ledger) SpendingByCategory(ctx context.Context, userID string, from, to finance.Date) ([]finance.CategorySpending, error) {
	var out []finance.CategorySpending
	err := l.db.NewRaw(`
		SELECT x.category_id, cat.name AS category, SUM(x.amount) AS amount
		FROM (
			SELECT e.category_id, e.amount FROM expenses AS e
			WHERE e.user_id = ?0 AND e.status = 'active' AND e.date >= ?1 AND e.date <= ?2 AND e.category_id IS NOT NULL
			UNION ALL
			SELECT s.category_id, s.amount FROM expense_splits AS s JOIN expenses AS e ON e.id = s.expense_id
			WHERE e.user_id = ?0 AND e.status = 'active' AND e.date >= ?1 AND e.date <= ?2
			UNION ALL
			SELECT (SELECT id FROM categories WHERE user_id = ?0 AND is_system AND name_key = ?3),
				CASE WHEN t.type = 'installment' THEN COALESCE(t.interest_portion, 0) ELSE t.amount END
			FROM card_transactions AS t
			WHERE t.user_id = ?0 AND t.date >= ?1 AND t.date <= ?2
				AND t.status IN ('unbilled', 'billed') AND t.type IN ('fee', 'interest', 'installment')
			UNION ALL
			SELECT t.category_id, -t.amount FROM card_transactions AS t
			WHERE t.user_id = ?0 AND t.date >= ?1 AND t.date <= ?2
				AND t.status IN ('unbilled', 'billed') AND t.type = 'refund' AND t.category_id IS NOT NULL
			UNION ALL
			SELECT (SELECT id FROM categories WHERE user_id = ?0 AND is_system AND name_key = ?4), p.interest_part
			FROM loan_payments AS p WHERE p.user_id = ?0 AND p.date >= ?1 AND p.date <= ?2
		) AS x JOIN categories AS cat ON cat.id = x.category_id
		GROUP BY x.category_id, cat.name`,
		userID, from, to, nameKey(finance.CategoryCardFees), nameKey(finance.CategoryLoanInterest)).
		Scan(ctx, &out)
	return out, err
}
