package finance

import (
	"cmp"
	"context"
	"slices"
)

// Dashboard is GET /dashboard (domain.md §5.5): one month at a glance.
type Dashboard struct {
	Month    string `json:"month"`
	Currency string `json:"currency"`
	// One note for every converted figure of the dashboard: the income and
	// spending totals, the categories and budgets, the accounts' total.
	ConversionNote
	// MonthNote is the part of it that the month's income and spending
	// left out, for Home, whose net worth names the balances' part.
	MonthNote     ConversionNote      `json:"-"`
	Totals        DashboardTotals     `json:"totals"`
	Accounts      DashboardAccounts   `json:"accounts"`
	CreditCards   DashboardCards      `json:"credit_cards"`
	Bills         DashboardBills      `json:"bills"`
	Loans         DashboardLoans      `json:"loans"`
	Installments  DashboardPlans      `json:"installments"`
	Budgets       []DashboardBudget   `json:"budgets"`
	TopCategories []DashboardCategory `json:"top_categories"`
	Recent        []RecentEntry       `json:"recent"`
}

// DashboardTotals are the month's income and spending (§1.6), by date.
type DashboardTotals struct {
	Income   Money `json:"income"`
	Spending Money `json:"spending"`
	Net      Money `json:"net"`
}

// DashboardAccounts are the active accounts with their balances today.
type DashboardAccounts struct {
	TotalBalance Money              `json:"total_balance"`
	Items        []DashboardAccount `json:"items"`
}

// DashboardAccount is one active account.
type DashboardAccount struct {
	ID             string      `json:"id"`
	Name           string      `json:"name"`
	Type           AccountType `json:"type"`
	Currency       string      `json:"currency"` // current_balance is in it, not converted
	CurrentBalance Money       `json:"current_balance"`
}

// DashboardCards are the active cards' figures today (as GET
// /credit-cards/metrics totals them) and the statement to pay first.
type DashboardCards struct {
	OutstandingBalance Money             `json:"outstanding_balance"`
	AvailableCredit    Money             `json:"available_credit"`
	UtilizationPercent Money             `json:"utilization_percent"`
	OpenSOACount       int               `json:"open_soa_count"`
	OverdueSOACount    int               `json:"overdue_soa_count"`
	NextDue            *DashboardNextDue `json:"next_due"`
}

// DashboardNextDue is the open statement due first among the active cards.
type DashboardNextDue struct {
	SOAID          string `json:"soa_id"`
	CreditCardName string `json:"credit_card_name"`
	DueDate        Date   `json:"due_date"`
	Remaining      Money  `json:"remaining"`
	Currency       string `json:"currency"` // the card's: Remaining is in it
}

// DashboardBills are the bills due in the month (§5.4).
type DashboardBills struct {
	DueAmount       Money       `json:"due_amount"`
	PaidAmount      Money       `json:"paid_amount"`
	RemainingAmount Money       `json:"remaining_amount"`
	Overdue         CountAmount `json:"overdue"`
	Upcoming        []Bill      `json:"upcoming"`
}

// DashboardLoans are the loan dues of the month (§5.6).
type DashboardLoans struct {
	DueAmount       Money `json:"due_amount"`
	PaidAmount      Money `json:"paid_amount"`
	RemainingAmount Money `json:"remaining_amount"`
	OverdueCount    int   `json:"overdue_count"`
}

// DashboardPlans are the active installment plans of the active cards and
// the installment rows dated in the month.
type DashboardPlans struct {
	ActivePlans       int   `json:"active_plans"`
	MonthlyCommitment Money `json:"monthly_commitment"`
}

// DashboardBudget is a budget threshold measured against the month.
type DashboardBudget struct {
	Category     string `json:"category"`
	MonthlyLimit Money  `json:"monthly_limit"`
	Spent        Money  `json:"spent"`
	PercentUsed  Money  `json:"percent_used"`
	State        string `json:"state"`
}

// DashboardCategory is one of the month's top spending categories.
type DashboardCategory struct {
	CategoryID string `json:"category_id"`
	Category   string `json:"category"`
	Amount     Money  `json:"amount"`
}

// Dashboard sizes.
const (
	DashboardTopCategories = 5
	DashboardRecent        = 5
)

// Dashboard is GET /dashboard for the month starting on month (zero: the
// current month in the user's timezone). Balances, card figures and overdue
// counts are as of today; everything dated is dated in the month.
func (s *Service) Dashboard(ctx context.Context, userID string, month Date) (Dashboard, error) {
	prefs := s.settingsOrDefault(ctx, userID)
	today := Today(s.now(), prefs.loc)
	if month.IsZero() {
		month = today
	}
	from, to := MonthRange(month)
	repo := s.store.Read()
	out := Dashboard{Month: from.MonthString(), Currency: prefs.settings.Currency}

	spending, spendingNote, err := s.spendingByCategory(ctx, repo, userID, from, to)
	if err != nil {
		return out, err
	}
	for _, c := range spending {
		out.Totals.Spending += c.Amount
	}
	out.TopCategories = topSpending(spending, DashboardTopCategories)

	limits, err := repo.BudgetThresholds(ctx, userID)
	if err != nil {
		return out, err
	}
	out.Budgets = make([]DashboardBudget, 0, len(limits))
	for _, t := range measureLimits(limits, spending) {
		out.Budgets = append(out.Budgets, DashboardBudget{Category: t.Category, MonthlyLimit: t.MonthlyLimit,
			Spent: t.Spent, PercentUsed: t.PercentUsed, State: t.State})
	}

	accounts, _, err := repo.ListAccounts(ctx, userID, AccountFilter{Status: StatusActive},
		ListParams{Page: 1, Limit: allRows, SortBy: AccountList.Sorts[0]})
	if err != nil {
		return out, err
	}
	out.Accounts.Items = make([]DashboardAccount, len(accounts))
	balances := make([]DatedAmount, len(accounts))
	for i, a := range accounts {
		out.Accounts.Items[i] = DashboardAccount{ID: a.ID, Name: a.Name, Type: a.Type, Currency: a.Currency, CurrentBalance: a.CurrentBalance}
		balances[i] = DatedAmount{Currency: a.Currency, Date: today, Amount: a.CurrentBalance}
	}
	// Income converts at each day's rate, as spending does, and balances in
	// other currencies at today's rate, as net worth's do; an amount without
	// a rate is left out and named, never added 1:1.
	income, err := repo.IncomeTotals(ctx, userID, prefs.settings.Currency, from, to)
	if err != nil {
		return out, err
	}
	conv, err := s.sumConverter(ctx, userID, prefs.settings.Currency, income, balances)
	if err != nil {
		return out, err
	}
	out.Totals.Income, _ = conv.Total(ctx, income)
	out.Totals.Net = out.Totals.Income - out.Totals.Spending
	out.Accounts.TotalBalance, _ = conv.Total(ctx, balances)
	out.MonthNote = spendingNote.join(conv.NoteOf(ctx, income))
	out.ConversionNote = out.MonthNote.join(conv.NoteOf(ctx, balances))
	if err := conv.Err(); err != nil {
		return out, err
	}

	// Cards, bills and loans convert as their own summaries do (amounts due
	// at today's rate); what they leave out joins the dashboard's one note.
	var cardsNote, billsNote, loansNote ConversionNote
	if out.CreditCards, out.Installments, cardsNote, err = s.dashboardCards(ctx, userID, out.Currency, today, from, to); err != nil {
		return out, err
	}
	if out.Bills, billsNote, err = s.dashboardBills(ctx, userID, from); err != nil {
		return out, err
	}
	if out.Loans, loansNote, err = s.dashboardLoans(ctx, userID, out.Currency, from, to, today); err != nil {
		return out, err
	}
	out.ConversionNote = out.ConversionNote.join(cardsNote).join(billsNote).join(loansNote)
	recent, err := repo.RecentEntries(ctx, userID, from, to, DashboardRecent)
	if err != nil {
		return out, err
	}
	out.Recent = append(make([]RecentEntry, 0, len(recent)), recent...)
	return out, nil
}

// dashboardCards totals the active cards as GET /credit-cards/metrics does,
// converted to reporting, with the installment rows of the dashboard's month.
func (s *Service) dashboardCards(ctx context.Context, userID, reporting string, today, from, to Date) (DashboardCards, DashboardPlans, ConversionNote, error) {
	cards, err := s.cardsFor(ctx, userID, "", StatusActive, today)
	if err != nil {
		return DashboardCards{}, DashboardPlans{}, ConversionNote{}, err
	}
	totals, err := s.store.Read().CardMetricTotals(ctx, cardIDs(cards), today, from, to)
	if err != nil {
		return DashboardCards{}, DashboardPlans{}, ConversionNote{}, err
	}
	m := BuildCardMetrics(cards, totals, reporting)
	if err := s.convertCardTotals(ctx, userID, &m, today); err != nil {
		return DashboardCards{}, DashboardPlans{}, ConversionNote{}, err
	}
	out := DashboardCards{OutstandingBalance: m.Totals.OutstandingBalance, AvailableCredit: m.Totals.AvailableCredit,
		UtilizationPercent: m.Totals.UtilizationPercent, OverdueSOACount: m.Totals.OverdueSOACount}
	for _, c := range cards {
		out.OpenSOACount += c.OpenSOACount
		next := totals[c.ID].NextDue
		if next == nil {
			continue
		}
		if out.NextDue == nil || next.DueDate.Before(out.NextDue.DueDate) ||
			(next.DueDate == out.NextDue.DueDate && next.SOAID < out.NextDue.SOAID) {
			out.NextDue = &DashboardNextDue{SOAID: next.SOAID, CreditCardName: c.Name, DueDate: next.DueDate, Remaining: next.Remaining,
				Currency: c.Currency}
		}
	}
	plans := DashboardPlans{ActivePlans: m.Totals.ActiveInstallmentPlans, MonthlyCommitment: m.Totals.MonthlyInstallmentCommitment}
	return out, plans, m.ConversionNote, nil
}

// topSpending keeps the n categories with the most spending, ties by name.
func topSpending(spending []CategorySpending, n int) []DashboardCategory {
	sorted := slices.Clone(spending)
	slices.SortFunc(sorted, func(a, b CategorySpending) int {
		return cmp.Or(cmp.Compare(b.Amount, a.Amount), cmp.Compare(nameKey(a.Category), nameKey(b.Category)),
			cmp.Compare(a.CategoryID, b.CategoryID))
	})
	out := make([]DashboardCategory, 0, min(n, len(sorted)))
	for _, c := range sorted[:min(n, len(sorted))] {
		out = append(out, DashboardCategory{CategoryID: c.CategoryID, Category: c.Category, Amount: c.Amount})
	}
	return out
}
