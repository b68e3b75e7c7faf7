package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

// The cleared state of lines and card rows (docs/domain.md
// "Reconciliation"): the only statements that write the cleared columns.

func (l ledger) SetLinesCleared(ctx context.Context, userID string, ids []string, cleared string) error {
	_, err := l.db.NewUpdate().TableExpr("account_transactions").Set("cleared = ?", cleared).
		Where("user_id = ? AND id IN (?)", userID, bun.In(ids)).Exec(ctx)
	return err
}

func (l ledger) SetCardTransactionsCleared(ctx context.Context, userID string, ids []string, cleared string) error {
	_, err := l.db.NewUpdate().TableExpr("card_transactions").Set("cleared = ?", cleared).
		Where("user_id = ? AND id IN (?)", userID, bun.In(ids)).Exec(ctx)
	return err
}

// clearedLines selects the account's posted lines in the given cleared
// states dated on or before date (the partial index account_transactions_cleared).
func (l ledger) clearedLines(userID, accountID string, date finance.Date, states ...string) *bun.SelectQuery {
	return l.db.NewSelect().TableExpr("account_transactions").
		Where("user_id = ? AND account_id = ? AND status = 'posted' AND date <= ? AND cleared IN (?)",
			userID, accountID, date, bun.In(states))
}

func (l ledger) ClearedBalance(ctx context.Context, userID, accountID string, date finance.Date) (finance.Money, error) {
	a, err := l.Account(ctx, userID, accountID)
	if err != nil {
		return 0, err
	}
	var net int64
	err = l.clearedLines(userID, accountID, date, finance.ClearedCleared, finance.ClearedReconciled).
		ColumnExpr("COALESCE(SUM(CASE type WHEN 'credit' THEN amount ELSE -amount END), 0)").Scan(ctx, &net)
	return a.OpeningBalance + finance.Money(net), err
}

func (l ledger) ReconcileLines(ctx context.Context, userID, accountID string, date finance.Date) (int, error) {
	res, err := l.db.NewUpdate().TableExpr("account_transactions").Set("cleared = ?", finance.ClearedReconciled).
		Where("id IN (?)", l.clearedLines(userID, accountID, date, finance.ClearedCleared).Column("id")).Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// importRowIDs selects the ids of the lines and card rows a batch wrote.
func (l ledger) importRowIDs(userID, batchID string) *bun.SelectQuery {
	return l.db.NewSelect().TableExpr("import_rows AS r").Column("r.row_id").
		Join("JOIN import_batches AS b ON b.id = r.batch_id").
		Where("r.batch_id = ? AND b.user_id = ? AND r.row_id IS NOT NULL", batchID, userID)
}

func (l ledger) MarkImportedCleared(ctx context.Context, userID, batchID string) error {
	for _, table := range []string{"account_transactions", "card_transactions"} {
		_, err := l.db.NewUpdate().TableExpr(table).Set("cleared = ?", finance.ClearedCleared).
			Where("user_id = ? AND id IN (?)", userID, l.importRowIDs(userID, batchID)).Exec(ctx)
		if err != nil {
			return err
		}
	}
	return nil
}

func (l ledger) ImportReconciledLine(ctx context.Context, userID, batchID string) (string, error) {
	var ids []string
	err := l.db.NewSelect().TableExpr("account_transactions").Column("id").
		Where("user_id = ? AND cleared = ? AND status = 'posted' AND id IN (?)", userID, finance.ClearedReconciled,
			l.importRowIDs(userID, batchID)).Limit(1).Scan(ctx, &ids)
	if err != nil || len(ids) == 0 {
		return "", err
	}
	return ids[0], nil
}
