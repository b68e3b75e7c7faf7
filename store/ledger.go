package store

import (
	"context"
	"strings"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

var _ finance.Store = (*DB)(nil)

// ledger implements finance.Repo over either the read pool or a write
// transaction: the same queries serve both.
type ledger struct {
	db    bun.IDB
	hot   *hotStatements // set in write transactions: prepared statements of the hottest writes
	reads *DB            // set on the read pool: its prepared statements (readStmt)
	owner *DB            // the database, for its in-memory lookups (lookups.go)
}

// Read returns the ledger on the read pool.
func (db *DB) Read() finance.Repo { return ledger{db: db.reader, reads: db, owner: db} }

// Write runs fn in one IMMEDIATE transaction on the writer, or in the write
// scope that ctx carries (WriteScope).
func (db *DB) Write(ctx context.Context, fn func(finance.Repo) error) error {
	if err := db.hot.prepare(ctx, db.writer.DB); err != nil {
		return err
	}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		return fn(ledger{db: tx, hot: &db.hot, owner: db})
	})
}

// likePattern turns a search term into a LIKE pattern matching it anywhere,
// with LIKE's wildcards escaped. It ignores case (dialect.like).
func likePattern(term string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.TrimSpace(term)) + "%"
}

// searchAny adds "any of cols contains term" to q.
func searchAny(q *bun.SelectQuery, term string, cols ...string) *bun.SelectQuery {
	if strings.TrimSpace(term) == "" {
		return q
	}
	pat := likePattern(term)
	like := dialectOf(q.DB()).like()
	return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		for _, c := range cols {
			q = q.WhereOr(`? `+like+` ? ESCAPE '\'`, bun.Ident(c), pat)
		}
		return q
	})
}

// orderPage adds ORDER BY (col, then id, in the same direction) and the page window.
func orderPage(q *bun.SelectQuery, col string, p finance.ListParams) *bun.SelectQuery {
	dir := "ASC"
	if p.Desc {
		dir = "DESC"
	}
	return q.OrderExpr("? "+dir+", ?TableAlias.id "+dir, bun.Ident(col)).
		Limit(int64(p.Limit)).Offset(int64(p.Offset()))
}

// nameKey mirrors finance's case-insensitive name identity for the name_key columns.
func nameKey(s string) string { return strings.ToLower(strings.TrimSpace(s)) }

// pageAndSummary reads the page of q (sorted by col) into q's model, and
// the summary of every row q selects over all pages: its count and the sum
// of signed, an expression of the columns q selects (domain.md "List
// summaries"). The summary reads q as its subquery before the page adds its
// order and window, so both have the same conditions by construction: one
// aggregate in place of the count a page reads anyway.
// pageAndTotals is pageAndSummary for a list whose rows (q) have currency,
// date and amount columns, summed as finance.ListTotals groups them.
func (l ledger) pageAndTotals(ctx context.Context, q *bun.SelectQuery, col string, p finance.ListParams, reporting string) (finance.ListTotals, error) {
	var groups []countedGroup
	err := groupByCurrency(l.db.NewSelect().TableExpr("(?) AS s", q), "s", reporting).Scan(ctx, &groups)
	if err != nil {
		return finance.ListTotals{}, err
	}
	return totalsOf(groups), orderPage(q, col, p).Scan(ctx)
}

// countedGroup is a sum of one currency (and date, outside the reporting
// currency) with the number of rows summed.
type countedGroup struct {
	finance.DatedAmount
	Count int
}

// groupByCurrency sums the rows of q (alias t) by currency, the reporting
// currency's over every date (dated by its first) and another's per date,
// as finance.ListTotals holds them: a household in one currency gets one
// row, as a plain count and sum would.
func groupByCurrency(q *bun.SelectQuery, t, reporting string) *bun.SelectQuery {
	return q.ColumnExpr(t+".currency").
		// The first date of the group: a date of its own in another
		// currency's groups, which are one per date.
		ColumnExpr("min("+t+".date) AS date").
		ColumnExpr("count(*) AS count, coalesce(sum("+t+".amount), 0) AS amount").
		GroupExpr(t+".currency").
		GroupExpr("CASE WHEN "+t+".currency = ? THEN '' ELSE "+t+".date END", reporting)
}

// totalsOf adds up the groups' counts.
func totalsOf(groups []countedGroup) finance.ListTotals {
	out := finance.ListTotals{Groups: make([]finance.DatedAmount, len(groups))}
	for i, g := range groups {
		out.Count += g.Count
		out.Groups[i] = g.DatedAmount
	}
	return out
}

func (l ledger) pageAndSummary(ctx context.Context, q *bun.SelectQuery, col string, p finance.ListParams, signed, currency string) (finance.ListTotals, error) {
	// The rows may be in several currencies (lines of several accounts,
	// rows of several cards): the sum is grouped by currency and date for
	// finance to convert each at its date's rate (finance.ListTotals).
	var groups []struct {
		finance.DatedAmount
		Count int
	}
	err := l.db.NewSelect().TableExpr("(?) AS s", q).
		ColumnExpr("s."+currency+" AS currency, s.date AS date, count(*) AS count, coalesce(sum("+signed+"), 0) AS amount").
		GroupExpr("1, 2").Scan(ctx, &groups)
	if err != nil {
		return finance.ListTotals{}, err
	}
	out := finance.ListTotals{Groups: make([]finance.DatedAmount, len(groups))}
	for i, g := range groups {
		out.Count += g.Count
		out.Groups[i] = g.DatedAmount
	}
	return out, orderPage(q, col, p).Scan(ctx)
}
