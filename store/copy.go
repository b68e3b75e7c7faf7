package store

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Copying a whole database into another (finance copy-db): a household
// that outgrew SQLite moves to Postgres (or back) with every record, key,
// session and connected app, in one transaction on the target.
//
// The target must have this binary's schema and no user yet. The source is
// read in one snapshot (a read transaction; REPEATABLE READ on Postgres),
// so a server may keep running on it: what it writes after the copy began
// is not in the copy. Tables are copied parents first (by their foreign
// keys), every column as the target declares it. The kept totals are not
// copied: the target's triggers build them as the rows arrive, and the copy
// then proves them equal to the source's, and the row count of every table
// equal, before it reports success; any difference, or any error, rolls
// the whole copy back.

// CopyCount is one table's rows, as many in the target as in the source.
type CopyCount struct {
	Table string
	Rows  int
}

// copyLeftOut are the tables the copy does not copy, and why.
var copyLeftOut = map[string]string{
	"expense_counts":        keptTotals,
	"account_line_totals":   keptTotals,
	"card_totals":           keptTotals,
	"spending_days":         keptTotals,
	"expense_months":        keptTotals,
	"card_totals_deferred":  "empty outside a statement's billing",
	"credential_generation": "the credential cache's counter: the target keeps its own",
	"health_probe":          "the server's own",
	"bun_migrations":        "the target's own: this binary migrated it",
	"bun_migration_locks":   "the target's own",
	"sqlite_sequence":       "SQLite's own",
}

const keptTotals = "kept totals: the target's triggers build them as the rows arrive, and the copy compares them"

// keptTotalTables are the tables of copyLeftOut the copy compares.
func keptTotalTables() []string {
	var out []string
	for t, why := range copyLeftOut {
		if why == keptTotals {
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// CopyInto copies every record of db into to, which has this binary's
// schema and no user (see above), and returns each copied table's rows.
func (db *DB) CopyInto(ctx context.Context, to *DB) ([]CopyCount, error) {
	if err := db.Migrated(ctx); err != nil {
		return nil, fmt.Errorf("the source: %w (run finance migrate on it first)", err)
	}
	if err := to.Migrated(ctx); err != nil {
		return nil, fmt.Errorf("the target: %w", err)
	}
	var users int
	if err := to.reader.DB.QueryRowContext(ctx, "SELECT count(*) FROM users").Scan(&users); err != nil {
		return nil, fmt.Errorf("the target: %w", err)
	}
	if users > 0 {
		return nil, fmt.Errorf("the target already holds %d user(s): copy-db fills a database that no one uses yet", users)
	}
	tables, err := copyOrder(ctx, to)
	if err != nil {
		return nil, fmt.Errorf("the target's tables: %w", err)
	}

	opts := &sql.TxOptions{ReadOnly: true}
	if db.dialect == postgresDialect {
		opts.Isolation = sql.LevelRepeatableRead // one snapshot, as SQLite's read transaction
	}
	stx, err := db.reader.DB.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	src := boundTx{Tx: stx, d: db.dialect}
	defer func() { _ = src.Rollback() }() // a read: nothing to commit

	var counts []CopyCount
	err = to.RawTx(ctx, func(ctx context.Context, ttx *sql.Tx) error {
		dst := boundTx{Tx: ttx, d: to.dialect}
		counts = counts[:0] // a write on Postgres may run again
		// The source's signing key takes the place of any the target made
		// (a replica started on it before the copy), so that the sign-ins
		// the source signed stay valid on the target. With no user on the
		// target, none of its own sign-ins is lost.
		if _, err := ttx.ExecContext(ctx, "DELETE FROM server_secrets"); err != nil {
			return err
		}
		for _, t := range tables {
			n, err := copyTable(ctx, src, dst, t)
			if err != nil {
				return fmt.Errorf("copy %s: %w", t, err)
			}
			counts = append(counts, CopyCount{Table: t, Rows: n})
		}
		if err := to.dialect.afterCopy(ctx, dst); err != nil {
			return err
		}
		return checkCopy(ctx, src, dst, counts)
	})
	if err != nil {
		return nil, err
	}
	return counts, nil
}

// copyOrder is the tables of to that the copy copies, each after the tables
// its foreign keys name.
func copyOrder(ctx context.Context, to *DB) ([]string, error) {
	var tables []string
	if err := to.reader.NewRaw(to.dialect.tablesSQL()).Scan(ctx, &tables); err != nil {
		return nil, err
	}
	parents := map[string][]string{}
	for _, t := range tables {
		var ps []string
		if err := to.reader.NewRaw(to.dialect.parentTablesSQL(), t).Scan(ctx, &ps); err != nil {
			return nil, err
		}
		parents[t] = ps
	}
	var order []string
	placed := map[string]bool{}
	var place func(t string, path []string) error
	place = func(t string, path []string) error {
		if placed[t] {
			return nil
		}
		if slices.Contains(path, t) {
			return fmt.Errorf("foreign keys in a cycle: %s", strings.Join(append(path, t), " -> "))
		}
		for _, p := range parents[t] {
			if p != t {
				if err := place(p, append(path, t)); err != nil {
					return err
				}
			}
		}
		placed[t] = true
		if _, left := copyLeftOut[t]; !left {
			order = append(order, t)
		}
		return nil
	}
	slices.Sort(tables)
	for _, t := range tables {
		if err := place(t, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// copyTable inserts every row of table from src into dst and returns how
// many. Each value is converted to the type dst declares for its column.
func copyTable(ctx context.Context, src, dst boundTx, table string) (int, error) {
	cols, err := declaredColumns(ctx, dst.Tx, dst.d, table)
	if err != nil {
		return 0, err
	}
	ins, err := dst.PrepareContext(ctx, fmt.Sprintf(`INSERT INTO "%s" (%s) VALUES (%s)`, table, columnList(cols),
		strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ")))
	if err != nil {
		return 0, err
	}
	defer ins.Close()
	n := 0
	err = eachRow(ctx, src, table, cols, func(vals []any) error {
		n++
		_, err := ins.ExecContext(ctx, vals...)
		return err
	})
	return n, err
}

// columnList is cols quoted for SQL, in order.
func columnList(cols []declaredColumn) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = `"` + c.name + `"`
	}
	return strings.Join(names, ", ")
}

// eachRow hands fn every row of table's cols as tx reads them, each value
// converted to the Go type of the column's declared type (asDeclared).
func eachRow(ctx context.Context, tx boundTx, table string, cols []declaredColumn, fn func(vals []any) error) error {
	rows, err := tx.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM "%s"`, columnList(cols), table))
	if err != nil {
		return err
	}
	defer rows.Close()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		for i, c := range cols {
			if vals[i], err = asDeclared(vals[i], c.typ); err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
		}
		if err := fn(vals); err != nil {
			return err
		}
	}
	return rows.Err()
}

type declaredColumn struct{ name, typ string }

// declaredColumns are table's columns in order, each with its type as SQLite
// declares it (tableColumnsSQL), read through q in dialect d: the copy's
// and the export's.
func declaredColumns(ctx context.Context, q interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, d dialect, table string) ([]declaredColumn, error) {
	rows, err := q.QueryContext(ctx, d.bind(d.tableColumnsSQL()), table)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []declaredColumn
	for rows.Next() {
		var c declaredColumn
		if err := rows.Scan(&c.name, &c.typ); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no table %s", table)
	}
	return out, nil
}

// asDeclared is v, as one database's driver read it, in the Go type the
// other's driver writes to a column of type typ: SQLite keeps booleans as 0
// and 1 and timestamps as integer microseconds (times.go), Postgres as
// boolean and timestamptz.
func asDeclared(v any, typ string) (any, error) {
	if v == nil {
		return nil, nil
	}
	switch typ {
	case "BOOLEAN":
		switch b := v.(type) {
		case bool:
			return b, nil
		case int64:
			return b != 0, nil
		}
	case "TIMESTAMP":
		switch t := v.(type) {
		case time.Time:
			return t.UTC(), nil
		case int64:
			return time.UnixMicro(t).UTC(), nil
		case string:
			return parseTimeText(t)
		}
	case "INTEGER":
		switch n := v.(type) {
		case int64:
			return n, nil
		case bool:
			if n {
				return int64(1), nil
			}
			return int64(0), nil
		}
	case "BLOB":
		switch b := v.(type) {
		case []byte:
			return b, nil
		case string:
			return []byte(b), nil
		}
	default: // TEXT, VARCHAR and the like
		switch s := v.(type) {
		case string:
			return s, nil
		case []byte:
			return string(s), nil
		}
	}
	return nil, fmt.Errorf("a %T where the target keeps %s", v, typ)
}

// checkCopy proves the copy: every copied table holds as many rows in dst
// as in src, and every kept total the target's triggers built holds the
// source's sums.
func checkCopy(ctx context.Context, src, dst boundTx, counts []CopyCount) error {
	var problems []string
	for _, c := range counts {
		var n int
		if err := src.QueryRowContext(ctx, fmt.Sprintf(`SELECT count(*) FROM "%s"`, c.Table)).Scan(&n); err != nil {
			return err
		}
		var m int
		if err := dst.QueryRowContext(ctx, fmt.Sprintf(`SELECT count(*) FROM "%s"`, c.Table)).Scan(&m); err != nil {
			return err
		}
		if n != m || n != c.Rows {
			problems = append(problems, fmt.Sprintf("%s: %d rows in the source, %d copied, %d in the target", c.Table, n, c.Rows, m))
		}
	}
	for _, t := range keptTotalTables() {
		a, err := keptRows(ctx, src, t)
		if err != nil {
			return err
		}
		b, err := keptRows(ctx, dst, t)
		if err != nil {
			return err
		}
		if !slices.Equal(a, b) {
			problems = append(problems, fmt.Sprintf("%s: the target's totals differ from the source's (%d rows against %d)", t, len(b), len(a)))
		}
	}
	if len(problems) > 0 {
		return errors.New("the copy does not match its source, so nothing was written: " + strings.Join(problems, "; "))
	}
	return nil
}

// keptRows are the rows of a kept-total table as comparable text, sorted,
// without the rows that count nothing (every number zero: what an edit or
// a void emptied, which a copy never makes).
func keptRows(ctx context.Context, tx boundTx, table string) ([]string, error) {
	cols, err := declaredColumns(ctx, tx.Tx, tx.d, table)
	if err != nil {
		return nil, err
	}
	var out []string
	err = eachRow(ctx, tx, table, cols, func(vals []any) error {
		cells := make([]string, len(vals))
		counts := false
		for i, v := range vals {
			cells[i] = comparableText(v)
			if n, ok := v.(int64); ok && n != 0 {
				counts = true
			}
		}
		if counts {
			out = append(out, strings.Join(cells, "|"))
		}
		return nil
	})
	slices.Sort(out)
	return out, err
}

// comparableText is v as text that is the same whichever database it came from.
func comparableText(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case int64:
		return strconv.FormatInt(v, 10)
	case bool:
		return strconv.FormatBool(v)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case []byte:
		return hex.EncodeToString(v)
	default:
		return fmt.Sprint(v)
	}
}
