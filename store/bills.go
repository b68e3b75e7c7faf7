package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type billTemplateRow struct {
	bun.BaseModel `bun:"table:bill_templates,alias:bt"`
	finance.BillTemplate
	UserID string
}

// billTemplateComputed are the template fields computed on read.
var billTemplateComputed = []string{"category"}

// selectTemplates reads templates with their category's name; removed ones never.
func (l ledger) selectTemplates(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(billTemplateComputed...).
		ColumnExpr("c.name AS category").
		Join("JOIN categories AS c ON c.id = bt.category_id").
		Where("bt.status <> 'removed'")
}

func (l ledger) BillTemplate(ctx context.Context, userID, id string) (finance.BillTemplate, error) {
	var row billTemplateRow
	err := l.selectTemplates(&row).Where("bt.id = ? AND bt.user_id = ?", id, userID).Scan(ctx)
	return row.BillTemplate, notFound(err, "bill template")
}

var billTemplateSorts = map[string]string{"name": "bt.name", "amount": "bt.amount", "start_date": "bt.start_date",
	"created_at": "bt.created_at"}

func (l ledger) ListBillTemplates(ctx context.Context, userID string, f finance.BillTemplateFilter, p finance.ListParams) ([]finance.BillTemplate, int, error) {
	var rows []billTemplateRow
	q := l.selectTemplates(&rows).Where("bt.user_id = ?", userID)
	if f.Status != "" {
		q = q.Where("bt.status = ?", f.Status)
	}
	if f.Category != "" {
		q = q.Where("c.name_key = ?", nameKey(f.Category))
	}
	q = searchAny(q, f.Search, "bt.name", "bt.notes")
	total, err := orderPage(q, billTemplateSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.BillTemplate, len(rows))
	for i, r := range rows {
		out[i] = r.BillTemplate
	}
	return out, int(total), nil
}

func (l ledger) InsertBillTemplate(ctx context.Context, userID string, t finance.BillTemplate) error {
	_, err := l.db.NewInsert().Model(&billTemplateRow{BillTemplate: t, UserID: userID}).
		ExcludeColumn(billTemplateComputed...).Exec(ctx)
	return err
}

func (l ledger) UpdateBillTemplate(ctx context.Context, userID string, t finance.BillTemplate) error {
	_, err := l.db.NewUpdate().Model(&billTemplateRow{BillTemplate: t, UserID: userID}).
		ExcludeColumn(append([]string{"created_at"}, billTemplateComputed...)...).
		Where("id = ? AND user_id = ?", t.ID, userID).Exec(ctx)
	return err
}

// whereBehind narrows q (on bill_templates AS bt) to the user's active
// templates whose occurrences through horizon, or through their end date
// when earlier, are not all materialized. It is a seek on bill_templates_user.
func whereBehind(q *bun.SelectQuery, userID string, horizon finance.Date) *bun.SelectQuery {
	return q.Where(behindSQL, userID, horizon)
}

// behindSQL is the condition of an active template of the user (the first
// argument) whose instances are not generated through the horizon (the
// second) or its end.
const behindSQL = `bt.user_id = ? AND bt.status = 'active' AND
	(bt.generated_through IS NULL OR (bt.generated_through < ? AND (bt.end_date IS NULL OR bt.generated_through < bt.end_date)))`

// billsBehindSQL is BillsBehind, a prepared statement (hotStatements): it
// runs before every bills read and in every expense write's warnings.
const billsBehindSQL = `SELECT EXISTS (SELECT 1 FROM bill_templates AS bt WHERE ` + behindSQL + `)`

func (l ledger) BillsBehind(ctx context.Context, userID string, horizon finance.Date) (bool, error) {
	rows, err := l.query(ctx, billsBehindSQL, func(h *hotStatements) *sql.Stmt { return h.billsBehind }, userID, horizon)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var behind bool
	if rows.Next() {
		err = rows.Scan(&behind)
	}
	return behind, errors.Join(err, rows.Err())
}

func (l ledger) TemplatesBehind(ctx context.Context, userID string, horizon finance.Date) ([]finance.BillTemplate, error) {
	var rows []billTemplateRow
	err := whereBehind(l.selectTemplates(&rows), userID, horizon).OrderExpr("bt.id").Scan(ctx)
	out := make([]finance.BillTemplate, len(rows))
	for i, r := range rows {
		out[i] = r.BillTemplate
	}
	return out, err
}

func (l ledger) MarkGenerated(ctx context.Context, userID, templateID string, through finance.Date) error {
	_, err := l.db.NewUpdate().TableExpr("bill_templates").Set("generated_through = ?", through).
		Where("id = ? AND user_id = ?", templateID, userID).Exec(ctx)
	return err
}

type billRow struct {
	bun.BaseModel `bun:"table:bill_instances,alias:b"`
	finance.Bill
	UserID string
}

// billComputed are the instance fields computed on read.
var billComputed = []string{"category", "currency", "remaining", "is_overdue", "days_until_due",
	"default_payment_method", "default_account_id", "default_credit_card_id"}

// selectBills reads instances with their category's name and, while their
// template is not removed, its default payment fields. Both joins are
// primary-key lookups per row.
func (l ledger) selectBills(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(billComputed...).
		ColumnExpr("c.name AS category, bt.currency AS currency").
		ColumnExpr("CASE WHEN bt.status <> 'removed' THEN bt.default_payment_method END AS default_payment_method").
		ColumnExpr("CASE WHEN bt.status <> 'removed' THEN bt.default_account_id END AS default_account_id").
		ColumnExpr("CASE WHEN bt.status <> 'removed' THEN bt.default_credit_card_id END AS default_credit_card_id").
		Join("JOIN categories AS c ON c.id = b.category_id").
		Join("JOIN bill_templates AS bt ON bt.id = b.template_id")
}

func (l ledger) Bill(ctx context.Context, userID, id string) (finance.Bill, error) {
	var row billRow
	err := l.selectBills(&row).Where("b.id = ? AND b.user_id = ?", id, userID).Scan(ctx)
	return row.Bill, notFound(err, "bill")
}

var billSorts = map[string]string{"due_date": "b.due_date", "amount": "b.amount", "name": "b.name", "created_at": "b.created_at"}

// whereBillStatus narrows q to a status filter of GET /bills.
func whereBillStatus(q *bun.SelectQuery, status string, today finance.Date) *bun.SelectQuery {
	switch status {
	case "":
		return q
	case finance.BillOpen:
		return q.Where("b.status IN ('unpaid', 'partially_paid')")
	case finance.BillOverdue:
		return q.Where("b.status IN ('unpaid', 'partially_paid') AND b.due_date < ?", today)
	}
	return q.Where("b.status = ?", status)
}

func (l ledger) ListBills(ctx context.Context, userID string, f finance.BillFilter, p finance.ListParams) ([]finance.Bill, int, error) {
	var rows []billRow
	q := whereBillStatus(l.selectBills(&rows).Where("b.user_id = ?", userID), f.Status, f.Today)
	if !f.DateFrom.IsZero() {
		q = q.Where("b.due_date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("b.due_date <= ?", f.DateTo)
	}
	if f.Category != "" {
		q = q.Where("c.name_key = ?", nameKey(f.Category))
	}
	if f.TemplateID != "" {
		q = q.Where("b.template_id = ?", f.TemplateID)
	}
	q = searchAny(q, f.Search, "b.name", "b.notes")
	total, err := orderPage(q, billSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.Bill, len(rows))
	for i, r := range rows {
		out[i] = r.Bill
	}
	return out, int(total), nil
}

func (l ledger) InsertBills(ctx context.Context, userID string, bills []finance.Bill) error {
	rows := make([]billRow, len(bills))
	for i, b := range bills {
		rows[i] = billRow{Bill: b, UserID: userID}
	}
	_, err := l.db.NewInsert().Model(&rows).ExcludeColumn(billComputed...).
		On("CONFLICT (template_id, scheduled_date) DO NOTHING").Exec(ctx)
	return err
}

func (l ledger) UpdateBill(ctx context.Context, userID string, b finance.Bill) error {
	_, err := l.db.NewUpdate().Model(&billRow{Bill: b, UserID: userID}).
		ExcludeColumn(append([]string{"created_at"}, billComputed...)...).
		Where("id = ? AND user_id = ?", b.ID, userID).Exec(ctx)
	return err
}

func (l ledger) DeleteUntouchedBills(ctx context.Context, userID, templateID string, today finance.Date) (int, error) {
	res, err := l.db.NewDelete().TableExpr("bill_instances AS b").
		Where("b.template_id = ? AND b.user_id = ? AND b.due_date >= ?", templateID, userID, today).
		Where("b.status = 'unpaid' AND NOT b.edited").
		Where("NOT EXISTS (SELECT 1 FROM bill_payments AS p WHERE p.bill_id = b.id)").
		Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

func (l ledger) BillPaidTotal(ctx context.Context, billID string) (finance.Money, error) {
	var paid finance.Money
	err := l.db.NewSelect().TableExpr("bill_payments AS p").ColumnExpr("COALESCE(SUM(p.amount), 0)").
		Where("p.bill_id = ? AND p.status = 'posted'", billID).Scan(ctx, &paid)
	return paid, err
}

// BillTotals sums per currency: a bill is in its template's currency.
func (l ledger) BillTotals(ctx context.Context, userID string, from, to, today, dueSoonEnd finance.Date) ([]finance.BillTotals, error) {
	byCurrency := map[string]*finance.BillTotals{}
	var currencies []string
	of := func(code string) *finance.BillTotals {
		if t, ok := byCurrency[code]; ok {
			return t
		}
		t := &finance.BillTotals{Currency: code}
		byCurrency[code] = t
		currencies = append(currencies, code)
		return t
	}
	// One pass over the range's instances on bill_instances_user_due.
	rows, err := l.db.NewSelect().TableExpr("bill_instances AS b").
		Join("JOIN bill_templates AS t ON t.id = b.template_id").
		ColumnExpr("t.currency").
		ColumnExpr("COALESCE(SUM(CASE WHEN b.status = 'unpaid' THEN 1 ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN b.status = 'unpaid' THEN b.amount ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN b.status = 'partially_paid' THEN 1 ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN b.status = 'partially_paid' THEN b.amount ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN b.status = 'paid' THEN 1 ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN b.status = 'paid' THEN b.amount ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN b.status = 'skipped' THEN 1 ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN b.status = 'skipped' THEN b.amount ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(b.paid_total), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN b.status IN ('unpaid', 'partially_paid') THEN b.amount - b.paid_total ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN b.status IN ('unpaid', 'partially_paid') AND b.due_date >= ? AND b.due_date <= ? THEN 1 ELSE 0 END), 0)", today, dueSoonEnd).
		ColumnExpr(`COALESCE(SUM(CASE WHEN b.status IN ('unpaid', 'partially_paid') AND b.due_date >= ? AND b.due_date <= ?
			THEN b.amount - b.paid_total ELSE 0 END), 0)`, today, dueSoonEnd).
		Where("b.user_id = ? AND b.due_date >= ? AND b.due_date <= ?", userID, from, to).
		GroupExpr("t.currency").OrderExpr("t.currency").
		Rows(ctx)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var code string
		var x finance.BillTotals
		s := &x.ByStatus
		if err := rows.Scan(&code, &s.Unpaid.Count, &s.Unpaid.Amount, &s.PartiallyPaid.Count, &s.PartiallyPaid.Amount,
			&s.Paid.Count, &s.Paid.Amount, &s.Skipped.Count, &s.Skipped.Amount, &x.Paid, &x.Remaining,
			&x.DueSoon.Count, &x.DueSoon.Amount); err != nil {
			return nil, err
		}
		x.Currency = code
		*of(code) = x
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// The overdue bills of every month: a seek on bill_instances_user_status per open status.
	var overdue []struct {
		Currency string
		Count    int
		Amount   finance.Money
	}
	err = l.db.NewSelect().TableExpr("bill_instances AS b").
		Join("JOIN bill_templates AS t ON t.id = b.template_id").
		ColumnExpr("t.currency, COUNT(*) AS count, COALESCE(SUM(b.amount - b.paid_total), 0) AS amount").
		Where("b.user_id = ? AND b.status IN ('unpaid', 'partially_paid') AND b.due_date < ?", userID, today).
		GroupExpr("t.currency").OrderExpr("t.currency").
		Scan(ctx, &overdue)
	if err != nil {
		return nil, err
	}
	for _, o := range overdue {
		of(o.Currency).Overdue = finance.CountAmount{Count: o.Count, Amount: o.Amount}
	}
	out := make([]finance.BillTotals, len(currencies))
	for i, code := range currencies {
		out[i] = *byCurrency[code]
	}
	return out, nil
}

type billPaymentRow struct {
	bun.BaseModel `bun:"table:bill_payments,alias:p"`
	finance.BillPayment
	UserID string
}

// selectBillPayments reads payments with the currency of their expense:
// the money left the paying account or card in its currency.
func (l ledger) selectBillPayments(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn("currency").ColumnExpr("e.currency AS currency").
		Join("JOIN expenses AS e ON e.id = p.expense_id")
}

func (l ledger) InsertBillPayment(ctx context.Context, userID string, p finance.BillPayment) error {
	_, err := l.db.NewInsert().Model(&billPaymentRow{BillPayment: p, UserID: userID}).ExcludeColumn("currency").Exec(ctx)
	return err
}

func (l ledger) UpdateBillPayment(ctx context.Context, userID string, p finance.BillPayment) error {
	_, err := l.db.NewUpdate().Model(&billPaymentRow{BillPayment: p, UserID: userID}).ExcludeColumn("created_at", "currency").
		Where("id = ? AND user_id = ?", p.ID, userID).Exec(ctx)
	return err
}

func (l ledger) BillPayment(ctx context.Context, userID, id string) (finance.BillPayment, error) {
	var row billPaymentRow
	err := l.selectBillPayments(&row).Where("p.id = ? AND p.user_id = ?", id, userID).Scan(ctx)
	return row.BillPayment, notFound(err, "bill payment")
}

var billPaymentSorts = map[string]string{"date": "p.date", "amount": "p.amount", "created_at": "p.created_at"}

func (l ledger) ListBillPayments(ctx context.Context, userID, billID string, f finance.BillPaymentFilter, p finance.ListParams) ([]finance.BillPayment, int, error) {
	var rows []billPaymentRow
	q := l.selectBillPayments(&rows).Where("p.bill_id = ? AND p.user_id = ? AND p.status = ?", billID, userID, f.Status)
	if !f.DateFrom.IsZero() {
		q = q.Where("p.date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("p.date <= ?", f.DateTo)
	}
	total, err := orderPage(q, billPaymentSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.BillPayment, len(rows))
	for i, r := range rows {
		out[i] = r.BillPayment
	}
	return out, int(total), nil
}
