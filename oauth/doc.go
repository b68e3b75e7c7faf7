// Package oauth is the OAuth 2.1 authorization server through which MCP
// clients that cannot be configured with an API key connect: discovery
// metadata (RFC 9728, RFC 8414), dynamic client registration (RFC 7591),
// the authorization code flow with PKCE S256, the token endpoint with
// rotating refresh tokens, and revocation (RFC 7009). It also verifies the
// access tokens it issues (auth.TokenVerifier).
//
// Package server registers the HTTP endpoints and renders the consent page;
// this package decides. Persistence is a port (Store) implemented by package
// store. Every token and code is opaque and stored only as its SHA-256.
package oauth
