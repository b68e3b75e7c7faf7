package finance

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Budget threshold states (domain.md §2.1).
const (
	BudgetOK       = "ok"
	BudgetWarning  = "warning"
	BudgetExceeded = "exceeded"
)

// MaxBudgetThresholds bounds the thresholds of one PUT, and so of one user.
const MaxBudgetThresholds = 100

// BudgetLimit is a stored threshold: a monthly limit on one expense category.
type BudgetLimit struct {
	CategoryID     string
	Category       string // the category's name
	MonthlyLimit   Money
	WarningPercent int
}

// BudgetThreshold is one item of GET /user-settings/budget-thresholds: a
// limit with the month's spending in its category.
type BudgetThreshold struct {
	CategoryID     string `json:"category_id"`
	Category       string `json:"category"`
	MonthlyLimit   Money  `json:"monthly_limit"`
	WarningPercent int    `json:"warning_percent"`
	Spent          Money  `json:"spent"`
	Remaining      Money  `json:"remaining"`
	PercentUsed    Money  `json:"percent_used"` // a percent with 2 decimals
	State          string `json:"state"`
}

// BudgetThresholdPage is the data of GET /user-settings/budget-thresholds:
// a list page, with the month it covers and the user's currency.
type BudgetThresholdPage struct {
	Page[BudgetThreshold]
	Month    string `json:"month"`
	Currency string `json:"currency"`
}

// BudgetThresholdList is the list spec of GET /user-settings/budget-thresholds (domain.md §1.5).
var BudgetThresholdList = ListSpec{Sorts: []string{"category"}, DefaultDesc: false}

// CategorySpending is the spending of one category over a date range (§1.6).
type CategorySpending struct {
	CategoryID string
	Category   string
	Amount     Money
}

// BudgetRepo is the persistence of budget thresholds, and the spending they are measured against.
type BudgetRepo interface {
	// BudgetThresholds returns all of the user's thresholds (at most MaxBudgetThresholds).
	BudgetThresholds(ctx context.Context, userID string) ([]BudgetLimit, error)
	// ReplaceBudgetThresholds deletes the user's thresholds and stores limits instead.
	ReplaceBudgetThresholds(ctx context.Context, userID string, limits []BudgetLimit, at time.Time) error
	// DeleteBudgetThreshold removes the threshold of a category, if any.
	DeleteBudgetThreshold(ctx context.Context, userID, categoryID string) error
}

// Measure returns the threshold with spent, the month's spending in its category.
func (l BudgetLimit) Measure(spent Money) BudgetThreshold {
	t := BudgetThreshold{CategoryID: l.CategoryID, Category: l.Category, MonthlyLimit: l.MonthlyLimit,
		WarningPercent: l.WarningPercent, Spent: spent, Remaining: l.MonthlyLimit - spent,
		PercentUsed: Percent(spent, l.MonthlyLimit)}
	switch {
	case spent > l.MonthlyLimit:
		t.State = BudgetExceeded
	case int64(spent)*100 >= int64(l.MonthlyLimit)*int64(l.WarningPercent):
		t.State = BudgetWarning // spending exactly the limit is a warning
	default:
		t.State = BudgetOK
	}
	return t
}

// BudgetThresholds is GET /user-settings/budget-thresholds: the thresholds
// measured against the spending of month (its first day; zero for the
// current month), sorted by category name.
func (s *Service) BudgetThresholds(ctx context.Context, userID string, month Date, p ListParams) (BudgetThresholdPage, error) {
	if month.IsZero() {
		month = s.today(ctx, userID)
	}
	return s.budgetThresholds(ctx, s.store.Read(), userID, month, p)
}

func (s *Service) budgetThresholds(ctx context.Context, repo Repo, userID string, month Date, p ListParams) (BudgetThresholdPage, error) {
	from, to := MonthRange(month)
	limits, err := repo.BudgetThresholds(ctx, userID)
	if err != nil {
		return BudgetThresholdPage{}, err
	}
	var spending []CategorySpending
	if len(limits) > 0 {
		if spending, _, err = s.spendingByCategory(ctx, repo, userID, from, to); err != nil {
			return BudgetThresholdPage{}, err
		}
	}
	items := measureLimits(limits, spending)
	if p.Desc {
		slices.Reverse(items)
	}
	total := len(items)
	lo, hi := min(p.Offset(), total), min(p.Offset()+p.Limit, total)
	return BudgetThresholdPage{Page: NewPage(items[lo:hi], total, p), Month: from.MonthString(),
		Currency: s.currency(ctx, userID)}, nil
}

// measureLimits measures each limit against the spending of its category,
// sorted by category name. The threshold list, the dashboard and the
// budget-vs-actual report all measure budgets here.
func measureLimits(limits []BudgetLimit, spending []CategorySpending) []BudgetThreshold {
	spent := make(map[string]Money, len(spending))
	for _, a := range spending {
		spent[a.CategoryID] = a.Amount
	}
	items := make([]BudgetThreshold, len(limits))
	for i, l := range limits {
		items[i] = l.Measure(spent[l.CategoryID])
	}
	slices.SortFunc(items, func(a, b BudgetThreshold) int {
		return cmp.Or(cmp.Compare(nameKey(a.Category), nameKey(b.Category)), cmp.Compare(a.CategoryID, b.CategoryID))
	})
	return items
}

// BudgetThresholdsRequest is the body of PUT /user-settings/budget-thresholds:
// the whole new set.
type BudgetThresholdsRequest struct {
	Thresholds Field[[]BudgetThresholdInput] `json:"thresholds"`
}

// BudgetThresholdInput is one threshold of the PUT body.
type BudgetThresholdInput struct {
	Category       Field[string] `json:"category"`
	MonthlyLimit   Field[Money]  `json:"monthly_limit"`
	WarningPercent Field[int]    `json:"warning_percent"`
}

// ReplaceBudgetThresholds is PUT /user-settings/budget-thresholds: the given
// thresholds replace the whole set in one transaction ([] clears it). The
// reply is the GET of the current month, page 1, 100 items.
func (s *Service) ReplaceBudgetThresholds(ctx context.Context, userID string, req BudgetThresholdsRequest) (BudgetThresholdPage, error) {
	var v Validator
	if !Readable(&v, "thresholds", req.Thresholds) {
		if !v.Has("thresholds") {
			v.Add("thresholds", "is required: send the whole list of thresholds, or [] to remove them all")
		}
		return BudgetThresholdPage{}, v.Err()
	}
	in := req.Thresholds.Value
	if len(in) > MaxBudgetThresholds {
		return BudgetThresholdPage{}, Invalid("thresholds", "must have at most "+strconv.Itoa(MaxBudgetThresholds)+" entries")
	}
	warnDefault := s.settingsOrDefault(ctx, userID).settings.BudgetWarningPercent
	var out BudgetThresholdPage
	err := s.store.Write(ctx, func(tx Repo) error {
		limits := make([]BudgetLimit, 0, len(in))
		seen := map[string]int{} // category id -> entry index
		for i, t := range in {
			at := "thresholds[" + strconv.Itoa(i) + "]."
			l := BudgetLimit{MonthlyLimit: v.RequiredMoney(at+"monthly_limit", t.MonthlyLimit), WarningPercent: warnDefault}
			if Readable(&v, at+"warning_percent", t.WarningPercent) {
				if w := t.WarningPercent.Value; w < 1 || w > 100 {
					v.Add(at+"warning_percent", "must be an integer from 1 to 100")
				} else {
					l.WarningPercent = w
				}
			}
			name := v.RequiredText(at+"category", t.Category, MaxName)
			if name == "" || v.Has(at+"category") {
				continue
			}
			c, err := activeCategory(ctx, tx, &v, at+"category", userID, KindExpense, name)
			if err != nil {
				return err
			}
			if c.ID == "" {
				continue
			}
			if j, dup := seen[c.ID]; dup {
				v.Add(at+"category", "names the same category as thresholds["+strconv.Itoa(j)+"]; name each category once")
				continue
			}
			seen[c.ID] = i
			l.CategoryID, l.Category = c.ID, c.Name
			limits = append(limits, l)
		}
		if err := v.Err(); err != nil {
			return err
		}
		if err := tx.ReplaceBudgetThresholds(ctx, userID, limits, s.stamp()); err != nil {
			return err
		}
		if err := s.record(ctx, tx, userID, Activity{Kind: RecordBudgetThresholds, RecordID: userID, Action: LogUpdated,
			Summary: thresholdsSummary(limits)}); err != nil {
			return err
		}
		page, err := s.budgetThresholds(ctx, tx, userID, s.today(ctx, userID),
			ListParams{Page: 1, Limit: MaxLimit, SortBy: BudgetThresholdList.Sorts[0]})
		out = page
		return err
	})
	return out, err
}

// thresholdsSummary is the summary of a replaced set of budget thresholds:
// `Budgets set: "Groceries" 8000.00, "Transportation" 3000.00`, naming at
// most five so that the entry stays small.
func thresholdsSummary(limits []BudgetLimit) string {
	if len(limits) == 0 {
		return "Budgets removed"
	}
	const shown = 5
	var named []string
	for i, l := range limits {
		if i == shown {
			named = append(named, fmt.Sprintf("and %d more", len(limits)-shown))
			break
		}
		named = append(named, quoted(l.Category)+" "+l.MonthlyLimit.String())
	}
	return "Budgets set: " + strings.Join(named, ", ")
}
