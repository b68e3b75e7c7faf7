package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// fromYAML reads a schema the way the contract is read.
func fromYAML(t *testing.T, doc string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func fromJSON(t *testing.T, doc string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestWithoutTypeArrays(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string // YAML, as in the contract
		want string // JSON
	}{
		{
			name: "nullable string keeps its description at the top only",
			in:   `{type: [string, "null"], description: At most 255 characters.}`,
			want: `{"description": "At most 255 characters.", "anyOf": [{"type": "string"}, {"type": "null"}]}`,
		},
		{
			name: "limits, pattern and format go to the string branch",
			in:   `{type: [string, "null"], minLength: 1, maxLength: 7, pattern: '^#', format: color, default: null}`,
			want: `{"default": null, "anyOf": [
				{"type": "string", "minLength": 1, "maxLength": 7, "pattern": "^#", "format": "color"}, {"type": "null"}]}`,
		},
		{
			name: "enum keeps the values of each branch's type",
			in:   `{type: [string, "null"], enum: [asc, desc, null]}`,
			want: `{"anyOf": [{"type": "string", "enum": ["asc", "desc"]}, {"type": "null"}]}`,
		},
		{
			name: "an enum without null drops the null branch",
			in:   `{type: [string, "null"], enum: [asc, desc]}`,
			want: `{"anyOf": [{"type": "string", "enum": ["asc", "desc"]}]}`,
		},
		{
			name: "several types split their keywords",
			in:   `{type: [string, integer, "null"], minLength: 1, minimum: 0, title: Id}`,
			want: `{"title": "Id", "anyOf": [
				{"type": "string", "minLength": 1, "title": "Id"}, {"type": "integer", "minimum": 0, "title": "Id"}, {"type": "null"}]}`,
		},
		{
			name: "a list of one type is that type",
			in:   `{type: [number], minimum: 0}`,
			want: `{"type": "number", "minimum": 0}`,
		},
		{
			name: "nested schemas are rewritten: properties, items, anyOf branches",
			in: `{type: object, properties: {parts: {type: array, items: {type: object, properties: {
					note: {type: [string, "null"]}}}}, when: {anyOf: [{type: [integer, "null"]}, {type: string}]}}}`,
			want: `{"type": "object", "properties": {
				"parts": {"type": "array", "items": {"type": "object", "properties": {
					"note": {"anyOf": [{"type": "string"}, {"type": "null"}]}}}},
				"when": {"anyOf": [{"anyOf": [{"type": "integer"}, {"type": "null"}]}, {"type": "string"}]}}}`,
		},
		{
			name: "data is not a schema and is left alone",
			in:   `{type: object, examples: [{type: [a, b]}], default: {type: [x]}}`,
			want: `{"type": "object", "examples": [{"type": ["a", "b"]}], "default": {"type": ["x"]}}`,
		},
		{
			name: "a schema without a type array is unchanged",
			in:   `{description: Signed., anyOf: [{oneOf: [{type: number}, {type: string, pattern: '^-?\d+$'}]}, {type: "null"}]}`,
			want: `{"description": "Signed.", "anyOf": [{"oneOf": [{"type": "number"}, {"type": "string", "pattern": "^-?\\d+$"}]}, {"type": "null"}]}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := withoutTypeArrays(fromYAML(t, tc.in))
			if err != nil {
				t.Fatal(err)
			}
			// Compare as JSON values: the tool schema is sent as JSON.
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fromJSON(t, tc.want), fromJSON(t, string(b))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A keyword the rewrite cannot place on a branch fails, rather than
// changing what a tool accepts.
func TestWithoutTypeArraysRefusesWhatItCannotPlace(t *testing.T) {
	for _, tc := range []struct{ name, in, wantErr string }{
		{"composition beside a type array", `{type: [string, "null"], oneOf: [{minLength: 1}, {maxLength: 0}]}`, `keyword "oneOf"`},
		{"a reference beside a type array", `{type: [object, "null"], $ref: "#/components/schemas/X"}`, `keyword "$ref"`},
		{"a limit of no listed type", `{type: [integer, "null"], minLength: 1}`, `keyword "minLength"`},
		{"an enum of no listed type", `{type: [integer, "null"], enum: [a]}`, "no value of enum"},
		{"nested, named by its property", `{type: object, properties: {color: {type: [string, "null"], not: {}}}}`, `color: keyword "not"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := withoutTypeArrays(fromYAML(t, tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// lean shows a model the canonical spelling of a value: an amount as a
// number, not also as a string of digits; a payment method by its names,
// not also by a case-insensitive pattern. A pattern that is the value's only
// form (a colour) stays, and so does the null of a nullable field.
func TestLeanInputSchemas(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"an amount is a number", `{"description":"Greater than 0.","oneOf":[{"type":"number"},{"type":"string","pattern":"^-?\\d+$"}]}`,
			`{"description":"Greater than 0.","type":"number"}`},
		{"a nullable day keeps its null", `{"anyOf":[{"oneOf":[{"type":"integer","minimum":1},{"type":"string","pattern":"^\\d+$"}]},{"type":"null"}]}`,
			`{"anyOf":[{"type":"integer","minimum":1},{"type":"null"}]}`},
		{"names, not any case", `{"anyOf":[{"type":"string","enum":["Cash"]},{"type":"string","pattern":"^[Cc]ash$"}]}`,
			`{"type":"string","enum":["Cash"]}`},
		{"a colour's pattern is its only form", `{"anyOf":[{"type":"string","pattern":"^#"},{"type":"null"}]}`,
			`{"anyOf":[{"type":"string","pattern":"^#"},{"type":"null"}]}`},
		{"inside properties", `{"type":"object","properties":{"a":{"oneOf":[{"type":"integer"},{"type":"string","pattern":"x"}]}}}`,
			`{"type":"object","properties":{"a":{"type":"integer"}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var in, want any
			if err := json.Unmarshal([]byte(c.in), &in); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(c.want), &want); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, lean(in)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// An enum's values say its type, so an output schema writes the enum alone;
// a nullable one still lets a compact item leave the value out.
func TestOutputEnumWithoutType(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"strings", `{"type":"string","enum":["a","b"]}`, `{"enum":["a","b"]}`},
		{"nullable", `{"type":["string","null"],"enum":["a",null]}`, `{"enum":["a",null]}`},
		{"a value of another type keeps the type", `{"type":"string","enum":["a",1]}`, `{"type":"string","enum":["a",1]}`},
		{"no enum", `{"type":"string"}`, `{"type":"string"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in, _ := fromJSON(t, c.in).(map[string]any)
			if diff := cmp.Diff(fromJSON(t, c.want), any(enumWithoutType(in))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	nullable, _ := fromJSON(t, `{"enum":["monthly","annual",null]}`).(map[string]any)
	if !compactDrops(nullable, nil) {
		t.Error("a nullable enum without its type must be one a compact item may leave out")
	}
}

// terse drops the length limits a route checks and the text that only
// states them, and the notes, formats and bounds the instructions state once.
func TestTerseInputSchemas(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"a length note alone goes", `{"type":"string","maxLength":100,"description":"At most 100 characters after trimming."}`,
			`{"type":"string"}`},
		{"the rest of a description stays", `{"type":"string","minLength":1,"description":"1 to 100 characters after trimming; unique among active cards."}`,
			`{"type":"string","description":"Unique among active cards."}`},
		{"a positive amount is said in the instructions", `{"type":"number","description":"Greater than 0."}`,
			`{"type":"number"}`},
		{"and the first clause saying it", `{"type":"number","description":"Greater than 0; may be left out abroad."}`,
			`{"type":"number","description":"May be left out abroad."}`},
		{"so is the account Account Debit needs", `{"type":"string","description":"Account Debit only: an active account."}`,
			`{"type":"string"}`},
		{"other descriptions stay", `{"type":"number","description":"Signed; defaults to 0."}`,
			`{"type":"number","description":"Signed; defaults to 0."}`},
		{"inside properties and branches", `{"type":"object","properties":{"notes":{"anyOf":[{"type":"string","maxLength":9},{"type":"null"}],"description":"At most 9 characters."}}}`,
			`{"type":"object","properties":{"notes":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`},
		{"a month's pattern is said in the instructions", `{"type":"object","properties":{"month":{"type":"string","pattern":"^\\d{4}-\\d{2}$"}}}`,
			`{"type":"object","properties":{"month":{"type":"string"}}}`},
		{"another pattern stays", `{"type":"string","pattern":"^\\d\\d:\\d\\d$"}`, `{"type":"string","pattern":"^\\d\\d:\\d\\d$"}`},
		{"so are a day of the month's bounds, nullable or not",
			`{"type":"object","properties":{"due_day":{"type":"integer","minimum":1,"maximum":31},"second_due_day":{"anyOf":[{"type":"integer","minimum":1,"maximum":31},{"type":"null"}]}}}`,
			`{"type":"object","properties":{"due_day":{"type":"integer"},"second_due_day":{"anyOf":[{"type":"integer"},{"type":"null"}]}}}`},
		{"a default and bounds the description states go", `{"type":"integer","minimum":1,"maximum":360,"default":12,"description":"Months, 1 to 360; defaults to 12."}`,
			`{"type":"integer","description":"Months, 1 to 360; defaults to 12."}`},
		{"a default or bounds it does not state stay", `{"type":"integer","minimum":0,"maximum":10,"default":0,"description":"Percent, 1 to 10."}`,
			`{"type":"integer","minimum":0,"maximum":10,"default":0,"description":"Percent, 1 to 10."}`},
		{"null clearing is said in the instructions", `{"anyOf":[{"type":"string"},{"type":"null"}],"description":"Null clears it."}`,
			`{"anyOf":[{"type":"string"},{"type":"null"}]}`},
		{"bounds of another name, or other bounds of a day, stay",
			`{"type":"object","properties":{"due_soon_days":{"type":"integer","minimum":1,"maximum":31},"start_day":{"type":"integer","minimum":1,"maximum":27}}}`,
			`{"type":"object","properties":{"due_soon_days":{"type":"integer","minimum":1,"maximum":31},"start_day":{"type":"integer","minimum":1,"maximum":27}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(terse(fromJSON(t, c.in)))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(fromJSON(t, c.want), fromJSON(t, string(b))); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// A create reads null as absent, so its arguments lose their null branches
// (and null enum values); lean then merges a branch left alone.
func TestCreateArgumentsWithoutNull(t *testing.T) {
	in := fromJSON(t, `{"type":"object","properties":{
		"notes":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"Shown on the record."},
		"rate_period":{"anyOf":[{"type":"string","enum":["monthly","annual",null]},{"type":"null"}]},
		"items":{"type":"array","items":{"type":"object","properties":{"account_id":{"anyOf":[{"type":"string"},{"type":"null"}]}}}},
		"amount":{"type":"number"}}}`)
	want := fromJSON(t, `{"type":"object","properties":{
		"notes":{"type":"string","description":"Shown on the record."},
		"rate_period":{"type":"string","enum":["monthly","annual"]},
		"items":{"type":"array","items":{"type":"object","properties":{"account_id":{"type":"string"}}}},
		"amount":{"type":"number"}}}`)
	if diff := cmp.Diff(want, lean(withoutNull(in))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
