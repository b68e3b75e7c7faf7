package store

import (
	"strings"
	"testing"
)

func TestBindPlaceholders(t *testing.T) {
	for _, c := range []struct{ name, in, sqlite, postgres string }{
		{"plain", "SELECT a FROM t WHERE b = ? AND c = ?", "SELECT a FROM t WHERE b = ? AND c = ?", "SELECT a FROM t WHERE b = $1 AND c = $2"},
		{"numbered and repeated", "VALUES (?1, ?2, (SELECT seq FROM users WHERE id = ?2))", "VALUES (?1, ?2, (SELECT seq FROM users WHERE id = ?2))",
			"VALUES ($1, $2, (SELECT seq FROM users WHERE id = $2))"},
		{"quoted", `SELECT '?' || "a?" FROM t WHERE b = ?`, `SELECT '?' || "a?" FROM t WHERE b = ?`, `SELECT '?' || "a?" FROM t WHERE b = $1`},
		{"none", "SELECT 1", "SELECT 1", "SELECT 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := sqliteDialect.bind(c.in); got != c.sqlite {
				t.Errorf("sqlite: got %q, want %q", got, c.sqlite)
			}
			if got := postgresDialect.bind(c.in); got != c.postgres {
				t.Errorf("postgres: got %q, want %q", got, c.postgres)
			}
		})
	}
}

func TestOpenURLRefusesOtherSchemes(t *testing.T) {
	for _, u := range []string{"mysql://u:secret@h/db", "sqlite:", "finance.db"} {
		db, err := OpenURL(u)
		if err == nil {
			db.Close()
			t.Errorf("OpenURL(%q): no error", u)
			continue
		}
		if got := err.Error(); strings.Contains(got, "secret") {
			t.Errorf("OpenURL(%q): the message shows the password: %s", u, got)
		}
	}
}

func TestOpenURLSQLite(t *testing.T) {
	path := t.TempDir() + "/finance.db"
	db, err := OpenURL("sqlite:" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.IsPostgres() || db.Path() != path {
		t.Errorf("OpenURL(sqlite:%s): postgres %v, path %q", path, db.IsPostgres(), db.Path())
	}
}

func TestWithRuntimeParam(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"postgres://", "postgres://?default_transaction_read_only=on"},
		{"postgres:///finance", "postgres:///finance?default_transaction_read_only=on"},
		{"postgres://u:p@db:5432/finance?sslmode=require", "postgres://u:p@db:5432/finance?sslmode=require&default_transaction_read_only=on"},
		{"postgres://db/finance?default_transaction_read_only=off", "postgres://db/finance?default_transaction_read_only=off"},
	} {
		got, err := withRuntimeParam(c.in, "default_transaction_read_only", "on")
		if err != nil || got != c.want {
			t.Errorf("withRuntimeParam(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
