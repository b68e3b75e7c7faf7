package finance

import (
	"context"
	"errors"
	"time"
)

// CreditCard is a card with its cycle. The figures after Notes are computed
// on read (domain.md §4.3); Rate fields are exact decimal percents.
type CreditCard struct {
	ID                string     `json:"id"`
	Name              string     `json:"name"`
	Bank              *string    `json:"bank"`
	LastFour          *string    `json:"last_four"`
	CreditLimit       Money      `json:"credit_limit"`
	StatementDay      int        `json:"statement_day"`
	DueDay            int        `json:"due_day"`
	CycleStartDate    Date       `json:"cycle_start_date"`
	MinimumDuePercent Rate       `json:"minimum_due_percent"`
	MinimumDueFloor   Money      `json:"minimum_due_floor"`
	Notes             *string    `json:"notes"`
	Status            string     `json:"status"`
	ArchivedAt        *time.Time `json:"archived_at"`
	CreatedAt         time.Time  `json:"created_at"`
	UpdatedAt         time.Time  `json:"updated_at"`

	CardFigures
}

// CardFigures are the computed amounts of a card (domain.md §4.3).
type CardFigures struct {
	OutstandingBalance   Money `json:"outstanding_balance"`
	AvailableCredit      Money `json:"available_credit"`
	UtilizationPercent   Money `json:"utilization_percent"` // a percent with 2 decimals, exact
	UnbilledTotal        Money `json:"unbilled_total"`
	OpenStatementBalance Money `json:"open_statement_balance"`
	NextStatementDate    Date  `json:"next_statement_date"`
	NextDueDate          Date  `json:"next_due_date"`
	OpenSOACount         int   `json:"open_soa_count"`
}

// Card transaction types and statuses (domain.md §2.7, §3.2).
const (
	CardPurchase    = "purchase"
	CardFee         = "fee"
	CardInterest    = "interest"
	CardRefund      = "refund"
	CardInstallment = "installment" // system-only: rows of an installment plan

	CardUnbilled  = "unbilled"
	CardBilled    = "billed"
	CardConverted = "converted"
)

// CardTransaction is a row on a card. A purchase is linked to its expense,
// which holds the category; the row holds the billing state.
type CardTransaction struct {
	ID                string     `json:"id"`
	CreditCardID      string     `json:"credit_card_id"`
	CreditCardName    string     `json:"credit_card_name"` // computed
	Type              string     `json:"type"`
	Amount            Money      `json:"amount"`
	Date              Date       `json:"date"`
	Description       string     `json:"description"`
	CategoryID        *string    `json:"category_id"` // a purchase's comes from its expense
	Category          *string    `json:"category"`    // computed: the category's name
	Status            string     `json:"status"`
	SOAID             *string    `json:"soa_id"`
	IsSOALine         bool       `json:"is_soa_line"`
	ExpenseID         *string    `json:"expense_id"`
	InstallmentPlanID *string    `json:"installment_plan_id"`
	InstallmentNumber *int       `json:"installment_number"`
	PrincipalPortion  *Money     `json:"principal_portion"`
	InterestPortion   *Money     `json:"interest_portion"`
	IsFuture          bool       `json:"is_future"` // computed: date after today
	VoidedAt          *time.Time `json:"voided_at"`
	CreatedAt         time.Time  `json:"created_at"`
	UpdatedAt         time.Time  `json:"updated_at"`
}

// CardRepo is the persistence of cards and card transactions.
type CardRepo interface {
	// CreditCard returns a card with its CardFigures computed as of today.
	CreditCard(ctx context.Context, userID, id string, today Date) (CreditCard, error)
	ListCreditCards(ctx context.Context, userID string, f CardFilter, p ListParams, today Date) ([]CreditCard, int, error)
	ActiveCreditCardByName(ctx context.Context, userID, name string) (CreditCard, error)
	InsertCreditCard(ctx context.Context, userID string, c CreditCard) error
	UpdateCreditCard(ctx context.Context, userID string, c CreditCard) error

	// CardTransaction returns a row with CreditCardName and Category filled
	// (for a purchase, the category of its expense).
	CardTransaction(ctx context.Context, userID, id string) (CardTransaction, error)
	ListCardTransactions(ctx context.Context, userID string, f CardTransactionFilter, p ListParams) ([]CardTransaction, int, error)
	InsertCardTransaction(ctx context.Context, userID string, t CardTransaction) error
	UpdateCardTransaction(ctx context.Context, userID string, t CardTransaction) error
}

// CardFilter narrows GET /credit-cards.
type CardFilter struct {
	Status string // active (default), archived, all
	Search string
}

// CardTransactionFilter narrows the card transaction lists.
type CardTransactionFilter struct {
	CardID   string
	Status   string // "" = every non-voided row; or unbilled, billed, converted, voided
	Type     string
	DateFrom Date
	DateTo   Date
	Search   string
	Category string // a category name, case-insensitive, archived included
}

// List specs of domain.md §1.5.
var (
	CardList            = ListSpec{Sorts: []string{"name", "credit_limit", "created_at"}}
	CardTransactionList = ListSpec{Sorts: []string{"date", "amount", "created_at"}, DefaultDesc: true}
)

// activeCard resolves a credit_card_id named in a write body, like activeAccount.
func activeCard(ctx context.Context, tx Repo, v *Validator, field, userID, id string, today Date) (CreditCard, bool, error) {
	if !ValidID(id) {
		v.Add(field, "must be the id of one of your active credit cards")
		return CreditCard{}, false, nil
	}
	c, err := tx.CreditCard(ctx, userID, id, today)
	if errors.Is(err, ErrNotFound) || (err == nil && c.Status != StatusActive) {
		v.Add(field, "must be the id of one of your active credit cards")
		return CreditCard{}, false, nil
	}
	if err != nil {
		return CreditCard{}, false, err
	}
	return c, true, nil
}
