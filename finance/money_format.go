package finance

import "strings"

// FormatMoney shows an amount as people read it in currency: thousands
// grouped, two decimals, and the currency's symbol or else its code
// ("₱1,234.50", "CHF 12.50"). The web pages and the reminders' messages
// show money through it.
func FormatMoney(currency string, m Money) string {
	sign := ""
	if m < 0 {
		sign = "-"
	}
	whole, cents, _ := strings.Cut(m.Abs().String(), ".")
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	amount := b.String() + "." + cents
	if c, ok := LookupCurrency(currency); ok && c.Minor == 0 && cents == "00" {
		amount = b.String() // ¥1,500: yen amounts are whole (a converted figure is rounded to whole yen)
	}
	if sym, ok := currencySymbols[currency]; ok {
		return sign + sym + amount
	}
	if currency == "" {
		return sign + amount
	}
	return sign + currency + " " + amount
}

// currencySymbols are the currencies shown with a symbol; any other is
// shown with its code ("CHF 12.50"). A symbol is only used where it is
// unambiguous for the people who use that currency.
var currencySymbols = map[string]string{
	"PHP": "₱", "USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹", "KRW": "₩", "VND": "₫", "THB": "฿",
}
