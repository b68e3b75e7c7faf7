package mcpserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// Setting up a household through the tools: accounts and cards are added,
// read and changed with the tools alone, and what the tools answer is what
// the REST routes read back from the database.

// readBack reads a record through REST with a key holding every scope.
func (e *testEnv) readBack(route string) map[string]any {
	e.t.Helper()
	status, res := e.rest(e.key(auth.ScopeAll), http.MethodGet, route, "")
	if status != http.StatusOK {
		e.t.Fatalf("GET %s: %d %v", route, status, res.Error)
	}
	return res.Data.(map[string]any)
}

// okTool calls a tool that must succeed and returns its structuredContent.
func (e *testEnv) okTool(key, name string, args any) map[string]any {
	e.t.Helper()
	res := e.callTool(key, name, args)
	if res.IsError {
		e.t.Fatalf("%s: isError: %s", name, res.Content[0].Text)
	}
	return res.structured(e.t)
}

// accountLines lists the posted lines of one account through REST.
func (e *testEnv) accountLines(accountID string) []any {
	e.t.Helper()
	page := e.readBack("/api/v1/accounts/" + accountID + "/transactions")
	return page["items"].([]any)
}

// samePercent compares a rate by value (3, 3.0 and 3.00 are the same): its
// number of decimals is the domain's business, not the tool's.
func samePercent(got any, want string) bool {
	n, ok := got.(json.Number)
	if !ok {
		return false
	}
	s := string(n)
	if strings.Contains(s, ".") {
		s = strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	return s == want
}

func TestAccountSetupTools(t *testing.T) {
	env := newTestEnv(t)
	// accounts:write alone also reads accounts; no finance:read is needed.
	key := env.key(auth.ScopeAccountsWrite, auth.ScopeMCP)

	created := env.okTool(key, "create_account", map[string]any{
		"name": "BPI Savings", "type": "savings", "institution": "BPI", "account_number_last4": "1234",
		"opening_balance": json.Number("15000.50"),
	})
	id, _ := created["id"].(string)
	for field, want := range map[string]any{
		"name": "BPI Savings", "type": "savings", "institution": "BPI", "account_number_last4": "1234", "notes": nil,
		"status": "active", "opening_balance": json.Number("15000.50"), "current_balance": json.Number("15000.50"),
	} {
		if got := created[field]; got != want {
			t.Errorf("created %s = %v, want %v", field, got, want)
		}
	}
	stored := env.readBack("/api/v1/accounts/" + id)
	if diff := cmp.Diff(stored, created); diff != "" {
		t.Errorf("create_account's result differs from the stored account (-stored +tool):\n%s", diff)
	}
	// The opening balance is kept on the account, not posted as a line, as
	// the tool's description tells the model.
	if lines := env.accountLines(id); len(lines) != 0 {
		t.Errorf("a new account has lines: %v", lines)
	}
	if got := env.okTool(key, "get_account", map[string]any{"id": id}); !cmp.Equal(stored, got) {
		t.Errorf("get_account = %v, want the stored account %v", got, stored)
	}

	// A line moves the balance; a new opening balance then moves it by the
	// difference, without a line.
	if status, res := env.rest(env.key(auth.ScopeAll), http.MethodPost, "/api/v1/accounts/"+id+"/transactions",
		`{"type":"debit","amount":500,"date":"2025-03-01","description":"ATM"}`); status != http.StatusCreated {
		t.Fatalf("seed a line: %d %v", status, res.Error)
	}
	change := map[string]any{"id": id, "name": "BPI Payroll", "institution": nil, "notes": "Salary lands here",
		"opening_balance": 20000}
	updated := env.okTool(key, "update_account", change)
	for field, want := range map[string]any{
		"id": id, "name": "BPI Payroll", "type": "savings", "institution": nil, "account_number_last4": "1234",
		"notes": "Salary lands here", "opening_balance": json.Number("20000.00"), "current_balance": json.Number("19500.00"),
	} {
		if got := updated[field]; got != want {
			t.Errorf("updated %s = %v, want %v", field, got, want)
		}
	}
	stored = env.readBack("/api/v1/accounts/" + id)
	if diff := cmp.Diff(stored, updated); diff != "" {
		t.Errorf("update_account's result differs from the stored account (-stored +tool):\n%s", diff)
	}
	if lines := env.accountLines(id); len(lines) != 1 {
		t.Errorf("lines after changing the opening balance: %v, want only the ATM debit", lines)
	}

	// The update is idempotent: repeating it leaves the account as it was.
	again := env.okTool(key, "update_account", change)
	delete(again, "updated_at")
	delete(stored, "updated_at")
	if diff := cmp.Diff(stored, again); diff != "" {
		t.Errorf("repeating the update changed the account (-first +repeated):\n%s", diff)
	}
}

func TestCreditCardSetupTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeCardsWrite, auth.ScopeMCP)

	created := env.okTool(key, "create_credit_card", map[string]any{
		"name": "BPI Gold", "bank": "BPI", "last_four": "4321", "credit_limit": 80000, "statement_day": 15, "due_day": 5,
	})
	id, _ := created["id"].(string)
	for field, want := range map[string]any{
		"name": "BPI Gold", "bank": "BPI", "last_four": "4321", "status": "active",
		"credit_limit": json.Number("80000.00"), "statement_day": json.Number("15"), "due_day": json.Number("5"),
		"minimum_due_floor": json.Number("500.00"), "outstanding_balance": json.Number("0.00"), "available_credit": json.Number("80000.00"),
	} {
		if got := created[field]; got != want {
			t.Errorf("created %s = %v, want %v", field, got, want)
		}
	}
	if !samePercent(created["minimum_due_percent"], "3") {
		t.Errorf("created minimum_due_percent = %v, want the default 3", created["minimum_due_percent"])
	}
	if d, _ := created["cycle_start_date"].(string); len(d) != len("2025-03-01") {
		t.Errorf("cycle_start_date = %v, want today's date", created["cycle_start_date"])
	}
	stored := env.readBack("/api/v1/credit-cards/" + id)
	if diff := cmp.Diff(stored, created); diff != "" {
		t.Errorf("create_credit_card's result differs from the stored card (-stored +tool):\n%s", diff)
	}
	if got := env.okTool(key, "get_credit_card", map[string]any{"id": id}); !cmp.Equal(stored, got) {
		t.Errorf("get_credit_card = %v, want the stored card %v", got, stored)
	}

	updated := env.okTool(key, "update_credit_card", map[string]any{
		"id": id, "credit_limit": "100000", "bank": nil, "due_day": 7, "minimum_due_percent": nil, "minimum_due_floor": 0,
	})
	for field, want := range map[string]any{
		"name": "BPI Gold", "bank": nil, "last_four": "4321", "credit_limit": json.Number("100000.00"),
		"available_credit": json.Number("100000.00"), "statement_day": json.Number("15"), "due_day": json.Number("7"),
		"minimum_due_floor": json.Number("0.00"),
		"cycle_start_date":  created["cycle_start_date"],
	} {
		if got := updated[field]; got != want {
			t.Errorf("updated %s = %v, want %v", field, got, want)
		}
	}
	if !samePercent(updated["minimum_due_percent"], "3") {
		t.Errorf("updated minimum_due_percent = %v, want 3 again (null resets it)", updated["minimum_due_percent"])
	}
	if diff := cmp.Diff(env.readBack("/api/v1/credit-cards/"+id), updated); diff != "" {
		t.Errorf("update_credit_card's result differs from the stored card (-stored +tool):\n%s", diff)
	}
}

// A body the route refuses is a tool error carrying the route's code, message
// and fields, and nothing is written.
func TestSetupToolErrors(t *testing.T) {
	env := newTestEnv(t)
	rest := env.key(auth.ScopeAll)
	key := env.key(auth.ScopeAccountsWrite, auth.ScopeCardsWrite, auth.ScopeMCP)
	_, acct := env.rest(rest, http.MethodPost, "/api/v1/accounts", `{"name":"Wallet","type":"cash"}`)
	accountID := acct.Data.(map[string]any)["id"].(string)
	_, old := env.rest(rest, http.MethodPost, "/api/v1/accounts", `{"name":"Old bank","type":"savings"}`)
	archivedAccount := old.Data.(map[string]any)["id"].(string)
	env.rest(rest, http.MethodDelete, "/api/v1/accounts/"+archivedAccount, "")
	_, card := env.rest(rest, http.MethodPost, "/api/v1/credit-cards", `{"name":"Old card","credit_limit":1000,"statement_day":1,"due_day":20}`)
	archivedCard := card.Data.(map[string]any)["id"].(string)
	env.rest(rest, http.MethodDelete, "/api/v1/credit-cards/"+archivedCard, "")
	const unknownID = "01956a3e-7d2c-7b4e-9a1f-3c5d7e9f1a2b"

	for _, tc := range []struct {
		name      string
		tool      string
		args      string
		method    string
		route     string
		body      string
		wantCode  string
		wantField string
	}{
		{"account without a type", "create_account", `{"name":"Savings"}`,
			http.MethodPost, "/api/v1/accounts", `{"name":"Savings"}`, "VALIDATION_ERROR", "type"},
		{"account name taken", "create_account", `{"name":"wallet","type":"cash"}`,
			http.MethodPost, "/api/v1/accounts", `{"name":"wallet","type":"cash"}`, "VALIDATION_ERROR", "name"},
		{"opening balance below a centavo", "create_account", `{"name":"Savings","type":"savings","opening_balance":10.505}`,
			http.MethodPost, "/api/v1/accounts", `{"name":"Savings","type":"savings","opening_balance":10.505}`, "VALIDATION_ERROR", "opening_balance"},
		{"account type unknown", "update_account", `{"id":"` + accountID + `","type":"crypto"}`,
			http.MethodPut, "/api/v1/accounts/" + accountID, `{"type":"crypto"}`, "VALIDATION_ERROR", "type"},
		{"archived account", "update_account", `{"id":"` + archivedAccount + `","name":"New bank"}`,
			http.MethodPut, "/api/v1/accounts/" + archivedAccount, `{"name":"New bank"}`, "INVALID_STATUS", ""},
		{"unknown account", "update_account", `{"id":"` + unknownID + `","name":"X"}`,
			http.MethodPut, "/api/v1/accounts/" + unknownID, `{"name":"X"}`, "NOT_FOUND", ""},
		{"card without a limit and a bad day", "create_credit_card", `{"name":"Gold","statement_day":32,"due_day":5}`,
			http.MethodPost, "/api/v1/credit-cards", `{"name":"Gold","statement_day":32,"due_day":5}`, "VALIDATION_ERROR", "statement_day"},
		{"card limit not positive", "create_credit_card", `{"name":"Gold","credit_limit":0,"statement_day":15,"due_day":5}`,
			http.MethodPost, "/api/v1/credit-cards", `{"name":"Gold","credit_limit":0,"statement_day":15,"due_day":5}`, "VALIDATION_ERROR", "credit_limit"},
		{"archived card", "update_credit_card", `{"id":"` + archivedCard + `","credit_limit":2000}`,
			http.MethodPut, "/api/v1/credit-cards/" + archivedCard, `{"credit_limit":2000}`, "INVALID_STATUS", ""},
		{"unknown card", "get_credit_card", `{"id":"` + unknownID + `"}`,
			http.MethodGet, "/api/v1/credit-cards/" + unknownID, "", "NOT_FOUND", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, got := env.toolErrorLikeREST(t, key, rest, tc.tool, tc.args, tc.method, tc.route, tc.body, tc.wantCode)
			if fields, _ := got["fields"].(map[string]any); tc.wantField != "" && fields[tc.wantField] == nil {
				t.Errorf("fields = %v, want a problem with %s", got["fields"], tc.wantField)
			}
		})
	}

	// Nothing was written: the two accounts and the card are all there is,
	// unchanged.
	accounts := env.readBack("/api/v1/accounts?status=all")["items"].([]any)
	cards := env.readBack("/api/v1/credit-cards?status=all")["items"].([]any)
	if len(accounts) != 2 || len(cards) != 1 {
		t.Errorf("after refused calls: %d accounts and %d cards, want 2 and 1", len(accounts), len(cards))
	}
	if wallet := env.readBack("/api/v1/accounts/" + accountID); wallet["type"] != "cash" {
		t.Errorf("the refused update changed the account: %v", wallet)
	}
	if old := env.readBack("/api/v1/accounts/" + archivedAccount); old["name"] != "Old bank" {
		t.Errorf("the refused update changed the archived account: %v", old)
	}
}

// A key without a domain's write scope does not see that domain's setup
// tools, and calling one anyway is refused without writing anything.
func TestSetupToolsNeedTheirScope(t *testing.T) {
	env := newTestEnv(t)
	rest := env.key(auth.ScopeAll)
	_, acct := env.rest(rest, http.MethodPost, "/api/v1/accounts", `{"name":"Wallet","type":"cash"}`)
	accountID := acct.Data.(map[string]any)["id"].(string)

	for _, tc := range []struct {
		name   string
		scopes []auth.Scope
		tool   string
		args   map[string]any
	}{
		{"a reader cannot add an account", []auth.Scope{auth.ScopeRead, auth.ScopeMCP},
			"create_account", map[string]any{"name": "Sneaky", "type": "cash"}},
		{"a reader cannot change an account", []auth.Scope{auth.ScopeRead, auth.ScopeMCP},
			"update_account", map[string]any{"id": accountID, "name": "Sneaky"}},
		{"a card writer cannot add an account", []auth.Scope{auth.ScopeCardsWrite, auth.ScopeMCP},
			"create_account", map[string]any{"name": "Sneaky", "type": "cash"}},
		{"an account writer cannot add a card", []auth.Scope{auth.ScopeAccountsWrite, auth.ScopeMCP},
			"create_credit_card", map[string]any{"name": "Sneaky", "credit_limit": 1000, "statement_day": 1, "due_day": 20}},
		{"an expense writer cannot read a card", []auth.Scope{auth.ScopeExpensesWrite, auth.ScopeMCP},
			"get_credit_card", map[string]any{"id": accountID}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := env.key(tc.scopes...)
			if slices.Contains(env.listTools(key), tc.tool) {
				t.Errorf("tools/list shows %s", tc.tool)
			}
			res := env.callTool(key, tc.tool, tc.args)
			if !res.IsError || !strings.Contains(res.Content[0].Text, "Tool "+tc.tool+" needs the scope") {
				t.Errorf("calling %s: %+v, want a tool error naming the scope", tc.tool, res)
			}
		})
	}
	accounts := env.readBack("/api/v1/accounts?status=all")["items"].([]any)
	cards := env.readBack("/api/v1/credit-cards?status=all")["items"].([]any)
	if len(accounts) != 1 || len(cards) != 0 || accounts[0].(map[string]any)["name"] != "Wallet" {
		t.Errorf("refused calls wrote: accounts %v, cards %v", accounts, cards)
	}
}
