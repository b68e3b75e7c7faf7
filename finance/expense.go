package finance

import (
	"context"
	"time"
)

// Payment methods of an expense (spec section 2). Exact and case-sensitive.
const (
	MethodCash         = "Cash"
	MethodAccountDebit = "Account Debit"
	MethodCreditCard   = "Credit Card"
)

// PaymentMethods lists the three methods in display order.
var PaymentMethods = []string{MethodCash, MethodAccountDebit, MethodCreditCard}

// Expense sources.
const (
	ExpenseManual      = "manual"
	ExpenseBillPayment = "bill_payment"
)

// Expense is money spent. With Account Debit it owns an account line; with
// Credit Card it owns a card transaction (a purchase). The expense holds the
// category, the card row the billing state; amount, date and description stay equal.
type Expense struct {
	ID                    string         `json:"id"`
	Amount                Money          `json:"amount"`
	Date                  Date           `json:"date"`
	Description           string         `json:"description"`
	CategoryID            *string        `json:"category_id"` // null while split
	Category              *string        `json:"category"`    // computed: the category's name
	PaymentMethod         string         `json:"payment_method"`
	AccountID             *string        `json:"account_id"`
	CreditCardID          *string        `json:"credit_card_id"`
	Notes                 *string        `json:"notes"`
	Status                string         `json:"status"`
	IsSplit               bool           `json:"is_split"` // computed
	Splits                []ExpenseSplit `json:"splits"`   // computed: the parts, in order
	Source                string         `json:"source"`
	BillPaymentID         *string        `json:"bill_payment_id"`
	AccountTransactionID  *string        `json:"account_transaction_id"`
	CardTransactionID     *string        `json:"card_transaction_id"`
	CardTransactionStatus *string        `json:"card_transaction_status"` // computed
	VoidedAt              *time.Time     `json:"voided_at"`
	CreatedAt             time.Time      `json:"created_at"`
	UpdatedAt             time.Time      `json:"updated_at"`
}

// ExpenseSplit is one part of a split expense.
type ExpenseSplit struct {
	ID          string  `json:"id"`
	Amount      Money   `json:"amount"`
	CategoryID  string  `json:"category_id"`
	Category    string  `json:"category"` // computed
	Description *string `json:"description"`
}

// ExpenseRepo is the persistence of expenses.
type ExpenseRepo interface {
	// Expense returns an expense with Category, Splits, IsSplit and CardTransactionStatus filled.
	Expense(ctx context.Context, userID, id string) (Expense, error)
	ListExpenses(ctx context.Context, userID string, f ExpenseFilter, p ListParams) ([]Expense, int, error)
	InsertExpense(ctx context.Context, userID string, e Expense) error
	UpdateExpense(ctx context.Context, userID string, e Expense) error
	// ReplaceSplits replaces the parts of an expense (none: not split).
	ReplaceSplits(ctx context.Context, userID, expenseID string, parts []ExpenseSplit) error
}

// ExpenseFilter narrows GET /expenses.
type ExpenseFilter struct {
	Status        string // active (default) or voided
	DateFrom      Date
	DateTo        Date
	Search        string
	Category      string // a name; also matches split parts
	PaymentMethod string
	CardID        string
	AccountID     string
}

// ExpenseList is the list spec of GET /expenses.
var ExpenseList = ListSpec{Sorts: []string{"date", "amount", "description", "created_at"}, DefaultDesc: true}
