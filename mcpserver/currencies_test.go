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
