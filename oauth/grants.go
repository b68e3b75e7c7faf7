package oauth

import (
	"context"
	"errors"
	"net/http"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

var _ auth.TokenVerifier = (*Server)(nil)

// VerifyAccessToken resolves an OAuth access token to its Principal: the
// grant's user, Method MethodOAuth, the grant id as CredentialID, and the
// token's scopes. A revoked grant stops its tokens at once: the grant is
// read on every request. Last use is recorded in memory and written in batches.
func (s *Server) VerifyAccessToken(ctx context.Context, token string) (auth.Principal, error) {
	invalid := func(msg string) (auth.Principal, error) {
		return auth.Principal{}, &auth.Error{Kind: auth.ErrUnauthenticated, Message: msg}
	}
	if len(token) > 200 {
		return invalid("Invalid access token")
	}
	tok, g, err := s.store.OAuthToken(ctx, hashToken(token))
	if errors.Is(err, finance.ErrNotFound) {
		return invalid("Invalid access token; it may have been revoked")
	} else if err != nil {
		return auth.Principal{}, err
	}
	now := s.now()
	switch {
	case tok.Kind != AccessToken:
		return invalid("Invalid access token: this is a refresh token, which only the token endpoint accepts")
	case g.RevokedAt != nil:
		return invalid("This app's access has been revoked; connect it again")
	case !now.Before(tok.ExpiresAt):
		return invalid("The access token has expired; refresh it at " + s.issuer + TokenPath)
	}
	u, err := s.store.UserByID(ctx, g.UserID)
	if errors.Is(err, finance.ErrNotFound) {
		return invalid("Invalid access token")
	} else if err != nil {
		return auth.Principal{}, err
	}
	s.usage.Record(g.ID, now.UTC())
	return auth.Principal{User: u, Method: auth.MethodOAuth, CredentialID: g.ID, Scopes: tok.Scopes, CredentialName: g.ClientName}, nil
}

// ListGrants returns the apps a user has connected and not revoked, newest
// first, with their last use (pending uses are written first).
func (s *Server) ListGrants(ctx context.Context, userID string) ([]Grant, error) {
	if err := s.usage.Flush(ctx); err != nil {
		return nil, err
	}
	return s.store.ListOAuthGrants(ctx, userID, s.now().UTC())
}

// RevokeGrant disconnects one of the user's apps: all its tokens stop
// working at once. A grant of another user is not found.
func (s *Server) RevokeGrant(ctx context.Context, userID, grantID string) error {
	grants, err := s.store.ListOAuthGrants(ctx, userID, s.now().UTC())
	if err != nil {
		return err
	}
	for _, g := range grants {
		if g.ID == grantID {
			return s.store.RevokeOAuthGrant(ctx, g.ID, s.now().UTC())
		}
	}
	return finance.NotFound("connected app " + grantID)
}

// HandleRevoke serves POST /api/oauth/revoke (RFC 7009). A refresh token
// revokes its whole grant; an access token only itself. Unknown, expired or
// foreign tokens get the same 200, so the endpoint reveals nothing.
func (s *Server) HandleRevoke(w http.ResponseWriter, r *http.Request) {
	AllowCORS(w.Header())
	if err := s.revoke(r); err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
}

func (s *Server) revoke(r *http.Request) error {
	form, err := readForm(r)
	if err != nil {
		return err
	}
	token := form.Get("token")
	if token == "" {
		return invalidRequest("token is required")
	}
	tok, g, err := s.store.OAuthToken(r.Context(), hashToken(token))
	if errors.Is(err, finance.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	if id := form.Get("client_id"); id != "" && id != g.ClientID {
		return nil // RFC 7009 §2.1: a client may revoke only its own tokens
	}
	if tok.Kind == RefreshToken {
		return s.store.RevokeOAuthGrant(r.Context(), g.ID, s.now().UTC())
	}
	return s.store.DeleteOAuthToken(r.Context(), tok.Hash)
}
