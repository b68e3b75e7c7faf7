package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/queryparam"
)

// checkBody walks a syntactically valid JSON body the way encoding/json
// will read it into a value of type t, and refuses what encoding/json would
// accept without a word:
//
//   - a member name given twice in one object (encoding/json keeps the last);
//   - a member name that matches a field only when letter case is ignored
//     ("Amount" for amount), which encoding/json would read as that field;
//   - text that is not valid UTF-8, raw or as an unpaired \u surrogate
//     escape (encoding/json turns both into U+FFFD);
//   - text holding NUL, which no field of this service means.
//
// Every problem is reported at once, as a VALIDATION_ERROR whose fields are
// the JSON paths of the offending members (items[2].amount). A body that is
// not an object is left to the decoder, which says so.
func checkBody(body []byte, t reflect.Type) error {
	c := bodyChecker{dec: json.NewDecoder(bytes.NewReader(body)), body: body}
	c.dec.UseNumber()
	if first := bytes.TrimLeft(body, " \t\r\n"); len(first) == 0 || first[0] != '{' {
		return nil
	}
	if err := c.value("", t); err != nil {
		// The body is known to be valid JSON, so this is unexpected.
		return httperr.BadRequest("Request body is not valid JSON", nil)
	}
	return c.v.Err()
}

type bodyChecker struct {
	dec  *json.Decoder
	body []byte
	v    finance.Validator
	// end is the input offset after the last token read; the raw text of
	// the next token lies between it and the offset after that token.
	end int64
}

// token reads the next token and, for strings, checks their text against
// the raw bytes they were decoded from.
func (c *bodyChecker) token(path string) (json.Token, error) {
	tok, err := c.dec.Token()
	if err != nil {
		return nil, err
	}
	start, end := c.end, c.dec.InputOffset()
	c.end = end
	if s, ok := tok.(string); ok {
		raw := c.body[start:end]
		raw = raw[bytes.IndexByte(raw, '"'):]
		switch {
		case !utf8.Valid(raw) || unpairedSurrogate(s, raw):
			c.v.Add(fieldName(path), "must be valid UTF-8 text")
		case strings.IndexByte(s, 0) >= 0:
			c.v.Add(fieldName(path), "must not contain NUL characters")
		}
	}
	return tok, nil
}

// unpairedSurrogate reports whether decoding raw (a JSON string) produced
// U+FFFD that raw did not spell, which is what encoding/json does with an
// escaped surrogate that has no partner ("\ud800").
func unpairedSurrogate(decoded string, raw []byte) bool {
	if !strings.ContainsRune(decoded, utf8.RuneError) {
		return false
	}
	lower := bytes.ToLower(raw)
	return strings.Count(decoded, string(utf8.RuneError)) >
		bytes.Count(raw, []byte(string(utf8.RuneError)))+bytes.Count(lower, []byte(`\ufffd`))
}

// value reads one value at path, which is read into t (nil: ignored, or
// read by a custom decoder whose members are not fields).
func (c *bodyChecker) value(path string, t reflect.Type) error {
	tok, err := c.token(path)
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		return c.object(path, t)
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; c.dec.More(); i++ {
			if err := c.value(path+"["+strconv.Itoa(i)+"]", elem); err != nil {
				return err
			}
		}
		_, err = c.token(path)
		return err
	}
	return nil
}

func (c *bodyChecker) object(path string, t reflect.Type) error {
	fields := structFields(t)
	seen := map[string]bool{}
	for c.dec.More() {
		tok, err := c.token(path)
		if err != nil {
			return err
		}
		name, _ := tok.(string)
		member := name
		if path != "" {
			member = path + "." + name
		}
		if seen[name] {
			c.v.Add(fieldName(member), "appears more than once")
		}
		seen[name] = true
		ft, known := fields.exact[name]
		if !known {
			if want, ok := fields.folded[strings.ToLower(name)]; ok {
				c.v.Add(fieldName(member), "is not a field: names are case-sensitive, use "+want)
			}
		}
		if err := c.value(member, ft); err != nil {
			return err
		}
	}
	_, err := c.token(path)
	return err
}

// fieldName is how a member path is named in error.fields: as it is when
// it is plain, else as "body" (see queryparam.PlainName).
func fieldName(path string) string {
	if !queryparam.PlainName(path) {
		return "body"
	}
	return path
}

// jsonFields are the members a struct type reads: by exact name with their
// types, and by lowercased name with their exact name.
type jsonFields struct {
	exact  map[string]reflect.Type
	folded map[string]string
}

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	fieldsByType    sync.Map // reflect.Type -> jsonFields
)

// structFields lists the JSON members of t as encoding/json matches them. A
// type with its own UnmarshalJSON (finance.Field, Money, Date) reads its
// value itself, so its inner members, if any, are not fields.
func structFields(t reflect.Type) jsonFields {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(unmarshalerType) {
		return jsonFields{}
	}
	if f, ok := fieldsByType.Load(t); ok {
		return f.(jsonFields)
	}
	f := jsonFields{exact: map[string]reflect.Type{}, folded: map[string]string{}}
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		f.exact[name] = sf.Type
		f.folded[strings.ToLower(name)] = name
	}
	fieldsByType.Store(t, f)
	return f
}
