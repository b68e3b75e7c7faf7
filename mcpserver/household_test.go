package mcpserver

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/ai/aitest"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/server"
)

// The tools an agent running a household fell back to REST for, each
// through the server as a key with the route's scope: what each writes is
// read back through REST, and a refusal writes nothing.

func TestLoanWriteTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeLoansWrite, auth.ScopeMCP)
	manila, _ := time.LoadLocation("Asia/Manila")
	start := time.Now().In(manila).AddDate(0, -1, 0).Format(time.DateOnly)
	args := map[string]any{"name": "Car", "principal": 120000, "interest_type": "none",
		"term_months": 12, "start_date": start, "idempotency_key": "loan-car-1"}

	loan := env.okTool(key, "create_loan", args)
	id := loan["id"].(string)
	if again := env.okTool(key, "create_loan", args); again["id"] != id {
		t.Errorf("a retry with the same key made loan %v, want %s", again["id"], id)
	}
	stored := env.readBack("/api/v1/loans/" + id)
	if stored["status"] != "active" || stored["principal"] != json.Number("120000.00") || len(stored["instances"].([]any)) != 12 {
		t.Errorf("stored loan %v", stored)
	}
	if n := len(env.readBack("/api/v1/loans")["items"].([]any)); n != 1 {
		t.Errorf("%d loans, want 1", n)
	}

	// cancel_loan takes the loan's id alone and cancels its open
	// instances; update_loan changes the rest and reactivates it.
	res := env.callTool(key, "cancel_loan", map[string]any{"id": id, "status": "active"})
	if problem := res.problem(t); !res.IsError || problem["code"] != "VALIDATION_ERROR" {
		t.Errorf("cancel_loan with a status: %v", problem)
	}
	env.okTool(key, "update_loan", map[string]any{"id": id, "lender": "City Bank"})
	env.okTool(key, "cancel_loan", map[string]any{"id": id})
	stored = env.readBack("/api/v1/loans/" + id)
	first := stored["instances"].([]any)[0].(map[string]any)
	if stored["status"] != "cancelled" || stored["lender"] != "City Bank" || first["status"] != "cancelled" {
		t.Errorf("after cancelling: status %v, lender %v, first instance %v", stored["status"], stored["lender"], first["status"])
	}
	env.toolErrorLikeREST(t, key, key, "cancel_loan", `{"id":"`+id+`"}`,
		http.MethodPatch, "/api/v1/loans/"+id, `{"status":"cancelled"}`, "INVALID_STATUS")
	env.okTool(key, "update_loan", map[string]any{"id": id, "status": "active"})
	if got := env.readBack("/api/v1/loans/" + id); got["status"] != "active" {
		t.Errorf("after reactivating: %v", got["status"])
	}

	deleted := env.okTool(key, "delete_loan", map[string]any{"id": id})
	if deleted["id"] != id {
		t.Errorf("delete answered %v", deleted)
	}
	if status, _ := env.rest(env.key(auth.ScopeAll), http.MethodGet, "/api/v1/loans/"+id, ""); status != http.StatusNotFound {
		t.Errorf("the deleted loan reads %d, want 404", status)
	}
}

func TestCreateExpensesTool(t *testing.T) {
	env := newTestEnv(t)
	all := env.key(auth.ScopeAll)
	key := env.key(auth.ScopeExpensesWrite, auth.ScopeMCP)
	_, acct := env.rest(all, http.MethodPost, "/api/v1/accounts", `{"name":"Payroll","type":"savings","opening_balance":1000}`)
	accountID := acct.Data.(map[string]any)["id"].(string)
	today := time.Now().In(mustLocation(t, "Asia/Manila")).Format(time.DateOnly)

	// One bad item refuses the lot, naming it, and writes nothing.
	bad := `{"items":[{"amount":120,"date":"` + today + `","category":"Food & Dining","payment_method":"Cash"},` +
		`{"amount":-1,"date":"` + today + `","category":"Food & Dining","payment_method":"Cash"}]}`
	_, problem := env.toolErrorLikeREST(t, key, key, "create_expenses", bad, http.MethodPost, "/api/v1/expenses/bulk", bad, "VALIDATION_ERROR")
	if fields, _ := problem["fields"].(map[string]any); fields["items[1].amount"] == nil {
		t.Errorf("the refusal names %v, want items[1].amount", problem["fields"])
	}
	if n := len(env.readBack("/api/v1/expenses")["items"].([]any)); n != 0 {
		t.Fatalf("a refused bulk wrote %d expenses", n)
	}

	res := env.okTool(key, "create_expenses", map[string]any{"items": []any{
		map[string]any{"amount": 120, "date": today, "description": "Coffee", "category": "Food & Dining", "payment_method": "Cash"},
		map[string]any{"amount": json.Number("250.50"), "date": today, "description": "Groceries", "category": "Groceries",
			"payment_method": "Account Debit", "account_id": accountID},
	}})
	items := res["items"].([]any)
	if res["count"] != json.Number("2") || len(items) != 2 || items[1].(map[string]any)["description"] != "Groceries" {
		t.Errorf("bulk reply %v", res)
	}
	if n := len(env.readBack("/api/v1/expenses")["items"].([]any)); n != 2 {
		t.Errorf("%d expenses stored, want 2", n)
	}
	if got := env.readBack("/api/v1/accounts/" + accountID)["current_balance"]; got != json.Number("749.50") {
		t.Errorf("account balance %v, want 749.50", got)
	}
}

func TestAccountAndCardArchiveTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeAccountsWrite, auth.ScopeCardsWrite, auth.ScopeMCP)
	today := time.Now().In(mustLocation(t, "Asia/Manila")).Format(time.DateOnly)
	account := env.okTool(key, "create_account", map[string]any{"name": "Wallet", "type": "cash", "opening_balance": 500})
	id := account["id"].(string)

	// A manual line is voided and leaves the balance.
	line := env.okTool(key, "create_account_transaction", map[string]any{"id": id, "type": "debit", "amount": 200, "date": today,
		"description": "ATM fee"})
	voided := env.okTool(key, "void_account_transaction", map[string]any{"id": id, "transactionId": line["id"]})
	if voided["status"] != "voided" {
		t.Errorf("void answered %v", voided)
	}
	if got := env.readBack("/api/v1/accounts/" + id)["current_balance"]; got != json.Number("500.00") {
		t.Errorf("balance after the void %v, want 500.00", got)
	}
	route := "/api/v1/accounts/" + id + "/transactions/" + line["id"].(string)
	env.toolErrorLikeREST(t, key, key, "void_account_transaction", `{"id":"`+id+`","transactionId":"`+line["id"].(string)+`"}`,
		http.MethodDelete, route, "", "INVALID_STATUS")

	env.okTool(key, "archive_account", map[string]any{"id": id})
	if got := env.readBack("/api/v1/accounts/" + id)["status"]; got != "archived" {
		t.Errorf("account status %v after archive_account", got)
	}
	env.toolErrorLikeREST(t, key, key, "archive_account", `{"id":"`+id+`"}`, http.MethodPatch, "/api/v1/accounts/"+id+"/archive", "", "INVALID_STATUS")
	env.okTool(key, "unarchive_account", map[string]any{"id": id})
	if got := env.readBack("/api/v1/accounts/" + id)["status"]; got != "active" {
		t.Errorf("account status %v after unarchive_account", got)
	}

	card := env.okTool(key, "create_credit_card", map[string]any{"name": "Gold", "credit_limit": 50000, "statement_day": 1, "due_day": 20})
	cardID := card["id"].(string)
	env.okTool(key, "archive_credit_card", map[string]any{"id": cardID})
	if got := env.readBack("/api/v1/credit-cards/" + cardID)["status"]; got != "archived" {
		t.Errorf("card status %v after archive_credit_card", got)
	}
	env.okTool(key, "unarchive_credit_card", map[string]any{"id": cardID})
	if got := env.readBack("/api/v1/credit-cards/" + cardID)["status"]; got != "active" {
		t.Errorf("card status %v after unarchive_credit_card", got)
	}
}

func TestCategoryTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeSettingsWrite, auth.ScopeMCP)
	created := env.okTool(key, "create_category", map[string]any{"name": "Coffee", "kind": "expense"})
	id := created["id"].(string)
	env.okTool(key, "update_category", map[string]any{"id": id, "name": "Coffee & Tea", "color": "#6F4E37"})
	stored := env.readBack("/api/v1/categories/" + id)
	if stored["name"] != "Coffee & Tea" || stored["color"] != "#6F4E37" || stored["status"] != "active" {
		t.Errorf("renamed category %v", stored)
	}
	env.toolErrorLikeREST(t, key, key, "update_category", `{"id":"`+id+`","kind":"income"}`,
		http.MethodPut, "/api/v1/categories/"+id, `{"kind":"income"}`, "VALIDATION_ERROR")
	env.okTool(key, "archive_category", map[string]any{"id": id})
	if got := env.readBack("/api/v1/categories/" + id)["status"]; got != "archived" {
		t.Errorf("category status %v after archive_category", got)
	}
}

func mustLocation(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// The assistant's model is offered the tool table without the tools that
// run the AI themselves: it would otherwise parse through a second model,
// or call the assistant back.
func TestAssistantTableLeavesOutTheAITools(t *testing.T) {
	env := newTestEnv(t)
	names := env.mcp.ToolNames()
	for _, name := range []string{"parse_receipt_images"} {
		if slices.Contains(names, name) {
			t.Errorf("the assistant's table offers %s", name)
		}
	}
	for _, name := range []string{"create_expenses", "create_loan", "list_expenses"} {
		if !slices.Contains(names, name) {
			t.Errorf("the assistant's table lacks %s", name)
		}
	}
}

// A receipt photo goes to the tool as base64 and reaches the route as the
// form it takes; the route's own checks answer for what is not an image,
// and nothing is saved.
func TestParseReceiptImagesTool(t *testing.T) {
	aitest.RequireOCR(t)
	ocr, err := ai.FindOCR("", 0)
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(t, func(c *server.Config) { c.AI = ai.New(ai.Config{OCR: ocr}) })
	key := env.key(auth.ScopeExpensesWrite, auth.ScopeMCP)
	photo := base64.StdEncoding.EncodeToString(aitest.ReceiptPNG(t, aitest.SampleReceipt))

	drafts := env.okTool(key, "parse_receipt_images", map[string]any{"images": []any{photo}})
	items := drafts["items"].([]any)
	if drafts["engine"] != "ocr" || len(items) != 1 {
		t.Fatalf("drafts %v", drafts)
	}
	if d := items[0].(map[string]any); d["amount"] != json.Number("492.00") || d["description"] != "Jollibee Foods" {
		t.Errorf("draft %v", d)
	}

	res := env.callTool(key, "parse_receipt_images", map[string]any{"images": []any{photo,
		base64.StdEncoding.EncodeToString([]byte("%PDF-1.7 receipt"))}})
	problem := res.problem(t)
	if fields, _ := problem["fields"].(map[string]any); !res.IsError || problem["code"] != "VALIDATION_ERROR" ||
		fields["images[1]"] != "must be a PNG, JPEG or WebP image" {
		t.Errorf("a PDF: %+v", problem)
	}
	res = env.callTool(key, "parse_receipt_images", map[string]any{"images": []any{"not base64!"}})
	if fields, _ := res.problem(t)["fields"].(map[string]any); !res.IsError || fields["images[0]"] != "must be base64 text" {
		t.Errorf("text that is not base64: %+v", res.problem(t))
	}
	if n := len(env.readBack("/api/v1/expenses")["items"].([]any)); n != 0 {
		t.Errorf("parsing saved %d expenses", n)
	}
}
