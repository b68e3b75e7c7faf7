package mcpserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// seedExpenses records n expenses through the bulk route: Cash ones, and
// every third one from an account with notes, as a household's month has.
func seedExpenses(t *testing.T, env *testEnv, key string, n int) {
	t.Helper()
	_, acct := env.rest(key, http.MethodPost, "/api/v1/accounts", `{"name":"Savings","type":"savings","opening_balance":100000}`)
	accountID := acct.Data.(map[string]any)["id"].(string)
	for start := 0; start < n; start += 100 {
		var items []string
		for i := start; i < min(n, start+100); i++ {
			item := fmt.Sprintf(`{"amount":"%d.50","date":"2025-03-%02d","description":"Groceries run %d","category":"Groceries","payment_method":"Cash"`,
				100+i, 1+i%28, i)
			if i%3 == 0 {
				item = fmt.Sprintf(`{"amount":"%d.50","date":"2025-03-%02d","description":"Electricity %d","category":"Utilities","payment_method":"Account Debit","account_id":"%s","notes":"paid online"`,
					100+i, 1+i%28, i, accountID)
			}
			items = append(items, item+"}")
		}
		if status, res := env.rest(key, http.MethodPost, "/api/v1/expenses/bulk", `{"items":[`+strings.Join(items, ",")+`]}`); status != http.StatusCreated {
			t.Fatalf("seed: %d %v", status, res.Error)
		}
	}
}

// A list tool answers compact items by default: each item is the route's
// item without its null fields, its nested lists (a split expense's parts)
// and its timestamps, in the route's order and with its amounts as written; detail=full
// answers the route's items as they are. Both match the tool's outputSchema
// (callTool checks every result against it).
func TestListToolsAreCompactUnlessAskedInFull(t *testing.T) {
	env := newTestEnv(t)
	all := env.key(auth.ScopeAll)
	seedExpenses(t, env, all, 100)
	_, page := env.rest(all, http.MethodGet, "/api/v1/expenses?limit=1&search=Groceries%20run%201&sortBy=amount&sortOrder=asc", "")
	split := page.Data.(map[string]any)["items"].([]any)[0].(map[string]any)["id"].(string) // 101.50
	if status, res := env.rest(all, http.MethodPost, "/api/v1/expenses/"+split+"/split",
		`{"parts":[{"amount":"50.25","category":"Groceries"},{"amount":"51.25","category":"Food & Dining"}]}`); status != http.StatusOK {
		t.Fatalf("split: %d %v", status, res.Error)
	}
	key := env.key(auth.ScopeRead, auth.ScopeMCP)

	full := env.callTool(key, "list_expenses", map[string]any{"limit": 100, "detail": "full"})
	restRes := env.do(http.MethodGet, "/api/v1/expenses?limit=100", "", map[string]string{"Authorization": "Bearer " + all})
	var restEnv struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(restRes.body, &restEnv); err != nil {
		t.Fatal(err)
	}
	if full.Content[0].Text != string(restEnv.Data) {
		t.Errorf("detail=full is not the route's data as it wrote it")
	}
	compact := env.callTool(key, "list_expenses", map[string]any{"limit": 100})
	var restData any
	if err := decodeNumbers(restEnv.Data, &restData); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(compacted(restData), any(compact.structured(t))); diff != "" {
		t.Errorf("compact items differ from the route's items without null and nested fields (-want +got):\n%s", diff)
	}
	text := compact.Content[0].Text
	// The items as written (the page's summary after them may hold null
	// rates_as_of and an empty missing_rates: it is not an item).
	var written struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal([]byte(text), &written); err != nil {
		t.Fatal(err)
	}
	for _, item := range written.Items {
		for _, gone := range []string{"null", `"splits"`, "[]", "created_at"} {
			if strings.Contains(string(item), gone) {
				t.Errorf("a compact item still holds %s: %s", gone, item)
			}
		}
	}
	if !strings.Contains(text, `"amount":199.50`) || !strings.HasPrefix(text, `{"items":[{"id":"`) {
		t.Errorf("compact items lost the route's order or its amounts as written: %.200s", text)
	}
	var splitItem map[string]any
	for _, it := range compact.structured(t)["items"].([]any) {
		if m := it.(map[string]any); m["id"] == split {
			splitItem = m
		}
	}
	if splitItem == nil || splitItem["is_split"] != true || splitItem["category"] != nil {
		t.Errorf("the split expense's compact item: %v", splitItem)
	}
	// The route's items already leave out what has no value, so compact
	// saves the timestamps and nested lists: about a fifth.
	t.Logf("list_expenses with 100 rows: %d bytes in full, %d bytes compact", len(full.Content[0].Text), len(text))
	if len(text) >= len(full.Content[0].Text)*9/10 {
		t.Errorf("compact (%d bytes) saves less than a tenth of full (%d bytes)", len(text), len(full.Content[0].Text))
	}

	// A detail the tool does not know, and detail on a tool that is not a
	// list, are refused naming the argument.
	problem := env.callTool(key, "list_expenses", map[string]any{"detail": "verbose"}).problem(t)
	if fields, _ := problem["fields"].(map[string]any); problem["code"] != "VALIDATION_ERROR" || fields["detail"] != "must be compact or full" {
		t.Errorf("detail=verbose: %v", problem)
	}
	problem = env.callTool(key, "get_expense", map[string]any{"id": split, "detail": "full"}).problem(t)
	if fields, _ := problem["fields"].(map[string]any); !strings.HasPrefix(fmt.Sprint(fields["detail"]), "is not an argument of get_expense") {
		t.Errorf("detail on get_expense: %v", problem)
	}
	// Reads of one record are never cut: the record as the route answers it,
	// with its parts and timestamps, and without the fields it has no value for.
	one := env.callTool(key, "get_expense", map[string]any{"id": split}).structured(t)
	if parts, _ := one["splits"].([]any); len(parts) != 2 || one["is_split"] != true || one["created_at"] == nil {
		t.Errorf("get_expense: %v", one)
	}
	if notes, listed := one["notes"]; listed {
		t.Errorf("get_expense has notes %v, want them left out as the route leaves them out", notes)
	}
}

// A compacting list tool's output schema describes the compact item: the
// members a compact item never carries (timestamps, nested lists) are not
// in it, the members that may be null are not required, and a list tool
// that answers whole items keeps them all.
func TestCompactItemSchema(t *testing.T) {
	env := newTestEnv(t)
	item := func(tool string) map[string]any {
		var schema map[string]any
		if err := json.Unmarshal(env.mcp.byName[tool].outputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		m, _ := dig(schema, "properties", "items", "items").(map[string]any)
		return m
	}
	expense := item("list_expenses")
	props, _ := expense["properties"].(map[string]any)
	for _, name := range []string{"splits", "created_at", "updated_at"} {
		if _, ok := props[name]; ok {
			t.Errorf("list_expenses items describe %s, which a compact item never carries", name)
		}
	}
	for _, name := range []string{"id", "amount", "notes", "voided_at"} {
		if _, ok := props[name]; !ok {
			t.Errorf("list_expenses items do not describe %s", name)
		}
	}
	if req := fmt.Sprint(expense["required"]); strings.Contains(req, "notes") || !strings.Contains(req, "amount") {
		t.Errorf("list_expenses items require %s: notes may be null, amount never is", req)
	}
	// Every list answers the same pagination, which the instructions name
	// once: its schema says an object, still required.
	var page map[string]any
	if err := json.Unmarshal(env.mcp.byName["list_expenses"].outputSchema, &page); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]any{"type": "object"}, dig(page, "properties", "pagination")); d != "" || !strings.Contains(fmt.Sprint(page["required"]), "pagination") {
		t.Errorf("list_expenses pagination (-want +got):\n%s\nrequired %v", d, page["required"])
	}
	if !strings.Contains(Instructions, "pagination: page, limit, total_items, total_pages") {
		t.Error("the instructions do not name the pagination's members")
	}
	entry := item("list_activity")
	if props, _ := entry["properties"].(map[string]any); props["actor"] == nil || props["created_at"] == nil {
		t.Errorf("list_activity answers whole entries, but its items leave out actor or created_at: %v", entry)
	}
}

// A short list's tool takes no sorting: the argument is refused by name,
// and the list comes in the route's order; a long list's tool sorts.
func TestShortListsTakeNoSorting(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeAll)
	res := env.callTool(key, "list_accounts", map[string]any{"sortBy": "name"})
	fields, _ := res.problem(t)["fields"].(map[string]any)
	if !res.IsError || !strings.HasPrefix(fmt.Sprint(fields["sortBy"]), "is not an argument of list_accounts") {
		t.Errorf("list_accounts with sortBy: %+v", res.problem(t))
	}
	seedExpenses(t, env, key, 3)
	page := env.okTool(key, "list_expenses", map[string]any{"sortBy": "amount", "sortOrder": "asc"})
	if items := page["items"].([]any); len(items) != 3 || items[0].(map[string]any)["amount"] != json.Number("100.50") {
		t.Errorf("list_expenses by amount, ascending: %v", items)
	}
	// asc or desc is said once, in the instructions, for every list that
	// sorts; another value is the route's 400 naming sortOrder.
	var schema map[string]any
	if err := json.Unmarshal(env.mcp.byName["list_expenses"].inputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]any{"type": "string"}, dig(schema, "properties", "sortOrder")); d != "" || !strings.Contains(Instructions, "sortOrder asc or desc") {
		t.Errorf("list_expenses sortOrder (-want +got):\n%s", d)
	}
	res = env.callTool(key, "list_expenses", map[string]any{"sortOrder": "up"})
	if fields, _ := res.problem(t)["fields"].(map[string]any); !res.IsError || fields["sortOrder"] == nil {
		t.Errorf("list_expenses with sortOrder up: %+v", res.problem(t))
	}
}
