// Package testkit is what the HTTP tests of server and web share: a
// migrated database of their own, users with a known password, and a
// browser that talks to a handler with a cookie jar and fills in the forms'
// once ids as pages do. It builds no server: each package's tests build
// theirs over it, so server's own tests can use it too.
package testkit

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/oauth"
	"github.com/finance-app/finance/store"
)

// Every test that uses the kit refuses a query holding an id as quoted
// text: the database stores ids as bytes, which such a literal never
// matches, so a query built around the store's conversion fails loudly.
func init() { store.RefuseTextIDLiterals() }

// BaseURL is the base URL of every test server.
const BaseURL = "http://finance.test"

// Password is the password of every user the tests create.
const Password = "correct horse battery staple"

// OpenDB opens a migrated SQLite database in the test's temporary directory,
// closed when the test ends. The database starts as a copy of one migrated
// once per test process: running every migration costs about 0.1 s per
// database, and twenty times that under the race detector, which made
// migrations most of the race run. Migrate still runs on the copy, so a test
// sees exactly what a freshly migrated database holds.
//
// With FINANCE_TEST_DATABASE=postgres the database is a Postgres database of
// its own instead (OpenPostgres).
func OpenDB(t testing.TB) *store.DB {
	t.Helper()
	if os.Getenv("FINANCE_TEST_DATABASE") == "postgres" {
		return OpenPostgres(t)
	}
	image, err := migratedImage()
	if err != nil {
		t.Fatalf("migrated database: %v", err)
	}
	path := filepath.Join(t.TempDir(), store.FileName)
	if err := os.WriteFile(path, image, 0o600); err != nil {
		t.Fatalf("copy migrated database: %v", err)
	}
	db, err := store.Open(path)
	if err != nil {
		t.Fatalf("store.Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return db
}

// OpenPostgres opens a migrated Postgres database of its own, on the server
// FINANCE_TEST_POSTGRES_URL names or, under pg_virtualenv, the one the libpq
// variables name; it is dropped when the test ends. The test is skipped when
// there is no server, unless FINANCE_TEST_DATABASE=postgres asked for one.
func OpenPostgres(t testing.TB) *store.DB {
	t.Helper()
	server, ok := store.TestPostgresURL()
	if !ok {
		if os.Getenv("FINANCE_TEST_DATABASE") == "postgres" {
			t.Fatal("FINANCE_TEST_DATABASE=postgres, but no Postgres server: set FINANCE_TEST_POSTGRES_URL or run under pg_virtualenv")
		}
		t.Skip("no Postgres server: set FINANCE_TEST_POSTGRES_URL, or run under pg_virtualenv")
	}
	u, drop, err := store.NewTestPostgresDatabase(context.Background(), server)
	if err != nil {
		t.Fatalf("Postgres test database: %v", err)
	}
	db, err := store.OpenURL(u)
	if err != nil {
		t.Fatalf("store.OpenURL: %v", err)
	}
	t.Cleanup(func() {
		_ = db.Close()
		if err := drop(); err != nil {
			t.Errorf("drop the Postgres test database: %v", err)
		}
	})
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("Migrate: %v", err)
	}
	return db
}

// migrated is the file of a database migrated once per test process.
var migrated struct {
	once  sync.Once
	image []byte
	err   error
}

// migratedImage returns the bytes of a freshly migrated database file. The
// database is closed before it is read, which checkpoints its write-ahead log
// into the file, so the file alone is the whole database (checked below).
func migratedImage() ([]byte, error) {
	migrated.once.Do(func() {
		migrated.image, migrated.err = buildMigratedImage()
	})
	return migrated.image, migrated.err
}

func buildMigratedImage() ([]byte, error) {
	dir, err := os.MkdirTemp("", "finance-migrated-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, store.FileName)
	db, err := store.Open(path)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(context.Background()); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > 0 {
		return nil, fmt.Errorf("write-ahead log left after close (%d bytes)", fi.Size())
	}
	return os.ReadFile(path)
}

// NewAuth is the credentials service over db with a fresh JWT secret.
func NewAuth(t testing.TB, db *store.DB) (secret []byte, issuer *auth.JWT, svc *auth.Service) {
	t.Helper()
	secret = make([]byte, 32)
	_, _ = rand.Read(secret)
	issuer, err := auth.NewJWT(secret, auth.DefaultJWTTTL)
	if err != nil {
		t.Fatalf("NewJWT: %v", err)
	}
	return secret, issuer, auth.NewService(db, issuer)
}

var userSeq atomic.Int64

// CreateUser stores a user on plan whose password is Password.
func CreateUser(t testing.TB, svc *auth.Service, plan finance.Plan) finance.User {
	t.Helper()
	u, err := svc.CreateUser(context.Background(), auth.CreateUserRequest{
		Email:    fmt.Sprintf("user%d@example.com", userSeq.Add(1)),
		Name:     "Test User",
		Plan:     plan,
		Password: Password,
	})
	if err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	return u
}

// Exchange is one raw request and its response.
type Exchange struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v.
func (x Exchange) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(x.Body, v); err != nil {
		t.Fatalf("decode %s: %v", x.Body, err)
	}
}

// Location is the parsed Location header of a redirect.
func (x Exchange) Location(t testing.TB) *url.URL {
	t.Helper()
	loc := x.Header.Get("Location")
	if loc == "" {
		t.Fatalf("no Location (status %d): %s", x.Status, x.Body)
	}
	u, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("Location %q: %v", loc, err)
	}
	return u
}

// Contains reports whether the body holds s.
func (x Exchange) Contains(s string) bool { return bytes.Contains(x.Body, []byte(s)) }

// ServeFunc serves one request (whose body is body) and returns the response
// and its body; a package's tests may check more on the way (the API contract).
type ServeFunc func(t testing.TB, req *http.Request, body []byte) (*http.Response, []byte)

// Serve is the ServeFunc of a handler, checking nothing on the way.
func Serve(h http.Handler) ServeFunc {
	return func(t testing.TB, req *http.Request, _ []byte) (*http.Response, []byte) {
		t.Helper()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		resp := rec.Result()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("read response body: %v", err)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		return resp, body
	}
}

// Call sends one request of contentType ("" for none) with header through
// serve, as an API client does: no cookies.
func Call(t testing.TB, serve ServeFunc, method, target, contentType, body string, header map[string]string) Exchange {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, raw := serve(t, req, []byte(body))
	return Exchange{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// InvalidTokenChallenge is the WWW-Authenticate challenge of a 401 to a
// request whose credential was refused with message: error="invalid_token"
// tells an OAuth client to get a new token rather than retry this one.
func InvalidTokenChallenge(message string) string {
	return `Bearer realm="finance", error="invalid_token", error_description="` + message +
		`", scope="finance:read mcp:connect", resource_metadata="` + BaseURL + `/.well-known/oauth-protected-resource"`
}

// OnceField names the hidden field of a form's once id (web.OnceField).
const OnceField = "once"

// Browser is a user agent with a cookie jar, talking to the handler directly.
type Browser struct {
	t       testing.TB
	serve   ServeFunc
	Cookies map[string]*http.Cookie
	Headers map[string]string // sent with every request
	once    [][]string        // the paths of the forms that count once, split at "/"
}

// NewBrowser is a browser without cookies whose requests serve serves.
// oncePaths are the routes (bunrouter syntax) of the forms that count once.
func NewBrowser(t testing.TB, serve ServeFunc, oncePaths []string) *Browser {
	b := &Browser{t: t, serve: serve, Cookies: map[string]*http.Cookie{}, Headers: map[string]string{}}
	for _, p := range oncePaths {
		b.once = append(b.once, strings.Split(p, "/"))
	}
	return b
}

// T is the test the browser reports to.
func (b *Browser) T() testing.TB { return b.t }

// Do sends a request, a form when form is not nil. As a browser sends what
// the page holds, a form to a route that counts once gets a fresh once id
// when the test gave none (a test sends the field itself, empty or not, to
// choose), so that every form test also runs the route as pages send it.
func (b *Browser) Do(method, target string, form url.Values) Exchange {
	b.t.Helper()
	if form == nil {
		return b.Send(method, target, "", "")
	}
	if form.Has("csrf") && !form.Has(OnceField) && b.countsOnce(target) {
		form = maps.Clone(form)
		form.Set(OnceField, finance.NewID())
	}
	return b.Send(method, target, form.Encode(), "application/x-www-form-urlencoded")
}

// countsOnce reports whether target's path is that of a route that counts
// once (":name" segments match any one segment).
func (b *Browser) countsOnce(target string) bool {
	path, _, _ := strings.Cut(target, "?")
	parts := strings.Split(path, "/")
	return slices.ContainsFunc(b.once, func(route []string) bool {
		return slices.EqualFunc(route, parts, func(r, p string) bool { return r == p || strings.HasPrefix(r, ":") })
	})
}

// Send makes a request with body of contentType ("" for none).
func (b *Browser) Send(method, target, body, contentType string) Exchange {
	b.t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, v := range b.Headers {
		req.Header.Set(k, v)
	}
	for _, c := range b.Cookies {
		req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value})
	}
	resp, raw := b.serve(b.t, req, []byte(body))
	for _, c := range resp.Cookies() {
		if c.MaxAge < 0 || c.Value == "" {
			delete(b.Cookies, c.Name)
		} else {
			b.Cookies[c.Name] = c
		}
	}
	return Exchange{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// Get loads target.
func (b *Browser) Get(target string) Exchange { b.t.Helper(); return b.Do(http.MethodGet, target, nil) }

// Post sends form to target.
func (b *Browser) Post(target string, form url.Values) Exchange {
	b.t.Helper()
	return b.Do(http.MethodPost, target, form)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// CSRF returns the form token of an HTML page.
func CSRF(t testing.TB, page Exchange) string {
	t.Helper()
	m := csrfField.FindSubmatch(page.Body)
	if m == nil {
		t.Fatalf("no csrf field in page (status %d):\n%s", page.Status, page.Body)
	}
	return html.UnescapeString(string(m[1]))
}

// loginPath is the sign-in page (web.LoginPath).
const loginPath = "/login"

// SignIn signs u in through the sign-in page.
func (b *Browser) SignIn(u finance.User) {
	b.t.Helper()
	page := b.Get(loginPath)
	if page.Status != http.StatusOK {
		b.t.Fatalf("GET /login: status %d: %s", page.Status, page.Body)
	}
	x := b.Post(loginPath, url.Values{"csrf": {CSRF(b.t, page)}, "email": {u.Email}, "password": {Password}})
	if x.Status != http.StatusSeeOther {
		b.t.Fatalf("POST /login: status %d: %s", x.Status, x.Body)
	}
}

// NewOAuth is the authorization server over db as cmd/finance wires it (it
// verifies access tokens for svc), configured by ocfg, on the clock now.
func NewOAuth(db *store.DB, svc *auth.Service, ocfg oauth.Config, now func() time.Time) *oauth.Server {
	ocfg.Issuer, ocfg.Now, ocfg.Log = BaseURL, now, slog.New(slog.DiscardHandler)
	authz := oauth.New(db, ocfg)
	svc.SetTokenVerifier(authz)
	return authz
}
