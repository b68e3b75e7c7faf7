package finance

import (
	"context"
	"fmt"
	"time"
)

// Statement payment statuses: posted, and voided only by voiding the statement.
const PaymentPosted = "posted"

// PaymentStatuses are the values the payment list's status filter accepts.
var PaymentStatuses = []string{PaymentPosted, StatusVoided}

// SOAPayment is money paid from an account against a statement. It writes a
// debit on the account (source soa_payment) and is not spending (§1.6).
type SOAPayment struct {
	ID                   string     `json:"id"`
	SOAID                string     `json:"soa_id"`
	CreditCardID         string     `json:"credit_card_id"`
	AccountID            string     `json:"account_id"`
	AccountName          string     `json:"account_name"` // computed
	AccountTransactionID string     `json:"account_transaction_id"`
	Amount               Money      `json:"amount"`
	Date                 Date       `json:"date"`
	Notes                *string    `json:"notes,omitempty"`
	Status               string     `json:"status"`
	VoidedAt             *time.Time `json:"voided_at,omitempty"`
	CreatedAt            time.Time  `json:"created_at"`
	UpdatedAt            time.Time  `json:"updated_at"`
}

// SOAPaymentFilter narrows GET /credit-cards/soa/{id}/payments.
type SOAPaymentFilter struct {
	Status   string // posted (default) or voided
	DateFrom Date
	DateTo   Date
}

// SOAPaymentRequest is the body of POST /credit-cards/soa/{id}/payments.
type SOAPaymentRequest struct {
	Amount    Field[Money]  `json:"amount"`
	AccountID Field[string] `json:"account_id"`
	Date      Field[Date]   `json:"date"`
	Notes     Field[string] `json:"notes"`
}

// SOAPaymentResult is the reply of a payment: the new payment and the
// statement's figures after it, without its lines (GET
// /credit-cards/soa/{id} lists them), so the reply keeps its size however
// many lines the statement has.
type SOAPaymentResult struct {
	Payment SOAPayment `json:"payment"`
	SOA     SOA        `json:"soa"`
	// Warnings: the answer's warnings, if any (warning.go).
	Warnings []Warning `json:"warnings,omitempty"`
}

// ListSOAPayments returns a page of a statement's payments.
func (s *Service) ListSOAPayments(ctx context.Context, userID, soaID string, f SOAPaymentFilter, p ListParams) (Page[SOAPayment], error) {
	if f.Status == "" {
		f.Status = PaymentPosted
	}
	items, total, err := s.store.Read().ListSOAPayments(ctx, userID, soaID, f, p)
	return pageOf(items, total, err, p)
}

// PaySOA records a payment from an active account against an open
// statement (also one of an archived card): at most what remains.
func (s *Service) PaySOA(ctx context.Context, userID, soaID string, r SOAPaymentRequest) (SOAPaymentResult, error) {
	today := s.today(ctx, userID)
	var out SOAPaymentResult
	err := s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		tx = w // every change below is watched
		a, err := tx.SOA(ctx, userID, soaID)
		if err != nil {
			return err
		}
		a.derive(today)
		var v Validator
		amount := v.RequiredMoney("amount", r.Amount)
		accountID := v.RequiredText("account_id", r.AccountID, MaxDescription)
		date := today
		if r.Date.Set && !r.Date.Null {
			date = v.RequiredDate("date", r.Date)
		}
		notes := v.OptionalText("notes", r.Notes, MaxNotes)
		if err := v.Err(); err != nil {
			return err
		}
		switch a.Status {
		case StatusVoided:
			return InvalidStatus("statement is voided; pay its replacement (%s)", replacement(a))
		case SOAPaid:
			return InvalidStatus("statement is already paid")
		}
		acct, _, err := newRefs(tx, userID, today).activeAccount(ctx, &v, "account_id", accountID)
		if err != nil {
			return err
		}
		if !v.Has("amount") && amount > a.Remaining {
			v.Add("amount", "must not exceed the remaining balance "+a.Remaining.String())
		}
		if err := v.Err(); err != nil {
			return err
		}
		card, err := tx.CreditCard(ctx, userID, a.CreditCardID, today)
		if err != nil {
			return err
		}
		p := SOAPayment{ID: NewID(), SOAID: a.ID, CreditCardID: a.CreditCardID, AccountID: acct.ID, AccountName: acct.Name,
			Amount: amount, Date: date, Notes: notes, Status: PaymentPosted}
		desc := fmt.Sprintf("Payment to %s, statement of %s", card.Name, a.StatementDate)
		line := s.newLine(acct.ID, LineDebit, amount, date, &desc, SourceSOAPayment, &p.ID)
		if err := tx.InsertAccountTransaction(ctx, userID, line); err != nil {
			return err
		}
		p.AccountTransactionID, p.CreatedAt, p.UpdatedAt = line.ID, line.CreatedAt, line.UpdatedAt
		if err := tx.InsertSOAPayment(ctx, userID, p); err != nil {
			return err
		}
		if err := s.recomputeSOA(ctx, tx, userID, &a, today); err != nil {
			return err
		}
		if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &a.CreditCardID, EntityType: LogSOAPayment, EntityID: p.ID, Action: LogPaid,
			Message: fmt.Sprintf("Paid %s from %s on the statement of %s; %s remains", amount, acct.Name, a.StatementDate, a.Remaining),
			Amount:  &p.Amount}); err != nil {
			return err
		}
		out.Payment = p
		if out.SOA, err = s.finishSOAWrite(ctx, tx, userID, soaID, today); err != nil {
			return err
		}
		out.Warnings, err = w.balances(ctx)
		return err
	})
	return out, err
}
