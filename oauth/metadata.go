package oauth

import (
	"net/http"

	"github.com/finance-app/finance/auth"
)

// ResourceMetadata is the protected resource metadata of the MCP endpoint (RFC 9728 §2).
type ResourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
	ResourceDocumentation  string   `json:"resource_documentation"`
}

// ServerMetadata is the authorization server metadata (RFC 8414 §2).
type ServerMetadata struct {
	Issuer                            string   `json:"issuer"`
	AuthorizationEndpoint             string   `json:"authorization_endpoint"`
	TokenEndpoint                     string   `json:"token_endpoint"`
	RegistrationEndpoint              string   `json:"registration_endpoint"`
	RevocationEndpoint                string   `json:"revocation_endpoint"`
	ScopesSupported                   []string `json:"scopes_supported"`
	ResponseTypesSupported            []string `json:"response_types_supported"`
	ResponseModesSupported            []string `json:"response_modes_supported"`
	GrantTypesSupported               []string `json:"grant_types_supported"`
	TokenEndpointAuthMethodsSupported []string `json:"token_endpoint_auth_methods_supported"`
	RevocationEndpointAuthMethods     []string `json:"revocation_endpoint_auth_methods_supported"`
	CodeChallengeMethodsSupported     []string `json:"code_challenge_methods_supported"`
	AuthorizationResponseIssParameter bool     `json:"authorization_response_iss_parameter_supported"`
	ClientIDMetadataDocumentSupported bool     `json:"client_id_metadata_document_supported"`
	ServiceDocumentation              string   `json:"service_documentation"`
}

// scopesSupported lists every grantable scope ("all" is accepted in requests
// but not advertised: clients should ask for what they need).
func scopesSupported() []string {
	out := make([]string, len(auth.Scopes))
	for i, s := range auth.Scopes {
		out[i] = string(s)
	}
	return out
}

// ResourceMetadataDocument returns the RFC 9728 document for the MCP endpoint.
func (s *Server) ResourceMetadataDocument() ResourceMetadata {
	return ResourceMetadata{
		Resource:               s.resource,
		AuthorizationServers:   []string{s.issuer},
		ScopesSupported:        scopesSupported(),
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "finance MCP endpoint",
		ResourceDocumentation:  s.issuer + "/api/docs",
	}
}

// ServerMetadataDocument returns the RFC 8414 document.
func (s *Server) ServerMetadataDocument() ServerMetadata {
	return ServerMetadata{
		Issuer:                            s.issuer,
		AuthorizationEndpoint:             s.issuer + AuthorizePath,
		TokenEndpoint:                     s.issuer + TokenPath,
		RegistrationEndpoint:              s.issuer + RegisterPath,
		RevocationEndpoint:                s.issuer + RevokePath,
		ScopesSupported:                   scopesSupported(),
		ResponseTypesSupported:            []string{"code"},
		ResponseModesSupported:            []string{"query"},
		GrantTypesSupported:               []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported: []string{"none"},
		RevocationEndpointAuthMethods:     []string{"none"},
		CodeChallengeMethodsSupported:     []string{"S256"},
		AuthorizationResponseIssParameter: true,
		ClientIDMetadataDocumentSupported: true,
		ServiceDocumentation:              s.issuer + "/api/docs",
	}
}

// HandleResourceMetadata serves GET /.well-known/oauth-protected-resource
// (and its path-suffixed form for /api/mcp).
func (s *Server) HandleResourceMetadata(w http.ResponseWriter, r *http.Request) {
	AllowCORS(w.Header())
	writeJSON(w, http.StatusOK, s.ResourceMetadataDocument())
}

// HandleServerMetadata serves GET /.well-known/oauth-authorization-server.
func (s *Server) HandleServerMetadata(w http.ResponseWriter, r *http.Request) {
	AllowCORS(w.Header())
	writeJSON(w, http.StatusOK, s.ServerMetadataDocument())
}
