package server

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// CORS on the MCP endpoint, for MCP clients that run in a browser page (the
// MCP Inspector's web UI, say) on an origin other than the service's. It is
// off unless origins are configured (serve --cors-origin), and then applies
// to those origins only, on /api/mcp alone: its answers, including the 401
// challenge and its WWW-Authenticate header, which a browser client must
// read to find the OAuth server, and its preflight requests. The endpoint's
// own Origin check (against DNS rebinding) accepts the same origins.
//
// Credentials are bearer tokens in Authorization, never cookies, so
// Access-Control-Allow-Credentials is not sent.

// mcpCORSHeaders are the request headers an MCP client sends: its
// credential, the protocol version and, from 2026-07-28, the method and name.
const mcpCORSHeaders = "Authorization, Content-Type, Accept, MCP-Protocol-Version, Mcp-Method, Mcp-Name, X-Service-API-Key, Last-Event-ID"

// ParseOrigin checks that s is a browser origin, scheme://host[:port] with
// http or https and nothing after the host, and returns it in the form a
// browser sends (lower case).
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("%q is not an origin: want scheme://host[:port], such as https://inspector.example.com", s)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// mcpCORS adds the CORS headers for an allowed Origin to an answer of the
// MCP endpoint, and answers its preflight requests. It reports whether it
// answered the request.
func (s *Server) mcpCORS(w http.ResponseWriter, r *http.Request) bool {
	if r.URL.Path != MCPPath || len(s.cfg.MCPCORSOrigins) == 0 {
		return false
	}
	origin := r.Header.Get("Origin")
	h := w.Header()
	h.Add("Vary", "Origin")
	allowed := origin != "" && slices.Contains(s.cfg.MCPCORSOrigins, strings.ToLower(origin))
	if allowed {
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Expose-Headers", "WWW-Authenticate, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id")
	}
	if r.Method != http.MethodOptions || r.Header.Get("Access-Control-Request-Method") == "" {
		return false
	}
	// A preflight: it carries no credential, so it is answered here, before
	// authentication. An origin that is not allowed gets no CORS headers,
	// and the browser stops there.
	noteRoute(r.Context(), MCPPath, "")
	if !allowed {
		w.WriteHeader(http.StatusForbidden)
		return true
	}
	h.Set("Access-Control-Allow-Methods", "POST")
	h.Set("Access-Control-Allow-Headers", mcpCORSHeaders)
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
	return true
}
