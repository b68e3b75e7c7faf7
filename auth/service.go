package auth

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/finance-app/finance/finance"
)

// Store is the persistence auth needs. Lookups return an error wrapping
// finance.ErrNotFound when nothing matches.
type Store interface {
	CreateUser(ctx context.Context, u finance.User, passwordHash string) error
	UserByID(ctx context.Context, id string) (finance.User, error)
	UserByEmail(ctx context.Context, email string) (finance.User, error)
	// UserIdentity returns a user with their credential epoch.
	UserIdentity(ctx context.Context, id string) (Identity, error)
	// Credentials returns what a user's password is checked against.
	Credentials(ctx context.Context, userID string) (Credentials, error)
	ListUsers(ctx context.Context) ([]finance.User, error)
	CountUsers(ctx context.Context) (int, error)
	SetUserPlan(ctx context.Context, userID string, plan finance.Plan, at time.Time) error
	SetUserName(ctx context.Context, userID, name string, at time.Time) error
	// ChangePassword stores a new password hash, moves the user's credential
	// epoch on by one and deletes the user's web sessions except the one
	// whose id hash is keepSession (none when it is nil), all in one
	// transaction, and returns the user with the new epoch.
	ChangePassword(ctx context.Context, userID, hash string, keepSession []byte, at time.Time) (Identity, error)

	CreateAPIKey(ctx context.Context, k APIKey) error
	APIKeyByPublicID(ctx context.Context, publicID string) (APIKey, error)
	APIKeyByID(ctx context.Context, id string) (APIKey, error)
	ListAPIKeys(ctx context.Context, userID string) ([]APIKey, error)
	RevokeAPIKey(ctx context.Context, id string, at time.Time) error
	// TouchAPIKeys records last-use times in one write (see usageRecorder).
	TouchAPIKeys(ctx context.Context, lastUsed map[string]time.Time) error

	// CreateFirstUser inserts u with its app settings only if there is no
	// user yet, in one transaction; otherwise it fails with an error
	// wrapping finance.ErrInvalidStatus.
	CreateFirstUser(ctx context.Context, u finance.User, passwordHash string, st finance.AppSettings) error
	// CreateWebSession stores a session (and drops expired ones) if the
	// user's credential epoch is still epoch; otherwise (the password
	// changed since it was checked, or the user is gone) it stores nothing
	// and fails with an error wrapping finance.ErrNotFound.
	CreateWebSession(ctx context.Context, ws WebSession, epoch int64) error
	WebSession(ctx context.Context, idHash []byte) (WebSession, error)
	DeleteWebSession(ctx context.Context, idHash []byte) error
}

// Service manages users, passwords and API keys and authenticates requests.
type Service struct {
	store  Store
	jwt    *JWT
	now    func() time.Time
	usage  *UsageRecorder
	tokens TokenVerifier
}

// OAuthAccessTokenPrefix starts every OAuth access token, so Authenticate can
// route a bearer token to the right verifier without a lookup.
const OAuthAccessTokenPrefix = "fat_"

// TokenVerifier resolves OAuth access tokens, which the authorization server
// issues and stores. It returns a Principal with Method MethodOAuth, the
// grant id as CredentialID and the grant's scopes, or an Error wrapping
// ErrUnauthenticated.
type TokenVerifier interface {
	VerifyAccessToken(ctx context.Context, token string) (Principal, error)
}

// SetTokenVerifier plugs in the OAuth authorization server.
func (s *Service) SetTokenVerifier(v TokenVerifier) { s.tokens = v }

// NewService returns a Service. jwt may be nil for tools that never issue or
// verify first-party tokens (the CLI).
func NewService(store Store, jwt *JWT) *Service {
	return &Service{store: store, jwt: jwt, now: time.Now, usage: NewUsageRecorder(store.TouchAPIKeys)}
}

// JWT returns the first-party token issuer.
func (s *Service) JWT() *JWT { return s.jwt }

// PasswordChangeRequest is a signed-in user's change of their own password:
// the body of PUT /user-settings/account/password and the password
// settings page's form.
type PasswordChangeRequest struct {
	CurrentPassword finance.Field[string] `json:"current_password"`
	NewPassword     finance.Field[string] `json:"new_password"`
}

// CreateUserRequest describes a new user.
type CreateUserRequest struct {
	Email    string
	Name     string
	Plan     finance.Plan
	Password string
}

// CreateUser validates and stores a new user. An email already in use
// (case-insensitively) is a validation error on "email".
func (s *Service) CreateUser(ctx context.Context, req CreateUserRequest) (finance.User, error) {
	u, hash, err := s.newUser(req)
	if err != nil {
		return finance.User{}, err
	}
	if _, err := s.store.UserByEmail(ctx, u.Email); err == nil {
		return finance.User{}, finance.Invalid("email", "is already registered")
	} else if !errors.Is(err, finance.ErrNotFound) {
		return finance.User{}, err
	}
	if err := s.store.CreateUser(ctx, u, hash); err != nil {
		return finance.User{}, err
	}
	return u, nil
}

// UserByEmail finds a user by email, case-insensitively.
func (s *Service) UserByEmail(ctx context.Context, email string) (finance.User, error) {
	e, err := finance.NormalizeEmail(email)
	if err != nil {
		return finance.User{}, finance.NotFound("user " + strings.TrimSpace(email))
	}
	u, err := s.store.UserByEmail(ctx, e)
	if errors.Is(err, finance.ErrNotFound) {
		return finance.User{}, finance.NotFound("user " + e)
	}
	return u, err
}

// ListUsers returns every user, oldest first.
func (s *Service) ListUsers(ctx context.Context) ([]finance.User, error) {
	return s.store.ListUsers(ctx)
}

// CountUsers returns how many users exist.
func (s *Service) CountUsers(ctx context.Context) (int, error) { return s.store.CountUsers(ctx) }

// SetPlan moves a user to plan.
func (s *Service) SetPlan(ctx context.Context, email string, plan finance.Plan) (finance.User, error) {
	u, err := s.UserByEmail(ctx, email)
	if err != nil {
		return u, err
	}
	if err := s.store.SetUserPlan(ctx, u.ID, plan, s.now().UTC()); err != nil {
		return u, err
	}
	u.Plan = plan
	return u, nil
}

// MaxUserNameLen bounds a user's name, in characters.
const MaxUserNameLen = 100

// checkName trims a user's name (which may be empty) and applies its length rule.
func checkName(v *finance.Validator, name string) string {
	return v.Text("name", strings.TrimSpace(name), MaxUserNameLen)
}

// SetName changes the name of userID (the profile settings page) and
// returns the user.
func (s *Service) SetName(ctx context.Context, userID, name string) (finance.User, error) {
	var v finance.Validator
	name = checkName(&v, name)
	if err := v.Err(); err != nil {
		return finance.User{}, err
	}
	if err := s.store.SetUserName(ctx, userID, name, s.now().UTC()); err != nil {
		return finance.User{}, err
	}
	return s.store.UserByID(ctx, userID)
}

// CreateKeyRequest describes a new API key.
type CreateKeyRequest struct {
	UserID    string
	Name      string
	Scopes    []string
	ExpiresIn time.Duration // 0: never expires; at most MaxKeyLifetime
}

// MaxKeyLifetime is the longest expiry a key may be given: 10 years (3650
// days). A key meant to outlive that is one that should never expire, and
// the bound keeps expiry arithmetic far from time.Duration's limit (292 years).
const MaxKeyLifetime = 3650 * 24 * time.Hour

// CreateKey stores a new key and returns it together with the full key string,
// which exists only in this return value.
func (s *Service) CreateKey(ctx context.Context, req CreateKeyRequest) (APIKey, string, error) {
	var v finance.Validator
	name := strings.TrimSpace(req.Name)
	if name == "" {
		v.Add("name", "is required")
	} else {
		v.Text("name", name, MaxUserNameLen)
	}
	scopes, err := ParseScopes(req.Scopes)
	if err != nil {
		v.Merge("", err)
	}
	if req.ExpiresIn < 0 {
		v.Add("expires_in", "must be positive")
	} else if req.ExpiresIn > MaxKeyLifetime {
		v.Add("expires_in", "must be at most 10 years (3650 days)")
	}
	if err := v.Err(); err != nil {
		return APIKey{}, "", err
	}
	now := s.now().UTC()
	key, publicID, hash := newKeyMaterial()
	k := APIKey{ID: finance.NewID(), UserID: req.UserID, Name: name, PublicID: publicID, SecretHash: hash, Scopes: scopes, CreatedAt: now}
	if req.ExpiresIn > 0 {
		exp := now.Add(req.ExpiresIn)
		k.ExpiresAt = &exp
	}
	if err := s.store.CreateAPIKey(ctx, k); err != nil {
		return APIKey{}, "", err
	}
	return k, key, nil
}

// ListKeys returns a user's keys, newest first. Secrets are never available.
func (s *Service) ListKeys(ctx context.Context, userID string) ([]APIKey, error) {
	if err := s.usage.Flush(ctx); err != nil {
		return nil, err
	}
	return s.store.ListAPIKeys(ctx, userID)
}

// RevokeKey revokes a key by id. userID, when not empty, must own the key.
// Revoking an already revoked key is refused, so scripts notice typos.
func (s *Service) RevokeKey(ctx context.Context, userID, keyID string) (APIKey, error) {
	k, err := s.store.APIKeyByID(ctx, keyID)
	if err != nil || (userID != "" && k.UserID != userID) {
		if err == nil || errors.Is(err, finance.ErrNotFound) {
			return APIKey{}, finance.NotFound("API key " + keyID)
		}
		return APIKey{}, err
	}
	if k.RevokedAt != nil {
		return k, finance.InvalidStatus("API key %s is already revoked", keyID)
	}
	now := s.now().UTC()
	if err := s.store.RevokeAPIKey(ctx, k.ID, now); err != nil {
		return APIKey{}, err
	}
	k.RevokedAt = &now
	return k, nil
}

// Authenticate resolves a bearer token (an API key or a first-party JWT) to a Principal.
func (s *Service) Authenticate(ctx context.Context, token string) (Principal, error) {
	switch {
	case token == "":
		return Principal{}, unauthenticated("Missing credentials: send Authorization: Bearer <API_KEY>")
	case strings.HasPrefix(token, KeyPrefix):
		return s.authenticateKey(ctx, token)
	case strings.HasPrefix(token, OAuthAccessTokenPrefix) && s.tokens != nil:
		return s.tokens.VerifyAccessToken(ctx, token)
	case strings.Count(token, ".") == 2 && s.jwt != nil:
		return s.authenticateJWT(ctx, token)
	case strings.Count(token, ".") == 1:
		return Principal{}, unauthenticated("This API key uses the retired <public>.<secret> format, which no longer authenticates; create a new key (it starts with svk_)")
	}
	return Principal{}, unauthenticated("Invalid API key")
}

func (s *Service) authenticateKey(ctx context.Context, token string) (Principal, error) {
	publicID, secret, ok := parseKey(token)
	if !ok {
		return Principal{}, unauthenticated("Invalid API key")
	}
	k, owner, err := s.keyWithOwner(ctx, publicID)
	if errors.Is(err, finance.ErrNotFound) {
		return Principal{}, unauthenticated("Invalid API key")
	} else if err != nil {
		return Principal{}, err
	}
	if !secretMatches(k, secret) {
		return Principal{}, unauthenticated("Invalid API key")
	}
	now := s.now()
	switch k.Status(now) {
	case "revoked":
		return Principal{}, unauthenticated("This API key has been revoked")
	case "expired":
		return Principal{}, unauthenticated("This API key has expired")
	}
	s.usage.Record(k.ID, now.UTC())
	return Principal{User: owner, Method: MethodAPIKey, CredentialID: k.ID, Scopes: k.Scopes, CredentialName: k.Name}, nil
}

// keyOwnerStore is a Store that reads a key and its owner in one step (the
// store's credential cache then checks for changes once, not twice).
type keyOwnerStore interface {
	APIKeyWithOwner(ctx context.Context, publicID string) (APIKey, Identity, error)
}

// keyWithOwner returns the key with publicID and the user it belongs to.
// A key whose owner is gone is not found.
func (s *Service) keyWithOwner(ctx context.Context, publicID string) (APIKey, finance.User, error) {
	if st, ok := s.store.(keyOwnerStore); ok {
		k, owner, err := st.APIKeyWithOwner(ctx, publicID)
		return k, owner.User, err
	}
	k, err := s.store.APIKeyByPublicID(ctx, publicID)
	if err != nil {
		return APIKey{}, finance.User{}, err
	}
	u, err := s.store.UserByID(ctx, k.UserID)
	return k, u, err
}

// RunUsageFlusher writes recorded key use every interval until ctx ends, then
// once more. last_used_at is thus at most one interval stale, and the hot path
// never waits for a write.
func (s *Service) RunUsageFlusher(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			_ = s.usage.Flush(context.WithoutCancel(ctx))
			return
		case <-t.C:
			_ = s.usage.Flush(ctx)
		}
	}
}

// FlushUsage writes pending last-use times now.
func (s *Service) FlushUsage(ctx context.Context) error { return s.usage.Flush(ctx) }

// MessagingPrincipal is the principal of a messaging platform's chat linked
// to userID: the user as stored now (so a plan change applies at once),
// MethodMessaging, and MessagingScopes. An unknown user is finance.ErrNotFound.
func (s *Service) MessagingPrincipal(ctx context.Context, userID string) (Principal, error) {
	u, err := s.store.UserByID(ctx, userID)
	if err != nil {
		return Principal{}, err
	}
	return Principal{User: u, Method: MethodMessaging, CredentialID: "messaging:" + u.ID, Scopes: MessagingScopes}, nil
}
