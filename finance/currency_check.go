package finance

import "fmt"

// checkDecimals adds a problem on field when m has more decimals than cur
// takes. Amounts are kept in hundredths of every currency (domain.md
// "Precision and storage"), so a yen amount is a whole number of hundreds.
func checkDecimals(v *Validator, field string, m Money, cur Currency) {
	if cur.Minor >= 2 {
		return
	}
	step := Money(1)
	for range 2 - cur.Minor {
		step *= 10
	}
	if m%step != 0 {
		v.Add(field, fmt.Sprintf("must be a number with at most %d decimal places", cur.Minor))
	}
}

// recordCurrency reads the currency a record's money is in, when the request
// names one: an ISO 4217 code in any case, answered in capitals, and one that
// fits in hundredths ("" when absent or refused).
func recordCurrency(v *Validator, field string, f Field[string]) string {
	if !f.Set || f.Null {
		v.readable(field, f)
		return ""
	}
	code := currencyCode(v, field, f)
	if c, ok := LookupCurrency(code); ok && c.Minor > 2 {
		v.Add(field, fmt.Sprintf("%s has %d decimal places; records take currencies with at most 2", code, c.Minor))
		return ""
	}
	return code
}

// currencyOf is the Currency of a code known to be in Currencies.
func currencyOf(code string) Currency {
	c, _ := LookupCurrency(code)
	return c
}
