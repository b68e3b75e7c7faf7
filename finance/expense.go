package finance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Payment methods of an expense (spec section 2). Input may use any letter
// case (ParsePaymentMethod); records and answers always carry these spellings.
const (
	MethodCash         = "Cash"
	MethodAccountDebit = "Account Debit"
	MethodCreditCard   = "Credit Card"
)

// PaymentMethods lists the three methods in display order.
var PaymentMethods = []string{MethodCash, MethodAccountDebit, MethodCreditCard}

// ParsePaymentMethod returns the canonical spelling of a payment method
// written in any letter case ("cash", "CREDIT CARD"), with surrounding
// blanks ignored. Agents and people type methods freely; storing and
// answering one spelling keeps filters and summaries exact.
func ParsePaymentMethod(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, m := range PaymentMethods {
		if strings.EqualFold(s, m) {
			return m, true
		}
	}
	return "", false
}

// DefaultPaymentMethod is the form-options hint of a user who has not picked another (app settings).
const DefaultPaymentMethod = MethodCash

// Expense sources.
const (
	ExpenseManual      = WriteManual
	ExpenseBillPayment = "bill_payment"
	// ExpenseAgent is an expense created through the MCP endpoint.
	ExpenseAgent = WriteAgent
	// ExpenseImport is an expense created by committing an imported file.
	ExpenseImport = "import"
)

// ExpenseStatuses are the values of the status filter of GET /expenses.
var ExpenseStatuses = []string{StatusActive, StatusVoided}

// Expense is money spent. With Account Debit it owns an account line; with
// Credit Card it owns a card transaction (a purchase). The expense holds the
// category, the card row the billing state; amount, date and description stay equal.
//
// Like every record the API answers, a field without a value is left out of
// its JSON rather than written as null (docs/api.md "Records"): a 50-item page
// of plain expenses is half the bytes, for browsers and agents alike.
type Expense struct {
	ID                    string         `json:"id"`
	Amount                Money          `json:"amount"`
	Currency              string         `json:"currency"`                    // what the money moved in: the account's, the card's, or named for Cash
	OriginalAmount        *Money         `json:"original_amount,omitempty"`   // a purchase abroad: what was paid, in original_currency
	OriginalCurrency      *string        `json:"original_currency,omitempty"` // with original_amount, or both absent
	Date                  Date           `json:"date"`
	Description           string         `json:"description"`
	CategoryID            *string        `json:"category_id,omitempty"` // absent while split
	Category              *string        `json:"category,omitempty"`    // computed: the category's name
	PaymentMethod         string         `json:"payment_method"`
	AccountID             *string        `json:"account_id,omitempty"`
	AccountName           *string        `json:"account_name,omitempty"` // computed: the account's name, for lists
	CreditCardID          *string        `json:"credit_card_id,omitempty"`
	CreditCardName        *string        `json:"credit_card_name,omitempty"` // computed: the card's name
	Notes                 *string        `json:"notes,omitempty"`
	Status                string         `json:"status"`
	IsSplit               bool           `json:"is_split,omitempty"` // computed; left out when false
	Splits                []ExpenseSplit `json:"splits,omitempty"`   // computed: the parts, in order; left out when not split
	Source                string         `json:"source"`
	BillPaymentID         *string        `json:"bill_payment_id,omitempty"`
	AccountTransactionID  *string        `json:"account_transaction_id,omitempty"`
	CardTransactionID     *string        `json:"card_transaction_id,omitempty"`
	CardTransactionStatus *string        `json:"card_transaction_status,omitempty"` // computed
	VoidedAt              *time.Time     `json:"voided_at,omitempty"`
	CreatedAt             time.Time      `json:"created_at"`
	UpdatedAt             time.Time      `json:"updated_at"`
	// Warnings are set on the answer of a write that has something to warn
	// about (warning.go); never stored, never on reads.
	Warnings []Warning `json:"warnings,omitempty"`
}

// ExpenseSplit is one part of a split expense.
type ExpenseSplit struct {
	ID          string  `json:"id"`
	Amount      Money   `json:"amount"`
	CategoryID  string  `json:"category_id"`
	Category    string  `json:"category"` // computed
	Description *string `json:"description,omitempty"`
}

// ExpenseRepo is the persistence of expenses.
type ExpenseRepo interface {
	// Expense returns an expense with Category, Splits, IsSplit and CardTransactionStatus filled.
	Expense(ctx context.Context, userID, id string) (Expense, error)
	// ListExpenses returns the page and sums every expense the filter
	// selects, grouped as ListTotals says for the reporting currency.
	ListExpenses(ctx context.Context, userID, reporting string, f ExpenseFilter, p ListParams) ([]Expense, ListTotals, error)
	InsertExpense(ctx context.Context, userID string, e Expense) error
	UpdateExpense(ctx context.Context, userID string, e Expense) error
	// ReplaceSplits replaces the parts of an expense (none: not split).
	ReplaceSplits(ctx context.Context, userID, expenseID string, parts []ExpenseSplit) error
	// ExpenseTotals sums the user's non-voided expenses dated in [from, to]:
	// per key, the reporting currency's over the range (no Date) and each
	// other currency's per date, for SumConverter.ExpenseTotals to convert.
	// Total is left 0.
	ExpenseTotals(ctx context.Context, userID, reporting string, from, to Date) (ExpenseTotals, error)
}

// ExpenseFilter narrows GET /expenses.
type ExpenseFilter struct {
	Status        string // active (default) or voided
	DateFrom      Date
	DateTo        Date
	Search        string
	Category      string // a name; also matches split parts
	PaymentMethod string
	CardID        string
	AccountID     string
	AmountMin     *Money // inclusive; nil for no bound
	AmountMax     *Money
}

// ExpenseList is the list spec of GET /expenses.
var ExpenseList = ListSpec{Sorts: []string{"date", "amount", "description", "created_at"}, DefaultDesc: true}

// Split and bulk bounds (domain.md §2.4).
const (
	MinSplitParts = 2
	MaxSplitParts = 20
	MaxBulkItems  = 100
)

// ExpenseRequest is the body of POST /expenses, of each item of POST
// /expenses/bulk, and of PUT /expenses/{id}. On PUT only the fields present
// change; null clears notes, and the id the method does not use.
type ExpenseRequest struct {
	Amount        Field[Money]  `json:"amount"`
	Date          Field[Date]   `json:"date"`
	Description   Field[string] `json:"description"`
	Category      Field[string] `json:"category"`
	PaymentMethod Field[string] `json:"payment_method"`
	AccountID     Field[string] `json:"account_id"`
	CreditCardID  Field[string] `json:"credit_card_id"`
	Notes         Field[string] `json:"notes"`
	// Currency names a Cash expense's currency; with an account or a card it
	// may be sent and must be theirs.
	Currency Field[string] `json:"currency"`
	// OriginalAmount and OriginalCurrency are a card purchase abroad: what was
	// paid, in what. With them, amount (what the card bills) may be left out.
	OriginalAmount   Field[Money]  `json:"original_amount"`
	OriginalCurrency Field[string] `json:"original_currency"`
}

// expenseDraft is an ExpenseRequest after the checks of its shape: the
// merged record, and the category name to resolve ("" when it does not change).
type expenseDraft struct {
	next         Expense
	categoryName string
	currency     string // the currency the request named, "" for none
	amountSet    bool   // the request named the amount
	abroad       abroad
	was          Expense // the record before the request
}

// shape validates the fields present in r (all required ones on create) over
// cur, without looking at other records. The payment method decides which
// of account_id and credit_card_id is required; the other must be absent or
// null, and a method change drops the id that no longer applies.
func (r ExpenseRequest) shape(cur Expense, create bool) (expenseDraft, error) {
	var v Validator
	d := expenseDraft{next: cur, was: cur}
	e := &d.next
	d.abroad = readAbroad(&v, r.OriginalAmount, r.OriginalCurrency)
	d.currency = recordCurrency(&v, "currency", r.Currency, Currency{}).Code
	if create || r.Date.Set {
		e.Date = v.RequiredDate("date", r.Date)
	}
	if create || r.Description.Set {
		e.Description = v.RequiredText("description", r.Description, MaxDescription)
	}
	if create || r.Category.Set {
		d.categoryName = v.RequiredText("category", r.Category, MaxName)
	}
	if r.Notes.Set {
		e.Notes = v.OptionalText("notes", r.Notes, MaxNotes)
	}
	if create || r.PaymentMethod.Set {
		method := r.PaymentMethod
		if m, ok := ParsePaymentMethod(method.Value); ok && method.Has() {
			method.Value = m
		}
		e.PaymentMethod = requiredEnum(&v, "payment_method", method, strings.Join(PaymentMethods, ", "),
			func(s string) bool { return slices.Contains(PaymentMethods, s) })
	}
	if m := e.PaymentMethod; m != "" {
		changed := m != cur.PaymentMethod
		e.AccountID = methodTarget(&v, "account_id", r.AccountID, cur.AccountID, "payment_method", m, m == MethodAccountDebit, changed, "accounts")
		e.CreditCardID = methodTarget(&v, "credit_card_id", r.CreditCardID, cur.CreditCardID, "payment_method", m, m == MethodCreditCard, changed, "credit cards")
	}
	// A card purchase abroad may leave amount out: the card's rate and fee make it.
	billed := e.PaymentMethod == MethodCreditCard && d.abroad.given() && !r.Amount.Set
	if (create && !billed) || r.Amount.Set {
		e.Amount, d.amountSet = v.RequiredMoney("amount", r.Amount), true
	}
	switch {
	case e.PaymentMethod != MethodCreditCard && d.abroad.given():
		v.Add("original_amount", "must be absent unless payment_method is "+MethodCreditCard+": only a card bills a purchase abroad")
	case e.PaymentMethod != MethodCreditCard:
		e.OriginalAmount, e.OriginalCurrency = nil, nil
	case d.abroad.named:
		e.OriginalAmount, e.OriginalCurrency = d.abroad.amount, d.abroad.currency
	}
	return d, v.Err()
}

// methodTarget reads account_id or credit_card_id for method (the value of
// the field methodField): required when the method uses it (kept from cur
// when the method did not change), else absent or null.
func methodTarget(v *Validator, name string, f Field[string], cur *string, methodField, method string, used, methodChanged bool, what string) *string {
	if !used {
		if f.Set && !f.Null {
			v.Add(name, "must be null or absent when "+methodField+" is "+method)
		}
		return nil
	}
	if !f.Set {
		if methodChanged || cur == nil {
			v.Add(name, "is required when "+methodField+" is "+method)
		}
		return cur
	}
	id := ""
	if Readable(v, name, f) {
		id = strings.TrimSpace(f.Value)
	}
	switch {
	case v.Has(name):
		return nil
	case id == "":
		v.Add(name, "is required when "+methodField+" is "+method)
		return nil
	case !ValidID(id):
		v.Add(name, "must be the id of one of your active "+what)
	}
	return &id
}

// target is the record an expense's method writes to: "" for Cash.
func (e Expense) target() string {
	switch {
	case e.AccountID != nil:
		return *e.AccountID
	case e.CreditCardID != nil:
		return *e.CreditCardID
	}
	return ""
}

// refs resolves the names and ids a write body mentions, once per request:
// a bulk write of 100 items naming the same category looks it up once.
// Problems go to the validator of the item that mentioned the reference.
type refs struct {
	tx       Repo
	userID   string
	today    Date
	category map[string]refResult[Category]
	account  map[string]refResult[Account]
	card     map[string]refResult[CreditCard]
}

type refResult[T any] struct {
	rec     T
	problem string
}

func newRefs(tx Repo, userID string, today Date) *refs {
	return &refs{tx: tx, userID: userID, today: today, category: map[string]refResult[Category]{},
		account: map[string]refResult[Account]{}, card: map[string]refResult[CreditCard]{}}
}

// lookupRef returns the cached result for key, or resolves it with find, which
// reports a miss as a problem on its validator.
func lookupRef[T any](cache map[string]refResult[T], key string, v *Validator, field string,
	find func(v *Validator) (T, error),
) (T, bool, error) {
	r, ok := cache[key]
	if !ok {
		var scratch Validator
		rec, err := find(&scratch)
		if err != nil {
			var zero T
			return zero, false, err
		}
		r = refResult[T]{rec: rec, problem: scratch.fields[field]}
		cache[key] = r
	}
	if r.problem != "" {
		v.Add(field, r.problem)
		return r.rec, false, nil
	}
	return r.rec, true, nil
}

// expenseCategory is an active expense category by name.
func (c *refs) expenseCategory(ctx context.Context, v *Validator, field, name string) (Category, bool, error) {
	return lookupRef(c.category, nameKey(name), v, field, func(v *Validator) (Category, error) {
		return activeCategory(ctx, c.tx, v, field, c.userID, KindExpense, name)
	})
}

// activeAccount is one of the user's active accounts.
func (c *refs) activeAccount(ctx context.Context, v *Validator, field, id string) (Account, bool, error) {
	return lookupRef(c.account, id, v, field, func(v *Validator) (Account, error) {
		a, _, err := activeAccount(ctx, c.tx, v, field, c.userID, id)
		return a, err
	})
}

// activeCard is one of the user's active cards.
func (c *refs) activeCard(ctx context.Context, v *Validator, field, id string) (CreditCard, bool, error) {
	return lookupRef(c.card, id, v, field, func(v *Validator) (CreditCard, error) {
		card, _, err := activeCard(ctx, c.tx, v, field, c.userID, id, c.today)
		return card, err
	})
}

// resolve checks d against the user's records: the category when named, and
// the account or card when the method's target is new. It fills the category.
func (c *refs) resolveExpense(ctx context.Context, v *Validator, d *expenseDraft, targetChanged bool) error {
	e := &d.next
	if d.categoryName != "" {
		cat, ok, err := c.expenseCategory(ctx, v, "category", d.categoryName)
		if err != nil {
			return err
		}
		if ok {
			e.CategoryID, e.Category = &cat.ID, &cat.Name
		}
	}
	return c.resolveMoney(ctx, v, d, targetChanged)
}

// resolveMoney settles what d's money is in (domain.md "What each amount is
// in"): the account's or card's currency, which a named currency must equal,
// or for Cash the one named (else the one it had). A purchase abroad is
// checked against its card and billed when amount was left out; the amount
// then has at most its currency's decimals. A target that did not change is
// read without the active check: an edit may touch an archived one's expense.
func (c *refs) resolveMoney(ctx context.Context, v *Validator, d *expenseDraft, targetChanged bool) error {
	e := &d.next
	in, what := d.currency, ""
	switch e.PaymentMethod {
	case MethodAccountDebit:
		a, ok, err := Account{}, true, error(nil)
		if targetChanged {
			a, ok, err = c.activeAccount(ctx, v, "account_id", *e.AccountID)
		} else {
			a, err = c.tx.Account(ctx, c.userID, *e.AccountID)
		}
		if !ok || err != nil {
			return err
		}
		in, what = a.Currency, "account"
	case MethodCreditCard:
		card, ok, err := CreditCard{}, true, error(nil)
		if targetChanged {
			card, ok, err = c.activeCard(ctx, v, "credit_card_id", *e.CreditCardID)
		} else {
			card, err = c.tx.CreditCard(ctx, c.userID, *e.CreditCardID, c.today)
		}
		if !ok || err != nil {
			return err
		}
		in, what = card.Currency, "card"
		if d.abroad.named || targetChanged {
			if err := billAbroad(ctx, c.tx, c.userID, v, card, e.OriginalAmount, e.OriginalCurrency, e.Date, &e.Amount, d.amountSet); err != nil {
				return err
			}
		}
	}
	if what != "" && d.currency != "" && d.currency != in {
		v.Add("currency", fmt.Sprintf("must be %s, the %s's currency: the money moved in it", in, what))
		return nil
	}
	if in != "" {
		e.Currency = in
	}
	if d.amountSet || targetChanged || e.Currency != d.was.Currency {
		checkDecimals(v, "amount", e.Amount, currencyOf(e.Currency))
	}
	return nil
}

// linkExpense creates the row e's method writes (domain.md §2.4): nothing for
// Cash, a debit line for Account Debit, an unbilled purchase for Credit
// Card. It sets e's link to the row and returns the purchase, if any.
func (s *Service) linkExpense(ctx context.Context, tx Repo, userID string, e *Expense) (*CardTransaction, error) {
	e.AccountTransactionID, e.CardTransactionID, e.CardTransactionStatus = nil, nil, nil
	e.AccountName, e.CreditCardName = nil, nil
	switch e.PaymentMethod {
	case MethodAccountDebit:
		// The answer names the account as a read of the expense does.
		a, err := tx.Account(ctx, userID, *e.AccountID)
		if err != nil {
			return nil, err
		}
		e.AccountName, e.Currency = &a.Name, a.Currency
		desc := e.Description
		line := s.newLine(*e.AccountID, LineDebit, e.Amount, e.Date, &desc, SourceExpense, &e.ID)
		if err := tx.InsertAccountTransaction(ctx, userID, line); err != nil {
			return nil, err
		}
		e.AccountTransactionID = &line.ID
	case MethodCreditCard:
		now := s.stamp()
		t := CardTransaction{ID: NewID(), CreditCardID: *e.CreditCardID, Type: CardPurchase, Amount: e.Amount,
			Date: e.Date, Description: e.Description, CategoryID: e.CategoryID, Category: e.Category,
			OriginalAmount: e.OriginalAmount, OriginalCurrency: e.OriginalCurrency,
			Status: CardUnbilled, ExpenseID: &e.ID, CreatedAt: now, UpdatedAt: now}
		if err := tx.InsertCardTransaction(ctx, userID, t); err != nil {
			return nil, err
		}
		logged, err := tx.CardTransaction(ctx, userID, t.ID) // with its card's name
		if err != nil {
			return nil, err
		}
		if err := s.logRowWritten(ctx, tx, userID, LogCreated, logged); err != nil {
			return nil, err
		}
		status := t.Status
		e.CardTransactionID, e.CardTransactionStatus, e.CreditCardName = &t.ID, &status, &logged.CreditCardName
		e.Currency = logged.Currency
		return &t, nil
	default: // Cash: in the currency named, else the reporting one
		if e.Currency == "" {
			e.Currency = s.currency(ctx, userID)
		}
		e.OriginalAmount, e.OriginalCurrency = nil, nil
	}
	return nil, nil
}

// unlinkExpense voids the row e's method wrote. Reversing history is allowed
// on an archived account or card.
func (s *Service) unlinkExpense(ctx context.Context, tx Repo, userID string, e Expense) error {
	switch {
	case e.AccountTransactionID != nil:
		return s.voidLine(ctx, tx, userID, *e.AccountTransactionID)
	case e.CardTransactionID != nil:
		return s.voidCardRow(ctx, tx, userID, *e.CardTransactionID)
	}
	return nil
}

// voidCardRow voids a card row in tx and logs it.
func (s *Service) voidCardRow(ctx context.Context, tx Repo, userID, id string) error {
	t, err := tx.CardTransaction(ctx, userID, id)
	if err != nil {
		return err
	}
	if t.Status == StatusVoided {
		return nil
	}
	now := s.stamp()
	t.Status, t.VoidedAt, t.UpdatedAt = StatusVoided, &now, now
	if err := tx.UpdateCardTransaction(ctx, userID, t); err != nil {
		return err
	}
	return s.logRowWritten(ctx, tx, userID, LogVoided, t)
}

// newExpense is the record a valid create request describes, before its
// references resolve. Its source is the door of ctx's writes: manual, or
// agent through MCP. Its currency is set by its account or card, or for
// Cash by the request, else the reporting currency (linkExpense).
func (s *Service) newExpense(ctx context.Context) Expense {
	now := s.stamp()
	return Expense{ID: NewID(), Status: StatusActive, Source: writeSource(ctx), Splits: []ExpenseSplit{}, CreatedAt: now, UpdatedAt: now}
}

// newCashExpense is newExpense in currency, the reporting currency a Cash
// expense takes when its request names none.
func (s *Service) newCashExpense(ctx context.Context, currency string) Expense {
	e := s.newExpense(ctx)
	e.Currency = currency
	return e
}

// recordExpense appends the entry of a write on the expense e.
func (s *Service) recordExpense(ctx context.Context, tx Repo, userID, action string, e Expense, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordExpense, RecordID: e.ID, Action: action, Summary: summary, Amount: &e.Amount})
}

// expenseCreated is the summary of a new expense:
// `Expense "Lunch" 350.00 on 2026-11-26, Food & Dining, Credit Card`.
func expenseCreated(e Expense) string {
	return fmt.Sprintf("Expense %s %s on %s, %s, %s", quoted(e.Description), e.Amount, e.Date,
		strings.Trim(quotedOptional(e.Category), `"`), e.PaymentMethod)
}

// expenseChanges lists what an update of an expense changed.
func expenseChanges(before, after Expense) changeList {
	return changes(before, after, "amount", "currency", "original_amount", "original_currency", "date", "description",
		"category", "payment_method", "account_id", "credit_card_id", "notes")
}

// ListExpenses returns a page of the user's expenses, each with its parts,
// and the summary of every expense the filter selects.
func (s *Service) ListExpenses(ctx context.Context, userID string, f ExpenseFilter, p ListParams) (ConvertedPage[Expense], error) {
	reporting := s.currency(ctx, userID)
	items, sum, err := s.store.Read().ListExpenses(ctx, userID, reporting, f, p)
	return convertedPageOf(ctx, s, userID, reporting, items, sum, err, p)
}

// GetExpense returns one expense (voided ones included).
func (s *Service) GetExpense(ctx context.Context, userID, id string) (Expense, error) {
	return s.store.Read().Expense(ctx, userID, id)
}

// CreateExpense records an expense and its method's row in one transaction.
// Its answer carries the warnings of the expense and of the account or card
// it was paid with.
func (s *Service) CreateExpense(ctx context.Context, userID string, r ExpenseRequest) (Expense, error) {
	d, err := r.shape(s.newCashExpense(ctx, s.currency(ctx, userID)), true)
	if err != nil {
		return Expense{}, err
	}
	today := s.today(ctx, userID)
	var warnings []Warning
	err = s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		var v Validator
		if err := newRefs(w, userID, today).resolveExpense(ctx, &v, &d, true); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		if err := s.insertExpense(ctx, w, userID, &d.next); err != nil {
			return err
		}
		if err := s.recordExpense(ctx, tx, userID, LogCreated, d.next, expenseCreated(d.next)); err != nil {
			return err
		}
		notes, err := s.billExpenses(ctx, w, userID, today, []*Expense{&d.next})
		if err != nil {
			return err
		}
		warnings, err = w.written(ctx, d.next)
		warnings = append(warnings, notes[0]...)
		return err
	})
	if err != nil {
		return Expense{}, err
	}
	d.next.Warnings = warnings
	return d.next, nil
}

// billExpenses bills the card expenses just created (§1.7): each card row
// joins its period's unpaid statement (domain.md, Back-dated card charges,
// rule 2), the statements they made due are generated, and the expenses are
// read back, so the reply shows their card row's state. It returns, per
// expense in es, what the write did to its card's statements.
func (s *Service) billExpenses(ctx context.Context, tx Repo, userID string, today Date, es []*Expense) ([][]Warning, error) {
	notes := make([][]Warning, len(es))
	before := map[string]CreditCard{} // each card as it was before the write
	for _, e := range es {
		if e.CardTransactionID == nil {
			continue
		}
		if _, ok := before[*e.CreditCardID]; !ok {
			c, err := tx.CreditCard(ctx, userID, *e.CreditCardID, today)
			if err != nil {
				return nil, err
			}
			before[*e.CreditCardID] = c
		}
		// Joined here, at creation, and never by a later sweep: a row taken
		// off a statement stays off.
		if err := s.joinUnpaidStatement(ctx, tx, userID, *e.CardTransactionID, today); err != nil {
			return nil, err
		}
	}
	if len(before) == 0 {
		return notes, nil
	}
	if err := s.generate(ctx, tx, userID, today); err != nil {
		return nil, err
	}
	// A move of Statements from is told with the card's earliest charge: the
	// one that set the new date.
	earliest := map[string]int{}
	for i, e := range es {
		if e.CardTransactionID == nil {
			continue
		}
		if j, ok := earliest[*e.CreditCardID]; !ok || e.Date.Before(es[j].Date) {
			earliest[*e.CreditCardID] = i
		}
	}
	for i, e := range es {
		if e.CardTransactionID == nil {
			continue
		}
		fresh, err := tx.Expense(ctx, userID, e.ID)
		if err != nil {
			return nil, err
		}
		*e = fresh
		row, err := tx.CardTransaction(ctx, userID, *e.CardTransactionID)
		if err != nil {
			return nil, err
		}
		ws, err := backdatedNotes(ctx, tx, userID, before[*e.CreditCardID], row, today)
		if err != nil {
			return nil, err
		}
		for _, w := range ws {
			if w.Code != WarnStatementsFromMoved || earliest[*e.CreditCardID] == i {
				notes[i] = append(notes[i], w)
			}
		}
	}
	return notes, nil
}

// insertExpense stores e and the row its method writes.
func (s *Service) insertExpense(ctx context.Context, tx Repo, userID string, e *Expense) error {
	if _, err := s.linkExpense(ctx, tx, userID, e); err != nil {
		return err
	}
	return tx.InsertExpense(ctx, userID, *e)
}

// BulkExpenseRequest is the body of POST /expenses/bulk.
type BulkExpenseRequest struct {
	Items []ExpenseRequest `json:"items"`
}

// BulkExpenses is the reply of POST /expenses/bulk: the created expenses in input order.
type BulkExpenses struct {
	Items []Expense `json:"items"`
	Count int       `json:"count"`
	// Warnings are the items', each with its item's index (warning.go).
	Warnings []Warning `json:"warnings,omitempty"`
}

// CreateExpenses is POST /expenses/bulk: every item is validated and all
// problems are reported together as items[i].<field>; any problem means
// nothing is written.
func (s *Service) CreateExpenses(ctx context.Context, userID string, r BulkExpenseRequest) (BulkExpenses, error) {
	if n := len(r.Items); n < 1 || n > MaxBulkItems {
		return BulkExpenses{}, Invalid("items", fmt.Sprintf("must hold 1 to %d expenses (got %d)", MaxBulkItems, n))
	}
	drafts := make([]expenseDraft, len(r.Items))
	shapeOK := make([]bool, len(r.Items))
	var v Validator
	reporting := s.currency(ctx, userID)
	for i, item := range r.Items {
		d, err := item.shape(s.newCashExpense(ctx, reporting), true)
		drafts[i], shapeOK[i] = d, err == nil
		if err = v.Merge(fmt.Sprintf("items[%d].", i), err); err != nil {
			return BulkExpenses{}, err
		}
	}
	today := s.today(ctx, userID)
	var warnings []Warning
	err := s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		rf := newRefs(w, userID, today)
		for i := range drafts {
			if !shapeOK[i] {
				continue // an item's references are checked once its shape is right (§1.1)
			}
			var iv Validator
			if err := rf.resolveExpense(ctx, &iv, &drafts[i], true); err != nil {
				return err
			}
			_ = v.Merge(fmt.Sprintf("items[%d].", i), iv.Err())
		}
		if err := v.Err(); err != nil {
			return err
		}
		written := make([]*Expense, len(drafts))
		warnings = nil
		for i := range drafts {
			if err := s.insertExpense(ctx, w, userID, &drafts[i].next); err != nil {
				return err
			}
			if err := s.recordExpense(ctx, tx, userID, LogCreated, drafts[i].next, expenseCreated(drafts[i].next)); err != nil {
				return err
			}
			written[i] = &drafts[i].next
			// Checked before the next item is written: each item is compared
			// with the expenses before it, and a balance warning goes with the
			// item that crossed the line.
			ws, err := w.written(ctx, drafts[i].next)
			if err != nil {
				return err
			}
			warnings = append(warnings, at(ws, i)...)
		}
		notes, err := s.billExpenses(ctx, w, userID, today, written)
		for i, ws := range notes {
			warnings = append(warnings, at(ws, i)...)
		}
		return err
	})
	if err != nil {
		return BulkExpenses{}, err
	}
	out := BulkExpenses{Items: make([]Expense, len(drafts)), Count: len(drafts), Warnings: warnings}
	for i, d := range drafts {
		out.Items[i] = d.next
	}
	return out, nil
}

// UpdateExpense is PUT /expenses/{id} (domain.md §2.4). Money fields
// (amount, date, payment method and its target) change only on an expense
// that is not a bill payment and whose card row, if any, is unbilled. The
// linked row is updated in place while the method and target stay the same,
// and otherwise voided and replaced; the description is copied to it.
func (s *Service) UpdateExpense(ctx context.Context, userID, id string, r ExpenseRequest) (Expense, error) {
	today := s.today(ctx, userID)
	var out Expense
	err := s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		tx = w // every change below is watched
		cur, err := tx.Expense(ctx, userID, id)
		if err != nil {
			return err
		}
		d, err := r.shape(cur, false)
		if err != nil {
			return err
		}
		e := &d.next
		sameTarget := e.PaymentMethod == cur.PaymentMethod && e.target() == cur.target()
		moneyChanged := e.Amount != cur.Amount || e.Date != cur.Date || !sameTarget
		if err := checkExpenseEdit(ctx, tx, userID, cur, d, moneyChanged, sameTarget); err != nil {
			return err
		}
		var v Validator
		if err := newRefs(tx, userID, today).resolveExpense(ctx, &v, &d, !sameTarget); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		if d.categoryName != "" && cur.IsSplit {
			// Naming a category removes the split (§2.4).
			if err := tx.ReplaceSplits(ctx, userID, cur.ID, nil); err != nil {
				return err
			}
		}
		now := s.stamp()
		if sameTarget {
			if err := s.syncExpenseRow(ctx, tx, userID, cur, *e, now); err != nil {
				return err
			}
		} else {
			if err := s.unlinkExpense(ctx, tx, userID, cur); err != nil {
				return err
			}
			if _, err := s.linkExpense(ctx, tx, userID, e); err != nil {
				return err
			}
		}
		e.UpdatedAt = now
		if err := tx.UpdateExpense(ctx, userID, *e); err != nil {
			return err
		}
		if e.CardTransactionID != nil {
			if err := s.generate(ctx, tx, userID, today); err != nil {
				return err
			}
		}
		if out, err = tx.Expense(ctx, userID, id); err != nil {
			return err
		}
		if c := expenseChanges(cur, out); len(c) > 0 {
			if err := s.recordExpense(ctx, tx, userID, LogUpdated, out, c.String()); err != nil {
				return err
			}
		}
		out.Warnings, err = w.changed(ctx, cur, out)
		return err
	})
	return out, err
}

// checkExpenseEdit applies the state rules of PUT /expenses/{id}.
func checkExpenseEdit(ctx context.Context, tx Repo, userID string, cur Expense, d expenseDraft, moneyChanged, sameTarget bool) error {
	if cur.Status == StatusVoided {
		return InvalidStatus("expense is voided and cannot be changed")
	}
	if moneyChanged {
		if cur.Source == ExpenseBillPayment {
			return InvalidStatus("expense records a bill payment; its amount, date and payment method cannot change (delete the bill payment and record it again)")
		}
		if cur.Source == ExpenseTransfer {
			return InvalidStatus("expense is the fee of a transfer; its amount, date and payment method change through the transfer")
		}
		if st := cur.CardTransactionStatus; st != nil && *st != CardUnbilled {
			return InvalidStatus("expense's card transaction is %s; its amount, date and payment method can no longer change", *st)
		}
	}
	if cur.IsSplit && d.next.Amount != cur.Amount && d.categoryName == "" {
		return InvalidStatus("expense is split; set category in the same request to remove the split before changing the amount")
	}
	if sameTarget && moneyChanged && cur.AccountID != nil {
		a, err := tx.Account(ctx, userID, *cur.AccountID)
		if err != nil {
			return err
		}
		if a.Status != StatusActive {
			return InvalidStatus("expense is paid from an archived account; its amount and date cannot change " +
				"(move it to an active account or another payment method first)")
		}
	}
	return nil
}

// syncExpenseRow copies amount, date and description of e to the row its
// method wrote, in place.
func (s *Service) syncExpenseRow(ctx context.Context, tx Repo, userID string, cur, e Expense, now time.Time) error {
	if e.Amount == cur.Amount && e.Date == cur.Date && e.Description == cur.Description &&
		samePtr(e.OriginalAmount, cur.OriginalAmount) && samePtr(e.OriginalCurrency, cur.OriginalCurrency) {
		return nil
	}
	switch {
	case cur.AccountTransactionID != nil:
		line, err := tx.AccountTransaction(ctx, userID, *cur.AccountTransactionID)
		if err != nil {
			return err
		}
		desc := e.Description
		line.Amount, line.Date, line.Description, line.UpdatedAt = e.Amount, e.Date, &desc, now
		return tx.UpdateAccountTransaction(ctx, userID, line)
	case cur.CardTransactionID != nil:
		t, err := tx.CardTransaction(ctx, userID, *cur.CardTransactionID)
		if err != nil {
			return err
		}
		before := t
		t.Amount, t.Date, t.Description, t.UpdatedAt = e.Amount, e.Date, e.Description, now
		t.OriginalAmount, t.OriginalCurrency = e.OriginalAmount, e.OriginalCurrency
		if err := tx.UpdateCardTransaction(ctx, userID, t); err != nil {
			return err
		}
		return s.logRowChanged(ctx, tx, userID, before, t)
	}
	return nil
}

// checkExpenseVoid applies the state rules of voiding an expense.
func checkExpenseVoid(e Expense) error {
	switch {
	case e.Status == StatusVoided:
		return InvalidStatus("expense is already voided")
	case e.Source == ExpenseBillPayment:
		return InvalidStatus("expense records a bill payment; delete the bill payment instead")
	case e.Source == ExpenseTransfer:
		return InvalidStatus("expense is the fee of a transfer; change or delete the transfer instead")
	case e.CardTransactionStatus != nil && *e.CardTransactionStatus != CardUnbilled:
		return InvalidStatus("expense's card transaction is %s; only an expense whose card transaction is unbilled can be voided", *e.CardTransactionStatus)
	}
	return nil
}

// VoidExpense is DELETE /expenses/{id}: the expense and its account line or
// card row are voided.
func (s *Service) VoidExpense(ctx context.Context, userID, id string) (Expense, error) {
	var out Expense
	err := s.store.Write(ctx, func(tx Repo) error {
		e, err := tx.Expense(ctx, userID, id)
		if err != nil {
			return err
		}
		if err := checkExpenseVoid(e); err != nil {
			return err
		}
		if err := s.unlinkExpense(ctx, tx, userID, e); err != nil {
			return err
		}
		if err := s.markExpenseVoided(ctx, tx, userID, e); err != nil {
			return err
		}
		if err := s.recordExpense(ctx, tx, userID, LogVoided, e,
			fmt.Sprintf("Expense %s %s on %s voided", quoted(e.Description), e.Amount, e.Date)); err != nil {
			return err
		}
		out, err = tx.Expense(ctx, userID, id)
		return err
	})
	return out, err
}

func (s *Service) markExpenseVoided(ctx context.Context, tx Repo, userID string, e Expense) error {
	now := s.stamp()
	e.Status, e.VoidedAt, e.UpdatedAt = StatusVoided, &now, now
	return tx.UpdateExpense(ctx, userID, e)
}

// SplitRequest is the body of POST /expenses/{id}/split.
type SplitRequest struct {
	Parts []SplitPart `json:"parts"`
}

// SplitPart is one part of a split request.
type SplitPart struct {
	Amount      Field[Money]  `json:"amount"`
	Category    Field[string] `json:"category"`
	Description Field[string] `json:"description"`
}

// SplitExpense is POST /expenses/{id}/split: the parts, which must sum
// exactly to the amount, replace any earlier ones; the expense's category
// becomes null, and no money row changes.
func (s *Service) SplitExpense(ctx context.Context, userID, id string, r SplitRequest) (Expense, error) {
	today := s.today(ctx, userID)
	var out Expense
	err := s.store.Write(ctx, func(tx Repo) error {
		e, err := tx.Expense(ctx, userID, id)
		if err != nil {
			return err
		}
		var v Validator
		if n := len(r.Parts); n < MinSplitParts || n > MaxSplitParts {
			v.Add("parts", fmt.Sprintf("must hold %d to %d parts (got %d)", MinSplitParts, MaxSplitParts, n))
		}
		parts := make([]ExpenseSplit, len(r.Parts))
		names := make([]string, len(r.Parts))
		for i, p := range r.Parts {
			field := fmt.Sprintf("parts[%d].", i)
			parts[i] = ExpenseSplit{ID: NewID(), Amount: v.RequiredMoney(field+"amount", p.Amount),
				Description: v.OptionalText(field+"description", p.Description, MaxDescription)}
			names[i] = v.RequiredText(field+"category", p.Category, MaxName)
		}
		if err := v.Err(); err != nil {
			return err
		}
		if e.Status == StatusVoided {
			return InvalidStatus("expense is voided and cannot be split")
		}
		if e.Source == ExpenseTransfer {
			// The transfer keeps its fee's amount and category in step.
			return InvalidStatus("expense is the fee of a transfer and cannot be split")
		}
		rf := newRefs(tx, userID, today)
		var sum Money
		for i, p := range parts {
			cat, ok, err := rf.expenseCategory(ctx, &v, fmt.Sprintf("parts[%d].category", i), names[i])
			if err != nil {
				return err
			}
			if ok {
				parts[i].CategoryID, parts[i].Category = cat.ID, cat.Name
			}
			sum += p.Amount
		}
		if sum != e.Amount {
			v.Add("parts", fmt.Sprintf("must sum exactly to the expense amount %s (they sum to %s)", e.Amount, sum))
		}
		if err := v.Err(); err != nil {
			return err
		}
		if err := tx.ReplaceSplits(ctx, userID, e.ID, parts); err != nil {
			return err
		}
		e.CategoryID, e.UpdatedAt = nil, s.stamp()
		if err := tx.UpdateExpense(ctx, userID, e); err != nil {
			return err
		}
		if err := s.recordExpense(ctx, tx, userID, LogSplit, e, splitSummary(e, parts)); err != nil {
			return err
		}
		out, err = tx.Expense(ctx, userID, id)
		return err
	})
	return out, err
}

// splitSummary is the summary of a split: `Expense "Groceries" 100.00 split
// into 2 parts: 60.00 "Groceries", 40.00 "Household"`, naming at most five
// parts so that the entry stays small.
func splitSummary(e Expense, parts []ExpenseSplit) string {
	const shown = 5
	var named []string
	for i, p := range parts {
		if i == shown {
			named = append(named, fmt.Sprintf("and %d more", len(parts)-shown))
			break
		}
		named = append(named, p.Amount.String()+" "+quoted(p.Category))
	}
	return fmt.Sprintf("Expense %s %s split into %d parts: %s", quoted(e.Description), e.Amount, len(parts), strings.Join(named, ", "))
}

// ExpenseFormOptions is GET /expenses/form-options (domain.md §2.4).
type ExpenseFormOptions struct {
	PaymentMethods       []string         `json:"payment_methods"`
	DefaultPaymentMethod string           `json:"default_payment_method"`
	Categories           []CategoryOption `json:"categories"`
	Accounts             []AccountOption  `json:"accounts"`
	CreditCards          []CardOption     `json:"credit_cards"`
}

// ExpenseFormOptions returns what an expense form offers: the methods, and
// the active expense categories, accounts and cards.
func (s *Service) ExpenseFormOptions(ctx context.Context, userID string) (ExpenseFormOptions, error) {
	cats, err := s.CategoryOptions(ctx, userID, KindExpense)
	if err != nil {
		return ExpenseFormOptions{}, err
	}
	accounts, err := s.AccountOptions(ctx, userID)
	if err != nil {
		return ExpenseFormOptions{}, err
	}
	cards, err := s.CardOptions(ctx, userID)
	if err != nil {
		return ExpenseFormOptions{}, err
	}
	p, err := s.prefs(ctx, userID)
	if err != nil {
		return ExpenseFormOptions{}, err
	}
	return ExpenseFormOptions{PaymentMethods: PaymentMethods, DefaultPaymentMethod: p.settings.DefaultPaymentMethod,
		Categories: cats, Accounts: accounts, CreditCards: cards}, nil
}
