package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// openPostgresTwice opens two handles on one new Postgres database, as two
// replicas of the service would: each keeps its own caches and learns of
// the other's writes only from the database. It skips without a server.
func openPostgresTwice(t *testing.T) (a, b *store.DB) {
	t.Helper()
	server, ok := store.TestPostgresURL()
	if !ok {
		t.Skip("no Postgres server: set FINANCE_TEST_POSTGRES_URL, or run under pg_virtualenv")
	}
	u, drop, err := store.NewTestPostgresDatabase(context.Background(), server)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("drop the test database: %v", err)
		}
	})
	open := func() *store.DB {
		db, err := store.OpenURL(u)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		if err := db.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return db
	}
	return open(), open()
}

// TestKeyRevokedThroughAnotherHandleOnPostgres: a key revoked through one
// handle on a Postgres database is refused by another that had it cached,
// from at most a second after the revocation on (the credentials check
// reads the generation row, Postgres having no data_version).
func TestKeyRevokedThroughAnotherHandleOnPostgres(t *testing.T) {
	ctx := context.Background()
	a, b := openPostgresTwice(t)
	svcA, svcB := newAuthService(t, a), newAuthService(t, b)
	u, err := svcA.CreateUser(ctx, auth.CreateUserRequest{Email: "a@example.com", Plan: finance.PlanPro, Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	k, key, err := svcA.CreateKey(ctx, auth.CreateKeyRequest{UserID: u.ID, Name: "k", Scopes: []string{"finance:read"}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second is served from A's cache
		if _, err := svcA.Authenticate(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	before := a.CredentialQueries()
	if _, err := svcA.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	if n := a.CredentialQueries() - before; n != 0 {
		t.Fatalf("the key was read %d times, want it cached", n)
	}
	if _, err := svcB.RevokeKey(ctx, "", k.ID); err != nil {
		t.Fatal(err)
	}
	withinASecond(t, time.Now(), "the revoked key refused by A", func() (bool, error) {
		_, err := svcA.Authenticate(ctx, key)
		if errors.Is(err, auth.ErrUnauthenticated) {
			return true, nil
		}
		return false, err
	})
}
