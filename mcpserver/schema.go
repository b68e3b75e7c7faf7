package mcpserver

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
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
// where clients show them. The title is repeated in each non-null branch;
// the description is not: some converters keep only anyOf and drop its
// siblings (LiteLLM's Vertex AI adapter does, BerriAI/litellm#11195), but a
// copy in every branch doubled the text of each nullable field in a list of
// tools that every conversation pays for.

var (
	// annotations stay beside anyOf; branchCopies are also repeated in each non-null branch.
	annotations  = []string{"description", "title", "default", "examples", "deprecated", "readOnly", "writeOnly", "$comment"}
	branchCopies = []string{"title"}
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

// lean shortens an input schema for the model that reads it (every tool's
// input schema is part of each conversation's context) without changing
// what a call may carry in the values it advertises:
//
//   - A string branch with a pattern beside a branch of another kind (an
//     amount as "12.50" beside the number, a payment method in any letter
//     case beside the exact names) is an alternative spelling the route
//     also accepts; the model is shown the canonical one only.
//   - A branch of anyOf or oneOf left alone is merged into its parent.
//   - A branch repeating its parent's description loses the copy.
func lean(schema any) any {
	switch s := schema.(type) {
	case []any:
		out := make([]any, len(s))
		for i, v := range s {
			out[i] = lean(v)
		}
		return out
	case map[string]any:
		out := withSubschemas(s, lean)
		for _, k := range []string{"oneOf", "anyOf"} {
			branches, ok := out[k].([]any)
			if !ok {
				continue
			}
			canonical := slices.ContainsFunc(branches, func(b any) bool {
				m, _ := b.(map[string]any)
				return m["type"] != "null" && !alternativeSpelling(m)
			})
			if canonical && len(branches) > 1 {
				branches = slices.DeleteFunc(slices.Clone(branches), func(b any) bool {
					m, _ := b.(map[string]any)
					return alternativeSpelling(m)
				})
			}
			for _, b := range branches {
				if m, _ := b.(map[string]any); m != nil && m["description"] == out["description"] {
					delete(m, "description")
				}
			}
			if len(branches) == 1 {
				delete(out, k)
				for bk, bv := range branches[0].(map[string]any) {
					if _, clash := out[bk]; !clash {
						out[bk] = bv
					}
				}
				continue
			}
			out[k] = branches
		}
		return out
	}
	return schema
}

// withoutNull removes the null branches of anyOf and oneOf (as
// withoutTypeArrays writes a nullable value) and null from enums; lean then
// merges a branch left alone into its parent.
func withoutNull(schema any) any {
	switch s := schema.(type) {
	case []any:
		out := make([]any, 0, len(s))
		for _, v := range s {
			if m, _ := v.(map[string]any); len(m) == 1 && m["type"] == "null" {
				continue
			}
			out = append(out, withoutNull(v))
		}
		return out
	case map[string]any:
		out := withSubschemas(s, withoutNull)
		if enum, ok := out["enum"].([]any); ok {
			out["enum"] = slices.DeleteFunc(slices.Clone(enum), func(e any) bool { return e == nil })
		}
		return out
	}
	return schema
}

// withSubschemas returns a copy of the schema m with f applied to each
// schema it holds (under items, anyOf, properties, ...); its other
// keywords are copied as they are.
func withSubschemas(m map[string]any, f func(any) any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch {
		case slices.Contains(schemaKeywords, k), slices.Contains(schemaListKeywords, k):
			out[k] = f(v)
		case slices.Contains(schemaMapKeywords, k):
			named, _ := v.(map[string]any)
			walked := make(map[string]any, len(named))
			for name, sub := range named {
				walked[name] = f(sub)
			}
			out[k] = walked
		default:
			out[k] = v
		}
	}
	return out
}

// alternativeSpelling reports whether a branch is a string with a pattern
// and nothing more: a value written as text that another branch states.
func alternativeSpelling(m map[string]any) bool {
	if m["type"] != "string" || m["pattern"] == nil {
		return false
	}
	for k := range m {
		if k != "type" && k != "pattern" && k != "description" {
			return false
		}
	}
	return true
}

// lengthNote is a description, or its first clause, that only states a
// string's length: "At most 255 characters after trimming", "1 to 100
// characters after trimming".
var lengthNote = regexp.MustCompile(`^(At most \d+|\d+ to \d+) characters( after trimming)?(\.$|; )`)

// uniqueNote is a description that only states a name's uniqueness, which
// the route checks and answers with a conflict naming the field.
var uniqueNote = regexp.MustCompile(`^Unique among [^,]+, case-insensitively\.$`)

// positiveNote is a description, or its first clause, that states that an
// amount, a limit or a principal is greater than 0, which the instructions
// state once for every amount not described as signed.
var positiveNote = regexp.MustCompile(`^Greater than 0(\.$|; )`)

// instructedNotes are descriptions that only repeat a rule the instructions
// state once for every tool: the account or card each payment method needs
// (safety rule 5), that a category argument names an active category,
// what null means for an optional field, how a currency is written, and
// that a payment's or balance adjustment's date defaults to today.
var instructedNotes = []string{
	"Account Debit only: an active account.",
	"Credit Card only: an active card.",
	"An active expense category's name.",
	"The name of an active expense category.",
	"An active income category's name.",
	"`null` or `\"\"` clears it.",
	"`null` or `\"\"` for none.",
	"ISO 4217, any case.",
	"Defaults to today.",
	"Null clears it.",
	"Null clears them.",
}

// boundsNote finds the bounds a description states in words ("The number
// of monthly installments, 2 to 60.").
var boundsNote = regexp.MustCompile(`\b(\d+) to (\d+)\b`)

// withoutRepeatedKeywords removes from the schema s the keywords its
// description already states in words: a default ("defaults to 3", "`none`
// (the default)") and bounds ("1 to 360"). The description is what a model
// reads; the keyword would say it twice.
func withoutRepeatedKeywords(s map[string]any) {
	d, _ := s["description"].(string)
	if d == "" {
		return
	}
	if _, ok := s["default"]; ok && strings.Contains(strings.ToLower(d), "default") {
		delete(s, "default")
	}
	for _, m := range boundsNote.FindAllStringSubmatch(d, -1) {
		if fmt.Sprint(s["minimum"]) == m[1] && fmt.Sprint(s["maximum"]) == m[2] {
			delete(s, "minimum")
			delete(s, "maximum")
		}
	}
}

// terse cuts from an input schema what the route checks and a model
// needs not read to fill the value in: the length limits of strings (a
// name, a note; the route answers a 400 naming the field past them), the
// descriptions, or their first clauses, that only state those limits, and
// those that only state that a name is unique, and what the instructions
// state once: the date and month formats, that a day of the month is 1 to
// 31, that an amount is greater than 0, and the instructedNotes; and a
// default or bounds that the value's description states in words.
// What a value means, its type, enum, format and other bounds of numbers stay.
func terse(schema any) any {
	switch s := schema.(type) {
	case []any:
		for i, v := range s {
			s[i] = terse(v)
		}
	case map[string]any:
		withoutRepeatedKeywords(s)
		for k, v := range s {
			switch {
			case k == "minLength" || k == "maxLength":
				delete(s, k)
			case k == "format" && v == "date", k == "pattern" && v == monthPattern:
				// The instructions say once that dates are YYYY-MM-DD and
				// months YYYY-MM, and every such argument is named for one.
				delete(s, k)
			case k == "description":
				d, _ := v.(string)
				for _, note := range []*regexp.Regexp{lengthNote, positiveNote} {
					if loc := note.FindStringIndex(d); loc != nil {
						if d = d[loc[1]:]; d != "" {
							d = strings.ToUpper(d[:1]) + d[1:]
						}
					}
				}
				if d == "" || uniqueNote.MatchString(d) || slices.Contains(instructedNotes, d) {
					delete(s, k)
				} else {
					s[k] = d
				}
			case slices.Contains(schemaKeywords, k), slices.Contains(schemaListKeywords, k):
				s[k] = terse(v)
			case slices.Contains(schemaMapKeywords, k):
				named, _ := v.(map[string]any)
				for name, sub := range named {
					if k == "properties" && strings.HasSuffix(name, "_day") {
						withoutDayBounds(sub)
					}
					named[name] = terse(sub)
				}
			}
		}
	}
	return schema
}

// monthPattern is the contract's pattern of a month argument (YYYY-MM).
const monthPattern = `^\d{4}-\d{2}$`

// withoutDayBounds removes the bounds 1 to 31 of a day of the month (an
// argument named *_day: due_day, statement_day), or of each branch of a
// nullable one, which the instructions state once with what 31 means.
func withoutDayBounds(schema any) {
	s, _ := schema.(map[string]any)
	if s == nil {
		return
	}
	if fmt.Sprint(s["minimum"]) == "1" && fmt.Sprint(s["maximum"]) == "31" {
		delete(s, "minimum")
		delete(s, "maximum")
	}
	for _, b := range asList(s["anyOf"]) {
		withoutDayBounds(b)
	}
}

// instructedArguments are the arguments whose meaning the instructions
// state once, for every tool that takes them: what a record's currency
// defaults to and when it is fixed, what an expense's or income's currency
// must match, a card purchase abroad and a transfer between currencies. A
// dozen write tools take them, and the contract says the same at each, for
// people reading one route; a model reads the whole list at once.
var instructedArguments = []string{"currency", "original_amount", "original_currency", "to_amount", "foreign_fee_percent"}

// withoutInstructed removes from an input schema the descriptions of the
// instructedArguments, at any depth (a bulk create's items take them too).
func withoutInstructed(schema any) any {
	switch s := schema.(type) {
	case []any:
		for i, v := range s {
			s[i] = withoutInstructed(v)
		}
	case map[string]any:
		if props, ok := s["properties"].(map[string]any); ok {
			for _, name := range instructedArguments {
				if p, _ := props[name].(map[string]any); p != nil {
					delete(p, "description")
				}
			}
		}
		for k, v := range s {
			if slices.Contains(schemaKeywords, k) || slices.Contains(schemaListKeywords, k) || slices.Contains(schemaMapKeywords, k) {
				withoutInstructed(v)
			}
		}
	}
	return schema
}
