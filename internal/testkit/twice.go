package testkit

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/finance-app/finance/store"
)

// OpenTwice opens two handles on one new migrated database, as two replicas
// of the service (or the server and the CLI) would: each keeps its own
// caches and learns of the other's writes only from the database. On
// SQLite they are two Opens of one file; with FINANCE_TEST_DATABASE=postgres,
// two OpenURLs of one Postgres database of their own (OpenPostgres's
// server), dropped when the test ends.
func OpenTwice(t testing.TB) (a, b *store.DB) {
	t.Helper()
	ctx := context.Background()
	open := func(fn func() (*store.DB, error)) *store.DB {
		db, err := fn()
		if err != nil {
			t.Fatalf("open: %v", err)
		}
		t.Cleanup(func() { _ = db.Close() })
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("Migrate: %v", err)
		}
		return db
	}
	if os.Getenv("FINANCE_TEST_DATABASE") != "postgres" {
		path := filepath.Join(t.TempDir(), store.FileName)
		fn := func() (*store.DB, error) { return store.Open(path) }
		return open(fn), open(fn)
	}
	server, ok := store.TestPostgresURL()
	if !ok {
		t.Fatal("FINANCE_TEST_DATABASE=postgres, but no Postgres server: set FINANCE_TEST_POSTGRES_URL or run under pg_virtualenv")
	}
	u, drop, err := store.NewTestPostgresDatabase(ctx, server)
	if err != nil {
		t.Fatalf("Postgres test database: %v", err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("drop the Postgres test database: %v", err)
		}
	})
	fn := func() (*store.DB, error) { return store.OpenURL(u) }
	return open(fn), open(fn)
}
