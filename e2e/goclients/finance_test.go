// Package goclients drives MCP clients written in Go against the real finance
// binary: the mcp-go client through the whole OAuth flow, and the official Go
// SDK with an API key and with OAuth. It is a module of its own, so the
// binary's go.mod never gains what only these tests use. FINANCE_BIN names the
// binary (make e2e sets it).
package goclients

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// finance is one running `finance serve` on a free loopback port with a
// fresh data directory and, with FINANCE_E2E_DATABASE=postgres, a fresh
// Postgres database of its own on the server the libpq variables (PGHOST,
// PGPORT, PGUSER, …) name, as under pg_virtualenv.
type finance struct {
	t       *testing.T
	bin     string
	dataDir string
	where   []string // the flags of every command on this server's data: the directory and, on Postgres, the database
	baseURL string
}

var listening = regexp.MustCompile(`msg="finance listening" url=(\S+)`)

// startFinance starts the binary and returns once it listens; the test's
// cleanup stops it. Sign-in limits are raised: a test signs in more than
// once from one address.
func startFinance(t *testing.T) *finance {
	t.Helper()
	bin := os.Getenv("FINANCE_BIN")
	if bin == "" {
		t.Fatal("FINANCE_BIN must name the finance binary (make e2e sets it)")
	}
	f := &finance{t: t, bin: bin, dataDir: t.TempDir()}
	f.where = []string{"--data-dir", f.dataDir}
	if os.Getenv("FINANCE_E2E_DATABASE") == "postgres" {
		f.where = append(f.where, "--database-url", freshDatabase(t))
	}
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0", "--access-log=false",
		"--login-rate-limit", "600/min", "--login-rate-burst", "200"}, f.where...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The log is read to its end, so the server never blocks on a full pipe;
	// the URL is handed over once, or the channel closes if the server exits
	// first. There is no timer: a hang is bounded by go test's timeout.
	var mu sync.Mutex
	var log strings.Builder
	urls := make(chan string, 1)
	go func() {
		defer close(urls)
		sent := false
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil && !sent {
				urls <- m[1]
				sent = true
			}
		}
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	u, ok := <-urls
	if !ok {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("finance exited before it listened:\n%s", log.String())
	}
	f.baseURL = u
	return f
}

// freshDatabase creates an empty Postgres database of its own with createdb
// and returns its URL; the host, port, user and password come from the PG*
// variables. The test's cleanup drops it, after the server has stopped
// (cleanups run last registered first).
func freshDatabase(t *testing.T) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	name := fmt.Sprintf("finance_e2e_go_%d_%x", os.Getpid(), b)
	if out, err := exec.Command("createdb", name).CombinedOutput(); err != nil {
		t.Fatalf("createdb %s: %v\n%s", name, err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command("dropdb", "--if-exists", name).CombinedOutput(); err != nil {
			t.Errorf("dropdb %s: %v\n%s", name, err, out)
		}
	})
	return "postgres:///" + name
}

// mcpURL is the MCP endpoint.
func (f *finance) mcpURL() string { return f.baseURL + "/api/mcp" }

// cli runs a command of the binary against the same data directory (and
// database) and returns its stdout.
func (f *finance) cli(stdin string, args ...string) string {
	f.t.Helper()
	cmd := exec.Command(f.bin, append(args, f.where...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		f.t.Fatalf("finance %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

// createUser creates a Pro user with the given password.
func (f *finance) createUser(email, password string) {
	f.cli(password+"\n", "users", "create", "--email", email, "--name", "E2E", "--plan", "pro", "--password-stdin")
}

// createKey creates an API key for the user and returns it.
func (f *finance) createKey(email, scopes string) string {
	key := strings.TrimSpace(f.cli("", "keys", "create", "--user", email, "--name", "go client", "--scopes", scopes))
	if !strings.HasPrefix(key, "svk_") {
		f.t.Fatalf("keys create printed %q, not a key", key)
	}
	return key
}

// getJSON GETs a REST route with a bearer credential and decodes the
// envelope's data into out, failing unless the status is want.
func (f *finance) getJSON(path, credential string, want int, out any) {
	f.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, f.baseURL+path, nil)
	req.Header.Set("Authorization", "Bearer "+credential)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		f.t.Fatalf("GET %s: status %d, want %d: %s", path, res.StatusCode, want, body)
	}
	if out == nil {
		return
	}
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(body, &env); err != nil {
		f.t.Fatalf("GET %s: %v: %s", path, err, body)
	}
	if err := json.Unmarshal(env.Data, out); err != nil {
		f.t.Fatalf("GET %s: data: %v: %s", path, err, env.Data)
	}
}

// exchange is one HTTP request a client sent, as the wire saw it.
type exchange struct {
	Path    string // the URL path
	Method  string // the JSON-RPC method, for posts to the MCP endpoint
	Version string // the MCP-Protocol-Version header
	Status  int
}

// wire is an http.RoundTripper that records every request a client sends,
// with the JSON-RPC method of those to the MCP endpoint, and sets the
// headers in header on each (an API key, for a client configured with an
// http.Client only).
type wire struct {
	header http.Header

	mu  sync.Mutex
	log []exchange
}

func (w *wire) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range w.header {
		req.Header[k] = v
	}
	ex := exchange{Path: req.URL.Path, Version: req.Header.Get("MCP-Protocol-Version")}
	if req.Body != nil && req.Method == http.MethodPost && req.URL.Path == "/api/mcp" {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		req.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct{ Method string }
		_ = json.Unmarshal(body, &msg)
		ex.Method = msg.Method
	}
	res, err := http.DefaultTransport.RoundTrip(req)
	if res != nil {
		ex.Status = res.StatusCode
	}
	w.mu.Lock()
	w.log = append(w.log, ex)
	w.mu.Unlock()
	return res, err
}

// take returns what was recorded since the last take and forgets it.
func (w *wire) take() []exchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.log
	w.log = nil
	return out
}

// methods lists the JSON-RPC methods of exchanges with the MCP endpoint.
func methods(log []exchange) []string {
	var out []string
	for _, ex := range log {
		if ex.Method != "" {
			out = append(out, ex.Method)
		}
	}
	return out
}

// browser does what a person's browser does with the authorization URL an
// app opens: it signs in on the login page when asked and submits the
// consent page, keeping its cookies between visits.
type browser struct {
	baseURL, email, password string
	client                   *http.Client
}

func newBrowser(baseURL, email, password string) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{baseURL: baseURL, email: email, password: password, client: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// approve opens authURL, signs in if the server asks, and approves the
// consent page with only the scopes in keep ticked. It returns the consent
// page and the address the browser is then sent to (the app's redirect URI
// with the code).
func (b *browser) approve(authURL string, keep ...string) (consent string, callback *url.URL, err error) {
	res, page, err := b.do(http.MethodGet, authURL, nil)
	if err != nil {
		return "", nil, err
	}
	if res.StatusCode == http.StatusSeeOther {
		login, err := res.Location()
		if err != nil || login.Path != "/login" {
			return "", nil, fmt.Errorf("signed out, the authorization endpoint sent the browser to %v, not to sign in", login)
		}
		if _, page, err = b.do(http.MethodGet, login.String(), nil); err != nil {
			return "", nil, err
		}
		if !strings.Contains(page, "Sign in to review the app") {
			return "", nil, fmt.Errorf("the sign-in page does not say an app is waiting:\n%s", page)
		}
		fields, err := formFields(page, "/login")
		if err != nil {
			return "", nil, err
		}
		fields.Set("email", b.email)
		fields.Set("password", b.password)
		if res, _, err = b.do(http.MethodPost, b.baseURL+"/login", fields); err != nil {
			return "", nil, err
		}
		back, err := res.Location()
		if res.StatusCode != http.StatusSeeOther || err != nil || back.Path != "/api/oauth/authorize" {
			return "", nil, fmt.Errorf("sign-in answered %d to %v, not back to the authorization", res.StatusCode, back)
		}
		if res, page, err = b.do(http.MethodGet, back.String(), nil); err != nil {
			return "", nil, err
		}
	}
	if res.StatusCode != http.StatusOK {
		return "", nil, fmt.Errorf("the consent page answered %d:\n%s", res.StatusCode, page)
	}
	fields, err := formFields(page, "/api/oauth/authorize")
	if err != nil {
		return "", nil, err
	}
	fields.Set("decision", "approve")
	fields["scope_grant"] = keep
	res, body, err := b.do(http.MethodPost, b.baseURL+"/api/oauth/authorize", fields)
	if err != nil {
		return "", nil, err
	}
	callback, err = res.Location()
	if res.StatusCode != http.StatusSeeOther || err != nil {
		return "", nil, fmt.Errorf("approval answered %d, not a redirect to the app:\n%s", res.StatusCode, body)
	}
	return page, callback, nil
}

// do sends one request (a form post when form is not nil) and returns the
// response with its body read.
func (b *browser) do(method, target string, form url.Values) (*http.Response, string, error) {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		return nil, "", err
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := b.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer res.Body.Close()
	page, err := io.ReadAll(res.Body)
	return res, string(page), err
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`)

// formFields returns the hidden fields (the form token among them) of the
// page's form that posts to action.
func formFields(page, action string) (url.Values, error) {
	start := strings.Index(page, `<form method="post" action="`+action+`"`)
	if start < 0 {
		return nil, errors.New("no form posting to " + action + " in page:\n" + page)
	}
	form := page[start:]
	form = form[:strings.Index(form, "</form>")]
	fields := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(form, -1) {
		fields.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	if fields.Get("csrf") == "" {
		return nil, errors.New("the form posting to " + action + " has no form token")
	}
	return fields, nil
}
