package finance

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"
)

// Sources of exchange rates (domain.md "Exchange rates"). The fetched ones
// are the server's, read by every user; a manual rate is its owner's alone.
const (
	RateSourceECB         = "ecb"
	RateSourceFrankfurter = "frankfurter"
	RateSourceManual      = "manual"
)

// RateSources are the values of the exchange rates' source filter.
var RateSources = []string{RateSourceECB, RateSourceFrankfurter, RateSourceManual}

// CrossCurrency is the base every fetched rate is published in (the ECB's),
// so a pair without its own rate is converted through it.
const CrossCurrency = "EUR"

// StaleRateDays is how much older than the date asked for a rate may be
// before a conversion marks it stale: the ECB publishes nothing on weekends
// and TARGET holidays, so a few days without a rate are a pause, not a stop.
const StaleRateDays = 7

// Limits of an exchange rate's value.
const (
	maxRateDecimals = 10
	maxRateDigits   = 12
)

const problemFXRate = "must be a number greater than 0 with at most 10 decimal places and 12 significant digits"

// FXRate is an exchange rate's exact value, units ÷ 10^scale: "176.41" is
// 17641 and 2. It is kept canonical (no trailing zeros after the point), so
// equal rates are equal values and print the same.
type FXRate struct {
	units int64
	scale int
}

// ParseFXRate reads a rate such as "176.41", "0.0052501706" or "1": greater
// than 0, at most 10 decimals and 12 significant digits, never through float64.
func ParseFXRate(s string) (FXRate, error) {
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" || !allDigits(intPart) || (hasDot && !allDigits(frac)) {
		return FXRate{}, errRate(problemFXRate)
	}
	frac = strings.TrimRight(frac, "0")
	digits := strings.TrimLeft(intPart+frac, "0")
	if len(frac) > maxRateDecimals || len(digits) > maxRateDigits || digits == "" {
		return FXRate{}, errRate(problemFXRate)
	}
	var units int64
	for i := 0; i < len(digits); i++ {
		units = units*10 + int64(digits[i]-'0')
	}
	return FXRate{units: units, scale: len(frac)}, nil
}

// String is the rate's canonical decimal text: "176.41", "1", "0.0052501706".
func (r FXRate) String() string {
	s := fmt.Sprintf("%0*d", r.scale+1, r.units)
	if r.scale == 0 {
		return s
	}
	return s[:len(s)-r.scale] + "." + s[len(s)-r.scale:]
}

// IsZero reports whether the rate was never set.
func (r FXRate) IsZero() bool { return r.units == 0 }

// Rat is the rate's exact value.
func (r FXRate) Rat() *big.Rat { return new(big.Rat).SetFrac(big.NewInt(r.units), pow10(r.scale)) }

// MarshalJSON writes the rate as a JSON number, exactly.
func (r FXRate) MarshalJSON() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalJSON accepts a JSON number or a numeric string.
func (r *FXRate) UnmarshalJSON(b []byte) error { return decodeNumber(b, ParseFXRate, r) }

// Value stores the rate as its decimal text: exact, and readable in the database.
func (r FXRate) Value() (driver.Value, error) { return r.String(), nil }

// Scan reads the decimal text Value wrote.
func (r *FXRate) Scan(src any) error { return scanDecimalText(src, "exchange rate", ParseFXRate, r) }

// ExchangeRate is one dated rate: on Date, 1 Base is worth Rate Quote.
type ExchangeRate struct {
	ID        string    `json:"id"`
	Base      string    `json:"base"`
	Quote     string    `json:"quote"`
	Date      Date      `json:"date"`
	Rate      FXRate    `json:"rate"`
	Source    string    `json:"source"`
	CreatedAt time.Time `json:"created_at"`
}

// ExchangeRateRequest is the body of POST /exchange-rates: a manual rate.
type ExchangeRateRequest struct {
	Base  Field[string] `json:"base"`
	Quote Field[string] `json:"quote"`
	Date  Field[Date]   `json:"date"`
	Rate  Field[FXRate] `json:"rate"`
}

// ExchangeRateFilter narrows GET /exchange-rates; zero values do not filter.
type ExchangeRateFilter struct {
	Base, Quote, Source string
	From, To            Date
}

// ExchangeRateRepo is the persistence of exchange rates. The rates a user
// reads are the server's and their own manual ones, never another user's.
type ExchangeRateRepo interface {
	// ExchangeRates lists the rates the user reads, newest date first.
	ExchangeRates(ctx context.Context, userID string, f ExchangeRateFilter, p ListParams) ([]ExchangeRate, int, error)
	// LatestExchangeRates is the rate each pair would convert with today:
	// per base and quote, the latest date, a manual rate before a fetched
	// one on the same date.
	LatestExchangeRates(ctx context.Context, userID string) ([]ExchangeRate, error)
	// LatestExchangeRate is the rate of base → quote on or before date, as
	// LatestExchangeRates chooses it; ok is false when there is none.
	LatestExchangeRate(ctx context.Context, userID, base, quote string, date Date) (r ExchangeRate, ok bool, err error)
	// ManualExchangeRate is one of the user's own manual rates by id.
	ManualExchangeRate(ctx context.Context, userID, id string) (ExchangeRate, error)
	// ManualExchangeRateOn is the user's manual rate of a pair and date, if any.
	ManualExchangeRateOn(ctx context.Context, userID, base, quote string, date Date) (r ExchangeRate, ok bool, err error)
	InsertManualExchangeRate(ctx context.Context, userID string, r ExchangeRate) error
	DeleteManualExchangeRate(ctx context.Context, userID, id string) error
	// InsertFetchedExchangeRates adds the server's rates, skipping those it
	// already has (same source, base, quote and date), and says how many
	// were new.
	InsertFetchedExchangeRates(ctx context.Context, rates []ExchangeRate) (int, error)
}

// ListExchangeRates returns a page of the rates the user reads.
func (s *Service) ListExchangeRates(ctx context.Context, userID string, f ExchangeRateFilter, p ListParams) (Page[ExchangeRate], error) {
	items, total, err := s.store.Read().ExchangeRates(ctx, userID, f, p)
	return pageOf(items, total, err, p)
}

// LatestExchangeRates returns the rate each pair converts with today (the Rates page).
func (s *Service) LatestExchangeRates(ctx context.Context, userID string) ([]ExchangeRate, error) {
	return s.store.Read().LatestExchangeRates(ctx, userID)
}

// presentText is a text parameter as a Field: absent when empty.
func presentText(s string) Field[string] {
	if s == "" {
		return Field[string]{}
	}
	return Of(s)
}

// currencyCode checks a currency code of a request and returns it upper case.
func currencyCode(v *Validator, name string, f Field[string]) string {
	if !Readable(v, name, f) {
		if f.decodeProblem() == "" {
			v.Add(name, "is required")
		}
		return ""
	}
	c, ok := LookupCurrency(f.Value)
	if !ok {
		v.Add(name, "must be an ISO 4217 currency code, like PHP, USD or EUR")
		return ""
	}
	return c.Code
}

// CreateExchangeRate records a manual rate of the user. A second rate of
// the same pair and date is refused with the first one named: a correction
// is a delete and a new rate, each in the activity.
func (s *Service) CreateExchangeRate(ctx context.Context, userID string, req ExchangeRateRequest) (ExchangeRate, error) {
	var v Validator
	r := ExchangeRate{ID: NewID(), Source: RateSourceManual}
	r.Base = currencyCode(&v, "base", req.Base)
	r.Quote = currencyCode(&v, "quote", req.Quote)
	if r.Base != "" && r.Base == r.Quote {
		v.Add("quote", "must differ from base: a currency converts to itself 1:1")
	}
	r.Date = v.RequiredDate("date", req.Date)
	if Readable(&v, "rate", req.Rate) {
		r.Rate = req.Rate.Value
	} else if req.Rate.decodeProblem() == "" {
		v.Add("rate", "is required")
	}
	if err := v.Err(); err != nil {
		return ExchangeRate{}, err
	}
	err := s.store.Write(ctx, func(tx Repo) error {
		old, ok, err := tx.ManualExchangeRateOn(ctx, userID, r.Base, r.Quote, r.Date)
		if err != nil {
			return err
		}
		if ok {
			return Conflict(map[string]string{"date": "already has your rate of " + old.Base + " to " + old.Quote +
				" (" + old.Rate.String() + ", id " + old.ID + "); delete it to enter another"},
				"you already have a rate of %s to %s on %s", r.Base, r.Quote, r.Date)
		}
		r.CreatedAt = s.stamp()
		if err := tx.InsertManualExchangeRate(ctx, userID, r); err != nil {
			return err
		}
		return s.record(ctx, tx, userID, Activity{Kind: RecordExchangeRate, RecordID: r.ID, Action: LogCreated,
			Summary: r.summary()})
	})
	return r, err
}

// DeleteExchangeRate deletes one of the user's manual rates; a fetched rate
// or another user's is not found, as for any record not the user's.
func (s *Service) DeleteExchangeRate(ctx context.Context, userID, id string) (ExchangeRate, error) {
	var r ExchangeRate
	err := s.store.Write(ctx, func(tx Repo) error {
		var err error
		if r, err = tx.ManualExchangeRate(ctx, userID, id); err != nil {
			return err
		}
		if err := tx.DeleteManualExchangeRate(ctx, userID, id); err != nil {
			return err
		}
		return s.record(ctx, tx, userID, Activity{Kind: RecordExchangeRate, RecordID: r.ID, Action: LogDeleted,
			Summary: r.summary() + " deleted"})
	})
	return r, err
}

// summary is the activity's line for a manual rate: "Rate 2026-11-20: 1 USD = 154.37 JPY".
func (r ExchangeRate) summary() string {
	return fmt.Sprintf("Rate %s: 1 %s = %s %s", r.Date, r.Base, r.Rate, r.Quote)
}

// SaveFetchedRates stores rates fetched by the server; those it has are skipped.
func (s *Service) SaveFetchedRates(ctx context.Context, rates []ExchangeRate) (int, error) {
	var added int
	err := s.store.Write(ctx, func(tx Repo) error {
		var err error
		added, err = tx.InsertFetchedExchangeRates(ctx, rates)
		return err
	})
	return added, err
}

// ErrRateMissing means an amount cannot be converted: there is no rate of
// its pair on or before its date. It is never converted 1:1 instead.
var ErrRateMissing = errors.New("exchange rate missing")

// RateMissingError names the pair and date that have no rate.
type RateMissingError struct {
	From, To string
	Date     Date
}

func (e *RateMissingError) Error() string {
	return fmt.Sprintf("no exchange rate from %s to %s on or before %s", e.From, e.To, e.Date)
}

func (e *RateMissingError) Unwrap() error { return ErrRateMissing }

// CurrencyAmount is an amount in minor units of its currency, written as a
// JSON number with exactly the currency's decimals (3046 yen, 5.250 KWD).
type CurrencyAmount struct {
	Units    int64
	Currency Currency
}

// String is the amount's canonical decimal text.
func (a CurrencyAmount) String() string { return FormatMinorUnits(a.Units, a.Currency) }

// MarshalJSON writes the amount as a JSON number.
func (a CurrencyAmount) MarshalJSON() ([]byte, error) { return []byte(a.String()), nil }

// Conversion is the answer of GET /exchange-rates/convert.
type Conversion struct {
	Amount    CurrencyAmount `json:"amount"`
	From      string         `json:"from"`
	To        string         `json:"to"`
	Date      Date           `json:"date"`
	Converted CurrencyAmount `json:"converted"`
	// Rate is the effective rate from → to, rounded half to even to 10
	// decimals for reading; the conversion used the exact fraction.
	Rate     json.Number `json:"rate"`
	RateDate *Date       `json:"rate_date"`
	Source   *string     `json:"source"`
	Via      *string     `json:"via"`
	Stale    bool        `json:"stale"`
}

// ConversionRequest is an amount to convert on a date, each as the text the
// caller sent (a query string); an empty date is today.
type ConversionRequest struct {
	Amount, From, To, Date string
}

// Convert converts an amount between currencies by the rule of domain.md
// "Exchange rates": the newest of the direct, inverse and cross (through
// EUR) rates on or before the date, exact, rounded once half to even.
func (s *Service) Convert(ctx context.Context, userID string, req ConversionRequest) (Conversion, error) {
	var v Validator
	from := currencyCode(&v, "from", presentText(req.From))
	to := currencyCode(&v, "to", presentText(req.To))
	var units int64
	switch fromCur, _ := LookupCurrency(from); {
	case req.Amount == "":
		v.Add("amount", "is required")
	case from != "":
		var err error
		if units, err = ParseMinorUnits(req.Amount, fromCur); err != nil {
			v.Add("amount", err.Error())
		}
	}
	date := s.today(ctx, userID)
	if req.Date != "" {
		var err error
		if date, err = ParseDate(req.Date); err != nil {
			v.Add("date", DateProblem(err))
		}
	}
	if err := v.Err(); err != nil {
		return Conversion{}, err
	}
	fromCur, _ := LookupCurrency(from)
	toCur, _ := LookupCurrency(to)
	c := Conversion{Amount: CurrencyAmount{units, fromCur}, From: from, To: to, Date: date}
	if from == to {
		c.Converted, c.Rate = c.Amount, "1"
		return c, nil
	}
	q, err := chooseRate(ctx, s.store.Read(), userID, from, to, date)
	if err != nil {
		return Conversion{}, err
	}
	return c.at(q, toCur)
}

// at completes the conversion with the chosen rate: the amount times the
// exact rate, rounded once.
func (c Conversion) at(q quotedRate, toCur Currency) (Conversion, error) {
	converted := roundHalfEven(new(big.Rat).Mul(minorUnitsRat(c.Amount.Units, c.Amount.Currency), q.rate), toCur.Minor)
	if limit := big.NewInt(maxMinorUnits()); new(big.Int).Abs(converted).Cmp(limit) > 0 {
		return Conversion{}, Invalid("amount", fmt.Sprintf("converts to more than %s %s, the most an amount can be",
			FormatMinorUnits(maxMinorUnits(), toCur), toCur.Code))
	}
	c.Converted = CurrencyAmount{converted.Int64(), toCur}
	c.Rate = json.Number(decimalText(q.rate, maxRateDecimals))
	c.RateDate, c.Source, c.Via = &q.date, &q.source, q.via
	c.Stale = q.date.AddDays(StaleRateDays).Before(c.Date)
	return c, nil
}

// quotedRate is the rate a conversion chose: exact, with its date and source.
type quotedRate struct {
	rate   *big.Rat
	date   Date
	source string
	via    *string
}

// rateLookup is what choosing a rate reads: the store, or the rates a
// summary read up front (rateSet).
type rateLookup interface {
	LatestExchangeRate(ctx context.Context, userID, base, quote string, date Date) (ExchangeRate, bool, error)
}

// chooseRate finds the rate from → to on or before date: of the direct
// rate, the inverse of the reverse one and the cross rate through EUR, the
// one with the latest date; on the same date in that order.
func chooseRate(ctx context.Context, repo rateLookup, userID, from, to string, date Date) (quotedRate, error) {
	var best *quotedRate
	consider := func(q quotedRate) {
		if best == nil || q.date.After(best.date) {
			best = &q
		}
	}
	direct, ok, err := repo.LatestExchangeRate(ctx, userID, from, to, date)
	if err != nil {
		return quotedRate{}, err
	}
	if ok {
		consider(quotedRate{rate: direct.Rate.Rat(), date: direct.Date, source: direct.Source})
	}
	inverse, ok, err := repo.LatestExchangeRate(ctx, userID, to, from, date)
	if err != nil {
		return quotedRate{}, err
	}
	if ok {
		consider(quotedRate{rate: new(big.Rat).Inv(inverse.Rate.Rat()), date: inverse.Date, source: inverse.Source})
	}
	if from != CrossCurrency && to != CrossCurrency {
		cross, ok, err := crossRate(ctx, repo, userID, from, to, date)
		if err != nil {
			return quotedRate{}, err
		}
		if ok {
			consider(cross)
		}
	}
	if best == nil {
		return quotedRate{}, &RateMissingError{From: from, To: to, Date: date}
	}
	return *best, nil
}

// crossRate is (EUR → to) ÷ (EUR → from) with both legs of one date: the
// latest date on or before date on which both exist. When the newest legs
// are of different dates, the search goes on from the older of the two, so
// it ends in a few steps (ECB publishes every currency on the same days).
func crossRate(ctx context.Context, repo rateLookup, userID, from, to string, date Date) (quotedRate, bool, error) {
	for {
		a, okA, err := repo.LatestExchangeRate(ctx, userID, CrossCurrency, from, date)
		if err != nil || !okA {
			return quotedRate{}, false, err
		}
		b, okB, err := repo.LatestExchangeRate(ctx, userID, CrossCurrency, to, date)
		if err != nil || !okB {
			return quotedRate{}, false, err
		}
		switch a.Date.Compare(b.Date) {
		case 1:
			date = b.Date
		case -1:
			date = a.Date
		default:
			source := a.Source
			if b.Source != a.Source {
				// A leg the person entered took part: the answer is theirs.
				source = RateSourceManual
			}
			via := CrossCurrency
			return quotedRate{rate: new(big.Rat).Quo(b.Rate.Rat(), a.Rate.Rat()), date: a.Date, source: source, via: &via}, true, nil
		}
	}
}

// fixedDecimalText writes r rounded half to even to exactly places
// decimals: 5650/100 is "56.5000000000" with 10.
func fixedDecimalText(r *big.Rat, places int) string {
	q := roundHalfEven(r, places)
	sign := ""
	if q.Sign() < 0 {
		sign = "-"
		q.Neg(q)
	}
	s := fmt.Sprintf("%0*s", places+1, q.String())
	return sign + s[:len(s)-places] + "." + s[len(s)-places:]
}

// decimalText writes r rounded half to even to at most places decimals,
// trailing zeros dropped: 68.115/176.41 is "0.386117567".
func decimalText(r *big.Rat, places int) string {
	s := fmt.Sprintf("%0*s", places+1, roundHalfEven(r, places).String())
	s = s[:len(s)-places] + "." + s[len(s)-places:]
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// convertMoney converts m, in hundredths of from, to hundredths of to at the
// rate of date chosen as Convert chooses it, times 1 + fee / 100 (a card's
// foreign transaction fee; 0 for none): exact, rounded once, half to even, to
// to's decimals. A missing rate is the RateMissingError; a result too large
// for an amount is a ValidationError on field.
func convertMoney(ctx context.Context, repo ExchangeRateRepo, userID string, m Money, from, to string, date Date,
	fee FeePercent, field string,
) (Money, error) {
	q, err := chooseRate(ctx, repo, userID, from, to, date)
	if err != nil {
		return 0, err
	}
	out, ok := billedAmount(m, q.rate, fee, currencyOf(to))
	if !ok {
		return 0, Invalid(field, fmt.Sprintf("converts to more than %s %s, the most an amount can be", MaxMoney, to))
	}
	return out, nil
}

// convertFor is convertMoney for a request's field: a missing rate or a
// result too large is a problem on field (a missing rate's says what to
// enter instead, ask), and ok is false.
func convertFor(ctx context.Context, repo ExchangeRateRepo, userID string, v *Validator, field, ask string, m Money,
	from, to string, date Date, fee FeePercent,
) (out Money, ok bool, err error) {
	out, err = convertMoney(ctx, repo, userID, m, from, to, date, fee, field)
	var missing *RateMissingError
	var invalid *ValidationError
	switch {
	case err == nil:
		return out, true, nil
	case errors.As(err, &missing):
		v.Add(field, missing.Error()+"; "+ask)
	case errors.As(err, &invalid):
		_ = v.Merge("", err)
	default:
		return 0, false, err
	}
	return 0, false, nil
}

// billedAmount is m (hundredths) times rate times 1 + fee / 100, rounded once
// half to even to to's decimals and written in hundredths of to: the figure a
// card bills for a purchase abroad (domain.md "A purchase abroad on a card"),
// and with no fee the amount a transfer between currencies delivers. ok is
// false when the result is larger than an amount can be.
func billedAmount(m Money, rate *big.Rat, fee FeePercent, to Currency) (Money, bool) {
	v := new(big.Rat).SetFrac64(int64(m), 100)
	v.Mul(v, rate)
	if fee != 0 {
		v.Mul(v, new(big.Rat).SetFrac64(100*RateScale+int64(fee), 100*RateScale))
	}
	units := roundHalfEven(v, to.Minor)
	units.Mul(units, pow10(2-to.Minor)) // back to hundredths: ¥5,105 is 510500
	if !units.IsInt64() || Money(new(big.Int).Abs(units).Int64()) > MaxMoney {
		return 0, false
	}
	return Money(units.Int64()), true
}
