package store

import (
	"context"

	"github.com/finance-app/finance/finance"
	"github.com/uptrace/bun"
)

// The queries of the dashboard and the reports (domain.md §5.5, §5.7). Each
// is a range seek of one user's rows or daily totals, and only sums leave
// the database; finance puts the days into buckets.

// SpendingTotals sums the spending lines of domain.md §1.6 dated from..to,
// per category, from the daily totals that triggers keep in the writing
// transaction (spending_days, see its migration for the terms). A month is
// a seek of a few hundred rows, five years of tens of thousands, whatever
// the number of expenses. The reporting currency's lines are summed over
// the range; another currency's per day, the date its rate is chosen for.
//
// The dashboard, the reports and the budget thresholds all read spending
// by category here (through finance's conversion), so that every figure of
// the service counts the same pesos. Categories without any line are absent.
func (l ledger) SpendingTotals(ctx context.Context, userID, reporting string, from, to finance.Date, f finance.SpendingFilter) ([]finance.CategoryTotal, error) {
	sums := l.db.NewSelect().TableExpr("spending_days AS d").
		ColumnExpr("d.category_id, d.currency, CASE WHEN d.currency = ? THEN NULL ELSE d.date END AS date", reporting).
		ColumnExpr("SUM(d.amount) AS amount, SUM(d.lines) AS count").
		Where("d.user_id = ? AND d.date >= ? AND d.date <= ?", userID, from, to).
		GroupExpr("d.category_id, d.currency, 3").
		Having("SUM(d.lines) > 0")
	if f.PaymentMethod != "" {
		sums = sums.Where("d.payment_method = ?", f.PaymentMethod)
	}
	if f.CardID != "" {
		sums = sums.Where("d.credit_card_id = ?", f.CardID)
	}
	// The names join the sums, not the days: five years are tens of
	// thousands of day rows and a few dozen categories.
	var out []finance.CategoryTotal
	err := l.db.NewSelect().TableExpr("(?) AS s", sums).
		ColumnExpr("s.category_id, cat.name AS category, s.currency, s.date, s.amount, s.count").
		Join("JOIN categories AS cat ON cat.id = s.category_id").
		Scan(ctx, &out)
	return out, err
}

func (l ledger) SpendingByDay(ctx context.Context, userID string, from, to finance.Date, category string) ([]finance.DatedAmount, error) {
	q := l.db.NewSelect().TableExpr("spending_days AS d").
		ColumnExpr("d.currency, d.date, SUM(d.amount) AS amount").
		Where("d.user_id = ? AND d.date >= ? AND d.date <= ?", userID, from, to).
		GroupExpr("d.date, d.currency").
		Having("SUM(d.lines) > 0")
	if category != "" {
		// Any category of that name, archived ones included (domain.md §1.5).
		q = q.Where("d.category_id IN (?)", l.categoryIDsNamed(userID, category))
	}
	var out []finance.DatedAmount
	err := q.Scan(ctx, &out)
	return out, err
}

func (l ledger) IncomeByDay(ctx context.Context, userID string, from, to finance.Date) ([]finance.DatedAmount, error) {
	var out []finance.DatedAmount
	err := l.db.NewSelect().TableExpr("income AS i").
		ColumnExpr("i.currency, i.date, SUM(i.amount) AS amount").
		Where("i.user_id = ? AND i.status = 'active' AND i.date >= ? AND i.date <= ?", userID, from, to).
		GroupExpr("i.date, i.currency").
		Scan(ctx, &out)
	return out, err
}

// IncomeTotals is one range seek of income_user_date, grouped by currency
// and, outside the reporting currency, by date.
func (l ledger) IncomeTotals(ctx context.Context, userID, reporting string, from, to finance.Date) ([]finance.DatedAmount, error) {
	var out []finance.DatedAmount
	err := l.db.NewSelect().TableExpr("income AS i").
		ColumnExpr("i.currency, CASE WHEN i.currency = ? THEN ? ELSE i.date END AS date, SUM(i.amount) AS amount", reporting, from).
		Where("i.user_id = ? AND i.status = 'active' AND i.date >= ? AND i.date <= ?", userID, from, to).
		GroupExpr("1, 2").
		Scan(ctx, &out)
	return out, err
}

// keptRange is a date range as the kept expense totals read it: the whole
// months inside it from expense_months, the days before and after them
// from the day rows of spending_days. A range within one month, or one that holds no whole
// month, is all days (head), with the months and the tail empty.
type keptRange struct {
	headFrom, headTo finance.Date
	monthFrom        string // YYYY-MM, inclusive; after monthTo when there is none
	monthTo          string
	tailFrom, tailTo finance.Date // tailFrom after tailTo when there is none
}

func splitKeptRange(from, to finance.Date) keptRange {
	empty := keptRange{headFrom: from, headTo: to, monthFrom: "9999-12", monthTo: "0000-01", tailFrom: to.AddDays(1), tailTo: to}
	first := from // the first day of the first whole month
	if from.Day() != 1 {
		first = finance.MonthAdd(from, 1, 1)
	}
	end := finance.MonthAdd(to, 1, 1).AddDays(-1) // the last day of to's month
	last := to                                    // the last day of the last whole month
	if to != end {
		last = finance.MonthAdd(to, 0, 1).AddDays(-1)
	}
	if first.After(last) {
		return empty
	}
	return keptRange{headFrom: from, headTo: first.AddDays(-1), monthFrom: first.MonthString(), monthTo: last.MonthString(),
		tailFrom: last.AddDays(1), tailTo: to}
}

// keptExpenseRows is the kept expense sums of from..to as rows of
// (category_id, payment_method, currency, date, expense_amount,
// expense_count, expense_line_amount, expense_lines) to be grouped: the
// reporting currency's whole months from expense_months and the days
// before and after them from spending_days, all without a date (NULL);
// another currency's per day from spending_days, the date its rate is
// chosen for, read only when the user has active expenses in another
// currency (expense_counts says). Each part is a range seek of the user's
// primary-key rows.
func (l ledger) keptExpenseRows(ctx context.Context, userID, reporting string, from, to finance.Date) (*bun.RawQuery, error) {
	others, err := l.db.NewSelect().TableExpr("expense_counts").
		Where("user_id = ? AND status = ? AND currency <> ? AND n <> 0", userID, finance.StatusActive, reporting).Exists(ctx)
	if err != nil {
		return nil, err
	}
	r := splitKeptRange(from, to)
	const sums = "expense_amount, expense_count, expense_line_amount, expense_lines"
	parts := `SELECT category_id, payment_method, currency, NULL AS date, ` + sums + ` FROM spending_days AS days
			WHERE user_id = ? AND date >= ? AND date <= ? AND currency = ?
		UNION ALL SELECT category_id, payment_method, currency, NULL, ` + sums + ` FROM expense_months AS months
			WHERE user_id = ? AND month >= ? AND month <= ? AND currency = ?
		UNION ALL SELECT category_id, payment_method, currency, NULL, ` + sums + ` FROM spending_days AS days
			WHERE user_id = ? AND date >= ? AND date <= ? AND currency = ?`
	args := []any{userID, r.headFrom, r.headTo, reporting, userID, r.monthFrom, r.monthTo, reporting, userID, r.tailFrom, r.tailTo, reporting}
	if others {
		parts += `
		UNION ALL SELECT category_id, payment_method, currency, date, ` + sums + ` FROM spending_days AS days
			WHERE user_id = ? AND date >= ? AND date <= ? AND currency <> ?`
		args = append(args, userID, from, to, reporting)
	}
	return l.db.NewRaw(parts, args...), nil
}

// ExpensesByMethod sums the expenses of the range per payment method, each
// once, from the kept rows (keptExpenseRows).
func (l ledger) ExpensesByMethod(ctx context.Context, userID, reporting string, from, to finance.Date) ([]finance.MethodTotal, error) {
	rows, err := l.keptExpenseRows(ctx, userID, reporting, from, to)
	if err != nil {
		return nil, err
	}
	var out []finance.MethodTotal
	err = l.db.NewSelect().TableExpr("(?) AS d", rows).
		ColumnExpr("d.payment_method, d.currency, d.date, SUM(d.expense_amount) AS amount, SUM(d.expense_count) AS count").
		GroupExpr("d.payment_method, d.currency, d.date").
		Having("SUM(d.expense_count) > 0").
		Scan(ctx, &out)
	return out, err
}

// CashFlowByDay is one UNION ALL of four range seeks: income
// (income_user_date_amount), Cash and Account Debit expenses (the kept day
// rows of spending_days, each expense once),
// posted statement payments (soa_payments_user_date) and loan payments
// (loan_payments_user_amount; they are never voided). A statement payment
// is in its card's currency, a loan payment in its loan's: each joins its
// card or loan by primary key.
func (l ledger) CashFlowByDay(ctx context.Context, userID string, from, to finance.Date) ([]finance.CashFlowDay, error) {
	var out []finance.CashFlowDay
	err := l.db.NewRaw(`
		SELECT x.date, x.currency, SUM(x.income) AS income, SUM(x.cash) AS cash_expenses, SUM(x.debit) AS account_debit_expenses,
			SUM(x.card) AS card_payments, SUM(x.loan) AS loan_payments
		FROM (
			SELECT i.date, i.currency, i.amount AS income, 0 AS cash, 0 AS debit, 0 AS card, 0 AS loan FROM income AS i
			WHERE i.user_id = ?0 AND i.status = 'active' AND i.date >= ?1 AND i.date <= ?2
			UNION ALL
			SELECT d.date, d.currency, 0, CASE WHEN d.payment_method = 'Cash' THEN d.expense_amount ELSE 0 END,
				CASE WHEN d.payment_method = 'Account Debit' THEN d.expense_amount ELSE 0 END, 0, 0
			FROM spending_days AS d
			WHERE d.user_id = ?0 AND d.date >= ?1 AND d.date <= ?2 AND d.payment_method IN ('Cash', 'Account Debit')
			UNION ALL
			SELECT p.date, c.currency, 0, 0, 0, p.amount, 0 FROM soa_payments AS p
			JOIN credit_cards AS c ON c.id = p.credit_card_id
			WHERE p.user_id = ?0 AND p.status = 'posted' AND p.date >= ?1 AND p.date <= ?2
			UNION ALL
			SELECT p.date, ln.currency, 0, 0, 0, 0, p.amount FROM loan_payments AS p
			JOIN loans AS ln ON ln.id = p.loan_id
			WHERE p.user_id = ?0 AND p.date >= ?1 AND p.date <= ?2
		) AS x
		GROUP BY x.date, x.currency`, userID, from, to).Scan(ctx, &out)
	return out, err
}

// RecentEntries reads the latest n of each kind from the date indexes
// backwards (expenses_active_date, income_user_date) and keeps the latest n.
func (l ledger) RecentEntries(ctx context.Context, userID string, from, to finance.Date, n int) ([]finance.RecentEntry, error) {
	expenses := l.db.NewSelect().TableExpr("expenses AS e").
		ColumnExpr("'expense' AS kind, e.id, e.date, e.amount, e.currency, e.description, cat.name AS category").
		Join("LEFT JOIN categories AS cat ON cat.id = e.category_id").
		Where("e.user_seq = "+userSeqOf+" AND e.status = 'active' AND e.date >= ? AND e.date <= ?", userID, from, to).
		OrderExpr("e.date DESC, e.id DESC").Limit(int64(n))
	income := l.db.NewSelect().TableExpr("income AS i").
		ColumnExpr("'income' AS kind, i.id, i.date, i.amount, i.currency, i.description, cat.name AS category").
		Join("JOIN categories AS cat ON cat.id = i.category_id").
		Where("i.user_id = ? AND i.status = 'active' AND i.date >= ? AND i.date <= ?", userID, from, to).
		OrderExpr("i.date DESC, i.id DESC").Limit(int64(n))
	var out []finance.RecentEntry
	err := l.db.NewSelect().
		TableExpr("(SELECT * FROM (?) AS recent_expenses UNION ALL SELECT * FROM (?) AS recent_income) AS r", expenses, income).
		ColumnExpr("r.*").
		OrderExpr("r.date DESC, r.id DESC").Limit(int64(n)).
		Scan(ctx, &out)
	return out, err
}

// BillsByCategory is one pass over the range's instances on
// bill_instances_user_due. Skipped bills are due nothing. A bill is in its
// template's currency.
func (l ledger) BillsByCategory(ctx context.Context, userID string, from, to finance.Date) ([]finance.BillCategoryTotal, error) {
	var out []finance.BillCategoryTotal
	err := l.db.NewSelect().TableExpr("bill_instances AS b").
		ColumnExpr("b.category_id, cat.name AS category, t.currency").
		ColumnExpr("SUM(CASE WHEN b.status = 'skipped' THEN 0 ELSE b.amount END) AS amount_due").
		ColumnExpr("SUM(b.paid_total) AS paid_amount").
		Join("JOIN categories AS cat ON cat.id = b.category_id").
		Join("JOIN bill_templates AS t ON t.id = b.template_id").
		Where("b.user_id = ? AND b.due_date >= ? AND b.due_date <= ?", userID, from, to).
		GroupExpr("b.category_id, cat.name, cat.name_key, t.currency").
		OrderExpr("cat.name_key, b.category_id, t.currency").
		Scan(ctx, &out)
	return out, err
}

// LoanLastDueDates reads the last instance of each loan on loan_instances_loan.
func (l ledger) LoanLastDueDates(ctx context.Context, userID string) (map[string]finance.Date, error) {
	var rows []struct {
		LoanID  string
		DueDate finance.Date
	}
	err := l.db.NewSelect().TableExpr("loans AS l").
		ColumnExpr("l.id AS loan_id").
		ColumnExpr("(SELECT i.due_date FROM loan_instances AS i WHERE i.loan_id = l.id ORDER BY i.installment_number DESC LIMIT 1) AS due_date").
		Where("l.user_id = ?", userID).
		Scan(ctx, &rows)
	out := make(map[string]finance.Date, len(rows))
	for _, r := range rows {
		out[r.LoanID] = r.DueDate
	}
	return out, err
}

// OverdueLoanInstances seeks loan_instances_user_due per open status, as
// the current-month dues do.
func (l ledger) OverdueLoanInstances(ctx context.Context, userID string, today finance.Date) (int, error) {
	n, err := l.db.NewSelect().TableExpr("loan_instances AS i").
		Join("JOIN loans AS l ON l.id = i.loan_id").
		Where("i.user_id = ? AND i.status IN ('unpaid', 'partially_paid') AND i.due_date < ? AND l.status = 'active'", userID, today).
		Count(ctx)
	return int(n), err
}

// TotalsDrift recomputes the totals that triggers keep (the kept day rows
// the reports and the expense summary read, with their spending lines,
// expense lines and expenses; the expense counts and totals per status and
// currency the lists read; and each card's totals) from the rows they
// sum, and returns the keys where the kept totals differ: empty when the
// triggers kept them right. It reads every row, so it is a check for tests
// and for an operator, never a request path.
func (db *DB) TotalsDrift(ctx context.Context) ([]string, error) {
	var out []string
	err := db.reader.NewRaw(`
		WITH lines AS (
			-- An expense: its count, and its line when it has a category.
			SELECT e.user_id, e.date, e.currency, COALESCE(e.category_id, '') AS category_id, e.payment_method,
				COALESCE(e.credit_card_id, '') AS card,
				CASE WHEN e.category_id IS NULL THEN 0 ELSE e.amount END AS amount,
				CASE WHEN e.category_id IS NULL THEN 0 ELSE 1 END AS lines,
				CASE WHEN e.category_id IS NULL THEN 0 ELSE e.amount END AS expense_line_amount,
				CASE WHEN e.category_id IS NULL THEN 0 ELSE 1 END AS expense_lines,
				e.amount AS expense_amount, 1 AS expense_count
			FROM expenses AS e WHERE e.status = 'active'
			UNION ALL
			SELECT e.user_id, e.date, e.currency, s.category_id, e.payment_method, COALESCE(e.credit_card_id, ''),
				s.amount, 1, s.amount, 1, 0, 0
			FROM expense_splits AS s JOIN expenses AS e ON e.id = s.expense_id WHERE e.status = 'active'
			UNION ALL
			SELECT l.user_id, l.date, l.currency, l.category_id, 'Credit Card', l.credit_card_id, l.amount, 1, 0, 0, 0, 0
			FROM card_spending_lines AS l WHERE l.category_id IS NOT NULL
			UNION ALL
			SELECT p.user_id, p.date, ln.currency, c.id, '', '', p.interest_part, 1, 0, 0, 0, 0
			FROM loan_payments AS p JOIN categories AS c ON c.user_id = p.user_id AND c.is_system AND c.name_key = 'loan interest'
			JOIN loans AS ln ON ln.id = p.loan_id
			WHERE p.interest_part > 0
		),
		want AS (
			SELECT user_id, date, currency, category_id, payment_method, card, SUM(amount) AS amount, SUM(lines) AS lines,
				SUM(expense_line_amount) AS expense_line_amount, SUM(expense_lines) AS expense_lines,
				SUM(expense_amount) AS expense_amount, SUM(expense_count) AS expense_count
			FROM lines GROUP BY user_id, date, currency, category_id, payment_method, card
		),
		have AS (
			SELECT user_id, date, currency, category_id, payment_method, credit_card_id AS card, amount, lines,
				expense_line_amount, expense_lines, expense_amount, expense_count
			FROM spending_days
			WHERE lines <> 0 OR amount <> 0 OR expense_lines <> 0 OR expense_line_amount <> 0 OR expense_count <> 0 OR expense_amount <> 0
		),
		spending_drift AS (
			SELECT 'missing' AS side, * FROM (SELECT * FROM want EXCEPT SELECT * FROM have) AS d
			UNION ALL
			SELECT 'extra', * FROM (SELECT * FROM have EXCEPT SELECT * FROM want) AS d
		),
		-- The months against the day rows they total.
		want_months AS (
			SELECT user_id, substr(date, 1, 7) AS month, currency, category_id, payment_method,
				SUM(expense_line_amount) AS expense_line_amount, SUM(expense_lines) AS expense_lines,
				SUM(expense_amount) AS expense_amount, SUM(expense_count) AS expense_count
			FROM spending_days GROUP BY 1, 2, 3, 4, 5
			HAVING SUM(expense_lines) <> 0 OR SUM(expense_line_amount) <> 0 OR SUM(expense_count) <> 0 OR SUM(expense_amount) <> 0
		),
		have_months AS (
			SELECT user_id, month, currency, category_id, payment_method, expense_line_amount, expense_lines, expense_amount, expense_count
			FROM expense_months WHERE expense_lines <> 0 OR expense_line_amount <> 0 OR expense_count <> 0 OR expense_amount <> 0
		),
		month_drift AS (
			SELECT 'missing' AS side, * FROM (SELECT * FROM want_months EXCEPT SELECT * FROM have_months) AS d
			UNION ALL
			SELECT 'extra', * FROM (SELECT * FROM have_months EXCEPT SELECT * FROM want_months) AS d
		),
		want_counts AS (
			SELECT user_id, status, currency, COUNT(*) AS n, SUM(amount) AS total FROM expenses GROUP BY user_id, status, currency
		),
		have_counts AS (
			SELECT user_id, status, currency, n, total FROM expense_counts WHERE n <> 0 OR total <> 0
		),
		count_drift AS (
			SELECT 'missing' AS side, * FROM (SELECT * FROM want_counts EXCEPT SELECT * FROM have_counts) AS d
			UNION ALL
			SELECT 'extra', * FROM (SELECT * FROM have_counts EXCEPT SELECT * FROM want_counts) AS d
		),
		want_cards AS (
			SELECT credit_card_id,
				SUM(CASE WHEN type <> 'refund' THEN amount ELSE 0 END) AS charges,
				SUM(CASE WHEN type = 'refund' THEN amount ELSE 0 END) AS credits,
				SUM(CASE WHEN type <> 'refund' AND status = 'unbilled' THEN amount ELSE 0 END) AS unbilled_charges,
				SUM(CASE WHEN type = 'refund' AND status = 'unbilled' THEN amount ELSE 0 END) AS unbilled_credits
			FROM card_transactions WHERE status IN ('unbilled', 'billed') GROUP BY credit_card_id
		),
		have_cards AS (
			SELECT credit_card_id, charges, credits, unbilled_charges, unbilled_credits FROM card_totals
			WHERE charges <> 0 OR credits <> 0 OR unbilled_charges <> 0 OR unbilled_credits <> 0
		),
		card_drift AS (
			SELECT 'missing' AS side, * FROM (SELECT * FROM want_cards EXCEPT SELECT * FROM have_cards) AS d
			UNION ALL
			SELECT 'extra', * FROM (SELECT * FROM have_cards EXCEPT SELECT * FROM want_cards) AS d
		)
		SELECT side || ' spending ' || date || ' ' || currency || ' ' || category_id || ' ' || payment_method || ' ' || card || ': ' ||
			amount || ' in ' || lines || ', of expenses ' || expense_line_amount || ' in ' || expense_lines ||
			'; expenses ' || expense_amount || ' in ' || expense_count
		FROM spending_drift
		UNION ALL
		SELECT side || ' expense months ' || month || ' ' || currency || ' ' || category_id || ' ' || payment_method || ': ' ||
			expense_line_amount || ' in ' || expense_lines || '; expenses ' || expense_amount || ' in ' || expense_count
		FROM month_drift
		UNION ALL
		SELECT side || ' expense counts ' || status || ' ' || currency || ': ' || total || ' in ' || n
		FROM count_drift
		UNION ALL
		SELECT side || ' card totals ' || credit_card_id || ': charges ' || charges || ', credits ' || credits ||
			', unbilled ' || unbilled_charges || ' - ' || unbilled_credits
		FROM card_drift`).
		Scan(ctx, &out)
	return out, err
}

// RecountExpenseTotals sums the expenses dated from..to from the expense and
// split rows themselves, as ExpenseTotals did before it read kept totals. It
// visits every row of the range, so it is a check for tests and for an
// operator (the summary must equal it), never a request path.
func (db *DB) RecountExpenseTotals(ctx context.Context, userID string, from, to finance.Date) (finance.ExpenseTotals, error) {
	var out finance.ExpenseTotals
	err := db.reader.NewSelect().TableExpr("expenses AS e").
		ColumnExpr("e.payment_method, SUM(e.amount) AS amount, COUNT(*) AS count").
		Where("e.user_seq = "+userSeqOf+" AND e.status = 'active' AND e.date >= ? AND e.date <= ?", userID, from, to).
		GroupExpr("e.payment_method").
		Scan(ctx, &out.ByMethod)
	if err != nil {
		return out, err
	}
	for _, m := range out.ByMethod {
		out.Total += m.Amount
		out.Count += m.Count
	}
	err = db.reader.NewRaw(`
		SELECT x.category_id, cat.name AS category, SUM(x.amount) AS amount, COUNT(*) AS count
		FROM (
			SELECT e.category_id, e.amount FROM expenses AS e
			WHERE e.user_seq = (SELECT seq FROM users WHERE id = ?0) AND e.status = 'active' AND e.date >= ?1 AND e.date <= ?2
				AND e.category_id IS NOT NULL
			UNION ALL
			SELECT s.category_id, s.amount FROM expense_splits AS s JOIN expenses AS e ON e.id = s.expense_id
			WHERE e.user_seq = (SELECT seq FROM users WHERE id = ?0) AND e.status = 'active' AND e.date >= ?1 AND e.date <= ?2
		) AS x JOIN categories AS cat ON cat.id = x.category_id
		GROUP BY x.category_id, cat.name`, userID, from, to).
		Scan(ctx, &out.ByCategory)
	return out, err
}

// NetWorthChanges sums per currency and day after after what moved the user's net worth
// (docs/domain.md, "Net worth over time"), each part by the index on its
// user and date where one exists. A loan starts owing, on its start date,
// what it owes today plus the principal of its payments, so that its
// payments, each lowering it on its own date, bring it back to today's
// figure. Installment rows count on the date of the purchase they converted.
func (l ledger) NetWorthChanges(ctx context.Context, userID string, after finance.Date) ([]finance.DatedAmount, error) {
	var out []finance.DatedAmount
	err := l.db.NewRaw(`
		SELECT c.currency, c.date, SUM(c.amount) AS amount FROM (
			SELECT a.currency, t.date, CASE WHEN t.type = 'credit' THEN t.amount ELSE -t.amount END AS amount
			FROM account_transactions AS t JOIN accounts AS a ON a.id = t.account_id
			WHERE t.user_id = ? AND t.status = 'posted' AND t.date > ?
			UNION ALL
			SELECT cc.currency, COALESCE(p.date, t.date), CASE WHEN t.type = 'refund' THEN t.amount ELSE -t.amount END
			FROM card_transactions AS t
			JOIN credit_cards AS cc ON cc.id = t.credit_card_id
			LEFT JOIN installment_plans AS ip ON ip.id = t.installment_plan_id
			LEFT JOIN card_transactions AS p ON p.id = ip.source_transaction_id
			WHERE t.user_id = ? AND t.status IN ('unbilled', 'billed') AND t.date > ? AND COALESCE(p.date, t.date) > ?
			UNION ALL
			SELECT cc.currency, sp.date, sp.amount FROM soa_payments AS sp JOIN credit_cards AS cc ON cc.id = sp.credit_card_id
			WHERE sp.user_id = ? AND sp.status = 'posted' AND sp.date > ?
			UNION ALL
			SELECT ln.currency, lp.date, lp.principal_part FROM loan_payments AS lp JOIN loans AS ln ON ln.id = lp.loan_id
			WHERE lp.user_id = ? AND lp.date > ? AND ln.status <> 'cancelled'
			UNION ALL
			SELECT ln.currency, ln.start_date, -(
				COALESCE((SELECT SUM(i.principal_due - i.paid_principal) FROM loan_instances AS i
					WHERE i.loan_id = ln.id AND i.`+openInstance+`), 0)
				+ COALESCE((SELECT SUM(lp.principal_part) FROM loan_payments AS lp WHERE lp.loan_id = ln.id), 0))
			FROM loans AS ln
			WHERE ln.user_id = ? AND ln.status <> 'cancelled' AND ln.start_date > ?
		) AS c
		GROUP BY c.currency, c.date ORDER BY c.date, c.currency`,
		userID, after, userID, after, after, userID, after, userID, after, userID, after).Scan(ctx, &out)
	return out, err
}
