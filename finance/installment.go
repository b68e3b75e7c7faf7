package finance

import (
	"context"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Installment plan statuses and interest types (domain.md §2.9, §3.7).
const (
	PlanActive    = "active"
	PlanCompleted = "completed"
	PlanCancelled = "cancelled"

	InterestNone  = "none"
	InterestAddOn = "add_on"
)

// PlanStatuses are the values the plan list's status filter accepts.
var PlanStatuses = []string{PlanActive, PlanCompleted, PlanCancelled}

// InstallmentPlan turns an unbilled purchase into monthly installment rows.
// The purchase's expense stays, so the principal is counted once; the rows'
// interest portions count as spending on their dates.
type InstallmentPlan struct {
	ID                   string     `json:"id"`
	CreditCardID         string     `json:"credit_card_id"`
	CreditCardName       string     `json:"credit_card_name"` // computed
	Currency             string     `json:"currency"`         // computed: the card's
	SourceTransactionID  string     `json:"source_transaction_id"`
	ExpenseID            *string    `json:"expense_id,omitempty"`
	Description          string     `json:"description"`
	Principal            Money      `json:"principal"`
	Months               int        `json:"months"`
	InterestType         string     `json:"interest_type"`
	InterestRate         *Rate      `json:"interest_rate,omitempty"`
	MonthlyAmount        *Money     `json:"monthly_amount,omitempty"`
	FirstInstallmentDate Date       `json:"first_installment_date"`
	TotalInterest        Money      `json:"total_interest"`
	TotalPayable         Money      `json:"total_payable"` // computed: principal + total interest
	Status               string     `json:"status"`
	BilledCount          int        `json:"billed_count"`        // computed
	RemainingCount       int        `json:"remaining_count"`     // computed: unbilled rows
	RemainingPrincipal   Money      `json:"remaining_principal"` // computed: Σ principal of unbilled rows
	RemainingPayable     Money      `json:"remaining_payable"`   // computed: Σ amount of unbilled rows
	NextInstallmentDate  *Date      `json:"next_installment_date,omitempty"`
	CancelledAt          *time.Time `json:"cancelled_at,omitempty"`
	CreatedAt            time.Time  `json:"created_at"`
	UpdatedAt            time.Time  `json:"updated_at"`
}

// PlanBilling is how far a live plan's rows are billed.
type PlanBilling struct {
	ID       string
	Status   string
	Unbilled int // non-voided rows not yet billed
}

// PlanRepo is the persistence of installment plans. A plan's rows are card
// transactions of type installment (CardRepo).
type PlanRepo interface {
	InsertInstallmentPlan(ctx context.Context, userID string, p InstallmentPlan) error
	UpdateInstallmentPlan(ctx context.Context, userID string, p InstallmentPlan) error
	// InstallmentPlan returns a plan with its computed fields.
	InstallmentPlan(ctx context.Context, userID, id string) (InstallmentPlan, error)
	ListInstallmentPlans(ctx context.Context, userID string, f PlanFilter, p ListParams) ([]InstallmentPlan, int, error)
	// PlanRows returns a plan's rows, by number (the pre-termination row last).
	PlanRows(ctx context.Context, userID, planID string) ([]CardTransaction, error)
	// PlanBillings returns the active and completed plans of a card.
	PlanBillings(ctx context.Context, cardID string) ([]PlanBilling, error)
}

// PlanFilter narrows GET /credit-cards/installment-plans.
type PlanFilter struct {
	Status   string // "" = every plan
	CardID   string
	DateFrom Date // on first_installment_date
	DateTo   Date
	Search   string
}

// PlanList is the list spec of GET /credit-cards/installment-plans.
var PlanList = ListSpec{Sorts: []string{"created_at", "first_installment_date", "principal"}, DefaultDesc: true}

// settlePlans completes the card's active plans whose rows are all billed,
// and reopens completed ones with a row unbilled again (§3.7). Generation,
// link, un-link and statement void call it.
func (s *Service) settlePlans(ctx context.Context, tx Repo, userID, cardID string) error {
	plans, err := tx.PlanBillings(ctx, cardID)
	if err != nil {
		return err
	}
	for _, b := range plans {
		next := PlanActive
		if b.Unbilled == 0 {
			next = PlanCompleted
		}
		if next == b.Status {
			continue
		}
		p, err := tx.InstallmentPlan(ctx, userID, b.ID)
		if err != nil {
			return err
		}
		p.Status, p.UpdatedAt = next, s.stamp()
		if err := tx.UpdateInstallmentPlan(ctx, userID, p); err != nil {
			return err
		}
		action, message := LogCompleted, fmt.Sprintf("Installment plan %q completed: every installment is billed", p.Description)
		if next == PlanActive {
			action, message = LogUpdated, fmt.Sprintf("Installment plan %q active again: an installment is unbilled", p.Description)
		}
		if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &p.CreditCardID, EntityType: LogInstallmentPlan,
			EntityID: p.ID, Action: action, Message: message}); err != nil {
			return err
		}
	}
	return nil
}

// Installment is one computed row of a schedule.
type Installment struct {
	Number    int
	Date      Date
	Principal Money
	Interest  Money
}

// Amount is what the row bills.
func (i Installment) Amount() Money { return i.Principal + i.Interest }

// floorSplit divides total into n parts: n−1 parts of floor(total/n) and a
// last part holding the rest, so the parts sum exactly to total (§4.1).
func floorSplit(total Money, n int) []Money {
	parts := make([]Money, n)
	each := total / Money(n)
	for i := range parts {
		parts[i] = each
	}
	parts[n-1] = total - Money(n-1)*each
	return parts
}

// Schedule computes a plan's rows (domain.md §4.4) from the principal p, the
// months n, the monthly add-on rate (0 for none) and, when the bank quoted
// one, the monthly amount m. It returns the total interest and the rows, or a
// problem when a quoted amount leaves a row without principal.
func Schedule(p Money, n int, rate Rate, m *Money, first Date) (Money, []Installment, error) {
	var interest Money
	var principal []Money
	if m != nil {
		interest = Money(n)*(*m) - p
		principal = make([]Money, n)
	} else {
		interest = mulDivHalfUp(p, int64(rate)*int64(n), 100*RateScale)
		principal = floorSplit(p, n)
	}
	interests := floorSplit(interest, n)
	rows := make([]Installment, n)
	for k := range rows {
		rows[k] = Installment{Number: k + 1, Date: MonthAdd(first, k, first.Day()), Interest: interests[k], Principal: principal[k]}
		if m != nil {
			rows[k].Principal = *m - interests[k]
			if rows[k].Principal <= 0 {
				return 0, nil, Invalid("monthly_amount", fmt.Sprintf("leaves installment %d without principal: %s of interest in a %s payment", k+1, interests[k], *m))
			}
		}
	}
	return interest, rows, nil
}

// Installment plan bounds (domain.md §2.9).
const (
	MinPlanMonths = 2
	MaxPlanMonths = 60
)

// lastDate is the last date the ledger stores (§1.4): a schedule may not run past it.
var lastDate = NewDate(2100, 12, 31)

// InstallmentPlanDetail is GET /credit-cards/installment-plans/{id}: the plan
// and its rows by number, the pre-termination row last, voided rows included.
type InstallmentPlanDetail struct {
	InstallmentPlan
	Installments []CardTransaction `json:"installments"`
}

// ConvertRequest is the body of POST
// /credit-cards/transactions/{id}/convert-to-installment.
type ConvertRequest struct {
	Months               Field[int]    `json:"months"`
	InterestType         Field[string] `json:"interest_type"`
	InterestRate         Field[Rate]   `json:"interest_rate"`
	MonthlyAmount        Field[Money]  `json:"monthly_amount"`
	FirstInstallmentDate Field[Date]   `json:"first_installment_date"`
	Description          Field[string] `json:"description"`
}

// convertTerms are the terms of a ConvertRequest after the checks of its
// shape; the ones that default to the purchase's values are zero when absent.
type convertTerms struct {
	months        int
	interestType  string
	rate          *Rate
	monthlyAmount *Money
	first         Date    // zero: the purchase date
	description   *string // nil: the purchase's
}

// shape validates r without looking at the purchase (§1.1 step 3).
func (r ConvertRequest) shape() (convertTerms, error) {
	var v Validator
	var c convertTerms
	switch {
	case Readable(&v, "months", r.Months):
		c.months = r.Months.Value
		if c.months < MinPlanMonths || c.months > MaxPlanMonths {
			v.Add("months", fmt.Sprintf("must be an integer from %d to %d", MinPlanMonths, MaxPlanMonths))
		}
	case !v.Has("months"):
		v.Add("months", "is required")
	}
	c.interestType = InterestNone
	if Readable(&v, "interest_type", r.InterestType) {
		c.interestType = r.InterestType.Value
		if c.interestType != InterestNone && c.interestType != InterestAddOn {
			v.Add("interest_type", "must be one of: "+strings.Join(InterestTypes, ", "))
		}
	}
	if Readable(&v, "interest_rate", r.InterestRate) {
		rate := r.InterestRate.Value
		c.rate = &rate
	}
	if Readable(&v, "monthly_amount", r.MonthlyAmount) {
		m := v.PositiveMoney("monthly_amount", r.MonthlyAmount.Value)
		c.monthlyAmount = &m
	}
	switch c.interestType {
	case InterestNone:
		if c.rate != nil {
			v.Add("interest_rate", "must be absent when interest_type is none")
		}
		if c.monthlyAmount != nil {
			v.Add("monthly_amount", "must be absent when interest_type is none; a quoted monthly amount implies add_on interest")
		}
	case InterestAddOn:
		if c.rate == nil && c.monthlyAmount == nil && !v.Has("interest_rate") && !v.Has("monthly_amount") {
			v.Add("interest_rate", "is required when interest_type is add_on, unless monthly_amount is given")
		}
	}
	if Readable(&v, "first_installment_date", r.FirstInstallmentDate) {
		c.first = r.FirstInstallmentDate.Value
	}
	c.description = v.OptionalText("description", r.Description, MaxDescription)
	return c, v.Err()
}

// GetInstallmentPlan returns one plan (cancelled ones included) with its rows.
func (s *Service) GetInstallmentPlan(ctx context.Context, userID, id string) (InstallmentPlanDetail, error) {
	return s.planDetail(ctx, s.store.Read(), userID, id, s.today(ctx, userID))
}

func (s *Service) planDetail(ctx context.Context, r Repo, userID, id string, today Date) (InstallmentPlanDetail, error) {
	p, err := r.InstallmentPlan(ctx, userID, id)
	if err != nil {
		return InstallmentPlanDetail{}, err
	}
	rows, err := r.PlanRows(ctx, userID, id)
	if err != nil {
		return InstallmentPlanDetail{}, err
	}
	for i := range rows {
		rows[i].IsFuture = rows[i].Date.After(today)
	}
	if rows == nil {
		rows = []CardTransaction{}
	}
	return InstallmentPlanDetail{InstallmentPlan: p, Installments: rows}, nil
}

// ListInstallmentPlans returns a page of the user's plans.
func (s *Service) ListInstallmentPlans(ctx context.Context, userID string, f PlanFilter, p ListParams) (Page[InstallmentPlan], error) {
	items, total, err := s.store.Read().ListInstallmentPlans(ctx, userID, f, p)
	return pageOf(items, total, err, p)
}

// checkConvertible applies the state rules of conversion (§2.9): an
// unbilled purchase on an active card.
func checkConvertible(t CardTransaction, card CreditCard) error {
	switch {
	case t.Type == CardInstallment:
		return InvalidStatus("card transaction is an installment row; only purchases can be converted to installments")
	case t.Type != CardPurchase:
		return InvalidStatus("card transaction is a %s; only purchases can be converted to installments", t.Type)
	case t.Status == CardConverted:
		return InvalidStatus("card transaction is already converted to an installment plan")
	case t.Status != CardUnbilled:
		return InvalidStatus("card transaction is %s; only unbilled purchases can be converted to installments", t.Status)
	case card.Status != StatusActive:
		return InvalidStatus("credit card %s is archived; its purchases can no longer be converted to installments", card.Name)
	}
	return nil
}

// ConvertToInstallment turns an unbilled purchase into an installment plan
// (domain.md §2.9, §4.4), in one transaction: the plan is created active,
// the purchase becomes converted (its expense stays, so the principal counts
// once), and the plan's rows are created unbilled, row k dated k−1 months
// after the first installment date. Statements that are now due are
// generated before the commit, so a back-dated first installment comes back
// already billed.
func (s *Service) ConvertToInstallment(ctx context.Context, userID, txID string, r ConvertRequest) (InstallmentPlanDetail, error) {
	terms, err := r.shape()
	if err != nil {
		return InstallmentPlanDetail{}, err
	}
	today := s.today(ctx, userID)
	var out InstallmentPlanDetail
	err = s.store.Write(ctx, func(tx Repo) error {
		src, err := tx.CardTransaction(ctx, userID, txID)
		if err != nil {
			return err
		}
		if src.Status == StatusVoided {
			return InvalidStatus("card transaction is voided and cannot be converted")
		}
		card, err := tx.CreditCard(ctx, userID, src.CreditCardID, today)
		if err != nil {
			return err
		}
		if err := checkConvertible(src, card); err != nil {
			return err
		}
		p, rows, err := s.newPlan(src, terms)
		if err != nil {
			return err
		}
		if err := tx.InsertInstallmentPlan(ctx, userID, p); err != nil {
			return err
		}
		for _, row := range rows {
			if err := tx.InsertCardTransaction(ctx, userID, row); err != nil {
				return err
			}
		}
		src.Status, src.UpdatedAt = CardConverted, p.CreatedAt
		if err := tx.UpdateCardTransaction(ctx, userID, src); err != nil {
			return err
		}
		if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &p.CreditCardID, EntityType: LogInstallmentPlan, EntityID: p.ID,
			Action: LogCreated, Message: planTermsMessage(p), Amount: &p.Principal}); err != nil {
			return err
		}
		if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &p.CreditCardID, EntityType: LogCardTransaction, EntityID: src.ID,
			Action: LogConverted, Message: fmt.Sprintf("Purchase %q of %s converted to %d monthly installments", src.Description, src.Date, p.Months),
			Amount: &src.Amount}); err != nil {
			return err
		}
		if err := s.generate(ctx, tx, userID, today); err != nil {
			return err
		}
		out, err = s.planDetail(ctx, tx, userID, p.ID, today)
		return err
	})
	return out, err
}

// newPlan builds the plan for the purchase src on terms, and its rows. The
// checks that need the purchase (the first date, the quoted monthly amount)
// fail here with VALIDATION_ERROR (§1.1 step 5).
func (s *Service) newPlan(src CardTransaction, terms convertTerms) (InstallmentPlan, []CardTransaction, error) {
	var v Validator
	first := src.Date
	if !terms.first.IsZero() {
		first = terms.first
		if first.Before(src.Date) {
			v.Add("first_installment_date", "must not be before the purchase date "+src.Date.String())
		}
	}
	if last := MonthAdd(first, terms.months-1, first.Day()); last.After(lastDate) {
		v.Add("first_installment_date", fmt.Sprintf("puts the last installment on %s, after %s", last, lastDate))
	}
	if m := terms.monthlyAmount; m != nil && Money(terms.months)*(*m) < src.Amount {
		v.Add("monthly_amount", fmt.Sprintf("times %d months is %s, less than the purchase amount %s",
			terms.months, Money(terms.months)*(*m), src.Amount))
	}
	if err := v.Err(); err != nil {
		return InstallmentPlan{}, nil, err
	}
	var rate Rate
	if terms.rate != nil && terms.monthlyAmount == nil {
		rate = *terms.rate
	}
	interest, schedule, err := Schedule(src.Amount, terms.months, rate, terms.monthlyAmount, first)
	if err != nil {
		return InstallmentPlan{}, nil, err
	}
	now := s.stamp()
	p := InstallmentPlan{ID: NewID(), CreditCardID: src.CreditCardID, CreditCardName: src.CreditCardName,
		SourceTransactionID: src.ID, ExpenseID: src.ExpenseID, Description: src.Description, Principal: src.Amount,
		Months: terms.months, InterestType: terms.interestType, InterestRate: terms.rate, MonthlyAmount: terms.monthlyAmount,
		FirstInstallmentDate: first, TotalInterest: interest, Status: PlanActive, CreatedAt: now, UpdatedAt: now}
	if terms.description != nil {
		p.Description = *terms.description
	}
	rows := make([]CardTransaction, len(schedule))
	for i, in := range schedule {
		number, principal, interest := in.Number, in.Principal, in.Interest
		rows[i] = CardTransaction{ID: NewID(), CreditCardID: p.CreditCardID, Type: CardInstallment, Amount: in.Amount(),
			Date: in.Date, Description: rowDescription(p.Description, fmt.Sprintf("installment %d of %d", number, p.Months)),
			Status: CardUnbilled, InstallmentPlanID: &p.ID, InstallmentNumber: &number,
			PrincipalPortion: &principal, InterestPortion: &interest, CreatedAt: now, UpdatedAt: now}
	}
	return p, rows, nil
}

// planTermsMessage is the log message of a new plan.
func planTermsMessage(p InstallmentPlan) string {
	terms := "no interest"
	if p.InterestType == InterestAddOn {
		terms = "add-on interest " + p.TotalInterest.String()
		if p.InterestRate != nil {
			terms += " (" + p.InterestRate.String() + "% a month)"
		}
	}
	return fmt.Sprintf("Installment plan %q created: %s over %d months from %s, %s", p.Description, p.Principal,
		p.Months, p.FirstInstallmentDate, terms)
}

// rowDescription is the description of a plan row: the plan's, followed by
// what the row is, shortened so the whole stays within MaxDescription.
func rowDescription(plan, what string) string {
	suffix := " (" + what + ")"
	room := MaxDescription - utf8.RuneCountInString(suffix)
	if r := []rune(plan); len(r) > room {
		plan = strings.TrimSpace(string(r[:room-1])) + "…"
	}
	return plan + suffix
}

// CancelInstallmentPlan is POST /credit-cards/installment-plans/{id}/cancel
// on an active plan (§2.9, §3.7). With no row billed, every row is voided and
// the purchase returns to unbilled, to be billed as one charge. Otherwise
// the billed rows stay, the unbilled ones are voided with their interest,
// and one pre-termination row dated today bills the principal they held; the
// purchase stays converted. The plan keeps as total_interest only the
// interest of its billed rows.
func (s *Service) CancelInstallmentPlan(ctx context.Context, userID, id string) (InstallmentPlanDetail, error) {
	today := s.today(ctx, userID)
	var out InstallmentPlanDetail
	err := s.store.Write(ctx, func(tx Repo) error {
		p, err := tx.InstallmentPlan(ctx, userID, id)
		if err != nil {
			return err
		}
		if p.Status != PlanActive {
			return InvalidStatus("installment plan is %s; only an active plan can be cancelled", p.Status)
		}
		rows, err := tx.PlanRows(ctx, userID, id)
		if err != nil {
			return err
		}
		now := s.stamp()
		var billed int
		var billedInterest, released Money
		for _, row := range rows {
			switch row.Status {
			case CardBilled:
				billed++
				billedInterest += portion(row.InterestPortion)
			case CardUnbilled:
				released += portion(row.PrincipalPortion)
				row.Status, row.VoidedAt, row.UpdatedAt = StatusVoided, &now, now
				if err := tx.UpdateCardTransaction(ctx, userID, row); err != nil {
					return err
				}
			}
		}
		message := fmt.Sprintf("Installment plan %q cancelled before any installment was billed; the purchase is unbilled again", p.Description)
		amount := p.Principal
		if billed == 0 {
			src, err := tx.CardTransaction(ctx, userID, p.SourceTransactionID)
			if err != nil {
				return err
			}
			src.Status, src.UpdatedAt = CardUnbilled, now
			if err := tx.UpdateCardTransaction(ctx, userID, src); err != nil {
				return err
			}
		} else {
			message = fmt.Sprintf("Installment plan %q cancelled after %d billed installments; the remaining principal %s is billed as one pre-termination charge",
				p.Description, billed, released)
			amount = released
			if released > 0 {
				zero := Money(0)
				row := CardTransaction{ID: NewID(), CreditCardID: p.CreditCardID, Type: CardInstallment, Amount: released,
					Date: today, Description: rowDescription(p.Description, "pre-termination"), Status: CardUnbilled,
					InstallmentPlanID: &p.ID, PrincipalPortion: &released, InterestPortion: &zero, CreatedAt: now, UpdatedAt: now}
				if err := tx.InsertCardTransaction(ctx, userID, row); err != nil {
					return err
				}
				if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &p.CreditCardID, EntityType: LogCardTransaction, EntityID: row.ID,
					Action: LogCreated, Message: fmt.Sprintf("Pre-termination charge of %s for installment plan %q", released, p.Description),
					Amount: &released}); err != nil {
					return err
				}
			}
		}
		p.Status, p.CancelledAt, p.UpdatedAt, p.TotalInterest = PlanCancelled, &now, now, billedInterest
		if err := tx.UpdateInstallmentPlan(ctx, userID, p); err != nil {
			return err
		}
		if err := s.log(ctx, tx, userID, CardLog{CreditCardID: &p.CreditCardID, EntityType: LogInstallmentPlan, EntityID: p.ID,
			Action: LogCancelled, Message: message, Amount: &amount}); err != nil {
			return err
		}
		if err := s.generate(ctx, tx, userID, today); err != nil {
			return err
		}
		out, err = s.planDetail(ctx, tx, userID, id, today)
		return err
	})
	return out, err
}

// portion reads an installment row's principal or interest portion.
func portion(m *Money) Money {
	if m == nil {
		return 0
	}
	return *m
}
