package finance

import (
	"context"
	"fmt"
	"strings"
)

// Warning codes (docs/domain.md, Warnings). A code is stable, so programs
// can act on it; the message is for people and agents.
const (
	WarnAccountBelowZero      = "ACCOUNT_BELOW_ZERO"
	WarnCardOverLimit         = "CARD_OVER_LIMIT"
	WarnPossibleDuplicate     = "POSSIBLE_DUPLICATE"
	WarnMatchesBill           = "MATCHES_BILL"
	WarnMatchesLoanInstalment = "MATCHES_LOAN_INSTALLMENT"
	WarnStatementsFromMoved   = "STATEMENTS_FROM_MOVED"
	WarnBilledOnNextStatement = "BILLED_ON_NEXT_STATEMENT"
)

// Warning says why a write that was saved looks like a mistake. Warnings
// never block or change a write; they ride on its answer. Only the ids
// the code concerns are set.
type Warning struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	Index        *int   `json:"index,omitempty"` // the item of a bulk write
	AccountID    string `json:"account_id,omitempty"`
	CreditCardID string `json:"credit_card_id,omitempty"`
	ExpenseID    string `json:"expense_id,omitempty"` // the earlier expense a duplicate looks like
	BillID       string `json:"bill_id,omitempty"`
	LoanID       string `json:"loan_id,omitempty"`
	InstanceID   string `json:"instance_id,omitempty"`
}

// Windows of the expense rules: a duplicate is dated at most a day from
// the expense; a bill or installment it may pay is due at most a week
// before or after it.
const (
	duplicateDays = 1
	dueMatchDays  = 7
	// maxLookalikes bounds the expenses of the same amount a check reads:
	// the nearest ones by date, which are the ones a warning would name.
	maxLookalikes = 50
)

// WarningRepo finds what a write's warnings compare it with.
type WarningRepo interface {
	// ExpensesLike returns up to limit of the user's active expenses other
	// than exceptID with this amount, dated in [from, to], the ones dated
	// near first (then by date and the first recorded), with the fields a
	// warning reads: id, amount, date, description and card.
	ExpensesLike(ctx context.Context, userID string, amount Money, from, to, near Date, exceptID string, limit int) ([]Expense, error)
	// OpenBillsDue returns up to limit of the user's open (unpaid and
	// partially paid) bill instances due in [from, to], soonest first, with
	// their id, name, amount, paid total, due date and status.
	OpenBillsDue(ctx context.Context, userID string, from, to Date, limit int) ([]Bill, error)
	// OpenInstancesDue returns the unpaid and partially paid instances of
	// the user's active loans due in [from, to], soonest first, with their
	// id, loan, number, amount due, paid total, due date and loan's name.
	OpenInstancesDue(ctx context.Context, userID string, from, to Date) ([]LoanInstanceFigures, error)
}

// watch is a write's view of its transaction that notes each account and
// card the write moves money on, with its balance before the write's first
// change, so that the write can tell at its end which ones it left worse off
// (a lower balance below zero, a higher outstanding balance over the limit).
// Money moves only through the four row writes it wraps; everything else
// passes through to the transaction.
type watch struct {
	Repo
	s        *Service
	userID   string
	today    Date
	accounts []*watched // in the order the write first touched them
	cards    []*watched
	// billsThrough is the last due date whose bill instances this write
	// has generated (zero: none yet).
	billsThrough Date
}

// watched is one account or card a write moved money on.
type watched struct {
	id     string
	before Money // the balance (account) or outstanding balance (card) before the write
	moved  bool  // moved since the last balance check
	warned bool  // warned about already: once per write
}

// watch wraps tx for a write on today's ledger of userID.
func (s *Service) watch(tx Repo, userID string, today Date) *watch {
	return &watch{Repo: tx, s: s, userID: userID, today: today}
}

func (w *watch) InsertAccountTransaction(ctx context.Context, userID string, t AccountTransaction) error {
	if err := w.noteAccount(ctx, t.AccountID); err != nil {
		return err
	}
	return w.Repo.InsertAccountTransaction(ctx, userID, t)
}

func (w *watch) UpdateAccountTransaction(ctx context.Context, userID string, t AccountTransaction) error {
	old, err := w.Repo.AccountTransaction(ctx, userID, t.ID)
	if err != nil {
		return err
	}
	if err := w.noteAccount(ctx, old.AccountID); err != nil {
		return err
	}
	if err := w.noteAccount(ctx, t.AccountID); err != nil {
		return err
	}
	return w.Repo.UpdateAccountTransaction(ctx, userID, t)
}

func (w *watch) InsertCardTransaction(ctx context.Context, userID string, t CardTransaction) error {
	if err := w.noteCard(ctx, t.CreditCardID); err != nil {
		return err
	}
	return w.Repo.InsertCardTransaction(ctx, userID, t)
}

func (w *watch) UpdateCardTransaction(ctx context.Context, userID string, t CardTransaction) error {
	old, err := w.Repo.CardTransaction(ctx, userID, t.ID)
	if err != nil {
		return err
	}
	if err := w.noteCard(ctx, old.CreditCardID); err != nil {
		return err
	}
	if err := w.noteCard(ctx, t.CreditCardID); err != nil {
		return err
	}
	return w.Repo.UpdateCardTransaction(ctx, userID, t)
}

// noteAccount marks an account as moved, reading its balance the first time.
func (w *watch) noteAccount(ctx context.Context, id string) error {
	return note(&w.accounts, id, func() (Money, error) {
		a, err := w.Repo.Account(ctx, w.userID, id)
		return a.CurrentBalance, err
	})
}

// noteCard marks a card as moved, reading its outstanding balance the first time.
func (w *watch) noteCard(ctx context.Context, id string) error {
	return note(&w.cards, id, func() (Money, error) {
		c, err := w.Repo.CreditCard(ctx, w.userID, id, w.today)
		return c.OutstandingBalance, err
	})
}

func note(list *[]*watched, id string, balance func() (Money, error)) error {
	for _, x := range *list {
		if x.id == id {
			x.moved = true
			return nil
		}
	}
	before, err := balance()
	if err != nil {
		return err
	}
	*list = append(*list, &watched{id: id, before: before, moved: true})
	return nil
}

// balances returns the warnings of the accounts and cards moved since the
// last call: an account the write lowered and left below zero, a card whose
// outstanding balance it raised above the limit; each once per write. A
// bulk write calls it after each item, so a warning goes with the item
// that crossed the line.
func (w *watch) balances(ctx context.Context) ([]Warning, error) {
	var out []Warning
	for _, x := range w.accounts {
		if !x.moved || x.warned {
			continue
		}
		x.moved = false
		a, err := w.Repo.Account(ctx, w.userID, x.id)
		if err != nil {
			return nil, err
		}
		if after := a.CurrentBalance; after < 0 && after < x.before {
			x.warned = true
			out = append(out, Warning{Code: WarnAccountBelowZero, AccountID: a.ID, Message: fmt.Sprintf(
				"Account %q is below zero after this write: its balance is %s. If the amount or the account is wrong, "+
					"correct the record; if money came in that is not recorded yet, record it (create_income, POST /api/v1/income).",
				a.Name, after)})
		}
	}
	for _, x := range w.cards {
		if !x.moved || x.warned {
			continue
		}
		x.moved = false
		c, err := w.Repo.CreditCard(ctx, w.userID, x.id, w.today)
		if err != nil {
			return nil, err
		}
		if after := c.OutstandingBalance; after > c.CreditLimit && after > x.before {
			x.warned = true
			out = append(out, Warning{Code: WarnCardOverLimit, CreditCardID: c.ID, Message: fmt.Sprintf(
				"Card %q is over its credit limit after this write: %s owed on a limit of %s (%s%%). "+
					"Check the amount and the card; the bank may decline charges over the limit.",
				c.Name, after, c.CreditLimit, Percent(after, c.CreditLimit))})
		}
	}
	return out, nil
}

// expense returns the warnings of an expense the write recorded or changed:
// a likely duplicate of an earlier one, and (unless it is a bill's own
// payment) an open bill or loan installment it looks like the payment of.
func (w *watch) expense(ctx context.Context, e Expense) ([]Warning, error) {
	out, err := w.duplicate(ctx, e)
	if err != nil || e.Source == ExpenseBillPayment {
		return out, err
	}
	bill, err := w.billMatch(ctx, e)
	if err != nil {
		return nil, err
	}
	loan, err := w.loanMatch(ctx, e)
	if err != nil {
		return nil, err
	}
	return append(append(out, bill...), loan...), nil
}

// written returns the warnings of a write that recorded or changed e: e's
// own, then those of the accounts and cards the write moved money on.
func (w *watch) written(ctx context.Context, e Expense) ([]Warning, error) {
	out, err := w.expense(ctx, e)
	if err != nil {
		return nil, err
	}
	moved, err := w.balances(ctx)
	return append(out, moved...), err
}

// changed returns the warnings of a write that changed cur into next: the
// expense rules when it changed a field they read, then the balances.
func (w *watch) changed(ctx context.Context, cur, next Expense) ([]Warning, error) {
	if expenseRulesChanged(cur, next) {
		return w.written(ctx, next)
	}
	return w.balances(ctx)
}

// expenseRulesChanged reports whether an update of cur into next changed a
// field the expense rules read, so that it is checked again; an update of
// the notes alone says nothing new.
func expenseRulesChanged(cur, next Expense) bool {
	return cur.Amount != next.Amount || cur.Date != next.Date || cur.Description != next.Description ||
		cur.PaymentMethod != next.PaymentMethod || cur.target() != next.target() ||
		(cur.CategoryID == nil) != (next.CategoryID == nil) ||
		(cur.CategoryID != nil && next.CategoryID != nil && *cur.CategoryID != *next.CategoryID)
}

// duplicate finds the nearest active expense of the same amount dated at
// most a day away whose description is similar, or that is on the same card.
func (w *watch) duplicate(ctx context.Context, e Expense) ([]Warning, error) {
	near, err := w.ExpensesLike(ctx, w.userID, e.Amount, e.Date.AddDays(-duplicateDays), e.Date.AddDays(duplicateDays),
		e.Date, e.ID, maxLookalikes)
	if err != nil {
		return nil, err
	}
	for _, d := range near {
		sameCard := e.CreditCardID != nil && d.CreditCardID != nil && *e.CreditCardID == *d.CreditCardID
		if !sameCard && !similarText(d.Description, e.Description) {
			continue
		}
		return []Warning{{Code: WarnPossibleDuplicate, ExpenseID: d.ID, Message: fmt.Sprintf(
			"This looks like a duplicate of the expense %q (%s on %s, id %s). If both record the same spending, "+
				"void one of them (delete_expense, DELETE /api/v1/expenses/{id}).",
			d.Description, d.Amount, d.Date, d.ID)}}, nil
	}
	return nil, nil
}

// billMatch finds the open bill instance due nearest the expense's date,
// within a week, whose amount or remainder equals the expense's, or whose
// name is similar to its description or category.
func (w *watch) billMatch(ctx context.Context, e Expense) ([]Warning, error) {
	from, to := e.Date.AddDays(-dueMatchDays), e.Date.AddDays(dueMatchDays)
	if to.After(w.billsThrough) {
		// The instances due by then may not exist yet (§1.7): generate them
		// as a bills request would, once per write.
		horizon := BillHorizon(w.today, to)
		behind, err := w.BillsBehind(ctx, w.userID, horizon)
		if err != nil {
			return nil, err
		}
		if behind {
			if err := w.s.generateBills(ctx, w, w.userID, w.today, horizon); err != nil {
				return nil, err
			}
		}
		w.billsThrough = horizon
		if to.After(horizon) {
			w.billsThrough = to // beyond what generation ever reaches
		}
	}
	bills, err := w.OpenBillsDue(ctx, w.userID, from, to, maxLookalikes)
	if err != nil {
		return nil, err
	}
	category := ""
	if e.Category != nil {
		category = *e.Category
	}
	var best *Bill
	for i, b := range bills {
		remaining := b.Amount - b.PaidTotal
		if e.Amount != b.Amount && e.Amount != remaining && !similarText(b.Name, e.Description) && !similarText(b.Name, category) {
			continue
		}
		if best == nil || closer(b.DueDate, best.DueDate, e.Date) {
			best = &bills[i]
		}
	}
	if best == nil {
		return nil, nil
	}
	return []Warning{{Code: WarnMatchesBill, BillID: best.ID, Message: fmt.Sprintf(
		"This looks like your bill %q (%s due %s, %s). If it pays that bill, void this expense and record the payment "+
			"on the bill instead (record_bill_payment, POST /api/v1/bills/%s/payments), so the bill shows as paid and "+
			"the money counts once.",
		best.Name, best.Amount, best.DueDate, strings.ReplaceAll(best.Status, "_", " "), best.ID)}}, nil
}

// loanMatch finds the open installment of an active loan due nearest the
// expense's date, within a week, whose amount due or remainder equals the
// expense's, or whose loan's name is similar to its description.
func (w *watch) loanMatch(ctx context.Context, e Expense) ([]Warning, error) {
	due, err := w.OpenInstancesDue(ctx, w.userID, e.Date.AddDays(-dueMatchDays), e.Date.AddDays(dueMatchDays))
	if err != nil {
		return nil, err
	}
	var best *LoanInstanceFigures
	for i, x := range due {
		if e.Amount != x.AmountDue && e.Amount != x.AmountDue-x.PaidTotal && !similarText(x.LoanName, e.Description) {
			continue
		}
		if best == nil || closer(x.DueDate, best.DueDate, e.Date) {
			best = &due[i]
		}
	}
	if best == nil {
		return nil, nil
	}
	return []Warning{{Code: WarnMatchesLoanInstalment, LoanID: best.LoanID, InstanceID: best.ID, Message: fmt.Sprintf(
		"This looks like installment %d of your loan %q (%s due %s). If it pays that installment, void this expense and "+
			"record the payment on it instead (record_loan_payment, POST /api/v1/loans/instances/%s/payments): a loan "+
			"payment counts only its interest as spending.",
		best.InstallmentNumber, best.LoanName, best.AmountDue, best.DueDate, best.ID)}}, nil
}

// closer reports whether a is nearer to d than b; a tie goes to the earlier.
func closer(a, b, d Date) bool {
	da, db := abs(a.DaysUntil(d)), abs(b.DaysUntil(d))
	return da < db || (da == db && a.Before(b))
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// similarText reports whether two descriptions or names are similar
// (docs/domain.md): every word of one is a word of the other. Words are
// runs of letters and digits compared without letter case, in any order.
// Text without a word is similar to nothing.
func similarText(a, b string) bool {
	wa, wb := words(a), words(b)
	if len(wa) == 0 || len(wb) == 0 {
		return false
	}
	return subset(wa, wb) || subset(wb, wa)
}

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), notWordRune) {
		out[w] = true
	}
	return out
}

func subset(a, b map[string]bool) bool {
	for w := range a {
		if !b[w] {
			return false
		}
	}
	return true
}

// at marks warnings as those of the bulk item i.
func at(ws []Warning, i int) []Warning {
	for j := range ws {
		ws[j].Index = &i
	}
	return ws
}
