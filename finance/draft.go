package finance

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// ExpenseDraft is an expense that AI parsing proposes (domain.md §2.4): the
// fields of a create body, null where the parser does not know the value.
// Nothing is saved; a client shows the draft, lets the person fix it, and
// sends it to POST /expenses or /expenses/bulk as it is (a create ignores
// guessed, as it ignores every member it does not take).
type ExpenseDraft struct {
	Amount        *Money  `json:"amount"`
	Date          *Date   `json:"date"`
	Description   *string `json:"description"`
	Category      *string `json:"category"`
	PaymentMethod *string `json:"payment_method"`
	AccountID     *string `json:"account_id"`
	CreditCardID  *string `json:"credit_card_id"`
	Notes         *string `json:"notes"`
	// Guessed names the fields that hold a value the text did not state for
	// this expense (GuessableFields, in that order): the parser filled them
	// in from a default, a neighbouring expense, an approximate phrase or the
	// person's only account or card, so a page or an agent asks before
	// saving. Never nil: an empty list means every value was read.
	Guessed []string `json:"guessed"`
}

// GuessableFields are the draft fields a parser may fill in without the
// text stating them, in the order Guessed lists them. Amount, description
// and category are always read from the words of the text (the category
// from a name, a past choice or a keyword in them), or left null.
var GuessableFields = []string{"date", "payment_method", "account_id", "credit_card_id"}

// MaxParseItems bounds the drafts one parse returns: as many as one bulk write takes.
const MaxParseItems = MaxBulkItems

// ExpenseChoice is one of a user's past expenses as parsing learns from it:
// what they wrote and the category they filed it under.
type ExpenseChoice struct {
	Description string
	Category    string
}

// HistoryRepo is what parsing reads of a user's past choices.
type HistoryRepo interface {
	// RecentExpenseChoices returns the descriptions and category names of
	// the user's newest active, unsplit expenses in active categories,
	// newest first, at most limit of them.
	RecentExpenseChoices(ctx context.Context, userID string, limit int) ([]ExpenseChoice, error)
}

// HistoryLimit is how many recent expenses parsing learns from: enough for
// the merchants a person uses month after month, and a bounded read.
const HistoryLimit = 500

// ParseInputs is what expense parsing knows of the user: today in their
// timezone, their settings, the active records a draft may name, and their
// recent choices. It is also the reference every draft is checked against.
type ParseInputs struct {
	Today                Date
	Currency             string
	Timezone             string
	DateFormat           string
	DefaultPaymentMethod string
	Categories           []CategoryOption
	Accounts             []AccountOption
	Cards                []CardOption
	History              []ExpenseChoice
}

// ParseInputs gathers the inputs of expense parsing for the user: a handful
// of reads on the read pool, and no write.
func (s *Service) ParseInputs(ctx context.Context, userID string) (ParseInputs, error) {
	opts, err := s.ExpenseFormOptions(ctx, userID)
	if err != nil {
		return ParseInputs{}, err
	}
	p, err := s.prefs(ctx, userID)
	if err != nil {
		return ParseInputs{}, err
	}
	history, err := s.store.Read().RecentExpenseChoices(ctx, userID, HistoryLimit)
	if err != nil {
		return ParseInputs{}, err
	}
	return ParseInputs{
		Today: Today(s.now(), p.loc), Currency: p.settings.Currency, Timezone: p.settings.Timezone,
		DateFormat: p.settings.DateFormat, DefaultPaymentMethod: opts.DefaultPaymentMethod,
		Categories: opts.Categories, Accounts: opts.Accounts, Cards: opts.CreditCards, History: history,
	}, nil
}

// DraftFromRequest turns a create body that came from an untrusted source
// (a language model's JSON) into a draft. A member that could not be read
// (a number where text belongs) is left null; problems maps its name to why.
func DraftFromRequest(r ExpenseRequest) (d ExpenseDraft, problems map[string]string) {
	var v Validator
	if Readable(&v, "amount", r.Amount) && r.Amount.Has() {
		d.Amount = &r.Amount.Value
	}
	if Readable(&v, "date", r.Date) && r.Date.Has() {
		d.Date = &r.Date.Value
	}
	text := func(name string, f Field[string]) *string {
		if Readable(&v, name, f) && f.Has() {
			s := f.Value
			return &s
		}
		return nil
	}
	d.Description = text("description", r.Description)
	d.Category = text("category", r.Category)
	d.PaymentMethod = text("payment_method", r.PaymentMethod)
	d.AccountID = text("account_id", r.AccountID)
	d.CreditCardID = text("credit_card_id", r.CreditCardID)
	d.Notes = text("notes", r.Notes)
	return d, v.fields
}

// request is the create body that sends d as it is: its null members absent.
func (d ExpenseDraft) request() ExpenseRequest {
	var r ExpenseRequest
	if d.Amount != nil {
		r.Amount = Of(*d.Amount)
	}
	if d.Date != nil {
		r.Date = Of(*d.Date)
	}
	set := func(f *Field[string], p *string) {
		if p != nil {
			*f = Of(*p)
		}
	}
	set(&r.Description, d.Description)
	set(&r.Category, d.Category)
	set(&r.PaymentMethod, d.PaymentMethod)
	set(&r.AccountID, d.AccountID)
	set(&r.CreditCardID, d.CreditCardID)
	set(&r.Notes, d.Notes)
	return r
}

// CheckDraft passes d through the checks of a create (the shape rules of
// POST /expenses, then its references against the user's active records)
// and returns it with every field that fails them set to null, and the
// problems by field name. A field that is merely unknown (null) is not a
// problem: the person fills it in before saving. So whatever a parser or a
// language model proposed, a draft only ever names the caller's own active
// category, account and card, and a value the create would accept.
func (in ParseInputs) CheckDraft(d ExpenseDraft) (ExpenseDraft, map[string]string) {
	problems := map[string]string{}
	drop := func(name, problem string) {
		if _, ok := problems[name]; !ok {
			problems[name] = problem
		}
	}
	// Text is trimmed as a create trims it.
	for _, p := range []**string{&d.Description, &d.Category, &d.PaymentMethod, &d.AccountID, &d.CreditCardID, &d.Notes} {
		if *p != nil {
			s := strings.TrimSpace(**p)
			*p = &s
			if s == "" {
				*p = nil
			}
		}
	}
	if d.PaymentMethod != nil {
		if m, ok := ParsePaymentMethod(*d.PaymentMethod); ok {
			d.PaymentMethod = &m
		}
	}
	_, err := d.request().shape(Expense{}, true)
	if ve, ok := err.(*ValidationError); ok {
		for name, problem := range ve.Fields {
			if draftFieldSet(d, name) {
				drop(name, problem)
			}
		}
	}
	if d.Category != nil {
		if name, ok := in.categoryNamed(*d.Category); ok {
			d.Category = &name
		} else {
			drop("category", "must be the name of an active expense category")
		}
	}
	if d.AccountID != nil && !slices.ContainsFunc(in.Accounts, func(a AccountOption) bool { return a.ID == *d.AccountID }) {
		drop("account_id", "must be the id of one of your active accounts")
	}
	if d.CreditCardID != nil && !slices.ContainsFunc(in.Cards, func(c CardOption) bool { return c.ID == *d.CreditCardID }) {
		drop("credit_card_id", "must be the id of one of your active credit cards")
	}
	for name := range problems {
		clearDraftField(&d, name)
	}
	d.Guessed = guessedOf(d)
	return d, problems
}

// guessedOf is d.Guessed as a checked draft carries it: the guessable
// fields it names that still hold a value, once each, in the order of
// GuessableFields. A field left null is not a guess; it is missing.
func guessedOf(d ExpenseDraft) []string {
	out := []string{}
	for _, name := range GuessableFields {
		if slices.Contains(d.Guessed, name) && draftFieldSet(d, name) {
			out = append(out, name)
		}
	}
	return out
}

// CheckDrafts checks each draft (CheckDraft) and describes every field it
// dropped as a warning: "items[1].category: must be ...; left empty".
func (in ParseInputs) CheckDrafts(drafts []ExpenseDraft) ([]ExpenseDraft, []string) {
	out := make([]ExpenseDraft, len(drafts))
	var warnings []string
	for i, d := range drafts {
		var problems map[string]string
		out[i], problems = in.CheckDraft(d)
		for _, name := range slices.Sorted(maps.Keys(problems)) {
			warnings = append(warnings, fmt.Sprintf("items[%d].%s %s; it was left empty", i, name, problems[name]))
		}
	}
	return out, warnings
}

// categoryNamed returns the spelling of the user's active expense category
// named name, case-insensitively.
func (in ParseInputs) categoryNamed(name string) (string, bool) {
	key := nameKey(name)
	for _, c := range in.Categories {
		if nameKey(c.Name) == key {
			return c.Name, true
		}
	}
	return "", false
}

func draftFieldSet(d ExpenseDraft, name string) bool {
	switch name {
	case "amount":
		return d.Amount != nil
	case "date":
		return d.Date != nil
	case "description":
		return d.Description != nil
	case "category":
		return d.Category != nil
	case "payment_method":
		return d.PaymentMethod != nil
	case "account_id":
		return d.AccountID != nil
	case "credit_card_id":
		return d.CreditCardID != nil
	case "notes":
		return d.Notes != nil
	}
	return false
}

func clearDraftField(d *ExpenseDraft, name string) {
	switch name {
	case "amount":
		d.Amount = nil
	case "date":
		d.Date = nil
	case "description":
		d.Description = nil
	case "category":
		d.Category = nil
	case "payment_method":
		d.PaymentMethod = nil
	case "account_id":
		d.AccountID = nil
	case "credit_card_id":
		d.CreditCardID = nil
	case "notes":
		d.Notes = nil
	}
}

// Missing lists the fields a create still needs before d can be saved
// (amount, date, description, category, payment_method, and the account or
// card its method names), sorted. A checked draft (CheckDraft) has no other
// problem, so an empty list means POST /expenses takes d as it is.
func (d ExpenseDraft) Missing() []string {
	_, err := d.request().shape(Expense{}, true)
	ve, ok := err.(*ValidationError)
	if !ok {
		return nil
	}
	return slices.Sorted(maps.Keys(ve.Fields))
}
