package web

// The Reports pages of the web app: the list of the ten reports of
// GET /api/v1/reports/{report}, and a page per report with its parameters
// as a form (defaulting as the API does), a chart drawn by the server, the
// figures as tables, and a CSV download of the same figures. Home's
// twelve-month charts are built here too, from the same reports, so the
// web app and the API never disagree on a figure.

import (
	"context"
	"errors"
	"html/template"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// ReportsPath is the list of reports; a report is at ReportsPath/{name},
// its CSV at ReportsPath/{name}.csv.
const ReportsPath = "/reports"

func (s *Site) registerWebAppReportRoutes() {
	s.page(http.MethodGet, ReportsPath, s.reportsPage)
	// Heavy, as GET /api/v1/reports/{report} is: they share its slots.
	s.heavyPage(ReportsPath+"/:name", s.reportPage)
}

// reportInfo is how the web app names and describes a report.
type reportInfo struct {
	Name, Title, About string
}

// reportInfos are the reports in the order of finance.Reports.
var reportInfos = map[string]reportInfo{
	finance.ReportSpendingByCategory: {Title: "Spending by category",
		About: "Where the money went over a date range, by category, with each one's share."},
	finance.ReportSpendingTrend: {Title: "Spending trend",
		About: "Spending per day, week or month, with the average per period."},
	finance.ReportPaymentMethods: {Title: "Payment methods",
		About: "Expenses by how they were paid: cash, account debit or credit card."},
	finance.ReportIncomeVsExpenses: {Title: "Income vs spending",
		About: "Income against spending per period, with the savings rate."},
	finance.ReportCashFlow: {Title: "Cash flow",
		About: "Money in and out of your hands and accounts per period; card purchases count when the card is paid."},
	finance.ReportBudgetVsActual: {Title: "Budget vs actual",
		About: "A month's spending against your budget limits."},
	finance.ReportNetWorth: {Title: "Net worth",
		About: "What your accounts hold minus what you owe on cards and loans, as of today."},
	finance.ReportCreditCardUtilization: {Title: "Credit card utilization",
		About: "How much of each card's limit is in use, as of today."},
	finance.ReportBillsOverview: {Title: "Bills overview",
		About: "The bills due over a date range: paid, remaining and overdue."},
	finance.ReportLoansOverview: {Title: "Loans overview",
		About: "The loans running over a date range or still owed in it, with what is paid and what remains."},
}

func reportList() []reportInfo {
	out := make([]reportInfo, len(finance.Reports))
	for i, r := range finance.Reports {
		out[i] = reportInfos[r.Name]
		out[i].Name = r.Name
	}
	return out
}

func (s *Site) reportsPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	return s.render(w, r.Request, "reports", pageView{Title: "Reports", Nav: "reports", User: &u, CSRF: auth.CSRFToken(sid),
		Data: reportList()})
}

// --- figures ------------------------------------------------------------------------

// cell is one figure of a report table: as the page shows it, and as the
// CSV holds it (amounts as plain decimals, dates and periods as the API
// writes them).
type cell struct {
	Text string
	CSV  string
	Num  bool // right-aligned
}

func textCell(s string) cell { return cell{Text: s, CSV: s} }

// valueCell is an API value (a status, a level): in words on the page, as
// the API spells it in the download.
func valueCell(v string) cell { return cell{Text: label(v), CSV: v} }

func countCell(n int) cell { return cell{Text: strconv.Itoa(n), CSV: strconv.Itoa(n), Num: true} }

func percentCell(p finance.Money) cell {
	return cell{Text: p.String() + "%", CSV: p.String(), Num: true}
}

func moneyCell(show display, m finance.Money) cell {
	return cell{Text: show.Money(m), CSV: m.String(), Num: true}
}

// moneyInCell is an amount in its own currency: a card's, a loan's or an
// account's row of a report whose totals are converted.
func moneyInCell(show display, m finance.Money, currency string) cell {
	return cell{Text: show.MoneyIn(m, currency), CSV: m.String(), Num: true}
}

func dateCell(show display, d *finance.Date) cell {
	if d == nil {
		return textCell("")
	}
	return cell{Text: show.Date(*d), CSV: d.String()}
}

// periodAxis is a bucket's short label under a chart: "Mar" for a month,
// with the year where it starts and on the first column ("Jan '25"), so
// twelve months fit under a half-width card; "Mar 7" for a day or the week
// starting on it.
func periodAxis(period, granularity string, first bool) string {
	if granularity == finance.GranularityMonth {
		if d, err := finance.ParseMonth(period); err == nil {
			if first || d.Month() == time.January {
				return d.In(time.UTC).Format("Jan '06")
			}
			return d.In(time.UTC).Format("Jan")
		}
	} else if d, err := finance.ParseDate(period); err == nil {
		return d.In(time.UTC).Format("Jan 2")
	}
	return period
}

// periodCell is a bucket of a report over time: "Mar 2025", a date, or
// the week starting on a date; the CSV keeps the API's label.
func periodCell(show display, period, granularity string) cell {
	c := textCell(period)
	switch granularity {
	case finance.GranularityMonth:
		if d, err := finance.ParseMonth(period); err == nil {
			c.Text = d.In(time.UTC).Format("Jan 2006")
		}
	case finance.GranularityDay, finance.GranularityWeek:
		if d, err := finance.ParseDate(period); err == nil {
			c.Text = show.Date(d)
			if granularity == finance.GranularityWeek {
				c.Text = "Week of " + c.Text
			}
		}
	}
	return c
}

// column is a table column: its heading on the page and in the CSV.
type column struct {
	Name, Key string
	Num       bool
}

// reportTable is a table of figures: rows, and totals rows in its foot.
type reportTable struct {
	Caption string
	Columns []column
	Rows    [][]cell
	Foot    [][]cell
}

// csv is the table as a CSV header and rows, its totals last.
func (t reportTable) csv() ([]string, [][]string) {
	head := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		head[i] = c.Key
	}
	var rows [][]string
	for _, r := range append(append([][]cell{}, t.Rows...), t.Foot...) {
		row := make([]string, len(r))
		for i, c := range r {
			row[i] = c.CSV
		}
		rows = append(rows, row)
	}
	return head, rows
}

// reportSection is a chart and the table of its figures, under a heading;
// ID names the table for links and tests.
type reportSection struct {
	ID      string
	Heading string
	Chart   template.HTML
	Table   reportTable
	Fold    bool   // the table folded under its chart (Home), not open (a report's page)
	Note    string // a line under the chart: what its figures leave out
}

// stat is a headline figure of a report.
type stat struct {
	Label, Value string
	Negative     bool
}

// reportFigures is a report as the page shows it: headline figures, then
// sections. The CSV holds the first section's table, the report's main
// figures.
type reportFigures struct {
	Stats    []stat
	Sections []reportSection
}

func moneyStat(show display, label string, m finance.Money) stat {
	return stat{Label: label, Value: show.Money(m), Negative: m < 0}
}

// figures lays out a report (a value from finance.Service.Report); colors
// are the categories' own colours for the charts that draw categories (nil
// for none, as a CSV download needs).
func figures(show display, report any, colors map[string]string) reportFigures {
	switch rep := report.(type) {
	case finance.SpendingByCategoryReport:
		return spendingByCategoryFigures(show, rep, colors)
	case finance.SpendingTrendReport:
		return reportFigures{Stats: []stat{moneyStat(show, "Total", rep.Total), moneyStat(show, "Average per period", rep.AveragePerBucket)},
			Sections: []reportSection{trendSection(show, rep, "Spending per "+rep.Granularity)}}
	case finance.PaymentMethodsReport:
		return paymentMethodsFigures(show, rep)
	case finance.IncomeVsExpensesReport:
		rate := "none (no income)"
		if p := rep.Totals.SavingsRatePercent; p != nil {
			rate = p.String() + "%"
		}
		return reportFigures{Stats: []stat{moneyStat(show, "Income", rep.Totals.Income), moneyStat(show, "Spending", rep.Totals.Spending),
			moneyStat(show, "Net", rep.Totals.Net), {Label: "Savings rate", Value: rate}},
			Sections: []reportSection{incomeSpendingSection(show, rep, "Income and spending per "+rep.Granularity)}}
	case finance.CashFlowReport:
		return cashFlowFigures(show, rep)
	case finance.BudgetVsActualReport:
		return budgetFigures(show, rep)
	case finance.NetWorthReport:
		return netWorthFigures(show, rep)
	case finance.CardUtilizationReport:
		return utilizationFigures(show, rep)
	case finance.BillsOverviewReport:
		return billsFigures(show, rep)
	case finance.LoansOverviewReport:
		return loansFigures(show, rep)
	}
	return reportFigures{}
}

func spendingByCategoryFigures(show display, rep finance.SpendingByCategoryReport, colors map[string]string) reportFigures {
	t := reportTable{Caption: "Spending by category", Columns: []column{{"Category", "category", false},
		{"Amount", "amount", true}, {"Lines", "count", true}, {"Share", "percent", true}}}
	var bars []chartBar
	lines := 0
	for _, it := range rep.Items {
		t.Rows = append(t.Rows, []cell{textCell(it.Category), moneyCell(show, it.Amount), countCell(it.Count), percentCell(it.Percent)})
		bars = append(bars, chartBar{Label: it.Category, Value: it.Amount, Text: show.Money(it.Amount), Color: colors[it.CategoryID]})
		lines += it.Count
	}
	t.Foot = [][]cell{{textCell("Total"), moneyCell(show, rep.Total), countCell(lines), textCell("")}}
	return reportFigures{Stats: []stat{moneyStat(show, "Total spending", rep.Total)},
		Sections: []reportSection{{ID: "figures", Heading: "By category", Chart: barChart("Spending by category", bars), Table: t}}}
}

// trendSection is the spending trend's column chart and table.
func trendSection(show display, rep finance.SpendingTrendReport, heading string) reportSection {
	t := reportTable{Caption: heading, Columns: []column{{"Period", "period", false}, {"Spending", "amount", true}}}
	labels, axis := make([]string, len(rep.Buckets)), make([]string, len(rep.Buckets))
	s := chartSeries{Name: "Spending", Class: "alt"}
	for i, b := range rep.Buckets {
		p := periodCell(show, b.Period, rep.Granularity)
		labels[i], axis[i] = p.Text, periodAxis(b.Period, rep.Granularity, i == 0)
		s.Values, s.Texts = append(s.Values, b.Amount), append(s.Texts, show.Money(b.Amount))
		t.Rows = append(t.Rows, []cell{p, moneyCell(show, b.Amount)})
	}
	t.Foot = [][]cell{{textCell("Total"), moneyCell(show, rep.Total)}, {textCell("Average per period"), moneyCell(show, rep.AveragePerBucket)}}
	return reportSection{ID: "trend", Heading: heading, Chart: columnChart(heading, labels, axis, []chartSeries{s}), Table: t}
}

// incomeSpendingSection is income against spending as paired columns and a table.
func incomeSpendingSection(show display, rep finance.IncomeVsExpensesReport, heading string) reportSection {
	t := reportTable{Caption: heading, Columns: []column{{"Period", "period", false}, {"Income", "income", true},
		{"Spending", "spending", true}, {"Net", "net", true}}}
	labels, axis := make([]string, len(rep.Buckets)), make([]string, len(rep.Buckets))
	in, out := chartSeries{Name: "Income"}, chartSeries{Name: "Spending", Class: "alt"}
	for i, b := range rep.Buckets {
		p := periodCell(show, b.Period, rep.Granularity)
		labels[i], axis[i] = p.Text, periodAxis(b.Period, rep.Granularity, i == 0)
		in.Values, in.Texts = append(in.Values, b.Income), append(in.Texts, show.Money(b.Income))
		out.Values, out.Texts = append(out.Values, b.Spending), append(out.Texts, show.Money(b.Spending))
		t.Rows = append(t.Rows, []cell{p, moneyCell(show, b.Income), moneyCell(show, b.Spending), moneyCell(show, b.Net)})
	}
	tt := rep.Totals
	t.Foot = [][]cell{{textCell("Total"), moneyCell(show, tt.Income), moneyCell(show, tt.Spending), moneyCell(show, tt.Net)}}
	return reportSection{ID: "income-spending", Heading: heading, Chart: columnChart(heading, labels, axis, []chartSeries{in, out}), Table: t}
}

func paymentMethodsFigures(show display, rep finance.PaymentMethodsReport) reportFigures {
	t := reportTable{Caption: "Expenses by payment method", Columns: []column{{"Payment method", "payment_method", false},
		{"Amount", "amount", true}, {"Expenses", "count", true}, {"Share", "percent", true}}}
	var bars []chartBar
	var total finance.Money
	count := 0
	for _, it := range rep.Items {
		t.Rows = append(t.Rows, []cell{textCell(it.PaymentMethod), moneyCell(show, it.Amount), countCell(it.Count), percentCell(it.Percent)})
		bars = append(bars, chartBar{Label: it.PaymentMethod, Value: it.Amount, Text: show.Money(it.Amount)})
		total += it.Amount
		count += it.Count
	}
	t.Foot = [][]cell{{textCell("Total"), moneyCell(show, total), countCell(count), textCell("")}}
	return reportFigures{Stats: []stat{moneyStat(show, "Expenses", total)},
		Sections: []reportSection{{ID: "figures", Heading: "By payment method", Chart: barChart("Expenses by payment method", bars), Table: t}}}
}

func cashFlowFigures(show display, rep finance.CashFlowReport) reportFigures {
	heading := "Money in and out per " + rep.Granularity
	t := reportTable{Caption: heading, Columns: []column{{"Period", "period", false}, {"In", "inflow", true},
		{"Out", "outflow", true}, {"Net", "net", true}}}
	labels, axis := make([]string, len(rep.Buckets)), make([]string, len(rep.Buckets))
	in, out := chartSeries{Name: "In"}, chartSeries{Name: "Out", Class: "alt"}
	var sumIn, sumOut finance.Money
	for i, b := range rep.Buckets {
		p := periodCell(show, b.Period, rep.Granularity)
		labels[i], axis[i] = p.Text, periodAxis(b.Period, rep.Granularity, i == 0)
		in.Values, in.Texts = append(in.Values, b.Inflow), append(in.Texts, show.Money(b.Inflow))
		out.Values, out.Texts = append(out.Values, b.Outflow), append(out.Texts, show.Money(b.Outflow))
		t.Rows = append(t.Rows, []cell{p, moneyCell(show, b.Inflow), moneyCell(show, b.Outflow), moneyCell(show, b.Net)})
		sumIn += b.Inflow
		sumOut += b.Outflow
	}
	t.Foot = [][]cell{{textCell("Total"), moneyCell(show, sumIn), moneyCell(show, sumOut), moneyCell(show, sumIn-sumOut)}}
	bd := rep.Breakdown
	parts := reportTable{Caption: "Where it came from and went", Columns: []column{{"Kind", "kind", false}, {"Amount", "amount", true}}}
	for _, p := range []struct {
		name string
		m    finance.Money
	}{{"Income", bd.Income}, {"Cash expenses", bd.CashExpenses}, {"Account debit expenses", bd.AccountDebitExpenses},
		{"Card payments", bd.CardPayments}, {"Loan payments", bd.LoanPayments}} {
		parts.Rows = append(parts.Rows, []cell{textCell(p.name), moneyCell(show, p.m)})
	}
	return reportFigures{Stats: []stat{moneyStat(show, "In", sumIn), moneyStat(show, "Out", sumOut), moneyStat(show, "Net", sumIn-sumOut)},
		Sections: []reportSection{
			{ID: "figures", Heading: heading, Chart: columnChart(heading, labels, axis, []chartSeries{in, out}), Table: t},
			{ID: "breakdown", Heading: "Breakdown", Table: parts}}}
}

func budgetFigures(show display, rep finance.BudgetVsActualReport) reportFigures {
	t := reportTable{Caption: "Budgets of " + rep.Month, Columns: []column{{"Category", "category", false}, {"Limit", "monthly_limit", true},
		{"Spent", "spent", true}, {"Remaining", "remaining", true}, {"Used", "percent_used", true}, {"State", "state", false}}}
	var bars []chartBar
	for _, it := range rep.Items {
		t.Rows = append(t.Rows, []cell{textCell(it.Category), moneyCell(show, it.MonthlyLimit), moneyCell(show, it.Spent),
			moneyCell(show, it.Remaining), percentCell(it.PercentUsed), valueCell(it.State)})
		bars = append(bars, chartBar{Label: it.Category, Value: it.PercentUsed, Text: it.PercentUsed.String() + "% of " + show.Money(it.MonthlyLimit)})
	}
	t.Foot = [][]cell{{textCell("Total"), moneyCell(show, rep.BudgetedTotal), moneyCell(show, rep.SpentTotal),
		moneyCell(show, rep.BudgetedTotal-rep.SpentTotal), textCell(""), textCell("")}}
	return reportFigures{Stats: []stat{moneyStat(show, "Budgeted", rep.BudgetedTotal), moneyStat(show, "Spent in budgeted categories", rep.SpentTotal),
		moneyStat(show, "Spent elsewhere", rep.UnbudgetedSpending)},
		Sections: []reportSection{{ID: "figures", Heading: "Share of each limit used", Chart: barChart("Share of each budget used", bars), Table: t}}}
}

func netWorthFigures(show display, rep finance.NetWorthReport) reportFigures {
	t := reportTable{Caption: "Assets and liabilities", Columns: []column{{"Kind", "kind", false}, {"Name", "name", false},
		{"Detail", "detail", false}, {"Amount", "amount", true}}}
	for _, a := range rep.Assets.Accounts {
		detail := string(a.Type) + ", " + a.Status
		t.Rows = append(t.Rows, []cell{textCell("Account"), textCell(a.Name),
			{Text: label(a.Type) + ", " + strings.ToLower(label(a.Status)), CSV: detail}, moneyInCell(show, a.Balance, a.Currency)})
	}
	for _, c := range rep.Liabilities.CreditCards {
		t.Rows = append(t.Rows, []cell{textCell("Credit card"), textCell(c.Name), textCell("outstanding balance"),
			moneyInCell(show, c.OutstandingBalance, c.Currency)})
	}
	for _, l := range rep.Liabilities.Loans {
		t.Rows = append(t.Rows, []cell{textCell("Loan"), textCell(l.Name), textCell("remaining principal"),
			moneyInCell(show, l.RemainingPrincipal, l.Currency)})
	}
	t.Foot = [][]cell{
		{textCell("Assets"), textCell(""), textCell(""), moneyCell(show, rep.Assets.Total)},
		{textCell("Liabilities"), textCell(""), textCell(""), moneyCell(show, rep.Liabilities.Total)},
		{textCell("Net worth"), textCell(""), textCell(""), moneyCell(show, rep.NetWorth)},
	}
	bars := []chartBar{{Label: "Assets", Value: rep.Assets.Total, Text: show.Money(rep.Assets.Total)},
		{Label: "Liabilities", Value: rep.Liabilities.Total, Text: show.Money(rep.Liabilities.Total)}}
	return reportFigures{Stats: []stat{moneyStat(show, "Assets", rep.Assets.Total), moneyStat(show, "Liabilities", rep.Liabilities.Total),
		moneyStat(show, "Net worth", rep.NetWorth)},
		Sections: []reportSection{{ID: "figures", Heading: "What you own and owe", Chart: barChart("Assets and liabilities", bars), Table: t}}}
}

func utilizationFigures(show display, rep finance.CardUtilizationReport) reportFigures {
	// Each card's figures are in its own currency, the totals in the
	// reporting one; the currency column comes last, so a sheet that reads
	// the CSV's columns by place keeps working.
	t := reportTable{Caption: "Cards", Columns: []column{{"Card", "name", false},
		{"Limit", "credit_limit", true}, {"Outstanding", "outstanding_balance", true}, {"Available", "available_credit", true},
		{"Used", "utilization_percent", true}, {"Level", "utilization_level", false}, {"Currency", "currency", false}}}
	row := func(name, currency string, f finance.UtilizationFigures) []cell {
		return []cell{textCell(name), moneyInCell(show, f.CreditLimit, currency),
			moneyInCell(show, f.OutstandingBalance, currency), moneyInCell(show, f.AvailableCredit, currency),
			percentCell(f.UtilizationPercent), valueCell(f.UtilizationLevel), textCell(currency)}
	}
	var bars []chartBar
	for _, c := range rep.Cards {
		t.Rows = append(t.Rows, row(c.Name, c.Currency, c.UtilizationFigures))
		bars = append(bars, chartBar{Label: c.Name, Value: c.UtilizationPercent, Text: c.UtilizationPercent.String() + "%"})
	}
	t.Foot = [][]cell{row("All cards", rep.Currency, rep.Totals)}
	return reportFigures{Stats: []stat{moneyStat(show, "Outstanding", rep.Totals.OutstandingBalance),
		moneyStat(show, "Available", rep.Totals.AvailableCredit), {Label: "Used", Value: rep.Totals.UtilizationPercent.String() + "%"}},
		Sections: []reportSection{{ID: "figures", Heading: "Share of each limit in use", Chart: barChart("Credit card utilization", bars), Table: t}}}
}

func billsFigures(show display, rep finance.BillsOverviewReport) reportFigures {
	t := reportTable{Caption: "Bills by category", Columns: []column{{"Category", "category", false}, {"Due", "amount_due", true},
		{"Paid", "paid_amount", true}}}
	var bars []chartBar
	for _, c := range rep.ByCategory {
		t.Rows = append(t.Rows, []cell{textCell(c.Category), moneyCell(show, c.AmountDue), moneyCell(show, c.PaidAmount)})
		bars = append(bars, chartBar{Label: c.Category, Value: c.AmountDue, Text: show.Money(c.AmountDue)})
	}
	t.Foot = [][]cell{{textCell("Total"), moneyCell(show, rep.AmountDue), moneyCell(show, rep.PaidAmount)}}
	st := reportTable{Caption: "Bills by status", Columns: []column{{"Status", "status", false}, {"Bills", "count", true}, {"Amount", "amount", true}}}
	bs := rep.ByStatus
	for _, r := range []struct {
		name string
		c    finance.CountAmount
	}{{label(finance.BillUnpaid), bs.Unpaid}, {label(finance.BillPartiallyPaid), bs.PartiallyPaid}, {label(finance.BillPaid), bs.Paid},
		{label(finance.BillSkipped), bs.Skipped}, {"Overdue (any date)", rep.Overdue}} {
		st.Rows = append(st.Rows, []cell{textCell(r.name), countCell(r.c.Count), moneyCell(show, r.c.Amount)})
	}
	return reportFigures{Stats: []stat{{Label: "Bills", Value: strconv.Itoa(rep.Count)}, moneyStat(show, "Due", rep.AmountDue),
		moneyStat(show, "Paid", rep.PaidAmount), moneyStat(show, "Remaining", rep.RemainingAmount)},
		Sections: []reportSection{
			{ID: "figures", Heading: "Due by category", Chart: barChart("Bills due by category", bars), Table: t},
			{ID: "by-status", Heading: "By status", Table: st}}}
}

func loansFigures(show display, rep finance.LoansOverviewReport) reportFigures {
	t := reportTable{Caption: "Loans", Columns: []column{{"Loan", "name", false}, {"Status", "status", false},
		{"Principal", "principal", true}, {"Interest", "total_interest", true}, {"Principal paid", "paid_principal", true},
		{"Interest paid", "paid_interest", true}, {"Principal left", "remaining_principal", true}, {"Still to pay", "remaining_payable", true},
		{"Installments paid", "paid_count", true}, {"Term (months)", "term_months", true}, {"Next due", "next_due_date", false},
		{"Currency", "currency", false}}}
	// The chart compares the loans' lengths, so it draws the loans in the
	// reporting currency only (a bar of yen beside one of pesos would
	// mislead); the table shows every loan in its own currency.
	var bars []chartBar
	for _, l := range rep.Loans {
		in := func(m finance.Money) cell { return moneyInCell(show, m, l.Currency) }
		t.Rows = append(t.Rows, []cell{textCell(l.Name), valueCell(l.Status), in(l.Principal), in(l.TotalInterest),
			in(l.PaidPrincipal), in(l.PaidInterest), in(l.RemainingPrincipal),
			in(l.RemainingPayable), countCell(l.PaidCount), countCell(l.TermMonths), dateCell(show, l.NextDueDate), textCell(l.Currency)})
		if l.Currency == rep.Currency {
			bars = append(bars, chartBar{Label: l.Name, Value: l.RemainingPayable, Text: show.Money(l.RemainingPayable)})
		}
	}
	tt := rep.Totals
	t.Foot = [][]cell{{textCell("Total"), textCell(""), moneyCell(show, tt.Principal), moneyCell(show, tt.TotalInterest),
		moneyCell(show, tt.PaidPrincipal), moneyCell(show, tt.PaidInterest), moneyCell(show, tt.RemainingPrincipal),
		moneyCell(show, tt.RemainingPayable), countCell(tt.PaidCount), textCell(""), textCell(""), textCell(rep.Currency)}}
	return reportFigures{Stats: []stat{moneyStat(show, "Principal left", tt.RemainingPrincipal), moneyStat(show, "Still to pay", tt.RemainingPayable)},
		Sections: []reportSection{{ID: "figures", Heading: "Still to pay per loan", Chart: barChart("Still to pay per loan", bars), Table: t}}}
}

// --- a report's page ------------------------------------------------------------------

type reportData struct {
	Show    display
	Report  reportInfo
	Params  map[string]bool   // the parameters of the report's form
	Form    map[string]string // the parameters as the form holds them
	Fields  map[string]string
	Methods []string
	Cats    []finance.CategoryOption
	Cards   []finance.CardOption
	Grains  []string
	Header  finance.ReportHeader
	CSV     string
	// Conversion is what the figures converted to the reporting currency
	// and left out; nil for a report that converts nothing.
	Conversion *conversionNote
	reportFigures
}

// reportPage shows the report named by the path, or with ".csv" after the
// name downloads its main figures. The form's parameters are read as the
// API reads them; a problem is shown next to its field, in the API's words.
// A link may carry parameters the report does not use (a range on Net
// worth, a granularity on Payment methods, a link from another report's
// page): the page leaves them out and says so, where the API refuses them.
func (s *Site) reportPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	name, asCSV := strings.CutSuffix(r.Param("name"), ".csv")
	spec, ok := finance.FindReport(name)
	if !ok {
		return finance.UnknownReport()
	}
	ctx := r.Context()
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return err
	}
	q, ignored := reportPageQuery(spec, r.URL.Query())
	d := reportData{Show: show, Report: reportInfos[name], Params: map[string]bool{}, Form: map[string]string{}, Fields: map[string]string{},
		Grains: finance.Granularities, CSV: withQuery(ReportsPath+"/"+name+".csv", q)}
	d.Report.Name = name
	for _, p := range reportFormParams(spec) {
		d.Params[p] = true
		d.Form[p] = q.Get(p)
	}
	out, err := s.runReport(ctx, u.ID, name, q)
	if err == nil && asCSV {
		return reportCSV(w, r.Request, name, figures(show, out, nil), out)
	}
	var ve *finance.ValidationError
	p := pageView{Title: d.Report.Title, Nav: "reports", User: &u, CSRF: auth.CSRFToken(sid), Notice: ignoredParams(ignored)}
	switch {
	case errors.As(err, &ve):
		d.Fields = ve.Fields
		p.status = http.StatusBadRequest
		p.refuseFields("", ve)
	case err != nil:
		return err
	default:
		colors, err := s.ledger.CategoryColors(ctx, u.ID)
		if err != nil {
			return err
		}
		d.reportFigures = figures(show, out, colors)
		d.Header = reportHeader(out)
		if c, ok := conversionOf(show, d.Header.Currency, out); ok {
			d.Conversion = &c
		}
		// The range the API chose is what the form shows where none was given.
		if d.Params["dateFrom"] && d.Form["dateFrom"] == "" {
			d.Form["dateFrom"] = d.Header.DateFrom.String()
		}
		if d.Params["dateTo"] && d.Form["dateTo"] == "" {
			d.Form["dateTo"] = d.Header.DateTo.String()
		}
		if d.Params["month"] && d.Form["month"] == "" {
			d.Form["month"] = d.Header.DateFrom.MonthString()
		}
		if d.Params["granularity"] && d.Form["granularity"] == "" {
			d.Form["granularity"] = finance.GranularityMonth
		}
	}
	if asCSV {
		return err // a refused download: the error page, in the API's words
	}
	if d.Params["payment_method"] || d.Params["cardId"] || d.Params["category"] {
		opts, err := s.ledger.ExpenseFormOptions(ctx, u.ID)
		if err != nil {
			return err
		}
		d.Methods, d.Cats, d.Cards = opts.PaymentMethods, opts.Categories, opts.CreditCards
	}
	p.Data = d
	return s.render(w, r.Request, "report", p)
}

// reportFormParams are the fields of a report's form: the range where the
// figures are the range's, and the report's own parameters. budget-vs-actual
// shows its month (a range in a link picks the month, as in the API), and
// the as-of reports show no range.
func reportFormParams(spec finance.ReportSpec) []string {
	if spec.Range == finance.RangeFigures {
		return spec.Accepts()
	}
	return spec.Params
}

// reportPageQuery splits a report page's query into what the report reads
// (empty fields dropped: a form sends them, the API reads an absent
// parameter) and the names of the parameters it does not use: those the
// report does not take, and the range of an as-of report, which changes
// nothing and has no field to show a problem next to.
func reportPageQuery(spec finance.ReportSpec, query url.Values) (url.Values, []string) {
	used := spec.Accepts()
	if spec.Range == finance.RangeAsOfToday {
		used = spec.Params
	}
	q := url.Values{}
	var ignored []string
	for _, k := range slices.Sorted(maps.Keys(query)) {
		switch vs := query[k]; {
		case len(vs) == 0 || vs[0] == "":
		case slices.Contains(used, k):
			q[k] = vs[:1]
		default:
			ignored = append(ignored, k)
		}
	}
	return q, ignored
}

// ignoredParams says which parameters of the link the page left out. It
// names only parameters some report takes, and counts the others: a page
// never repeats text a crafted link put in it.
func ignoredParams(names []string) string {
	if len(names) == 0 {
		return ""
	}
	known := queryparam.ReportParams()
	var named []string
	others := 0
	for _, n := range names {
		if slices.Contains(known, n) {
			named = append(named, n)
		} else {
			others++
		}
	}
	switch {
	case others == 1:
		named = append(named, "1 unknown parameter")
	case others > 1:
		named = append(named, strconv.Itoa(others)+" unknown parameters")
	}
	return "Not used by this report, so left out: " + andList(named) + "."
}

// runReport reads and runs the named report as GET /api/v1/reports/{report}
// does, with what that route generates first (statements and bills due).
func (s *Site) runReport(ctx context.Context, userID, name string, q url.Values) (any, error) {
	req, err := queryparam.Report(name, q)
	if err != nil {
		return nil, err
	}
	s.host.GenerateDue(ctx, userID, true, true)
	return s.ledger.Report(ctx, userID, req)
}

// reportHeader is the header every report starts with.
func reportHeader(report any) finance.ReportHeader {
	if r, ok := report.(interface{ Header() finance.ReportHeader }); ok {
		return r.Header()
	}
	return finance.ReportHeader{}
}

// reportCSV downloads the report's main table, named for the report and its range.
func reportCSV(w http.ResponseWriter, r *http.Request, name string, f reportFigures, report any) error {
	var head []string
	var rows [][]string
	if len(f.Sections) > 0 {
		head, rows = f.Sections[0].Table.csv()
	}
	h := reportHeader(report)
	return writeCSV(w, r, csvName(name, h.DateFrom, h.DateTo), head, rows)
}

// --- Home's twelve months -------------------------------------------------------------

// homeMonths is how many months Home's trend charts cover, ending at the shown month.
const homeMonths = 12

// homeTrends are Home's charts of the twelve months ending at month (its
// first day): net worth at each month's end, spending per month, and
// income against spending, from the spending-trend and income-vs-expenses
// reports; their tables are folded. It returns today's net worth beside
// them, the figure the first screen leads with, and the net worth chart
// apart from the others, which Home shows beside spending by category.
func (s *Site) homeTrends(ctx context.Context, userID string, show display, month finance.Date) (finance.NetWorthReport, reportSection, []reportSection, error) {
	from := finance.MonthAdd(month, 1-homeMonths, 1)
	_, to := finance.MonthRange(month)
	now, points, err := s.ledger.NetWorthHistory(ctx, userID, month, homeMonths)
	if err != nil {
		return now, reportSection{}, nil, err
	}
	req := finance.ReportRequest{From: from, To: to, Granularity: finance.GranularityMonth}
	req.Name = finance.ReportSpendingTrend
	trend, err := s.ledger.Report(ctx, userID, req)
	if err != nil {
		return now, reportSection{}, nil, err
	}
	req.Name = finance.ReportIncomeVsExpenses
	versus, err := s.ledger.Report(ctx, userID, req)
	if err != nil {
		return now, reportSection{}, nil, err
	}
	span := show.Month(from) + " to " + show.Month(month)
	t, ok1 := trend.(finance.SpendingTrendReport)
	v, ok2 := versus.(finance.IncomeVsExpensesReport)
	if !ok1 || !ok2 {
		return now, reportSection{}, nil, errors.New("home trends: unexpected report types")
	}
	worth := netWorthSection(show, points, "Net worth, "+span)
	worth.Note = pointsMissing(points)
	trends := []reportSection{trendSection(show, t, "Spending, "+span), incomeSpendingSection(show, v, "Income and spending, "+span)}
	worth.Fold = true
	for i := range trends {
		trends[i].Fold = true
	}
	return now, worth, trends, nil
}

// pointsMissing says which currencies some months of net worth leave out
// for want of a rate on or before their last day; "" when none does.
func pointsMissing(points []finance.NetWorthPoint) string {
	var codes []string
	for _, p := range points {
		for _, c := range p.Missing {
			if !slices.Contains(codes, c) {
				codes = append(codes, c)
			}
		}
	}
	if len(codes) == 0 {
		return ""
	}
	slices.Sort(codes)
	return "Some months leave out " + strings.Join(codes, ", ") + ": no rate on or before the month's last day."
}

// netWorthSection is net worth at each month's end as columns and a table.
func netWorthSection(show display, points []finance.NetWorthPoint, heading string) reportSection {
	t := reportTable{Caption: heading, Columns: []column{{"Month", "month", false}, {"Net worth", "net_worth", true}}}
	labels, axis := make([]string, len(points)), make([]string, len(points))
	s := chartSeries{Name: "Net worth", Class: "worth"}
	for i, p := range points {
		month := periodCell(show, p.Month.MonthString(), finance.GranularityMonth)
		labels[i], axis[i] = month.Text, periodAxis(p.Month.MonthString(), finance.GranularityMonth, i == 0)
		s.Values, s.Texts = append(s.Values, p.NetWorth), append(s.Texts, show.Money(p.NetWorth))
		t.Rows = append(t.Rows, []cell{month, moneyCell(show, p.NetWorth)})
	}
	return reportSection{ID: "net-worth", Heading: heading, Chart: columnChart(heading, labels, axis, []chartSeries{s}), Table: t}
}
