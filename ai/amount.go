package ai

import (
	"strings"

	"github.com/finance-app/finance/finance"
)

// amountRE reads one token as an amount: an optional currency mark before
// it, the number in any of the usual notations, an optional k (thousands),
// and an optional currency mark after it. Numbers:
//
//	1,250.50  1250.50  1250   (comma thousands, dot decimals)
//	1.250,50  12,50           (dot thousands, comma decimals: euro notation)
//	1.2k  2k                  (thousands)
var amountRE = lazyRegexp(`^(₱|php|p|\$|us\$|usd|€|eur|£|gbp|¥|jpy|₹|inr|rs\.?|₩|krw|s\$|sgd|a\$|aud|c\$|cad|hk\$|hkd|rm|myr|฿|thb|rp|idr)?` +
	`(\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d{1,3}(?:\.\d{3})+,\d{1,2}|\d+,\d{1,2}|\d+(?:\.\d{1,3})?)` +
	`(k)?(php|p|pesos?|usd|eur|€|\$|£|¥|₱|/-)?$`)

// amount is a number read as money, with how sure the parser is of it.
type amount struct {
	value    finance.Money
	currency string // ISO code of a currency mark, "" for none
	strong   bool   // marked as money: a currency, decimals, thousands separators or k
}

// parseAmountToken reads tok (lowercase) as an amount.
func parseAmountToken(tok string) (amount, bool) {
	m := amountRE().FindStringSubmatch(tok)
	if m == nil {
		return amount{}, false
	}
	pre, num, k, post := m[1], m[2], m[3], m[4]
	var intPart, frac string
	switch {
	case strings.Contains(num, ",") && strings.Contains(num, ".") && strings.Index(num, ".") < strings.Index(num, ","):
		// 1.250,50: euro notation.
		intPart, frac, _ = strings.Cut(strings.ReplaceAll(num, ".", ""), ",")
	case strings.Contains(num, ",") && !strings.Contains(num, "."):
		if i := strings.LastIndex(num, ","); len(num)-i-1 <= 2 && strings.Count(num, ",") == 1 {
			intPart, frac = num[:i], num[i+1:] // 12,50
		} else {
			intPart = strings.ReplaceAll(num, ",", "")
		}
	default:
		intPart, frac, _ = strings.Cut(strings.ReplaceAll(num, ",", ""), ".")
	}
	if len(frac) == 3 && k == "" {
		if pre == "" && post == "" && strings.Count(num, ".") == 1 && !strings.Contains(num, ",") {
			// 1.250 without a currency: thousands in euro notation.
			intPart, frac = intPart+frac, ""
		} else {
			return amount{}, false
		}
	}
	digits := intPart
	if k != "" {
		if len(frac) > 3 {
			return amount{}, false
		}
		digits = intPart + frac + strings.Repeat("0", 3-len(frac))
		frac = ""
	}
	text := digits
	if frac != "" {
		text += "." + frac
	}
	v, err := finance.ParseMoney(text)
	if err != nil || v <= 0 {
		return amount{}, false
	}
	cur := currencyMarks[pre]
	if cur == "" {
		cur = currencyMarks[post]
	}
	if post == "/-" {
		cur = "" // "500/-": South Asian notation for a whole amount
	}
	strong := pre != "" || post != "" || frac != "" || k != "" || strings.Contains(num, ",")
	return amount{value: v, currency: cur, strong: strong}, true
}

// isCurrencyWord reports whether tok alone marks a currency ("php", "₱", "pesos").
func isCurrencyWord(tok string) (string, bool) {
	c, ok := currencyMarks[tok]
	if !ok || tok == "p" {
		return "", false // a lone "p" is more often a word than pesos
	}
	return c, true
}
