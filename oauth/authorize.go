package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/ascii"
)

// AuthorizeRequest is a validated authorization request, ready for the
// user's decision on the consent page.
type AuthorizeRequest struct {
	Client Client
	// RedirectURI is where the response goes: the request's redirect_uri, or
	// the client's only registered one when the request named none.
	RedirectURI   string
	redirectGiven bool
	State         string
	Challenge     string
	Resource      string
	// Offered are the scopes the consent page offers. mcp:connect is not
	// among them: it is always granted.
	Offered []auth.Scope
	// Preselected are ticked at first: every requested scope, or only
	// finance:read when the client asked for none in particular.
	Preselected []auth.Scope
	// Params are the request's own parameters, which the consent form sends
	// back so the decision is checked against the same request.
	Params url.Values
}

// AuthorizeError is a refused authorization request. It is shown to the
// user and never redirected to the client, whatever it is about. RFC 6749
// §4.1.2.1 would send most errors back to the redirect URI, but any client
// can register here (RFC 7591), so a link that fails on purpose would turn
// this server into an open redirector to any registered URI (RFC 9700
// §4.11.2). Only the user's own decision on the consent page goes back to
// the client (Deny).
type AuthorizeError struct {
	Code        string // the OAuth error code, for the app's developers
	Description string
}

func (e *AuthorizeError) Error() string { return e.Code + ": " + e.Description }

// authorizeParams are the parameters an authorization request may carry once.
var authorizeParams = []string{
	"response_type", "client_id", "redirect_uri", "state", "scope",
	"code_challenge", "code_challenge_method", "resource",
}

// s256Challenge is BASE64URL(SHA-256(verifier)) without padding: 43 characters.
func s256Challenge(s string) bool { return ascii.Only(s, 43, 43, "_-") }

// maxStateLen bounds the opaque state a client may round-trip.
const maxStateLen = 1024

// ParseAuthorize validates an authorization request. It returns an
// *AuthorizeError for a refused request, and ErrMetadataBusy when the
// client's metadata document would be one fetch too many for now; any other
// error is internal. A metadata document client is fetched (or taken from
// the cache) and not stored: Approve stores it.
func (s *Server) ParseAuthorize(ctx context.Context, params url.Values) (*AuthorizeRequest, error) {
	refuse := func(code, desc string) error { return &AuthorizeError{Code: code, Description: desc} }
	for _, k := range authorizeParams {
		if len(params[k]) > 1 && k != "resource" {
			return nil, refuse("invalid_request", k+" appears more than once")
		}
	}
	clientID := params.Get("client_id")
	if clientID == "" {
		return nil, refuse("invalid_request", "The request names no client_id. Start again from the app you are connecting.")
	}
	var client Client
	var err error
	if IsMetadataClientID(clientID) {
		// A URL that cannot name a document is refused for what it is:
		// nothing is fetched, so saying why tells nothing about any host.
		if why := checkClientIDURL(clientID); why != "" {
			return nil, refuse("invalid_client", "The app's client_id is a metadata document URL that cannot be used: "+why+".")
		}
		client, err = s.metadataClient(ctx, clientID)
		var me *MetadataError
		if errors.As(err, &me) {
			return nil, refuse("invalid_client", MetadataRefused)
		} else if err != nil {
			return nil, err
		}
	} else {
		client, err = s.store.OAuthClient(ctx, clientID)
		if errors.Is(err, finance.ErrNotFound) {
			return nil, refuse("invalid_request", "The app is not registered with this server (unknown client_id). Start again from the app you are connecting; it registers itself.")
		} else if err != nil {
			return nil, err
		}
	}
	redirectURI := params.Get("redirect_uri")
	given := redirectURI != ""
	switch {
	case !given && len(client.RedirectURIs) == 1:
		redirectURI = client.RedirectURIs[0]
	case !given:
		return nil, refuse("invalid_request", "The request names no redirect_uri, and the app registered several.")
	case !slices.ContainsFunc(client.RedirectURIs, func(reg string) bool { return redirectMatches(reg, redirectURI) }) && client.MetadataDocument:
		return nil, refuse("invalid_request", "The redirect_uri is not listed in the app's metadata document, so the answer cannot be sent to it.")
	case !slices.ContainsFunc(client.RedirectURIs, func(reg string) bool { return redirectMatches(reg, redirectURI) }):
		return nil, refuse("invalid_request", "The redirect_uri is not registered for this app, so the answer cannot be sent to it.")
	}
	if why := checkRedirectURI(redirectURI); why != "" {
		return nil, refuse("invalid_request", "The app's redirect URI is no longer accepted: "+why+".")
	}
	state := params.Get("state")
	if len(state) > maxStateLen {
		return nil, refuse("invalid_request", fmt.Sprintf("state must be at most %d characters", maxStateLen))
	}
	switch rt := params.Get("response_type"); rt {
	case "code":
	case "":
		return nil, refuse("invalid_request", "response_type is required and must be code")
	default:
		return nil, refuse("unsupported_response_type", "only response_type=code is supported")
	}
	challenge := params.Get("code_challenge")
	method := params.Get("code_challenge_method")
	switch {
	case challenge == "":
		return nil, refuse("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256")
	case method == "":
		// RFC 7636 §4.3: a missing method means plain, which is not allowed here.
		return nil, refuse("invalid_request", "code_challenge_method is required and must be S256 (plain is not supported)")
	case method != "S256":
		return nil, refuse("invalid_request", named("code_challenge_method", method)+" is not supported; use S256")
	case !s256Challenge(challenge):
		return nil, refuse("invalid_request", "code_challenge must be the base64url SHA-256 of the code verifier (43 characters)")
	}
	resources := params["resource"]
	if len(resources) > 1 {
		return nil, refuse("invalid_target", "only one resource may be requested: "+s.resource)
	}
	resource := s.resource
	if len(resources) == 1 && resources[0] != s.resource {
		return nil, refuse("invalid_target", "unknown resource; this server issues tokens for "+s.resource)
	}
	req := &AuthorizeRequest{
		Client: client, RedirectURI: redirectURI, redirectGiven: given, State: state,
		Challenge: challenge, Resource: resource, Params: url.Values{},
	}
	var requested []auth.Scope
	if scope, ok := params["scope"]; ok && len(scope) == 1 && scope[0] != "" {
		var oe *Error
		if requested, oe = parseRequestedScopes(scope[0]); oe != nil {
			return nil, refuse(oe.Code, oe.Description)
		}
	}
	// A request naming only ignored scopes (offline_access, say) named none.
	if len(requested) > 0 {
		for _, sc := range requested {
			if sc != auth.ScopeMCP {
				req.Offered = append(req.Offered, sc)
			}
		}
		req.Preselected = slices.Clone(req.Offered)
	} else {
		for _, sc := range auth.Scopes {
			if sc != auth.ScopeMCP {
				req.Offered = append(req.Offered, sc)
			}
		}
		req.Preselected = []auth.Scope{auth.ScopeRead}
	}
	for _, k := range authorizeParams {
		if v := params[k]; len(v) > 0 {
			req.Params[k] = slices.Clone(v)
		}
	}
	return req, nil
}

// ErrProRequired refuses an approval by a user who is not on the Pro plan.
var ErrProRequired = errors.New("connecting apps is a Pro plan feature")

// Approve records the user's approval of req with the scopes they kept
// ticked and returns the redirect that hands the client its authorization
// code (with state and iss, RFC 9207). The code is single use, valid for
// CodeTTL, and bound to the client, redirect URI, PKCE challenge, user,
// scopes and resource. Granted scopes are the approved ones plus mcp:connect.
// A metadata document client is checked again and stored with the code:
// the token and refresh requests find it there.
func (s *Server) Approve(ctx context.Context, req *AuthorizeRequest, user finance.User, approved []auth.Scope) (string, error) {
	if user.Plan != finance.PlanPro {
		return "", ErrProRequired
	}
	names := []string{string(auth.ScopeMCP)}
	for _, sc := range approved {
		if !slices.Contains(req.Offered, sc) {
			return "", finance.Invalid("scope_grant", "has "+string(sc)+", which the app did not ask for")
		}
		names = append(names, string(sc))
	}
	granted, err := auth.ParseScopes(names)
	if err != nil {
		return "", err
	}
	code := auth.NewSecret()
	now := s.now().UTC()
	var docClient *Client
	if req.Client.MetadataDocument {
		c := req.Client
		if why := c.metadataProblem(); why != "" {
			s.log.WarnContext(ctx, "oauth: client metadata document refused at approval", "client_id", c.ID, "reason", why)
			return "", &AuthorizeError{Code: "invalid_client", Description: MetadataRefused}
		}
		c.CreatedAt = now.Truncate(time.Second) // kept when the client was stored before
		docClient = &c
	}
	if err := s.store.CreateOAuthCode(ctx, Code{
		Hash: hashToken(code), ClientID: req.Client.ID, UserID: user.ID,
		RedirectURI: req.RedirectURI, RedirectURIGiven: req.redirectGiven, Challenge: req.Challenge,
		Scopes: granted, Resource: req.Resource, CreatedAt: now, ExpiresAt: now.Add(CodeTTL),
	}, docClient); err != nil {
		return "", err
	}
	return s.answer(req, url.Values{"code": {code}}), nil
}

// Deny returns the redirect that tells the client the user refused
// (access_denied): the only error that goes back to the client.
func (s *Server) Deny(req *AuthorizeRequest) string {
	return s.answer(req, url.Values{"error": {"access_denied"}, "error_description": {"The user denied the request"}})
}

// answer is the client's redirect URI carrying the response q, the request's
// state and the issuer (RFC 9207).
func (s *Server) answer(req *AuthorizeRequest, q url.Values) string {
	q.Set("iss", s.issuer)
	if req.State != "" {
		q.Set("state", req.State)
	}
	return appendQuery(req.RedirectURI, q)
}

// metadataClient returns the client a metadata document describes, fetched
// or taken from the cache. Why a document was refused goes to the log only.
func (s *Server) metadataClient(ctx context.Context, clientID string) (Client, error) {
	c, err := s.metadata.resolve(ctx, clientID)
	var me *MetadataError
	if errors.As(err, &me) {
		s.log.InfoContext(ctx, "oauth: client metadata document refused", "client_id", clientID, "reason", me.Reason, "err", me.Err)
	}
	return c, err
}
