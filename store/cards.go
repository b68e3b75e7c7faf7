package store

import (
	"context"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type creditCardRow struct {
	bun.BaseModel `bun:"table:credit_cards,alias:c"`
	finance.CreditCard
	UserID  string
	NameKey string
}

// cardFigureColumns are the CreditCard fields computed on read (§4.3), not stored.
var cardFigureColumns = []string{"outstanding_balance", "available_credit", "utilization_percent", "unbilled_total",
	"open_statement_balance", "next_statement_date", "next_due_date", "open_soa_count"}

func (l ledger) selectCards(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(cardFigureColumns...)
}

func (l ledger) CreditCard(ctx context.Context, userID, id string, today finance.Date) (finance.CreditCard, error) {
	var row creditCardRow
	if err := l.selectCards(&row).Where("c.id = ? AND c.user_id = ?", id, userID).Scan(ctx); err != nil {
		return finance.CreditCard{}, notFound(err, "credit card")
	}
	cards := []finance.CreditCard{row.CreditCard}
	if err := l.withFigures(ctx, cards, today); err != nil {
		return finance.CreditCard{}, err
	}
	return cards[0], nil
}

func (l ledger) ActiveCreditCardByName(ctx context.Context, userID, name string) (finance.CreditCard, error) {
	var row creditCardRow
	err := l.selectCards(&row).Where("c.user_id = ? AND c.name_key = ? AND c.status = 'active'", userID, nameKey(name)).Scan(ctx)
	return row.CreditCard, notFound(err, "credit card")
}

var cardSorts = map[string]string{"name": "c.name_key", "credit_limit": "c.credit_limit", "created_at": "c.created_at"}

func (l ledger) ListCreditCards(ctx context.Context, userID string, f finance.CardFilter, p finance.ListParams, today finance.Date) ([]finance.CreditCard, int, error) {
	var rows []creditCardRow
	q := l.selectCards(&rows).Where("c.user_id = ?", userID)
	if f.Status != finance.StatusAll {
		q = q.Where("c.status = ?", f.Status)
	}
	q = searchAny(q, f.Search, "c.name", "c.bank", "c.notes")
	total, err := orderPage(q, cardSorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.CreditCard, len(rows))
	for i, r := range rows {
		out[i] = r.CreditCard
	}
	return out, int(total), l.withFigures(ctx, out, today)
}

// withFigures computes the figures of cards with three queries: the totals
// of their unbilled and billed rows (card_totals, kept by triggers), their
// posted payments (soa_payments_card) and their open statements (soas_card).
func (l ledger) withFigures(ctx context.Context, cards []finance.CreditCard, today finance.Date) error {
	if len(cards) == 0 {
		return nil
	}
	ids := make([]string, len(cards))
	for i, c := range cards {
		ids[i] = c.ID
	}
	var sums []struct {
		CreditCardID    string
		Charges         finance.Money
		Credits         finance.Money
		UnbilledCharges finance.Money
		UnbilledCredits finance.Money
	}
	err := l.db.NewSelect().TableExpr("card_totals AS t").
		Column("t.credit_card_id", "t.charges", "t.credits", "t.unbilled_charges", "t.unbilled_credits").
		Where("t.credit_card_id IN (?)", bun.In(ids)).
		Scan(ctx, &sums)
	if err != nil {
		return err
	}
	totals := make(map[string]finance.CardTotals, len(sums))
	for _, s := range sums {
		totals[s.CreditCardID] = finance.CardTotals{Charges: s.Charges, Credits: s.Credits,
			UnbilledCharges: s.UnbilledCharges, UnbilledCredits: s.UnbilledCredits}
	}
	var payments []struct {
		CreditCardID string
		Paid         finance.Money
	}
	err = l.db.NewSelect().TableExpr("soa_payments AS p").
		Column("p.credit_card_id").ColumnExpr("SUM(p.amount) AS paid").
		Where("p.credit_card_id IN (?) AND p.status = 'posted'", bun.In(ids)).
		Group("p.credit_card_id").
		Scan(ctx, &payments)
	if err != nil {
		return err
	}
	for _, p := range payments {
		t := totals[p.CreditCardID]
		t.Payments = p.Paid
		totals[p.CreditCardID] = t
	}
	var open []struct {
		CreditCardID string
		Remaining    finance.Money
		Count        int
		NextDue      *finance.Date
	}
	err = l.db.NewSelect().TableExpr("soas AS s").
		Column("s.credit_card_id").
		ColumnExpr("SUM("+dialectOf(l.db).greatest("0", "s.statement_balance - s.paid_total")+") AS remaining").
		ColumnExpr("COUNT(*) AS count").
		ColumnExpr("MIN(s.due_date) AS next_due").
		Where("s.credit_card_id IN (?) AND s.status IN ('unpaid', 'partially_paid')", bun.In(ids)).
		Group("s.credit_card_id").
		Scan(ctx, &open)
	if err != nil {
		return err
	}
	for _, o := range open {
		t := totals[o.CreditCardID]
		t.OpenStatementBalance, t.OpenSOACount = o.Remaining, o.Count
		if o.NextDue != nil {
			t.NextDueDate = *o.NextDue
		}
		totals[o.CreditCardID] = t
	}
	for i := range cards {
		cards[i].CardFigures = cards[i].Figures(totals[cards[i].ID], today)
	}
	return nil
}

func (l ledger) InsertCreditCard(ctx context.Context, userID string, c finance.CreditCard) error {
	l.changed() // the statement cursors (lookups.go)
	row := creditCardRow{CreditCard: c, UserID: userID, NameKey: nameKey(c.Name)}
	_, err := l.db.NewInsert().Model(&row).ExcludeColumn(cardFigureColumns...).Exec(ctx)
	return err
}

func (l ledger) UpdateCreditCard(ctx context.Context, userID string, c finance.CreditCard) error {
	l.changed() // the statement cursors (lookups.go)
	row := creditCardRow{CreditCard: c, UserID: userID, NameKey: nameKey(c.Name)}
	_, err := l.db.NewUpdate().Model(&row).ExcludeColumn(append([]string{"created_at"}, cardFigureColumns...)...).
		Where("id = ? AND user_id = ?", c.ID, userID).Exec(ctx)
	return err
}

type cardTransactionRow struct {
	bun.BaseModel `bun:"table:card_transactions,alias:t"`
	finance.CardTransaction
	UserID string
	// SOAColumn carries soa_id: bun would name the embedded SOAID field "soaid".
	SOAColumn *string `bun:"soa_id"`
}

// cardRowComputed are the CardTransaction fields that are not columns (or,
// for soaid, the misnamed column SOAColumn replaces; warnings are the
// answer of a write, never stored).
var cardRowComputed = []string{"credit_card_name", "currency", "category", "is_future", "soaid", "warnings"}

// cardRowWriteSkipped are the columns an insert or update of a card row
// leaves alone: cleared is written only by ClearedRepo's statements.
var cardRowWriteSkipped = append([]string{"cleared"}, cardRowComputed...)

func newCardTransactionRow(userID string, t finance.CardTransaction) cardTransactionRow {
	if t.Type == finance.CardPurchase {
		t.CategoryID = nil // a purchase's category lives on its expense
	}
	return cardTransactionRow{CardTransaction: t, UserID: userID, SOAColumn: t.SOAID}
}

func (r cardTransactionRow) transaction() finance.CardTransaction {
	t := r.CardTransaction
	t.SOAID = r.SOAColumn
	return t
}

// selectCardRows reads rows with the card's name and the category: the
// row's own (refunds) or, for a purchase, its expense's.
func (l ledger) selectCardRows(rows any) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).ExcludeColumn(append([]string{"category_id"}, cardRowComputed...)...).
		ColumnExpr("COALESCE(t.category_id, e.category_id) AS category_id").
		ColumnExpr("cat.name AS category").
		ColumnExpr("cc.name AS credit_card_name").ColumnExpr("cc.currency AS currency").
		Join("JOIN credit_cards AS cc ON cc.id = t.credit_card_id").
		Join("LEFT JOIN expenses AS e ON e.id = t.expense_id").
		Join("LEFT JOIN categories AS cat ON cat.id = COALESCE(t.category_id, e.category_id)")
}

func (l ledger) CardTransaction(ctx context.Context, userID, id string) (finance.CardTransaction, error) {
	var row cardTransactionRow
	err := l.selectCardRows(&row).Where("t.id = ? AND t.user_id = ?", id, userID).Scan(ctx)
	return row.transaction(), notFound(err, "card transaction")
}

var cardRowSorts = map[string]string{"date": "t.date", "amount": "t.amount", "created_at": "t.created_at"}

func (l ledger) ListCardTransactions(ctx context.Context, userID string, f finance.CardTransactionFilter, p finance.ListParams) ([]finance.CardTransaction, finance.ListTotals, error) {
	var rows []cardTransactionRow
	q := l.selectCardRows(&rows).Where("t.user_id = ?", userID)
	if f.Status == "" {
		q = q.Where("t.status IN ('unbilled', 'billed', 'converted')")
	} else {
		q = q.Where("t.status = ?", f.Status)
	}
	if f.CardID != "" {
		q = q.Where("t.credit_card_id = ?", f.CardID)
	}
	if f.Type != "" {
		q = q.Where("t.type = ?", f.Type)
	}
	if !f.DateFrom.IsZero() {
		q = q.Where("t.date >= ?", f.DateFrom)
	}
	if !f.DateTo.IsZero() {
		q = q.Where("t.date <= ?", f.DateTo)
	}
	if f.Category != "" {
		cats := l.categoryIDsNamed(userID, f.Category)
		q = q.Where("(t.category_id IN (?) OR e.category_id IN (?) OR t.expense_id IN (?))",
			cats, cats, l.splitExpenseIDs(userID, cats))
	}
	q = searchAny(q, f.Search, "t.description")
	// What the rows add to what is owed: refunds subtract, and a purchase
	// converted to installments counts nothing, as its plan's rows carry it.
	sum, err := l.pageAndSummary(ctx, q, cardRowSorts[p.SortBy], p,
		"CASE WHEN s.status = 'converted' THEN 0 WHEN s.type = 'refund' THEN -s.amount ELSE s.amount END", "currency")
	if err != nil {
		return nil, sum, err
	}
	out := make([]finance.CardTransaction, len(rows))
	for i, r := range rows {
		out[i] = r.transaction()
	}
	return out, sum, nil
}

// categoryIDsNamed selects the ids of the user's expense categories with a
// name, case-insensitively, archived ones included (the category filter).
func (l ledger) categoryIDsNamed(userID, name string) *bun.SelectQuery {
	return l.db.NewSelect().TableExpr("categories").Column("id").
		Where("user_id = ? AND kind = 'expense' AND name_key = ?", userID, nameKey(name))
}

// splitExpenseIDs selects the ids of the expenses with a split part in one of cats.
func (l ledger) splitExpenseIDs(userID string, cats *bun.SelectQuery) *bun.SelectQuery {
	return l.db.NewSelect().TableExpr("expense_splits").Column("expense_id").
		Where("user_id = ? AND category_id IN (?)", userID, cats)
}

func (l ledger) InsertCardTransaction(ctx context.Context, userID string, t finance.CardTransaction) error {
	l.changed() // the statement cursors (lookups.go)
	row := newCardTransactionRow(userID, t)
	_, err := l.db.NewInsert().Model(&row).ExcludeColumn(cardRowWriteSkipped...).Exec(ctx)
	return err
}

func (l ledger) UpdateCardTransaction(ctx context.Context, userID string, t finance.CardTransaction) error {
	l.changed() // the statement cursors (lookups.go)
	row := newCardTransactionRow(userID, t)
	_, err := l.db.NewUpdate().Model(&row).ExcludeColumn(append([]string{"created_at"}, cardRowWriteSkipped...)...).
		Where("id = ? AND user_id = ?", t.ID, userID).Exec(ctx)
	return err
}

func (l ledger) CardSpending(ctx context.Context, userID string, from, to finance.Date) (finance.CardSpending, error) {
	var out finance.CardSpending
	err := l.db.NewSelect().TableExpr("card_transactions AS t").
		ColumnExpr(`COALESCE(SUM(CASE WHEN t.type IN ('fee', 'interest') THEN t.amount
			WHEN t.type = 'installment' THEN COALESCE(t.interest_portion, 0) ELSE 0 END), 0) AS fees_interest`).
		ColumnExpr("COALESCE(SUM(CASE WHEN t.type = 'refund' THEN t.amount ELSE 0 END), 0) AS refunds").
		Where("t.user_id = ? AND t.status IN ('unbilled', 'billed') AND t.date >= ? AND t.date <= ?", userID, from, to).
		// The terms of the partial index card_transactions_user_spending:
		// a seek of the user's few spending rows, no purchase visited.
		Where("t.type <> 'purchase'").
		Scan(ctx, &out.FeesInterest, &out.Refunds)
	return out, err
}
