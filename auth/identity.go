package auth

import (
	"context"
	"errors"

	"github.com/finance-app/finance/finance"
)

// Identity is a user together with their credential epoch: a counter that
// moves on each time the password changes. Every first-party access token
// carries the epoch it was issued under and is refused once the user's epoch
// has moved on, so a password change ends the sign-ins made with the old
// password exactly, which comparing issue times (whole seconds in a JWT)
// could not. Sign-ins start from the Identity their password was checked
// against, so one whose check raced a change is refused as well.
type Identity struct {
	finance.User
	Epoch int64
}

// Credentials are what a password is checked against: its hash, and the
// credential epoch the hash belongs to, read together.
type Credentials struct {
	PasswordHash string
	Epoch        int64
}

var (
	errBadLogin    = unauthenticated("Invalid email or password")
	errStaleToken  = unauthenticated("The access token was issued before the password was changed; sign in again")
	errStaleSignIn = unauthenticated("The password has just been changed; sign in again")
)

// Login checks an email and password and returns the user's Identity.
// Unknown emails cost the same time as wrong passwords.
func (s *Service) Login(ctx context.Context, email, password string) (Identity, error) {
	e, err := finance.NormalizeEmail(email)
	if err != nil {
		VerifyPassword(dummyHash(), password)
		return Identity{}, errBadLogin
	}
	u, err := s.store.UserByEmail(ctx, e)
	if errors.Is(err, finance.ErrNotFound) {
		VerifyPassword(dummyHash(), password)
		return Identity{}, errBadLogin
	} else if err != nil {
		return Identity{}, err
	}
	cred, err := s.store.Credentials(ctx, u.ID)
	if err != nil {
		return Identity{}, err
	}
	if !VerifyPassword(cred.PasswordHash, password) {
		return Identity{}, errBadLogin
	}
	return Identity{User: u, Epoch: cred.Epoch}, nil
}

// IssueToken returns a first-party access token for id, bound to its epoch.
func (s *Service) IssueToken(id Identity) (string, error) {
	return s.jwt.Issue(id.ID, id.Epoch)
}

// authenticateJWT resolves a first-party access token. One issued under an
// earlier credential epoch is refused: the password has changed since.
func (s *Service) authenticateJWT(ctx context.Context, token string) (Principal, error) {
	userID, epoch, err := s.jwt.Verify(token)
	if err != nil {
		return Principal{}, err
	}
	id, err := s.store.UserIdentity(ctx, userID)
	if errors.Is(err, finance.ErrNotFound) {
		return Principal{}, unauthenticated("The access token is invalid")
	} else if err != nil {
		return Principal{}, err
	}
	if id.Epoch != epoch {
		return Principal{}, errStaleToken
	}
	return Principal{User: id.User, Method: MethodJWT, CredentialID: id.ID}, nil
}

// ChangePassword replaces the password of userID and ends every sign-in made
// with the old one, in one transaction: the user's credential epoch moves on,
// so access tokens issued before are refused, and the user's web sessions
// are deleted, except keepSessionID when it is not empty (the browser making
// the change may stay signed in). API keys and OAuth connections are
// credentials of their own, revoked on their own, and keep working.
//
// The returned Identity carries the new epoch: a caller that signed in with
// an access token can be handed a fresh one (IssueToken).
func (s *Service) ChangePassword(ctx context.Context, userID, password, keepSessionID string) (Identity, error) {
	if err := finance.CheckPassword("password", password); err != nil {
		return Identity{}, err
	}
	var keep []byte
	if keepSessionID != "" {
		keep = hashSecret(keepSessionID)
	}
	return s.store.ChangePassword(ctx, userID, HashPassword(password), keep, s.now().UTC())
}

// ChangeOwnPassword is the signed-in user changing their own password: the
// current one must match, then ChangePassword ends every sign-in made with
// it except the web session keepSessionID (the settings page's browser; the
// API call has none to keep and passes ""). A wrong current password is a
// validation error on current_password that is also ErrWrongPassword.
func (s *Service) ChangeOwnPassword(ctx context.Context, userID, current, password, keepSessionID string) (Identity, error) {
	cred, err := s.store.Credentials(ctx, userID)
	if err != nil {
		return Identity{}, err
	}
	if !VerifyPassword(cred.PasswordHash, current) {
		return Identity{}, wrongPasswordError{finance.Invalid("current_password", "is not your current password")}
	}
	return s.ChangePassword(ctx, userID, password, keepSessionID)
}

// ErrWrongPassword is in the refusal of a wrong current password
// (errors.Is), which the HTTP layer counts as a guess. The refusal is also
// the validation error on current_password that the caller is shown.
var ErrWrongPassword = errors.New("wrong current password")

type wrongPasswordError struct{ *finance.ValidationError }

func (e wrongPasswordError) Unwrap() []error { return []error{e.ValidationError, ErrWrongPassword} }

// SetPassword replaces the password of the user with email (the admin's
// command line), ending all of the user's sign-ins as ChangePassword does.
func (s *Service) SetPassword(ctx context.Context, email, password string) error {
	u, err := s.UserByEmail(ctx, email)
	if err != nil {
		return err
	}
	_, err = s.ChangePassword(ctx, u.ID, password, "")
	return err
}
