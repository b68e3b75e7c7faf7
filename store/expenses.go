package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type expenseRow struct {
	bun.BaseModel `bun:"table:expenses,alias:e"`
	finance.Expense
	UserID string
}

// expenseComputed are the Expense fields that are not columns of expenses.
var expenseComputed = []string{"category", "is_split", "splits", "card_transaction_status"}

// selectExpenses reads expenses with their category's name and their card
// row's status. Both joins are primary-key lookups per row.
func (l ledger) selectExpenses(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(expenseComputed...).
		ColumnExpr("cat.name AS category").
		ColumnExpr("ct.status AS card_transaction_status").
		Join("LEFT JOIN categories AS cat ON cat.id = e.category_id").
		Join("LEFT JOIN card_transactions AS ct ON ct.id = e.card_transaction_id")
}

func (l ledger) Expense(ctx context.Context, userID, id string) (finance.Expense, error) {
	var row expenseRow
	if err := l.selectExpenses(&row).Where("e.id = ? AND e.user_id = ?", id, userID).Scan(ctx); err != nil {
		return finance.Expense{}, notFound(err, "expense")
	}
	out := []finance.Expense{row.Expense}
	if err := l.withSplits(ctx, out); err != nil {
		return finance.Expense{}, err
	}
	return out[0], nil
}

// expenseSorts are ORDER BY expressions; each matches an index on
// (user_id, status, <expression>, id), so a page is read in index order.
var expenseSorts = map[string]string{
	"date":        "e.date",
	"amount":      "e.amount",
	"description": "e.description COLLATE NOCASE",
	"created_at":  "e.created_at",
}

// whereExpenses adds the filters of GET /expenses (domain.md §1.5) to q,
// whose table is aliased e.
func (l ledger) whereExpenses(q *bun.SelectQuery, userID string, f finance.ExpenseFilter) *bun.SelectQuery {
	q = q.Where("e.user_id = ? AND e.status = ?", userID, f.Status)
	if !f.DateFrom.IsZero() {
		q = q.Where("e.date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("e.date <= ?", f.DateTo)
	}
	if f.PaymentMethod != "" {
		q = q.Where("e.payment_method = ?", f.PaymentMethod)
	}
	if f.CardID != "" {
		q = q.Where("e.credit_card_id = ?", f.CardID)
	}
	if f.AccountID != "" {
		q = q.Where("e.account_id = ?", f.AccountID)
	}
	if f.Category != "" {
		// A split expense matches through its parts.
		cats := l.categoryIDsNamed(userID, f.Category)
		q = q.Where("(e.category_id IN (?) OR e.id IN (?))", cats, l.splitExpenseIDs(userID, cats))
	}
	return searchAny(q, f.Search, "e.description", "e.notes")
}

func (l ledger) ListExpenses(ctx context.Context, userID string, f finance.ExpenseFilter, p finance.ListParams) ([]finance.Expense, int, error) {
	var rows []expenseRow
	dir := " ASC"
	if p.Desc {
		dir = " DESC"
	}
	err := l.whereExpenses(l.selectExpenses(&rows), userID, f).
		OrderExpr(expenseSorts[p.SortBy] + dir + ", e.id" + dir).
		Limit(int64(p.Limit)).Offset(int64(p.Offset())).
		Scan(ctx)
	if err != nil {
		return nil, 0, err
	}
	total, err := l.countExpenses(ctx, userID, f)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.Expense, len(rows))
	for i, r := range rows {
		out[i] = r.Expense
	}
	return out, total, l.withSplits(ctx, out)
}

// countExpenses is total_items of GET /expenses. It is the one place that
// counts, because COUNT(*) visits every matching index entry: with a
// million expenses and no narrowing filter it costs tens of milliseconds,
// which a cached or estimated count could remove later.
func (l ledger) countExpenses(ctx context.Context, userID string, f finance.ExpenseFilter) (int, error) {
	n, err := l.whereExpenses(l.db.NewSelect().TableExpr("expenses AS e"), userID, f).Count(ctx)
	return int(n), err
}

type splitRow struct {
	bun.BaseModel `bun:"table:expense_splits,alias:s"`
	finance.ExpenseSplit
	UserID    string
	ExpenseID string
	Position  int
}

// withSplits fills the parts of expenses (in order) with one query.
func (l ledger) withSplits(ctx context.Context, expenses []finance.Expense) error {
	if len(expenses) == 0 {
		return nil
	}
	ids := make([]string, len(expenses))
	for i, e := range expenses {
		ids[i] = e.ID
		expenses[i].Splits, expenses[i].IsSplit = []finance.ExpenseSplit{}, false
	}
	var rows []splitRow
	err := l.db.NewSelect().Model(&rows).ExcludeColumn("category").ColumnExpr("cat.name AS category").
		Join("JOIN categories AS cat ON cat.id = s.category_id").
		Where("s.expense_id IN (?)", bun.In(ids)).
		OrderExpr("s.expense_id, s.position").
		Scan(ctx)
	if err != nil || len(rows) == 0 {
		return err
	}
	byID := make(map[string]int, len(expenses))
	for i, e := range expenses {
		byID[e.ID] = i
	}
	for _, r := range rows {
		e := &expenses[byID[r.ExpenseID]]
		e.Splits, e.IsSplit = append(e.Splits, r.ExpenseSplit), true
	}
	return nil
}

func (l ledger) InsertExpense(ctx context.Context, userID string, e finance.Expense) error {
	_, err := l.db.NewInsert().Model(&expenseRow{Expense: e, UserID: userID}).ExcludeColumn(expenseComputed...).Exec(ctx)
	return err
}

func (l ledger) UpdateExpense(ctx context.Context, userID string, e finance.Expense) error {
	_, err := l.db.NewUpdate().Model(&expenseRow{Expense: e, UserID: userID}).
		ExcludeColumn(append([]string{"created_at"}, expenseComputed...)...).
		Where("id = ? AND user_id = ?", e.ID, userID).Exec(ctx)
	return err
}

func (l ledger) ReplaceSplits(ctx context.Context, userID, expenseID string, parts []finance.ExpenseSplit) error {
	_, err := l.db.NewDelete().TableExpr("expense_splits").Where("expense_id = ? AND user_id = ?", expenseID, userID).Exec(ctx)
	if err != nil || len(parts) == 0 {
		return err
	}
	rows := make([]splitRow, len(parts))
	for i, p := range parts {
		rows[i] = splitRow{ExpenseSplit: p, UserID: userID, ExpenseID: expenseID, Position: i}
	}
	_, err = l.db.NewInsert().Model(&rows).ExcludeColumn("category").Exec(ctx)
	return err
}

func (l ledger) ExpenseTotals(ctx context.Context, userID string, from, to finance.Date) (finance.ExpenseTotals, error) {
	var out finance.ExpenseTotals
	var methods []struct {
		PaymentMethod string
		Amount        finance.Money
		Count         int
	}
	err := l.db.NewSelect().TableExpr("expenses AS e").
		Column("e.payment_method").ColumnExpr("SUM(e.amount) AS amount").ColumnExpr("COUNT(*) AS count").
		Where("e.user_id = ? AND e.status = 'active' AND e.date >= ? AND e.date <= ?", userID, from, to).
		Group("e.payment_method").
		Scan(ctx, &methods)
	if err != nil {
		return out, err
	}
	for _, m := range methods {
		out.Total += m.Amount
		out.Count += m.Count
		out.ByMethod = append(out.ByMethod, finance.MethodTotal{PaymentMethod: m.PaymentMethod, Amount: m.Amount, Count: m.Count})
	}
	// Each expense counts under its category, or, when split, each part under its own.
	err = l.db.NewRaw(`
		SELECT x.category_id, cat.name AS category, SUM(x.amount) AS amount, COUNT(*) AS count
		FROM (
			SELECT e.category_id, e.amount FROM expenses AS e
			WHERE e.user_id = ? AND e.status = 'active' AND e.date >= ? AND e.date <= ? AND e.category_id IS NOT NULL
			UNION ALL
			SELECT s.category_id, s.amount FROM expense_splits AS s JOIN expenses AS e ON e.id = s.expense_id
			WHERE e.user_id = ? AND e.status = 'active' AND e.date >= ? AND e.date <= ?
		) AS x JOIN categories AS cat ON cat.id = x.category_id
		GROUP BY x.category_id, cat.name`, userID, from, to, userID, from, to).
		Scan(ctx, &out.ByCategory)
	return out, err
}
