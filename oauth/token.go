package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/ascii"
)

// TokenResponse is a successful token response (RFC 6749 §5.1).
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
}

// codeVerifier is the syntax of a PKCE code verifier (RFC 7636 §4.1).
func codeVerifier(s string) bool { return ascii.Only(s, 43, 128, "._~-") }

// tokenParams are the parameters a token or revocation request may carry once.
var tokenParams = []string{
	"grant_type", "code", "redirect_uri", "client_id", "code_verifier", "refresh_token",
	"scope", "resource", "token", "token_type_hint",
}

// readForm parses a form-encoded POST body, refusing other bodies,
// repeated parameters (RFC 6749 §3.2) and client secrets.
func readForm(r *http.Request) (url.Values, error) {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" {
		return nil, invalidRequest("the body must be form-encoded (Content-Type: application/x-www-form-urlencoded)")
	}
	if err := r.ParseForm(); err != nil {
		return nil, invalidRequest("the form body could not be read")
	}
	form := r.PostForm
	for _, k := range tokenParams {
		if len(form[k]) > 1 {
			return nil, invalidRequest(k + " appears more than once")
		}
	}
	// No parameter means a NUL or bytes that are not UTF-8, and the store
	// refuses NUL in text: refused here, before a lookup turns it into a 500.
	for _, k := range slices.Sorted(maps.Keys(form)) {
		for _, v := range form[k] {
			if !finance.PlainText(k) || !finance.PlainText(v) {
				if !slices.Contains(tokenParams, k) {
					k = "a parameter"
				}
				return nil, invalidRequest(k + " " + finance.ProblemText)
			}
		}
	}
	if form.Get("client_secret") != "" || r.Header.Get("Authorization") != "" {
		return nil, oauthError(http.StatusUnauthorized, "invalid_client",
			"clients of this server are public: send client_id without a secret or Authorization header")
	}
	return form, nil
}

// client loads the calling public client from the form's client_id.
func (s *Server) client(ctx context.Context, form url.Values) (Client, error) {
	id := form.Get("client_id")
	if id == "" {
		return Client{}, invalidRequest("client_id is required")
	}
	c, err := s.store.OAuthClient(ctx, id)
	if errors.Is(err, finance.ErrNotFound) && IsMetadataClientID(id) {
		// A metadata document client is stored when a user approves it;
		// one that was never approved has no code to redeem.
		return Client{}, oauthError(http.StatusUnauthorized, "invalid_client",
			"unknown client_id; no user has approved this metadata document client here")
	} else if errors.Is(err, finance.ErrNotFound) {
		return Client{}, oauthError(http.StatusUnauthorized, "invalid_client", "unknown client_id; register again")
	}
	return c, err
}

// HandleToken serves POST /api/oauth/token: the authorization_code and
// refresh_token grants.
func (s *Server) HandleToken(w http.ResponseWriter, r *http.Request) {
	AllowCORS(w.Header())
	resp, err := s.token(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, resp)
}

func (s *Server) token(r *http.Request) (TokenResponse, error) {
	form, err := readForm(r)
	if err != nil {
		return TokenResponse{}, err
	}
	grantType := form.Get("grant_type")
	switch grantType {
	case "authorization_code", "refresh_token":
	case "":
		return TokenResponse{}, invalidRequest("grant_type is required")
	default:
		return TokenResponse{}, oauthError(http.StatusBadRequest, "unsupported_grant_type",
			named("grant_type", grantType)+" is not supported; supported: authorization_code, refresh_token")
	}
	client, err := s.client(r.Context(), form)
	if err != nil {
		return TokenResponse{}, err
	}
	if !slices.Contains(client.GrantTypes, grantType) {
		return TokenResponse{}, oauthError(http.StatusBadRequest, "unauthorized_client",
			"this client did not register the "+grantType+" grant type")
	}
	if res := form.Get("resource"); res != "" && res != s.resource {
		return TokenResponse{}, oauthError(http.StatusBadRequest, "invalid_target",
			"unknown resource; this server issues tokens for "+s.resource)
	}
	if grantType == "authorization_code" {
		return s.exchangeCode(r.Context(), client, form)
	}
	return s.refresh(r.Context(), client, form)
}

// exchangeCode redeems an authorization code for the grant's first tokens.
// The code is marked used by its first presentation, whatever the outcome;
// a later presentation revokes the grant it produced (RFC 6749 §4.1.2).
func (s *Server) exchangeCode(ctx context.Context, client Client, form url.Values) (TokenResponse, error) {
	code, verifier := form.Get("code"), form.Get("code_verifier")
	switch {
	case code == "":
		return TokenResponse{}, invalidRequest("code is required")
	case verifier == "":
		return TokenResponse{}, invalidRequest("code_verifier is required (PKCE)")
	}
	now := s.now().UTC()
	c, err := s.store.RedeemOAuthCode(ctx, hashToken(code), now)
	if errors.Is(err, finance.ErrNotFound) {
		return TokenResponse{}, invalidGrant("the authorization code is invalid")
	} else if err != nil {
		return TokenResponse{}, err
	}
	if c.UsedAt != nil {
		if c.GrantID != "" {
			if err := s.store.RevokeOAuthGrant(ctx, c.GrantID, now); err != nil {
				return TokenResponse{}, err
			}
		}
		return TokenResponse{}, invalidGrant("the authorization code was already used; the access it granted has been revoked")
	}
	switch {
	case !now.Before(c.ExpiresAt):
		return TokenResponse{}, invalidGrant("the authorization code has expired; codes are valid for 60 seconds")
	case c.ClientID != client.ID:
		return TokenResponse{}, invalidGrant("the authorization code was issued to another client")
	case c.RedirectURIGiven && form.Get("redirect_uri") != c.RedirectURI,
		!c.RedirectURIGiven && form.Get("redirect_uri") != "" && form.Get("redirect_uri") != c.RedirectURI:
		return TokenResponse{}, invalidGrant("redirect_uri does not match the one of the authorization request")
	case !codeVerifier(verifier):
		return TokenResponse{}, invalidGrant("code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~")
	case !pkceMatches(verifier, c.Challenge):
		return TokenResponse{}, invalidGrant("code_verifier does not match the code_challenge (PKCE)")
	}
	g := Grant{ID: finance.NewID(), UserID: c.UserID, ClientID: c.ClientID, Scopes: c.Scopes, Resource: c.Resource,
		CreatedAt: now}
	resp, tokens := s.newTokens(g.ID, c.Scopes, c.Scopes, slices.Contains(client.GrantTypes, "refresh_token"), now)
	g.ExpiresAt = now.Add(AccessTTL)
	if resp.RefreshToken != "" {
		g.ExpiresAt = now.Add(RefreshTTL)
	}
	if err := s.store.CreateOAuthGrant(ctx, g, c.Hash, tokens...); errors.Is(err, ErrCodeReused) {
		return TokenResponse{}, invalidGrant("the authorization code was presented twice; it is void")
	} else if err != nil {
		return TokenResponse{}, err
	}
	return resp, nil
}

// pkceMatches checks an S256 verifier against its challenge in constant time.
func pkceMatches(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	want := base64.RawURLEncoding.EncodeToString(sum[:])
	return subtle.ConstantTimeCompare([]byte(want), []byte(challenge)) == 1
}

// refresh rotates a refresh token: the presented one is spent, and a new
// access and refresh token are issued. Presenting a spent refresh token
// again means it was copied: the whole grant is revoked (OAuth 2.1 §4.3.1).
func (s *Server) refresh(ctx context.Context, client Client, form url.Values) (TokenResponse, error) {
	presented := form.Get("refresh_token")
	if presented == "" {
		return TokenResponse{}, invalidRequest("refresh_token is required")
	}
	now := s.now().UTC()
	tok, g, err := s.store.OAuthToken(ctx, hashToken(presented))
	if errors.Is(err, finance.ErrNotFound) || (err == nil && tok.Kind != RefreshToken) {
		return TokenResponse{}, invalidGrant("the refresh token is invalid or has been revoked")
	} else if err != nil {
		return TokenResponse{}, err
	}
	switch {
	case g.ClientID != client.ID:
		return TokenResponse{}, invalidGrant("the refresh token was issued to another client")
	case g.RevokedAt != nil:
		return TokenResponse{}, invalidGrant("the refresh token has been revoked")
	case tok.UsedAt != nil:
		if err := s.store.RevokeOAuthGrant(ctx, g.ID, now); err != nil {
			return TokenResponse{}, err
		}
		return TokenResponse{}, invalidGrant("the refresh token was already used; the connection has been revoked and must be approved again")
	case !now.Before(tok.ExpiresAt):
		return TokenResponse{}, invalidGrant("the refresh token has expired; approve the connection again")
	}
	accessScopes := tok.Scopes
	if scope := form.Get("scope"); scope != "" {
		requested, oe := parseRequestedScopes(scope)
		if oe != nil {
			return TokenResponse{}, oe
		}
		if !allowedBy(tok.Scopes, requested) {
			return TokenResponse{}, oauthError(http.StatusBadRequest, "invalid_scope",
				"a refresh may only narrow the scopes granted: "+auth.JoinScopes(tok.Scopes))
		}
		if len(requested) > 0 && (!slices.Contains(tok.Scopes, auth.ScopeAll) || len(requested) < len(auth.Scopes)) {
			accessScopes = requested
		}
	}
	resp, tokens := s.newTokens(g.ID, accessScopes, tok.Scopes, true, now)
	err = s.store.RotateOAuthRefreshToken(ctx, tok.Hash, now, now.Add(RefreshTTL), tokens...)
	if errors.Is(err, ErrTokenUsed) {
		// Two requests raced with the same refresh token: one of them is a copy.
		if err := s.store.RevokeOAuthGrant(ctx, g.ID, now); err != nil {
			return TokenResponse{}, err
		}
		return TokenResponse{}, invalidGrant("the refresh token was already used; the connection has been revoked and must be approved again")
	} else if err != nil {
		return TokenResponse{}, err
	}
	return resp, nil
}

// allowedBy reports whether every requested scope is within granted.
func allowedBy(granted, requested []auth.Scope) bool {
	if slices.Contains(granted, auth.ScopeAll) {
		return true
	}
	for _, r := range requested {
		if !slices.Contains(granted, r) {
			return false
		}
	}
	return true
}

// newTokens makes an access token (and a refresh token when withRefresh)
// for grantID. The refresh token keeps the grant's full scopes even when a
// refresh narrowed the access token's (RFC 6749 §6).
func (s *Server) newTokens(grantID string, accessScopes, refreshScopes []auth.Scope, withRefresh bool, now time.Time) (TokenResponse, []Token) {
	access := auth.OAuthAccessTokenPrefix + auth.NewSecret()
	resp := TokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(AccessTTL.Seconds()),
		Scope: scopeNames(expandAll(accessScopes))}
	tokens := []Token{{Hash: hashToken(access), GrantID: grantID, Kind: AccessToken, Scopes: accessScopes,
		CreatedAt: now, ExpiresAt: now.Add(AccessTTL)}}
	if withRefresh {
		refresh := RefreshTokenPrefix + auth.NewSecret()
		resp.RefreshToken = refresh
		tokens = append(tokens, Token{Hash: hashToken(refresh), GrantID: grantID, Kind: RefreshToken,
			Scopes: refreshScopes, CreatedAt: now, ExpiresAt: now.Add(RefreshTTL)})
	}
	return resp, tokens
}

// expandAll spells "all" out as the scopes it stands for, for clients that
// compare the granted scope list with what they asked.
func expandAll(scopes []auth.Scope) []auth.Scope {
	if slices.Contains(scopes, auth.ScopeAll) {
		return auth.Scopes
	}
	return scopes
}
