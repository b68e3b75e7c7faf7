package mcpserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/store"
)

// callToolRaw calls a tool and returns the HTTP answer, X-Request-Id and all.
func (e *testEnv) callToolRaw(key, name string, args any) response {
	e.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rpcID.Add(1), "method": "tools/call",
		"params": map[string]any{"name": name, "arguments": args}})
	if err != nil {
		e.t.Fatal(err)
	}
	return e.post(string(body), map[string]string{"Authorization": "Bearer " + key, "MCP-Protocol-Version": "2025-06-18",
		"Accept": "application/json, text/event-stream"})
}

// A tool call whose REST route fails deep inside (a write on a full disk)
// logs the cause, from the in-process call to the route, under the MCP
// request's id, as its access log line is: each line one JSON object
// carrying the X-Request-Id the MCP client was answered with.
func TestToolCallLogLinesCarryTheRequestID(t *testing.T) {
	env := newTestEnvOn(t, func(db *store.DB) server.Database { return fullDisk{db} }, func(c *server.Config) { c.AccessLog = true })
	key := env.key(auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP)
	env.logs.Reset()
	res := env.callToolRaw(key, "create_expense", map[string]any{
		"amount": "12.50", "date": "2025-03-08", "description": "Bus", "category": "Transportation", "payment_method": "Cash",
	})
	if res.status != http.StatusOK || !strings.Contains(string(res.body), `"isError":true`) {
		t.Fatalf("tools/call on a full disk: %d %s", res.status, res.body)
	}
	env.logs.WantRequestLines(t, res.header.Get("X-Request-Id"), "request failed", "request")
	for _, line := range env.logs.JSONLines(t) {
		if line["msg"] == "request" && (line["route"] != server.MCPPath || line["credential"] != "api_key") {
			t.Errorf("the access log line names route %v and credential %v, want %s and api_key", line["route"], line["credential"], server.MCPPath)
		}
	}
}

// An MCP write at the default level logs neither the key nor what was
// recorded: its description and amount.
func TestToolCallLogsNoSecrets(t *testing.T) {
	env := newTestEnv(t, func(c *server.Config) { c.AccessLog = true })
	key := env.key(auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP)
	const description, amount = "Anniversary dinner at Lola's", "7654.31"
	res := env.callTool(key, "create_expense", map[string]any{
		"amount": amount, "date": "2025-03-08", "description": description, "category": "Food & Dining", "payment_method": "Cash",
	})
	if res.IsError {
		t.Fatalf("create_expense: %+v", res.Content)
	}
	log := env.logs.String()
	if len(env.logs.JSONLines(t)) == 0 {
		t.Fatal("nothing logged; want the access log line")
	}
	for what, s := range map[string]string{"the key": key, "the key's secret": key[strings.LastIndex(key, "_")+1:],
		"the description": description, "the amount": amount, "the amount in centavos": "765431"} {
		if strings.Contains(log, s) {
			t.Errorf("the log holds %s (%q):\n%s", what, s, log)
		}
	}
}
