package finance

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Money is an exact amount in centavos (minor units). It never passes through
// float64: it is parsed from the decimal text of a JSON number or string and
// printed back with exactly two decimals.
type Money int64

// MaxMoney is the largest magnitude accepted on input: 999,999,999.99.
const MaxMoney Money = 99_999_999_999

// Problems reported for money input; they read after the field name
// ("amount must be greater than 0").
const (
	problemMoneyFormat   = "must be a number with at most 2 decimal places"
	problemMoneyTooLarge = "must be at most 999999999.99 in magnitude"
)

// errMoney carries the field problem of a malformed amount.
type errMoney string

func (e errMoney) Error() string { return string(e) }

// ParseMoney parses a decimal amount such as "12", "10.5", "-3.25" or "10.500".
// It accepts only `-?\d+(\.\d+)?` and only whole centavos: digits after the
// second decimal must be zeros. Exponents, "+", blanks and anything else fail.
func ParseMoney(s string) (Money, error) {
	neg := false
	i := 0
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	intStart := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[intStart:i]
	if intPart == "" {
		return 0, errMoney(problemMoneyFormat)
	}
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		fracStart := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		frac = s[fracStart:i]
		if frac == "" {
			return 0, errMoney(problemMoneyFormat)
		}
	}
	if i != len(s) {
		return 0, errMoney(problemMoneyFormat)
	}
	for j := 2; j < len(frac); j++ {
		if frac[j] != '0' {
			return 0, errMoney(problemMoneyFormat)
		}
	}
	// Leading zeros are harmless; strip them so the length check below is about magnitude.
	for len(intPart) > 1 && intPart[0] == '0' {
		intPart = intPart[1:]
	}
	if len(intPart) > 9 {
		return 0, errMoney(problemMoneyTooLarge)
	}
	units, _ := strconv.ParseInt(intPart, 10, 64) // at most 9 digits: cannot fail
	var cents int64
	switch {
	case len(frac) >= 2:
		cents = int64(frac[0]-'0')*10 + int64(frac[1]-'0')
	case len(frac) == 1:
		cents = int64(frac[0]-'0') * 10
	}
	m := Money(units*100 + cents)
	if neg {
		m = -m
	}
	return m, nil
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// String formats the amount with two decimals: "1234.50", "-0.05".
func (m Money) String() string {
	v := int64(m)
	sign := ""
	if v < 0 {
		sign = "-"
		v = -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}

// MarshalJSON writes the amount as a JSON number with two decimals.
func (m Money) MarshalJSON() ([]byte, error) {
	return []byte(m.String()), nil
}

// UnmarshalJSON accepts a JSON number or a numeric string (see ParseMoney).
// Its errors carry the field problem text; request decoding reports them on the field.
func (m *Money) UnmarshalJSON(b []byte) error { return decodeNumber(b, ParseMoney, m) }

// decodeNumber parses a JSON number, or a string holding one, with parse
// into dst: the exact decimal types read their text this one way.
func decodeNumber[T any](b []byte, parse func(string) (T, error), dst *T) error {
	s := string(b)
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		s = s[1 : len(s)-1]
	}
	v, err := parse(s)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// Value stores money as INTEGER centavos.
func (m Money) Value() (driver.Value, error) { return int64(m), nil }

// Scan reads INTEGER centavos.
func (m *Money) Scan(src any) error {
	switch v := src.(type) {
	case int64:
		*m = Money(v)
		return nil
	case nil:
		*m = 0
		return nil
	case []byte:
		return m.Scan(string(v))
	case string:
		// A sum, on databases whose sum of integers is a decimal (Postgres
		// sums bigint to numeric): whole minor units, or refused.
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("finance.Money: cannot scan %q: %w", v, err)
		}
		*m = Money(n)
		return nil
	}
	return fmt.Errorf("finance.Money: cannot scan %T", src)
}

// Abs returns the magnitude of m.
func (m Money) Abs() Money {
	if m < 0 {
		return -m
	}
	return m
}

// MoneyProblem returns the field problem text of a money parse error, or ""
// when err is not one.
func MoneyProblem(err error) string {
	var e errMoney
	if errors.As(err, &e) {
		return string(e)
	}
	return ""
}

// ReadAmount reads an amount as a person types it on a page: with grouping
// ("50,000", "50 000", "1.234.567") and either decimal mark ("1,234.56",
// "1.234,56", "12,5"). A lone mark followed by exactly three digits ("1,234",
// "1.234") could be either; it is read as the decimal mark when it is the
// one decimalComma names for the person's currency, else as grouping, so
// "1,234" is 1234.00 in pesos and 1.234 (refused: too many decimals) in
// euros. The result obeys ParseMoney's rules (at most 2 decimal places, the
// same magnitude); the REST API keeps ParseMoney's exact form.
func ReadAmount(text string, decimalComma bool) (Money, error) {
	s := strings.TrimSpace(text)
	sign := ""
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		sign, s = "-", strings.TrimSpace(rest)
	}
	commas, points := strings.Count(s, ","), strings.Count(s, ".")
	spaced := strings.ContainsAny(s, groupingSpaces)
	decimal := "" // the decimal mark, if any
	switch {
	case commas > 0 && points > 0: // the last one is the decimal mark, and it comes once
		decimal = "."
		if strings.LastIndex(s, ",") > strings.LastIndex(s, ".") {
			decimal = ","
		}
	case commas+points == 1:
		mark := ","
		if points == 1 {
			mark = "."
		}
		before, after, _ := strings.Cut(s, mark)
		// Grouping puts one to three digits, not starting with 0, before the mark.
		if spaced || len(after) != 3 || strings.HasPrefix(before, "0") || (mark == ",") == decimalComma {
			decimal = mark
		}
	}
	whole, frac, hasFrac := s, "", false
	if decimal != "" {
		i := strings.LastIndex(s, decimal)
		whole, frac, hasFrac = s[:i], s[i+1:], true
		if strings.Count(s, decimal) > 1 || frac == "" || !allDigits(frac) {
			return 0, errMoney(problemMoneyFormat)
		}
	}
	digits, ok := ungroup(whole)
	if !ok {
		return 0, errMoney(problemMoneyFormat)
	}
	canonical := sign + digits
	if hasFrac {
		canonical += "." + frac
	}
	return ParseMoney(canonical)
}

// groupingSpaces are the spaces people and spreadsheets put between groups
// of thousands: a space, a no-break space, a narrow no-break space.
const groupingSpaces = " \u00a0\u202f"

// ungroup takes the grouping out of the whole part of an amount: one kind
// of separator (a comma, a point, an apostrophe or a space), with groups of
// three digits after the first group of one to three. Without a separator
// any digits do.
func ungroup(whole string) (string, bool) {
	sep := strings.IndexFunc(whole, func(r rune) bool { return r < '0' || r > '9' })
	if sep < 0 {
		return whole, whole != ""
	}
	groups := strings.FieldsFunc(whole, func(r rune) bool { return strings.ContainsRune(",.'’"+groupingSpaces, r) })
	// One kind of separator, once between each pair of groups.
	first, _ := utf8.DecodeRuneInString(whole[sep:])
	if strings.Count(whole, string(first)) != len(groups)-1 || len(groups) < 2 {
		return "", false
	}
	for i, g := range groups {
		if !allDigits(g) || (i == 0 && len(g) > 3) || (i > 0 && len(g) != 3) {
			return "", false
		}
	}
	return strings.Join(groups, ""), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
