package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"github.com/finance-app/finance/finance"
)

// FileName is the database file inside the data directory.
const FileName = "finance.db"

//go:embed migrations/*.sql
var migrationFiles embed.FS

// DB is the database: one writer connection and a pool of readers.
type DB struct {
	path   string
	writer *bun.DB
	reader *bun.DB
	hot    hotStatements // prepared on the writer by the first Write
	reads  sync.Map      // SQL text -> *sql.Stmt prepared on the read pool (readStmt)
	creds  *credentialCache
	// lookups keeps the statement cursors and categories (lookups.go).
	lookups *lookupCache
	// commits runs the writes of tx on the writer, several per transaction
	// when they arrive together (group commit).
	commits *committer
	turns   *turns // the "-writers" file the committer takes turns through
	// writes is what the writes found of the disk (WriteFailure).
	writes writeHealth

	dialect dialect // sqlite unless opened by a postgres:// URL (postgres.go)
}

// busyTimeoutMS bounds how long a connection waits for another process (the
// CLI while the server runs, a backup) to release the write lock.
const busyTimeoutMS = 10000

// Open opens (creating if needed) the database at path. It does not migrate;
// call Migrate before use.
func Open(path string) (*DB, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: create data directory: %w", err)
	}
	if err := createOwnerOnly(path); err != nil {
		return nil, fmt.Errorf("store: create %s: %w", path, err)
	}
	inUse, err := holdInUse(path, lockSharedNow, ErrRestoring)
	if err != nil {
		return nil, err
	}
	t, err := openTurns(path)
	if err != nil {
		inUse.Close()
		return nil, fmt.Errorf("store: open %s-writers: %w", path, err)
	}
	t.inUse = inUse
	ids := new(idSwitch)
	wdb, err := openWriter(path, ids)
	if err != nil {
		t.close()
		return nil, err
	}
	if err := ids.read(wdb); err != nil {
		wdb.Close()
		t.close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	rdb := openSQLite(path+"?"+commonPragmas+"&_pragma=query_only(1)"+readerCachePragmas, ids)
	readers := max(4, 2*runtime.GOMAXPROCS(0))
	rdb.SetMaxOpenConns(readers)
	rdb.SetMaxIdleConns(readers)
	rdb.SetConnMaxIdleTime(0)
	rdb.SetConnMaxLifetime(0)
	local := changesFor(path)
	creds, err := newCredentialCache(path, commonPragmas, local, ids)
	if err != nil {
		t.close()
		return nil, errors.Join(fmt.Errorf("store: open credential cache: %w", err), rdb.Close(), wdb.Close())
	}
	db := &DB{
		path:    path,
		writer:  bun.NewDB(wdb, newSQLiteDialect(ids)),
		reader:  bun.NewDB(rdb, newSQLiteDialect(ids)),
		creds:   creds,
		lookups: newLookupCache(local),
		turns:   t,
	}
	creds.commitSeen = db.lookups.drop
	db.commits = newCommitter(db.writer, t, &db.writes, &writeWatch{local: local, lookups: db.lookups})
	return db, nil
}

// commonPragmas are the connection settings of the writer and the readers.
var commonPragmas = fmt.Sprintf("_pragma=busy_timeout(%d)&_pragma=foreign_keys(1)", busyTimeoutMS) + timePragmas

// openWriter opens and connects the writer's pool of path: one connection,
// WAL, synchronous=FULL, BEGIN IMMEDIATE. Connecting it first switches the
// file to WAL before any reader opens it.
func openWriter(path string, ids *idSwitch) (*sql.DB, error) {
	// The writer keeps statement journals and temporary tables in memory,
	// and a small page cache that a large transaction may outgrow without
	// spilling (cache.go): billing a large statement backlog rewrites tens
	// of thousands of rows in one transaction, and spilling those pages to
	// temporary files and back costs more than the work itself.
	wdb := openSQLite(path+"?"+commonPragmas+
		"&_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=temp_store(2)"+writerCachePragmas+"&_txlock=immediate", ids)
	// One writer: SQLite allows one write transaction at a time anyway, and
	// queueing on database/sql's pool is cheaper and fairer than busy retries.
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	wdb.SetConnMaxIdleTime(0)
	if err := wdb.Ping(); err != nil {
		wdb.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return wdb, nil
}

// OpenPlain opens (creating) a scratch database at path the way the service
// opens its writer (see openWriter) and nothing more: no schema, no group
// commit, no turns with other processes. It is for measuring SQLite alone
// with the service's settings (the benchmark's baseline); the service never
// uses it.
func OpenPlain(path string) (*sql.DB, error) {
	if err := createOwnerOnly(path); err != nil {
		return nil, fmt.Errorf("store: create %s: %w", path, err)
	}
	return openWriter(path, new(idSwitch))
}

// RawTx runs fn in one write transaction, as every write of the service
// runs, and hands it the plain database/sql transaction. It is for programs
// that load large data sets straight into the tables (the benchmark's
// seeding), where going through the domain would take far longer than what
// they measure; the caller keeps the domain's rules, and the tables'
// triggers fire as on any write. The service never writes this way.
func (db *DB) RawTx(ctx context.Context, fn func(ctx context.Context, tx *sql.Tx) error) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error { return fn(ctx, tx.Tx) })
}

// createOwnerOnly creates the database file, empty and with mode 0600, unless
// it exists. SQLite would create it with 0644 (less the umask); and it
// creates the -wal and -shm files beside it with the database file's own
// mode, so creating the database first is the portable way to keep all three
// readable by their owner only. An empty file is a valid new database.
func createOwnerOnly(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil
	} else if err != nil {
		return err
	}
	return f.Close()
}

// Path returns the database file path.
func (db *DB) Path() string { return db.path }

// Size is the bytes the database takes on disk: its file, and its
// write-ahead log, which holds the newest writes until a checkpoint moves
// them into the file. It reads the files' sizes, never the database, so it
// answers at once however busy the database is. A file not there counts 0.
func (db *DB) Size() (file, wal int64) {
	size := func(path string) int64 {
		if fi, err := os.Stat(path); err == nil {
			return fi.Size()
		}
		return 0
	}
	return size(db.path), size(db.path + "-wal")
}

// Close closes both pools, once the writes being committed are answered.
func (db *DB) Close() error {
	db.commits.close()
	defer db.turns.close()
	var errs []error
	db.reads.Range(func(_, st any) bool {
		errs = append(errs, st.(*sql.Stmt).Close())
		return true
	})
	return errors.Join(append(errs, db.hot.close(), db.commits.watch.close(), db.creds.close(), db.reader.Close(),
		db.writer.Close())...)
}

// readStmt returns query prepared on the read pool, preparing it on first
// use. bun writes arguments into the SQL text, so every bun query is parsed
// anew; the few reads on every request's path (credential lookups) use
// constant SQL with bound arguments instead. database/sql prepares a Stmt
// lazily on each pooled connection, so one Stmt serves all readers.
func (db *DB) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := db.reads.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := db.reader.DB.PrepareContext(ctx, db.dialect.bind(query))
	if err != nil {
		return nil, err
	}
	if prev, loaded := db.reads.LoadOrStore(query, st); loaded {
		_ = st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// ReadAnsweredSince reports whether the database answered a read begun at
// or after t: the credentials' freshness check (at most every
// credentialRecheck, on authenticated requests) or a Ping. Health asks it
// about the last second instead of reading the database on every request.
func (db *DB) ReadAnsweredSince(t time.Time) bool {
	return db.creds.answered.Load() >= monoSince(t)
}

// Ping checks that the database answers a query.
func (db *DB) Ping(ctx context.Context) error {
	st, err := db.readStmt(ctx, "SELECT 1")
	if err != nil {
		return err
	}
	began := monoSince(time.Now())
	var one int
	if err := st.QueryRowContext(ctx).Scan(&one); err != nil {
		return err
	}
	for a := db.creds.answered.Load(); a < began && !db.creds.answered.CompareAndSwap(a, began); {
		a = db.creds.answered.Load()
	}
	return nil
}

// Warm opens a connection of the read pool and the credential check's own
// connection, and runs the check once, so that the first request does not
// wait for them: each new SQLite connection reads the whole schema before
// its first statement, a few milliseconds apiece. serve runs it in the
// background while it builds the routes, after the migrations. It only
// saves time, so it reports nothing: a request meets the same failure.
func (db *DB) Warm(ctx context.Context) {
	_ = db.Ping(ctx)
	_, _ = db.creds.fresh(ctx)
}

// Migrate applies every migration not yet applied: the embedded SQL files
// and the table rebuilds (rebuild.go). Migrations are append-only; each runs
// in its own transaction and is marked applied only when it succeeds.
func (db *DB) Migrate(ctx context.Context) error { return db.migrateThrough(ctx, "") }

// migrateThrough applies the migrations named up to last (all of them when
// last is empty), and those named in also (tests of an earlier schema use it
// for a migration today's writes need and the tested one does not touch).
func (db *DB) migrateThrough(ctx context.Context, last string, also ...string) error {
	// A database a newer finance upgraded is left as it is.
	if s, err := db.Schema(ctx); err != nil {
		return err
	} else if err := s.newer("the database"); err != nil {
		return err
	}
	all, err := db.dialect.migrations()
	if err != nil {
		return err
	}
	migrations := migrate.NewMigrations()
	for _, m := range all.Sorted() {
		if last == "" || m.Name <= last || slices.Contains(also, m.Name) {
			migrations.Add(m)
		}
	}
	m := migrate.NewMigrator(db.writer, migrations, migrate.WithMarkAppliedOnSuccess(true))
	if err := m.Init(ctx); err != nil {
		return fmt.Errorf("store: init migrations: %w", err)
	}
	if _, err := m.Migrate(ctx); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	return nil
}

// tx runs fn in an IMMEDIATE transaction on the writer: all of it commits
// or none of it does, and tx returns once it is durable. Writes that arrive
// together share one transaction, each in a savepoint of its own (see
// committer). Under a write scope (WriteScope) fn joins the scope's
// transaction instead, which commits or rolls back as a whole.
func (db *DB) tx(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	if sc := db.scope(ctx); sc != nil {
		err := fn(ctx, sc.tx)
		if err != nil && sc.failed == nil {
			sc.failed = err
		}
		return storageFull(err)
	}
	return storageFull(db.commits.run(ctx, fn))
}

// notFound maps sql.ErrNoRows to a finance.ErrNotFound naming what.
func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return finance.NotFound(what)
	}
	return err
}
