// Package httperr is the one table from errors to HTTP: which status, which
// code of the specification and which message an error gets. The REST
// handlers write it as the error envelope; the web pages show its message on
// an error page or beside a form, in the same words. Domain and auth
// failures keep their own types (finance, auth) and are mapped here; Error
// carries the failures that only make sense in HTTP terms.
package httperr

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Error codes of the specification, and one of the product's. Every error
// response carries one.
const (
	CodeUnauthorized         = "UNAUTHORIZED"
	CodeForbidden            = "FORBIDDEN"
	CodeRateLimitExceeded    = "RATE_LIMIT_EXCEEDED"
	CodeValidation           = "VALIDATION_ERROR"
	CodeInvalidStatus        = "INVALID_STATUS"
	CodeNotFound             = "NOT_FOUND"
	CodeSubscriptionRequired = "SUBSCRIPTION_REQUIRED"
	CodeInternal             = "INTERNAL_SERVER_ERROR"
	// CodeIdempotencyConflict is the product's own: an Idempotency-Key sent
	// again with another request.
	CodeIdempotencyConflict = "IDEMPOTENCY_CONFLICT"
	// CodeConflict answers a record that would repeat one the user has
	// and cannot repeat (a second manual rate of a pair and date).
	CodeConflict = "CONFLICT"
	// CodeRateMissing answers a conversion without an exchange rate: the
	// amount is not convertible, and never converted 1:1 instead.
	CodeRateMissing = "RATE_MISSING"
	// CodeCurrencyFixed answers a currency change of a record that already
	// holds money in its currency: those amounts stay in it.
	CodeCurrencyFixed = "CURRENCY_FIXED"
)

// Detail is an error as the error envelope carries it.
type Detail struct {
	Message   string            `json:"message"`
	Code      string            `json:"code"`
	Fields    map[string]string `json:"fields,omitempty"`
	RequestID string            `json:"request_id,omitempty"`
}

// Error is a failure that only makes sense in HTTP terms (an unknown
// route, a wrong method, an oversized body, a rate limit).
type Error struct {
	status  int
	code    string
	message string
	fields  map[string]string
}

// New is a failure answered with status, code and message.
func New(status int, code, message string) *Error {
	return &Error{status: status, code: code, message: message}
}

func (e *Error) Error() string { return e.message }

// WithFields is e naming the fields it is about.
func (e *Error) WithFields(fields map[string]string) *Error {
	c := *e
	c.fields = fields
	return &c
}

// BadRequest is a 400 of the request as a whole (its fields, when given).
func BadRequest(message string, fields map[string]string) error {
	return &Error{status: http.StatusBadRequest, code: CodeValidation, message: message, fields: fields}
}

// TooLarge refuses a body larger than limit, the limit of its route: the
// server's body limit, and for a route that takes files, their limit besides.
func TooLarge(limit int64) error {
	return New(http.StatusRequestEntityTooLarge, CodeValidation,
		fmt.Sprintf("Request body is larger than the %d byte limit of this route", limit))
}

// FormRead is the answer to a multipart form that could not be read: the
// body over its route's limit (TooLarge), or a form that is not multipart.
func FormRead(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return TooLarge(tooLarge.Limit)
	}
	return BadRequest("Request body is not a valid multipart form", nil)
}

// DocsPath is the address of the API's documentation page, which lists
// every route; a path no route has points there.
const DocsPath = "/api/docs"

// RouteNotFound answers a path no route has. The message names the
// method but never repeats the path: a path can carry any text, and an
// answer must not hand back what a link planted in it.
func RouteNotFound(r *http.Request) error {
	return New(http.StatusNotFound, CodeNotFound,
		fmt.Sprintf("No route for %s on this path; the routes are listed at %s", MethodName(r.Method), DocsPath))
}

// MethodName is the request's method when it is one HTTP defines, else a
// placeholder: net/http accepts any token as a method.
func MethodName(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return "this method"
}

// ErrPasswordGuesses refuses a password change once the user or the client
// IP has guessed the current password wrong too often. The API's password
// change and the password settings page draw on the same count.
var ErrPasswordGuesses = New(http.StatusTooManyRequests, CodeRateLimitExceeded,
	"Too many wrong current passwords for this account or from this network; "+
		"retry after the number of seconds in the Retry-After header")

// Response maps any error to its status and detail: the one table from
// errors to HTTP. Unknown errors are 500s whose message reveals nothing.
func Response(err error, requestID string) (int, Detail) {
	var (
		he *Error
		ve *finance.ValidationError
		ae *auth.Error
	)
	switch {
	case errors.As(err, &he):
		return he.status, Detail{Message: he.message, Code: he.code, Fields: he.fields}
	case errors.As(err, &ve):
		return http.StatusBadRequest, Detail{Message: ve.Message, Code: CodeValidation, Fields: ve.Fields}
	case errors.Is(err, finance.ErrNotFound):
		return http.StatusNotFound, Detail{Message: capitalize(err.Error()), Code: CodeNotFound}
	case errors.Is(err, finance.ErrInvalidStatus):
		return http.StatusBadRequest, Detail{Message: capitalize(err.Error()), Code: CodeInvalidStatus, Fields: finance.FieldsOf(err)}
	case errors.Is(err, finance.ErrCurrencyFixed):
		return http.StatusConflict, Detail{Message: capitalize(err.Error()), Code: CodeCurrencyFixed, Fields: finance.FieldsOf(err)}
	case errors.Is(err, finance.ErrConflict):
		return http.StatusConflict, Detail{Message: capitalize(err.Error()), Code: CodeConflict, Fields: finance.FieldsOf(err)}
	case errors.Is(err, finance.ErrRateMissing):
		// 422: the request is well formed, but the data to answer it is missing.
		return http.StatusUnprocessableEntity, Detail{Message: capitalize(err.Error()), Code: CodeRateMissing}
	case errors.Is(err, finance.ErrStorageFull):
		// 507 Insufficient Storage (RFC 4918 §11.5): the server, not the
		// request, is at fault, and the write can be sent again as it is once
		// there is room. The spec's codes have none for it; it is an internal
		// failure, told plainly so that nobody wonders whether it was saved.
		return http.StatusInsufficientStorage, Detail{Message: StorageFullMessage, Code: CodeInternal, RequestID: requestID}
	case errors.As(err, &ae):
		switch {
		case errors.Is(ae, auth.ErrUnauthenticated):
			return http.StatusUnauthorized, Detail{Message: ae.Message, Code: CodeUnauthorized}
		case errors.Is(ae, auth.ErrForbidden):
			return http.StatusForbidden, Detail{Message: ae.Message, Code: CodeForbidden}
		case errors.Is(ae, auth.ErrPlanRequired):
			return http.StatusPaymentRequired, Detail{Message: ae.Message, Code: CodeSubscriptionRequired}
		}
	}
	return http.StatusInternalServerError, Detail{
		Message:   "An unexpected error occurred; quote request id " + requestID + " when reporting it",
		Code:      CodeInternal,
		RequestID: requestID,
	}
}

// StorageFullMessage answers every write that found the server's disk full,
// whichever door it came by (the API, an MCP tool, a page's form).
const StorageFullMessage = "The server could not save: its disk is full, so nothing was saved. " +
	"Try again once its admin has freed space."

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
