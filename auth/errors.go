package auth

import "errors"

// Failures of authentication and authorization. The HTTP layer maps them to
// 401 UNAUTHORIZED, 403 FORBIDDEN and 402 SUBSCRIPTION_REQUIRED.
var (
	ErrUnauthenticated = errors.New("unauthenticated")
	ErrForbidden       = errors.New("forbidden")
	ErrPlanRequired    = errors.New("subscription required")
)

// Error is an auth failure with a message meant for the caller.
type Error struct {
	Kind    error
	Message string
	// Needed, on a refusal for a missing scope, are the scopes a credential
	// needs for the request: those it holds and the one it lacks. They are
	// the scope of the insufficient_scope challenge (RFC 6750 §3.1), so an
	// OAuth client can ask for them without losing what it was granted.
	Needed []Scope
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Kind }

func unauthenticated(msg string) error { return &Error{Kind: ErrUnauthenticated, Message: msg} }
