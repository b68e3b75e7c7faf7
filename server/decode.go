package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
)

// decodeJSON reads a request body into dst: a JSON object, or a
// multipart/form-data form with the same field names (see formAsJSON).
// Unknown fields are ignored (clients tolerate and send extra fields), but
// what encoding/json would silently reinterpret is refused (checkBody).
// Failures are 400 VALIDATION_ERROR, naming the field when a value has the
// wrong type, or 413 when too large.
func (s *Server) decodeJSON(r *http.Request, dst any) error {
	body, err := s.readBody(r)
	if err != nil {
		return err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return httperr.BadRequest("Request body is required: send a JSON object", nil)
	}
	if !json.Valid(body) {
		return jsonError(json.Unmarshal(body, dst)) // names the byte where it breaks
	}
	if err := checkBody(body, reflect.TypeOf(dst)); err != nil {
		return err
	}
	return jsonError(json.Unmarshal(body, dst))
}

// readBody returns the request body as JSON: as sent, or converted from a
// multipart form.
func (s *Server) readBody(r *http.Request) ([]byte, error) {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err == nil && mt == "multipart/form-data" {
			return s.formAsJSON(r)
		}
		if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
			return nil, httperr.BadRequest("Content-Type must be application/json or multipart/form-data", nil)
		}
	}
	return s.readAll(r)
}

// readAll reads the whole request body, within the server's limit.
func (s *Server) readAll(r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, httperr.TooLarge(tooLarge.Limit)
		}
		return nil, httperr.BadRequest("Could not read the request body", nil)
	}
	return body, nil
}

// nestedFormFields carry JSON in multipart forms (domain.md §1.2): a bulk
// request's items, a split's parts, a link's transaction_ids, budget thresholds.
var nestedFormFields = map[string]bool{"items": true, "parts": true, "transaction_ids": true, "thresholds": true}

// formAsJSON turns a multipart form into the JSON object a JSON client would
// send: every field a string (amounts, dates and numbers are read from
// strings, as in JSON), except the nested fields, whose values are JSON text.
// Files are not read here; the one route that takes a file reads it itself.
func (s *Server) formAsJSON(r *http.Request) ([]byte, error) {
	if err := r.ParseMultipartForm(s.cfg.MaxBodyBytes); err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, httperr.TooLarge(tooLarge.Limit)
		}
		return nil, httperr.BadRequest("Request body is not a valid multipart form", nil)
	}
	obj := map[string]json.RawMessage{}
	var v finance.Validator
	for name, values := range r.MultipartForm.Value {
		val := values[0]
		// json.Marshal would turn bytes that are not UTF-8 into U+FFFD, and
		// only the first of repeated fields would be read.
		switch {
		case !utf8.ValidString(name):
			v.Add("body", "has a field name that is not valid UTF-8 text")
			continue
		case len(values) > 1:
			v.Add(name, "appears more than once")
			continue
		case !utf8.ValidString(val):
			v.Add(name, "must be valid UTF-8 text")
			continue
		}
		if nestedFormFields[name] {
			if !json.Valid([]byte(val)) {
				v.Add(name, "must be JSON text in a multipart form")
				continue
			}
			obj[name] = json.RawMessage(val)
			continue
		}
		obj[name], _ = json.Marshal(val)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return json.Marshal(obj)
}

// jsonError turns a decoding error into a VALIDATION_ERROR with fields.
func jsonError(err error) error {
	if err == nil {
		return nil
	}
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syntax):
		return httperr.BadRequest(fmt.Sprintf("Request body is not valid JSON (at byte %d)", syntax.Offset), nil)
	case errors.As(err, &typ):
		if typ.Field == "" {
			return httperr.BadRequest("Request body must be a JSON object", nil)
		}
		return finance.Invalid(typ.Field, "must be "+jsonKind(typ.Type.Kind().String()))
	}
	if p := finance.MoneyProblem(err); p != "" {
		return httperr.BadRequest("Invalid amount: "+p, nil)
	}
	if p := finance.DateProblem(err); p != "" {
		return httperr.BadRequest("Invalid date: "+p, nil)
	}
	return httperr.BadRequest("Request body is not valid JSON", nil)
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
