package finance

import (
	"context"
	"fmt"
)

// The checks of a record's currency and of its amounts against it
// (domain.md, "Money in more than one currency": "The reporting currency and
// each record's currency" and "Precision and storage"). Accounts, cards,
// loans, templates, expenses, income and transfers all read them here, so
// every record refuses the same codes and the same amounts in the same words.

// problemCurrencyCode is the problem of a code that is not ISO 4217, for
// the user's currency setting and each record's alike.
const problemCurrencyCode = "must be an ISO 4217 currency code, like PHP, USD or EUR"

// storedMinor is how many decimals a record amount is stored with: every
// Money is whole hundredths of its currency, so a currency with more
// decimals than this cannot be kept without rounding.
const storedMinor = 2

// recordCurrency reads the currency named for a record: a code of
// Currencies in any case, returned in capitals, with at most storedMinor
// decimals. An absent or null field returns fallback (the reporting
// currency on a create, the record's own on an update); a problem is
// recorded under name and returns fallback too, so later checks still run.
func recordCurrency(v *Validator, name string, f Field[string], fallback Currency) Currency {
	if !Readable(v, name, f) {
		return fallback
	}
	c, ok := LookupCurrency(f.Value)
	switch {
	case !ok:
		v.Add(name, problemCurrencyCode)
		return fallback
	case c.Minor > storedMinor:
		v.Add(name, fmt.Sprintf("%s has %d decimal places; records take currencies with at most %d", c.Code, c.Minor, storedMinor))
		return fallback
	}
	return c
}

// checkDecimals records a problem under field when m has more decimals
// than cur allows: 1500.50 on a yen account is refused ("must be a number
// with at most 0 decimal places"), 1500.00 is ¥1,500. Nothing is rounded to
// make an amount fit.
func checkDecimals(v *Validator, field string, m Money, cur Currency) {
	if m%cur.storedUnit() != 0 {
		v.Add(field, fmt.Sprintf("must be a number with at most %d decimal places", cur.Minor))
	}
}

// storedUnit is how many stored hundredths one minor unit of c is: 100 for
// the yen (¥1 is stored as 100), 1 for a currency with 2 decimals.
func (c Currency) storedUnit() Money {
	unit := Money(1)
	for range storedMinor - c.Minor {
		unit *= 10
	}
	return unit
}

// currencyOf is the Currency of a stored code. A code saved before codes
// were checked is not in the list; it is read as a 2-decimal currency, as
// every amount was before currencies, so nothing stored becomes invalid.
func currencyOf(code string) Currency {
	c, ok := LookupCurrency(code)
	if !ok {
		c.Minor = storedMinor
	}
	return c
}

// CurrencyRepo tells whether money is recorded in a record's currency.
type CurrencyRepo interface {
	// MoneyRecorded reports whether the record of kind (RecordAccount,
	// LogCreditCard, RecordLoan, RecordBillTemplate, RecordIncomeTemplate)
	// has rows holding money in its currency: an account's lines, a card's
	// transactions or statement payments, a loan's payments, a template's
	// paid bills or received income. Voided rows count: they still show
	// their amounts in it.
	MoneyRecorded(ctx context.Context, userID, kind, id string) (bool, error)
}

// currencyWords say, per kind of record, what holds money in its currency
// and what to do instead of changing it; %s is the currency asked for.
var currencyWords = map[string]struct{ record, held, instead string }{
	RecordAccount:        {"account", "transactions", "open an account in %s and transfer to it"},
	LogCreditCard:        {"credit card", "transactions", "add a card billed in %s for it"},
	RecordLoan:           {"loan", "payments", "add a loan in %s for money borrowed in it"},
	RecordBillTemplate:   {"bill template", "paid bills", "add a bill template in %s for bills due in it"},
	RecordIncomeTemplate: {"income template", "received income", "add an income template in %s for income in it"},
}

// changeCurrency lets the record of kind named name move from cur to next:
// the same currency always, another only while no money is recorded in cur
// (domain.md "The reporting currency and each record's currency"); else it
// is ErrCurrencyFixed naming the record, its money and its currency.
func changeCurrency(ctx context.Context, tx Repo, userID, kind, id, name, cur, next string) error {
	if next == cur {
		return nil
	}
	found, err := tx.MoneyRecorded(ctx, userID, kind, id)
	if err != nil || !found {
		return err
	}
	w := currencyWords[kind]
	record := fmt.Sprintf("the %s %s", w.record, quoted(name))
	return &kindError{kind: ErrCurrencyFixed,
		msg:    fmt.Sprintf("%s has %s in %s; %s", record, w.held, cur, fmt.Sprintf(w.instead, next)),
		fields: map[string]string{"currency": fmt.Sprintf("cannot change: %s has %s in %s", record, w.held, cur)}}
}

// CurrencyFixed reports whether the record of kind (see CurrencyRepo) can
// no longer change its currency, for the forms that offer the change.
func (s *Service) CurrencyFixed(ctx context.Context, userID, kind, id string) (bool, error) {
	return s.store.Read().MoneyRecorded(ctx, userID, kind, id)
}

// paidIn checks that a payment's account or card (field, of kind
// "account" or "card") is in the currency of what it pays: a bill or loan
// installment is paid in its own currency, so what was paid is what is
// owed (docs/domain.md "What each amount is in"). Paying across currencies
// is a transfer to an account in that currency first.
func paidIn(v *Validator, field, kind, payerCurrency, owedCurrency string) {
	if payerCurrency != owedCurrency {
		v.Add(field, "must be "+article(kind)+" "+kind+" in "+owedCurrency+", the currency of what it pays; this one is in "+payerCurrency)
	}
}

func article(kind string) string {
	if kind == "account" {
		return "an"
	}
	return "a"
}

// paidInBillCurrency checks a bill payment's account or card with paidIn.
func paidInBillCurrency(ctx context.Context, tx Repo, v *Validator, userID string, today Date, b Bill, in billPaymentShape) error {
	switch {
	case in.accountID != nil && !v.Has("account_id"):
		a, err := tx.Account(ctx, userID, *in.accountID)
		if err != nil {
			return err
		}
		paidIn(v, "account_id", "account", a.Currency, b.Currency)
	case in.cardID != nil && !v.Has("credit_card_id"):
		c, err := tx.CreditCard(ctx, userID, *in.cardID, today)
		if err != nil {
			return err
		}
		paidIn(v, "credit_card_id", "card", c.Currency, b.Currency)
	}
	return nil
}
