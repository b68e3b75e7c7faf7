package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type soaRow struct {
	bun.BaseModel `bun:"table:soas,alias:s"`
	finance.SOA
	UserID string
}

// soaComputed are the SOA fields computed on read, not stored.
var soaComputed = []string{"credit_card_name", "currency", "remaining", "is_overdue", "minimum_met", "days_until_due"}

func (l ledger) selectSOAs(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(soaComputed...).
		ColumnExpr("cc.name AS credit_card_name, cc.currency AS currency").
		Join("JOIN credit_cards AS cc ON cc.id = s.credit_card_id")
}

func (l ledger) SOA(ctx context.Context, userID, id string) (finance.SOA, error) {
	var row soaRow
	err := l.selectSOAs(&row).Where("s.id = ? AND s.user_id = ?", id, userID).Scan(ctx)
	return row.SOA, notFound(err, "statement")
}

func (l ledger) LiveSOA(ctx context.Context, userID, cardID string, statementDate finance.Date) (finance.SOA, error) {
	var row soaRow
	err := l.selectSOAs(&row).
		Where("s.credit_card_id = ? AND s.user_id = ? AND s.statement_date = ? AND s.status <> 'voided'", cardID, userID, statementDate).
		Scan(ctx)
	return row.SOA, notFound(err, "statement")
}

var soaSorts = map[string]string{"statement_date": "s.statement_date", "due_date": "s.due_date",
	"statement_balance": "s.statement_balance", "created_at": "s.created_at"}

// whereSOAStatus narrows q to a status filter of GET /credit-cards/soa.
func whereSOAStatus(q *bun.SelectQuery, status string, today finance.Date) *bun.SelectQuery {
	switch status {
	case "":
		return q.Where("s.status <> 'voided'")
	case finance.SOAOpen:
		return q.Where("s.status IN ('unpaid', 'partially_paid')")
	case finance.SOAOverdue:
		return q.Where("s.status IN ('unpaid', 'partially_paid') AND s.due_date < ?", today)
	}
	return q.Where("s.status = ?", status)
}

func (l ledger) ListSOAs(ctx context.Context, userID string, f finance.SOAFilter, p finance.ListParams) ([]finance.SOA, int, error) {
	var rows []soaRow
	q := whereSOAStatus(l.selectSOAs(&rows).Where("s.user_id = ?", userID), f.Status, f.Today)
	if f.CardID != "" {
		q = q.Where("s.credit_card_id = ?", f.CardID)
	}
	if !f.DateFrom.IsZero() {
		q = q.Where("s.statement_date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("s.statement_date <= ?", f.DateTo)
	}
	total, err := orderPage(q, soaSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.SOA, len(rows))
	for i, r := range rows {
		out[i] = r.SOA
	}
	return out, int(total), nil
}

func (l ledger) SOACounts(ctx context.Context, userID, cardID string, today, dueSoonEnd finance.Date) (finance.SOACounts, error) {
	var c finance.SOACounts
	q := l.db.NewSelect().TableExpr("soas AS s").
		ColumnExpr("COALESCE(SUM(CASE WHEN s.status = 'unpaid' THEN 1 ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN s.status = 'partially_paid' THEN 1 ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN s.status = 'paid' THEN 1 ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN s.status = 'voided' THEN 1 ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN s.status IN ('unpaid', 'partially_paid') AND s.due_date < ? THEN 1 ELSE 0 END), 0)", today).
		ColumnExpr("COALESCE(SUM(CASE WHEN s.status IN ('unpaid', 'partially_paid') AND s.due_date >= ? AND s.due_date <= ? THEN 1 ELSE 0 END), 0)", today, dueSoonEnd).
		Where("s.user_id = ?", userID)
	if cardID != "" {
		q = q.Where("s.credit_card_id = ?", cardID)
	}
	err := q.Scan(ctx, &c.Unpaid, &c.PartiallyPaid, &c.Paid, &c.Voided, &c.Overdue, &c.DueSoon)
	c.Open = c.Unpaid + c.PartiallyPaid
	c.Total = c.Open + c.Paid
	return c, err
}

func (l ledger) InsertSOA(ctx context.Context, userID string, a finance.SOA) error {
	row := soaRow{SOA: a, UserID: userID}
	_, err := l.db.NewInsert().Model(&row).ExcludeColumn(soaComputed...).Exec(ctx)
	return err
}

func (l ledger) UpdateSOA(ctx context.Context, userID string, a finance.SOA) error {
	row := soaRow{SOA: a, UserID: userID}
	_, err := l.db.NewUpdate().Model(&row).ExcludeColumn(append([]string{"created_at"}, soaComputed...)...).
		Where("id = ? AND user_id = ?", a.ID, userID).Exec(ctx)
	return err
}

func (l ledger) SOALines(ctx context.Context, userID, soaID string) ([]finance.CardTransaction, error) {
	var rows []cardTransactionRow
	err := l.selectCardRows(&rows).Where("t.soa_id = ? AND t.user_id = ?", soaID, userID).
		OrderExpr("t.date ASC, t.id ASC").Scan(ctx)
	out := make([]finance.CardTransaction, len(rows))
	for i, r := range rows {
		out[i] = r.transaction()
	}
	return out, err
}

func (l ledger) SOATotals(ctx context.Context, soaID string) (finance.SOATotals, error) {
	var t finance.SOATotals
	err := l.db.NewSelect().TableExpr("card_transactions AS t").
		ColumnExpr("COALESCE(SUM(CASE WHEN t.type <> 'refund' THEN t.amount ELSE 0 END), 0)").
		ColumnExpr("COALESCE(SUM(CASE WHEN t.type = 'refund' THEN t.amount ELSE 0 END), 0)").
		ColumnExpr("COUNT(*)").
		ColumnExpr("(SELECT COALESCE(SUM(p.amount), 0) FROM soa_payments AS p WHERE p.soa_id = ? AND p.status = 'posted')", soaID).
		Where("t.soa_id = ? AND t.status = 'billed'", soaID).
		Scan(ctx, &t.Charges, &t.Credits, &t.Count, &t.Paid)
	return t, err
}

func (l ledger) BillBacklog(ctx context.Context, userID, cardID string, bills []finance.StatementBill, now time.Time) (map[string]finance.SOATotals, error) {
	if len(bills) == 0 {
		return nil, nil
	}
	defer largeCache(ctx, l.db)()
	// Billing moves every row from unbilled to billed: the card's charges
	// and credits stay, only its unbilled figures shrink. The per-row
	// trigger would make that change once per row; while the card is in
	// card_totals_deferred it skips the card's rows, and the change is made
	// once below. The row is deleted again before the transaction ends.
	if _, err := l.db.NewRaw(`INSERT INTO card_totals_deferred (credit_card_id) VALUES (?)`, cardID).Exec(ctx); err != nil {
		return nil, err
	}
	// One statement bills the whole backlog: each row's statement is the
	// first bill dated on or after the row (statementOf). OR FAIL: the
	// statement cannot violate a constraint, and without the default ABORT
	// SQLite keeps no statement journal of every page it changes, which is
	// most of the cost of billing a large backlog. Any failure still rolls
	// back the whole transaction.
	soa, args := statementOf(bills)
	args = append(args, now, cardID, userID, bills[len(bills)-1].Through)
	if _, err := l.db.NewRaw(dialectOf(l.db).updateOrFail()+` card_transactions SET status = 'billed', soa_id = `+soa+`, updated_at = ?
		WHERE `+backlogRowsWhere, args...).Exec(ctx); err != nil {
		return nil, err
	}
	ids := make([]string, len(bills))
	for i, b := range bills {
		ids[i] = b.SOAID
	}
	var rows []struct {
		SOAID   string        `bun:"soa_id"`
		Charges finance.Money `bun:"charges"`
		Credits finance.Money `bun:"credits"`
		Count   int           `bun:"count"`
	}
	if err := l.db.NewSelect().TableExpr("card_transactions AS t").Column("t.soa_id").
		ColumnExpr("SUM(CASE WHEN t.type <> 'refund' THEN t.amount ELSE 0 END) AS charges").
		ColumnExpr("SUM(CASE WHEN t.type = 'refund' THEN t.amount ELSE 0 END) AS credits").
		ColumnExpr("COUNT(*) AS count").
		Where("t.soa_id IN (?) AND t.status = 'billed'", bun.In(ids)).GroupExpr("t.soa_id").
		Scan(ctx, &rows); err != nil {
		return nil, err
	}
	out := make(map[string]finance.SOATotals, len(rows))
	var charges, credits finance.Money
	for _, r := range rows {
		out[r.SOAID] = finance.SOATotals{Charges: r.Charges, Credits: r.Credits, Count: r.Count}
		charges += r.Charges
		credits += r.Credits
	}
	if _, err := l.db.NewRaw(`UPDATE card_totals SET unbilled_charges = unbilled_charges - ?, unbilled_credits = unbilled_credits - ?
		WHERE credit_card_id = ?`, charges, credits, cardID).Exec(ctx); err != nil {
		return nil, err
	}
	if _, err := l.db.NewRaw(`DELETE FROM card_totals_deferred WHERE credit_card_id = ?`, cardID).Exec(ctx); err != nil {
		return nil, err
	}
	return out, nil
}

// backlogRowsWhere selects the rows BillBacklog bills: the card's unbilled
// rows up to the last bill's date, a seek on the partial index
// card_transactions_unbilled (credit_card_id, date, id) WHERE status =
// 'unbilled', the only index billing changes besides card_transactions_soa.
const backlogRowsWhere = `credit_card_id = ? AND user_id = ? AND status = 'unbilled' AND date <= ?`

// statementOf is an SQL expression with its arguments naming the statement
// of a card row from its date: the first of bills (oldest first) dated on
// or after it. Each CASE halves the bills, so a row takes about
// log2(len(bills)) comparisons; the rows before the first bill's period
// (older unbilled rows) go to the first bill, as they always have.
func statementOf(bills []finance.StatementBill) (string, []any) {
	if len(bills) == 1 {
		return "?", []any{bills[0].SOAID}
	}
	mid := (len(bills) - 1) / 2
	older, olderArgs := statementOf(bills[:mid+1])
	newer, newerArgs := statementOf(bills[mid+1:])
	args := append([]any{bills[mid].Through}, olderArgs...)
	return "CASE WHEN date <= ? THEN " + older + " ELSE " + newer + " END", append(args, newerArgs...)
}

func (l ledger) ReleaseSOA(ctx context.Context, userID, soaID string, now time.Time) error {
	l.changed() // rows back to unbilled: the statement cursors (lookups.go)
	if _, err := l.db.NewUpdate().TableExpr("card_transactions").
		Set("status = 'voided'").Set("voided_at = ?", now).Set("updated_at = ?", now).
		Where("soa_id = ? AND user_id = ? AND is_soa_line AND status = 'billed'", soaID, userID).
		Exec(ctx); err != nil {
		return err
	}
	_, err := l.db.NewUpdate().TableExpr("card_transactions").
		Set("status = 'unbilled'").Set("soa_id = NULL").Set("updated_at = ?", now).
		Where("soa_id = ? AND user_id = ? AND NOT is_soa_line AND status = 'billed'", soaID, userID).
		Exec(ctx)
	return err
}

// readStatementCursors is StatementCursors read from the database (lookups.go keeps it).
func (l ledger) readStatementCursors(ctx context.Context, userID string) ([]finance.StatementCursor, error) {
	rows, err := l.query(ctx, statementCursorsSQL, func(h *hotStatements) *sql.Stmt { return h.statementCursors }, userID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []finance.StatementCursor
	for rows.Next() {
		var c finance.StatementCursor
		var first *finance.Date
		if err := rows.Scan(&c.CardID, &c.StatementDay, &c.CycleStartDate, &first); err != nil {
			return nil, err
		}
		if first != nil {
			c.FirstUnbilled = *first
			out = append(out, c)
		}
	}
	return out, rows.Err()
}

func (l ledger) LiveStatementPeriods(ctx context.Context, cardID string, from finance.Date) ([]finance.Period, error) {
	var rows []struct {
		PeriodStart finance.Date
		PeriodEnd   finance.Date
	}
	err := l.db.NewSelect().TableExpr("soas AS s").Column("s.period_start", "s.period_end").
		Where("s.credit_card_id = ? AND s.status IN ('unpaid', 'partially_paid', 'paid') AND s.period_end >= ?", cardID, from).
		Scan(ctx, &rows)
	out := make([]finance.Period, len(rows))
	for i, r := range rows {
		out[i] = finance.Period{Start: r.PeriodStart, End: r.PeriodEnd}
	}
	return out, err
}

type soaPaymentRow struct {
	bun.BaseModel `bun:"table:soa_payments,alias:p"`
	finance.SOAPayment
	UserID string
	// SOAColumn carries soa_id: bun would name the embedded SOAID field "soaid".
	SOAColumn string `bun:"soa_id"`
}

var soaPaymentComputed = []string{"account_name", "soaid"}

func (r soaPaymentRow) payment() finance.SOAPayment {
	p := r.SOAPayment
	p.SOAID = r.SOAColumn
	return p
}

func (l ledger) InsertSOAPayment(ctx context.Context, userID string, p finance.SOAPayment) error {
	row := soaPaymentRow{SOAPayment: p, UserID: userID, SOAColumn: p.SOAID}
	_, err := l.db.NewInsert().Model(&row).ExcludeColumn(soaPaymentComputed...).Exec(ctx)
	return err
}

func (l ledger) UpdateSOAPayment(ctx context.Context, userID string, p finance.SOAPayment) error {
	row := soaPaymentRow{SOAPayment: p, UserID: userID, SOAColumn: p.SOAID}
	_, err := l.db.NewUpdate().Model(&row).ExcludeColumn(append([]string{"created_at"}, soaPaymentComputed...)...).
		Where("id = ? AND user_id = ?", p.ID, userID).Exec(ctx)
	return err
}

var soaPaymentSorts = map[string]string{"date": "p.date", "amount": "p.amount", "created_at": "p.created_at"}

func (l ledger) ListSOAPayments(ctx context.Context, userID, soaID string, f finance.SOAPaymentFilter, p finance.ListParams) ([]finance.SOAPayment, int, error) {
	var rows []soaPaymentRow
	q := l.db.NewSelect().Model(&rows).ExcludeColumn(soaPaymentComputed...).
		ColumnExpr("a.name AS account_name").
		Join("JOIN accounts AS a ON a.id = p.account_id").
		Where("p.soa_id = ? AND p.user_id = ? AND p.status = ?", soaID, userID, f.Status)
	if !f.DateFrom.IsZero() {
		q = q.Where("p.date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("p.date <= ?", f.DateTo)
	}
	total, err := orderPage(q, soaPaymentSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.SOAPayment, len(rows))
	for i, r := range rows {
		out[i] = r.payment()
	}
	return out, int(total), nil
}

func (l ledger) CardHasPayments(ctx context.Context, cardID string) (bool, error) {
	return l.db.NewSelect().TableExpr("soas AS s").
		Where("s.credit_card_id = ? AND s.status <> 'voided' AND s.paid_total > 0", cardID).Exists(ctx)
}

func (l ledger) BillIntoUnpaid(ctx context.Context, userID, rowID string, now time.Time) (string, error) {
	var soaID string
	err := l.db.NewRaw(`SELECT s.id FROM card_transactions AS t JOIN soas AS s ON s.credit_card_id = t.credit_card_id
		WHERE t.id = ? AND t.user_id = ? AND t.status = 'unbilled' AND s.status = 'unpaid'
		AND t.date BETWEEN s.period_start AND s.period_end`, rowID, userID).Scan(ctx, &soaID)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	_, err = l.db.NewRaw(`UPDATE card_transactions SET status = 'billed', soa_id = ?, updated_at = ? WHERE id = ? AND user_id = ?`,
		soaID, now, rowID, userID).Exec(ctx)
	return soaID, err
}
