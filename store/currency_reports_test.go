package store_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// The reports over time, the bills, loans and cards reports and the
// expected income of the month in the reporting currency, on the worked
// example's household (domain.md "Money in more than one currency").
// With the rates of 2026-11-20, ¥1 is 65.20 ÷ 162.40 = 0.4014778325… and
// $1 is 65.20 ÷ 1.0550 = 61.8009478672… pesos. Each case runs with the JPY
// rate (the figure converted, as the comment computes it) and without it
// (the yen left out and named in missing_rates, never counted 1:1).

var november = finance.ReportRequest{From: mustDate("2026-11-01"), To: mustDate("2026-11-30")}

// reportOf is the named report of November 2026 as a client reads it.
func reportOf(t *testing.T, h fxHousehold, name string) map[string]any {
	t.Helper()
	req := november
	req.Name = name
	r, err := h.svc.Report(context.Background(), h.user.ID, req)
	if err != nil {
		t.Fatal(err)
	}
	return jsonOf(t, r)
}

// earn records the day's income: ₱50,000.00 in cash, $100.00 into Savings
// and ¥10,000 into the Wallet.
func (h fxHousehold) earn(t *testing.T) {
	t.Helper()
	for _, in := range []struct{ amount, account string }{{"50000", ""}, {"100", h.savings.ID}, {"10000", h.wallet.ID}} {
		r := finance.IncomeRequest{Amount: finance.Of(money(t, in.amount)), Date: finance.Of(fixtureDay), Category: finance.Of("Salary")}
		if in.account != "" {
			r.AccountID = finance.Of(in.account)
		}
		if _, err := h.svc.CreateIncome(context.Background(), h.user.ID, r); err != nil {
			t.Fatal(err)
		}
	}
}

// missingJPY is the yen a report left out, over the given dates.
func missingJPY(amount float64, from, to string) []any {
	return []any{map[string]any{"currency": "JPY", "amount": amount, "date_from": from, "date_to": to}}
}

// conversion is the fields every converted report answers.
func conversion(ratesAsOf any, missing []any) map[string]any {
	if missing == nil {
		missing = []any{}
	}
	return map[string]any{"currency": "PHP", "rates_as_of": ratesAsOf, "missing_rates": missing}
}

func with(m map[string]any, more map[string]any) map[string]any {
	for k, v := range more {
		m[k] = v
	}
	return m
}

func TestSpendingTrendInTheReportingCurrency(t *testing.T) {
	for _, c := range []struct {
		withJPY bool
		want    map[string]any
	}{
		// ₱1,000 + $25 + ¥3,000 + ₱5,104.93 = 8,854.387194… → ₱8,854.39, the
		// month's one bucket and the total alike.
		{true, with(conversion("2026-11-20", nil), map[string]any{"total": 8854.39, "average_per_bucket": 8854.39,
			"buckets": []any{map[string]any{"period": "2026-11", "amount": 8854.39}}})},
		// The train's ¥3,000 left out: 7,649.953696… → ₱7,649.95.
		{false, with(conversion("2026-11-20", missingJPY(3000, "2026-11-20", "2026-11-20")), map[string]any{"total": 7649.95,
			"average_per_bucket": 7649.95, "buckets": []any{map[string]any{"period": "2026-11", "amount": 7649.95}}})},
	} {
		h := newFXHousehold(t, c.withJPY)
		h.spend(t)
		got := pick(reportOf(t, h, finance.ReportSpendingTrend), "currency", "rates_as_of", "missing_rates", "total", "average_per_bucket", "buckets")
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("with the JPY rate %v (-want +got):\n%s", c.withJPY, d)
		}
	}
}

func TestIncomeVsExpensesInTheReportingCurrency(t *testing.T) {
	for _, c := range []struct {
		withJPY bool
		want    map[string]any
	}{
		// Income: 50,000 + $100 (6,180.094786…) + ¥10,000 (4,014.778325…) =
		// 60,194.873111… → ₱60,194.87; spending ₱8,854.39 as above; net
		// rounded once from the exact difference, 51,340.485917… → ₱51,340.49;
		// the savings rate 51,340.49 of 60,194.87 is 85.29%.
		{true, with(conversion("2026-11-20", nil), map[string]any{
			"buckets": []any{map[string]any{"period": "2026-11", "income": 60194.87, "spending": 8854.39, "net": 51340.49}},
			"totals":  map[string]any{"income": 60194.87, "spending": 8854.39, "net": 51340.49, "savings_rate_percent": 85.29}})},
		// Without yen: income 56,180.094786… → ₱56,180.09, spending ₱7,649.95,
		// net 48,530.141090… → ₱48,530.14 (86.38% of the income). The yen's
		// net is named: ¥10,000 earned less ¥3,000 spent.
		{false, with(conversion("2026-11-20", missingJPY(7000, "2026-11-20", "2026-11-20")), map[string]any{
			"buckets": []any{map[string]any{"period": "2026-11", "income": 56180.09, "spending": 7649.95, "net": 48530.14}},
			"totals":  map[string]any{"income": 56180.09, "spending": 7649.95, "net": 48530.14, "savings_rate_percent": 86.38}})},
	} {
		h := newFXHousehold(t, c.withJPY)
		h.spend(t)
		h.earn(t)
		got := pick(reportOf(t, h, finance.ReportIncomeVsExpenses), "currency", "rates_as_of", "missing_rates", "buckets", "totals")
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("with the JPY rate %v (-want +got):\n%s", c.withJPY, d)
		}
	}
}

func TestCashFlowInTheReportingCurrency(t *testing.T) {
	for _, c := range []struct {
		withJPY bool
		want    map[string]any
	}{
		// In: the income, ₱60,194.87. Out: cash ₱1,000 + $25 = 2,545.023696…
		// → ₱2,545.02, the wallet's ¥3,000 = 1,204.433497… → ₱1,204.43; the
		// card purchase moves no money. Outflow 3,749.457194… → ₱3,749.46;
		// net 56,445.415917… → ₱56,445.42.
		{true, with(conversion("2026-11-20", nil), map[string]any{
			"buckets": []any{map[string]any{"period": "2026-11", "inflow": 60194.87, "outflow": 3749.46, "net": 56445.42}},
			"breakdown": map[string]any{"income": 60194.87, "cash_expenses": 2545.02, "account_debit_expenses": 1204.43,
				"card_payments": 0.0, "loan_payments": 0.0}})},
		// Without yen: in ₱56,180.09, out ₱2,545.02, net 53,635.071090… →
		// ₱53,635.07; the yen's net, ¥10,000 in less ¥3,000 out, is named.
		{false, with(conversion("2026-11-20", missingJPY(7000, "2026-11-20", "2026-11-20")), map[string]any{
			"buckets": []any{map[string]any{"period": "2026-11", "inflow": 56180.09, "outflow": 2545.02, "net": 53635.07}},
			"breakdown": map[string]any{"income": 56180.09, "cash_expenses": 2545.02, "account_debit_expenses": 0.0,
				"card_payments": 0.0, "loan_payments": 0.0}})},
	} {
		h := newFXHousehold(t, c.withJPY)
		h.spend(t)
		h.earn(t)
		got := pick(reportOf(t, h, finance.ReportCashFlow), "currency", "rates_as_of", "missing_rates", "buckets", "breakdown")
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("with the JPY rate %v (-want +got):\n%s", c.withJPY, d)
		}
	}
}

// Two bills of November: electricity ₱1,500.00 due on the 10th (overdue
// on the 20th) and rent in Tokyo ¥12,000 due on the 25th. Each stays in
// its template's currency; the report converts at the range's last day
// (the rates of 2026-11-20 are the latest on or before it).
func TestBillsOverviewInTheReportingCurrency(t *testing.T) {
	for _, c := range []struct {
		withJPY bool
		want    map[string]any
	}{
		// Due: 1,500 + ¥12,000 (4,817.733990…) = 6,317.733990… → ₱6,317.73.
		{true, with(conversion("2026-11-20", nil), map[string]any{"count": 2.0, "amount_due": 6317.73, "paid_amount": 0.0,
			"remaining_amount": 6317.73, "overdue": map[string]any{"count": 1.0, "amount": 1500.0},
			"by_category": []any{map[string]any{"category": "Rent & Housing", "amount_due": 4817.73, "paid_amount": 0.0},
				map[string]any{"category": "Utilities", "amount_due": 1500.0, "paid_amount": 0.0}}})},
		// The rent left out and named at the range's last day; both bills
		// still count.
		{false, with(conversion(nil, missingJPY(12000, "2026-11-30", "2026-11-30")), map[string]any{"count": 2.0, "amount_due": 1500.0,
			"paid_amount": 0.0, "remaining_amount": 1500.0, "overdue": map[string]any{"count": 1.0, "amount": 1500.0},
			"by_category": []any{map[string]any{"category": "Rent & Housing", "amount_due": 0.0, "paid_amount": 0.0},
				map[string]any{"category": "Utilities", "amount_due": 1500.0, "paid_amount": 0.0}}})},
	} {
		h := newFXHousehold(t, c.withJPY)
		for _, b := range []struct {
			name, amount, currency, category string
			dueDay                           int
		}{{"Electricity", "1500", "PHP", "Utilities", 10}, {"Tokyo rent", "12000", "JPY", "Rent & Housing", 25}} {
			if _, err := h.svc.CreateBillTemplate(context.Background(), h.user.ID, finance.BillTemplateRequest{Name: finance.Of(b.name),
				Amount: finance.Of(money(t, b.amount)), Currency: finance.Of(b.currency), Category: finance.Of(b.category),
				Frequency: finance.Of("monthly"), StartDate: finance.Of(mustDate("2026-11-01")), DueDay: finance.Of(b.dueDay)}); err != nil {
				t.Fatal(err)
			}
		}
		got := pick(reportOf(t, h, finance.ReportBillsOverview), "currency", "rates_as_of", "missing_rates", "count", "amount_due",
			"paid_amount", "remaining_amount", "overdue", "by_category")
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("with the JPY rate %v (-want +got):\n%s", c.withJPY, d)
		}
	}
}

// A car loan of ₱10,000.00 and one of ¥100,000, both over 3 months at 0%
// from November: each loan in its own currency (the yen one's schedule in
// whole yen), the totals converted at today's rate.
func TestLoansOverviewInTheReportingCurrency(t *testing.T) {
	for _, c := range []struct {
		withJPY bool
		want    map[string]any
	}{
		// Principal: 10,000 + ¥100,000 (40,147.783251…) = 50,147.783251… →
		// ₱50,147.78; nothing paid, so what remains is the same.
		{true, with(conversion("2026-11-20", nil), map[string]any{"totals": map[string]any{"principal": 50147.78,
			"total_interest": 0.0, "paid_principal": 0.0, "paid_interest": 0.0, "remaining_principal": 50147.78,
			"remaining_payable": 50147.78, "paid_count": 0.0}})},
		{false, with(conversion(nil, missingJPY(100000, "2026-11-20", "2026-11-20")), map[string]any{"totals": map[string]any{
			"principal": 10000.0, "total_interest": 0.0, "paid_principal": 0.0, "paid_interest": 0.0, "remaining_principal": 10000.0,
			"remaining_payable": 10000.0, "paid_count": 0.0}})},
	} {
		h := newFXHousehold(t, c.withJPY)
		for _, l := range []struct{ name, principal, currency string }{{"Bike", "10000", "PHP"}, {"Car", "100000", "JPY"}} {
			if _, err := h.svc.CreateLoan(context.Background(), h.user.ID, finance.LoanRequest{Name: finance.Of(l.name),
				Principal: finance.Of(money(t, l.principal)), InterestType: finance.Of(finance.InterestNone), TermMonths: finance.Of(3),
				StartDate: finance.Of(mustDate("2026-11-01")), Currency: finance.Of(l.currency)}); err != nil {
				t.Fatal(err)
			}
		}
		got := reportOf(t, h, finance.ReportLoansOverview)
		if d := cmp.Diff(c.want, pick(got, "currency", "rates_as_of", "missing_rates", "totals")); d != "" {
			t.Errorf("with the JPY rate %v (-want +got):\n%s", c.withJPY, d)
		}
		var loans []any
		for _, l := range got["loans"].([]any) {
			l := l.(map[string]any)
			loans = append(loans, []any{l["name"], l["currency"], l["principal"], l["remaining_payable"]})
		}
		want := []any{[]any{"Bike", "PHP", 10000.0, 10000.0}, []any{"Car", "JPY", 100000.0, 100000.0}}
		if d := cmp.Diff(want, loans); d != "" {
			t.Errorf("loans in their own currencies (-want +got):\n%s", d)
		}
	}
}

// The PHP Visa (limit ₱100,000, the ramen's ₱5,104.93 owed) and a yen
// card (limit ¥500,000, ¥20,000 owed): each card in its own currency, the
// totals converted at today's rate.
func TestCardUtilizationInTheReportingCurrency(t *testing.T) {
	for _, c := range []struct {
		withJPY bool
		want    map[string]any
	}{
		// Limit: 100,000 + ¥500,000 (200,738.916256…) → ₱300,738.92; owed:
		// 5,104.93 + ¥20,000 (8,029.556650…) = 13,134.486650… → ₱13,134.49;
		// available 300,738.92 − 13,134.49; 13,134.49 of 300,738.92 is 4.37%.
		{true, with(conversion("2026-11-20", nil), map[string]any{"totals": map[string]any{"credit_limit": 300738.92,
			"outstanding_balance": 13134.49, "available_credit": 287604.43, "utilization_percent": 4.37, "utilization_level": "low"}})},
		// The yen card left out whole, named by its limit.
		{false, with(conversion(nil, missingJPY(500000, "2026-11-20", "2026-11-20")), map[string]any{"totals": map[string]any{
			"credit_limit": 100000.0, "outstanding_balance": 5104.93, "available_credit": 94895.07, "utilization_percent": 5.1,
			"utilization_level": "low"}})},
	} {
		h := newFXHousehold(t, c.withJPY)
		h.spend(t)
		ctx := context.Background()
		yen, err := h.svc.CreateCreditCard(ctx, h.user.ID, finance.CardRequest{Name: finance.Of("Tokyo"), Bank: finance.Of("MUFG"),
			LastFour: finance.Of("9876"), CreditLimit: finance.Of(money(t, "500000")), StatementDay: finance.Of(5), DueDay: finance.Of(25),
			Currency: finance.Of("JPY")})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.svc.CreateExpense(ctx, h.user.ID, finance.ExpenseRequest{Amount: finance.Of(money(t, "20000")),
			Date: finance.Of(fixtureDay), Description: finance.Of("Shinkansen"), Category: finance.Of("Transportation"),
			PaymentMethod: finance.Of(finance.MethodCreditCard), CreditCardID: finance.Of(yen.ID)}); err != nil {
			t.Fatal(err)
		}
		got := reportOf(t, h, finance.ReportCreditCardUtilization)
		if d := cmp.Diff(c.want, pick(got, "currency", "rates_as_of", "missing_rates", "totals")); d != "" {
			t.Errorf("with the JPY rate %v (-want +got):\n%s", c.withJPY, d)
		}
		var cards []any
		for _, x := range got["cards"].([]any) {
			x := x.(map[string]any)
			cards = append(cards, []any{x["name"], x["currency"], x["credit_limit"], x["outstanding_balance"], x["utilization_percent"]})
		}
		want := []any{[]any{"Tokyo", "JPY", 500000.0, 20000.0, 4.0}, []any{"Visa", "PHP", 100000.0, 5104.93, 5.1}}
		if d := cmp.Diff(want, cards); d != "" {
			t.Errorf("cards in their own currencies (-want +got):\n%s", d)
		}
	}
}

// The income still expected this month: a $100.00 and a ¥10,000 payday on
// the 25th, each converted at the latest rate on or before its date.
func TestExpectedIncomeInTheReportingCurrency(t *testing.T) {
	for _, c := range []struct {
		withJPY bool
		want    map[string]any
	}{
		// 6,180.094786… + 4,014.778325… = 10,194.873111… → ₱10,194.87.
		{true, with(conversion("2026-11-20", nil), map[string]any{"count": 2.0, "amount": 10194.87})},
		// Both paydays counted; the yen's amount left out and named.
		{false, with(conversion("2026-11-20", missingJPY(10000, "2026-11-25", "2026-11-25")), map[string]any{"count": 2.0, "amount": 6180.09})},
	} {
		h := newFXHousehold(t, c.withJPY)
		ctx := context.Background()
		for _, p := range []struct{ name, amount, currency string }{{"Dividends", "100", "USD"}, {"Yen salary", "10000", "JPY"}} {
			if _, err := h.svc.CreateIncomeTemplate(ctx, h.user.ID, finance.IncomeTemplateRequest{Name: finance.Of(p.name),
				Amount: finance.Of(money(t, p.amount)), Currency: finance.Of(p.currency), Category: finance.Of("Salary"),
				Frequency: finance.Of("monthly"), StartDate: finance.Of(mustDate("2026-11-01")), DueDay: finance.Of(25)}); err != nil {
				t.Fatal(err)
			}
		}
		e, err := h.svc.ExpectedIncomeThisMonth(ctx, h.user.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(c.want, jsonOf(t, e)); d != "" {
			t.Errorf("with the JPY rate %v (-want +got):\n%s", c.withJPY, d)
		}
	}
}
