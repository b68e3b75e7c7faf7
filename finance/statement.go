package finance

import (
	"context"
	"fmt"
	"math/big"
	"time"
)

// Statement statuses and the list filters built on them (domain.md §2.8, §3.3).
const (
	SOAUnpaid        = "unpaid"
	SOAPartiallyPaid = "partially_paid"
	SOAPaid          = "paid"
	// SOAOpen and SOAOverdue are filters: open is unpaid or partially paid;
	// overdue is open with the due date before today.
	SOAOpen    = "open"
	SOAOverdue = "overdue"

	MinimumDueComputed = "computed"
	MinimumDueUser     = "user"

	// DefaultDueSoonDays is the due-soon window of a user who has not chosen another (app settings, §2.1).
	DefaultDueSoonDays = 7
)

// SOAStatusFilters are the status values GET /credit-cards/soa accepts.
var SOAStatusFilters = []string{SOAUnpaid, SOAPartiallyPaid, SOAPaid, StatusVoided, SOAOpen, SOAOverdue}

// SOA is a statement of account: the card rows billed on one statement date,
// what was paid against them, and when the rest is due. Totals are kept in
// step with its lines and payments; the fields after Status are computed on
// read as of today.
type SOA struct {
	ID               string     `json:"id"`
	CreditCardID     string     `json:"credit_card_id"`
	CreditCardName   string     `json:"credit_card_name"`
	Currency         string     `json:"currency"` // computed: the card's
	StatementDate    Date       `json:"statement_date"`
	PeriodStart      Date       `json:"period_start"`
	PeriodEnd        Date       `json:"period_end"`
	DueDate          Date       `json:"due_date"`
	MinimumDue       Money      `json:"minimum_due"`
	MinimumDueSource string     `json:"minimum_due_source"`
	Notes            *string    `json:"notes"`
	ChargesTotal     Money      `json:"charges_total"`
	CreditsTotal     Money      `json:"credits_total"`
	StatementBalance Money      `json:"statement_balance"`
	PaidTotal        Money      `json:"paid_total"`
	Remaining        Money      `json:"remaining"`
	TransactionCount int        `json:"transaction_count"`
	Status           string     `json:"status"`
	IsOverdue        bool       `json:"is_overdue"`
	MinimumMet       bool       `json:"minimum_met"`
	DaysUntilDue     int        `json:"days_until_due"`
	ReplacedByID     *string    `json:"replaced_by_id"`
	VoidedAt         *time.Time `json:"voided_at"`
	CreatedAt        time.Time  `json:"created_at"`
	UpdatedAt        time.Time  `json:"updated_at"`
}

// SOADetail is GET /credit-cards/soa/{id}: the statement and all its lines, oldest first.
type SOADetail struct {
	SOA
	Transactions []CardTransaction `json:"transactions"`
}

// Open reports whether the statement still expects money: unpaid or partially paid.
func (a SOA) Open() bool { return a.Status == SOAUnpaid || a.Status == SOAPartiallyPaid }

// derive fills the fields computed as of today.
func (a *SOA) derive(today Date) {
	a.Remaining = max(0, a.StatementBalance-a.PaidTotal)
	a.IsOverdue = a.Open() && a.DueDate.Before(today)
	a.MinimumMet = a.PaidTotal >= a.MinimumDue
	a.DaysUntilDue = today.DaysUntil(a.DueDate)
}

// settle takes the totals t, sets the status from them (unless voided) and
// refreshes a computed minimum due with the card's terms (§2.8, §4.3).
func (a *SOA) settle(c CreditCard, t SOATotals) {
	a.ChargesTotal, a.CreditsTotal, a.TransactionCount, a.PaidTotal = t.Charges, t.Credits, t.Count, t.Paid
	a.StatementBalance = a.ChargesTotal - a.CreditsTotal
	if a.Status != StatusVoided {
		a.Status = soaStatus(a.StatementBalance, a.PaidTotal)
	}
	if a.MinimumDueSource != MinimumDueUser {
		a.MinimumDueSource = MinimumDueComputed
		a.MinimumDue = MinimumDue(a.StatementBalance, c.MinimumDuePercent, c.MinimumDueFloor)
	}
}

func soaStatus(balance, paid Money) string {
	switch {
	case balance <= 0 || paid >= balance:
		return SOAPaid
	case paid == 0:
		return SOAUnpaid
	}
	return SOAPartiallyPaid
}

// MinimumDue is the computed minimum due of a statement balance b with a
// minimum percent p and floor f (domain.md §4.3): 0 for a credit balance, the
// whole balance up to the floor, else the larger of the floor and p% of the
// balance rounded half-up.
func MinimumDue(b Money, p Rate, f Money) Money {
	switch {
	case b <= 0:
		return 0
	case b <= f:
		return b
	}
	return max(f, mulDivHalfUp(b, int64(p), 100*RateScale))
}

// mulDivHalfUp returns m×n/d rounded half-up, exactly (the product may not fit in 64 bits).
func mulDivHalfUp(m Money, n, d int64) Money {
	x := new(big.Int).Mul(big.NewInt(int64(m)), big.NewInt(n))
	x.Mul(x, big.NewInt(2)).Add(x, big.NewInt(d))
	return Money(x.Div(x, big.NewInt(2*d)).Int64()) // floor((2x + d) / 2d) = floor(x/d + 1/2); Div floors for d > 0
}

// DueDate is due(S): the first date after the statement date S whose day is
// the due day clamped to its month (domain.md §4.2).
func DueDate(s Date, dueDay int) Date {
	if d := MonthAdd(s, 0, dueDay); d.After(s) {
		return d
	}
	return MonthAdd(s, 1, dueDay)
}

// Period is an inclusive range of dates.
type Period struct {
	Start Date
	End   Date
}

// overlaps reports whether p and o share a day.
func (p Period) overlaps(o Period) bool { return !p.Start.After(o.End) && !o.Start.After(p.End) }

// StatementPeriod is the nominal period of the statement dated s on a card
// with statementDay: the day after the previous statement date through s.
func StatementPeriod(statementDay int, s Date) Period {
	return Period{Start: MonthAdd(s, -1, statementDay).AddDays(1), End: s}
}

// StatementCursor is what the check for due statements needs to know about
// one card: its cycle and the date of its oldest unbilled row. The check
// runs on every request under the card, expense, bill, dashboard and report
// routes, so it reads these few columns with a prepared statement; the
// whole card is read only when a statement is generated.
type StatementCursor struct {
	CardID         string
	StatementDay   int
	CycleStartDate Date
	// FirstUnbilled is the date of the card's oldest unbilled row.
	FirstUnbilled Date
}

// firstDue is the earliest statement date that could bill the cursor's card:
// the first statement date on or after both its oldest unbilled row and its
// cycle start. It is zero when nothing could be billed before today.
func (c StatementCursor) firstDue(today Date) Date {
	if c.FirstUnbilled.IsZero() {
		return Date{}
	}
	from := c.FirstUnbilled
	if from.Before(c.CycleStartDate) {
		from = c.CycleStartDate
	}
	s := NextStatementDate(c.StatementDay, from)
	if !s.Before(today) { // day S itself is still open
		return Date{}
	}
	return s
}

// openStatementDates lists the statement dates from first up to (not
// including) today whose nominal periods no live statement overlaps.
func openStatementDates(statementDay int, first, today Date, live []Period) []Date {
	var out []Date
	for k := 0; ; k++ {
		s := MonthAdd(first, k, statementDay)
		if !s.Before(today) {
			return out
		}
		p := StatementPeriod(statementDay, s)
		taken := false
		for _, l := range live {
			if l.overlaps(p) {
				taken = true
				break
			}
		}
		if !taken {
			out = append(out, s)
		}
	}
}

// StatementsDue reports, cheaply and without writing, whether any of the
// user's cards has a statement to generate: one indexed query for all cards
// and, only for a card whose oldest unbilled row is older than its last
// statement date, one more for its live periods.
func (s *Service) StatementsDue(ctx context.Context, userID string) (bool, error) {
	return s.statementsDue(ctx, s.store.Read(), userID, s.today(ctx, userID))
}

func (s *Service) statementsDue(ctx context.Context, r Repo, userID string, today Date) (bool, error) {
	cursors, err := r.StatementCursors(ctx, userID)
	if err != nil {
		return false, err
	}
	for _, c := range cursors {
		first := c.firstDue(today)
		if first.IsZero() {
			continue
		}
		live, err := r.LiveStatementPeriods(ctx, c.CardID, StatementPeriod(c.StatementDay, first).Start)
		if err != nil {
			return false, err
		}
		if len(openStatementDates(c.StatementDay, first, today, live)) > 0 {
			return true, nil
		}
	}
	return false, nil
}

// GenerateStatements creates the statements that are due on the user's
// cards (domain.md §1.7, §2.8). Requests under the card, expense, bill,
// dashboard and report routes call it first; it writes only when something
// is due, so a request with nothing to generate pays one read.
func (s *Service) GenerateStatements(ctx context.Context, userID string) error {
	due, err := s.StatementsDue(ctx, userID)
	if err != nil || !due {
		return err
	}
	today := s.today(ctx, userID)
	return s.store.Write(ctx, func(tx Repo) error { return s.generate(ctx, tx, userID, today) })
}

// generate materializes every statement due on the user's cards in tx: for
// each statement date S from the cycle start to yesterday whose period no
// live statement overlaps, oldest first, it bills the card's unbilled rows
// dated on or before S; a date with nothing to bill gets no statement. Write
// use cases call it just before they commit, so their own response shows the
// generated state.
func (s *Service) generate(ctx context.Context, tx Repo, userID string, today Date) error {
	cursors, err := tx.StatementCursors(ctx, userID)
	if err != nil {
		return err
	}
	for _, c := range cursors {
		if err := s.backdate(ctx, tx, userID, &c, today); err != nil {
			return err
		}
		first := c.firstDue(today)
		if first.IsZero() {
			continue
		}
		live, err := tx.LiveStatementPeriods(ctx, c.CardID, StatementPeriod(c.StatementDay, first).Start)
		if err != nil {
			return err
		}
		dates := openStatementDates(c.StatementDay, first, today, live)
		if len(dates) == 0 {
			continue
		}
		card, err := tx.CreditCard(ctx, userID, c.CardID, today)
		if err != nil {
			return err
		}
		billed, err := s.generateBacklog(ctx, tx, userID, card, dates)
		if err != nil {
			return err
		}
		if billed {
			if err := s.settlePlans(ctx, tx, userID, c.CardID); err != nil {
				return err
			}
		}
	}
	return nil
}

// backdate applies the rules of back-dated charges (domain.md, Back-dated
// card charges) to the card of cursor c before its statements are
// generated: while no statement has a posted payment, a row dated before
// Statements from moves it back to the period holding the row.
func (s *Service) backdate(ctx context.Context, tx Repo, userID string, c *StatementCursor, today Date) error {
	// A row in the same period as Statements from is billed by that
	// period's statement already: only an earlier period moves it.
	start := cycleStartFor(c.StatementDay, c.FirstUnbilled)
	if start.Before(cycleStartFor(c.StatementDay, c.CycleStartDate)) && c.FirstUnbilled.Before(today) {
		paid, err := tx.CardHasPayments(ctx, c.CardID)
		if err != nil {
			return err
		}
		if !paid {
			card, err := tx.CreditCard(ctx, userID, c.CardID, today)
			if err != nil {
				return err
			}
			if err := s.moveCycleStartTo(ctx, tx, userID, card, start); err != nil {
				return err
			}
			c.CycleStartDate = start
		}
	}
	return nil
}

// joinUnpaidStatement adds the unbilled row rowID, just entered, to the
// unpaid statement of its period, if any, and regenerates that
// statement's figures (domain.md, Back-dated card charges, rule 2).
func (s *Service) joinUnpaidStatement(ctx context.Context, tx Repo, userID, rowID string, today Date) error {
	id, err := tx.BillIntoUnpaid(ctx, userID, rowID, s.stamp())
	if err != nil || id == "" {
		return err
	}
	a, err := tx.SOA(ctx, userID, id)
	if err != nil {
		return err
	}
	return s.recomputeSOA(ctx, tx, userID, &a, today)
}

// generateBacklog creates the statements dated dates (oldest first) on card
// c that have anything to bill, and reports whether it made any. Each
// unbilled row goes to the first of dates on or after its own date, as
// generating one date at a time would; the store bills the whole backlog
// in one statement rather than one per date, since billing rewrites every
// row and five years of a busy card are a hundred thousand of them.
func (s *Service) generateBacklog(ctx context.Context, tx Repo, userID string, c CreditCard, dates []Date) (bool, error) {
	now := s.stamp()
	bills := make([]StatementBill, len(dates))
	for i, sd := range dates {
		bills[i] = StatementBill{SOAID: NewID(), Through: sd}
	}
	totals, err := tx.BillBacklog(ctx, userID, c.ID, bills, now)
	if err != nil || len(totals) == 0 {
		return false, err
	}
	for _, b := range bills {
		t, ok := totals[b.SOAID]
		if !ok { // a date with nothing to bill gets no statement
			continue
		}
		p := StatementPeriod(c.StatementDay, b.Through)
		a := SOA{ID: b.SOAID, CreditCardID: c.ID, CreditCardName: c.Name, StatementDate: b.Through,
			PeriodStart: p.Start, PeriodEnd: p.End, DueDate: DueDate(b.Through, c.DueDay),
			MinimumDueSource: MinimumDueComputed, CreatedAt: now, UpdatedAt: now}
		a.settle(c, t)
		if err := tx.InsertSOA(ctx, userID, a); err != nil {
			return false, err
		}
		// Nobody asked for the statement: its date passed. The request that
		// happened to find it due is not its author.
		if err := s.log(systemWrite(ctx), tx, userID, CardLog{CreditCardID: &c.ID, EntityType: LogSOA, EntityID: a.ID, Action: LogGenerated,
			Message: fmt.Sprintf("Statement of %s generated for %s: %d transactions, balance %s, due %s",
				a.StatementDate, c.Name, a.TransactionCount, a.StatementBalance, a.DueDate), Amount: &a.StatementBalance}); err != nil {
			return false, err
		}
	}
	return true, nil
}

// recomputeSOA refreshes a statement's totals, status and computed minimum
// due after one of its lines or payments changed, and stores it.
func (s *Service) recomputeSOA(ctx context.Context, tx Repo, userID string, a *SOA, today Date) error {
	c, err := tx.CreditCard(ctx, userID, a.CreditCardID, today)
	if err != nil {
		return err
	}
	t, err := tx.SOATotals(ctx, a.ID)
	if err != nil {
		return err
	}
	a.settle(c, t)
	if a.MinimumDueSource == MinimumDueUser && a.MinimumDue > max(0, a.StatementBalance) {
		// A kept minimum may not exceed a balance that has since shrunk.
		a.MinimumDue = max(0, a.StatementBalance)
	}
	a.UpdatedAt = s.stamp()
	a.derive(today)
	return tx.UpdateSOA(ctx, userID, *a)
}
