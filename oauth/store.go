package oauth

import (
	"context"
	"errors"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Client is a registered OAuth client. Every client is public (it has no
// secret): the authorization code is protected by PKCE instead.
type Client struct {
	ID           string
	Name         string
	RedirectURIs []string
	GrantTypes   []string
	Scope        string // the scope the client registered with, as sent (informational)
	CreatedAt    time.Time
	// MetadataDocument marks a client whose client_id is the https URL of
	// its metadata document (no registration); FetchedAt is when the
	// document was fetched. Such a client is stored when a user approves
	// it, and refreshed from the document at each approval.
	MetadataDocument bool
	FetchedAt        *time.Time
}

// Code is an authorization code as stored: single use, short-lived, bound to
// the client, redirect URI, PKCE challenge, user, approved scopes and resource.
type Code struct {
	Hash             []byte
	ClientID         string
	UserID           string
	RedirectURI      string // where the code was sent
	RedirectURIGiven bool   // the authorization request named it (then the token request must too)
	Challenge        string // PKCE S256 code_challenge
	Scopes           []auth.Scope
	Resource         string
	CreatedAt        time.Time
	ExpiresAt        time.Time
	UsedAt           *time.Time
	GrantID          string // the grant it was redeemed for, once redeemed
}

// Grant is one approval redeemed for tokens: a token family. Revoking it
// invalidates every token issued under it.
type Grant struct {
	ID         string
	UserID     string
	ClientID   string
	ClientName string // filled by ListOAuthGrants and OAuthToken
	Scopes     []auth.Scope
	Resource   string
	CreatedAt  time.Time
	ExpiresAt  time.Time // when its current refresh token expires
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

// TokenKind tells access tokens from refresh tokens.
type TokenKind string

const (
	AccessToken  TokenKind = "access"
	RefreshToken TokenKind = "refresh"
)

// Token is an issued access or refresh token as stored.
type Token struct {
	Hash      []byte
	GrantID   string
	Kind      TokenKind
	Scopes    []auth.Scope
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time // refresh tokens: when it was rotated
}

// Store is the persistence the authorization server needs. Lookups return an
// error wrapping finance.ErrNotFound when nothing matches. Every method that
// writes more than one row does so in one transaction.
type Store interface {
	UserByID(ctx context.Context, id string) (finance.User, error)

	CreateOAuthClient(ctx context.Context, c Client) error
	OAuthClient(ctx context.Context, id string) (Client, error)

	// CreateOAuthCode stores an authorization code. With a metadata
	// document client (the client as the user approved it), it also stores
	// that client, or refreshes the stored one (keeping its created_at), in
	// the same transaction: such a client is stored only once approved. A
	// registered client passes nil.
	CreateOAuthCode(ctx context.Context, c Code, metadataClient *Client) error
	// RedeemOAuthCode marks the code used at `at` and returns it as it was
	// before: a non-nil UsedAt means it had been redeemed already, and the
	// store has then also marked it reused so that a grant still being
	// created from the first redemption fails (ErrCodeReused).
	RedeemOAuthCode(ctx context.Context, hash []byte, at time.Time) (Code, error)
	// CreateOAuthGrant stores g with its first tokens and links the code to
	// it, in one transaction; ErrCodeReused if the code was presented again meanwhile.
	CreateOAuthGrant(ctx context.Context, g Grant, codeHash []byte, tokens ...Token) error

	// OAuthToken returns a token and its grant.
	OAuthToken(ctx context.Context, hash []byte) (Token, Grant, error)
	// RotateOAuthRefreshToken marks the refresh token used, stores the new
	// tokens and moves the grant's expiry to grantExpires, in one
	// transaction; ErrTokenUsed if it had been used already.
	RotateOAuthRefreshToken(ctx context.Context, oldHash []byte, at, grantExpires time.Time, tokens ...Token) error
	// RevokeOAuthGrant marks the grant revoked and deletes its tokens, in one transaction.
	RevokeOAuthGrant(ctx context.Context, grantID string, at time.Time) error
	DeleteOAuthToken(ctx context.Context, hash []byte) error

	// ListOAuthGrants returns a user's grants that are neither revoked nor
	// expired at now, newest first, with their client names.
	ListOAuthGrants(ctx context.Context, userID string, now time.Time) ([]Grant, error)
	// TouchOAuthGrants records last-use times in one write.
	TouchOAuthGrants(ctx context.Context, lastUsed map[string]time.Time) error
	// PruneOAuth deletes what can no longer be used: expired codes and
	// tokens, grants revoked or expired before `before`, and clients that
	// were registered before `before` and never got a grant.
	PruneOAuth(ctx context.Context, now, before time.Time) error
}

// Failures the Store reports for races it detects inside its transactions.
var (
	ErrCodeReused = errors.New("oauth: authorization code presented more than once")
	ErrTokenUsed  = errors.New("oauth: refresh token already used")
)
