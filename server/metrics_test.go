package server

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/metrics"
)

// get serves GET target through h from the client address remote.
func get(h http.Handler, target, remote string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	req.RemoteAddr = remote
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// TestMetricsOfRequests scrapes the service's handler, with the metrics on
// its listener as serve mounts them, after requests that read, write, miss
// and use a wrong method: each is counted once under the pattern of its
// route, never under its path with the expense's id; the write's commit is
// counted; the scrapes themselves are not requests of the service.
func TestMetricsOfRequests(t *testing.T) {
	m := metrics.New("test-version", slog.New(slog.NewTextHandler(io.Discard, nil)))
	env := newTestEnv(t, func(c *Config) { c.Requests = m })
	u := env.createUser(finance.PlanPro)
	alice := ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeExpensesWrite)}
	env.db.ObserveCommits(m) // from here on: the user's and key's own writes are not counted
	m.WatchDatabase(env.db.Size)
	h := m.ServeLoopback(env.srv.Handler())

	e := alice.createExpense(t, expenseBody("12.50", `"Cash"`))
	for range 2 {
		if got := alice.getExpense(t, e.ID); got.Amount != 12_50 {
			t.Errorf("stored expense: %+v", got)
		}
	}
	alice.do(t, http.MethodGet, "/api/v1/expenses/"+finance.NewID(), "", http.StatusNotFound)
	apiScenario{method: http.MethodGet, url: "/api/v1/no-such-thing", wantStatus: http.StatusNotFound, wantCode: CodeNotFound}.run(t, env)
	apiScenario{method: http.MethodDelete, url: "/api/v1/health", headers: bearer(alice.key),
		wantStatus: http.StatusMethodNotAllowed, wantCode: CodeValidation}.run(t, env)

	rec := get(h, metrics.Path, "127.0.0.1:50000")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics from loopback: %d %s", rec.Code, rec.Body)
	}
	s := testkit.ParseScrape(t, rec.Body)
	s.CheckRequests(t,
		testkit.Requests{N: 1, Route: "/api/v1/expenses", Method: "POST", Code: "201"},
		testkit.Requests{N: 2, Route: "/api/v1/expenses/:id", Method: "GET", Code: "200"},
		testkit.Requests{N: 1, Route: "/api/v1/expenses/:id", Method: "GET", Code: "404"},
		testkit.Requests{N: 1, Route: metrics.UnmatchedRoute, Method: "GET", Code: "404"},
		testkit.Requests{N: 1, Route: "/api/v1/health", Method: "DELETE", Code: "405"},
	)
	routes := s.LabelValues("finance_http_requests_total", "route")
	if want := []string{"/api/v1/expenses", "/api/v1/expenses/:id", "/api/v1/health", metrics.UnmatchedRoute}; strings.Join(routes, " ") != strings.Join(want, " ") {
		t.Errorf("routes counted %v, want %v (never a path with an id, never the scrape)", routes, want)
	}
	if got, _ := s.Value("finance_http_request_duration_seconds", "route", "/api/v1/expenses/:id", "method", "GET", "status_class", "2xx"); got != 2 {
		t.Errorf("%v durations of the expense's reads, want 2", got)
	}
	// One write, one commit; the reads commit nothing.
	if n, _ := s.Value("finance_database_writes_per_commit"); n != 1 {
		t.Errorf("%v commits counted, want 1", n)
	}
	if n, _ := s.Sum("finance_database_writes_per_commit"); n != 1 {
		t.Errorf("%v writes committed, want 1", n)
	}
	if env.db.IsPostgres() {
		return // the size metrics are of SQLite's files
	}
	fi, err := os.Stat(env.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Value("finance_database_size_bytes"); got != float64(fi.Size()) || got == 0 {
		t.Errorf("database size %v, want the file's %d bytes", got, fi.Size())
	}
	if _, ok := s.Value("finance_database_wal_size_bytes"); !ok {
		t.Error("no finance_database_wal_size_bytes")
	}
}

// TestMetricsOnlyForLoopback: to a client on another machine, or one a
// proxy on this machine forwards, /metrics does not exist: the answer is
// the service's own for an unknown address. With metrics off the path does
// not exist for anyone.
func TestMetricsOnlyForLoopback(t *testing.T) {
	m := metrics.New("test-version", nil)
	env := newTestEnv(t, func(c *Config) { c.Requests = m })
	on, off := m.ServeLoopback(env.srv.Handler()), env.srv.Handler()

	unknown := get(on, "/metricz", "192.0.2.1:50000")
	want := unknown.Body.String()
	if unknown.Code != http.StatusNotFound || !strings.Contains(want, "Page not found") {
		t.Fatalf("an unknown address: %d %s", unknown.Code, unknown.Body)
	}
	proxied := httptest.NewRequest(http.MethodGet, metrics.Path, nil)
	proxied.RemoteAddr = "127.0.0.1:50000"
	proxied.Header.Set("X-Forwarded-For", "127.0.0.1")
	for name, res := range map[string]*httptest.ResponseRecorder{
		"the LAN":                       get(on, metrics.Path, "192.168.1.20:50000"),
		"another machine through proxy": serveRecorded(on, proxied),
		"metrics off, from loopback":    get(off, metrics.Path, "127.0.0.1:50000"),
	} {
		body := res.Body.String()
		if res.Code != http.StatusNotFound || res.Header().Get("Content-Type") != unknown.Header().Get("Content-Type") || body != want {
			t.Errorf("%s: %d %s\n%s\nwant the answer to an unknown address", name, res.Code, res.Header().Get("Content-Type"), res.Body)
		}
		if strings.Contains(res.Body.String(), "finance_") {
			t.Errorf("%s: the answer holds metrics", name)
		}
	}
}

func serveRecorded(h http.Handler, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// BenchmarkHealthMetrics is BenchmarkHealth with the metrics off and on:
// what counting a request costs on the cheapest authenticated route.
func BenchmarkHealthMetrics(b *testing.B) {
	b.Run("off", func(b *testing.B) { benchHealth(b) })
	b.Run("on", func(b *testing.B) {
		benchHealth(b, func(c *Config) { c.Requests = metrics.New("bench", nil) })
	})
}
