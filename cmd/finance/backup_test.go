package main

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	_ "modernc.org/sqlite" // the tests write as a newer finance would

	"github.com/finance-app/finance/store"
)

// finance restore puts a backup back and keeps what was there; it refuses,
// with its own exit code and changing nothing, a file that is not a sound
// backup (3) and a database some process has open (5). On Postgres both
// backup and restore are refused and nothing changes.
func TestRestoreCommand(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	backup := filepath.Join(t.TempDir(), "finance.backup")
	if onPostgres() {
		checkRefusedOnPostgres(t, runCLI(t, dir, "", "backup", backup))
		checkNoFile(t, backup)
		checkRefusedOnPostgres(t, runCLI(t, dir, "", "restore", backup))
		if n := countUsers(t, dir); n != 1 {
			t.Errorf("after a refused restore the database holds %d users, want the 1 it had", n)
		}
		checkNoFile(t, filepath.Join(dir, store.FileName))
		return
	}
	mustRun(t, dir, "", "backup", backup)
	createUser(t, dir, "ben@example.com")

	refused := func(code int, wantErr string, file string) {
		t.Helper()
		r := runCLI(t, dir, "", "restore", file)
		if r.code != code || r.stdout != "" || !strings.HasPrefix(r.stderr, "error: restore: ") || !strings.Contains(r.stderr, wantErr) {
			t.Errorf("restore %s: exit %d, stdout %q, stderr %q; want exit %d and %q", file, r.code, r.stdout, r.stderr, code, wantErr)
		}
		if n := countUsers(t, dir); n != 2 {
			t.Errorf("after a refused restore the database holds %d users, want the 2 it had", n)
		}
	}
	db := openStore(t, dir) // as a running server holds it
	refused(5, "the database is in use by a running finance", backup)
	db.Close()
	notABackup := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notABackup, []byte("not a backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	refused(3, "not a sound finance backup: "+notABackup+" is not a SQLite database", notABackup)
	refused(3, "not a sound finance backup", filepath.Join(t.TempDir(), "missing.db"))

	r := mustRun(t, dir, "", "restore", backup)
	if !regexp.MustCompile(`^restored .+ into .+finance\.db \(schema \d{14}, 0 media files\)\n` +
		`the database that was there is kept as .+finance\.db\.before-restore-\d{8}T\d{6}\.\d{3}Z\n$`).MatchString(r.stdout) {
		t.Errorf("restore stdout = %q", r.stdout)
	}
	if n := countUsers(t, dir); n != 1 {
		t.Errorf("the restored database holds %d users, want the 1 of the backup", n)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "finance.db.before-restore-*"))
	if len(kept) != 1 {
		t.Fatalf("kept databases: %q", kept)
	}
	if err := store.IntegrityCheck(context.Background(), kept[0]); err != nil {
		t.Error(err)
	}
	checkOwnerOnly(t, filepath.Join(dir, store.FileName))
	mustFail(t, dir, "", "accepts 1 arg", "restore")
}

// recordFutureMigration marks the data directory's database as upgraded by
// a newer finance: a migration this binary does not know is recorded.
func recordFutureMigration(t *testing.T, dataDir, name string) {
	t.Helper()
	if onPostgres() {
		psql(t, dataDir, "INSERT INTO bun_migrations (name, group_id, migrated_at) VALUES ('"+name+"', 99, now())")
		return
	}
	conn, err := sql.Open("sqlite", filepath.Join(dataDir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Exec("INSERT INTO bun_migrations (name, group_id, migrated_at) VALUES (?, 99, CURRENT_TIMESTAMP)", name); err != nil {
		t.Fatal(err)
	}
}

// An older finance started on a database a newer one upgraded refuses it,
// naming both versions (exit 4), whichever command starts it, serve
// included, and writes nothing: no pre-migrate backup, no data directory
// changes. A backup of such a database is refused by restore the same way
// (on SQLite: on Postgres there is no backup command).
func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	const future = "29991231000100"
	recordFutureMigration(t, dir, future)
	before := databaseState(t, dir)
	want := regexp.MustCompile(`(?m)^error: the database's schema is version ` + future + `, newer than this finance's \d{14} ` +
		`\(1 migration\(s\) it does not know, such as ` + future + `\): it was written by a newer finance; run that version`)
	for _, args := range [][]string{{"migrate"}, {"serve", "--addr", "127.0.0.1:0"}, {"users", "list"}} {
		// A serve that wrongly starts stops at the deadline and fails the
		// test on its exit code, instead of hanging it.
		ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
		var stdout, stderr strings.Builder
		code := run(ctx, append(withDatabaseURL(t, dir, args), "--data-dir", dir), strings.NewReader(""), &stdout, &stderr)
		cancel()
		r := result{code, stdout.String(), stderr.String()}
		if r.code != 4 || !want.MatchString(r.stderr) {
			t.Errorf("finance %s: exit %d, stderr %q; want exit 4 and %s", args[0], r.code, r.stderr, want)
		}
	}
	if after := databaseState(t, dir); before != after {
		t.Error("a refused start changed the database")
	}
	if _, err := os.Stat(filepath.Join(dir, "backups")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused start wrote a backup directory (%v)", err)
	}
	if onPostgres() {
		return // no backup to restore: backup and restore are SQLite's (TestRestoreCommand)
	}

	// Its backup, taken by the newer finance, is refused by this one's restore.
	backup := filepath.Join(t.TempDir(), "newer.db")
	mustRun(t, dir, "", "backup", backup)
	other := t.TempDir()
	createUser(t, other, "ben@example.com")
	r := runCLI(t, other, "", "restore", backup)
	if r.code != 4 || !strings.Contains(r.stderr, "the backup's schema is version "+future) {
		t.Errorf("restore of a newer backup: exit %d, stderr %q", r.code, r.stderr)
	}
	if n := countUsers(t, other); n != 1 {
		t.Errorf("a refused restore left %d users, want 1", n)
	}
}

// databaseState is what a refused start must leave as it was: on SQLite the
// database file's bytes, on Postgres the migrations recorded and the users.
func databaseState(t *testing.T, dataDir string) string {
	t.Helper()
	if onPostgres() {
		return psql(t, dataDir, "SELECT name, group_id FROM bun_migrations ORDER BY name") +
			psql(t, dataDir, "SELECT email, password_hash, updated_at FROM users ORDER BY email")
	}
	b, err := os.ReadFile(filepath.Join(dataDir, store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
