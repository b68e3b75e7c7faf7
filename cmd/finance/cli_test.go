package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// result is the outcome of one command line.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs one command line in-process against dataDir.
func runCLI(t *testing.T, dataDir, stdin string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args = append(withDatabaseURL(t, dataDir, args), "--data-dir", dataDir)
	code := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// mustRun runs a command line that must succeed.
func mustRun(t *testing.T, dataDir, stdin string, args ...string) result {
	t.Helper()
	r := runCLI(t, dataDir, stdin, args...)
	if r.code != 0 {
		t.Fatalf("finance %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// mustFail runs a command line that must fail: exit code 1, nothing on
// stdout, and an "error:" line on stderr containing wantErr.
func mustFail(t *testing.T, dataDir, stdin, wantErr string, args ...string) result {
	t.Helper()
	r := runCLI(t, dataDir, stdin, args...)
	if r.code != 1 {
		t.Fatalf("finance %s: exit %d, want 1\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("finance %s: failure wrote to stdout: %q", strings.Join(args, " "), r.stdout)
	}
	if !strings.HasPrefix(r.stderr, "error: ") || !strings.Contains(r.stderr, wantErr) {
		t.Errorf("finance %s: stderr = %q, want an error containing %q", strings.Join(args, " "), r.stderr, wantErr)
	}
	return r
}

// openStore opens the data directory's database the way the CLI does.
func openStore(t *testing.T, dataDir string) *store.DB {
	t.Helper()
	db, err := openDataDirStore(t, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// countUsers counts the users of the data directory's database, closing it
// at once: a database held open refuses a restore.
func countUsers(t *testing.T, dataDir string) int {
	t.Helper()
	db, err := openDataDirStore(t, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	n, err := db.CountUsers(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func userKeys(t *testing.T, dataDir, email string) []auth.APIKey {
	t.Helper()
	db := openStore(t, dataDir)
	u, err := db.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := db.ListAPIKeys(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

func login(t *testing.T, dataDir, email, password string) error {
	t.Helper()
	_, err := auth.NewService(openStore(t, dataDir), nil).Login(context.Background(), email, password)
	return err
}

const testPassword = "correct horse battery"

// createUser makes a user with a known password through the CLI.
func createUser(t *testing.T, dataDir, email string, extra ...string) {
	t.Helper()
	mustRun(t, dataDir, testPassword+"\n", append([]string{"users", "create", "--email", email, "--password-stdin"}, extra...)...)
}

var (
	keyLine      = regexp.MustCompile(`^svk_[a-z2-7]+_[a-z2-7]+\n$`)
	passwordLine = regexp.MustCompile(`(?m)^password: (\S+)$`)
	uuidPattern  = `[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}`
)

func TestUsersCreateGeneratesPassword(t *testing.T) {
	dir := t.TempDir()
	r := mustRun(t, dir, "", "users", "create", "--email", "  Ana@Example.com ", "--name", "Ana Cruz")

	if !regexp.MustCompile(`^created user ana@example\.com \(id ` + uuidPattern + `, plan pro\)\n`).MatchString(r.stdout) {
		t.Errorf("stdout = %q", r.stdout)
	}
	m := passwordLine.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no password line on stdout: %q", r.stdout)
	}
	password := m[1]
	if n := strings.Count(r.stdout, password); n != 1 {
		t.Errorf("password appears %d times on stdout, want once", n)
	}
	if strings.Contains(r.stderr, password) {
		t.Error("password leaked to stderr")
	}
	if !strings.Contains(r.stderr, "shown only now") {
		t.Errorf("stderr = %q, want a note that the password is shown once", r.stderr)
	}
	if err := login(t, dir, "ana@example.com", password); err != nil {
		t.Errorf("Login with the printed password: %v", err)
	}
	u, err := openStore(t, dir).UserByEmail(context.Background(), "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if u.Name != "Ana Cruz" || u.Plan != finance.PlanPro {
		t.Errorf("stored user = %+v", u)
	}
}

func TestUsersCreatePasswordStdin(t *testing.T) {
	dir := t.TempDir()
	r := mustRun(t, dir, "my own password\r\nignored second line\n", "users", "create", "--email", "ana@example.com", "--password-stdin")
	if strings.Contains(r.stdout, "password") {
		t.Errorf("stdout mentions a password although none was generated: %q", r.stdout)
	}
	if err := login(t, dir, "ana@example.com", "my own password"); err != nil {
		t.Errorf("Login with the stdin password: %v", err)
	}

	mustFail(t, dir, "", "no password on standard input", "users", "create", "--email", "ben@example.com", "--password-stdin")
	r = mustFail(t, dir, "short\n", "password must be 8 to 128 characters", "users", "create", "--email", "ben@example.com", "--password-stdin")
	if want := "error: Validation failed: password must be 8 to 128 characters\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
	if n := countUsers(t, dir); n != 1 {
		t.Errorf("%d users after refused creates, want 1", n)
	}
}

func TestUsersCreateRefusesDuplicateEmail(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	r := mustFail(t, dir, testPassword+"\n", "email is already registered", "users", "create", "--email", "ANA@example.COM", "--password-stdin")
	// The message is printed once, not once more for its field.
	if want := "error: Validation failed: email is already registered\n"; r.stderr != want {
		t.Errorf("stderr = %q, want %q", r.stderr, want)
	}
	if n := countUsers(t, dir); n != 1 {
		t.Errorf("%d users, want 1", n)
	}
}

func TestUsersCreatePlan(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "free@example.com", "--plan", "free")
	u, err := openStore(t, dir).UserByEmail(context.Background(), "free@example.com")
	if err != nil || u.Plan != finance.PlanFree {
		t.Errorf("plan = %q, %v; want free", u.Plan, err)
	}
	mustFail(t, dir, testPassword+"\n", "plan must be pro or free", "users", "create", "--email", "gold@example.com", "--plan", "gold", "--password-stdin")
	mustFail(t, dir, testPassword+"\n", "email must be a valid email address", "users", "create", "--email", "not-an-email", "--password-stdin")
	if n := countUsers(t, dir); n != 1 {
		t.Errorf("%d users after refused creates, want 1", n)
	}
}

func TestUsersCreateJSON(t *testing.T) {
	dir := t.TempDir()
	r := mustRun(t, dir, "", "users", "create", "--email", "ana@example.com", "--json")
	var got struct {
		ID       string `json:"id"`
		Email    string `json:"email"`
		Plan     string `json:"plan"`
		Password string `json:"password"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if !finance.ValidID(got.ID) || got.Email != "ana@example.com" || got.Plan != "pro" || got.Password == "" {
		t.Errorf("JSON = %+v", got)
	}
	if err := login(t, dir, "ana@example.com", got.Password); err != nil {
		t.Errorf("Login with the JSON password: %v", err)
	}

	r = mustRun(t, dir, testPassword+"\n", "users", "create", "--email", "ben@example.com", "--json", "--password-stdin")
	if strings.Contains(r.stdout, `"password"`) {
		t.Errorf("JSON carries a password that was not generated: %s", r.stdout)
	}
}

func TestUsersList(t *testing.T) {
	dir := t.TempDir()
	r := mustRun(t, dir, "", "users", "list", "--json")
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("users list --json on an empty database = %q, want []", r.stdout)
	}

	createUser(t, dir, "ana@example.com", "--name", "Ana")
	createUser(t, dir, "ben@example.com", "--plan", "free")

	r = mustRun(t, dir, "", "users", "list")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "ID") || !strings.Contains(lines[0], "EMAIL") {
		t.Fatalf("users list =\n%s", r.stdout)
	}
	if !strings.Contains(lines[1], "ana@example.com") || !strings.Contains(lines[1], "pro") ||
		!strings.Contains(lines[2], "ben@example.com") || !strings.Contains(lines[2], "free") {
		t.Errorf("users list rows, oldest first:\n%s", r.stdout)
	}

	r = mustRun(t, dir, "", "users", "list", "--json")
	var users []finance.User
	if err := json.Unmarshal([]byte(r.stdout), &users); err != nil {
		t.Fatalf("users list --json: %v\n%s", err, r.stdout)
	}
	var got []string
	for _, u := range users {
		got = append(got, u.Email+"/"+string(u.Plan)+"/"+u.Name)
	}
	if diff := cmp.Diff([]string{"ana@example.com/pro/Ana", "ben@example.com/free/"}, got); diff != "" {
		t.Errorf("users list --json (-want +got):\n%s", diff)
	}
	if strings.Contains(r.stdout, "argon2") || strings.Contains(r.stdout, "password") {
		t.Errorf("users list --json shows password material:\n%s", r.stdout)
	}
}

func TestUsersSetPlan(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	r := mustRun(t, dir, "", "users", "set-plan", "ANA@example.com", "free")
	if r.stdout != "user ana@example.com is now on the free plan\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	db := openStore(t, dir)
	if u, _ := db.UserByEmail(context.Background(), "ana@example.com"); u.Plan != finance.PlanFree {
		t.Errorf("plan = %s, want free", u.Plan)
	}
	mustFail(t, dir, "", "plan must be pro or free", "users", "set-plan", "ana@example.com", "gold")
	mustFail(t, dir, "", "user nobody@example.com not found", "users", "set-plan", "nobody@example.com", "pro")
	if u, _ := db.UserByEmail(context.Background(), "ana@example.com"); u.Plan != finance.PlanFree {
		t.Errorf("plan = %s after refused changes, want free", u.Plan)
	}
	mustRun(t, dir, "", "users", "set-plan", "ana@example.com", "pro")
	if u, _ := db.UserByEmail(context.Background(), "ana@example.com"); u.Plan != finance.PlanPro {
		t.Errorf("plan = %s, want pro", u.Plan)
	}
}

func TestUsersSetPassword(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	key := strings.TrimSpace(mustRun(t, dir, "", "keys", "create", "--user", "ana@example.com", "--name", "k", "--scopes", "all").stdout)

	// Sign-ins made with the old password: an access token and a browser session.
	ctx := context.Background()
	issuer, err := auth.NewJWT([]byte(strings.Repeat("s", 32)), auth.DefaultJWTTTL)
	if err != nil {
		t.Fatal(err)
	}
	svc := auth.NewService(openStore(t, dir), issuer)
	who, err := svc.Login(ctx, "ana@example.com", testPassword)
	if err != nil {
		t.Fatal(err)
	}
	token, err := svc.IssueToken(who)
	if err != nil {
		t.Fatal(err)
	}
	session, _, err := svc.StartSession(ctx, who)
	if err != nil {
		t.Fatal(err)
	}

	r := mustRun(t, dir, "a brand new password\n", "users", "set-password", "ana@example.com", "--password-stdin")
	if want := "password updated for ana@example.com; sign-ins with the old password (browser sessions, access tokens) have ended; API keys and connected apps keep working\n"; r.stdout != want {
		t.Errorf("stdout = %q, want %q", r.stdout, want)
	}
	if err := login(t, dir, "ana@example.com", "a brand new password"); err != nil {
		t.Errorf("Login with the new password: %v", err)
	}
	if _, err := svc.Authenticate(ctx, token); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("an access token from before the change: %v, want refused", err)
	}
	if _, err := svc.SessionUser(ctx, session); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("a browser session from before the change: %v, want ended", err)
	}
	if p, err := svc.Authenticate(ctx, key); err != nil || p.User.Email != "ana@example.com" {
		t.Errorf("the API key after the change: %+v, %v; want it to keep working", p, err)
	}
	if err := login(t, dir, "ana@example.com", testPassword); err == nil {
		t.Error("the old password still works")
	}

	r = mustRun(t, dir, "", "users", "set-password", "ana@example.com")
	m := passwordLine.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no generated password on stdout: %q", r.stdout)
	}
	if err := login(t, dir, "ana@example.com", m[1]); err != nil {
		t.Errorf("Login with the generated password: %v", err)
	}

	mustFail(t, dir, "short\n", "password must be 8 to 128 characters", "users", "set-password", "ana@example.com", "--password-stdin")
	mustFail(t, dir, testPassword+"\n", "not found", "users", "set-password", "nobody@example.com", "--password-stdin")
	if err := login(t, dir, "ana@example.com", m[1]); err != nil {
		t.Errorf("a refused change altered the password: %v", err)
	}
}

func TestKeysCreatePrintsOnlyTheKey(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	r := mustRun(t, dir, "", "keys", "create", "--user", "Ana@Example.com", "--name", "agent", "--scopes", "expenses:write,finance:read")
	if !keyLine.MatchString(r.stdout) {
		t.Fatalf("stdout = %q, want only the key", r.stdout)
	}
	key := strings.TrimSpace(r.stdout)

	keys := userKeys(t, dir, "ana@example.com")
	if len(keys) != 1 {
		t.Fatalf("%d keys stored, want 1", len(keys))
	}
	k := keys[0]
	if !strings.Contains(r.stderr, k.ID) || !strings.Contains(r.stderr, `"agent"`) || !strings.Contains(r.stderr, "expires never") {
		t.Errorf("stderr = %q, want the key's details", r.stderr)
	}
	if strings.Contains(r.stderr, key) {
		t.Error("the key is repeated on stderr")
	}
	if diff := cmp.Diff([]auth.Scope{auth.ScopeRead, auth.ScopeExpensesWrite}, k.Scopes); diff != "" {
		t.Errorf("stored scopes (-want +got):\n%s", diff)
	}
	if k.ExpiresAt != nil || k.Name != "agent" || !strings.HasPrefix(key, auth.KeyPrefix+k.PublicID+"_") {
		t.Errorf("stored key = %+v for %s", k, key)
	}
	// The printed key authenticates as its owner.
	p, err := auth.NewService(openStore(t, dir), nil).Authenticate(context.Background(), key)
	if err != nil || p.User.Email != "ana@example.com" || p.CredentialID != k.ID {
		t.Errorf("Authenticate(printed key) = %+v, %v", p, err)
	}
}

func TestKeysCreateJSON(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	r := mustRun(t, dir, "", "keys", "create", "--user", "ana@example.com", "--name", "agent", "--scopes", "finance:read", "--json")
	var got struct {
		Key       string       `json:"key"`
		ID        string       `json:"id"`
		Name      string       `json:"name"`
		Scopes    []auth.Scope `json:"scopes"`
		ExpiresAt *time.Time   `json:"expires_at"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, r.stdout)
	}
	if !keyLine.MatchString(got.Key+"\n") || got.Name != "agent" || got.ExpiresAt != nil {
		t.Errorf("JSON = %+v", got)
	}
	if diff := cmp.Diff([]auth.Scope{auth.ScopeRead}, got.Scopes); diff != "" {
		t.Errorf("scopes (-want +got):\n%s", diff)
	}
	keys := userKeys(t, dir, "ana@example.com")
	if len(keys) != 1 || keys[0].ID != got.ID {
		t.Errorf("stored keys %+v, want one with id %s", keys, got.ID)
	}
}

func TestKeysCreateScopes(t *testing.T) {
	every := make([]string, len(auth.Scopes))
	for i, s := range auth.Scopes {
		every[i] = string(s)
	}
	tests := []struct {
		name   string
		scopes string
		want   []auth.Scope
	}{
		{"all", "all", []auth.Scope{auth.ScopeAll}},
		{"every scope is stored as all", strings.Join(every, ","), []auth.Scope{auth.ScopeAll}},
		{"duplicates and blanks dropped, display order", "mcp:connect, finance:read,,finance:read", []auth.Scope{auth.ScopeRead, auth.ScopeMCP}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			createUser(t, dir, "ana@example.com")
			mustRun(t, dir, "", "keys", "create", "--user", "ana@example.com", "--name", "k", "--scopes", tt.scopes)
			keys := userKeys(t, dir, "ana@example.com")
			if len(keys) != 1 {
				t.Fatalf("%d keys", len(keys))
			}
			if diff := cmp.Diff(tt.want, keys[0].Scopes); diff != "" {
				t.Errorf("stored scopes (-want +got):\n%s", diff)
			}
		})
	}
}

func TestKeysCreateRefusals(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	tests := []struct {
		name    string
		wantErr string
		args    []string
	}{
		{"unknown scope", "unknown scope finance:delete", []string{"--scopes", "finance:read,finance:delete"}},
		{"unknown scope after all", "unknown scope finance:delete", []string{"--scopes", "all,finance:delete"}},
		{"no scope", "scopes must name at least one scope", []string{"--scopes", ","}},
		{"bad unit", `--expires-in "90x"`, []string{"--scopes", "all", "--expires-in", "90x"}},
		{"zero days", `--expires-in "0d"`, []string{"--scopes", "all", "--expires-in", "0d"}},
		{"negative days", `--expires-in "-5d"`, []string{"--scopes", "all", "--expires-in", "-5d"}},
		{"fractional days", `--expires-in "1.5d"`, []string{"--scopes", "all", "--expires-in", "1.5d"}},
		{"negative duration", `--expires-in "-1h"`, []string{"--scopes", "all", "--expires-in", "-1h"}},
		{"words", `--expires-in "soon"`, []string{"--scopes", "all", "--expires-in", "soon"}},
		{"more than 10 years", `--expires-in "3651d": a key may live at most 10 years`, []string{"--scopes", "all", "--expires-in", "3651d"}},
		{"days overflowing a duration", `--expires-in "213504d": a key may live at most 10 years`, []string{"--scopes", "all", "--expires-in", "213504d"}},
		{"missing scopes flag", `"scopes" not set`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"keys", "create", "--user", "ana@example.com", "--name", "k"}, tt.args...)
			mustFail(t, dir, "", tt.wantErr, args...)
		})
	}
	mustFail(t, dir, "", "user nobody@example.com not found", "keys", "create", "--user", "nobody@example.com", "--name", "k", "--scopes", "all")
	mustFail(t, dir, "", "name is required", "keys", "create", "--user", "ana@example.com", "--name", " ", "--scopes", "all")
	if keys := userKeys(t, dir, "ana@example.com"); len(keys) != 0 {
		t.Errorf("refused creates stored %d keys", len(keys))
	}
}

func TestKeysCreateExpiresIn(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"90d", 90 * 24 * time.Hour},
		{"2w", 14 * 24 * time.Hour},
		{"12h", 12 * time.Hour},
		{"30m", 30 * time.Minute},
		{"3650d", 3650 * 24 * time.Hour},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			dir := t.TempDir()
			createUser(t, dir, "ana@example.com")
			before := time.Now()
			mustRun(t, dir, "", "keys", "create", "--user", "ana@example.com", "--name", "k", "--scopes", "all", "--expires-in", tt.in)
			after := time.Now()
			keys := userKeys(t, dir, "ana@example.com")
			if len(keys) != 1 || keys[0].ExpiresAt == nil {
				t.Fatalf("stored keys = %+v, want one with an expiry", keys)
			}
			// A tolerance of minutes: this checks the arithmetic, not the speed.
			exp := *keys[0].ExpiresAt
			lo, hi := before.Add(tt.want-2*time.Minute), after.Add(tt.want+2*time.Minute)
			if exp.Before(lo) || exp.After(hi) {
				t.Errorf("expires_at = %v, want about now + %v", exp, tt.want)
			}
			if got := exp.Sub(keys[0].CreatedAt); got < tt.want-time.Second || got > tt.want+time.Second {
				t.Errorf("expires_at - created_at = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestKeysList(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	createUser(t, dir, "ben@example.com")
	active := strings.TrimSpace(mustRun(t, dir, "", "keys", "create", "--user", "ana@example.com", "--name", "active-key", "--scopes", "finance:read,expenses:write").stdout)
	revoked := strings.TrimSpace(mustRun(t, dir, "", "keys", "create", "--user", "ana@example.com", "--name", "revoked-key", "--scopes", "all").stdout)
	bens := strings.TrimSpace(mustRun(t, dir, "", "keys", "create", "--user", "ben@example.com", "--name", "bens-key", "--scopes", "all").stdout)

	db := openStore(t, dir)
	ana, err := db.UserByEmail(context.Background(), "ana@example.com")
	if err != nil {
		t.Fatal(err)
	}
	// An already expired key, written directly: the CLI only makes future expiries.
	past := time.Now().UTC().Add(-time.Hour)
	if err := db.CreateAPIKey(context.Background(), auth.APIKey{ID: finance.NewID(), UserID: ana.ID, Name: "expired-key",
		PublicID: "expiredpublicid", SecretHash: make([]byte, 32), Scopes: []auth.Scope{auth.ScopeRead},
		CreatedAt: past.Add(-time.Hour), ExpiresAt: &past}); err != nil {
		t.Fatal(err)
	}
	var revokedID string
	for _, k := range userKeys(t, dir, "ana@example.com") {
		if k.Name == "revoked-key" {
			revokedID = k.ID
		}
	}
	mustRun(t, dir, "", "keys", "revoke", revokedID)

	secretOf := func(key string) string { return key[strings.LastIndex(key, "_")+1:] }
	publicOf := func(key string) string { return key[:strings.LastIndex(key, "_")] }

	r := mustRun(t, dir, "", "keys", "list", "--user", "ana@example.com")
	for _, key := range []string{active, revoked} {
		if strings.Contains(r.stdout, secretOf(key)) {
			t.Errorf("keys list prints the secret of %s", publicOf(key))
		}
		if !strings.Contains(r.stdout, publicOf(key)) {
			t.Errorf("keys list does not show the prefix %s", publicOf(key))
		}
	}
	if strings.Contains(r.stdout, publicOf(bens)) {
		t.Error("keys list shows another user's key")
	}
	wantStatus := map[string]string{"active-key": "active", "revoked-key": "revoked", "expired-key": "expired"}
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 4 || !strings.Contains(lines[0], "STATUS") {
		t.Fatalf("keys list =\n%s", r.stdout)
	}
	for _, line := range lines[1:] {
		fields := strings.Fields(line)
		if len(fields) < 5 || wantStatus[fields[1]] != fields[4] {
			t.Errorf("row %q: want status %q", line, wantStatus[fields[1]])
		}
	}

	r = mustRun(t, dir, "", "keys", "list", "--user", "ana@example.com", "--json")
	for _, key := range []string{active, revoked} {
		if strings.Contains(r.stdout, secretOf(key)) {
			t.Errorf("keys list --json prints the secret of %s", publicOf(key))
		}
	}
	var rows []struct {
		ID         string       `json:"id"`
		Name       string       `json:"name"`
		Prefix     string       `json:"prefix"`
		Status     string       `json:"status"`
		Scopes     []auth.Scope `json:"scopes"`
		LastUsedAt *time.Time   `json:"last_used_at"`
		RevokedAt  *time.Time   `json:"revoked_at"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rows); err != nil {
		t.Fatalf("keys list --json: %v\n%s", err, r.stdout)
	}
	got := map[string]string{}
	for _, row := range rows {
		got[row.Name] = row.Status
		if row.Name == "active-key" && (row.Prefix != publicOf(active) || len(row.Scopes) != 2) {
			t.Errorf("active-key row = %+v", row)
		}
		if (row.Status == "revoked") != (row.RevokedAt != nil) {
			t.Errorf("row %s: status %s, revoked_at %v", row.Name, row.Status, row.RevokedAt)
		}
	}
	if diff := cmp.Diff(wantStatus, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if strings.Contains(r.stdout, "secret") {
		t.Errorf("keys list --json has a secret field:\n%s", r.stdout)
	}
	mustFail(t, dir, "", "not found", "keys", "list", "--user", "nobody@example.com")
}

func TestKeysRevoke(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	key := strings.TrimSpace(mustRun(t, dir, "", "keys", "create", "--user", "ana@example.com", "--name", "doomed", "--scopes", "all").stdout)
	mustRun(t, dir, "", "keys", "create", "--user", "ana@example.com", "--name", "kept", "--scopes", "all")
	var doomed, kept auth.APIKey
	for _, k := range userKeys(t, dir, "ana@example.com") {
		if k.Name == "doomed" {
			doomed = k
		} else {
			kept = k
		}
	}

	r := mustRun(t, dir, "", "keys", "revoke", doomed.ID)
	if r.stdout != `revoked key "doomed" (id `+doomed.ID+")\n" {
		t.Errorf("stdout = %q", r.stdout)
	}
	db := openStore(t, dir)
	got, err := db.APIKeyByID(context.Background(), doomed.ID)
	if err != nil || got.RevokedAt == nil {
		t.Fatalf("after revoke: %+v, %v", got, err)
	}
	if other, _ := db.APIKeyByID(context.Background(), kept.ID); other.RevokedAt != nil {
		t.Error("revoke touched another key")
	}
	if _, err := auth.NewService(db, nil).Authenticate(context.Background(), key); err == nil {
		t.Error("a revoked key still authenticates")
	}

	mustFail(t, dir, "", "already revoked", "keys", "revoke", doomed.ID)
	again, _ := db.APIKeyByID(context.Background(), doomed.ID)
	if !again.RevokedAt.Equal(*got.RevokedAt) {
		t.Errorf("second revoke moved revoked_at from %v to %v", got.RevokedAt, again.RevokedAt)
	}
	mustFail(t, dir, "", "not found", "keys", "revoke", finance.NewID())
	mustFail(t, dir, "", "accepts 1 arg", "keys", "revoke")
}

// finance backup writes a sound copy readable by its owner only, never
// overwrites, and leaves no file when it fails; on Postgres it is refused.
func TestBackup(t *testing.T) {
	dir := t.TempDir()
	createUser(t, dir, "ana@example.com")
	dest := filepath.Join(t.TempDir(), "finance-backup.db")
	if onPostgres() {
		checkRefusedOnPostgres(t, runCLI(t, dir, "", "backup", dest))
		checkNoFile(t, dest)
		if n := countUsers(t, dir); n != 1 {
			t.Errorf("after a refused backup the database holds %d users, want 1", n)
		}
		return
	}

	r := mustRun(t, dir, "", "backup", dest)
	if !regexp.MustCompile(`^backup written to .+ \(\d+ bytes, integrity ok\)\n$`).MatchString(r.stdout) {
		t.Errorf("stdout = %q", r.stdout)
	}
	if err := store.IntegrityCheck(context.Background(), dest); err != nil {
		t.Fatalf("IntegrityCheck: %v", err)
	}
	checkOwnerOnly(t, dest)
	cp, err := store.Open(dest)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Close()
	if _, err := cp.UserByEmail(context.Background(), "ana@example.com"); err != nil {
		t.Errorf("user missing from the backup: %v", err)
	}

	before, err := os.ReadFile(dest)
	if err != nil {
		t.Fatal(err)
	}
	mustFail(t, dir, "", "refusing to overwrite", "backup", dest)
	after, _ := os.ReadFile(dest)
	if !bytes.Equal(before, after) {
		t.Error("a refused backup changed the existing file")
	}

	empty := t.TempDir()
	missingDest := filepath.Join(t.TempDir(), "nothing.db")
	mustFail(t, empty, "", "no database", "backup", missingDest)
	if _, err := os.Stat(missingDest); !errors.Is(err, os.ErrNotExist) {
		t.Error("a failed backup left a file")
	}
	mustFail(t, dir, "", "accepts 1 arg", "backup")
}

func TestBackupHelpSaysHowToRestore(t *testing.T) {
	r := mustRun(t, t.TempDir(), "", "backup", "--help")
	for _, want := range []string{
		"stop the server and run finance restore FILE",
		"profile pictures and the key that signs sign-ins included",
		"mode 0600",
		"never\noverwrites",
		"FILE is removed",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("backup --help lacks %q:\n%s", want, r.stdout)
		}
	}
}

// A copy of finance.db made while the server runs lacks the writes still in
// finance.db-wal and can be corrupt: the help, the README and
// docs/backup.md say to back up with finance backup, and to copy the file
// only after a clean stop.
func TestBackupAdviceWarnsAgainstFileCopies(t *testing.T) {
	help := mustRun(t, t.TempDir(), "", "backup", "--help").stdout
	for _, want := range []string{
		"Back up with this command, not by copying finance.db",
		"a copy of finance.db lacks them",
		"A file copy is safe only after a clean stop",
	} {
		if !strings.Contains(help, want) {
			t.Errorf("backup --help lacks %q:\n%s", want, help)
		}
	}
	readme := readRepoFile(t, "README.md")
	opening, _, _ := strings.Cut(readme, "## Install")
	if strings.Contains(opening, "backup is one file") || !strings.Contains(opening, "`finance backup FILE` at any time") {
		t.Errorf("the README's opening does not point at finance backup:\n%s", opening)
	}
	_, section, ok := strings.Cut(readme, "\n## Backups\n")
	section, _, _ = strings.Cut(section, "\n## ")
	for _, want := range []string{
		"Back up with `finance backup`, at any time",
		"**Do not copy `finance.db` while the server runs**",
		"](docs/backup.md)",
	} {
		if !ok || !strings.Contains(section, want) {
			t.Errorf("the README's Backups section lacks %q", want)
		}
	}
	page := readRepoFile(t, "docs/backup.md")
	for _, want := range []string{
		"Back up with `finance backup`, at any time",
		"**Do not copy `finance.db` while the server runs**",
		"Copying the database file is safe only after a clean stop",
		"`finance restore FILE`",
		"## Scheduled backups",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("docs/backup.md lacks %q", want)
		}
	}
}

// readRepoFile reads a file of the repository by its path from the root.
func readRepoFile(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(path)))
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func TestMigrate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "data")
	for range 2 {
		r := mustRun(t, dir, "", "migrate")
		if !strings.Contains(r.stderr, "database is up to date") {
			t.Errorf("stderr = %q", r.stderr)
		}
	}
	checkOwnerOnly(t, dir)
	if onPostgres() {
		// The schema is in the Postgres database; the data directory holds
		// no database file.
		if n := countUsers(t, dir); n != 0 {
			t.Errorf("a new database holds %d users", n)
		}
		checkNoFile(t, filepath.Join(dir, store.FileName))
		return
	}
	if err := store.IntegrityCheck(context.Background(), filepath.Join(dir, store.FileName)); err != nil {
		t.Errorf("migrate left no sound database: %v", err)
	}
	checkOwnerOnly(t, filepath.Join(dir, store.FileName))
}

func TestVersion(t *testing.T) {
	r := mustRun(t, t.TempDir(), "", "version")
	if !regexp.MustCompile(`^finance \S+\n$`).MatchString(r.stdout) {
		t.Errorf("stdout = %q", r.stdout)
	}
	if r.stderr != "" {
		t.Errorf("stderr = %q", r.stderr)
	}
}

func TestErrorsGoToStderr(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		wantErr string
		args    []string
	}{
		{"unknown command", `unknown command "frobnicate"`, []string{"frobnicate"}},
		{"unknown flag", "unknown flag: --colour", []string{"users", "list", "--colour"}},
		{"missing required flag", `"email" not set`, []string{"users", "create"}},
		{"extra argument", "unknown command", []string{"version", "extra"}},
		{"missing user", "not found", []string{"keys", "list", "--user", "nobody@example.com"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustFail(t, dir, "", tt.wantErr, tt.args...)
		})
	}
}

func TestNoDataDirectory(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"users", "list", "--data-dir", ""}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "no data directory") || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

func TestParseExpiresIn(t *testing.T) {
	const (
		malformed = "want a positive number of days"
		tooLong   = "a key may live at most 10 years"
	)
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"", 0, ""},
		{"90d", 90 * 24 * time.Hour, ""},
		{" 2w ", 14 * 24 * time.Hour, ""},
		{"12h", 12 * time.Hour, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"3650d", auth.MaxKeyLifetime, ""},
		{"521w", 521 * 7 * 24 * time.Hour, ""},
		{"87600h", auth.MaxKeyLifetime, ""},
		{"0d", 0, malformed},
		{"0s", 0, malformed},
		{"d", 0, malformed},
		{"-1d", 0, malformed},
		{"1y", 0, malformed},
		{"ninety days", 0, malformed},
		{"-99999999999999999999d", 0, malformed},
		{"3651d", 0, tooLong},
		{"522w", 0, tooLong},
		{"87601h", 0, tooLong},
		// 213504 days overflow time.Duration: unchecked, they wrapped to 25 minutes.
		{"213504d", 0, tooLong},
		{"300000d", 0, tooLong},
		{"30500w", 0, tooLong},
		{"99999999999999999999d", 0, tooLong},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseExpiresIn(tt.in)
			if got != tt.want {
				t.Errorf("parseExpiresIn(%q) = %v, want %v", tt.in, got, tt.want)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("parseExpiresIn(%q): %v", tt.in, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("parseExpiresIn(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
		})
	}
}

// checkOwnerOnly fails unless path exists and, where Unix permissions apply,
// only its owner may read or write it.
func checkOwnerOnly(t *testing.T, path string) {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "windows" {
		return // no Unix permission bits
	}
	if perm := info.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("%s has mode %#o; want no access for group and others", filepath.Base(path), perm)
	}
}
