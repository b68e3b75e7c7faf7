package finance

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// CreditCard is a card with its cycle. The figures after Notes are computed
// on read (domain.md §4.3); Rate fields are exact decimal percents.
type CreditCard struct {
	ID                string     `json:"id"`
	Name              string     `json:"name"`
	Bank              *string    `json:"bank,omitempty"`
	LastFour          *string    `json:"last_four,omitempty"`
	CreditLimit       Money      `json:"credit_limit"`
	Currency          string     `json:"currency"` // ISO 4217: what the card bills in
	StatementDay      int        `json:"statement_day"`
	DueDay            int        `json:"due_day"`
	CycleStartDate    Date       `json:"cycle_start_date"`
	MinimumDuePercent Rate       `json:"minimum_due_percent"`
	ForeignFeePercent FeePercent `json:"foreign_fee_percent"` // the bank's fee on purchases in another currency; 0 for none
	MinimumDueFloor   Money      `json:"minimum_due_floor"`
	Notes             *string    `json:"notes,omitempty"`
	Status            string     `json:"status"`
	ArchivedAt        *time.Time `json:"archived_at,omitempty"`
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
	NextDueDate          Date  `json:"next_due_date,omitzero"`
	OpenSOACount         int   `json:"open_soa_count"`
}

// CardTotals are the sums a card's figures are computed from. The store
// gathers them; Figures does the arithmetic, so the rules of §4.3 live in one
// place. The statement fields stay zero until statements exist.
type CardTotals struct {
	Charges         Money // unbilled or billed purchase, fee, interest and installment rows
	Credits         Money // unbilled or billed refunds
	Payments        Money // posted statement payments
	UnbilledCharges Money
	UnbilledCredits Money

	OpenStatementBalance Money // Σ remaining of open statements
	OpenSOACount         int
	NextDueDate          Date // earliest due date among open statements
}

// Figures computes the card's figures from its totals as of today.
func (c CreditCard) Figures(t CardTotals, today Date) CardFigures {
	outstanding := t.Charges - t.Credits - t.Payments
	return CardFigures{
		OutstandingBalance:   outstanding,
		AvailableCredit:      c.CreditLimit - outstanding,
		UtilizationPercent:   Percent(max(0, outstanding), c.CreditLimit),
		UnbilledTotal:        t.UnbilledCharges - t.UnbilledCredits,
		OpenStatementBalance: t.OpenStatementBalance,
		NextStatementDate:    NextStatementDate(c.StatementDay, today),
		NextDueDate:          t.NextDueDate,
		OpenSOACount:         t.OpenSOACount,
	}
}

// StatementDate is the statement date of a card in the month of d: the
// statement day clamped to the month's length (domain.md §4.2).
func StatementDate(statementDay int, d Date) Date {
	return MonthAdd(d, 0, statementDay)
}

// NextStatementDate is the first statement date on or after today.
func NextStatementDate(statementDay int, today Date) Date {
	if s := StatementDate(statementDay, today); !s.Before(today) {
		return s
	}
	return MonthAdd(today, 1, statementDay)
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

// CardTransactionTypes are the types a client may create; CardTypeFilters
// adds the system-only type, which lists can still filter on.
var (
	CardTransactionTypes = []string{CardPurchase, CardFee, CardInterest, CardRefund}
	CardTypeFilters      = []string{CardPurchase, CardFee, CardInterest, CardRefund, CardInstallment}
	CardStatuses         = []string{CardUnbilled, CardBilled, CardConverted, StatusVoided}
)

// InterestTypes are the installment interest types offered by card forms (§2.9).
var InterestTypes = []string{"none", "add_on"}

// CardTransaction is a row on a card. A purchase is linked to its expense,
// which holds the category; the row holds the billing state.
type CardTransaction struct {
	ID                string  `json:"id"`
	CreditCardID      string  `json:"credit_card_id"`
	CreditCardName    string  `json:"credit_card_name"` // computed
	Type              string  `json:"type"`
	Amount            Money   `json:"amount"`
	Currency          string  `json:"currency"`                    // computed: the card's
	OriginalAmount    *Money  `json:"original_amount,omitempty"`   // a purchase abroad: what was paid, in original_currency
	OriginalCurrency  *string `json:"original_currency,omitempty"` // with original_amount, or both absent
	Date              Date    `json:"date"`
	Description       string  `json:"description"`
	CategoryID        *string `json:"category_id,omitempty"` // a purchase's comes from its expense
	Category          *string `json:"category,omitempty"`    // computed: the category's name
	Status            string  `json:"status"`
	SOAID             *string `json:"soa_id,omitempty"`
	IsSOALine         bool    `json:"is_soa_line"`
	ExpenseID         *string `json:"expense_id,omitempty"`
	InstallmentPlanID *string `json:"installment_plan_id,omitempty"`
	InstallmentNumber *int    `json:"installment_number,omitempty"`
	PrincipalPortion  *Money  `json:"principal_portion,omitempty"`
	InterestPortion   *Money  `json:"interest_portion,omitempty"`
	IsFuture          bool    `json:"is_future"` // computed: date after today
	// Cleared is pending or cleared (reconcile.go); written only through ClearedRepo.
	Cleared   string     `json:"cleared"`
	VoidedAt  *time.Time `json:"voided_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt time.Time  `json:"updated_at"`
	// Warnings are set on the answer of a write that has something to warn
	// about (warning.go); never stored, never on reads.
	Warnings []Warning `json:"warnings,omitempty"`
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
	ListCardTransactions(ctx context.Context, userID string, f CardTransactionFilter, p ListParams) ([]CardTransaction, ListTotals, error)
	InsertCardTransaction(ctx context.Context, userID string, t CardTransaction) error
	UpdateCardTransaction(ctx context.Context, userID string, t CardTransaction) error

	// CardSpending sums the card rows that count as spending (§1.6) dated in
	// [from, to]: fees, interest and installment interest, and refunds.
	CardSpending(ctx context.Context, userID string, from, to Date) (CardSpending, error)
}

// CardSpending is what card rows add to (fees, interest and installment
// interest) and take from (refunds) spending over a range (domain.md §1.6).
type CardSpending struct {
	FeesInterest Money
	Refunds      Money
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

// Card defaults of domain.md §2.6.
const (
	DefaultMinimumDuePercent Rate  = 3 * RateScale
	DefaultMinimumDueFloor   Money = 500_00
	// MaxCycleStartYears bounds how far back cycle_start_date may go.
	MaxCycleStartYears = 5
	MaxBank            = 100
)

// ParseCardFilter validates the filters of GET /credit-cards.
func ParseCardFilter(status, search string) (CardFilter, error) {
	f := CardFilter{Status: status, Search: search}
	switch status {
	case "":
		f.Status = StatusActive
	case StatusActive, StatusArchived, StatusAll:
	default:
		return f, Invalid("status", "must be active, archived or all")
	}
	return f, nil
}

// CardRequest is the body of POST /credit-cards and PUT /credit-cards/{id}.
// On PUT only the fields present change: null clears bank, last_four and
// notes, and resets cycle_start_date, minimum_due_percent and
// minimum_due_floor to their defaults and foreign_fee_percent to 0; an
// absent or null currency keeps the card's (the reporting currency on POST).
type CardRequest struct {
	Name              Field[string]     `json:"name"`
	Bank              Field[string]     `json:"bank"`
	LastFour          Field[string]     `json:"last_four"`
	CreditLimit       Field[Money]      `json:"credit_limit"`
	StatementDay      Field[int]        `json:"statement_day"`
	DueDay            Field[int]        `json:"due_day"`
	CycleStartDate    Field[Date]       `json:"cycle_start_date"`
	MinimumDuePercent Field[Rate]       `json:"minimum_due_percent"`
	MinimumDueFloor   Field[Money]      `json:"minimum_due_floor"`
	Currency          Field[string]     `json:"currency"`
	ForeignFeePercent Field[FeePercent] `json:"foreign_fee_percent"`
	Notes             Field[string]     `json:"notes"`
}

// apply validates the present fields of r (every required one on create)
// into c, as of today.
func (r CardRequest) apply(v *Validator, c *CreditCard, create bool, today Date) {
	if create || r.Name.Set {
		c.Name = v.RequiredText("name", r.Name, MaxName)
	}
	if r.Bank.Set {
		c.Bank = v.OptionalText("bank", r.Bank, MaxBank)
	}
	if r.LastFour.Set {
		c.LastFour = v.OptionalText("last_four", r.LastFour, 4)
		if c.LastFour != nil && !last4RE.MatchString(*c.LastFour) {
			v.Add("last_four", "must be exactly 4 digits")
		}
	}
	if create || r.CreditLimit.Set {
		c.CreditLimit = v.RequiredMoney("credit_limit", r.CreditLimit)
	}
	if create || r.StatementDay.Set {
		c.StatementDay = dayOfMonth(v, "statement_day", r.StatementDay)
	}
	if create || r.DueDay.Set {
		c.DueDay = dayOfMonth(v, "due_day", r.DueDay)
	}
	switch {
	case Readable(v, "cycle_start_date", r.CycleStartDate):
		d := r.CycleStartDate.Value
		if create || d != c.CycleStartDate { // an unchanged date may have aged past the window
			earliest := MonthAdd(today, -12*MaxCycleStartYears, today.Day())
			if d.After(today) || d.Before(earliest) {
				v.Add("cycle_start_date", fmt.Sprintf("must be from %s to %s (today, at most %d years back)", earliest, today, MaxCycleStartYears))
			}
		}
		c.CycleStartDate = d
	case create || r.CycleStartDate.Null:
		if !v.Has("cycle_start_date") {
			c.CycleStartDate = today
		}
	}
	switch {
	case Readable(v, "minimum_due_percent", r.MinimumDuePercent):
		c.MinimumDuePercent = r.MinimumDuePercent.Value
	case create || r.MinimumDuePercent.Null:
		c.MinimumDuePercent = DefaultMinimumDuePercent
	}
	switch {
	case Readable(v, "minimum_due_floor", r.MinimumDueFloor):
		c.MinimumDueFloor = r.MinimumDueFloor.Value
		if c.MinimumDueFloor < 0 {
			v.Add("minimum_due_floor", "must be 0 or greater")
		}
	case create || r.MinimumDueFloor.Null:
		c.MinimumDueFloor = DefaultMinimumDueFloor
	}
	cur := recordCurrency(v, "currency", r.Currency, currencyOf(c.Currency))
	c.Currency = cur.Code
	if create || r.CreditLimit.Set || r.Currency.Set {
		checkDecimals(v, "credit_limit", c.CreditLimit, cur)
	}
	if create || r.MinimumDueFloor.Set || r.Currency.Set {
		// The default floor, ₱500.00, is whole in every currency records take.
		checkDecimals(v, "minimum_due_floor", c.MinimumDueFloor, cur)
	}
	switch {
	case Readable(v, "foreign_fee_percent", r.ForeignFeePercent):
		c.ForeignFeePercent = r.ForeignFeePercent.Value
	case r.ForeignFeePercent.Null:
		c.ForeignFeePercent = 0
	}
	if r.Notes.Set {
		c.Notes = v.OptionalText("notes", r.Notes, MaxNotes)
	}
}

// dayOfMonth reads a required day of the month, 1 to 31.
func dayOfMonth(v *Validator, name string, f Field[int]) int {
	if !Readable(v, name, f) {
		if !v.Has(name) {
			v.Add(name, "is required")
		}
		return 0
	}
	if f.Value < 1 || f.Value > 31 {
		v.Add(name, "must be an integer from 1 to 31")
	}
	return f.Value
}

// uniqueCardName enforces one active card per name, case-insensitively.
func uniqueCardName(ctx context.Context, tx Repo, userID string, c CreditCard) error {
	other, err := tx.ActiveCreditCardByName(ctx, userID, c.Name)
	switch {
	case err == nil && other.ID != c.ID:
		return Invalid("name", "is already used by another active credit card")
	case err != nil && !errors.Is(err, ErrNotFound):
		return err
	}
	return nil
}

// ListCreditCards returns a page of the user's cards with their figures.
func (s *Service) ListCreditCards(ctx context.Context, userID string, f CardFilter, p ListParams) (Page[CreditCard], error) {
	items, total, err := s.store.Read().ListCreditCards(ctx, userID, f, p, s.today(ctx, userID))
	return pageOf(items, total, err, p)
}

// GetCreditCard returns one card (archived ones included) with its figures.
func (s *Service) GetCreditCard(ctx context.Context, userID, id string) (CreditCard, error) {
	return s.store.Read().CreditCard(ctx, userID, id, s.today(ctx, userID))
}

// CreateCreditCard adds an active card.
func (s *Service) CreateCreditCard(ctx context.Context, userID string, r CardRequest) (CreditCard, error) {
	today := s.today(ctx, userID)
	var v Validator
	c := CreditCard{ID: NewID(), Status: StatusActive, Currency: s.currency(ctx, userID)}
	r.apply(&v, &c, true, today)
	if err := v.Err(); err != nil {
		return CreditCard{}, err
	}
	c.CreatedAt, c.UpdatedAt = s.stamp(), s.stamp()
	err := s.store.Write(ctx, func(tx Repo) error {
		if err := uniqueCardName(ctx, tx, userID, c); err != nil {
			return err
		}
		if err := tx.InsertCreditCard(ctx, userID, c); err != nil {
			return err
		}
		return s.logCard(ctx, tx, userID, c, LogCreated, fmt.Sprintf("Credit card %s added: limit %s, statement day %d, due day %d",
			c.Name, c.CreditLimit, c.StatementDay, c.DueDay), &c.CreditLimit)
	})
	if err != nil {
		return CreditCard{}, err
	}
	c.CardFigures = c.Figures(CardTotals{}, today) // a new card has no rows
	return c, nil
}

// UpdateCreditCard changes the fields present in r. An archived card cannot
// change. New statement days apply to statements generated afterwards.
func (s *Service) UpdateCreditCard(ctx context.Context, userID, id string, r CardRequest) (CreditCard, error) {
	today := s.today(ctx, userID)
	var out CreditCard
	err := s.store.Write(ctx, func(tx Repo) error {
		c, err := tx.CreditCard(ctx, userID, id, today)
		if err != nil {
			return err
		}
		before := c
		var v Validator
		r.apply(&v, &c, false, today)
		if err := v.Err(); err != nil {
			return err
		}
		if c.Status != StatusActive {
			return InvalidStatus("credit card is archived; unarchive it before changing it")
		}
		if err := uniqueCardName(ctx, tx, userID, c); err != nil {
			return err
		}
		if err := changeCurrency(ctx, tx, userID, LogCreditCard, c.ID, before.Name, before.Currency, c.Currency); err != nil {
			return err
		}
		c.UpdatedAt = s.stamp()
		if err := tx.UpdateCreditCard(ctx, userID, c); err != nil {
			return err
		}
		if changes := cardChanges(before, c); len(changes) > 0 {
			var limit *Money
			if c.CreditLimit != before.CreditLimit {
				limit = &c.CreditLimit
			}
			if err := s.logCard(ctx, tx, userID, c, LogUpdated,
				fmt.Sprintf("Credit card %s updated: %s", c.Name, changes), limit); err != nil {
				return err
			}
		}
		out, err = tx.CreditCard(ctx, userID, id, today)
		return err
	})
	return out, err
}

// ArchiveCreditCard is DELETE /credit-cards/{id} and PATCH
// /credit-cards/{id}/archive: the card keeps its rows and balance but takes
// no new charges.
func (s *Service) ArchiveCreditCard(ctx context.Context, userID, id string) (CreditCard, error) {
	return s.setCardStatus(ctx, userID, id, StatusArchived)
}

// UnarchiveCreditCard makes an archived card active again. Its name must not
// clash with a card that became active meanwhile.
func (s *Service) UnarchiveCreditCard(ctx context.Context, userID, id string) (CreditCard, error) {
	return s.setCardStatus(ctx, userID, id, StatusActive)
}

func (s *Service) setCardStatus(ctx context.Context, userID, id, status string) (CreditCard, error) {
	today := s.today(ctx, userID)
	var out CreditCard
	err := s.store.Write(ctx, func(tx Repo) error {
		c, err := tx.CreditCard(ctx, userID, id, today)
		if err != nil {
			return err
		}
		if c.Status == status {
			if status == StatusArchived {
				return InvalidStatus("credit card is already archived")
			}
			return InvalidStatus("credit card is not archived")
		}
		now := s.stamp()
		c.Status, c.UpdatedAt = status, now
		if status == StatusArchived {
			c.ArchivedAt = &now
		} else {
			c.ArchivedAt = nil
			if err := uniqueCardName(ctx, tx, userID, c); err != nil {
				var ve *ValidationError
				if errors.As(err, &ve) {
					return &ValidationError{
						Message: "Another active credit card has this name; rename one of them first",
						Fields:  ve.Fields,
					}
				}
				return err
			}
		}
		out = c
		if err := tx.UpdateCreditCard(ctx, userID, c); err != nil {
			return err
		}
		if status == StatusArchived {
			return s.logCard(ctx, tx, userID, c, LogArchived,
				fmt.Sprintf("Credit card %s archived with %s outstanding", c.Name, c.OutstandingBalance), nil)
		}
		return s.logCard(ctx, tx, userID, c, LogUnarchived, fmt.Sprintf("Credit card %s unarchived", c.Name), nil)
	})
	return out, err
}

// logCard appends an entry about the card c itself.
func (s *Service) logCard(ctx context.Context, tx Repo, userID string, c CreditCard, action, message string, amount *Money) error {
	return s.log(ctx, tx, userID, CardLog{CreditCardID: &c.ID, EntityType: LogCreditCard, EntityID: c.ID,
		Action: action, Message: message, Amount: amount})
}

// cardChanges lists what an update changed on a card, for its log entry.
func cardChanges(before, after CreditCard) changeList {
	var c changeList
	c.add("name", fmt.Sprintf("%q", before.Name), fmt.Sprintf("%q", after.Name))
	c.add("bank", optionalText(before.Bank), optionalText(after.Bank))
	c.add("last four", optionalText(before.LastFour), optionalText(after.LastFour))
	c.add("credit limit", before.CreditLimit.String(), after.CreditLimit.String())
	c.add("statement day", fmt.Sprint(before.StatementDay), fmt.Sprint(after.StatementDay))
	c.add("due day", fmt.Sprint(before.DueDay), fmt.Sprint(after.DueDay))
	c.add("cycle start date", before.CycleStartDate.String(), after.CycleStartDate.String())
	c.add("minimum due percent", before.MinimumDuePercent.String()+"%", after.MinimumDuePercent.String()+"%")
	c.add("minimum due floor", before.MinimumDueFloor.String(), after.MinimumDueFloor.String())
	c.add("currency", quoted(before.Currency), quoted(after.Currency))
	c.add("foreign fee percent", before.ForeignFeePercent.String()+"%", after.ForeignFeePercent.String()+"%")
	c.addField("notes", optionalText(before.Notes) != optionalText(after.Notes))
	return c
}

// CardOption is a card as write forms offer it.
type CardOption struct {
	ID              string  `json:"id"`
	Name            string  `json:"name"`
	LastFour        *string `json:"last_four"`
	Currency        string  `json:"currency"` // available_credit is in it
	AvailableCredit Money   `json:"available_credit"`
}

// CardOptions lists the user's active cards by name, for form-options routes.
func (s *Service) CardOptions(ctx context.Context, userID string) ([]CardOption, error) {
	items, _, err := s.store.Read().ListCreditCards(ctx, userID, CardFilter{Status: StatusActive},
		ListParams{Page: 1, Limit: allRows, SortBy: CardList.Sorts[0]}, s.today(ctx, userID))
	if err != nil {
		return nil, err
	}
	out := make([]CardOption, len(items))
	for i, c := range items {
		out[i] = CardOption{ID: c.ID, Name: c.Name, LastFour: c.LastFour, Currency: c.Currency, AvailableCredit: c.AvailableCredit}
	}
	return out, nil
}

// CardFormOptions is GET /credit-cards/form-options (domain.md §2.6).
type CardFormOptions struct {
	CreditCards      []CardOption     `json:"credit_cards"`
	Categories       []CategoryOption `json:"categories"`
	Accounts         []AccountOption  `json:"accounts"`
	TransactionTypes []string         `json:"transaction_types"`
	InterestTypes    []string         `json:"interest_types"`
}

// CardFormOptions returns the active cards, expense categories and accounts a card form offers.
func (s *Service) CardFormOptions(ctx context.Context, userID string) (CardFormOptions, error) {
	cards, err := s.CardOptions(ctx, userID)
	if err != nil {
		return CardFormOptions{}, err
	}
	cats, err := s.CategoryOptions(ctx, userID, KindExpense)
	if err != nil {
		return CardFormOptions{}, err
	}
	accounts, err := s.AccountOptions(ctx, userID)
	if err != nil {
		return CardFormOptions{}, err
	}
	return CardFormOptions{CreditCards: cards, Categories: cats, Accounts: accounts,
		TransactionTypes: CardTransactionTypes, InterestTypes: InterestTypes}, nil
}
