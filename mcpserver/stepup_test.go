package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// tokens stands in for the authorization server: each token is a grant with
// the scopes given.
type tokens struct {
	user   finance.User
	scopes map[string][]auth.Scope
}

func (v tokens) VerifyAccessToken(_ context.Context, token string) (auth.Principal, error) {
	sc, ok := v.scopes[token]
	if !ok {
		return auth.Principal{}, &auth.Error{Kind: auth.ErrUnauthenticated, Message: "unknown token"}
	}
	return auth.Principal{User: v.user, Method: auth.MethodOAuth, CredentialID: "grant-" + token, Scopes: sc}, nil
}

// An OAuth token that lacks a tool's scope is answered 403 with a step-up
// challenge naming what the call needs, so the client can ask the user for
// that scope alone; an API key with the same scopes is not (it cannot be
// widened), and neither is a token that holds the scope.
func TestStepUpForAToolsScope(t *testing.T) {
	env := newTestEnv(t)
	env.auth.SetTokenVerifier(tokens{user: env.user, scopes: map[string][]auth.Scope{
		"fat_reader": {auth.ScopeRead, auth.ScopeMCP},
	}})
	call := `{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"create_category","arguments":{"name":"Travel","kind":"expense"}}}`
	post := func(token string) response {
		return env.post(call, map[string]string{"Authorization": "Bearer " + token, "MCP-Protocol-Version": "2025-11-25"})
	}

	res := post("fat_reader")
	wantRPCError(t, res, http.StatusForbidden, json.RawMessage(`"c1"`), -32600, "Tool create_category needs a scope this token lacks")
	want := `Bearer realm="finance", error="insufficient_scope", error_description="Tool create_category needs a scope this token lacks: ` +
		`This credential lacks the required scope settings:write", scope="finance:read settings:write mcp:connect", ` +
		`resource_metadata="` + testBaseURL + `/.well-known/oauth-protected-resource"`
	if got := res.header.Get("WWW-Authenticate"); got != want {
		t.Errorf("WWW-Authenticate:\n got %s\nwant %s", got, want)
	}
	if _, env := env.rest(env.key(auth.ScopeRead), http.MethodGet, "/api/v1/categories", ""); strings.Contains(string(mustJSON(t, env.Data)), "Travel") {
		t.Errorf("the refused call wrote a category")
	}

	// Reading needs finance:read, which the reader holds: the call is served.
	res = env.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_accounts","arguments":{}}}`,
		map[string]string{"Authorization": "Bearer fat_reader"})
	if res.status != http.StatusOK || strings.Contains(string(res.body), `"error"`) {
		t.Errorf("a permitted call: status %d: %s", res.status, res.body)
	}

	// A key cannot be widened by asking: the call is a tool error naming the scope.
	res = env.post(call, map[string]string{"Authorization": "Bearer " + env.key(auth.ScopeRead, auth.ScopeMCP)})
	if res.status != http.StatusOK || res.header.Get("WWW-Authenticate") != "" ||
		!strings.Contains(string(res.body), "needs the scope settings:write, which this API key does not hold") {
		t.Errorf("an API key: status %d, WWW-Authenticate %q: %s", res.status, res.header.Get("WWW-Authenticate"), res.body)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
