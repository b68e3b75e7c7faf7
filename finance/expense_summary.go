package finance

import (
	"cmp"
	"context"
	"slices"
)

// DefaultCurrency labels amounts until the user picks another (app settings).
// It is a label only: nothing is ever converted.
const DefaultCurrency = "PHP"

// currency is the user's currency label (app settings).
func (s *Service) currency(ctx context.Context, userID string) string {
	return s.settingsOrDefault(ctx, userID).settings.Currency
}

// ExpenseTotals are the sums of the non-voided expenses over a date range.
// A split expense counts under its parts' categories (each part once), and
// under its own payment method once.
type ExpenseTotals struct {
	Total      Money
	Count      int // expenses, not parts
	ByCategory []CategoryTotal
	ByMethod   []MethodTotal
}

// CategoryTotal is the spending of one category: expenses and split parts.
// As the store sums it, it is one currency's (and, for a currency other
// than the reporting one, one date's); converted, the category's whole.
type CategoryTotal struct {
	CategoryID string
	Category   string
	Currency   string
	Date       Date
	Amount     Money
	Count      int
}

// MethodTotal is the spending paid by one method, summed as CategoryTotal is.
type MethodTotal struct {
	PaymentMethod string
	Currency      string
	Date          Date
	Amount        Money
	Count         int
}

// ExpenseSummary is GET /expenses/summary (domain.md §5.1).
type ExpenseSummary struct {
	DateFrom Date   `json:"date_from"`
	DateTo   Date   `json:"date_to"`
	Currency string `json:"currency"`
	ConversionNote
	TotalExpenses   Money           `json:"total_expenses"`
	Count           int             `json:"count"`
	DailyAverage    Money           `json:"daily_average"`
	ByCategory      []CategoryShare `json:"by_category"`
	ByPaymentMethod []MethodShare   `json:"by_payment_method"`
	OtherSpending   OtherSpending   `json:"other_spending"`
	TotalSpending   Money           `json:"total_spending"`
	PreviousPeriod  PeriodTotal     `json:"previous_period"`
	ChangePercent   *Money          `json:"change_percent"` // a percent with 2 decimals; null when the previous total is 0
}

// CategoryShare is one category of the summary; Percent is of total_expenses.
type CategoryShare struct {
	CategoryID string `json:"category_id"`
	Category   string `json:"category"`
	Amount     Money  `json:"amount"`
	Count      int    `json:"count"`
	Percent    Money  `json:"percent"`
}

// MethodShare is one payment method of the summary.
type MethodShare struct {
	PaymentMethod string `json:"payment_method"`
	Amount        Money  `json:"amount"`
	Count         int    `json:"count"`
}

// OtherSpending is the spending no expense carries (domain.md §1.6). Card
// refunds are subtracted: a returned purchase nets out.
type OtherSpending struct {
	CardFeesInterest Money `json:"card_fees_interest"`
	LoanInterest     Money `json:"loan_interest"`
	CardRefunds      Money `json:"card_refunds"`
}

// PeriodTotal is the expense total of the period before the summary's.
type PeriodTotal struct {
	DateFrom      Date  `json:"date_from"`
	DateTo        Date  `json:"date_to"`
	TotalExpenses Money `json:"total_expenses"`
}

// MonthRange returns the first and last day of d's month.
func MonthRange(d Date) (Date, Date) {
	return NewDate(d.Year(), d.Month(), 1), NewDate(d.Year(), d.Month(), DaysInMonth(d.Year(), d.Month()))
}

// PreviousPeriod is the range a summary compares with (domain.md §5.1):
// the previous calendar month when from..to is exactly one whole calendar
// month (Nov 1-30 compares with Oct 1-31, and March with all of February,
// which "the 31 days before" would not give), otherwise the range of equal
// length that ends the day before from.
func PreviousPeriod(from, to Date) (Date, Date) {
	if first, last := MonthRange(from); from == first && to == last {
		return MonthRange(from.AddDays(-1))
	}
	days := from.DaysUntil(to) + 1
	return from.AddDays(-days), from.AddDays(-1)
}

// BuildExpenseSummary does the arithmetic of §5.1 over the sums of the range
// (cur), of the previous period (prev) and of the other spending.
func BuildExpenseSummary(from, to Date, currency string, cur, prev ExpenseTotals, card CardSpending, loanInterest Money) ExpenseSummary {
	days := int64(from.DaysUntil(to) + 1)
	prevFrom, prevTo := PreviousPeriod(from, to)
	out := ExpenseSummary{
		DateFrom: from, DateTo: to, Currency: currency,
		TotalExpenses: cur.Total, Count: cur.Count,
		DailyAverage:    Money(halfUpDiv(int64(cur.Total), days)),
		ByCategory:      make([]CategoryShare, 0, len(cur.ByCategory)),
		ByPaymentMethod: make([]MethodShare, len(PaymentMethods)),
		OtherSpending:   OtherSpending{CardFeesInterest: card.FeesInterest, LoanInterest: loanInterest, CardRefunds: card.Refunds},
		PreviousPeriod:  PeriodTotal{DateFrom: prevFrom, DateTo: prevTo, TotalExpenses: prev.Total},
	}
	out.TotalSpending = cur.Total + card.FeesInterest + loanInterest - card.Refunds
	for _, c := range cur.ByCategory {
		out.ByCategory = append(out.ByCategory, CategoryShare{CategoryID: c.CategoryID, Category: c.Category,
			Amount: c.Amount, Count: c.Count, Percent: Percent(c.Amount, cur.Total)})
	}
	slices.SortFunc(out.ByCategory, func(a, b CategoryShare) int {
		if c := cmp.Compare(b.Amount, a.Amount); c != 0 {
			return c
		}
		return cmp.Compare(a.Category, b.Category)
	})
	for i, m := range PaymentMethods {
		out.ByPaymentMethod[i] = MethodShare{PaymentMethod: m}
		for _, t := range cur.ByMethod {
			if t.PaymentMethod == m {
				out.ByPaymentMethod[i].Amount, out.ByPaymentMethod[i].Count = t.Amount, t.Count
			}
		}
	}
	if prev.Total != 0 {
		change := Percent(cur.Total-prev.Total, prev.Total)
		out.ChangePercent = &change
	}
	return out
}

// ExpenseSummary is GET /expenses/summary: the user's spending between from
// and to, which default independently to the first and last day of the
// current month.
func (s *Service) ExpenseSummary(ctx context.Context, userID string, from, to Date) (ExpenseSummary, error) {
	first, last := MonthRange(s.today(ctx, userID))
	if from.IsZero() {
		from = first
	}
	if to.IsZero() {
		to = last
	}
	if from.After(to) {
		return ExpenseSummary{}, Invalid("dateFrom", "must not be after dateTo ("+to.String()+")")
	}
	repo := s.store.Read()
	reporting := s.currency(ctx, userID)
	cur, err := repo.ExpenseTotals(ctx, userID, reporting, from, to)
	if err != nil {
		return ExpenseSummary{}, err
	}
	prevFrom, prevTo := PreviousPeriod(from, to)
	prev, err := repo.ExpenseTotals(ctx, userID, reporting, prevFrom, prevTo)
	if err != nil {
		return ExpenseSummary{}, err
	}
	card, err := repo.CardSpending(ctx, userID, from, to)
	if err != nil {
		return ExpenseSummary{}, err
	}
	loanInterest, err := repo.LoanInterestPaid(ctx, userID, from, to)
	if err != nil {
		return ExpenseSummary{}, err
	}
	curGroups, prevGroups := cur.methodGroups(), prev.methodGroups()
	conv, err := s.sumConverter(ctx, userID, reporting, curGroups, prevGroups, cur.categoryGroups())
	if err != nil {
		return ExpenseSummary{}, err
	}
	out := BuildExpenseSummary(from, to, reporting, conv.ExpenseTotals(ctx, cur), conv.ExpenseTotals(ctx, prev), card, loanInterest)
	// Each expense is under one method, so the methods' groups are each
	// expense once: what they leave out is what the totals leave out.
	out.ConversionNote = conv.NoteOf(ctx, curGroups, prevGroups)
	return out, conv.Err()
}
