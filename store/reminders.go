package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type reminderSettingsRow struct {
	bun.BaseModel `bun:"table:reminder_settings"`
	UserID        string `bun:",pk"`
	finance.ReminderSettings
	UpdatedAt time.Time
}

type reminderRow struct {
	bun.BaseModel `bun:"table:reminders"`
	ID            string `bun:",pk"`
	UserID        string
	Kind          string
	Subject       string
	Occurrence    string
	Message       string
	Delivery      string
	Error         *string
	CreatedAt     time.Time
	SentAt        *time.Time
}

func (r reminderRow) reminder() finance.Reminder {
	return finance.Reminder{ID: r.ID, Kind: r.Kind, Subject: r.Subject, Occurrence: r.Occurrence, Message: r.Message,
		Delivery: r.Delivery, Error: r.Error, CreatedAt: r.CreatedAt, SentAt: r.SentAt}
}

func (l ledger) ReminderSettings(ctx context.Context, userID string) (finance.ReminderSettings, error) {
	var row reminderSettingsRow
	err := l.db.NewSelect().Model(&row).Where("user_id = ?", userID).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return finance.DefaultReminderSettings(), nil
	}
	return row.ReminderSettings, err
}

func (l ledger) SaveReminderSettings(ctx context.Context, userID string, st finance.ReminderSettings, at time.Time) error {
	_, err := l.db.NewInsert().Model(&reminderSettingsRow{UserID: userID, ReminderSettings: st, UpdatedAt: at}).
		On("CONFLICT (user_id) DO UPDATE").
		Set("enabled = EXCLUDED.enabled, bill_days = EXCLUDED.bill_days, statement_days = EXCLUDED.statement_days").
		Set("loan_days = EXCLUDED.loan_days, budget_threshold = EXCLUDED.budget_threshold").
		Set("digest_day = EXCLUDED.digest_day, digest_hour = EXCLUDED.digest_hour").
		Set("quiet_start = EXCLUDED.quiet_start, quiet_end = EXCLUDED.quiet_end, updated_at = EXCLUDED.updated_at").
		Exec(ctx)
	return err
}

func (l ledger) RemindedUsers(ctx context.Context) ([]string, error) {
	var ids []string
	err := l.db.NewSelect().TableExpr("reminder_settings").Column("user_id").Where("enabled").
		OrderExpr("user_id").Scan(ctx, &ids)
	return ids, err
}

func (l ledger) ClaimReminder(ctx context.Context, userID string, r finance.Reminder) (bool, error) {
	res, err := l.db.NewInsert().Model(&reminderRow{ID: r.ID, UserID: userID, Kind: r.Kind, Subject: r.Subject,
		Occurrence: r.Occurrence, Message: r.Message, Delivery: r.Delivery, CreatedAt: r.CreatedAt}).
		On("CONFLICT (user_id, kind, subject, occurrence) DO NOTHING").Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (l ledger) SetReminderDelivery(ctx context.Context, userID, id, delivery string, problem *string, at time.Time) error {
	q := l.db.NewUpdate().TableExpr("reminders").Set("delivery = ?", delivery).Set("error = ?", problem).
		Where("user_id = ? AND id = ?", userID, id)
	if delivery == finance.DeliverySent {
		q = q.Set("sent_at = ?", at)
	}
	_, err := q.Exec(ctx)
	return err
}

func (l ledger) ListReminders(ctx context.Context, userID string, limit int) ([]finance.Reminder, error) {
	var rows []reminderRow
	if err := l.db.NewSelect().Model(&rows).Where("user_id = ?", userID).
		OrderExpr("created_at DESC, id DESC").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, err
	}
	out := make([]finance.Reminder, len(rows))
	for i, r := range rows {
		out[i] = r.reminder()
	}
	return out, nil
}
