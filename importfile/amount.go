package importfile

import (
	"errors"
	"strings"
	"unicode"

	"github.com/finance-app/finance/finance"
)

// Problems of an amount's text; they read after the quoted text:
// `amount "12,3.4" is not a number`.
var (
	errNotNumber    = errors.New("is not a number")
	errTooPrecise   = errors.New("has more than 2 decimal places")
	errTooLarge     = errors.New("is larger than 999,999,999.99")
	errZeroAmount   = errors.New("is zero")
	errNoAmountText = errors.New("is empty")
)

// rowAmount reads a row's amount, which must not be zero: such a row
// moves no money, and a zero where an amount belongs is more often a
// column mapped wrong than a transaction.
func rowAmount(text string, dec byte) (finance.Money, bool, error) {
	m, neg, err := parseAmount(text, dec)
	if err == nil && m == 0 {
		err = errZeroAmount
	}
	return m, neg, err
}

// parseAmount reads an amount as banks write it: "1.234,56", "1,234.56",
// "(1,234.56)", "-5", "+5", "12.34-", "₱1,234.50", "PHP 1,234.50",
// "1.234,50 EUR", "12.34 DR". dec is the decimal separator, '.' or ',', or
// 0 to decide from this text alone. It returns the magnitude and whether
// the text marks money out (a minus, parentheses or DR). Digits are
// copied, never converted through float64; the text finance.ParseMoney
// reads is built from them.
func parseAmount(text string, dec byte) (finance.Money, bool, error) {
	s := strings.TrimSpace(text)
	if s == "" {
		return 0, false, errNoAmountText
	}
	neg, signed := false, false
	// Marks may wrap one another ("PHP (1,234.50)", "-$5.00", "$-5.00",
	// "PHP -1,234.50 DR"), so peel them until only the number is left.
	// Every mark of money out says the same, so two of them do not cancel;
	// but a second sign is no amount a bank writes ("--5").
	for range 6 {
		s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Sc, r) })
		if len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' {
			neg, s = true, s[1:len(s)-1]
			continue
		}
		if n := len(s); n > 2 && !isLetter(s[n-3]) && (strings.EqualFold(s[n-2:], "DR") || strings.EqualFold(s[n-2:], "CR")) {
			neg = neg || strings.EqualFold(s[n-2:], "DR")
			s = s[:n-2]
			continue
		}
		if t := strings.TrimFunc(s, isCurrencyLetter); t != s {
			s = t
			continue
		}
		if r, rest, ok := cutSign(s); ok {
			if signed {
				return 0, false, errNotNumber
			}
			neg, signed, s = neg || r == '-', true, rest
			continue
		}
		break
	}
	s = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\u00a0', '\u202f', '\'': // grouping by blanks or apostrophes (Swiss "1'234.50")
			return -1
		}
		return r
	}, s)
	if dec == 0 {
		dec = guessDecimal(s)
	}
	group := byte(',')
	if dec == ',' {
		group = '.'
	}
	whole, frac, hasFrac := strings.Cut(s, string(dec))
	if !validGrouping(whole, group) || (hasFrac && (frac == "" || !allDigits(frac))) || (whole == "" && !hasFrac) {
		return 0, false, errNotNumber
	}
	whole = strings.ReplaceAll(whole, string(group), "")
	if whole == "" {
		whole = "0"
	}
	if len(frac) > 2 {
		if strings.Trim(frac[2:], "0") != "" {
			return 0, false, errTooPrecise
		}
		frac = frac[:2]
	}
	num := whole
	if frac != "" {
		num += "." + frac
	}
	m, err := finance.ParseMoney(num)
	if err != nil {
		if len(strings.TrimLeft(whole, "0")) > 9 {
			return 0, false, errTooLarge
		}
		return 0, false, errNotNumber
	}
	return m, neg, nil
}

func isLetter(c byte) bool { return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// isCurrencyLetter is a letter of a currency code written around an amount
// ("PHP", "EUR", "Php").
func isCurrencyLetter(r rune) bool { return unicode.IsLetter(r) }

// cutSign takes a leading or trailing sign off s: "-", "+" or the Unicode
// minus some exports write.
func cutSign(s string) (rune, string, bool) {
	for _, p := range []struct {
		text string
		sign rune
	}{{"-", '-'}, {"+", '+'}, {"\u2212", '-'}} {
		if rest, ok := strings.CutPrefix(s, p.text); ok {
			return p.sign, rest, true
		}
		if rest, ok := strings.CutSuffix(s, p.text); ok {
			return p.sign, rest, true
		}
	}
	return 0, s, false
}

// guessDecimal decides the decimal separator of one amount's text: the last
// of "." and "," when both appear; a lone separator is decimal unless
// exactly three digits follow it or it repeats, and then it groups
// thousands. "1,234" alone reads as 1234.
func guessDecimal(s string) byte {
	dot, comma := strings.LastIndexByte(s, '.'), strings.LastIndexByte(s, ',')
	switch {
	case dot >= 0 && comma >= 0:
		if comma > dot {
			return ','
		}
		return '.'
	case comma >= 0:
		if strings.Count(s, ",") == 1 && len(s)-comma-1 != 3 {
			return ','
		}
		return '.'
	}
	return '.'
}

// validGrouping reports whether whole is digits, grouped by sep in threes
// if at all: "1,234,567" yes, "12,3" no.
func validGrouping(whole string, sep byte) bool {
	if !strings.ContainsRune(whole, rune(sep)) {
		return allDigits(whole)
	}
	parts := strings.Split(whole, string(sep))
	if len(parts[0]) == 0 || len(parts[0]) > 3 || !allDigits(parts[0]) {
		return false
	}
	for _, p := range parts[1:] {
		if len(p) != 3 || !allDigits(p) {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// detectDecimal decides one file's decimal separator from the amounts of
// a column: each amount that shows its separator unambiguously votes, and
// the majority wins; with no vote, ".".
func detectDecimal(values []string) byte {
	dots, commas := 0, 0
	for _, v := range values {
		dot, comma := strings.LastIndexByte(v, '.'), strings.LastIndexByte(v, ',')
		switch {
		case dot >= 0 && comma >= 0:
			if comma > dot {
				commas++
			} else {
				dots++
			}
		case comma >= 0 && strings.Count(v, ",") > 1:
			dots++ // "1,234,567": commas group, so "." is the decimal
		case comma >= 0 && digitsAfter(v, comma) != 3:
			commas++
		case dot >= 0 && strings.Count(v, ".") > 1:
			commas++ // "1.234.567"
		case dot >= 0 && digitsAfter(v, dot) != 3:
			dots++
		}
		// A lone separator before three digits ("1,234") could be either: no vote.
	}
	if commas > dots {
		return ','
	}
	return '.'
}

func digitsAfter(s string, i int) int {
	n := 0
	for j := i + 1; j < len(s) && s[j] >= '0' && s[j] <= '9'; j++ {
		n++
	}
	return n
}

// amountProblem words a parseAmount failure for a row error.
func amountProblem(what, text string, err error) string {
	return what + " " + quote(text) + " " + err.Error()
}

// quote writes a file's text in a message, cut short when long.
func quote(s string) string {
	if r := []rune(s); len(r) > 60 {
		s = string(r[:57]) + "..."
	}
	return `"` + strings.ReplaceAll(s, `"`, `'`) + `"`
}

// signed returns the direction of an amount read as negative or not.
func signed(neg bool) Direction {
	if neg {
		return Debit
	}
	return Credit
}
