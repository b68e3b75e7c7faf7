package store_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// Scheduled backups keep the newest --backup-keep of their own files and
// never touch anything else in the directory: a person's own copies, the
// pre-migrate backups, files whose names only look alike. A partial file a
// crash left is removed by the next backup. Every backup is whole, checked
// and readable by its owner only.
func TestScheduledBackupsRotate(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	createUser(t, db, "ana@example.com")
	dir := filepath.Join(t.TempDir(), "backups")
	foreign := map[string]string{
		"notes.txt":                                          "mine",
		"finance-mine.db":                                    "my own copy",
		"finance-20250101T000000Z.db":                        "not our pattern: no milliseconds",
		"finance-20250101T000000.000Z.db.bak":                "a copy of a backup",
		"pre-migrate-20261214000100-20250101T000000.000Z.db": "before an upgrade",
	}
	for name, body := range foreign {
		writeFile(t, filepath.Join(dir, name), body)
	}
	writeFile(t, filepath.Join(dir, "finance-20250101T000000.000Z.db.partial"), "a backup a crash cut short")
	writeFile(t, filepath.Join(dir, "finance-20250101T000000.000Z.db.partial-journal"), "its rollback journal")

	b, err := store.NewBackups(db.Path(), dir, time.Hour, 3, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	if !b.LastSuccess().IsZero() {
		t.Errorf("LastSuccess before any backup = %v, want zero", b.LastSuccess())
	}
	start := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	var written []string
	for i := range 5 {
		at := start.Add(time.Duration(i) * time.Hour).Add(123 * time.Millisecond)
		path, err := b.Write(ctx, at)
		if err != nil {
			t.Fatalf("backup %d: %v", i, err)
		}
		written = append(written, filepath.Base(path))
		if got := b.LastSuccess(); !got.Equal(at) {
			t.Errorf("LastSuccess = %v, want %v", got, at)
		}
	}
	if written[0] != "finance-20261127T030000.123Z.db" {
		t.Errorf("first backup named %s", written[0])
	}
	var want []string
	for name := range foreign {
		want = append(want, name)
	}
	want = append(want, written[2:]...)
	slices.Sort(want)
	if got := dirNames(t, dir); !slices.Equal(got, want) {
		t.Errorf("backup directory holds\n%q\nwant\n%q", got, want)
	}
	for name, body := range foreign {
		if got := readFile(t, filepath.Join(dir, name)); got != body {
			t.Errorf("%s now holds %q, want %q", name, got, body)
		}
	}
	for _, name := range written[2:] {
		path := filepath.Join(dir, name)
		if s, err := store.CheckBackup(ctx, path); err != nil || s.Pending != 0 {
			t.Errorf("CheckBackup(%s) = %+v, %v", name, s, err)
		}
		if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v, %v; want 0600", name, info.Mode().Perm(), err)
		}
	}

	// A server started again counts the newest backup there as its last.
	again, err := store.NewBackups(db.Path(), dir, time.Hour, 3, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := again.LastSuccess(), start.Add(4*time.Hour+123*time.Millisecond); !got.Equal(want) {
		t.Errorf("LastSuccess after a restart = %v, want %v", got, want)
	}
	if _, err := store.NewBackups(db.Path(), dir, time.Hour, 0, quietLog()); err == nil {
		t.Error("NewBackups keeping 0 backups was accepted")
	}
}

// A backup that fails (here: its directory cannot be written) leaves no
// file, reports the failure, and does not count as a success.
func TestScheduledBackupFailureLeavesNothing(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root writes into a read-only directory")
	}
	ctx := context.Background()
	db := openDB(t)
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o700) })
	b, err := store.NewBackups(db.Path(), dir, time.Hour, 3, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	if path, err := b.Write(ctx, time.Now()); err == nil || path != "" {
		t.Errorf("Write into a read-only directory = %q, %v; want an error", path, err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("a failed backup left %q", names)
	}
	if !b.LastSuccess().IsZero() {
		t.Error("a failed backup counted as a success")
	}
}

// A backup put back with Restore reads as the database did when it was
// taken, every record of the export document alike, the profile pictures
// and the signing key too; what was in place is kept beside it, with the
// writes made since. The media folder, which a backup of this version does
// not carry, is left as it is.
func TestBackupRestoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	dataDir := t.TempDir()
	dbPath := filepath.Join(dataDir, store.FileName)
	media := filepath.Join(dataDir, "media")
	writeFile(t, filepath.Join(media, "profile-pictures", "left.png"), "an earlier version's file")
	db, err := store.Open(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	key, err := db.SigningKey(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	svc := finance.NewService(db)
	u := createUser(t, db, "ana@example.com")
	createAccount(t, db, u.ID, `{"name":"Wallet","type":"cash","initial_balance":"120.50"}`)
	picture := setPicture(t, svc, u.ID, []byte("ana's picture"))
	want := exportOf(t, db, u.ID)

	backup := filepath.Join(t.TempDir(), "finance.backup")
	if err := store.Backup(ctx, dbPath, backup); err != nil {
		t.Fatal(err)
	}
	createAccount(t, db, u.ID, `{"name":"Savings","type":"savings","initial_balance":"1000"}`)
	newer := setPicture(t, svc, u.ID, []byte("a newer picture"))
	changed := exportOf(t, db, u.ID)

	// Refused while the database is open, before anything changes.
	if _, err := store.Restore(ctx, backup, dbPath, media, time.Now()); !errors.Is(err, store.ErrInUse) {
		t.Fatalf("Restore with the database open = %v, want ErrInUse", err)
	}
	if got := exportOf(t, db, u.ID); !bytes.Equal(got, changed) {
		t.Error("a refused restore changed the database")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	at := time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC)
	r, err := store.Restore(ctx, backup, dbPath, media, at)
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if r.Media != 0 || r.Kept != dbPath+".before-restore-20261127T050000.000Z" || r.KeptMedia != "" {
		t.Errorf("Restore = %+v", r)
	}
	restored := openAt(t, dbPath)
	if got := exportOf(t, restored, u.ID); !bytes.Equal(got, want) {
		t.Errorf("restored export differs from the one at the backup:\n%s\nwant\n%s", got, want)
	}
	if n, err := restored.QueryInt(ctx, "SELECT count(*) FROM sqlite_master WHERE name = 'backup_files'"); err != nil || n != 0 {
		t.Errorf("the restored database has a table of files: %d, %v", n, err)
	}
	if f, err := finance.NewService(restored).PictureFile(ctx, picture); err != nil || string(f.Content) != "ana's picture" {
		t.Errorf("the restored picture: %+v, %v", f, err)
	}
	if names, _ := restored.PictureNames(ctx); !slices.Equal(names, []string{picture}) {
		t.Errorf("restored pictures %q, want only %s (not %s)", names, picture, newer)
	}
	if k, err := restored.SigningKey(ctx, ""); err != nil || !bytes.Equal(k, key) {
		t.Errorf("the restored signing key differs: %v", err)
	}
	if got := readFile(t, filepath.Join(media, "profile-pictures", "left.png")); got != "an earlier version's file" {
		t.Errorf("the media folder changed: %q", got)
	}
	kept := openAt(t, r.Kept)
	if got := exportOf(t, kept, u.ID); !bytes.Equal(got, changed) {
		t.Error("the database kept before the restore lacks the writes made after the backup")
	}
	if info, err := os.Stat(dbPath); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("restored database: %v, %v; want mode 0600", info.Mode().Perm(), err)
	}
}

// Restore refuses a file that is not a sound backup, and changes nothing.
func TestRestoreRefusesUnsoundFiles(t *testing.T) {
	ctx := context.Background()
	dataDir := t.TempDir()
	dbPath := filepath.Join(dataDir, store.FileName)
	db := openAt(t, dbPath)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	createUser(t, db, "ana@example.com")
	good := filepath.Join(t.TempDir(), "good.db")
	if err := store.Backup(ctx, dbPath, good); err != nil {
		t.Fatal(err)
	}
	raw := []byte(readFile(t, good))
	files := map[string][]byte{
		"text":      []byte("not a database at all"),
		"truncated": raw[:len(raw)/2],
		"empty":     nil,
	}
	corrupt := slices.Clone(raw)
	for i := 4096; i < len(corrupt) && i < 4096*4; i++ {
		corrupt[i] ^= 0xff // the second to fourth pages
	}
	files["corrupt"] = corrupt
	empty := filepath.Join(t.TempDir(), "empty.db")
	openAt(t, empty) // a SQLite database without a finance schema
	for name, content := range files {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, content, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := store.CheckBackup(ctx, path); !errors.Is(err, store.ErrBadBackup) {
			t.Errorf("CheckBackup(%s) = %v, want ErrBadBackup", name, err)
		}
	}
	if _, err := store.CheckBackup(ctx, empty); !errors.Is(err, store.ErrBadBackup) || !strings.Contains(err.Error(), "no schema version") {
		t.Errorf("CheckBackup(a database without a schema) = %v", err)
	}
	if _, err := store.CheckBackup(ctx, filepath.Join(t.TempDir(), "missing.db")); !errors.Is(err, store.ErrBadBackup) {
		t.Errorf("CheckBackup(a missing file) = %v", err)
	}
}

// A database a newer finance upgraded records a migration this binary does
// not know: Upgrade and Migrate refuse it before changing anything, naming
// both versions, and a backup of it is refused by CheckBackup.
func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	createUser(t, db, "ana@example.com")
	const future = "29991231000100"
	if err := db.WriterExec(ctx, "INSERT INTO bun_migrations (name, group_id, migrated_at) VALUES (?, 99, CURRENT_TIMESTAMP)", future); err != nil {
		t.Fatal(err)
	}
	backupDir := t.TempDir()
	_, err := db.Upgrade(ctx, backupDir)
	var newer *store.SchemaNewerError
	if !errors.As(err, &newer) || newer.Version != future || newer.Binary == "" || newer.Binary >= future {
		t.Fatalf("Upgrade of a newer schema = %v", err)
	}
	for _, want := range []string{"the database's schema is version " + future, "newer than this finance's " + newer.Binary} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if err := db.Migrate(ctx); !errors.As(err, &newer) {
		t.Errorf("Migrate of a newer schema = %v", err)
	}
	if names := dirNames(t, backupDir); len(names) != 0 {
		t.Errorf("a refused upgrade wrote %q", names)
	}
	backup := filepath.Join(t.TempDir(), "newer.db")
	if err := store.Backup(ctx, db.Path(), backup); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CheckBackup(ctx, backup); !errors.As(err, &newer) || !strings.Contains(err.Error(), "the backup's schema") {
		t.Errorf("CheckBackup of a newer schema = %v", err)
	}
}

// Before applying migrations to a database that has a schema, Upgrade
// writes a backup of it, named after the schema it holds, once: a second
// start finds nothing to apply and writes none. A new database gets none.
func TestPreMigrateBackupOnce(t *testing.T) {
	ctx := context.Background()
	const earlier = "20261214000100"
	db := openThrough(t, earlier)
	u := createUser(t, db, "ana@example.com")
	backupDir := filepath.Join(t.TempDir(), "backups")
	path, err := db.Upgrade(ctx, backupDir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(path), "pre-migrate-"+earlier+"-") || filepath.Dir(path) != backupDir {
		t.Errorf("pre-migrate backup at %s", path)
	}
	s, err := store.CheckBackup(ctx, path)
	if err != nil || s.Version != earlier || s.Pending == 0 {
		t.Errorf("CheckBackup(pre-migrate) = %+v, %v; want the schema %s with migrations pending", s, err, earlier)
	}
	if s, err := db.Schema(ctx); err != nil || s.Pending != 0 || s.Version != s.Binary {
		t.Errorf("after Upgrade the schema is %+v, %v", s, err)
	}
	if _, err := db.UserByEmail(ctx, u.Email); err != nil {
		t.Error(err)
	}
	again, err := db.Upgrade(ctx, backupDir)
	if err != nil || again != "" {
		t.Errorf("second Upgrade = %q, %v; want no backup", again, err)
	}
	if names := dirNames(t, backupDir); len(names) != 1 {
		t.Errorf("backup directory holds %q, want the one pre-migrate backup", names)
	}

	fresh := openAt(t, filepath.Join(t.TempDir(), store.FileName))
	freshDir := filepath.Join(t.TempDir(), "backups")
	if path, err := fresh.Upgrade(ctx, freshDir); err != nil || path != "" {
		t.Errorf("Upgrade of a new database = %q, %v; want no backup", path, err)
	}
	if _, err := os.Stat(freshDir); !errors.Is(err, os.ErrNotExist) {
		t.Error("Upgrade of a new database made the backup directory")
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Migrated is what readiness asks of the schema: nil on a database this
// binary migrated; an error naming what is missing once a migration is not
// recorded (as before Upgrade), and the newer-schema refusal once a newer
// finance's migration is.
func TestMigrated(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	if err := db.Migrated(ctx); err != nil {
		t.Fatalf("Migrated on a migrated database: %v", err)
	}
	s, err := db.Schema(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.WriterExec(ctx, "DELETE FROM bun_migrations WHERE name = ?", s.Binary); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrated(ctx); err == nil || !strings.Contains(err.Error(), "lacks 1 of this finance's migrations (up to "+s.Binary+")") {
		t.Errorf("Migrated with the newest migration not applied = %v", err)
	}
	if err := db.WriterExec(ctx, "INSERT INTO bun_migrations (name, group_id, migrated_at) VALUES (?, 99, CURRENT_TIMESTAMP)", s.Binary); err != nil {
		t.Fatal(err)
	}
	if err := db.WriterExec(ctx, "INSERT INTO bun_migrations (name, group_id, migrated_at) VALUES ('29991231000100', 99, CURRENT_TIMESTAMP)"); err != nil {
		t.Fatal(err)
	}
	var newer *store.SchemaNewerError
	if err := db.Migrated(ctx); !errors.As(err, &newer) {
		t.Errorf("Migrated with a newer finance's migration = %v", err)
	}
}
