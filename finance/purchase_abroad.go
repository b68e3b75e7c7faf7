package finance

import (
	"context"
	"fmt"
)

// abroad is what a request says of a purchase abroad (domain.md "A purchase
// abroad on a card"): the amount paid and its currency, both or neither.
type abroad struct {
	named    bool // the request names original_amount or original_currency (null clears both)
	amount   *Money
	currency *string
}

// readAbroad reads original_amount and original_currency of a request.
func readAbroad(v *Validator, amount Field[Money], currency Field[string]) abroad {
	a := abroad{named: amount.Set || currency.Set}
	hasAmount, hasCurrency := amount.Set && !amount.Null, currency.Set && !currency.Null
	switch {
	case hasAmount && !hasCurrency:
		v.Add("original_currency", "is required with original_amount")
	case hasCurrency && !hasAmount:
		v.Add("original_amount", "is required with original_currency")
	}
	if hasAmount {
		m := v.RequiredMoney("original_amount", amount)
		a.amount = &m
	}
	if hasCurrency {
		if c := recordCurrency(v, "original_currency", currency, Currency{}).Code; c != "" {
			a.currency = &c
		}
	}
	if a.amount == nil || a.currency == nil {
		a.amount, a.currency = nil, nil
	}
	return a
}

// given reports whether the request names a purchase abroad (not only clears one).
func (a abroad) given() bool { return a.amount != nil }

// billAbroad checks a purchase abroad (orig in origCur) against the card that
// bills it and, when the request left the billed amount out, sets *amount to
// the original converted at date's rate plus the card's foreign fee. A
// missing rate is a problem on amount: the person enters the billed figure.
func billAbroad(ctx context.Context, tx Repo, userID string, v *Validator, card CreditCard, orig *Money, origCur *string,
	date Date, amount *Money, amountGiven bool,
) error {
	if origCur == nil {
		return nil
	}
	if *origCur == card.Currency {
		v.Add("original_currency", fmt.Sprintf("must differ from %s, the card's currency: a purchase in it has no original amount", card.Currency))
		return nil
	}
	checkDecimals(v, "original_amount", *orig, currencyOf(*origCur))
	if amountGiven || v.Has("original_amount") || v.Has("date") || date.IsZero() {
		return nil
	}
	m, ok, err := convertFor(ctx, tx, userID, v, "amount", "enter the billed amount", *orig, *origCur, card.Currency, date,
		card.ForeignFeePercent)
	if ok {
		*amount = m
	}
	return err
}
