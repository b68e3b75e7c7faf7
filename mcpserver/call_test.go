package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

func expenseBody(amount, method string, extra string) string {
	return `{"amount":` + amount + `,"date":"2025-03-08","description":"Lunch","category":"Food & Dining","payment_method":"` + method + `"` + extra + `}`
}

// A read tool returns exactly what its route returns: the envelope's data,
// as structuredContent and as JSON text.
func TestReadToolReturnsTheRouteData(t *testing.T) {
	env := newTestEnv(t)
	rest := env.key(auth.ScopeAll)
	for _, amount := range []string{"120", "350.50", `"99.99"`} {
		if status, res := env.rest(rest, http.MethodPost, "/api/v1/expenses", expenseBody(amount, "Cash", "")); status != http.StatusCreated {
			t.Fatalf("seed: %d %v", status, res.Error)
		}
	}
	key := env.key(auth.ScopeRead, auth.ScopeMCP)

	for _, tc := range []struct {
		tool  string
		args  map[string]any
		route string
	}{
		{"list_expenses", map[string]any{"limit": 2, "sortBy": "amount", "sortOrder": "asc"}, "/api/v1/expenses?limit=2&sortBy=amount&sortOrder=asc"},
		{"list_expenses", map[string]any{"search": "lunch", "dateFrom": "2025-03-01", "dateTo": "2025-03-31"}, "/api/v1/expenses?search=lunch&dateFrom=2025-03-01&dateTo=2025-03-31"},
		{"get_expense_summary", map[string]any{"dateFrom": "2025-03-01", "dateTo": "2025-03-31"}, "/api/v1/expenses/summary?dateFrom=2025-03-01&dateTo=2025-03-31"},
		{"get_expense_form_options", nil, "/api/v1/expenses/form-options"},
		{"list_categories", map[string]any{"kind": "income"}, "/api/v1/categories?kind=income"},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			res := env.callTool(key, tc.tool, tc.args)
			if res.IsError {
				t.Fatalf("isError: %s", res.Content[0].Text)
			}
			status, want := env.rest(rest, http.MethodGet, tc.route, "")
			if status != http.StatusOK {
				t.Fatalf("REST %s: %d", tc.route, status)
			}
			if env.mcp.byName[tc.tool].page {
				want.Data = compacted(want.Data)
			}
			if diff := cmp.Diff(want.Data, any(res.structured(t))); diff != "" {
				t.Errorf("structuredContent differs from the REST data (-rest +tool):\n%s", diff)
			}
			var text any
			if len(res.Content) != 1 || res.Content[0].Type != "text" || decodeNumbers([]byte(res.Content[0].Text), &text) != nil {
				t.Fatalf("content is not one JSON text: %+v", res.Content)
			}
			if diff := cmp.Diff(want.Data, text); diff != "" {
				t.Errorf("text differs from the REST data (-rest +text):\n%s", diff)
			}
		})
	}
}

// A write tool has its route's side effects: an Account Debit expense
// debits the account, in the same transaction.
func TestWriteToolHasTheRouteEffect(t *testing.T) {
	env := newTestEnv(t)
	rest := env.key(auth.ScopeAll)
	_, acct := env.rest(rest, http.MethodPost, "/api/v1/accounts", `{"name":"Wallet","type":"cash","opening_balance":1000}`)
	accountID := acct.Data.(map[string]any)["id"].(string)

	key := env.key(auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP)
	res := env.callTool(key, "create_expense", map[string]any{
		"amount": json.Number("250.75"), "date": "2025-03-08", "description": "Groceries", "category": "Groceries",
		"payment_method": "Account Debit", "account_id": accountID,
	})
	if res.IsError {
		t.Fatalf("create_expense: %s", res.Content[0].Text)
	}
	expense := res.structured(t)
	if expense["amount"] != json.Number("250.75") || expense["payment_method"] != "Account Debit" || expense["account_transaction_id"] == nil {
		t.Errorf("created expense: %v", expense)
	}

	_, got := env.rest(rest, http.MethodGet, "/api/v1/expenses/"+expense["id"].(string), "")
	if diff := cmp.Diff(any(expense), got.Data); diff != "" {
		t.Errorf("the stored expense differs from the tool's result (-tool +rest):\n%s", diff)
	}
	_, acct = env.rest(rest, http.MethodGet, "/api/v1/accounts/"+accountID, "")
	if bal := acct.Data.(map[string]any)["current_balance"]; bal != json.Number("749.25") {
		t.Errorf("balance after the debit = %v, want 749.25", bal)
	}
	lines := env.callTool(key, "list_account_transactions", map[string]any{"accountId": accountID}).structured(t)
	items := lines["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("lines: %v", items)
	}
	line := items[0].(map[string]any)
	if line["type"] != "debit" || line["amount"] != json.Number("250.75") || line["source"] != "expense" || line["source_id"] != expense["id"] {
		t.Errorf("account line: %v", line)
	}
}

// Amounts pass through the tool exactly: never through a float.
func TestAmountsStayExact(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeExpensesWrite, auth.ScopeMCP)
	for _, amount := range []string{"999999999.99", "0.10", `"1234567.89"`} {
		msg := env.rpc(key, "tools/call", json.RawMessage(`{"name":"create_expense","arguments":`+expenseBody(amount, "Cash", "")+`}`))
		want := `\"amount\":` + strings.Trim(amount, `"`) + `,`
		if msg.Error != nil || !bytes.Contains(msg.Result, []byte(want)) {
			t.Errorf("amount %s: result %s does not carry %s", amount, msg.Result, want)
		}
	}
}

// A REST error comes back as a tool error carrying the REST error object in
// its text: the same message, code and fields as the route gives over HTTP,
// and no structuredContent, which would not match the tool's outputSchema.
func TestRESTErrorsAreToolErrors(t *testing.T) {
	env := newTestEnv(t)
	rest := env.key(auth.ScopeAll)
	key := env.key(auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP)
	_, created := env.rest(rest, http.MethodPost, "/api/v1/expenses", expenseBody("10", "Cash", ""))
	id := created.Data.(map[string]any)["id"].(string)
	env.rest(rest, http.MethodDelete, "/api/v1/expenses/"+id, "")

	for _, tc := range []struct {
		name     string
		tool     string
		args     string
		method   string
		route    string
		body     string
		wantCode string
	}{
		{"validation", "create_expense", expenseBody("-5", "Cash", ""), http.MethodPost, "/api/v1/expenses", expenseBody("-5", "Cash", ""), "VALIDATION_ERROR"},
		{"missing account", "create_expense", expenseBody("5", "Account Debit", ""), http.MethodPost, "/api/v1/expenses", expenseBody("5", "Account Debit", ""), "VALIDATION_ERROR"},
		{"bad query", "list_expenses", `{"dateFrom":"2025-13-01"}`, http.MethodGet, "/api/v1/expenses?dateFrom=2025-13-01", "", "VALIDATION_ERROR"},
		{"not found", "get_expense", `{"id":"01956a3e-7d2c-7b4e-9a1f-3c5d7e9f1a2b"}`, http.MethodGet, "/api/v1/expenses/01956a3e-7d2c-7b4e-9a1f-3c5d7e9f1a2b", "", "NOT_FOUND"},
		{"invalid status", "delete_expense", `{"id":"` + id + `"}`, http.MethodDelete, "/api/v1/expenses/" + id, "", "INVALID_STATUS"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, got := env.toolErrorLikeREST(t, key, rest, tc.tool, tc.args, tc.method, tc.route, tc.body, tc.wantCode)
			if text := res.Content[0].Text; !strings.Contains(text, got["message"].(string)) || !strings.Contains(text, tc.wantCode) {
				t.Errorf("text %q lacks the REST message or code", text)
			}
		})
	}
}

// Arguments that cannot form the route's request are refused before it is
// called, in the REST error shape.
func TestArgumentErrors(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeAll)
	for _, tc := range []struct {
		name, tool, args string
		wantField        string
	}{
		{"unknown argument", "list_expenses", `{"categroy":"Food"}`, "categroy"},
		{"unknown body field", "create_category", `{"name":"X","kind":"expense","colour":"#000000"}`, "colour"},
		{"missing path parameter", "get_expense", `{}`, "id"},
		{"empty path parameter", "update_expense", `{"id":"  ","amount":5}`, "id"},
		{"path parameter not a string", "get_income", `{"id":12}`, "id"},
		{"query value not a scalar", "list_expenses", `{"search":["a"]}`, "search"},
		{"arguments not an object", "list_expenses", `[1,2]`, "arguments"},
		// Read as a map, the last of repeated names would win silently.
		{"argument given twice", "create_expense", `{"amount":1,"amount":900,"date":"2025-03-08","description":"x","category":"Groceries","payment_method":"Cash"}`, "amount"},
		{"text that is not UTF-8", "list_expenses", "{\"search\":\"caf\xe9\"}", "arguments"},
		// Nested members reach the route as sent, which refuses them.
		{"body text with NUL", "create_expense", `{"amount":1,"date":"2025-03-08","description":"x\u0000","category":"Groceries","payment_method":"Cash"}`, "description"},
		{"idempotency key not a string", "create_category", `{"name":"X","kind":"expense","idempotency_key":5}`, "idempotency_key"},
		// Only the tools of routes that take the header have the argument.
		{"idempotency key on an update", "update_expense", `{"id":"x","amount":5,"idempotency_key":"k"}`, "idempotency_key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := env.rpc(key, "tools/call", json.RawMessage(`{"name":"`+tc.tool+`","arguments":`+tc.args+`}`))
			var res toolResult
			if msg.Error != nil {
				t.Fatalf("JSON-RPC error: %s", msg.Error.Message)
			}
			if err := json.Unmarshal(msg.Result, &res); err != nil {
				t.Fatal(err)
			}
			if res.StructuredContent != nil {
				t.Errorf("the error result carries structuredContent %s", res.StructuredContent)
			}
			got := res.problem(t)
			fields, _ := got["fields"].(map[string]any)
			if got["code"] != "VALIDATION_ERROR" || fields[tc.wantField] == nil {
				t.Errorf("result %s, want a VALIDATION_ERROR on %s", msg.Result, tc.wantField)
			}
		})
	}
}

// Path parameters are escaped: an id cannot steer the call to another route.
func TestPathParametersAreEscaped(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeAll)
	for _, id := range []string{"../../health", "x?limit=1", "a/b", "%2e%2e"} {
		res := env.callTool(key, "get_expense", map[string]any{"id": id})
		if got := res.problem(t); got["code"] != "NOT_FOUND" {
			t.Errorf("id %q: %v, want NOT_FOUND", id, got)
		}
	}
}

// A write tool's idempotency_key is the Idempotency-Key header of its REST
// request: the same call again, however it spells the amount, returns the
// first result with a line saying it was replayed, and writes nothing; the
// same key with other arguments is the REST route's IDEMPOTENCY_CONFLICT,
// whose message (read the state first) reaches the agent.
func TestIdempotencyKeyArgument(t *testing.T) {
	env := newTestEnv(t)
	rest := env.key(auth.ScopeAll)
	key := env.key(auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP)
	args := map[string]any{"amount": json.Number("42"), "date": "2025-03-08", "description": "Taxi",
		"category": "Transportation", "payment_method": "Cash", "idempotency_key": "taxi-0308"}
	expenses := func() []any {
		t.Helper()
		_, list := env.rest(rest, http.MethodGet, "/api/v1/expenses", "")
		return list.Data.(map[string]any)["items"].([]any)
	}

	first := env.callTool(key, "create_expense", args)
	if first.IsError || len(first.Content) != 1 {
		t.Fatalf("create_expense: %+v, want one text block and no error", first.Content)
	}
	if _, _, _, _, err := env.db.IdempotentResponse(context.Background(), env.user.ID, "taxi-0308", time.Now()); err != nil {
		t.Errorf("no answer stored under the key: %v", err)
	}
	for _, amount := range []any{json.Number("42"), json.Number("42.0"), "42.00"} {
		args["amount"] = amount
		again := env.callTool(key, "create_expense", args)
		if again.IsError || !bytes.Equal(again.StructuredContent, first.StructuredContent) || again.Content[0].Text != first.Content[0].Text {
			t.Errorf("the repeated call with amount %v = %s, want the first result %s", amount, again.StructuredContent, first.StructuredContent)
		}
		if len(again.Content) != 2 || again.Content[1].Type != "text" || again.Content[1].Text != replayedNote {
			t.Errorf("the repeated call with amount %v: content %+v, want the result and the line %q", amount, again.Content, replayedNote)
		}
	}
	if items := expenses(); len(items) != 1 {
		t.Errorf("expenses after a call and its repeats: %d, want 1", len(items))
	}

	// The key is not in the body: the same key with other arguments is the
	// REST route's error, naming the header and telling the agent to read
	// the state, never to use a new key.
	args["amount"] = json.Number("43.00")
	other := env.callTool(key, "create_expense", args)
	got := other.problem(t)
	fields, _ := got["fields"].(map[string]any)
	message, _ := got["message"].(string)
	if got["code"] != "IDEMPOTENCY_CONFLICT" || fields["Idempotency-Key"] != "was used with a different request" ||
		!strings.Contains(message, "Read the current state first") || strings.Contains(strings.ToLower(message), "new key") {
		t.Errorf("the key with other arguments: %v, want IDEMPOTENCY_CONFLICT on Idempotency-Key saying to read the state", got)
	}
	if items := expenses(); len(items) != 1 {
		t.Errorf("expenses after a refused call: %d, want 1", len(items))
	}

	// Without the argument, each call writes, and none is a replay (the
	// second taxi is answered with a warning that it looks like a duplicate).
	delete(args, "idempotency_key")
	for range 2 {
		res := env.callTool(key, "create_expense", args)
		replayed := false
		for _, c := range res.Content {
			replayed = replayed || strings.HasPrefix(c.Text, "Replayed")
		}
		if res.IsError || replayed {
			t.Errorf("a call without a key: %+v", res.Content)
		}
	}
	if items := expenses(); len(items) != 3 {
		t.Errorf("expenses after two calls without a key: %d, want 3", len(items))
	}
}

// Exactly the tools of POST routes take idempotency_key, but for those that
// run the AI, whose routes take none (parsing saves nothing; a proposal's
// id is the assistant's key), and noKeyTools, and the payment and balance
// tools tell the model to use it.
// noKeyTools wrap POST routes that take no Idempotency-Key for a reason of
// their own: an import preview keeps no request to replay (its file is up
// to 10 MiB), and a repeated one changes no record.
var noKeyTools = []string{"preview_import"}

func TestIdempotencyKeyInSchemas(t *testing.T) {
	for _, tt := range builtTools(t) {
		var schema struct {
			Properties map[string]any `json:"properties"`
		}
		if err := json.Unmarshal(tt.inputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		_, has := schema.Properties["idempotency_key"]
		if want := tt.method == http.MethodPost && !tt.runsAI && !slices.Contains(noKeyTools, tt.name); has != want {
			t.Errorf("%s (%s): idempotency_key in the schema = %v, want %v", tt.name, tt.method, has, want)
		}
	}
	for _, name := range []string{"adjust_account_balance", "record_credit_card_soa_payment", "record_bill_payment"} {
		for _, tt := range builtTools(t) {
			if tt.name == name && !strings.HasSuffix(tt.description, retryWithKey) {
				t.Errorf("%s: the description does not end with the retry advice", name)
			}
		}
	}
}
