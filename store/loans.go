package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type loanRow struct {
	bun.BaseModel `bun:"table:loans,alias:ln"`
	finance.Loan
	UserID  string
	NameKey string
}

// loanComputed are the loan fields computed from its instances on read.
var loanComputed = []string{"total_payable", "paid_principal", "paid_interest", "paid_total", "remaining_principal",
	"remaining_payable", "paid_count", "next_due_date", "next_due_amount"}

// openInstance is the SQL of an instance that still expects money.
const openInstance = "status IN ('unpaid', 'partially_paid')"

func (l ledger) Loan(ctx context.Context, userID, id string) (finance.Loan, error) {
	var row loanRow
	if err := l.db.NewSelect().Model(&row).ExcludeColumn(loanComputed...).
		Where("ln.id = ? AND ln.user_id = ?", id, userID).Scan(ctx); err != nil {
		return finance.Loan{}, notFound(err, "loan")
	}
	loans := []finance.Loan{row.Loan}
	err := l.withLoanFigures(ctx, loans)
	return loans[0], err
}

var loanSorts = map[string]string{"start_date": "ln.start_date", "name": "ln.name_key", "principal": "ln.principal",
	"created_at": "ln.created_at"}

func (l ledger) ListLoans(ctx context.Context, userID string, f finance.LoanFilter, p finance.ListParams) ([]finance.Loan, int, error) {
	var rows []loanRow
	q := l.db.NewSelect().Model(&rows).ExcludeColumn(loanComputed...).Where("ln.user_id = ?", userID)
	if f.Status != "" {
		q = q.Where("ln.status = ?", f.Status)
	}
	if !f.DateFrom.IsZero() {
		q = q.Where("ln.start_date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("ln.start_date <= ?", f.DateTo)
	}
	q = searchAny(q, f.Search, "ln.name", "ln.lender", "ln.notes")
	total, err := orderPage(q, loanSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.Loan, len(rows))
	for i, r := range rows {
		out[i] = r.Loan
	}
	return out, int(total), l.withLoanFigures(ctx, out)
}

// withLoanFigures fills the figures of loans (§4.5) with one aggregate over
// their instances (loan_instances_loan), whose paid amounts the payments keep.
func (l ledger) withLoanFigures(ctx context.Context, loans []finance.Loan) error {
	if len(loans) == 0 {
		return nil
	}
	ids := make([]string, len(loans))
	byID := make(map[string]int, len(loans))
	for i, x := range loans {
		ids[i], byID[x.ID] = x.ID, i
		loans[i].TotalPayable = x.Principal + x.TotalInterest
	}
	var sums []struct {
		LoanID             string
		PaidPrincipal      finance.Money
		PaidInterest       finance.Money
		PaidTotal          finance.Money
		RemainingPrincipal finance.Money
		RemainingPayable   finance.Money
		PaidCount          int
		NextDueDate        *finance.Date
		NextDueAmount      *finance.Money
	}
	err := l.db.NewSelect().TableExpr("loan_instances AS i").
		Column("i.loan_id").
		ColumnExpr("SUM(i.paid_principal) AS paid_principal").
		ColumnExpr("SUM(i.paid_interest) AS paid_interest").
		ColumnExpr("SUM(i.paid_total) AS paid_total").
		ColumnExpr("SUM(CASE WHEN i."+openInstance+" THEN i.principal_due - i.paid_principal ELSE 0 END) AS remaining_principal").
		ColumnExpr("SUM(CASE WHEN i."+openInstance+" THEN i.amount_due - i.paid_total ELSE 0 END) AS remaining_payable").
		ColumnExpr("SUM(CASE WHEN i.status = 'paid' THEN 1 ELSE 0 END) AS paid_count").
		ColumnExpr("MIN(CASE WHEN i."+openInstance+" THEN i.due_date END) AS next_due_date").
		ColumnExpr(`(SELECT n.amount_due - n.paid_total FROM loan_instances AS n
			WHERE n.loan_id = i.loan_id AND n.`+openInstance+` ORDER BY n.installment_number LIMIT 1) AS next_due_amount`).
		Where("i.loan_id IN (?)", bun.In(ids)).
		Group("i.loan_id").
		Scan(ctx, &sums)
	if err != nil {
		return err
	}
	for _, s := range sums {
		x := &loans[byID[s.LoanID]]
		x.PaidPrincipal, x.PaidInterest, x.PaidTotal = s.PaidPrincipal, s.PaidInterest, s.PaidTotal
		x.RemainingPrincipal, x.RemainingPayable, x.PaidCount = s.RemainingPrincipal, s.RemainingPayable, s.PaidCount
		x.NextDueDate, x.NextDueAmount = s.NextDueDate, s.NextDueAmount
	}
	return nil
}

func (l ledger) InsertLoan(ctx context.Context, userID string, x finance.Loan) error {
	_, err := l.db.NewInsert().Model(&loanRow{Loan: x, UserID: userID, NameKey: nameKey(x.Name)}).
		ExcludeColumn(loanComputed...).Exec(ctx)
	return err
}

func (l ledger) UpdateLoan(ctx context.Context, userID string, x finance.Loan) error {
	_, err := l.db.NewUpdate().Model(&loanRow{Loan: x, UserID: userID, NameKey: nameKey(x.Name)}).
		ExcludeColumn(append([]string{"created_at"}, loanComputed...)...).
		Where("id = ? AND user_id = ?", x.ID, userID).Exec(ctx)
	return err
}

func (l ledger) DeleteLoan(ctx context.Context, userID, id string) error {
	if err := l.DeleteLoanInstances(ctx, userID, id); err != nil {
		return err
	}
	_, err := l.db.NewDelete().TableExpr("loans").Where("id = ? AND user_id = ?", id, userID).Exec(ctx)
	return err
}

func (l ledger) DeleteLoanInstances(ctx context.Context, userID, loanID string) error {
	_, err := l.db.NewDelete().TableExpr("loan_instances").Where("loan_id = ? AND user_id = ?", loanID, userID).Exec(ctx)
	return err
}

func (l ledger) LoanHasPayments(ctx context.Context, loanID string) (bool, error) {
	return l.db.NewSelect().TableExpr("loan_payments").Where("loan_id = ?", loanID).Exists(ctx)
}

type loanInstanceRow struct {
	bun.BaseModel `bun:"table:loan_instances,alias:li"`
	finance.LoanInstance
	UserID string
}

// instanceComputed are the instance fields computed on read, not stored.
var instanceComputed = []string{"loan_name", "currency", "remaining", "is_overdue", "payments"}

func (l ledger) selectInstances(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(instanceComputed...).
		ColumnExpr("ln.name AS loan_name, ln.currency AS currency").
		Join("JOIN loans AS ln ON ln.id = li.loan_id")
}

func instances(rows []loanInstanceRow) []finance.LoanInstance {
	out := make([]finance.LoanInstance, len(rows))
	for i, r := range rows {
		out[i] = r.LoanInstance
	}
	return out
}

func (l ledger) InsertLoanInstances(ctx context.Context, userID string, in []finance.LoanInstance) error {
	rows := make([]loanInstanceRow, len(in))
	for i, x := range in {
		rows[i] = loanInstanceRow{LoanInstance: x, UserID: userID}
	}
	// 360 rows of 15 columns stay well under SQLite's 32,766 bound parameters;
	// bun writes the values into the SQL text anyway.
	_, err := l.db.NewInsert().Model(&rows).ExcludeColumn(instanceComputed...).Exec(ctx)
	return err
}

func (l ledger) UpdateLoanInstance(ctx context.Context, userID string, x finance.LoanInstance) error {
	_, err := l.db.NewUpdate().Model(&loanInstanceRow{LoanInstance: x, UserID: userID}).
		ExcludeColumn(append([]string{"created_at"}, instanceComputed...)...).
		Where("id = ? AND user_id = ?", x.ID, userID).Exec(ctx)
	return err
}

func (l ledger) LoanInstance(ctx context.Context, userID, id string) (finance.LoanInstance, error) {
	var row loanInstanceRow
	err := l.selectInstances(&row).Where("li.id = ? AND li.user_id = ?", id, userID).Scan(ctx)
	return row.LoanInstance, notFound(err, "loan instance")
}

func (l ledger) LoanInstances(ctx context.Context, userID, loanID string) ([]finance.LoanInstance, error) {
	var rows []loanInstanceRow
	err := l.selectInstances(&rows).Where("li.loan_id = ? AND li.user_id = ?", loanID, userID).
		OrderExpr("li.installment_number").Scan(ctx)
	return instances(rows), err
}

var instanceSorts = map[string]string{"installment_number": "li.installment_number", "due_date": "li.due_date"}

func (l ledger) ListLoanInstances(ctx context.Context, userID, loanID string, f finance.LoanInstanceFilter, p finance.ListParams) ([]finance.LoanInstance, int, error) {
	var rows []loanInstanceRow
	q := l.selectInstances(&rows).Where("li.loan_id = ? AND li.user_id = ?", loanID, userID)
	switch f.Status {
	case "":
	case finance.InstanceOverdue:
		q = q.Where("li."+openInstance+" AND li.due_date < ?", f.Today)
	default:
		q = q.Where("li.status = ?", f.Status)
	}
	if !f.DateFrom.IsZero() {
		q = q.Where("li.due_date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("li.due_date <= ?", f.DateTo)
	}
	total, err := orderPage(q, instanceSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	return instances(rows), int(total), nil
}

// duesFrom is the FROM of GET /loans/current-month-dues: the instances of
// the window, each joined to its active loan. CROSS JOIN keeps
// loan_instances the outer table in SQLite's plan (elsewhere it is a plain
// join), so each branch of the OR is a range seek on
// loan_instances_user_due: the open instances due up to the month's end
// (the month's own and the overdue ones), and the month's paid ones. Led by
// loans instead, the plan visits every instance of every active loan.
func duesFrom(q *bun.SelectQuery, userID string, w finance.LoanDuesWindow) *bun.SelectQuery {
	return q.Join("CROSS JOIN loans AS ln").Where("ln.id = li.loan_id AND ln.status = 'active'").
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.WhereOr("li.user_id = ? AND li.status IN ('unpaid', 'partially_paid') AND li.due_date <= ?", userID, w.MonthEnd).
				WhereOr("li.user_id = ? AND li.status = 'paid' AND li.due_date >= ? AND li.due_date <= ?", userID, w.MonthStart, w.MonthEnd)
		})
}

// LoanDues sums the window per currency (its loans'), by code.
func (l ledger) LoanDues(ctx context.Context, userID string, w finance.LoanDuesWindow, p finance.ListParams) ([]finance.LoanInstance, int, []finance.LoanDuesTotals, error) {
	var sums []struct {
		Currency string
		Due      finance.Money
		Paid     finance.Money
		Left     finance.Money
		Overdue  finance.Money
		Count    int
	}
	err := duesFrom(l.db.NewSelect().TableExpr("loan_instances AS li"), userID, w).
		ColumnExpr("ln.currency").
		ColumnExpr("COALESCE(SUM(li.amount_due), 0) AS due").
		ColumnExpr("COALESCE(SUM(li.paid_total), 0) AS paid").
		ColumnExpr("COALESCE(SUM(CASE WHEN li."+openInstance+" THEN li.amount_due - li.paid_total ELSE 0 END), 0) AS left").
		ColumnExpr("COALESCE(SUM(CASE WHEN li."+openInstance+" AND li.due_date < ? THEN li.amount_due - li.paid_total ELSE 0 END), 0) AS overdue", w.Today).
		ColumnExpr("COUNT(*) AS count").
		GroupExpr("ln.currency").OrderExpr("ln.currency").
		Scan(ctx, &sums)
	if err != nil {
		return nil, 0, nil, err
	}
	totals := make([]finance.LoanDuesTotals, len(sums))
	count := 0
	for i, x := range sums {
		totals[i] = finance.LoanDuesTotals{Currency: x.Currency, LoanDuesSummary: finance.LoanDuesSummary{
			DueAmount: x.Due, PaidAmount: x.Paid, RemainingAmount: x.Left, OverdueAmount: x.Overdue, Count: x.Count}}
		count += x.Count
	}
	var rows []loanInstanceRow
	if count > p.Offset() {
		q := l.db.NewSelect().Model(&rows).ExcludeColumn(instanceComputed...).
			ColumnExpr("ln.name AS loan_name, ln.currency AS currency")
		err = orderPage(duesFrom(q, userID, w), "li.due_date", p).Scan(ctx)
	}
	return instances(rows), count, totals, err
}

func (l ledger) UnsettledInstances(ctx context.Context, loanID string) (int, error) {
	n, err := l.db.NewSelect().TableExpr("loan_instances").
		Where("loan_id = ? AND status NOT IN ('paid', 'waived')", loanID).Count(ctx)
	return int(n), err
}

type loanPaymentRow struct {
	bun.BaseModel `bun:"table:loan_payments,alias:lp"`
	finance.LoanPayment
	UserID string
}

var loanPaymentComputed = []string{"account_name"}

func (l ledger) InsertLoanPayment(ctx context.Context, userID string, p finance.LoanPayment) error {
	_, err := l.db.NewInsert().Model(&loanPaymentRow{LoanPayment: p, UserID: userID}).
		ExcludeColumn(loanPaymentComputed...).Exec(ctx)
	return err
}

func (l ledger) LoanPayments(ctx context.Context, userID string, instanceIDs []string) ([]finance.LoanPayment, error) {
	if len(instanceIDs) == 0 {
		return nil, nil
	}
	var rows []loanPaymentRow
	err := l.db.NewSelect().Model(&rows).ExcludeColumn(loanPaymentComputed...).
		ColumnExpr("a.name AS account_name").
		Join("LEFT JOIN accounts AS a ON a.id = lp.account_id").
		Where("lp.instance_id IN (?) AND lp.user_id = ?", bun.In(instanceIDs), userID).
		OrderExpr("lp.date, lp.id").Scan(ctx)
	out := make([]finance.LoanPayment, len(rows))
	for i, r := range rows {
		out[i] = r.LoanPayment
	}
	return out, err
}

func (l ledger) LoanInterestPaid(ctx context.Context, userID string, from, to finance.Date) (finance.Money, error) {
	var sum finance.Money
	err := l.db.NewSelect().TableExpr("loan_payments AS lp").
		ColumnExpr("COALESCE(SUM(lp.interest_part), 0)").
		Where("lp.user_id = ? AND lp.date >= ? AND lp.date <= ?", userID, from, to).
		Scan(ctx, &sum)
	return sum, err
}
