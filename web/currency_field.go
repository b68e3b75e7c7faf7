package web

import (
	"context"
	"sync"

	"github.com/finance-app/finance/finance"
)

// currencyField is what the "currency-field" partial shows on the form of
// an account, card, loan or template: a picker while the record's currency
// may change, or the currency as text with why it stays (domain.md "The
// reporting currency and each record's currency").
type currencyField struct {
	ID      string // the form's prefix of element ids
	Value   string // the form's: set by currencyPicker as the partial is shown
	Fixed   string // why the currency stays, "" while it may change
	Problem string
	Choices []choice
}

// currencyPicker is f showing value (the form's, as sent or as stored)
// and its problem, for the "currency-field" partial.
func currencyPicker(f currencyField, value, problem string) currencyField {
	f.Value, f.Problem = value, problem
	return f
}

// recordCurrencies are the currencies a record may be in, "USD · US
// Dollar": every currency of the list but those with 3 decimals, which
// records refuse.
var recordCurrencies = sync.OnceValue(func() []choice {
	var out []choice
	for _, c := range finance.Currencies {
		if c.Minor <= 2 {
			out = append(out, choice{Value: c.Code, Label: c.Code + " · " + c.Name})
		}
	}
	return out
})

// fixedWhy is the line the edit forms show under a fixed currency, by the
// kind of record (finance.CurrencyRepo).
var fixedWhy = map[string]string{
	finance.RecordAccount:        "It has transactions in it; open an account in another currency and transfer to it.",
	finance.LogCreditCard:        "It has transactions in it; a card in another currency is another card.",
	finance.RecordLoan:           "It has payments in it.",
	finance.RecordBillTemplate:   "It has paid bills in it.",
	finance.RecordIncomeTemplate: "It has received income in it.",
}

// newCurrencyField is the picker of a record's form; id prefixes its element ids.
func newCurrencyField(id string) currencyField {
	return currencyField{ID: id, Choices: recordCurrencies()}
}

// editCurrencyField is the currency of the record of kind on its edit
// form (its element ids prefixed by prefix): fixed, as text, once money is
// recorded in it.
func (s *Site) editCurrencyField(ctx context.Context, userID, prefix, kind, id string) (currencyField, error) {
	f := newCurrencyField(prefix)
	fixed, err := s.ledger.CurrencyFixed(ctx, userID, kind, id)
	if fixed {
		f.Fixed = fixedWhy[kind]
	}
	return f, err
}
