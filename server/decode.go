package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/finance-app/finance/finance"
)

// decodeJSON reads a JSON object body into dst. Unknown fields are ignored
// (clients tolerate and send extra fields). Failures are 400 VALIDATION_ERROR,
// naming the field when a value has the wrong type, or 413 when too large.
func (s *Server) decodeJSON(r *http.Request, dst any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return badRequest("Content-Type must be application/json", nil)
		}
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return s.errTooLarge()
		}
		return badRequest("Could not read the request body", nil)
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		return badRequest("Request body is required: send a JSON object", nil)
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return jsonError(err)
	}
	return nil
}

// jsonError turns a decoding error into a VALIDATION_ERROR with fields.
func jsonError(err error) error {
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax):
		return badRequest(fmt.Sprintf("Request body is not valid JSON (at byte %d)", syntax.Offset), nil)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return badRequest("Request body must be a JSON object", nil)
		}
		return finance.Invalid(typ.Field, "must be "+jsonKind(typ.Type.Kind().String()))
	}
	if p := finance.MoneyProblem(err); p != "" {
		return badRequest("Invalid amount: "+p, nil)
	}
	if p := finance.DateProblem(err); p != "" {
		return badRequest("Invalid date: "+p, nil)
	}
	return badRequest("Request body is not valid JSON", nil)
}

func jsonKind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "int", "int64", "int32", "float64", "uint", "uint64":
		return "a number"
	}
	return "of another type"
}
