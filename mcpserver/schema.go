package mcpserver

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// The contract writes a nullable value the JSON Schema 2020-12 way, with a
// type array: {"type": ["string", "null"]}. MCP allows any 2020-12 schema
// (the specification's "JSON Schema Usage"), but not every client and model
// API does: Gemini's function declarations take a single type and refuse a
// list ("Proto field is not repeating, cannot start list"), and client-side
// converters have assumed type is a single string (microsoft/vscode#328010).
// The same value written as {"anyOf": [{"type": "string"}, {"type": "null"}]}
// is accepted there, and it is what the most common MCP servers emit
// (Pydantic writes Optional fields this way), so tool input schemas carry no
// type arrays.
//
// Each type of the array becomes one branch holding the keywords that apply
// to it (limits, pattern, format, enum values of that type), so a branch
// validates what the type array did. description and title stay at the top,
// where clients show them, and are repeated in each non-null branch: some
// converters keep only anyOf and drop its siblings (LiteLLM's Vertex AI
// adapter does, BerriAI/litellm#11195), and the branch keeps the text then.

var (
	// annotations stay beside anyOf; branchCopies are also repeated in each non-null branch.
	annotations  = []string{"description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"}
	branchCopies = []string{"description", "title"}
	// typedKeywords go to the branch of the type they constrain.
	typedKeywords = map[string][]string{
		"string":  {"minLength", "maxLength", "pattern", "contentEncoding", "contentMediaType"},
		"number":  {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
		"integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
		"array":   {"items", "prefixItems", "contains", "minContains", "maxContains", "minItems", "maxItems", "uniqueItems", "unevaluatedItems"},
		"object": {"properties", "patternProperties", "additionalProperties", "required", "propertyNames",
			"minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "unevaluatedProperties"},
	}
	// anyTypeKeywords go to every non-null branch: format applies to a value
	// of any type, and enum and const keep the values of the branch's type.
	anyTypeKeywords = []string{"format", "enum", "const"}
)

// Keywords whose value is a schema, a list of schemas or a map of schemas.
// Only these are walked: enum, const, default and examples hold data, which
// may look like a schema without being one.
var (
	schemaKeywords     = []string{"items", "contains", "additionalProperties", "propertyNames", "not", "if", "then", "else", "unevaluatedItems", "unevaluatedProperties"}
	schemaListKeywords = []string{"prefixItems", "anyOf", "oneOf", "allOf"}
	schemaMapKeywords  = []string{"properties", "patternProperties", "dependentSchemas", "$defs"}
)

// withoutTypeArrays returns schema with every type array rewritten as anyOf.
// A keyword beside a type array that it cannot place on a branch (anyOf,
// $ref, ...) is an error, so a contract change it does not understand fails
// the tests rather than changing what a tool accepts.
func withoutTypeArrays(schema any) (any, error) {
	m, ok := schema.(map[string]any)
	if !ok {
		return schema, nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		var err error
		switch {
		case slices.Contains(schemaKeywords, k):
			v, err = withoutTypeArrays(v)
		case slices.Contains(schemaListKeywords, k):
			if list, ok := v.([]any); ok {
				walked := make([]any, len(list))
				for i, s := range list {
					if walked[i], err = withoutTypeArrays(s); err != nil {
						break
					}
				}
				v = walked
			}
		case slices.Contains(schemaMapKeywords, k):
			if named, ok := v.(map[string]any); ok {
				walked := make(map[string]any, len(named))
				for _, name := range slices.Sorted(maps.Keys(named)) {
					if walked[name], err = withoutTypeArrays(named[name]); err != nil {
						err = fmt.Errorf("%s: %w", name, err)
						break
					}
				}
				v = walked
			}
		}
		if err != nil {
			return nil, err
		}
		out[k] = v
	}
	types, ok := out["type"].([]any)
	if !ok {
		return out, nil
	}
	return splitTypes(out, types)
}

// splitTypes rewrites a schema whose type is a list into one anyOf branch per type.
func splitTypes(m map[string]any, types []any) (any, error) {
	if len(types) == 1 {
		m["type"] = types[0]
		return m, nil
	}
	top := map[string]any{}
	for _, k := range annotations {
		if v, ok := m[k]; ok {
			top[k] = v
		}
	}
	for k := range m {
		if k == "type" || slices.Contains(annotations, k) || slices.Contains(anyTypeKeywords, k) {
			continue
		}
		if !slices.ContainsFunc(types, func(t any) bool { return slices.Contains(typedKeywords[fmt.Sprint(t)], k) }) {
			return nil, fmt.Errorf("keyword %q beside the type list %v cannot be placed on one of its types", k, types)
		}
	}

	var branches []any
	for _, t := range types {
		name, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("type list %v holds a non-string", types)
		}
		branch := map[string]any{"type": name}
		if name != "null" {
			for _, k := range append(slices.Clone(branchCopies), typedKeywords[name]...) {
				if v, ok := m[k]; ok {
					branch[k] = v
				}
			}
			if v, ok := m["format"]; ok {
				branch["format"] = v
			}
		}
		if c, ok := m["const"]; ok {
			if !isJSONType(c, name) {
				continue // this type cannot hold the constant
			}
			if name != "null" {
				branch["const"] = c
			}
		}
		if enum, ok := m["enum"].([]any); ok {
			values := slices.DeleteFunc(slices.Clone(enum), func(v any) bool { return !isJSONType(v, name) })
			if len(values) == 0 {
				continue // no value of the enum has this type
			}
			if name != "null" {
				branch["enum"] = values
			}
		}
		branches = append(branches, branch)
	}
	if len(branches) == 0 {
		return nil, fmt.Errorf("no value of enum or const has a type of the list %v", types)
	}
	top["anyOf"] = branches
	return top, nil
}

// isJSONType reports whether v, as decoded from the contract's YAML, is a
// JSON value of the JSON Schema type name.
func isJSONType(v any, name string) bool {
	switch v := v.(type) {
	case nil:
		return name == "null"
	case bool:
		return name == "boolean"
	case string:
		return name == "string"
	case int, int64, uint64:
		return name == "integer" || name == "number"
	case float64:
		return name == "number" || (name == "integer" && v == math.Trunc(v))
	case []any:
		return name == "array"
	case map[string]any:
		return name == "object"
	}
	return false
}
