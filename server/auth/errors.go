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
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Kind }

func unauthenticated(msg string) error { return &Error{Kind: ErrUnauthenticated, Message: msg} }
