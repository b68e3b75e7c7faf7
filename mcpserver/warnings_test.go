package mcpserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// Warnings over MCP (docs/domain.md, Warnings): a write that looks like a
// mistake is saved, its result's text block after the JSON lists the
// warnings for the agent to show, the JSON block and structuredContent
// carry them as REST does, and a write with nothing to warn about has
// neither.
func TestWriteWarnings(t *testing.T) {
	env := newTestEnv(t)
	all := env.key(auth.ScopeAll)
	key := env.key(auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP)
	manila, _ := time.LoadLocation("Asia/Manila")
	now := time.Now().In(manila)
	today := now.Format(time.DateOnly)

	created := func(route, body string) map[string]any {
		t.Helper()
		status, res := env.rest(all, http.MethodPost, route, body)
		if status != http.StatusCreated {
			t.Fatalf("POST %s: %d %v", route, status, res.Error)
		}
		return res.Data.(map[string]any)
	}
	wallet := created("/api/v1/accounts", `{"name":"Wallet","type":"e_wallet","opening_balance":100}`)["id"].(string)
	card := created("/api/v1/credit-cards", `{"name":"BPI Gold","credit_limit":1000,"statement_day":25,"due_day":15}`)["id"].(string)
	created("/api/v1/bills/templates", `{"name":"Rent","amount":15000,"category":"Rent & Housing","frequency":"monthly","start_date":"`+today+`"}`)
	bills := env.readBack("/api/v1/bills?status=open&dateFrom=" + today + "&dateTo=" + today)["items"].([]any)
	if len(bills) != 1 {
		t.Fatalf("open bills due today: %v", bills)
	}
	rent := bills[0].(map[string]any)["id"].(string)
	loan := created("/api/v1/loans", `{"name":"Car loan","principal":12000,"interest_type":"none","term_months":12,`+
		`"start_date":"`+now.AddDate(0, 0, -10).Format(time.DateOnly)+`","first_due_date":"`+today+`"}`)
	installment := loan["instances"].([]any)[0].(map[string]any)["id"].(string)

	expense := func(amount, description, method string) map[string]any {
		args := map[string]any{"amount": json.Number(amount), "date": today, "description": description,
			"category": "Food & Dining", "payment_method": method}
		switch method {
		case "Account Debit":
			args["account_id"] = wallet
		case "Credit Card":
			args["credit_card_id"] = card
		}
		return args
	}
	// call records an expense and checks its result: the warning's code and
	// ids in structuredContent and in the text block after the JSON, which
	// stays the first block, and the expense saved as sent.
	call := func(args map[string]any, code string, ids map[string]any) map[string]any {
		t.Helper()
		res := env.callTool(key, "create_expense", args)
		if res.IsError {
			t.Fatalf("create_expense: %s", res.Content[0].Text)
		}
		got := res.structured(t)
		stored := env.readBack("/api/v1/expenses/" + got["id"].(string))
		if stored["amount"] != args["amount"].(json.Number)+".00" || stored["description"] != args["description"] ||
			stored["status"] != "active" {
			t.Errorf("stored expense %v, sent %v", stored, args)
		}
		if _, ok := stored["warnings"]; ok {
			t.Errorf("a read carries warnings: %v", stored)
		}
		if code == "" {
			if len(res.Content) != 1 || strings.Contains(res.Content[0].Text, "Warnings") || got["warnings"] != nil {
				t.Errorf("a write with nothing to warn about: %+v", res)
			}
			return got
		}
		if len(res.Content) != 2 {
			t.Fatalf("want the JSON, then the warnings block; got %+v", res.Content)
		}
		text, note := res.Content[0].Text, res.Content[1].Text
		if !strings.HasPrefix(note, "Warnings (the write was saved; show these to the user before going on):\n- "+code+": ") ||
			strings.Count(note, "\n- ") != 1 {
			t.Errorf("warnings block %q, want one line with %s", note, code)
		}
		var inText map[string]any
		if err := decodeNumbers([]byte(text), &inText); err != nil {
			t.Fatalf("the second block is not the JSON answer: %v: %s", err, text)
		}
		if diff := cmp.Diff(got, inText); diff != "" {
			t.Errorf("the JSON block differs from structuredContent (-structured +text):\n%s", diff)
		}
		ws, _ := got["warnings"].([]any)
		if len(ws) != 1 {
			t.Fatalf("warnings %v, want one %s", got["warnings"], code)
		}
		w := ws[0].(map[string]any)
		if w["code"] != code || !strings.Contains(note, w["message"].(string)) {
			t.Errorf("warning %v, note %q", w, note)
		}
		for k, v := range ids {
			if w[k] != v {
				t.Errorf("%s: %s = %v, want %v", code, k, w[k], v)
			}
		}
		return got
	}

	// Nothing like it: no warning.
	call(expense("120", "Coffee", "Cash"), "", nil)

	call(expense("500", "Groceries", "Account Debit"), "ACCOUNT_BELOW_ZERO", map[string]any{"account_id": wallet})
	if got := env.readBack("/api/v1/accounts/" + wallet)["current_balance"]; got != json.Number("-400.00") {
		t.Errorf("wallet balance %v, want -400.00: the debit is saved", got)
	}

	call(expense("1500", "Laptop", "Credit Card"), "CARD_OVER_LIMIT", map[string]any{"credit_card_id": card})
	if got := env.readBack("/api/v1/credit-cards/" + card)["outstanding_balance"]; got != json.Number("1500.00") {
		t.Errorf("card outstanding %v, want 1500.00: the charge is saved", got)
	}

	first := call(expense("350", "Lunch", "Cash"), "", nil)
	call(expense("350", "lunch at Jollibee", "Cash"), "POSSIBLE_DUPLICATE", map[string]any{"expense_id": first["id"]})

	call(expense("15000", "rent", "Cash"), "MATCHES_BILL", map[string]any{"bill_id": rent})
	if b := env.readBack("/api/v1/bills/" + rent); b["status"] != "unpaid" {
		t.Errorf("bill %v: an expense that looks like its payment does not pay it", b["status"])
	}

	call(expense("1000", "car loan payment", "Cash"), "MATCHES_LOAN_INSTALLMENT",
		map[string]any{"loan_id": loan["id"], "instance_id": installment})
	if l := env.readBack("/api/v1/loans/" + loan["id"].(string)); l["paid_total"] != json.Number("0.00") {
		t.Errorf("loan %v: an expense that looks like an installment does not pay it", l["paid_total"])
	}

	// Every write above was saved: seven expenses.
	if n := env.readBack("/api/v1/expenses?limit=100")["pagination"].(map[string]any)["total_items"]; n != json.Number("7") {
		t.Errorf("%v expenses stored, want 7", n)
	}
}
