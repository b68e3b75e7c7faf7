package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// An agent's writes say so: an expense created through MCP has source
// agent, and its entry names the key and the door; the same key over REST
// writes source manual; an edit keeps the expense's source. list_activity
// answers what GET /activity does, and needs finance:read.
func TestActivityOfAnAgent(t *testing.T) {
	env := newTestEnv(t)
	k, key, err := env.auth.CreateKey(context.Background(), auth.CreateKeyRequest{UserID: env.user.ID, Name: "Household agent",
		Scopes: []string{string(auth.ScopeRead), string(auth.ScopeExpensesWrite), string(auth.ScopeMCP)}})
	if err != nil {
		t.Fatal(err)
	}
	lunch := map[string]any{"amount": json.Number("350"), "date": "2025-03-10", "description": "Lunch",
		"category": "Food & Dining", "payment_method": "Cash"}
	byAgent := env.okTool(key, "create_expense", lunch)
	if byAgent["source"] != "agent" {
		t.Errorf("an expense created through MCP: source %v", byAgent["source"])
	}
	status, res := env.rest(key, http.MethodPost, "/api/v1/expenses", expenseBody("120", "Cash", ""))
	if status != http.StatusCreated {
		t.Fatalf("REST create: %d %v", status, res.Error)
	}
	byREST := res.Data.(map[string]any)
	if byREST["source"] != "manual" {
		t.Errorf("an expense created over REST with the same key: source %v", byREST["source"])
	}
	// An edit through the other door keeps each expense's source.
	env.okTool(key, "update_expense", map[string]any{"id": byREST["id"], "description": "Taxi"})
	status, res = env.rest(key, http.MethodPut, "/api/v1/expenses/"+byAgent["id"].(string), `{"description":"Team lunch"}`)
	if status != http.StatusOK {
		t.Fatalf("REST update: %d %v", status, res.Error)
	}
	if got := env.readBack("/api/v1/expenses/" + byAgent["id"].(string)); got["source"] != "agent" || got["description"] != "Team lunch" {
		t.Errorf("the agent's expense after a REST edit: %v", got)
	}
	if got := env.readBack("/api/v1/expenses/" + byREST["id"].(string)); got["source"] != "manual" || got["description"] != "Taxi" {
		t.Errorf("the REST expense after an agent's edit: %v", got)
	}

	listed := env.okTool(key, "list_activity", map[string]any{"source": "agent"})
	_, restList := env.rest(key, http.MethodGet, "/api/v1/activity?source=agent", "")
	if diff := cmp.Diff(restList.Data, any(listed)); diff != "" {
		t.Errorf("list_activity differs from GET /activity (-rest +tool):\n%s", diff)
	}
	items := listed["items"].([]any)
	if len(items) != 2 {
		t.Fatalf("the agent's entries: %v", items)
	}
	wantActor := map[string]any{"kind": "api_key", "id": k.ID, "name": "Household agent"}
	newest, oldest := items[0].(map[string]any), items[1].(map[string]any)
	if newest["action"] != "updated" || newest["record_id"] != byREST["id"] || newest["summary"] != `description "Lunch" → "Taxi"` ||
		oldest["action"] != "created" || oldest["record_id"] != byAgent["id"] || oldest["amount"] != json.Number("350.00") {
		t.Errorf("the agent's entries, newest first: %v", items)
	}
	for _, it := range items {
		if e := it.(map[string]any); e["source"] != "agent" || !cmp.Equal(e["actor"], any(wantActor)) {
			t.Errorf("entry %v: want source agent and actor %v", e, wantActor)
		}
	}
	if manual := env.okTool(key, "list_activity", map[string]any{"source": "manual", "kind": "expense"}); len(manual["items"].([]any)) != 2 {
		t.Errorf("the key's REST writes: %v", manual["items"])
	}
	if res := env.callTool(key, "list_activity", map[string]any{"actor": "robot"}); res.problem(t)["code"] != "VALIDATION_ERROR" {
		t.Errorf("a bad actor: %s", res.Content[0].Text)
	}

	// Writing is not reading: a key without finance:read has no list_activity.
	if slices.Contains(env.listTools(env.key(auth.ScopeExpensesWrite, auth.ScopeMCP)), "list_activity") {
		t.Error("list_activity is listed for a key without finance:read")
	}
}

// An agent's skip of an expected income is the agent's write, and
// list_activity's kind filter takes the new kinds.
func TestActivityOfAnAgentsSkip(t *testing.T) {
	env := newTestEnv(t)
	k, key, err := env.auth.CreateKey(context.Background(), auth.CreateKeyRequest{UserID: env.user.ID, Name: "Household agent",
		Scopes: []string{string(auth.ScopeRead), string(auth.ScopeIncomeWrite), string(auth.ScopeAccountsWrite), string(auth.ScopeMCP)}})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now().AddDate(0, -1, 0).Format("2006-01-02") // within the 366 days a template may start back
	status, res := env.rest(key, http.MethodPost, "/api/v1/income/templates", `{"name":"Salary","amount":"25000","category":"Salary",`+
		`"frequency":"monthly","start_date":"`+start+`","due_day":15}`)
	if status != http.StatusCreated {
		t.Fatalf("POST /income/templates: %d %v", status, res.Error)
	}
	expected := env.okTool(key, "list_expected_income", map[string]any{})["items"].([]any)[0].(map[string]any)
	env.okTool(key, "skip_expected_income", map[string]any{"id": expected["id"]})

	listed := env.okTool(key, "list_activity", map[string]any{"kind": "expected_income"})["items"].([]any)
	want := []any{map[string]any{"id": "", "created_at": "", "actor": map[string]any{"kind": "api_key", "id": k.ID, "name": "Household agent"},
		"source": "agent", "kind": "expected_income", "record_id": expected["id"], "action": "updated",
		"summary": `Skipped "Salary" of 25000.00 due ` + expected["expected_date"].(string), "amount": json.Number("25000.00")}}
	for _, it := range listed {
		e := it.(map[string]any)
		e["id"], e["created_at"] = "", ""
	}
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("list_activity kind expected_income (-want +got):\n%s", diff)
	}
	if templates := env.okTool(key, "list_activity", map[string]any{"kind": "income_template"})["items"].([]any); len(templates) != 1 ||
		templates[0].(map[string]any)["source"] != "manual" {
		t.Errorf("the template created over REST: %v", templates)
	}
}
