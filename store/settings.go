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
	UpdatedAt            time.Time
	ChecklistDismissedAt *time.Time // SaveAppSettings leaves it as it is
}

// AppSettings returns the user's settings: on the read pool from the
// lookups once they hold them (lookups.go), in a write transaction from the
// transaction's own state.
func (l ledger) AppSettings(ctx context.Context, userID string) (finance.AppSettings, error) {
	if l.reads == nil {
		return l.readAppSettings(ctx, userID)
	}
	return cachedRead(ctx, l, settingsOf, userID, func() (finance.AppSettings, error) { return l.readAppSettings(ctx, userID) })
}

func (l ledger) readAppSettings(ctx context.Context, userID string) (finance.AppSettings, error) {
	var row appSettingsRow
	err := l.db.NewSelect().Model(&row).Where("user_id = ?", userID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return finance.DefaultAppSettings(), nil // never saved: the defaults
	}
	return row.AppSettings, err
}

func (l ledger) SaveAppSettings(ctx context.Context, userID string, st finance.AppSettings, at time.Time) error {
	l.changed()
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

func (l ledger) FirstSteps(ctx context.Context, userID string) (finance.FirstSteps, error) {
	var fs finance.FirstSteps
	err := l.db.QueryRowContext(ctx, `SELECT
		EXISTS (SELECT 1 FROM accounts WHERE user_id = ?),
		EXISTS (SELECT 1 FROM credit_cards WHERE user_id = ?),
		EXISTS (SELECT 1 FROM expenses WHERE user_id = ?),
		EXISTS (SELECT 1 FROM user_settings WHERE user_id = ? AND checklist_dismissed_at IS NOT NULL)`,
		userID, userID, userID, userID).Scan(&fs.Account, &fs.Card, &fs.Expense, &fs.Dismissed)
	return fs, err
}

func (l ledger) DismissChecklist(ctx context.Context, userID string, at time.Time) error {
	l.changed() // it saves the default settings for a user who never saved any
	row := appSettingsRow{UserID: userID, AppSettings: finance.DefaultAppSettings(), UpdatedAt: at, ChecklistDismissedAt: &at}
	_, err := l.db.NewInsert().Model(&row).
		On("CONFLICT (user_id) DO UPDATE").
		Set("checklist_dismissed_at = COALESCE(?TableAlias.checklist_dismissed_at, EXCLUDED.checklist_dismissed_at)").
		Exec(ctx)
	return err
}
