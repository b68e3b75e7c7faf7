package mcpserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// modernMeta is the _meta every 2026-07-28 request carries.
func modernMeta(version string) map[string]any {
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    version,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "test", "version": "1"},
	}
}

// modernRequest is a 2026-07-28 request with the headers that revision
// requires (the protocol version, Mcp-Method, and Mcp-Name for tools/call).
func modernRequest(key string, id int, method string, params map[string]any) (string, map[string]string) {
	if params == nil {
		params = map[string]any{}
	}
	params["_meta"] = modernMeta("2026-07-28")
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	h := map[string]string{
		"Authorization": "Bearer " + key, "Accept": "application/json, text/event-stream",
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": method,
	}
	if name, ok := params["name"].(string); ok {
		h["Mcp-Name"] = name
	}
	return string(body), h
}

func TestServerDiscover(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeMCP)
	res := env.post(modernRequest(key, 1, "server/discover", nil))
	if res.status != http.StatusOK {
		t.Fatalf("status %d: %s", res.status, res.body)
	}
	var msg struct {
		ID     int `json:"id"`
		Result struct {
			ResultType        string         `json:"resultType"`
			SupportedVersions []string       `json:"supportedVersions"`
			Capabilities      map[string]any `json:"capabilities"`
			Instructions      string         `json:"instructions"`
			TTLMs             *int64         `json:"ttlMs"`
			CacheScope        string         `json:"cacheScope"`
			Meta              map[string]struct {
				Name string `json:"name"`
			} `json:"_meta"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res.body, &msg); err != nil {
		t.Fatalf("%v: %s", err, res.body)
	}
	r := msg.Result
	if diff := cmp.Diff(ProtocolVersions, r.SupportedVersions); diff != "" {
		t.Errorf("supportedVersions (-want +got):\n%s", diff)
	}
	if _, ok := r.Capabilities["tools"]; !ok || r.Instructions != wantInstructions("API key", "finance:read, mcp:connect") || r.ResultType != "complete" {
		t.Errorf("result %s: want the tools capability, the instructions and resultType complete", res.body)
	}
	if r.TTLMs == nil || *r.TTLMs != DiscoverTTL.Milliseconds() || r.CacheScope != "private" {
		t.Errorf("caching hints ttlMs=%v cacheScope=%q, want %d and private", r.TTLMs, r.CacheScope, DiscoverTTL.Milliseconds())
	}
	if r.Meta["io.modelcontextprotocol/serverInfo"].Name != "finance" {
		t.Errorf("_meta %v does not name the server", r.Meta)
	}
}

func TestModernToolsListAndCall(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeMCP)

	res := env.post(modernRequest(key, 2, "tools/list", nil))
	var list struct {
		Result struct {
			ResultType string            `json:"resultType"`
			TTLMs      *int64            `json:"ttlMs"`
			CacheScope string            `json:"cacheScope"`
			Tools      []json.RawMessage `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res.body, &list); err != nil || res.status != http.StatusOK {
		t.Fatalf("tools/list: status %d: %s", res.status, res.body)
	}
	if list.Result.ResultType != "complete" || len(list.Result.Tools) == 0 {
		t.Errorf("tools/list: %.300s", res.body)
	}
	// The list depends on the caller's scopes: private, never shared.
	if l := list.Result; l.TTLMs == nil || *l.TTLMs != ToolsListTTL.Milliseconds() || l.CacheScope != "private" {
		t.Errorf("tools/list caching hints ttlMs=%v cacheScope=%q", l.TTLMs, l.CacheScope)
	}

	res = env.post(modernRequest(key, 3, "tools/call", map[string]any{"name": "list_accounts", "arguments": map[string]any{}}))
	var call struct {
		Result struct {
			ResultType        string          `json:"resultType"`
			StructuredContent json.RawMessage `json:"structuredContent"`
			IsError           bool            `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(res.body, &call); err != nil || res.status != http.StatusOK {
		t.Fatalf("tools/call: status %d: %s", res.status, res.body)
	}
	if call.Result.ResultType != "complete" || call.Result.IsError || !strings.Contains(string(call.Result.StructuredContent), `"items":[]`) {
		t.Errorf("tools/call: %s", res.body)
	}
	// Legacy results carry no 2026-07-28 fields.
	legacy := env.rpc(key, "tools/list", map[string]any{})
	if strings.Contains(string(legacy.Result), `"ttlMs"`) || strings.Contains(string(legacy.Result), `"resultType"`) {
		t.Errorf("a 2025-06-18 tools/list carries 2026-07-28 fields: %.200s", legacy.Result)
	}
}

// The header checks of 2026-07-28: the protocol version in the header and in
// _meta, Mcp-Method and Mcp-Name must be there and agree with the body.
func TestModernHeaderChecks(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeMCP)
	call := map[string]any{"name": "list_accounts", "arguments": map[string]any{}}
	for _, tc := range []struct {
		name    string
		method  string
		params  map[string]any
		edit    func(h map[string]string)
		status  int
		code    int
		message string
	}{
		{"no Mcp-Method", "tools/list", nil, func(h map[string]string) { delete(h, "Mcp-Method") }, 400, -32020, "Mcp-Method"},
		{"Mcp-Method differs", "tools/list", nil, func(h map[string]string) { h["Mcp-Method"] = "tools/call" }, 400, -32020, "Mcp-Method"},
		{"no Mcp-Name", "tools/call", call, func(h map[string]string) { delete(h, "Mcp-Name") }, 400, -32020, "Mcp-Name"},
		{"Mcp-Name differs", "tools/call", call, func(h map[string]string) { h["Mcp-Name"] = "delete_expense" }, 400, -32020, "Mcp-Name"},
		{"header version differs from _meta", "tools/list", nil, func(h map[string]string) { h["MCP-Protocol-Version"] = "2025-11-25" }, 400, -32020, "does not match"},
		{"no header version", "tools/list", nil, func(h map[string]string) { delete(h, "MCP-Protocol-Version") }, 400, -32020, "Mcp-Protocol-Version header is required"},
		// Removed in 2026-07-28.
		{"initialize", "initialize", nil, nil, 404, -32601, "initialize"},
		{"ping", "ping", nil, nil, 404, -32601, "ping"},
		{"unknown method", "no/such/method", nil, nil, 404, -32601, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, h := modernRequest(key, 11, tc.method, tc.params)
			if tc.edit != nil {
				tc.edit(h)
			}
			wantRPCError(t, env.post(body, h), tc.status, json.RawMessage("11"), tc.code, tc.message)
		})
	}

	t.Run("a version the server does not speak", func(t *testing.T) {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 12, "method": "tools/list",
			"params": map[string]any{"_meta": modernMeta("2099-01-01")}})
		res := env.post(string(body), map[string]string{"Authorization": "Bearer " + key,
			"MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "tools/list"})
		msg := wantRPCError(t, res, 400, json.RawMessage("12"), -32022, "2099-01-01")
		if !strings.Contains(string(msg.Error.Data), `"supported":["2026-07-28","2025-11-25"`) {
			t.Errorf("data %s does not list the supported versions", msg.Error.Data)
		}
	})
	t.Run("a request without client capabilities", func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":13,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
		res := env.post(body, map[string]string{"Authorization": "Bearer " + key,
			"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"})
		wantRPCError(t, res, 400, json.RawMessage("13"), -32602, "clientCapabilities")
	})
}
