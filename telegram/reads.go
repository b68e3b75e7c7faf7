package telegram

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/finance-app/finance/finance"
)

// The read commands answer from the REST routes a dashboard uses, as the
// user: /today from the day's expenses, /month and /bills from GET /dashboard.

type readFunc func(ctx context.Context, userID string) (string, error)

func (b *Bot) reads() map[string]readFunc {
	return map[string]readFunc{"/today": b.today, "/month": b.month, "/bills": b.bills}
}

// get serves a GET as the user and decodes its data into out.
func (b *Bot) get(ctx context.Context, userID, path string, out any) error {
	resp := b.api.Call(ctx, userID, Request{Method: http.MethodGet, Path: path})
	if !resp.OK() {
		return refused(resp)
	}
	return json.Unmarshal(resp.Data, out)
}

func (b *Bot) today(ctx context.Context, userID string) (string, error) {
	var settings struct {
		Timezone string `json:"timezone"`
		Currency string `json:"currency"`
	}
	if err := b.get(ctx, userID, "/api/v1/user-settings/app", &settings); err != nil {
		return "", err
	}
	loc, err := finance.LoadTimezone(settings.Timezone)
	if err != nil {
		loc = time.UTC
	}
	day := finance.Today(b.now(), loc).String()
	var list struct {
		Items []struct {
			Amount      finance.Money `json:"amount"`
			Description string        `json:"description"`
			Category    *string       `json:"category"`
		} `json:"items"`
		Pagination struct {
			TotalItems int `json:"total_items"`
		} `json:"pagination"`
	}
	q := url.Values{"dateFrom": {day}, "dateTo": {day}, "limit": {"10"}, "sortBy": {"date"}, "sortOrder": {"desc"}}
	if err := b.get(ctx, userID, "/api/v1/expenses?"+q.Encode(), &list); err != nil {
		return "", err
	}
	var sum struct {
		TotalExpenses finance.Money `json:"total_expenses"`
		Count         int           `json:"count"`
	}
	if err := b.get(ctx, userID, "/api/v1/expenses/summary?"+url.Values{"dateFrom": {day}, "dateTo": {day}}.Encode(), &sum); err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.WriteString(Bold("Today, "+day) + "\n")
	if sum.Count == 0 {
		sb.WriteString(Escape("No expenses yet."))
		return sb.String(), nil
	}
	fmt.Fprintf(&sb, "%s\n", Escape(fmt.Sprintf("Spent %s in %d expense%s", money(settings.Currency, sum.TotalExpenses), sum.Count, plural(sum.Count))))
	for _, e := range list.Items {
		cat := "split"
		if e.Category != nil {
			cat = *e.Category
		}
		sb.WriteString(Escape(fmt.Sprintf("• %s %s (%s)", e.Amount, clip(e.Description, 60), cat)) + "\n")
	}
	if more := list.Pagination.TotalItems - len(list.Items); more > 0 {
		sb.WriteString(Italic(fmt.Sprintf("and %d more", more)))
	}
	return strings.TrimRight(sb.String(), "\n"), nil
}

// dashboard is the part of GET /dashboard the commands show.
type dashboard struct {
	Month    string `json:"month"`
	Currency string `json:"currency"`
	Totals   struct {
		Income   finance.Money `json:"income"`
		Spending finance.Money `json:"spending"`
		Net      finance.Money `json:"net"`
	} `json:"totals"`
	Bills struct {
		DueAmount       finance.Money       `json:"due_amount"`
		PaidAmount      finance.Money       `json:"paid_amount"`
		RemainingAmount finance.Money       `json:"remaining_amount"`
		Overdue         finance.CountAmount `json:"overdue"`
		Upcoming        []struct {
			Name      string        `json:"name"`
			Remaining finance.Money `json:"remaining"`
			DueDate   string        `json:"due_date"`
			IsOverdue bool          `json:"is_overdue"`
		} `json:"upcoming"`
	} `json:"bills"`
	Loans struct {
		RemainingAmount finance.Money `json:"remaining_amount"`
	} `json:"loans"`
	Budgets []struct {
		Category     string        `json:"category"`
		MonthlyLimit finance.Money `json:"monthly_limit"`
		Spent        finance.Money `json:"spent"`
		State        string        `json:"state"`
	} `json:"budgets"`
	TopCategories []struct {
		Category string        `json:"category"`
		Amount   finance.Money `json:"amount"`
	} `json:"top_categories"`
}

func (b *Bot) month(ctx context.Context, userID string) (string, error) {
	var d dashboard
	if err := b.get(ctx, userID, "/api/v1/dashboard", &d); err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.WriteString(Bold("This month, "+d.Month) + "\n")
	sb.WriteString(Escape(fmt.Sprintf("Spent %s · income %s · net %s", money(d.Currency, d.Totals.Spending),
		money(d.Currency, d.Totals.Income), money(d.Currency, d.Totals.Net))) + "\n")
	if len(d.TopCategories) > 0 {
		sb.WriteString("\n" + Bold("Top categories") + "\n")
		for _, c := range d.TopCategories {
			sb.WriteString(Escape(fmt.Sprintf("• %s %s", c.Category, c.Amount)) + "\n")
		}
	}
	var over []string
	for _, bu := range d.Budgets {
		if bu.State != "ok" && bu.State != "" {
			over = append(over, fmt.Sprintf("• %s: %s of %s (%s)", bu.Category, bu.Spent, bu.MonthlyLimit, bu.State))
		}
	}
	if len(over) > 0 {
		sb.WriteString("\n" + Bold("Budgets to watch") + "\n" + Escape(strings.Join(over, "\n")))
	}
	return strings.TrimRight(sb.String(), "\n"), nil
}

func (b *Bot) bills(ctx context.Context, userID string) (string, error) {
	var d dashboard
	if err := b.get(ctx, userID, "/api/v1/dashboard", &d); err != nil {
		return "", err
	}
	var sb strings.Builder
	sb.WriteString(Bold("Bills, "+d.Month) + "\n")
	sb.WriteString(Escape(fmt.Sprintf("Due %s · paid %s · left %s", money(d.Currency, d.Bills.DueAmount),
		money(d.Currency, d.Bills.PaidAmount), money(d.Currency, d.Bills.RemainingAmount))) + "\n")
	if d.Bills.Overdue.Count > 0 {
		sb.WriteString(Bold(fmt.Sprintf("Overdue: %d (%s)", d.Bills.Overdue.Count, money(d.Currency, d.Bills.Overdue.Amount))) + "\n")
	}
	if len(d.Bills.Upcoming) == 0 {
		sb.WriteString(Escape("Nothing left to pay this month."))
	}
	for _, bl := range d.Bills.Upcoming {
		mark := ""
		if bl.IsOverdue {
			mark = " (overdue)"
		}
		sb.WriteString(Escape(fmt.Sprintf("• %s %s due %s%s", clip(bl.Name, 60), bl.Remaining, bl.DueDate, mark)) + "\n")
	}
	if d.Loans.RemainingAmount > 0 {
		sb.WriteString(Escape(fmt.Sprintf("Loan dues left this month: %s", money(d.Currency, d.Loans.RemainingAmount))))
	}
	return strings.TrimRight(sb.String(), "\n"), nil
}

// money is an amount with the user's currency label.
func money(currency string, m finance.Money) string {
	if currency == "" {
		return m.String()
	}
	return currency + " " + m.String()
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
