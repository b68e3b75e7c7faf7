package finance

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Income is money received. With account_id it owns a credit line on that
// account; without, it was received outside the tracked accounts.
type Income struct {
	ID                   string     `json:"id"`
	Amount               Money      `json:"amount"`
	Currency             string     `json:"currency"` // the account's, or named when there is none
	Date                 Date       `json:"date"`
	Description          *string    `json:"description,omitempty"`
	CategoryID           string     `json:"category_id"`
	Category             string     `json:"category"` // computed: the category's name
	Notes                *string    `json:"notes,omitempty"`
	AccountID            *string    `json:"account_id,omitempty"`
	AccountTransactionID *string    `json:"account_transaction_id,omitempty"`
	Status               string     `json:"status"`
	VoidedAt             *time.Time `json:"voided_at,omitempty"`
	CreatedAt            time.Time  `json:"created_at"`
	UpdatedAt            time.Time  `json:"updated_at"`
}

// IncomeRepo is the persistence of income.
type IncomeRepo interface {
	Income(ctx context.Context, userID, id string) (Income, error)
	// ListIncome returns the page and sums every income the filter
	// selects, grouped as ListTotals says for the reporting currency.
	ListIncome(ctx context.Context, userID, reporting string, f IncomeFilter, p ListParams) ([]Income, ListTotals, error)
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

// Income statuses.
const IncomeActive = StatusActive

// IncomeStatuses are the values of the status filter of GET /income.
var IncomeStatuses = []string{StatusActive, StatusVoided}

// IncomeRequest is the body of POST /income and PUT /income/{id}. On PUT only
// the fields present change: null clears description, notes and account_id,
// and is refused for amount, date and category. An empty account_id counts as null.
type IncomeRequest struct {
	Amount      Field[Money]  `json:"amount"`
	Date        Field[Date]   `json:"date"`
	Category    Field[string] `json:"category"`
	Description Field[string] `json:"description"`
	Notes       Field[string] `json:"notes"`
	AccountID   Field[string] `json:"account_id"`
	// Currency names the currency of income without an account; with one it
	// may be sent and must be the account's.
	Currency Field[string] `json:"currency"`
}

// incomeChange is an IncomeRequest after the checks of its shape: the merged
// record, plus what the request asked for that needs other records.
type incomeChange struct {
	next         Income
	categoryName string // "" when the category does not change
	accountID    string // the requested account, "" for none
	currency     string // the currency the request named, "" for none
	amountSet    bool   // the request named the amount
}

// shape validates the fields present in r (all required ones on create)
// over cur, without looking at other records.
func (r IncomeRequest) shape(cur Income, create bool) (incomeChange, error) {
	var v Validator
	c := incomeChange{next: cur}
	if create || r.Amount.Set {
		c.next.Amount, c.amountSet = v.RequiredMoney("amount", r.Amount), true
	}
	if create || r.Date.Set {
		c.next.Date = v.RequiredDate("date", r.Date)
	}
	if create || r.Category.Set {
		c.categoryName = v.RequiredText("category", r.Category, MaxName)
	}
	c.currency = recordCurrency(&v, "currency", r.Currency, Currency{}).Code
	if r.Description.Set {
		c.next.Description = v.OptionalText("description", r.Description, MaxDescription)
	}
	if r.Notes.Set {
		c.next.Notes = v.OptionalText("notes", r.Notes, MaxNotes)
	}
	if cur.AccountID != nil {
		c.accountID = *cur.AccountID
	}
	if r.AccountID.Set {
		c.accountID = ""
		if Readable(&v, "account_id", r.AccountID) {
			c.accountID = strings.TrimSpace(r.AccountID.Value)
			if c.accountID != "" && !ValidID(c.accountID) {
				v.Add("account_id", "must be the id of one of your active accounts")
			}
		}
	}
	return c, v.Err()
}

// resolve checks the category and a newly named account against the user's
// records (VALIDATION_ERROR when they are not active and the user's).
func (c *incomeChange) resolve(ctx context.Context, tx Repo, userID string, accountChanged bool) error {
	var v Validator
	if c.categoryName != "" {
		cat, err := activeCategory(ctx, tx, &v, "category", userID, KindIncome, c.categoryName)
		if err != nil {
			return err
		}
		c.next.CategoryID, c.next.Category = cat.ID, cat.Name
	}
	if accountChanged && c.accountID != "" {
		if _, _, err := activeAccount(ctx, tx, &v, "account_id", userID, c.accountID); err != nil {
			return err
		}
		if v.Has("account_id") {
			return v.Err()
		}
	}
	was := c.next.Currency
	if c.currency != "" {
		c.next.Currency = c.currency
	}
	if err := settleIncomeCurrency(ctx, tx, userID, &v, &c.next, c.accountID, c.currency != ""); err != nil {
		return err
	}
	if c.amountSet || c.next.Currency != was {
		checkDecimals(&v, "amount", c.next.Amount, currencyOf(c.next.Currency))
	}
	return v.Err()
}

// settleIncomeCurrency sets what in's money is in (domain.md "What each
// amount is in"): the account's when it goes to one, where a currency the
// request named must be that one; without an account, in.Currency as it is.
func settleIncomeCurrency(ctx context.Context, tx Repo, userID string, v *Validator, in *Income, accountID string, named bool) error {
	if accountID == "" {
		return nil
	}
	a, err := tx.Account(ctx, userID, accountID)
	if err != nil {
		return err
	}
	if named && in.Currency != a.Currency {
		v.Add("currency", fmt.Sprintf("must be %s, the account's currency: the money arrived in it", a.Currency))
		return nil
	}
	in.Currency = a.Currency
	return nil
}

// incomeLineDescription is the description of an income's account line: the
// income's description, or else its category's name, so that the account
// history says where the money came from.
func incomeLineDescription(in Income) *string {
	if in.Description != nil {
		d := *in.Description
		return &d
	}
	name := in.Category
	return &name
}

// ListIncome returns a page of the user's income.
func (s *Service) ListIncome(ctx context.Context, userID string, f IncomeFilter, p ListParams) (ConvertedPage[Income], error) {
	reporting := s.currency(ctx, userID)
	items, sum, err := s.store.Read().ListIncome(ctx, userID, reporting, f, p)
	return convertedPageOf(ctx, s, userID, reporting, items, sum, err, p)
}

// GetIncome returns one income record (voided ones included).
func (s *Service) GetIncome(ctx context.Context, userID, id string) (Income, error) {
	return s.store.Read().Income(ctx, userID, id)
}

// CreateIncome records income; with account_id it also posts a credit line
// (source income) on that account, in the same transaction.
func (s *Service) CreateIncome(ctx context.Context, userID string, r IncomeRequest) (Income, error) {
	c, err := r.shape(Income{ID: NewID(), Status: IncomeActive, Currency: s.currency(ctx, userID)}, true)
	if err != nil {
		return Income{}, err
	}
	var out Income
	err = s.store.Write(ctx, func(tx Repo) error {
		if err := c.resolve(ctx, tx, userID, true); err != nil {
			return err
		}
		in := c.next
		if err := s.insertIncome(ctx, tx, userID, &in, c.accountID); err != nil {
			return err
		}
		var err error
		out, err = tx.Income(ctx, userID, in.ID)
		return err
	})
	return out, err
}

// insertIncome stores in, with its credit line on accountID when there is
// one, and records it.
func (s *Service) insertIncome(ctx context.Context, tx Repo, userID string, in *Income, accountID string) error {
	in.CreatedAt, in.UpdatedAt = s.stamp(), s.stamp()
	if in.Currency == "" {
		in.Currency = s.currency(ctx, userID)
	}
	if accountID != "" {
		a, err := tx.Account(ctx, userID, accountID)
		if err != nil {
			return err
		}
		in.Currency = a.Currency // the money arrived in the account's currency
		line := s.newLine(accountID, LineCredit, in.Amount, in.Date, incomeLineDescription(*in), SourceIncome, &in.ID)
		if err := tx.InsertAccountTransaction(ctx, userID, line); err != nil {
			return err
		}
		in.AccountID, in.AccountTransactionID = &line.AccountID, &line.ID
	}
	if err := tx.InsertIncome(ctx, userID, *in); err != nil {
		return err
	}
	return s.recordIncome(ctx, tx, userID, LogCreated, *in, fmt.Sprintf("Income %s on %s, %s",
		in.Amount, in.Date, quoted(in.Category)))
}

// UpdateIncome changes the fields present in r and keeps the account line in
// step: the line is updated in place while the account stays the same;
// account_id null voids it; an account where there was none creates one; a
// different account voids the old line and posts a new one, so each
// account's history shows what happened to it.
func (s *Service) UpdateIncome(ctx context.Context, userID, id string, r IncomeRequest) (Income, error) {
	var out Income
	err := s.store.Write(ctx, func(tx Repo) error {
		cur, err := tx.Income(ctx, userID, id)
		if err != nil {
			return err
		}
		c, err := r.shape(cur, false)
		if err != nil {
			return err
		}
		if cur.Status == StatusVoided {
			return InvalidStatus("income is voided and cannot be changed")
		}

		oldAccount := ""
		if cur.AccountID != nil {
			oldAccount = *cur.AccountID
		}
		accountChanged := c.accountID != oldAccount
		if err := c.resolve(ctx, tx, userID, accountChanged); err != nil {
			return err
		}
		in := c.next
		moneyChanged := in.Amount != cur.Amount || in.Date != cur.Date
		now := s.stamp()
		switch {
		case !accountChanged && cur.AccountTransactionID != nil:
			line, err := tx.AccountTransaction(ctx, userID, *cur.AccountTransactionID)
			if err != nil {
				return err
			}
			if moneyChanged {
				a, err := tx.Account(ctx, userID, line.AccountID)
				if err != nil {
					return err
				}
				if a.Status != StatusActive {
					return InvalidStatus("income is posted to an archived account; its amount and date cannot change " +
						"(set account_id to null or to an active account first)")
				}
			}
			line.Amount, line.Date, line.Description, line.UpdatedAt = in.Amount, in.Date, incomeLineDescription(in), now
			if err := tx.UpdateAccountTransaction(ctx, userID, line); err != nil {
				return err
			}
		case accountChanged:
			if cur.AccountTransactionID != nil {
				if err := s.voidLine(ctx, tx, userID, *cur.AccountTransactionID); err != nil {
					return err
				}
			}
			in.AccountID, in.AccountTransactionID = nil, nil
			if c.accountID != "" {
				line := s.newLine(c.accountID, LineCredit, in.Amount, in.Date, incomeLineDescription(in), SourceIncome, &in.ID)
				if err := tx.InsertAccountTransaction(ctx, userID, line); err != nil {
					return err
				}
				in.AccountID, in.AccountTransactionID = &line.AccountID, &line.ID
			}
		}
		in.UpdatedAt = now
		if err := tx.UpdateIncome(ctx, userID, in); err != nil {
			return err
		}
		if out, err = tx.Income(ctx, userID, in.ID); err != nil {
			return err
		}
		if c := changes(cur, out, "amount", "currency", "date", "description", "category", "account_id", "notes"); len(c) > 0 {
			return s.recordIncome(ctx, tx, userID, LogUpdated, out, c.String())
		}
		return nil
	})
	return out, err
}

// VoidIncome is DELETE /income/{id}: the income and its account line are
// voided (also on an archived account, since a void reverses history).
func (s *Service) VoidIncome(ctx context.Context, userID, id string) (Income, error) {
	var out Income
	err := s.store.Write(ctx, func(tx Repo) error {
		in, err := tx.Income(ctx, userID, id)
		if err != nil {
			return err
		}
		if in.Status == StatusVoided {
			return InvalidStatus("income is already voided")
		}
		if in.AccountTransactionID != nil {
			if err := s.voidLine(ctx, tx, userID, *in.AccountTransactionID); err != nil {
				return err
			}
		}
		now := s.stamp()
		in.Status, in.VoidedAt, in.UpdatedAt = StatusVoided, &now, now
		if err := tx.UpdateIncome(ctx, userID, in); err != nil {
			return err
		}
		if err := s.recordIncome(ctx, tx, userID, LogVoided, in, fmt.Sprintf("Income %s on %s voided", in.Amount, in.Date)); err != nil {
			return err
		}
		out, err = tx.Income(ctx, userID, in.ID)
		return err
	})
	return out, err
}

// recordIncome appends the entry of a write on the income in.
func (s *Service) recordIncome(ctx context.Context, tx Repo, userID, action string, in Income, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordIncome, RecordID: in.ID, Action: action, Summary: summary, Amount: &in.Amount})
}

// IncomeFormOptions is GET /income/form-options: what an income form offers.
type IncomeFormOptions struct {
	Categories []CategoryOption `json:"categories"`
	Accounts   []AccountOption  `json:"accounts"`
}

// IncomeFormOptions returns the user's active income categories and active accounts, by name.
func (s *Service) IncomeFormOptions(ctx context.Context, userID string) (IncomeFormOptions, error) {
	cats, err := s.CategoryOptions(ctx, userID, KindIncome)
	if err != nil {
		return IncomeFormOptions{}, err
	}
	accounts, err := s.AccountOptions(ctx, userID)
	if err != nil {
		return IncomeFormOptions{}, err
	}
	return IncomeFormOptions{Categories: cats, Accounts: accounts}, nil
}
