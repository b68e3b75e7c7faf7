package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/metrics"
	"github.com/finance-app/finance/server"
)

// TestToolCallsInTheMetrics: each tool call is counted under its tool and
// outcome (a REST refusal and arguments that form no request are the
// client's errors), the write it made is committed once, and the request
// is one request to /api/mcp: the REST route a tool calls in process is not
// counted as a request of its own.
func TestToolCallsInTheMetrics(t *testing.T) {
	m := metrics.New("test", nil)
	env := newTestEnv(t, func(c *server.Config) { c.Requests = m })
	env.mcp.calls = m
	key := env.key(auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP)
	env.db.ObserveCommits(m) // from here on: the key's own write is not counted

	created := env.callTool(key, "create_expense", map[string]any{
		"amount": json.Number("12.50"), "date": "2025-03-08", "description": "Coffee", "category": "Food & Dining",
		"payment_method": "Cash",
	})
	if created.IsError {
		t.Fatalf("create_expense: %s", created.Content[0].Text)
	}
	id := created.structured(t)["id"].(string)
	if got := env.callTool(key, "get_expense", map[string]any{"id": id}).structured(t); got["description"] != "Coffee" {
		t.Errorf("get_expense: %v", got)
	}
	if got := env.callTool(key, "get_expense", map[string]any{"id": "no-such-expense"}).problem(t); got["code"] != "NOT_FOUND" {
		t.Errorf("get_expense of an unknown id: %v", got)
	}
	if got := env.callTool(key, "get_expense", map[string]any{"id": id, "color": "red"}).problem(t); got["code"] != "VALIDATION_ERROR" {
		t.Errorf("get_expense with an unknown argument: %v", got)
	}

	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, metrics.Path, nil)
	req.RemoteAddr = "127.0.0.1:50000"
	m.ServeLoopback(env.handler).ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	s := testkit.ParseScrape(t, rec.Body)
	for _, c := range []struct {
		n             float64
		tool, outcome string
	}{
		{1, "create_expense", "ok"},
		{1, "get_expense", "ok"},
		{2, "get_expense", "client_error"},
	} {
		if got, _ := s.Value("finance_mcp_tool_calls_total", "tool", c.tool, "outcome", c.outcome); got != c.n {
			t.Errorf("%s %s: %v calls counted, want %v", c.tool, c.outcome, got, c.n)
		}
	}
	if got := s.LabelValues("finance_mcp_tool_calls_total", "tool"); len(got) != 2 {
		t.Errorf("tools counted: %v, want create_expense and get_expense", got)
	}
	// Four tools/call requests, each answered 200 (a tool's error is in its result).
	if got, _ := s.Value("finance_http_requests_total", "route", server.MCPPath, "method", "POST", "code", "200"); got != 4 {
		t.Errorf("%v requests to %s counted, want 4", got, server.MCPPath)
	}
	if routes := s.LabelValues("finance_http_requests_total", "route"); len(routes) != 1 || routes[0] != server.MCPPath {
		t.Errorf("routes counted: %v; want %s alone", routes, server.MCPPath)
	}
	if got, _ := s.Value("finance_database_writes_per_commit"); got != 1 {
		t.Errorf("%v commits counted, want the expense's 1", got)
	}
}
