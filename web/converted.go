package web

import (
	"context"

	"github.com/finance-app/finance/finance"
)

// Money in another currency than the reporting one, on the pages
// (docs/domain.md "Converting for summaries"): each amount in its own
// currency with its value in the reporting currency beside it, quieter,
// at the rate of its date; a converted figure's per-currency lines; and
// the note of what a figure left out for want of a rate.

// convertible is an amount a page shows, for convertedBeside: ID keys the
// answer, Date is the rate's day (a record's date, today for a balance).
type convertible struct {
	ID       string
	Amount   finance.Money
	Currency string
	Date     finance.Date
}

// convertedBeside is what each amount in another currency than the
// reporting one shows beside it, by ID: "≈ ₱1,545.02", or "no rate" when
// its currency has none on or before its date. An amount in the reporting
// currency has nothing beside it. The rates are read once for the page.
func (s *Site) convertedBeside(ctx context.Context, userID string, show display, rows []convertible) (map[string]string, error) {
	var ids []string
	var amounts []finance.DatedAmount
	for _, r := range rows {
		if r.Currency != "" && r.Currency != show.currency {
			ids = append(ids, r.ID)
			amounts = append(amounts, finance.DatedAmount{Currency: r.Currency, Date: r.Date, Amount: r.Amount})
		}
	}
	if len(amounts) == 0 {
		return nil, nil
	}
	converted, err := s.ledger.Converted(ctx, userID, amounts)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ids))
	for i, m := range converted {
		out[ids[i]] = "no rate"
		if m != nil {
			out[ids[i]] = "≈ " + show.Money(*m)
		}
	}
	return out, nil
}

// conversionNote is what the "conversion-note" partial shows under a
// converted figure: on the Reports page the currency it is in ("Amounts in
// PHP"), elsewhere only the day of the newest rate used ("" when nothing
// was converted), and each amount left out for want of a rate, in its
// currency, with the way to add the rate.
type conversionNote struct {
	Currency  string // "Amounts in PHP" first when set; empty where the figure shows its currency
	What      string // what left them out: "Net worth", "This month", "This report"
	RatesAsOf string
	Missing   []missingLine
	RatesPath string
}

// missingLine is one currency's money a figure left out: "¥3,000", "JPY",
// and the last day it had no rate for.
type missingLine struct {
	Amount, Currency, Through string
}

func newConversionNote(show display, what string, n finance.ConversionNote) conversionNote {
	out := conversionNote{What: what, RatesPath: ExchangeRatesPath}
	if n.RatesAsOf != nil {
		out.RatesAsOf = show.Date(*n.RatesAsOf)
	}
	for _, m := range n.MissingRates {
		out.Missing = append(out.Missing, missingLine{Amount: show.MoneyIn(m.Amount, m.Currency), Currency: m.Currency,
			Through: show.Date(m.DateTo)})
	}
	return out
}

// conversionOf is the note of a converted report, which names its
// currency; false for a report that converts nothing.
func conversionOf(show display, currency string, report any) (conversionNote, bool) {
	c, ok := report.(interface{ Conversion() finance.ConversionNote })
	if !ok {
		return conversionNote{}, false
	}
	out := newConversionNote(show, "This report", c.Conversion())
	out.Currency = currency
	return out, true
}

// currencyLines are a converted figure's lines per currency, for a
// household with money in more than one, as the "currency-lines" partial
// shows them under label: "$1,000.00 ≈ ₱61,800.95", or "¥50,000 · no
// rate". Nil for one currency, whose figure says it all.
type currencyLines struct {
	Label string
	Lines []string
}

func newCurrencyLines(show display, label string, lines []finance.CurrencyLine) *currencyLines {
	if len(lines) < 2 {
		return nil
	}
	out := &currencyLines{Label: label, Lines: make([]string, len(lines))}
	for i, l := range lines {
		text := show.MoneyIn(l.Total, l.Currency)
		switch {
		case l.Currency == show.currency:
		case l.Converted == nil:
			text += " · no rate"
		default:
			text += " ≈ " + show.Money(*l.Converted)
		}
		out.Lines[i] = text
	}
	return out
}
