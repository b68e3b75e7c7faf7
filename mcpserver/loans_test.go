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

// Loans through the tools: an agent finds this month's instance with the
// read tools (each answers exactly what REST answers), pays it from an
// account with record_loan_payment (interest first, the account debited,
// only interest counted as spending, the reply without the instance's
// earlier payments), a retry with the same idempotency key
// pays once, and refusals are the REST route's errors.
func TestLoanTools(t *testing.T) {
	env := newTestEnv(t)
	all := env.key(auth.ScopeAll)
	key := env.key(auth.ScopeRead, auth.ScopeLoansWrite, auth.ScopeMCP)
	manila, _ := time.LoadLocation("Asia/Manila")
	now := time.Now().In(manila)
	today := now.Format(time.DateOnly)
	start := now.AddDate(0, 0, -10).Format(time.DateOnly) // a test input, not a schedule

	_, acct := env.rest(all, http.MethodPost, "/api/v1/accounts", `{"name":"Payroll","type":"savings","opening_balance":20000}`)
	accountID := acct.Data.(map[string]any)["id"].(string)
	status, created := env.rest(all, http.MethodPost, "/api/v1/loans", `{"name":"Car","principal":100000,"interest_type":"diminishing",`+
		`"interest_rate":12,"term_months":12,"start_date":"`+start+`","first_due_date":"`+today+`"}`)
	if status != http.StatusCreated {
		t.Fatalf("create loan: %d %v", status, created.Error)
	}
	loanID := created.Data.(map[string]any)["id"].(string)

	// The reads answer what REST answers.
	for _, tc := range []struct {
		tool  string
		args  map[string]any
		route string
	}{
		{"list_loans", map[string]any{"status": "active"}, "/api/v1/loans?status=active"},
		{"get_loan", map[string]any{"id": loanID}, "/api/v1/loans/" + loanID},
		{"get_current_month_loan_dues", map[string]any{}, "/api/v1/loans/current-month-dues"},
	} {
		want := any(env.readBack(tc.route))
		if tc.tool != "get_loan" {
			want = compacted(want)
		}
		if diff := cmp.Diff(want, any(env.okTool(key, tc.tool, tc.args))); diff != "" {
			t.Errorf("%s differs from REST (-rest +tool):\n%s", tc.tool, diff)
		}
	}
	dues := env.okTool(key, "get_current_month_loan_dues", map[string]any{})
	items := dues["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("dues %v", dues)
	}
	row1 := items[0].(map[string]any)
	if row1["installment_number"] != json.Number("1") || row1["amount_due"] != json.Number("8884.88") ||
		row1["interest_due"] != json.Number("1000.00") || row1["loan_name"] != "Car" {
		t.Errorf("row 1 %v", row1)
	}
	instanceID := row1["id"].(string)

	// Pay 600.00 from the account: all interest. A retry with the key pays once.
	args := map[string]any{"instanceId": instanceID, "amount": json.Number("600"), "account_id": accountID,
		"idempotency_key": "car-row-1-part"}
	paid := env.okTool(key, "record_loan_payment", args)
	payment := paid["payment"].(map[string]any)
	if payment["interest_part"] != json.Number("600.00") || payment["principal_part"] != json.Number("0.00") ||
		payment["account_id"] != accountID || paid["instance"].(map[string]any)["status"] != "partially_paid" ||
		paid["instance"].(map[string]any)["remaining"] != json.Number("8284.88") {
		t.Errorf("payment %v", paid)
	}
	if diff := cmp.Diff(paid, env.okTool(key, "record_loan_payment", args)); diff != "" {
		t.Errorf("the retry with the same key differs (-first +retry):\n%s", diff)
	}
	lines := env.accountLines(accountID)
	if len(lines) != 1 || lines[0].(map[string]any)["source"] != "loan_payment" || lines[0].(map[string]any)["amount"] != json.Number("600.00") {
		t.Errorf("account lines %v", lines)
	}
	if got := env.readBack("/api/v1/loans/" + loanID)["paid_total"]; got != json.Number("600.00") {
		t.Errorf("loan paid_total %v after one payment and its retry", got)
	}
	summary := env.readBack("/api/v1/expenses/summary?dateFrom=" + today + "&dateTo=" + today)
	if summary["other_spending"].(map[string]any)["loan_interest"] != json.Number("600.00") {
		t.Errorf("summary %v", summary["other_spending"])
	}

	// Refusals are the REST route's errors.
	payURL := "/api/v1/loans/instances/" + instanceID + "/payments"
	env.toolErrorLikeREST(t, key, all, "record_loan_payment", `{"instanceId":"`+instanceID+`","amount":"8284.89"}`,
		http.MethodPost, payURL, `{"amount":"8284.89"}`, "VALIDATION_ERROR")
	env.toolErrorLikeREST(t, key, all, "record_loan_payment", `{"instanceId":"`+loanID+`","amount":1}`,
		http.MethodPost, "/api/v1/loans/instances/"+loanID+"/payments", `{"amount":1}`, "NOT_FOUND")
	rest := env.okTool(key, "record_loan_payment", map[string]any{"instanceId": instanceID, "amount": json.Number("8284.88")})
	if rest["instance"].(map[string]any)["status"] != "paid" || rest["payment"].(map[string]any)["interest_part"] != json.Number("400.00") {
		t.Errorf("paying the rest: %v", rest)
	}
	// The reply holds the new payment only, never the instance's earlier
	// ones, so it keeps its size however many payments an instance takes.
	if _, listed := rest["instance"].(map[string]any)["payments"]; listed {
		t.Errorf("the reply lists the instance's payments: %v", rest["instance"])
	}
	env.toolErrorLikeREST(t, key, all, "record_loan_payment", `{"instanceId":"`+instanceID+`","amount":1}`,
		http.MethodPost, payURL, `{"amount":1}`, "INVALID_STATUS")
}

// A finance:read key sees the loan reads but not the payment tool, and
// cannot call it.
func TestLoanToolsNeedTheirScope(t *testing.T) {
	env := newTestEnv(t)
	reader := env.key(auth.ScopeRead, auth.ScopeMCP)
	for _, name := range env.listTools(reader) {
		if name == "record_loan_payment" {
			t.Error("a finance:read key sees record_loan_payment")
		}
	}
	res := env.callTool(reader, "record_loan_payment", map[string]any{"instanceId": "x", "amount": 1})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "needs the scope loans:write") {
		t.Errorf("a finance:read key called record_loan_payment: %+v", res)
	}
}
