package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/finance-app/finance/store"
)

// TestBackupWhileWriting takes a backup while a writer keeps inserting. The
// copy must pass the integrity check and hold exactly the rows committed at
// some instant: a prefix of the insert sequence, no fewer than were there when
// the backup started and no more than when it ended.
func TestBackupWhileWriting(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	for i := range 200 { // enough pages that the copy is not instant
		createUser(t, db, fmt.Sprintf("seed-%04d@example.com", i))
	}

	var (
		begun     atomic.Int64 // sequence inserts started: an upper bound of what is committed
		committed atomic.Int64 // sequence inserts known to be committed: a lower bound
		stop      = make(chan struct{})
		wg        sync.WaitGroup
		writeErr  error
		started   = make(chan struct{})
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			begun.Add(1)
			if err := db.CreateUser(ctx, newUser(fmt.Sprintf("seq-%06d@example.com", i)), "h"); err != nil {
				writeErr = err
				return
			}
			committed.Add(1)
			if i == 20 {
				close(started)
			}
		}
	}()
	<-started

	dest := filepath.Join(t.TempDir(), "backup.db")
	before := committed.Load()
	backupErr := store.Backup(ctx, db.Path(), dest)
	after := begun.Load()
	close(stop)
	wg.Wait()
	if backupErr != nil {
		t.Fatalf("Backup: %v", backupErr)
	}
	if writeErr != nil {
		t.Fatalf("writer failed during the backup: %v", writeErr)
	}
	if err := store.IntegrityCheck(ctx, dest); err != nil {
		t.Fatalf("IntegrityCheck of the copy: %v", err)
	}

	cp := openAt(t, dest)
	users, err := cp.ListUsers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	seeds, seq := 0, map[string]bool{}
	for _, u := range users {
		switch {
		case strings.HasPrefix(u.Email, "seed-"):
			seeds++
		case strings.HasPrefix(u.Email, "seq-"):
			seq[u.Email] = true
		default:
			t.Errorf("unexpected user %s in the copy", u.Email)
		}
	}
	if seeds != 200 {
		t.Errorf("copy holds %d seed users, want 200", seeds)
	}
	n := int64(len(seq))
	if n < before || n > after {
		t.Errorf("copy holds %d sequence users, want between %d (at start) and %d (at end)", n, before, after)
	}
	for i := range n {
		if email := fmt.Sprintf("seq-%06d@example.com", i); !seq[email] {
			t.Errorf("copy holds %d sequence users but not %s: not a consistent prefix", n, email)
			break
		}
	}
	t.Logf("backup holds %d of the rows; %d committed at start, %d at end", n, before, after)

	// The live database is untouched and still writable.
	total, err := db.CountUsers(ctx)
	if err != nil || int64(total) != 200+committed.Load() {
		t.Errorf("live CountUsers = %d, %v; want %d", total, err, 200+committed.Load())
	}
}

func TestBackupRefusesToOverwrite(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	createUser(t, db, "ana@example.com")
	dest := filepath.Join(t.TempDir(), "backup.db")
	const old = "an older backup"
	if err := os.WriteFile(dest, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	err := store.Backup(ctx, db.Path(), dest)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("Backup onto an existing file = %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(dest); string(b) != old {
		t.Errorf("existing file changed to %d bytes", len(b))
	}

	// A dangling symlink counts as existing too: writing through it could land anywhere.
	link := filepath.Join(t.TempDir(), "link.db")
	if err := os.Symlink(filepath.Join(t.TempDir(), "target.db"), link); err != nil {
		t.Skipf("symlink: %v", err)
	}
	if err := store.Backup(ctx, db.Path(), link); err == nil {
		t.Error("Backup through a dangling symlink succeeded")
	}
}

func TestBackupIsReadableByItsOwnerOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	db := openDB(t)
	sqliteOnly(t, db)
	createUser(t, db, "ana@example.com")
	dest := filepath.Join(t.TempDir(), "backup.db")
	if err := store.Backup(context.Background(), db.Path(), dest); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(dest)
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("backup mode = %#o, want 0600", perm)
	}
}

func TestBackupMissingSource(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "missing.db")
	dest := filepath.Join(dir, "backup.db")
	if err := store.Backup(context.Background(), src, dest); err == nil {
		t.Fatal("Backup of a missing database succeeded")
	}
	for _, p := range []string{src, dest} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after a failed backup (stat: %v)", filepath.Base(p), err)
		}
	}
}

func TestBackupCopyIsComplete(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	u := createUser(t, db, "ana@example.com")
	k := createKey(t, db, newKey(u.ID, "agent", now()))
	dest := filepath.Join(t.TempDir(), "backup.db")
	if err := store.Backup(ctx, db.Path(), dest); err != nil {
		t.Fatal(err)
	}
	// The copy is a database the service can open and migrate as its own.
	cp := openAt(t, dest)
	if err := cp.Migrate(ctx); err != nil {
		t.Fatalf("Migrate on the copy: %v", err)
	}
	got, err := cp.APIKeyByPublicID(ctx, k.PublicID)
	if err != nil || got.UserID != u.ID {
		t.Errorf("key in the copy = %+v, %v", got, err)
	}
	if c, err := cp.Credentials(ctx, u.ID); err != nil || c.PasswordHash != "hash-of-ana@example.com" {
		t.Errorf("password hash in the copy = %q, %v", c.PasswordHash, err)
	}
}

func TestIntegrityCheck(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDB(t)
	sqliteOnly(t, db)
	createUser(t, db, "ana@example.com")
	if err := store.IntegrityCheck(ctx, db.Path()); err != nil {
		t.Errorf("IntegrityCheck of a live database: %v", err)
	}

	missing := filepath.Join(dir, "missing.db")
	if err := store.IntegrityCheck(ctx, missing); err == nil {
		t.Error("IntegrityCheck of a missing file passed")
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("IntegrityCheck created %s", missing)
	}

	junk := filepath.Join(dir, "junk.db")
	if err := os.WriteFile(junk, []byte(strings.Repeat("not a database ", 512)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := store.IntegrityCheck(ctx, junk); err == nil {
		t.Error("IntegrityCheck of a non-database file passed")
	}

	// A copy with a page overwritten in the middle fails.
	good := filepath.Join(dir, "good.db")
	if err := store.Backup(ctx, db.Path(), good); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 3*4096 {
		t.Skipf("copy is only %d bytes", len(b))
	}
	for i := 4096 + 8; i < 2*4096; i++ { // keep page 1 (the header), garble page 2
		b[i] = 0x5a
	}
	broken := filepath.Join(dir, "broken.db")
	if err := os.WriteFile(broken, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := store.IntegrityCheck(ctx, broken); err == nil {
		t.Error("IntegrityCheck of a damaged file passed")
	}
}

// TestFileCopyOfAnOpenDatabase is why docs/backup.md says to back up with
// finance backup and to copy finance.db only after a clean stop: while the
// database is open, its latest commits live in finance.db-wal, so a copy
// of finance.db alone lacks them; Backup holds them, and a clean close
// folds them into the file and removes the log.
func TestFileCopyOfAnOpenDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), store.FileName)
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// Two commits: should the first fill the log enough for SQLite to fold
	// it into the file by itself, the second is still only in the log.
	createUser(t, db, "first@example.com")
	createUser(t, db, "last@example.com")
	holds := func(copyPath string) bool {
		t.Helper()
		cp := openAt(t, copyPath)
		_, err := cp.UserByEmail(ctx, "last@example.com")
		return err == nil
	}
	copyFile := func() string {
		t.Helper()
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		dest := filepath.Join(t.TempDir(), store.FileName)
		if err := os.WriteFile(dest, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		return dest
	}

	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatalf("an open database has no write-ahead log beside it: %v", err)
	}
	if holds(copyFile()) {
		t.Error("a copy of the open database's file holds its last commit; the backup advice of docs/backup.md is out of date")
	}
	backup := filepath.Join(t.TempDir(), "backup.db")
	if err := store.Backup(ctx, path, backup); err != nil {
		t.Fatal(err)
	}
	if !holds(backup) {
		t.Error("the backup lacks the last commit")
	}

	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a clean close left the write-ahead log: %v", err)
	}
	if !holds(copyFile()) {
		t.Error("a copy of the cleanly closed database lacks the last commit")
	}
}
