package store

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/uptrace/bun"
)

// The store's tests refuse any query that holds an id as quoted text
// (RefuseTextIDLiterals).
func init() { RefuseTextIDLiterals() }

// SetIDRowsPerUpdate makes the ids' conversion update n rows at a time
// until the returned function puts the size back.
func SetIDRowsPerUpdate(n int64) (restore func()) {
	old := idRowsPerUpdate
	idRowsPerUpdate = n
	return func() { idRowsPerUpdate = old }
}

// MigrationCount is the number of up migrations: embedded files and table rebuilds.
func MigrationCount() (int, error) {
	all, err := allMigrations()
	if err != nil {
		return 0, err
	}
	return len(all.Sorted()), nil
}

// MigrateThrough applies the migrations named up to last, and those named
// in also.
func (db *DB) MigrateThrough(ctx context.Context, last string, also ...string) error {
	return db.migrateThrough(ctx, last, also...)
}

// WriterPragma returns the value of PRAGMA name on the writer connection.
func (db *DB) WriterPragma(ctx context.Context, name string) (string, error) {
	var v string
	err := db.writer.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v)
	return v, err
}

// ReaderPragma returns the value of PRAGMA name on a reader connection.
func (db *DB) ReaderPragma(ctx context.Context, name string) (string, error) {
	var v string
	err := db.reader.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v)
	return v, err
}

// ReaderExec runs a statement on a reader connection.
func (db *DB) ReaderExec(ctx context.Context, query string, args ...any) error {
	_, err := db.reader.ExecContext(ctx, query, args...)
	return err
}

// ReaderScan runs a query on a reader connection and scans its rows into dest.
func (db *DB) ReaderScan(ctx context.Context, dest any, query string, args ...any) error {
	return db.reader.NewRaw(query, args...).Scan(ctx, dest)
}

// WriterExec runs a statement on the writer, outside any transaction.
func (db *DB) WriterExec(ctx context.Context, query string, args ...any) error {
	_, err := db.writer.ExecContext(ctx, query, args...)
	return err
}

// QueryInt runs a query returning one integer on a reader connection.
func (db *DB) QueryInt(ctx context.Context, query string, args ...any) (int, error) {
	var n int
	err := db.reader.QueryRowContext(ctx, query, args...).Scan(&n)
	return n, err
}

// ReaderConnsPragma holds n reader connections at once and returns the value
// of PRAGMA name on each, so a test sees more than the one idle connection.
func (db *DB) ReaderConnsPragma(ctx context.Context, name string, n int) ([]string, error) {
	vals := make([]string, 0, n)
	for range n {
		conn, err := db.reader.Conn(ctx)
		if err != nil {
			return nil, err
		}
		defer conn.Close()
		var v string
		if err := conn.QueryRowContext(ctx, "PRAGMA "+name).Scan(&v); err != nil {
			return nil, err
		}
		vals = append(vals, v)
	}
	return vals, nil
}

// IdempotencyKeys lists the keys stored for userID, expired ones included.
func (db *DB) IdempotencyKeys(ctx context.Context, userID string) ([]string, error) {
	var keys []string
	err := db.reader.NewSelect().Table("idempotency_keys").Column("idempotency_key").
		Where("user_id = ?", userID).Order("idempotency_key").Scan(ctx, &keys)
	return keys, err
}

// CredentialQueries counts the credential lookups that went to the
// database rather than the credential cache.
func (db *DB) CredentialQueries() int64 { return db.creds.queries.Load() }

// ReaderPlans runs read on the reader pool and returns, for each query it
// ran, the query's EXPLAIN QUERY PLAN details joined by "; ".
func (db *DB) ReaderPlans(ctx context.Context, read func() error) (map[string]string, error) {
	hook := &queryRecorder{}
	db.reader.AddQueryHook(hook)
	err := read()
	db.reader.ResetQueryHooks()
	if err != nil {
		return nil, err
	}
	hook.mu.Lock() // read has returned: every query it ran is recorded
	queries := hook.queries
	hook.mu.Unlock()
	out := make(map[string]string, len(queries))
	for _, q := range queries {
		rows, err := db.reader.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q)
		if err != nil {
			return nil, err
		}
		var details []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				rows.Close()
				return nil, err
			}
			details = append(details, detail)
		}
		rows.Close()
		out[q] = strings.Join(details, "; ")
	}
	return out, nil
}

// queryRecorder keeps the SQL of each query run. A list runs its count
// beside its page, on another goroutine, hence the lock.
type queryRecorder struct {
	mu      sync.Mutex
	queries []string
}

func (r *queryRecorder) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (r *queryRecorder) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.queries = append(r.queries, e.Query)
}

// The SQL of the look-ups of a write's warnings.
const (
	ExpensesLikeSQL     = expensesLikeSQL
	OpenBillsDueSQL     = openBillsDueSQL
	OpenInstancesDueSQL = openInstancesDueSQL
	StatementCursorsSQL = statementCursorsSQL
	BacklogRowsWhere    = backlogRowsWhere
)

// PlanOf is the query plan of query with args, its steps joined by "; ".
func (db *DB) PlanOf(ctx context.Context, query string, args ...any) (string, error) {
	rows, err := db.reader.QueryContext(ctx, "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var details []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return "", err
		}
		details = append(details, detail)
	}
	return strings.Join(details, "; "), rows.Err()
}

// LargeCacheSizes returns the writer's PRAGMA cache_size inside a write
// transaction before largeCache, under it, and after its restore.
func (db *DB) LargeCacheSizes(ctx context.Context) (sizes []string, err error) {
	err = db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		read := func() error {
			var v string
			err := tx.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&v)
			sizes = append(sizes, v)
			return err
		}
		if err := read(); err != nil {
			return err
		}
		restore := largeCache(ctx, tx)
		if err := read(); err != nil {
			return err
		}
		restore()
		return read()
	})
	return sizes, err
}

// SetVoidChunk makes VoidImported name at most n ids a statement until the
// test ends.
func SetVoidChunk(t testing.TB, n int) {
	old := voidChunk
	voidChunk = n
	t.Cleanup(func() { voidChunk = old })
}
