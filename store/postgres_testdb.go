package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
)

// Throwaway Postgres databases for tests. They live in this package because
// only store may speak to Postgres; internal/testkit hands them to the tests
// of every package. The service never calls these.

// TestPostgresURL is the URL of the Postgres server tests may use:
// FINANCE_TEST_POSTGRES_URL, or, when PGHOST is set (pg_virtualenv sets it
// and the other libpq variables), postgres:// with those variables filling
// in the rest. ok is false when there is none.
func TestPostgresURL() (serverURL string, ok bool) {
	if u := os.Getenv("FINANCE_TEST_POSTGRES_URL"); u != "" {
		return u, true
	}
	if os.Getenv("PGHOST") != "" {
		return "postgres://", true
	}
	return "", false
}

// pgTemplate is a database migrated once per test process, which each
// throwaway database copies (CREATE DATABASE … TEMPLATE): copying takes a
// fraction of the time of running the schema.
var pgTemplate struct {
	once sync.Once
	name string
	err  error
}

// NewTestPostgresDatabase creates a migrated database of its own on the
// server at serverURL and returns its URL, and drop, which removes it.
func NewTestPostgresDatabase(ctx context.Context, serverURL string) (dbURL string, drop func() error, err error) {
	admin, err := sql.Open("pgx", serverURL)
	if err != nil {
		return "", nil, err
	}
	defer admin.Close()
	pgTemplate.once.Do(func() { pgTemplate.name, pgTemplate.err = makeTestTemplate(ctx, admin, serverURL) })
	if pgTemplate.err != nil {
		return "", nil, fmt.Errorf("store: migrated template database: %w", pgTemplate.err)
	}
	name := "finance_test_" + randomName()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name+" TEMPLATE "+pgTemplate.name); err != nil {
		return "", nil, err
	}
	dbURL, err = withDatabase(serverURL, name)
	if err != nil {
		return "", nil, err
	}
	drop = func() error {
		a, err := sql.Open("pgx", serverURL)
		if err != nil {
			return err
		}
		defer a.Close()
		_, err = a.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return err
	}
	return dbURL, drop, nil
}

// makeTestTemplate creates and migrates the template database.
func makeTestTemplate(ctx context.Context, admin *sql.DB, serverURL string) (string, error) {
	name := "finance_template_" + randomName()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		return "", err
	}
	u, err := withDatabase(serverURL, name)
	if err != nil {
		return "", err
	}
	db, err := OpenURL(u)
	if err != nil {
		return "", err
	}
	err = db.Migrate(ctx)
	return name, errors.Join(err, db.Close())
}

// withDatabase is serverURL naming database name.
func withDatabase(serverURL, name string) (string, error) {
	u, err := url.Parse(serverURL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	return u.String(), nil
}

func randomName() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
