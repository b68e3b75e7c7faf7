package server

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/oauth"
)

// registerOAuthRoutes registers the authorization server's protocol
// endpoints, public API routes in the contract. Routes that create rows or
// check secrets are rate limited per client IP with sign-in. The
// authorization endpoint is a page for people, the web app's consent
// screen (web.Site), with a per-IP limit of its own.
func (s *Server) registerOAuthRoutes() {
	wrap := func(h func(*oauth.Server) http.HandlerFunc) handlerFunc {
		return func(w http.ResponseWriter, r bunrouter.Request) error {
			if s.oauth == nil {
				return httperr.RouteNotFound(r.Request)
			}
			h(s.oauth)(w, r.Request)
			return nil
		}
	}
	resourceMetadata := wrap(func(o *oauth.Server) http.HandlerFunc { return o.HandleResourceMetadata })
	preflight := wrap(func(o *oauth.Server) http.HandlerFunc { return o.Preflight })
	cors := func(path string, method string, perIP *limiter, h handlerFunc) {
		s.add(Route{Method: method, Path: path, Access: auth.Public, PerIP: perIP}, h)
		s.add(Route{Method: http.MethodOptions, Path: path, Access: auth.Public}, preflight)
	}
	cors(oauth.ResourceMetadataPath, http.MethodGet, nil, resourceMetadata)
	cors(oauth.ResourceMetadataPath+oauth.MCPPath, http.MethodGet, nil, resourceMetadata)
	cors(oauth.ServerMetadataPath, http.MethodGet, nil,
		wrap(func(o *oauth.Server) http.HandlerFunc { return o.HandleServerMetadata }))
	cors(oauth.RegisterPath, http.MethodPost, s.loginLimiter, wrap(func(o *oauth.Server) http.HandlerFunc { return o.HandleRegister }))
	cors(oauth.TokenPath, http.MethodPost, s.loginLimiter, wrap(func(o *oauth.Server) http.HandlerFunc { return o.HandleToken }))
	cors(oauth.RevokePath, http.MethodPost, s.loginLimiter, wrap(func(o *oauth.Server) http.HandlerFunc { return o.HandleRevoke }))

	// The default endpoints of the 2025-03-26 MCP authorization spec, at the
	// origin, for clients that use them without reading the metadata: some
	// post a refresh to /token after a restart, and a 404 there would send the
	// user through the whole sign-in again. They are the same endpoints.
	cors(oauth.FallbackRegisterPath, http.MethodPost, s.loginLimiter, wrap(func(o *oauth.Server) http.HandlerFunc { return o.HandleRegister }))
	cors(oauth.FallbackTokenPath, http.MethodPost, s.loginLimiter, wrap(func(o *oauth.Server) http.HandlerFunc { return o.HandleToken }))
}
