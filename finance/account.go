package finance

import (
	"context"
	"errors"
	"time"
)

// AccountType is the kind of a bank-type account. Any active account can be
// used for Account Debit.
type AccountType string

const (
	AccountSavings  AccountType = "savings"
	AccountChecking AccountType = "checking"
	AccountEWallet  AccountType = "e_wallet"
	AccountCash     AccountType = "cash"
	AccountOther    AccountType = "other"
)

// AccountTypes lists the valid types in display order.
var AccountTypes = []AccountType{AccountSavings, AccountChecking, AccountEWallet, AccountCash, AccountOther}

// Account is a bank-type account. Its balance is never stored: it is
// opening_balance + Σ credits − Σ debits over its posted lines (domain.md §2.3).
type Account struct {
	ID                 string      `json:"id"`
	Name               string      `json:"name"`
	Type               AccountType `json:"type"`
	Institution        *string     `json:"institution"`
	AccountNumberLast4 *string     `json:"account_number_last4"`
	OpeningBalance     Money       `json:"opening_balance"`
	Notes              *string     `json:"notes"`
	Status             string      `json:"status"`
	ArchivedAt         *time.Time  `json:"archived_at"`
	CurrentBalance     Money       `json:"current_balance"`
	CreatedAt          time.Time   `json:"created_at"`
	UpdatedAt          time.Time   `json:"updated_at"`
}

// Line types and sources of account transactions.
const (
	LineDebit  = "debit"  // money out
	LineCredit = "credit" // money in

	SourceManual      = "manual"
	SourceAdjustment  = "adjustment"
	SourceExpense     = "expense"
	SourceIncome      = "income"
	SourceSOAPayment  = "soa_payment"
	SourceLoanPayment = "loan_payment"

	LinePosted = "posted"
)

// AccountTransaction is one line of an account. Lines owned by another record
// (source expense, income, ...) change only through that record.
type AccountTransaction struct {
	ID          string     `json:"id"`
	AccountID   string     `json:"account_id"`
	AccountName string     `json:"account_name"` // computed: the account's name
	Type        string     `json:"type"`
	Amount      Money      `json:"amount"`
	Date        Date       `json:"date"`
	Description *string    `json:"description"`
	Source      string     `json:"source"`
	SourceID    *string    `json:"source_id"`
	Status      string     `json:"status"`
	IsEditable  bool       `json:"is_editable"` // computed: a posted manual or adjustment line on an active account
	VoidedAt    *time.Time `json:"voided_at"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
}

// AccountRepo is the persistence of accounts and their lines.
type AccountRepo interface {
	// Account returns an account with its CurrentBalance.
	Account(ctx context.Context, userID, id string) (Account, error)
	ListAccounts(ctx context.Context, userID string, f AccountFilter, p ListParams) ([]Account, int, error)
	// ActiveAccountByName finds an active account by name, case-insensitively (uniqueness).
	ActiveAccountByName(ctx context.Context, userID, name string) (Account, error)
	InsertAccount(ctx context.Context, userID string, a Account) error
	UpdateAccount(ctx context.Context, userID string, a Account) error

	// AccountTransaction returns a line with AccountName and IsEditable filled.
	AccountTransaction(ctx context.Context, userID, id string) (AccountTransaction, error)
	ListAccountTransactions(ctx context.Context, userID string, f AccountTransactionFilter, p ListParams) ([]AccountTransaction, int, error)
	InsertAccountTransaction(ctx context.Context, userID string, t AccountTransaction) error
	UpdateAccountTransaction(ctx context.Context, userID string, t AccountTransaction) error
}

// AccountFilter narrows GET /accounts.
type AccountFilter struct {
	Status string // active (default), archived, all
	Type   AccountType
	Search string
}

// AccountTransactionFilter narrows the account line lists.
type AccountTransactionFilter struct {
	AccountID string // set by /accounts/{id}/transactions, or the accountId filter
	Status    string // posted (default) or voided
	Type      string
	Source    string
	DateFrom  Date
	DateTo    Date
	Search    string
}

// List specs of domain.md §1.5.
var (
	AccountList            = ListSpec{Sorts: []string{"name", "current_balance", "created_at"}}
	AccountTransactionList = ListSpec{Sorts: []string{"date", "amount", "created_at"}, DefaultDesc: true}
)

// activeAccount resolves an account_id named in a write body: the user's
// active account, or a validation problem on field (missing, foreign and
// archived ids are all "must reference an active account").
func activeAccount(ctx context.Context, tx Repo, v *Validator, field, userID, id string) (Account, bool, error) {
	if !ValidID(id) {
		v.Add(field, "must be the id of one of your active accounts")
		return Account{}, false, nil
	}
	a, err := tx.Account(ctx, userID, id)
	if errors.Is(err, ErrNotFound) || (err == nil && a.Status != StatusActive) {
		v.Add(field, "must be the id of one of your active accounts")
		return Account{}, false, nil
	}
	if err != nil {
		return Account{}, false, err
	}
	return a, true, nil
}

// newLine builds a posted account line owned by another record.
func (s *Service) newLine(accountID, typ string, amount Money, date Date, description *string, source string, sourceID *string) AccountTransaction {
	now := s.stamp()
	return AccountTransaction{ID: NewID(), AccountID: accountID, Type: typ, Amount: amount, Date: date,
		Description: description, Source: source, SourceID: sourceID, Status: LinePosted, CreatedAt: now, UpdatedAt: now}
}

// voidLine voids a posted line in tx (reversing history is allowed even on an archived account).
func (s *Service) voidLine(ctx context.Context, tx Repo, userID, lineID string) error {
	t, err := tx.AccountTransaction(ctx, userID, lineID)
	if err != nil {
		return err
	}
	if t.Status == StatusVoided {
		return nil
	}
	now := s.stamp()
	t.Status, t.VoidedAt, t.UpdatedAt = StatusVoided, &now, now
	return tx.UpdateAccountTransaction(ctx, userID, t)
}
