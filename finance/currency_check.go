package finance

import "fmt"

// The checks of a record's currency and of its amounts against it
// (domain.md, "Money in more than one currency": "The reporting currency and
// each record's currency" and "Precision and storage"). Accounts, cards,
// loans, templates, expenses, income and transfers all read them here, so
// every record refuses the same codes and the same amounts in the same words.

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
		v.Add(name, "must be an ISO 4217 currency code, like PHP, USD or EUR")
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
	if cur.Minor >= storedMinor {
		return
	}
	unit := Money(1)
	for range storedMinor - cur.Minor {
		unit *= 10
	}
	if m%unit != 0 {
		v.Add(field, fmt.Sprintf("must be a number with at most %d decimal places", cur.Minor))
	}
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
