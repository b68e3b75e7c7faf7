package finance

import (
	"context"
	"errors"
	"fmt"
	"slices"
)

// The cleared states of an account line and a card row (docs/domain.md
// "Reconciliation"). A card row is never reconciled: its statement is the
// bank's word on it.
const (
	ClearedPending    = "pending"    // not yet seen on the bank's side
	ClearedCleared    = "cleared"    // the person saw it on the bank's side
	ClearedReconciled = "reconciled" // part of a reconcile that matched; its money is locked
)

// ClearedStates are the values the line lists filter on; MarkableStates
// are the ones a person sets by hand (only a reconcile sets reconciled).
var (
	ClearedStates  = []string{ClearedPending, ClearedCleared, ClearedReconciled}
	MarkableStates = []string{ClearedPending, ClearedCleared}
)

// Limits of the reconcile routes.
const (
	MaxMarkLines      = 500 // ids in one POST /accounts/{id}/cleared
	MaxUnclearedShown = 100 // pending lines a reconcile's answer lists
)

// ClearedRepo is the persistence of the cleared state. It is written only
// by these statements, never by a line's or a row's update, so no edit can
// drop it and no money edit can smuggle in a change of it.
type ClearedRepo interface {
	// SetLinesCleared sets cleared on the user's lines ids.
	SetLinesCleared(ctx context.Context, userID string, ids []string, cleared string) error
	// ClearedBalance is the account's opening balance plus the posted
	// cleared and reconciled lines dated on or before date.
	ClearedBalance(ctx context.Context, userID, accountID string, date Date) (Money, error)
	// ReconcileLines marks the account's posted cleared lines dated on or
	// before date reconciled and returns how many changed.
	ReconcileLines(ctx context.Context, userID, accountID string, date Date) (int, error)
	// SetCardTransactionsCleared sets cleared on the user's card rows ids.
	SetCardTransactionsCleared(ctx context.Context, userID string, ids []string, cleared string) error
	// MarkImportedCleared marks cleared every line and card row a batch's
	// commit wrote: they came from the bank's own file.
	MarkImportedCleared(ctx context.Context, userID, batchID string) error
	// ImportReconciledLine returns the id of a reconciled line the batch
	// wrote, or "" when there is none.
	ImportReconciledLine(ctx context.Context, userID, batchID string) (string, error)
}

// markable reads a cleared value a person may set, as a problem on field.
func markable(v *Validator, field string, f Field[string]) string {
	if !Readable(v, field, f) {
		if !v.Has(field) {
			v.Add(field, "must be pending or cleared")
		}
		return ""
	}
	switch {
	case f.Value == ClearedReconciled:
		v.Add(field, "must be pending or cleared; lines become reconciled only through POST /api/v1/accounts/{id}/reconcile")
	case !slices.Contains(MarkableStates, f.Value):
		v.Add(field, "must be pending or cleared")
	}
	return f.Value
}

// errReconciled is the refusal of a money edit of a reconciled line.
func errReconciled(t AccountTransaction) error {
	return InvalidStatus("account transaction %s is reconciled; set its cleared to cleared "+
		"(PUT /api/v1/accounts/%s/transactions/%[1]s) before changing its amount, date or account, or voiding it", t.ID, t.AccountID)
}

// reconciledGuard refuses every money edit of a reconciled line, under
// whichever use case makes it (a line's own route, an expense, income, a
// transfer, a payment's deletion): the rule holds in one place, so a new
// route that rewrites lines inherits it.
type reconciledGuard struct{ Repo }

func (g reconciledGuard) UpdateAccountTransaction(ctx context.Context, userID string, t AccountTransaction) error {
	cur, err := g.Repo.AccountTransaction(ctx, userID, t.ID)
	if err != nil {
		return err
	}
	moneyChanged := t.Amount != cur.Amount || t.Date != cur.Date || t.Type != cur.Type ||
		t.AccountID != cur.AccountID || t.Status != cur.Status
	if cur.Cleared == ClearedReconciled && moneyChanged {
		return errReconciled(cur)
	}
	return g.Repo.UpdateAccountTransaction(ctx, userID, t)
}

// guardedStore hands every write transaction the reconciled guard.
type guardedStore struct{ Store }

func (g guardedStore) Write(ctx context.Context, fn func(Repo) error) error {
	return g.Store.Write(ctx, func(tx Repo) error { return fn(reconciledGuard{tx}) })
}

// MarkClearedRequest is the body of POST /accounts/{id}/cleared.
type MarkClearedRequest struct {
	TransactionIDs Field[[]string] `json:"transaction_ids"`
	Cleared        Field[string]   `json:"cleared"`
}

// MarkedLines is the answer of POST /accounts/{id}/cleared: the lines as
// they are now.
type MarkedLines struct {
	Cleared string               `json:"cleared"`
	Items   []AccountTransaction `json:"items"`
}

// MarkCleared sets cleared on several posted lines of one account, all or
// none. Setting cleared (or pending) on a reconciled line un-reconciles it.
func (s *Service) MarkCleared(ctx context.Context, userID, accountID string, r MarkClearedRequest) (MarkedLines, error) {
	var out MarkedLines
	err := s.store.Write(ctx, func(tx Repo) error {
		a, active, err := writableAccount(ctx, tx, userID, accountID)
		if err != nil {
			return err
		}
		var v Validator
		cleared := markable(&v, "cleared", r.Cleared)
		var ids []string
		var marked, unreconciled int // lines whose state changes, and those of them reconciled until now
		switch n := len(r.TransactionIDs.Value); {
		case !Readable(&v, "transaction_ids", r.TransactionIDs):
			if !v.Has("transaction_ids") {
				v.Add("transaction_ids", "is required")
			}
		case n < 1 || n > MaxMarkLines:
			v.Add("transaction_ids", fmt.Sprintf("must hold 1 to %d line ids (got %d)", MaxMarkLines, n))
		}
		seen := map[string]bool{}
		for i, id := range r.TransactionIDs.Value {
			field := fmt.Sprintf("transaction_ids[%d]", i)
			if !ValidID(id) {
				v.Add(field, "must be the id of a posted line of this account")
				continue
			}
			t, err := lineOfAccount(ctx, tx, userID, accountID, id)
			if err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			switch {
			case err != nil || t.Status != LinePosted:
				v.Add(field, "must be the id of a posted line of this account")
			case seen[t.ID]:
				v.Add(field, "repeats an id listed before it")
			default:
				seen[t.ID] = true
				ids = append(ids, t.ID)
				if t.Cleared != cleared {
					marked++
				}
				if t.Cleared == ClearedReconciled {
					unreconciled++
				}
			}
		}
		if err := v.Err(); err != nil {
			return err
		}
		if err := active(); err != nil {
			return err
		}
		if err := tx.SetLinesCleared(ctx, userID, ids, cleared); err != nil {
			return err
		}
		out = MarkedLines{Cleared: cleared, Items: make([]AccountTransaction, len(ids))}
		for i, id := range ids {
			if out.Items[i], err = tx.AccountTransaction(ctx, userID, id); err != nil {
				return err
			}
		}
		if marked == 0 {
			return nil
		}
		summary := fmt.Sprintf("Marked %d line%s %s on %s", marked, plural(marked), cleared, quoted(a.Name))
		if unreconciled > 0 {
			summary += fmt.Sprintf(", %d of them no longer reconciled", unreconciled)
		}
		return s.recordAccount(ctx, tx, userID, LogUpdated, a, summary)
	})
	return out, err
}

// markedVerb says what a line's own route did to its cleared state, for
// its activity entry: "marked cleared", or "un-reconciled and marked
// pending" when it was reconciled.
func markedVerb(was, is string) string {
	if was == ClearedReconciled {
		return "un-reconciled and marked " + is
	}
	return "marked " + is
}

// ReconcileRequest is the body of POST /accounts/{id}/reconcile.
type ReconcileRequest struct {
	Date             Field[Date]  `json:"date"`
	StatementBalance Field[Money] `json:"statement_balance"`
}

// Reconciliation is the answer of a reconcile: the comparison, what it
// marked, and the pending lines up to the date (the likely difference).
type Reconciliation struct {
	AccountID        string               `json:"account_id"`
	Date             Date                 `json:"date"`
	StatementBalance Money                `json:"statement_balance"`
	ClearedBalance   Money                `json:"cleared_balance"`
	Difference       Money                `json:"difference"` // statement_balance − cleared_balance
	Reconciled       bool                 `json:"reconciled"`
	ReconciledCount  int                  `json:"reconciled_count"`
	Uncleared        []AccountTransaction `json:"uncleared"`
	UnclearedCount   int                  `json:"uncleared_count"`
}

// Reconcile compares the account's cleared balance at the date with the
// bank's statement balance; when they are equal it marks every cleared line
// up to the date reconciled. The comparison and the marking are one write
// transaction, so two reconciles never interleave.
func (s *Service) Reconcile(ctx context.Context, userID, accountID string, r ReconcileRequest) (Reconciliation, error) {
	var out Reconciliation
	err := s.store.Write(ctx, func(tx Repo) error {
		a, active, err := writableAccount(ctx, tx, userID, accountID)
		if err != nil {
			return err
		}
		var v Validator
		date := v.RequiredDate("date", r.Date)
		var statement Money
		if Readable(&v, "statement_balance", r.StatementBalance) {
			statement = r.StatementBalance.Value
		} else if !v.Has("statement_balance") {
			v.Add("statement_balance", "is required")
		}
		if err := v.Err(); err != nil {
			return err
		}
		if err := active(); err != nil {
			return err
		}
		cleared, err := tx.ClearedBalance(ctx, userID, accountID, date)
		if err != nil {
			return err
		}
		out = Reconciliation{AccountID: accountID, Date: date, StatementBalance: statement, ClearedBalance: cleared,
			Difference: statement - cleared, Reconciled: statement == cleared}
		if out.Reconciled {
			if out.ReconciledCount, err = tx.ReconcileLines(ctx, userID, accountID, date); err != nil {
				return err
			}
		}
		var uncleared ListTotals
		out.Uncleared, uncleared, err = tx.ListAccountTransactions(ctx, userID,
			AccountTransactionFilter{AccountID: accountID, Status: LinePosted, Cleared: ClearedPending, DateTo: date},
			ListParams{Page: 1, Limit: MaxUnclearedShown, SortBy: "date"})
		out.UnclearedCount = uncleared.Count
		if err != nil || out.ReconciledCount == 0 {
			return err
		}
		return s.recordAccount(ctx, tx, userID, LogUpdated, a, fmt.Sprintf("Reconciled %d line%s on %s: statement of %s, balance %s",
			out.ReconciledCount, plural(out.ReconciledCount), quoted(a.Name), date, statement))
	})
	return out, err
}

// ClearedBalance is the account's cleared balance at date, for the
// reconcile page to show beside the statement's.
func (s *Service) ClearedBalance(ctx context.Context, userID, accountID string, date Date) (Money, error) {
	return s.store.Read().ClearedBalance(ctx, userID, accountID, date)
}
