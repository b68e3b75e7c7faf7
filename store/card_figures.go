package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

// CardMetricTotals adds to the card figures (withFigures) what metrics
// need, with three queries that seek per-card indexes: the cards' open
// statements (soas_card), their active plans (installment_plans_card, index
// only) and their installment rows of the month (card_transactions_card).
func (l ledger) CardMetricTotals(ctx context.Context, cardIDs []string, today, from, to finance.Date) (map[string]finance.CardMetricTotals, error) {
	out := make(map[string]finance.CardMetricTotals, len(cardIDs))
	if len(cardIDs) == 0 {
		return out, nil
	}
	ids := bun.In(cardIDs)
	// One pass over each card's open statements: the window sums give the
	// card's totals on every row, and the row numbered 1 is the one due first.
	var open []struct {
		CreditCardID   string
		ID             string
		DueDate        finance.Date
		Remaining      finance.Money
		MinimumDueOpen finance.Money
		OverdueCount   int
	}
	err := l.db.NewRaw(`
		SELECT o.credit_card_id, o.id, o.due_date, o.remaining, o.minimum_due_open, o.overdue_count FROM (
			SELECT s.credit_card_id, s.id, s.due_date,
				CASE WHEN s.statement_balance > s.paid_total THEN s.statement_balance - s.paid_total ELSE 0 END AS remaining,
				SUM(CASE WHEN s.minimum_due > s.paid_total THEN s.minimum_due - s.paid_total ELSE 0 END)
					OVER (PARTITION BY s.credit_card_id) AS minimum_due_open,
				SUM(CASE WHEN s.due_date < ? THEN 1 ELSE 0 END) OVER (PARTITION BY s.credit_card_id) AS overdue_count,
				ROW_NUMBER() OVER (PARTITION BY s.credit_card_id ORDER BY s.due_date, s.statement_date, s.id) AS position
			FROM soas AS s
			WHERE s.credit_card_id IN (?) AND s.status IN ('unpaid', 'partially_paid')
		) AS o
		WHERE o.position = 1`, today, ids).Scan(ctx, &open)
	if err != nil {
		return nil, err
	}
	for _, o := range open {
		out[o.CreditCardID] = finance.CardMetricTotals{MinimumDueOpen: o.MinimumDueOpen, OverdueSOACount: o.OverdueCount,
			NextDue: &finance.NextDue{SOAID: o.ID, DueDate: o.DueDate, Remaining: o.Remaining}}
	}
	var plans []struct {
		CreditCardID string
		Count        int
	}
	err = l.db.NewSelect().TableExpr("installment_plans AS ip").
		Column("ip.credit_card_id").ColumnExpr("COUNT(*) AS count").
		Where("ip.credit_card_id IN (?) AND ip.status = 'active'", ids).
		Group("ip.credit_card_id").
		Scan(ctx, &plans)
	if err != nil {
		return nil, err
	}
	for _, p := range plans {
		t := out[p.CreditCardID]
		t.ActivePlans = p.Count
		out[p.CreditCardID] = t
	}
	var installments []struct {
		CreditCardID string
		Amount       finance.Money
	}
	err = l.db.NewSelect().TableExpr("card_transactions AS t").
		Column("t.credit_card_id").ColumnExpr("SUM(t.amount) AS amount").
		Where("t.credit_card_id IN (?) AND t.status IN ('unbilled', 'billed') AND t.date >= ? AND t.date <= ?", ids, from, to).
		Where("t.type = 'installment'").
		Group("t.credit_card_id").
		Scan(ctx, &installments)
	if err != nil {
		return nil, err
	}
	for _, i := range installments {
		t := out[i.CreditCardID]
		t.MonthInstallments = i.Amount
		out[i.CreditCardID] = t
	}
	return out, nil
}

// usageStatuses are the rows a usage summary counts: every row that is not
// voided (only purchases are ever converted, and they still count).
const usageStatuses = "('unbilled', 'billed', 'converted')"

// CardUsage sums the cards' month with three queries, each a range seek per
// card: their rows (card_transactions_card on card and date), their
// posted payments (soa_payments_card) and their purchases by category.
func (l ledger) CardUsage(ctx context.Context, cardIDs []string, from, to finance.Date) (map[string]finance.CardUsageTotals, error) {
	out := make(map[string]finance.CardUsageTotals, len(cardIDs))
	if len(cardIDs) == 0 {
		return out, nil
	}
	ids := bun.In(cardIDs)
	var rows []struct {
		CreditCardID string
		finance.UsageFigures
	}
	err := l.db.NewSelect().TableExpr("card_transactions AS t").
		Column("t.credit_card_id").
		ColumnExpr("SUM(CASE WHEN t.type = 'purchase' THEN t.amount ELSE 0 END) AS purchases_total").
		ColumnExpr("SUM(CASE WHEN t.type = 'purchase' THEN 1 ELSE 0 END) AS purchases_count").
		ColumnExpr("SUM(CASE WHEN t.type = 'fee' THEN t.amount ELSE 0 END) AS fees_total").
		ColumnExpr(`SUM(CASE WHEN t.type = 'interest' THEN t.amount
			WHEN t.type = 'installment' THEN COALESCE(t.interest_portion, 0) ELSE 0 END) AS interest_total`).
		ColumnExpr("SUM(CASE WHEN t.type = 'refund' THEN t.amount ELSE 0 END) AS refunds_total").
		ColumnExpr("SUM(CASE WHEN t.type = 'installment' THEN t.amount ELSE 0 END) AS installments_total").
		ColumnExpr("0 AS payments_total").
		Where("t.credit_card_id IN (?) AND t.status IN "+usageStatuses+" AND t.date >= ? AND t.date <= ?", ids, from, to).
		Group("t.credit_card_id").
		Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.CreditCardID] = finance.CardUsageTotals{UsageFigures: r.UsageFigures}
	}
	var payments []struct {
		CreditCardID string
		Amount       finance.Money
	}
	err = l.db.NewSelect().TableExpr("soa_payments AS p").
		Column("p.credit_card_id").ColumnExpr("SUM(p.amount) AS amount").
		Where("p.credit_card_id IN (?) AND p.status = 'posted' AND p.date >= ? AND p.date <= ?", ids, from, to).
		Group("p.credit_card_id").
		Scan(ctx, &payments)
	if err != nil {
		return nil, err
	}
	for _, p := range payments {
		u := out[p.CreditCardID]
		u.PaymentsTotal = p.Amount
		out[p.CreditCardID] = u
	}
	// A purchase counts under its expense's category or, when the expense
	// is split, each part under its own. Only purchases have an expense, so
	// the join selects them, and the date range stays the index seek on
	// card_transactions_card without a type condition.
	var cats []struct {
		CreditCardID string
		finance.CategoryTotal
	}
	err = l.db.NewRaw(`
		SELECT x.credit_card_id, x.category_id, cat.name AS category, SUM(x.amount) AS amount, COUNT(*) AS count
		FROM (
			SELECT t.credit_card_id, e.category_id, t.amount
			FROM card_transactions AS t JOIN expenses AS e ON e.id = t.expense_id
			WHERE t.credit_card_id IN (?) AND t.status IN `+usageStatuses+` AND t.date >= ? AND t.date <= ?
				AND e.category_id IS NOT NULL
			UNION ALL
			SELECT t.credit_card_id, s.category_id, s.amount
			FROM card_transactions AS t JOIN expense_splits AS s ON s.expense_id = t.expense_id
			WHERE t.credit_card_id IN (?) AND t.status IN `+usageStatuses+` AND t.date >= ? AND t.date <= ?
		) AS x JOIN categories AS cat ON cat.id = x.category_id
		GROUP BY x.credit_card_id, x.category_id, cat.name`, ids, from, to, ids, from, to).
		Scan(ctx, &cats)
	if err != nil {
		return nil, err
	}
	for _, c := range cats {
		u := out[c.CreditCardID]
		u.Categories = append(u.Categories, c.CategoryTotal)
		out[c.CreditCardID] = u
	}
	return out, nil
}
