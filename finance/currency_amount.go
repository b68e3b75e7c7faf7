package finance

import (
	"fmt"
	"math/big"
	"strings"
)

// maxMinorDigits bounds an amount in any currency to 15 digits of minor
// units (999,999,999,999.99 in a 2-decimal currency, a trillion yen less
// one), so every amount fits an int64 and its product with a rate stays
// far from any rounding doubt.
const maxMinorDigits = 15

// ParseMinorUnits reads a decimal amount ("12", "-3.5", "1234.567") in
// minor units of cur: "19.99" USD is 1999, "12345" JPY is 12345, "1.234"
// KWD is 1234. Digits past the currency's decimals may only be zeros, as
// for every amount of the API (ParseMoney reads "10.500" as 10.50): "100.00"
// JPY is ¥100, the way a spreadsheet or another program writes a whole
// figure, while "100.5" JPY is refused, since nothing is rounded to fit.
// The problem text reads after the field name.
func ParseMinorUnits(s string, cur Currency) (int64, error) {
	problem := errMoney(fmt.Sprintf("must be a number with at most %d decimal places", cur.Minor))
	neg := strings.HasPrefix(s, "-")
	intPart, frac, hasDot := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	if intPart == "" || (hasDot && frac == "") || !allDigits(intPart) || (hasDot && !allDigits(frac)) {
		return 0, problem
	}
	if len(frac) > cur.Minor {
		if strings.TrimRight(frac[cur.Minor:], "0") != "" {
			return 0, problem
		}
		frac = frac[:cur.Minor]
	}
	digits := strings.TrimLeft(intPart+frac+strings.Repeat("0", cur.Minor-len(frac)), "0")
	if len(digits) > maxMinorDigits {
		return 0, errMoney(fmt.Sprintf("must be at most %s in magnitude",
			FormatMinorUnits(maxMinorUnits(), cur)))
	}
	var units int64
	for i := 0; i < len(digits); i++ {
		units = units*10 + int64(digits[i]-'0')
	}
	if neg {
		units = -units
	}
	return units, nil
}

func maxMinorUnits() int64 {
	var m int64
	for range maxMinorDigits {
		m = m*10 + 9
	}
	return m
}

// FormatMinorUnits writes minor units of cur as canonical decimal text with
// exactly the currency's decimals: 1999 USD "19.99", 12345 JPY "12345",
// 1234 KWD "1.234", -5 USD "-0.05".
func FormatMinorUnits(units int64, cur Currency) string {
	sign := ""
	// Written from the absolute value as unsigned so the smallest int64 has one.
	u := uint64(units)
	if units < 0 {
		sign = "-"
		u = -u
	}
	digits := fmt.Sprintf("%0*d", cur.Minor+1, u)
	if cur.Minor == 0 {
		return sign + digits
	}
	cut := len(digits) - cur.Minor
	return sign + digits[:cut] + "." + digits[cut:]
}

// minorUnitsRat is the exact value of units of cur in whole currency: 1999
// USD is 1999/100.
func minorUnitsRat(units int64, cur Currency) *big.Rat {
	return new(big.Rat).SetFrac(big.NewInt(units), pow10(cur.Minor))
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil)
}

// roundHalfEven rounds an exact value to places decimals and returns it in
// units of 10^-places, half to even: a tie goes to the even last digit, so
// many converted amounts do not drift one way (domain.md "Exchange rates").
func roundHalfEven(v *big.Rat, places int) *big.Int {
	scaled := new(big.Rat).Mul(v, new(big.Rat).SetInt(pow10(places)))
	num, den := scaled.Num(), scaled.Denom()
	q, r := new(big.Int).QuoRem(num, den, new(big.Int))
	// Compare twice the remainder's magnitude with the denominator: more is
	// past the half, equal is a tie.
	twice := new(big.Int).Abs(r)
	twice.Lsh(twice, 1)
	switch c := twice.Cmp(den); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}
