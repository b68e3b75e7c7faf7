package web

import (
	"github.com/finance-app/finance/finance"
)

// conversionNote is what a page says under figures converted to the
// reporting currency (docs/domain.md, "Converting for summaries"): the
// currency and the date of the newest rate used, and each amount a missing
// rate left out, in its own currency, with the way to add the rate. The
// "conversion-note" template (templates/partials/conversion.html) shows it;
// any page with a finance.ConversionNote builds one with newConversionNote.
type conversionNote struct {
	Currency  string
	RatesAsOf string   // the newest rate's date as the user reads dates; empty when nothing converted
	Missing   []string // "¥3,000: no JPY rate on or before 20 Nov 2026"
	RatesPath string
}

// newConversionNote is the note of figures in currency that n describes.
func newConversionNote(show display, currency string, n finance.ConversionNote) conversionNote {
	out := conversionNote{Currency: currency, RatesPath: ExchangeRatesPath}
	if n.RatesAsOf != nil {
		out.RatesAsOf = show.Date(*n.RatesAsOf)
	}
	for _, m := range n.MissingRates {
		out.Missing = append(out.Missing, show.MoneyIn(m.Amount, m.Currency)+" — no "+m.Currency+" rate on or before "+show.Date(m.DateTo))
	}
	return out
}

// conversionOf is the note of a converted answer (a report, a summary);
// false for an answer that converts nothing.
func conversionOf(show display, currency string, answer any) (conversionNote, bool) {
	c, ok := answer.(interface{ Conversion() finance.ConversionNote })
	if !ok {
		return conversionNote{}, false
	}
	return newConversionNote(show, currency, c.Conversion()), true
}
