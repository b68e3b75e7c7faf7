package store

import (
	"context"

	"github.com/finance-app/finance/finance"
)

// ExpensesLike reads the active expenses of the same amount in a few days'
// window through the user's partial index on (user_seq, amount, id) of
// active expenses: an equality seek, then the dates of that amount only.
// The unary + keeps the date range off the (user_seq, date, id) index,
// which SQLite would otherwise pick: on a busy day it reads every expense
// of those days, where the amount reads a handful. The same day comes
// first, then the earlier day, then the later one; ties by id, the first
// recorded.
func (l ledger) ExpensesLike(ctx context.Context, userID string, amount finance.Money, from, to, near finance.Date, exceptID string, limit int) ([]finance.Expense, error) {
	var rows []expenseRow
	err := l.db.NewSelect().Model(&rows).
		Column("e.id", "e.amount", "e.date", "e.description", "e.payment_method", "e.account_id", "e.credit_card_id", "e.source").
		Where("e.user_seq = "+userSeqOf+" AND e.status = 'active' AND e.amount = ?", userID, amount).
		Where("+e.date >= ? AND +e.date <= ? AND e.id <> ?", from, to, exceptID).
		OrderExpr("CASE WHEN e.date = ? THEN 0 ELSE 1 END, e.date, e.id", near).
		Limit(int64(limit)).Scan(ctx)
	out := make([]finance.Expense, len(rows))
	for i, r := range rows {
		out[i] = r.Expense
	}
	return out, err
}

// OpenInstancesDue reads the open installments due in the window by the
// (user_id, status, due_date) index, each joined to its loan.
func (l ledger) OpenInstancesDue(ctx context.Context, userID string, from, to finance.Date) ([]finance.LoanInstanceFigures, error) {
	var rows []loanInstanceRow
	err := l.selectInstances(&rows).
		Where("li.user_id = ? AND li."+openInstance+" AND li.due_date >= ? AND li.due_date <= ?", userID, from, to).
		Where("ln.status = 'active'").
		OrderExpr("li.due_date, li.id").Scan(ctx)
	out := make([]finance.LoanInstanceFigures, len(rows))
	for i, r := range rows {
		out[i] = r.LoanInstanceFigures
	}
	return out, err
}

// OpenBillsDue reads the open bill instances due in the window, nearest
// due first, without the count a page of GET /bills also takes.
func (l ledger) OpenBillsDue(ctx context.Context, userID string, from, to finance.Date, limit int) ([]finance.Bill, error) {
	var rows []billRow
	err := whereBillStatus(l.selectBills(&rows).Where("b.user_id = ?", userID), finance.BillOpen, to).
		Where("b.due_date >= ? AND b.due_date <= ?", from, to).
		OrderExpr("b.due_date, b.id").Limit(int64(limit)).Scan(ctx)
	out := make([]finance.Bill, len(rows))
	for i, r := range rows {
		out[i] = r.Bill
	}
	return out, err
}
