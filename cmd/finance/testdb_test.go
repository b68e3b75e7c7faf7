package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/finance-app/finance/store"
)

// With FINANCE_TEST_DATABASE=postgres the CLI's tests run on Postgres: each
// data directory a test uses gets a fresh Postgres database of its own in
// place of its finance.db, which every command line, every `finance serve`
// and every store the test opens on that directory use (--database-url).
// The tests make their data directories with t.TempDir() as on SQLite; the
// database is made the first time a directory is used.

// onPostgres reports whether the tests run on Postgres.
func onPostgres() bool { return os.Getenv("FINANCE_TEST_DATABASE") == "postgres" }

// dataDirDatabases maps a data directory to the URL of its Postgres
// database. atExit holds the drops of databases whose directory was first
// used in a subtest: the directory may be its parent's, which goes on using
// it after the subtest ends, so they are dropped when the test binary ends.
var dataDirDatabases struct {
	sync.Mutex
	urls   map[string]string
	atExit []func() error
}

// databaseURL is the --database-url of dataDir: on SQLite "" (the data
// directory's finance.db), on Postgres the directory's database, created
// on first use and dropped when the test that first used it ends.
func databaseURL(t testing.TB, dataDir string) string {
	t.Helper()
	if !onPostgres() || dataDir == "" {
		return ""
	}
	key := filepath.Clean(dataDir)
	dataDirDatabases.Lock()
	defer dataDirDatabases.Unlock()
	if u, ok := dataDirDatabases.urls[key]; ok {
		return u
	}
	server, ok := store.TestPostgresURL()
	if !ok {
		t.Fatal("FINANCE_TEST_DATABASE=postgres, but no Postgres server: set FINANCE_TEST_POSTGRES_URL or run under pg_virtualenv")
	}
	u, drop, err := store.NewTestPostgresDatabase(context.Background(), server)
	if err != nil {
		t.Fatalf("Postgres database for %s: %v", dataDir, err)
	}
	if dataDirDatabases.urls == nil {
		dataDirDatabases.urls = map[string]string{}
	}
	dataDirDatabases.urls[key] = u
	if strings.Contains(t.Name(), "/") {
		dataDirDatabases.atExit = append(dataDirDatabases.atExit, drop)
		return u
	}
	t.Cleanup(func() {
		dataDirDatabases.Lock()
		delete(dataDirDatabases.urls, key)
		dataDirDatabases.Unlock()
		if err := drop(); err != nil {
			t.Errorf("drop the Postgres database of %s: %v", dataDir, err)
		}
	})
	return u
}

// dropDataDirDatabases drops the databases left for the end of the run.
func dropDataDirDatabases() error {
	dataDirDatabases.Lock()
	defer dataDirDatabases.Unlock()
	var errs []error
	for _, drop := range dataDirDatabases.atExit {
		errs = append(errs, drop())
	}
	dataDirDatabases.atExit = nil
	return errors.Join(errs...)
}

// withDatabaseURL is args with --database-url naming dataDir's database on
// Postgres, unless args name a database themselves.
func withDatabaseURL(t testing.TB, dataDir string, args []string) []string {
	t.Helper()
	if slices.Contains(args, "--database-url") {
		return args
	}
	if u := databaseURL(t, dataDir); u != "" {
		return append(slices.Clip(args), "--database-url", u)
	}
	return args
}

// setDatabaseEnv makes cmd, a `finance serve` (or a shell that runs one) on
// dataDir, use dataDir's database on Postgres, through
// FINANCE_DATABASE_URL: a shell passes the environment on unchanged.
func setDatabaseEnv(t testing.TB, cmd *exec.Cmd, dataDir string) {
	t.Helper()
	if !onPostgres() || slices.Contains(cmd.Args, "--database-url") {
		return
	}
	if dataDir == "" {
		t.Fatalf("on Postgres a server's data directory must be its --data-dir, to find its database: %q", cmd.Args)
	}
	u := databaseURL(t, dataDir)
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, "FINANCE_DATABASE_URL="+u)
}

// flagValue is the value of --name in args, or "".
func flagValue(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
		if v, ok := strings.CutPrefix(a, name+"="); ok {
			return v
		}
	}
	return ""
}

// skipOnPostgres skips a test that is about SQLite's file itself, saying why.
func skipOnPostgres(t testing.TB, why string) {
	t.Helper()
	if onPostgres() {
		t.Skip("SQLite only: " + why)
	}
}

// openDataDirStore opens dataDir's database, not migrated, as the CLI
// finds it: finance.db in it, or its Postgres database.
func openDataDirStore(t testing.TB, dataDir string) (*store.DB, error) {
	t.Helper()
	if u := databaseURL(t, dataDir); u != "" {
		return store.OpenURL(u)
	}
	return store.Open(filepath.Join(dataDir, store.FileName))
}

// refusedOnPostgres is the reason backup and restore give on Postgres.
const refusedOnPostgres = "backup and restore copy SQLite's database file; on Postgres use its own tools (pg_dump, pg_restore)"

// checkRefusedOnPostgres checks that r, a backup or restore on Postgres,
// was refused: exit 1, nothing on stdout, and the reason on stderr.
func checkRefusedOnPostgres(t testing.TB, r result) {
	t.Helper()
	if r.code != 1 || r.stdout != "" || r.stderr != "error: "+refusedOnPostgres+"\n" {
		t.Errorf("on Postgres: exit %d, stdout %q, stderr %q; want exit 1 and %q", r.code, r.stdout, r.stderr, refusedOnPostgres)
	}
}

// checkNoFile fails if path exists.
func checkNoFile(t testing.TB, path string) {
	t.Helper()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s exists (%v), want no such file", path, err)
	}
}

// psql runs query on dataDir's Postgres database with psql (the tests'
// Postgres server comes with it) and returns its rows, one a line, fields
// apart with |. The store has no way to run raw SQL outside its own
// tests, and only store may import the Postgres driver.
func psql(t testing.TB, dataDir, query string) string {
	t.Helper()
	out, err := exec.Command("psql", "--no-psqlrc", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-d", databaseURL(t, dataDir), "-c", query).CombinedOutput()
	if err != nil {
		t.Fatalf("psql %q: %v\n%s", query, err, out)
	}
	return string(out)
}
