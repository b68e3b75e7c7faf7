package store_test

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/store"
)

// openDB opens a migrated database of its own in t.TempDir().
func openDB(t testing.TB) *store.DB {
	t.Helper()
	return testkit.OpenDB(t)
}

// sqliteOnly skips a test of what only SQLite has (its pragmas, query
// plans, files, backups, write-ahead log) when the tests run on Postgres
// (FINANCE_TEST_DATABASE=postgres).
func sqliteOnly(t testing.TB, db *store.DB) {
	t.Helper()
	if db.IsPostgres() {
		t.Skip("SQLite's own: not on Postgres")
	}
}

// openAt opens (without migrating) the database at path, closed at cleanup.
func openAt(t testing.TB, path string) *store.DB {
	t.Helper()
	db, err := store.Open(path)
	if err != nil {
		t.Fatalf("Open(%s): %v", path, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return db
}

// cardTotalsDeferred is the migration of the table statement billing writes
// while it bills a card (see BillBacklog).
const cardTotalsDeferred = "20261216000200"

// openThrough opens a database of its own migrated through the migration
// named last only, as a server of that time left it, and those named in
// also: a test that writes an earlier schema's records through today's code
// names the migrations that code needs (cardTotalsDeferred, for one).
func openThrough(t testing.TB, last string, also ...string) *store.DB {
	t.Helper()
	db := openAt(t, filepath.Join(t.TempDir(), store.FileName))
	if err := db.MigrateThrough(context.Background(), last, also...); err != nil {
		t.Fatal(err)
	}
	return db
}

// execer runs SQL on db's writer, failing the test on an error: rows as an
// earlier schema's writes left them.
func execer(t testing.TB, db *store.DB) func(q string, args ...any) {
	return func(q string, args ...any) {
		t.Helper()
		if err := db.WriterExec(context.Background(), q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// now is a timestamp at the precision the database keeps (microseconds).
func now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

func newUser(email string) finance.User {
	at := now()
	return finance.User{ID: finance.NewID(), Email: email, Name: "Test " + email, Plan: finance.PlanPro, CreatedAt: at, UpdatedAt: at}
}

// createUser stores a user with a placeholder hash (hashing is auth's business).
func createUser(t testing.TB, db *store.DB, email string) finance.User {
	t.Helper()
	u := newUser(email)
	if err := db.CreateUser(context.Background(), u, "hash-of-"+email); err != nil {
		t.Fatalf("CreateUser(%s): %v", email, err)
	}
	return u
}

func newKey(userID, name string, createdAt time.Time) auth.APIKey {
	return auth.APIKey{
		ID: finance.NewID(), UserID: userID, Name: name, PublicID: "pub" + finance.NewID()[24:],
		SecretHash: []byte("0123456789abcdef0123456789abcdef"), Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeExpensesWrite},
		CreatedAt: createdAt,
	}
}

func createKey(t testing.TB, db *store.DB, k auth.APIKey) auth.APIKey {
	t.Helper()
	if err := db.CreateAPIKey(context.Background(), k); err != nil {
		t.Fatalf("CreateAPIKey(%s): %v", k.Name, err)
	}
	return k
}

func TestPragmas(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	writer := map[string]string{
		"journal_mode": "wal",
		"synchronous":  "2", // FULL
		"foreign_keys": "1",
		"busy_timeout": "10000",
		"query_only":   "0",
		// A table rebuild (rebuild.go) turns these off for its
		// migration only.
		"legacy_alter_table": "0",
		// 4 MiB of pages; a large transaction may hold up to 64 MiB of
		// changed pages before it spills any (cache.go).
		"cache_size":  "-4096",
		"cache_spill": "16384",
	}
	for name, want := range writer {
		got, err := db.WriterPragma(ctx, name)
		if err != nil {
			t.Fatalf("writer PRAGMA %s: %v", name, err)
		}
		if got != want {
			t.Errorf("writer PRAGMA %s = %s, want %s", name, got, want)
		}
	}
	reader := map[string]string{
		"journal_mode": "wal",
		"foreign_keys": "1",
		"busy_timeout": "10000",
		"query_only":   "1",
	}
	for name, want := range reader {
		got, err := db.ReaderConnsPragma(ctx, name, 3)
		if err != nil {
			t.Fatalf("reader PRAGMA %s: %v", name, err)
		}
		for i, v := range got {
			if v != want {
				t.Errorf("reader connection %d: PRAGMA %s = %s, want %s", i, name, v, want)
			}
		}
	}
}

func TestReadersCannotWrite(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	u := createUser(t, db, "ana@example.com")
	err := db.ReaderExec(ctx, "UPDATE users SET name = 'changed' WHERE id = ?", u.ID)
	if err == nil {
		t.Fatal("an UPDATE on a reader connection succeeded")
	}
	got, err := db.UserByID(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != u.Name {
		t.Errorf("name = %q after a refused write, want %q", got.Name, u.Name)
	}
}

func TestOpenCreatesDataDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", store.FileName)
	db := openAt(t, path)
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if db.Path() != path {
		t.Errorf("Path() = %s, want %s", db.Path(), path)
	}
	if err := db.Ping(context.Background()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), store.FileName)
	db := openAt(t, path)
	want, err := store.MigrationCount()
	if err != nil || want == 0 {
		t.Fatalf("MigrationCount = %d, %v", want, err)
	}
	for run := 1; run <= 2; run++ {
		if err := db.Migrate(ctx); err != nil {
			t.Fatalf("Migrate run %d: %v", run, err)
		}
		n, err := db.QueryInt(ctx, "SELECT count(*) FROM bun_migrations")
		if err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("after run %d: %d applied migrations recorded, want %d", run, n, want)
		}
	}
	u := createUser(t, db, "ana@example.com")

	// A later process (a restart, or the CLI) migrates the same file again.
	db2 := openAt(t, path)
	if err := db2.Migrate(ctx); err != nil {
		t.Fatalf("Migrate on reopen: %v", err)
	}
	if _, err := db2.UserByID(ctx, u.ID); err != nil {
		t.Errorf("user lost after re-migrating: %v", err)
	}
}

func TestForeignKeysEnforced(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	k := newKey(finance.NewID(), "orphan", now())
	if err := db.CreateAPIKey(ctx, k); err == nil {
		t.Fatal("CreateAPIKey for a missing user succeeded")
	}
	if _, err := db.APIKeyByID(ctx, k.ID); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("APIKeyByID after a refused insert = %v, want ErrNotFound", err)
	}
}

func TestUsers(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)

	if n, err := db.CountUsers(ctx); err != nil || n != 0 {
		t.Fatalf("CountUsers on a new database = %d, %v", n, err)
	}
	users, err := db.ListUsers(ctx)
	if err != nil || len(users) != 0 {
		t.Fatalf("ListUsers on a new database = %v, %v", users, err)
	}

	first := newUser("ana@example.com")
	first.CreatedAt = first.CreatedAt.Add(-time.Hour)
	first.UpdatedAt = first.CreatedAt
	if err := db.CreateUser(ctx, first, "hash-1"); err != nil {
		t.Fatal(err)
	}
	second := createUser(t, db, "ben@example.com")

	got, err := db.UserByID(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, got); diff != "" {
		t.Errorf("UserByID (-want +got):\n%s", diff)
	}
	got, err = db.UserByEmail(ctx, "ben@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(second, got); diff != "" {
		t.Errorf("UserByEmail (-want +got):\n%s", diff)
	}
	if c, err := db.Credentials(ctx, first.ID); err != nil || c != (auth.Credentials{PasswordHash: "hash-1", Epoch: 0}) {
		t.Errorf("Credentials = %+v, %v; want hash-1 at epoch 0", c, err)
	}

	users, err = db.ListUsers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]finance.User{first, second}, users); diff != "" {
		t.Errorf("ListUsers, oldest first (-want +got):\n%s", diff)
	}
	if n, err := db.CountUsers(ctx); err != nil || n != 2 {
		t.Errorf("CountUsers = %d, %v; want 2", n, err)
	}

	later := now().Add(time.Minute)
	if err := db.SetUserPlan(ctx, first.ID, finance.PlanFree, later); err != nil {
		t.Fatal(err)
	}
	changed, err := db.ChangePassword(ctx, second.ID, "hash-2b", nil, later)
	if err != nil {
		t.Fatal(err)
	}
	want := auth.Identity{User: second, Epoch: 1}
	want.UpdatedAt = later
	if diff := cmp.Diff(want, changed); diff != "" {
		t.Errorf("ChangePassword (-want +got):\n%s", diff)
	}
	got, err = db.UserByID(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Plan != finance.PlanFree || !got.UpdatedAt.Equal(later) || !got.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("after SetUserPlan: plan %s updated %v created %v", got.Plan, got.UpdatedAt, got.CreatedAt)
	}
	if c, _ := db.Credentials(ctx, second.ID); c != (auth.Credentials{PasswordHash: "hash-2b", Epoch: 1}) {
		t.Errorf("Credentials after ChangePassword = %+v", c)
	}
	if c, _ := db.Credentials(ctx, first.ID); c != (auth.Credentials{PasswordHash: "hash-1", Epoch: 0}) {
		t.Errorf("ChangePassword changed another user's credentials: %+v", c)
	}
	if got, _ := db.UserByID(ctx, second.ID); got.Plan != finance.PlanPro {
		t.Errorf("SetUserPlan changed another user's plan: %s", got.Plan)
	}
}

func TestUserNotFound(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	missing := finance.NewID()
	checks := map[string]error{}
	_, checks["UserByID"] = db.UserByID(ctx, missing)
	_, checks["UserByEmail"] = db.UserByEmail(ctx, "nobody@example.com")
	_, checks["UserIdentity"] = db.UserIdentity(ctx, missing)
	_, checks["Credentials"] = db.Credentials(ctx, missing)
	checks["SetUserPlan"] = db.SetUserPlan(ctx, missing, finance.PlanFree, now())
	checks["SetUserName"] = db.SetUserName(ctx, missing, "Ana", now())
	_, checks["ChangePassword"] = db.ChangePassword(ctx, missing, "x", nil, now())
	for name, err := range checks {
		if !errors.Is(err, finance.ErrNotFound) {
			t.Errorf("%s of a missing user = %v, want ErrNotFound", name, err)
		}
	}
}

func TestUserEmailIsUnique(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	createUser(t, db, "ana@example.com")

	// The store itself refuses a second row with the same (lowercased) email,
	// even when a racing caller passed the service's pre-check.
	err := db.CreateUser(ctx, newUser("ana@example.com"), "h")
	var ve *finance.ValidationError
	if !errors.As(err, &ve) || ve.Fields["email"] != "is already registered" {
		t.Fatalf("duplicate CreateUser = %v, want a validation error on email", err)
	}

	// Through the auth.Store port the address is normalized, so another case collides.
	svc := auth.NewService(db, nil)
	_, err = svc.CreateUser(ctx, auth.CreateUserRequest{Email: "  ANA@Example.com", Plan: finance.PlanPro, Password: "correct horse"})
	if !errors.As(err, &ve) || ve.Fields["email"] != "is already registered" {
		t.Fatalf("CreateUser in another case = %v, want a validation error on email", err)
	}
	if n, _ := db.CountUsers(ctx); n != 1 {
		t.Errorf("CountUsers = %d after refused duplicates, want 1", n)
	}
	u, err := svc.CreateUser(ctx, auth.CreateUserRequest{Email: "Ben@Example.COM", Plan: finance.PlanFree, Password: "correct horse"})
	if err != nil {
		t.Fatal(err)
	}
	if u.Email != "ben@example.com" {
		t.Errorf("stored email = %q, want it lowercased", u.Email)
	}
	if got, err := svc.UserByEmail(ctx, "BEN@example.com"); err != nil || got.ID != u.ID {
		t.Errorf("UserByEmail in another case = %v, %v", got.ID, err)
	}
}

func TestAPIKeys(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	ana := createUser(t, db, "ana@example.com")
	ben := createUser(t, db, "ben@example.com")

	t0 := now().Add(-time.Hour)
	exp := t0.Add(90 * 24 * time.Hour)
	k1 := newKey(ana.ID, "first", t0)
	k1.ExpiresAt = &exp
	createKey(t, db, k1)
	k2 := createKey(t, db, newKey(ana.ID, "second", t0.Add(time.Minute)))
	// Same creation time as k2: the newer id sorts first.
	k3 := createKey(t, db, newKey(ana.ID, "third", t0.Add(time.Minute)))
	all := newKey(ben.ID, "bens", t0)
	all.Scopes = []auth.Scope{auth.ScopeAll}
	createKey(t, db, all)

	got, err := db.APIKeyByPublicID(ctx, k1.PublicID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(k1, got); diff != "" {
		t.Errorf("APIKeyByPublicID (-want +got):\n%s", diff)
	}
	got, err = db.APIKeyByID(ctx, all.ID)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(all, got); diff != "" {
		t.Errorf("APIKeyByID (-want +got):\n%s", diff)
	}
	if _, err := db.APIKeyByPublicID(ctx, "nope"); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("APIKeyByPublicID(missing) = %v, want ErrNotFound", err)
	}
	if _, err := db.APIKeyByID(ctx, finance.NewID()); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("APIKeyByID(missing) = %v, want ErrNotFound", err)
	}

	keys, err := db.ListAPIKeys(ctx, ana.ID)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range keys {
		names = append(names, k.Name)
	}
	if diff := cmp.Diff([]string{"third", "second", "first"}, names); diff != "" {
		t.Errorf("ListAPIKeys order, newest first (-want +got):\n%s", diff)
	}
	if keys, err := db.ListAPIKeys(ctx, finance.NewID()); err != nil || len(keys) != 0 {
		t.Errorf("ListAPIKeys of a user without keys = %v, %v", keys, err)
	}

	// Revoke: only the named key changes, and a second revoke keeps the first time.
	revokedAt := now()
	if err := db.RevokeAPIKey(ctx, k2.ID, revokedAt); err != nil {
		t.Fatal(err)
	}
	if err := db.RevokeAPIKey(ctx, k2.ID, revokedAt.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	got, _ = db.APIKeyByID(ctx, k2.ID)
	if got.RevokedAt == nil || !got.RevokedAt.Equal(revokedAt) {
		t.Errorf("RevokedAt = %v, want %v", got.RevokedAt, revokedAt)
	}
	if got.Status(now()) != "revoked" {
		t.Errorf("Status = %s, want revoked", got.Status(now()))
	}
	for _, id := range []string{k1.ID, k3.ID, all.ID} {
		if k, _ := db.APIKeyByID(ctx, id); k.RevokedAt != nil {
			t.Errorf("key %s revoked along with another", k.Name)
		}
	}

}

func TestAPIKeyPublicIDIsUnique(t *testing.T) {
	db := openDB(t)
	u := createUser(t, db, "ana@example.com")
	k := createKey(t, db, newKey(u.ID, "one", now()))
	dup := newKey(u.ID, "two", now())
	dup.PublicID = k.PublicID
	if err := db.CreateAPIKey(context.Background(), dup); err == nil {
		t.Fatal("a second key with the same public id was stored")
	}
}

func TestTouchAPIKeysOnlyMovesForward(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	u := createUser(t, db, "ana@example.com")
	a := createKey(t, db, newKey(u.ID, "a", now()))
	b := createKey(t, db, newKey(u.ID, "b", now()))

	lastUsed := func(id string) *time.Time {
		t.Helper()
		k, err := db.APIKeyByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return k.LastUsedAt
	}
	if lastUsed(a.ID) != nil {
		t.Fatal("a new key has a last use")
	}

	t1 := now()
	t2 := t1.Add(time.Minute)
	manila := time.FixedZone("PHT", 8*3600)
	steps := []struct {
		name  string
		touch map[string]time.Time
		wantA time.Time
		wantB *time.Time
	}{
		{"first use", map[string]time.Time{a.ID: t2}, t2, nil},
		{"older time is ignored", map[string]time.Time{a.ID: t1}, t2, nil},
		{"older time in another zone is ignored", map[string]time.Time{a.ID: t1.Add(30 * time.Second).In(manila)}, t2, nil},
		{"many keys at once, unknown ids ignored", map[string]time.Time{a.ID: t2.Add(time.Second).In(manila), b.ID: t1, finance.NewID(): t1},
			t2.Add(time.Second), &t1},
		{"sub-second step forward", map[string]time.Time{a.ID: t2.Add(1500 * time.Millisecond)}, t2.Add(1500 * time.Millisecond), &t1},
	}
	for _, s := range steps {
		if err := db.TouchAPIKeys(ctx, s.touch); err != nil {
			t.Fatalf("%s: TouchAPIKeys: %v", s.name, err)
		}
		if got := lastUsed(a.ID); got == nil || !got.Equal(s.wantA) {
			t.Errorf("%s: a.LastUsedAt = %v, want %v", s.name, got, s.wantA)
		}
		gotB := lastUsed(b.ID)
		if (gotB == nil) != (s.wantB == nil) || (gotB != nil && !gotB.Equal(*s.wantB)) {
			t.Errorf("%s: b.LastUsedAt = %v, want %v", s.name, gotB, s.wantB)
		}
	}
	if err := db.TouchAPIKeys(ctx, nil); err != nil {
		t.Errorf("TouchAPIKeys(nil) = %v", err)
	}
}

func TestPingAfterClose(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), store.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(context.Background()); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Ping(context.Background()); err == nil {
		t.Error("Ping after Close succeeded")
	}
}

// TestOpenCreatesFilesForTheirOwnerOnly checks the modes of what Open
// creates: the data directory 0700, the database and (while it is open) its
// WAL and shared-memory files 0600, whatever the umask allows.
func TestOpenCreatesFilesForTheirOwnerOnly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	dir := filepath.Join(t.TempDir(), "new", "data")
	db := openAt(t, filepath.Join(dir, store.FileName))
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	createUser(t, db, "ana@example.com") // a write, so the WAL has content
	want := map[string]os.FileMode{
		dir:                0o700,
		db.Path():          0o600,
		db.Path() + "-wal": 0o600,
		db.Path() + "-shm": 0o600,
		filepath.Dir(dir):  0o700, // parents MkdirAll made too
	}
	for path, mode := range want {
		info, err := os.Stat(path)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if got := info.Mode().Perm(); got != mode {
			t.Errorf("%s: mode %#o, want %#o", path, got, mode)
		}
	}
}

// TestOpenKeepsTheModeOfAnExistingDatabase: a database the owner chose to
// share (a group-readable file for a backup job) is opened as it is.
func TestOpenKeepsTheModeOfAnExistingDatabase(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permission bits")
	}
	path := filepath.Join(t.TempDir(), store.FileName)
	if err := os.WriteFile(path, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil { // whatever the umask
		t.Fatal(err)
	}
	db := openAt(t, path)
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate of an empty existing file: %v", err)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("mode after Open: %v, %v; want 0640 kept", info.Mode().Perm(), err)
	}
}

// ProbeWrite commits its row on a database that takes writes, again and again.
func TestProbeWrite(t *testing.T) {
	db := openDB(t)
	sqliteOnly(t, db)
	ctx := context.Background()
	for range 2 {
		if err := db.ProbeWrite(ctx); err != nil {
			t.Fatalf("ProbeWrite: %v", err)
		}
	}
	conn, err := sql.Open("sqlite", db.Path()+"?_pragma=query_only(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM health_probe").Scan(&n); err != nil || n != 1 {
		t.Errorf("health_probe rows = %d (%v), want 1", n, err)
	}
}

// A write that finds no room on the disk (SQLITE_FULL, here from the
// writer's page limit) is finance.ErrStorageFull, stores nothing, and stands
// as the writes' failure at once, for health to report; the next write that
// commits ends it.
func TestWriteOnAFullDisk(t *testing.T) {
	db := openDB(t)
	sqliteOnly(t, db)
	ctx := context.Background()
	createUser(t, db, "ana@example.com")
	pages, err := db.WriterPragma(ctx, "page_count")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.WriterExec(ctx, "PRAGMA max_page_count = "+pages); err != nil {
		t.Fatal(err)
	}
	if at, err := db.WriteFailure(); err != nil {
		t.Fatalf("WriteFailure before any failed write = %v, %v", at, err)
	}

	big := newUser("ben@example.com")
	big.Name = strings.Repeat("a name that needs pages of its own ", 4096)
	err = db.CreateUser(ctx, big, "hash")
	if !errors.Is(err, finance.ErrStorageFull) {
		t.Fatalf("CreateUser on a full disk = %v, want finance.ErrStorageFull", err)
	}
	if _, err := db.UserByEmail(ctx, big.Email); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("the refused user was stored: %v", err)
	}
	if n, err := db.CountUsers(ctx); err != nil || n != 1 {
		t.Errorf("%d users (%v), want the first one only", n, err)
	}
	at, failure := db.WriteFailure()
	if failure == nil || at.IsZero() || !strings.Contains(failure.Error(), "a write failed on the disk") {
		t.Fatalf("WriteFailure right after the failed write = %v, %v; want the failure", at, failure)
	}

	if err := db.WriterExec(ctx, "PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateUser(ctx, big, "hash"); err != nil {
		t.Fatalf("CreateUser with room again: %v", err)
	}
	if _, failure := db.WriteFailure(); failure != nil {
		t.Errorf("WriteFailure after a write committed = %v, want none", failure)
	}
}

// ProbeWrite's commit ends a standing failure of the writes too, so that
// health recovers without waiting for a user's write.
func TestProbeWriteEndsAWriteFailure(t *testing.T) {
	db := openDB(t)
	sqliteOnly(t, db)
	ctx := context.Background()
	pages, err := db.WriterPragma(ctx, "page_count")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.WriterExec(ctx, "PRAGMA max_page_count = "+pages); err != nil {
		t.Fatal(err)
	}
	big := newUser("ben@example.com")
	big.Name = strings.Repeat("a name that needs pages of its own ", 4096)
	if err := db.CreateUser(ctx, big, "hash"); !errors.Is(err, finance.ErrStorageFull) {
		t.Fatalf("CreateUser on a full disk = %v, want finance.ErrStorageFull", err)
	}
	if _, failure := db.WriteFailure(); failure == nil {
		t.Fatal("no standing failure after the failed write")
	}
	if err := db.WriterExec(ctx, "PRAGMA max_page_count = 1073741823"); err != nil {
		t.Fatal(err)
	}
	if err := db.ProbeWrite(ctx); err != nil {
		t.Fatalf("ProbeWrite with room again: %v", err)
	}
	if _, failure := db.WriteFailure(); failure != nil {
		t.Errorf("WriteFailure after the probe committed = %v, want none", failure)
	}
}

// TestLargeCacheOnlyForLargeWork: the writer's page cache is small, large
// only while a statement backlog is billed, and small again afterwards, in
// the same transaction and after it.
func TestLargeCacheOnlyForLargeWork(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	sizes, err := db.LargeCacheSizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"-4096", "-65536", "-4096"}, sizes); diff != "" {
		t.Errorf("cache_size before, under and after the large cache (-want +got):\n%s", diff)
	}
	if got, err := db.WriterPragma(ctx, "cache_size"); err != nil || got != "-4096" {
		t.Errorf("writer cache_size after the transaction = %s (%v), want -4096", got, err)
	}
}
