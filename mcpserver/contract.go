package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/finance-app/finance/auth"
)

// contract is the OpenAPI document (embed/openapi.yaml) as plain YAML data.
// A tool takes its input schema and its scope from the operation of the route
// it wraps, so a tool cannot drift from the contract its route is tested
// against. Only local references (#/components/...) occur in the document.
//
// The document is read with a YAML parser rather than an OpenAPI library:
// kin-openapi (which the tests use to validate the contract) would add about
// 3 MB to the binary for what is a walk over a few maps.
type contract struct {
	root map[string]any
}

func parseContract(doc []byte) (*contract, error) {
	var root map[string]any
	if err := yaml.Unmarshal(doc, &root); err != nil {
		return nil, fmt.Errorf("parse the OpenAPI contract: %w", err)
	}
	return &contract{root: root}, nil
}

// operation is what a tool needs of a contract operation.
type operation struct {
	access      auth.Requirement
	inputSchema json.RawMessage
	// outputSchema is the schema of the route's success data when that is a
	// JSON object, which the tool returns as structuredContent; nil when the
	// route answers with no data, a list or a scalar.
	outputSchema json.RawMessage
	pathParams   []string        // in path order
	queryParams  map[string]bool // name -> known
	bodyFields   map[string]bool // top-level request body fields
	hasBody      bool
	// page is set for a read answering a page of items ({items,
	// pagination}): a list tool, whose items are compact unless the call
	// asks for detail=full.
	page bool
	// takesIdempotencyKey is set when the operation takes the
	// Idempotency-Key header: the tool then has the idempotencyArg argument.
	takesIdempotencyKey bool
	// files is set for a route that takes multipart/form-data: the body
	// fields that are files (a binary string, or a list of them), which
	// the tool takes as base64 text. Nil for a JSON body.
	files map[string]bool
	// fixedBody is the whole body of a tool that always sends the same one
	// (see withFixedBody); its arguments are the route's parameters only.
	fixedBody map[string]json.RawMessage
	// textFile is the form's file field of a tool that takes the file as
	// text or base64 with a file name (see withTextFile); "" for none.
	textFile string
}

// base64Files rewrites a form field that is a file, or a list of files
// (format: binary), as base64 text, and reports whether it was one.
func base64Files(prop any) bool {
	m, _ := prop.(map[string]any)
	if m == nil {
		return false
	}
	if items, _ := m["items"].(map[string]any); m["type"] == "array" && items != nil {
		return base64Files(items)
	}
	if m["type"] != "string" || m["format"] != "binary" {
		return false
	}
	delete(m, "format")
	m["contentEncoding"] = "base64"
	if d, _ := m["description"].(string); d != "" {
		m["description"] = d + " Base64."
	} else {
		m["description"] = "Base64."
	}
	return true
}

// The tool argument that a route's Idempotency-Key header becomes. It is
// sent as that header of the REST request, never in the body.
const (
	idempotencyHeader = "Idempotency-Key"
	idempotencyArg    = "idempotency_key"
)

// The tool argument of a list tool that asks for its items in full. It is
// the tool's own: the route always answers in full, and the tool leaves out
// of each item what compact leaves out (see compactPage).
const (
	detailArg     = "detail"
	detailCompact = "compact"
	detailFull    = "full"
)

// operation resolves method and path (the contract's form, /api/v1/expenses/{id})
// into the tool's input schema: path parameters, query parameters and the
// top-level fields of the JSON request body, as one object schema, with
// nullable values written as anyOf (see withoutTypeArrays). A list's tool
// takes the detail argument unless its items are always answered whole.
func (c *contract) operation(method, path string, whole bool) (*operation, error) {
	item, ok := dig(c.root, "paths", path).(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the contract has no path %s", path)
	}
	op, ok := item[strings.ToLower(method)].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the contract has no operation %s %s", method, path)
	}
	scope, _ := op["x-scope"].(string)
	access, err := parseRequirement(scope)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}

	out := &operation{access: access, queryParams: map[string]bool{}, bodyFields: map[string]bool{}}
	properties := map[string]any{}
	var required []string
	add := func(name string, schema any) error {
		if _, dup := properties[name]; dup {
			return fmt.Errorf("%s %s: argument %q is both a parameter and a body field", method, path, name)
		}
		properties[name] = schema
		return nil
	}

	// Path-level parameters first, then the operation's (which win on a clash, as in OpenAPI).
	params := map[string]map[string]any{}
	var order []string
	for _, list := range []any{item["parameters"], op["parameters"]} {
		for _, raw := range asList(list) {
			p, err := c.resolveMap(raw)
			if err != nil {
				return nil, err
			}
			if m, _ := raw.(map[string]any); m["$ref"] != nil {
				// A shared parameter (page, dateFrom, the record id)
				// describes itself for every route in the contract; the
				// tool's description says what this route makes of it.
				p = maps.Clone(p)
				delete(p, "description")
			}
			key := fmt.Sprint(p["in"]) + ":" + fmt.Sprint(p["name"])
			if _, seen := params[key]; !seen {
				order = append(order, key)
			}
			params[key] = p
		}
	}
	for _, key := range order {
		p := params[key]
		name, _ := p["name"].(string)
		in, _ := p["in"].(string)
		if in == "header" && name == idempotencyHeader {
			schema, err := c.inline(p["schema"], nil)
			if err != nil {
				return nil, err
			}
			prop, _ := schema.(map[string]any)
			if prop == nil {
				prop = map[string]any{}
			}
			// The instructions state the rule once (safety rule 3); the
			// argument's name says the rest.
			delete(prop, "description")
			delete(prop, "pattern") // visible ASCII: a UUID is; the route names any other
			out.takesIdempotencyKey = true
			if err := add(idempotencyArg, prop); err != nil {
				return nil, err
			}
			continue
		}
		if in != "path" && in != "query" {
			continue // other headers and cookies are the transport's business
		}
		schema, err := c.inline(p["schema"], nil)
		if err != nil {
			return nil, err
		}
		prop, _ := schema.(map[string]any)
		if prop == nil {
			prop = map[string]any{}
		}
		if d, ok := p["description"].(string); ok && d != "" {
			prop["description"] = strings.TrimSpace(d)
		}
		if in == "query" && (name == "page" || name == "limit") {
			// The instructions say once how every list pages, so each
			// list tool's paging arguments carry their type only.
			prop = map[string]any{"type": "integer"}
		}
		if in == "query" && name == "sortOrder" {
			// Every list sorts asc or desc, which the instructions say once.
			prop = map[string]any{"type": "string"}
		}
		if in == "query" && name == "sortBy" {
			// The description says the list's order ("newest first").
			delete(prop, "default")
			if enum, _ := prop["enum"].([]any); len(enum) == 1 {
				continue // one order only: nothing to choose
			}
		}
		if in == "path" {
			prop["type"] = "string"
			out.pathParams = append(out.pathParams, name)
			required = append(required, name)
		} else {
			out.queryParams[name] = true
			if req, _ := p["required"].(bool); req {
				required = append(required, name)
			}
		}
		if err := add(name, prop); err != nil {
			return nil, err
		}
	}
	// Path parameters must be in path order for building the URL.
	slices.SortFunc(out.pathParams, func(a, b string) int {
		return strings.Index(path, "{"+a+"}") - strings.Index(path, "{"+b+"}")
	})

	if op["requestBody"] != nil {
		body, err := c.resolveMap(op["requestBody"])
		if err != nil {
			return nil, err
		}
		raw := dig(body, "content", "application/json", "schema")
		if raw == nil {
			// A route that takes only a form upload: the tool takes each
			// file as base64 text and sends the route its form.
			raw = dig(body, "content", "multipart/form-data", "schema")
			out.files = map[string]bool{}
		}
		schema, err := c.inline(raw, nil)
		if err != nil {
			return nil, err
		}
		obj, _ := schema.(map[string]any)
		fields, _ := obj["properties"].(map[string]any)
		if obj["type"] != "object" || fields == nil {
			return nil, fmt.Errorf("%s %s: the request body is not an object schema with properties", method, path)
		}
		out.hasBody = true
		for name, prop := range fields {
			out.bodyFields[name] = true
			if out.files != nil && base64Files(prop) {
				out.files[name] = true
			}
			if err := add(name, prop); err != nil {
				return nil, err
			}
		}
		for _, r := range asList(obj["required"]) {
			required = append(required, fmt.Sprint(r))
		}
	}

	if out.outputSchema, out.page, err = c.outputSchema(op, method == "GET", whole); err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if out.page && !whole {
		// The instructions say once what compact leaves out. Compact is
		// the default, so the one value worth sending is full (a call
		// naming compact is still answered).
		if err := add(detailArg, map[string]any{"type": "string", "enum": []any{detailFull}}); err != nil {
			return nil, err
		}
	}

	// No additionalProperties: a call naming an argument the tool does not
	// take is answered with the list of those it does (tool.request), in
	// fewer bytes than every schema saying so.
	schema := map[string]any{
		"type":       "object",
		"properties": properties,
	}
	if len(required) > 0 {
		schema["required"] = required
	}
	portable, err := withoutTypeArrays(schema)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if method == "POST" {
		// A create reads null as absent (the default applies), so its
		// arguments are shown without the null a PUT needs to clear a field.
		portable = withoutNull(portable)
	}
	// withoutInstructed runs first: terse drops bounds a description states
	// in words, and an instructed argument's description goes (a card's
	// foreign_fee_percent keeps its 0 to 10 as keywords).
	out.inputSchema, err = json.Marshal(terse(withoutInstructed(lean(portable))))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	return out, nil
}

// successEnvelope is the schema every success response narrows with allOf.
const successEnvelope = "#/components/schemas/SuccessEnvelope"

// outputSchema is the schema of the data of op's success response (200 or
// 201): the part of the envelope's allOf that narrows data. It is nil unless
// that data is an object, since structuredContent is an object and a tool
// with an outputSchema must return structuredContent matching it.
func (c *contract) outputSchema(op map[string]any, read, whole bool) (json.RawMessage, bool, error) {
	data, err := c.successData(op)
	if data == nil || err != nil {
		return nil, false, err
	}
	inlined, err := c.inline(data, nil)
	if err != nil {
		return nil, false, err
	}
	if m, _ := inlined.(map[string]any); !isObjectSchema(m) {
		return nil, false, nil
	}
	// A read answering a page ({items, pagination}) is a list tool.
	page := read && hasProperty(inlined, "pagination") && hasProperty(inlined, "items")
	schema, err := c.outputSchemaOf(data, page, page && !whole)
	if err != nil {
		return nil, false, err
	}
	out, err := json.Marshal(schema)
	return out, page, err
}

// successData is the contract's schema of the data of op's success
// response (200 or 201), as written (references unresolved); nil when the
// route answers no JSON data.
func (c *contract) successData(op map[string]any) (any, error) {
	responses, _ := op["responses"].(map[string]any)
	for _, code := range []string{"200", "201"} {
		raw, ok := responses[code]
		if !ok {
			continue
		}
		resp, err := c.resolveMap(raw)
		if err != nil {
			return nil, err
		}
		body, ok := dig(resp, "content", "application/json", "schema").(map[string]any)
		if !ok {
			return nil, nil
		}
		var data any
		for _, part := range asList(body["allOf"]) {
			if m, _ := part.(map[string]any); m != nil && m["$ref"] == successEnvelope {
				continue
			}
			m, err := c.resolveMap(part)
			if err != nil {
				return nil, err
			}
			if d := dig(m, "properties", "data"); d != nil {
				data = d
			}
		}
		return data, nil
	}
	return nil, nil
}

// hasProperty reports whether an object schema, or a part of its allOf,
// has the property name.
func hasProperty(schema any, name string) bool {
	if dig(schema, "properties", name) != nil {
		return true
	}
	m, _ := schema.(map[string]any)
	return slices.ContainsFunc(asList(m["allOf"]), func(part any) bool { return hasProperty(part, name) })
}

// isObjectSchema reports whether every value schema accepts is a JSON
// object: its type is object, or it is an allOf of such schemas.
func isObjectSchema(schema map[string]any) bool {
	if schema == nil {
		return false
	}
	if schema["type"] == "object" {
		return true
	}
	parts := asList(schema["allOf"])
	if len(parts) == 0 || schema["type"] != nil {
		return false
	}
	for _, p := range parts {
		m, _ := p.(map[string]any)
		if !isObjectSchema(m) {
			return false
		}
	}
	return true
}

// parseRequirement reads an operation's x-scope, whose grammar the contract
// documents and whose agreement with each route's registered requirement the
// server's contract test enforces. Only the forms a tool can wrap are accepted.
func parseRequirement(xScope string) (auth.Requirement, error) {
	isWrite := func(s string) bool {
		return strings.HasSuffix(s, ":write") && slices.Contains(auth.Scopes, auth.Scope(s))
	}
	read, write, either := strings.Cut(xScope, " | ")
	switch {
	case either && read == string(auth.ScopeRead) && isWrite(write):
		return auth.Read(auth.Scope(write)), nil
	case !either && xScope == string(auth.ScopeRead):
		return auth.ReportsRead, nil
	case !either && isWrite(xScope):
		return auth.Write(auth.Scope(xScope)), nil
	}
	return auth.Requirement{}, fmt.Errorf("x-scope %q is not a scope a tool can wrap", xScope)
}

// resolveMap follows a $ref (if any) to the object it names.
func (c *contract) resolveMap(v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected an object, found %T", v)
	}
	for range 10 {
		ref, ok := m["$ref"].(string)
		if !ok {
			return m, nil
		}
		target, err := c.lookup(ref)
		if err != nil {
			return nil, err
		}
		if m, ok = target.(map[string]any); !ok {
			return nil, fmt.Errorf("%s is not an object", ref)
		}
	}
	return nil, fmt.Errorf("too many nested references")
}

// inline returns a copy of v with every $ref replaced by what it names, so
// that each tool's input schema stands alone (models do not follow
// references into a document they never see). Keys beside a $ref (OpenAPI
// 3.1 allows a description there) win over the target's.
//
// The schema is cut to what a model needs to fill the value in: a shared
// definition's own description (Date's, Money's) is written once for people
// reading the contract, and what the value means here is the description at
// the place that uses it, so only that one is kept; examples and comments
// are dropped, and so is a pattern beside a format that says the same
// (date, uuid). expanding guards against cycles, which a JSON value could
// not represent inline.
func (c *contract) inline(v any, expanding []string) (any, error) {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		if ref, ok := v["$ref"].(string); ok {
			if slices.Contains(expanding, ref) {
				return nil, fmt.Errorf("%s refers to itself", ref)
			}
			target, err := c.lookup(ref)
			if err != nil {
				return nil, err
			}
			resolved, err := c.inline(target, append(expanding, ref))
			if err != nil {
				return nil, err
			}
			m, ok := resolved.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s is not a schema object", ref)
			}
			for k, x := range m {
				if k != "description" && k != "title" {
					out[k] = x
				}
			}
		}
		for k, x := range v {
			if k == "$ref" || isPeopleNote(k, x) {
				continue
			}
			y, err := c.inline(x, expanding)
			if err != nil {
				return nil, err
			}
			out[k] = y
		}
		if _, ok := out["format"].(string); ok {
			if _, ok := out["pattern"].(string); ok {
				delete(out, "pattern")
			}
		}
		return out, nil
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			y, err := c.inline(x, expanding)
			if err != nil {
				return nil, err
			}
			out[i] = y
		}
		return out, nil
	}
	return v, nil
}

// isPeopleNote reports whether the member k: x of a schema is one no tool
// input schema carries: examples and comments speak to people reading the
// contract, not to a model filling in a call. The value's type is checked
// too, so that a property of that name (a schema) is kept.
func isPeopleNote(k string, x any) bool {
	switch x.(type) {
	case []any:
		return k == "examples"
	case string:
		return k == "$comment"
	}
	return false
}

// lookup follows a local JSON pointer such as #/components/schemas/Date.
func (c *contract) lookup(ref string) (any, error) {
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, fmt.Errorf("reference %s is not local to the contract", ref)
	}
	keys := strings.Split(path, "/")
	for i, k := range keys {
		keys[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(k)
	}
	v := dig(c.root, keys...)
	if v == nil {
		return nil, fmt.Errorf("reference %s names nothing in the contract", ref)
	}
	return v, nil
}

func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// withFixedBody is op for a tool that always sends body (a JSON object the
// route takes): the body's fields leave the input schema and the arguments,
// so the tool takes only the route's parameters.
func (op *operation) withFixedBody(body string) (*operation, error) {
	var fixed map[string]json.RawMessage
	if err := json.Unmarshal([]byte(body), &fixed); err != nil || !op.hasBody || op.files != nil {
		return nil, fmt.Errorf("fixed body %s: the route must take a JSON object", body)
	}
	for name := range fixed {
		if !op.bodyFields[name] {
			return nil, fmt.Errorf("fixed body %s: %s is not a field of the route's body", body, name)
		}
	}
	out, err := op.withArguments(func(name string) bool { return op.bodyFields[name] }, nil)
	if err != nil {
		return nil, err
	}
	out.bodyFields = map[string]bool{}
	out.fixedBody = fixed
	return out, nil
}

// withArguments is op whose input schema leaves out the arguments drop
// says and takes those of add besides.
func (op *operation) withArguments(drop func(name string) bool, add map[string]any) (*operation, error) {
	var schema map[string]any
	if err := json.Unmarshal(op.inputSchema, &schema); err != nil {
		return nil, err
	}
	props, _ := schema["properties"].(map[string]any)
	for name := range props {
		if drop(name) {
			delete(props, name)
		}
	}
	maps.Copy(props, add)
	required := slices.DeleteFunc(asList(schema["required"]), func(r any) bool { return drop(fmt.Sprint(r)) })
	if len(required) == 0 {
		delete(schema, "required")
	} else {
		schema["required"] = required
	}
	out := *op
	var err error
	out.inputSchema, err = json.Marshal(schema)
	return &out, err
}

// The arguments of a tool that takes a form's file as text (withTextFile).
const (
	fileTextArg   = "text"
	fileBase64Arg = "base64"
	fileNameArg   = "file_name"
)

// withTextFile is op for a tool whose route takes one file in the form field
// field, and whose callers hold it as text (a CSV, an OFX) more often than
// as bytes: the tool takes it as text or as base64, with its file name
// (which the route reads the format from), instead of the field.
func (op *operation) withTextFile(field string) (*operation, error) {
	if !op.files[field] {
		return nil, fmt.Errorf("text file %s: not a file field of the route's form", field)
	}
	out, err := op.withArguments(func(name string) bool { return name == field }, map[string]any{
		fileTextArg:   map[string]any{"type": "string"},
		fileBase64Arg: map[string]any{"type": "string", "contentEncoding": "base64"},
		fileNameArg:   map[string]any{"type": "string", "description": "Its name, e.g. statement.ofx."},
	})
	if err != nil {
		return nil, err
	}
	out.bodyFields = maps.Clone(op.bodyFields)
	delete(out.bodyFields, field)
	out.bodyFields[fileTextArg], out.bodyFields[fileBase64Arg], out.bodyFields[fileNameArg] = true, true, true
	out.files = map[string]bool{}
	out.textFile = field
	return out, nil
}

// withoutSorting is op for a list tool whose list is short and read whole
// (accounts, cards, categories, loans): the tool takes no sortBy or
// sortOrder, which the route still does, and answers in the route's order.
// An agent pays for every argument in each conversation; ordering a list
// of a few records is not worth it.
func (op *operation) withoutSorting() (*operation, error) {
	sorting := func(name string) bool { return name == "sortBy" || name == "sortOrder" }
	out, err := op.withArguments(sorting, nil)
	if err != nil {
		return nil, err
	}
	out.queryParams = maps.Clone(op.queryParams)
	delete(out.queryParams, "sortBy")
	delete(out.queryParams, "sortOrder")
	return out, nil
}

// bulkItems is the argument of a bulk create that lists the records.
const bulkItems = "items"

// withItemsOf is op for a bulk create (create_expenses) whose items
// argument lists the arguments of another tool, one (create_expense), but
// for its idempotency_key, which the bulk call takes once: the items are
// shown as objects and named after that tool, since a model reads both in
// one list and the items repeated every argument of the other. It fails
// unless the items' schema is that tool's word for word, so the name
// stays true when either route changes.
func (op *operation) withItemsOf(other tool) (*operation, error) {
	if other.operation == nil {
		return nil, fmt.Errorf("items of %q: no such tool earlier in the table", other.name)
	}
	var schema, otherSchema struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := errors.Join(json.Unmarshal(op.inputSchema, &schema), json.Unmarshal(other.inputSchema, &otherSchema)); err != nil {
		return nil, err
	}
	items, _ := schema.Properties[bulkItems]["items"].(map[string]any)
	want := map[string]any{"type": "object", "properties": map[string]any{}}
	for name, p := range otherSchema.Properties {
		if name != idempotencyArg {
			want["properties"].(map[string]any)[name] = p
		}
	}
	var otherWhole map[string]any
	if err := json.Unmarshal(other.inputSchema, &otherWhole); err != nil {
		return nil, err
	}
	if r, ok := otherWhole["required"]; ok {
		want["required"] = r
	}
	got, _ := json.Marshal(items)
	wanted, _ := json.Marshal(want)
	if !bytes.Equal(got, wanted) {
		return nil, fmt.Errorf("items are not the arguments of %s:\n%s\n%s", other.name, got, wanted)
	}
	return op.withArguments(func(string) bool { return false }, map[string]any{bulkItems: map[string]any{
		"type": "array", "items": map[string]any{"type": "object"},
		"description": "Each: the arguments of " + other.name + " but idempotency_key.",
	}})
}
