package finance

import (
	"context"
	"errors"
	"testing"
)

// rateBook is an in-memory ExchangeRateRepo for the conversion rule: rates
// of one user, chosen as the store chooses them (latest date on or before,
// manual before fetched on the same date).
type rateBook struct {
	ExchangeRateRepo
	rates []ExchangeRate
}

func (b rateBook) LatestExchangeRate(_ context.Context, _, base, quote string, date Date) (ExchangeRate, bool, error) {
	var best ExchangeRate
	found := false
	for _, r := range b.rates {
		if r.Base != base || r.Quote != quote || r.Date.After(date) {
			continue
		}
		if !found || r.Date.After(best.Date) || (r.Date == best.Date && r.Source == RateSourceManual) {
			best, found = r, true
		}
	}
	return best, found, nil
}

func rate(t *testing.T, base, quote, date, value, source string) ExchangeRate {
	t.Helper()
	d, err := ParseDate(date)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ParseFXRate(value)
	if err != nil {
		t.Fatal(err)
	}
	return ExchangeRate{Base: base, Quote: quote, Date: d, Rate: v, Source: source}
}

// convertIn converts with the rule of Service.Convert over a rate book.
func convertIn(t *testing.T, book rateBook, amount, from, to, date string) (Conversion, error) {
	t.Helper()
	d, _ := ParseDate(date)
	fromCur, toCur := mustCurrency(t, from), mustCurrency(t, to)
	units, err := ParseMinorUnits(amount, fromCur)
	if err != nil {
		t.Fatal(err)
	}
	q, err := chooseRate(context.Background(), book, "u", from, to, d)
	if err != nil {
		return Conversion{}, err
	}
	return Conversion{Amount: CurrencyAmount{units, fromCur}, From: from, To: to, Date: d}.at(q, toCur)
}

// The worked examples of domain.md "Exchange rates".
func TestConvertWorkedExamples(t *testing.T) {
	ecb := []ExchangeRate{
		rate(t, "EUR", "USD", "2026-11-20", "1.1579", RateSourceECB),
		rate(t, "EUR", "JPY", "2026-11-20", "176.41", RateSourceECB),
		rate(t, "EUR", "PHP", "2026-11-20", "68.115", RateSourceECB),
		rate(t, "EUR", "USD", "2026-11-19", "1.1611", RateSourceECB),
		rate(t, "EUR", "JPY", "2026-11-19", "175.02", RateSourceECB),
		rate(t, "EUR", "PHP", "2026-11-19", "68.004", RateSourceECB),
	}
	later := append(ecb[:len(ecb):len(ecb)],
		rate(t, "EUR", "USD", "2026-11-23", "1.1500", RateSourceECB),
		rate(t, "EUR", "JPY", "2026-11-23", "177.00", RateSourceECB))
	manual := func(rs ...ExchangeRate) rateBook {
		return rateBook{rates: append(append([]ExchangeRate{}, ecb...), rs...)}
	}
	tests := []struct {
		name                      string
		book                      rateBook
		amount, from, to, date    string
		converted, rate, rateDate string
		source, via               string
		stale                     bool
	}{
		{"yen to peso through EUR", manual(), "12345", "JPY", "PHP", "2026-11-20", "4766.62", "0.386117567", "2026-11-20", "ecb", "EUR", false},
		{"a Sunday uses Friday's rates", manual(), "12345", "JPY", "PHP", "2026-11-22", "4766.62", "0.386117567", "2026-11-20", "ecb", "EUR", false},
		{"the day before uses that day's", manual(), "12345", "JPY", "PHP", "2026-11-19", "4796.65", "0.38854988", "2026-11-19", "ecb", "EUR", false},
		{"dollars to whole yen", manual(), "19.99", "USD", "JPY", "2026-11-20", "3046", "152.3533983936", "2026-11-20", "ecb", "EUR", false},
		{"direct rate", manual(rate(t, "USD", "JPY", "2026-11-20", "154.37", RateSourceManual)), "19.99", "USD", "JPY", "2026-11-20", "3086", "154.37", "2026-11-20", "manual", "", false},
		{"a newer cross beats an older manual", rateBook{rates: append(later, rate(t, "USD", "JPY", "2026-11-20", "154.37", RateSourceManual))}, "19.99", "USD", "JPY", "2026-11-23", "3077", "153.9130434783", "2026-11-23", "ecb", "EUR", false},
		{"half even down", manual(rate(t, "USD", "JPY", "2026-11-20", "150", RateSourceManual)), "0.03", "USD", "JPY", "2026-11-20", "4", "150", "2026-11-20", "manual", "", false},
		{"half even up", manual(rate(t, "USD", "JPY", "2026-11-20", "150", RateSourceManual)), "0.05", "USD", "JPY", "2026-11-20", "8", "150", "2026-11-20", "manual", "", false},
		{"inverse to 3 decimals", manual(rate(t, "KWD", "PHP", "2026-11-20", "190.47", RateSourceManual)), "1000.00", "PHP", "KWD", "2026-11-20", "5.250", "0.0052501706", "2026-11-20", "manual", "", false},
		{"from EUR directly", manual(), "10.00", "EUR", "PHP", "2026-11-20", "681.15", "68.115", "2026-11-20", "ecb", "", false},
		{"to EUR by the inverse", manual(), "681.15", "PHP", "EUR", "2026-11-20", "10.00", "0.0146810541", "2026-11-20", "ecb", "", false},
		{"stale after 7 days", manual(), "12345", "JPY", "PHP", "2026-11-28", "4766.62", "0.386117567", "2026-11-20", "ecb", "EUR", true},
		{"7 days is not stale", manual(), "12345", "JPY", "PHP", "2026-11-27", "4766.62", "0.386117567", "2026-11-20", "ecb", "EUR", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := convertIn(t, tt.book, tt.amount, tt.from, tt.to, tt.date)
			if err != nil {
				t.Fatal(err)
			}
			via := ""
			if c.Via != nil {
				via = *c.Via
			}
			if c.Converted.String() != tt.converted || string(c.Rate) != tt.rate || c.RateDate.String() != tt.rateDate ||
				*c.Source != tt.source || via != tt.via || c.Stale != tt.stale {
				t.Errorf("got %s at %s of %s (%s via %q, stale %v); want %s at %s of %s (%s via %q, stale %v)",
					c.Converted, c.Rate, c.RateDate, *c.Source, via, c.Stale,
					tt.converted, tt.rate, tt.rateDate, tt.source, tt.via, tt.stale)
			}
		})
	}
}

func TestConvertManualOverFetchedOnTheSameDate(t *testing.T) {
	book := rateBook{rates: []ExchangeRate{
		rate(t, "USD", "PHP", "2026-11-20", "58.90", RateSourceECB),
		rate(t, "USD", "PHP", "2026-11-20", "59.10", RateSourceManual),
	}}
	c, err := convertIn(t, book, "100", "USD", "PHP", "2026-11-20")
	if err != nil || c.Converted.String() != "5910.00" || *c.Source != RateSourceManual {
		t.Fatalf("got %+v, %v; want 5910.00 at the manual rate", c, err)
	}
}

// A direct and an inverse rate of the same date: the direct one is used.
func TestConvertDirectBeforeInverseOnTheSameDate(t *testing.T) {
	book := rateBook{rates: []ExchangeRate{
		rate(t, "USD", "PHP", "2026-11-20", "59", RateSourceManual),
		rate(t, "PHP", "USD", "2026-11-20", "0.02", RateSourceManual), // 1 USD = 50 PHP
	}}
	c, err := convertIn(t, book, "1", "USD", "PHP", "2026-11-20")
	if err != nil || c.Converted.String() != "59.00" {
		t.Fatalf("got %+v, %v; want 59.00 by the direct rate", c, err)
	}
}

// Cross legs of different dates meet on the latest date both have.
func TestConvertCrossLegsOfOneDate(t *testing.T) {
	book := rateBook{rates: []ExchangeRate{
		rate(t, "EUR", "USD", "2026-11-20", "1.2", RateSourceECB),
		rate(t, "EUR", "PHP", "2026-11-20", "60", RateSourceECB),
		rate(t, "EUR", "USD", "2026-11-23", "1.25", RateSourceECB), // PHP has none that day
	}}
	c, err := convertIn(t, book, "1", "USD", "PHP", "2026-11-24")
	if err != nil || c.Converted.String() != "50.00" || c.RateDate.String() != "2026-11-20" {
		t.Fatalf("got %+v, %v; want 50.00 at the rates of 2026-11-20", c, err)
	}
}

func TestConvertMissingRateIsNeverOneToOne(t *testing.T) {
	book := rateBook{rates: []ExchangeRate{
		rate(t, "EUR", "JPY", "2026-11-20", "176.41", RateSourceECB),
		rate(t, "EUR", "PHP", "2026-11-21", "68.115", RateSourceECB), // after the date
	}}
	for _, tt := range []struct{ from, to, want string }{
		{"JPY", "KWD", "no exchange rate from JPY to KWD on or before 2026-11-20"},
		{"JPY", "PHP", "no exchange rate from JPY to PHP on or before 2026-11-20"},
	} {
		_, err := convertIn(t, book, "12345", tt.from, tt.to, "2026-11-20")
		var missing *RateMissingError
		if !errors.As(err, &missing) || err.Error() != tt.want {
			t.Errorf("%s → %s: %v, want %q", tt.from, tt.to, err, tt.want)
		}
	}
}

func TestParseFXRate(t *testing.T) {
	for in, want := range map[string]string{"176.41": "176.41", "1": "1", "1.000": "1", "0.0052501706": "0.0052501706",
		"00068.1150": "68.115", "999999999999": "999999999999", "0.000000001": "0.000000001"} {
		r, err := ParseFXRate(in)
		if err != nil || r.String() != want {
			t.Errorf("ParseFXRate(%q) = %s, %v; want %s", in, r, err, want)
		}
	}
	for _, in := range []string{"0", "0.0", "-1", "", ".5", "1.", "1e3", "0.00000000001", "1234567890123", "123456.1234567", "abc", "+1"} {
		if r, err := ParseFXRate(in); err == nil || err.Error() != problemFXRate {
			t.Errorf("ParseFXRate(%q) = %s, %v; want refused", in, r, err)
		}
	}
}
