package mcpserver

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

// The worked example of docs/domain.md "Money in more than one currency",
// set up and read as an agent would, through the tools: reporting currency
// PHP; a PHP checking account, USD savings and a JPY wallet; a PHP card with
// a 3% foreign transaction fee; the person's own rates of 2026-11-20 (EUR →
// PHP 65.20, EUR → USD 1.0550, EUR → JPY 162.40), which stay on REST. Every
// figure is the document's hand computation. Net worth converts today's
// balances at the latest rate, those of 2026-11-20.
func TestWorkedCurrencyExampleThroughTools(t *testing.T) {
	env := newTestEnv(t)
	key := env.key(auth.ScopeAll)
	const day = "2026-11-20"
	rateIDs := map[string]string{}
	enterRate := func(quote, rate string) {
		t.Helper()
		status, res := env.rest(key, http.MethodPost, "/api/v1/exchange-rates",
			`{"base":"EUR","quote":"`+quote+`","date":"`+day+`","rate":"`+rate+`"}`)
		if status != http.StatusCreated {
			t.Fatalf("POST /exchange-rates %s: %d %v", quote, status, res.Error)
		}
		rateIDs[quote] = res.Data.(map[string]any)["id"].(string)
	}
	deleteJPYRate := func() {
		t.Helper()
		if status, res := env.rest(key, http.MethodDelete, "/api/v1/exchange-rates/"+rateIDs["JPY"], ""); status != http.StatusOK {
			t.Fatalf("DELETE the JPY rate: %d %v", status, res.Error)
		}
	}
	enterRate("PHP", "65.20")
	enterRate("USD", "1.0550")
	enterRate("JPY", "162.40")

	account := func(name, typ, currency string, opening int) string {
		t.Helper()
		a := env.okTool(key, "create_account", map[string]any{"name": name, "type": typ, "currency": currency, "opening_balance": opening})
		if a["currency"] != strings.ToUpper(currency) {
			t.Fatalf("%s is in %v, want %s", name, a["currency"], currency)
		}
		return a["id"].(string)
	}
	account("Checking", "checking", "PHP", 20000)
	account("Savings", "savings", "USD", 1000)
	wallet := account("Wallet", "e_wallet", "jpy", 50000)
	card := env.okTool(key, "create_credit_card", map[string]any{"name": "Visa", "credit_limit": 100000,
		"statement_day": 5, "due_day": 25, "foreign_fee_percent": 3})

	netWorth := func() map[string]any {
		t.Helper()
		return env.okTool(key, "get_report", map[string]any{"report": "net-worth"})
	}
	type line = map[string]any
	n := func(s string) json.Number { return json.Number(s) }

	// Net worth, read before any spending, as the document's table is.
	got := netWorth()
	want := map[string]any{"currency": "PHP", "net_worth": n("101874.84"), "rates_as_of": day, "missing_rates": []any{},
		"by_currency": []any{
			line{"currency": "PHP", "total": n("20000.00"), "converted": n("20000.00")},
			line{"currency": "JPY", "total": n("50000.00"), "converted": n("20073.89")},
			line{"currency": "USD", "total": n("1000.00"), "converted": n("61800.95")},
		}}
	if d := cmp.Diff(want, pick(got, "currency", "net_worth", "rates_as_of", "missing_rates", "by_currency")); d != "" {
		t.Errorf("net worth (-want +got):\n%s", d)
	}

	// Without the JPY rate the wallet is left out and named, never 1:1.
	deleteJPYRate()
	got = netWorth()
	want = map[string]any{"net_worth": n("81800.95"),
		"missing_rates": []any{line{"currency": "JPY", "amount": n("50000.00"), "date_from": got["as_of"], "date_to": got["as_of"]}}}
	if d := cmp.Diff(want, pick(got, "net_worth", "missing_rates")); d != "" {
		t.Errorf("net worth without a JPY rate (-want +got):\n%s", d)
	}
	enterRate("JPY", "162.40")

	// The day's four expenses. The ramen's billed amount is left to the
	// day's rate plus the card's fee: 12,345 × 65.20 ÷ 162.40 × 1.03.
	spend := func(args map[string]any) map[string]any {
		t.Helper()
		args["date"] = day
		return env.okTool(key, "create_expense", args)
	}
	spend(map[string]any{"amount": 1000, "description": "Groceries", "category": "Food & Dining", "payment_method": "Cash"})
	if taxi := spend(map[string]any{"amount": 25, "currency": "usd", "description": "Taxi", "category": "Transportation",
		"payment_method": "Cash"}); taxi["currency"] != "USD" {
		t.Errorf("the taxi is in %v, want USD", taxi["currency"])
	}
	if train := spend(map[string]any{"amount": 3000, "description": "Train", "category": "Transportation",
		"payment_method": "Account Debit", "account_id": wallet}); train["currency"] != "JPY" {
		t.Errorf("the train fare is in %v, want the wallet's JPY", train["currency"])
	}
	ramen := spend(map[string]any{"original_amount": 12345, "original_currency": "JPY", "description": "Ramen",
		"category": "Food & Dining", "payment_method": "Credit Card", "credit_card_id": card["id"]})
	if d := cmp.Diff([]any{n("5104.93"), "PHP", n("12345.00"), "JPY"},
		[]any{ramen["amount"], ramen["currency"], ramen["original_amount"], ramen["original_currency"]}); d != "" {
		t.Errorf("the ramen (amount, currency, original) (-want +got):\n%s", d)
	}

	summary := func() map[string]any {
		t.Helper()
		return env.okTool(key, "get_expense_summary", map[string]any{"dateFrom": day, "dateTo": day})
	}
	methods := func() []any {
		t.Helper()
		r := env.okTool(key, "get_report", map[string]any{"report": "payment-methods", "dateFrom": day, "dateTo": day})
		var out []any
		for _, it := range r["items"].([]any) {
			it := it.(map[string]any)
			out = append(out, []any{it["payment_method"], it["amount"]})
		}
		return append(out, r["currency"], r["missing_rates"])
	}
	// ₱1,000 + $25 → 2,545.023696… ; ¥3,000 → 1,204.433497… ; the card's billed ₱5,104.93.
	wantMethods := []any{line{"payment_method": "Cash", "amount": n("2545.02"), "count": n("2")},
		line{"payment_method": "Account Debit", "amount": n("1204.43"), "count": n("1")},
		line{"payment_method": "Credit Card", "amount": n("5104.93"), "count": n("1")}}
	got = summary()
	want = map[string]any{"currency": "PHP", "total_expenses": n("8854.39"), "count": n("4"), "rates_as_of": day,
		"missing_rates": []any{}, "by_payment_method": wantMethods}
	if d := cmp.Diff(want, pick(got, "currency", "total_expenses", "count", "rates_as_of", "missing_rates", "by_payment_method")); d != "" {
		t.Errorf("expense summary (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]any{[]any{"Cash", n("2545.02")}, []any{"Account Debit", n("1204.43")}, []any{"Credit Card", n("5104.93")},
		"PHP", []any{}}, methods()); d != "" {
		t.Errorf("payment-methods report (-want +got):\n%s", d)
	}

	// Without the JPY rate the train fare is left out and named; the card
	// purchase still counts: it was billed in pesos.
	deleteJPYRate()
	missingJPY := []any{line{"currency": "JPY", "amount": n("3000.00"), "date_from": day, "date_to": day}}
	got = summary()
	want = map[string]any{"total_expenses": n("7649.95"), "count": n("4"), "missing_rates": missingJPY}
	if d := cmp.Diff(want, pick(got, "total_expenses", "count", "missing_rates")); d != "" {
		t.Errorf("expense summary without a JPY rate (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]any{[]any{"Cash", n("2545.02")}, []any{"Account Debit", n("0.00")}, []any{"Credit Card", n("5104.93")},
		"PHP", missingJPY}, methods()); d != "" {
		t.Errorf("payment-methods report without a JPY rate (-want +got):\n%s", d)
	}
}

// pick is the named members of m.
func pick(m map[string]any, names ...string) map[string]any {
	out := map[string]any{}
	for _, name := range names {
		out[name] = m[name]
	}
	return out
}
