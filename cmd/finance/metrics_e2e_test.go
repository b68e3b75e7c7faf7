package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/finance-app/finance/internal/testkit"
)

// scrapeMetrics GETs url with the extra headers and returns the status and,
// for a 200, the parsed metrics.
func scrapeMetrics(t *testing.T, url string, header http.Header) (int, testkit.Scrape) {
	t.Helper()
	resp, body := send(t, http.MethodGet, url, "", header, nil)
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, nil
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("GET %s: Content-Type %q, want Prometheus's text format", url, ct)
	}
	return resp.StatusCode, testkit.ParseScrape(t, bytes.NewReader(body))
}

// metricsLine is serve's log line naming where the metrics are served.
var metricsLine = regexp.MustCompile(`msg=metrics endpoint=(http://127\.0\.0\.1:\d+/metrics)`)

// TestMetricsEndToEnd runs the real binary with --metrics and scrapes it as
// a Prometheus on the same machine would, after REST calls, a write and an
// MCP tool call; then with the metrics on a listener of their own, and off.
func TestMetricsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test builds and runs the binary")
	}
	bin := buildBinary(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	binMustRun(t, bin, dataDir, "metrics password\n", "users", "create", "--email", "m@example.com", "--password-stdin")
	key := strings.TrimSpace(binMustRun(t, bin, dataDir, "", "keys", "create", "--user", "m@example.com", "--name", "metrics",
		"--scopes", "finance:read,expenses:write,mcp:connect").stdout)

	srv := startServerCmd(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--metrics"))
	if m := metricsLine.FindStringSubmatch(srv.stderr()); m == nil || m[1] != srv.url+"/metrics" {
		t.Errorf("serve logs no metrics line naming %s/metrics:\n%s", srv.url, srv.stderr())
	}
	status, env := call(t, http.MethodPost, srv.url+"/api/v1/expenses", key, map[string]any{
		"amount": json.Number("12.50"), "date": "2025-03-05", "description": "Coffee", "category": "Food & Dining", "payment_method": "Cash"})
	if status != http.StatusCreated {
		t.Fatalf("POST /api/v1/expenses: %d %+v", status, env)
	}
	var expense struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(env.Data, &expense); err != nil || expense.ID == "" {
		t.Fatalf("created expense %s: %v", env.Data, err)
	}
	for _, c := range []struct {
		path string
		want int
	}{{"/api/v1/expenses/" + expense.ID, 200}, {"/api/v1/expenses/" + expense.ID, 200}, {"/api/v1/expenses/019a0000-0000-7000-8000-000000000000", 404}} {
		if status, env := call(t, http.MethodGet, srv.url+c.path, key, nil); status != c.want {
			t.Fatalf("GET %s: %d %+v", c.path, status, env)
		}
	}
	mcpHeader := http.Header{"Mcp-Protocol-Version": {"2025-06-18"}, "Accept": {"application/json, text/event-stream"}}
	resp, body := send(t, http.MethodPost, srv.url+"/api/mcp", key, mcpHeader,
		map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": "list_expenses", "arguments": map[string]any{}}})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Coffee") || strings.Contains(string(body), `"isError":true`) {
		t.Fatalf("tools/call list_expenses: %d %s", resp.StatusCode, body)
	}

	status, s := scrapeMetrics(t, srv.url+"/metrics", nil)
	if status != http.StatusOK {
		t.Fatalf("GET /metrics from this machine: %d", status)
	}
	s.CheckRequests(t,
		testkit.Requests{N: 1, Route: "/api/v1/expenses", Method: "POST", Code: "201"},
		testkit.Requests{N: 2, Route: "/api/v1/expenses/:id", Method: "GET", Code: "200"},
		testkit.Requests{N: 1, Route: "/api/v1/expenses/:id", Method: "GET", Code: "404"},
		testkit.Requests{N: 1, Route: "/api/mcp", Method: "POST", Code: "200"},
	)
	for _, route := range s.LabelValues("finance_http_requests_total", "route") {
		if strings.Contains(route, expense.ID) {
			t.Errorf("a route label holds the expense's id: %s", route)
		}
	}
	if got, _ := s.Value("finance_mcp_tool_calls_total", "tool", "list_expenses", "outcome", "ok"); got != 1 {
		t.Errorf("%v list_expenses calls counted, want 1", got)
	}
	// The expense's write at least; the server's own (keys' last use) may join.
	if got, _ := s.Value("finance_database_writes_per_commit"); got < 1 {
		t.Errorf("%v commits counted, want the expense's at least", got)
	}
	if onPostgres() {
		// No file to measure, no scheduled backups: absent, not 0.
		for _, name := range []string{"finance_database_size_bytes", "finance_database_wal_size_bytes", "finance_backup_interval_seconds"} {
			if s[name] != nil {
				t.Errorf("%s on Postgres: %v, want it absent", name, s[name])
			}
		}
	} else {
		if got, _ := s.Value("finance_database_size_bytes"); got <= 0 {
			t.Errorf("database size %v", got)
		}
		// Scheduled backups are on by default: one a day.
		if got, _ := s.Value("finance_backup_interval_seconds"); got != 86400 {
			t.Errorf("backup interval %v, want 86400", got)
		}
	}
	for _, name := range []string{"finance_build_info", "go_goroutines", "process_resident_memory_bytes"} {
		if s[name] == nil {
			t.Errorf("no %s; families: %s", name, s)
		}
	}
	// A client a proxy on this machine forwards is not on this machine.
	if status, _ := scrapeMetrics(t, srv.url+"/metrics", http.Header{"X-Forwarded-For": {"127.0.0.1"}}); status != http.StatusNotFound {
		t.Errorf("GET /metrics forwarded by a proxy: %d, want 404", status)
	}
	if code := srv.interrupt(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}

	// On a listener of their own, and only there.
	srv = startServerCmd(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--metrics",
		"--metrics-addr", "127.0.0.1:0"))
	m := metricsLine.FindStringSubmatch(srv.stderr())
	if m == nil || m[1] == srv.url+"/metrics" {
		t.Fatalf("serve logs no metrics listener of their own:\n%s", srv.stderr())
	}
	if resp, body := send(t, http.MethodGet, srv.url+"/healthz", "", nil, nil); resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz: %d %s", resp.StatusCode, body)
	}
	if status, s := scrapeMetrics(t, m[1], nil); status != http.StatusOK {
		t.Errorf("GET %s: %d", m[1], status)
	} else if got, _ := s.Value("finance_http_requests_total", "route", "/healthz", "method", "GET", "code", "200"); got != 1 {
		t.Errorf("GET %s: %v requests to /healthz counted, want 1", m[1], got)
	}
	if status, _ := scrapeMetrics(t, srv.url+"/metrics", nil); status != http.StatusNotFound {
		t.Errorf("GET /metrics on the main listener with --metrics-addr: %d, want 404", status)
	}
	if status, _ := scrapeMetrics(t, strings.TrimSuffix(m[1], "/metrics")+"/api/v1/health", nil); status != http.StatusNotFound {
		t.Errorf("the metrics listener answers another path: %d, want 404", status)
	}
	if code := srv.interrupt(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}

	// Off by default.
	srv = startServer(t, bin, dataDir)
	if status, _ := scrapeMetrics(t, srv.url+"/metrics", nil); status != http.StatusNotFound {
		t.Errorf("GET /metrics with metrics off: %d, want 404", status)
	}
	if m := metricsLine.FindStringSubmatch(srv.stderr()); m != nil {
		t.Errorf("metrics off, yet serve logs %q", m[0])
	}
	if code := srv.interrupt(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}

	// An address for metrics that are off is a mistake, said at once.
	r := binCLI(t, bin, dataDir, "", "serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
	if want := "--metrics-addr 127.0.0.1:0 is set but metrics are off: add --metrics (or FINANCE_METRICS=true) to serve them there"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("serve --metrics-addr without --metrics: exit %d, %s; want exit 1 saying %q", r.code, r.stderr, want)
	}
}
