package finance

import (
	"context"
	"time"
)

// Income is money received. With account_id it owns a credit line on that
// account; without, it was received outside the tracked accounts.
type Income struct {
	ID                   string     `json:"id"`
	Amount               Money      `json:"amount"`
	Date                 Date       `json:"date"`
	Description          *string    `json:"description"`
	CategoryID           string     `json:"category_id"`
	Category             string     `json:"category"` // computed: the category's name
	Notes                *string    `json:"notes"`
	AccountID            *string    `json:"account_id"`
	AccountTransactionID *string    `json:"account_transaction_id"`
	Status               string     `json:"status"`
	VoidedAt             *time.Time `json:"voided_at"`
	CreatedAt            time.Time  `json:"created_at"`
	UpdatedAt            time.Time  `json:"updated_at"`
}

// IncomeRepo is the persistence of income.
type IncomeRepo interface {
	Income(ctx context.Context, userID, id string) (Income, error)
	ListIncome(ctx context.Context, userID string, f IncomeFilter, p ListParams) ([]Income, int, error)
	InsertIncome(ctx context.Context, userID string, in Income) error
	UpdateIncome(ctx context.Context, userID string, in Income) error
}

// IncomeFilter narrows GET /income.
type IncomeFilter struct {
	Status    string // active (default) or voided
	DateFrom  Date
	DateTo    Date
	Search    string
	Category  string
	AccountID string
}

// IncomeList is the list spec of GET /income.
var IncomeList = ListSpec{Sorts: []string{"date", "amount", "created_at"}, DefaultDesc: true}
