package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/internal/ascii"
)

// The endpoints of the authorization server, from the server root.
const (
	ResourceMetadataPath = "/.well-known/oauth-protected-resource"
	ServerMetadataPath   = "/.well-known/oauth-authorization-server"
	RegisterPath         = "/api/oauth/register"
	AuthorizePath        = "/api/oauth/authorize"
	TokenPath            = "/api/oauth/token"
	RevokePath           = "/api/oauth/revoke"
	// MCPPath is the protected resource the tokens are for.
	MCPPath = "/api/mcp"

	// The default paths of the 2025-03-26 MCP authorization spec, served
	// too, for clients that fall back to them instead of reading the
	// metadata.
	FallbackAuthorizePath = "/authorize"
	FallbackTokenPath     = "/token"
	FallbackRegisterPath  = "/register"
)

// Lifetimes of the protocol's credentials.
const (
	CodeTTL    = 60 * time.Second // spec §8: single use, 60 seconds
	AccessTTL  = time.Hour        // spec §8
	RefreshTTL = 30 * 24 * time.Hour
	// pruneAfter keeps revoked and expired grants listed in the database
	// (not on the page) for a while before they are deleted.
	pruneAfter = 30 * 24 * time.Hour
)

// RefreshTokenPrefix starts every refresh token; auth.OAuthAccessTokenPrefix
// starts every access token. The prefixes let secret scanners and people
// tell them apart; they carry no meaning to the server beyond that.
const RefreshTokenPrefix = "frt_"

// Config configures the authorization server.
type Config struct {
	// Issuer is the base URL of the service (no trailing slash); the
	// authorization server's issuer identifier and the origin of every endpoint.
	Issuer string
	// Now is the clock; nil means time.Now. Tests inject one to expire codes.
	Now func() time.Time
	// Log receives failures of background work; nil means slog.Default().
	Log *slog.Logger
	// MetadataTransport fetches client metadata documents; nil means the
	// production transport, which refuses every address that is not on the
	// public internet. Tests inject one that reaches a local TLS server.
	MetadataTransport http.RoundTripper
	// MetadataTimeout bounds one document fetch; zero means MetadataTimeout.
	MetadataTimeout time.Duration
	// MetadataFetches is how many document fetches may run at once, server
	// wide; zero means MaxMetadataFetches.
	MetadataFetches int
}

// Server is the authorization server.
type Server struct {
	store    Store
	issuer   string
	resource string
	now      func() time.Time
	log      *slog.Logger
	usage    *auth.UsageRecorder
	metadata *metadataFetcher
}

// New returns an authorization server over st.
func New(st Store, cfg Config) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	issuer := strings.TrimRight(cfg.Issuer, "/")
	return &Server{store: st, issuer: issuer, resource: issuer + MCPPath, now: cfg.Now, log: cfg.Log,
		usage:    auth.NewUsageRecorder(st.TouchOAuthGrants),
		metadata: newMetadataFetcher(cfg.MetadataTransport, cfg.MetadataTimeout, cfg.MetadataFetches, cfg.Now)}
}

// Issuer is the issuer identifier (the base URL).
func (s *Server) Issuer() string { return s.issuer }

// Resource is the protected resource tokens are issued for: the MCP endpoint.
func (s *Server) Resource() string { return s.resource }

// hashToken is the SHA-256 under which codes and tokens are stored.
func hashToken(t string) []byte {
	h := sha256.Sum256([]byte(t))
	return h[:]
}

// scopeNames renders scopes as the space-separated list OAuth uses.
func scopeNames(scopes []auth.Scope) string {
	parts := make([]string, len(scopes))
	for i, s := range scopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, " ")
}

// Error is an OAuth error response (RFC 6749 §5.2, RFC 7591 §3.2.2).
type Error struct {
	Status      int    `json:"-"`
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

func oauthError(status int, code, description string) *Error {
	return &Error{Status: status, Code: code, Description: description}
}

func invalidRequest(desc string) *Error {
	return oauthError(http.StatusBadRequest, "invalid_request", desc)
}
func invalidGrant(desc string) *Error {
	return oauthError(http.StatusBadRequest, "invalid_grant", desc)
}

// writeJSON answers with a JSON document that no cache may keep (tokens, RFC 6749 §5.1).
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, `{"error":"server_error"}`, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError answers with an OAuth error; unexpected failures become
// server_error and are logged, revealing nothing to the client.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	oe, ok := err.(*Error)
	if !ok {
		s.log.ErrorContext(r.Context(), "oauth request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		oe = oauthError(http.StatusInternalServerError, "server_error", "An unexpected error occurred")
	}
	if oe.Status == http.StatusUnauthorized && r.Header.Get("Authorization") != "" {
		// RFC 6749 §5.2: a client that tried the Authorization header gets a
		// challenge. No scheme succeeds here: every client is public.
		w.Header().Set("WWW-Authenticate", `Basic realm="finance"`)
	}
	writeJSON(w, oe.Status, oe)
}

// AllowCORS marks a response readable by scripts of any origin. The OAuth
// endpoints are called by browser-based MCP clients (the MCP Inspector) from
// their own origin; no cookie is ever read on them, so this exposes nothing.
func AllowCORS(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", "WWW-Authenticate")
}

// Preflight answers a CORS preflight request for the OAuth endpoints.
func (s *Server) Preflight(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	AllowCORS(h)
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, MCP-Protocol-Version")
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
}

// FlushUsage writes pending last-use times now.
func (s *Server) FlushUsage(ctx context.Context) error { return s.usage.Flush(ctx) }

// Run writes recorded grant use every interval and prunes dead codes,
// tokens, grants and clients every hour, until ctx ends; then it flushes
// once more. Start it beside the API key usage flusher.
func (s *Server) Run(ctx context.Context, interval time.Duration) {
	flush := time.NewTicker(interval)
	defer flush.Stop()
	prune := time.NewTicker(time.Hour)
	defer prune.Stop()
	s.prune(ctx)
	for {
		select {
		case <-ctx.Done():
			if err := s.usage.Flush(context.WithoutCancel(ctx)); err != nil {
				s.log.Error("oauth: record last use", "err", err)
			}
			return
		case <-flush.C:
			if err := s.usage.Flush(ctx); err != nil {
				s.log.Warn("oauth: record last use", "err", err)
			}
		case <-prune.C:
			s.prune(ctx)
		}
	}
}

func (s *Server) prune(ctx context.Context) {
	now := s.now().UTC()
	if err := s.store.PruneOAuth(ctx, now, now.Add(-pruneAfter)); err != nil && ctx.Err() == nil {
		s.log.Warn("oauth: prune", "err", err)
	}
}

// plainToken matches request values that an error message may repeat as
// they are (a scope, a grant type, a method name): they can hold no markup,
// spaces or line breaks, so they cannot make a message say something else.
func plainToken(s string) bool { return ascii.Only(s, 1, 64, "_.:-") }

// named names a request value in a message: "the grant type refresh", or,
// when the value is not a plain token, only "the grant type".
func named(what, value string) string {
	if plainToken(value) {
		return what + " " + value
	}
	return what
}
