package mcpserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// Transfers through the tools: create_transfer moves money between two
// accounts with a fee expense, list_transfers answers what REST answers,
// delete_transfer voids it all, and a refusal is the REST route's error.
func TestTransferTools(t *testing.T) {
	env := newTestEnv(t)
	all := env.key(auth.ScopeAll)
	key := env.key(auth.ScopeAccountsWrite, auth.ScopeMCP)
	ids := map[string]string{}
	for _, body := range []string{`{"name":"BPI","type":"savings","opening_balance":1000}`, `{"name":"GCash","type":"e_wallet"}`} {
		_, res := env.rest(all, http.MethodPost, "/api/v1/accounts", body)
		a := res.Data.(map[string]any)
		ids[a["name"].(string)] = a["id"].(string)
	}

	tr := env.okTool(key, "create_transfer", map[string]any{"from_account_id": ids["BPI"], "to_account_id": ids["GCash"],
		"amount": "250.50", "date": "2026-03-02", "fee": 10, "idempotency_key": "4f6c0c1e-2f1a-4a43-9d0f-6a4a3f1d2e10"})
	if tr["from_account_name"] != "BPI" || tr["to_account_name"] != "GCash" || tr["fee_category"] != "Miscellaneous" {
		t.Errorf("create_transfer: %v", tr)
	}
	balance := func(name string) any { return env.readBack("/api/v1/accounts/" + ids[name])["current_balance"] }
	if b, g := balance("BPI"), balance("GCash"); b != json.Number("739.50") || g != json.Number("250.50") {
		t.Errorf("balances %v, %v; want 739.50, 250.50", b, g)
	}
	// A retry with the same key moves nothing more.
	env.okTool(key, "create_transfer", map[string]any{"from_account_id": ids["BPI"], "to_account_id": ids["GCash"],
		"amount": "250.50", "date": "2026-03-02", "fee": 10, "idempotency_key": "4f6c0c1e-2f1a-4a43-9d0f-6a4a3f1d2e10"})
	if b := balance("BPI"); b != json.Number("739.50") {
		t.Errorf("BPI %v after a retried call", b)
	}

	want := compacted(env.readBack("/api/v1/transfers?accountId=" + ids["GCash"]))
	if diff := cmp.Diff(want, any(env.okTool(key, "list_transfers", map[string]any{"accountId": ids["GCash"]}))); diff != "" {
		t.Errorf("list_transfers differs from REST (-rest +tool):\n%s", diff)
	}

	env.toolErrorLikeREST(t, key, all, "create_transfer",
		`{"from_account_id":"`+ids["BPI"]+`","to_account_id":"`+ids["BPI"]+`","amount":1,"date":"2026-03-02"}`,
		http.MethodPost, "/api/v1/transfers", `{"from_account_id":"`+ids["BPI"]+`","to_account_id":"`+ids["BPI"]+`","amount":1,"date":"2026-03-02"}`,
		"VALIDATION_ERROR")

	gone := env.okTool(key, "delete_transfer", map[string]any{"id": tr["id"]})
	if gone["status"] != "voided" {
		t.Errorf("delete_transfer: %v", gone)
	}
	if b, g := balance("BPI"), balance("GCash"); b != json.Number("1000.00") || g != json.Number("0.00") {
		t.Errorf("balances after delete %v, %v", b, g)
	}
}
