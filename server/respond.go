package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/finance-app/finance/httperr"
)

// Error codes of the specification and the product (httperr owns them; the REST handlers
// and tests name them here).
const (
	CodeUnauthorized         = httperr.CodeUnauthorized
	CodeForbidden            = httperr.CodeForbidden
	CodeRateLimitExceeded    = httperr.CodeRateLimitExceeded
	CodeValidation           = httperr.CodeValidation
	CodeInvalidStatus        = httperr.CodeInvalidStatus
	CodeNotFound             = httperr.CodeNotFound
	CodeSubscriptionRequired = httperr.CodeSubscriptionRequired
	CodeInternal             = httperr.CodeInternal
	CodeIdempotencyConflict  = httperr.CodeIdempotencyConflict
	CodeConflict             = httperr.CodeConflict
	CodeRateMissing          = httperr.CodeRateMissing
	CodeCurrencyFixed        = httperr.CodeCurrencyFixed
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

// errorDetail is the error member of the error envelope.
type errorDetail = httperr.Detail

// writeError renders err. 5xx causes are logged with the request id; the
// client only sees the generic message.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status, detail := httperr.Response(err, requestIDFrom(r.Context()))
	if status >= 500 {
		s.log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "err", err)
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
