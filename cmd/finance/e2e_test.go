package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finance-app/finance/store"
)

// e2eWait bounds every wait for the child process so that a broken build
// fails instead of hanging. It is a guard, never an assertion about speed.
const e2eWait = 2 * time.Minute

// built is the binary compiled once for every test of the package.
var built struct {
	once      sync.Once
	dir, path string
	err       error
}

// buildBinary compiles the real binary, pure Go as it ships, once per test run.
func buildBinary(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go tool not found: %v", err)
	}
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "finance-test-bin-"); built.err != nil {
			return
		}
		built.path = filepath.Join(built.dir, "finance")
		cmd := exec.Command(goTool, "build", "-o", built.path, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	if err := dropDataDirDatabases(); err != nil {
		fmt.Fprintln(os.Stderr, "drop the Postgres test databases:", err)
		code = 1
	}
	os.Exit(code)
}

// binCLI runs one command of the built binary against dataDir.
func binCLI(t *testing.T, bin, dataDir, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(withDatabaseURL(t, dataDir, args), "--data-dir", dataDir)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("finance %s: %v", strings.Join(args, " "), err)
	}
	return result{code, stdout.String(), stderr.String()}
}

func binMustRun(t *testing.T, bin, dataDir, stdin string, args ...string) result {
	t.Helper()
	r := binCLI(t, bin, dataDir, stdin, args...)
	if r.code != 0 {
		t.Fatalf("finance %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// serverProc is a running `finance serve`.
type serverProc struct {
	cmd     *exec.Cmd
	url     string
	lines   chan string // stderr, line by line, until it closes
	mu      sync.Mutex
	log     strings.Builder
	exited  chan struct{}
	waitErr error
}

// listenLine finds the server's URL in its start-up line, in either log format.
var listenLine = regexp.MustCompile(`(?:url=|"url":")(http://127\.0\.0\.1:\d+)`)

// startServer starts `finance serve` on a free loopback port and waits for
// the line announcing its URL.
func startServer(t *testing.T, bin, dataDir string) *serverProc {
	t.Helper()
	return startServerCmd(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir))
}

// startServerCmd is startServer for a command that runs `finance serve`
// some other way (under a shell that sets limits first, say). On Postgres
// the server uses the database of the directory its --data-dir names.
func startServerCmd(t *testing.T, cmd *exec.Cmd) *serverProc {
	t.Helper()
	setDatabaseEnv(t, cmd, flagValue(cmd.Args, "--data-dir"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serverProc{cmd: cmd, lines: make(chan string, 1024), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			p.mu.Lock()
			p.log.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			select {
			case p.lines <- sc.Text():
			default: // nobody is waiting for lines any more; the log keeps them
			}
		}
		close(p.lines)
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
		if t.Failed() {
			t.Logf("server log:\n%s", p.stderr())
		}
	})
	m := p.waitLine(t, listenLine)
	p.url = m[1]
	return p
}

// waitLine reads stderr lines until one matches re and returns the submatches.
func (p *serverProc) waitLine(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	guard := time.After(e2eWait)
	for {
		select {
		case line, ok := <-p.lines:
			if !ok {
				t.Fatalf("server exited before logging %q", re)
			}
			if m := re.FindStringSubmatch(line); m != nil {
				return m
			}
		case <-guard:
			t.Fatalf("server did not log %q", re)
		}
	}
}

func (p *serverProc) stderr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// interrupt sends SIGINT and returns the exit code.
func (p *serverProc) interrupt(t *testing.T) int {
	t.Helper()
	if err := p.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatalf("SIGINT: %v", err)
	}
	select {
	case <-p.exited:
	case <-time.After(e2eWait):
		t.Fatal("server did not exit after SIGINT")
	}
	var exit *exec.ExitError
	if errors.As(p.waitErr, &exit) {
		return exit.ExitCode()
	} else if p.waitErr != nil {
		t.Fatalf("wait: %v", p.waitErr)
	}
	return 0
}

// kill stops the server at once with SIGKILL, as a crash or a power cut
// would: no shutdown code runs.
func (p *serverProc) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	select {
	case <-p.exited:
	case <-time.After(e2eWait):
		t.Fatal("server did not exit after SIGKILL")
	}
}

// envelope is the response body of every API route.
type envelope struct {
	Success bool            `json:"success"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data"`
	Error   *struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"error"`
}

func call(t *testing.T, method, url, token string, body any) (int, envelope) {
	t.Helper()
	resp, raw := send(t, method, url, token, nil, body)
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatalf("%s %s: body is not a JSON envelope: %v\n%s", method, url, err, raw)
	}
	return resp.StatusCode, env
}

// send makes one request with token, the extra headers given and body (as
// JSON, unless nil), and returns the response with its body read.
func send(t *testing.T, method, url, token string, header http.Header, body any) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, raw
}

type health struct {
	Status   string `json:"status"`
	Version  string `json:"version"`
	Database string `json:"database"`
}

func checkHealthy(t *testing.T, baseURL, token, wantVersion string) {
	t.Helper()
	status, env := call(t, http.MethodGet, baseURL+"/api/v1/health", token, nil)
	if status != http.StatusOK || !env.Success {
		t.Fatalf("GET /api/v1/health: %d %+v", status, env)
	}
	var h health
	if err := json.Unmarshal(env.Data, &h); err != nil {
		t.Fatal(err)
	}
	if h != (health{Status: "ok", Version: wantVersion, Database: "ok"}) {
		t.Errorf("health data = %+v, want status ok, version %s, database ok", h, wantVersion)
	}
	// Started, the server is ready: its schema migrated and writes commit.
	if status, env := call(t, http.MethodGet, baseURL+"/readyz", "", nil); status != http.StatusOK || env.Message != "Ready" {
		t.Errorf("GET /readyz: %d %+v, want 200 Ready", status, env)
	}
}

func checkUnauthorized(t *testing.T, baseURL, token string) {
	t.Helper()
	status, env := call(t, http.MethodGet, baseURL+"/api/v1/health", token, nil)
	if status != http.StatusUnauthorized || env.Success || env.Error == nil || env.Error.Code != "UNAUTHORIZED" || env.Error.Message == "" {
		t.Errorf("GET /api/v1/health with token %q: %d %+v, want 401 UNAUTHORIZED envelope", token, status, env)
	}
}

// wrongSecret returns key with the last character of its secret changed.
func wrongSecret(key string) string {
	last := byte('a')
	if key[len(key)-1] == last {
		last = 'b'
	}
	return key[:len(key)-1] + string(last)
}

// TestEndToEnd drives the real binary as a self-hoster would: first start,
// users and keys from the CLI, HTTP calls, a live backup, and a graceful stop.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test builds and runs the binary")
	}
	bin := buildBinary(t)
	dataDir := filepath.Join(t.TempDir(), "data") // made by the server, as on a first start
	version := strings.TrimPrefix(strings.TrimSpace(binMustRun(t, bin, dataDir, "", "version").stdout), "finance ")

	// First start on an empty data directory: a hint to create the first user.
	first := startServer(t, bin, dataDir)
	first.waitLine(t, regexp.MustCompile(`No users yet`))
	// The hint names this binary and the data directory, ready to paste.
	first.waitLine(t, regexp.MustCompile(`^  `+regexp.QuoteMeta(shellQuote(bin)+" users create --email you@example.com --data-dir "+shellQuote(dataDir))+`$`))
	// Everything the server created is its owner's only, the database's
	// WAL and shared-memory files included (they exist while it runs).
	db := filepath.Join(dataDir, store.FileName)
	made := []string{dataDir, db, db + "-wal", db + "-shm"}
	if onPostgres() {
		made = []string{dataDir} // the database is the Postgres server's
		checkNoFile(t, db)
	}
	for _, p := range made {
		checkOwnerOnly(t, p)
	}
	if code := first.interrupt(t); code != 0 {
		t.Fatalf("first server exited %d after SIGINT, want 0", code)
	}
	if strings.Contains(first.stderr(), "other users of this computer may read") {
		t.Errorf("a warning about permissions on a fresh data directory:\n%s", first.stderr())
	}

	const email, password = "e2e@example.com", "end to end password"
	binMustRun(t, bin, dataDir, password+"\n", "users", "create", "--email", email, "--password-stdin")
	key := binMustRun(t, bin, dataDir, "", "keys", "create", "--user", email, "--name", "e2e", "--scopes", "finance:read").stdout
	if !keyLine.MatchString(key) {
		t.Fatalf("keys create stdout = %q", key)
	}
	key = strings.TrimSpace(key)

	// Files another user may read (a database copied in with cp, say, or
	// the key file an earlier version left) are reported at start, with the
	// command that fixes them.
	keyFile := filepath.Join(dataDir, "jwt.key")
	loose := map[string]os.FileMode{db: 0o644, keyFile: 0o640}
	warnings := []*regexp.Regexp{
		regexp.MustCompile(`level=WARN msg="other users of this computer may read this file; only its owner should" path=` +
			regexp.QuoteMeta(db) + ` mode=0644 fix="chmod 600 ` + regexp.QuoteMeta(db) + `"\n`),
		regexp.MustCompile(`level=WARN .* path=` + regexp.QuoteMeta(keyFile) + ` mode=0640 fix="chmod 600 `),
	}
	if onPostgres() {
		delete(loose, db)
		warnings = warnings[1:]
	}
	if runtime.GOOS != "windows" {
		if err := os.WriteFile(keyFile, []byte(strings.Repeat("k", 32)), 0o600); err != nil {
			t.Fatal(err)
		}
		for path, mode := range loose {
			if err := os.Chmod(path, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	srv := startServer(t, bin, dataDir)
	if runtime.GOOS != "windows" {
		// Logged before the line announcing the URL, which startServer waited for.
		log := srv.stderr()
		for _, want := range warnings {
			if !want.MatchString(log) {
				t.Errorf("server log lacks %q:\n%s", want, log)
			}
		}
	}

	checkHealthy(t, srv.url, key, version)
	checkUnauthorized(t, srv.url, "")
	checkUnauthorized(t, srv.url, wrongSecret(key))
	checkUnauthorized(t, srv.url, "abc.def") // the retired format

	status, env := call(t, http.MethodPost, srv.url+"/api/v1/auth/login", "", map[string]string{"email": email, "password": password})
	if status != http.StatusOK || !env.Success {
		t.Fatalf("POST /api/v1/auth/login: %d %+v", status, env)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if err := json.Unmarshal(env.Data, &tok); err != nil || tok.AccessToken == "" || tok.TokenType != "Bearer" {
		t.Fatalf("login data = %s (%v)", env.Data, err)
	}
	checkHealthy(t, srv.url, tok.AccessToken, version)
	status, env = call(t, http.MethodPost, srv.url+"/api/v1/auth/login", "", map[string]string{"email": email, "password": "wrong password"})
	if status != http.StatusUnauthorized || env.Error == nil || env.Error.Code != "UNAUTHORIZED" {
		t.Errorf("login with a wrong password: %d %+v, want 401 UNAUTHORIZED", status, env)
	}

	// A backup taken while the server runs is a sound, complete database.
	// On Postgres backup is refused: Postgres's own tools back it up.
	backup := filepath.Join(t.TempDir(), "live-backup.db")
	if onPostgres() {
		checkRefusedOnPostgres(t, binCLI(t, bin, dataDir, "", "backup", backup))
		checkNoFile(t, backup)
	} else {
		binMustRun(t, bin, dataDir, "", "backup", backup)
		if err := store.IntegrityCheck(context.Background(), backup); err != nil {
			t.Fatalf("backup taken while serving: %v", err)
		}
		cp, err := store.Open(backup)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cp.UserByEmail(context.Background(), email); err != nil {
			t.Errorf("user missing from the live backup: %v", err)
		}
		cp.Close()
	}

	// Graceful shutdown: exit 0, and the key's last use (kept in memory and
	// flushed periodically) is written before the database closes.
	if code := srv.interrupt(t); code != 0 {
		t.Fatalf("server exited %d after SIGINT, want 0\n%s", code, srv.stderr())
	}
	log := srv.stderr()
	for _, want := range []string{"shutting down", "stopped"} {
		if !strings.Contains(log, want) {
			t.Errorf("server log lacks %q", want)
		}
	}
	if strings.Contains(log, "No users yet") {
		t.Error("the first-user hint is shown although a user exists")
	}

	var keys []struct {
		Name       string     `json:"name"`
		Status     string     `json:"status"`
		LastUsedAt *time.Time `json:"last_used_at"`
	}
	out := binMustRun(t, bin, dataDir, "", "keys", "list", "--user", email, "--json").stdout
	if err := json.Unmarshal([]byte(out), &keys); err != nil {
		t.Fatalf("keys list --json: %v\n%s", err, out)
	}
	if len(keys) != 1 || keys[0].Status != "active" || keys[0].LastUsedAt == nil {
		t.Fatalf("keys after shutdown = %s, want the e2e key with last_used_at set", out)
	}
	if strings.Contains(out, key[strings.LastIndex(key, "_")+1:]) {
		t.Error("keys list prints the secret")
	}
}

// The file size limit of the tests that make writes fail as on a full
// disk. ulimit -f counts 512-byte blocks in dash and 1024-byte ones in bash:
// 64 or 128 KiB.
const (
	fileSizeLimitBlocks  = 128
	largestFileSizeLimit = 128 * 1024
)

// limitShell returns a POSIX shell to set a file size limit with ulimit
// before it execs the binary (Go ignores SIGXFSZ, so an oversized write
// fails with EFBIG), or skips the test where there is none.
func limitShell(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("file size limits are a Unix feature")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skipf("no POSIX shell for ulimit: %v", err)
	}
	return sh
}

// TestBackupFailureLeavesNoFile runs the real binary under a file size limit
// smaller than the database, so VACUUM INTO fails part way as on a full disk
// (Go ignores SIGXFSZ, so the write fails with EFBIG). The partial copy must
// be gone, and a retry to the same path without the limit must succeed.
func TestBackupFailureLeavesNoFile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	skipOnPostgres(t, "a backup failing part way through its copy of the file; on Postgres backup is refused (TestBackup)")
	sh := limitShell(t)
	bin := buildBinary(t)
	dataDir := t.TempDir()
	createUser(t, dataDir, "ana@example.com")
	// The limit leaves room for the source's 32 KiB shared-memory file and is
	// well below the database, so only the copy can fail.
	if info, err := os.Stat(filepath.Join(dataDir, store.FileName)); err != nil || info.Size() <= 2*largestFileSizeLimit {
		t.Fatalf("the database must be larger than twice the limit: %v, %v", info, err)
	}
	dest := filepath.Join(t.TempDir(), "finance-backup.db")

	ctx, cancel := context.WithTimeout(context.Background(), e2eWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, sh, "-c", fmt.Sprintf(`ulimit -f %d && exec "$0" backup "$1" --data-dir "$2"`, fileSizeLimitBlocks), bin, dest, dataDir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("backup under a file size limit: %v, want exit 1\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	if want := "error: backup: writing " + dest + ": "; !strings.HasPrefix(stderr.String(), want) || stdout.Len() != 0 {
		t.Errorf("stdout %q, stderr %q; want nothing on stdout and an error starting %q", stdout.String(), stderr.String(), want)
	}
	entries, err := os.ReadDir(filepath.Dir(dest))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("a failed backup left %s behind", e.Name())
	}

	r := binMustRun(t, bin, dataDir, "", "backup", dest)
	if !strings.HasPrefix(r.stdout, "backup written to "+dest) {
		t.Errorf("retry stdout = %q", r.stdout)
	}
	if err := store.IntegrityCheck(context.Background(), dest); err != nil {
		t.Errorf("the retried backup: %v", err)
	}
}

// TestHealthWithAFullDisk runs the server with a file size limit, so that
// its writes start failing as on a full disk while reads go on: once a write
// fails, both health routes report the database as failing (503,
// database read_only) at once, where a read alone would have called it
// healthy, and the write probe that health ran just before the failing
// write would have stood for seconds.
func TestHealthWithAFullDisk(t *testing.T) {
	skipOnPostgres(t, "the full disk is finance's own, made by a file size limit on its process; Postgres writes to its server's disk, which the test cannot fill")
	sh := limitShell(t)
	bin := buildBinary(t)
	dataDir := t.TempDir()
	createUser(t, dataDir, "ana@example.com")
	key := strings.TrimSpace(binMustRun(t, bin, dataDir, "", "keys", "create", "--user", "ana@example.com",
		"--name", "probe", "--scopes", "all").stdout)
	// The limit leaves room for the 32 KiB shared-memory file, but the
	// write-ahead log reaches it after a few writes, and the database file
	// is already past it.
	p := startServerCmd(t, exec.Command(sh, "-c",
		fmt.Sprintf(`ulimit -f %d && exec "$0" serve --addr 127.0.0.1:0 --data-dir "$1"`, fileSizeLimitBlocks), bin, dataDir))

	expense := map[string]any{"amount": "12.50", "date": "2026-01-15", "description": "Bus", "category": "Transportation", "payment_method": "Cash"}
	failed := false
	for i := 0; i < 500 && !failed; i++ {
		// Health is polled before every write, as a load balancer would:
		// its write probe has always just run when a write fails.
		// (Its probe may be the write that reaches the limit first.)
		if status, _ := call(t, http.MethodGet, p.url+"/api/v1/health", key, nil); status != http.StatusOK {
			t.Logf("the write probe reached the limit before write %d did", i)
		}
		status, env := call(t, http.MethodPost, p.url+"/api/v1/expenses", key, expense)
		switch {
		case status == http.StatusCreated:
		// A file size limit is an I/O error to SQLite (an unexpected 500);
		// no room on the disk would be 507, saying nothing was saved.
		case (status == http.StatusInternalServerError || status == http.StatusInsufficientStorage) &&
			env.Error != nil && env.Error.Code == "INTERNAL_SERVER_ERROR":
			failed = true
		default:
			t.Fatalf("POST /api/v1/expenses: %d %+v", status, env)
		}
	}
	if !failed {
		t.Fatal("500 writes under a file size limit all succeeded; the limit did not apply")
	}
	// Reads still answer: the list works.
	if status, _ := call(t, http.MethodGet, p.url+"/api/v1/expenses", key, nil); status != http.StatusOK {
		t.Errorf("GET /api/v1/expenses with a full disk: %d, want 200 (reads still work)", status)
	}
	status, env := call(t, http.MethodGet, p.url+"/api/v1/health", key, nil)
	var h health
	if err := json.Unmarshal(env.Data, &h); err != nil || status != http.StatusServiceUnavailable || h.Status != "degraded" || h.Database != "read_only" {
		t.Errorf("GET /api/v1/health with a full disk: %d %s, want 503 degraded read_only", status, env.Data)
	}
	if status, _ := call(t, http.MethodGet, p.url+"/healthz", "", nil); status != http.StatusServiceUnavailable {
		t.Errorf("GET /healthz with a full disk: %d, want 503", status)
	}
	if status, env := call(t, http.MethodGet, p.url+"/readyz", "", nil); status != http.StatusServiceUnavailable || env.Message != "Not ready" {
		t.Errorf("GET /readyz with a full disk: %d %+v, want 503 Not ready", status, env)
	}
	// The server's log reaches the test through a pipe, so the line may
	// arrive a moment after the answer.
	waitFor(t, "the log to say why the server is not ready", func() bool {
		return strings.Contains(p.stderr(), `msg="readyz: database check failed" database=read_only`)
	})
}

// TestIdempotentRetryAfterACrash retries a write whose answer was lost, on a
// server that was killed and started again in between: the retry with the
// same Idempotency-Key gets the stored answer and the write exists once.
func TestIdempotentRetryAfterACrash(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	dataDir := t.TempDir()
	createUser(t, dataDir, "ana@example.com")
	token := strings.TrimSpace(binMustRun(t, bin, dataDir, "", "keys", "create", "--user", "ana@example.com",
		"--name", "retry", "--scopes", "all").stdout)
	expense := map[string]any{"amount": "87.25", "date": "2026-11-20", "description": "Pharmacy", "category": "Health & Medical", "payment_method": "Cash"}
	withKey := http.Header{"Idempotency-Key": {"pharmacy-2026-11-20"}}

	first := startServer(t, bin, dataDir)
	// The answer is read and thrown away, as if the connection had dropped on
	// its way back. Once the write has committed, the server's state is the
	// same whether or not its reply reached the client, so this stands for
	// every lost reply; waiting for it only makes sure the write was made.
	if resp, raw := send(t, http.MethodPost, first.url+"/api/v1/expenses", token, withKey, expense); resp.StatusCode != http.StatusCreated {
		t.Fatalf("first POST: %d %s", resp.StatusCode, raw)
	}
	first.kill(t)

	again := startServer(t, bin, dataDir)
	resp, raw := send(t, http.MethodPost, again.url+"/api/v1/expenses", token, withKey, expense)
	if resp.StatusCode != http.StatusCreated || resp.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("retry after the crash: %d, Idempotent-Replayed %q, body %s; want the stored 201, replayed",
			resp.StatusCode, resp.Header.Get("Idempotent-Replayed"), raw)
	}
	var replayed envelope
	if err := json.Unmarshal(raw, &replayed); err != nil {
		t.Fatal(err)
	}
	var created struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(replayed.Data, &created); err != nil || created.ID == "" {
		t.Fatalf("replayed data %s: %v", replayed.Data, err)
	}
	status, stored := call(t, http.MethodGet, again.url+"/api/v1/expenses/"+created.ID, token, nil)
	if status != http.StatusOK || !bytes.Equal(stored.Data, replayed.Data) {
		t.Errorf("the replayed expense %s differs from the stored one (%d) %s", replayed.Data, status, stored.Data)
	}
	status, list := call(t, http.MethodGet, again.url+"/api/v1/expenses", token, nil)
	var page struct {
		Pagination struct {
			TotalItems int `json:"total_items"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal(list.Data, &page); status != http.StatusOK || err != nil || page.Pagination.TotalItems != 1 {
		t.Errorf("expenses after the retry: %d %s (%v); want exactly one", status, list.Data, err)
	}
}
