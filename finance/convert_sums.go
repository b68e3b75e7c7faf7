package finance

import (
	"cmp"
	"context"
	"math/big"
	"slices"
)

// The converter of summaries (domain.md "Money in more than one currency",
// "Converting for summaries"): amounts grouped by currency and date, each
// group converted exactly at the rate of its date, the total rounded once
// to the reporting currency; a group without a rate is left out and named.

// DatedAmount is a sum of one currency on one date, in hundredths of that
// currency (as every stored amount is).
type DatedAmount struct {
	Currency string
	Date     Date
	Amount   Money
}

// MissingRate is money a summary left out because its currency has no rate
// on or before its dates: Amount is the sum left out, in that currency.
type MissingRate struct {
	Currency string `json:"currency"`
	Amount   Money  `json:"amount"`
	DateFrom Date   `json:"date_from"`
	DateTo   Date   `json:"date_to"`
}

// ConversionNote says what a summary did to answer in its currency:
// RatesAsOf is the newest rate date used (null when nothing needed
// converting) and MissingRates what was left out (empty when nothing was).
type ConversionNote struct {
	RatesAsOf    *Date         `json:"rates_as_of"`
	MissingRates []MissingRate `json:"missing_rates"`
}

// Conversion returns n. Every converted answer embeds its note, so it has
// this method: a page finds what any of them converted here.
func (n ConversionNote) Conversion() ConversionNote { return n }

// CurrencyLine is one currency's part of the accounts list or net worth:
// Total in that currency, Converted in the reporting currency (null when
// its rate is missing).
type CurrencyLine struct {
	Currency  string `json:"currency"`
	Total     Money  `json:"total"`
	Converted *Money `json:"converted"`
}

// RateRangeRepo reads the rates a summary converts with, in one query.
type RateRangeRepo interface {
	// ExchangeRatesBetween returns the rates the user reads whose base and
	// quote are both among currencies, dated on or before to, and for each
	// pair from its latest date on or before from: every rate the choice of
	// "Converting an amount" can take for a date in from..to. They come in
	// LatestExchangeRate's order of choice: latest date first, on one date
	// a manual rate first.
	ExchangeRatesBetween(ctx context.Context, userID string, currencies []string, from, to Date) ([]ExchangeRate, error)
}

// SumConverter converts the sums of one request to the reporting currency.
// It reads the rates once, for every currency and date the request's groups
// need, and remembers the newest rate it used across calls, so one note
// covers the whole answer.
type SumConverter struct {
	reporting Currency
	rates     rateSet
	quotes    map[DatedAmount]*quotedRate // by currency and date; Amount 0; nil when missing
	asOf      *Date
	err       error
}

// sumConverter reads the rates for every group of every list given (the
// whole request) and returns the converter. A request whose groups are all
// in the reporting currency reads no rate.
func (s *Service) sumConverter(ctx context.Context, userID, reporting string, lists ...[]DatedAmount) (*SumConverter, error) {
	cur, ok := LookupCurrency(reporting)
	if !ok {
		cur = Currency{Code: reporting, Minor: 2}
	}
	c := &SumConverter{reporting: cur, quotes: map[DatedAmount]*quotedRate{}}
	codes := []string{cur.Code, CrossCurrency}
	var from, to Date
	for _, list := range lists {
		for _, g := range list {
			if g.Currency == cur.Code || g.Amount == 0 {
				continue
			}
			if !slices.Contains(codes, g.Currency) {
				codes = append(codes, g.Currency)
			}
			if from.IsZero() || g.Date.Before(from) {
				from = g.Date
			}
			if to.IsZero() || g.Date.After(to) {
				to = g.Date
			}
		}
	}
	if from.IsZero() {
		return c, nil
	}
	repo := s.store.Read()
	rates, err := repo.ExchangeRatesBetween(ctx, userID, codes, from, to)
	if err != nil {
		return nil, err
	}
	c.rates = rateSet{rates: rates, from: from, userID: userID, fallback: repo}
	return c, nil
}

// Converted is each amount in the user's reporting currency at the rate
// of its date, for a page to show beside the amount: nil for an amount
// already in the reporting currency or without a rate. The rates are read
// once for all of them.
func (s *Service) Converted(ctx context.Context, userID string, amounts []DatedAmount) ([]*Money, error) {
	reporting := s.currency(ctx, userID)
	conv, err := s.sumConverter(ctx, userID, reporting, amounts)
	if err != nil {
		return nil, err
	}
	out := make([]*Money, len(amounts))
	for i, a := range amounts {
		if a.Currency == reporting {
			continue
		}
		if m, ok := conv.Total(ctx, []DatedAmount{a}); ok {
			out[i] = &m
		}
	}
	return out, conv.Err()
}

// Total is the groups' sum in the reporting currency: the reporting
// currency's groups as they are, the others converted exactly at their
// date's rate, the whole rounded once half to even; a group without a
// rate is left out of the total (NoteOf names it). ok is false when any
// group of these was left out.
func (c *SumConverter) Total(ctx context.Context, groups []DatedAmount) (total Money, ok bool) {
	exact := new(big.Rat)
	ok = true
	for _, g := range groups {
		if g.Amount == 0 {
			continue
		}
		if g.Currency == c.reporting.Code {
			exact.Add(exact, big.NewRat(int64(g.Amount), 100))
			continue
		}
		q := c.quote(ctx, g.Currency, g.Date)
		if q == nil {
			ok = false
			continue
		}
		if c.asOf == nil || q.date.After(*c.asOf) {
			d := q.date
			c.asOf = &d
		}
		exact.Add(exact, new(big.Rat).Mul(big.NewRat(int64(g.Amount), 100), q.rate))
	}
	return c.round(exact), ok
}

// sum is Total without its ok: the figure of a report that names what it
// left out once, with NoteOf, rather than per figure.
func (c *SumConverter) sum(ctx context.Context, groups []DatedAmount) Money {
	total, _ := c.Total(ctx, groups)
	return total
}

// Lines are the groups' per-currency totals, the reporting currency first
// and the others by code, each with its converted figure (rounded for
// showing; Total rounds the exact sum once, so lines may add to a cent
// more or less).
func (c *SumConverter) Lines(ctx context.Context, groups []DatedAmount) []CurrencyLine {
	byCurrency := map[string][]DatedAmount{}
	for _, g := range groups {
		byCurrency[g.Currency] = append(byCurrency[g.Currency], g)
	}
	out := make([]CurrencyLine, 0, len(byCurrency))
	for code, gs := range byCurrency {
		line := CurrencyLine{Currency: code}
		for _, g := range gs {
			line.Total += g.Amount
		}
		if converted, ok := c.Total(ctx, gs); ok {
			line.Converted = &converted
		}
		out = append(out, line)
	}
	slices.SortFunc(out, func(a, b CurrencyLine) int {
		return cmp.Or(-cmp.Compare(boolRank(a.Currency == c.reporting.Code), boolRank(b.Currency == c.reporting.Code)),
			cmp.Compare(a.Currency, b.Currency))
	})
	return out
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// NoteOf says what the converter did for an answer: the newest rate date
// used, and per currency the money the groups of lists left out. The lists
// are the groups of the answer's main figures, each group in one list only
// (net worth's nets, not its assets and liabilities again).
func (c *SumConverter) NoteOf(ctx context.Context, lists ...[]DatedAmount) ConversionNote {
	missing := map[string]*MissingRate{}
	for _, list := range lists {
		for _, g := range list {
			if g.Amount == 0 || g.Currency == c.reporting.Code || c.quote(ctx, g.Currency, g.Date) != nil {
				continue
			}
			m := missing[g.Currency]
			if m == nil {
				missing[g.Currency] = &MissingRate{Currency: g.Currency, Amount: g.Amount, DateFrom: g.Date, DateTo: g.Date}
				continue
			}
			m.Amount += g.Amount
			if g.Date.Before(m.DateFrom) {
				m.DateFrom = g.Date
			}
			if g.Date.After(m.DateTo) {
				m.DateTo = g.Date
			}
		}
	}
	n := ConversionNote{RatesAsOf: c.asOf, MissingRates: make([]MissingRate, 0, len(missing))}
	for _, m := range missing {
		n.MissingRates = append(n.MissingRates, *m)
	}
	slices.SortFunc(n.MissingRates, func(a, b MissingRate) int { return cmp.Compare(a.Currency, b.Currency) })
	return n
}

// join is the note of an answer whose figures two converters made: the
// newer rate date, and each currency's money left out by either, added.
func (n ConversionNote) join(o ConversionNote) ConversionNote {
	out := ConversionNote{RatesAsOf: n.RatesAsOf, MissingRates: slices.Clone(n.MissingRates)}
	if out.RatesAsOf == nil || (o.RatesAsOf != nil && o.RatesAsOf.After(*out.RatesAsOf)) {
		out.RatesAsOf = o.RatesAsOf
	}
	for _, m := range o.MissingRates {
		i := slices.IndexFunc(out.MissingRates, func(x MissingRate) bool { return x.Currency == m.Currency })
		if i < 0 {
			out.MissingRates = append(out.MissingRates, m)
			continue
		}
		x := &out.MissingRates[i]
		x.Amount += m.Amount
		if m.DateFrom.Before(x.DateFrom) {
			x.DateFrom = m.DateFrom
		}
		if m.DateTo.After(x.DateTo) {
			x.DateTo = m.DateTo
		}
	}
	if out.MissingRates == nil {
		out.MissingRates = []MissingRate{}
	}
	slices.SortFunc(out.MissingRates, func(a, b MissingRate) int { return cmp.Compare(a.Currency, b.Currency) })
	return out
}

// Err is the first error of a rate read the converter made past the ones
// read up front (a cross rate searched back before the range); nil almost
// always.
func (c *SumConverter) Err() error { return c.err }

// round is an exact reporting-currency value rounded half to even to the
// currency's decimals, in hundredths: whole yen are multiples of 100.
func (c *SumConverter) round(exact *big.Rat) Money {
	minor := min(c.reporting.Minor, 2)
	units := roundHalfEven(exact, minor)
	return Money(units.Int64() * pow10(2-minor).Int64())
}

// quote is the rate from code to the reporting currency on date, chosen by
// the rule of "Converting an amount"; nil when there is none.
func (c *SumConverter) quote(ctx context.Context, code string, date Date) *quotedRate {
	key := DatedAmount{Currency: code, Date: date}
	if q, seen := c.quotes[key]; seen {
		return q
	}
	q, err := chooseRate(ctx, c.rates, c.rates.userID, code, c.reporting.Code, date)
	var out *quotedRate
	switch {
	case err == nil:
		out = &q
	case !isRateMissing(err) && c.err == nil:
		c.err = err
	}
	c.quotes[key] = out
	return out
}

// rateSet answers LatestExchangeRate from the rates read up front, in the
// order the store chooses them (the latest date on or before, a manual rate
// before a fetched one on the same date). Every date of the request's groups is on or
// after from, so the set holds each pair's answer for them; only a cross
// rate whose legs have different dates can search before from, and then
// the set asks the store.
type rateSet struct {
	rates    []ExchangeRate
	from     Date
	userID   string
	fallback rateLookup
}

func (r rateSet) LatestExchangeRate(ctx context.Context, userID, base, quote string, date Date) (ExchangeRate, bool, error) {
	// The rates come in the store's order of choice, so the first that fits is the one.
	for _, x := range r.rates {
		if x.Base == base && x.Quote == quote && !x.Date.After(date) {
			return x, true, nil
		}
	}
	if date.Before(r.from) && r.fallback != nil {
		return r.fallback.LatestExchangeRate(ctx, userID, base, quote, date)
	}
	return ExchangeRate{}, false, nil
}

func isRateMissing(err error) bool {
	_, ok := err.(*RateMissingError)
	return ok
}

// datedGroups is one amount of each record as a group dated date: the
// figures of records that convert like balances, all at one day's rate.
func datedGroups[T any](records []T, date Date, of func(T) (currency string, amount Money)) []DatedAmount {
	out := make([]DatedAmount, len(records))
	for i, r := range records {
		code, amount := of(r)
		out[i] = DatedAmount{Currency: code, Date: date, Amount: amount}
	}
	return out
}

// negated is the groups with their amounts' signs turned: liabilities
// subtracted from assets.
func negated(groups []DatedAmount) []DatedAmount {
	out := make([]DatedAmount, len(groups))
	for i, g := range groups {
		out[i] = DatedAmount{Currency: g.Currency, Date: g.Date, Amount: -g.Amount}
	}
	return out
}

// methodGroups are the sums by method as groups to convert.
func (t ExpenseTotals) methodGroups() []DatedAmount {
	out := make([]DatedAmount, len(t.ByMethod))
	for i, m := range t.ByMethod {
		out[i] = DatedAmount{Currency: m.Currency, Date: m.Date, Amount: m.Amount}
	}
	return out
}

// categoryGroups are the sums by category as groups to convert.
func (t ExpenseTotals) categoryGroups() []DatedAmount {
	out := make([]DatedAmount, len(t.ByCategory))
	for i, c := range t.ByCategory {
		out[i] = DatedAmount{Currency: c.Currency, Date: c.Date, Amount: c.Amount}
	}
	return out
}

// ExpenseTotals converts totals summed by currency and date into one line
// per method and per category in the reporting currency, each rounded once;
// Total is the sum of every method's groups, rounded once. A line whose
// every group was left out keeps its count with an amount of 0.
func (c *SumConverter) ExpenseTotals(ctx context.Context, t ExpenseTotals) ExpenseTotals {
	out := ExpenseTotals{Count: t.Count}
	out.Total, _ = c.Total(ctx, t.methodGroups())
	methods := map[string]int{} // index in out.ByMethod
	methodGroups := map[string][]DatedAmount{}
	for _, m := range t.ByMethod {
		i, ok := methods[m.PaymentMethod]
		if !ok {
			i = len(out.ByMethod)
			methods[m.PaymentMethod] = i
			out.ByMethod = append(out.ByMethod, MethodTotal{PaymentMethod: m.PaymentMethod})
		}
		out.ByMethod[i].Count += m.Count
		methodGroups[m.PaymentMethod] = append(methodGroups[m.PaymentMethod], DatedAmount{m.Currency, m.Date, m.Amount})
	}
	for i, m := range out.ByMethod {
		out.ByMethod[i].Amount, _ = c.Total(ctx, methodGroups[m.PaymentMethod])
	}
	categories := map[string]int{} // index in out.ByCategory
	catGroups := map[string][]DatedAmount{}
	for _, x := range t.ByCategory {
		i, ok := categories[x.CategoryID]
		if !ok {
			i = len(out.ByCategory)
			categories[x.CategoryID] = i
			out.ByCategory = append(out.ByCategory, CategoryTotal{CategoryID: x.CategoryID, Category: x.Category})
		}
		out.ByCategory[i].Count += x.Count
		catGroups[x.CategoryID] = append(catGroups[x.CategoryID], DatedAmount{x.Currency, x.Date, x.Amount})
	}
	for i, x := range out.ByCategory {
		out.ByCategory[i].Amount, _ = c.Total(ctx, catGroups[x.CategoryID])
	}
	return out
}

// spendingTotals is the spending of §1.6 per category in the reporting
// currency, each category's lines converted at their dates' rates.
func (s *Service) spendingTotals(ctx context.Context, repo ReportRepo, userID, reporting string, from, to Date,
	f SpendingFilter) ([]CategoryTotal, ConversionNote, error) {
	raw, err := repo.SpendingTotals(ctx, userID, reporting, from, to, f)
	if err != nil {
		return nil, ConversionNote{}, err
	}
	t := ExpenseTotals{ByCategory: raw}
	conv, err := s.sumConverter(ctx, userID, reporting, t.categoryGroups())
	if err != nil {
		return nil, ConversionNote{}, err
	}
	return conv.ExpenseTotals(ctx, t).ByCategory, conv.NoteOf(ctx, t.categoryGroups()), conv.Err()
}

// spendingByCategory is spendingTotals of every line in the user's
// reporting currency: the one definition of "spending by category" that
// budgets, the dashboard and the reports share. An amount may be negative
// when refunds exceed spending.
func (s *Service) spendingByCategory(ctx context.Context, repo ReportRepo, userID string, from, to Date) ([]CategorySpending, ConversionNote, error) {
	totals, note, err := s.spendingTotals(ctx, repo, userID, s.currency(ctx, userID), from, to, SpendingFilter{})
	out := make([]CategorySpending, len(totals))
	for i, t := range totals {
		out[i] = CategorySpending{CategoryID: t.CategoryID, Category: t.Category, Amount: t.Amount}
	}
	return out, note, err
}
