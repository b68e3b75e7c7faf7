package store

import (
	"context"
	"database/sql"
	"slices"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type expenseRow struct {
	bun.BaseModel `bun:"table:expenses,alias:e"`
	finance.Expense
	UserID string
}

// expenseComputed are the Expense fields that are not columns of expenses
// (warnings are the answer of a write, never stored).
var expenseComputed = []string{"category", "account_name", "credit_card_name", "is_split", "splits", "card_transaction_status", "warnings"}

// selectExpenses reads expenses with their category's name and their card
// row's status. Both joins are primary-key lookups per row.
func (l ledger) selectExpenses(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(expenseComputed...).
		ColumnExpr("cat.name AS category").
		ColumnExpr("ct.status AS card_transaction_status").
		ColumnExpr("acc.name AS account_name").
		ColumnExpr("cc.name AS credit_card_name").
		Join("LEFT JOIN categories AS cat ON cat.id = e.category_id").
		Join("LEFT JOIN accounts AS acc ON acc.id = e.account_id").
		Join("LEFT JOIN credit_cards AS cc ON cc.id = e.credit_card_id").
		Join("LEFT JOIN card_transactions AS ct ON ct.id = e.card_transaction_id")
}

func (l ledger) Expense(ctx context.Context, userID, id string) (finance.Expense, error) {
	var row expenseRow
	if err := l.selectExpenses(&row).Where("e.id = ? AND e.user_id = ?", id, userID).Scan(ctx); err != nil {
		return finance.Expense{}, notFound(err, "expense")
	}
	out := []finance.Expense{row.Expense}
	if err := l.withSplits(ctx, out); err != nil {
		return finance.Expense{}, err
	}
	return out[0], nil
}

// expenseSort is how GET /expenses orders a page: by col (ignoring case,
// if nocase), then by id, in the same direction. Each has an index on
// (user_seq, col, id) per status, so an unfiltered page is read in index order.
type expenseSort struct {
	col    string
	nocase bool
}

var expenseSorts = map[string]expenseSort{
	"date":        {col: "e.date"},
	"amount":      {col: "e.amount"},
	"description": {col: "e.description", nocase: true},
	"created_at":  {col: "e.created_at"},
}

// orderBy is the ORDER BY of p over the sort key key and the tiebreak id.
func (s expenseSort) orderBy(d dialect, key, id string, p finance.ListParams) string {
	dir := " ASC"
	if p.Desc {
		dir = " DESC"
	}
	if s.nocase {
		key = d.nocase(key)
	}
	return key + dir + ", " + id + dir
}

// whereExpenses adds the filters of GET /expenses (domain.md §1.5) but the
// category to q, whose table is aliased e.
func whereExpenses(q *bun.SelectQuery, userID string, f finance.ExpenseFilter) *bun.SelectQuery {
	q = q.Where("e.user_seq = "+userSeqOf+" AND e.status = ?", userID, f.Status)
	if !f.DateFrom.IsZero() {
		q = q.Where("e.date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("e.date <= ?", f.DateTo)
	}
	if f.PaymentMethod != "" {
		q = q.Where("e.payment_method = ?", f.PaymentMethod)
	}
	if f.CardID != "" {
		q = q.Where("e.credit_card_id = ?", f.CardID)
	}
	if f.AccountID != "" {
		q = q.Where("e.account_id = ?", f.AccountID)
	}
	if f.AmountMin != nil {
		q = q.Where("e.amount >= ?", *f.AmountMin)
	}
	if f.AmountMax != nil {
		q = q.Where("e.amount <= ?", *f.AmountMax)
	}
	return searchAny(q, f.Search, "e.description", "e.notes")
}

// categoryMatch is the category filter resolved against the user's data:
// the ids of the categories the name matches, and the split expenses (whose
// own category is null) with a part in one of them.
type categoryMatch struct {
	cats, splits []string
}

// matchCategory resolves the category filter before the list query, so that
// the query holds literal id lists: a single OR of "in a category" and "has
// a part in one" leaves SQLite no index for either half (it reads every row
// in the date range), while the halves apart are a range scan of the
// status's category index (expenses_active_category or
// expenses_voided_category), which also holds the sort keys, and a handful
// of primary-key lookups. Split expenses are rare, so the second half is
// usually absent.
func (l ledger) matchCategory(ctx context.Context, userID, name string) (categoryMatch, error) {
	var m categoryMatch
	if err := l.categoryIDsNamed(userID, name).Scan(ctx, &m.cats); err != nil || len(m.cats) == 0 {
		return m, err
	}
	err := l.db.NewSelect().TableExpr("expense_splits").ColumnExpr("DISTINCT expense_id").
		Where("user_id = ? AND category_id IN (?)", userID, bun.In(m.cats)).Scan(ctx, &m.splits)
	return m, err
}

// halves returns the filter's queries over expenses AS e built by q: one
// per half of the match, the second only when some split expense matches.
func (m categoryMatch) halves(q func() *bun.SelectQuery, userID string, f finance.ExpenseFilter) []*bun.SelectQuery {
	out := []*bun.SelectQuery{whereExpenses(q(), userID, f).Where("e.category_id IN (?)", bun.In(m.cats))}
	if len(m.splits) > 0 {
		out = append(out, whereExpenses(q(), userID, f).Where("e.id IN (?)", bun.In(m.splits)))
	}
	return out
}

func (l ledger) ListExpenses(ctx context.Context, userID, reporting string, f finance.ExpenseFilter, p finance.ListParams) ([]finance.Expense, finance.ListTotals, error) {
	var none finance.ListTotals
	var match *categoryMatch
	if f.Category != "" {
		m, err := l.matchCategory(ctx, userID, f.Category)
		if err != nil || len(m.cats) == 0 {
			return nil, none, err // an unknown name matches nothing
		}
		match = &m
	}
	summary := l.startSummary(ctx, userID, reporting, f, match)
	var rows []expenseRow
	sort := expenseSorts[p.SortBy]
	if match == nil {
		err := whereExpenses(l.selectExpenses(&rows), userID, f).
			OrderExpr(sort.orderBy(dialectOf(l.db), sort.col, "e.id", p)).
			Limit(int64(p.Limit)).Offset(int64(p.Offset())).
			Scan(ctx)
		if err != nil {
			return nil, none, err
		}
	} else {
		// First the page's ids, sorted from index entries alone; then its rows.
		// The halves are composed as query values, never as SQL text: text
		// with the filter values already written in would be parsed again for
		// placeholders, and a "?" in a search term would become one.
		keys := func() *bun.SelectQuery {
			return l.db.NewSelect().TableExpr("expenses AS e").ColumnExpr("e.id").ColumnExpr(sort.col + " AS sort_key")
		}
		halves := match.halves(keys, userID, f)
		union := halves[0]
		for _, q := range halves[1:] {
			union = union.UnionAll(q)
		}
		var page []struct {
			ID      string
			SortKey any
		}
		err := l.db.NewSelect().TableExpr("(?) AS u", union).ColumnExpr("u.id, u.sort_key").
			OrderExpr(sort.orderBy(dialectOf(l.db), "u.sort_key", "u.id", p)).
			Limit(int64(p.Limit)).Offset(int64(p.Offset())).
			Scan(ctx, &page)
		if err != nil {
			return nil, none, err
		}
		if len(page) > 0 {
			ids := make([]string, len(page))
			pos := make(map[string]int, len(page))
			for i, k := range page {
				ids[i], pos[k.ID] = k.ID, i
			}
			if err := l.selectExpenses(&rows).Where("e.id IN (?)", bun.In(ids)).Scan(ctx); err != nil {
				return nil, none, err
			}
			slices.SortFunc(rows, func(a, b expenseRow) int { return pos[a.ID] - pos[b.ID] })
		}
	}
	sum, err := summary()
	if err != nil {
		return nil, none, err
	}
	out := make([]finance.Expense, len(rows))
	for i, r := range rows {
		out[i] = r.Expense
	}
	return out, sum, l.withSplits(ctx, out)
}

// startSummary starts summarizeExpenses and returns a function that waits
// for it. On the read pool the summary runs on a connection of its own
// while the page is read, since the two scans are independent; in a
// transaction (one connection) it runs when waited for.
func (l ledger) startSummary(ctx context.Context, userID, reporting string, f finance.ExpenseFilter, match *categoryMatch) func() (finance.ListTotals, error) {
	if _, pool := l.db.(*bun.DB); !pool {
		return func() (finance.ListTotals, error) { return l.summarizeExpenses(ctx, userID, reporting, f, match) }
	}
	type result struct {
		sum finance.ListTotals
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := l.summarizeExpenses(ctx, userID, reporting, f, match)
		done <- result{sum, err}
	}()
	return func() (finance.ListTotals, error) {
		r := <-done
		return r.sum, r.err
	}
}

// summarizeExpenses is the summary of GET /expenses (its count is
// total_items); match is the resolved category filter, if any. An
// aggregate visits every matching row, which with a million expenses and no
// narrowing filter costs hundreds of milliseconds; a list filtered by
// status alone reads the count and total that triggers keep in
// expense_counts instead, one row per currency.
//
// The total is summed by currency (finance.ListTotals). Reading an
// expense's currency takes its row, where the plain sum reads the amount
// from the index it seeks, so the grouped sum runs only for a user with
// expenses of the status in another currency than the reporting one, which
// expense_counts says.
func (l ledger) summarizeExpenses(ctx context.Context, userID, reporting string, f finance.ExpenseFilter, match *categoryMatch) (finance.ListTotals, error) {
	var counts []struct {
		Currency string
		N        int
		Total    finance.Money
	}
	err := l.db.NewSelect().TableExpr("expense_counts").ColumnExpr("currency, n, total").
		Where("user_id = ? AND status = ?", userID, f.Status).Scan(ctx, &counts)
	if err != nil {
		return finance.ListTotals{}, err
	}
	otherCurrencies := false
	for _, c := range counts {
		otherCurrencies = otherCurrencies || (c.Currency != reporting && c.N > 0)
	}
	if match == nil && (f == finance.ExpenseFilter{Status: f.Status}) {
		if len(counts) == 0 {
			return finance.ListTotals{}, nil
		}
		sum := finance.ListTotals{Groups: []finance.DatedAmount{{Currency: reporting}}}
		for _, c := range counts {
			sum.Count += c.N
			if c.Currency == reporting {
				sum.Groups[0].Amount += c.Total
			}
		}
		if otherCurrencies {
			// Another currency converts at each date's rate: its sums per day.
			others, err := l.otherCurrencyDays(ctx, userID, reporting, f.Status)
			if err != nil {
				return finance.ListTotals{}, err
			}
			sum.Groups = append(sum.Groups, others...)
		}
		return sum, nil
	}
	from := func() *bun.SelectQuery {
		q := l.db.NewSelect().TableExpr("expenses AS e")
		if !otherCurrencies {
			return q.ColumnExpr("? AS currency, count(*) AS count, coalesce(sum(e.amount), 0) AS amount", reporting)
		}
		return groupByCurrency(q, "e", reporting)
	}
	var sum finance.ListTotals
	halves := []*bun.SelectQuery{whereExpenses(from(), userID, f)}
	if match != nil {
		halves = match.halves(from, userID, f) // disjoint: a split expense has no category of its own
	}
	for _, q := range halves {
		var groups []countedGroup
		if err := q.Scan(ctx, &groups); err != nil {
			return finance.ListTotals{}, err
		}
		t := totalsOf(groups)
		sum.Count += t.Count
		sum.Groups = append(sum.Groups, t.Groups...)
	}
	return sum, nil
}

// otherCurrencyDays sums the user's expenses of status in currencies other
// than reporting, per currency and date: from the kept day rows
// (spending_days, each expense once) for active ones, a read of all the
// user's day rows; from the rows for voided ones, which are few. Only a
// user whose expense_counts name another currency needs it.
func (l ledger) otherCurrencyDays(ctx context.Context, userID, reporting, status string) ([]finance.DatedAmount, error) {
	var out []finance.DatedAmount
	q := l.db.NewSelect().Where("x.currency <> ?", reporting).GroupExpr("x.currency, x.date").OrderExpr("x.currency, x.date")
	if status == finance.StatusActive {
		q = q.TableExpr("spending_days AS x").ColumnExpr("x.currency, x.date, sum(x.expense_amount) AS amount").
			Where("x.user_id = ?", userID).Having("sum(x.expense_count) > 0")
	} else {
		q = q.TableExpr("expenses AS x").ColumnExpr("x.currency, x.date, sum(x.amount) AS amount").
			Where("x.user_seq = "+userSeqOf+" AND x.status = ?", userID, status)
	}
	err := q.Scan(ctx, &out)
	return out, err
}

type splitRow struct {
	bun.BaseModel `bun:"table:expense_splits,alias:s"`
	finance.ExpenseSplit
	UserID    string
	ExpenseID string
	Position  int
}

// withSplits fills the parts of expenses (in order) with one query.
func (l ledger) withSplits(ctx context.Context, expenses []finance.Expense) error {
	if len(expenses) == 0 {
		return nil
	}
	ids := make([]string, len(expenses))
	for i, e := range expenses {
		ids[i] = e.ID
		expenses[i].Splits, expenses[i].IsSplit = []finance.ExpenseSplit{}, false
	}
	var rows []splitRow
	err := l.db.NewSelect().Model(&rows).ExcludeColumn("category").ColumnExpr("cat.name AS category").
		Join("JOIN categories AS cat ON cat.id = s.category_id").
		Where("s.expense_id IN (?)", bun.In(ids)).
		OrderExpr("s.expense_id, s.position").
		Scan(ctx)
	if err != nil || len(rows) == 0 {
		return err
	}
	byID := make(map[string]int, len(expenses))
	for i, e := range expenses {
		byID[e.ID] = i
	}
	for _, r := range rows {
		e := &expenses[byID[r.ExpenseID]]
		e.Splits, e.IsSplit = append(e.Splits, r.ExpenseSplit), true
	}
	return nil
}

func (l ledger) InsertExpense(ctx context.Context, userID string, e finance.Expense) error {
	if st := l.stmt(ctx, func(h *hotStatements) *sql.Stmt { return h.insertExpense }); st != nil {
		return insertExpense(ctx, st, userID, e)
	}
	_, err := l.db.NewInsert().Model(&expenseRow{Expense: e, UserID: userID}).ExcludeColumn(expenseComputed...).
		Value("user_seq", userSeqOf, userID).Exec(ctx)
	return err
}

func (l ledger) UpdateExpense(ctx context.Context, userID string, e finance.Expense) error {
	_, err := l.db.NewUpdate().Model(&expenseRow{Expense: e, UserID: userID}).
		ExcludeColumn(append([]string{"created_at"}, expenseComputed...)...).
		Where("id = ? AND user_id = ?", e.ID, userID).Exec(ctx)
	return err
}

func (l ledger) ReplaceSplits(ctx context.Context, userID, expenseID string, parts []finance.ExpenseSplit) error {
	_, err := l.db.NewDelete().TableExpr("expense_splits").Where("expense_id = ? AND user_id = ?", expenseID, userID).Exec(ctx)
	if err != nil || len(parts) == 0 {
		return err
	}
	rows := make([]splitRow, len(parts))
	for i, p := range parts {
		rows[i] = splitRow{ExpenseSplit: p, UserID: userID, ExpenseID: expenseID, Position: i}
	}
	_, err = l.db.NewInsert().Model(&rows).ExcludeColumn("category").Exec(ctx)
	return err
}

// ExpenseTotals sums the expenses dated from..to from the totals that
// triggers keep in the writing transaction (keptExpenseRows: the months of
// the range and the days at its ends): per payment method each expense
// once, per category each expense with a category and each part of a split
// one. The database sums the range's kept rows per category and method
// once, and the few sums are added up here per method and per category.
// The reporting currency's sums have no date; another currency's are per
// day.
func (l ledger) ExpenseTotals(ctx context.Context, userID, reporting string, from, to finance.Date) (finance.ExpenseTotals, error) {
	var rows []struct {
		CategoryID        string
		Category          *string // none for the row of split expenses (category '')
		PaymentMethod     string
		Currency          string
		Date              finance.Date
		ExpenseAmount     finance.Money
		ExpenseCount      int
		ExpenseLineAmount finance.Money
		ExpenseLines      int
	}
	kept, err := l.keptExpenseRows(ctx, userID, reporting, from, to)
	if err != nil {
		return finance.ExpenseTotals{}, err
	}
	sums := l.db.NewSelect().TableExpr("(?) AS d", kept).
		ColumnExpr("d.category_id, d.payment_method, d.currency, d.date").
		ColumnExpr("SUM(d.expense_amount) AS expense_amount, SUM(d.expense_count) AS expense_count").
		ColumnExpr("SUM(d.expense_line_amount) AS expense_line_amount, SUM(d.expense_lines) AS expense_lines").
		GroupExpr("d.category_id, d.payment_method, d.currency, d.date").
		Having("SUM(d.expense_count) > 0 OR SUM(d.expense_lines) > 0")
	// The names join the sums, not the days.
	err = l.db.NewSelect().TableExpr("(?) AS s", sums).ColumnExpr("s.*, cat.name AS category").
		Join("LEFT JOIN categories AS cat ON cat.id = s.category_id").
		OrderExpr("s.payment_method, s.category_id, s.currency, s.date").
		Scan(ctx, &rows)
	var out finance.ExpenseTotals
	if err != nil {
		return out, err
	}
	type key struct {
		id, currency string
		date         finance.Date
	}
	methods, categories := map[key]int{}, map[key]int{}
	for _, r := range rows {
		if r.ExpenseCount > 0 {
			k := key{r.PaymentMethod, r.Currency, r.Date}
			i, ok := methods[k]
			if !ok {
				i, methods[k] = len(out.ByMethod), len(out.ByMethod)
				out.ByMethod = append(out.ByMethod, finance.MethodTotal{PaymentMethod: r.PaymentMethod, Currency: r.Currency, Date: r.Date})
			}
			out.ByMethod[i].Amount += r.ExpenseAmount
			out.ByMethod[i].Count += r.ExpenseCount
			out.Count += r.ExpenseCount
		}
		if r.ExpenseLines > 0 && r.Category != nil {
			k := key{r.CategoryID, r.Currency, r.Date}
			i, ok := categories[k]
			if !ok {
				i, categories[k] = len(out.ByCategory), len(out.ByCategory)
				out.ByCategory = append(out.ByCategory, finance.CategoryTotal{CategoryID: r.CategoryID, Category: *r.Category,
					Currency: r.Currency, Date: r.Date})
			}
			out.ByCategory[i].Amount += r.ExpenseLineAmount
			out.ByCategory[i].Count += r.ExpenseLines
		}
	}
	return out, nil
}

// RecentExpenseChoices reads the user's newest active expenses that have a
// category (split ones have none) in an active category, newest first: the
// history AI parsing learns the user's categories from. It walks the index
// expenses_active_created (user_seq, created_at, id) backwards and
// stops after limit rows, so its cost does not grow with the ledger.
func (l ledger) RecentExpenseChoices(ctx context.Context, userID string, limit int) ([]finance.ExpenseChoice, error) {
	var rows []struct {
		Description string `bun:"description"`
		Category    string `bun:"category"`
	}
	err := l.db.NewSelect().TableExpr("expenses AS e").
		ColumnExpr("e.description, cat.name AS category").
		Join("JOIN categories AS cat ON cat.id = e.category_id AND cat.status = ?", finance.StatusActive).
		Where("e.user_seq = "+userSeqOf+" AND e.status = ?", userID, finance.StatusActive).
		OrderExpr("e.created_at DESC, e.id DESC").Limit(int64(limit)).Scan(ctx, &rows)
	if err != nil {
		return nil, err
	}
	out := make([]finance.ExpenseChoice, len(rows))
	for i, r := range rows {
		out[i] = finance.ExpenseChoice{Description: r.Description, Category: r.Category}
	}
	return out, nil
}
