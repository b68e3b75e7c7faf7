package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type transferRow struct {
	bun.BaseModel `bun:"table:transfers,alias:tr"`
	finance.Transfer
	UserID string
}

// transferComputed are the Transfer fields that are not columns.
var transferComputed = []string{"from_account_name", "to_account_name", "fee_category", "from_currency", "to_currency",
	"rate", "warnings"}

// selectTransfers selects transfers with their accounts' names and the fee
// expense's category (archived accounts and categories keep their names).
func (l ledger) selectTransfers(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(append([]string{"to_amount"}, transferComputed...)...).
		// A transfer from before currencies may have no to_amount: it moved amount on both sides.
		ColumnExpr("COALESCE(tr.to_amount, tr.amount) AS to_amount").
		ColumnExpr("fa.currency AS from_currency").ColumnExpr("ta.currency AS to_currency").
		ColumnExpr("fa.name AS from_account_name").
		ColumnExpr("ta.name AS to_account_name").
		ColumnExpr("fc.name AS fee_category").
		Join("JOIN accounts AS fa ON fa.id = tr.from_account_id").
		Join("JOIN accounts AS ta ON ta.id = tr.to_account_id").
		Join("LEFT JOIN expenses AS fe ON fe.id = tr.fee_expense_id").
		Join("LEFT JOIN categories AS fc ON fc.id = fe.category_id")
}

func (l ledger) Transfer(ctx context.Context, userID, id string) (finance.Transfer, error) {
	var row transferRow
	err := l.selectTransfers(&row).Where("tr.id = ? AND tr.user_id = ?", id, userID).Scan(ctx)
	return row.Transfer, notFound(err, "transfer")
}

var transferSorts = map[string]string{"date": "tr.date", "amount": "tr.amount", "created_at": "tr.created_at"}

func (l ledger) ListTransfers(ctx context.Context, userID string, f finance.TransferFilter, p finance.ListParams) ([]finance.Transfer, finance.ListTotals, error) {
	var rows []transferRow
	q := l.selectTransfers(&rows).Where("tr.user_id = ? AND tr.status = ?", userID, f.Status)
	if f.AccountID != "" {
		q = q.Where("(tr.from_account_id = ? OR tr.to_account_id = ?)", f.AccountID, f.AccountID)
	}
	if !f.DateFrom.IsZero() {
		q = q.Where("tr.date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("tr.date <= ?", f.DateTo)
	}
	sum, err := l.pageAndSummary(ctx, q, transferSorts[p.SortBy], p, "s.amount", "from_currency")
	if err != nil {
		return nil, sum, err
	}
	out := make([]finance.Transfer, len(rows))
	for i, r := range rows {
		out[i] = r.Transfer
	}
	return out, sum, nil
}

func (l ledger) InsertTransfer(ctx context.Context, userID string, t finance.Transfer) error {
	row := transferRow{Transfer: t, UserID: userID}
	_, err := l.db.NewInsert().Model(&row).ExcludeColumn(transferComputed...).Exec(ctx)
	return err
}

func (l ledger) UpdateTransfer(ctx context.Context, userID string, t finance.Transfer) error {
	row := transferRow{Transfer: t, UserID: userID}
	_, err := l.db.NewUpdate().Model(&row).ExcludeColumn(append([]string{"created_at"}, transferComputed...)...).
		Where("id = ? AND user_id = ?", t.ID, userID).Exec(ctx)
	return err
}
