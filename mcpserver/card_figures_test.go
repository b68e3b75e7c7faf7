package mcpserver

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// get_credit_card_metrics answers what GET /credit-cards/metrics answers,
// archived cards included on request, and its errors are the route's.
func TestCreditCardMetricsTool(t *testing.T) {
	env := newTestEnv(t)
	rest := env.key(auth.ScopeAll)
	card := func(body string) string {
		status, res := env.rest(rest, http.MethodPost, "/api/v1/credit-cards", body)
		if status != http.StatusCreated {
			t.Fatalf("create card: %d %v", status, res.Error)
		}
		return res.Data.(map[string]any)["id"].(string)
	}
	visa := card(`{"name":"Visa","credit_limit":"1000.00","statement_day":28,"due_day":5}`)
	old := card(`{"name":"Old","credit_limit":500,"statement_day":28,"due_day":5}`)
	for _, body := range []string{
		`{"credit_card_id":"` + visa + `","type":"purchase","amount":"712.35","date":"2025-03-01","description":"TV","category":"Shopping"}`,
		`{"credit_card_id":"` + old + `","type":"fee","amount":"20.00","date":"2025-03-01","description":"Fee"}`,
	} {
		if status, res := env.rest(rest, http.MethodPost, "/api/v1/credit-cards/transactions", body); status != http.StatusCreated {
			t.Fatalf("seed: %d %v", status, res.Error)
		}
	}
	env.rest(rest, http.MethodPatch, "/api/v1/credit-cards/"+old+"/archive", "")

	key := env.key(auth.ScopeRead, auth.ScopeMCP)
	res := env.callTool(key, "get_credit_card_metrics", map[string]any{"includeArchived": true})
	if res.IsError {
		t.Fatalf("isError: %s", res.Content[0].Text)
	}
	_, want := env.rest(rest, http.MethodGet, "/api/v1/credit-cards/metrics?includeArchived=true", "")
	got := res.structured(t)
	if diff := cmp.Diff(want.Data, any(got)); diff != "" {
		t.Errorf("structuredContent differs from the REST data (-rest +tool):\n%s", diff)
	}
	totals := got["totals"].(map[string]any)
	if totals["outstanding_balance"] != json.Number("732.35") || totals["utilization_percent"] != json.Number("48.82") ||
		len(got["cards"].([]any)) != 2 {
		t.Errorf("metrics through the tool: %v", got)
	}
	// Without includeArchived, the archived card is left out.
	got = env.callTool(key, "get_credit_card_metrics", map[string]any{}).structured(t)
	if cards := got["cards"].([]any); len(cards) != 1 || cards[0].(map[string]any)["id"] != visa ||
		cards[0].(map[string]any)["utilization_level"] != "high" {
		t.Errorf("active cards: %v", got["cards"])
	}
	env.toolErrorLikeREST(t, key, rest, "get_credit_card_metrics", `{"cardId":"visa","includeArchived":"yes"}`,
		http.MethodGet, "/api/v1/credit-cards/metrics?cardId=visa&includeArchived=yes", "", "VALIDATION_ERROR")
}
