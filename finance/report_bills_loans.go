package finance

import "context"

// The bills and loans figures of the dashboard and the reports.

// BillCategoryTotal is one category of the bills overview.
type BillCategoryTotal struct {
	Category   string `json:"category"`
	AmountDue  Money  `json:"amount_due"`
	PaidAmount Money  `json:"paid_amount"`
}

// BillsOverviewReport is the bills-overview report: the bills due in the
// range (skipped ones counted apart), and the overdue ones of any date.
type BillsOverviewReport struct {
	ReportHeader
	Count           int                 `json:"count"`
	AmountDue       Money               `json:"amount_due"`
	PaidAmount      Money               `json:"paid_amount"`
	RemainingAmount Money               `json:"remaining_amount"`
	ByStatus        BillStatusTotals    `json:"by_status"`
	Overdue         CountAmount         `json:"overdue"`
	ByCategory      []BillCategoryTotal `json:"by_category"`
}

// LoanOverview is one loan of the loans-overview report.
type LoanOverview struct {
	ID                 string `json:"id"`
	Name               string `json:"name"`
	Status             string `json:"status"`
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

// LoansOverviewReport is the loans-overview report.
type LoansOverviewReport struct {
	ReportHeader
	Loans  []LoanOverview     `json:"loans"`
	Totals LoanOverviewTotals `json:"totals"`
}

// ReportBillsLoansRepo is what the reports read of bills and loans beyond
// the bill summary and the loan list.
type ReportBillsLoansRepo interface {
	// BillsByCategory sums the bills due in [from, to] per category, by name.
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
	byCurrency, err := r.BillTotals(ctx, userID, h.DateFrom, h.DateTo, today, today.AddDays(window))
	if err != nil {
		return BillsOverviewReport{}, err
	}
	var t BillTotals
	for _, c := range byCurrency {
		t = t.plus(c)
	}
	cats, err := r.BillsByCategory(ctx, userID, h.DateFrom, h.DateTo)
	if err != nil {
		return BillsOverviewReport{}, err
	}
	out := BillsOverviewReport{ReportHeader: h, ByStatus: t.ByStatus, PaidAmount: t.Paid, RemainingAmount: t.Remaining,
		Overdue: t.Overdue, ByCategory: append(make([]BillCategoryTotal, 0, len(cats)), cats...)}
	for _, c := range []CountAmount{t.ByStatus.Unpaid, t.ByStatus.PartiallyPaid, t.ByStatus.Paid, t.ByStatus.Skipped} {
		out.Count += c.Count
	}
	out.AmountDue = t.ByStatus.Unpaid.Amount + t.ByStatus.PartiallyPaid.Amount + t.ByStatus.Paid.Amount
	return out, nil
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
// their figures as of today.
func (s *Service) loansOverview(ctx context.Context, userID string, h ReportHeader) (LoansOverviewReport, error) {
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
		o := LoanOverview{ID: l.ID, Name: l.Name, Status: l.Status, Principal: l.Principal, TotalInterest: l.TotalInterest,
			PaidPrincipal: l.PaidPrincipal, PaidInterest: l.PaidInterest, RemainingPrincipal: l.RemainingPrincipal,
			RemainingPayable: l.RemainingPayable, PaidCount: l.PaidCount, TermMonths: l.TermMonths, NextDueDate: l.NextDueDate}
		out.Loans = append(out.Loans, o)
		t := &out.Totals
		t.Principal += o.Principal
		t.TotalInterest += o.TotalInterest
		t.PaidPrincipal += o.PaidPrincipal
		t.PaidInterest += o.PaidInterest
		t.RemainingPrincipal += o.RemainingPrincipal
		t.RemainingPayable += o.RemainingPayable
		t.PaidCount += o.PaidCount
	}
	return out, nil
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

// dashboardBills are GET /bills/summary's figures for the month.
func (s *Service) dashboardBills(ctx context.Context, userID string, month Date) (DashboardBills, error) {
	b, err := s.SummarizeBills(ctx, userID, month)
	if err != nil {
		return DashboardBills{}, err
	}
	return DashboardBills{DueAmount: b.TotalAmount, PaidAmount: b.PaidAmount, RemainingAmount: b.RemainingAmount,
		Overdue: b.Overdue, Upcoming: b.Upcoming}, nil
}

// dashboardLoans are the summary of GET /loans/current-month-dues for the
// month, with the number of overdue instances.
func (s *Service) dashboardLoans(ctx context.Context, userID string, from, to, today Date) (DashboardLoans, error) {
	r := s.store.Read()
	_, _, byCurrency, err := r.LoanDues(ctx, userID, LoanDuesWindow{MonthStart: from, MonthEnd: to, Today: today},
		ListParams{Page: 1, Limit: 1, SortBy: LoanDuesList.Sorts[0]})
	if err != nil {
		return DashboardLoans{}, err
	}
	sum, _, err := s.convertLoanDues(ctx, userID, s.currency(ctx, userID), byCurrency, today)
	if err != nil {
		return DashboardLoans{}, err
	}
	overdue, err := r.OverdueLoanInstances(ctx, userID, today)
	if err != nil {
		return DashboardLoans{}, err
	}
	return DashboardLoans{DueAmount: sum.DueAmount, PaidAmount: sum.PaidAmount, RemainingAmount: sum.RemainingAmount,
		OverdueCount: overdue}, nil
}
