package mcpserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
)

// Back-dated card charges over MCP (docs/domain.md, Back-dated card
// charges): what the write did to the card's statements reaches the agent
// in the warnings block after the JSON and in structuredContent, from the
// card tool and from create_expense alike.
func TestBackdatedWarningsOverMCP(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeAll)
	manila, _ := time.LoadLocation("Asia/Manila")
	now := time.Now().In(manila)
	day := func(daysAgo int) string { return now.AddDate(0, 0, -daysAgo).Format(time.DateOnly) }

	card := env.okTool(key, "create_credit_card", map[string]any{"name": "Gold", "credit_limit": 500000,
		"statement_day": 1, "due_day": 20})
	// warned calls a write tool and checks that its one warning is code, as
	// text after the JSON and as structured data.
	warned := func(tool string, args map[string]any, code string) map[string]any {
		t.Helper()
		res := env.callTool(key, tool, args)
		if res.IsError {
			t.Fatalf("%s: %s", tool, res.Content[0].Text)
		}
		got := res.structured(t)
		if len(res.Content) != 2 {
			t.Fatalf("%s: want the JSON, then the warnings block; got %+v", tool, res.Content)
		}
		note := res.Content[1].Text
		ws, _ := got["warnings"].([]any)
		if len(ws) != 1 {
			t.Fatalf("%s: warnings %v, want one %s", tool, got["warnings"], code)
		}
		w := ws[0].(map[string]any)
		if w["code"] != code || w["credit_card_id"] != card["id"] ||
			!strings.HasPrefix(note, "Warnings (the write was saved; show these to the user before going on):\n- "+code+": ") ||
			!strings.Contains(note, w["message"].(string)) {
			t.Errorf("%s: warning %v, block %q, want %s", tool, w, note, code)
		}
		return got
	}

	// A purchase two periods back moves Statements from.
	warned("create_credit_card_transaction", map[string]any{"credit_card_id": card["id"], "type": "purchase",
		"amount": json.Number("100"), "date": day(60), "description": "Groceries", "category": "Groceries"}, "STATEMENTS_FROM_MOVED")
	// So does an expense on the card older still.
	warned("create_expense", map[string]any{"amount": json.Number("40"), "date": day(95), "description": "Books",
		"category": "Shopping", "payment_method": "Credit Card", "credit_card_id": card["id"]}, "STATEMENTS_FROM_MOVED")
	before := env.readBack("/api/v1/credit-cards/" + card["id"].(string))["cycle_start_date"]

	// Once a statement has a payment, an older charge waits for the next statement.
	items := env.okTool(key, "list_credit_card_soas", map[string]any{"cardId": card["id"]})["items"].([]any)
	account := env.okTool(key, "create_account", map[string]any{"name": "Payroll", "type": "savings", "opening_balance": 9000})
	if status, res := env.rest(key, http.MethodPost, "/api/v1/credit-cards/soa/"+items[0].(map[string]any)["id"].(string)+"/payments",
		`{"amount":10,"account_id":"`+account["id"].(string)+`"}`); status != http.StatusCreated {
		t.Fatalf("payment: %d %v", status, res.Error)
	}
	got := warned("create_expense", map[string]any{"amount": json.Number("7"), "date": day(130), "description": "Old",
		"category": "Shopping", "payment_method": "Credit Card", "credit_card_id": card["id"]}, "BILLED_ON_NEXT_STATEMENT")
	// It is billed on the first statement a period with no statement yet
	// gets, or waits unbilled; never on the paid one.
	row := env.readBack("/api/v1/credit-cards/transactions/" + got["card_transaction_id"].(string))
	if row["soa_id"] == items[0].(map[string]any)["id"] {
		t.Errorf("the charge after a payment joined the paid statement: %v", row)
	}
	if after := env.readBack("/api/v1/credit-cards/" + card["id"].(string))["cycle_start_date"]; after != before {
		t.Errorf("Statements from moved from %v to %v after a payment", before, after)
	}
}
