package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/migrate"
)

// Postgres. The same binary runs on Postgres when it is given a database URL
// (postgres://…) instead of a data directory's file; docs/architecture.md
// "Postgres" has the decisions. What differs from SQLite lives here and in
// dialect.go:
//
//   - The schema starts at the SQLite schema of migration pgBaseline, written
//     for Postgres in one file (migrations_postgres/); each migration after it
//     is a pair of files of the same name, one in migrations/ and one in
//     migrations_postgres/ (TestMigrationsArePaired).
//   - A write is one plain transaction at SERIALIZABLE, retried when Postgres
//     refuses it for a conflict with a concurrent one: no group commit and no
//     turns through a lock file, which are SQLite's.
//   - The credentials' freshness check reads the generation row itself: there
//     is no PRAGMA data_version.

// pgBaseline is the newest SQLite migration the Postgres baseline schema
// (migrations_postgres/20261216000300_baseline.tx.up.sql) equals.
const pgBaseline = "20261216000300"

//go:embed migrations_postgres/*.sql
var pgMigrationFiles embed.FS

// DatabaseURL forms.
const (
	sqliteScheme = "sqlite:"
)

// OpenURL opens the database that rawURL names: sqlite:PATH (the file at
// PATH, as Open) or postgres://… / postgresql://… (a Postgres database,
// connection settings as libpq takes them; unset ones come from PGHOST,
// PGUSER and the rest). It does not migrate; call Migrate before use.
func OpenURL(rawURL string) (*DB, error) {
	switch {
	case strings.HasPrefix(rawURL, sqliteScheme):
		path := strings.TrimPrefix(strings.TrimPrefix(rawURL, sqliteScheme), "//")
		if path == "" {
			return nil, fmt.Errorf("store: database URL %q names no file", rawURL)
		}
		return Open(path)
	case strings.HasPrefix(rawURL, "postgres://"), strings.HasPrefix(rawURL, "postgresql://"):
		return openPostgres(rawURL)
	default:
		return nil, fmt.Errorf("store: database URL %q: want sqlite:PATH or postgres://…", redactURL(rawURL))
	}
}

// IsPostgres reports whether db runs on Postgres.
func (db *DB) IsPostgres() bool { return db.dialect == postgresDialect }

// redactURL is rawURL without its password, for messages.
func redactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// withRuntimeParam adds a run-time parameter to a postgres URL: pgx sends
// query parameters it does not know to the server as settings.
// The parameter is appended to the text: url.URL would write postgres://
// with no host (libpq's variables then name it) as postgres: alone.
func withRuntimeParam(rawURL, name, value string) (string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", err
	}
	if u.Query().Has(name) {
		return rawURL, nil
	}
	sep := "?"
	if strings.Contains(rawURL, "?") {
		sep = "&"
	}
	return rawURL + sep + url.QueryEscape(name) + "=" + url.QueryEscape(value), nil
}

// openPostgres opens the writer pool, the read pool (read-only sessions) and
// the credential check's connection on the database rawURL names.
func openPostgres(rawURL string) (*DB, error) {
	open := func(u string, conns int) (*sql.DB, error) {
		d, err := sql.Open("pgx", u)
		if err != nil {
			return nil, err
		}
		d.SetMaxOpenConns(conns)
		d.SetMaxIdleConns(conns)
		d.SetConnMaxIdleTime(5 * time.Minute)
		return d, nil
	}
	conns := max(4, 2*runtime.GOMAXPROCS(0))
	wdb, err := open(rawURL, conns)
	if err != nil {
		return nil, fmt.Errorf("store: open writer: %w", err)
	}
	if err := wdb.Ping(); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", redactURL(rawURL), err)
	}
	readOnly, err := withRuntimeParam(rawURL, "default_transaction_read_only", "on")
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("store: database URL: %w", err)
	}
	rdb, err := open(readOnly, conns)
	if err != nil {
		wdb.Close()
		return nil, fmt.Errorf("store: open readers: %w", err)
	}
	watch, err := open(readOnly, 1)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("store: open credential cache: %w", err), rdb.Close(), wdb.Close())
	}
	local := new(processChanges) // each handle on Postgres is a process of its own
	creds := newCredentialCacheOn(watch, local)
	creds.generationOnly = true
	db := &DB{
		dialect: postgresDialect,
		writer:  bun.NewDB(wdb, pgdialect.New()),
		reader:  bun.NewDB(rdb, pgdialect.New()),
		creds:   creds,
		lookups: newLookupCache(local),
	}
	db.hot.dialect = postgresDialect
	creds.commitSeen = db.lookups.drop
	db.commits = newPlainCommitter(db.writer, &db.writes, &writeWatch{local: local, lookups: db.lookups})
	return db, nil
}

// pgMigrations are the Postgres migrations: the baseline, then one file for
// each SQLite migration after it.
func pgMigrations() (*migrate.Migrations, error) {
	all := migrate.NewMigrations()
	sub, err := fs.Sub(pgMigrationFiles, "migrations_postgres")
	if err != nil {
		return nil, err
	}
	if err := all.Discover(sub); err != nil {
		return nil, fmt.Errorf("store: discover Postgres migrations: %w", err)
	}
	return all, nil
}

// migrations are the dialect's migrations.
func (d dialect) migrations() (*migrate.Migrations, error) {
	if d == postgresDialect {
		return pgMigrations()
	}
	return allMigrations()
}

// hasMigrationsTableSQL counts the bun_migrations tables: one once the
// database was ever migrated.
func (d dialect) hasMigrationsTableSQL() string {
	if d == postgresDialect {
		return "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'bun_migrations'"
	}
	return "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'bun_migrations'"
}

// retryPause is a random pause before attempt+1, its bound doubling with
// each attempt up to maxRetryPause, so that writers that collided on the
// same rows (a user's kept totals) spread out rather than collide again in
// step.
func retryPause(attempt int) time.Duration {
	bound := min(time.Millisecond<<min(attempt, 16), maxRetryPause)
	return time.Duration(rand.Int64N(int64(bound)))
}

// maxRetryPause bounds the pause between two attempts of a write.
const maxRetryPause = 64 * time.Millisecond

// maxWriteAttempts bounds how often a write Postgres refused for a conflict
// with a concurrent one (serialization failure, deadlock) is run again.
const maxWriteAttempts = 50

// newPlainCommitter is the committer on Postgres: each write is a
// transaction of its own, at SERIALIZABLE, run at once on a connection of
// the writer pool; writes run side by side and Postgres orders them.
func newPlainCommitter(writer *bun.DB, health *writeHealth, watch *writeWatch) *committer {
	c := &committer{writer: writer, health: health, watch: watch, plain: true,
		quit: make(chan struct{}), stopped: make(chan struct{})}
	close(c.stopped)
	return c
}

// runPlain runs fn in one SERIALIZABLE transaction and commits it, running
// the whole of it again when Postgres refused it for a conflict with a
// concurrent transaction (40001, 40P01): SQLite ran every write alone, and
// SERIALIZABLE keeps the writes' read-then-write checks (a payment against
// what is still due, an idempotency key, a single-use code) as correct as
// that. fn may therefore run more than once; what it changes outside the
// transaction must be harmless to repeat (the caches' marks are).
func (c *committer) runPlain(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	select {
	case <-c.quit:
		return errClosed
	default:
	}
	// Like SQLite's batch, a write once begun is not cancelled with the
	// request that asked for it.
	ctx = context.WithoutCancel(ctx)
	for attempt := 1; ; attempt++ {
		standing := c.health.failure.Load()
		err := c.plainOnce(ctx, fn)
		if err != nil && attempt < maxWriteAttempts && retryable(err) {
			time.Sleep(retryPause(attempt))
			continue
		}
		if err == nil {
			c.health.committed(standing)
		}
		c.health.failed(err)
		return err
	}
}

// plainOnce is one attempt of runPlain.
func (c *committer) plainOnce(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) (err error) {
	tx, err := c.writer.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelSerializable})
	if err != nil {
		return err
	}
	defer func() {
		if p := recover(); p != nil {
			_ = tx.Rollback()
			c.watch.endedPlain(true)
			panic(p)
		}
	}()
	if err := fn(ctx, tx); err != nil {
		_ = tx.Rollback()
		c.watch.endedPlain(false)
		return err
	}
	var moved bool
	moved, err = c.watch.movedIn(ctx, tx.Tx)
	if err != nil {
		// At SERIALIZABLE a read may be refused too (40001): the whole
		// write runs again.
		_ = tx.Rollback()
		c.watch.endedPlain(true)
		return err
	}
	start := time.Now()
	if err := tx.Commit(); err != nil {
		c.watch.endedPlain(moved)
		return err
	}
	if o := c.observer.Load(); o != nil {
		(*o).Committed(1, time.Since(start))
	}
	c.watch.endedPlain(moved)
	return nil
}

// retryable reports whether err is Postgres refusing a transaction for a
// conflict with a concurrent one, so that running it again may succeed.
func retryable(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (pg.Code == "40001" || pg.Code == "40P01")
}

// pgWatchState is writeWatch's state when transactions run side by side
// (Postgres): the generation the last transaction to look saw.
type pgWatchState struct {
	mu    sync.Mutex
	last  int64
	known bool
}

// movedIn reads the credentials generation in tx, just before its commit,
// and reports whether it differs from what the last transaction saw: tx
// moved it (it sees its own change), or another did. A transaction that
// moved it always differs, so no change is missed; one that merely saw
// another's change counts it again, which costs the caches a read.
func (w *writeWatch) movedIn(ctx context.Context, tx *sql.Tx) (bool, error) {
	var n int64
	if err := tx.QueryRowContext(ctx, "SELECT n FROM credential_generation WHERE id = 1").Scan(&n); err != nil {
		return true, err
	}
	w.pg.mu.Lock()
	defer w.pg.mu.Unlock()
	moved := !w.pg.known || n != w.pg.last
	w.pg.last, w.pg.known = n, true
	return moved, nil
}

// endedPlain bumps the counters once a transaction on Postgres ended. The
// lookups are dropped after every write: with transactions side by side,
// which one marked them cannot be told apart (lookupCache.pending is one
// flag), and dropping too often is never wrong.
func (w *writeWatch) endedPlain(moved bool) {
	if moved {
		w.local.credentials.Add(1)
	}
	w.lookups.pending.Store(false)
	w.local.lookups.Add(1)
}
