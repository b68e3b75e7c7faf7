package finance

import (
	"context"
	"slices"
)

// The bills and loans figures of the dashboard and the reports.

// BillCategoryTotal is one category of the bills overview. The store sums
// it per CategoryID and Currency; the report answers it converted, one per
// category.
type BillCategoryTotal struct {
	CategoryID string `json:"-"`
	Currency   string `json:"-"`
	Category   string `json:"category"`
	AmountDue  Money  `json:"amount_due"`
	PaidAmount Money  `json:"paid_amount"`
}

// BillsOverviewReport is the bills-overview report: the bills due in the
// range (skipped ones counted apart), and the overdue ones of any date. A
// bill is in its template's currency; the report converts what is due and
// paid in the range at the rate of the range's last day, and what is
// overdue at today's, as balances convert.
type BillsOverviewReport struct {
	ReportHeader
	ConversionNote
	Count           int                 `json:"count"`
	AmountDue       Money               `json:"amount_due"`
	PaidAmount      Money               `json:"paid_amount"`
	RemainingAmount Money               `json:"remaining_amount"`
	ByStatus        BillStatusTotals    `json:"by_status"`
	Overdue         CountAmount         `json:"overdue"`
	ByCategory      []BillCategoryTotal `json:"by_category"`
}

// LoanOverview is one loan of the loans-overview report, its figures in
// the loan's Currency.
type LoanOverview struct {
	ID                 string `json:"id"`
	Name               string `json:"name"`
	Status             string `json:"status"`
	Currency           string `json:"currency"`
	Principal          Money  `json:"principal"`
	TotalInterest      Money  `json:"total_interest"`
	PaidPrincipal      Money  `json:"paid_principal"`
	PaidInterest       Money  `json:"paid_interest"`
	RemainingPrincipal Money  `json:"remaining_principal"`
	RemainingPayable   Money  `json:"remaining_payable"`
	PaidCount          int    `json:"paid_count"`
	TermMonths         int    `json:"term_months"`
	NextDueDate        *Date  `json:"next_due_date"`
}

// LoanOverviewTotals sum the loans of the overview.
type LoanOverviewTotals struct {
	Principal          Money `json:"principal"`
	TotalInterest      Money `json:"total_interest"`
	PaidPrincipal      Money `json:"paid_principal"`
	PaidInterest       Money `json:"paid_interest"`
	RemainingPrincipal Money `json:"remaining_principal"`
	RemainingPayable   Money `json:"remaining_payable"`
	PaidCount          int   `json:"paid_count"`
}

// LoansOverviewReport is the loans-overview report. Its totals are in the
// reporting currency, each loan's figures converted at today's rate, as
// of when they stand.
type LoansOverviewReport struct {
	ReportHeader
	ConversionNote
	Loans  []LoanOverview     `json:"loans"`
	Totals LoanOverviewTotals `json:"totals"`
}

// ReportBillsLoansRepo is what the reports read of bills and loans beyond
// the bill summary and the loan list.
type ReportBillsLoansRepo interface {
	// BillsByCategory sums the bills due in [from, to] per category and
	// currency, by name.
	BillsByCategory(ctx context.Context, userID string, from, to Date) ([]BillCategoryTotal, error)
	// LoanLastDueDates returns each of the user's loans' last due date.
	LoanLastDueDates(ctx context.Context, userID string) (map[string]Date, error)
	// OverdueLoanInstances counts the open instances of active loans due before today.
	OverdueLoanInstances(ctx context.Context, userID string, today Date) (int, error)
}

// billsOverview covers the bills due in the range, generated through its
// end first (within the horizon's cap), as GET /bills/summary covers a month.
func (s *Service) billsOverview(ctx context.Context, userID string, h ReportHeader, today Date) (BillsOverviewReport, error) {
	if err := s.GenerateBills(ctx, userID, h.DateTo); err != nil {
		return BillsOverviewReport{}, err
	}
	window := s.settingsOrDefault(ctx, userID).settings.DueSoonDays
	r := s.store.Read()
	totals, err := r.BillTotals(ctx, userID, h.DateFrom, h.DateTo, today, today.AddDays(window))
	if err != nil {
		return BillsOverviewReport{}, err
	}
	cats, err := r.BillsByCategory(ctx, userID, h.DateFrom, h.DateTo)
	if err != nil {
		return BillsOverviewReport{}, err
	}
	// One figure of every currency's totals, as groups to convert: the
	// range's at its last day, the overdue bills' at today.
	figure := func(date Date, of func(BillTotals) Money) []DatedAmount {
		out := make([]DatedAmount, len(totals))
		for i, t := range totals {
			out[i] = DatedAmount{Currency: t.Currency, Date: date, Amount: of(t)}
		}
		return out
	}
	due := figure(h.DateTo, func(t BillTotals) Money {
		return t.ByStatus.Unpaid.Amount + t.ByStatus.PartiallyPaid.Amount + t.ByStatus.Paid.Amount
	})
	overdue := figure(today, func(t BillTotals) Money { return t.Overdue.Amount })
	skipped := figure(h.DateTo, func(t BillTotals) Money { return t.ByStatus.Skipped.Amount })
	conv, err := s.sumConverter(ctx, userID, h.Currency, due, overdue, skipped)
	if err != nil {
		return BillsOverviewReport{}, err
	}
	status := func(of func(BillTotals) CountAmount) CountAmount {
		var c CountAmount
		for _, t := range totals {
			c.Count += of(t).Count
		}
		c.Amount = conv.sum(ctx, figure(h.DateTo, func(t BillTotals) Money { return of(t).Amount }))
		return c
	}
	out := BillsOverviewReport{ReportHeader: h,
		ByStatus: BillStatusTotals{
			Unpaid:        status(func(t BillTotals) CountAmount { return t.ByStatus.Unpaid }),
			PartiallyPaid: status(func(t BillTotals) CountAmount { return t.ByStatus.PartiallyPaid }),
			Paid:          status(func(t BillTotals) CountAmount { return t.ByStatus.Paid }),
			Skipped:       status(func(t BillTotals) CountAmount { return t.ByStatus.Skipped }),
		},
		AmountDue:       conv.sum(ctx, due),
		PaidAmount:      conv.sum(ctx, figure(h.DateTo, func(t BillTotals) Money { return t.Paid })),
		RemainingAmount: conv.sum(ctx, figure(h.DateTo, func(t BillTotals) Money { return t.Remaining })),
		Overdue:         CountAmount{Amount: conv.sum(ctx, overdue)},
		ByCategory:      billCategories(ctx, conv, cats, h.DateTo),
	}
	for _, t := range totals {
		out.Count += t.ByStatus.Unpaid.Count + t.ByStatus.PartiallyPaid.Count + t.ByStatus.Paid.Count + t.ByStatus.Skipped.Count
		out.Overdue.Count += t.Overdue.Count
	}
	// What is left out is named by what is due in the range; a currency
	// with only overdue bills from before the range by what is overdue.
	out.ConversionNote = conv.NoteOf(ctx, due, slices.DeleteFunc(overdue, func(o DatedAmount) bool {
		return slices.ContainsFunc(due, func(d DatedAmount) bool { return d.Currency == o.Currency && d.Amount != 0 })
	}))
	return out, conv.Err()
}

// billCategories merges the store's per-currency lines into one line per
// category, in the store's order (by name), each converted at date.
func billCategories(ctx context.Context, conv *SumConverter, lines []BillCategoryTotal, date Date) []BillCategoryTotal {
	out := make([]BillCategoryTotal, 0, len(lines))
	for i := 0; i < len(lines); {
		j := i
		var due, paid []DatedAmount
		for ; j < len(lines) && lines[j].CategoryID == lines[i].CategoryID; j++ {
			due = append(due, DatedAmount{Currency: lines[j].Currency, Date: date, Amount: lines[j].AmountDue})
			paid = append(paid, DatedAmount{Currency: lines[j].Currency, Date: date, Amount: lines[j].PaidAmount})
		}
		out = append(out, BillCategoryTotal{CategoryID: lines[i].CategoryID, Category: lines[i].Category,
			AmountDue: conv.sum(ctx, due), PaidAmount: conv.sum(ctx, paid)})
		i = j
	}
	return out
}

// allLoans returns the user's loans, with their figures, oldest first (by
// start date, then by creation).
func (s *Service) allLoans(ctx context.Context, userID string) ([]Loan, error) {
	loans, _, err := s.store.Read().ListLoans(ctx, userID, LoanFilter{},
		ListParams{Page: 1, Limit: allRows, SortBy: LoanList.Sorts[0]})
	return loans, err
}

// inLoansOverview reports whether a loan belongs in the loans overview of
// from..to. A loan is there while its term overlaps the range (released on
// or before its end, last due on or after its start), whatever its status,
// and while it is still active, released by the range's end: an overdue
// loan is still owed after its schedule ends, so it stays in every later
// range until it is settled. A loan released after the range is not there.
func inLoansOverview(l Loan, lastDue, from, to Date) bool {
	if l.StartDate.After(to) {
		return false
	}
	return !lastDue.Before(from) || l.Status == LoanActive
}

// loansOverview lists the loans of inLoansOverview, oldest first, with
// their figures as of today, each in its loan's currency; the totals
// convert each loan's figures at today's rate.
func (s *Service) loansOverview(ctx context.Context, userID string, h ReportHeader, today Date) (LoansOverviewReport, error) {
	loans, err := s.allLoans(ctx, userID)
	if err != nil {
		return LoansOverviewReport{}, err
	}
	last, err := s.store.Read().LoanLastDueDates(ctx, userID)
	if err != nil {
		return LoansOverviewReport{}, err
	}
	out := LoansOverviewReport{ReportHeader: h, Loans: []LoanOverview{}}
	for _, l := range loans {
		if !inLoansOverview(l, last[l.ID], h.DateFrom, h.DateTo) {
			continue
		}
		out.Loans = append(out.Loans, LoanOverview{ID: l.ID, Name: l.Name, Status: l.Status, Currency: l.Currency,
			Principal: l.Principal, TotalInterest: l.TotalInterest, PaidPrincipal: l.PaidPrincipal, PaidInterest: l.PaidInterest,
			RemainingPrincipal: l.RemainingPrincipal, RemainingPayable: l.RemainingPayable, PaidCount: l.PaidCount,
			TermMonths: l.TermMonths, NextDueDate: l.NextDueDate})
		out.Totals.PaidCount += l.PaidCount
	}
	figure := func(of func(LoanOverview) Money) []DatedAmount {
		groups := make([]DatedAmount, len(out.Loans))
		for i, l := range out.Loans {
			groups[i] = DatedAmount{Currency: l.Currency, Date: today, Amount: of(l)}
		}
		return groups
	}
	principal := figure(func(l LoanOverview) Money { return l.Principal })
	conv, err := s.sumConverter(ctx, userID, h.Currency, principal)
	if err != nil {
		return out, err
	}
	t := &out.Totals
	t.Principal = conv.sum(ctx, principal)
	t.TotalInterest = conv.sum(ctx, figure(func(l LoanOverview) Money { return l.TotalInterest }))
	t.PaidPrincipal = conv.sum(ctx, figure(func(l LoanOverview) Money { return l.PaidPrincipal }))
	t.PaidInterest = conv.sum(ctx, figure(func(l LoanOverview) Money { return l.PaidInterest }))
	t.RemainingPrincipal = conv.sum(ctx, figure(func(l LoanOverview) Money { return l.RemainingPrincipal }))
	t.RemainingPayable = conv.sum(ctx, figure(func(l LoanOverview) Money { return l.RemainingPayable }))
	// A loan whose currency has no rate is left out of every total and
	// named by its principal, which every loan has.
	out.ConversionNote = conv.NoteOf(ctx, principal)
	return out, conv.Err()
}

// netWorthLoans are the loans still owed as liabilities: cancelled ones are
// left out, completed ones owe 0.
func (s *Service) netWorthLoans(ctx context.Context, userID string) ([]NetWorthLoan, error) {
	loans, err := s.allLoans(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := []NetWorthLoan{}
	for _, l := range loans {
		if l.Status == LoanCancelled {
			continue
		}
		out = append(out, NetWorthLoan{ID: l.ID, Name: l.Name, Currency: l.Currency, RemainingPrincipal: l.RemainingPrincipal})
	}
	return out, nil
}

// dashboardBills are GET /bills/summary's figures for the month, with what
// its conversion left out.
func (s *Service) dashboardBills(ctx context.Context, userID string, month Date) (DashboardBills, ConversionNote, error) {
	b, err := s.SummarizeBills(ctx, userID, month)
	if err != nil {
		return DashboardBills{}, ConversionNote{}, err
	}
	return DashboardBills{DueAmount: b.TotalAmount, PaidAmount: b.PaidAmount, RemainingAmount: b.RemainingAmount,
		Overdue: b.Overdue, Upcoming: b.Upcoming}, b.ConversionNote, nil
}

// dashboardLoans are the summary of GET /loans/current-month-dues for the
// month, converted to reporting, with the number of overdue instances and
// what the conversion left out.
func (s *Service) dashboardLoans(ctx context.Context, userID, reporting string, from, to, today Date) (DashboardLoans, ConversionNote, error) {
	r := s.store.Read()
	_, _, byCurrency, err := r.LoanDues(ctx, userID, LoanDuesWindow{MonthStart: from, MonthEnd: to, Today: today},
		ListParams{Page: 1, Limit: 1, SortBy: LoanDuesList.Sorts[0]})
	if err != nil {
		return DashboardLoans{}, ConversionNote{}, err
	}
	sum, note, err := s.convertLoanDues(ctx, userID, reporting, byCurrency, today)
	if err != nil {
		return DashboardLoans{}, ConversionNote{}, err
	}
	overdue, err := r.OverdueLoanInstances(ctx, userID, today)
	if err != nil {
		return DashboardLoans{}, ConversionNote{}, err
	}
	return DashboardLoans{DueAmount: sum.DueAmount, PaidAmount: sum.PaidAmount, RemainingAmount: sum.RemainingAmount,
		OverdueCount: overdue}, note, nil
}
