package mcpserver

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// App settings through the tools: read and changed exactly as REST reads and
// changes them, and a refused change is refused with the REST error.
func TestAppSettingsTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeSettingsWrite, auth.ScopeMCP)
	rest := env.key(auth.ScopeAll)

	got := env.okTool(key, "get_app_settings", map[string]any{})
	if diff := cmp.Diff(env.readBack("/api/v1/user-settings/app"), got); diff != "" {
		t.Errorf("get_app_settings differs from REST (-rest +tool):\n%s", diff)
	}
	if got["timezone"] != "Asia/Manila" || got["currency"] != "PHP" {
		t.Errorf("defaults %v", got)
	}
	changed := env.okTool(key, "update_app_settings", map[string]any{"timezone": "Europe/Paris", "due_soon_days": 3})
	if changed["timezone"] != "Europe/Paris" || changed["due_soon_days"] != json.Number("3") || changed["currency"] != "PHP" {
		t.Errorf("after update_app_settings: %v", changed)
	}
	if diff := cmp.Diff(changed, env.readBack("/api/v1/user-settings/app")); diff != "" {
		t.Errorf("stored settings differ from the tool's answer (-tool +rest):\n%s", diff)
	}

	_, problem := env.toolErrorLikeREST(t, key, rest, "update_app_settings", `{"currency":"peso","timezone":"UTC"}`,
		http.MethodPut, "/api/v1/user-settings/app", `{"currency":"peso","timezone":"UTC"}`, "VALIDATION_ERROR")
	if fields, _ := problem["fields"].(map[string]any); fields["currency"] == nil {
		t.Errorf("fields %v, want currency", problem["fields"])
	}
	if tz := env.readBack("/api/v1/user-settings/app")["timezone"]; tz != "Europe/Paris" {
		t.Errorf("a refused update changed the timezone to %v", tz)
	}
}

// Budget thresholds through the tools: the replace tool sets the whole list,
// the read tool shows it with the month's spending as REST does, a refused
// list writes nothing, and a reader sees neither write tool.
func TestBudgetThresholdTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeRead, auth.ScopeSettingsWrite, auth.ScopeExpensesWrite, auth.ScopeMCP)
	rest := env.key(auth.ScopeAll)
	today := env.okTool(key, "get_budget_thresholds", map[string]any{})["month"].(string) + "-01"
	env.okTool(key, "create_expense", map[string]any{"amount": "450.00", "date": today, "description": "Market",
		"category": "Groceries", "payment_method": "Cash"})

	set := env.okTool(key, "update_budget_thresholds", map[string]any{"thresholds": []any{
		map[string]any{"category": "Groceries", "monthly_limit": 500},
		map[string]any{"category": "Travel", "monthly_limit": "200.00", "warning_percent": 50},
	}})
	items := set["items"].([]any)
	if len(items) != 2 {
		t.Fatalf("replaced set: %v", set)
	}
	groceries := items[0].(map[string]any)
	if groceries["category"] != "Groceries" || groceries["spent"] != json.Number("450.00") || groceries["remaining"] != json.Number("50.00") ||
		groceries["percent_used"] != json.Number("90.00") || groceries["state"] != "warning" {
		t.Errorf("Groceries: %v", groceries)
	}
	if diff := cmp.Diff(env.readBack("/api/v1/user-settings/budget-thresholds?limit=100"), set); diff != "" {
		t.Errorf("the stored set differs from the tool's answer (-rest +tool):\n%s", diff)
	}
	if diff := cmp.Diff(compacted(env.readBack("/api/v1/user-settings/budget-thresholds?month=2025-01")),
		any(env.okTool(key, "get_budget_thresholds", map[string]any{"month": "2025-01"}))); diff != "" {
		t.Errorf("get_budget_thresholds differs from REST (-rest +tool):\n%s", diff)
	}

	body := `{"thresholds":[{"category":"Groceries","monthly_limit":500},{"category":"Salary","monthly_limit":1}]}`
	_, problem := env.toolErrorLikeREST(t, key, rest, "update_budget_thresholds", body,
		http.MethodPut, "/api/v1/user-settings/budget-thresholds", body, "VALIDATION_ERROR")
	if fields, _ := problem["fields"].(map[string]any); fields["thresholds[1].category"] == nil {
		t.Errorf("fields %v, want thresholds[1].category", problem["fields"])
	}
	if n := len(env.readBack("/api/v1/user-settings/budget-thresholds")["items"].([]any)); n != 2 {
		t.Errorf("after the refused replace: %d thresholds, want the 2 set before", n)
	}

	reader := env.key(auth.ScopeRead, auth.ScopeMCP)
	tools := env.listTools(reader)
	for _, name := range []string{"update_budget_thresholds", "update_app_settings"} {
		if slices.Contains(tools, name) {
			t.Errorf("a reader sees %s", name)
		}
	}
	if !slices.Contains(tools, "get_budget_thresholds") || !slices.Contains(tools, "get_app_settings") {
		t.Errorf("a reader lacks the settings reads: %v", tools)
	}

	cleared := env.okTool(key, "update_budget_thresholds", map[string]any{"thresholds": []any{}})
	if len(cleared["items"].([]any)) != 0 || len(env.readBack("/api/v1/user-settings/budget-thresholds")["items"].([]any)) != 0 {
		t.Errorf("after an empty list: %v", cleared)
	}
}

// Reminder preferences through their one tool: {} reads them (off by
// default), a change is stored as REST stores it, and a refused change
// names its field as REST does and writes nothing.
func TestReminderSettingsTool(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeSettingsWrite, auth.ScopeMCP)
	rest := env.key(auth.ScopeAll)
	got := env.okTool(key, "update_reminder_settings", map[string]any{})
	if diff := cmp.Diff(env.readBack("/api/v1/user-settings/reminders"), got); diff != "" {
		t.Errorf("{} differs from REST (-rest +tool):\n%s", diff)
	}
	if got["enabled"] != false || got["quiet_start"] != "22:00" {
		t.Errorf("defaults %v", got)
	}
	changed := env.okTool(key, "update_reminder_settings", map[string]any{"enabled": true, "bill_days": 5, "quiet_start": nil})
	if changed["enabled"] != true || changed["bill_days"] != json.Number("5") || changed["quiet_start"] != nil || changed["quiet_end"] != nil {
		t.Errorf("after the change: %v", changed)
	}
	if diff := cmp.Diff(changed, env.readBack("/api/v1/user-settings/reminders")); diff != "" {
		t.Errorf("stored preferences differ from the tool's answer (-tool +rest):\n%s", diff)
	}
	_, problem := env.toolErrorLikeREST(t, key, rest, "update_reminder_settings", `{"quiet_start":"22:00","quiet_end":"22:00"}`,
		http.MethodPut, "/api/v1/user-settings/reminders", `{"quiet_start":"22:00","quiet_end":"22:00"}`, "VALIDATION_ERROR")
	if fields, _ := problem["fields"].(map[string]any); fields["quiet_start"] != "must differ from quiet_end" {
		t.Errorf("fields %v, want quiet_start", problem["fields"])
	}
	if q := env.readBack("/api/v1/user-settings/reminders")["quiet_start"]; q != nil {
		t.Errorf("a refused change set quiet_start to %v", q)
	}
}
