package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A tool's output schema is the contract's schema of its route's data, cut
// to its structure: the types, the properties, which are required, and
// nullability, so a client that checks each result against it checks
// exactly the shape the route answers. What the contract adds for people
// (descriptions, examples) and the rules of values the server already
// enforces (formats, patterns, bounds, and the values of an enum, which
// becomes the type of its values) stay in the contract: a client has
// nothing to do with them, and every tools/list would carry them again.
// The enums a model chooses from are in the input schemas.
//
// A definition the schema uses more than once (a statement inside a
// payment's reply and in its list of lines, a card row in every line) is
// written once under $defs and referred to with a local $ref, which the
// clients' validators resolve (the TypeScript SDK's Ajv, the Go SDK's
// jsonschema). A definition that is shorter than a reference to it (Money
// is {"type": "number"}) is written in place.

// outputKeywords are the keywords an output schema keeps.
var outputKeywords = []string{"type", "properties", "required", "items", "additionalProperties", "enum", "const",
	"anyOf", "oneOf", "allOf", "prefixItems", "$ref"}

// schemaPrefix is where the contract keeps its shared definitions.
const schemaPrefix = "#/components/schemas/"

// outputBuilder builds one tool's output schema.
type outputBuilder struct {
	c *contract
	// uses counts how often the data's schema, expanded, names each definition.
	uses map[string]int
	defs map[string]any
}

// outputSchemaOf builds the output schema of data, the contract's schema of
// a route's success data (an object); page says it is a page of a list tool
// ({items, pagination}), and compact that its items are compact.
func (c *contract) outputSchemaOf(data any, page, compact bool) (map[string]any, error) {
	b := &outputBuilder{c: c, uses: map[string]int{}, defs: map[string]any{}}
	if err := b.count(data, nil); err != nil {
		return nil, err
	}
	built, err := b.build(data, nil, true)
	if err != nil {
		return nil, err
	}
	root, _ := built.(map[string]any)
	if root == nil {
		return nil, fmt.Errorf("the output schema is not an object schema")
	}
	// MCP requires "type": "object" at the root of an output schema, also
	// where the contract composes the object with allOf.
	root["type"] = "object"
	if page {
		sharedPagination(root)
	}
	if compact {
		compactItems(root, b.defs)
	}
	pruneDefs(root, b.defs)
	if len(b.defs) > 0 {
		root["$defs"] = b.defs
	}
	enumsAsTypes(root)
	return root, nil
}

// enumsAsTypes writes every enum of an output schema as the JSON type of
// its values ({"enum": ["a", "b", null]} is {"type": ["string", "null"]}).
// It runs last, since a compact item leaves out its nullable enums.
func enumsAsTypes(v any) {
	switch v := v.(type) {
	case map[string]any:
		if enum, ok := v["enum"].([]any); ok {
			if v["type"] == nil {
				var types []any
				for _, e := range enum {
					for _, t := range []string{"null", "boolean", "string", "integer", "number"} {
						if isJSONType(e, t) {
							if !slices.Contains(types, any(t)) {
								types = append(types, t)
							}
							break
						}
					}
				}
				if len(types) == 1 {
					v["type"] = types[0]
				} else {
					v["type"] = types
				}
			}
			delete(v, "enum")
		}
		for _, x := range v {
			enumsAsTypes(x)
		}
	case []any:
		for _, x := range v {
			enumsAsTypes(x)
		}
	}
}

// sharedPagination writes a page's pagination as the object it is and no
// more: every list answers the same four counts, which the instructions name
// once, and a list tool's output schema would otherwise repeat them (about
// 200 bytes) in each of some twenty tools. The page still requires it.
func sharedPagination(root map[string]any) {
	if props, _ := root["properties"].(map[string]any); props != nil && props["pagination"] != nil {
		props["pagination"] = map[string]any{"type": "object"}
	}
}

// pruneDefs removes the definitions nothing refers to any more (the
// nested members a compact item leaves out may have been their only use).
func pruneDefs(root, defs map[string]any) {
	for {
		used := map[string]bool{}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case map[string]any:
				if ref, ok := v["$ref"].(string); ok {
					used[strings.TrimPrefix(ref, "#/$defs/")] = true
				}
				for _, x := range v {
					walk(x)
				}
			case []any:
				for _, x := range v {
					walk(x)
				}
			}
		}
		walk(root)
		for name, def := range defs {
			if used[name] {
				walk(def)
			}
		}
		removed := false
		for name := range defs {
			if !used[name] {
				delete(defs, name)
				removed = true
			}
		}
		if !removed {
			return
		}
	}
}

// count walks v with every reference expanded and counts the definitions it names.
func (b *outputBuilder) count(v any, expanding []string) error {
	switch v := v.(type) {
	case map[string]any:
		if ref, ok := v["$ref"].(string); ok {
			if slices.Contains(expanding, ref) {
				return fmt.Errorf("%s refers to itself", ref)
			}
			b.uses[ref]++
			target, err := b.c.lookup(ref)
			if err != nil {
				return err
			}
			if err := b.count(target, append(expanding, ref)); err != nil {
				return err
			}
		}
		for k, x := range v {
			if k != "$ref" {
				if err := b.count(x, expanding); err != nil {
					return err
				}
			}
		}
	case []any:
		for _, x := range v {
			if err := b.count(x, expanding); err != nil {
				return err
			}
		}
	}
	return nil
}

// build returns the output form of the schema v. root is set for the
// data's own schema, which is always written in place.
func (b *outputBuilder) build(v any, expanding []string, root bool) (any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil
	}
	out := map[string]any{}
	if ref, ok := m["$ref"].(string); ok {
		name, shared := strings.CutPrefix(ref, schemaPrefix)
		if _, built := b.defs[name]; built && shared && !root && !onlyStructure(m) {
			return map[string]any{"$ref": "#/$defs/" + name}, nil
		}
		target, err := b.c.lookup(ref)
		if err != nil {
			return nil, err
		}
		built, err := b.build(target, append(expanding, ref), false)
		if err != nil {
			return nil, err
		}
		def, ok := built.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s is not a schema object", ref)
		}
		pointer := map[string]any{"$ref": "#/$defs/" + name}
		if !root && shared && b.uses[ref] > 1 && !onlyStructure(m) && jsonLen(def) > jsonLen(pointer) {
			b.defs[name] = def
			return pointer, nil
		}
		maps.Copy(out, def)
	}
	for k, x := range m {
		if k == "$ref" || !slices.Contains(outputKeywords, k) {
			continue
		}
		var err error
		switch k {
		case "properties":
			props, _ := x.(map[string]any)
			built := make(map[string]any, len(props))
			for name, p := range props {
				if built[name], err = b.build(p, expanding, false); err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
			}
			out[k] = built
		case "anyOf", "oneOf", "allOf", "prefixItems":
			list := asList(x)
			built := make([]any, len(list))
			for i, p := range list {
				if built[i], err = b.build(p, expanding, false); err != nil {
					return nil, err
				}
			}
			out[k] = built
		case "items", "additionalProperties":
			if out[k], err = b.build(x, expanding, false); err != nil {
				return nil, err
			}
		default:
			out[k] = x
		}
	}
	return nullableEnum(enumWithoutType(typeList(mergeAllOf(out)))), nil
}

// nullableEnum writes an anyOf of an enum and null ({"anyOf": [{"enum":
// ["a", "b"]}, {"type": "null"}]}) as the one enum it means ({"enum": ["a",
// "b", null]}), as the contract writes some nullable enums already.
func nullableEnum(m map[string]any) map[string]any {
	branches := asList(m["anyOf"])
	if len(branches) != 2 {
		return m
	}
	var values []any
	null := false
	for _, b := range branches {
		branch, _ := b.(map[string]any)
		switch {
		case len(branch) == 1 && branch["type"] == "null":
			null = true
		case len(branch) == 1 && branch["enum"] != nil:
			values = asList(branch["enum"])
		}
	}
	if !null || values == nil {
		return m
	}
	out := maps.Clone(m)
	delete(out, "anyOf")
	out["enum"] = append(slices.Clone(values), nil)
	return out
}

// enumWithoutType drops the type beside an enum whose values are all of
// that type (or types): the enum alone accepts exactly the same values.
func enumWithoutType(m map[string]any) map[string]any {
	enum := asList(m["enum"])
	types := typesOf(m)
	if len(enum) == 0 || len(types) == 0 {
		return m
	}
	for _, v := range enum {
		if !slices.ContainsFunc(types, func(t string) bool { return isJSONType(v, t) }) {
			return m
		}
	}
	out := maps.Clone(m)
	delete(out, "type")
	return out
}

// typeList writes an anyOf of bare types ({"anyOf": [{"type": "string"},
// {"type": "null"}]}) as the type list it means ({"type": ["string",
// "null"]}). Unlike input schemas, which models read and some model APIs
// refuse a type list in (see withoutTypeArrays), output schemas are read by
// validators, and a type list is plain JSON Schema to every one of them.
func typeList(m map[string]any) map[string]any {
	branches := asList(m["anyOf"])
	if len(branches) < 2 || m["type"] != nil {
		return m
	}
	var types []any
	for _, b := range branches {
		branch, _ := b.(map[string]any)
		t, ok := branch["type"].(string)
		if !ok || len(branch) != 1 {
			return m
		}
		types = append(types, t)
	}
	out := maps.Clone(m)
	delete(out, "anyOf")
	out["type"] = types
	return out
}

// onlyStructure reports whether a $ref node carries keywords of its own
// beside the reference that the output keeps; such a node is written in
// place, with its keywords over the definition's.
func onlyStructure(m map[string]any) bool {
	for k := range m {
		if k != "$ref" && slices.Contains(outputKeywords, k) {
			return true
		}
	}
	return false
}

// mergeAllOf writes an allOf of plain object schemas (the contract's way of
// extending one: a statement and its lines) as the one object they
// describe. It leaves alone an allOf whose parts carry other keywords or
// refer to a definition.
func mergeAllOf(m map[string]any) map[string]any {
	parts := asList(m["allOf"])
	if len(parts) == 0 {
		return m
	}
	props := map[string]any{}
	var required []any
	// add takes in one object schema's properties and required names.
	add := func(part map[string]any) bool {
		partProps, _ := part["properties"].(map[string]any)
		for name, s := range partProps {
			merged, ok := narrow(props[name], s)
			if !ok {
				return false
			}
			props[name] = merged
		}
		for _, r := range asList(part["required"]) {
			if !slices.Contains(required, r) {
				required = append(required, r)
			}
		}
		return true
	}
	for _, p := range parts {
		part, _ := p.(map[string]any)
		for k := range part {
			if k != "type" && k != "properties" && k != "required" {
				return m
			}
		}
		if t, ok := part["type"]; ok && t != "object" {
			return m
		}
		if !add(part) {
			return m
		}
	}
	out := maps.Clone(m)
	delete(out, "allOf")
	if t, ok := out["type"]; ok && t != "object" {
		return m
	}
	if !add(out) {
		return m
	}
	out["type"] = "object"
	out["properties"] = props
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// narrow writes two schemas that must both hold (a property of two allOf
// parts: ListData's {"type": "array"} items and a list's {"type": "array",
// "items": ...}) as one, when each keyword is in only one of them or has
// the same value in both; ok is false otherwise.
func narrow(a, b any) (any, bool) {
	if a == nil {
		return b, true
	}
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if !okA || !okB {
		return nil, false
	}
	out := maps.Clone(ma)
	for k, v := range mb {
		if have, ok := out[k]; ok && !jsonEqual(have, v) {
			return nil, false
		}
		out[k] = v
	}
	return out, true
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func jsonLen(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}

// The compact items of a list tool (see compactPage) leave out their null
// members, their nested lists and objects and their timestamps, so the
// items' schema describes what a compact item holds: it does not require a
// member that may be null, and it leaves out the members a compact item
// never carries (nested lists and objects, timestamps), which detail=full
// adds as the record's own read tool describes them. A full item matches it
// too: the schema does not close the object.
func compactItems(root map[string]any, defs map[string]any) {
	items, _ := dig(root, "properties", "items").(map[string]any)
	if items == nil {
		return
	}
	item, _ := items["items"].(map[string]any)
	if ref, ok := item["$ref"].(string); ok {
		// A definition of its own, shared with the rest of the schema:
		// the items get a compact copy.
		def, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		item = deepClone(def)
	}
	if item == nil {
		return
	}
	compactItem(item, defs)
	items["items"] = item
}

func compactItem(s map[string]any, defs map[string]any) {
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		if m, _ := p.(map[string]any); slices.Contains(bookkeeping, name) || neverScalar(m, defs) {
			delete(props, name)
		}
	}
	if req := asList(s["required"]); req != nil {
		kept := slices.DeleteFunc(slices.Clone(req), func(name any) bool {
			p, _ := props[fmt.Sprint(name)].(map[string]any)
			return p == nil || compactDrops(p, defs)
		})
		if len(kept) == 0 {
			delete(s, "required")
		} else {
			s["required"] = kept
		}
	}
	for _, part := range asList(s["allOf"]) {
		if m, ok := part.(map[string]any); ok {
			compactItem(m, defs)
		}
	}
}

// neverScalar reports whether every value of schema s is a list, an object
// or null: a member a compact item never carries.
func neverScalar(s map[string]any, defs map[string]any) bool {
	if ref, ok := s["$ref"].(string); ok {
		def, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		return def != nil && neverScalar(def, defs)
	}
	if s["properties"] != nil || s["items"] != nil {
		if types := typesOf(s); len(types) == 0 {
			return true
		}
	}
	types := typesOf(s)
	if len(types) == 0 {
		for _, key := range []string{"anyOf", "oneOf"} {
			if branches := asList(s[key]); len(branches) > 0 {
				return !slices.ContainsFunc(branches, func(b any) bool {
					m, _ := b.(map[string]any)
					return !neverScalar(m, defs)
				})
			}
		}
		return false
	}
	return !slices.ContainsFunc(types, func(t string) bool { return t != "null" && t != "array" && t != "object" })
}

// compactDrops reports whether a value of schema s may be left out of a
// compact item: it may be null, a list or an object.
func compactDrops(s map[string]any, defs map[string]any) bool {
	if ref, ok := s["$ref"].(string); ok {
		def, _ := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
		return def == nil || compactDrops(def, defs)
	}
	for _, t := range typesOf(s) {
		if t == "null" || t == "array" || t == "object" {
			return true
		}
	}
	if slices.Contains(asList(s["enum"]), nil) {
		return true // a nullable enum, written without its type
	}
	if s["properties"] != nil || s["items"] != nil {
		return true
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		for _, b := range asList(s[key]) {
			if m, ok := b.(map[string]any); ok && compactDrops(m, defs) {
				return true
			}
		}
	}
	return false
}

func typesOf(s map[string]any) []string {
	switch t := s["type"].(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, len(t))
		for i, x := range t {
			out[i] = fmt.Sprint(x)
		}
		return out
	}
	return nil
}

func deepClone(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}

// compactPage returns a page's data ({items, pagination, ...}) with each
// item cut to its compact shape: without its null members (absent means
// null), its nested lists and objects (a loan instance's payments, an
// expense's split parts) and its created_at and updated_at, which the
// tool's detail=full or the record's own read tool shows. Members keep their order and their bytes,
// so amounts stay exactly as the route wrote them. Data that is not such a
// page is returned as it is.
func compactPage(data []byte) []byte {
	page, ok := members(data)
	if !ok {
		return data
	}
	for i, m := range page {
		if m.name != "items" {
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(m.value, &items) != nil {
			return data
		}
		var b bytes.Buffer
		b.WriteByte('[')
		for j, item := range items {
			fields, ok := members(item)
			if !ok {
				return data
			}
			fields = slices.DeleteFunc(fields, func(f member) bool {
				v := bytes.TrimSpace(f.value)
				return slices.Contains(bookkeeping, f.name) || bytes.Equal(v, []byte("null")) || v[0] == '{' || v[0] == '['
			})
			if j > 0 {
				b.WriteByte(',')
			}
			b.Write(object(fields))
		}
		b.WriteByte(']')
		page[i].value = b.Bytes()
	}
	return object(page)
}

// bookkeeping are the members of every record that say when it was
// written: a compact item leaves them out.
var bookkeeping = []string{"created_at", "updated_at"}

// A member is one name and value of a JSON object, in the object's order.
type member struct {
	name  string
	value json.RawMessage
}

// members reads a JSON object's members in order; ok is false for any
// other value.
func members(obj []byte) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		name, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil || len(value) == 0 {
			return nil, false
		}
		out = append(out, member{name: name, value: value})
	}
	return out, true
}

// object writes members as a JSON object.
func object(ms []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		name, _ := json.Marshal(m.name)
		b.Write(name)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}
