package mcpserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/server"
)

func TestCORSIsOffByDefault(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeMCP)
	res := env.post(initialize("2025-11-25"), map[string]string{"Authorization": "Bearer " + key, "Origin": "https://app.example"})
	if res.status != http.StatusForbidden || res.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("status %d, Access-Control-Allow-Origin %q; want 403 and no CORS", res.status, res.header.Get("Access-Control-Allow-Origin"))
	}
	res = env.do(http.MethodOptions, server.MCPPath, "", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "POST"})
	if res.header.Get("Access-Control-Allow-Origin") != "" || res.status < 400 {
		t.Errorf("preflight: status %d, headers %v; want a refusal without CORS headers", res.status, res.header)
	}
}

func TestCORSForAnAllowedOrigin(t *testing.T) {
	const app = "https://app.example"
	env := newTestEnv(t, func(c *server.Config) { c.MCPCORSOrigins = []string{app} })
	key := env.key(auth.ScopeRead, auth.ScopeMCP)

	t.Run("preflight", func(t *testing.T) {
		res := env.do(http.MethodOptions, server.MCPPath, "", map[string]string{"Origin": app,
			"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version"})
		h := res.header
		if res.status != http.StatusNoContent || h.Get("Access-Control-Allow-Origin") != app || h.Get("Access-Control-Allow-Methods") != "POST" {
			t.Fatalf("status %d, headers %v", res.status, h)
		}
		for _, want := range []string{"Authorization", "Content-Type", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name"} {
			if !strings.Contains(h.Get("Access-Control-Allow-Headers"), want) {
				t.Errorf("Access-Control-Allow-Headers %q lacks %s", h.Get("Access-Control-Allow-Headers"), want)
			}
		}
	})
	t.Run("preflight from another origin", func(t *testing.T) {
		res := env.do(http.MethodOptions, server.MCPPath, "", map[string]string{"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"})
		if res.status != http.StatusForbidden || res.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("status %d, Access-Control-Allow-Origin %q", res.status, res.header.Get("Access-Control-Allow-Origin"))
		}
	})
	t.Run("the 401 challenge is readable", func(t *testing.T) {
		res := env.post(initialize("2025-11-25"), map[string]string{"Origin": app})
		if res.status != http.StatusUnauthorized || res.header.Get("Access-Control-Allow-Origin") != app ||
			!strings.Contains(res.header.Get("Access-Control-Expose-Headers"), "WWW-Authenticate") {
			t.Errorf("status %d, headers %v", res.status, res.header)
		}
	})
	t.Run("a call", func(t *testing.T) {
		res := env.post(initialize("2025-11-25"), map[string]string{"Authorization": "Bearer " + key, "Origin": app})
		if res.status != http.StatusOK || res.header.Get("Access-Control-Allow-Origin") != app {
			t.Errorf("status %d, headers %v: %s", res.status, res.header, res.body)
		}
	})
	t.Run("the Origin check still refuses others", func(t *testing.T) {
		res := env.post(initialize("2025-11-25"), map[string]string{"Authorization": "Bearer " + key, "Origin": "https://evil.example"})
		if res.status != http.StatusForbidden || res.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("status %d, Access-Control-Allow-Origin %q", res.status, res.header.Get("Access-Control-Allow-Origin"))
		}
	})
	t.Run("only on the MCP endpoint", func(t *testing.T) {
		res := env.do(http.MethodGet, "/api/v1/categories", "", map[string]string{"Authorization": "Bearer " + key, "Origin": app})
		if res.header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("a REST route answered with CORS headers")
		}
	})
}

func TestParseOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://App.Example":      "https://app.example",
		"http://localhost:6274":    "http://localhost:6274",
		"https://app.example/":     "https://app.example",
		"https://app.example/path": "",
		"app.example":              "",
		"ftp://app.example":        "",
		"https://u:p@app.example":  "",
	} {
		got, err := server.ParseOrigin(in)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}
