package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	assets "github.com/finance-app/finance/embed"
)

// The write tools take the currency arguments of docs/domain.md "Money in
// more than one currency", from their routes' contract, and pass them on
// as they are; what each means is said once, in the instructions, so no
// schema repeats it.
func TestCurrencyArguments(t *testing.T) {
	want := map[string][]string{
		"create_account":                 {"currency"},
		"create_credit_card":             {"currency", "foreign_fee_percent"},
		"create_loan":                    {"currency"},
		"create_bill_template":           {"currency"},
		"create_expense":                 {"currency", "original_amount", "original_currency"},
		"create_income":                  {"currency"},
		"create_credit_card_transaction": {"original_amount", "original_currency"},
		"create_transfer":                {"to_amount"},
	}
	tools := map[string]tool{}
	for _, tt := range builtTools(t) {
		tools[tt.name] = tt
	}
	for name, args := range want {
		var schema struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(tools[name].inputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		for _, arg := range args {
			p, ok := schema.Properties[arg]
			switch {
			case !ok:
				t.Errorf("%s does not take %s", name, arg)
			case p["description"] != nil:
				t.Errorf("%s: %s has a description the instructions already give: %v", name, arg, p["description"])
			}
			if !tools[name].bodyFields[arg] {
				t.Errorf("%s: %s is not sent in the route's body", name, arg)
			}
		}
	}
	// A bulk create's items are create_expense's arguments, currency ones included.
	if !strings.Contains(string(tools["create_expenses"].inputSchema), "the arguments of create_expense") {
		t.Errorf("create_expenses: %s", tools["create_expenses"].inputSchema)
	}
	for _, arg := range instructedArguments {
		if !strings.Contains(Instructions, arg) && arg != "currency" {
			t.Errorf("the instructions do not say what %s is", arg)
		}
	}
	if !strings.Contains(Instructions, "reporting currency") || !slices.Contains(instructedArguments, "currency") {
		t.Error("the instructions do not say what a record's currency defaults to")
	}
}

// The currency arguments reach the route as sent, byte for byte: the route
// checks them (a code in any case, an amount with its currency's decimals).
func TestCurrencyArgumentsPassThrough(t *testing.T) {
	h, err := New(nil, Config{BaseURL: testBaseURL})
	if err != nil {
		t.Fatal(err)
	}
	for name, args := range map[string]string{
		"create_account":  `{"name":"Wallet","type":"cash","currency":"jpy"}`,
		"create_expense":  `{"amount":5104.93,"date":"2026-11-20","description":"Ramen","category":"Food","payment_method":"Credit Card","credit_card_id":"c1","original_amount":12345,"original_currency":"JPY"}`,
		"create_transfer": `{"from_account_id":"a","to_account_id":"b","amount":"100.00","date":"2026-11-20","to_amount":5650.00}`,
		"create_expenses": `{"items":[{"amount":"25.00","date":"2026-11-20","description":"Taxi","category":"Transport","payment_method":"Cash","currency":"USD"}]}`,
	} {
		_, _, body, err := h.ToolRequest(context.Background(), name, json.RawMessage(args))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var sent, given map[string]json.RawMessage
		if err := errors.Join(json.Unmarshal(body, &sent), json.Unmarshal([]byte(args), &given)); err != nil {
			t.Fatal(err)
		}
		for arg, v := range given {
			if string(sent[arg]) != string(v) {
				t.Errorf("%s: %s sent as %s, given %s", name, arg, sent[arg], v)
			}
		}
	}
}

// The items of a bulk create are named after another tool only while they
// are that tool's arguments.
func TestItemsOfRefusesOtherArguments(t *testing.T) {
	tools := map[string]tool{}
	for _, tt := range builtTools(t) {
		tools[tt.name] = tt
	}
	bulk, err := parseContract(assets.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	op, err := bulk.operation("POST", "/api/v1/expenses/bulk", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := op.withItemsOf(tools["create_income"]); err == nil {
		t.Error("the bulk expense items named after create_income")
	}
	if _, err := op.withItemsOf(tools["create_expense"]); err != nil {
		t.Errorf("create_expense: %v", err)
	}
}

// currencyMembers are the members that say what currency an answer's
// amounts are in (docs/domain.md "Money in more than one currency").
var currencyMembers = []string{"currency", "original_currency", "from_currency", "to_currency",
	"rates_as_of", "missing_rates", "by_currency"}

// A read tool's output schema keeps every member of its route's answer that
// says what currency the amounts are in, wherever the contract has one, so
// an agent never reads a bare amount the route answers with its currency; a
// compact list item may leave out only a nested list or object, which
// detail=full adds. The instructions say once what the amounts are in.
func TestOutputSchemasKeepCurrencies(t *testing.T) {
	c, err := parseContract(assets.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range builtTools(t) {
		if tt.outputSchema == nil {
			continue
		}
		data, err := c.successData(dig(c.root, "paths", tt.path, strings.ToLower(tt.method)).(map[string]any))
		if err != nil {
			t.Fatal(err)
		}
		inlined, err := c.inline(data, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		if err := json.Unmarshal(tt.outputSchema, &out); err != nil {
			t.Fatal(err)
		}
		defs, _ := out["$defs"].(map[string]any)
		kept := map[string]bool{}
		for _, p := range currencyPaths(out, defs, "") {
			kept[p] = true
		}
		for _, p := range currencyPaths(inlined, nil, "") {
			inItem := tt.compacts() && strings.HasPrefix(p, "items[]/")
			if !kept[p] && !(inItem && (strings.HasSuffix(p, "missing_rates") || strings.HasSuffix(p, "by_currency"))) {
				t.Errorf("%s: the route answers %s, which its output schema leaves out", tt.name, p)
			}
		}
	}
	for _, says := range []string{"A record's amounts are in its currency", "reporting currency they name as currency",
		"named in missing_rates, never converted 1:1"} {
		if !strings.Contains(Instructions, says) {
			t.Errorf("the instructions do not say %q", says)
		}
	}
}

// currencyPaths lists where schema s has a currencyMembers property, as
// slash-separated names ("items[]/currency"), following allOf, anyOf,
// oneOf, items and references into defs.
func currencyPaths(s any, defs map[string]any, at string) []string {
	m, _ := s.(map[string]any)
	if ref, ok := m["$ref"].(string); ok {
		m, _ = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
	var out []string
	props, _ := m["properties"].(map[string]any)
	for name, p := range props {
		if slices.Contains(currencyMembers, name) {
			out = append(out, at+name)
		}
		out = append(out, currencyPaths(p, defs, at+name+"/")...)
	}
	if items := m["items"]; items != nil {
		out = append(out, currencyPaths(items, defs, strings.TrimSuffix(at, "/")+"[]/")...)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		for _, b := range asList(m[k]) {
			out = append(out, currencyPaths(b, defs, at)...)
		}
	}
	return out
}
