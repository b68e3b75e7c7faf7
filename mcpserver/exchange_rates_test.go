package mcpserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// convert_amount and list_exchange_rates answer what their REST routes
// answer, with the caller's own rates, and a conversion without a rate is
// the route's RATE_MISSING error, never 1:1. Neither writes anything.
func TestExchangeRateTools(t *testing.T) {
	env := newTestEnv(t)
	rest := env.key(auth.ScopeAll)
	reader := env.key(auth.ScopeRead, auth.ScopeMCP)
	for _, body := range []string{
		`{"base":"USD","quote":"JPY","date":"2026-11-20","rate":"154.37"}`,
		`{"base":"EUR","quote":"PHP","date":"2026-11-19","rate":"68.1"}`,
	} {
		if status, res := env.rest(rest, http.MethodPost, "/api/v1/exchange-rates", body); status != http.StatusCreated {
			t.Fatalf("POST /exchange-rates %s: %d %v", body, status, res.Error)
		}
	}
	manual := func() any {
		t.Helper()
		_, res := env.rest(rest, http.MethodGet, "/api/v1/exchange-rates?source=manual", "")
		data, _ := res.Data.(map[string]any)
		return dig(data, "pagination", "total_items")
	}

	for _, tt := range []struct {
		name string
		args map[string]any
		want map[string]any
	}{
		{"direct, the person's own rate (docs/domain.md's example)",
			map[string]any{"amount": "19.99", "from": "usd", "to": "JPY", "date": "2026-11-20"},
			map[string]any{"amount": json.Number("19.99"), "from": "USD", "to": "JPY", "date": "2026-11-20",
				"converted": json.Number("3086"), "rate": json.Number("154.37"), "rate_date": "2026-11-20", "source": "manual",
				"via": nil, "stale": false}},
		{"inverse, the day after, with zeros past the yen's decimals",
			map[string]any{"amount": "100.00", "from": "JPY", "to": "USD", "date": "2026-11-21"},
			map[string]any{"amount": json.Number("100"), "from": "JPY", "to": "USD", "date": "2026-11-21",
				"converted": json.Number("0.65"), "rate": json.Number("0.0064779426"), "rate_date": "2026-11-20",
				"source": "manual", "via": nil, "stale": false}},
		{"an amount sent as a number", map[string]any{"amount": 5, "from": "EUR", "to": "PHP", "date": "2026-11-30"},
			map[string]any{"amount": json.Number("5.00"), "from": "EUR", "to": "PHP", "date": "2026-11-30",
				"converted": json.Number("340.50"), "rate": json.Number("68.1"), "rate_date": "2026-11-19",
				"source": "manual", "via": nil, "stale": true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := env.okTool(reader, "convert_amount", tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("convert_amount (-want +got):\n%s", diff)
			}
		})
	}

	// No rate converts yen to dinars: the REST error, code and message, as a tool error.
	_, problem := env.toolErrorLikeREST(t, reader, rest, "convert_amount", `{"amount":"12345","from":"JPY","to":"KWD","date":"2026-11-20"}`,
		http.MethodGet, "/api/v1/exchange-rates/convert?amount=12345&from=JPY&to=KWD&date=2026-11-20", "", "RATE_MISSING")
	if problem["message"] != "No exchange rate from JPY to KWD on or before 2026-11-20" {
		t.Errorf("message %v", problem["message"])
	}
	// A bad amount names the argument, as the route does.
	_, problem = env.toolErrorLikeREST(t, reader, rest, "convert_amount", `{"amount":"100.5","from":"JPY","to":"USD"}`,
		http.MethodGet, "/api/v1/exchange-rates/convert?amount=100.5&from=JPY&to=USD", "", "VALIDATION_ERROR")
	if fields, _ := problem["fields"].(map[string]any); fields["amount"] != "must be a number with at most 0 decimal places" {
		t.Errorf("fields %v", problem["fields"])
	}

	// The list: newest first, filtered as the route filters, items compact.
	page := env.okTool(reader, "list_exchange_rates", map[string]any{"base": "usd"})
	items, _ := page["items"].([]any)
	if len(items) != 1 {
		t.Fatalf("base=usd: %v", page)
	}
	item := items[0].(map[string]any)
	if _, ok := item["id"].(string); !ok {
		t.Fatalf("item without an id: %v", item)
	}
	delete(item, "id")
	want := map[string]any{"base": "USD", "quote": "JPY", "date": "2026-11-20", "rate": json.Number("154.37"), "source": "manual"}
	if diff := cmp.Diff(want, item); diff != "" {
		t.Errorf("list_exchange_rates item (-want +got):\n%s", diff)
	}
	all := env.okTool(reader, "list_exchange_rates", map[string]any{"source": "manual", "detail": "full"})
	var dates []any
	for _, it := range all["items"].([]any) {
		dates = append(dates, it.(map[string]any)["date"])
		if it.(map[string]any)["created_at"] == nil {
			t.Errorf("detail=full without created_at: %v", it)
		}
	}
	if diff := cmp.Diff([]any{"2026-11-20", "2026-11-19"}, dates); diff != "" {
		t.Errorf("newest first (-want +got):\n%s", diff)
	}
	_, problem = env.toolErrorLikeREST(t, reader, rest, "list_exchange_rates", `{"source":"bank"}`,
		http.MethodGet, "/api/v1/exchange-rates?source=bank", "", "VALIDATION_ERROR")
	if fields, _ := problem["fields"].(map[string]any); fields["source"] == nil {
		t.Errorf("fields %v", problem["fields"])
	}

	if n := fmt.Sprint(manual()); n != "2" {
		t.Errorf("%s manual rates after the reads, want the 2 entered", n)
	}
}
