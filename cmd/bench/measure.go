package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// scratchTable is the one table of the baseline's scratch databases.
const scratchTable = `CREATE TABLE IF NOT EXISTS bench_rows (id TEXT PRIMARY KEY, amount INTEGER NOT NULL,
	date TEXT NOT NULL, description TEXT NOT NULL)`

// rawCommitRate measures single-row committed inserts per second into a
// scratch database at path, opened with the same settings as the service's
// writer. It is the ceiling against which the API's write rate is read.
func rawCommitRate(ctx context.Context, path string, n int) (float64, error) {
	w, err := openBaselineWriter(ctx, path)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	for range n {
		if err := w.insert(ctx, 12345, "2026-01-01", "raw commit"); err != nil {
			return 0, errors.Join(err, w.close())
		}
	}
	rate := float64(n) / time.Since(start).Seconds()
	return rate, w.close()
}

// baselineWriter is the storage half of the benchmark's baseline server: a
// scratch database opened with the service's settings (WAL,
// synchronous=FULL, BEGIN IMMEDIATE on one writer connection) into which
// each insert commits one row with a prepared statement and nothing else.
type baselineWriter struct {
	db   *sql.DB
	stmt *sql.Stmt
}

// openBaselineWriter opens (creating) the baseline's scratch database at path.
func openBaselineWriter(ctx context.Context, path string) (*baselineWriter, error) {
	db, err := store.OpenPlain(path)
	if err != nil {
		return nil, err
	}
	if _, err := db.ExecContext(ctx, scratchTable); err != nil {
		return nil, errors.Join(err, db.Close())
	}
	st, err := db.PrepareContext(ctx, "INSERT INTO bench_rows (id, amount, date, description) VALUES (?, ?, ?, ?)")
	if err != nil {
		return nil, errors.Join(err, db.Close())
	}
	return &baselineWriter{db: db, stmt: st}, nil
}

// insert commits one row in a transaction of its own.
func (b *baselineWriter) insert(ctx context.Context, amount int64, date, description string) error {
	tx, err := b.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if _, err := tx.StmtContext(ctx, b.stmt).ExecContext(ctx, finance.NewID(), amount, date, description); err != nil {
		return errors.Join(err, tx.Rollback())
	}
	return tx.Commit()
}

// close closes the scratch database.
func (b *baselineWriter) close() error { return errors.Join(b.stmt.Close(), b.db.Close()) }

// statementCheckCost is the mean time of the check every card, expense,
// bill, dashboard and report request makes before it runs: whether a
// statement is due for the user with the given email.
func statementCheckCost(ctx context.Context, db *store.DB, email string, n int) (time.Duration, error) {
	var userID string
	if err := queryRow(ctx, db, []any{&userID}, "SELECT id FROM users WHERE email = ?", email); err != nil {
		return 0, err
	}
	svc := finance.NewService(db)
	start := time.Now()
	for range n {
		due, err := svc.StatementsDue(ctx, userID)
		if err != nil {
			return 0, err
		}
		if due {
			return 0, fmt.Errorf("a statement is due; the check measures the case with nothing to generate")
		}
	}
	return time.Since(start) / time.Duration(n), nil
}

// bTreeBytes is the space one B-tree (a table or an index) takes in the
// database file.
type bTreeBytes struct {
	Name  string
	Bytes int64
}

// bTreeSizes reads every B-tree's bytes from SQLite's dbstat table, largest
// first.
func bTreeSizes(ctx context.Context, db *store.DB) ([]bTreeBytes, error) {
	var out []bTreeBytes
	err := db.RawTx(ctx, func(ctx context.Context, tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT name, SUM(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC, 1")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var b bTreeBytes
			if err := rows.Scan(&b.Name, &b.Bytes); err != nil {
				return err
			}
			out = append(out, b)
		}
		return rows.Err()
	})
	return out, err
}
