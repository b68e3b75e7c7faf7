package server

import (
	"net/http"
	"testing"
)

// Numbers have one spelling each, worked out on the text: no float64 could
// keep 999999999.99 and 999999999.990000001 apart, and no other spelling
// than a plain decimal is a number.
func TestCanonicalNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		kind numberKind
		want string // "" when it is not a number of the kind
	}{
		{"1", decimal, "1"},
		{"1.0", decimal, "1"},
		{"1.00", decimal, "1"},
		{"01.000", decimal, "1"},
		{"10.50", decimal, "10.5"},
		{"0.05", decimal, "0.05"},
		{"-0.00", decimal, "0"},
		{"-12.30", decimal, "-12.3"},
		{"999999999.99", decimal, "999999999.99"},
		{"999999999.990000001", decimal, "999999999.990000001"},
		{"100", decimal, "100"},
		{"1e2", decimal, ""},
		{"+1", decimal, ""},
		{" 1", decimal, ""},
		{"1.", decimal, ""},
		{".5", decimal, ""},
		{"", decimal, ""},
		{"١", decimal, ""}, // an Arabic-Indic digit is not a digit of the API
		{"15", integer, "15"},
		{" 015 ", integer, "15"},
		{"15.0", integer, ""},
		{"1", notNumber, ""},
	} {
		got, ok := canonicalNumber(tc.in, tc.kind)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("canonicalNumber(%q, %d) = %q, %v; want %q", tc.in, tc.kind, got, ok, tc.want)
		}
	}
}

// The normalized body: members sorted at every depth, nulls dropped,
// defaults filled in, the shape's numbers canonical; everything else as sent.
func TestNormalizeJSON(t *testing.T) {
	shape := &bodyShape{
		members: map[string]*bodyShape{
			"amount": {number: decimal},
			"months": {number: integer},
			"parts":  {items: &bodyShape{members: map[string]*bodyShape{"amount": {number: decimal}}}},
			"floor":  {number: decimal},
		},
		defaults: map[string][]byte{"floor": []byte("500")},
	}
	for _, tc := range []struct{ name, in, want string }{
		{"amounts in any spelling", `{"amount":"1.00"}`, `{"amount":1,"floor":500}`},
		{"member order and blanks", " {\"months\" : \"12\", \"amount\":1.0}\n", `{"amount":1,"floor":500,"months":12}`},
		{"null is absent", `{"amount":1,"note":null,"floor":null}`, `{"amount":1,"floor":500}`},
		{"a default given", `{"floor":"500.00"}`, `{"floor":500}`},
		{"nested amounts, array order kept", `{"parts":[{"amount":"2.50","x":null},{"amount":1}]}`,
			`{"floor":500,"parts":[{"amount":2.5},{"amount":1}]}`},
		{"text as sent, escapes as spelling", `{"description":"1.00","note":"Lunch ","m":"\u0041\u0026","n":"\ufffd"}`,
			`{"description":"1.00","floor":500,"m":"A\u0026","n":"�","note":"Lunch "}`},
		{"an unknown member's number as sent", `{"other":1.0}`, `{"floor":500,"other":1.0}`},
		{"an amount that is no plain decimal stays apart", `{"amount":1e2}`, `{"amount":1e2,"floor":500}`},
		{"an escaped digit is not a digit", `{"amount":"\u0031"}`, `{"amount":"1","floor":500}`},
		{"an empty body", "  ", ""},
	} {
		got, err := normalizeJSON([]byte(tc.in), shape)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: normalizeJSON(%s) = %s, %v; want %s", tc.name, tc.in, got, err, tc.want)
		}
	}
	// What the routes refuse before reading is not normalized.
	for _, in := range []string{`{"amount":1,"amount":2}`, `{"a":{"b":1,"b":1}}`, "{\"note\":\"\xff\"}", `{"amount":`, `{} {}`, `{"note":"\ud800"}`} {
		if got, err := normalizeJSON([]byte(in), shape); err == nil {
			t.Errorf("normalizeJSON(%q) = %s, want an error", in, got)
		}
	}
}

// The contract's body schemas give the shapes: the amounts, rates and
// counts of a route, nested ones included, and its constant defaults.
func TestRequestBodyShape(t *testing.T) {
	card, err := requestBodyShape(http.MethodPost, "/api/v1/credit-cards")
	if err != nil || card == nil {
		t.Fatalf("credit cards: %v, %v", card, err)
	}
	for name, want := range map[string]numberKind{"credit_limit": decimal, "minimum_due_percent": decimal,
		"statement_day": integer, "name": notNumber, "cycle_start_date": notNumber} {
		if got := card.members[name].number; got != want {
			t.Errorf("credit card %s: %d, want %d", name, got, want)
		}
	}
	if got := string(card.defaults["minimum_due_floor"]) + " " + string(card.defaults["minimum_due_percent"]); got != "500 3" {
		t.Errorf("credit card defaults: %s, want 500 3", got)
	}
	split, err := requestBodyShape(http.MethodPost, "/api/v1/expenses/:id/split")
	if err != nil || split.members["parts"].items.members["amount"].number != decimal {
		t.Errorf("a split's part amounts are not amounts: %v", err)
	}
	if none, err := requestBodyShape(http.MethodPost, "/api/v1/credit-cards/soa/:id/void"); none != nil || err != nil {
		t.Errorf("a route without a body: %v, %v", none, err)
	}
}
