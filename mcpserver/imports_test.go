package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/finance-app/finance/auth"
)

// An agent moves a bank's CSV in through the tools: the file as text (or
// base64) with its name becomes the route's upload, the rows are read and
// changed, the commit writes the ledger and the revert takes it back, and
// each answer is what REST reads back.
func TestImportTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeAccountsWrite, auth.ScopeIncomeWrite, auth.ScopeMCP)
	acct := env.okTool(key, "create_account", map[string]any{"name": "BPI Savings", "type": "savings", "opening_balance": 1000})
	const csv = "Date,Description,Amount\n2026-11-02,STARBUCKS,-150.00\n2026-11-07,PAYROLL,300.00\n"

	res := env.callTool(key, "preview_import", map[string]any{"text": csv, "base64": "eA==", "file_name": "bpi.csv",
		"target_account_id": acct["id"]})
	if fields, _ := res.problem(t)["fields"].(map[string]any); !res.IsError || fields["base64"] == nil {
		t.Errorf("text and base64 together: %+v", res.problem(t))
	}
	res = env.callTool(key, "preview_import", map[string]any{"target_account_id": acct["id"]})
	if fields, _ := res.problem(t)["fields"].(map[string]any); !res.IsError || fields["file"] != "is required: the statement or export to import" {
		t.Errorf("no file: %+v", res.problem(t))
	}

	batch := env.okTool(key, "preview_import", map[string]any{"base64": base64.StdEncoding.EncodeToString([]byte(csv)),
		"file_name": "bpi.csv", "target_account_id": acct["id"]})
	id := batch["id"].(string)
	if batch["status"] != "preview" || batch["file_name"] != "bpi.csv" || batch["format"] != "csv" || len(batch["items"].([]any)) != 2 {
		t.Fatalf("preview: %v", batch)
	}
	// The same file as text reads the same rows.
	again := env.okTool(key, "preview_import", map[string]any{"text": csv, "file_name": "bpi.csv", "target_account_id": acct["id"]})
	if again["id"] == id || len(again["items"].([]any)) != 2 || again["format"] != "csv" {
		t.Errorf("the file as text: %v", again)
	}

	row := env.okTool(key, "update_import_row", map[string]any{"id": id, "line": "3", "category": "Salary"})
	if row["category"] != "Salary" || row["category_reason"] != "set" {
		t.Errorf("row 3: %v", row)
	}
	rows := env.okTool(key, "list_import_rows", map[string]any{"id": id, "action": "create"})
	if n := len(rows["items"].([]any)); n != 2 {
		t.Errorf("rows to create: %d, want 2", n)
	}
	committed := env.okTool(key, "commit_import", map[string]any{"id": id})
	if committed["status"] != "committed" || committed["summary"].(map[string]any)["created"] != json.Number("2") {
		t.Errorf("commit: %v", committed)
	}
	if got := env.readBack("/api/v1/accounts/" + acct["id"].(string))["current_balance"]; got != json.Number("1150.00") {
		t.Errorf("balance after commit = %v, want 1150.00", got)
	}
	if _, got := env.rest(env.key(auth.ScopeAll), http.MethodGet, "/api/v1/imports/"+id, ""); got.Data.(map[string]any)["status"] != "committed" {
		t.Errorf("the batch after commit: %v", got.Data)
	}
	// The same file again matches what the commit wrote, and the rows say which record.
	third := env.okTool(key, "preview_import", map[string]any{"text": csv, "file_name": "bpi.csv", "target_account_id": acct["id"]})
	match := env.okTool(key, "list_import_rows", map[string]any{"id": third["id"], "match": "exact"})
	if items := match["items"].([]any); len(items) != 2 || items[0].(map[string]any)["match"].(map[string]any)["record_id"] == nil {
		t.Errorf("the file previewed again after the commit, its matched rows: %v", match)
	}
	if reverted := env.okTool(key, "revert_import", map[string]any{"id": id}); reverted["status"] != "reverted" {
		t.Errorf("revert: %v", reverted)
	}
	if got := env.readBack("/api/v1/accounts/" + acct["id"].(string))["current_balance"]; got != json.Number("1000.00") {
		t.Errorf("balance after revert = %v, want 1000.00", got)
	}
}
