package finance

import (
	"cmp"
	"context"
	"errors"
	"slices"
)

// Utilization levels of a card (domain.md §5.2), by utilization percent.
const (
	UtilizationLow      = "low"      // below 30%
	UtilizationModerate = "moderate" // 30% to below 70%
	UtilizationHigh     = "high"     // 70% to below 90%
	UtilizationCritical = "critical" // 90% and above
)

// UtilizationLevel names the band of a utilization percent (hundredths of a
// percent, as CardFigures.UtilizationPercent holds it).
func UtilizationLevel(percent Money) string {
	switch {
	case percent < 30_00:
		return UtilizationLow
	case percent < 70_00:
		return UtilizationModerate
	case percent < 90_00:
		return UtilizationHigh
	}
	return UtilizationCritical
}

// CardFigureRepo gathers what card metrics and the usage summary need beyond
// the card figures that CardRepo computes. cardIDs are cards of the caller,
// already resolved: the queries seek the per-card indexes.
type CardFigureRepo interface {
	// CardMetricTotals returns, per card, its open statements' figures as
	// of today and its installment figures for the month [from, to].
	CardMetricTotals(ctx context.Context, cardIDs []string, today, from, to Date) (map[string]CardMetricTotals, error)
	// CardUsage returns, per card with anything in [from, to], the sums of
	// its rows and posted payments dated in the range and its purchases by
	// expense category.
	CardUsage(ctx context.Context, cardIDs []string, from, to Date) (map[string]CardUsageTotals, error)
}

// CardMetricTotals are the sums a card's metrics add to its figures.
type CardMetricTotals struct {
	MinimumDueOpen    Money    // Σ max(0, minimum_due − paid_total) over open statements
	OverdueSOACount   int      // open statements due before today
	NextDue           *NextDue // the open statement due first; nil when none is open
	ActivePlans       int      // installment plans in status active
	MonthInstallments Money    // non-voided installment rows dated in the month
}

// NextDue is the open statement a card must pay first.
type NextDue struct {
	SOAID     string `json:"soa_id"`
	DueDate   Date   `json:"due_date"`
	Remaining Money  `json:"remaining"`
}

// MetricFigures are the amounts of GET /credit-cards/metrics, per card and
// summed over the cards (domain.md §5.2).
type MetricFigures struct {
	CreditLimit                  Money `json:"credit_limit"`
	OutstandingBalance           Money `json:"outstanding_balance"`
	AvailableCredit              Money `json:"available_credit"`
	UtilizationPercent           Money `json:"utilization_percent"` // a percent with 2 decimals, exact
	UnbilledTotal                Money `json:"unbilled_total"`
	OpenStatementBalance         Money `json:"open_statement_balance"`
	MinimumDueOpen               Money `json:"minimum_due_open"`
	OverdueSOACount              int   `json:"overdue_soa_count"`
	ActiveInstallmentPlans       int   `json:"active_installment_plans"`
	MonthlyInstallmentCommitment Money `json:"monthly_installment_commitment"`
}

// CardMetric is one card of the metrics, its figures in the card's Currency.
type CardMetric struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Status   string `json:"status"`
	Currency string `json:"currency"`
	MetricFigures
	UtilizationLevel  string   `json:"utilization_level"`
	NextStatementDate Date     `json:"next_statement_date"`
	NextDue           *NextDue `json:"next_due"`
}

// CardMetrics is GET /credit-cards/metrics. Totals are in the reporting
// Currency: each card's figures converted at today's rate, as balances are.
type CardMetrics struct {
	Currency string `json:"currency"`
	ConversionNote
	Totals MetricFigures `json:"totals"`
	Cards  []CardMetric  `json:"cards"`
}

// CardMetricsFilter narrows GET /credit-cards/metrics.
type CardMetricsFilter struct {
	CardID          string // "" = every card
	IncludeArchived bool
}

// BuildCardMetrics combines the cards (their figures computed) with their
// metric totals. The totals' utilization is that of the summed limit and
// balance, not an average of the cards'.
func BuildCardMetrics(cards []CreditCard, totals map[string]CardMetricTotals, currency string) CardMetrics {
	out := CardMetrics{Currency: currency, Cards: make([]CardMetric, len(cards))}
	sum := &out.Totals
	for i, c := range cards {
		t := totals[c.ID]
		m := CardMetric{ID: c.ID, Name: c.Name, Status: c.Status, Currency: c.Currency,
			MetricFigures: MetricFigures{
				CreditLimit: c.CreditLimit, OutstandingBalance: c.OutstandingBalance, AvailableCredit: c.AvailableCredit,
				UtilizationPercent: c.UtilizationPercent, UnbilledTotal: c.UnbilledTotal, OpenStatementBalance: c.OpenStatementBalance,
				MinimumDueOpen: t.MinimumDueOpen, OverdueSOACount: t.OverdueSOACount,
				ActiveInstallmentPlans: t.ActivePlans, MonthlyInstallmentCommitment: t.MonthInstallments,
			},
			UtilizationLevel: UtilizationLevel(c.UtilizationPercent), NextStatementDate: c.NextStatementDate, NextDue: t.NextDue}
		out.Cards[i] = m
		sum.CreditLimit += m.CreditLimit
		sum.OutstandingBalance += m.OutstandingBalance
		sum.UnbilledTotal += m.UnbilledTotal
		sum.OpenStatementBalance += m.OpenStatementBalance
		sum.MinimumDueOpen += m.MinimumDueOpen
		sum.OverdueSOACount += m.OverdueSOACount
		sum.ActiveInstallmentPlans += m.ActiveInstallmentPlans
		sum.MonthlyInstallmentCommitment += m.MonthlyInstallmentCommitment
	}
	sum.AvailableCredit = sum.CreditLimit - sum.OutstandingBalance
	sum.UtilizationPercent = Percent(max(0, sum.OutstandingBalance), sum.CreditLimit)
	return out
}

// CardMetrics is GET /credit-cards/metrics: each card's figures (§4.3) with
// what it owes on open statements and in installments, and their totals.
// Active cards only unless f.IncludeArchived; f.CardID narrows to one card,
// and a card that is not the caller's gives no cards.
func (s *Service) CardMetrics(ctx context.Context, userID string, f CardMetricsFilter) (CardMetrics, error) {
	today := s.today(ctx, userID)
	status := StatusActive
	if f.IncludeArchived {
		status = StatusAll
	}
	cards, err := s.cardsFor(ctx, userID, f.CardID, status, today)
	if err != nil {
		return CardMetrics{}, err
	}
	from, to := MonthRange(today)
	totals, err := s.store.Read().CardMetricTotals(ctx, cardIDs(cards), today, from, to)
	if err != nil {
		return CardMetrics{}, err
	}
	m := BuildCardMetrics(cards, totals, s.currency(ctx, userID))
	err = s.convertCardTotals(ctx, userID, &m, today)
	return m, err
}

// convertCardTotals replaces the amounts of m's totals, which
// BuildCardMetrics adds as they are, with the cards' figures converted to
// m.Currency at the rate of today, as balances convert (docs/domain.md,
// "Converting for summaries"). A card whose currency has no rate is left
// out of every amount of the totals, and named by its credit limit, which
// every card has; the counts keep every card.
func (s *Service) convertCardTotals(ctx context.Context, userID string, m *CardMetrics, today Date) error {
	figure := func(of func(MetricFigures) Money) []DatedAmount {
		return datedGroups(m.Cards, today, func(c CardMetric) (string, Money) { return c.Currency, of(c.MetricFigures) })
	}
	limits := figure(func(f MetricFigures) Money { return f.CreditLimit })
	conv, err := s.sumConverter(ctx, userID, m.Currency, limits)
	if err != nil {
		return err
	}
	t := &m.Totals
	t.CreditLimit = conv.sum(ctx, limits)
	t.OutstandingBalance = conv.sum(ctx, figure(func(f MetricFigures) Money { return f.OutstandingBalance }))
	t.UnbilledTotal = conv.sum(ctx, figure(func(f MetricFigures) Money { return f.UnbilledTotal }))
	t.OpenStatementBalance = conv.sum(ctx, figure(func(f MetricFigures) Money { return f.OpenStatementBalance }))
	t.MinimumDueOpen = conv.sum(ctx, figure(func(f MetricFigures) Money { return f.MinimumDueOpen }))
	t.MonthlyInstallmentCommitment = conv.sum(ctx, figure(func(f MetricFigures) Money { return f.MonthlyInstallmentCommitment }))
	t.AvailableCredit = t.CreditLimit - t.OutstandingBalance
	t.UtilizationPercent = Percent(max(0, t.OutstandingBalance), t.CreditLimit)
	m.ConversionNote = conv.NoteOf(ctx, limits)
	return conv.Err()
}

// cardsFor returns the caller's cards in status (active, or all), by name,
// with their figures; with cardID, only that card, if it is the caller's and
// in status.
func (s *Service) cardsFor(ctx context.Context, userID, cardID, status string, today Date) ([]CreditCard, error) {
	r := s.store.Read()
	if cardID == "" {
		cards, _, err := r.ListCreditCards(ctx, userID, CardFilter{Status: status},
			ListParams{Page: 1, Limit: allRows, SortBy: CardList.Sorts[0]}, today)
		return cards, err
	}
	c, err := r.CreditCard(ctx, userID, cardID, today)
	switch {
	case errors.Is(err, ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	case status != StatusAll && c.Status != status:
		return nil, nil
	}
	return []CreditCard{c}, nil
}

func cardIDs(cards []CreditCard) []string {
	ids := make([]string, len(cards))
	for i, c := range cards {
		ids[i] = c.ID
	}
	return ids
}

// UsageFigures are the sums of GET /credit-cards/usage-summary, per card and
// over the cards, for rows dated in the month (domain.md §5.2).
type UsageFigures struct {
	PurchasesTotal    Money `json:"purchases_total"` // purchases not voided, converted ones included
	PurchasesCount    int   `json:"purchases_count"`
	FeesTotal         Money `json:"fees_total"`
	InterestTotal     Money `json:"interest_total"` // interest rows and installment rows' interest portions
	RefundsTotal      Money `json:"refunds_total"`
	InstallmentsTotal Money `json:"installments_total"` // installment rows' amounts
	PaymentsTotal     Money `json:"payments_total"`     // posted statement payments
}

// CardUsageTotals are what the store sums for one card's month: the figures
// and the purchase amounts by expense category (a split purchase by its
// parts), in no particular order.
type CardUsageTotals struct {
	UsageFigures
	Categories []CategoryTotal
}

// UsageStatement is a statement dated in the month of a usage summary.
type UsageStatement struct {
	ID               string `json:"id"`
	StatementDate    Date   `json:"statement_date"`
	StatementBalance Money  `json:"statement_balance"`
	DueDate          Date   `json:"due_date"`
	Status           string `json:"status"`
}

// CategoryAmount is one category of a card's top categories.
type CategoryAmount struct {
	Category string `json:"category"`
	Amount   Money  `json:"amount"`
}

// MaxTopCategories bounds a card's top_categories.
const MaxTopCategories = 5

// CardMonthUsage is one card of the usage summary.
type CardMonthUsage struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Status   string `json:"status"`
	Currency string `json:"currency"` // the card's: its figures are in it
	UsageFigures
	Statements    []UsageStatement `json:"statements"`
	TopCategories []CategoryAmount `json:"top_categories"`
}

// CardUsageSummary is GET /credit-cards/usage-summary.
type CardUsageSummary struct {
	Month    string `json:"month"`
	Currency string `json:"currency"` // the reporting currency, the totals'
	ConversionNote
	Cards  []CardMonthUsage `json:"cards"`
	Totals UsageFigures     `json:"totals"`
}

// active reports whether the card had anything in the month: a counted row,
// a payment or a statement. Every amount is positive, so a sum of 0 means no rows.
func (u CardMonthUsage) active() bool {
	return u.UsageFigures != (UsageFigures{}) || len(u.Statements) > 0
}

// topCategories keeps the n largest categories, ties by name.
func topCategories(cats []CategoryTotal, n int) []CategoryAmount {
	cats = slices.Clone(cats)
	slices.SortFunc(cats, func(a, b CategoryTotal) int {
		return cmp.Or(cmp.Compare(b.Amount, a.Amount), cmp.Compare(a.Category, b.Category), cmp.Compare(a.CategoryID, b.CategoryID))
	})
	out := make([]CategoryAmount, 0, min(n, len(cats)))
	for _, c := range cats[:min(n, len(cats))] {
		out = append(out, CategoryAmount{Category: c.Category, Amount: c.Amount})
	}
	return out
}

// CardUsageSummary is GET /credit-cards/usage-summary for the month starting
// on month (zero: the current month in the user's timezone). It covers the
// user's active cards, and archived cards only when they had something in
// the month, by name; cardID narrows to one of them.
func (s *Service) CardUsageSummary(ctx context.Context, userID string, month Date, cardID string) (CardUsageSummary, error) {
	today := s.today(ctx, userID)
	if month.IsZero() {
		month = today
	}
	from, to := MonthRange(month)
	cards, err := s.cardsFor(ctx, userID, cardID, StatusAll, today)
	if err != nil {
		return CardUsageSummary{}, err
	}
	r := s.store.Read()
	sums, err := r.CardUsage(ctx, cardIDs(cards), from, to)
	if err != nil {
		return CardUsageSummary{}, err
	}
	soas, _, err := r.ListSOAs(ctx, userID, SOAFilter{CardID: cardID, DateFrom: from, DateTo: to},
		ListParams{Page: 1, Limit: allRows, SortBy: SOAList.Sorts[0]})
	if err != nil {
		return CardUsageSummary{}, err
	}
	statements := map[string][]UsageStatement{}
	for _, a := range soas {
		statements[a.CreditCardID] = append(statements[a.CreditCardID], UsageStatement{ID: a.ID,
			StatementDate: a.StatementDate, StatementBalance: a.StatementBalance, DueDate: a.DueDate, Status: a.Status})
	}
	out := CardUsageSummary{Month: from.MonthString(), Currency: s.currency(ctx, userID), Cards: []CardMonthUsage{}}
	for _, c := range cards {
		u := CardMonthUsage{ID: c.ID, Name: c.Name, Status: c.Status, Currency: c.Currency, UsageFigures: sums[c.ID].UsageFigures,
			Statements: statements[c.ID], TopCategories: topCategories(sums[c.ID].Categories, MaxTopCategories)}
		if c.Status != StatusActive && !u.active() {
			continue
		}
		if u.Statements == nil {
			u.Statements = []UsageStatement{}
		}
		out.Cards = append(out.Cards, u)
	}
	// The month converts at the rate of its last day, today for the
	// current month, as the bills overview converts its range.
	rateDay := to
	if today.Before(to) {
		rateDay = today
	}
	err = s.convertUsageTotals(ctx, userID, &out, rateDay)
	return out, err
}

// convertUsageTotals sets out's totals to its cards' figures converted to
// out.Currency at the rate of date (docs/domain.md, "Converting for
// summaries"). A card whose currency has no rate is left out of every
// amount, named by what it charged in the month (purchases, fees,
// interest and installments); the purchase count keeps every card.
func (s *Service) convertUsageTotals(ctx context.Context, userID string, out *CardUsageSummary, date Date) error {
	figure := func(of func(UsageFigures) Money) []DatedAmount {
		return datedGroups(out.Cards, date, func(c CardMonthUsage) (string, Money) { return c.Currency, of(c.UsageFigures) })
	}
	charged := figure(func(u UsageFigures) Money {
		return u.PurchasesTotal + u.FeesTotal + u.InterestTotal + u.InstallmentsTotal
	})
	conv, err := s.sumConverter(ctx, userID, out.Currency, charged)
	if err != nil {
		return err
	}
	t := UsageFigures{
		PurchasesTotal:    conv.sum(ctx, figure(func(u UsageFigures) Money { return u.PurchasesTotal })),
		FeesTotal:         conv.sum(ctx, figure(func(u UsageFigures) Money { return u.FeesTotal })),
		InterestTotal:     conv.sum(ctx, figure(func(u UsageFigures) Money { return u.InterestTotal })),
		RefundsTotal:      conv.sum(ctx, figure(func(u UsageFigures) Money { return u.RefundsTotal })),
		InstallmentsTotal: conv.sum(ctx, figure(func(u UsageFigures) Money { return u.InstallmentsTotal })),
		PaymentsTotal:     conv.sum(ctx, figure(func(u UsageFigures) Money { return u.PaymentsTotal })),
	}
	for _, c := range out.Cards {
		t.PurchasesCount += c.PurchasesCount
	}
	out.Totals = t
	out.ConversionNote = conv.NoteOf(ctx, charged)
	return conv.Err()
}
