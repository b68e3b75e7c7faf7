package metrics

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/internal/testkit"
)

func newTestMetrics() *Metrics {
	return New("1.2.3", slog.New(slog.NewTextHandler(io.Discard, nil)))
}

// scrape reads m's metrics as a client on this machine would.
func scrape(t *testing.T, m *Metrics) testkit.Scrape {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, Path, nil)
	m.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", Path, rec.Code, rec.Body)
	}
	return testkit.ParseScrape(t, rec.Body)
}

// TestServeLoopback: the metrics share the service's listener only with
// clients on this machine; to anyone else, and to a request a proxy
// forwarded, /metrics is a path like any unknown one, answered by the
// service (404).
func TestServeLoopback(t *testing.T) {
	m := newTestMetrics()
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "the service's own answer", http.StatusNotFound)
	})
	h := m.ServeLoopback(next)
	tests := []struct {
		name, method, path, remote string
		header                     map[string]string
		served                     bool
	}{
		{"IPv4 loopback", http.MethodGet, Path, "127.0.0.1:40000", nil, true},
		{"another IPv4 loopback address", http.MethodGet, Path, "127.0.0.2:40000", nil, true},
		{"IPv6 loopback", http.MethodGet, Path, "[::1]:40000", nil, true},
		{"IPv4 loopback mapped into IPv6", http.MethodGet, Path, "[::ffff:127.0.0.1]:40000", nil, true},
		{"HEAD", http.MethodHead, Path, "127.0.0.1:40000", nil, true},
		{"the LAN", http.MethodGet, Path, "192.168.1.20:40000", nil, false},
		{"the LAN in IPv6", http.MethodGet, Path, "[fd00::20]:40000", nil, false},
		{"a remote client claiming loopback", http.MethodGet, Path, "203.0.113.9:40000",
			map[string]string{"X-Forwarded-For": "127.0.0.1"}, false},
		// A reverse proxy on this machine connects from loopback for a
		// client anywhere: what it forwards is never local.
		{"a proxy on this machine", http.MethodGet, Path, "127.0.0.1:40000",
			map[string]string{"X-Forwarded-For": "203.0.113.9"}, false},
		{"a proxy saying loopback", http.MethodGet, Path, "127.0.0.1:40000",
			map[string]string{"X-Forwarded-For": "127.0.0.1"}, false},
		{"Forwarded", http.MethodGet, Path, "127.0.0.1:40000", map[string]string{"Forwarded": "for=203.0.113.9"}, false},
		{"X-Real-IP", http.MethodGet, Path, "127.0.0.1:40000", map[string]string{"X-Real-IP": "203.0.113.9"}, false},
		{"an empty X-Forwarded-For", http.MethodGet, Path, "127.0.0.1:40000", map[string]string{"X-Forwarded-For": ""}, false},
		{"POST", http.MethodPost, Path, "127.0.0.1:40000", nil, false},
		{"a trailing slash", http.MethodGet, Path + "/", "127.0.0.1:40000", nil, false},
		{"another path", http.MethodGet, "/metricsz", "127.0.0.1:40000", nil, false},
		{"no peer address", http.MethodGet, Path, "", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, nil)
			req.RemoteAddr = tt.remote
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if !tt.served {
				if rec.Code != http.StatusNotFound || rec.Body.String() != "the service's own answer\n" {
					t.Errorf("%d %q; want the service's own 404", rec.Code, rec.Body)
				}
				return
			}
			if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain") {
				t.Fatalf("%d %s; want the metrics", rec.Code, rec.Header().Get("Content-Type"))
			}
			if tt.method == http.MethodGet {
				testkit.ParseScrape(t, rec.Body).Check(t, 1, "finance_build_info", "version", "1.2.3")
			}
		})
	}
}

// TestRequests: each request is counted under its route's pattern, never
// its path; a path no route has under one label; a made-up method under
// OTHER; the histogram by status class.
func TestRequests(t *testing.T) {
	m := newTestMetrics()
	m.Request("/api/v1/expenses/:id", http.MethodGet, 200, 2*time.Millisecond)
	m.Request("/api/v1/expenses/:id", http.MethodGet, 200, 3*time.Millisecond)
	m.Request("/api/v1/expenses/:id", http.MethodGet, 404, time.Millisecond)
	m.Request("/api/v1/expenses", http.MethodPost, 201, 20*time.Millisecond)
	m.Request("", http.MethodGet, 404, time.Millisecond)
	m.Request("", "BREW", 404, time.Millisecond)
	s := scrape(t, m)

	s.CheckRequests(t,
		testkit.Requests{N: 2, Route: "/api/v1/expenses/:id", Method: "GET", Code: "200"},
		testkit.Requests{N: 1, Route: "/api/v1/expenses/:id", Method: "GET", Code: "404"},
		testkit.Requests{N: 1, Route: "/api/v1/expenses", Method: "POST", Code: "201"},
		testkit.Requests{N: 1, Route: UnmatchedRoute, Method: "GET", Code: "404"},
		testkit.Requests{N: 1, Route: UnmatchedRoute, Method: "OTHER", Code: "404"},
	)
	s.Check(t, 2, "finance_http_request_duration_seconds", "route", "/api/v1/expenses/:id", "method", "GET", "status_class", "2xx")
	s.Check(t, 1, "finance_http_request_duration_seconds", "route", "/api/v1/expenses/:id", "method", "GET", "status_class", "4xx")
	if sum, _ := s.Sum("finance_http_request_duration_seconds", "route", "/api/v1/expenses/:id", "method", "GET", "status_class", "2xx"); sum != 0.005 {
		t.Errorf("duration sum %v, want 0.005", sum)
	}
	if diff := cmp.Diff([]string{"/api/v1/expenses", "/api/v1/expenses/:id", UnmatchedRoute},
		s.LabelValues("finance_http_requests_total", "route")); diff != "" {
		t.Errorf("routes (-want +got):\n%s", diff)
	}
}

// TestRequestAllocatesNothing: counting a request of a route, method and
// status met before allocates nothing.
func TestRequestAllocatesNothing(t *testing.T) {
	m := newTestMetrics()
	m.Request("/api/v1/expenses/:id", http.MethodGet, 200, time.Millisecond)
	if n := testing.AllocsPerRun(100, func() {
		m.Request("/api/v1/expenses/:id", http.MethodGet, 200, time.Millisecond)
	}); n != 0 {
		t.Errorf("%v allocations per request, want 0", n)
	}
}

func BenchmarkRequest(b *testing.B) {
	m := newTestMetrics()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			m.Request("/api/v1/expenses/:id", http.MethodGet, 200, time.Millisecond)
		}
	})
}

// TestCounters: commits, tool calls, AI calls and reminders, each with its
// labels.
func TestCounters(t *testing.T) {
	m := newTestMetrics()
	m.Committed(1, 2*time.Millisecond)
	m.Committed(5, 4*time.Millisecond)
	m.ToolCall("list_expenses", 200)
	m.ToolCall("list_expenses", 200)
	m.ToolCall("get_expense", 404)
	m.ToolCall("create_expense", 400)
	m.ToolCall("create_expense", 503)
	m.ToolCall("create_expense", 201)
	m.AICall("text", "ok")
	m.AICall("ocr", "error")
	m.Reminder("telegram", "sent")
	m.Reminder("home", "sent")
	m.Reminder("home", "sent")
	s := scrape(t, m)

	s.Check(t, 2, "finance_database_writes_per_commit")
	if sum, _ := s.Sum("finance_database_writes_per_commit"); sum != 6 {
		t.Errorf("writes committed %v, want 6", sum)
	}
	s.Check(t, 2, "finance_database_commit_duration_seconds")
	if sum, _ := s.Sum("finance_database_commit_duration_seconds"); sum != 0.006 {
		t.Errorf("commit time %v, want 0.006", sum)
	}
	s.Check(t, 2, "finance_mcp_tool_calls_total", "tool", "list_expenses", "outcome", "ok")
	s.Check(t, 1, "finance_mcp_tool_calls_total", "tool", "get_expense", "outcome", "client_error")
	s.Check(t, 1, "finance_mcp_tool_calls_total", "tool", "create_expense", "outcome", "client_error")
	s.Check(t, 1, "finance_mcp_tool_calls_total", "tool", "create_expense", "outcome", "server_error")
	s.Check(t, 1, "finance_mcp_tool_calls_total", "tool", "create_expense", "outcome", "ok")
	s.Check(t, 1, "finance_ai_calls_total", "kind", "text", "outcome", "ok")
	s.Check(t, 1, "finance_ai_calls_total", "kind", "ocr", "outcome", "error")
	s.Check(t, 1, "finance_reminders_total", "channel", "telegram", "outcome", "sent")
	s.Check(t, 2, "finance_reminders_total", "channel", "home", "outcome", "sent")
	// The Go runtime's and the process's collectors.
	for _, name := range []string{"go_goroutines", "go_info", "process_resident_memory_bytes", "process_start_time_seconds"} {
		if s[name] == nil {
			t.Errorf("no %s; families: %s", name, s)
		}
	}
}

type fakeBackups struct {
	last     time.Time
	interval time.Duration
}

func (b *fakeBackups) LastSuccess() time.Time  { return b.last }
func (b *fakeBackups) Interval() time.Duration { return b.interval }

// TestDatabaseAndBackups: the database's size and the backups' age are
// read at each scrape; before the first backup there is no time or age,
// as health's are null.
func TestDatabaseAndBackups(t *testing.T) {
	m := newTestMetrics()
	now := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	m.now = func() time.Time { return now }
	file, wal := int64(4096), int64(0)
	m.WatchDatabase(func() (int64, int64) { return file, wal })
	b := &fakeBackups{interval: 6 * time.Hour}
	m.WatchBackups(b)

	s := scrape(t, m)
	s.Check(t, 4096, "finance_database_size_bytes")
	s.Check(t, 0, "finance_database_wal_size_bytes")
	s.Check(t, 21600, "finance_backup_interval_seconds")
	for _, name := range []string{"finance_backup_last_success_timestamp_seconds", "finance_backup_age_seconds"} {
		if s[name] != nil {
			t.Errorf("%s before the first backup: %v", name, s[name])
		}
	}

	file, wal = 1<<20, 8192
	b.last = now.Add(-90*time.Minute - 500*time.Millisecond)
	s = scrape(t, m)
	s.Check(t, 1<<20, "finance_database_size_bytes")
	s.Check(t, 8192, "finance_database_wal_size_bytes")
	s.Check(t, float64(b.last.UnixMilli())/1e3, "finance_backup_last_success_timestamp_seconds")
	s.Check(t, 5400.5, "finance_backup_age_seconds")
}

// TestNilCountsNothing: the composition root hands a nil *Metrics to every
// package when metrics are off.
func TestNilCountsNothing(t *testing.T) {
	var m *Metrics
	m.Request("/x", http.MethodGet, 200, time.Millisecond)
	m.Committed(1, time.Millisecond)
	m.ToolCall("list_expenses", 200)
	m.AICall("text", "ok")
	m.Reminder("home", "sent")
	m.WatchDatabase(func() (int64, int64) { return 0, 0 })
	m.WatchBackups(&fakeBackups{})
}

func TestStatusClass(t *testing.T) {
	for code, want := range map[int]string{200: "2xx", 201: "2xx", 301: "3xx", 404: "4xx", 503: "5xx", 0: "other", 600: "other"} {
		if got := statusClass(code); got != want {
			t.Errorf("statusClass(%d) = %q, want %q", code, got, want)
		}
	}
}
