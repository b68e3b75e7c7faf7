package mcpserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server"
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
		{"2025-11-25", "2025-11-25"},
		{"2025-06-18", "2025-06-18"},
		{"2025-03-26", "2025-03-26"},
		{"2024-11-05", "2024-11-05"},
		// 2026-07-28 has no handshake: initialize offers the newest that has one.
		{"2026-07-28", "2025-11-25"},
		{"2099-01-01", "2025-11-25"},
		{"1999-01-01", "2025-11-25"},
		{"", "2025-11-25"},
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
			if want := wantInstructions("API key", "finance:read, mcp:connect"); msg.Result.Instructions != want {
				t.Errorf("instructions = %q\nwant %q", msg.Result.Instructions, want)
			}
		})
	}
}

// wantInstructions is the instructions a caller of the test user (default
// settings: Asia/Manila, PHP) holding scopes gets.
func wantInstructions(credential, scopes string) string {
	manila, _ := time.LoadLocation("Asia/Manila")
	return "Today is " + time.Now().In(manila).Format(time.DateOnly) + " in Asia/Manila; the reporting currency is PHP. This " + credential +
		" holds the scopes " + scopes + "; tools needing others are not listed.\n\n" + Instructions
}

// The instructions start with what the tool list cannot say: the user's
// today, timezone and currency, from the user's settings as they are now,
// and the scopes of the credential; initialize and server/discover agree.
func TestInstructionsCarryTheUsersContext(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeExpensesWrite, auth.ScopeMCP)
	instructions := func() (legacy, modern string) {
		var init, discover struct {
			Result struct {
				Instructions string `json:"instructions"`
			} `json:"result"`
		}
		res := env.post(initialize("2025-11-25"), map[string]string{"Authorization": "Bearer " + key, "Accept": "application/json, text/event-stream"})
		if err := json.Unmarshal(res.body, &init); err != nil {
			t.Fatal(err)
		}
		res = env.post(modernRequest(key, 1, "server/discover", nil))
		if err := json.Unmarshal(res.body, &discover); err != nil {
			t.Fatal(err)
		}
		return init.Result.Instructions, discover.Result.Instructions
	}
	legacy, modern := instructions()
	if want := wantInstructions("API key", "expenses:write, mcp:connect"); legacy != want || modern != want {
		t.Errorf("instructions:\n initialize %q\n discover   %q\n want       %q", legacy, modern, want)
	}

	// The user moves to Honolulu and counts in dollars: the next session says so.
	if status, env := env.rest(env.key(auth.ScopeSettingsWrite), http.MethodPut, "/api/v1/user-settings/app",
		`{"timezone":"Pacific/Honolulu","currency":"USD"}`); status != http.StatusOK {
		t.Fatalf("settings: %d %+v", status, env)
	}
	honolulu, _ := time.LoadLocation("Pacific/Honolulu")
	want := "Today is " + time.Now().In(honolulu).Format(time.DateOnly) + " in Pacific/Honolulu; the reporting currency is USD. "
	if legacy, modern := instructions(); !strings.HasPrefix(legacy, want) || !strings.HasPrefix(modern, want) {
		t.Errorf("after the move:\n initialize %q\n discover   %q\n want the prefix %q", legacy, modern, want)
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

// The instructions tell agents that a write's warnings were saved with it
// and are to be shown to the user (docs/domain.md, Warnings).
func TestInstructionsShowWarnings(t *testing.T) {
	for _, want := range []string{
		`A write's result may carry a "Warnings" text block`,
		"The write was saved; show every warning to the user before going on",
	} {
		if !strings.Contains(Instructions, want) {
			t.Errorf("instructions lack %q", want)
		}
	}
}

func TestProtocolVersionHeader(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeMCP)
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	for _, v := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} { // 2025-03-26 clients send none
		t.Run("header "+v, func(t *testing.T) {
			h := map[string]string{"Authorization": "Bearer " + key}
			if v != "" {
				h["MCP-Protocol-Version"] = v
			}
			if res := env.post(ping, h); res.status != http.StatusOK || !strings.Contains(string(res.body), `"result":{}`) {
				t.Errorf("status %d: %s", res.status, res.body)
			}
		})
	}
	for _, tc := range []struct{ name, body, header string }{
		{"unknown version", ping, "banana"},
		{"newer version", ping, "2099-01-01"},
		// initialize negotiates in its body, but a header it sends is checked.
		{"initialize", `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}`, "2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := env.post(tc.body, map[string]string{"Authorization": "Bearer " + key, "MCP-Protocol-Version": tc.header})
			msg := wantRPCError(t, res, http.StatusBadRequest, json.RawMessage("7"), -32022, "Unsupported protocol version "+tc.header)
			var data struct {
				Supported []string `json:"supported"`
				Requested string   `json:"requested"`
			}
			if err := json.Unmarshal(msg.Error.Data, &data); err != nil {
				t.Fatalf("error data: %v: %s", err, res.body)
			}
			if diff := cmp.Diff(ProtocolVersions, data.Supported); diff != "" || data.Requested != tc.header {
				t.Errorf("data %s: want supported %v and requested %q", msg.Error.Data, ProtocolVersions, tc.header)
			}
		})
	}
}

// rpcErrorMessage is a JSON-RPC error answer.
type rpcErrorMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// wantRPCError checks a JSON-RPC error answer: its status, id (null when
// wantID is nil), code and a part of its message.
func wantRPCError(t *testing.T, res response, status int, wantID json.RawMessage, code int, wantInMessage string) rpcErrorMessage {
	t.Helper()
	if res.status != status {
		t.Errorf("status %d, want %d: %s", res.status, status, res.body)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type = %q, want application/json", ct)
	}
	var msg rpcErrorMessage
	if err := json.Unmarshal(res.body, &msg); err != nil {
		t.Fatalf("not JSON: %v: %s", err, res.body)
	}
	if wantID == nil {
		wantID = json.RawMessage("null")
	}
	if msg.JSONRPC != "2.0" || string(msg.ID) != string(wantID) || msg.Result != nil {
		t.Errorf("not a JSON-RPC error with id %s: %s", wantID, res.body)
	}
	if msg.Error.Code != code {
		t.Errorf("code %d, want %d: %s", msg.Error.Code, code, res.body)
	}
	if !strings.Contains(msg.Error.Message, wantInMessage) {
		t.Errorf("message %q does not contain %q", msg.Error.Message, wantInMessage)
	}
	return msg
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
				wantRPCError(t, res, http.StatusForbidden, json.RawMessage("1"), -32600, "may not call this endpoint")
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
	wantRPCError(t, res, http.StatusBadRequest, json.RawMessage("1"), -32600, "Content-Type must be application/json")

	res = env.post(`{"jsonrpc":"2.0","id":1,"method":"no/such/method"}`, hdr)
	wantRPCError(t, res, http.StatusOK, json.RawMessage("1"), -32601, "")
}

// Messages that are not a request the endpoint can serve get a JSON-RPC
// error naming the problem in plain words, with the request's id whenever
// the body has a usable one.
func TestJSONRPCErrors(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeMCP)
	for _, tc := range []struct {
		name, body string
		status     int
		id         string // "" for null
		code       int
		message    string
	}{
		{"not JSON", `{not json`, 400, "", -32700, "not valid JSON"},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, 400, "", -32600, "batches are not supported"},
		{"not an object", `"ping"`, 400, "", -32600, "must be a JSON-RPC message object"},
		{"null id", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, 400, "", -32600, "id must be a string or a number, not null"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, 400, "", -32600, "id must be a string or a number"},
		{"string id kept", `{"jsonrpc":"2.0","id":"abc","method":5}`, 400, `"abc"`, -32600, "method must be a non-empty string"},
		{"number method", `{"jsonrpc":"2.0","id":3,"method":5}`, 400, "3", -32600, "method must be a non-empty string"},
		{"no method", `{"jsonrpc":"2.0","id":3}`, 400, "3", -32600, "method is required"},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":3,"method":"ping"}`, 400, "3", -32600, `jsonrpc must be "2.0"`},
		{"params an array", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":["list_expenses"]}`, 200, "4", -32602, "params must be an object"},
		{"tool name a number", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":5}}`, 200, "4", -32602, "params.name must be a string"},
		{"tool name missing", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"arguments":{}}}`, 200, "4", -32602, "params.name is required"},
		{"cursor a number", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":7}}`, 200, "5", -32602, "params.cursor must be a string"},
		{"bogus cursor", `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"zzz"}}`, 200, "5", -32602, "params.cursor is not a cursor this server issued"},
		{"meta a string", `{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":"x"}}`, 200, "6", -32602, "params._meta must be an object"},
		{"initialize without version", `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"capabilities":{}}}`, 200, "8", -32602, "params.protocolVersion is required"},
		{"clientInfo a string", `{"jsonrpc":"2.0","id":8,"method":"initialize","params":{"protocolVersion":"2025-11-25","clientInfo":"me"}}`, 200, "8", -32602, "params.clientInfo must be an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := env.post(tc.body, map[string]string{"Authorization": "Bearer " + key})
			var id json.RawMessage
			if tc.id != "" {
				id = json.RawMessage(tc.id)
			}
			msg := wantRPCError(t, res, tc.status, id, tc.code, tc.message)
			// Plain words: no Go type or package names.
			for _, goWord := range []string{"Go ", "struct", "mcp.", "json:", "unmarshal"} {
				if strings.Contains(msg.Error.Message, goWord) {
					t.Errorf("message %q names Go internals (%q)", msg.Error.Message, goWord)
				}
			}
		})
	}
	// An empty cursor is the first page, as if none were sent.
	res := env.post(`{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":""}}`, map[string]string{"Authorization": "Bearer " + key})
	if res.status != http.StatusOK || !strings.Contains(string(res.body), `"list_expenses"`) {
		t.Errorf("empty cursor: status %d: %s", res.status, res.body)
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
	wantRPCError(t, got, http.StatusRequestEntityTooLarge, nil, -32600, "larger than the 512 byte limit")
}
