package finance

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The ten reports of GET /reports/{report} (domain.md §5.7).
const (
	ReportSpendingByCategory    = "spending-by-category"
	ReportSpendingTrend         = "spending-trend"
	ReportPaymentMethods        = "payment-methods"
	ReportIncomeVsExpenses      = "income-vs-expenses"
	ReportCashFlow              = "cash-flow"
	ReportBudgetVsActual        = "budget-vs-actual"
	ReportNetWorth              = "net-worth"
	ReportCreditCardUtilization = "credit-card-utilization"
	ReportBillsOverview         = "bills-overview"
	ReportLoansOverview         = "loans-overview"
)

// RangeParams are the range of a report, which every report takes (§5.7),
// so that a client may send any report the same range.
var RangeParams = []string{"dateFrom", "dateTo"}

// RangeUse is what a report does with its range.
type RangeUse int

const (
	// RangeFigures: the figures are those of the range.
	RangeFigures RangeUse = iota
	// RangeMonth: budget-vs-actual measures one calendar month, the one
	// month names or else the one holding dateTo (budgets are monthly).
	RangeMonth
	// RangeAsOfToday: the figures are balances as they stand today (every
	// recorded line counts, whatever its date, as on the account and card
	// pages). The range is checked like any report's and changes nothing:
	// balances at a past date would need the history of every status, which
	// the ledger does not keep (a purchase converted later, an instance
	// waived later). The body says the date in as_of, date_from and date_to.
	RangeAsOfToday
)

// ReportSpec names a report, the query parameters it takes beyond the
// range, and what it does with the range. A report refuses any other
// parameter, so that an agent never reads an unfiltered report as filtered.
type ReportSpec struct {
	Name   string
	Params []string
	Range  RangeUse
}

// Accepts returns every query parameter the report takes: the range first,
// then its own.
func (r ReportSpec) Accepts() []string { return append(slices.Clone(RangeParams), r.Params...) }

// Reports lists the reports in the order of the specification.
var Reports = []ReportSpec{
	{Name: ReportSpendingByCategory, Params: []string{"payment_method", "cardId"}},
	{Name: ReportSpendingTrend, Params: []string{"granularity", "category"}},
	{Name: ReportPaymentMethods},
	{Name: ReportIncomeVsExpenses, Params: []string{"granularity"}},
	{Name: ReportCashFlow, Params: []string{"granularity"}},
	{Name: ReportBudgetVsActual, Params: []string{"month"}, Range: RangeMonth},
	{Name: ReportNetWorth, Range: RangeAsOfToday},
	{Name: ReportCreditCardUtilization, Params: []string{"cardId"}, Range: RangeAsOfToday},
	{Name: ReportBillsOverview},
	{Name: ReportLoansOverview},
}

// ReportNames are the names of Reports, in order.
func ReportNames() []string {
	out := make([]string, len(Reports))
	for i, r := range Reports {
		out[i] = r.Name
	}
	return out
}

// FindReport returns the named report's spec; false when there is no such report.
func FindReport(name string) (ReportSpec, bool) {
	for _, r := range Reports {
		if r.Name == name {
			return r, true
		}
	}
	return ReportSpec{}, false
}

// UnknownReport is the ErrNotFound of a report name that is none of Reports.
// Like every error, it does not repeat the path text it was given; it names
// the reports that exist instead.
func UnknownReport() error {
	names := make([]string, len(Reports))
	for i, r := range Reports {
		names[i] = r.Name
	}
	return &kindError{kind: ErrNotFound, msg: "Report not found; the reports are " + strings.Join(names, ", ")}
}

// Bucket sizes of the reports over time.
const (
	GranularityDay   = "day"
	GranularityWeek  = "week"
	GranularityMonth = "month"
)

// Granularities are the accepted granularity values; the last is the default.
var Granularities = []string{GranularityDay, GranularityWeek, GranularityMonth}

// Limits of a report's range.
const (
	MaxDayBuckets  = 366 // a day report covers at most this many days
	MaxReportYears = 5   // a range covers at most this many years
)

// ReportRequest is a report and its parameters, as read from the query.
// Zero values are absent parameters.
type ReportRequest struct {
	Name          string
	From, To      Date
	Month         Date // budget-vs-actual: a day of the month (its first, from the query)
	Granularity   string
	PaymentMethod string
	CardID        string
	Category      string
}

// ReportHeader starts every report body. DateFrom and DateTo are the
// period the figures cover: the range, the month of budget-vs-actual, or
// the date of an as-of report's balances.
type ReportHeader struct {
	Report   string `json:"report"`
	DateFrom Date   `json:"date_from"`
	DateTo   Date   `json:"date_to"`
	Currency string `json:"currency"`
}

// AsOfHeader starts the body of a report of balances (RangeAsOfToday):
// AsOf is the date they stand at, which is also DateFrom and DateTo.
type AsOfHeader struct {
	ReportHeader
	AsOf Date `json:"as_of"`
}

// asOf is the header of balances as they stand on day.
func asOf(h ReportHeader, day Date) AsOfHeader {
	h.DateFrom, h.DateTo = day, day
	return AsOfHeader{ReportHeader: h, AsOf: day}
}

// Header returns h. Every report embeds its header, so every report has
// this method: a reader of any report finds its range and currency here.
func (h ReportHeader) Header() ReportHeader { return h }

// Bucket is one period of a report over time: Period is its label, and it
// holds the dates Start..End (the whole week or month; the report's range
// may cut the first and last).
type Bucket struct {
	Period     string
	Start, End Date
}

// WeekStart returns the first day of d's week, for a week starting on
// monday or sunday (the week_start setting).
func WeekStart(d Date, startsOn string) Date {
	first := time.Monday
	if startsOn == "sunday" {
		first = time.Sunday
	}
	back := (int(d.time().Weekday()) - int(first) + 7) % 7
	return d.AddDays(-back)
}

// ReportBuckets returns the buckets that cover from..to, empty ones
// included: days labelled YYYY-MM-DD, weeks labelled with their first day
// (per weekStartsOn), months labelled YYYY-MM.
func ReportBuckets(from, to Date, granularity, weekStartsOn string) []Bucket {
	var out []Bucket
	switch granularity {
	case GranularityDay:
		for d := from; !d.After(to); d = d.AddDays(1) {
			out = append(out, Bucket{Period: d.String(), Start: d, End: d})
		}
	case GranularityWeek:
		for d := WeekStart(from, weekStartsOn); !d.After(to); d = d.AddDays(7) {
			out = append(out, Bucket{Period: d.String(), Start: d, End: d.AddDays(6)})
		}
	default:
		first := NewDate(from.Year(), from.Month(), 1)
		for k := 0; ; k++ {
			start := MonthAdd(first, k, 1)
			if start.After(to) {
				break
			}
			_, end := MonthRange(start)
			out = append(out, Bucket{Period: start.MonthString(), Start: start, End: end})
		}
	}
	return out
}

// bucketOf returns the index of the bucket holding d, or -1.
func bucketOf(buckets []Bucket, d Date) int {
	i, _ := slices.BinarySearchFunc(buckets, d, func(b Bucket, d Date) int {
		switch {
		case b.End.Before(d):
			return -1
		case b.Start.After(d):
			return 1
		}
		return 0
	})
	if i < len(buckets) && !buckets[i].Start.After(d) && !buckets[i].End.Before(d) {
		return i
	}
	return -1
}

// DayAmount is a sum of one day.
type DayAmount struct {
	Date   Date
	Amount Money
}

// byBucket puts each dated amount into its bucket's list; amounts outside
// every bucket are dropped.
func byBucket(buckets []Bucket, groups []DatedAmount) [][]DatedAmount {
	out := make([][]DatedAmount, len(buckets))
	for _, g := range groups {
		if i := bucketOf(buckets, g.Date); i >= 0 {
			out[i] = append(out[i], g)
		}
	}
	return out
}

// SpendingFilter narrows the spending of the spending-by-category report.
// A payment method keeps the expense lines paid that way, and for Credit
// Card also the card's fees, interest and refunds; a card keeps the
// expenses charged to it and its fees, interest and refunds. Loan interest
// is paid by no expense method, so either filter leaves it out.
type SpendingFilter struct {
	PaymentMethod string
	CardID        string
}

// CashFlowDay is one day of money in and out of one currency (the
// cash-flow report).
type CashFlowDay struct {
	Date                 Date
	Currency             string
	Income               Money
	CashExpenses         Money
	AccountDebitExpenses Money
	CardPayments         Money
	LoanPayments         Money
}

// RecentEntry is an expense or income of the dashboard's recent list.
type RecentEntry struct {
	Kind        string  `json:"kind"` // expense or income
	ID          string  `json:"id"`
	Date        Date    `json:"date"`
	Amount      Money   `json:"amount"`
	Currency    string  `json:"currency"` // amount is in it, not converted
	Description *string `json:"description"`
	Category    *string `json:"category"` // null for a split expense
}

// ReportRepo is what the dashboard and the reports read: sums over a date
// range, grouped in the database.
type ReportRepo interface {
	// SpendingTotals sums the spending of §1.6 per category with the number
	// of lines summed, the reporting currency's over the range and another
	// currency's per date (as ExpenseTotals); categories without lines are absent.
	SpendingTotals(ctx context.Context, userID, reporting string, from, to Date, f SpendingFilter) ([]CategoryTotal, error)
	// SpendingByDay sums the spending of §1.6 per day and currency;
	// category, when not empty, keeps the categories of that name
	// (case-insensitive).
	SpendingByDay(ctx context.Context, userID string, from, to Date, category string) ([]DatedAmount, error)
	// IncomeByDay sums the non-voided income per day and currency.
	IncomeByDay(ctx context.Context, userID string, from, to Date) ([]DatedAmount, error)
	// IncomeTotals sums the non-voided income to convert: the reporting
	// currency's over the range (dated from), another currency's per date.
	IncomeTotals(ctx context.Context, userID, reporting string, from, to Date) ([]DatedAmount, error)
	// ExpensesByMethod sums the non-voided expenses (a split one once) per
	// payment method, as ExpenseTotals sums them: by currency and date.
	ExpensesByMethod(ctx context.Context, userID, reporting string, from, to Date) ([]MethodTotal, error)
	// CashFlowByDay sums, per day and currency, what the cash-flow report counts.
	CashFlowByDay(ctx context.Context, userID string, from, to Date) ([]CashFlowDay, error)
	// RecentEntries returns the latest n non-voided expenses and income
	// dated from..to, latest first (by date, then by id: creation order).
	RecentEntries(ctx context.Context, userID string, from, to Date, n int) ([]RecentEntry, error)
	ReportBillsLoansRepo
	NetWorthChangeRepo
}

// reportRange applies the defaults and limits of §5.7 to a request's range.
func reportRange(req ReportRequest, today Date) (Date, Date, error) {
	from, to := req.From, req.To
	first, last := MonthRange(today)
	if from.IsZero() {
		from = first
	}
	if to.IsZero() {
		to = last
	}
	if from.After(to) {
		return from, to, Invalid("dateFrom", "must not be after dateTo ("+to.String()+")")
	}
	if limit := MonthAdd(from, 12*MaxReportYears, from.Day()).AddDays(-1); to.After(limit) {
		return from, to, Invalid("dateTo", "the range must cover at most "+strconv.Itoa(MaxReportYears)+
			" years: from "+from.String()+", dateTo must be on or before "+limit.String())
	}
	if req.Granularity == GranularityDay {
		if days := from.DaysUntil(to) + 1; days > MaxDayBuckets {
			return from, to, Invalid("granularity", "day buckets cover at most "+strconv.Itoa(MaxDayBuckets)+
				" days and this range has "+strconv.Itoa(days)+"; use week or month")
		}
	}
	return from, to, nil
}

// Report is GET /reports/{report}: the named report over the request's
// parameters, which the caller has checked are the report's own (see
// ReportSpec.Accepts). An unknown name is ErrNotFound. The range is checked
// for every report, whatever it does with it (see RangeUse).
func (s *Service) Report(ctx context.Context, userID string, req ReportRequest) (any, error) {
	if _, ok := FindReport(req.Name); !ok {
		return nil, UnknownReport()
	}
	if req.Granularity == "" {
		req.Granularity = GranularityMonth
	}
	prefs := s.settingsOrDefault(ctx, userID)
	today := Today(s.now(), prefs.loc)
	h := ReportHeader{Report: req.Name, Currency: prefs.settings.Currency}
	from, to, err := reportRange(req, today)
	if err != nil {
		return nil, err
	}
	h.DateFrom, h.DateTo = from, to
	switch req.Name {
	case ReportBudgetVsActual:
		month := req.Month
		if month.IsZero() {
			month = to
		}
		return s.budgetVsActual(ctx, userID, h, month)
	case ReportNetWorth:
		return s.netWorth(ctx, userID, asOf(h, today), today)
	case ReportCreditCardUtilization:
		return s.cardUtilization(ctx, userID, asOf(h, today), req.CardID, today)
	case ReportBillsOverview:
		return s.billsOverview(ctx, userID, h, today)
	case ReportLoansOverview:
		return s.loansOverview(ctx, userID, h, today)
	}
	repo := s.store.Read()
	buckets := ReportBuckets(from, to, req.Granularity, prefs.settings.WeekStart)
	switch req.Name {
	case ReportSpendingByCategory:
		totals, note, err := s.spendingTotals(ctx, repo, userID, h.Currency, from, to,
			SpendingFilter{PaymentMethod: req.PaymentMethod, CardID: req.CardID})
		if err != nil {
			return nil, err
		}
		out := BuildSpendingByCategory(h, totals)
		out.ConversionNote = note
		return out, nil
	case ReportSpendingTrend:
		days, err := repo.SpendingByDay(ctx, userID, from, to, req.Category)
		if err != nil {
			return nil, err
		}
		conv, err := s.sumConverter(ctx, userID, h.Currency, days)
		if err != nil {
			return nil, err
		}
		return BuildSpendingTrend(ctx, conv, h, req.Granularity, buckets, days), conv.Err()
	case ReportPaymentMethods:
		methods, err := repo.ExpensesByMethod(ctx, userID, h.Currency, from, to)
		if err != nil {
			return nil, err
		}
		raw := ExpenseTotals{ByMethod: methods}
		conv, err := s.sumConverter(ctx, userID, h.Currency, raw.methodGroups())
		if err != nil {
			return nil, err
		}
		out := BuildPaymentMethods(h, conv.ExpenseTotals(ctx, raw).ByMethod)
		out.ConversionNote = conv.NoteOf(ctx, raw.methodGroups())
		return out, conv.Err()
	case ReportIncomeVsExpenses:
		spending, err := repo.SpendingByDay(ctx, userID, from, to, "")
		if err != nil {
			return nil, err
		}
		income, err := repo.IncomeByDay(ctx, userID, from, to)
		if err != nil {
			return nil, err
		}
		conv, err := s.sumConverter(ctx, userID, h.Currency, income, spending)
		if err != nil {
			return nil, err
		}
		return BuildIncomeVsExpenses(ctx, conv, h, req.Granularity, buckets, income, spending), conv.Err()
	default: // ReportCashFlow
		days, err := repo.CashFlowByDay(ctx, userID, from, to)
		if err != nil {
			return nil, err
		}
		f := cashFlowGroups(days)
		conv, err := s.sumConverter(ctx, userID, h.Currency, f.inflow(), f.outflow())
		if err != nil {
			return nil, err
		}
		return BuildCashFlow(ctx, conv, h, req.Granularity, buckets, f), conv.Err()
	}
}

// SpendingCategoryItem is one category of the spending-by-category report.
type SpendingCategoryItem struct {
	CategoryID string `json:"category_id"`
	Category   string `json:"category"`
	Amount     Money  `json:"amount"`
	Count      int    `json:"count"`   // spending lines: expenses, split parts, card and loan lines
	Percent    Money  `json:"percent"` // of total, 2 decimals
}

// SpendingByCategoryReport is the spending-by-category report.
type SpendingByCategoryReport struct {
	ReportHeader
	ConversionNote
	Total Money                  `json:"total"`
	Items []SpendingCategoryItem `json:"items"`
}

// BuildSpendingByCategory sorts the categories by amount, largest first
// (ties by name), with each one's share of the total.
func BuildSpendingByCategory(h ReportHeader, totals []CategoryTotal) SpendingByCategoryReport {
	out := SpendingByCategoryReport{ReportHeader: h, Items: make([]SpendingCategoryItem, 0, len(totals))}
	for _, t := range totals {
		out.Total += t.Amount
	}
	for _, t := range totals {
		out.Items = append(out.Items, SpendingCategoryItem{CategoryID: t.CategoryID, Category: t.Category,
			Amount: t.Amount, Count: t.Count, Percent: Percent(t.Amount, out.Total)})
	}
	slices.SortFunc(out.Items, func(a, b SpendingCategoryItem) int {
		return cmp.Or(cmp.Compare(b.Amount, a.Amount), cmp.Compare(nameKey(a.Category), nameKey(b.Category)),
			cmp.Compare(a.CategoryID, b.CategoryID))
	})
	return out
}

// PeriodAmount is one bucket of the spending trend.
type PeriodAmount struct {
	Period string `json:"period"`
	Amount Money  `json:"amount"`
}

// SpendingTrendReport is the spending-trend report.
type SpendingTrendReport struct {
	ReportHeader
	ConversionNote
	Granularity      string         `json:"granularity"`
	Buckets          []PeriodAmount `json:"buckets"`
	Total            Money          `json:"total"`
	AveragePerBucket Money          `json:"average_per_bucket"` // total / buckets, half-up
}

// BuildSpendingTrend converts each bucket's spending, each day's at its
// rate, rounding each bucket once; the total is the whole range's exact
// sum rounded once, so the buckets may add to a cent more or less than it
// when anything was converted (docs/domain.md, "A series over time").
func BuildSpendingTrend(ctx context.Context, conv *SumConverter, h ReportHeader, granularity string, buckets []Bucket,
	days []DatedAmount) SpendingTrendReport {
	out := SpendingTrendReport{ReportHeader: h, Granularity: granularity, Buckets: make([]PeriodAmount, len(buckets))}
	in := byBucket(buckets, days)
	for i, b := range buckets {
		out.Buckets[i] = PeriodAmount{Period: b.Period, Amount: conv.sum(ctx, in[i])}
	}
	all := slices.Concat(in...)
	out.Total = conv.sum(ctx, all)
	out.AveragePerBucket = Money(halfUpDiv(int64(out.Total), int64(max(1, len(buckets)))))
	out.ConversionNote = conv.NoteOf(ctx, all)
	return out
}

// MethodItem is one payment method of the payment-methods report.
type MethodItem struct {
	PaymentMethod string `json:"payment_method"`
	Amount        Money  `json:"amount"`
	Count         int    `json:"count"`   // expenses
	Percent       Money  `json:"percent"` // of all expenses, 2 decimals
}

// PaymentMethodsReport is the payment-methods report: expenses only.
type PaymentMethodsReport struct {
	ReportHeader
	ConversionNote
	Items []MethodItem `json:"items"`
}

// BuildPaymentMethods lists the three methods, always, in their fixed order.
func BuildPaymentMethods(h ReportHeader, methods []MethodTotal) PaymentMethodsReport {
	var total Money
	for _, m := range methods {
		total += m.Amount
	}
	out := PaymentMethodsReport{ReportHeader: h, Items: make([]MethodItem, len(PaymentMethods))}
	for i, name := range PaymentMethods {
		out.Items[i] = MethodItem{PaymentMethod: name}
		for _, m := range methods {
			if m.PaymentMethod == name {
				out.Items[i] = MethodItem{PaymentMethod: name, Amount: m.Amount, Count: m.Count, Percent: Percent(m.Amount, total)}
			}
		}
	}
	return out
}

// IncomeSpending is a bucket, or the totals, of income against spending.
type IncomeSpending struct {
	Period   string `json:"period,omitempty"`
	Income   Money  `json:"income"`
	Spending Money  `json:"spending"`
	Net      Money  `json:"net"`
}

// IncomeVsExpensesTotals are the report's totals; the savings rate is net
// over income, null when there was no income.
type IncomeVsExpensesTotals struct {
	Income             Money  `json:"income"`
	Spending           Money  `json:"spending"`
	Net                Money  `json:"net"`
	SavingsRatePercent *Money `json:"savings_rate_percent"`
}

// IncomeVsExpensesReport is the income-vs-expenses report.
type IncomeVsExpensesReport struct {
	ReportHeader
	ConversionNote
	Granularity string                 `json:"granularity"`
	Buckets     []IncomeSpending       `json:"buckets"`
	Totals      IncomeVsExpensesTotals `json:"totals"`
}

// BuildIncomeVsExpenses converts each bucket's income and spending, each
// day's at its rate, rounding each figure once; a net is rounded once from
// its exact income less spending, and the totals once from the range's
// exact sums (docs/domain.md, "A series over time"). What a missing rate
// left out is named as the net of its currency, as net worth names it.
func BuildIncomeVsExpenses(ctx context.Context, conv *SumConverter, h ReportHeader, granularity string, buckets []Bucket,
	income, spending []DatedAmount) IncomeVsExpensesReport {
	in, out := byBucket(buckets, income), byBucket(buckets, spending)
	r := IncomeVsExpensesReport{ReportHeader: h, Granularity: granularity, Buckets: make([]IncomeSpending, len(buckets))}
	for i, b := range buckets {
		r.Buckets[i] = IncomeSpending{Period: b.Period, Income: conv.sum(ctx, in[i]), Spending: conv.sum(ctx, out[i]),
			Net: conv.sum(ctx, slices.Concat(in[i], negated(out[i])))}
	}
	allIn, allOut := slices.Concat(in...), slices.Concat(out...)
	net := slices.Concat(allIn, negated(allOut))
	r.Totals = IncomeVsExpensesTotals{Income: conv.sum(ctx, allIn), Spending: conv.sum(ctx, allOut), Net: conv.sum(ctx, net)}
	if r.Totals.Income > 0 {
		rate := Percent(r.Totals.Net, r.Totals.Income)
		r.Totals.SavingsRatePercent = &rate
	}
	r.ConversionNote = conv.NoteOf(ctx, net)
	return r
}

// CashFlowBucket is one period of money in and out.
type CashFlowBucket struct {
	Period  string `json:"period"`
	Inflow  Money  `json:"inflow"`
	Outflow Money  `json:"outflow"`
	Net     Money  `json:"net"`
}

// CashFlowBreakdown are the terms of the range's inflow and outflow.
type CashFlowBreakdown struct {
	Income               Money `json:"income"`
	CashExpenses         Money `json:"cash_expenses"`
	AccountDebitExpenses Money `json:"account_debit_expenses"`
	CardPayments         Money `json:"card_payments"`
	LoanPayments         Money `json:"loan_payments"`
}

// CashFlowReport is the cash-flow report: money that left or reached the
// user's hands and accounts. Card purchases move no money until the card is
// paid, so the statement payments count instead.
type CashFlowReport struct {
	ReportHeader
	ConversionNote
	Granularity string            `json:"granularity"`
	Buckets     []CashFlowBucket  `json:"buckets"`
	Breakdown   CashFlowBreakdown `json:"breakdown"`
}

// cashFlow are the days of the cash-flow report as groups to convert, one
// list per term of its breakdown.
type cashFlow struct {
	income, cash, debit, cards, loans []DatedAmount
}

func cashFlowGroups(days []CashFlowDay) cashFlow {
	var f cashFlow
	for _, d := range days {
		add := func(list *[]DatedAmount, m Money) {
			if m != 0 {
				*list = append(*list, DatedAmount{Currency: d.Currency, Date: d.Date, Amount: m})
			}
		}
		add(&f.income, d.Income)
		add(&f.cash, d.CashExpenses)
		add(&f.debit, d.AccountDebitExpenses)
		add(&f.cards, d.CardPayments)
		add(&f.loans, d.LoanPayments)
	}
	return f
}

func (f cashFlow) inflow() []DatedAmount  { return f.income }
func (f cashFlow) outflow() []DatedAmount { return slices.Concat(f.cash, f.debit, f.cards, f.loans) }

// BuildCashFlow converts each bucket's inflow and outflow, each day's at
// its rate, rounding each figure once, a net once from its exact inflow
// less outflow, and each term of the breakdown once over the range. What a
// missing rate left out is named as the net of its currency.
func BuildCashFlow(ctx context.Context, conv *SumConverter, h ReportHeader, granularity string, buckets []Bucket, f cashFlow) CashFlowReport {
	r := CashFlowReport{ReportHeader: h, Granularity: granularity, Buckets: make([]CashFlowBucket, len(buckets))}
	in, out := byBucket(buckets, f.inflow()), byBucket(buckets, f.outflow())
	for i, b := range buckets {
		r.Buckets[i] = CashFlowBucket{Period: b.Period, Inflow: conv.sum(ctx, in[i]), Outflow: conv.sum(ctx, out[i]),
			Net: conv.sum(ctx, slices.Concat(in[i], negated(out[i])))}
	}
	// The range's terms: only days inside the buckets count, as above.
	inRange := func(groups []DatedAmount) []DatedAmount { return slices.Concat(byBucket(buckets, groups)...) }
	r.Breakdown = CashFlowBreakdown{Income: conv.sum(ctx, inRange(f.income)), CashExpenses: conv.sum(ctx, inRange(f.cash)),
		AccountDebitExpenses: conv.sum(ctx, inRange(f.debit)), CardPayments: conv.sum(ctx, inRange(f.cards)),
		LoanPayments: conv.sum(ctx, inRange(f.loans))}
	r.ConversionNote = conv.NoteOf(ctx, slices.Concat(slices.Concat(in...), negated(slices.Concat(out...))))
	return r
}

// BudgetVsActualReport is the budget-vs-actual report of one month.
type BudgetVsActualReport struct {
	ReportHeader
	ConversionNote
	Month              string            `json:"month"`
	Items              []BudgetThreshold `json:"items"`
	BudgetedTotal      Money             `json:"budgeted_total"`
	SpentTotal         Money             `json:"spent_total"`         // spending in the budgeted categories
	UnbudgetedSpending Money             `json:"unbudgeted_spending"` // spending in every other category
}

// budgetVsActual measures the month holding the date month.
func (s *Service) budgetVsActual(ctx context.Context, userID string, h ReportHeader, month Date) (BudgetVsActualReport, error) {
	from, to := MonthRange(month)
	h.DateFrom, h.DateTo = from, to
	repo := s.store.Read()
	limits, err := repo.BudgetThresholds(ctx, userID)
	if err != nil {
		return BudgetVsActualReport{}, err
	}
	spending, note, err := s.spendingByCategory(ctx, repo, userID, from, to)
	if err != nil {
		return BudgetVsActualReport{}, err
	}
	out := BudgetVsActualReport{ReportHeader: h, ConversionNote: note, Month: from.MonthString(), Items: measureLimits(limits, spending)}
	var all Money
	for _, c := range spending {
		all += c.Amount
	}
	for _, t := range out.Items {
		out.BudgetedTotal += t.MonthlyLimit
		out.SpentTotal += t.Spent
	}
	out.UnbudgetedSpending = all - out.SpentTotal
	return out, nil
}

// NetWorthAccount is one account among the assets, archived ones included.
// Balance is in the account's Currency.
type NetWorthAccount struct {
	ID       string      `json:"id"`
	Name     string      `json:"name"`
	Type     AccountType `json:"type"`
	Status   string      `json:"status"`
	Currency string      `json:"currency"`
	Balance  Money       `json:"balance"`
}

// NetWorthCard is one card among the liabilities: what it is owed, in the
// card's Currency.
type NetWorthCard struct {
	ID                 string `json:"id"`
	Name               string `json:"name"`
	Currency           string `json:"currency"`
	OutstandingBalance Money  `json:"outstanding_balance"`
}

// NetWorthLoan is one loan among the liabilities, in the loan's Currency.
type NetWorthLoan struct {
	ID                 string `json:"id"`
	Name               string `json:"name"`
	Currency           string `json:"currency"`
	RemainingPrincipal Money  `json:"remaining_principal"`
}

// NetWorthReport is the net-worth report, as of today. Each account, card
// and loan is in its own currency; the totals are in the reporting
// currency, every balance converted at the rate of the day read for, and
// ByCurrency nets each currency's assets and liabilities.
type NetWorthReport struct {
	AsOfHeader
	ConversionNote
	ByCurrency []CurrencyLine `json:"by_currency"`
	Assets     struct {
		Total    Money             `json:"total"`
		Accounts []NetWorthAccount `json:"accounts"`
	} `json:"assets"`
	Liabilities struct {
		Total       Money          `json:"total"`
		CreditCards []NetWorthCard `json:"credit_cards"`
		Loans       []NetWorthLoan `json:"loans"`
		// The cards' and the loans' parts of Total, converted as it is,
		// for pages that show them apart (not in the report's JSON).
		CardsTotal Money `json:"-"`
		LoansTotal Money `json:"-"`
	} `json:"liabilities"`
	NetWorth Money `json:"net_worth"`
}

func (s *Service) netWorth(ctx context.Context, userID string, h AsOfHeader, today Date) (NetWorthReport, error) {
	out := NetWorthReport{AsOfHeader: h}
	repo := s.store.Read()
	accounts, _, err := repo.ListAccounts(ctx, userID, AccountFilter{Status: StatusAll},
		ListParams{Page: 1, Limit: allRows, SortBy: AccountList.Sorts[0]})
	if err != nil {
		return out, err
	}
	// Balances convert at the rate of the day they are read for.
	var assets, owedOnCards, owedOnLoans []DatedAmount
	out.Assets.Accounts = make([]NetWorthAccount, len(accounts))
	for i, a := range accounts {
		out.Assets.Accounts[i] = NetWorthAccount{ID: a.ID, Name: a.Name, Type: a.Type, Status: a.Status,
			Currency: a.Currency, Balance: a.CurrentBalance}
		assets = append(assets, DatedAmount{Currency: a.Currency, Date: today, Amount: a.CurrentBalance})
	}
	// An archived card takes no new charges, but what is owed on it is still owed.
	cards, err := s.cardsFor(ctx, userID, "", StatusAll, today)
	if err != nil {
		return out, err
	}
	out.Liabilities.CreditCards = make([]NetWorthCard, len(cards))
	for i, c := range cards {
		out.Liabilities.CreditCards[i] = NetWorthCard{ID: c.ID, Name: c.Name, Currency: c.Currency, OutstandingBalance: c.OutstandingBalance}
		owedOnCards = append(owedOnCards, DatedAmount{Currency: c.Currency, Date: today, Amount: c.OutstandingBalance})
	}
	loans, err := s.netWorthLoans(ctx, userID)
	if err != nil {
		return out, err
	}
	out.Liabilities.Loans = loans
	for _, l := range loans {
		owedOnLoans = append(owedOnLoans, DatedAmount{Currency: l.Currency, Date: today, Amount: l.RemainingPrincipal})
	}
	liabilities := slices.Concat(owedOnCards, owedOnLoans)
	net := slices.Concat(assets, negated(liabilities))
	conv, err := s.sumConverter(ctx, userID, h.Currency, net)
	if err != nil {
		return out, err
	}
	out.Assets.Total, _ = conv.Total(ctx, assets)
	out.Liabilities.Total, _ = conv.Total(ctx, liabilities)
	out.Liabilities.CardsTotal, _ = conv.Total(ctx, owedOnCards)
	out.Liabilities.LoansTotal, _ = conv.Total(ctx, owedOnLoans)
	// Net worth is rounded once from the exact sum, so it may differ by a
	// cent from assets minus liabilities when anything was converted.
	out.NetWorth, _ = conv.Total(ctx, net)
	out.ByCurrency = conv.Lines(ctx, net)
	// What was left out is named once, as net worth left it out: each
	// currency's net, not its assets and liabilities again.
	out.ConversionNote = conv.NoteOf(ctx, net)
	return out, conv.Err()
}

// UtilizationFigures are a card's, or the cards' summed, utilization.
type UtilizationFigures struct {
	CreditLimit        Money  `json:"credit_limit"`
	OutstandingBalance Money  `json:"outstanding_balance"`
	AvailableCredit    Money  `json:"available_credit"`
	UtilizationPercent Money  `json:"utilization_percent"`
	UtilizationLevel   string `json:"utilization_level"`
}

// CardUtilization is one card of the credit-card-utilization report, its
// figures in the card's Currency.
type CardUtilization struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Currency string `json:"currency"`
	UtilizationFigures
}

// CardUtilizationReport is the credit-card-utilization report: the active
// cards (or the one cardId names) as of today, by name. Each card is in its
// own currency; the totals are in the reporting currency, each card's
// figures converted at the rate of the day read for.
type CardUtilizationReport struct {
	AsOfHeader
	ConversionNote
	Cards  []CardUtilization  `json:"cards"`
	Totals UtilizationFigures `json:"totals"`
}

func (s *Service) cardUtilization(ctx context.Context, userID string, h AsOfHeader, cardID string, today Date) (CardUtilizationReport, error) {
	cards, err := s.cardsFor(ctx, userID, cardID, StatusActive, today)
	if err != nil {
		return CardUtilizationReport{}, err
	}
	out := CardUtilizationReport{AsOfHeader: h, Cards: make([]CardUtilization, len(cards))}
	var limits, owed []DatedAmount
	for i, c := range cards {
		out.Cards[i] = CardUtilization{ID: c.ID, Name: c.Name, Currency: c.Currency, UtilizationFigures: UtilizationFigures{
			CreditLimit: c.CreditLimit, OutstandingBalance: c.OutstandingBalance, AvailableCredit: c.AvailableCredit,
			UtilizationPercent: c.UtilizationPercent, UtilizationLevel: UtilizationLevel(c.UtilizationPercent)}}
		limits = append(limits, DatedAmount{Currency: c.Currency, Date: today, Amount: c.CreditLimit})
		owed = append(owed, DatedAmount{Currency: c.Currency, Date: today, Amount: c.OutstandingBalance})
	}
	conv, err := s.sumConverter(ctx, userID, h.Currency, limits, owed)
	if err != nil {
		return out, err
	}
	// A card whose currency has no rate is left out of the totals whole,
	// its limit and its balance alike, and named by its credit limit, which
	// every card has (docs/domain.md, "What a report names").
	t := &out.Totals
	t.CreditLimit, t.OutstandingBalance = conv.sum(ctx, limits), conv.sum(ctx, owed)
	// The totals' utilization is that of the summed limit and balance, not
	// an average of the cards', as the card metrics compute it.
	t.AvailableCredit = t.CreditLimit - t.OutstandingBalance
	t.UtilizationPercent = Percent(max(0, t.OutstandingBalance), t.CreditLimit)
	t.UtilizationLevel = UtilizationLevel(t.UtilizationPercent)
	out.ConversionNote = conv.NoteOf(ctx, limits)
	return out, conv.Err()
}
