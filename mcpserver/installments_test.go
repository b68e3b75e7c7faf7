package mcpserver

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// Installment plans through the tools: a purchase is converted, the plan is
// listed and read exactly as REST shows it, a second conversion and a second
// cancel are refused exactly as REST refuses them, and the cancel's effects
// are read back over REST.
func TestInstallmentTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeCardsWrite, auth.ScopeMCP)
	manila, _ := time.LoadLocation("Asia/Manila")
	today := time.Now().In(manila).Format(time.DateOnly)

	card := env.okTool(key, "create_credit_card", map[string]any{"name": "Gold", "credit_limit": 50000,
		"statement_day": 1, "due_day": 20})
	purchase := env.okTool(key, "create_credit_card_transaction", map[string]any{"credit_card_id": card["id"], "type": "purchase",
		"amount": json.Number("1200"), "date": today, "description": "Phone", "category": "Shopping"})
	txID := purchase["id"].(string)

	plan := env.okTool(key, "convert_transaction_to_installment", map[string]any{"id": txID, "months": 3,
		"interest_type": "add_on", "interest_rate": json.Number("1")})
	if plan["status"] != "active" || plan["total_interest"] != json.Number("36.00") || plan["total_payable"] != json.Number("1236.00") ||
		len(plan["installments"].([]any)) != 3 {
		t.Errorf("converted plan %v", plan)
	}
	planID := plan["id"].(string)
	if diff := cmp.Diff(env.readBack("/api/v1/credit-cards/installment-plans/"+planID), plan); diff != "" {
		t.Errorf("the tool's plan differs from the stored one (-stored +tool):\n%s", diff)
	}
	if src := env.readBack("/api/v1/credit-cards/transactions/" + txID); src["status"] != "converted" {
		t.Errorf("purchase after the conversion: %v", src["status"])
	}
	if diff := cmp.Diff(compacted(env.readBack("/api/v1/credit-cards/installment-plans?status=active")),
		any(env.okTool(key, "list_installment_plans", map[string]any{"status": "active"}))); diff != "" {
		t.Errorf("list_installment_plans differs from REST (-rest +tool):\n%s", diff)
	}
	if diff := cmp.Diff(plan, env.okTool(key, "get_installment_plan", map[string]any{"id": planID})); diff != "" {
		t.Errorf("get_installment_plan differs from the conversion's result (-convert +get):\n%s", diff)
	}

	env.toolErrorLikeREST(t, key, key, "convert_transaction_to_installment", `{"id":"`+txID+`","months":3}`,
		http.MethodPost, "/api/v1/credit-cards/transactions/"+txID+"/convert-to-installment", `{"months":3}`, "INVALID_STATUS")

	cancelled := env.okTool(key, "cancel_installment_plan", map[string]any{"id": planID})
	if cancelled["status"] != "cancelled" || cancelled["cancelled_at"] == nil || cancelled["total_interest"] != json.Number("0.00") {
		t.Errorf("cancelled plan %v", cancelled)
	}
	for _, row := range cancelled["installments"].([]any) {
		if row.(map[string]any)["status"] != "voided" {
			t.Errorf("row after the cancel: %v", row)
		}
	}
	if src := env.readBack("/api/v1/credit-cards/transactions/" + txID); src["status"] != "unbilled" {
		t.Errorf("purchase after the cancel: %v", src["status"])
	}
	env.toolErrorLikeREST(t, key, key, "cancel_installment_plan", `{"id":"`+planID+`"}`,
		http.MethodPost, "/api/v1/credit-cards/installment-plans/"+planID+"/cancel", "", "INVALID_STATUS")
}
