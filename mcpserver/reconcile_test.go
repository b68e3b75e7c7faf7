package mcpserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/finance-app/finance/auth"
)

// Reconciling through the tools: update_account_transaction ticks a line
// off with cleared alone, reconcile_account answers the difference while
// a line is pending and locks the cleared lines once the balances agree.
func TestReconcileTools(t *testing.T) {
	env := newTestEnv(t)
	all := env.key(auth.ScopeAll)
	key := env.key(auth.ScopeAccountsWrite, auth.ScopeMCP)
	_, res := env.rest(all, http.MethodPost, "/api/v1/accounts", `{"name":"BPI","type":"savings","opening_balance":1000}`)
	acct := res.Data.(map[string]any)["id"].(string)
	_, res = env.rest(all, http.MethodPost, "/api/v1/accounts/"+acct+"/transactions", `{"type":"debit","amount":250.25,"date":"2026-03-02"}`)
	line := res.Data.(map[string]any)["id"].(string)

	miss := env.okTool(key, "reconcile_account", map[string]any{"id": acct, "date": "2026-03-31", "statement_balance": "749.75"})
	if miss["reconciled"] != false || miss["difference"] != json.Number("-250.25") || miss["uncleared_count"] != json.Number("1") {
		t.Errorf("reconcile with the line pending: %v", miss)
	}
	ticked := env.okTool(key, "update_account_transaction", map[string]any{"id": acct, "transactionId": line, "cleared": "cleared"})
	if ticked["cleared"] != "cleared" {
		t.Errorf("update_account_transaction cleared: %v", ticked)
	}
	hit := env.okTool(key, "reconcile_account", map[string]any{"id": acct, "date": "2026-03-31", "statement_balance": "749.75"})
	if hit["reconciled"] != true || hit["reconciled_count"] != json.Number("1") {
		t.Errorf("reconcile with the line cleared: %v", hit)
	}
	if got := env.readBack("/api/v1/accounts/" + acct + "/transactions?cleared=reconciled")["pagination"].(map[string]any)["total_items"]; got != json.Number("1") {
		t.Errorf("%v reconciled lines after the reconcile, want 1", got)
	}
	env.toolErrorLikeREST(t, key, all, "update_account_transaction", `{"id":"`+acct+`","transactionId":"`+line+`","amount":1}`,
		http.MethodPut, "/api/v1/accounts/"+acct+"/transactions/"+line, `{"amount":1}`, "INVALID_STATUS")
}
