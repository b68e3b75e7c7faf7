package finance

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// CardTransactionRequest is the body of POST /credit-cards/transactions and
// PUT /credit-cards/transactions/{id}. On PUT only the fields present change.
type CardTransactionRequest struct {
	CreditCardID Field[string] `json:"credit_card_id"`
	Type         Field[string] `json:"type"`
	Amount       Field[Money]  `json:"amount"`
	Date         Field[Date]   `json:"date"`
	Description  Field[string] `json:"description"`
	Category     Field[string] `json:"category"`
	// Cleared ticks the row off against the bank: pending or cleared.
	Cleared Field[string] `json:"cleared"`
	// OriginalAmount and OriginalCurrency are a purchase abroad: what was
	// paid, in what. With them, amount (what the card bills) may be left out.
	OriginalAmount   Field[Money]  `json:"original_amount"`
	OriginalCurrency Field[string] `json:"original_currency"`
}

// onlyCleared reports whether r changes nothing but cleared, which any
// row that is not voided takes, whatever its state.
func (r CardTransactionRequest) onlyCleared() bool {
	return r.Cleared.Set && !r.CreditCardID.Set && !r.Type.Set && !r.Amount.Set && !r.Date.Set &&
		!r.Description.Set && !r.Category.Set && !r.OriginalAmount.Set && !r.OriginalCurrency.Set
}

// cardDraft is a CardTransactionRequest after the checks of its shape: the
// merged row, and the category name to resolve ("" when it does not change).
type cardDraft struct {
	next         CardTransaction
	categoryName string
	amountSet    bool // the request named the amount
	abroad       abroad
}

const problemCardID = "must be the id of one of your active credit cards"

// shape validates the fields present in r (all required ones on create) over
// cur, without looking at other records.
func (r CardTransactionRequest) shape(cur CardTransaction, create bool) (cardDraft, error) {
	var v Validator
	d := cardDraft{next: cur}
	t := &d.next
	if create || r.CreditCardID.Set {
		t.CreditCardID = ""
		if Readable(&v, "credit_card_id", r.CreditCardID) {
			t.CreditCardID = strings.TrimSpace(r.CreditCardID.Value)
		}
		switch {
		case v.Has("credit_card_id"):
		case t.CreditCardID == "":
			v.Add("credit_card_id", "is required")
		case !ValidID(t.CreditCardID):
			v.Add("credit_card_id", problemCardID)
		}
	}
	switch {
	case create && r.Type.Has() && r.Type.Value == CardInstallment:
		v.Add("type", "installment rows are created only by installment plans; use purchase, fee, interest or refund")
	case create:
		t.Type = requiredEnum(&v, "type", r.Type, strings.Join(CardTransactionTypes, ", "),
			func(s string) bool { return slices.Contains(CardTransactionTypes, s) })
	case r.Type.Set && (!r.Type.Has() || r.Type.Value != cur.Type):
		v.Add("type", "cannot change; void the transaction and create a new one")
	}
	d.abroad = readAbroad(&v, r.OriginalAmount, r.OriginalCurrency)
	switch {
	case d.abroad.named && t.Type != CardPurchase:
		if d.abroad.given() {
			v.Add("original_amount", "must be absent for "+t.Type+" transactions: only a purchase is made abroad")
		}
	case d.abroad.named:
		t.OriginalAmount, t.OriginalCurrency = d.abroad.amount, d.abroad.currency
	}
	// A purchase abroad may leave amount out: the card's rate and fee make it.
	billed := t.Type == CardPurchase && d.abroad.given() && !r.Amount.Set
	if (create && !billed) || r.Amount.Set {
		t.Amount, d.amountSet = v.RequiredMoney("amount", r.Amount), true
	}
	if create || r.Date.Set {
		t.Date = v.RequiredDate("date", r.Date)
	}
	if create || r.Description.Set {
		t.Description = v.RequiredText("description", r.Description, MaxDescription)
	}
	if r.Cleared.Set {
		t.Cleared = requiredEnum(&v, "cleared", r.Cleared, strings.Join(MarkableStates, ", "),
			func(s string) bool { return slices.Contains(MarkableStates, s) })
	}
	switch t.Type {
	case CardPurchase, CardRefund:
		if create || r.Category.Set {
			d.categoryName = v.RequiredText("category", r.Category, MaxName)
		}
	case CardFee, CardInterest, CardInstallment:
		if r.Category.Set && !r.Category.Null {
			v.Add("category", "must be absent for "+t.Type+" transactions; they count under "+CategoryCardFees)
		}
	}
	return d, v.Err()
}

// ListCardTransactions returns a page of the rows of all the user's cards.
// The total is in the reporting currency, or in the card's when f names
// one card, as its statements are.
func (s *Service) ListCardTransactions(ctx context.Context, userID string, f CardTransactionFilter, p ListParams) (ConvertedPage[CardTransaction], error) {
	r := s.store.Read()
	items, sum, err := r.ListCardTransactions(ctx, userID, f, p)
	in := s.currency(ctx, userID)
	if err == nil {
		s.markFuture(ctx, userID, items)
		if f.CardID != "" {
			if c, cerr := r.CreditCard(ctx, userID, f.CardID, s.today(ctx, userID)); cerr == nil {
				in = c.Currency
			}
		}
	}
	return convertedPageOf(ctx, s, userID, in, items, sum, err, p)
}

// UnbilledPage is GET /credit-cards/{id}/unbilled-transactions: the card's
// unbilled rows with the card's Currency, which their amounts and the
// summary's total are in.
type UnbilledPage struct {
	ConvertedPage[CardTransaction]
	Currency string `json:"currency"`
}

// ListUnbilledTransactions returns a page of the card's unbilled rows,
// future-dated ones included; f's card and status are set here.
func (s *Service) ListUnbilledTransactions(ctx context.Context, userID, cardID string, f CardTransactionFilter, p ListParams) (UnbilledPage, error) {
	c, err := s.store.Read().CreditCard(ctx, userID, cardID, s.today(ctx, userID))
	if err != nil {
		return UnbilledPage{}, err
	}
	f.CardID, f.Status = cardID, CardUnbilled
	page, err := s.ListCardTransactions(ctx, userID, f, p)
	return UnbilledPage{ConvertedPage: page, Currency: c.Currency}, err
}

// GetCardTransaction returns one card row (voided ones included).
func (s *Service) GetCardTransaction(ctx context.Context, userID, id string) (CardTransaction, error) {
	t, err := s.store.Read().CardTransaction(ctx, userID, id)
	if err != nil {
		return CardTransaction{}, err
	}
	t.IsFuture = t.Date.After(s.today(ctx, userID))
	return t, nil
}

func (s *Service) markFuture(ctx context.Context, userID string, items []CardTransaction) {
	today := s.today(ctx, userID)
	for i := range items {
		items[i].IsFuture = items[i].Date.After(today)
	}
}

// CreateCardTransaction is POST /credit-cards/transactions on an active
// card. A purchase also creates its expense (method Credit Card, same
// amount, date and description, the given category), which holds the
// category; a refund keeps its category on the row; fees and interest have none.
func (s *Service) CreateCardTransaction(ctx context.Context, userID string, r CardTransactionRequest) (CardTransaction, error) {
	d, err := r.shape(CardTransaction{}, true)
	if err != nil {
		return CardTransaction{}, err
	}
	today := s.today(ctx, userID)
	var out CardTransaction
	err = s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		tx = w // every change below is watched
		var v Validator
		rf := newRefs(tx, userID, today)
		card, _, err := rf.activeCard(ctx, &v, "credit_card_id", d.next.CreditCardID)
		if err != nil {
			return err
		}
		var cat Category
		if d.categoryName != "" {
			if cat, _, err = rf.expenseCategory(ctx, &v, "category", d.categoryName); err != nil {
				return err
			}
		}
		if err := billCardRow(ctx, tx, userID, &v, card, &d, true); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		t := d.next
		var e Expense
		if t.Type == CardPurchase {
			e = s.newExpense(ctx)
			e.Amount, e.Date, e.Description = t.Amount, t.Date, t.Description
			e.OriginalAmount, e.OriginalCurrency = t.OriginalAmount, t.OriginalCurrency
			e.CategoryID, e.Category = &cat.ID, &cat.Name
			e.PaymentMethod, e.CreditCardID = MethodCreditCard, &card.ID
			row, err := s.linkExpense(ctx, tx, userID, &e)
			if err != nil {
				return err
			}
			if err := tx.InsertExpense(ctx, userID, e); err != nil {
				return err
			}
			out = *row
		} else {
			if t.Type == CardRefund {
				t.CategoryID, t.Category = &cat.ID, &cat.Name
			}
			if out, err = s.insertCardRow(ctx, tx, userID, card, t); err != nil {
				return err
			}
		}
		// The row joins its period's unpaid statement before generation,
		// which would otherwise sweep it onto the next new statement.
		if err := s.joinUnpaidStatement(ctx, tx, userID, out.ID, today); err != nil {
			return err
		}
		if err := s.generate(ctx, tx, userID, today); err != nil {
			return err
		}
		if out, err = tx.CardTransaction(ctx, userID, out.ID); err != nil {
			return err
		}
		out.IsFuture = out.Date.After(today)
		if t.Type == CardPurchase {
			out.Warnings, err = w.written(ctx, e)
		} else {
			out.Warnings, err = w.balances(ctx)
		}
		if err != nil {
			return err
		}
		notes, err := backdatedNotes(ctx, tx, userID, card, out, today)
		out.Warnings = append(out.Warnings, notes...)
		return err
	})
	if err != nil {
		return CardTransaction{}, err
	}
	return out, nil
}

// billCardRow checks the money of d against the card that bills it: a
// purchase abroad (billed when amount was left out), and the amount's
// decimals in the card's currency. moved says the row is new on this card.
func billCardRow(ctx context.Context, tx Repo, userID string, v *Validator, card CreditCard, d *cardDraft, moved bool) error {
	t := &d.next
	if d.abroad.named || moved {
		if err := billAbroad(ctx, tx, userID, v, card, t.OriginalAmount, t.OriginalCurrency, t.Date, &t.Amount, d.amountSet); err != nil {
			return err
		}
	}
	if d.amountSet || moved {
		checkDecimals(v, "amount", t.Amount, currencyOf(card.Currency))
	}
	return nil
}

// insertCardRow stores t, a row other than a purchase, unbilled on card, and logs it.
func (s *Service) insertCardRow(ctx context.Context, tx Repo, userID string, card CreditCard, t CardTransaction) (CardTransaction, error) {
	now := s.stamp()
	t.ID, t.Status, t.CreatedAt, t.UpdatedAt = NewID(), CardUnbilled, now, now
	t.CreditCardID, t.CreditCardName = card.ID, card.Name
	if err := tx.InsertCardTransaction(ctx, userID, t); err != nil {
		return CardTransaction{}, err
	}
	return t, s.logRowWritten(ctx, tx, userID, LogCreated, t)
}

// UpdateCardTransaction is PUT /credit-cards/transactions/{id}. The card,
// amount and date change only while the row is unbilled; description and
// category in any non-voided state. Installment rows change through their
// plan. A purchase's expense is kept in step.
func (s *Service) UpdateCardTransaction(ctx context.Context, userID, id string, r CardTransactionRequest) (CardTransaction, error) {
	today := s.today(ctx, userID)
	var out CardTransaction
	err := s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		tx = w // every change below is watched
		cur, err := tx.CardTransaction(ctx, userID, id)
		if err != nil {
			return err
		}
		d, err := r.shape(cur, false)
		if err != nil {
			return err
		}
		t := &d.next
		if r.onlyCleared() {
			if cur.Status == StatusVoided {
				return InvalidStatus("card transaction is voided and cannot be changed")
			}
			if err := tx.SetCardTransactionsCleared(ctx, userID, []string{id}, t.Cleared); err != nil {
				return err
			}
			out, err = tx.CardTransaction(ctx, userID, id)
			out.IsFuture = out.Date.After(today)
			return err
		}
		cardChanged := t.CreditCardID != cur.CreditCardID
		moneyChanged := cardChanged || t.Amount != cur.Amount || t.Date != cur.Date
		var exp Expense
		if cur.ExpenseID != nil {
			if exp, err = tx.Expense(ctx, userID, *cur.ExpenseID); err != nil {
				return err
			}
		}
		if err := checkCardEdit(cur, exp, d, moneyChanged); err != nil {
			return err
		}
		var v Validator
		rf := newRefs(tx, userID, today)
		card, ok := CreditCard{}, true
		if cardChanged {
			card, ok, err = rf.activeCard(ctx, &v, "credit_card_id", t.CreditCardID)
		} else {
			card, err = tx.CreditCard(ctx, userID, t.CreditCardID, today)
		}
		if err != nil {
			return err
		}
		if ok {
			if err := billCardRow(ctx, tx, userID, &v, card, &d, cardChanged); err != nil {
				return err
			}
		}
		var cat Category
		if d.categoryName != "" {
			if cat, _, err = rf.expenseCategory(ctx, &v, "category", d.categoryName); err != nil {
				return err
			}
		}
		if err := v.Err(); err != nil {
			return err
		}
		now := s.stamp()
		if cur.ExpenseID != nil {
			if err := s.syncPurchaseExpense(ctx, tx, userID, exp, *t, card.Currency, d.categoryName != "", cat, now); err != nil {
				return err
			}
		} else if d.categoryName != "" {
			t.CategoryID = &cat.ID
		}
		t.UpdatedAt = now
		if err := tx.UpdateCardTransaction(ctx, userID, *t); err != nil {
			return err
		}
		if r.Cleared.Set {
			if err := tx.SetCardTransactionsCleared(ctx, userID, []string{id}, t.Cleared); err != nil {
				return err
			}
		}
		if err := s.generate(ctx, tx, userID, today); err != nil {
			return err
		}
		if out, err = tx.CardTransaction(ctx, userID, id); err != nil {
			return err
		}
		out.IsFuture = out.Date.After(today)
		if err := s.logRowChanged(ctx, tx, userID, cur, out); err != nil {
			return err
		}
		if cur.ExpenseID == nil {
			out.Warnings, err = w.balances(ctx)
			return err
		}
		// A purchase's expense changed with it: the expense rules apply as on PUT /expenses/{id}.
		after, err := tx.Expense(ctx, userID, *cur.ExpenseID)
		if err != nil {
			return err
		}
		out.Warnings, err = w.changed(ctx, exp, after)
		return err
	})
	return out, err
}

// checkCardEdit applies the state rules of PUT /credit-cards/transactions/{id}.
func checkCardEdit(cur CardTransaction, exp Expense, d cardDraft, moneyChanged bool) error {
	switch {
	case cur.Status == StatusVoided:
		return InvalidStatus("card transaction is voided and cannot be changed")
	case cur.Type == CardInstallment:
		return InvalidStatus("installment rows change through their installment plan")
	case moneyChanged && cur.Status != CardUnbilled:
		return InvalidStatus("card transaction is %s; its card, amount and date can no longer change", cur.Status)
	case moneyChanged && exp.Source == ExpenseBillPayment:
		return InvalidStatus("card transaction pays a bill; its card, amount and date cannot change (delete the bill payment and record it again)")
	case exp.IsSplit && d.next.Amount != cur.Amount && d.categoryName == "":
		return InvalidStatus("the purchase's expense is split; set category in the same request to remove the split before changing the amount")
	}
	return nil
}

// syncPurchaseExpense keeps a purchase's expense equal to its row: card,
// amount, date and description, and the category when one is named (which
// removes a split).
func (s *Service) syncPurchaseExpense(ctx context.Context, tx Repo, userID string, e Expense, t CardTransaction, currency string,
	setCategory bool, cat Category, now time.Time,
) error {
	card := t.CreditCardID
	e.Amount, e.Date, e.Description, e.CreditCardID, e.Currency = t.Amount, t.Date, t.Description, &card, currency
	e.OriginalAmount, e.OriginalCurrency = t.OriginalAmount, t.OriginalCurrency
	if setCategory {
		if e.IsSplit {
			if err := tx.ReplaceSplits(ctx, userID, e.ID, nil); err != nil {
				return err
			}
		}
		e.CategoryID = &cat.ID
	}
	e.UpdatedAt = now
	return tx.UpdateExpense(ctx, userID, e)
}

// VoidCardTransaction is DELETE /credit-cards/transactions/{id}: it voids an
// unbilled row that is not an installment row, and a purchase's expense with it.
func (s *Service) VoidCardTransaction(ctx context.Context, userID, id string) (CardTransaction, error) {
	today := s.today(ctx, userID)
	var out CardTransaction
	err := s.store.Write(ctx, func(tx Repo) error {
		t, err := tx.CardTransaction(ctx, userID, id)
		if err != nil {
			return err
		}
		switch {
		case t.Type == CardInstallment:
			return InvalidStatus("installment rows are voided only by cancelling their installment plan")
		case t.Status != CardUnbilled:
			return InvalidStatus("card transaction is %s; only unbilled transactions can be voided", t.Status)
		}
		if t.ExpenseID != nil {
			e, err := tx.Expense(ctx, userID, *t.ExpenseID)
			if err != nil {
				return err
			}
			if e.Source == ExpenseBillPayment {
				return InvalidStatus("card transaction pays a bill; delete the bill payment instead")
			}
			if e.Status != StatusVoided {
				if err := s.markExpenseVoided(ctx, tx, userID, e); err != nil {
					return err
				}
			}
		}
		if err := s.voidCardRow(ctx, tx, userID, id); err != nil {
			return err
		}
		out, err = tx.CardTransaction(ctx, userID, id)
		out.IsFuture = out.Date.After(today)
		return err
	})
	return out, err
}

// backdatedNotes says what a back-dated row did to its card's statements
// (domain.md, Back-dated card charges): card is the card as it was before
// the write, t the row as it is after statements were generated.
func backdatedNotes(ctx context.Context, tx Repo, userID string, card CreditCard, t CardTransaction, today Date) ([]Warning, error) {
	after, err := tx.CreditCard(ctx, userID, card.ID, today)
	if err != nil {
		return nil, err
	}
	var out []Warning
	if after.CycleStartDate.Before(card.CycleStartDate) {
		out = append(out, Warning{Code: WarnStatementsFromMoved, CreditCardID: card.ID,
			Message: fmt.Sprintf("Statements from on %s moved back from %s to %s so that its statements bill this %s dated %s.",
				card.Name, card.CycleStartDate, after.CycleStartDate, t.Type, t.Date)})
	}
	closed := StatementDate(card.StatementDay, today)
	if !closed.Before(today) {
		closed = MonthAdd(today, -1, card.StatementDay)
	}
	if t.Date.After(closed) || t.Status == StatusVoided {
		return out, nil
	}
	where := "stays unbilled until the next statement"
	if t.SOAID != nil {
		a, err := tx.SOA(ctx, userID, *t.SOAID)
		if err != nil || !t.Date.Before(a.PeriodStart) {
			return out, err // billed in its own period
		}
		where = "is billed on the statement of " + a.StatementDate.String()
	}
	why := "the statement of its period has a payment"
	if t.Date.Before(after.CycleStartDate) {
		why = "it is dated before Statements from (" + after.CycleStartDate.String() + ") and a statement of the card has a payment"
	}
	out = append(out, Warning{Code: WarnBilledOnNextStatement, CreditCardID: card.ID,
		Message: fmt.Sprintf("This %s dated %s on %s %s: %s.", t.Type, t.Date, card.Name, where, why)})
	return out, nil
}
