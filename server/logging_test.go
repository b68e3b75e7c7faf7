package server

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/oauth"
	"github.com/finance-app/finance/store"
	"github.com/finance-app/finance/web"
)

// jsonLog is the binary's logger with --log-format json at level, to w.
func jsonLog(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(LogHandler(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})))
}

// failingModel is an AI service that answers every request with a 500
// whose body repeats the note it was sent, as some services' errors do.
func failingModel(t *testing.T, log *slog.Logger) *ai.Engine {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		http.Error(w, "cannot read "+req.Messages[len(req.Messages)-1].Content, http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	return ai.New(ai.Config{BaseURL: srv.URL + "/v1", Model: "m", HTTPClient: srv.Client(), MaxJobs: 1, Log: log})
}

// Every line logged while a request is served carries that request's id,
// the X-Request-Id it was answered with: the access log's, and those
// logged deep inside it by the server's error renderer (a write on a full
// disk), the AI engine (a model that fails) and the web app (a page's form
// on a full disk). Each line is one JSON object with --log-format json.
func TestRequestIDOnEveryLogLine(t *testing.T) {
	disk := &fullDisk{}
	logs := &testkit.LogBuffer{}
	log := jsonLog(logs, slog.LevelInfo)
	env := newTestEnvOn(t, func(db *store.DB) Database { disk.DB = db; return disk }, func(c *Config) {
		c.AccessLog, c.AI = true, failingModel(t, log)
	})
	env.logs, env.srv = logs, New(env.srv.cfg, log, env.auth, env.srv.db)
	env.srv.Ledger().SetClock(func() time.Time { return testkit.Now })
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeExpensesWrite)
	b := env.browser(t)
	b.SignIn(u)
	record := b.Get(web.RecordPath)
	disk.fill(true)

	t.Run("REST write on a full disk", func(t *testing.T) {
		logs.Reset()
		res := apiScenario{method: http.MethodPost, url: "/api/v1/expenses", body: expenseBody(`"12.50"`, `"Cash"`),
			headers: bearer(key), wantStatus: http.StatusInsufficientStorage, wantCode: CodeInternal}.run(t, env)
		logs.WantRequestLines(t, res.header.Get("X-Request-Id"), "request failed", "request")
	})
	t.Run("AI parsing with a failing model", func(t *testing.T) {
		logs.Reset()
		res := apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody("taxi 99"),
			headers: bearer(key), wantStatus: http.StatusOK}.run(t, env)
		logs.WantRequestLines(t, res.header.Get("X-Request-Id"), "AI service failed; the built-in parser answers", "request")
	})
	t.Run("a page's form on a full disk", func(t *testing.T) {
		logs.Reset()
		x := b.Post(web.RecordPath, url.Values{"csrf": {testkit.CSRF(t, record)}, "kind": {"expense"}, "amount": {"90"},
			"date": {"2025-03-15"}, "description": {"Market"}, "category": {"Groceries"}, "payment_method": {"Cash"}})
		if x.Status != http.StatusInsufficientStorage {
			t.Fatalf("status %d, want 507: %s", x.Status, x.Body)
		}
		logs.WantRequestLines(t, x.Header.Get("X-Request-Id"), "page write found the disk full", "request")
	})
}

// The access log line names the route's pattern and the kind of
// credential, never the credential, nor the query string.
func TestAccessLogLine(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.AccessLog = true })
	env.jsonLogs(slog.LevelInfo)
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeRead)
	res := apiScenario{method: http.MethodGet, url: "/api/v1/expenses?search=secret-search-text", headers: bearer(key),
		wantStatus: http.StatusOK}.run(t, env)
	lines := env.logs.JSONLines(t)
	if len(lines) != 1 {
		t.Fatalf("%d log lines, want the access log's one:\n%s", len(lines), env.logs)
	}
	line := lines[0]
	for k, want := range map[string]any{"msg": "request", "method": "GET", "path": "/api/v1/expenses", "route": "/api/v1/expenses",
		"status": float64(200), "credential": "api_key", "request_id": res.header.Get("X-Request-Id")} {
		if line[k] != want {
			t.Errorf("%s = %v, want %v", k, line[k], want)
		}
	}
	for _, k := range []string{"bytes", "duration_ms"} {
		if _, ok := line[k].(float64); !ok {
			t.Errorf("%s = %v, want a number", k, line[k])
		}
	}
	if log := env.logs.String(); strings.Contains(log, "secret-search-text") || strings.Contains(log, key) {
		t.Errorf("the access log holds the query string or the key:\n%s", log)
	}
}

// At the default level the log holds no secret and no money with its
// description: a realistic session (sign-in to the API and to the pages,
// an expense recorded, an OAuth client connected and its tokens used and
// refreshed, AI parsing whose model answers with what it was sent) leaves
// none of the password, tokens, codes, key, cookie, description or amount
// in the log, while every request is logged.
func TestNoSecretsInTheLog(t *testing.T) {
	logs := &testkit.LogBuffer{}
	log := jsonLog(logs, slog.LevelInfo)
	env := newOAuthEnvWith(t, oauth.Config{Log: log}, func(c *Config) { c.AccessLog, c.AI = true, failingModel(t, log) })
	env.logs, env.srv = logs, New(env.srv.cfg, log, env.auth, env.db)
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeExpensesWrite)
	const description, amount = "Birthday cake for Ana", "4321.87"

	jwt := env.login(u)
	apiScenario{method: http.MethodPost, url: "/api/v1/expenses", headers: bearer(jwt), wantStatus: http.StatusCreated,
		body: `{"amount":"` + amount + `","date":"2025-03-10","description":"` + description + `","category":"Food & Dining","payment_method":"Cash"}`}.run(t, env.testEnv)
	apiScenario{method: http.MethodPost, url: parseTextURL, headers: bearer(key), wantStatus: http.StatusOK,
		body: textBody(description + " " + amount)}.run(t, env.testEnv)
	a, tok := env.connect(t, u, "finance:read")
	if status := env.health(t, tok.AccessToken); status != http.StatusOK {
		t.Fatalf("health with the OAuth access token: %d", status)
	}
	x := env.refresh(t, a.clientID, tok.RefreshToken)
	if x.Status != http.StatusOK {
		t.Fatalf("refresh: %d %s", x.Status, x.Body)
	}
	var refreshed oauth.TokenResponse
	x.JSON(t, &refreshed)

	lines := logs.JSONLines(t)
	if len(lines) < 8 {
		t.Fatalf("%d log lines, want one a request at least:\n%s", len(lines), logs)
	}
	log2 := logs.String()
	secrets := map[string]string{
		"the password": testkit.Password, "the JWT": jwt, "the API key": key, "the key's secret": key[strings.LastIndex(key, "_")+1:],
		"the OAuth access token": tok.AccessToken, "the refresh token": tok.RefreshToken,
		"the new access token": refreshed.AccessToken, "the new refresh token": refreshed.RefreshToken,
		"the PKCE verifier": a.verifier, "the description": description, "the amount": amount, "the amount in centavos": "432187",
	}
	for what, s := range secrets {
		if s == "" {
			t.Fatalf("%s is empty", what)
		}
		if strings.Contains(log2, s) {
			t.Errorf("the log holds %s (%q):\n%s", what, s, log2)
		}
	}
	// At debug level the AI service's answer, with what it was sent, is there
	// for whoever debugs it.
	debug := &testkit.LogBuffer{}
	failingModel(t, jsonLog(debug, slog.LevelDebug)).ParseText(t.Context(), finance.ParseInputs{Today: finance.DateOf(testkit.Now)}, description)
	if !strings.Contains(debug.String(), description) {
		t.Errorf("the debug log lacks the AI service's answer:\n%s", debug)
	}
}
