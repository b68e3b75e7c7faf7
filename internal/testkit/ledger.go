package testkit

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"

	"github.com/finance-app/finance/finance"
)

// APICall sends one request to /api/v1+path with body as JSON (nil: no
// body) and returns the status and the envelope's data.
type APICall func(method, path string, body any) (status int, data json.RawMessage)

// ledgerBuilder records a ledger through an APICall, failing the test on
// any answer but the one wanted.
type ledgerBuilder struct {
	t     testing.TB
	call  APICall
	today finance.Date
}

func (b ledgerBuilder) send(method, path string, body any, want int) map[string]any {
	b.t.Helper()
	status, data := b.call(method, path, body)
	if status != want {
		b.t.Fatalf("%s %s: %d, want %d: %s", method, path, status, want, data)
	}
	var out map[string]any
	if len(data) > 0 && data[0] == '{' {
		if err := json.Unmarshal(data, &out); err != nil {
			b.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return out
}

// items lists the items of a list route.
func (b ledgerBuilder) items(path string) []map[string]any {
	b.t.Helper()
	var out []map[string]any
	for _, it := range b.send(http.MethodGet, path, nil, http.StatusOK)["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// month is the date k months from today's month on day, clamped.
func (b ledgerBuilder) month(k, day int) string { return finance.MonthAdd(b.today, k, day).String() }

func id(rec map[string]any, field string) string { s, _ := rec[field].(string); return s }

// BuildFullLedger records, through the API, a ledger with every kind of
// record and state an export must carry, dated around today: settings and
// a budget; categories, one archived, and a category rule; accounts with
// manual lines, a voided one and an adjustment; transfers, one with a fee
// and one deleted; cash, debit, card, split and voided expenses;
// income, one voided; a card with purchases, a fee and a refund, statements
// with a payment and a voided one; installment plans, one cancelled; bill
// templates with a partly paid and a skipped bill; loans with a payment,
// one cancelled. The caller's key holds every scope.
func BuildFullLedger(t testing.TB, call APICall, today finance.Date) {
	t.Helper()
	b := ledgerBuilder{t: t, call: call, today: today}
	const created, ok = http.StatusCreated, http.StatusOK
	b.send("PUT", "/user-settings/app", map[string]any{"due_soon_days": 10, "budget_warning_percent": 70, "week_start": "sunday"}, ok)
	b.send("POST", "/categories", map[string]any{"name": "Pets", "kind": "expense", "color": "#A1B2C3"}, created)
	old := b.send("POST", "/categories", map[string]any{"name": "Old hobby", "kind": "expense"}, created)
	b.send("DELETE", "/categories/"+id(old, "id"), nil, ok)
	b.send("PUT", "/user-settings/budget-thresholds", map[string]any{"thresholds": []any{
		map[string]any{"category": "Groceries", "monthly_limit": "1000", "warning_percent": 70},
		map[string]any{"category": "Pets", "monthly_limit": "250.50"}}}, ok)

	payroll := id(b.send("POST", "/accounts", map[string]any{"name": "Payroll", "type": "savings", "opening_balance": "20000"}, created), "id")
	wallet := id(b.send("POST", "/accounts", map[string]any{"name": "Wallet", "type": "cash", "opening_balance": "500.25"}, created), "id")
	b.send("POST", "/accounts/"+payroll+"/transactions", map[string]any{"type": "credit", "amount": "1000.10",
		"date": b.month(-1, 3), "description": "Gift"}, created)
	wrong := b.send("POST", "/accounts/"+payroll+"/transactions", map[string]any{"type": "debit", "amount": "99",
		"date": b.month(-1, 4), "description": "Typo"}, created)
	b.send("DELETE", "/accounts/"+payroll+"/transactions/"+id(wrong, "id"), nil, ok)
	b.send("POST", "/accounts/"+wallet+"/balance-adjustment", map[string]any{"target_balance": "450", "date": b.month(0, 1)}, created)
	b.send("POST", "/transfers", map[string]any{"from_account_id": payroll, "to_account_id": wallet, "amount": "2500",
		"date": b.month(-1, 5), "description": "Cash for the week", "fee": "15"}, created)
	undone := b.send("POST", "/transfers", map[string]any{"from_account_id": wallet, "to_account_id": payroll, "amount": "12.34",
		"date": b.month(-1, 6)}, created)
	b.send("DELETE", "/transfers/"+id(undone, "id"), nil, ok)
	b.send("POST", "/category-rules", map[string]any{"description_contains": "grab", "amount_min": "100", "category": "Transportation"}, created)
	b.send("POST", "/exchange-rates", map[string]any{"base": "USD", "quote": "PHP", "date": today.String(), "rate": "58.9"}, created)
	b.send("PUT", "/user-settings/reminders", map[string]any{"enabled": true, "bill_days": 7, "digest_day": "sunday",
		"quiet_start": "12:30", "quiet_end": "13:15"}, ok)

	card := id(b.send("POST", "/credit-cards", map[string]any{"name": "Gold", "credit_limit": "100000", "statement_day": 15,
		"due_day": 5, "cycle_start_date": b.month(-4, 1)}, created), "id")
	purchase := func(amount, date string) map[string]any {
		return map[string]any{"amount": amount, "date": date, "description": "bought " + date, "category": "Shopping",
			"payment_method": "Credit Card", "credit_card_id": card}
	}
	b.send("POST", "/expenses/bulk", map[string]any{"items": []any{purchase("12000", b.month(-3, 10)), purchase("4683.35", b.month(-3, 12))}}, created)
	b.send("POST", "/expenses", purchase("300", b.month(-2, 20)), created)
	b.send("POST", "/expenses", map[string]any{"amount": "45.50", "date": b.month(-1, 9), "description": "Lunch",
		"category": "Food & Dining", "payment_method": "Cash"}, created)
	b.send("POST", "/expenses", map[string]any{"amount": "1200", "date": b.month(-1, 11), "description": "Groceries",
		"category": "Groceries", "payment_method": "Account Debit", "account_id": payroll}, created)
	dinner := b.send("POST", "/expenses", map[string]any{"amount": "30", "date": b.month(0, 1), "description": "Market",
		"category": "Groceries", "payment_method": "Cash"}, created)
	b.send("POST", "/expenses/"+id(dinner, "id")+"/split", map[string]any{"parts": []any{
		map[string]any{"amount": "10", "category": "Groceries"}, map[string]any{"amount": "20", "category": "Pets"}}}, ok)
	mistake := b.send("POST", "/expenses", map[string]any{"amount": "77", "date": b.month(0, 1), "description": "Twice",
		"category": "Food & Dining", "payment_method": "Account Debit", "account_id": wallet}, created)
	b.send("DELETE", "/expenses/"+id(mistake, "id"), nil, ok)

	b.send("POST", "/income", map[string]any{"amount": "45000.05", "date": b.month(-1, 15), "category": "Salary",
		"account_id": payroll}, created)
	b.send("POST", "/income", map[string]any{"amount": "800", "date": b.month(-2, 2), "category": "Salary", "description": "Side job"}, created)
	twice := b.send("POST", "/income", map[string]any{"amount": "10", "date": b.month(-2, 3), "category": "Salary"}, created)
	b.send("DELETE", "/income/"+id(twice, "id"), nil, ok)

	row := func(kind, amount, date string, category any) map[string]any {
		return map[string]any{"credit_card_id": card, "type": kind, "amount": amount, "date": date,
			"description": kind + " " + date, "category": category}
	}
	b.send("POST", "/credit-cards/transactions", row("fee", "150", b.month(-2, 1), nil), created)
	b.send("POST", "/credit-cards/transactions", row("refund", "35.75", b.month(-2, 2), "Shopping"), created)

	// The first statement is paid in part, then voided: its payment is
	// reversed and a fresh statement bills the same lines; that one is paid in part.
	soas := b.items("/credit-cards/soa?sortOrder=asc&limit=100")
	first := id(soas[0], "id")
	b.send("POST", "/credit-cards/soa/"+first+"/payments", map[string]any{"amount": "500.50", "account_id": payroll}, created)
	voided := b.send("POST", "/credit-cards/soa/"+first+"/void", nil, ok)
	b.send("POST", "/credit-cards/soa/"+id(voided, "replaced_by_id")+"/payments", map[string]any{"amount": "1000", "account_id": payroll}, created)

	tv := b.send("POST", "/expenses", purchase("20000", b.today.String()), created)
	b.send("POST", "/credit-cards/transactions/"+id(tv, "card_transaction_id")+"/convert-to-installment",
		map[string]any{"months": 24, "interest_type": "add_on", "interest_rate": "0.75"}, created)
	phone := b.send("POST", "/expenses", purchase("6000", b.today.String()), created)
	plan := b.send("POST", "/credit-cards/transactions/"+id(phone, "card_transaction_id")+"/convert-to-installment",
		map[string]any{"months": 3, "interest_type": "none"}, created)
	b.send("POST", "/credit-cards/installment-plans/"+id(plan, "id")+"/cancel", nil, ok)

	tmpl := id(b.send("POST", "/bills/templates", map[string]any{"name": "Electricity", "amount": "3000", "category": "Utilities",
		"frequency": "monthly", "start_date": b.month(-1, 1), "due_day": 31, "default_payment_method": "Account Debit",
		"default_account_id": payroll}, created), "id")
	bills := b.items("/bills?sortOrder=asc&templateId=" + url.QueryEscape(tmpl))
	b.send("POST", "/bills/"+id(bills[0], "id")+"/payments", map[string]any{"amount": "1200.50"}, created)
	b.send("POST", "/bills/"+id(bills[len(bills)-1], "id")+"/status", map[string]any{"status": "skipped"}, ok)
	b.send("POST", "/bills/templates", map[string]any{"name": "Water", "amount": "450", "category": "Utilities",
		"frequency": "quarterly", "start_date": b.month(-4, 10)}, created)

	// A salary twice a month into payroll: one payday received, one skipped,
	// the rest expected; and a removed template whose received entry stays.
	salary := id(b.send("POST", "/income/templates", map[string]any{"name": "Salary", "amount": "20000", "category": "Salary",
		"frequency": "semimonthly", "start_date": b.month(-1, 1), "due_day": 15, "second_due_day": 31,
		"account_id": payroll}, created), "id")
	paydays := b.items("/income/expected?templateId=" + url.QueryEscape(salary))
	b.send("POST", "/income/expected/"+id(paydays[0], "id")+"/confirm", map[string]any{"amount": "20100.25"}, ok)
	b.send("POST", "/income/expected/"+id(paydays[1], "id")+"/skip", nil, ok)
	bonus := id(b.send("POST", "/income/templates", map[string]any{"name": "Bonus", "amount": "5000", "category": "Salary",
		"frequency": "monthly", "start_date": b.month(-1, 1), "due_day": 1}, created), "id")
	bonuses := b.items("/income/expected?templateId=" + url.QueryEscape(bonus))
	b.send("POST", "/income/expected/"+id(bonuses[0], "id")+"/confirm", nil, ok)
	b.send("DELETE", "/income/templates/"+bonus, nil, ok)

	loan := b.send("POST", "/loans", map[string]any{"name": "Car", "principal": "100000", "interest_type": "diminishing",
		"interest_rate": "12", "term_months": 12, "start_date": b.today.AddDays(-20).String()}, created)
	instances := b.items("/loans/" + id(loan, "id") + "/instances?limit=100")
	b.send("POST", "/loans/instances/"+id(instances[0], "id")+"/payments", map[string]any{"amount": "600", "account_id": payroll}, created)
	gone := b.send("POST", "/loans", map[string]any{"name": "Phone plan", "principal": "12000", "interest_type": "none",
		"term_months": 6, "start_date": b.month(-1, 5)}, created)
	b.send("PATCH", "/loans/"+id(gone, "id"), map[string]any{"status": "cancelled"}, ok)
}

// LedgerFigures reads what a person sees of the ledger, by route: balances,
// lines, statements and their counts, plans, bills, loans, every list of
// records in every state, the dashboard of this month and the last, and
// every report over today's defaults and over the ledger's whole span.
func LedgerFigures(t testing.TB, call APICall, today finance.Date) map[string]json.RawMessage {
	t.Helper()
	span := "?dateFrom=" + finance.MonthAdd(today, -6, 1).String() + "&dateTo=" + finance.MonthAdd(today, 2, 28).String()
	paths := []string{
		"/dashboard", "/dashboard?month=" + finance.MonthAdd(today, -1, 1).String()[:7],
		"/accounts?limit=100&status=all", "/accounts/transactions?limit=100", "/accounts/transactions?limit=100&status=voided",
		"/credit-cards?limit=100", "/credit-cards/metrics", "/credit-cards/usage-summary",
		"/credit-cards/transactions?limit=100", "/credit-cards/soa?limit=100", "/credit-cards/soa?limit=100&status=voided",
		"/credit-cards/soa/counts", "/credit-cards/installment-plans?limit=100",
		"/expenses?limit=100", "/expenses?limit=100&status=voided", "/expenses/summary",
		"/income?limit=100", "/income?limit=100&status=voided",
		"/transfers?limit=100", "/transfers?limit=100&status=voided",
		"/bills?limit=100", "/bills/summary", "/bills/templates?limit=100",
		"/income/templates?limit=100", "/income/expected?limit=100",
		"/loans?limit=100", "/loans/current-month-dues",
		"/categories?limit=100", "/categories?limit=100&status=archived",
		"/user-settings/app", "/user-settings/budget-thresholds", "/user-settings/reminders", "/reminders",
		"/exchange-rates?limit=100",
	}
	for _, name := range finance.ReportNames() {
		paths = append(paths, "/reports/"+name, "/reports/"+name+span)
	}
	out := make(map[string]json.RawMessage, len(paths))
	for _, p := range paths {
		status, data := call(http.MethodGet, p, nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", p, status, data)
		}
		out[p] = data
	}
	return out
}
