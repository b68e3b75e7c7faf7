package finance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// StatementRepo is the persistence of statements and their payments.
type StatementRepo interface {
	// StatementCursors returns the user's cards (archived ones included)
	// that have an unbilled row, with the date of the oldest.
	StatementCursors(ctx context.Context, userID string) ([]StatementCursor, error)
	// LiveStatementPeriods returns the periods of a card's non-voided
	// statements that end on or after from.
	LiveStatementPeriods(ctx context.Context, cardID string, from Date) ([]Period, error)
	// BillBacklog bills a card's backlog in one statement: every unbilled
	// row dated on or before the last bill's date goes to the first bill
	// (oldest first) whose date is on or after its own (status billed), as
	// billing one date at a time would. It returns the totals of each bill
	// that got a row, by statement id; a bill with none is left out.
	BillBacklog(ctx context.Context, userID, cardID string, bills []StatementBill, now time.Time) (map[string]SOATotals, error)
	// CardHasPayments reports whether any non-voided statement of a card has a posted payment.
	CardHasPayments(ctx context.Context, cardID string) (bool, error)
	// BillIntoUnpaid links the unbilled row rowID to the unpaid statement
	// whose period holds its date, if there is one, and returns its id.
	BillIntoUnpaid(ctx context.Context, userID, rowID string, now time.Time) (string, error)
	// SOATotals sums a statement's non-voided lines and posted payments.
	SOATotals(ctx context.Context, soaID string) (SOATotals, error)
	InsertSOA(ctx context.Context, userID string, a SOA) error
	UpdateSOA(ctx context.Context, userID string, a SOA) error
	// SOA returns a statement with CreditCardName; the derived fields are left for the caller.
	SOA(ctx context.Context, userID, id string) (SOA, error)
	// LiveSOA returns a card's non-voided statement of a statement date.
	LiveSOA(ctx context.Context, userID, cardID string, statementDate Date) (SOA, error)
	ListSOAs(ctx context.Context, userID string, f SOAFilter, p ListParams) ([]SOA, int, error)
	SOACounts(ctx context.Context, userID, cardID string, today, dueSoonEnd Date) (SOACounts, error)
	// SOALines returns every row on a statement (its lines and linked rows), oldest first.
	SOALines(ctx context.Context, userID, soaID string) ([]CardTransaction, error)
	// ReleaseSOA voids a statement's own lines and returns its linked rows
	// to unbilled, in two statements whatever the statement's size.
	ReleaseSOA(ctx context.Context, userID, soaID string, now time.Time) error

	InsertSOAPayment(ctx context.Context, userID string, p SOAPayment) error
	UpdateSOAPayment(ctx context.Context, userID string, p SOAPayment) error
	ListSOAPayments(ctx context.Context, userID, soaID string, f SOAPaymentFilter, p ListParams) ([]SOAPayment, int, error)
}

// StatementBill is one statement of a backlog to bill: the id the
// statement will have and its statement date.
type StatementBill struct {
	SOAID   string
	Through Date
}

// SOATotals are the sums a statement's stored totals are refreshed from.
type SOATotals struct {
	Charges Money // non-voided lines other than refunds
	Credits Money // non-voided refund lines
	Count   int   // non-voided lines
	Paid    Money // posted payments
}

// SOAFilter narrows GET /credit-cards/soa.
type SOAFilter struct {
	CardID   string
	Status   string // "" = every non-voided statement; or a value of SOAStatusFilters
	DateFrom Date   // on statement_date
	DateTo   Date
	Today    Date // for the overdue filter
}

// SOACounts is GET /credit-cards/soa/counts (domain.md §5.3).
type SOACounts struct {
	Unpaid        int `json:"unpaid"`
	PartiallyPaid int `json:"partially_paid"`
	Paid          int `json:"paid"`
	Voided        int `json:"voided"`
	Open          int `json:"open"`
	Overdue       int `json:"overdue"`
	DueSoon       int `json:"due_soon"`
	Total         int `json:"total"`
}

// List specs of domain.md §1.5.
var (
	SOAList        = ListSpec{Sorts: []string{"statement_date", "due_date", "statement_balance", "created_at"}, DefaultDesc: true}
	SOAPaymentList = ListSpec{Sorts: []string{"date", "amount", "created_at"}, DefaultDesc: true}
)

// ListSOAs returns a page of the user's statements.
func (s *Service) ListSOAs(ctx context.Context, userID string, f SOAFilter, p ListParams) (Page[SOA], error) {
	today := s.today(ctx, userID)
	f.Today = today
	items, total, err := s.store.Read().ListSOAs(ctx, userID, f, p)
	if err != nil {
		return Page[SOA]{}, err
	}
	for i := range items {
		items[i].derive(today)
	}
	return NewPage(items, total, p), nil
}

// GetSOA returns a statement (voided ones included) with all its lines.
func (s *Service) GetSOA(ctx context.Context, userID, id string) (SOADetail, error) {
	return s.soaDetail(ctx, s.store.Read(), userID, id, s.today(ctx, userID))
}

func (s *Service) soaDetail(ctx context.Context, r Repo, userID, id string, today Date) (SOADetail, error) {
	a, err := soaFigures(ctx, r, userID, id, today)
	if err != nil {
		return SOADetail{}, err
	}
	lines, err := r.SOALines(ctx, userID, id)
	if err != nil {
		return SOADetail{}, err
	}
	for i := range lines {
		lines[i].IsFuture = lines[i].Date.After(today)
	}
	if lines == nil {
		lines = []CardTransaction{}
	}
	return SOADetail{SOA: a, Transactions: lines}, nil
}

// soaFigures reads a statement without its lines, its figures derived as of today.
func soaFigures(ctx context.Context, r Repo, userID, id string, today Date) (SOA, error) {
	a, err := r.SOA(ctx, userID, id)
	if err != nil {
		return SOA{}, err
	}
	a.derive(today)
	return a, nil
}

// SOACounts counts the user's statements by state, for one card or all.
func (s *Service) SOACounts(ctx context.Context, userID, cardID string) (SOACounts, error) {
	today := s.today(ctx, userID)
	window := s.settingsOrDefault(ctx, userID).settings.DueSoonDays
	return s.store.Read().SOACounts(ctx, userID, cardID, today, today.AddDays(window))
}

// writableSOA loads a statement for a write: any write on a voided one is refused.
func writableSOA(ctx context.Context, tx Repo, userID, id string) (SOA, error) {
	a, err := tx.SOA(ctx, userID, id)
	if err != nil {
		return SOA{}, err
	}
	if a.Status == StatusVoided {
		return SOA{}, InvalidStatus("statement is voided; it can no longer change (its replacement is %s)", replacement(a))
	}
	return a, nil
}

func replacement(a SOA) string {
	if a.ReplacedByID == nil {
		return "none"
	}
	return *a.ReplacedByID
}

// SOARequest is the body of PUT /credit-cards/soa/{id}.
type SOARequest struct {
	DueDate    Field[Date]   `json:"due_date"`
	MinimumDue Field[Money]  `json:"minimum_due"`
	Notes      Field[string] `json:"notes"`
}

// UpdateSOA sets a statement's due date, minimum due (null reverts to the
// computed one) and notes. The balance is never set: it is its lines' sum.
func (s *Service) UpdateSOA(ctx context.Context, userID, soaID string, r SOARequest) (SOA, error) {
	a, _, err := s.changeSOA(ctx, userID, soaID, func(tx Repo, a *SOA, today Date) ([]string, error) {
		var v Validator
		if r.DueDate.Set {
			if d := v.RequiredDate("due_date", r.DueDate); !v.Has("due_date") {
				if !d.After(a.StatementDate) {
					v.Add("due_date", "must be after the statement date "+a.StatementDate.String())
				}
				a.DueDate = d
			}
		}
		switch {
		case r.MinimumDue.Null:
			a.MinimumDueSource = MinimumDueComputed
		case Readable(&v, "minimum_due", r.MinimumDue):
			switch m := r.MinimumDue.Value; {
			case m < 0:
				v.Add("minimum_due", "must be 0 or greater")
			case m > max(0, a.StatementBalance):
				v.Add("minimum_due", "must not exceed the statement balance "+a.StatementBalance.String())
			default:
				a.MinimumDue, a.MinimumDueSource = m, MinimumDueUser
			}
		}
		if r.Notes.Set {
			a.Notes = v.OptionalText("notes", r.Notes, MaxNotes)
		}
		if err := v.Err(); err != nil {
			return nil, err
		}
		if a.Status == StatusVoided {
			return nil, InvalidStatus("statement is voided; it can no longer change")
		}
		if err := s.recomputeSOA(ctx, tx, userID, a, today); err != nil {
			return nil, err
		}
		if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &a.CreditCardID, EntityType: LogSOA, EntityID: a.ID,
			Action: LogUpdated, Message: fmt.Sprintf("Statement of %s updated: due %s, minimum due %s", a.StatementDate, a.DueDate, a.MinimumDue)}); err != nil {
			return nil, err
		}
		return nil, nil
	})
	return a, err
}

// changeSOA runs change on the statement soaID in one write transaction,
// then generates what is now due and reads back the statement's figures and
// the rows whose ids change returns, so a write's reply shows the state it
// committed. The reply holds those rows, never every line of the statement
// (GET /credit-cards/soa/{id} lists them), so it keeps its size however
// many lines the statement has.
func (s *Service) changeSOA(ctx context.Context, userID, soaID string,
	change func(tx Repo, a *SOA, today Date) (rowIDs []string, err error),
) (SOA, []CardTransaction, error) {
	today := s.today(ctx, userID)
	var out SOA
	var rows []CardTransaction
	err := s.store.Write(ctx, func(tx Repo) error {
		a, err := tx.SOA(ctx, userID, soaID)
		if err != nil {
			return err
		}
		ids, err := change(tx, &a, today)
		if err != nil {
			return err
		}
		if out, err = s.finishSOAWrite(ctx, tx, userID, soaID, today); err != nil {
			return err
		}
		for _, id := range ids {
			t, err := tx.CardTransaction(ctx, userID, id)
			if err != nil {
				return err
			}
			t.IsFuture = t.Date.After(today)
			rows = append(rows, t)
		}
		return nil
	})
	return out, rows, err
}

// finishSOAWrite generates whatever is now due and reads the statement's
// figures back, so a write's reply shows the state it committed.
func (s *Service) finishSOAWrite(ctx context.Context, tx Repo, userID, id string, today Date) (SOA, error) {
	if err := s.generate(ctx, tx, userID, today); err != nil {
		return SOA{}, err
	}
	return soaFigures(ctx, tx, userID, id, today)
}

// SOALineResult is the reply of a write on one row of a statement (a line
// added, changed or removed): the row after it and the statement's figures.
type SOALineResult struct {
	Transaction CardTransaction `json:"transaction"`
	SOA         SOA             `json:"soa"`
}

// SOALinkResult is the reply of a link: the rows linked, in the order
// given, and the statement's figures after it.
type SOALinkResult struct {
	Transactions []CardTransaction `json:"transactions"`
	SOA          SOA               `json:"soa"`
}

// lineResult is the reply of a write on the one row of rows.
func lineResult(a SOA, rows []CardTransaction, err error) (SOALineResult, error) {
	if err != nil {
		return SOALineResult{}, err
	}
	return SOALineResult{Transaction: rows[0], SOA: a}, nil
}

// SOALineRequest is the body of POST /credit-cards/soa/{id}/transactions and
// of PUT /credit-cards/soa/{id}/transactions/{transactionId}.
type SOALineRequest struct {
	Type        Field[string] `json:"type"`
	Amount      Field[Money]  `json:"amount"`
	Description Field[string] `json:"description"`
	Category    Field[string] `json:"category"`
	Date        Field[Date]   `json:"date"`
}

// SOALineTypes are the types of a statement's own lines.
var SOALineTypes = []string{CardFee, CardInterest, CardRefund}

// shape validates r over the line cur (create: a new line dated on the
// statement date) and returns the category name to resolve, if any.
func (r SOALineRequest) shape(v *Validator, cur *CardTransaction, a SOA, create bool) string {
	if create || r.Type.Set {
		cur.Type = requiredEnum(v, "type", r.Type, strings.Join(SOALineTypes, ", "),
			func(s string) bool { return slices.Contains(SOALineTypes, s) })
	}
	if create || r.Amount.Set {
		cur.Amount = v.RequiredMoney("amount", r.Amount)
	}
	if create || r.Description.Set {
		cur.Description = v.RequiredText("description", r.Description, MaxDescription)
	}
	switch {
	case r.Date.Set && !r.Date.Null:
		cur.Date = v.RequiredDate("date", r.Date)
	case create || r.Date.Null: // the default: the statement date
		cur.Date = a.StatementDate
	}
	if !v.Has("date") && cur.Date.After(a.StatementDate) {
		v.Add("date", "must not be after the statement date "+a.StatementDate.String())
	}
	category := ""
	switch cur.Type {
	case CardRefund:
		if create || r.Category.Set || cur.CategoryID == nil {
			category = v.RequiredText("category", r.Category, MaxName)
		}
	case CardFee, CardInterest:
		if r.Category.Set && !r.Category.Null {
			v.Add("category", "must be absent for "+cur.Type+" lines; they count under "+CategoryCardFees)
		}
		cur.CategoryID, cur.Category = nil, nil
	}
	return category
}

// AddSOALine adds a fee, interest or refund line to a statement: a card row
// already billed to it (§2.8). Archived cards still take statement lines.
func (s *Service) AddSOALine(ctx context.Context, userID, soaID string, r SOALineRequest) (SOALineResult, error) {
	return lineResult(s.changeSOA(ctx, userID, soaID, func(tx Repo, a *SOA, today Date) ([]string, error) {
		var v Validator
		now := s.stamp()
		t := CardTransaction{ID: NewID(), CreditCardID: a.CreditCardID, Status: CardBilled, SOAID: &a.ID,
			IsSOALine: true, CreatedAt: now, UpdatedAt: now}
		category := r.shape(&v, &t, *a, true)
		if err := v.Err(); err != nil {
			return nil, err
		}
		if a.Status == StatusVoided {
			return nil, InvalidStatus("statement is voided; add the line to its replacement (%s)", replacement(*a))
		}
		if category != "" {
			cat, _, err := newRefs(tx, userID, today).expenseCategory(ctx, &v, "category", category)
			if err != nil {
				return nil, err
			}
			t.CategoryID = &cat.ID
		}
		if err := v.Err(); err != nil {
			return nil, err
		}
		if err := tx.InsertCardTransaction(ctx, userID, t); err != nil {
			return nil, err
		}
		if err := s.recomputeSOA(ctx, tx, userID, a, today); err != nil {
			return nil, err
		}
		if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &a.CreditCardID, EntityType: LogCardTransaction, EntityID: t.ID,
			Action: LogCreated, Message: fmt.Sprintf("%s line %q added to the statement of %s", titleCase(t.Type), t.Description, a.StatementDate),
			Amount: &t.Amount}); err != nil {
			return nil, err
		}
		return []string{t.ID}, nil
	}))
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// LinkRequest is the body of POST /credit-cards/soa/{id}/transactions/link.
type LinkRequest struct {
	TransactionIDs Field[[]string] `json:"transaction_ids"`
}

// MaxLinkIDs bounds one link request.
const MaxLinkIDs = 100

// LinkToSOA bills unbilled rows of the statement's card to it, all or none.
func (s *Service) LinkToSOA(ctx context.Context, userID, soaID string, r LinkRequest) (SOALinkResult, error) {
	var v Validator
	ids := []string{}
	if Readable(&v, "transaction_ids", r.TransactionIDs) {
		ids = r.TransactionIDs.Value
		if n := len(ids); n < 1 || n > MaxLinkIDs {
			v.Add("transaction_ids", fmt.Sprintf("must hold 1 to %d transaction ids (got %d)", MaxLinkIDs, n))
		}
	} else if !v.Has("transaction_ids") {
		v.Add("transaction_ids", "is required")
	}
	if err := v.Err(); err != nil {
		return SOALinkResult{}, err
	}
	a, rows, err := s.changeSOA(ctx, userID, soaID, func(tx Repo, a *SOA, today Date) ([]string, error) {
		if a.Status == StatusVoided {
			return nil, InvalidStatus("statement is voided; link the transactions to its replacement (%s)", replacement(*a))
		}
		rows, err := s.linkable(ctx, tx, userID, *a, ids)
		if err != nil {
			return nil, err
		}
		now := s.stamp()
		linked := make([]string, len(rows))
		for i, t := range rows {
			linked[i] = t.ID
			t.Status, t.SOAID, t.UpdatedAt = CardBilled, &a.ID, now
			if err := tx.UpdateCardTransaction(ctx, userID, t); err != nil {
				return nil, err
			}
			if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &a.CreditCardID, EntityType: LogCardTransaction, EntityID: t.ID,
				Action: LogLinked, Message: fmt.Sprintf("%q linked to the statement of %s", t.Description, a.StatementDate),
				Amount: &t.Amount}); err != nil {
				return nil, err
			}
		}
		if err := s.recomputeSOA(ctx, tx, userID, a, today); err != nil {
			return nil, err
		}
		if err := s.settlePlans(ctx, tx, userID, a.CreditCardID); err != nil {
			return nil, err
		}
		return linked, nil
	})
	if err != nil {
		return SOALinkResult{}, err
	}
	return SOALinkResult{Transactions: rows, SOA: a}, nil
}

// linkable loads the rows a link request names: every one must be a row of
// the statement's card dated on or before its statement date (else
// VALIDATION_ERROR at its index) and unbilled (else INVALID_STATUS).
func (s *Service) linkable(ctx context.Context, tx Repo, userID string, a SOA, ids []string) ([]CardTransaction, error) {
	var v Validator
	rows := make([]CardTransaction, 0, len(ids))
	seen := map[string]bool{}
	for i, id := range ids {
		field := fmt.Sprintf("transaction_ids[%d]", i)
		id = strings.TrimSpace(id)
		if seen[id] {
			v.Add(field, "repeats an earlier id")
			continue
		}
		seen[id] = true
		if !ValidID(id) {
			v.Add(field, "must be the id of a transaction on this statement's card")
			continue
		}
		t, err := tx.CardTransaction(ctx, userID, id)
		switch {
		case errors.Is(err, ErrNotFound) || (err == nil && t.CreditCardID != a.CreditCardID):
			v.Add(field, "must be the id of a transaction on this statement's card")
			continue
		case err != nil:
			return nil, err
		case t.Date.After(a.StatementDate):
			v.Add(field, fmt.Sprintf("is dated %s, after the statement date %s; it belongs on a later statement", t.Date, a.StatementDate))
			continue
		}
		rows = append(rows, t)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	for _, t := range rows {
		if t.Status != CardUnbilled {
			return nil, InvalidStatus("card transaction %s is %s; only unbilled transactions can be linked", t.ID, t.Status)
		}
	}
	return rows, nil
}

// soaRow loads a row that must be on the statement a (else 404).
func soaRow(ctx context.Context, tx Repo, userID string, a SOA, txID string) (CardTransaction, error) {
	t, err := tx.CardTransaction(ctx, userID, txID)
	if err != nil {
		return CardTransaction{}, err
	}
	if t.SOAID == nil || *t.SOAID != a.ID {
		return CardTransaction{}, NotFound("transaction on this statement")
	}
	return t, nil
}

// UpdateSOALine changes a statement line (type, amount, date, description,
// a refund's category) or a linked row's description; a linked row's money
// fields change only after it is un-linked.
func (s *Service) UpdateSOALine(ctx context.Context, userID, soaID, txID string, r SOALineRequest) (SOALineResult, error) {
	return lineResult(s.changeSOA(ctx, userID, soaID, func(tx Repo, a *SOA, today Date) ([]string, error) {
		cur, err := soaRow(ctx, tx, userID, *a, txID)
		if err != nil {
			return nil, err
		}
		var v Validator
		next := cur
		var category string
		if cur.IsSOALine {
			category = r.shape(&v, &next, *a, false)
		} else {
			if r.Description.Set {
				next.Description = v.RequiredText("description", r.Description, MaxDescription)
			}
		}
		if err := v.Err(); err != nil {
			return nil, err
		}
		switch {
		case a.Status == StatusVoided:
			return nil, InvalidStatus("statement is voided; it can no longer change")
		case cur.Status == StatusVoided:
			return nil, InvalidStatus("statement line is voided and cannot be changed")
		case !cur.IsSOALine && (r.Type.Set || r.Amount.Set || r.Date.Set || r.Category.Set):
			return nil, InvalidStatus("a linked transaction keeps its type, amount, date and category on the statement; un-link it to change them, or change its category with PUT /credit-cards/transactions/{id}")
		}
		if category != "" {
			cat, _, err := newRefs(tx, userID, today).expenseCategory(ctx, &v, "category", category)
			if err != nil {
				return nil, err
			}
			if err := v.Err(); err != nil {
				return nil, err
			}
			next.CategoryID = &cat.ID
		}
		now := s.stamp()
		next.UpdatedAt = now
		if next.ExpenseID != nil {
			e, err := tx.Expense(ctx, userID, *next.ExpenseID)
			if err != nil {
				return nil, err
			}
			if err := s.syncPurchaseExpense(ctx, tx, userID, e, next, e.Currency, false, Category{}, now); err != nil {
				return nil, err
			}
		}
		if err := tx.UpdateCardTransaction(ctx, userID, next); err != nil {
			return nil, err
		}
		if err := s.recomputeSOA(ctx, tx, userID, a, today); err != nil {
			return nil, err
		}
		if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &a.CreditCardID, EntityType: LogCardTransaction, EntityID: next.ID,
			Action: LogUpdated, Message: fmt.Sprintf("%q on the statement of %s updated", next.Description, a.StatementDate),
			Amount: &next.Amount}); err != nil {
			return nil, err
		}
		return []string{next.ID}, nil
	}))
}

// RemoveSOALine voids a statement line, or un-links a linked row back to
// unbilled so the next generated statement takes it. It returns the statement.
func (s *Service) RemoveSOALine(ctx context.Context, userID, soaID, txID string) (SOALineResult, error) {
	return lineResult(s.changeSOA(ctx, userID, soaID, func(tx Repo, a *SOA, today Date) ([]string, error) {
		t, err := soaRow(ctx, tx, userID, *a, txID)
		if err != nil {
			return nil, err
		}
		switch {
		case a.Status == StatusVoided:
			return nil, InvalidStatus("statement is voided; it can no longer change")
		case t.Status == StatusVoided:
			return nil, InvalidStatus("statement line is already voided")
		}
		now := s.stamp()
		t.UpdatedAt = now
		action, message := LogUnlinked, fmt.Sprintf("%q un-linked from the statement of %s; the next statement takes it", t.Description, a.StatementDate)
		if t.IsSOALine {
			t.Status, t.VoidedAt = StatusVoided, &now
			action, message = LogVoided, fmt.Sprintf("%s line %q voided on the statement of %s", titleCase(t.Type), t.Description, a.StatementDate)
		} else {
			t.Status, t.SOAID = CardUnbilled, nil
		}
		if err := tx.UpdateCardTransaction(ctx, userID, t); err != nil {
			return nil, err
		}
		if err := s.recomputeSOA(ctx, tx, userID, a, today); err != nil {
			return nil, err
		}
		if err := s.settlePlans(ctx, tx, userID, a.CreditCardID); err != nil {
			return nil, err
		}
		if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &a.CreditCardID, EntityType: LogCardTransaction, EntityID: t.ID,
			Action: action, Message: message, Amount: &t.Amount}); err != nil {
			return nil, err
		}
		return []string{t.ID}, nil
	}))
}

// VoidSOA resets a statement (§2.8): its lines are voided, its linked rows
// return to unbilled, its payments and their account debits are voided, and
// its totals are frozen. Generation then bills the released rows on a fresh
// statement for the same date, which replaced_by_id names.
func (s *Service) VoidSOA(ctx context.Context, userID, soaID string) (SOA, error) {
	today := s.today(ctx, userID)
	var out SOA
	err := s.store.Write(ctx, func(tx Repo) error {
		a, err := writableSOA(ctx, tx, userID, soaID)
		if err != nil {
			return err
		}
		now := s.stamp()
		payments, _, err := tx.ListSOAPayments(ctx, userID, a.ID, SOAPaymentFilter{Status: PaymentPosted},
			ListParams{Page: 1, Limit: allRows, SortBy: SOAPaymentList.Sorts[0]})
		if err != nil {
			return err
		}
		for _, p := range payments {
			if err := s.voidLine(ctx, tx, userID, p.AccountTransactionID); err != nil {
				return err
			}
			p.Status, p.VoidedAt, p.UpdatedAt = StatusVoided, &now, now
			if err := tx.UpdateSOAPayment(ctx, userID, p); err != nil {
				return err
			}
			if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &a.CreditCardID, EntityType: LogSOAPayment, EntityID: p.ID,
				Action: LogVoided, Message: fmt.Sprintf("Payment of %s on the statement of %s voided with the statement", p.Amount, a.StatementDate),
				Amount: &p.Amount}); err != nil {
				return err
			}
		}
		if err := releaseSOA(ctx, tx, userID, &a, now); err != nil {
			return err
		}
		if err := s.rebill(ctx, tx, userID, today, []SOA{a}); err != nil {
			return err
		}
		out, err = soaFigures(ctx, tx, userID, soaID, today)
		return err
	})
	return out, err
}

// releaseSOA voids a statement: its own lines are voided and its linked
// rows return to unbilled. Generation (rebill) bills them again.
func releaseSOA(ctx context.Context, tx Repo, userID string, a *SOA, now time.Time) error {
	if err := tx.ReleaseSOA(ctx, userID, a.ID, now); err != nil {
		return err
	}
	a.Status, a.VoidedAt, a.UpdatedAt = StatusVoided, &now, now
	return tx.UpdateSOA(ctx, userID, *a)
}

// FindSOA returns a statement without its lines (path checks).
func (s *Service) FindSOA(ctx context.Context, userID, id string) (SOA, error) {
	return s.store.Read().SOA(ctx, userID, id)
}

// FindSOATransaction returns a row that is on the statement soaID (else 404).
func (s *Service) FindSOATransaction(ctx context.Context, userID, soaID, txID string) (CardTransaction, error) {
	r := s.store.Read()
	a, err := r.SOA(ctx, userID, soaID)
	if err != nil {
		return CardTransaction{}, err
	}
	return soaRow(ctx, r, userID, a, txID)
}
