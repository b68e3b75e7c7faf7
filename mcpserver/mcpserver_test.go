package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/server/auth"
)

func initialize(version string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "test", "version": "1"},
	}})
	return string(b)
}

func TestInitializeNegotiatesProtocolVersion(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeMCP)
	for _, tc := range []struct{ asked, want string }{
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		{"2025-11-25", "2025-06-18"}, // newer than we speak
		{"2026-07-28", "2025-06-18"},
		{"1999-01-01", "2025-06-18"},
		{"", "2025-06-18"},
	} {
		t.Run("asked "+tc.asked, func(t *testing.T) {
			res := env.post(initialize(tc.asked), map[string]string{
				"Authorization": "Bearer " + key, "Accept": "application/json, text/event-stream",
			})
			if res.status != http.StatusOK {
				t.Fatalf("status %d: %s", res.status, res.body)
			}
			if ct := res.header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q, want application/json", ct)
			}
			if sid := res.header.Get("Mcp-Session-Id"); sid != "" {
				t.Errorf("Mcp-Session-Id = %q; the endpoint is stateless and must not issue one", sid)
			}
			var msg struct {
				Result struct {
					ProtocolVersion string         `json:"protocolVersion"`
					Capabilities    map[string]any `json:"capabilities"`
					ServerInfo      struct {
						Name string `json:"name"`
					} `json:"serverInfo"`
					Instructions string `json:"instructions"`
				} `json:"result"`
			}
			if err := json.Unmarshal(res.body, &msg); err != nil {
				t.Fatal(err)
			}
			if msg.Result.ProtocolVersion != tc.want {
				t.Errorf("protocolVersion = %q, want %q", msg.Result.ProtocolVersion, tc.want)
			}
			if msg.Result.ServerInfo.Name != "finance" {
				t.Errorf("serverInfo.name = %q", msg.Result.ServerInfo.Name)
			}
			if _, ok := msg.Result.Capabilities["tools"]; !ok {
				t.Errorf("capabilities %v do not declare tools", msg.Result.Capabilities)
			}
			if msg.Result.Instructions != Instructions {
				t.Errorf("instructions = %q", msg.Result.Instructions)
			}
		})
	}
}

// The six safety rules of the specification (section 4.6), in substance.
func TestInstructionsCarryTheSafetyRules(t *testing.T) {
	for _, rule := range []string{
		"1. Read first to identify accounts, cards, statements, bills, loan installments and categories",
		"2. Ask the user to confirm before calling write tools, especially payments, deletes, splits and balance adjustments.",
		"3. Do not blindly retry payment or balance tools after a network failure; read the latest state first.",
		"4. Payment methods are only Cash, Account Debit and Credit Card.",
		"5. Account Debit needs an active account_id; Credit Card needs an active credit_card_id where supported.",
		"6. Grant only the write scopes an integration needs.",
	} {
		if !strings.Contains(Instructions, rule) {
			t.Errorf("instructions lack %q", rule)
		}
	}
}

func TestProtocolVersionHeader(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeMCP)
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	for _, tc := range []struct {
		header     string
		wantStatus int
	}{
		{"", http.StatusOK}, // 2025-03-26 clients send none
		{"2025-06-18", http.StatusOK},
		{"2025-03-26", http.StatusOK},
		{"2024-11-05", http.StatusOK},
		{"2025-11-25", http.StatusBadRequest},
		{"2026-07-28", http.StatusBadRequest},
		{"banana", http.StatusBadRequest},
	} {
		t.Run("header "+tc.header, func(t *testing.T) {
			h := map[string]string{"Authorization": "Bearer " + key}
			if tc.header != "" {
				h["MCP-Protocol-Version"] = tc.header
			}
			res := env.post(ping, h)
			if res.status != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", res.status, tc.wantStatus, res.body)
			}
			if tc.wantStatus == http.StatusBadRequest {
				wantRPCError(t, res, "Unsupported MCP-Protocol-Version "+tc.header)
			}
		})
	}
	// The header is checked on initialize too.
	res := env.post(initialize("2025-06-18"), map[string]string{"Authorization": "Bearer " + key, "MCP-Protocol-Version": "2.0"})
	if res.status != http.StatusBadRequest {
		t.Errorf("initialize with a bad header: status %d, want 400", res.status)
	}
}

// wantRPCError checks a JSON-RPC error answer without an id.
func wantRPCError(t *testing.T, res response, wantInMessage string) {
	t.Helper()
	if ct := res.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var msg struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(res.body, &msg); err != nil {
		t.Fatalf("not JSON: %v: %s", err, res.body)
	}
	if msg.JSONRPC != "2.0" || msg.ID != nil || msg.Error.Code == 0 {
		t.Errorf("not a JSON-RPC error without id: %s", res.body)
	}
	if !strings.Contains(msg.Error.Message, wantInMessage) {
		t.Errorf("message %q does not contain %q", msg.Error.Message, wantInMessage)
	}
}

// wantEnvelopeError checks an error of the server's middleware.
func wantEnvelopeError(t *testing.T, res response, status int, code string) {
	t.Helper()
	if res.status != status {
		t.Fatalf("status %d, want %d: %s", res.status, status, res.body)
	}
	var env envelope
	if err := json.Unmarshal(res.body, &env); err != nil || env.Success || env.Error["code"] != code {
		t.Errorf("body %s, want an error envelope with code %s", res.body, code)
	}
}

func TestAuthentication(t *testing.T) {
	env := newTestEnv(t)
	body := initialize("2025-06-18")
	challenge := `resource_metadata="` + testBaseURL + `/.well-known/oauth-protected-resource"`

	t.Run("no credential is 401 with the OAuth challenge", func(t *testing.T) {
		res := env.post(body, nil)
		wantEnvelopeError(t, res, http.StatusUnauthorized, "UNAUTHORIZED")
		if h := res.header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer ") || !strings.Contains(h, challenge) {
			t.Errorf("WWW-Authenticate = %q, want Bearer with %s", h, challenge)
		}
	})
	t.Run("an unknown key is 401 with the OAuth challenge", func(t *testing.T) {
		res := env.post(body, map[string]string{"Authorization": "Bearer svk_nope_nope"})
		wantEnvelopeError(t, res, http.StatusUnauthorized, "UNAUTHORIZED")
		if h := res.header.Get("WWW-Authenticate"); !strings.Contains(h, challenge) {
			t.Errorf("WWW-Authenticate = %q", h)
		}
	})
	t.Run("a key without mcp:connect is 403", func(t *testing.T) {
		res := env.post(body, map[string]string{"Authorization": "Bearer " + env.key(auth.ScopeRead, auth.ScopeExpensesWrite)})
		wantEnvelopeError(t, res, http.StatusForbidden, "FORBIDDEN")
		if !strings.Contains(string(res.body), "mcp:connect") {
			t.Errorf("message does not name mcp:connect: %s", res.body)
		}
	})
	t.Run("a free-plan user is 402", func(t *testing.T) {
		free := env.createUser(finance.PlanFree)
		res := env.post(body, map[string]string{"Authorization": "Bearer " + env.keyFor(free, auth.ScopeAll)})
		wantEnvelopeError(t, res, http.StatusPaymentRequired, "SUBSCRIPTION_REQUIRED")
	})
	t.Run("the key may come in X-Service-API-Key", func(t *testing.T) {
		res := env.post(body, map[string]string{"X-Service-API-Key": env.key(auth.ScopeMCP)})
		if res.status != http.StatusOK {
			t.Errorf("status %d: %s", res.status, res.body)
		}
	})
	t.Run("mcp:connect alone connects and sees no tools", func(t *testing.T) {
		if got := env.listTools(env.key(auth.ScopeMCP)); len(got) != 0 {
			t.Errorf("tools = %v, want none", got)
		}
	})
}

func TestOriginIsChecked(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeMCP)
	for _, tc := range []struct {
		origin string
		ok     bool
	}{
		{"", true},
		{testBaseURL, true},
		{"http://FINANCE.test", true},
		{"http://localhost:6274", true},
		{"http://127.0.0.1:3000", true},
		{"http://[::1]:8080", true},
		{"http://app.localhost", true},
		{"https://evil.example.com", false},
		{"http://finance.test.evil.example", false},
		{"https://finance.test", false}, // another scheme is another origin
		{"http://finance.test:8443", false},
		{"null", false},
		{"file://", false},
	} {
		t.Run(tc.origin, func(t *testing.T) {
			h := map[string]string{"Authorization": "Bearer " + key}
			if tc.origin != "" {
				h["Origin"] = tc.origin
			}
			res := env.post(initialize("2025-06-18"), h)
			switch {
			case tc.ok && res.status != http.StatusOK:
				t.Errorf("status %d, want 200: %s", res.status, res.body)
			case !tc.ok:
				if res.status != http.StatusForbidden {
					t.Fatalf("status %d, want 403: %s", res.status, res.body)
				}
				wantRPCError(t, res, "may not call this endpoint")
			}
		})
	}
}

func TestOnlyPOST(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeMCP)
	for _, method := range []string{http.MethodGet, http.MethodDelete, http.MethodPut} {
		res := env.do(method, server.MCPPath, "", map[string]string{"Authorization": "Bearer " + key, "Accept": "text/event-stream"})
		if res.status != http.StatusMethodNotAllowed || res.header.Get("Allow") != "POST" {
			t.Errorf("%s: status %d, Allow %q; want 405 with Allow: POST", method, res.status, res.header.Get("Allow"))
		}
	}
}

func TestNotificationsAreAccepted(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeMCP)
	for _, body := range []string{
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}`,
		`{"jsonrpc":"2.0","id":99,"result":{}}`, // a response to a server request
	} {
		res := env.post(body, map[string]string{"Authorization": "Bearer " + key, "MCP-Protocol-Version": "2025-06-18"})
		if res.status != http.StatusAccepted || len(res.body) != 0 {
			t.Errorf("%s: status %d body %q, want 202 and no body", body, res.status, res.body)
		}
		if sid := res.header.Get("Mcp-Session-Id"); sid != "" {
			t.Errorf("Mcp-Session-Id issued: %q", sid)
		}
	}
}

func TestStatelessAcrossRequests(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeMCP)
	// No initialize first, and a session id from elsewhere is ignored.
	res := env.post(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{
		"Authorization": "Bearer " + key, "Mcp-Session-Id": "from-another-replica",
	})
	if res.status != http.StatusOK || !strings.Contains(string(res.body), `"list_expenses"`) {
		t.Errorf("status %d: %s", res.status, res.body)
	}
	if sid := res.header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("Mcp-Session-Id = %q", sid)
	}
}

func TestMalformedRequests(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeMCP)
	hdr := map[string]string{"Authorization": "Bearer " + key}

	res := env.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`, map[string]string{"Authorization": "Bearer " + key, "Content-Type": "text/plain"})
	if res.status != http.StatusBadRequest {
		t.Errorf("text/plain: status %d, want 400", res.status)
	}
	wantRPCError(t, res, "Content-Type must be application/json")

	res = env.post(`{not json`, hdr)
	var msg rpcMessage
	if err := json.Unmarshal(res.body, &msg); err != nil || msg.Error == nil || msg.Error.Code != -32700 {
		t.Errorf("bad JSON: status %d body %s, want a parse error", res.status, res.body)
	}

	res = env.post(`{"jsonrpc":"2.0","id":1,"method":"no/such/method"}`, hdr)
	if err := json.Unmarshal(res.body, &msg); err != nil || msg.Error == nil || msg.Error.Code != -32601 {
		t.Errorf("unknown method: status %d body %s, want method not found", res.status, res.body)
	}
}

func TestBodyLimit(t *testing.T) {
	env := newTestEnv(t, func(c *server.Config) { c.MaxBodyBytes = 512 })
	key := env.key(auth.ScopeAll)
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_expenses","arguments":{"search":"` + strings.Repeat("x", 600) + `"}}}`

	// With Content-Length, the middleware refuses before reading.
	res := env.post(big, map[string]string{"Authorization": "Bearer " + key})
	wantEnvelopeError(t, res, http.StatusRequestEntityTooLarge, "VALIDATION_ERROR")

	// Without it, the limited reader stops the endpoint.
	req := strings.NewReader(big)
	r, _ := http.NewRequest(http.MethodPost, server.MCPPath, struct{ *strings.Reader }{req})
	r.Header.Set("Authorization", "Bearer "+key)
	r.Header.Set("Content-Type", "application/json")
	r.ContentLength = -1
	rec := httptest.NewRecorder()
	env.handler.ServeHTTP(rec, r)
	got := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	if got.status != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked: status %d, want 413: %s", got.status, got.body)
	}
	wantRPCError(t, got, "larger than the 512 byte limit")
}
