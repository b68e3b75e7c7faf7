package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type incomeRow struct {
	bun.BaseModel `bun:"table:income,alias:i"`
	finance.Income
	UserID string
}

// incomeComputed are the Income fields that are not columns.
var incomeComputed = []string{"category"}

// selectIncome selects income with its category's name (archived categories
// keep labelling the records that use them).
func (l ledger) selectIncome(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(incomeComputed...).
		ColumnExpr("c.name AS category").
		Join("JOIN categories AS c ON c.id = i.category_id")
}

func (l ledger) Income(ctx context.Context, userID, id string) (finance.Income, error) {
	var row incomeRow
	err := l.selectIncome(&row).Where("i.id = ? AND i.user_id = ?", id, userID).Scan(ctx)
	return row.Income, notFound(err, "income")
}

var incomeSorts = map[string]string{"date": "i.date", "amount": "i.amount", "created_at": "i.created_at"}

func (l ledger) ListIncome(ctx context.Context, userID, reporting string, f finance.IncomeFilter, p finance.ListParams) ([]finance.Income, finance.ListTotals, error) {
	var rows []incomeRow
	q := l.selectIncome(&rows).Where("i.user_id = ? AND i.status = ?", userID, f.Status)
	if !f.DateFrom.IsZero() {
		q = q.Where("i.date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("i.date <= ?", f.DateTo)
	}
	if f.Category != "" {
		// A name, archived categories included; an unknown one matches nothing.
		q = q.Where("c.name_key = ?", nameKey(f.Category))
	}
	if f.AccountID != "" {
		q = q.Where("i.account_id = ?", f.AccountID)
	}
	q = searchAny(q, f.Search, "i.description", "i.notes")
	sum, err := l.pageAndTotals(ctx, q, incomeSorts[p.SortBy], p, reporting)
	if err != nil {
		return nil, sum, err
	}
	out := make([]finance.Income, len(rows))
	for i, r := range rows {
		out[i] = r.Income
	}
	return out, sum, nil
}

func (l ledger) InsertIncome(ctx context.Context, userID string, in finance.Income) error {
	row := incomeRow{Income: in, UserID: userID}
	_, err := l.db.NewInsert().Model(&row).ExcludeColumn(incomeComputed...).Exec(ctx)
	return err
}

func (l ledger) UpdateIncome(ctx context.Context, userID string, in finance.Income) error {
	row := incomeRow{Income: in, UserID: userID}
	_, err := l.db.NewUpdate().Model(&row).ExcludeColumn(append([]string{"created_at"}, incomeComputed...)...).
		Where("id = ? AND user_id = ?", in.ID, userID).Exec(ctx)
	return err
}
