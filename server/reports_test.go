package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

const (
	dashboardURL = "/api/v1/dashboard"
	reportsURL   = "/api/v1/reports/"
)

// reportFixture is one March 2025 of a user's money, with every kind of
// line the counting rule names, and the records the tests look up.
type reportFixture struct {
	env        *testEnv
	alice, bob ledgerUser
	savings    finance.Account
	visa       finance.CreditCard
	rent       finance.BillTemplate
	loan       finance.LoanDetail
}

// newReportEnv is a server with today 2025-03-11 in Manila and two users
// whose keys hold finance:read (the dashboard and reports need it itself)
// and every domain write scope.
func newReportEnv(t *testing.T) (env *testEnv, alice, bob ledgerUser) {
	t.Helper()
	env = newTestEnv(t)
	setToday(env, "2025-03-11")
	mk := func() ledgerUser {
		u := env.createUser(finance.PlanPro)
		return ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeRead, auth.ScopeExpensesWrite,
			auth.ScopeIncomeWrite, auth.ScopeAccountsWrite, auth.ScopeCardsWrite, auth.ScopeBillsWrite,
			auth.ScopeLoansWrite, auth.ScopeSettingsWrite)}
	}
	return env, mk(), mk()
}

// newReportFixture writes alice's March 2025 (the spending it adds up to is
// worked out in the comments), a few lines outside it, and one expense of
// bob's that nothing of alice's may show.
func newReportFixture(t *testing.T) reportFixture {
	t.Helper()
	env, alice, bob := newReportEnv(t)
	f := reportFixture{env: env, alice: alice, bob: bob}
	f.savings = alice.createAccount(t, `{"name":"Savings","type":"savings","opening_balance":100000}`)
	acc := f.savings.ID

	// Income 55,000.00: salary to the account and freelance cash; a voided
	// row and February's salary do not count.
	alice.createIncome(t, `{"amount":50000,"date":"2025-03-01","category":"Salary","description":"March salary","account_id":"`+acc+`"}`)
	alice.createIncome(t, `{"amount":5000,"date":"2025-03-05","category":"Freelance","description":"Logo"}`)
	voidedIncome := alice.createIncome(t, `{"amount":1000,"date":"2025-03-06","category":"Bonus"}`)
	alice.do(t, http.MethodDelete, "/api/v1/income/"+voidedIncome.ID, "", http.StatusOK)
	alice.createIncome(t, `{"amount":50000,"date":"2025-02-28","category":"Salary","account_id":"`+acc+`"}`)

	// Expenses: Groceries 1,234.56 (Cash); Food & Dining 800.00 (Account
	// Debit); 3,000.00 (Cash) split into Groceries 1,000.00 and
	// Transportation 2,000.00; a voided 500.00; February's 999.00.
	alice.createExpense(t, `{"amount":"1234.56","date":"2025-03-02","description":"Market","category":"Groceries","payment_method":"Cash"}`)
	alice.createExpense(t, `{"amount":800,"date":"2025-03-03","description":"Dinner","category":"Food & Dining",
		"payment_method":"Account Debit","account_id":"`+acc+`"}`)
	split := alice.createExpense(t, `{"amount":3000,"date":"2025-03-04","description":"Trip supplies","category":"Miscellaneous","payment_method":"Cash"}`)
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+split.ID+"/split",
		`{"parts":[{"amount":1000,"category":"Groceries"},{"amount":2000,"category":"Transportation"}]}`, http.StatusOK)
	voided := alice.createExpense(t, `{"amount":500,"date":"2025-03-05","description":"Returned","category":"Shopping","payment_method":"Cash"}`)
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+voided.ID, "", http.StatusOK)
	alice.createExpense(t, `{"amount":999,"date":"2025-02-27","description":"February","category":"Shopping","payment_method":"Cash"}`)

	// The card: a Shopping purchase of 2,500.00 less a 300.00 refund; a fee
	// of 150.00 and interest of 75.25 (Card Fees & Interest); a Travel
	// purchase of 12,000.00 converted into 3 rows of 4,000.00 + 120.00
	// interest, the first dated in March (its 120.00 is March spending).
	f.visa = alice.createCard(t, `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5,"cycle_start_date":"2025-01-01"}`)
	card := `{"credit_card_id":"` + f.visa.ID + `",`
	alice.createExpense(t, `{"amount":2500,"date":"2025-03-06","description":"Shoes","category":"Shopping",
		"payment_method":"Credit Card","credit_card_id":"`+f.visa.ID+`"}`)
	alice.createCardRow(t, card+`"type":"fee","amount":150,"date":"2025-03-07","description":"Annual fee"}`)
	alice.createCardRow(t, card+`"type":"interest","amount":"75.25","date":"2025-03-08","description":"Interest"}`)
	alice.createCardRow(t, card+`"type":"refund","amount":300,"date":"2025-03-09","description":"Returned socks","category":"Shopping"}`)
	travel := alice.createCardRow(t, card+`"type":"purchase","amount":12000,"date":"2025-03-01","description":"Flights","category":"Travel"}`)
	storeInstallmentPlan(t, env, alice.user.ID, travel, finance.PlanActive,
		storedPlanRow{"2025-03-10", 4000_00, 120_00, finance.CardUnbilled},
		storedPlanRow{"2025-04-10", 4000_00, 120_00, finance.CardUnbilled},
		storedPlanRow{"2025-05-10", 4000_00, 120_00, finance.CardUnbilled})

	// Bills: Internet 1,500.00 due 03-08, paid in cash (its expense is
	// Utilities spending); Rent 10,000.00 due 03-25, open.
	internet := alice.createTemplate(t, `{"name":"Internet","amount":1500,"category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":8}`)
	f.rent = alice.createTemplate(t, `{"name":"Rent","amount":10000,"category":"Rent & Housing","frequency":"monthly","start_date":"2025-03-01","due_day":25}`)
	alice.payBill(t, alice.billOn(t, internet.ID, "2025-03-08").ID, `{"amount":1500,"date":"2025-03-08","payment_method":"Cash"}`)

	// A loan of 12,000.00 at 1% a month add-on over 12 months: 1,120.00 due
	// each month (120.00 interest). 600.00 paid on 03-10 towards the March
	// instance: 120.00 interest (spending) and 480.00 principal.
	f.loan = alice.createLoan(t, `{"name":"Car","principal":12000,"interest_type":"add_on","interest_rate":1,"term_months":12,"start_date":"2025-01-15"}`)
	alice.payInstance(t, f.loan.Instances[1].ID, `{"amount":600,"date":"2025-03-10"}`)

	alice.do(t, http.MethodPut, thresholdsURL,
		`{"thresholds":[{"category":"Groceries","monthly_limit":2000},{"category":"Shopping","monthly_limit":5000}]}`, http.StatusOK)

	bob.createExpense(t, `{"amount":77777,"date":"2025-03-02","description":"Bob's","category":"Groceries","payment_method":"Cash"}`)
	bob.createIncome(t, `{"amount":88888,"date":"2025-03-02","category":"Salary"}`)
	return f
}

// marchSpending is alice's March spending by category, largest first:
// 21,199.81 in all.
var marchSpending = []struct {
	category string
	amount   string
	count    int
}{
	{"Travel", "12000.00", 1},
	{"Groceries", "2234.56", 2},
	{"Shopping", "2200.00", 2}, // 2,500.00 less the 300.00 refund
	{"Transportation", "2000.00", 1},
	{"Utilities", "1500.00", 1},
	{"Food & Dining", "800.00", 1},
	{"Card Fees & Interest", "345.25", 3}, // 150.00 + 75.25 + 120.00
	{"Loan Interest", "120.00", 1},
}

func report[T any](t testing.TB, u ledgerUser, name, query string) T {
	t.Helper()
	return send[T](t, u, http.MethodGet, reportsURL+name+query, "", http.StatusOK)
}

// The figures of every view of one month agree: the dashboard's totals,
// spending by category, the spending trend, income against expenses, budget
// against actual and the expense summary's total spending.
func TestReportsAgreeOnTheMonth(t *testing.T) {
	f := newReportFixture(t)
	alice := f.alice
	const month, total, income = "?dateFrom=2025-03-01&dateTo=2025-03-31", finance.Money(21_199_81), finance.Money(55_000_00)

	summary := alice.summary(t, "2025-03-01", "2025-03-31")
	dash := send[finance.Dashboard](t, alice, http.MethodGet, dashboardURL+"?month=2025-03", "", http.StatusOK)
	byCategory := report[finance.SpendingByCategoryReport](t, alice, finance.ReportSpendingByCategory, month)
	trend := report[finance.SpendingTrendReport](t, alice, finance.ReportSpendingTrend, month+"&granularity=day")
	ive := report[finance.IncomeVsExpensesReport](t, alice, finance.ReportIncomeVsExpenses, month+"&granularity=week")
	budget := report[finance.BudgetVsActualReport](t, alice, finance.ReportBudgetVsActual, "?month=2025-03")

	for name, got := range map[string]finance.Money{
		"expense summary total_spending":          summary.TotalSpending,
		"dashboard totals.spending":               dash.Totals.Spending,
		"spending-by-category total":              byCategory.Total,
		"spending-trend total (days)":             trend.Total,
		"income-vs-expenses totals.spending":      ive.Totals.Spending,
		"budget-vs-actual spent + unbudgeted":     budget.SpentTotal + budget.UnbudgetedSpending,
		"expenses + card and loan lines, by hand": 21_034_56 + 345_25 + 120_00 - 300_00,
	} {
		if got != total {
			t.Errorf("%s = %s, want %s", name, got, total)
		}
	}
	var sumItems, sumBuckets finance.Money
	for _, it := range byCategory.Items {
		sumItems += it.Amount
	}
	for _, b := range trend.Buckets {
		sumBuckets += b.Amount
	}
	if sumItems != total || sumBuckets != total || len(trend.Buckets) != 31 {
		t.Errorf("items sum to %s, %d day buckets sum to %s; want %s", sumItems, len(trend.Buckets), sumBuckets, total)
	}
	if dash.Totals.Income != income || ive.Totals.Income != income {
		t.Errorf("income: dashboard %s, income-vs-expenses %s; want %s", dash.Totals.Income, ive.Totals.Income, income)
	}
	// The summary's own terms: expenses 21,034.56, fees and interest 345.25
	// (installment interest included), loan interest 120.00, refunds 300.00.
	if summary.TotalExpenses != 21_034_56 || summary.OtherSpending.CardFeesInterest != 345_25 ||
		summary.OtherSpending.LoanInterest != 120_00 || summary.OtherSpending.CardRefunds != 300_00 {
		t.Errorf("summary terms: %+v", summary)
	}
	// Each category agrees between the report and the summary's expenses
	// plus the card and loan lines.
	for i, want := range marchSpending {
		if i >= len(byCategory.Items) {
			t.Fatalf("spending-by-category has %d items, want %d", len(byCategory.Items), len(marchSpending))
		}
		got := byCategory.Items[i]
		if got.Category != want.category || got.Amount.String() != want.amount || got.Count != want.count {
			t.Errorf("item %d = %s %s (%d lines), want %s %s (%d)", i, got.Category, got.Amount, got.Count, want.category, want.amount, want.count)
		}
	}
	if len(byCategory.Items) != len(marchSpending) {
		t.Errorf("spending-by-category has %d items, want %d", len(byCategory.Items), len(marchSpending))
	}
}

func TestDashboard(t *testing.T) {
	f := newReportFixture(t)
	alice := f.alice
	// On March 20 the March 15 statement exists (6,545.25: the first
	// installment row 4,120.00, the shoes 2,500.00, fee and interest, less
	// the refund), and the loan's February and March instances are overdue.
	setToday(f.env, "2025-03-20")
	res := alice.do(t, http.MethodGet, dashboardURL, "", http.StatusOK)
	if res.message() != "Dashboard retrieved" {
		t.Errorf("message = %q", res.message())
	}
	soas := alice.soas(t, "/api/v1/credit-cards/soa")
	if len(soas) != 1 || soas[0].StatementBalance != 6_545_25 {
		t.Fatalf("statements: %+v", soas)
	}
	rent := alice.billOn(t, f.rent.ID, "2025-03-25")
	var dash finance.Dashboard
	res.decodeData(t, &dash)
	recent := func(kind, date, amount, description string, category any) map[string]any {
		var id string
		for _, r := range dash.Recent {
			if r.Date.String() == date && r.Kind == kind {
				id = r.ID
			}
		}
		return map[string]any{"kind": kind, "id": id, "date": date, "amount": jsonMoney(amount), "currency": "PHP", "description": description, "category": category}
	}
	rentJSON, _ := json.Marshal(rent)
	checkExactData(t, res, map[string]any{
		"month": "2025-03", "currency": "PHP", "rates_as_of": nil, "missing_rates": []any{},
		"totals": map[string]any{"income": jsonMoney("55000.00"), "spending": jsonMoney("21199.81"), "net": jsonMoney("33800.19")},
		// 100,000.00 opening + two salaries of 50,000.00 − 800.00 dinner.
		"accounts": map[string]any{"total_balance": jsonMoney("199200.00"), "items": []any{
			map[string]any{"id": f.savings.ID, "name": "Savings", "type": "savings", "currency": "PHP", "current_balance": jsonMoney("199200.00")}}},
		// Charges 12,360.00 (installment rows) + 2,500.00 + 150.00 + 75.25,
		// less 300.00: 14,785.25 of 50,000.00 is 29.5705%.
		"credit_cards": map[string]any{"outstanding_balance": jsonMoney("14785.25"), "available_credit": jsonMoney("35214.75"),
			"utilization_percent": jsonMoney("29.57"), "open_soa_count": 1, "overdue_soa_count": 0,
			"next_due": map[string]any{"soa_id": soas[0].ID, "credit_card_name": "Visa", "due_date": "2025-04-05", "remaining": jsonMoney("6545.25"), "currency": "PHP"}},
		"bills": map[string]any{"due_amount": jsonMoney("11500.00"), "paid_amount": jsonMoney("1500.00"), "remaining_amount": jsonMoney("10000.00"),
			"overdue": map[string]any{"count": 0, "amount": jsonMoney("0.00")}, "upcoming": []any{json.RawMessage(rentJSON)}},
		// February's 1,120.00 open and March's 1,120.00 with 600.00 paid.
		"loans":        map[string]any{"due_amount": jsonMoney("2240.00"), "paid_amount": jsonMoney("600.00"), "remaining_amount": jsonMoney("1640.00"), "overdue_count": 2},
		"installments": map[string]any{"active_plans": 1, "monthly_commitment": jsonMoney("4120.00")},
		"budgets": []any{
			map[string]any{"category": "Groceries", "monthly_limit": jsonMoney("2000.00"), "spent": jsonMoney("2234.56"), "percent_used": jsonMoney("111.73"), "state": "exceeded"},
			map[string]any{"category": "Shopping", "monthly_limit": jsonMoney("5000.00"), "spent": jsonMoney("2200.00"), "percent_used": jsonMoney("44.00"), "state": "ok"},
		},
		"top_categories": topCategoryJSON(t, alice, marchSpending[:5]),
		"recent": []any{
			recent("expense", "2025-03-08", "1500.00", "Internet (due 2025-03-08)", "Utilities"),
			recent("expense", "2025-03-06", "2500.00", "Shoes", "Shopping"),
			recent("income", "2025-03-05", "5000.00", "Logo", "Freelance"),
			recent("expense", "2025-03-04", "3000.00", "Trip supplies", nil),
			recent("expense", "2025-03-03", "800.00", "Dinner", "Food & Dining"),
		},
	})

	// February: only what is dated in it; balances and card figures stay today's.
	feb := send[finance.Dashboard](t, alice, http.MethodGet, dashboardURL+"?month=2025-02", "", http.StatusOK)
	if feb.Month != "2025-02" || feb.Totals.Income != 50_000_00 || feb.Totals.Spending != 999_00 ||
		feb.Accounts.TotalBalance != 199_200_00 || feb.CreditCards.OutstandingBalance != 14_785_25 ||
		feb.Installments.MonthlyCommitment != 0 || len(feb.Recent) != 2 || feb.Bills.DueAmount != 0 {
		t.Errorf("February dashboard: %+v", feb)
	}
	// Bob sees only his own.
	bobs := send[finance.Dashboard](t, f.bob, http.MethodGet, dashboardURL, "", http.StatusOK)
	if bobs.Totals.Spending != 77_777_00 || bobs.Totals.Income != 88_888_00 || len(bobs.Accounts.Items) != 0 ||
		bobs.CreditCards.NextDue != nil || len(bobs.Budgets) != 0 || len(bobs.Recent) != 2 {
		t.Errorf("bob's dashboard: %+v", bobs)
	}

	runRejectedSpending(t, f.env, []ledgerUser{alice, f.bob}, []apiScenario{
		alice.sc(apiScenario{name: "malformed month", method: http.MethodGet, url: dashboardURL + "?month=2025-3",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
		alice.sc(apiScenario{name: "a parameter it does not take", method: http.MethodGet, url: dashboardURL + "?dateFrom=2025-03-01",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("dateFrom", "is not a query parameter of this route; it takes: month")}),
	})
}

func topCategoryJSON(t testing.TB, u ledgerUser, rows []struct {
	category string
	amount   string
	count    int
}) []any {
	t.Helper()
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = map[string]any{"category_id": u.categoryByName(t, r.category).ID, "category": r.category, "amount": jsonMoney(r.amount)}
	}
	return out
}

// The dashboard and the reports need finance:read itself: a key with every
// write scope but not finance:read is refused, as the specification says.
func TestReportsNeedFinanceRead(t *testing.T) {
	env, alice, _ := newReportEnv(t)
	writer := ledgerUser{env: env, user: alice.user, key: env.createKey(alice.user.ID, auth.ScopeExpensesWrite,
		auth.ScopeIncomeWrite, auth.ScopeAccountsWrite, auth.ScopeCardsWrite, auth.ScopeBillsWrite, auth.ScopeLoansWrite, auth.ScopeSettingsWrite)}
	for _, url := range []string{dashboardURL, reportsURL + finance.ReportNetWorth} {
		writer.sc(apiScenario{name: url, method: http.MethodGet, url: url, wantStatus: http.StatusForbidden, wantCode: CodeForbidden}).run(t, env)
	}
	reader := ledgerUser{env: env, user: alice.user, key: env.createKey(alice.user.ID, auth.ScopeRead)}
	reader.do(t, http.MethodGet, dashboardURL, "", http.StatusOK)
	reader.do(t, http.MethodGet, reportsURL+finance.ReportNetWorth, "", http.StatusOK)
}

func TestReportBodies(t *testing.T) {
	f := newReportFixture(t)
	alice := f.alice
	setToday(f.env, "2025-03-20")
	const march = "?dateFrom=2025-03-01&dateTo=2025-03-31"
	header := func(name, from, to string) map[string]any {
		return map[string]any{"report": name, "date_from": from, "date_to": to, "currency": "PHP"}
	}
	with := func(h map[string]any, fields map[string]any) map[string]any {
		for k, v := range fields {
			h[k] = v
		}
		return h
	}
	get := func(name, query string) apiResult {
		t.Helper()
		res := alice.do(t, http.MethodGet, reportsURL+name+query, "", http.StatusOK)
		if res.message() != "Report retrieved" {
			t.Errorf("message = %q", res.message())
		}
		return res
	}
	cat := func(name string) string { return alice.categoryByName(t, name).ID }

	t.Run("spending-by-category filtered by card", func(t *testing.T) {
		// The card's lines only: the shoes less the refund, fee, interest and
		// installment interest, and the converted purchase's expense.
		checkExactData(t, get(finance.ReportSpendingByCategory, march+"&cardId="+f.visa.ID), with(header(finance.ReportSpendingByCategory, "2025-03-01", "2025-03-31"),
			// 12,000.00 of 14,545.25 is 82.4977%; 2,200.00 is 15.1252%; 345.25 is 2.3736%.
			map[string]any{"rates_as_of": nil, "missing_rates": []any{}, "total": jsonMoney("14545.25"), "items": []any{
				map[string]any{"category_id": cat("Travel"), "category": "Travel", "amount": jsonMoney("12000.00"), "count": 1, "percent": jsonMoney("82.50")},
				map[string]any{"category_id": cat("Shopping"), "category": "Shopping", "amount": jsonMoney("2200.00"), "count": 2, "percent": jsonMoney("15.13")},
				map[string]any{"category_id": cat("Card Fees & Interest"), "category": "Card Fees & Interest", "amount": jsonMoney("345.25"), "count": 3, "percent": jsonMoney("2.37")},
			}}))
		// Cash: the market, the split expense's parts and the bill payment.
		cash := report[finance.SpendingByCategoryReport](t, alice, finance.ReportSpendingByCategory, march+"&payment_method=cash")
		if cash.Total != 1_234_56+3_000_00+1_500_00 || len(cash.Items) != 3 {
			t.Errorf("Cash spending: %+v", cash)
		}
	})
	t.Run("spending-trend by week, monday start", func(t *testing.T) {
		// Weeks of 2025-02-24 (Mar 1-2), 03-03, 03-10, 03-17, 03-24, 03-31.
		checkExactData(t, get(finance.ReportSpendingTrend, march+"&granularity=week"), with(header(finance.ReportSpendingTrend, "2025-03-01", "2025-03-31"),
			map[string]any{"rates_as_of": nil, "missing_rates": []any{}, "granularity": "week", "total": jsonMoney("21199.81"), "average_per_bucket": jsonMoney("3533.30"), "buckets": []any{
				map[string]any{"period": "2025-02-24", "amount": jsonMoney("13234.56")}, // Travel 12,000.00 + market 1,234.56
				map[string]any{"period": "2025-03-03", "amount": jsonMoney("7725.25")},  // 800 + 3,000 + 2,500 + 150 + 75.25 + 1,500 − 300
				map[string]any{"period": "2025-03-10", "amount": jsonMoney("240.00")},   // installment and loan interest
				map[string]any{"period": "2025-03-17", "amount": jsonMoney("0.00")},
				map[string]any{"period": "2025-03-24", "amount": jsonMoney("0.00")},
				map[string]any{"period": "2025-03-31", "amount": jsonMoney("0.00")},
			}}))
		groceries := report[finance.SpendingTrendReport](t, alice, finance.ReportSpendingTrend, march+"&category=groceries")
		if groceries.Total != 2_234_56 || len(groceries.Buckets) != 1 || groceries.Buckets[0].Period != "2025-03" {
			t.Errorf("Groceries trend: %+v", groceries)
		}
		unknown := report[finance.SpendingTrendReport](t, alice, finance.ReportSpendingTrend, march+"&category=Nope")
		if unknown.Total != 0 || len(unknown.Buckets) != 1 {
			t.Errorf("unknown category trend: %+v", unknown)
		}
	})
	t.Run("payment-methods", func(t *testing.T) {
		// Expenses only: Cash 1,234.56 + 3,000.00 + 1,500.00; Account Debit
		// 800.00; Credit Card 2,500.00 + 12,000.00. 21,034.56 in all, of
		// which 14,500.00 is 68.9345%.
		checkExactData(t, get(finance.ReportPaymentMethods, march), with(header(finance.ReportPaymentMethods, "2025-03-01", "2025-03-31"),
			map[string]any{"rates_as_of": nil, "missing_rates": []any{}, "items": []any{
				map[string]any{"payment_method": "Cash", "amount": jsonMoney("5734.56"), "count": 3, "percent": jsonMoney("27.26")},
				map[string]any{"payment_method": "Account Debit", "amount": jsonMoney("800.00"), "count": 1, "percent": jsonMoney("3.80")},
				map[string]any{"payment_method": "Credit Card", "amount": jsonMoney("14500.00"), "count": 2, "percent": jsonMoney("68.93")},
			}}))
	})
	t.Run("income-vs-expenses by month", func(t *testing.T) {
		checkExactData(t, get(finance.ReportIncomeVsExpenses, "?dateFrom=2025-02-01&dateTo=2025-03-31"),
			with(header(finance.ReportIncomeVsExpenses, "2025-02-01", "2025-03-31"), map[string]any{"rates_as_of": nil, "missing_rates": []any{}, "granularity": "month",
				"buckets": []any{
					map[string]any{"period": "2025-02", "income": jsonMoney("50000.00"), "spending": jsonMoney("999.00"), "net": jsonMoney("49001.00")},
					map[string]any{"period": "2025-03", "income": jsonMoney("55000.00"), "spending": jsonMoney("21199.81"), "net": jsonMoney("33800.19")},
				},
				// 82,801.19 of 105,000.00 is 78.858...%.
				"totals": map[string]any{"income": jsonMoney("105000.00"), "spending": jsonMoney("22198.81"), "net": jsonMoney("82801.19"),
					"savings_rate_percent": jsonMoney("78.86")}}))
		none := report[finance.IncomeVsExpensesReport](t, f.bob, finance.ReportIncomeVsExpenses, "?dateFrom=2025-01-01&dateTo=2025-01-31")
		if none.Totals.SavingsRatePercent != nil {
			t.Errorf("savings rate without income = %v, want null", *none.Totals.SavingsRatePercent)
		}
	})
	t.Run("cash-flow", func(t *testing.T) {
		// Out: Cash 5,734.56, Account Debit 800.00, the loan's 600.00; card
		// purchases move no money until a statement is paid.
		checkExactData(t, get(finance.ReportCashFlow, march), with(header(finance.ReportCashFlow, "2025-03-01", "2025-03-31"),
			map[string]any{"rates_as_of": nil, "missing_rates": []any{}, "granularity": "month",
				"buckets": []any{map[string]any{"period": "2025-03", "inflow": jsonMoney("55000.00"), "outflow": jsonMoney("7134.56"), "net": jsonMoney("47865.44")}},
				"breakdown": map[string]any{"income": jsonMoney("55000.00"), "cash_expenses": jsonMoney("5734.56"), "account_debit_expenses": jsonMoney("800.00"),
					"card_payments": jsonMoney("0.00"), "loan_payments": jsonMoney("600.00")}}))
		soa := alice.soas(t, "/api/v1/credit-cards/soa")[0]
		alice.do(t, http.MethodPost, "/api/v1/credit-cards/soa/"+soa.ID+"/payments", `{"amount":1000,"date":"2025-03-18","account_id":"`+f.savings.ID+`"}`, http.StatusCreated)
		paid := report[finance.CashFlowReport](t, alice, finance.ReportCashFlow, march)
		if paid.Breakdown.CardPayments != 1_000_00 || paid.Buckets[0].Outflow != 8_134_56 {
			t.Errorf("after a statement payment: %+v", paid)
		}
		// Paying the card is not spending.
		if s := report[finance.SpendingByCategoryReport](t, alice, finance.ReportSpendingByCategory, march); s.Total != 21_199_81 {
			t.Errorf("spending after the card payment = %s", s.Total)
		}
	})
	t.Run("budget-vs-actual", func(t *testing.T) {
		res := get(finance.ReportBudgetVsActual, "?month=2025-03")
		var r finance.BudgetVsActualReport
		res.decodeData(t, &r)
		if r.DateFrom.String() != "2025-03-01" || r.DateTo.String() != "2025-03-31" || r.Month != "2025-03" ||
			r.BudgetedTotal != 7_000_00 || r.SpentTotal != 4_434_56 || r.UnbudgetedSpending != 16_765_25 || len(r.Items) != 2 ||
			r.Items[0].State != finance.BudgetExceeded || r.Items[1].State != finance.BudgetOK {
			t.Errorf("budget-vs-actual: %+v", r)
		}
	})
	t.Run("net-worth", func(t *testing.T) {
		// After the 1,000.00 statement payment of the cash-flow case: the
		// account 199,200.00 − 1,000.00, the card 14,785.25 − 1,000.00, the
		// loan 12,000.00 less the 480.00 principal paid.
		checkExactData(t, get(finance.ReportNetWorth, ""), with(header(finance.ReportNetWorth, "2025-03-20", "2025-03-20"), map[string]any{
			"as_of": "2025-03-20", "rates_as_of": nil, "missing_rates": []any{},
			// One currency: its line is net worth itself.
			"by_currency": []any{map[string]any{"currency": "PHP", "total": jsonMoney("172894.75"), "converted": jsonMoney("172894.75")}},
			"assets": map[string]any{"total": jsonMoney("198200.00"), "accounts": []any{
				map[string]any{"id": f.savings.ID, "name": "Savings", "type": "savings", "status": "active", "currency": "PHP", "balance": jsonMoney("198200.00")}}},
			"liabilities": map[string]any{"total": jsonMoney("25305.25"),
				"credit_cards": []any{map[string]any{"id": f.visa.ID, "name": "Visa", "currency": "PHP", "outstanding_balance": jsonMoney("13785.25")}},
				"loans":        []any{map[string]any{"id": f.loan.ID, "name": "Car", "currency": "PHP", "remaining_principal": jsonMoney("11520.00")}}},
			"net_worth": jsonMoney("172894.75"),
		}))
	})
	t.Run("credit-card-utilization", func(t *testing.T) {
		figures := map[string]any{"credit_limit": jsonMoney("50000.00"), "outstanding_balance": jsonMoney("13785.25"),
			"available_credit": jsonMoney("36214.75"), "utilization_percent": jsonMoney("27.57"), "utilization_level": "low"}
		card := map[string]any{"id": f.visa.ID, "name": "Visa", "currency": "PHP"}
		for k, v := range figures {
			card[k] = v
		}
		checkExactData(t, get(finance.ReportCreditCardUtilization, "?cardId="+f.visa.ID), with(header(finance.ReportCreditCardUtilization, "2025-03-20", "2025-03-20"),
			map[string]any{"as_of": "2025-03-20", "rates_as_of": nil, "missing_rates": []any{}, "cards": []any{card}, "totals": figures}))
	})
	t.Run("bills-overview", func(t *testing.T) {
		checkExactData(t, get(finance.ReportBillsOverview, march), with(header(finance.ReportBillsOverview, "2025-03-01", "2025-03-31"), map[string]any{
			"rates_as_of": nil, "missing_rates": []any{}, "count": 2, "amount_due": jsonMoney("11500.00"), "paid_amount": jsonMoney("1500.00"), "remaining_amount": jsonMoney("10000.00"),
			"by_status": map[string]any{"unpaid": map[string]any{"count": 1, "amount": jsonMoney("10000.00")},
				"partially_paid": map[string]any{"count": 0, "amount": jsonMoney("0.00")},
				"paid":           map[string]any{"count": 1, "amount": jsonMoney("1500.00")},
				"skipped":        map[string]any{"count": 0, "amount": jsonMoney("0.00")}},
			"overdue": map[string]any{"count": 0, "amount": jsonMoney("0.00")},
			"by_category": []any{
				map[string]any{"category": "Rent & Housing", "amount_due": jsonMoney("10000.00"), "paid_amount": jsonMoney("0.00")},
				map[string]any{"category": "Utilities", "amount_due": jsonMoney("1500.00"), "paid_amount": jsonMoney("1500.00")},
			}}))
	})
	t.Run("loans-overview", func(t *testing.T) {
		figures := map[string]any{"principal": jsonMoney("12000.00"), "total_interest": jsonMoney("1440.00"), "paid_principal": jsonMoney("480.00"),
			"paid_interest": jsonMoney("120.00"), "remaining_principal": jsonMoney("11520.00"), "remaining_payable": jsonMoney("12840.00"), "paid_count": 0}
		loan := map[string]any{"id": f.loan.ID, "name": "Car", "status": "active", "currency": "PHP", "term_months": 12, "next_due_date": "2025-02-15"}
		for k, v := range figures {
			loan[k] = v
		}
		checkExactData(t, get(finance.ReportLoansOverview, march), with(header(finance.ReportLoansOverview, "2025-03-01", "2025-03-31"),
			map[string]any{"rates_as_of": nil, "missing_rates": []any{}, "loans": []any{loan}, "totals": figures}))
		// The loan's last instance is due 2026-01-15, but it is still owed, so
		// a range after its term lists it too; a range before its release does not.
		after := report[finance.LoansOverviewReport](t, alice, finance.ReportLoansOverview, "?dateFrom=2026-01-16&dateTo=2026-02-28")
		if len(after.Loans) != 1 || after.Loans[0].ID != f.loan.ID {
			t.Errorf("loans after the term: %+v", after.Loans)
		}
		before := report[finance.LoansOverviewReport](t, alice, finance.ReportLoansOverview, "?dateFrom=2024-01-01&dateTo=2025-01-14")
		if len(before.Loans) != 0 {
			t.Errorf("loans before the release: %+v", before.Loans)
		}
	})
}

// A loan is in the loans overview while its term overlaps the range or it is
// still active, released by the range's end: an overdue loan still owed
// shows, however long ago its schedule ended; a settled or cancelled one of
// the past and a loan not yet released do not.
func TestLoansOverviewKeepsLoansStillOwed(t *testing.T) {
	_, alice, _ := newReportEnv(t) // today 2025-03-11
	// 1,200.00 over 12 months from 1990-01-15: 100.00 due on the 15th from
	// February 1990 to January 1991; the first one paid.
	owed := alice.createLoan(t, `{"name":"Old","principal":1200,"interest_type":"none","term_months":12,"start_date":"1990-01-15"}`)
	alice.payInstance(t, owed.Instances[0].ID, `{"amount":100,"date":"1990-02-15"}`)
	// Paid off in 1995, cancelled in 2000, released in June 2025.
	settled := alice.createLoan(t, `{"name":"Settled","principal":100,"interest_type":"none","term_months":1,"start_date":"1995-01-10"}`)
	alice.payInstance(t, settled.Instances[0].ID, `{"amount":100,"date":"1995-02-10"}`)
	cancelled := alice.createLoan(t, `{"name":"Dropped","principal":100,"interest_type":"none","term_months":1,"start_date":"2000-01-10"}`)
	alice.do(t, http.MethodPatch, loansURL+"/"+cancelled.ID, `{"status":"cancelled"}`, http.StatusOK)
	alice.createLoan(t, `{"name":"Next","principal":600,"interest_type":"none","term_months":6,"start_date":"2025-06-01"}`)

	old := map[string]any{"id": owed.ID, "name": "Old", "status": "active", "currency": "PHP", "principal": jsonMoney("1200.00"),
		"total_interest": jsonMoney("0.00"), "paid_principal": jsonMoney("100.00"), "paid_interest": jsonMoney("0.00"),
		"remaining_principal": jsonMoney("1100.00"), "remaining_payable": jsonMoney("1100.00"), "paid_count": 1,
		"term_months": 12, "next_due_date": "1990-03-15"}
	totals := map[string]any{"principal": jsonMoney("1200.00"), "total_interest": jsonMoney("0.00"),
		"paid_principal": jsonMoney("100.00"), "paid_interest": jsonMoney("0.00"), "remaining_principal": jsonMoney("1100.00"),
		"remaining_payable": jsonMoney("1100.00"), "paid_count": 1}
	res := alice.do(t, http.MethodGet, reportsURL+finance.ReportLoansOverview, "", http.StatusOK)
	checkExactData(t, res, map[string]any{"report": "loans-overview", "date_from": "2025-03-01", "date_to": "2025-03-31",
		"currency": "PHP", "rates_as_of": nil, "missing_rates": []any{}, "loans": []any{old}, "totals": totals})

	names := func(query string) []string {
		t.Helper()
		var out []string
		for _, l := range report[finance.LoansOverviewReport](t, alice, finance.ReportLoansOverview, query).Loans {
			out = append(out, l.Name)
		}
		return out
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"?dateFrom=1990-06-01&dateTo=1990-06-30", []string{"Old"}},            // inside its term
		{"?dateFrom=1995-01-01&dateTo=1995-12-31", []string{"Old", "Settled"}}, // settled, but due in the range
		{"?dateFrom=2000-01-01&dateTo=2000-12-31", []string{"Old", "Dropped"}}, // cancelled, but due in the range
		{"?dateFrom=2025-06-01&dateTo=2025-06-30", []string{"Old", "Next"}},    // released in the range
		{"?dateFrom=1989-01-01&dateTo=1989-12-31", nil},                        // before any was released
	} {
		if diff := cmp.Diff(tc.want, names(tc.query)); diff != "" {
			t.Errorf("loans of %s (-want +got):\n%s", tc.query, diff)
		}
	}
	// Once settled, the old loan leaves the ranges after its term.
	for _, x := range owed.Instances[1:] {
		alice.setInstanceStatus(t, x.ID, "waived")
	}
	if got := names(""); len(got) != 0 {
		t.Errorf("after the old loan completed, this month lists %v", got)
	}
}

func TestReportParameters(t *testing.T) {
	env, alice, bob := newReportEnv(t)
	bad := func(name, url string, fields map[string]string) apiScenario {
		return alice.sc(apiScenario{name: name, method: http.MethodGet, url: reportsURL + url,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields})
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "unknown report", method: http.MethodGet, url: reportsURL + "spending",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Report not found; the reports are spending-by-category, " +
				"spending-trend, payment-methods, income-vs-expenses, cash-flow, budget-vs-actual, net-worth, credit-card-utilization, " +
				"bills-overview, loans-overview"}),
		alice.sc(apiScenario{name: "a report name is never repeated", method: http.MethodGet, url: reportsURL + "%3Cimg%20src%3Dx%3E",
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Report not found; the reports are spending-by-category, " +
				"spending-trend, payment-methods, income-vs-expenses, cash-flow, budget-vs-actual, net-worth, credit-card-utilization, " +
				"bills-overview, loans-overview"}),
		bad("a parameter another report takes", "payment-methods?granularity=day",
			fieldsOf("granularity", "is not a parameter of the payment-methods report; it takes: dateFrom, dateTo")),
		bad("a granularity on an as-of report", "net-worth?granularity=week",
			fieldsOf("granularity", "is not a parameter of the net-worth report; it takes: dateFrom, dateTo")),
		bad("a category on budget-vs-actual", "budget-vs-actual?category=Food",
			fieldsOf("category", "is not a parameter of the budget-vs-actual report; it takes: dateFrom, dateTo, month")),
		// The range of an as-of report and of budget-vs-actual is checked as every report's is.
		bad("a malformed dateFrom on net-worth", "net-worth?dateFrom=2025-1-1", fieldsOf("dateFrom", finance.DateProblem(parseErr(t, finance.ParseDate, "2025-1-1")))),
		bad("dateFrom after dateTo on credit-card-utilization", "credit-card-utilization?dateFrom=2025-03-02&dateTo=2025-03-01",
			fieldsOf("dateFrom", "must not be after dateTo")),
		bad("more than five years on budget-vs-actual", "budget-vs-actual?dateFrom=2019-01-01&dateTo=2025-01-31",
			fieldsOf("dateTo", "the range must cover at most 5 years: from 2019-01-01, dateTo must be on or before 2023-12-31")),
		bad("dateFrom after dateTo", "spending-trend?dateFrom=2025-03-02&dateTo=2025-03-01",
			fieldsOf("dateFrom", "must not be after dateTo")),
		bad("dateFrom after the default dateTo", "spending-trend?dateFrom=2025-04-01",
			fieldsOf("dateFrom", "must not be after dateTo (2025-03-31)")),
		bad("more than five years", "cash-flow?dateFrom=2020-03-01&dateTo=2025-03-01",
			fieldsOf("dateTo", "the range must cover at most 5 years: from 2020-03-01, dateTo must be on or before 2025-02-28")),
		bad("367 day buckets", "income-vs-expenses?dateFrom=2024-01-01&dateTo=2025-01-01&granularity=day",
			fieldsOf("granularity", "day buckets cover at most 366 days and this range has 367; use week or month")),
		bad("an unknown granularity", "spending-trend?granularity=year",
			fieldsOf("granularity", "must be one of: day, week, month")),
		bad("an unknown payment method", "spending-by-category?payment_method=cheque",
			fieldsOf("payment_method", "must be one of: Cash, Account Debit, Credit Card")),
		bad("a malformed card id", "credit-card-utilization?cardId=visa", fieldsOf("cardId", "must be a UUID")),
		bad("a malformed month", "budget-vs-actual?month=2025-13", fieldsOf("month", finance.DateProblem(parseErr(t, finance.ParseMonth, "2025-13")))),
		bad("a parameter no report takes", "spending-trend?sortBy=date",
			fieldsOf("sortBy", "is not a query parameter of this route; it takes: "+strings.Join(queryparam.ReportParams(), ", "))),
	})
	// At the limits: exactly five years, exactly 366 days (2024 is a leap year).
	five := report[finance.CashFlowReport](t, alice, finance.ReportCashFlow, "?dateFrom=2020-03-01&dateTo=2025-02-28")
	if len(five.Buckets) != 60 || five.Buckets[0].Period != "2020-03" || five.Buckets[59].Period != "2025-02" {
		t.Errorf("five years of months: %d buckets", len(five.Buckets))
	}
	days := report[finance.SpendingTrendReport](t, alice, finance.ReportSpendingTrend, "?dateFrom=2024-01-01&dateTo=2024-12-31&granularity=day")
	if len(days.Buckets) != 366 || days.Buckets[59].Period != "2024-02-29" {
		t.Errorf("a leap year of days: %d buckets", len(days.Buckets))
	}
	// Defaults: the current month, by month.
	def := report[finance.SpendingTrendReport](t, alice, finance.ReportSpendingTrend, "")
	if def.DateFrom.String() != "2025-03-01" || def.DateTo.String() != "2025-03-31" || def.Granularity != "month" || len(def.Buckets) != 1 {
		t.Errorf("defaults: %+v", def)
	}
	// Sunday weeks follow the user's setting.
	alice.do(t, http.MethodPut, appURL, `{"week_start":"sunday"}`, http.StatusOK)
	weeks := report[finance.SpendingTrendReport](t, alice, finance.ReportSpendingTrend, "?granularity=week")
	if len(weeks.Buckets) != 6 || weeks.Buckets[0].Period != "2025-02-23" || weeks.Buckets[5].Period != "2025-03-30" {
		t.Errorf("sunday weeks: %+v", weeks.Buckets)
	}
}

// Every report takes the range (domain.md §5.7). The as-of reports check it
// and give today's balances, saying so in as_of, date_from and date_to;
// budget-vs-actual measures the month holding dateTo unless month names one.
func TestEveryReportTakesTheRange(t *testing.T) {
	f := newReportFixture(t)
	alice := f.alice
	setToday(f.env, "2025-03-20")
	const january = "?dateFrom=2025-01-01&dateTo=2025-01-31"
	for _, name := range finance.ReportNames() {
		t.Run(name, func(t *testing.T) {
			res := alice.do(t, http.MethodGet, reportsURL+name+january, "", http.StatusOK)
			var h struct {
				Report, DateFrom, DateTo, AsOf, Month string
			}
			var raw map[string]json.RawMessage
			res.decodeData(t, &raw)
			for k, dst := range map[string]*string{"report": &h.Report, "date_from": &h.DateFrom, "date_to": &h.DateTo,
				"as_of": &h.AsOf, "month": &h.Month} {
				if v, ok := raw[k]; ok {
					if err := json.Unmarshal(v, dst); err != nil {
						t.Fatalf("%s: %v", k, err)
					}
				}
			}
			want := struct{ Report, DateFrom, DateTo, AsOf, Month string }{Report: name, DateFrom: "2025-01-01", DateTo: "2025-01-31"}
			switch name {
			case finance.ReportNetWorth, finance.ReportCreditCardUtilization:
				want.DateFrom, want.DateTo, want.AsOf = "2025-03-20", "2025-03-20", "2025-03-20"
			case finance.ReportBudgetVsActual:
				want.Month = "2025-01"
			}
			if diff := cmp.Diff(want, struct{ Report, DateFrom, DateTo, AsOf, Month string }(h)); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
		})
	}

	// An as-of report's figures are today's, whatever the range.
	for _, name := range []string{finance.ReportNetWorth, finance.ReportCreditCardUtilization} {
		plain := alice.do(t, http.MethodGet, reportsURL+name, "", http.StatusOK)
		ranged := alice.do(t, http.MethodGet, reportsURL+name+"?dateFrom=2020-01-01&dateTo=2020-12-31", "", http.StatusOK)
		if diff := cmp.Diff(jsonValue(t, plain.env.Data), jsonValue(t, ranged.env.Data)); diff != "" {
			t.Errorf("%s: figures of 2020 differ from today's (-today +2020):\n%s", name, diff)
		}
	}

	// budget-vs-actual: the month holding dateTo, the default dateTo
	// included; month, when given, wins over the range.
	for _, tc := range []struct{ query, month string }{
		{"?dateFrom=2025-01-15&dateTo=2025-03-05", "2025-03"},
		{"?dateFrom=2024-12-20&dateTo=2025-02-10", "2025-02"},
		{"?dateFrom=2025-03-02", "2025-03"},
		{"?month=2025-02&dateFrom=2025-03-01&dateTo=2025-03-31", "2025-02"},
	} {
		r := report[finance.BudgetVsActualReport](t, alice, finance.ReportBudgetVsActual, tc.query)
		first, last := finance.MonthRange(finance.NewDate(2025, 1, 1))
		if m, err := finance.ParseMonth(tc.month); err == nil {
			first, last = finance.MonthRange(m)
		}
		if r.Month != tc.month || r.DateFrom != first || r.DateTo != last {
			t.Errorf("budget-vs-actual%s: month %s, %s..%s; want %s", tc.query, r.Month, r.DateFrom, r.DateTo, tc.month)
		}
	}
	// March measured through a range gives the figures month=2025-03 gives.
	byMonth := alice.do(t, http.MethodGet, reportsURL+finance.ReportBudgetVsActual+"?month=2025-03", "", http.StatusOK)
	byRange := alice.do(t, http.MethodGet, reportsURL+finance.ReportBudgetVsActual+"?dateFrom=2025-03-01&dateTo=2025-03-31", "", http.StatusOK)
	if diff := cmp.Diff(jsonValue(t, byMonth.env.Data), jsonValue(t, byRange.env.Data)); diff != "" ||
		!strings.Contains(string(byRange.env.Data), `"spent_total":4434.56`) {
		t.Errorf("March by range (-month +range):\n%s\n%s", diff, byRange.env.Data)
	}
}

// parseErr is the error parse gives s, which it must refuse.
func parseErr(t testing.TB, parse func(string) (finance.Date, error), s string) error {
	t.Helper()
	_, err := parse(s)
	if err == nil {
		t.Fatalf("%q was accepted", s)
	}
	return err
}

// The totals the reports and card figures read are kept by triggers on every
// write path: after each kind of change they equal a recount of the rows.
func TestKeptTotalsFollowEveryWrite(t *testing.T) {
	f := newReportFixture(t)
	alice := f.alice
	check := func(step string) {
		t.Helper()
		drift, err := f.env.db.TotalsDrift(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(drift) > 0 {
			t.Fatalf("after %s the kept totals drifted:\n%s", step, strings.Join(drift, "\n"))
		}
	}
	check("the fixture")
	var spent finance.Money
	exp := alice.createExpense(t, `{"amount":100,"date":"2025-03-12","description":"Taxi","category":"Transportation","payment_method":"Cash"}`)
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+exp.ID, `{"amount":120,"date":"2025-03-13","category":"Groceries"}`, http.StatusOK)
	check("an edit of amount, date and category")
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+exp.ID, `{"payment_method":"Account Debit","account_id":"`+f.savings.ID+`"}`, http.StatusOK)
	check("a change of payment method")
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+exp.ID+"/split", `{"parts":[{"amount":20,"category":"Shopping"},{"amount":100,"category":"Groceries"}]}`, http.StatusOK)
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+exp.ID+"/split", `{"parts":[{"amount":60,"category":"Travel"},{"amount":60,"category":"Travel"}]}`, http.StatusOK)
	check("a split and a re-split")
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+exp.ID, `{"category":"Health & Medical","amount":130}`, http.StatusOK)
	check("un-splitting with a new amount")
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+exp.ID, "", http.StatusOK)
	check("a void")

	card := `{"credit_card_id":"` + f.visa.ID + `",`
	fee := alice.createCardRow(t, card+`"type":"fee","amount":50,"date":"2025-03-16","description":"Late fee"}`)
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/transactions/"+fee.ID, `{"amount":55,"date":"2025-03-17"}`, http.StatusOK)
	refund := alice.createCardRow(t, card+`"type":"refund","amount":40,"date":"2025-03-16","description":"Refund","category":"Shopping"}`)
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/transactions/"+refund.ID, `{"category":"Groceries"}`, http.StatusOK)
	check("card row edits")
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+fee.ID, "", http.StatusOK)
	check("a card row void")
	buy := alice.createExpense(t, `{"amount":300,"date":"2025-03-18","description":"Headphones","category":"Shopping",`+
		`"payment_method":"Credit Card","credit_card_id":"`+f.visa.ID+`"}`)
	check("a card purchase")
	plan := alice.convert(t, *buy.CardTransactionID, `{"months":3}`)
	check("a purchase converted to installments")
	alice.do(t, http.MethodPost, "/api/v1/credit-cards/installment-plans/"+plan.ID+"/cancel", "", http.StatusOK)
	check("an installment plan cancelled")

	// Statements bill rows, take lines, change a line's type, and reset.
	setToday(f.env, "2025-03-20")
	soa := alice.soas(t, "/api/v1/credit-cards/soa")[0]
	check("statement generation")
	line := send[finance.SOALineResult](t, alice, http.MethodPost, "/api/v1/credit-cards/soa/"+soa.ID+"/transactions",
		`{"type":"interest","amount":33,"description":"Finance charge"}`, http.StatusCreated)
	lineID := line.Transaction.ID
	alice.do(t, http.MethodPut, "/api/v1/credit-cards/soa/"+soa.ID+"/transactions/"+lineID,
		`{"type":"refund","category":"Shopping","amount":30}`, http.StatusOK)
	check("a statement line added and turned into a refund")
	alice.do(t, http.MethodPost, "/api/v1/credit-cards/soa/"+soa.ID+"/void", "", http.StatusOK)
	check("a statement void")

	// Bill payments and loan payments.
	rent := alice.billOn(t, f.rent.ID, "2025-03-25")
	paid := alice.payBill(t, rent.ID, `{"amount":4000,"payment_method":"Cash"}`)
	check("a bill payment")
	alice.do(t, http.MethodDelete, "/api/v1/bills/payments/"+paid.Payment.ID, "", http.StatusOK)
	check("a bill payment deleted")
	alice.payInstance(t, f.loan.Instances[0].ID, `{"amount":1120,"date":"2025-03-20"}`)
	check("a loan payment")

	// And the reports still agree with the expense summary after all of it.
	summary := alice.summary(t, "2025-03-01", "2025-03-31")
	spent = report[finance.SpendingByCategoryReport](t, alice, finance.ReportSpendingByCategory, "?dateFrom=2025-03-01&dateTo=2025-03-31").Total
	if spent != summary.TotalSpending {
		t.Errorf("spending-by-category %s, expense summary %s", spent, summary.TotalSpending)
	}
}
