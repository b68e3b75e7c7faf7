package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
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
	// CodeIdempotencyConflict is the product's own: an Idempotency-Key
	// sent again with another request (errIdempotencyConflict).
	CodeIdempotencyConflict = "IDEMPOTENCY_CONFLICT"
)

// envelope is the body of every success response.
type envelope struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Data    any    `json:"data"`
}

// errorBody is the body of every error response.
type errorBody struct {
	Success bool        `json:"success"`
	Error   errorDetail `json:"error"`
}

type errorDetail struct {
	Message   string            `json:"message"`
	Code      string            `json:"code"`
	Fields    map[string]string `json:"fields,omitempty"`
	RequestID string            `json:"request_id,omitempty"`
}

// httpError is a failure that only makes sense in HTTP terms (an unknown
// route, a wrong method, an oversized body, a rate limit). Domain and auth
// failures keep their own types and are mapped in errorResponse.
type httpError struct {
	status  int
	code    string
	message string
	fields  map[string]string
}

func (e *httpError) Error() string { return e.message }

func badRequest(message string, fields map[string]string) error {
	return &httpError{status: http.StatusBadRequest, code: CodeValidation, message: message, fields: fields}
}

// errorResponse maps any error to its status and body: the one table from
// errors to HTTP. Unknown errors are 500s whose message reveals nothing.
func errorResponse(err error, requestID string) (int, errorDetail) {
	var (
		he *httpError
		ve *finance.ValidationError
		ae *auth.Error
	)
	switch {
	case errors.As(err, &he):
		return he.status, errorDetail{Message: he.message, Code: he.code, Fields: he.fields}
	case errors.As(err, &ve):
		return http.StatusBadRequest, errorDetail{Message: ve.Message, Code: CodeValidation, Fields: ve.Fields}
	case errors.Is(err, finance.ErrNotFound):
		return http.StatusNotFound, errorDetail{Message: capitalize(err.Error()), Code: CodeNotFound}
	case errors.Is(err, finance.ErrInvalidStatus):
		return http.StatusBadRequest, errorDetail{Message: capitalize(err.Error()), Code: CodeInvalidStatus}
	case errors.Is(err, finance.ErrStorageFull):
		// 507 Insufficient Storage (RFC 4918 §11.5): the server, not the
		// request, is at fault, and the write can be sent again as it is once
		// there is room. The spec's codes have none for it; it is an internal
		// failure, told plainly so that nobody wonders whether it was saved.
		return http.StatusInsufficientStorage, errorDetail{Message: storageFullMessage, Code: CodeInternal, RequestID: requestID}
	case errors.As(err, &ae):
		switch {
		case errors.Is(ae, auth.ErrUnauthenticated):
			return http.StatusUnauthorized, errorDetail{Message: ae.Message, Code: CodeUnauthorized}
		case errors.Is(ae, auth.ErrForbidden):
			return http.StatusForbidden, errorDetail{Message: ae.Message, Code: CodeForbidden}
		case errors.Is(ae, auth.ErrPlanRequired):
			return http.StatusPaymentRequired, errorDetail{Message: ae.Message, Code: CodeSubscriptionRequired}
		}
	}
	return http.StatusInternalServerError, errorDetail{
		Message:   "An unexpected error occurred; quote request id " + requestID + " when reporting it",
		Code:      CodeInternal,
		RequestID: requestID,
	}
}

// storageFullMessage answers every write that found the server's disk full,
// whichever door it came by (the API, an MCP tool, a page's form).
const storageFullMessage = "The server could not save: its disk is full, so nothing was saved. " +
	"Try again once its admin has freed space."

func capitalize(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}

// writeError renders err. 5xx causes are logged with the request id; the
// client only sees the generic message.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	id := requestIDFrom(r.Context())
	status, detail := errorResponse(err, id)
	if status >= 500 {
		slog.ErrorContext(r.Context(), "request failed", "request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
	}
	writeJSON(w, status, errorBody{Success: false, Error: detail})
}

// writeData renders a success envelope.
func writeData(w http.ResponseWriter, status int, message string, data any) {
	writeJSON(w, status, envelope{Success: true, Message: message, Data: data})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		slog.Error("encode response", "err", err)
		http.Error(w, `{"success":false,"error":{"message":"response encoding failed","code":"INTERNAL_SERVER_ERROR"}}`, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
