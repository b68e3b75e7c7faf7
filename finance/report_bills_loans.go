package finance

import "context"

// The bills and loans figures of the dashboard and the reports.

// CountAmount is a number of records and their amount.
type CountAmount struct {
	Count  int   `json:"count"`
	Amount Money `json:"amount"`
}

// BillStatusTotals are the bills of a range by status.
type BillStatusTotals struct {
	Unpaid        CountAmount `json:"unpaid"`
	PartiallyPaid CountAmount `json:"partially_paid"`
	Paid          CountAmount `json:"paid"`
	Skipped       CountAmount `json:"skipped"`
}

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

// BILLS NOT MERGED YET: bills live on another branch. Until they land, the
// bills overview reports no bills.
func (s *Service) billsOverview(ctx context.Context, userID string, h ReportHeader) (BillsOverviewReport, error) {
	return BillsOverviewReport{ReportHeader: h, ByCategory: []BillCategoryTotal{}}, nil
}

// LOANS NOT MERGED YET: loans live on another branch. Until they land, the
// loans overview and the net worth list no loans.
func (s *Service) loansOverview(ctx context.Context, userID string, h ReportHeader) (LoansOverviewReport, error) {
	return LoansOverviewReport{ReportHeader: h, Loans: []LoanOverview{}}, nil
}

func (s *Service) netWorthLoans(ctx context.Context, userID string) ([]NetWorthLoan, error) {
	return []NetWorthLoan{}, nil
}

// BILLS NOT MERGED YET: the dashboard shows no bills until they land.
func (s *Service) dashboardBills(ctx context.Context, userID string, month Date) (DashboardBills, error) {
	return DashboardBills{Upcoming: []any{}}, nil
}

// LOANS NOT MERGED YET: the dashboard shows no loan dues until they land.
func (s *Service) dashboardLoans(ctx context.Context, userID string, month Date) (DashboardLoans, error) {
	return DashboardLoans{}, nil
}
