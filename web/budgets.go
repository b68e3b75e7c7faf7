package web

// The Budgets page: each category's monthly limit with a bar of a month's
// spending against it and one of the month before, the budgeted
// categories' total and the spending outside them, and the limits edited
// in place. The figures are the budget-vs-actual report's, measured by the
// same finance code as Home's and GET /dashboard's budgets; saving replaces
// the whole set, as PUT /user-settings/budget-thresholds does, in one
// transaction.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/queryparam"
)

// BudgetsPath is the Budgets page.
const BudgetsPath = "/budgets"

// settingsBudgetsPath is where budgets lived under Settings: bookmarks
// still lead to them, and a form left open there still saves.
const settingsBudgetsPath = "/settings/budgets"

func (s *Site) registerWebAppBudgetRoutes() {
	s.page(http.MethodGet, BudgetsPath, s.budgetsPage)
	s.page(http.MethodPost, BudgetsPath, s.budgetsSubmit)
	s.page(http.MethodGet, settingsBudgetsPath, s.settingsBudgetsPage)
	s.page(http.MethodPost, settingsBudgetsPath, s.budgetsSubmit)
}

// budgetRow is one budgeted category: its limit's form and, once saved, its
// bars for the page's month and the month before.
type budgetRow struct {
	ID, Category   string
	Color          string // the category's colour, "" for none
	Limit, Warning string // the form's values
	Now, Last      *budgetBar
	Fields         map[string]string // category, monthly_limit, warning_percent
}

type budgetsData struct {
	Show        display
	Month, Prev finance.Date // first days of the page's month and the month before
	Months      monthNav
	// MonthField is the page's month, sent back with the form so a save
	// returns to it: "" for the current month.
	MonthField  string
	WarnDefault int
	Rows        []budgetRow
	// Total and LastTotal measure all budgeted categories together (nil
	// without budgets); Unbudgeted is the month's spending outside them.
	Total, LastTotal *budgetBar
	Unbudgeted       finance.Money
	// Note names the spending of the page's month left out for want of a
	// rate (the page says nothing when nothing was left out).
	Note conversionNote
	// Add is the form for a new limit, on one of Options: the active
	// expense categories without one.
	Add     budgetRow
	Options []string
}

// budgetsView is the Budgets page of the month holding month (zero: the
// current month in the user's timezone).
func (s *Site) budgetsView(ctx context.Context, u finance.User, month finance.Date) (budgetsData, error) {
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return budgetsData{}, err
	}
	st, err := s.ledger.AppSettings(ctx, u.ID)
	if err != nil {
		return budgetsData{}, err
	}
	thisMonth := finance.MonthAdd(show.today, 0, 1)
	if month.IsZero() {
		month = thisMonth
	}
	d := budgetsData{Show: show, Month: finance.MonthAdd(month, 0, 1), Prev: finance.MonthAdd(month, -1, 1),
		WarnDefault: st.BudgetWarningPercent, Add: budgetRow{Fields: map[string]string{}}}
	d.Months = monthsAround(BudgetsPath, d.Month, show.today)
	if d.Month != thisMonth {
		d.MonthField = d.Month.MonthString()
	}
	now, err := s.budgetMonth(ctx, u.ID, d.Month)
	if err != nil {
		return budgetsData{}, err
	}
	d.Note = newConversionNote(show, "Spending", now.ConversionNote)
	d.Note.RatesAsOf = ""
	last, err := s.budgetMonth(ctx, u.ID, d.Prev)
	if err != nil {
		return budgetsData{}, err
	}
	colors, err := s.ledger.CategoryColors(ctx, u.ID)
	if err != nil {
		return budgetsData{}, err
	}
	cats, err := s.ledger.CategoryOptions(ctx, u.ID, finance.KindExpense)
	if err != nil {
		return budgetsData{}, err
	}
	// Both months measure the same limits: the set is not kept per month.
	lastOf := make(map[string]finance.BudgetThreshold, len(last.Items))
	for _, t := range last.Items {
		lastOf[t.CategoryID] = t
	}
	budgeted := map[string]bool{}
	for _, t := range now.Items {
		row := budgetRow{ID: t.CategoryID, Category: t.Category, Color: colors[t.CategoryID],
			Limit: t.MonthlyLimit.String(), Warning: strconv.Itoa(t.WarningPercent), Fields: map[string]string{},
			Now: thresholdBar(t, show)}
		if l, ok := lastOf[t.CategoryID]; ok {
			row.Last = thresholdBar(l, show)
		}
		d.Rows = append(d.Rows, row)
		budgeted[t.CategoryID] = true
	}
	if len(now.Items) > 0 {
		d.Total, d.LastTotal = totalBar(now, st.BudgetWarningPercent, show), totalBar(last, st.BudgetWarningPercent, show)
	}
	d.Unbudgeted = now.UnbudgetedSpending
	for _, c := range cats {
		if !budgeted[c.ID] {
			d.Options = append(d.Options, c.Name)
		}
	}
	return d, nil
}

// budgetMonth is the budget-vs-actual report of the month starting on first.
func (s *Site) budgetMonth(ctx context.Context, userID string, first finance.Date) (finance.BudgetVsActualReport, error) {
	rep, err := s.ledger.Report(ctx, userID, finance.ReportRequest{Name: finance.ReportBudgetVsActual, Month: first})
	if err != nil {
		return finance.BudgetVsActualReport{}, err
	}
	out, ok := rep.(finance.BudgetVsActualReport)
	if !ok {
		return out, fmt.Errorf("budget-vs-actual report is a %T", rep)
	}
	return out, nil
}

// monthBarView is what the "budget-month" partial shows: one month's bar
// of a budget, under the month's name.
type monthBarView struct {
	Show  display
	Label string
	Bar   *budgetBar
}

func monthBar(show display, month finance.Date, bar *budgetBar) monthBarView {
	return monthBarView{Show: show, Label: show.Month(month), Bar: bar}
}

func thresholdBar(t finance.BudgetThreshold, show display) *budgetBar {
	b := newBudgetBar(finance.DashboardBudget{Category: t.Category, MonthlyLimit: t.MonthlyLimit, Spent: t.Spent,
		PercentUsed: t.PercentUsed, State: t.State}, show)
	return &b
}

// totalBar measures the budgeted categories' spending against the sum of
// their limits, near it at the default warning percent.
func totalBar(rep finance.BudgetVsActualReport, warn int, show display) *budgetBar {
	total := finance.BudgetLimit{Category: "All budgeted categories", MonthlyLimit: rep.BudgetedTotal, WarningPercent: warn}
	return thresholdBar(total.Measure(rep.SpentTotal), show)
}

// budgetsPage is the Budgets page of ?month=YYYY-MM, by default the current month.
func (s *Site) budgetsPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showPage(s, w, r, "budgets", "Budgets", "budgets", func(r *http.Request, u finance.User) (budgetsData, error) {
		var v finance.Validator
		month := queryparam.Month(&v, r.URL.Query(), "month")
		if err := v.Err(); err != nil {
			return budgetsData{}, err
		}
		return s.budgetsView(r.Context(), u, month)
	})
}

// settingsBudgetsPage sends the old address under Settings to the Budgets page.
func (s *Site) settingsBudgetsPage(w http.ResponseWriter, r bunrouter.Request) error {
	target := BudgetsPath
	if q := r.URL.RawQuery; q != "" {
		target += "?" + q
	}
	return Redirect(w, r.Request, target)
}

// budgetsSubmit replaces the thresholds as PUT /user-settings/budget-thresholds
// does. The form has a row per budgeted category (category, monthly_limit,
// warning_percent, in the page's order), so saving one keeps the others; a
// row with neither a limit nor a warning percent has no threshold, and the
// row the remove button names is left out. The add row (new.category,
// new.monthly_limit, new.warning_percent) joins as the last entry when any
// of it was given. The API's problems with thresholds[i] are shown on the
// row that entry came from, everything as it was sent.
func (s *Site) budgetsSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok || err != nil {
		return err
	}
	f := r.PostForm
	names, limits, warnings := f["category"], f["monthly_limit"], f["warning_percent"]
	if len(limits) != len(names) || len(warnings) != len(names) {
		return httperr.BadRequest("The form could not be read", nil)
	}
	month, err := finance.ParseMonth(f.Get("month"))
	if err != nil {
		month = finance.Date{} // the current month, as the page has it without one
	}
	removed := f.Get("remove")
	added := -1 // the add row's index among names, -1 without it
	if add := []string{f.Get("new.category"), f.Get("new.monthly_limit"), f.Get("new.warning_percent")}; strings.TrimSpace(strings.Join(add, "")) != "" {
		added = len(names)
		names, limits, warnings = append(slices.Clip(names), add[0]), append(slices.Clip(limits), add[1]), append(slices.Clip(warnings), add[2])
	}
	entries := []map[string]string{} // [] clears the set
	var rowOf []int                  // entry index -> index among names
	for i := range names {
		if i != added && (names[i] == removed || strings.TrimSpace(limits[i]) == "" && strings.TrimSpace(warnings[i]) == "") {
			continue
		}
		entries = append(entries, nonEmpty(map[string]string{"category": names[i], "monthly_limit": limits[i], "warning_percent": warnings[i]}))
		rowOf = append(rowOf, i)
	}
	var req finance.BudgetThresholdsRequest
	b, _ := json.Marshal(map[string]any{"thresholds": entries}) // strings only: it cannot fail
	_ = json.Unmarshal(b, &req)                                 // Fields record problems instead of failing
	_, err = s.ledger.ReplaceBudgetThresholds(r.Context(), u.ID, req)
	if err == nil {
		target := BudgetsPath + "?notice=budgets-saved"
		if removed != "" {
			target = BudgetsPath + "?notice=budget-removed"
		}
		if !month.IsZero() {
			target += "&month=" + month.MonthString()
		}
		return Redirect(w, r.Request, target)
	}
	p := frame(&u, sid, "Budgets", "budgets")
	fields, ok := refuse(&p, "Not saved.", err)
	if !ok {
		return err
	}
	d, err := s.budgetsView(r.Context(), u, month)
	if err != nil {
		return err
	}
	// The rows as sent; a category already budgeted keeps its bars.
	saved := map[string]budgetRow{}
	for _, row := range d.Rows {
		saved[row.Category] = row
	}
	sent := make([]budgetRow, 0, len(names))
	for i := range names {
		row := saved[names[i]]
		row.Category, row.Limit, row.Warning, row.Fields = names[i], limits[i], warnings[i], map[string]string{}
		if i == added {
			row = budgetRow{Category: names[i], Limit: limits[i], Warning: warnings[i], Fields: map[string]string{}}
		}
		sent = append(sent, row)
	}
	for key, problem := range fields {
		rest, ok := strings.CutPrefix(key, "thresholds[")
		idx, field, ok2 := strings.Cut(rest, "].")
		n, err := strconv.Atoi(idx)
		if !ok || !ok2 || err != nil || n < 0 || n >= len(rowOf) {
			continue
		}
		sent[rowOf[n]].Fields[field] = problem
	}
	if added >= 0 {
		d.Add, sent = sent[added], sent[:added]
	}
	d.Rows = sent
	p.Data = d
	return s.render(w, r.Request, "budgets", p)
}
