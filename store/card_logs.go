package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type cardLogRow struct {
	bun.BaseModel `bun:"table:card_logs,alias:g"`
	finance.CardLog
	UserID string
}

func (l ledger) AppendCardLog(ctx context.Context, userID string, e finance.CardLog) error {
	_, err := l.db.NewInsert().Model(&cardLogRow{CardLog: e, UserID: userID}).Exec(ctx)
	return err
}

func (l ledger) ListCardLogs(ctx context.Context, userID string, f finance.CardLogFilter, p finance.ListParams) ([]finance.CardLog, int, error) {
	var rows []cardLogRow
	q := l.db.NewSelect().Model(&rows).Where("g.user_id = ?", userID)
	if f.CardID != "" {
		q = q.Where("g.credit_card_id = ?", f.CardID)
	}
	if !f.From.IsZero() {
		q = q.Where("g.created_at >= ?", f.From.UTC())
	}
	if !f.Until.IsZero() {
		q = q.Where("g.created_at < ?", f.Until.UTC())
	}
	if f.Action != "" {
		q = q.Where("g.action = ?", f.Action)
	}
	if f.EntityType != "" {
		q = q.Where("g.entity_type = ?", f.EntityType)
	}
	q = searchAny(q, f.Search, "g.message")
	total, err := orderPage(q, "g.created_at", p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.CardLog, len(rows))
	for i, r := range rows {
		out[i] = r.CardLog
	}
	return out, int(total), nil
}
