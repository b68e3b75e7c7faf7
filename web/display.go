package web

import (
	"context"
	"strings"
	"time"

	"github.com/finance-app/finance/finance"
)

// display formats money and dates on the web app's pages as the user's app
// settings ask: amounts in their currency, dates in their date format.
// Templates call its methods ({{$.Data.Show.Money .Amount}}).
type display struct {
	currency string
	layout   string // a time layout for the user's date_format
	today    finance.Date
	loc      *time.Location // the user's timezone, for the day of an instant
}

// dateLayouts maps the app settings' date formats to time layouts.
var dateLayouts = map[string]string{
	"YYYY-MM-DD":  "2006-01-02",
	"MM/DD/YYYY":  "01/02/2006",
	"DD/MM/YYYY":  "02/01/2006",
	"DD MMM YYYY": "02 Jan 2006",
}

// displayFor reads the user's settings. A user who never saved any gets
// the defaults, as everywhere else.
func (s *Site) displayFor(ctx context.Context, userID string) (display, error) {
	st, err := s.ledger.AppSettings(ctx, userID)
	if err != nil {
		return display{}, err
	}
	loc, err := finance.LoadTimezone(st.Timezone)
	if err != nil {
		loc = time.UTC
	}
	d := newDisplay(st, finance.Today(s.ledger.Now(), loc))
	d.loc = loc
	return d, nil
}

func newDisplay(st finance.AppSettings, today finance.Date) display {
	layout, ok := dateLayouts[st.DateFormat]
	if !ok {
		layout = dateLayouts[finance.DateFormats[0]]
	}
	return display{currency: st.Currency, layout: layout, today: today}
}

// Money formats m with thousands separators and the currency: "₱1,234.50",
// "-$0.05", "CHF 12.00". It works on the decimal text, never a float.
func (d display) Money(m finance.Money) string { return finance.FormatMoney(d.currency, m) }

// MoneyIn formats m in the currency named, for an amount that is not in the
// user's reporting currency: "$1,000.00", "¥50,000". An empty currency is
// the reporting one.
func (d display) MoneyIn(m finance.Money, currency string) string {
	if currency == "" {
		currency = d.currency
	}
	return finance.FormatMoney(currency, m)
}

// MoneyAbroad formats an amount in its currency and, for a card purchase
// abroad, the amount paid beside it: "₱5,104.93 (¥12,345)".
func (d display) MoneyAbroad(m finance.Money, currency string, original *finance.Money, originalCurrency *string) string {
	out := d.MoneyIn(m, currency)
	if original != nil && originalCurrency != nil {
		out += " (" + finance.FormatMoney(*originalCurrency, *original) + ")"
	}
	return out
}

// MoneyPrefix is what comes before an amount shown in the user's currency
// ("₱", "CHF "), for the page script that shows live sums as Money does.
func (d display) MoneyPrefix() string { return strings.TrimSuffix(d.Money(0), "0.00") }

// DecimalComma reports whether the user's currency writes "1.234,56", so
// the page script reads a typed amount as the server does (readPageAmounts).
func (d display) DecimalComma() bool {
	c, _ := finance.LookupCurrency(d.currency)
	return c.DecimalComma
}

// Date formats a calendar date in the user's date format.
func (d display) Date(v finance.Date) string {
	if v.IsZero() {
		return ""
	}
	return v.In(time.UTC).Format(d.layout)
}

// Day formats the day of an instant in the user's timezone and date format.
func (d display) Day(t time.Time) string {
	loc := d.loc
	if loc == nil {
		loc = time.UTC
	}
	return d.Date(finance.Today(t, loc))
}

// DueIn says when something open falls due, counted from the person's
// today, in finance.DueWords' words: "due tomorrow", "21 days overdue".
func (d display) DueIn(due finance.Date) string { return finance.DueWords(d.today.DaysUntil(due)) }

// Left says what is left of a limit (a budget): "₱801.00 left", or what
// the spending went over it by, "₱199.00 over", never a negative amount left.
func (d display) Left(remaining finance.Money) string {
	if remaining < 0 {
		return d.Money(-remaining) + " over"
	}
	return d.Money(remaining) + " left"
}

// Time formats an instant (a key's creation, its last use) in the user's
// timezone and date format, to the minute: "15 Mar 2025 12:00". zero
// stands for nil: "never", "not yet".
func (d display) Time(t *time.Time, zero string) string {
	if t == nil {
		return zero
	}
	loc := d.loc
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format(d.layout + " 15:04")
}

// Month names a month ("March 2025") from any day in it.
func (d display) Month(v finance.Date) string { return v.In(time.UTC).Format("January 2006") }

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
