package mcpserver

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// Statements through the tools: a statement generated from a back-dated
// purchase is read, paid, refused an overpayment exactly as REST refuses it,
// and reset, with every effect read back over REST.
func TestStatementTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeCardsWrite, auth.ScopeAccountsWrite, auth.ScopeMCP)
	manila, _ := time.LoadLocation("Asia/Manila")
	today := time.Now().In(manila)
	day := func(daysAgo int) string { return today.AddDate(0, 0, -daysAgo).Format(time.DateOnly) }

	card := env.okTool(key, "create_credit_card", map[string]any{"name": "Gold", "credit_limit": 50000,
		"statement_day": 1, "due_day": 20, "cycle_start_date": day(90)})
	account := env.okTool(key, "create_account", map[string]any{"name": "Payroll", "type": "savings", "opening_balance": 9000})
	env.okTool(key, "create_credit_card_transaction", map[string]any{"credit_card_id": card["id"], "type": "purchase",
		"amount": json.Number("1234.56"), "date": day(60), "description": "Groceries", "category": "Groceries"})

	list := env.okTool(key, "list_credit_card_soas", map[string]any{"cardId": card["id"]})
	items := list["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("statements %v, want the one that billed the purchase", items)
	}
	soaID := items[0].(map[string]any)["id"].(string)
	got := env.okTool(key, "get_credit_card_soa", map[string]any{"id": soaID})
	if got["statement_balance"] != json.Number("1234.56") || len(got["transactions"].([]any)) != 1 {
		t.Errorf("statement %v", got)
	}

	route := "/api/v1/credit-cards/soa/" + soaID + "/payments"
	body := `{"amount":"1234.57","account_id":"` + account["id"].(string) + `"}`
	env.toolErrorLikeREST(t, key, key, "record_credit_card_soa_payment", `{"id":"`+soaID+`","amount":"1234.57","account_id":"`+
		account["id"].(string)+`"}`, http.MethodPost, route, body, "VALIDATION_ERROR")

	paid := env.okTool(key, "record_credit_card_soa_payment", map[string]any{"id": soaID, "amount": json.Number("1000"),
		"account_id": account["id"]})
	if soa := paid["soa"].(map[string]any); soa["status"] != "partially_paid" || soa["remaining"] != json.Number("234.56") {
		t.Errorf("after paying: %v", soa)
	}
	if stored := env.readBack("/api/v1/accounts/" + account["id"].(string)); stored["current_balance"] != json.Number("8000.00") {
		t.Errorf("account after the payment: %v", stored["current_balance"])
	}
	voided := env.okTool(key, "void_credit_card_soa", map[string]any{"id": soaID})
	fresh := env.readBack("/api/v1/credit-cards/soa/" + voided["replaced_by_id"].(string))
	if voided["status"] != "voided" || fresh["paid_total"] != json.Number("0.00") || fresh["statement_balance"] != json.Number("1234.56") {
		t.Errorf("void: %v, fresh %v", voided, fresh)
	}
	if stored := env.readBack("/api/v1/accounts/" + account["id"].(string)); stored["current_balance"] != json.Number("9000.00") {
		t.Errorf("account after the void: %v", stored["current_balance"])
	}
	// The void answers the statement's figures; its lines are GET's to list.
	stored := env.readBack("/api/v1/credit-cards/soa/" + soaID)
	delete(stored, "transactions")
	if diff := cmp.Diff(stored, voided); diff != "" {
		t.Errorf("void's result differs from the stored statement (-stored +tool):\n%s", diff)
	}
}
