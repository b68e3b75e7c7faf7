package server

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	assets "github.com/finance-app/finance/embed"
)

// The same request (docs/domain.md, "Idempotent writes: the same request").
// A client retrying a write after a lost answer rebuilds the request, and
// an agent's tool call is serialized anew each time: the amount 1 comes
// back as "1.00", members in another order, a form instead of JSON. Those
// are the same write, and must replay its answer instead of being refused
// (a refusal an agent reads as "send it with a new key", which for an
// expense is a second expense). So the fingerprint kept with an answer is
// taken over the request as the route reads it:
//
//   - member order does not matter, at any depth;
//   - a member whose contract schema is a number (an amount, a rate, a
//     count) compares as an exact decimal, whether sent as a JSON number or
//     a numeric string: 1, 1.0 and "1.00" are one amount, parsed as text,
//     never through float64. Integers ignore the blanks the route ignores;
//   - a null member is an absent one (no POST route tells them apart), and
//     an absent member with a constant default in the contract (default:)
//     is that default;
//   - a multipart form is the JSON object it stands for (formAsJSON).
//
// Everything else compares as sent: text keeps its blanks and letter case
// (the route may trim "Lunch " but not an id, and a retry copies text
// rather than respelling it; only its JSON escapes are spelling, "\u0026"
// being "&"), a string that is not a plain decimal stays a
// string, and defaults that depend on today, on other fields or on stored
// records are not filled in (an omitted date is today's on the day it is
// read, so filling it in would make a plain retry after midnight another
// request). The rules only ever join requests the route reads alike: a
// request joined by mistake would get another write's answer, while one
// kept apart by mistake gets IDEMPOTENCY_CONFLICT and is sorted out by
// reading the state.

// normalizedTag starts every fingerprint of a normalized request. The
// fingerprints stored before normalization are the bare 32-byte SHA-256 of
// the request's bytes (fingerprint); they can never equal a tagged one, and
// a key stored with one keeps replaying a request of the same bytes until
// it expires (idempotentRequest.legacy).
const normalizedTag = "n1:"

// sameRequestFingerprint is the fingerprint of the normalized request: its
// method, path, query (in name order) and body, read with shape, the
// route's body schema (nil for a route the contract does not describe,
// whose body compares as JSON in any member order). A body that does not
// read as JSON or as a form (a duplicate member, text that is not UTF-8,
// another content type) is hashed as sent, marked apart: the route refuses
// it anyway, and no normalized body can equal it.
func (s *Server) sameRequestFingerprint(r *http.Request, body []byte, shape *bodyShape) []byte {
	query := r.URL.RawQuery
	if q, err := url.ParseQuery(query); err == nil {
		query = q.Encode()
	}
	form, normalized := "json", []byte(nil)
	if obj, err := s.bodyAsJSON(r, body); err == nil {
		normalized, err = normalizeJSON(obj, shape)
		if err != nil {
			normalized = nil
		}
	}
	if normalized == nil {
		form, normalized = "raw", body
	}
	h := sha256.New()
	for _, part := range []string{r.Method, r.URL.Path, query, form} {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	h.Write(normalized)
	return h.Sum([]byte(normalizedTag))
}

// bodyAsJSON returns the body as the JSON the route reads: as sent, or the
// object a multipart form stands for.
func (s *Server) bodyAsJSON(r *http.Request, body []byte) ([]byte, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return body, nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	switch {
	case err != nil:
		return nil, err
	case mt == "multipart/form-data":
		form := r.Clone(r.Context())
		form.Body = io.NopCloser(bytes.NewReader(body))
		defer func() {
			if form.MultipartForm != nil {
				_ = form.MultipartForm.RemoveAll()
			}
		}()
		return s.formAsJSON(form)
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return body, nil
	}
	return nil, errors.New("not a JSON or form body")
}

// bodyShape is what the fingerprint needs of a request body's schema: which
// values are numbers, and the constant defaults of an object's members.
type bodyShape struct {
	number   numberKind
	members  map[string]*bodyShape
	defaults map[string][]byte // a member's default, normalized
	items    *bodyShape
}

type numberKind int

const (
	notNumber numberKind = iota
	integer              // a count or a day: the route reads "12", " 12 " and 12 alike
	decimal              // an amount or a rate: exact decimals, no blanks
)

// normalizeJSON writes a JSON value in its normalized form (see the top of
// this file): members sorted and nulls dropped, numbers of shape canonical.
// Empty input stays empty. It fails on what the route would refuse without
// reading on: invalid JSON, text that is not UTF-8, a member given twice.
func normalizeJSON(body []byte, shape *bodyShape) ([]byte, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	if !utf8.Valid(body) || !json.Valid(body) {
		return nil, errors.New("not valid JSON")
	}
	var out bytes.Buffer
	if err := normalizeValue(&out, json.RawMessage(bytes.TrimSpace(body)), shape); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func normalizeValue(out *bytes.Buffer, raw json.RawMessage, shape *bodyShape) error {
	if shape == nil {
		shape = &bodyShape{}
	}
	switch raw[0] {
	case '{':
		return normalizeObject(out, raw, shape)
	case '[':
		return normalizeArray(out, raw, shape.items)
	case '"':
		// The text between the quotes, escapes and all, as the routes read
		// an amount: "\u0031" is not the number 1 to them.
		if n, ok := canonicalNumber(string(raw[1:len(raw)-1]), shape.number); ok {
			out.WriteString(n)
			return nil
		}
		text, err := canonicalString(raw)
		if err != nil {
			return err
		}
		out.Write(text)
		return nil
	case 't', 'f', 'n':
	default:
		if n, ok := canonicalNumber(string(raw), shape.number); ok {
			out.WriteString(n)
			return nil
		}
	}
	out.Write(raw) // as sent: a number outside a number field keeps its spelling
	return nil
}

// canonicalString is a JSON string in one spelling: escapes are spelling
// ("\u0026" is "&"), the text itself is compared as sent. An unpaired
// surrogate escape, which decodes to U+FFFD and which the routes refuse,
// is an error rather than a match for a real U+FFFD.
func canonicalString(raw []byte) ([]byte, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if strings.ContainsRune(s, utf8.RuneError) && !bytes.ContainsRune(raw, utf8.RuneError) &&
		!bytes.Contains(bytes.ToLower(raw), []byte(`\ufffd`)) {
		return nil, errors.New("text holds an unpaired surrogate escape")
	}
	return json.Marshal(s)
}

func normalizeObject(out *bytes.Buffer, raw json.RawMessage, shape *bodyShape) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // {
		return err
	}
	members := map[string][]byte{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return err
		}
		if _, dup := members[name]; dup {
			return fmt.Errorf("member %q given twice", name)
		}
		if string(value) == "null" {
			members[name] = nil // absent, but still counted for duplicates
			continue
		}
		var v bytes.Buffer
		if err := normalizeValue(&v, value, shape.members[name]); err != nil {
			return err
		}
		members[name] = v.Bytes()
	}
	for name, d := range shape.defaults {
		if members[name] == nil {
			members[name] = d
		}
	}
	names := make([]string, 0, len(members))
	for name, v := range members {
		if v != nil {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	out.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			out.WriteByte(',')
		}
		key, _ := json.Marshal(name) // the decoded name, in one spelling
		out.Write(key)
		out.WriteByte(':')
		out.Write(members[name])
	}
	out.WriteByte('}')
	return nil
}

func normalizeArray(out *bytes.Buffer, raw json.RawMessage, items *bodyShape) error {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		return err
	}
	out.WriteByte('[')
	for i, e := range elems {
		if i > 0 {
			out.WriteByte(',')
		}
		if err := normalizeValue(out, e, items); err != nil {
			return err
		}
	}
	out.WriteByte(']')
	return nil
}

// canonicalNumber is the one spelling of a number of the given kind: a
// decimal `-?\d+(\.\d+)?` without leading zeros, trailing fractional zeros
// or a negative zero ("01.50" → "1.5", "-0.00" → "0"); an integer also
// without surrounding blanks. It works on the text alone, so no amount
// passes through float64. ok is false for anything else (an exponent, a
// "+", a blank in an amount), which then compares as sent.
func canonicalNumber(s string, kind numberKind) (string, bool) {
	switch kind {
	case notNumber:
		return "", false
	case integer:
		s = strings.TrimSpace(s)
	}
	m := numberText.FindStringSubmatch(s)
	if m == nil || (kind == integer && m[3] != "") {
		return "", false
	}
	n := strings.TrimLeft(m[2], "0")
	if n == "" {
		n = "0"
	}
	if frac := strings.TrimRight(m[3], "0"); frac != "" {
		n += "." + frac
	}
	if m[1] == "-" && n != "0" {
		n = "-" + n
	}
	return n, true
}

// numberText is a plain decimal: sign, whole digits, fraction digits.
var numberText = regexp.MustCompile(`^(-?)([0-9]+)(?:\.([0-9]+))?$`)

// contractDoc is the contract (embed/openapi.yaml) as plain YAML data, read
// once: the routes' body schemas are the one description of which members
// are numbers and which defaults are constant.
var contractDoc = sync.OnceValues(func() (map[string]any, error) {
	var root map[string]any
	if err := yaml.Unmarshal(assets.OpenAPI, &root); err != nil {
		return nil, fmt.Errorf("parse the OpenAPI contract: %w", err)
	}
	return root, nil
})

// requestBodyShape returns the shape of the JSON request body of the
// contract's operation for method and a router path (/api/v1/expenses/:id),
// or nil when the contract has no such operation or it takes no body.
func requestBodyShape(method, routerPath string) (*bodyShape, error) {
	root, err := contractDoc()
	if err != nil {
		return nil, err
	}
	c := schemaReader{root: root}
	op := c.object(c.at(root, "paths", contractPath(routerPath), strings.ToLower(method)))
	body := c.object(op["requestBody"])
	if body == nil {
		return nil, nil
	}
	schema := c.at(body, "content", "application/json", "schema")
	shape, err := c.shape(schema, 0)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, routerPath, err)
	}
	return shape, nil
}

// contractPath turns a router path (/api/v1/expenses/:id) into the
// contract's form (/api/v1/expenses/{id}).
func contractPath(routerPath string) string {
	segs := strings.Split(routerPath, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

// schemaReader walks the contract's schemas, following local references.
type schemaReader struct{ root map[string]any }

// at follows keys from v; nil when one is missing.
func (c schemaReader) at(v any, keys ...string) any {
	for _, k := range keys {
		m := c.object(v)
		if m == nil {
			return nil
		}
		v = m[k]
	}
	return v
}

// object returns v as a map, following a $ref (#/components/...); nil when
// it is none.
func (c schemaReader) object(v any) map[string]any {
	for range 10 {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		ref, isRef := m["$ref"].(string)
		if !isRef {
			return m
		}
		v = c.root
		for _, k := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			next, _ := v.(map[string]any)
			v = next[k]
		}
	}
	return nil
}

// shape reads a schema: a number when its type (or one of its anyOf,
// oneOf or allOf alternatives) is number or integer, an object with the
// shapes and defaults of its properties, an array with its items'.
func (c schemaReader) shape(schema any, depth int) (*bodyShape, error) {
	if depth > 16 {
		return nil, errors.New("schemas nest too deeply")
	}
	m := c.object(schema)
	s := &bodyShape{}
	if m == nil {
		return s, nil
	}
	types, _ := m["type"].([]any)
	if t, ok := m["type"].(string); ok {
		types = []any{t}
	}
	for _, t := range types {
		switch t {
		case "number":
			s.number = decimal
		case "integer":
			s.number = max(s.number, integer)
		}
	}
	for _, combine := range []string{"anyOf", "oneOf", "allOf"} {
		alternatives, _ := m[combine].([]any)
		for _, alt := range alternatives {
			sub, err := c.shape(alt, depth+1)
			if err != nil {
				return nil, err
			}
			s.merge(sub)
		}
	}
	properties, _ := m["properties"].(map[string]any)
	for name, prop := range properties {
		sub, err := c.shape(prop, depth+1)
		if err != nil {
			return nil, err
		}
		if s.members == nil {
			s.members = map[string]*bodyShape{}
		}
		s.members[name] = sub
		// The default sits beside the member's schema (or its $ref).
		if d, has := prop.(map[string]any)["default"]; has && d != nil {
			norm, err := defaultJSON(d, sub)
			if err != nil {
				return nil, fmt.Errorf("the default of %s: %w", name, err)
			}
			if s.defaults == nil {
				s.defaults = map[string][]byte{}
			}
			s.defaults[name] = norm
		}
	}
	if items := m["items"]; items != nil {
		sub, err := c.shape(items, depth+1)
		if err != nil {
			return nil, err
		}
		s.items = sub
	}
	return s, nil
}

// merge joins another alternative of the same value into s.
func (s *bodyShape) merge(o *bodyShape) {
	s.number = max(s.number, o.number)
	for name, m := range o.members {
		if s.members == nil {
			s.members = map[string]*bodyShape{}
		}
		if cur := s.members[name]; cur != nil {
			cur.merge(m)
		} else {
			s.members[name] = m
		}
	}
	for name, d := range o.defaults {
		if s.defaults == nil {
			s.defaults = map[string][]byte{}
		}
		s.defaults[name] = d
	}
	if o.items != nil {
		if s.items == nil {
			s.items = &bodyShape{}
		}
		s.items.merge(o.items)
	}
}

// defaultJSON normalizes a default read from YAML. A fractional default
// must be written as a string ("500.00"): YAML would read a bare 500.00
// as a binary float.
func defaultJSON(d any, shape *bodyShape) ([]byte, error) {
	var raw []byte
	switch v := d.(type) {
	case string:
		raw, _ = json.Marshal(v)
	case int:
		raw = []byte(strconv.Itoa(v))
	case bool:
		raw = []byte(strconv.FormatBool(v))
	default:
		return nil, fmt.Errorf("must be a string, an integer or a boolean, not %T", d)
	}
	return normalizeJSON(raw, shape)
}
