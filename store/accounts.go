package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type accountRow struct {
	bun.BaseModel `bun:"table:accounts,alias:a"`
	finance.Account
	UserID  string
	NameKey string
}

// balanceExpr computes an account's balance, which is never a stored column:
// opening_balance plus the totals of its posted lines, which triggers keep in
// account_line_totals (see its migration), so no read sums every line.
const balanceExpr = `a.opening_balance + COALESCE((SELECT lt.credits - lt.debits
	FROM account_line_totals AS lt WHERE lt.account_id = a.id), 0)`

func (l ledger) selectAccounts(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn("current_balance").ColumnExpr(balanceExpr + " AS current_balance")
}

func (l ledger) Account(ctx context.Context, userID, id string) (finance.Account, error) {
	var row accountRow
	err := l.selectAccounts(&row).Where("a.id = ? AND a.user_id = ?", id, userID).Scan(ctx)
	return row.Account, notFound(err, "account")
}

func (l ledger) ActiveAccountByName(ctx context.Context, userID, name string) (finance.Account, error) {
	var row accountRow
	err := l.selectAccounts(&row).Where("a.user_id = ? AND a.name_key = ? AND a.status = 'active'", userID, nameKey(name)).Scan(ctx)
	return row.Account, notFound(err, "account")
}

var accountSorts = map[string]string{"name": "a.name_key", "current_balance": "current_balance", "created_at": "a.created_at"}

func (l ledger) ListAccounts(ctx context.Context, userID string, f finance.AccountFilter, p finance.ListParams) ([]finance.Account, int, error) {
	var rows []accountRow
	q := l.selectAccounts(&rows).Where("a.user_id = ?", userID)
	if f.Status != finance.StatusAll {
		q = q.Where("a.status = ?", f.Status)
	}
	if f.Type != "" {
		q = q.Where("a.type = ?", f.Type)
	}
	q = searchAny(q, f.Search, "a.name", "a.notes", "a.institution")
	total, err := orderPage(q, accountSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.Account, len(rows))
	for i, r := range rows {
		out[i] = r.Account
	}
	return out, int(total), nil
}

func (l ledger) InsertAccount(ctx context.Context, userID string, a finance.Account) error {
	row := accountRow{Account: a, UserID: userID, NameKey: nameKey(a.Name)}
	_, err := l.db.NewInsert().Model(&row).ExcludeColumn("current_balance").Exec(ctx)
	return err
}

func (l ledger) UpdateAccount(ctx context.Context, userID string, a finance.Account) error {
	row := accountRow{Account: a, UserID: userID, NameKey: nameKey(a.Name)}
	_, err := l.db.NewUpdate().Model(&row).ExcludeColumn("current_balance", "created_at").
		Where("id = ? AND user_id = ?", a.ID, userID).Exec(ctx)
	return err
}

type accountTransactionRow struct {
	bun.BaseModel `bun:"table:account_transactions,alias:t"`
	finance.AccountTransaction
	UserID string
	// The other side of a transfer's line, read into Transfer (line).
	OtherAccountID   *string `bun:",scanonly"`
	OtherAccountName *string `bun:",scanonly"`
}

// line is the row's line with its transfer filled.
func (r accountTransactionRow) line() finance.AccountTransaction {
	t := r.AccountTransaction
	if t.Source == finance.SourceTransfer && t.SourceID != nil && r.OtherAccountID != nil && r.OtherAccountName != nil {
		t.Transfer = &finance.LineTransfer{ID: *t.SourceID, OtherAccountID: *r.OtherAccountID, OtherAccountName: *r.OtherAccountName}
	}
	return t
}

// lineComputed are the AccountTransaction fields that are not columns
// (warnings are the answer of a write, never stored).
var lineComputed = []string{"account_name", "currency", "is_editable", "running_balance", "transfer", "warnings"}

// lineWriteSkipped are the columns an insert or update of a line leaves
// alone: created_at once written, and cleared, which only ClearedRepo's
// statements write (an insert takes the column's default, pending).
var lineWriteSkipped = append([]string{"cleared"}, lineComputed...)

// selectLines selects lines with their account's name and, for a transfer's
// line, the account on the transfer's other side.
func (l ledger) selectLines(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(lineComputed...).
		ColumnExpr("acc.name AS account_name, acc.currency AS currency").
		ColumnExpr("(t.status = 'posted' AND t.source IN ('manual', 'adjustment') AND acc.status = 'active') AS is_editable").
		ColumnExpr("oa.id AS other_account_id").
		ColumnExpr("oa.name AS other_account_name").
		Join("JOIN accounts AS acc ON acc.id = t.account_id").
		Join("LEFT JOIN transfers AS tr ON t.source = 'transfer' AND tr.id = t.source_id").
		Join("LEFT JOIN accounts AS oa ON oa.id = CASE WHEN tr.from_account_id = t.account_id THEN tr.to_account_id ELSE tr.from_account_id END")
}

func (l ledger) AccountTransaction(ctx context.Context, userID, id string) (finance.AccountTransaction, error) {
	var row accountTransactionRow
	if err := l.selectLines(&row).Where("t.id = ? AND t.user_id = ?", id, userID).Scan(ctx); err != nil {
		return finance.AccountTransaction{}, notFound(err, "account transaction")
	}
	out := []finance.AccountTransaction{row.line()}
	return out[0], l.withRunningBalances(ctx, out)
}

var lineSorts = map[string]string{"date": "t.date", "amount": "t.amount", "created_at": "t.created_at"}

func (l ledger) ListAccountTransactions(ctx context.Context, userID string, f finance.AccountTransactionFilter, p finance.ListParams) ([]finance.AccountTransaction, finance.ListTotals, error) {
	var rows []accountTransactionRow
	q := l.selectLines(&rows).Where("t.user_id = ? AND t.status = ?", userID, f.Status)
	if f.AccountID != "" {
		q = q.Where("t.account_id = ?", f.AccountID)
	}
	if f.Type != "" {
		q = q.Where("t.type = ?", f.Type)
	}
	if f.Cleared != "" {
		q = q.Where("t.cleared = ?", f.Cleared)
	}
	if f.Source != "" {
		q = q.Where("t.source = ?", f.Source)
	}
	if !f.DateFrom.IsZero() {
		q = q.Where("t.date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("t.date <= ?", f.DateTo)
	}
	q = searchAny(q, f.Search, "t.description")
	// The net change: credits less debits, as the lines move their accounts.
	sum, err := l.pageAndSummary(ctx, q, lineSorts[p.SortBy], p, "CASE WHEN s.type = 'credit' THEN s.amount ELSE -s.amount END", "currency")
	if err != nil {
		return nil, sum, err
	}
	out := make([]finance.AccountTransaction, len(rows))
	for i, r := range rows {
		out[i] = r.line()
	}
	return out, sum, l.withRunningBalances(ctx, out)
}

// runningBalanceQuery reads, for the given posted lines, the balance of each
// one's account right after it. It counts from the end: the account's balance
// (kept in account_line_totals) less the posted lines after the line in
// (date, created_at, id) order. One window over each account's lines dated on
// or after the page's earliest line gives every line's "after" sum in one
// pass of account_transactions_running (CROSS JOIN keeps SQLite from
// scanning the whole account first), so the newest lines, which lists show
// first, read few rows, and a page far back reads the lines after it once.
const runningBalanceQuery = `WITH page AS (
	SELECT id, account_id, date FROM account_transactions WHERE id IN (?) AND status = 'posted'
), span AS (
	SELECT x.id, x.account_id, COALESCE(SUM(CASE WHEN x.type = 'credit' THEN x.amount ELSE -x.amount END) OVER (
		PARTITION BY x.account_id ORDER BY x.date DESC, x.created_at DESC, x.id DESC
		ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS after
	FROM (SELECT account_id, MIN(date) AS since FROM page GROUP BY account_id) AS f
	CROSS JOIN account_transactions AS x
	WHERE x.account_id = f.account_id AND x.status = 'posted' AND x.date >= f.since
)
SELECT page.id AS id, a.opening_balance + COALESCE(lt.credits - lt.debits, 0) - span.after AS balance
FROM page
JOIN span ON span.id = page.id
JOIN accounts AS a ON a.id = page.account_id
LEFT JOIN account_line_totals AS lt ON lt.account_id = page.account_id`

// withRunningBalances fills RunningBalance on the posted lines of lines (one
// query for the page); voided lines keep null.
func (l ledger) withRunningBalances(ctx context.Context, lines []finance.AccountTransaction) error {
	ids := make([]string, 0, len(lines))
	for _, t := range lines {
		if t.Status == finance.LinePosted {
			ids = append(ids, t.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	var got []struct {
		ID      string
		Balance finance.Money
	}
	if err := l.db.NewRaw(runningBalanceQuery, bun.In(ids)).Scan(ctx, &got); err != nil {
		return err
	}
	byID := make(map[string]finance.Money, len(got))
	for _, g := range got {
		byID[g.ID] = g.Balance
	}
	for i := range lines {
		if b, ok := byID[lines[i].ID]; ok {
			lines[i].RunningBalance = &b
		}
	}
	return nil
}

func (l ledger) InsertAccountTransaction(ctx context.Context, userID string, t finance.AccountTransaction) error {
	row := accountTransactionRow{AccountTransaction: t, UserID: userID}
	_, err := l.db.NewInsert().Model(&row).ExcludeColumn(lineWriteSkipped...).Exec(ctx)
	return err
}

func (l ledger) UpdateAccountTransaction(ctx context.Context, userID string, t finance.AccountTransaction) error {
	row := accountTransactionRow{AccountTransaction: t, UserID: userID}
	_, err := l.db.NewUpdate().Model(&row).ExcludeColumn(append([]string{"created_at"}, lineWriteSkipped...)...).
		Where("id = ? AND user_id = ?", t.ID, userID).Exec(ctx)
	return err
}
