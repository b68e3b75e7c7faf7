package finance

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
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
	Institution        *string     `json:"institution,omitempty"`
	AccountNumberLast4 *string     `json:"account_number_last4,omitempty"`
	OpeningBalance     Money       `json:"opening_balance"`
	Currency           string      `json:"currency"` // ISO 4217; fixed once the account has money rows
	Notes              *string     `json:"notes,omitempty"`
	Status             string      `json:"status"`
	ArchivedAt         *time.Time  `json:"archived_at,omitempty"`
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
	ID          string  `json:"id"`
	AccountID   string  `json:"account_id"`
	AccountName string  `json:"account_name"` // computed: the account's name
	Currency    string  `json:"currency"`     // computed: the account's; amount and running_balance are in it
	Type        string  `json:"type"`
	Amount      Money   `json:"amount"`
	Date        Date    `json:"date"`
	Description *string `json:"description,omitempty"`
	Source      string  `json:"source"`
	SourceID    *string `json:"source_id,omitempty"`
	Status      string  `json:"status"`
	// Cleared is pending, cleared or reconciled (reconcile.go); written only
	// through ClearedRepo.
	Cleared    string `json:"cleared"`
	IsEditable bool   `json:"is_editable"` // computed: a posted manual or adjustment line on an active account
	// RunningBalance is the account's balance right after this line, over the
	// whole account in date order (computed; null on a voided line; domain.md
	// "Running balances on account lines").
	RunningBalance *Money `json:"running_balance,omitempty"`
	// Transfer is the transfer a line of source transfer belongs to, with the
	// other side's account (computed; null on other lines).
	Transfer  *LineTransfer `json:"transfer,omitempty"`
	VoidedAt  *time.Time    `json:"voided_at,omitempty"`
	CreatedAt time.Time     `json:"created_at"`
	UpdatedAt time.Time     `json:"updated_at"`
	// Warnings are set on the answer of a write that has something to warn
	// about (warning.go); never stored, never on reads.
	Warnings []Warning `json:"warnings,omitempty"`
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
	ListAccountTransactions(ctx context.Context, userID string, f AccountTransactionFilter, p ListParams) ([]AccountTransaction, ListTotals, error)
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
	Cleared   string // pending, cleared, reconciled, or "" for any
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
		Description: description, Source: source, SourceID: sourceID, Status: LinePosted, Cleared: ClearedPending,
		CreatedAt: now, UpdatedAt: now}
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

// Line statuses beyond LinePosted: a voided line keeps its row and leaves the balance.
const LineVoided = StatusVoided

// LineTypes, LineSources and LineStatuses are the values the line list filters accept.
var (
	LineTypes    = []string{LineDebit, LineCredit}
	LineSources  = []string{SourceManual, SourceAdjustment, SourceExpense, SourceIncome, SourceSOAPayment, SourceLoanPayment, SourceTransfer}
	LineStatuses = []string{LinePosted, LineVoided}
)

// Text limits of account fields (domain.md §2.3).
const (
	MaxInstitution = 100
	// DefaultAdjustmentDescription describes an adjustment line sent without a reason.
	DefaultAdjustmentDescription = "Balance adjustment"
)

// ParseAccountFilter validates the filters of GET /accounts.
func ParseAccountFilter(status, typ, search string) (AccountFilter, error) {
	var v Validator
	f := AccountFilter{Status: status, Type: AccountType(typ), Search: search}
	switch status {
	case "":
		f.Status = StatusActive
	case StatusActive, StatusArchived, StatusAll:
	default:
		v.Add("status", "must be active, archived or all")
	}
	if typ != "" && !slices.Contains(AccountTypes, f.Type) {
		v.Add("type", "must be one of: "+joinAccountTypes())
	}
	return f, v.Err()
}

func joinAccountTypes() string {
	names := make([]string, len(AccountTypes))
	for i, t := range AccountTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// AccountRequest is the body of POST /accounts and PUT /accounts/{id}. On
// PUT only the fields present change; null clears institution,
// account_number_last4 and notes, and resets opening_balance to 0; an
// absent or null currency keeps the account's (the reporting currency on
// POST).
type AccountRequest struct {
	Name               Field[string] `json:"name"`
	Type               Field[string] `json:"type"`
	Institution        Field[string] `json:"institution"`
	AccountNumberLast4 Field[string] `json:"account_number_last4"`
	OpeningBalance     Field[Money]  `json:"opening_balance"`
	Currency           Field[string] `json:"currency"`
	Notes              Field[string] `json:"notes"`
}

var last4RE = regexp.MustCompile(`^[0-9]{4}$`)

// apply validates the present fields of r into a; create makes name and
// type required even when absent.
func (r AccountRequest) apply(v *Validator, a *Account, create bool) {
	if create || r.Name.Set {
		a.Name = v.RequiredText("name", r.Name, MaxName)
	}
	if create || r.Type.Set {
		a.Type = AccountType(requiredEnum(v, "type", r.Type, joinAccountTypes(), func(s string) bool {
			return slices.Contains(AccountTypes, AccountType(s))
		}))
	}
	if r.Institution.Set {
		a.Institution = v.OptionalText("institution", r.Institution, MaxInstitution)
	}
	if r.AccountNumberLast4.Set {
		a.AccountNumberLast4 = v.OptionalText("account_number_last4", r.AccountNumberLast4, 4)
		if a.AccountNumberLast4 != nil && !last4RE.MatchString(*a.AccountNumberLast4) {
			v.Add("account_number_last4", "must be exactly 4 digits")
		}
	}
	cur := recordCurrency(v, "currency", r.Currency, currencyOf(a.Currency))
	a.Currency = cur.Code
	if r.OpeningBalance.Set {
		a.OpeningBalance = 0
		if Readable(v, "opening_balance", r.OpeningBalance) {
			a.OpeningBalance = r.OpeningBalance.Value
		}
	}
	if r.OpeningBalance.Set || r.Currency.Set {
		checkDecimals(v, "opening_balance", a.OpeningBalance, cur)
	}
	if r.Notes.Set {
		a.Notes = v.OptionalText("notes", r.Notes, MaxNotes)
	}
}

// requiredEnum reads a required string that must satisfy ok; allowed names
// the accepted values in the problem text.
func requiredEnum(v *Validator, name string, f Field[string], allowed string, ok func(string) bool) string {
	if !Readable(v, name, f) {
		if !v.Has(name) {
			v.Add(name, "is required")
		}
		return ""
	}
	if !ok(f.Value) {
		v.Add(name, "must be one of: "+allowed)
		return ""
	}
	return f.Value
}

// AccountPage is a page of accounts with the balances of every account the
// filter selects, on every page, by currency (domain.md "Converting for
// summaries"): each currency's total and its value in the reporting
// currency at today's rate.
type AccountPage struct {
	Page[Account]
	ByCurrency []CurrencyLine `json:"by_currency"`
	// Total is the lines' sum in the reporting currency, rounded once, a
	// currency without a rate left out; Note says what it did. The pages
	// show them; the API answers the lines, whose converted null names a
	// currency left out.
	Total Money          `json:"-"`
	Note  ConversionNote `json:"-"`
}

// ListAccounts returns a page of the user's accounts with their balances.
func (s *Service) ListAccounts(ctx context.Context, userID string, f AccountFilter, p ListParams) (AccountPage, error) {
	repo := s.store.Read()
	items, total, err := repo.ListAccounts(ctx, userID, f, p)
	page, err := pageOf(items, total, err, p)
	if err != nil {
		return AccountPage{}, err
	}
	// A household has few accounts: the lines read them all unless the
	// page already holds every one.
	all := items
	if p.Offset() > 0 || len(items) < total {
		if all, _, err = repo.ListAccounts(ctx, userID, f, ListParams{Page: 1, Limit: allRows, SortBy: AccountList.Sorts[0]}); err != nil {
			return AccountPage{}, err
		}
	}
	today := s.today(ctx, userID)
	balances := make([]DatedAmount, len(all))
	for i, a := range all {
		balances[i] = DatedAmount{Currency: a.Currency, Date: today, Amount: a.CurrentBalance}
	}
	conv, err := s.sumConverter(ctx, userID, s.currency(ctx, userID), balances)
	if err != nil {
		return AccountPage{}, err
	}
	out := AccountPage{Page: page, ByCurrency: conv.Lines(ctx, balances), Note: conv.NoteOf(ctx, balances)}
	out.Total, _ = conv.Total(ctx, balances)
	return out, conv.Err()
}

// GetAccount returns one account (archived ones included).
func (s *Service) GetAccount(ctx context.Context, userID, id string) (Account, error) {
	return s.store.Read().Account(ctx, userID, id)
}

// CreateAccount adds an active account.
func (s *Service) CreateAccount(ctx context.Context, userID string, r AccountRequest) (Account, error) {
	var v Validator
	a := Account{ID: NewID(), Status: StatusActive, Currency: s.currency(ctx, userID)}
	r.apply(&v, &a, true)
	if err := v.Err(); err != nil {
		return Account{}, err
	}
	a.CreatedAt, a.UpdatedAt = s.stamp(), s.stamp()
	var out Account
	err := s.store.Write(ctx, func(tx Repo) error {
		if err := uniqueAccountName(ctx, tx, userID, a); err != nil {
			return err
		}
		if err := tx.InsertAccount(ctx, userID, a); err != nil {
			return err
		}
		var err error
		if out, err = tx.Account(ctx, userID, a.ID); err != nil {
			return err
		}
		return s.recordAccount(ctx, tx, userID, LogCreated, out, fmt.Sprintf("Account %s (%s) added, opening balance %s",
			quoted(out.Name), out.Type, out.OpeningBalance))
	})
	return out, err
}

// uniqueAccountName enforces one active account per name, case-insensitively.
func uniqueAccountName(ctx context.Context, tx Repo, userID string, a Account) error {
	other, err := tx.ActiveAccountByName(ctx, userID, a.Name)
	switch {
	case err == nil && other.ID != a.ID:
		return Invalid("name", "is already used by another active account")
	case err != nil && !errors.Is(err, ErrNotFound):
		return err
	}
	return nil
}

// UpdateAccount changes the fields present in r. An archived account cannot change.
func (s *Service) UpdateAccount(ctx context.Context, userID, id string, r AccountRequest) (Account, error) {
	var out Account
	err := s.store.Write(ctx, func(tx Repo) error {
		a, err := tx.Account(ctx, userID, id)
		if err != nil {
			return err
		}
		cur := a
		var v Validator
		r.apply(&v, &a, false)
		if err := v.Err(); err != nil {
			return err
		}
		if a.Status != StatusActive {
			return InvalidStatus("account is archived; unarchive it before changing it")
		}
		if err := uniqueAccountName(ctx, tx, userID, a); err != nil {
			return err
		}
		if err := changeCurrency(ctx, tx, userID, RecordAccount, a.ID, cur.Name, cur.Currency, a.Currency); err != nil {
			return err
		}
		a.UpdatedAt = s.stamp()
		if err := tx.UpdateAccount(ctx, userID, a); err != nil {
			return err
		}
		if out, err = tx.Account(ctx, userID, a.ID); err != nil {
			return err
		}
		c := changes(cur, out, "name", "type", "institution", "account_number_last4", "opening_balance", "currency", "notes")
		if len(c) == 0 {
			return nil
		}
		return s.recordAccount(ctx, tx, userID, LogUpdated, out, fmt.Sprintf("Account %s: %s", quoted(out.Name), c))
	})
	return out, err
}

// ArchiveAccount is DELETE /accounts/{id} and PATCH /accounts/{id}/archive:
// the account and its lines stay, with any balance; it takes no new writes.
func (s *Service) ArchiveAccount(ctx context.Context, userID, id string) (Account, error) {
	var out Account
	err := s.store.Write(ctx, func(tx Repo) error {
		a, err := tx.Account(ctx, userID, id)
		if err != nil {
			return err
		}
		if a.Status == StatusArchived {
			return InvalidStatus("account is already archived")
		}
		now := s.stamp()
		a.Status, a.ArchivedAt, a.UpdatedAt = StatusArchived, &now, now
		if err := tx.UpdateAccount(ctx, userID, a); err != nil {
			return err
		}
		out = a
		return s.recordAccount(ctx, tx, userID, LogArchived, a, fmt.Sprintf("Account %s archived with balance %s",
			quoted(a.Name), a.CurrentBalance))
	})
	return out, err
}

// UnarchiveAccount makes an archived account active again. Its name must not
// clash with an account that became active meanwhile.
func (s *Service) UnarchiveAccount(ctx context.Context, userID, id string) (Account, error) {
	var out Account
	err := s.store.Write(ctx, func(tx Repo) error {
		a, err := tx.Account(ctx, userID, id)
		if err != nil {
			return err
		}
		if a.Status == StatusActive {
			return InvalidStatus("account is not archived")
		}
		if err := uniqueAccountName(ctx, tx, userID, a); err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				return &ValidationError{
					Message: "Another active account has this name; rename one of them first",
					Fields:  ve.Fields,
				}
			}
			return err
		}
		a.Status, a.ArchivedAt, a.UpdatedAt = StatusActive, nil, s.stamp()
		if err := tx.UpdateAccount(ctx, userID, a); err != nil {
			return err
		}
		out = a
		return s.recordAccount(ctx, tx, userID, LogUnarchived, a, fmt.Sprintf("Account %s unarchived", quoted(a.Name)))
	})
	return out, err
}

// recordAccount appends the entry of a write on the account a; its amount is
// the balance.
func (s *Service) recordAccount(ctx context.Context, tx Repo, userID, action string, a Account, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordAccount, RecordID: a.ID, Action: action, Summary: summary, Amount: &a.CurrentBalance})
}

// recordLine appends the entry of a write on the manual or adjustment line t.
func (s *Service) recordLine(ctx context.Context, tx Repo, userID, action string, t AccountTransaction, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordAccountTransaction, RecordID: t.ID, Action: action, Summary: summary, Amount: &t.Amount})
}

// lineSummary says what happened to a line: `Credit of 500.00 on 2026-11-26
// recorded on "Savings": "Transfer from BPI"`.
func lineSummary(t AccountTransaction, verb string) string {
	out := fmt.Sprintf("%s of %s on %s %s on %s", titleCase(t.Type), t.Amount, t.Date, verb, quoted(t.AccountName))
	if t.Description != nil {
		out += ": " + quoted(*t.Description)
	}
	return out
}

// AccountOption is an account as write forms offer it.
type AccountOption struct {
	ID             string      `json:"id"`
	Name           string      `json:"name"`
	Type           AccountType `json:"type"`
	Currency       string      `json:"currency"` // current_balance is in it
	CurrentBalance Money       `json:"current_balance"`
}

// allRows is a page size that takes every row: form options are not paged.
const allRows = 1 << 30

// AccountOptions lists the user's active accounts by name, for form-options routes.
func (s *Service) AccountOptions(ctx context.Context, userID string) ([]AccountOption, error) {
	items, _, err := s.store.Read().ListAccounts(ctx, userID, AccountFilter{Status: StatusActive},
		ListParams{Page: 1, Limit: allRows, SortBy: AccountList.Sorts[0]})
	if err != nil {
		return nil, err
	}
	out := make([]AccountOption, len(items))
	for i, a := range items {
		out[i] = AccountOption{ID: a.ID, Name: a.Name, Type: a.Type, Currency: a.Currency, CurrentBalance: a.CurrentBalance}
	}
	return out, nil
}

// ListAccountTransactions returns a page of lines of all the user's accounts
// (GET /accounts/transactions); f.AccountID narrows it to one.
func (s *Service) ListAccountTransactions(ctx context.Context, userID string, f AccountTransactionFilter, p ListParams) (ConvertedPage[AccountTransaction], error) {
	r := s.store.Read()
	items, sum, err := r.ListAccountTransactions(ctx, userID, f, p)
	in := s.currency(ctx, userID)
	if err == nil && f.AccountID != "" {
		// One account's lines total in its currency, as its balance is.
		if a, aerr := r.Account(ctx, userID, f.AccountID); aerr == nil {
			in = a.Currency
		}
	}
	return convertedPageOf(ctx, s, userID, in, items, sum, err, p)
}

// GetAccountTransaction returns a line of the path account: 404 when the
// account is not the user's or the line is not on it.
func (s *Service) GetAccountTransaction(ctx context.Context, userID, accountID, lineID string) (AccountTransaction, error) {
	repo := s.store.Read()
	if _, err := repo.Account(ctx, userID, accountID); err != nil {
		return AccountTransaction{}, err
	}
	return lineOfAccount(ctx, repo, userID, accountID, lineID)
}

// AccountTransactionRequest is the body of POST and PUT
// /accounts/{id}/transactions: a manual line. On PUT only the fields present
// change, and null clears the description.
type AccountTransactionRequest struct {
	Type        Field[string] `json:"type"`
	Amount      Field[Money]  `json:"amount"`
	Date        Field[Date]   `json:"date"`
	Description Field[string] `json:"description"`
	// Cleared ticks the line off against the bank (pending or cleared);
	// alone it is accepted on any posted line, whatever record owns it.
	Cleared Field[string] `json:"cleared"`
}

// onlyCleared reports whether r changes nothing but cleared, which touches
// no money and so is allowed on lines owned by another record.
func (r AccountTransactionRequest) onlyCleared() bool {
	return r.Cleared.Set && !r.Type.Set && !r.Amount.Set && !r.Date.Set && !r.Description.Set
}

func (r AccountTransactionRequest) apply(v *Validator, t *AccountTransaction, create bool) {
	if create || r.Type.Set {
		t.Type = requiredEnum(v, "type", r.Type, "debit, credit", func(s string) bool { return slices.Contains(LineTypes, s) })
	}
	if create || r.Amount.Set {
		t.Amount = v.RequiredMoney("amount", r.Amount)
	}
	if create || r.Date.Set {
		t.Date = v.RequiredDate("date", r.Date)
	}
	if r.Description.Set {
		t.Description = v.OptionalText("description", r.Description, MaxDescription)
	}
	switch {
	case r.Cleared.Set && create:
		v.Add("cleared", "cannot be set on a new line, which starts pending; mark it once recorded")
	case r.Cleared.Set:
		t.Cleared = markable(v, "cleared", r.Cleared)
	}
}

// writableAccount loads the path account of a write under /accounts/{id}/...
// (404 when it is not the user's) and returns a check, to run after body
// validation, that refuses archived accounts with INVALID_STATUS (domain.md §1.1 order).
func writableAccount(ctx context.Context, tx Repo, userID, id string) (Account, func() error, error) {
	a, err := tx.Account(ctx, userID, id)
	if err != nil {
		return Account{}, nil, err
	}
	return a, func() error {
		if a.Status != StatusActive {
			return InvalidStatus("account is archived; unarchive it before writing to it")
		}
		return nil
	}, nil
}

// CreateAccountTransaction posts a manual line: a movement that is neither an
// expense nor income (a transfer, a withdrawal, bank interest). A debit that
// leaves the account below zero is answered with a warning.
func (s *Service) CreateAccountTransaction(ctx context.Context, userID, accountID string, r AccountTransactionRequest) (AccountTransaction, error) {
	var out AccountTransaction
	today := s.today(ctx, userID)
	err := s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		tx = w // every change below is watched
		_, active, err := writableAccount(ctx, tx, userID, accountID)
		if err != nil {
			return err
		}
		var v Validator
		t := s.newLine(accountID, "", 0, Date{}, nil, SourceManual, nil)
		r.apply(&v, &t, true)
		if err := v.Err(); err != nil {
			return err
		}
		if err := active(); err != nil {
			return err
		}
		if out, err = s.insertLine(ctx, tx, userID, t); err != nil {
			return err
		}
		out.Warnings, err = w.balances(ctx)
		return err
	})
	return out, err
}

// setLineCleared stores a line's new cleared state and returns it read back.
func (s *Service) setLineCleared(ctx context.Context, tx Repo, userID string, t AccountTransaction, cleared string) (AccountTransaction, error) {
	if err := tx.SetLinesCleared(ctx, userID, []string{t.ID}, cleared); err != nil {
		return AccountTransaction{}, err
	}
	return tx.AccountTransaction(ctx, userID, t.ID)
}

// insertLine stores a manual line and records it; it returns the line as read back.
func (s *Service) insertLine(ctx context.Context, tx Repo, userID string, t AccountTransaction) (AccountTransaction, error) {
	if err := tx.InsertAccountTransaction(ctx, userID, t); err != nil {
		return AccountTransaction{}, err
	}
	out, err := tx.AccountTransaction(ctx, userID, t.ID)
	if err != nil {
		return AccountTransaction{}, err
	}
	return out, s.recordLine(ctx, tx, userID, LogCreated, out, lineSummary(out, "recorded"))
}

// lineOfAccount loads a line under its path account: 404 unless it is on that account.
func lineOfAccount(ctx context.Context, tx Repo, userID, accountID, lineID string) (AccountTransaction, error) {
	t, err := tx.AccountTransaction(ctx, userID, lineID)
	if err != nil {
		return AccountTransaction{}, err
	}
	if t.AccountID != accountID {
		return AccountTransaction{}, NotFound("account transaction")
	}
	return t, nil
}

// lineOwners names the record that owns a line of each non-editable source.
var lineOwners = map[string]string{
	SourceExpense:     "an expense",
	SourceIncome:      "an income record",
	SourceSOAPayment:  "a statement payment",
	SourceLoanPayment: "a loan payment",
	SourceTransfer:    "a transfer",
}

// checkLineEditable refuses lines owned by another record and voided lines.
func checkLineEditable(t AccountTransaction) error {
	switch {
	case t.Source == SourceTransfer && t.SourceID != nil:
		return InvalidStatus("account transaction belongs to transfer %s; change or delete it through /api/v1/transfers/%[1]s", *t.SourceID)
	case t.Source != SourceManual && t.Source != SourceAdjustment:
		return InvalidStatus("account transaction belongs to %s; change or void it through that record", lineOwners[t.Source])
	case t.Status == StatusVoided:
		return InvalidStatus("account transaction is already voided")
	}
	return nil
}

// UpdateAccountTransaction changes a manual or adjustment line in place.
func (s *Service) UpdateAccountTransaction(ctx context.Context, userID, accountID, lineID string, r AccountTransactionRequest) (AccountTransaction, error) {
	var out AccountTransaction
	today := s.today(ctx, userID)
	err := s.store.Write(ctx, func(tx Repo) error {
		w := s.watch(tx, userID, today)
		tx = w // every change below is watched
		_, active, err := writableAccount(ctx, tx, userID, accountID)
		if err != nil {
			return err
		}
		t, err := lineOfAccount(ctx, tx, userID, accountID, lineID)
		if err != nil {
			return err
		}
		cur := t
		var v Validator
		r.apply(&v, &t, false)
		if err := v.Err(); err != nil {
			return err
		}
		if err := active(); err != nil {
			return err
		}
		if r.onlyCleared() && t.Status == StatusVoided {
			return InvalidStatus("account transaction is voided; only posted lines are cleared")
		}
		if r.onlyCleared() {
			if out, err = s.setLineCleared(ctx, tx, userID, t, t.Cleared); err != nil || out.Cleared == cur.Cleared {
				return err
			}
			return s.recordLine(ctx, tx, userID, LogUpdated, out, lineSummary(out, markedVerb(cur.Cleared, out.Cleared)))
		}
		if err := checkLineEditable(t); err != nil {
			return err
		}
		if r.Cleared.Set {
			// Un-reconciling comes first, so one request can un-reconcile a line and fix its amount.
			if _, err := s.setLineCleared(ctx, tx, userID, t, t.Cleared); err != nil {
				return err
			}
		}
		t.UpdatedAt = s.stamp()
		if err := tx.UpdateAccountTransaction(ctx, userID, t); err != nil {
			return err
		}
		if out, err = tx.AccountTransaction(ctx, userID, t.ID); err != nil {
			return err
		}
		if c := changes(cur, out, "cleared", "type", "amount", "date", "description"); len(c) > 0 {
			if err := s.recordLine(ctx, tx, userID, LogUpdated, out, fmt.Sprintf("Line on %s: %s", quoted(out.AccountName), c)); err != nil {
				return err
			}
		}
		out.Warnings, err = w.balances(ctx)
		return err
	})
	return out, err
}

// VoidAccountTransaction is DELETE /accounts/{id}/transactions/{transactionId}:
// a manual or adjustment line is voided and leaves the balance.
func (s *Service) VoidAccountTransaction(ctx context.Context, userID, accountID, lineID string) (AccountTransaction, error) {
	var out AccountTransaction
	err := s.store.Write(ctx, func(tx Repo) error {
		_, active, err := writableAccount(ctx, tx, userID, accountID)
		if err != nil {
			return err
		}
		t, err := lineOfAccount(ctx, tx, userID, accountID, lineID)
		if err != nil {
			return err
		}
		if err := active(); err != nil {
			return err
		}
		if err := checkLineEditable(t); err != nil {
			return err
		}
		if err := s.voidLine(ctx, tx, userID, t.ID); err != nil {
			return err
		}
		if out, err = tx.AccountTransaction(ctx, userID, t.ID); err != nil {
			return err
		}
		return s.recordLine(ctx, tx, userID, LogVoided, out, lineSummary(out, "voided"))
	})
	return out, err
}

// BalanceAdjustmentRequest is the body of POST /accounts/{id}/balance-adjustment.
type BalanceAdjustmentRequest struct {
	TargetBalance Field[Money]  `json:"target_balance"`
	Date          Field[Date]   `json:"date"`
	Reason        Field[string] `json:"reason"`
}

// BalanceAdjustment is the result of a balance adjustment: the line stored
// and the balance before and after it.
type BalanceAdjustment struct {
	Transaction     AccountTransaction `json:"transaction"`
	PreviousBalance Money              `json:"previous_balance"`
	NewBalance      Money              `json:"new_balance"`
}

// AdjustBalance stores one adjustment line that brings the account's current
// balance to the target: a credit when the target is higher, a debit when lower.
func (s *Service) AdjustBalance(ctx context.Context, userID, accountID string, r BalanceAdjustmentRequest) (BalanceAdjustment, error) {
	var out BalanceAdjustment
	err := s.store.Write(ctx, func(tx Repo) error {
		a, active, err := writableAccount(ctx, tx, userID, accountID)
		if err != nil {
			return err
		}
		var v Validator
		target := Money(0)
		if !Readable(&v, "target_balance", r.TargetBalance) {
			if !v.Has("target_balance") {
				v.Add("target_balance", "is required")
			}
		} else {
			target = r.TargetBalance.Value
		}
		date := s.today(ctx, userID)
		if Readable(&v, "date", r.Date) {
			date = r.Date.Value
		}
		reason := v.OptionalText("reason", r.Reason, MaxReason)
		if err := v.Err(); err != nil {
			return err
		}
		if err := active(); err != nil {
			return err
		}
		diff := target - a.CurrentBalance
		switch {
		case diff == 0:
			return Invalid("target_balance", "equals the current balance "+a.CurrentBalance.String()+"; nothing to adjust")
		case diff.Abs() > MaxMoney:
			return Invalid("target_balance", "is too far from the current balance "+a.CurrentBalance.String()+
				"; one adjustment may move it by at most 999999999.99")
		}
		typ := LineCredit
		if diff < 0 {
			typ = LineDebit
		}
		if reason == nil {
			d := DefaultAdjustmentDescription
			reason = &d
		}
		t := s.newLine(accountID, typ, diff.Abs(), date, reason, SourceAdjustment, nil)
		if err := tx.InsertAccountTransaction(ctx, userID, t); err != nil {
			return err
		}
		// An adjustment exists to agree with the bank, so it starts cleared.
		if err := tx.SetLinesCleared(ctx, userID, []string{t.ID}, ClearedCleared); err != nil {
			return err
		}
		if out.Transaction, err = tx.AccountTransaction(ctx, userID, t.ID); err != nil {
			return err
		}
		after, err := tx.Account(ctx, userID, accountID)
		if err != nil {
			return err
		}
		out.PreviousBalance, out.NewBalance = a.CurrentBalance, after.CurrentBalance
		return s.recordLine(ctx, tx, userID, LogCreated, out.Transaction, fmt.Sprintf("Balance of %s adjusted from %s to %s",
			quoted(a.Name), out.PreviousBalance, out.NewBalance))
	})
	return out, err
}
