package server

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"

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

// jsonBuffer is a response body being encoded, kept for reuse.
type jsonBuffer struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// jsonBuffers holds the buffers of answered responses. A buffer that grew
// past maxPooledJSON (a large list or export) is left to the collector,
// so the pool never pins big bodies.
var jsonBuffers = sync.Pool{New: func() any {
	b := &jsonBuffer{}
	b.enc = json.NewEncoder(&b.buf)
	b.enc.SetEscapeHTML(false)
	return b
}}

const maxPooledJSON = 64 << 10

func writeJSON(w http.ResponseWriter, status int, v any) {
	b := jsonBuffers.Get().(*jsonBuffer)
	defer func() {
		if b.buf.Cap() <= maxPooledJSON {
			b.buf.Reset()
			jsonBuffers.Put(b)
		}
	}()
	if err := b.enc.Encode(v); err != nil {
		slog.Error("encode response", "err", err)
		http.Error(w, `{"success":false,"error":{"message":"response encoding failed","code":"INTERNAL_SERVER_ERROR"}}`, http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h["Content-Type"] = headerJSON
	h["Cache-Control"] = headerNoStore
	w.WriteHeader(status)
	_, _ = w.Write(b.buf.Bytes())
}
