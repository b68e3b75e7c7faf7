package store

import (
	"context"
	"database/sql"

	"github.com/finance-app/finance/finance"
)

// The look-ups of a write's warnings run in every expense write, so they
// are prepared statements (hotStatements) that read only the columns a
// warning uses.
const (
	// expensesLikeSQL reads the active expenses of one amount in a few
	// days' window through the user's partial index on (user_seq, amount,
	// id) of active expenses: an equality seek, then the dates of that
	// amount only. The unary + keeps the date range off the (user_seq,
	// date, id) index, which SQLite would otherwise pick: on a busy day it
	// reads every expense of those days, where the amount reads a handful.
	// The same day comes first, then the earlier days, then the later
	// ones; ties by id, the first recorded.
	expensesLikeSQL = `SELECT e.id, e.amount, e.date, e.description, e.credit_card_id FROM expenses AS e
		WHERE e.user_seq = (SELECT seq FROM users WHERE id = ?) AND e.status = 'active' AND e.amount = ?
		AND +e.date >= ? AND +e.date <= ? AND e.id <> ?
		ORDER BY CASE WHEN e.date = ? THEN 0 ELSE 1 END, e.date, e.id LIMIT ?`
	// openBillsDueSQL reads the bill instances due in the window, in order,
	// by bill_instances_user_due (user_id, due_date, id): two weeks of one
	// user's bills, of which it keeps the open ones.
	openBillsDueSQL = `SELECT b.id, b.name, b.amount, b.paid_total, b.due_date, b.status,
		(SELECT bt.currency FROM bill_templates AS bt WHERE bt.id = b.template_id) FROM bill_instances AS b
		WHERE b.user_id = ? AND b.status IN ('unpaid', 'partially_paid') AND b.due_date >= ? AND b.due_date <= ?
		ORDER BY b.due_date, b.id LIMIT ?`
	// openInstancesDueSQL reads the open installments of active loans due
	// in the window by loan_instances_user_due (user_id, status, due_date).
	openInstancesDueSQL = `SELECT li.id, li.loan_id, li.installment_number, li.amount_due, li.paid_total, li.due_date, ln.name, ln.currency
		FROM loan_instances AS li JOIN loans AS ln ON ln.id = li.loan_id
		WHERE li.user_id = ? AND li.` + openInstance + ` AND li.due_date >= ? AND li.due_date <= ? AND ln.status = 'active'
		ORDER BY li.due_date, li.id`
)

func (l ledger) ExpensesLike(ctx context.Context, userID string, amount finance.Money, from, to, near finance.Date, exceptID string, limit int) ([]finance.Expense, error) {
	rows, err := l.query(ctx, expensesLikeSQL, func(h *hotStatements) *sql.Stmt { return h.expensesLike },
		userID, amount, from, to, exceptID, near, limit)
	return scanRows(rows, err, func(e *finance.Expense) []any {
		return []any{&e.ID, &e.Amount, &e.Date, &e.Description, &e.CreditCardID}
	})
}

func (l ledger) OpenBillsDue(ctx context.Context, userID string, from, to finance.Date, limit int) ([]finance.Bill, error) {
	rows, err := l.query(ctx, openBillsDueSQL, func(h *hotStatements) *sql.Stmt { return h.openBillsDue },
		userID, from, to, limit)
	return scanRows(rows, err, func(b *finance.Bill) []any {
		return []any{&b.ID, &b.Name, &b.Amount, &b.PaidTotal, &b.DueDate, &b.Status, &b.Currency}
	})
}

func (l ledger) OpenInstancesDue(ctx context.Context, userID string, from, to finance.Date) ([]finance.LoanInstanceFigures, error) {
	rows, err := l.query(ctx, openInstancesDueSQL, func(h *hotStatements) *sql.Stmt { return h.openInstancesDue },
		userID, from, to)
	return scanRows(rows, err, func(x *finance.LoanInstanceFigures) []any {
		return []any{&x.ID, &x.LoanID, &x.InstallmentNumber, &x.AmountDue, &x.PaidTotal, &x.DueDate, &x.LoanName, &x.Currency}
	})
}

// scanRows reads every row of a query that returned rows and err into a T,
// through the fields of T that fields names in the query's column order.
func scanRows[T any](rows *sql.Rows, err error, fields func(*T) []any) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		var x T
		if err := rows.Scan(fields(&x)...); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, rows.Err()
}
