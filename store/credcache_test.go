package store_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/oauth"
	"github.com/finance-app/finance/store"
)

// credentialHandles returns the server's store handle and a second handle on
// the same file, as the CLI opens it while the server runs.
func credentialHandles(t *testing.T) (server, cli *store.DB) {
	t.Helper()
	path := filepath.Join(t.TempDir(), store.FileName)
	server = openAt(t, path)
	if err := server.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return server, openAt(t, path)
}

func newAuthService(t *testing.T, db *store.DB) *auth.Service {
	t.Helper()
	jwt, err := auth.NewJWT([]byte("0123456789abcdef0123456789abcdef"), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return auth.NewService(db, jwt)
}

func TestCredentialCacheServesRepeatedRequests(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	svc := newAuthService(t, db)
	u, err := svc.CreateUser(ctx, auth.CreateUserRequest{Email: "a@example.com", Plan: finance.PlanPro, Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := svc.CreateKey(ctx, auth.CreateKeyRequest{UserID: u.ID, Name: "k", Scopes: []string{"finance:read"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Authenticate(ctx, key); err != nil {
		t.Fatalf("first Authenticate: %v", err)
	}
	before := db.CredentialQueries()
	for range 5 {
		if _, err := svc.Authenticate(ctx, key); err != nil {
			t.Fatalf("Authenticate: %v", err)
		}
	}
	if got := db.CredentialQueries() - before; got != 0 {
		t.Errorf("credential queries for 5 repeated requests = %d, want 0 (served from the cache)", got)
	}
	// The cached key still has its secret checked.
	if _, err := svc.Authenticate(ctx, key[:len(key)-1]+"x"); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("Authenticate(wrong secret) = %v, want ErrUnauthenticated", err)
	}
	// A write that changes no credential does not empty the cache.
	createUser(t, db, "b@example.com")
	before = db.CredentialQueries()
	if _, err := svc.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	if got := db.CredentialQueries() - before; got != 0 {
		t.Errorf("credential queries after an unrelated write = %d, want 0", got)
	}
}

func TestCredentialChangesAreSeenByTheNextRequest(t *testing.T) {
	for _, via := range []string{"same handle", "second handle"} {
		t.Run(via, func(t *testing.T) {
			ctx := context.Background()
			db, cli := credentialHandles(t)
			writer := db
			if via == "second handle" {
				writer = cli
			}
			svc, cliSvc := newAuthService(t, db), newAuthService(t, writer)
			u, err := svc.CreateUser(ctx, auth.CreateUserRequest{Email: "a@example.com", Plan: finance.PlanPro, Password: "correct horse battery"})
			if err != nil {
				t.Fatal(err)
			}
			k, key, err := svc.CreateKey(ctx, auth.CreateKeyRequest{UserID: u.ID, Name: "k", Scopes: []string{"finance:read"}})
			if err != nil {
				t.Fatal(err)
			}
			id, err := svc.Login(ctx, "a@example.com", "correct horse battery")
			if err != nil {
				t.Fatal(err)
			}
			jwt, err := svc.IssueToken(id)
			if err != nil {
				t.Fatal(err)
			}
			for _, tok := range []string{key, jwt, key, jwt} { // warm the cache
				if _, err := svc.Authenticate(ctx, tok); err != nil {
					t.Fatal(err)
				}
			}

			if _, err := cliSvc.SetPlan(ctx, "a@example.com", finance.PlanFree); err != nil {
				t.Fatal(err)
			}
			p, err := svc.Authenticate(ctx, key)
			if err != nil {
				t.Fatal(err)
			}
			if p.User.Plan != finance.PlanFree {
				t.Errorf("plan after set-plan = %q, want free", p.User.Plan)
			}

			if err := cliSvc.SetPassword(ctx, "a@example.com", "another long password"); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Authenticate(ctx, jwt); !errors.Is(err, auth.ErrUnauthenticated) {
				t.Errorf("token of the old password: Authenticate = %v, want ErrUnauthenticated", err)
			}

			if _, err := cliSvc.RevokeKey(ctx, "", k.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.Authenticate(ctx, key); !errors.Is(err, auth.ErrUnauthenticated) {
				t.Errorf("revoked key: Authenticate = %v, want ErrUnauthenticated", err)
			}
		})
	}
}

func TestCachedOAuthTokenGoneOnceRevoked(t *testing.T) {
	for _, via := range []string{"same handle", "second handle"} {
		t.Run(via, func(t *testing.T) {
			ctx := context.Background()
			db, cli := credentialHandles(t)
			writer := db
			if via == "second handle" {
				writer = cli
			}
			u := createUser(t, db, "a@example.com")
			at := now()
			client := oauth.Client{ID: finance.NewID(), Name: "app", RedirectURIs: []string{"http://127.0.0.1/cb"}, CreatedAt: at}
			if err := db.CreateOAuthClient(ctx, client); err != nil {
				t.Fatal(err)
			}
			code := oauth.Code{Hash: []byte("code-hash"), ClientID: client.ID, UserID: u.ID, RedirectURI: "http://127.0.0.1/cb",
				Challenge: "x", Scopes: []auth.Scope{auth.ScopeRead}, Resource: "r", CreatedAt: at, ExpiresAt: at.Add(time.Minute)}
			if err := db.CreateOAuthCode(ctx, code, nil); err != nil {
				t.Fatal(err)
			}
			g := oauth.Grant{ID: finance.NewID(), UserID: u.ID, ClientID: client.ID, Scopes: code.Scopes, Resource: "r",
				CreatedAt: at, ExpiresAt: at.Add(time.Hour)}
			tok := oauth.Token{Hash: []byte("access-hash"), GrantID: g.ID, Kind: oauth.AccessToken, Scopes: code.Scopes,
				CreatedAt: at, ExpiresAt: at.Add(time.Hour)}
			if err := db.CreateOAuthGrant(ctx, g, code.Hash, tok); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, _, err := db.OAuthToken(ctx, tok.Hash); err != nil {
					t.Fatal(err)
				}
			}
			before := db.CredentialQueries()
			if _, _, err := db.OAuthToken(ctx, tok.Hash); err != nil {
				t.Fatal(err)
			}
			if got := db.CredentialQueries() - before; got != 0 {
				t.Errorf("credential queries for a cached token = %d, want 0", got)
			}
			if err := writer.RevokeOAuthGrant(ctx, g.ID, now()); err != nil {
				t.Fatal(err)
			}
			if _, _, err := db.OAuthToken(ctx, tok.Hash); !errors.Is(err, finance.ErrNotFound) {
				t.Errorf("OAuthToken after revocation = %v, want ErrNotFound", err)
			}
		})
	}
}

// TestConcurrentRequestsSeeARevocation has requests authenticate from many
// goroutines, sharing generation checks, while the key is revoked through a
// second handle: every request that starts after the revocation returned
// is refused.
func TestConcurrentRequestsSeeARevocation(t *testing.T) {
	ctx := context.Background()
	db, cli := credentialHandles(t)
	svc := newAuthService(t, db)
	u, err := svc.CreateUser(ctx, auth.CreateUserRequest{Email: "a@example.com", Plan: finance.PlanPro, Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	k, key, err := svc.CreateKey(ctx, auth.CreateKeyRequest{UserID: u.ID, Name: "k", Scopes: []string{"finance:read"}})
	if err != nil {
		t.Fatal(err)
	}
	var revoked atomic.Bool
	stale := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				after := revoked.Load()
				_, err := svc.Authenticate(ctx, key)
				if after && err == nil {
					stale <- errors.New("a request that started after the revocation was authenticated")
					return
				}
				if after {
					return
				}
			}
		}()
	}
	if _, err := newAuthService(t, cli).RevokeKey(ctx, "", k.ID); err != nil {
		t.Fatal(err)
	}
	revoked.Store(true)
	wg.Wait()
	close(stale)
	for err := range stale {
		t.Error(err)
	}
	if _, err := svc.Authenticate(ctx, key); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("after the revocation: Authenticate = %v, want ErrUnauthenticated", err)
	}
}

// ReadAnsweredSince tells whether a read begun at or after a moment was
// answered: an authentication's freshness check is one when the last one is
// older than its recheck interval (under a second), so every authentication
// had a read answered at most a second before it.
func TestReadAnsweredSince(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	svc := newAuthService(t, db)
	start := time.Now()
	if db.ReadAnsweredSince(start) {
		t.Fatal("a fresh handle reports a read answered before any")
	}
	u, err := svc.CreateUser(ctx, auth.CreateUserRequest{Email: "a@example.com", Plan: finance.PlanPro, Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := svc.CreateKey(ctx, auth.CreateKeyRequest{UserID: u.ID, Name: "k", Scopes: []string{"finance:read"}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second one is served from the cache
		before := time.Now()
		if _, err := svc.Authenticate(ctx, key); err != nil {
			t.Fatal(err)
		}
		if !db.ReadAnsweredSince(before.Add(-time.Second)) {
			t.Error("no read answered in the second before an authentication")
		}
		if db.ReadAnsweredSince(time.Now()) {
			t.Error("a read reported answered after the last one began")
		}
	}
}

// The environment that makes TestHelperRevokeKey revoke a key.
const (
	helperDBEnv  = "FINANCE_STORE_HELPER_DB"
	helperKeyEnv = "FINANCE_STORE_HELPER_KEY"
)

// TestHelperRevokeKey is the other process of
// TestKeyRevokedByAnotherProcess: it opens the database as the CLI does and
// revokes a key. Run on its own, it does nothing.
func TestHelperRevokeKey(t *testing.T) {
	path, id := os.Getenv(helperDBEnv), os.Getenv(helperKeyEnv)
	if path == "" {
		t.Skip("the other process of TestKeyRevokedByAnotherProcess")
	}
	db := openAt(t, path)
	if _, err := newAuthService(t, db).RevokeKey(context.Background(), "", id); err != nil {
		t.Fatal(err)
	}
}

// A key revoked by another process (finance keys revoke while the server
// runs) is refused by the server within a second of the revocation's
// commit, although the server's cache holds the key: nothing of this
// process moved, so only the check of other processes' commits can see it.
func TestKeyRevokedByAnotherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), store.FileName)
	db := openAt(t, path)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	svc := newAuthService(t, db)
	u, err := svc.CreateUser(ctx, auth.CreateUserRequest{Email: "a@example.com", Plan: finance.PlanPro, Password: "correct horse battery"})
	if err != nil {
		t.Fatal(err)
	}
	k, key, err := svc.CreateKey(ctx, auth.CreateKeyRequest{UserID: u.ID, Name: "k", Scopes: []string{"finance:read"}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // the second is served from the cache
		if _, err := svc.Authenticate(ctx, key); err != nil {
			t.Fatal(err)
		}
	}
	before := db.CredentialQueries()
	if _, err := svc.Authenticate(ctx, key); err != nil {
		t.Fatal(err)
	}
	if n := db.CredentialQueries() - before; n != 0 {
		t.Fatalf("the key was read %d times, want it cached", n)
	}

	revoked := inOtherProcess(t, "TestHelperRevokeKey", helperDBEnv+"="+path, helperKeyEnv+"="+k.ID)
	withinASecond(t, revoked, "the revoked key refused", func() (bool, error) {
		_, err := svc.Authenticate(ctx, key)
		if errors.Is(err, auth.ErrUnauthenticated) {
			return true, nil
		}
		return false, err
	})
}

// inOtherProcess runs the test named test in a process of its own, with env
// added to this one's environment, and returns when it ended: what it
// committed, it committed before then.
func inOtherProcess(t *testing.T, test string, env ...string) time.Time {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the other process (%s): %v\n%s", test, err, out)
	}
	return time.Now()
}

// withinASecond asks until seen answers true, and fails the test when a
// question begun a second or more after since still answered false (or
// failed): what another process committed at since must be seen by then.
func withinASecond(t *testing.T, since time.Time, what string, seen func() (bool, error)) {
	t.Helper()
	for {
		asked := time.Now()
		ok, err := seen()
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			t.Logf("%s %v after the commit", what, asked.Sub(since).Round(time.Millisecond))
			return
		}
		if asked.Sub(since) >= time.Second {
			t.Fatalf("not yet %s by a question begun %v after the commit", what, asked.Sub(since))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The environment that makes TestHelperSaveTimezone save a user's timezone.
const helperUserEnv = "FINANCE_STORE_HELPER_USER"

// TestHelperSaveTimezone is the other process of
// TestSettingsSavedByAnotherProcess: a second replica on the same database
// saves the user's timezone. Run on its own, it does nothing.
func TestHelperSaveTimezone(t *testing.T) {
	path, id := os.Getenv(helperDBEnv), os.Getenv(helperUserEnv)
	if path == "" {
		t.Skip("the other process of TestSettingsSavedByAnotherProcess")
	}
	db := openAt(t, path)
	if _, err := finance.NewService(db).UpdateAppSettings(context.Background(), id,
		finance.AppSettingsRequest{Timezone: finance.Of("Pacific/Kiritimati")}); err != nil {
		t.Fatal(err)
	}
}

// Settings saved by another process (a second replica of the server on the
// same database) are what this process answers within a second, although
// it held the user's settings in memory: their timezone decides the user's
// today, and so when statements and bills fall due.
func TestSettingsSavedByAnotherProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), store.FileName)
	db := openAt(t, path)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	u := createUser(t, db, "a@example.com")
	svc := finance.NewService(db)
	for range 2 { // the second is answered from memory
		if st, err := svc.AppSettings(ctx, u.ID); err != nil || st.Timezone != finance.DefaultAppSettings().Timezone {
			t.Fatalf("AppSettings = %+v, %v", st, err)
		}
	}

	saved := inOtherProcess(t, "TestHelperSaveTimezone", helperDBEnv+"="+path, helperUserEnv+"="+u.ID)
	withinASecond(t, saved, "the new timezone answered", func() (bool, error) {
		st, err := svc.AppSettings(ctx, u.ID)
		return st.Timezone == "Pacific/Kiritimati", err
	})
}
