package finance

import (
	"context"
	"fmt"
	"time"
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
	SourceTransactionID  string     `json:"source_transaction_id"`
	ExpenseID            *string    `json:"expense_id"`
	Description          string     `json:"description"`
	Principal            Money      `json:"principal"`
	Months               int        `json:"months"`
	InterestType         string     `json:"interest_type"`
	InterestRate         *Rate      `json:"interest_rate"`
	MonthlyAmount        *Money     `json:"monthly_amount"`
	FirstInstallmentDate Date       `json:"first_installment_date"`
	TotalInterest        Money      `json:"total_interest"`
	TotalPayable         Money      `json:"total_payable"` // computed: principal + total interest
	Status               string     `json:"status"`
	BilledCount          int        `json:"billed_count"`        // computed
	RemainingCount       int        `json:"remaining_count"`     // computed: unbilled rows
	RemainingPrincipal   Money      `json:"remaining_principal"` // computed: Σ principal of unbilled rows
	RemainingPayable     Money      `json:"remaining_payable"`   // computed: Σ amount of unbilled rows
	NextInstallmentDate  *Date      `json:"next_installment_date"`
	CancelledAt          *time.Time `json:"cancelled_at"`
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
