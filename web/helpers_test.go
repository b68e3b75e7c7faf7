package web_test

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/oauth"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/store"
)

// testEnv is the binary's server, with the web app mounted, over its own
// migrated SQLite database.
type testEnv struct {
	t    testing.TB
	db   *store.DB
	auth *auth.Service
	srv  *server.Server
}

// newTestEnv returns a server with unlimited rate limits and the default
// body limit; configure adjusts the Config before the server is built.
func newTestEnv(t testing.TB, configure ...func(*server.Config)) *testEnv {
	t.Helper()
	return newEnv(t, false, configure...)
}

// newOAuthEnv is newTestEnv with the authorization server, as cmd/finance
// wires the binary.
func newOAuthEnv(t testing.TB, configure ...func(*server.Config)) *testEnv {
	t.Helper()
	return newEnv(t, true, configure...)
}

func newEnv(t testing.TB, withOAuth bool, configure ...func(*server.Config)) *testEnv {
	t.Helper()
	db := testkit.OpenDB(t)
	_, _, svc := testkit.NewAuth(t, db)
	e := &testEnv{t: t, db: db, auth: svc}
	cfg := server.Config{BaseURL: testkit.BaseURL, Version: "test-version", UploadDir: t.TempDir()}
	if withOAuth {
		cfg.OAuth = testkit.NewOAuth(db, svc, oauth.Config{}, time.Now)
	}
	for _, c := range configure {
		c(&cfg)
	}
	e.srv = server.New(cfg, slog.New(slog.DiscardHandler), svc, db)
	return e
}

// createUser stores a user on plan whose password is testkit.Password.
func (e *testEnv) createUser(plan finance.Plan) finance.User {
	e.t.Helper()
	return testkit.CreateUser(e.t, e.auth, plan)
}

// createKey creates an API key for userID with scopes and returns the full key string.
func (e *testEnv) createKey(userID string, scopes ...auth.Scope) string {
	e.t.Helper()
	_, key := e.createKeyRecord(userID, scopes...)
	return key
}

// createKeyRecord is createKey that also returns the stored key.
func (e *testEnv) createKeyRecord(userID string, scopes ...auth.Scope) (auth.APIKey, string) {
	e.t.Helper()
	return testkit.CreateKey(e.t, e.auth, userID, scopes...)
}

// createExpiredKey creates a key that has already expired.
func (e *testEnv) createExpiredKey(userID string, scopes ...auth.Scope) string {
	e.t.Helper()
	return testkit.CreateExpiredKey(e.t, e.db, userID, scopes...)
}

// browser is a browser without cookies on env's server.
func (e *testEnv) browser(t testing.TB) *testkit.Browser {
	var once []string
	for _, rt := range e.srv.Routes() {
		if rt.Once {
			once = append(once, rt.Path)
		}
	}
	return testkit.NewBrowser(t, testkit.Serve(e.srv.Handler()), once)
}

// api sends one request to the API with a bearer token ("" for none) and
// a JSON body ("" for none).
func (e *testEnv) api(t testing.TB, method, target, token, body string) testkit.Exchange {
	t.Helper()
	header := map[string]string{}
	if token != "" {
		header["Authorization"] = "Bearer " + token
	}
	contentType := ""
	if body != "" {
		contentType = "application/json"
	}
	return testkit.Call(t, testkit.Serve(e.srv.Handler()), method, target, contentType, body, header)
}

// envelope is the API's answer: data on success, error otherwise.
type envelope struct {
	Success bool            `json:"success"`
	Data    json.RawMessage `json:"data"`
	Error   *struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"error"`
}

// wantAPIError checks an API error: its status, its code and (unless
// message is "") its message.
func wantAPIError(t testing.TB, what string, x testkit.Exchange, status int, code, message string) {
	t.Helper()
	var answer envelope
	x.JSON(t, &answer)
	if x.Status != status || answer.Success || answer.Error == nil || answer.Error.Code != code ||
		(message != "" && answer.Error.Message != message) {
		t.Errorf("%s: %d %s, want %d %s %q", what, x.Status, x.Body, status, code, message)
	}
}

// login signs u in through POST /api/v1/auth/login and returns the JWT.
func (e *testEnv) login(u finance.User) string {
	e.t.Helper()
	x := e.api(e.t, http.MethodPost, "/api/v1/auth/login", "", fmt.Sprintf(`{"email":%q,"password":%q}`, u.Email, testkit.Password))
	var env envelope
	x.JSON(e.t, &env)
	var data struct {
		AccessToken string `json:"access_token"`
	}
	if x.Status != http.StatusOK || json.Unmarshal(env.Data, &data) != nil || data.AccessToken == "" {
		e.t.Fatalf("login: %d %s", x.Status, x.Body)
	}
	return data.AccessToken
}

// health calls GET /api/v1/health with a bearer token and returns the status.
func (e *testEnv) health(t testing.TB, token string) int {
	t.Helper()
	return e.api(t, http.MethodGet, "/api/v1/health", token, "").Status
}

// setupCode is the code of the first-run setup link.
func (e *testEnv) setupCode() string {
	u, err := url.Parse(e.srv.SetupURL())
	if err != nil {
		e.t.Fatal(err)
	}
	return u.Query().Get("code")
}

// expensesOf lists the user's expenses of a status ("": any) straight from the ledger.
func expensesOf(t *testing.T, env *testEnv, u finance.User, status string) []finance.Expense {
	t.Helper()
	return testkit.ExpensesOf(t, env.srv.Ledger(), u, status)
}
