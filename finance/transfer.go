package finance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Transfer moves money between two of the user's own accounts (docs/domain.md
// "Transfers"). It owns a debit line on the from-account and a credit line on
// the to-account (source transfer), and, with a fee, an Account Debit expense
// from the from-account (source transfer). The lines are neither income nor
// spending; the fee is spending.
type Transfer struct {
	ID              string `json:"id"`
	FromAccountID   string `json:"from_account_id"`
	FromAccountName string `json:"from_account_name"` // computed
	ToAccountID     string `json:"to_account_id"`
	ToAccountName   string `json:"to_account_name"` // computed
	Amount          Money  `json:"amount"`          // leaves the from-account, in its currency
	FromCurrency    string `json:"from_currency"`   // computed: the from-account's
	ToAmount        Money  `json:"to_amount"`       // arrives at the to-account, in its currency
	ToCurrency      string `json:"to_currency"`     // computed: the to-account's
	// Rate is what moved, to_amount ÷ amount, with 10 decimals (computed).
	Rate         json.Number `json:"rate"`
	Fee          Money       `json:"fee"`
	FeeCategory  *string     `json:"fee_category,omitempty"` // computed: the fee expense's category
	FeeExpenseID *string     `json:"fee_expense_id,omitempty"`
	FromLineID   string      `json:"from_transaction_id"`
	ToLineID     string      `json:"to_transaction_id"`
	Date         Date        `json:"date"`
	Description  *string     `json:"description,omitempty"`
	Status       string      `json:"status"`
	VoidedAt     *time.Time  `json:"voided_at,omitempty"`
	CreatedAt    time.Time   `json:"created_at"`
	UpdatedAt    time.Time   `json:"updated_at"`
	// Warnings are set on the answer of a write (warning.go); never stored.
	Warnings []Warning `json:"warnings,omitempty"`
}

// LineTransfer is the transfer an account line belongs to, as the line lists
// show it: so each side links to the other.
type LineTransfer struct {
	ID               string `json:"id"`
	OtherAccountID   string `json:"other_account_id"`
	OtherAccountName string `json:"other_account_name"`
}

// TransferRepo is the persistence of transfers.
type TransferRepo interface {
	// Transfer returns a transfer with its accounts' names and fee category filled.
	Transfer(ctx context.Context, userID, id string) (Transfer, error)
	ListTransfers(ctx context.Context, userID string, f TransferFilter, p ListParams) ([]Transfer, ListTotals, error)
	InsertTransfer(ctx context.Context, userID string, t Transfer) error
	UpdateTransfer(ctx context.Context, userID string, t Transfer) error
}

// TransferFilter narrows GET /transfers.
type TransferFilter struct {
	Status    string // posted (default) or voided
	AccountID string // transfers out of or into the account
	DateFrom  Date
	DateTo    Date
}

// TransferList is the list spec of GET /transfers.
var TransferList = ListSpec{Sorts: []string{"date", "amount", "created_at"}, DefaultDesc: true}

// Sources of a transfer's rows, and its statuses.
const (
	SourceTransfer  = "transfer" // an account line of a transfer
	ExpenseTransfer = "transfer" // the fee expense of a transfer
)

// TransferStatuses are the values of the status filter of GET /transfers.
var TransferStatuses = []string{LinePosted, LineVoided}

// Fee categories: a fee without fee_category goes to the first of these the
// user has active.
var defaultFeeCategories = []string{"Bank Fees", "Miscellaneous"}

// TransferRequest is the body of POST /transfers and PUT /transfers/{id}. On
// PUT only the fields present change; null clears the description, and fee
// null or 0 removes the fee.
type TransferRequest struct {
	FromAccountID Field[string] `json:"from_account_id"`
	ToAccountID   Field[string] `json:"to_account_id"`
	Amount        Field[Money]  `json:"amount"`
	Date          Field[Date]   `json:"date"`
	Description   Field[string] `json:"description"`
	Fee           Field[Money]  `json:"fee"`
	FeeCategory   Field[string] `json:"fee_category"`
	// ToAmount is what arrives, in the to-account's currency: between
	// currencies it may be left out (the rate of the date makes it); in one
	// currency it can only equal amount.
	ToAmount Field[Money] `json:"to_amount"`
}

// transferChange is a TransferRequest after the checks of its shape.
type transferChange struct {
	next        Transfer
	was         Transfer
	feeCategory string // the fee's category by name, "" when not named
}

// shape validates the fields present in r (the required ones on create)
// over cur, without looking at other records.
func (r TransferRequest) shape(cur Transfer, create bool) (transferChange, error) {
	var v Validator
	c := transferChange{next: cur, was: cur}
	accountID := func(name string, f Field[string], into *string) {
		if !create && !f.Set {
			return
		}
		if !Readable(&v, name, f) {
			if !v.Has(name) {
				v.Add(name, "is required")
			}
			return
		}
		if id := strings.TrimSpace(f.Value); ValidID(id) {
			*into = id
			return
		}
		v.Add(name, "must be the id of one of your active accounts")
	}
	accountID("from_account_id", r.FromAccountID, &c.next.FromAccountID)
	accountID("to_account_id", r.ToAccountID, &c.next.ToAccountID)
	if create || r.Amount.Set {
		c.next.Amount = v.RequiredMoney("amount", r.Amount)
	}
	if create || r.Date.Set {
		c.next.Date = v.RequiredDate("date", r.Date)
	}
	if r.ToAmount.Set {
		c.next.ToAmount = v.RequiredMoney("to_amount", r.ToAmount)
	}
	if r.Description.Set {
		c.next.Description = v.OptionalText("description", r.Description, MaxDescription)
	}
	if r.Fee.Set {
		c.next.Fee = 0
		if Readable(&v, "fee", r.Fee) {
			if r.Fee.Value < 0 {
				v.Add("fee", "must be 0 or more")
			} else {
				c.next.Fee = r.Fee.Value
			}
		}
	}
	if r.FeeCategory.Set {
		if name := v.OptionalText("fee_category", r.FeeCategory, MaxName); name != nil {
			c.feeCategory = *name
		}
	}
	if !v.Has("from_account_id") && !v.Has("to_account_id") && c.next.FromAccountID != "" &&
		c.next.FromAccountID == c.next.ToAccountID {
		v.Add("to_account_id", "must be another account than from_account_id")
	}
	return c, v.Err()
}

// resolve checks the accounts and the fee's category against the user's
// records. A named account must be active (VALIDATION_ERROR on its field);
// on PUT an account not named must still be active (INVALID_STATUS), since
// both of a transfer's lines change together.
func (c *transferChange) resolve(ctx context.Context, tx Repo, userID string, r TransferRequest, create, hasFee bool) error {
	var v Validator
	var archived []string
	for _, side := range []struct {
		field    string
		named    bool
		id       string
		name     *string
		currency *string
	}{
		{"from_account_id", create || r.FromAccountID.Set, c.next.FromAccountID, &c.next.FromAccountName, &c.next.FromCurrency},
		{"to_account_id", create || r.ToAccountID.Set, c.next.ToAccountID, &c.next.ToAccountName, &c.next.ToCurrency},
	} {
		if side.named {
			a, ok, err := activeAccount(ctx, tx, &v, side.field, userID, side.id)
			if err != nil {
				return err
			}
			if ok {
				*side.name, *side.currency = a.Name, a.Currency
			}
			continue
		}
		a, err := tx.Account(ctx, userID, side.id)
		if err != nil {
			return err
		}
		if a.Status != StatusActive {
			archived = append(archived, quoted(a.Name))
		}
	}
	if !v.Has("from_account_id") && !v.Has("to_account_id") {
		if err := c.settleToAmount(ctx, tx, userID, &v, r.ToAmount.Set); err != nil {
			return err
		}
	}
	if c.next.Fee > 0 {
		if err := c.resolveFeeCategory(ctx, tx, &v, userID, hasFee); err != nil {
			return err
		}
	} else if c.feeCategory != "" {
		v.Add("fee_category", "is only taken with a fee greater than 0")
	}
	if err := v.Err(); err != nil {
		return err
	}
	if len(archived) > 0 {
		return InvalidStatus("transfer touches the archived account %s; unarchive it before changing the transfer (deleting it is allowed)",
			strings.Join(archived, " and "))
	}
	return nil
}

// settleToAmount sets what arrives (domain.md "Transfers between
// currencies"): in one currency, amount itself, and a to_amount sent must be
// that; between two, the to_amount sent, else, when the amount, date or an
// account changed, amount converted at the rate of the date, no fee. Each
// amount has at most its currency's decimals (the fee is the from-account's).
func (c *transferChange) settleToAmount(ctx context.Context, tx Repo, userID string, v *Validator, toAmountSet bool) error {
	t, was := &c.next, c.was
	from, to := currencyOf(t.FromCurrency), currencyOf(t.ToCurrency)
	checkDecimals(v, "amount", t.Amount, from)
	checkDecimals(v, "fee", t.Fee, from)
	switch moved := t.Amount != was.Amount || t.Date != was.Date || t.FromAccountID != was.FromAccountID ||
		t.ToAccountID != was.ToAccountID; {
	case from.Code == to.Code:
		if toAmountSet && t.ToAmount != t.Amount {
			v.Add("to_amount", fmt.Sprintf("must equal amount (%s): both accounts are in %s", t.Amount, from.Code))
		}
		t.ToAmount = t.Amount
	case toAmountSet:
		checkDecimals(v, "to_amount", t.ToAmount, to)
	case moved && !v.Has("amount"):
		m, ok, err := convertFor(ctx, tx, userID, v, "to_amount", "enter the amount received", t.Amount, from.Code, to.Code, t.Date, 0)
		if ok {
			t.ToAmount = m
		}
		return err
	}
	return nil
}

// withRate fills t's rate: what moved, to_amount ÷ amount, to 10 decimals.
func (t Transfer) withRate() Transfer {
	t.Rate = "1.0000000000"
	if t.Amount != 0 {
		t.Rate = json.Number(fixedDecimalText(new(big.Rat).SetFrac64(int64(t.ToAmount), int64(t.Amount)), maxRateDecimals))
	}
	return t
}

// resolveFeeCategory picks the fee's category: the one named, else the fee
// expense's current one (hasFee), else the first of defaultFeeCategories
// the user has active.
func (c *transferChange) resolveFeeCategory(ctx context.Context, tx Repo, v *Validator, userID string, hasFee bool) error {
	if c.feeCategory != "" {
		cat, err := activeCategory(ctx, tx, v, "fee_category", userID, KindExpense, c.feeCategory)
		c.next.FeeCategory = &cat.Name
		return err
	}
	if hasFee {
		return nil
	}
	for _, name := range defaultFeeCategories {
		cat, err := tx.ActiveCategoryByName(ctx, userID, KindExpense, name)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		c.next.FeeCategory = &cat.Name
		return nil
	}
	v.Add("fee_category", "is required: you have no active "+strings.Join(defaultFeeCategories, " or ")+" category")
	return nil
}

// transferLineDescription is the description of a transfer's line on one
// side: the transfer's description, or else where the money went or came from.
func transferLineDescription(t Transfer, debit bool) *string {
	if t.Description != nil {
		d := *t.Description
		return &d
	}
	d := "Transfer from " + t.FromAccountName
	if debit {
		d = "Transfer to " + t.ToAccountName
	}
	return &d
}

// transferFeeDescription is the description of a transfer's fee expense.
func transferFeeDescription(t Transfer) string {
	return fmt.Sprintf("Transfer fee: %s to %s", t.FromAccountName, t.ToAccountName)
}

// ListTransfers returns a page of the user's transfers.
func (s *Service) ListTransfers(ctx context.Context, userID string, f TransferFilter, p ListParams) (ConvertedPage[Transfer], error) {
	items, sum, err := s.store.Read().ListTransfers(ctx, userID, f, p)
	for i := range items {
		items[i] = items[i].withRate()
	}
	// The total is of what left the source accounts, each in its currency.
	return convertedPageOf(ctx, s, userID, s.currency(ctx, userID), items, sum, err, p)
}

// GetTransfer returns one transfer (voided ones included).
func (s *Service) GetTransfer(ctx context.Context, userID, id string) (Transfer, error) {
	t, err := s.store.Read().Transfer(ctx, userID, id)
	return t.withRate(), err
}

// CreateTransfer records a transfer: its two lines, its fee expense if any
// and the transfer, in one transaction. A from-account left below zero is
// answered with a warning.
func (s *Service) CreateTransfer(ctx context.Context, userID string, r TransferRequest) (Transfer, error) {
	now := s.stamp()
	c, err := r.shape(Transfer{ID: NewID(), Status: LinePosted, CreatedAt: now, UpdatedAt: now}, true)
	if err != nil {
		return Transfer{}, err
	}
	today := s.today(ctx, userID)
	var out Transfer
	err = s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		tx = w // every change below is watched
		if err := c.resolve(ctx, tx, userID, r, true, false); err != nil {
			return err
		}
		t := c.next
		from := s.newLine(t.FromAccountID, LineDebit, t.Amount, t.Date, transferLineDescription(t, true), SourceTransfer, &t.ID)
		to := s.newLine(t.ToAccountID, LineCredit, t.ToAmount, t.Date, transferLineDescription(t, false), SourceTransfer, &t.ID)
		for _, line := range []AccountTransaction{from, to} {
			if err := tx.InsertAccountTransaction(ctx, userID, line); err != nil {
				return err
			}
		}
		t.FromLineID, t.ToLineID = from.ID, to.ID
		if t.Fee > 0 {
			if err := s.insertTransferFee(ctx, tx, userID, &t); err != nil {
				return err
			}
		}
		if err := tx.InsertTransfer(ctx, userID, t); err != nil {
			return err
		}
		var err error
		if out, err = tx.Transfer(ctx, userID, t.ID); err != nil {
			return err
		}
		if err := s.recordTransfer(ctx, tx, userID, LogCreated, out, transferSummary(out)); err != nil {
			return err
		}
		out.Warnings, err = w.balances(ctx)
		return err
	})
	return out.withRate(), err
}

// insertTransferFee stores t's fee as an Account Debit expense from its
// from-account, in the category t.FeeCategory names.
func (s *Service) insertTransferFee(ctx context.Context, tx Repo, userID string, t *Transfer) error {
	cat, err := tx.ActiveCategoryByName(ctx, userID, KindExpense, *t.FeeCategory)
	if err != nil {
		return err
	}
	e := s.newExpense(ctx)
	e.Source, e.Amount, e.Date, e.Description = ExpenseTransfer, t.Fee, t.Date, transferFeeDescription(*t)
	e.CategoryID, e.Category, e.PaymentMethod, e.AccountID = &cat.ID, &cat.Name, MethodAccountDebit, &t.FromAccountID
	if err := s.insertExpense(ctx, tx, userID, &e); err != nil {
		return err
	}
	t.FeeExpenseID = &e.ID
	return nil
}

// UpdateTransfer changes the fields present in r. Both lines are rewritten
// in place (amount, date, description and account), and the fee expense is
// kept in step: changed in place, created, or voided when the fee becomes 0.
func (s *Service) UpdateTransfer(ctx context.Context, userID, id string, r TransferRequest) (Transfer, error) {
	today := s.today(ctx, userID)
	var out Transfer
	err := s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		tx = w // every change below is watched
		cur, err := tx.Transfer(ctx, userID, id)
		if err != nil {
			return err
		}
		c, err := r.shape(cur, false)
		if err != nil {
			return err
		}
		if cur.Status == LineVoided {
			return InvalidStatus("transfer is deleted and cannot be changed")
		}
		if err := c.resolve(ctx, tx, userID, r, false, cur.FeeExpenseID != nil); err != nil {
			return err
		}
		t := c.next
		now := s.stamp()
		for _, side := range []struct {
			id      string
			account string
			amount  Money
			debit   bool
		}{{t.FromLineID, t.FromAccountID, t.Amount, true}, {t.ToLineID, t.ToAccountID, t.ToAmount, false}} {
			line, err := tx.AccountTransaction(ctx, userID, side.id)
			if err != nil {
				return err
			}
			line.AccountID, line.Amount, line.Date = side.account, side.amount, t.Date
			line.Description, line.UpdatedAt = transferLineDescription(t, side.debit), now
			if err := tx.UpdateAccountTransaction(ctx, userID, line); err != nil {
				return err
			}
		}
		if err := s.syncTransferFee(ctx, tx, userID, &t, now); err != nil {
			return err
		}
		t.UpdatedAt = now
		if err := tx.UpdateTransfer(ctx, userID, t); err != nil {
			return err
		}
		if out, err = tx.Transfer(ctx, userID, id); err != nil {
			return err
		}
		if c := changes(cur, out, "from_account_name", "to_account_name", "amount", "to_amount", "date", "description", "fee", "fee_category"); len(c) > 0 {
			if err := s.recordTransfer(ctx, tx, userID, LogUpdated, out, "Transfer: "+c.String()); err != nil {
				return err
			}
		}
		out.Warnings, err = w.balances(ctx)
		return err
	})
	return out.withRate(), err
}

// syncTransferFee keeps t's fee expense in step with t: created when a fee
// appears, voided when it goes, else changed in place with its line.
func (s *Service) syncTransferFee(ctx context.Context, tx Repo, userID string, t *Transfer, now time.Time) error {
	switch {
	case t.FeeExpenseID == nil && t.Fee > 0:
		return s.insertTransferFee(ctx, tx, userID, t)
	case t.FeeExpenseID == nil:
		return nil
	case t.Fee == 0:
		id := *t.FeeExpenseID
		t.FeeExpenseID, t.FeeCategory = nil, nil
		return s.voidTransferFee(ctx, tx, userID, id)
	}
	e, err := tx.Expense(ctx, userID, *t.FeeExpenseID)
	if err != nil {
		return err
	}
	if t.FeeCategory != nil && (e.Category == nil || *e.Category != *t.FeeCategory) {
		cat, err := tx.ActiveCategoryByName(ctx, userID, KindExpense, *t.FeeCategory)
		if err != nil {
			return err
		}
		e.CategoryID, e.Category = &cat.ID, &cat.Name
	}
	line, err := tx.AccountTransaction(ctx, userID, *e.AccountTransactionID)
	if err != nil {
		return err
	}
	e.Amount, e.Date, e.Description, e.AccountID, e.UpdatedAt = t.Fee, t.Date, transferFeeDescription(*t), &t.FromAccountID, now
	desc := e.Description
	line.AccountID, line.Amount, line.Date, line.Description, line.UpdatedAt = t.FromAccountID, e.Amount, e.Date, &desc, now
	if err := tx.UpdateAccountTransaction(ctx, userID, line); err != nil {
		return err
	}
	return tx.UpdateExpense(ctx, userID, e)
}

// voidTransferFee voids a transfer's fee expense and its account line.
func (s *Service) voidTransferFee(ctx context.Context, tx Repo, userID, expenseID string) error {
	e, err := tx.Expense(ctx, userID, expenseID)
	if err != nil {
		return err
	}
	if err := s.unlinkExpense(ctx, tx, userID, e); err != nil {
		return err
	}
	return s.markExpenseVoided(ctx, tx, userID, e)
}

// VoidTransfer is DELETE /transfers/{id}: both lines and the fee expense are
// voided with the transfer, in one transaction (also on an archived account,
// since a void reverses history).
func (s *Service) VoidTransfer(ctx context.Context, userID, id string) (Transfer, error) {
	var out Transfer
	err := s.store.Write(ctx, func(tx Repo) error {
		t, err := tx.Transfer(ctx, userID, id)
		if err != nil {
			return err
		}
		if t.Status == LineVoided {
			return InvalidStatus("transfer is already deleted")
		}
		for _, line := range []string{t.FromLineID, t.ToLineID} {
			if err := s.voidLine(ctx, tx, userID, line); err != nil {
				return err
			}
		}
		if t.FeeExpenseID != nil {
			if err := s.voidTransferFee(ctx, tx, userID, *t.FeeExpenseID); err != nil {
				return err
			}
		}
		now := s.stamp()
		t.Status, t.VoidedAt, t.UpdatedAt = LineVoided, &now, now
		if err := tx.UpdateTransfer(ctx, userID, t); err != nil {
			return err
		}
		if out, err = tx.Transfer(ctx, userID, id); err != nil {
			return err
		}
		return s.recordTransfer(ctx, tx, userID, LogVoided, out, transferSummary(out)+" deleted")
	})
	return out.withRate(), err
}

// recordTransfer appends the entry of a write on the transfer t.
func (s *Service) recordTransfer(ctx context.Context, tx Repo, userID, action string, t Transfer, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordTransfer, RecordID: t.ID, Action: action, Summary: summary, Amount: &t.Amount})
}

// transferSummary says what a transfer moved: `Transfer of 500.00 from
// "BPI" to "GCash" on 2026-11-26, fee 15.00`.
func transferSummary(t Transfer) string {
	out := fmt.Sprintf("Transfer of %s from %s to %s on %s", t.Amount, quoted(t.FromAccountName), quoted(t.ToAccountName), t.Date)
	if t.FromCurrency != t.ToCurrency {
		out = fmt.Sprintf("Transfer of %s %s from %s to %s on %s, %s %s received", t.Amount, t.FromCurrency,
			quoted(t.FromAccountName), quoted(t.ToAccountName), t.Date, t.ToAmount, t.ToCurrency)
	}
	if t.Fee > 0 {
		out += ", fee " + t.Fee.String()
	}
	return out
}
