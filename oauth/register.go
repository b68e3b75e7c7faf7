package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// RegisterRequest is the client metadata of a registration (RFC 7591 §2).
// Other metadata (client_uri, logo_uri, contacts, ...) is accepted and ignored.
type RegisterRequest struct {
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod *string  `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name"`
	Scope                   string   `json:"scope"`
}

// RegisterResponse is the registered client (RFC 7591 §3.2.1). There is no
// client_secret: every client is public.
type RegisterResponse struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientName              string   `json:"client_name,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	Scope                   string   `json:"scope,omitempty"`
}

// Registration limits.
const (
	maxRedirectURIs   = 10
	maxClientNameRune = 100
)

func invalidMetadata(desc string) *Error {
	return oauthError(http.StatusBadRequest, "invalid_client_metadata", desc)
}

func invalidRedirectURI(desc string) *Error {
	return oauthError(http.StatusBadRequest, "invalid_redirect_uri", desc)
}

// Register validates client metadata and stores a new public client.
func (s *Server) Register(r *http.Request, req RegisterRequest) (RegisterResponse, error) {
	if len(req.RedirectURIs) == 0 {
		return RegisterResponse{}, invalidRedirectURI("redirect_uris is required: the authorization code flow needs at least one")
	}
	if len(req.RedirectURIs) > maxRedirectURIs {
		return RegisterResponse{}, invalidRedirectURI("at most 10 redirect_uris may be registered")
	}
	for _, u := range req.RedirectURIs {
		if why := checkRedirectURI(u); why != "" {
			return RegisterResponse{}, invalidRedirectURI(why)
		}
	}
	// Every client is registered as public (none). Some clients ask for a
	// secret method by habit although they run PKCE as public clients do:
	// Claude's custom connectors send client_secret_post
	// (anthropics/claude-ai-mcp#1043). RFC 7591 §3.2.1 lets the server
	// replace a requested value, and the response says "none" and carries no
	// secret, which is how the client learns it. Methods that need keys or
	// certificates the server would have to verify are refused.
	if m := req.TokenEndpointAuthMethod; m != nil && *m != "none" && *m != "client_secret_post" && *m != "client_secret_basic" {
		return RegisterResponse{}, invalidMetadata("token_endpoint_auth_method " + *m +
			" is not supported: clients register as public clients (none) and use PKCE instead of a secret")
	}
	grantTypes := req.GrantTypes
	if len(grantTypes) == 0 {
		grantTypes = []string{"authorization_code", "refresh_token"}
	}
	for _, g := range grantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return RegisterResponse{}, invalidMetadata(named("grant type", g) + " is not supported; supported: authorization_code, refresh_token")
		}
	}
	if !slices.Contains(grantTypes, "authorization_code") {
		return RegisterResponse{}, invalidMetadata("grant_types must include authorization_code")
	}
	responseTypes := req.ResponseTypes
	if len(responseTypes) == 0 {
		responseTypes = []string{"code"}
	}
	for _, rt := range responseTypes {
		if rt != "code" {
			return RegisterResponse{}, invalidMetadata(named("response type", rt) + " is not supported; supported: code")
		}
	}
	scope := strings.Join(strings.Fields(req.Scope), " ")
	if scope != "" {
		if _, err := parseRequestedScopes(scope); err != nil {
			return RegisterResponse{}, invalidMetadata(err.Description)
		}
	}
	c := Client{
		ID:           finance.NewID(),
		Name:         cleanClientName(req.ClientName),
		RedirectURIs: slices.Compact(slices.Clone(req.RedirectURIs)),
		GrantTypes:   slices.Compact(slices.Clone(grantTypes)),
		Scope:        scope,
		CreatedAt:    s.now().UTC().Truncate(time.Second),
	}
	if err := s.store.CreateOAuthClient(r.Context(), c); err != nil {
		return RegisterResponse{}, err
	}
	return RegisterResponse{
		ClientID: c.ID, ClientIDIssuedAt: c.CreatedAt.Unix(), ClientName: c.Name,
		RedirectURIs: c.RedirectURIs, GrantTypes: c.GrantTypes, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: "none", Scope: c.Scope,
	}, nil
}

// cleanClientName trims a client's display name, drops control and format
// characters (which could disguise it on the consent page) and bounds its length.
func cleanClientName(name string) string {
	name = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, name)
	name = strings.Join(strings.Fields(name), " ")
	if rs := []rune(name); len(rs) > maxClientNameRune {
		name = strings.TrimSpace(string(rs[:maxClientNameRune]))
	}
	return name
}

// HandleRegister serves POST /api/oauth/register (RFC 7591).
func (s *Server) HandleRegister(w http.ResponseWriter, r *http.Request) {
	AllowCORS(w.Header())
	var req RegisterRequest
	if err := decodeRegistration(r, &req); err != nil {
		s.writeError(w, r, err)
		return
	}
	resp, err := s.Register(r, req)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, resp)
}

func decodeRegistration(r *http.Request, req *RegisterRequest) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			return invalidMetadata("the registration must be a JSON document (Content-Type: application/json)")
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		// The server's body limit (413) is applied before this handler by
		// Content-Length; a chunked body over it ends up here.
		return invalidMetadata("the registration body could not be read or is too large")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(req); err != nil {
		return invalidMetadata("the registration is not a valid JSON object of client metadata: " + jsonProblem(err))
	}
	if dec.More() {
		return invalidMetadata("the registration must be a single JSON object")
	}
	return nil
}

// jsonProblem describes a decoding error without echoing Go type names.
func jsonProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return te.Field + " has the wrong type"
	}
	return "malformed JSON"
}

// IgnoredScopes are scope names that OAuth and OpenID clients commonly add
// to every request and that ask for nothing this server withholds:
// offline_access (a refresh token, which every grant gets anyway) and openid
// (an ID token, which this server does not issue). They are dropped rather
// than refused, so those clients connect on the first try.
var IgnoredScopes = []string{"offline_access", "openid"}

// parseRequestedScopes reads a space-separated scope parameter. "all" asks
// for every scope; IgnoredScopes are dropped. Other unknown names are an
// invalid_scope error.
func parseRequestedScopes(scope string) ([]auth.Scope, *Error) {
	var out []auth.Scope
	for _, name := range strings.Fields(scope) {
		sc := auth.Scope(name)
		switch {
		case slices.Contains(IgnoredScopes, name):
		case sc == auth.ScopeAll:
			for _, s := range auth.Scopes {
				if !slices.Contains(out, s) {
					out = append(out, s)
				}
			}
		case slices.Contains(auth.Scopes, sc):
			if !slices.Contains(out, sc) {
				out = append(out, sc)
			}
		default:
			return nil, oauthError(http.StatusBadRequest, "invalid_scope",
				named("unknown scope", name)+"; known scopes: all, "+auth.JoinScopes(auth.Scopes))
		}
	}
	slices.SortFunc(out, func(a, b auth.Scope) int { return slices.Index(auth.Scopes, a) - slices.Index(auth.Scopes, b) })
	return out, nil
}
