package mcpserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/store"
)

// testBaseURL is the base URL of every test server.
const testBaseURL = "http://finance.test"

// testEnv is the real server on its own migrated database, with the MCP
// endpoint mounted the way cmd/finance mounts it.
type testEnv struct {
	t       testing.TB
	db      *store.DB
	auth    *auth.Service
	handler http.Handler
	mcp     *Handler
	user    finance.User // a Pro user
	// logs holds what the server and the endpoint logged, as the binary
	// does with --log-format json.
	logs *testkit.LogBuffer
}

func newTestEnv(t testing.TB, configure ...func(*server.Config)) *testEnv {
	t.Helper()
	return newTestEnvOn(t, nil, configure...)
}

// newTestEnvOn is newTestEnv with the server on wrap(db) rather than on the
// database itself (a database whose disk is full, say); nil wraps nothing.
func newTestEnvOn(t testing.TB, wrap func(*store.DB) server.Database, configure ...func(*server.Config)) *testEnv {
	t.Helper()
	db := testkit.OpenDB(t)
	issuer, err := auth.NewJWT([]byte(rand.Text()+rand.Text()), auth.DefaultJWTTTL)
	if err != nil {
		t.Fatal(err)
	}
	svc := auth.NewService(db, issuer)
	cfg := server.Config{BaseURL: testBaseURL, Version: "test"}
	for _, c := range configure {
		c(&cfg)
	}
	logs := &testkit.LogBuffer{}
	log := slog.New(server.LogHandler(slog.NewJSONHandler(logs, nil)))
	var sdb server.Database = db
	if wrap != nil {
		sdb = wrap(db)
	}
	srv := server.New(cfg, log, svc, sdb)
	h, err := New(srv, Config{BaseURL: cfg.BaseURL, Version: "test", Logger: log, ResourceMetadataURL: srv.ResourceMetadataURL(), CORSOrigins: cfg.MCPCORSOrigins,
		Settings: srv.Ledger()})
	if err != nil {
		t.Fatalf("mcpserver.New: %v", err)
	}
	srv.MountMCP(h)
	env := &testEnv{t: t, db: db, auth: svc, handler: srv.Handler(), mcp: h, logs: logs}
	env.user = env.createUser(finance.PlanPro)
	return env
}

var userSeq atomic.Int64

func (e *testEnv) createUser(plan finance.Plan) finance.User {
	e.t.Helper()
	u, err := e.auth.CreateUser(context.Background(), auth.CreateUserRequest{
		Email: fmt.Sprintf("user%d@example.com", userSeq.Add(1)), Name: "Test", Plan: plan,
		Password: "correct horse battery staple",
	})
	if err != nil {
		e.t.Fatalf("CreateUser: %v", err)
	}
	return u
}

// key creates an API key of the Pro user with scopes.
func (e *testEnv) key(scopes ...auth.Scope) string { return e.keyFor(e.user, scopes...) }

func (e *testEnv) keyFor(u finance.User, scopes ...auth.Scope) string {
	e.t.Helper()
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	_, key, err := e.auth.CreateKey(context.Background(), auth.CreateKeyRequest{UserID: u.ID, Name: "test", Scopes: names})
	if err != nil {
		e.t.Fatalf("CreateKey: %v", err)
	}
	return key
}

// response is one HTTP exchange's answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

// post sends one body to /api/mcp with the headers given (Content-Type is
// application/json unless headers say otherwise).
func (e *testEnv) post(body string, headers map[string]string) response {
	e.t.Helper()
	return e.do(http.MethodPost, server.MCPPath, body, headers)
}

func (e *testEnv) do(method, target, body string, headers map[string]string) response {
	e.t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	e.handler.ServeHTTP(rec, req)
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// rest calls a REST route with key and returns the envelope's data or error.
func (e *testEnv) rest(key, method, target, body string) (int, envelope) {
	e.t.Helper()
	res := e.do(method, target, body, map[string]string{"Authorization": "Bearer " + key})
	var env envelope
	if err := decodeNumbers(res.body, &env); err != nil {
		e.t.Fatalf("%s %s: not an envelope: %v: %s", method, target, err, res.body)
	}
	return res.status, env
}

type envelope struct {
	Success bool           `json:"success"`
	Data    any            `json:"data"`
	Error   map[string]any `json:"error"`
}

// rpcMessage is a JSON-RPC response.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      any             `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

var rpcID atomic.Int64

// rpc sends one JSON-RPC request with key and the negotiated protocol
// version header, and returns the decoded response; it fails the test on
// anything but 200.
func (e *testEnv) rpc(key, method string, params any) rpcMessage {
	e.t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": rpcID.Add(1), "method": method, "params": params})
	if err != nil {
		e.t.Fatal(err)
	}
	res := e.post(string(body), map[string]string{
		"Authorization": "Bearer " + key, "MCP-Protocol-Version": "2025-06-18",
		"Accept": "application/json, text/event-stream",
	})
	if res.status != http.StatusOK {
		e.t.Fatalf("%s: status %d: %s", method, res.status, res.body)
	}
	if ct := res.header.Get("Content-Type"); ct != "application/json" {
		e.t.Errorf("%s: Content-Type %q, want application/json", method, ct)
	}
	var msg rpcMessage
	if err := json.Unmarshal(res.body, &msg); err != nil {
		e.t.Fatalf("%s: %v: %s", method, err, res.body)
	}
	return msg
}

// toolResult is a tools/call result, with numbers kept as written.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// callTool calls a tool and returns its result; a JSON-RPC error fails the test.
func (e *testEnv) callTool(key, name string, args any) toolResult {
	e.t.Helper()
	msg := e.rpc(key, "tools/call", map[string]any{"name": name, "arguments": args})
	if msg.Error != nil {
		e.t.Fatalf("tools/call %s: JSON-RPC error %d %s", name, msg.Error.Code, msg.Error.Message)
	}
	var res toolResult
	if err := json.Unmarshal(msg.Result, &res); err != nil {
		e.t.Fatalf("tools/call %s: %v: %s", name, err, msg.Result)
	}
	if res.IsError {
		// Clients that validate results against the outputSchema (the
		// TypeScript SDK) would throw a tool error away for its object.
		if res.StructuredContent != nil {
			e.t.Errorf("tools/call %s: the error result carries structuredContent %s; an error is reported in content only", name, res.StructuredContent)
		}
	} else {
		e.matchesOutputSchema(name, res.StructuredContent)
	}
	return res
}

// matchesOutputSchema checks that a successful result's structuredContent
// is valid against the tool's outputSchema, as MCP requires of a tool that
// declares one; every tool call of the tests goes through it.
func (e *testEnv) matchesOutputSchema(name string, structured json.RawMessage) {
	e.t.Helper()
	if err := e.mcp.validateOutput(name, structured); err != nil {
		e.t.Errorf("tools/call %s: %v\n%s", name, err, structured)
	}
}

// validateOutput validates structured against the outputSchema of tool name.
func (h *Handler) validateOutput(name string, structured json.RawMessage) error {
	t, ok := h.byName[name]
	if !ok || t.outputSchema == nil {
		return nil
	}
	if structured == nil {
		return fmt.Errorf("the tool has an outputSchema but the result has no structuredContent")
	}
	schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(t.outputSchema))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("output.json", schema); err != nil {
		return err
	}
	compiled, err := c.Compile("output.json")
	if err != nil {
		return fmt.Errorf("the outputSchema does not compile: %w", err)
	}
	value, err := jsonschema.UnmarshalJSON(bytes.NewReader(structured))
	if err != nil {
		return err
	}
	if err := compiled.Validate(value); err != nil {
		return fmt.Errorf("structuredContent does not match the outputSchema: %w", err)
	}
	return nil
}

// toolErrorLikeREST calls tool with args (JSON text) and checks that the
// result is a tool error carrying exactly the error the same request gets
// over REST (method, route and body, sent with restKey), with code
// wantCode. It returns the result and its error object.
func (e *testEnv) toolErrorLikeREST(t testing.TB, key, restKey, tool, args, method, route, body, wantCode string) (toolResult, map[string]any) {
	t.Helper()
	res := e.callTool(key, tool, json.RawMessage(args))
	got := res.problem(t)
	_, want := e.rest(restKey, method, route, body)
	if diff := cmp.Diff(want.Error, got); diff != "" {
		t.Errorf("%s: tool error differs from the REST error (-rest +tool):\n%s", tool, diff)
	}
	if got["code"] != wantCode {
		t.Errorf("%s: code = %v, want %s", tool, got["code"], wantCode)
	}
	return res, got
}

// problem decodes the REST error object of a tool error from its one text
// content, where agents read it.
func (r toolResult) problem(t testing.TB) map[string]any {
	t.Helper()
	if !r.IsError || len(r.Content) != 1 || r.Content[0].Type != "text" {
		t.Fatalf("want a tool error with one text content, got %+v (structuredContent %s)", r, r.StructuredContent)
	}
	var m map[string]any
	if err := decodeNumbers([]byte(r.Content[0].Text), &m); err != nil {
		t.Fatalf("the error text is not the REST error object: %v: %s", err, r.Content[0].Text)
	}
	return m
}

// structured decodes the result's structuredContent (numbers as json.Number).
func (r toolResult) structured(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := decodeNumbers(r.StructuredContent, &m); err != nil {
		t.Fatalf("structuredContent: %v: %s", err, r.StructuredContent)
	}
	return m
}

// listTools returns the names of the tools key sees.
func (e *testEnv) listTools(key string) []string {
	e.t.Helper()
	msg := e.rpc(key, "tools/list", map[string]any{})
	if msg.Error != nil {
		e.t.Fatalf("tools/list: %s", msg.Error.Message)
	}
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(msg.Result, &res); err != nil {
		e.t.Fatal(err)
	}
	names := make([]string, len(res.Tools))
	for i, t := range res.Tools {
		names[i] = t.Name
	}
	return names
}

func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// compacted is what a list tool answers by default for a page the REST
// route answers: each item without its null members, its nested lists and
// objects, and its created_at and updated_at.
func compacted(page any) any {
	m, ok := page.(map[string]any)
	if !ok {
		return page
	}
	items, ok := m["items"].([]any)
	if !ok {
		return page
	}
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	short := make([]any, len(items))
	for i, it := range items {
		item := map[string]any{}
		for k, v := range it.(map[string]any) {
			if k == "created_at" || k == "updated_at" {
				continue
			}
			switch v.(type) {
			case nil, map[string]any, []any:
				continue
			}
			item[k] = v
		}
		short[i] = item
	}
	out["items"] = short
	return out
}
