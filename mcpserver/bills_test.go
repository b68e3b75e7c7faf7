package mcpserver

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
)

// Bills through the tools: a template is created, its bill found, paid
// (once, whatever the retries with the same key), refused an overpayment and
// an illegal status exactly as REST refuses them, and the payment undone, with
// every effect read back over REST.
func TestBillTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeBillsWrite, auth.ScopeAccountsWrite, auth.ScopeMCP)
	manila, _ := time.LoadLocation("Asia/Manila")
	today := time.Now().In(manila).Format(time.DateOnly)

	account := env.okTool(key, "create_account", map[string]any{"name": "Payroll", "type": "savings", "opening_balance": 10000})
	accountID := account["id"].(string)
	tmpl := env.okTool(key, "create_bill_template", map[string]any{"name": "Electricity", "amount": json.Number("3200.50"),
		"category": "Utilities", "frequency": "monthly", "start_date": today,
		"default_payment_method": "Account Debit", "default_account_id": accountID})
	tmplID := tmpl["id"].(string)

	list := env.okTool(key, "list_bills", map[string]any{"templateId": tmplID, "status": "open"})
	items := list["items"].([]any)
	if len(items) < 2 {
		t.Fatalf("bills %v, want this month's and next month's", items)
	}
	bill := items[0].(map[string]any)
	billID := bill["id"].(string)
	if bill["due_date"] != today || bill["amount"] != json.Number("3200.50") || bill["default_payment_method"] != "Account Debit" {
		t.Errorf("first bill %v", bill)
	}
	if got := env.okTool(key, "get_bill", map[string]any{"id": billID}); got["remaining"] != json.Number("3200.50") {
		t.Errorf("get_bill %v", got)
	}

	route := "/api/v1/bills/" + billID + "/payments"
	env.toolErrorLikeREST(t, key, key, "record_bill_payment", `{"id":"`+billID+`","amount":"3200.51"}`,
		http.MethodPost, route, `{"amount":"3200.51"}`, "VALIDATION_ERROR")

	args := map[string]any{"id": billID, "amount": json.Number("1000"), "idempotency_key": "electricity-" + today}
	paid := env.okTool(key, "record_bill_payment", args)
	again := env.okTool(key, "record_bill_payment", args) // a retry after a lost reply
	payment := paid["payment"].(map[string]any)
	if again["payment"].(map[string]any)["id"] != payment["id"] {
		t.Errorf("a retry with the same key recorded another payment: %v", again["payment"])
	}
	if b := paid["bill"].(map[string]any); b["status"] != "partially_paid" || b["remaining"] != json.Number("2200.50") {
		t.Errorf("bill after paying %v", b)
	}
	if stored := env.readBack("/api/v1/accounts/" + accountID); stored["current_balance"] != json.Number("9000.00") {
		t.Errorf("account after one payment (sent twice): %v", stored["current_balance"])
	}
	expense := env.readBack("/api/v1/expenses/" + payment["expense_id"].(string))
	if expense["source"] != "bill_payment" || expense["bill_payment_id"] != payment["id"] || expense["description"] != "Electricity (due "+today+")" {
		t.Errorf("the payment's expense %v", expense)
	}

	env.toolErrorLikeREST(t, key, key, "update_bill_status", `{"id":"`+billID+`","status":"skipped"}`,
		http.MethodPost, "/api/v1/bills/"+billID+"/status", `{"status":"skipped"}`, "INVALID_STATUS")

	payments := env.okTool(key, "list_bill_payments", map[string]any{"id": billID})
	if n := len(payments["items"].([]any)); n != 1 {
		t.Errorf("%d payments listed, want 1", n)
	}
	undone := env.okTool(key, "delete_bill_payment", map[string]any{"paymentId": payment["id"]})
	if b := undone["bill"].(map[string]any); b["status"] != "unpaid" || b["paid_total"] != json.Number("0.00") {
		t.Errorf("bill after deleting the payment %v", b)
	}
	if stored := env.readBack("/api/v1/accounts/" + accountID); stored["current_balance"] != json.Number("10000.00") {
		t.Errorf("account after deleting the payment: %v", stored["current_balance"])
	}

	if got := env.okTool(key, "update_bill_status", map[string]any{"id": billID, "status": "skipped"}); got["status"] != "skipped" {
		t.Errorf("skipped bill %v", got)
	}
	edited := env.okTool(key, "update_bill_instance", map[string]any{"id": items[1].(map[string]any)["id"], "amount": 3400})
	if edited["amount"] != json.Number("3400.00") {
		t.Errorf("edited bill %v", edited)
	}
	summary := env.okTool(key, "get_bills_summary", map[string]any{})
	if summary["currency"] != "PHP" || summary["by_status"].(map[string]any)["skipped"].(map[string]any)["count"] != json.Number("1") {
		t.Errorf("summary %v", summary)
	}
	if got := env.okTool(key, "update_bill_template", map[string]any{"id": tmplID, "status": "paused"}); got["status"] != "paused" {
		t.Errorf("paused template %v", got)
	}
	env.okTool(key, "delete_bill_template", map[string]any{"id": tmplID})
	env.toolErrorLikeREST(t, key, key, "get_bill_template", `{"id":"`+tmplID+`"}`, http.MethodGet, "/api/v1/bills/templates/"+tmplID, "", "NOT_FOUND")
	// The skipped and the edited bills outlive their template.
	left := env.readBack("/api/v1/bills?templateId=" + tmplID)
	if n := len(left["items"].([]any)); n != 2 {
		t.Errorf("%d bills left after removing the template, want the skipped and the edited one", n)
	}
}
