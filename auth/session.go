package auth

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"time"

	"github.com/finance-app/finance/finance"
)

// WebSession is a browser signed in to the web pages (setup, login, consent,
// API keys, connected apps). The session id lives only in an HttpOnly cookie;
// the database keeps its SHA-256. Sessions never authenticate /api/v1 or
// /api/mcp: those read only the Authorization and X-Service-API-Key headers.
type WebSession struct {
	IDHash    []byte
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// SessionTTL is how long a browser stays signed in. It is absolute, not
// sliding: the pages are visited rarely (to approve an app, create a key), so
// signing in again after a day costs little and bounds a stolen cookie.
const SessionTTL = 12 * time.Hour

// NewSecret returns a fresh random token with 256 bits of entropy, in the
// same alphabet as API keys (safe in cookies, URLs and forms).
func NewSecret() string { return randomToken(32) }

// HashSecret is the SHA-256 under which a session id or token is stored.
func HashSecret(secret string) []byte { return hashSecret(secret) }

// StartSession signs a user in and returns the session id for the cookie.
// Each sign-in gets a new id, so a session id planted before sign-in (session
// fixation) is never promoted. The session is stored only while the user's
// credential epoch is still that of who: a password change that landed after
// the password was checked refuses it (ChangePassword ends the sessions that
// exist; this covers the one being started).
func (s *Service) StartSession(ctx context.Context, who Identity) (string, WebSession, error) {
	id := NewSecret()
	now := s.now().UTC()
	ws := WebSession{IDHash: hashSecret(id), UserID: who.ID, CreatedAt: now, ExpiresAt: now.Add(SessionTTL)}
	err := s.store.CreateWebSession(ctx, ws, who.Epoch)
	if errors.Is(err, finance.ErrNotFound) {
		return "", WebSession{}, errStaleSignIn
	} else if err != nil {
		return "", WebSession{}, err
	}
	return id, ws, nil
}

var errNoSession = unauthenticated("Not signed in")

// SessionUser returns the user signed in with session id, or an Error
// wrapping ErrUnauthenticated when the id is unknown or has expired.
func (s *Service) SessionUser(ctx context.Context, id string) (finance.User, error) {
	if id == "" || len(id) > 128 {
		return finance.User{}, errNoSession
	}
	ws, err := s.store.WebSession(ctx, hashSecret(id))
	if errors.Is(err, finance.ErrNotFound) {
		return finance.User{}, errNoSession
	} else if err != nil {
		return finance.User{}, err
	}
	if !s.now().Before(ws.ExpiresAt) {
		return finance.User{}, errNoSession
	}
	u, err := s.store.UserByID(ctx, ws.UserID)
	if errors.Is(err, finance.ErrNotFound) {
		return finance.User{}, errNoSession
	}
	return u, err
}

// EndSession signs a browser out. Unknown ids are ignored.
func (s *Service) EndSession(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	return s.store.DeleteWebSession(ctx, hashSecret(id))
}

// CSRFToken derives the anti-forgery token of a form from a secret the
// browser holds in an HttpOnly cookie (the session id, or before sign-in a
// random pre-session cookie). Another site can make the browser send the
// cookie but cannot read it, so it cannot compute the token; and nothing
// needs to be stored. HMAC keeps the token from revealing the session id.
func CSRFToken(cookieSecret string) string {
	m := hmac.New(sha256.New, []byte(cookieSecret))
	m.Write([]byte("finance form token v1"))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// CSRFValid reports, in constant time, whether token is the form token for cookieSecret.
func CSRFValid(cookieSecret, token string) bool {
	if cookieSecret == "" || token == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(CSRFToken(cookieSecret)), []byte(token)) == 1
}

// SetupFirstUser creates the first user, on the Pro plan, with the app
// settings the setup page asked for (currency and timezone; the rest keep
// their defaults), and returns the Identity to sign in with. Every problem
// of the user and the settings is reported at once. The check that no user
// exists, the user and its settings are one transaction, so two browsers
// racing through setup cannot both win: the loser gets an error wrapping
// finance.ErrInvalidStatus.
func (s *Service) SetupFirstUser(ctx context.Context, req CreateUserRequest, prefs finance.AppSettingsRequest) (Identity, error) {
	req.Plan = finance.PlanPro
	var v finance.Validator
	st := finance.DefaultAppSettings()
	prefs.Apply(&v, &st)
	u, hash, err := s.newUser(req)
	if err := v.Merge("", err); err != nil {
		return Identity{}, err
	}
	if err := v.Err(); err != nil {
		return Identity{}, err
	}
	if err := s.store.CreateFirstUser(ctx, u, hash, st); err != nil {
		return Identity{}, err
	}
	return Identity{User: u}, nil // a new user's epoch is 0
}

// newUser validates req and returns the user to store with its password hash.
func (s *Service) newUser(req CreateUserRequest) (finance.User, string, error) {
	var v finance.Validator
	email, err := finance.NormalizeEmail(req.Email)
	if err != nil {
		v.Merge("", err)
	}
	name := checkName(&v, req.Name)
	if req.Plan != finance.PlanPro && req.Plan != finance.PlanFree {
		v.Add("plan", "must be pro or free")
	}
	if err := finance.CheckPassword("password", req.Password); err != nil {
		v.Merge("", err)
	}
	if err := v.Err(); err != nil {
		return finance.User{}, "", err
	}
	now := s.now().UTC().Truncate(time.Second)
	u := finance.User{ID: finance.NewID(), Email: email, Name: name, Plan: req.Plan, CreatedAt: now, UpdatedAt: now}
	return u, HashPassword(req.Password), nil
}
