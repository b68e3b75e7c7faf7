package finance

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Field is one member of a request body as the client sent it: absent, null,
// a value, or a value that could not be read as T. Decoding a body into a
// request of Fields never fails on a single member, so validation can report
// every problem at once (domain.md §1.1), and PUT can tell "absent" (keep)
// from "null" (clear) for partial updates (§1.2).
type Field[T any] struct {
	Value   T
	Set     bool   // present in the body, possibly null
	Null    bool   // present and null
	problem string // why the value could not be read, e.g. "must be a string"
}

// Of returns a Field holding v, as if the client had sent it.
func Of[T any](v T) Field[T] { return Field[T]{Value: v, Set: true} }

// Has reports whether a usable (non-null, well-formed) value was sent.
func (f Field[T]) Has() bool { return f.Set && !f.Null && f.problem == "" }

// UnmarshalJSON records presence and never fails; a malformed value leaves a problem.
func (f *Field[T]) UnmarshalJSON(b []byte) error {
	f.Set = true
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		f.Null = true
		return nil
	}
	var v T
	err := json.Unmarshal(b, &v)
	if err != nil {
		// Multipart forms carry every value as a string: accept "15" for a
		// number and "true" for a boolean.
		if s, isStr := unquote(b); isStr {
			switch p := any(&v).(type) {
			case *int:
				if n, convErr := strconv.Atoi(strings.TrimSpace(s)); convErr == nil {
					*p, err = n, nil
				}
			case *bool:
				if t, convErr := strconv.ParseBool(s); convErr == nil {
					*p, err = t, nil
				}
			}
		}
	}
	if err != nil {
		f.problem = fieldProblem[T](err)
		return nil
	}
	f.Value = v
	return nil
}

func unquote(b []byte) (string, bool) {
	var s string
	if len(b) == 0 || b[0] != '"' || json.Unmarshal(b, &s) != nil {
		return "", false
	}
	return s, true
}

func fieldProblem[T any](err error) string {
	if p := MoneyProblem(err); p != "" {
		return p
	}
	if p := DateProblem(err); p != "" {
		return p
	}
	var zero T
	switch any(zero).(type) {
	case string:
		return "must be a string"
	case int:
		return "must be an integer"
	case bool:
		return "must be a boolean"
	case []string:
		return "must be an array of strings"
	}
	if p, ok := err.(interface{ FieldProblem() string }); ok {
		return p.FieldProblem()
	}
	var typ *json.UnmarshalTypeError
	if t := reflect.TypeOf(zero); t != nil && t.Kind() == reflect.Slice && errors.As(err, &typ) {
		if typ.Type == t {
			return "must be an array"
		}
		return "must be an array of objects" // a list of request members (budget thresholds)
	}
	return "has an invalid value"
}

// MarshalJSON writes the value, or null when absent or null.
func (f Field[T]) MarshalJSON() ([]byte, error) {
	if !f.Set || f.Null {
		return []byte("null"), nil
	}
	return json.Marshal(f.Value)
}

// Text length limits of domain.md §1.2.
const (
	MaxName        = 100
	MaxDescription = 255
	MaxNotes       = 1000
	MaxReason      = 255
)

// Check helpers. Each reads one Field, records at most one problem under
// name, and returns the usable value. "Required" means present, non-null and
// (for text) non-empty after trimming.

// RequiredText trims the value; empty counts as missing.
func (v *Validator) RequiredText(name string, f Field[string], maxLen int) string {
	if !v.readable(name, f) {
		return ""
	}
	s := strings.TrimSpace(f.Value)
	if !f.Set || f.Null || s == "" {
		v.Add(name, "is required")
		return ""
	}
	return v.Text(name, s, maxLen)
}

// OptionalText returns nil when absent, and a pointer to the trimmed text
// otherwise; null and empty text both clear (nil with set=true).
func (v *Validator) OptionalText(name string, f Field[string], maxLen int) (val *string) {
	if !v.readable(name, f) || !f.Set || f.Null {
		return nil
	}
	s := strings.TrimSpace(f.Value)
	if s == "" {
		return nil
	}
	s = v.Text(name, s, maxLen)
	return &s
}

// Text checks text already trimmed: PlainText, and at most maxLen
// characters. Every text a person or agent names things with passes here,
// whichever door it came in by (the API, a page, the command line).
func (v *Validator) Text(name, s string, maxLen int) string {
	switch {
	case !PlainText(s):
		v.Add(name, ProblemText)
	case utf8.RuneCountInString(s) > maxLen:
		v.Add(name, "must be at most "+strconv.Itoa(maxLen)+" characters")
	}
	return s
}

// ProblemText is what text that is not PlainText is told.
const ProblemText = "must be UTF-8 text without NUL characters"

// PlainText reports whether s is valid UTF-8 without NUL: no field of this
// service means anything else, and the store refuses NUL in text.
func PlainText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// RequiredMoney requires a positive amount.
func (v *Validator) RequiredMoney(name string, f Field[Money]) Money {
	if !v.readable(name, f) {
		return 0
	}
	if !f.Set || f.Null {
		v.Add(name, "is required")
		return 0
	}
	return v.PositiveMoney(name, f.Value)
}

// PositiveMoney checks m > 0.
func (v *Validator) PositiveMoney(name string, m Money) Money {
	if m <= 0 {
		v.Add(name, "must be greater than 0")
	}
	return m
}

// RequiredDate requires a date.
func (v *Validator) RequiredDate(name string, f Field[Date]) Date {
	if !v.readable(name, f) {
		return Date{}
	}
	if !f.Set || f.Null {
		v.Add(name, "is required")
		return Date{}
	}
	return f.Value
}

// readable records a decoding problem and reports whether the field is usable.
func (v *Validator) readable(name string, f interface{ decodeProblem() string }) bool {
	if p := f.decodeProblem(); p != "" {
		v.Add(name, p)
		return false
	}
	return true
}

func (f Field[T]) decodeProblem() string { return f.problem }

// Readable records f's decoding problem, if any, and reports whether f holds
// a usable value (present, not null, well-formed).
func Readable[T any](v *Validator, name string, f Field[T]) bool {
	return v.readable(name, f) && f.Set && !f.Null
}
