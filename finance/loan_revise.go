package finance

import (
	"context"
	"fmt"
	"slices"
)

// A loan's schedule before it is saved, a loan's terms changed while
// nothing is paid, and past installments marked paid in one step
// (domain.md, "Changing a loan's terms while nothing is paid" and "Marking
// past installments paid in one step").

// PreviewLoan is the loan and schedule r would create, computed by the code
// CreateLoan saves with; nothing is written.
func (s *Service) PreviewLoan(ctx context.Context, userID string, r LoanRequest) (LoanDetail, error) {
	d, err := s.newLoan(r, s.currency(ctx, userID))
	if err != nil {
		return LoanDetail{}, err
	}
	d.TotalPayable = d.Principal + d.TotalInterest
	d.RemainingPrincipal, d.RemainingPayable = d.Principal, d.TotalPayable
	return d, nil
}

// loanMoneyTerms are the loan fields its schedule is computed from, by
// their JSON names: they change only while nothing is paid.
var loanMoneyTerms = []string{"principal", "interest_type", "interest_rate", "rate_period", "term_months",
	"start_date", "first_due_date", "monthly_amount"}

// LoanTermsFixed is why a loan's money terms no longer change ("the loan
// is cancelled"), or "" while they may: the loan is active and every
// instance is still unpaid.
func LoanTermsFixed(d LoanDetail) string {
	if d.Status != LoanActive {
		return "the loan is " + d.Status
	}
	for _, x := range d.Instances {
		if x.Status != InstanceUnpaid {
			return "the loan has installments paid, marked paid or waived"
		}
	}
	return ""
}

// ReplaceLoan is PUT /loans/{id}: the whole body of POST /loans, validated
// the same way. Changed money terms rebuild the schedule (the old instances
// deleted, new ones written) while LoanTermsFixed allows it, and are
// refused otherwise, naming each term that would change; name, lender and
// notes change at any time. The currency, absent meaning the loan's own,
// changes while no payment is recorded in it (changeCurrency): the figures
// stay, now in the new currency. One transaction; one activity entry naming
// what changed, none when nothing did.
func (s *Service) ReplaceLoan(ctx context.Context, userID, id string, r LoanRequest) (LoanDetail, error) {
	today := s.today(ctx, userID)
	var out LoanDetail
	err := s.store.Write(ctx, func(tx Repo) error {
		cur, err := s.loanDetail(ctx, tx, userID, id, today)
		if err != nil {
			return err
		}
		// Validated here, with the loan read: its currency is what an
		// absent one keeps and what the amounts' decimals are checked by.
		next, err := s.newLoan(r, cur.Currency)
		if err != nil {
			return err
		}
		if err := changeCurrency(ctx, tx, userID, RecordLoan, id, cur.Name, cur.Currency, next.Currency); err != nil {
			return err
		}
		before, l := cur.Loan, cur.Loan
		l.Name, l.Lender, l.Notes, l.Currency = next.Name, next.Lender, next.Notes, next.Currency
		c := changes(before, next.Loan, loanMoneyTerms...)
		if len(c) > 0 {
			if why := LoanTermsFixed(cur); why != "" {
				fields := map[string]string{}
				for _, name := range loanMoneyTerms {
					if len(changes(before, next.Loan, name)) > 0 {
						fields[name] = "cannot change: " + why
					}
				}
				return InvalidStatusOf(fields, "%s; its amounts, rate and dates stay as they are", why)
			}
			l.Principal, l.InterestType, l.InterestRate, l.RatePeriod = next.Principal, next.InterestType, next.InterestRate, next.RatePeriod
			l.TermMonths, l.StartDate, l.FirstDueDate, l.MonthlyAmount = next.TermMonths, next.StartDate, next.FirstDueDate, next.MonthlyAmount
			l.TotalInterest = next.TotalInterest
			// Every instance is unpaid, so nothing (no payment, no account
			// line) points at one: the schedule is written again whole.
			if err := tx.DeleteLoanInstances(ctx, userID, id); err != nil {
				return err
			}
			for i := range next.Instances {
				next.Instances[i].LoanID = id
			}
			if err := tx.InsertLoanInstances(ctx, userID, next.Instances); err != nil {
				return err
			}
		}
		l.UpdatedAt = s.stamp()
		if err := tx.UpdateLoan(ctx, userID, l); err != nil {
			return err
		}
		if out, err = s.loanDetail(ctx, tx, userID, id, today); err != nil {
			return err
		}
		all := changes(before, l, append([]string{"name", "lender", "notes", "currency"}, loanMoneyTerms...)...)
		if len(all) == 0 {
			return nil
		}
		return s.recordLoan(ctx, tx, userID, LogUpdated, out.Loan, fmt.Sprintf("Loan %s: %s", quoted(l.Name), all))
	})
	return out, err
}

// LoanMarkPaidRequest is the body of POST /loans/{id}/instances/mark-paid.
type LoanMarkPaidRequest struct {
	Through Field[Date] `json:"through"`
}

// LoanMarkPaidResult is its answer: the instances changed, by number, and the loan after them.
type LoanMarkPaidResult struct {
	Instances []LoanInstanceFigures `json:"instances"`
	Loan      Loan                  `json:"loan"`
}

// MarkLoanInstancesPaid is POST /loans/{id}/instances/mark-paid: every open
// instance due on or before r.Through (no later than today) is marked paid
// by the code PATCH /loans/instances/{id}/status runs for one, in one
// transaction; the loan completes once none is left open. With nothing
// open by then it changes nothing, so a second click writes nothing.
func (s *Service) MarkLoanInstancesPaid(ctx context.Context, userID, loanID string, r LoanMarkPaidRequest) (LoanMarkPaidResult, error) {
	var v Validator
	today := s.today(ctx, userID)
	through := v.RequiredDate("through", r.Through)
	if !through.IsZero() && through.After(today) {
		v.Add("through", "must be on or before today, "+today.String()+": installments not yet due are paid one by one")
	}
	if err := v.Err(); err != nil {
		return LoanMarkPaidResult{}, err
	}
	out := LoanMarkPaidResult{Instances: []LoanInstanceFigures{}}
	err := s.store.Write(ctx, func(tx Repo) error {
		l, err := tx.Loan(ctx, userID, loanID)
		if err != nil {
			return err
		}
		if l.Status == LoanCancelled {
			return InvalidStatus("loan is cancelled; reactivate it (PATCH status active) before changing its instances")
		}
		in, err := tx.LoanInstances(ctx, userID, loanID)
		if err != nil {
			return err
		}
		var marked []string
		for _, x := range in {
			if !x.open() || x.DueDate.After(through) {
				continue
			}
			if err := s.setInstanceStatus(ctx, tx, userID, l, x, InstancePaid); err != nil {
				return err
			}
			marked = append(marked, x.ID)
		}
		if out.Loan, err = s.settleLoan(ctx, tx, userID, l); err != nil || len(marked) == 0 {
			return err
		}
		if in, err = tx.LoanInstances(ctx, userID, loanID); err != nil {
			return err
		}
		for _, x := range in {
			if slices.Contains(marked, x.ID) {
				x.derive(today)
				out.Instances = append(out.Instances, x.LoanInstanceFigures)
			}
		}
		return nil
	})
	return out, err
}
