package mcpserver

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	assets "github.com/finance-app/finance/embed"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// specTools is section 4.5 of the specification: the MCP tools by scope.
var specTools = map[auth.Scope][]string{
	auth.ScopeRead: {"get_dashboard_summary", "get_report", "list_expenses", "get_expense", "get_expense_form_options",
		"get_expense_summary", "list_income", "get_income", "list_accounts", "list_account_transactions", "list_credit_cards",
		"list_credit_card_soas", "get_credit_card_soa", "list_unbilled_transactions", "list_installment_plans",
		"get_installment_plan", "get_credit_card_metrics", "list_bills", "get_bills_summary", "list_bill_templates",
		"get_bill_template", "list_bill_payments", "get_bill_form_options", "list_loans", "get_current_month_loan_dues",
		"list_categories", "get_app_settings", "get_budget_thresholds"},
	auth.ScopeExpensesWrite: {"create_expense", "update_expense", "delete_expense", "split_expense"},
	auth.ScopeIncomeWrite:   {"create_income", "update_income", "delete_income"},
	auth.ScopeAccountsWrite: {"create_account_transaction", "update_account_transaction", "adjust_account_balance"},
	auth.ScopeCardsWrite: {"create_credit_card_transaction", "record_credit_card_soa_payment", "add_soa_transaction",
		"convert_transaction_to_installment", "cancel_installment_plan", "link_transaction_to_soa",
		"update_credit_card_transaction", "update_soa_transaction", "delete_soa_transaction", "update_credit_card_soa"},
	auth.ScopeBillsWrite: {"record_bill_payment", "create_bill_template", "update_bill_template", "delete_bill_template",
		"update_bill_instance", "update_bill_status", "delete_bill_payment"},
	auth.ScopeLoansWrite:    {"record_loan_payment"},
	auth.ScopeSettingsWrite: {"create_category", "update_budget_thresholds"},
}

// beyondSpec are the tools the specification's list lacks, by scope: an
// agent setting up a household needs to add and change accounts and cards,
// and to read one by id before changing it; it may also change the app settings
// it reads (get_app_settings is in the specification), and to see what was
// already written, and by whom (list_activity). Each wraps an existing REST route.
//
// The rest wrap routes an agent running a household needed and fell back
// to REST for: loans, many expenses at once, voiding an account line,
// archiving accounts, cards and categories, renaming a category, reading
// receipt photos into drafts, and moving in from a bank's files
// (import batches, read under expenses:write like their routes), the
// reminder preferences (one tool: {} reads them), and the exchange rates
// that amounts in other currencies convert with (converting one amount, and
// the rates themselves).
var beyondSpec = map[auth.Scope][]string{
	auth.ScopeRead: {"get_account", "get_credit_card", "get_bill", "get_loan", "list_activity",
		"list_import_rows", "list_transfers", "list_expected_income", "convert_amount", "list_exchange_rates"},
	auth.ScopeIncomeWrite: {"confirm_expected_income", "skip_expected_income"},
	auth.ScopeExpensesWrite: {"create_expenses", "parse_receipt_images",
		"preview_import", "update_import_row", "commit_import", "revert_import"},
	auth.ScopeAccountsWrite: {"create_account", "update_account", "archive_account", "unarchive_account", "void_account_transaction",
		"create_transfer", "delete_transfer", "reconcile_account"},
	auth.ScopeCardsWrite:    {"create_credit_card", "update_credit_card", "void_credit_card_soa", "archive_credit_card", "unarchive_credit_card"},
	auth.ScopeLoansWrite:    {"create_loan", "update_loan", "cancel_loan", "delete_loan"},
	auth.ScopeSettingsWrite: {"update_app_settings", "update_category", "archive_category", "update_reminder_settings"},
}

// A tool whose scope says otherwise than its effect: reading receipts needs
// expenses:write like its route but saves nothing.
var readsUnderWriteScope = []string{"parse_receipt_images"}

func builtTools(t *testing.T) []tool {
	t.Helper()
	h, err := New(nil, Config{BaseURL: testBaseURL})
	if err != nil {
		t.Fatal(err)
	}
	return h.tools
}

// Every tool is one named in the specification, or in beyondSpec, under its
// scope: a key holding only that scope (and mcp:connect) may call it. The
// tools of the specification whose routes do not exist yet are logged.
func TestToolsFollowSpecification(t *testing.T) {
	built := map[string]tool{}
	for _, tt := range builtTools(t) {
		built[tt.name] = tt
	}
	var pending []string
	check := func(scope auth.Scope, name string) {
		tt := built[name]
		delete(built, name)
		p := auth.Principal{Method: auth.MethodAPIKey, Scopes: []auth.Scope{scope}}
		if err := p.Allow(tt.access); err != nil {
			t.Errorf("%s is a %s tool, but its route requires %s", name, scope, tt.access)
		}
		wantReadOnly := scope == auth.ScopeRead || slices.Contains(readsUnderWriteScope, name)
		if tt.hints.readOnly != wantReadOnly {
			t.Errorf("%s (scope %s): readOnly %v, want %v", name, scope, tt.hints.readOnly, wantReadOnly)
		}
	}
	for scope, names := range specTools {
		for _, name := range names {
			if _, ok := built[name]; !ok {
				pending = append(pending, name)
				continue
			}
			check(scope, name)
		}
	}
	for scope, names := range beyondSpec {
		for _, name := range names {
			if _, ok := built[name]; !ok {
				t.Errorf("%s is listed beyond the specification but is not in the table", name)
				continue
			}
			check(scope, name)
		}
	}
	for name := range built {
		t.Errorf("tool %s is named neither in the specification nor in beyondSpec", name)
	}
	slices.Sort(pending)
	t.Logf("%d tools of the specification wait for their routes: %s", len(pending), strings.Join(pending, ", "))
}

// The scope of a tool is read from the contract's x-scope; reading it back
// must give the same text, for every operation a tool could wrap.
func TestParseRequirementRoundTrips(t *testing.T) {
	c, err := parseContract(assets.OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, item := range c.root["paths"].(map[string]any) {
		for _, op := range item.(map[string]any) {
			m, ok := op.(map[string]any)
			if !ok {
				continue
			}
			x, _ := m["x-scope"].(string)
			r, err := parseRequirement(x)
			if err != nil {
				continue // public, any, jwt, mcp:connect: not tool routes
			}
			n++
			if r.String() != x {
				t.Errorf("x-scope %q reads back as %q", x, r)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d operations had a tool scope", n)
	}
	for _, bad := range []string{"", "public", "any", "jwt", "jwt | all", "mcp:connect", "all", "finance:read | all", "expenses:read"} {
		if _, err := parseRequirement(bad); err == nil {
			t.Errorf("x-scope %q accepted", bad)
		}
	}
}

var (
	readTools = []string{"convert_amount", "get_account", "get_app_settings", "get_bill", "get_bill_form_options", "get_bill_template",
		"get_bills_summary", "get_budget_thresholds", "get_credit_card", "get_credit_card_metrics", "get_credit_card_soa",
		"get_current_month_loan_dues", "get_dashboard_summary", "get_expense", "get_expense_form_options", "get_expense_summary",
		"get_income", "get_installment_plan", "get_loan", "get_report", "list_account_transactions", "list_accounts", "list_activity", "list_bill_payments",
		"list_bill_templates", "list_bills", "list_categories", "list_credit_card_soas", "list_credit_cards",
		"list_exchange_rates", "list_expected_income", "list_expenses", "list_import_rows", "list_income", "list_installment_plans", "list_loans",
		"list_transfers", "list_unbilled_transactions"}
	expenseWrites = []string{"commit_import", "create_expense", "create_expenses", "delete_expense",
		"parse_receipt_images", "preview_import", "revert_import", "split_expense", "update_expense", "update_import_row"}
)

func TestToolsListIsFilteredByScope(t *testing.T) {
	env := newTestEnv(t)
	sorted := func(lists ...[]string) []string {
		out := slices.Concat(lists...)
		slices.Sort(out)
		return out
	}
	var all []string
	for _, tt := range builtTools(t) {
		all = append(all, tt.name)
	}
	for _, tc := range []struct {
		name   string
		scopes []auth.Scope
		want   []string
	}{
		{"finance:read sees the reads", []auth.Scope{auth.ScopeRead, auth.ScopeMCP}, sorted(readTools)},
		{"expenses:write adds the expense writes", []auth.Scope{auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP},
			sorted(readTools, expenseWrites)},
		{"expenses:write alone reads expenses too", []auth.Scope{auth.ScopeExpensesWrite, auth.ScopeMCP},
			sorted([]string{"get_expense", "get_expense_form_options", "get_expense_summary", "list_expenses", "list_import_rows"}, expenseWrites)},
		{"income:write", []auth.Scope{auth.ScopeIncomeWrite, auth.ScopeMCP},
			[]string{"confirm_expected_income", "create_income", "delete_income", "get_income",
				"list_expected_income", "list_income", "skip_expected_income", "update_income"}},
		{"accounts:write", []auth.Scope{auth.ScopeAccountsWrite, auth.ScopeMCP},
			[]string{"adjust_account_balance", "archive_account", "create_account", "create_account_transaction", "create_transfer",
				"delete_transfer", "get_account", "list_account_transactions", "list_accounts", "list_transfers", "reconcile_account",
				"unarchive_account", "update_account", "update_account_transaction", "void_account_transaction"}},
		{"credit_cards:write", []auth.Scope{auth.ScopeCardsWrite, auth.ScopeMCP},
			[]string{"add_soa_transaction", "archive_credit_card", "cancel_installment_plan", "convert_transaction_to_installment",
				"create_credit_card", "create_credit_card_transaction", "delete_soa_transaction", "get_credit_card",
				"get_credit_card_metrics", "get_credit_card_soa", "get_installment_plan", "link_transaction_to_soa",
				"list_credit_card_soas", "list_credit_cards", "list_installment_plans", "list_unbilled_transactions",
				"record_credit_card_soa_payment", "unarchive_credit_card", "update_credit_card", "update_credit_card_soa",
				"update_credit_card_transaction", "update_soa_transaction", "void_credit_card_soa"}},
		{"settings:write", []auth.Scope{auth.ScopeSettingsWrite, auth.ScopeMCP}, []string{"archive_category", "convert_amount",
			"create_category", "get_app_settings", "get_budget_thresholds", "list_categories", "list_exchange_rates",
			"update_app_settings", "update_budget_thresholds",
			"update_category", "update_reminder_settings"}},
		{"loans:write reads loans, adds, changes and pays them", []auth.Scope{auth.ScopeLoansWrite, auth.ScopeMCP},
			[]string{"cancel_loan", "create_loan", "delete_loan", "get_current_month_loan_dues", "get_loan", "list_loans",
				"record_loan_payment", "update_loan"}},
		{"bills:write", []auth.Scope{auth.ScopeBillsWrite, auth.ScopeMCP},
			[]string{"create_bill_template", "delete_bill_payment", "delete_bill_template", "get_bill", "get_bill_form_options",
				"get_bill_template", "get_bills_summary", "list_bill_payments", "list_bill_templates", "list_bills",
				"record_bill_payment", "update_bill_instance", "update_bill_status", "update_bill_template"}},
		{"all sees every tool", []auth.Scope{auth.ScopeAll}, sorted(all)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := env.listTools(env.key(tc.scopes...))
			if !slices.Equal(tc.want, got) {
				t.Errorf("tools = %v\nwant %v", got, tc.want)
			}
		})
	}
}

// A tool the key's scopes hide cannot be called, and the call says why:
// a tool error naming the scope the tool needs and how the user grants it
// (a key's scopes cannot change, so a new key), never "not found", which
// leaves an agent nothing to tell the user. A name that is no tool at all
// is still not found.
func TestHiddenToolCannotBeCalled(t *testing.T) {
	env := newTestEnv(t)
	reader := env.key(auth.ScopeRead, auth.ScopeMCP)
	res := env.callTool(reader, "create_category", map[string]any{"name": "Sneaky", "kind": "expense"})
	want := `{"message":"Tool create_category needs the scope settings:write, which this API key does not hold. ` +
		"Create an API key that also holds settings:write (the API keys page in Settings, or `finance keys create --scopes ...`) " +
		`and connect with it; a key's scopes cannot be changed.","code":"FORBIDDEN"}`
	if !res.IsError || len(res.Content) != 1 || res.Content[0].Text != want {
		t.Errorf("calling a hidden tool: %+v\nwant the tool error %s", res, want)
	}
	_, list := env.rest(env.key(auth.ScopeRead), http.MethodGet, "/api/v1/categories?search=Sneaky", "")
	if items := list.Data.(map[string]any)["items"].([]any); len(items) != 0 {
		t.Errorf("the hidden tool wrote: %v", items)
	}
	// A read tool hidden from a writer of another domain names finance:read.
	writer := env.key(auth.ScopeExpensesWrite, auth.ScopeMCP)
	res = env.callTool(writer, "list_bills", map[string]any{})
	if !res.IsError || !strings.Contains(res.Content[0].Text, "Tool list_bills needs the scope finance:read, which this API key does not hold") {
		t.Errorf("calling a hidden read tool: %+v", res)
	}
	msg := env.rpc(reader, "tools/call", map[string]any{"name": "no_such_tool"})
	if msg.Error == nil || !strings.Contains(msg.Error.Message, "not found") {
		t.Errorf("an unknown tool: %s, want a JSON-RPC not-found error", msg.Result)
	}
}

func TestEveryToolHasTitleDescriptionAndExplicitHints(t *testing.T) {
	env := newTestEnv(t)
	msg := env.rpc(env.key(auth.ScopeAll), "tools/list", map[string]any{})
	var res struct {
		Tools []struct {
			Name         string                     `json:"name"`
			Title        string                     `json:"title"`
			Description  string                     `json:"description"`
			InputSchema  map[string]any             `json:"inputSchema"`
			OutputSchema map[string]any             `json:"outputSchema"`
			Annotations  map[string]json.RawMessage `json:"annotations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(msg.Result, &res); err != nil {
		t.Fatal(err)
	}
	destructive := map[string]string{}
	for _, tl := range env.mcp.tools {
		if why := movesMoney(tl); why != "" {
			destructive[tl.name] = why
		}
	}
	for _, tt := range res.Tools {
		t.Run(tt.Name, func(t *testing.T) {
			// Short where the tool is simple: every tool's text is in each
			// conversation. A title is sent where it says more than the name
			// (listedTitle); the table holds one for every tool.
			if env.mcp.byName[tt.Name].title == "" || len(tt.Description) < 50 {
				t.Errorf("title %q, description %q: both are needed, and the description should tell a model when and how to use the tool", tt.Title, tt.Description)
			}
			if tt.Title != "" && tt.Title != env.mcp.byName[tt.Name].title {
				t.Errorf("title %q, want the table's %q", tt.Title, env.mcp.byName[tt.Name].title)
			}
			// No additionalProperties: a call with an unknown argument is
			// refused by name (TestListToolsAreCompactUnlessAskedInFull).
			if tt.InputSchema["type"] != "object" {
				t.Errorf("inputSchema is not an object schema: %v", tt.InputSchema)
			}
			// A hint is sent where it differs from MCP's default (a
			// destructive, non-idempotent, open-world write) and means
			// something: destructive and idempotent only on writes.
			hint := func(name string) (value, sent bool) {
				raw, ok := tt.Annotations[name]
				return string(raw) == "true", ok
			}
			readOnly, _ := hint("readOnlyHint")
			destr, destrSent := hint("destructiveHint")
			_, idemSent := hint("idempotentHint")
			openWorld, openWorldSent := hint("openWorldHint")
			// convert_amount computes and saves nothing; the issue that asked
			// for it named it so (convert_transaction_to_installment writes).
			isRead := strings.HasPrefix(tt.Name, "list_") || strings.HasPrefix(tt.Name, "get_") ||
				strings.HasPrefix(tt.Name, "parse_") || tt.Name == "convert_amount"
			if readOnly != isRead {
				t.Errorf("readOnlyHint = %v", readOnly)
			}
			if isRead && (destrSent || idemSent) {
				t.Errorf("a read sends destructiveHint or idempotentHint, which mean nothing beside readOnlyHint: %v", tt.Annotations)
			}
			if !isRead && !destrSent {
				t.Error("a write does not send destructiveHint; MCP's default is true")
			}
			if why, want := destructive[tt.Name]; !isRead && destr != want {
				t.Errorf("destructiveHint = %v, want %v (its route %s)", destr, want, why)
			}
			if tt.OutputSchema != nil && !isRead {
				t.Errorf("a write advertises an outputSchema; its reply is the record its read tool describes")
			}
			if !openWorldSent {
				t.Error("openWorldHint is not sent; MCP's default is true")
			}
			if openWorld {
				t.Error("openWorldHint = true; the tools touch only the user's ledger")
			}
		})
	}
}

// movesMoney says why a tool's call can remove, void or move money, from
// the route it wraps alone, or "" when it cannot; such a tool must be marked
// destructive, so a tool added for such a route without the mark fails.
//   - Every DELETE removes.
//   - The action routes void, cancel, revert, split, convert to installments, link
//     to a statement, record a payment, adjust a balance or confirm a
//     proposed write.
//   - A PUT or PATCH that can set a status of cancelled or voided (or
//     always does: a tool with a fixed body).
//   - A PUT or PATCH of a money field (an amount, an opening balance, the account,
//     card or method that pays) rewrites money already recorded: the linked
//     account line or card row is voided and written again, a bill
//     template's future bills are deleted and made again.
//   - A PUT of a whole list at a path of no record replaces a set: what the
//     list leaves out is removed.
func movesMoney(t tool) string {
	segments := strings.Split(t.path, "/")
	last := segments[len(segments)-1]
	switch {
	case t.method == http.MethodDelete:
		return "DELETE " + t.path + " removes"
	case t.method == http.MethodPost && slices.Contains([]string{"void", "cancel", "split", "convert-to-installment", "link",
		"payments", "balance-adjustment", "confirm", "revert"}, last):
		return "POST " + t.path + " is an action that voids, cancels, moves money or runs a write"
	case t.method != http.MethodPut && t.method != http.MethodPatch:
		return ""
	}
	for _, field := range []string{"amount", "opening_balance", "account_id", "credit_card_id", "payment_method"} {
		if t.bodyFields[field] {
			return "PUT " + t.path + " rewrites " + field
		}
	}
	var schema struct {
		Properties map[string]struct {
			Type string   `json:"type"`
			Enum []string `json:"enum"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(t.inputSchema, &schema)
	var fixed struct {
		Status string `json:"status"`
	}
	if raw, err := json.Marshal(t.fixedBody); err == nil {
		_ = json.Unmarshal(raw, &fixed)
	}
	status := append(schema.Properties["status"].Enum, fixed.Status)
	if slices.Contains(status, "cancelled") || slices.Contains(status, "voided") {
		return t.method + " " + t.path + " can set a status that cancels or voids"
	}
	for name, p := range schema.Properties {
		if p.Type == "array" && !strings.Contains(t.path, "{") {
			return "PUT " + t.path + " replaces the whole " + name
		}
	}
	return ""
}

// No tool input schema, at any depth, has a type array: several clients and
// model APIs refuse {"type": ["string", "null"]} (see withoutTypeArrays). A
// nullable value is anyOf with a null branch, and keeps its description at
// the top, where clients show it.
func TestInputSchemasHaveNoTypeArrays(t *testing.T) {
	env := newTestEnv(t)
	msg := env.rpc(env.key(auth.ScopeAll), "tools/list", map[string]any{})
	var res struct {
		Tools []struct {
			Name        string `json:"name"`
			InputSchema any    `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(msg.Result, &res); err != nil {
		t.Fatal(err)
	}
	nullable := 0
	var walk func(tool, at string, v any)
	walk = func(tool, at string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if typ, ok := v["type"].([]any); ok {
				t.Errorf("%s: %s has the type array %v", tool, at, typ)
			}
			if branches, ok := v["anyOf"].([]any); ok && slices.ContainsFunc(branches, func(b any) bool {
				m, _ := b.(map[string]any)
				return len(m) == 1 && m["type"] == "null"
			}) {
				nullable++
				for _, b := range branches {
					if d, _ := b.(map[string]any)["description"].(string); d != "" && v["description"] == nil {
						t.Errorf("%s: %s describes a branch (%q) but not the value itself", tool, at, d)
					}
				}
			}
			for k, x := range v {
				walk(tool, at+"/"+k, x)
			}
		case []any:
			for i, x := range v {
				walk(tool, fmt.Sprintf("%s/%d", at, i), x)
			}
		}
	}
	for _, tt := range res.Tools {
		walk(tt.Name, "inputSchema", tt.InputSchema)
	}
	// The contract has nullable fields in many bodies; finding none would
	// mean the walk looked at nothing.
	if nullable < 20 {
		t.Errorf("found %d nullable values in the tool schemas, expected many", nullable)
	}
}

// TestToolsListGolden keeps the full tools/list of a key holding "all" in
// testdata/tools_list.golden, so that every change to a tool's name, text,
// hints or schema shows in review. Regenerate with
//
//	go test ./mcpserver -run TestToolsListGolden -update
func TestToolsListGolden(t *testing.T) {
	env := newTestEnv(t)
	msg := env.rpc(env.key(auth.ScopeAll), "tools/list", map[string]any{})
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, msg.Result, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteString("\n")
	golden := filepath.Join("testdata", "tools_list.golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (create it with: go test ./mcpserver -run TestToolsListGolden -update)", err)
	}
	if diff := cmp.Diff(string(want), pretty.String()); diff != "" {
		t.Errorf("tools/list differs from %s (-want +got):\n%s\nIf the change is intended, run: go test ./mcpserver -run TestToolsListGolden -update", golden, diff)
	}
}

// Tools whose route answers with an object declare it as outputSchema; the
// schema is the contract's, so data of another shape fails it (every tool
// call of these tests checks its structuredContent against it).
func TestOutputSchemas(t *testing.T) {
	env := newTestEnv(t)
	for _, name := range []string{"list_accounts", "get_account", "create_expense", "get_dashboard_summary"} {
		if env.mcp.byName[name].outputSchema == nil {
			t.Errorf("%s has no outputSchema", name)
		}
	}
	if err := env.mcp.validateOutput("list_accounts", json.RawMessage(`{"items":5}`)); err == nil {
		t.Error("list_accounts: {items: 5} passed the outputSchema")
	}
	if err := env.mcp.validateOutput("get_account", json.RawMessage(`{"id":"x"}`)); err == nil {
		t.Error("get_account: an account with only an id passed the outputSchema")
	}
	res := env.callTool(env.key(auth.ScopeAll), "list_accounts", map[string]any{})
	if err := env.mcp.validateOutput("list_accounts", res.StructuredContent); err != nil || res.StructuredContent == nil {
		t.Errorf("list_accounts: %v: %s", err, res.StructuredContent)
	}
}
