package store

import (
	"context"
	"database/sql"
	"errors"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

// hotStatements are prepared statements for the hottest write, POST
// /expenses. bun writes every argument into the SQL text, so each query is
// a new statement that SQLite parses again; for the insert of an expense
// that parse costs more CPU than the rest of the request's database work.
// These are prepared once on the writer connection, before the first write
// transaction (preparing inside one would wait for the only connection),
// and run in each transaction with bound arguments.
type hotStatements struct {
	dialect          dialect // the placeholders' form
	mu               sync.Mutex
	ready            bool
	categoryByName   *sql.Stmt
	insertExpense    *sql.Stmt
	statementCursors *sql.Stmt
	// Every write appends its activity entry (activity.go).
	upsertActor    *sql.Stmt
	insertActivity *sql.Stmt
	// The look-ups of a write's warnings (warnings.go), on every expense
	// write: parsing them would cost more than running them.
	expensesLike     *sql.Stmt
	openBillsDue     *sql.Stmt
	openInstancesDue *sql.Stmt
	billsBehind      *sql.Stmt
}

// The statements' SQL. expenseColumns and user_seq must name every column
// of expenses (a test compares them with the table); an insert sets user_seq
// from user_id, the second argument.
const (
	categoryByNameSQL = `SELECT id, name, kind, color, icon, is_system, status, archived_at, created_at, updated_at
		FROM categories WHERE user_id = ? AND kind = ? AND name_key = ? AND status = 'active'`
	expenseColumns   = expenseColumnsV1 + `, currency, original_amount, original_currency`
	insertExpenseSQL = `INSERT INTO expenses (` + expenseColumns + `, user_seq)
		VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,
		(SELECT seq FROM users WHERE id = ?2))`
	// statementCursorsSQL is the check for due statements (StatementCursors),
	// on every request under the card, expense, bill, dashboard and report
	// routes and in every card write. The subquery is one seek on
	// card_transactions_unbilled (credit_card_id, date) WHERE status = 'unbilled'.
	statementCursorsSQL = `SELECT c.id, c.statement_day, c.cycle_start_date,
		(SELECT MIN(t.date) FROM card_transactions AS t WHERE t.credit_card_id = c.id AND t.status = 'unbilled')
		FROM credit_cards AS c WHERE c.user_id = ? ORDER BY c.id`
)

// statements lists each statement with its SQL.
func (h *hotStatements) statements() []struct {
	st  **sql.Stmt
	sql string
} {
	return []struct {
		st  **sql.Stmt
		sql string
	}{
		{&h.categoryByName, categoryByNameSQL}, {&h.insertExpense, insertExpenseSQL},
		{&h.statementCursors, statementCursorsSQL}, {&h.expensesLike, expensesLikeSQL},
		{&h.openBillsDue, openBillsDueSQL}, {&h.openInstancesDue, openInstancesDueSQL}, {&h.billsBehind, billsBehindSQL},
		{&h.upsertActor, upsertActorSQL}, {&h.insertActivity, insertActivitySQL},
	}
}

// prepare makes the statements on db, once; a failure is retried on the next write.
func (h *hotStatements) prepare(ctx context.Context, db *sql.DB) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ready {
		return nil
	}
	var made []*sql.Stmt
	for _, x := range h.statements() {
		st, err := db.PrepareContext(ctx, h.dialect.bind(x.sql))
		if err != nil {
			for _, m := range made {
				err = errors.Join(err, m.Close())
			}
			return err
		}
		*x.st = st
		made = append(made, st)
	}
	h.ready = true
	return nil
}

// close releases the statements.
func (h *hotStatements) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.ready {
		return nil
	}
	h.ready = false
	var err error
	for _, x := range h.statements() {
		err = errors.Join(err, (*x.st).Close())
	}
	return err
}

// query runs one of the constant queries that run on most requests, with
// bound arguments: in a write transaction the writer's hot statement (hot
// picks it), on the read pool the statement prepared there (readStmt). A
// ledger with neither (a test's bare transaction) runs the SQL as is.
func (l ledger) query(ctx context.Context, query string, hot func(*hotStatements) *sql.Stmt, args ...any) (*sql.Rows, error) {
	if st := l.stmt(ctx, hot); st != nil {
		return st.QueryContext(ctx, args...)
	}
	if l.reads != nil {
		st, err := l.reads.readStmt(ctx, query)
		if err != nil {
			return nil, err
		}
		return st.QueryContext(ctx, args...)
	}
	return l.db.QueryContext(ctx, query, args...)
}

// stmt returns st bound to the ledger's write transaction, or nil when the
// ledger is on the read pool or has no prepared statements.
func (l ledger) stmt(ctx context.Context, st func(*hotStatements) *sql.Stmt) *sql.Stmt {
	tx, ok := l.db.(bun.Tx)
	if !ok || l.hot == nil {
		return nil
	}
	return tx.StmtContext(ctx, st(l.hot))
}

// nullableTimestamp binds t, or NULL for none. The driver binds a time as
// its integer microseconds, as bun writes one (times.go).
func nullableTimestamp(t *time.Time) any {
	if t == nil {
		return nil
	}
	return *t
}

// activeCategoryByName runs the prepared lookup of ActiveCategoryByName.
func activeCategoryByName(ctx context.Context, st *sql.Stmt, userID string, kind finance.CategoryKind, name string) (finance.Category, error) {
	var c finance.Category
	err := st.QueryRowContext(ctx, userID, string(kind), nameKey(name)).Scan(&c.ID, &c.Name, &c.Kind, &c.Color, &c.Icon,
		&c.IsSystem, &c.Status, &c.ArchivedAt, &c.CreatedAt, &c.UpdatedAt)
	return c, notFound(err, "category")
}

// insertExpense runs the prepared insert of InsertExpense.
func insertExpense(ctx context.Context, st *sql.Stmt, userID string, e finance.Expense) error {
	_, err := st.ExecContext(ctx, e.ID, userID, e.Amount, e.Date, e.Description, e.CategoryID, e.PaymentMethod,
		e.AccountID, e.CreditCardID, e.Notes, e.Status, e.Source, e.BillPaymentID, e.AccountTransactionID,
		e.CardTransactionID, nullableTimestamp(e.VoidedAt), e.CreatedAt, e.UpdatedAt,
		e.Currency, e.OriginalAmount, e.OriginalCurrency)
	return err
}
