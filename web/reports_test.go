package web_test

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// reportsApp is a signed-in Pro user (so the API can be asked too) with
// expenses and income over the months around the pinned 15 March 2025.
func reportsApp(t *testing.T) (*testEnv, finance.User, *testkit.Browser) {
	t.Helper()
	env := newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return testkit.Now })
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)
	addExpense(t, env, u, 10000, finance.NewDate(2025, 1, 20), "Groceries", "January shop")
	addExpense(t, env, u, 25050, finance.NewDate(2025, 3, 14), "Food & Dining", "Lunch with Ana")
	addExpense(t, env, u, 4950, finance.NewDate(2025, 3, 2), "Transportation", "Taxi")
	addExpense(t, env, u, 77700, finance.NewDate(2024, 3, 31), "Groceries", "A year and a day before")
	addIncome(t, env, u, 3000000, finance.NewDate(2025, 3, 1), "Salary", "March pay")
	// Something for the reports of budgets, accounts, cards, bills and loans.
	ctx := context.Background()
	l := env.srv.Ledger()
	var budgets finance.BudgetThresholdsRequest
	fromJSON(t, `{"thresholds":[{"category":"Food & Dining","monthly_limit":"1000","warning_percent":80}]}`, &budgets)
	var card finance.CardRequest
	fromJSON(t, `{"name":"Visa","credit_limit":"50000","statement_day":25,"due_day":10}`, &card)
	var loan finance.LoanRequest
	fromJSON(t, `{"name":"Motorbike","principal":"12000","interest_type":"add_on","interest_rate":"1","rate_period":"monthly",
		"term_months":12,"start_date":"2025-02-15"}`, &loan)
	if _, err := l.ReplaceBudgetThresholds(ctx, u.ID, budgets); err != nil {
		t.Fatal(err)
	}
	if _, err := l.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("Payroll"), Type: finance.Of("savings"),
		OpeningBalance: finance.Of(finance.Money(500000))}); err != nil {
		t.Fatal(err)
	}
	visa, err := l.CreateCreditCard(ctx, u.ID, card)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(120000)), Date: finance.Of(finance.NewDate(2025, 3, 10)),
		Description: finance.Of("Shoes"), Category: finance.Of("Shopping"), PaymentMethod: finance.Of("Credit Card"), CreditCardID: finance.Of(visa.ID)}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.CreateLoan(ctx, u.ID, loan); err != nil {
		t.Fatal(err)
	}
	marchBill(t, env, u, `{"name":"Electricity","amount":"1500","category":"Utilities","frequency":"monthly",
		"start_date":"2025-01-01","due_day":20,"default_payment_method":"Cash"}`)
	return env, u, b
}

// tableRows returns the cells of the rows of the table with id, body and
// foot, as text.
func tableRows(t *testing.T, x testkit.Exchange, id string) [][]string {
	t.Helper()
	table := regexp.MustCompile(`(?s)<table id="` + id + `">.*?</table>`).FindString(string(x.Body))
	if table == "" {
		t.Fatalf("no table #%s in\n%s", id, x.Body)
	}
	table = table[strings.Index(table, "</thead>"):]
	var out [][]string
	for _, row := range regexp.MustCompile(`(?s)<tr>(.*?)</tr>`).FindAllStringSubmatch(table, -1) {
		var cells []string
		for _, c := range regexp.MustCompile(`(?s)<t[hd][^>]*>(.*?)</t[hd]>`).FindAllStringSubmatch(row[1], -1) {
			cells = append(cells, html.UnescapeString(c[1]))
		}
		out = append(out, cells)
	}
	return out
}

// apiReport asks GET /api/v1/reports/{name} with a finance:read key.
func apiReport(t *testing.T, env *testEnv, u finance.User, pathAndQuery string, dst any) {
	t.Helper()
	x := env.api(t, http.MethodGet, "/api/v1/reports/"+pathAndQuery, env.createKey(u.ID, auth.ScopeRead), "")
	var answer envelope
	x.JSON(t, &answer)
	if x.Status != http.StatusOK || !answer.Success {
		t.Fatalf("GET /api/v1/reports/%s: %d %s", pathAndQuery, x.Status, x.Body)
	}
	if err := json.Unmarshal(answer.Data, dst); err != nil {
		t.Fatalf("decode data %s: %v", answer.Data, err)
	}
}

func TestReportsList(t *testing.T) {
	_, _, b := reportsApp(t)
	x := b.Get(web.ReportsPath)
	if x.Status != http.StatusOK || !x.Contains(`aria-current="page">Reports</a>`) {
		t.Fatalf("GET /reports: %d\n%s", x.Status, x.Body)
	}
	testkit.CheckPageHeaders(t, x)
	got := regexp.MustCompile(`<a href="/reports/([a-z-]+)">`).FindAllStringSubmatch(string(x.Body), -1)
	var names []string
	for _, m := range got {
		names = append(names, m[1])
	}
	if diff := cmp.Diff(finance.ReportNames(), names); diff != "" {
		t.Errorf("listed reports (-want +got):\n%s", diff)
	}
}

// TestEveryReportPage opens each report with its defaults: a title, a
// chart, a table of its figures, and a CSV of them.
func TestEveryReportPage(t *testing.T) {
	_, _, b := reportsApp(t)
	// A line of each report's CSV, from the figures of reportsApp.
	lines := map[string]string{
		finance.ReportSpendingByCategory:    "\nShopping,1200.00,1,",
		finance.ReportSpendingTrend:         "\n2025-03,1500.00\n",
		finance.ReportPaymentMethods:        "\nCredit Card,1200.00,1,",
		finance.ReportIncomeVsExpenses:      "\n2025-03,30000.00,1500.00,28500.00\n",
		finance.ReportCashFlow:              "\n2025-03,30000.00,300.00,29700.00\n", // a card purchase moves no money yet
		finance.ReportBudgetVsActual:        "\nFood & Dining,1000.00,250.50,749.50,25.05,",
		finance.ReportNetWorth:              "\nCredit card,Visa,outstanding balance,1200.00\n",
		finance.ReportCreditCardUtilization: "\nVisa,50000.00,1200.00,48800.00,2.40,low,PHP\n",
		finance.ReportBillsOverview:         "\nUtilities,1500.00,0.00\n",
		finance.ReportLoansOverview:         "\nMotorbike,active,12000.00,",
	}
	for _, name := range finance.ReportNames() {
		t.Run(name, func(t *testing.T) {
			x := b.Get(web.ReportsPath + "/" + name)
			if x.Status != http.StatusOK {
				t.Fatalf("%d\n%s", x.Status, x.Body)
			}
			testkit.CheckPageHeaders(t, x)
			body := testkit.Unescaped(x)
			for _, want := range []string{"<h1>" + web.ReportTitle(name) + "</h1>", `href="/reports/` + name + `.csv" download>Download CSV</a>`,
				`<svg class="chart`, `role="img"`, `-table">`, `<caption id=`} {
				if !strings.Contains(body, want) {
					t.Errorf("page lacks %q", want)
				}
			}
			c := b.Get(web.ReportsPath + "/" + name + ".csv")
			if c.Status != http.StatusOK || c.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
				!strings.HasPrefix(c.Header.Get("Content-Disposition"), `attachment; filename="`+name+"-2025-03-") {
				t.Fatalf("CSV: %d %v\n%s", c.Status, c.Header, c.Body)
			}
			if _, err := csv.NewReader(strings.NewReader(string(c.Body))).ReadAll(); err != nil || !c.Contains(lines[name]) {
				t.Errorf("CSV lacks %q (%v):\n%s", lines[name], err, c.Body)
			}
		})
	}
}

func TestReportRangeAndCSV(t *testing.T) {
	env, u, b := reportsApp(t)

	// Without a range the API's default, the current month, fills the form.
	def := b.Get(web.ReportsPath + "/" + finance.ReportIncomeVsExpenses)
	for _, want := range []string{`name="dateFrom" value="2025-03-01"`, `name="dateTo" value="2025-03-31"`, `<option value="month" selected>`} {
		if !def.Contains(want) {
			t.Errorf("default form lacks %s", want)
		}
	}

	// A range of three months: the page's table and the CSV hold the API's figures.
	const q = "?dateFrom=2025-01-01&dateTo=2025-03-31&granularity=month"
	var api finance.IncomeVsExpensesReport
	apiReport(t, env, u, finance.ReportIncomeVsExpenses+q, &api)
	x := b.Get(web.ReportsPath + "/" + finance.ReportIncomeVsExpenses + q)
	if x.Status != http.StatusOK {
		t.Fatalf("%d\n%s", x.Status, x.Body)
	}
	show := web.NewDisplay(finance.AppSettings{Currency: "PHP"}, finance.NewDate(2025, 3, 15))
	var wantRows [][]string
	var wantCSV = "period,income,spending,net\n"
	for _, bk := range api.Buckets {
		wantRows = append(wantRows, []string{web.PeriodCell(show, bk.Period, "month").Text, show.Money(bk.Income), show.Money(bk.Spending), show.Money(bk.Net)})
		wantCSV += bk.Period + "," + bk.Income.String() + "," + bk.Spending.String() + "," + bk.Net.String() + "\n"
	}
	tt := api.Totals
	wantRows = append(wantRows, []string{"Total", show.Money(tt.Income), show.Money(tt.Spending), show.Money(tt.Net)})
	wantCSV += "Total," + tt.Income.String() + "," + tt.Spending.String() + "," + tt.Net.String() + "\n"
	if diff := cmp.Diff(wantRows, tableRows(t, x, "income-spending-table")); diff != "" {
		t.Errorf("table (-API +page):\n%s", diff)
	}
	// The figures themselves, so the comparison above cannot pass on two empty reports.
	if diff := cmp.Diff([]string{"Mar 2025", "₱30,000.00", "₱1,500.00", "₱28,500.00"}, wantRows[2]); diff != "" {
		t.Errorf("March (-want +got):\n%s", diff)
	}
	if !x.Contains(`href="/reports/income-vs-expenses.csv?dateFrom=2025-01-01&amp;dateTo=2025-03-31&amp;granularity=month" download>`) ||
		!strings.Contains(testkit.Unescaped(x), "<dt>Savings rate</dt><dd>94.67%</dd>") {
		t.Errorf("page lacks the CSV link with its range, or the savings rate:\n%s", x.Body)
	}
	c := b.Get(web.ReportsPath + "/" + finance.ReportIncomeVsExpenses + ".csv" + strings.TrimPrefix(q, ""))
	if c.Status != http.StatusOK || string(c.Body) != wantCSV ||
		c.Header.Get("Content-Disposition") != `attachment; filename="income-vs-expenses-2025-01-01-to-2025-03-31.csv"` {
		t.Errorf("CSV: %d %v\n%s\nwant\n%s", c.Status, c.Header, c.Body, wantCSV)
	}

	// Problems of the range are shown next to the field, in the API's words; nothing else is shown.
	for _, tc := range []struct{ name, query, want string }{
		{finance.ReportSpendingTrend, "?dateFrom=2025-03-31&dateTo=2025-03-01", `id="from-error">From must not be after dateTo<`},
		{finance.ReportSpendingTrend, "?dateFrom=2019-01-01&dateTo=2025-03-01",
			`id="to-error">To the range must cover at most 5 years: from 2019-01-01, dateTo must be on or before 2023-12-31<`},
		{finance.ReportCashFlow, "?dateFrom=2024-01-01&dateTo=2025-03-01&granularity=day",
			`id="granularity-error">Granularity day buckets cover at most 366 days and this range has 426; use week or month<`},
		{finance.ReportCashFlow, "?granularity=hour", `id="granularity-error">Granularity must be one of: day, week, month<`},
		{finance.ReportBudgetVsActual, "?month=2025-13", `id="month-error">Month `},
		{finance.ReportSpendingByCategory, "?payment_method=Cheque", `id="method-error">Payment method must be one of: Cash, Account Debit, Credit Card<`},
		{finance.ReportBudgetVsActual, "?dateFrom=2025-02-01&dateTo=2025-01-31", `role="alert">Date from must not be after dateTo.<`},
	} {
		x := b.Get(web.ReportsPath + "/" + tc.name + tc.query)
		if x.Status != http.StatusBadRequest || !strings.Contains(testkit.Unescaped(x), tc.want) || x.Contains("-table\">") || x.Contains("Download CSV") {
			t.Errorf("%s%s: %d, want 400 with %q and no figures\n%s", tc.name, tc.query, x.Status, tc.want, x.Body)
		}
		if c := b.Get(web.ReportsPath + "/" + tc.name + ".csv" + tc.query); c.Status != http.StatusBadRequest || c.Header.Get("Content-Disposition") != "" {
			t.Errorf("%s.csv%s: %d %v, want a refusal", tc.name, tc.query, c.Status, c.Header)
		}
	}
	if x := b.Get(web.ReportsPath + "/profit"); x.Status != http.StatusNotFound || !x.Contains("Report not found") {
		t.Errorf("an unknown report: %d\n%s", x.Status, x.Body)
	}
	if x := b.Get(web.ReportsPath + "/profit.csv"); x.Status != http.StatusNotFound {
		t.Errorf("an unknown report's CSV: %d", x.Status)
	}
	// The filters of spending-by-category narrow it as the API does.
	f := b.Get(web.ReportsPath + "/" + finance.ReportSpendingByCategory + "?payment_method=Credit+Card")
	if f.Status != http.StatusOK || !f.Contains(`<option value="Credit Card" selected>`) || f.Contains("Food &amp; Dining</th>") ||
		!strings.Contains(testkit.Unescaped(f), "<dt>Total spending</dt><dd>₱1,200.00</dd>") || !f.Contains(`<th scope="row">Shopping</th>`) {
		t.Errorf("filtered by card: %d\n%s", f.Status, f.Body)
	}
	// Shopping's bar is in the colour every user's Shopping starts with.
	if !f.Contains(`<rect class="own" fill="#EC4899" x="0" y="20" width="100.00%"`) {
		t.Errorf("the Shopping bar is not in its category's colour:\n%s", f.Body)
	}
}

// A link may carry parameters a report does not use: the page shows the
// report without them and says which it left out, where the API refuses
// them; the CSV leaves them out too.
func TestReportLinkWithUnusedParameters(t *testing.T) {
	_, _, b := reportsApp(t) // today 2025-03-15
	const leftOut = `<p class="notice" role="status">Not used by this report, so left out: `
	for _, tc := range []struct {
		name, query, notice string
		want                []string
	}{
		// An as-of report: the range changes nothing, and a bad date in it is no problem either.
		{finance.ReportNetWorth, "?dateFrom=2025-01-01&dateTo=2025-01-31", "dateFrom and dateTo",
			[]string{`<p class="muted small" id="report-range">As of 2025-03-15 · PHP</p>`, `<th scope="row">Credit card</th>`}},
		{finance.ReportCreditCardUtilization, "?dateFrom=2025-1-1&granularity=week&cardId=", "dateFrom and granularity",
			[]string{`As of 2025-03-15`, `<th scope="row">Visa</th>`}},
		// A parameter of another report, beside the range this one uses.
		{finance.ReportPaymentMethods, "?dateFrom=2025-03-01&dateTo=2025-03-31&granularity=week&category=Food", "category and granularity",
			[]string{`name="dateFrom" value="2025-03-01"`, `<th scope="row">Credit Card</th>`}},
		// A name no report takes is counted, never repeated.
		{finance.ReportSpendingTrend, "?evil=%3Cb%3Ecall+us%3C%2Fb%3E&sortBy=date", "2 unknown parameters",
			[]string{`<option value="month" selected>`, `id="trend-table"`}},
	} {
		x := b.Get(web.ReportsPath + "/" + tc.name + tc.query)
		body := testkit.Unescaped(x)
		if x.Status != http.StatusOK || !strings.Contains(body, leftOut+tc.notice+".</p>") ||
			x.Contains("evil") || x.Contains("call us") || x.Contains(`class="alert"`) {
			t.Errorf("%s%s: %d, want the report and a notice leaving out %s\n%s", tc.name, tc.query, x.Status, tc.notice, x.Body)
			continue
		}
		for _, want := range tc.want {
			if !strings.Contains(body, want) {
				t.Errorf("%s%s lacks %q", tc.name, tc.query, want)
			}
		}
		// The download link carries only what the report reads.
		if x.Contains(".csv?") && (x.Contains("granularity=week") || x.Contains("category=Food")) {
			t.Errorf("%s: the CSV link keeps a parameter the report does not use\n%s", tc.name, x.Body)
		}
		if c := b.Get(web.ReportsPath + "/" + tc.name + ".csv" + tc.query); c.Status != http.StatusOK || c.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
			t.Errorf("%s.csv%s: %d\n%s", tc.name, tc.query, c.Status, c.Body)
		}
	}
	// budget-vs-actual reads a range as the API does: the month holding dateTo.
	x := b.Get(web.ReportsPath + "/" + finance.ReportBudgetVsActual + "?dateFrom=2025-02-01&dateTo=2025-02-28")
	if x.Status != http.StatusOK || !x.Contains(`name="month" value="2025-02"`) || x.Contains(leftOut) ||
		!x.Contains(`href="/reports/budget-vs-actual.csv?dateFrom=2025-02-01&amp;dateTo=2025-02-28" download>`) {
		t.Errorf("budget-vs-actual over February: %d\n%s", x.Status, x.Body)
	}
	// Without unused parameters there is no notice.
	if x := b.Get(web.ReportsPath + "/" + finance.ReportNetWorth); x.Status != http.StatusOK || x.Contains(leftOut) {
		t.Errorf("net worth without parameters: %d\n%s", x.Status, x.Body)
	}
}

func TestHomeTrends(t *testing.T) {
	env, u, b := reportsApp(t)
	x := b.Get(web.HomePath + "?month=2025-03")
	if x.Status != http.StatusOK {
		t.Fatalf("%d\n%s", x.Status, x.Body)
	}
	var trend finance.SpendingTrendReport
	apiReport(t, env, u, finance.ReportSpendingTrend+"?dateFrom=2024-04-01&dateTo=2025-03-31", &trend)
	var versus finance.IncomeVsExpensesReport
	apiReport(t, env, u, finance.ReportIncomeVsExpenses+"?dateFrom=2024-04-01&dateTo=2025-03-31", &versus)
	show := web.NewDisplay(finance.AppSettings{Currency: "PHP"}, finance.NewDate(2025, 3, 15))

	var wantTrend, wantVersus [][]string
	for _, bk := range trend.Buckets {
		wantTrend = append(wantTrend, []string{web.PeriodCell(show, bk.Period, "month").Text, show.Money(bk.Amount)})
	}
	wantTrend = append(wantTrend, []string{"Total", show.Money(trend.Total)}, []string{"Average per period", show.Money(trend.AveragePerBucket)})
	for _, bk := range versus.Buckets {
		wantVersus = append(wantVersus, []string{web.PeriodCell(show, bk.Period, "month").Text, show.Money(bk.Income), show.Money(bk.Spending), show.Money(bk.Net)})
	}
	wantVersus = append(wantVersus, []string{"Total", show.Money(versus.Totals.Income), show.Money(versus.Totals.Spending), show.Money(versus.Totals.Net)})
	if diff := cmp.Diff(wantTrend, tableRows(t, x, "trend-table")); diff != "" {
		t.Errorf("trend table (-API +page):\n%s", diff)
	}
	if diff := cmp.Diff(wantVersus, tableRows(t, x, "income-spending-table")); diff != "" {
		t.Errorf("income and spending table (-API +page):\n%s", diff)
	}
	// Twelve months ending in March; March 2024's expense is outside them.
	if len(trend.Buckets) != 12 || wantTrend[0][0] != "Apr 2024" || wantTrend[9][1] != "₱100.00" || wantTrend[11][1] != "₱1,500.00" ||
		wantTrend[12][1] != "₱1,600.00" {
		t.Errorf("trend = %q", wantTrend)
	}
	body := testkit.Unescaped(x)
	for _, want := range []string{`<h2 id="trend-heading">Spending, April 2024 to March 2025</h2>`,
		`aria-label="Spending, April 2024 to March 2025. Apr 2024: Spending ₱0.00;`, "Mar 2025: Income ₱30,000.00, Spending ₱1,500.00\""} {
		if !strings.Contains(body, want) {
			t.Errorf("home lacks %q", want)
		}
	}
	// Another month moves the window.
	if y := b.Get(web.HomePath + "?month=2024-03"); !strings.Contains(testkit.Unescaped(y), "Spending, April 2023 to March 2024") ||
		tableRows(t, y, "trend-table")[11][1] != "₱777.00" {
		t.Errorf("March 2024's window:\n%s", y.Body)
	}
}
