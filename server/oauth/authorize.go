package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server/auth"
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

// AuthorizeError is a refused authorization request. When it has a redirect
// URI it goes back to the client (RFC 6749 §4.1.2.1). Without one (unknown
// client, or a redirect URI that is not registered) it must be shown to the
// user and never redirected: the redirect URI cannot be trusted.
type AuthorizeError struct {
	Code        string
	Description string
	redirectURI string
	state       string
	issuer      string
}

func (e *AuthorizeError) Error() string { return e.Code + ": " + e.Description }

// RedirectURL is the client's redirect URI carrying the error, or "" when
// the error must be shown instead.
func (e *AuthorizeError) RedirectURL() string {
	if e.redirectURI == "" {
		return ""
	}
	q := url.Values{"error": {e.Code}, "iss": {e.issuer}}
	if e.Description != "" {
		q.Set("error_description", e.Description)
	}
	if e.state != "" {
		q.Set("state", e.state)
	}
	return appendQuery(e.redirectURI, q)
}

// authorizeParams are the parameters an authorization request may carry once.
var authorizeParams = []string{
	"response_type", "client_id", "redirect_uri", "state", "scope",
	"code_challenge", "code_challenge_method", "resource",
}

// s256Challenge is BASE64URL(SHA-256(verifier)) without padding: 43 characters.
var s256Challenge = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// maxStateLen bounds the opaque state a client may round-trip.
const maxStateLen = 1024

// ParseAuthorize validates an authorization request. It returns an
// *AuthorizeError for a refused request; any other error is internal.
func (s *Server) ParseAuthorize(ctx context.Context, params url.Values) (*AuthorizeRequest, error) {
	shown := func(desc string) error {
		return &AuthorizeError{Code: "invalid_request", Description: desc}
	}
	for _, k := range []string{"client_id", "redirect_uri"} {
		if len(params[k]) > 1 {
			return nil, shown(k + " appears more than once")
		}
	}
	clientID := params.Get("client_id")
	if clientID == "" {
		return nil, shown("The request names no client_id. Start again from the app you are connecting.")
	}
	client, err := s.store.OAuthClient(ctx, clientID)
	if errors.Is(err, finance.ErrNotFound) {
		return nil, shown("The app is not registered with this server (unknown client_id). Start again from the app you are connecting; it registers itself.")
	} else if err != nil {
		return nil, err
	}
	redirectURI := params.Get("redirect_uri")
	given := redirectURI != ""
	switch {
	case !given && len(client.RedirectURIs) == 1:
		redirectURI = client.RedirectURIs[0]
	case !given:
		return nil, shown("The request names no redirect_uri, and the app registered several.")
	case !slices.ContainsFunc(client.RedirectURIs, func(reg string) bool { return redirectMatches(reg, redirectURI) }):
		return nil, shown("The redirect_uri " + redirectURI + " is not registered for this app, so the answer cannot be sent to it.")
	}

	// From here on, errors go back to the client.
	state := params.Get("state")
	back := func(code, desc string) error {
		if len(state) > maxStateLen {
			state = ""
		}
		return &AuthorizeError{Code: code, Description: desc, redirectURI: redirectURI, state: state, issuer: s.issuer}
	}
	for _, k := range authorizeParams {
		if len(params[k]) > 1 && k != "resource" {
			return nil, back("invalid_request", k+" appears more than once")
		}
	}
	if len(state) > maxStateLen {
		return nil, back("invalid_request", fmt.Sprintf("state must be at most %d characters", maxStateLen))
	}
	switch rt := params.Get("response_type"); rt {
	case "code":
	case "":
		return nil, back("invalid_request", "response_type is required and must be code")
	default:
		return nil, back("unsupported_response_type", "only response_type=code is supported")
	}
	challenge := params.Get("code_challenge")
	method := params.Get("code_challenge_method")
	switch {
	case challenge == "":
		return nil, back("invalid_request", "PKCE is required: send code_challenge with code_challenge_method=S256")
	case method == "":
		// RFC 7636 §4.3: a missing method means plain, which is not allowed here.
		return nil, back("invalid_request", "code_challenge_method is required and must be S256 (plain is not supported)")
	case method != "S256":
		return nil, back("invalid_request", "code_challenge_method "+method+" is not supported; use S256")
	case !s256Challenge.MatchString(challenge):
		return nil, back("invalid_request", "code_challenge must be the base64url SHA-256 of the code verifier (43 characters)")
	}
	resources := params["resource"]
	if len(resources) > 1 {
		return nil, back("invalid_target", "only one resource may be requested: "+s.resource)
	}
	resource := s.resource
	if len(resources) == 1 && resources[0] != s.resource {
		return nil, back("invalid_target", "unknown resource "+resources[0]+"; this server issues tokens for "+s.resource)
	}
	req := &AuthorizeRequest{
		Client: client, RedirectURI: redirectURI, redirectGiven: given, State: state,
		Challenge: challenge, Resource: resource, Params: url.Values{},
	}
	if scope, ok := params["scope"]; ok && len(scope) == 1 && scope[0] != "" {
		requested, oe := parseRequestedScopes(scope[0])
		if oe != nil {
			return nil, back(oe.Code, oe.Description)
		}
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
	if err := s.store.CreateOAuthCode(ctx, Code{
		Hash: hashToken(code), ClientID: req.Client.ID, UserID: user.ID,
		RedirectURI: req.RedirectURI, RedirectURIGiven: req.redirectGiven, Challenge: req.Challenge,
		Scopes: granted, Resource: req.Resource, CreatedAt: now, ExpiresAt: now.Add(CodeTTL),
	}); err != nil {
		return "", err
	}
	q := url.Values{"code": {code}, "iss": {s.issuer}}
	if req.State != "" {
		q.Set("state", req.State)
	}
	return appendQuery(req.RedirectURI, q), nil
}

// Deny returns the redirect that tells the client the user refused (access_denied).
func (s *Server) Deny(req *AuthorizeRequest) string {
	e := &AuthorizeError{Code: "access_denied", Description: "The user denied the request",
		redirectURI: req.RedirectURI, state: req.State, issuer: s.issuer}
	return e.RedirectURL()
}
