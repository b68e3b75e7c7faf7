package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
	pgdialectname "github.com/uptrace/bun/dialect"
)

// dialect is the SQL database a DB runs on. Only this package knows it, and
// the few constructs that differ between the two are written once here, so
// that every query of the ledger is one text for both.
type dialect int

const (
	sqliteDialect   dialect = iota // the default: one file in the data directory
	postgresDialect                // postgres://… (postgres.go)
)

func (d dialect) String() string {
	if d == postgresDialect {
		return "postgres"
	}
	return "sqlite"
}

// dialectOf is the dialect of the database idb runs on.
func dialectOf(idb bun.IDB) dialect {
	if idb.Dialect().Name() == pgdialectname.PG {
		return postgresDialect
	}
	return sqliteDialect
}

// noIndexHint is SQLite's unary plus on a column ("+e.date"), which keeps
// the planner from using an index for that term (https://sqlite.org/optoverview.html#disqualifying_where_clause_terms_using_unary_).
// Postgres has no unary plus for text and plans by cost, so it is dropped there.
var noIndexHint = regexp.MustCompile(`([\s(])\+([a-z_]+\.[a-z_]+)`)

// bind returns query, written for SQLite, in the dialect's form. Queries
// handed to database/sql directly (prepared statements, which bun does not
// format) are written with SQLite's placeholders, ? and ?N; Postgres wants
// $N. A ? inside a quoted string or identifier is left alone. bun's own
// queries need none of this: bun writes their arguments into the text.
// SQLite's index hints (noIndexHint) are dropped on Postgres.
func (d dialect) bind(query string) string {
	if d != postgresDialect {
		return query
	}
	query = noIndexHint.ReplaceAllString(query, "$1$2")
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	next := 0
	var quote byte
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			b.WriteByte(c)
		case c == '\'' || c == '"':
			quote = c
			b.WriteByte(c)
		case c == '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(query[i+1 : j])
				n, _ := strconv.Atoi(query[i+1 : j])
				next = max(next, n)
				i = j - 1
			} else {
				next++
				b.WriteString(strconv.Itoa(next))
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// greatest is the larger of two numbers: SQLite's scalar max(a, b),
// Postgres's GREATEST (where max takes one argument only).
func (d dialect) greatest(a, b string) string {
	if d == postgresDialect {
		return "GREATEST(" + a + ", " + b + ")"
	}
	return "MAX(" + a + ", " + b + ")"
}

// uniqueViolation reports whether err is a write refused by the unique key
// of table that covers column. SQLite names them in its message ("UNIQUE
// constraint failed: users.email"); Postgres in the error's fields, the
// constraint named after its table and columns (users_email_key).
func uniqueViolation(err error, table, column string) bool {
	if err == nil {
		return false
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code == "23505" && (table == "" || pg.TableName == table) && strings.Contains(pg.ConstraintName, column)
	}
	want := "UNIQUE constraint failed"
	if table != "" {
		want += ": " + table + "." + column
	}
	return strings.Contains(err.Error(), want)
}

// updateOrFail begins an UPDATE that keeps no statement journal: SQLite's
// OR FAIL, for a statement that cannot violate a constraint (BillBacklog).
// Postgres has no conflict clause on UPDATE, nor a statement journal.
func (d dialect) updateOrFail() string {
	if d == postgresDialect {
		return "UPDATE"
	}
	return "UPDATE OR FAIL"
}

// boundTx is a database/sql transaction whose SQL, written for SQLite's
// placeholders, is bound to its dialect's (bind) before it runs: the
// export and restore, which run SQL of their own making.
type boundTx struct {
	*sql.Tx
	d dialect
}

func (b boundTx) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return b.Tx.ExecContext(ctx, b.d.bind(query), args...)
}

func (b boundTx) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return b.Tx.QueryContext(ctx, b.d.bind(query), args...)
}

func (b boundTx) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return b.Tx.QueryRowContext(ctx, b.d.bind(query), args...)
}

func (b boundTx) PrepareContext(ctx context.Context, query string) (*sql.Stmt, error) {
	return b.Tx.PrepareContext(ctx, b.d.bind(query))
}

// tableColumnsSQL lists a table's columns (its name the one argument) in
// order, each with its type as SQLite declares it (TEXT, INTEGER, BOOLEAN,
// TIMESTAMP, BLOB): on Postgres, the type the baseline maps it to.
func (d dialect) tableColumnsSQL() string {
	if d == postgresDialect {
		return `SELECT column_name, CASE data_type WHEN 'text' THEN 'TEXT' WHEN 'bigint' THEN 'INTEGER'
			WHEN 'boolean' THEN 'BOOLEAN' WHEN 'timestamp with time zone' THEN 'TIMESTAMP' WHEN 'bytea' THEN 'BLOB'
			ELSE upper(data_type) END
			FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position`
	}
	return "SELECT name, upper(type) FROM pragma_table_info(?) ORDER BY cid"
}

// userLinksSQL lists the foreign keys of a table (its name the one
// argument) to tables of user records other than users itself: the
// column, the parent table and the parent's column.
func (d dialect) userLinksSQL() string {
	if d == postgresDialect {
		return `SELECT a.attname, p.relname, pa.attname FROM pg_constraint AS c
			JOIN pg_class AS p ON p.oid = c.confrelid
			JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
			JOIN pg_attribute AS pa ON pa.attrelid = c.confrelid AND pa.attnum = c.confkey[1]
			WHERE c.contype = 'f' AND c.conrelid = to_regclass(?) AND cardinality(c.conkey) = 1 AND p.relname <> 'users'
			AND EXISTS (SELECT 1 FROM information_schema.columns AS i
				WHERE i.table_schema = current_schema() AND i.table_name = p.relname AND i.column_name = 'user_id')`
	}
	return `SELECT f."from", f."table", f."to" FROM pragma_foreign_key_list(?) AS f
		WHERE f."table" <> 'users' AND EXISTS (SELECT 1 FROM pragma_table_info(f."table") WHERE name = 'user_id')`
}

// insertionOrder orders a table's rows as they were inserted, as far as the
// dialect keeps it: SQLite's rowid; on Postgres, which keeps no such order,
// the id, a UUIDv7 that grows with time.
func (d dialect) insertionOrder() string {
	if d == postgresDialect {
		return "id"
	}
	return "rowid"
}

// nocase is expr compared and ordered ignoring case: SQLite's NOCASE
// collation (ASCII letters only); on Postgres lower(expr), the expression
// its indexes of the description sort are built on (the baseline schema's
// header says why not a nondeterministic collation). lower() folds every
// letter, not only ASCII's, so two descriptions that differ only in the
// case of a non-ASCII letter sort together on Postgres and apart on SQLite.
func (d dialect) nocase(expr string) string {
	if d == postgresDialect {
		return "lower(" + expr + ")"
	}
	return expr + " COLLATE NOCASE"
}

// like is the pattern match that ignores case: SQLite's LIKE (ASCII letters
// only), Postgres's ILIKE (every letter, by the database's locale).
func (d dialect) like() string {
	if d == postgresDialect {
		return "ILIKE"
	}
	return "LIKE"
}

// tablesSQL lists the database's tables (the copy's, copy.go).
func (d dialect) tablesSQL() string {
	if d == postgresDialect {
		return `SELECT table_name FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`
	}
	return "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY 1"
}

// parentTablesSQL lists the tables that a table's foreign keys name (its
// name the one argument).
func (d dialect) parentTablesSQL() string {
	if d == postgresDialect {
		return `SELECT DISTINCT p.relname FROM pg_constraint AS c JOIN pg_class AS p ON p.oid = c.confrelid
			WHERE c.contype = 'f' AND c.conrelid = to_regclass(?)`
	}
	return `SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)`
}

// afterCopy readies a database that rows were copied into with their own
// keys: on Postgres each identity column's sequence starts after the
// largest key copied (SQLite's rowids follow the largest by themselves).
func (d dialect) afterCopy(ctx context.Context, tx boundTx) error {
	if d != postgresDialect {
		return nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT table_name, column_name FROM information_schema.columns
		WHERE table_schema = current_schema() AND is_identity = 'YES'`)
	if err != nil {
		return err
	}
	var idents [][2]string
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			rows.Close()
			return err
		}
		idents = append(idents, [2]string{t, c})
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return err
	}
	for _, id := range idents {
		q := fmt.Sprintf(`SELECT setval(pg_get_serial_sequence('%s', '%s'), COALESCE(max("%[2]s"), 0) + 1, false) FROM "%[1]s"`, id[0], id[1])
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("the identity of %s.%s: %w", id[0], id[1], err)
		}
	}
	return nil
}
