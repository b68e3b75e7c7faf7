package mcpserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// The dashboard and report tools answer exactly what their REST routes
// answer, need finance:read itself, and refuse what REST refuses.
func TestDashboardAndReportTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP)
	rest := env.key(auth.ScopeAll)
	dash := env.okTool(key, "get_dashboard_summary", map[string]any{})
	month := dash["month"].(string)
	env.okTool(key, "create_expense", map[string]any{"amount": "450.00", "date": month + "-02", "description": "Market",
		"category": "Groceries", "payment_method": "Cash"})

	dash = env.okTool(key, "get_dashboard_summary", map[string]any{"month": month})
	if diff := cmp.Diff(env.readBack("/api/v1/dashboard?month="+month), dash); diff != "" {
		t.Errorf("get_dashboard_summary differs from REST (-rest +tool):\n%s", diff)
	}
	if totals := dash["totals"].(map[string]any); totals["spending"] != json.Number("450.00") {
		t.Errorf("dashboard totals %v", totals)
	}

	args := map[string]any{"report": finance.ReportSpendingTrend, "granularity": "week"}
	got := env.okTool(key, "get_report", args)
	if diff := cmp.Diff(env.readBack("/api/v1/reports/spending-trend?granularity=week"), got); diff != "" {
		t.Errorf("get_report differs from REST (-rest +tool):\n%s", diff)
	}
	if got["report"] != "spending-trend" || got["total"] != json.Number("450.00") || got["granularity"] != "week" {
		t.Errorf("spending-trend through the tool: %v", got)
	}
	if nw := env.okTool(key, "get_report", map[string]any{"report": finance.ReportNetWorth}); nw["net_worth"] != json.Number("0.00") {
		t.Errorf("net-worth through the tool: %v", nw)
	}

	// A parameter the report does not take, and a name that is no report.
	_, problem := env.toolErrorLikeREST(t, key, rest, "get_report", `{"report":"payment-methods","granularity":"day"}`,
		http.MethodGet, "/api/v1/reports/payment-methods?granularity=day", "", "VALIDATION_ERROR")
	if fields, _ := problem["fields"].(map[string]any); fields["granularity"] == nil {
		t.Errorf("fields %v, want granularity", problem["fields"])
	}
	env.toolErrorLikeREST(t, key, rest, "get_report", `{"report":"everything"}`,
		http.MethodGet, "/api/v1/reports/everything", "", "NOT_FOUND")

	// No write scope implies them.
	writer := env.key(auth.ScopeExpensesWrite, auth.ScopeIncomeWrite, auth.ScopeCardsWrite, auth.ScopeMCP)
	if tools := env.listTools(writer); slices.Contains(tools, "get_dashboard_summary") || slices.Contains(tools, "get_report") {
		t.Errorf("a key without finance:read sees %v", tools)
	}
}

// get_report's input schema names the ten reports, from the contract, and
// its description tells a model each report's parameters.
func TestReportToolSchema(t *testing.T) {
	for _, tt := range builtTools(t) {
		if tt.name != "get_report" {
			continue
		}
		var schema struct {
			Required   []string `json:"required"`
			Properties map[string]struct {
				Enum []string `json:"enum"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tt.inputSchema, &schema); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(finance.ReportNames(), schema.Properties["report"].Enum); diff != "" {
			t.Errorf("report enum (-want +got):\n%s", diff)
		}
		if !slices.Contains(schema.Required, "report") {
			t.Errorf("required = %v, want report", schema.Required)
		}
		for _, p := range []string{"dateFrom", "dateTo", "granularity", "category", "payment_method", "cardId", "month"} {
			if _, ok := schema.Properties[p]; !ok {
				t.Errorf("parameter %s missing from the schema", p)
			}
		}
		var spec toolSpec
		for _, s := range toolTable {
			if s.name == "get_report" {
				spec = s
			}
		}
		for _, r := range finance.Reports {
			if !strings.Contains(spec.description, r.Name+" (") {
				t.Errorf("the description does not describe %s's parameters", r.Name)
			}
		}
		return
	}
	t.Fatal("no get_report tool")
}
