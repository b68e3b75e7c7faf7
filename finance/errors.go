package finance

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The closed set of domain failures. Every error a use case returns either
// wraps one of these sentinels, is a *ValidationError, or is unexpected
// (an internal failure). The HTTP layer maps them to status codes in one place.
var (
	// ErrNotFound means the record does not exist in the caller's data. A
	// record of another user is indistinguishable from a missing one.
	ErrNotFound = errors.New("not found")
	// ErrInvalidStatus means the record's current state forbids the operation.
	ErrInvalidStatus = errors.New("invalid status")
	// ErrStorageFull means the server could not save because its storage is
	// full (a full disk); the write was rolled back, so nothing of it is saved.
	ErrStorageFull = errors.New("the server could not save: its disk is full")
	// ErrConflict means the record would repeat one the user already has
	// that cannot be repeated (a second manual rate of a pair and date).
	ErrConflict = errors.New("conflict")
	// ErrCurrencyFixed means a record's currency cannot change: money was
	// recorded in it (currency_check.go).
	ErrCurrencyFixed = errors.New("currency fixed")
)

// kindError carries a user-facing message while matching a sentinel with errors.Is.
type kindError struct {
	kind   error
	msg    string
	fields map[string]string
}

// InvalidStatusOf returns an ErrInvalidStatus that also names the records
// in the way, field by field (a revert refused by the records changed since).
func InvalidStatusOf(fields map[string]string, format string, args ...any) error {
	return &kindError{kind: ErrInvalidStatus, msg: fmt.Sprintf(format, args...), fields: fields}
}

// FieldsOf returns the fields an error names beyond a ValidationError's: those of InvalidStatusOf.
func FieldsOf(err error) map[string]string {
	var ke *kindError
	if errors.As(err, &ke) {
		return ke.fields
	}
	return nil
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// Conflict returns an ErrConflict naming, field by field, the record in the way.
func Conflict(fields map[string]string, format string, args ...any) error {
	return &kindError{kind: ErrConflict, msg: fmt.Sprintf(format, args...), fields: fields}
}

// NotFound returns an ErrNotFound whose message names the missing record,
// for example NotFound("expense") reads "expense not found".
func NotFound(what string) error {
	return &kindError{kind: ErrNotFound, msg: what + " not found"}
}

// InvalidStatus returns an ErrInvalidStatus with a message explaining the refusal.
func InvalidStatus(format string, args ...any) error {
	return &kindError{kind: ErrInvalidStatus, msg: fmt.Sprintf(format, args...)}
}

// ValidationError reports bad input. Fields maps a JSON path ("amount",
// "items[3].category") to what is wrong with the value found there.
type ValidationError struct {
	Message string
	Fields  map[string]string
}

// Error is the message followed by every field problem, sorted by field.
// A message that already ends with them (the one Validator writes for a
// single field) is not repeated.
func (e *ValidationError) Error() string {
	problems := make([]string, 0, len(e.Fields))
	for _, k := range slices.Sorted(maps.Keys(e.Fields)) {
		problems = append(problems, k+" "+e.Fields[k])
	}
	detail := strings.Join(problems, "; ")
	if detail == "" || strings.HasSuffix(e.Message, detail) {
		return e.Message
	}
	return e.Message + ": " + detail
}

// Invalid returns a ValidationError for a single field.
func Invalid(field, problem string) *ValidationError {
	v := &Validator{}
	v.Add(field, problem)
	return v.Err().(*ValidationError)
}

// Validator collects field problems so that a request reports all of them at once.
// The zero value is ready to use.
type Validator struct {
	fields map[string]string
}

// Add records a problem with field. The first problem recorded for a field wins,
// because later checks usually depend on the earlier ones passing.
func (v *Validator) Add(field, problem string) {
	if v.fields == nil {
		v.fields = make(map[string]string)
	}
	if _, ok := v.fields[field]; !ok {
		v.fields[field] = problem
	}
}

// Has reports whether field already has a problem.
func (v *Validator) Has(field string) bool {
	_, ok := v.fields[field]
	return ok
}

// Merge adds every problem of err (a *ValidationError) under prefix, as in
// "items[2]." + "amount". Other errors are returned unchanged for the caller to handle.
func (v *Validator) Merge(prefix string, err error) error {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	for k, p := range ve.Fields {
		v.Add(prefix+k, p)
	}
	return nil
}

// Err returns nil when nothing was added, else a *ValidationError.
func (v *Validator) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	msg := "Validation failed"
	if len(v.fields) == 1 {
		for k, p := range v.fields {
			msg = fmt.Sprintf("Validation failed: %s %s", k, p)
		}
	}
	return &ValidationError{Message: msg, Fields: v.fields}
}
