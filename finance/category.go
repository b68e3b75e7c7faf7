package finance

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"
)

// CategoryKind separates expense categories from income categories.
type CategoryKind string

const (
	KindExpense CategoryKind = "expense"
	KindIncome  CategoryKind = "income"
)

// System categories hold spending that no expense carries (domain.md §1.6).
const (
	CategoryCardFees     = "Card Fees & Interest"
	CategoryLoanInterest = "Loan Interest"
)

// Category labels expenses and income. Names are unique per user and kind
// among active categories, case-insensitively. Archived categories keep
// labelling old records but no longer match names in writes.
type Category struct {
	ID         string       `json:"id"`
	Name       string       `json:"name"`
	Kind       CategoryKind `json:"kind"`
	Color      *string      `json:"color,omitempty"`
	Icon       *string      `json:"icon,omitempty"`
	IsSystem   bool         `json:"is_system"`
	Status     string       `json:"status"`
	ArchivedAt *time.Time   `json:"archived_at,omitempty"`
	CreatedAt  time.Time    `json:"created_at"`
	UpdatedAt  time.Time    `json:"updated_at"`
}

// DefaultCategories are created with every user (domain.md §2.2), each
// with its colour from defaultCategoryColors.
func DefaultCategories() []Category {
	var out []Category
	add := func(kind CategoryKind, system bool, names ...string) {
		for _, n := range names {
			color := defaultCategoryColors[n]
			out = append(out, Category{Name: n, Kind: kind, IsSystem: system, Color: &color})
		}
	}
	add(KindExpense, false, "Food & Dining", "Groceries", "Transportation", "Utilities", "Rent & Housing", "Shopping",
		"Health & Medical", "Education", "Entertainment", "Personal Care", "Travel", "Insurance", "Subscriptions",
		"Gifts & Donations", "Miscellaneous")
	add(KindExpense, true, CategoryCardFees, CategoryLoanInterest)
	add(KindIncome, false, "Salary", "Business", "Freelance", "Bonus", "Interest & Dividends", "Gifts", "Other Income")
	return out
}

// defaultCategoryColors give every default category a colour, so Home's
// charts tell categories apart from the first expense: mid-tone hues that
// read on the light and the dark theme alike, neighbours in the list far
// apart on the colour wheel. The migration 20261213000100 gives the same
// colours to the default categories of users created before them.
var defaultCategoryColors = map[string]string{
	"Food & Dining": "#F97316", "Groceries": "#22C55E", "Transportation": "#3B82F6", "Utilities": "#EAB308",
	"Rent & Housing": "#8B5CF6", "Shopping": "#EC4899", "Health & Medical": "#EF4444", "Education": "#0EA5E9",
	"Entertainment": "#A855F7", "Personal Care": "#D946EF", "Travel": "#14B8A6", "Insurance": "#64748B",
	"Subscriptions": "#6366F1", "Gifts & Donations": "#F43F5E", "Miscellaneous": "#78716C",
	CategoryCardFees: "#B45309", CategoryLoanInterest: "#BE123C",
	"Salary": "#16A34A", "Business": "#0D9488", "Freelance": "#2563EB", "Bonus": "#CA8A04",
	"Interest & Dividends": "#7C3AED", "Gifts": "#DB2777", "Other Income": "#6B7280",
}

// CategoryRepo is the persistence of categories.
type CategoryRepo interface {
	Category(ctx context.Context, userID, id string) (Category, error)
	// ActiveCategoryByName matches an active category of kind by name, case-insensitively.
	ActiveCategoryByName(ctx context.Context, userID string, kind CategoryKind, name string) (Category, error)
	ListCategories(ctx context.Context, userID string, f CategoryFilter, p ListParams) ([]Category, int, error)
	InsertCategory(ctx context.Context, userID string, c Category) error
	UpdateCategory(ctx context.Context, userID string, c Category) error
}

// CategoryFilter narrows GET /categories.
type CategoryFilter struct {
	Kind   CategoryKind // "" for both
	Status string       // active (default), archived, all
	Search string
}

// CategoryList is the list spec of GET /categories (domain.md §1.5).
var CategoryList = ListSpec{Sorts: []string{"name", "created_at"}, DefaultDesc: false}

// CategoryRequest is the body of POST and PUT /categories.
type CategoryRequest struct {
	Name  Field[string] `json:"name"`
	Kind  Field[string] `json:"kind"`
	Color Field[string] `json:"color"`
	Icon  Field[string] `json:"icon"`
}

var colorRE = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// parseKind reads the category kind named field; null reads as absent.
func parseKind(v *Validator, field string, f Field[string]) CategoryKind {
	if !Readable(v, field, f) {
		return ""
	}
	switch k := CategoryKind(f.Value); k {
	case KindExpense, KindIncome:
		return k
	}
	v.Add(field, "must be expense or income")
	return ""
}

// applyStyle validates and applies color and icon when present.
func (r CategoryRequest) applyStyle(v *Validator, c *Category) {
	if r.Color.Set {
		c.Color = v.OptionalText("color", r.Color, 7)
		if c.Color != nil && !colorRE.MatchString(*c.Color) {
			v.Add("color", "must be a color like #1A2B3C")
		}
	}
	if r.Icon.Set {
		c.Icon = v.OptionalText("icon", r.Icon, 50)
	}
}

// ParseCategoryFilter validates the filters of GET /categories.
func ParseCategoryFilter(kind, status, search string) (CategoryFilter, error) {
	var v Validator
	f := CategoryFilter{Kind: CategoryKind(kind), Status: status, Search: search}
	if kind != "" && f.Kind != KindExpense && f.Kind != KindIncome {
		v.Add("kind", "must be expense or income")
	}
	switch status {
	case "":
		f.Status = StatusActive
	case StatusActive, StatusArchived, StatusAll:
	default:
		v.Add("status", "must be active, archived or all")
	}
	return f, v.Err()
}

// ListCategories returns a page of the user's categories.
func (s *Service) ListCategories(ctx context.Context, userID string, f CategoryFilter, p ListParams) (Page[Category], error) {
	items, total, err := s.store.Read().ListCategories(ctx, userID, f, p)
	return pageOf(items, total, err, p)
}

// GetCategory returns one category (archived ones included).
func (s *Service) GetCategory(ctx context.Context, userID, id string) (Category, error) {
	return s.store.Read().Category(ctx, userID, id)
}

// CreateCategory adds a category.
func (s *Service) CreateCategory(ctx context.Context, userID string, r CategoryRequest) (Category, error) {
	var v Validator
	c := Category{ID: NewID(), Status: StatusActive}
	c.Name = v.RequiredText("name", r.Name, MaxName)
	c.Kind = parseKind(&v, "kind", r.Kind)
	if !r.Kind.Set || r.Kind.Null {
		v.Add("kind", "is required")
	}
	r.applyStyle(&v, &c)
	if err := v.Err(); err != nil {
		return Category{}, err
	}
	c.CreatedAt, c.UpdatedAt = s.stamp(), s.stamp()
	err := s.store.Write(ctx, func(tx Repo) error {
		if err := uniqueCategoryName(ctx, tx, userID, c); err != nil {
			return err
		}
		if err := tx.InsertCategory(ctx, userID, c); err != nil {
			return err
		}
		return s.recordCategory(ctx, tx, userID, LogCreated, c, fmt.Sprintf("Category %s (%s) added", quoted(c.Name), c.Kind))
	})
	return c, err
}

func uniqueCategoryName(ctx context.Context, tx Repo, userID string, c Category) error {
	other, err := tx.ActiveCategoryByName(ctx, userID, c.Kind, c.Name)
	switch {
	case err == nil && other.ID != c.ID:
		return Invalid("name", "is already used by another active "+string(c.Kind)+" category")
	case err != nil && !errors.Is(err, ErrNotFound):
		return err
	}
	return nil
}

// UpdateCategory changes name, color or icon. The kind is immutable; system
// categories keep their names; archived categories cannot change.
func (s *Service) UpdateCategory(ctx context.Context, userID, id string, r CategoryRequest) (Category, error) {
	var out Category
	err := s.store.Write(ctx, func(tx Repo) error {
		c, err := tx.Category(ctx, userID, id)
		if err != nil {
			return err
		}
		cur := c
		var v Validator
		if r.Kind.Set {
			if k := parseKind(&v, "kind", r.Kind); k != "" && k != c.Kind {
				v.Add("kind", "cannot change; create a new category instead")
			} else if r.Kind.Null {
				v.Add("kind", "cannot be null")
			}
		}
		name := c.Name
		if r.Name.Set {
			name = v.RequiredText("name", r.Name, MaxName)
		}
		r.applyStyle(&v, &c)
		if err := v.Err(); err != nil {
			return err
		}
		if c.Status == StatusArchived {
			return InvalidStatus("category is archived and cannot be changed")
		}
		if name != c.Name && c.IsSystem && nameKey(name) != nameKey(c.Name) {
			return InvalidStatus("system categories cannot be renamed; their color and icon can change")
		}
		c.Name = name
		if err := uniqueCategoryName(ctx, tx, userID, c); err != nil {
			return err
		}
		c.UpdatedAt = s.stamp()
		out = c
		if err := tx.UpdateCategory(ctx, userID, c); err != nil {
			return err
		}
		if ch := changes(cur, c, "name", "color", "icon"); len(ch) > 0 {
			return s.recordCategory(ctx, tx, userID, LogUpdated, c, fmt.Sprintf("Category %s: %s", quoted(c.Name), ch))
		}
		return nil
	})
	return out, err
}

// ArchiveCategory is DELETE /categories/{id}: it archives, and removes the
// category's budget threshold. Records that use it keep it.
func (s *Service) ArchiveCategory(ctx context.Context, userID, id string) (Category, error) {
	var out Category
	err := s.store.Write(ctx, func(tx Repo) error {
		c, err := tx.Category(ctx, userID, id)
		if err != nil {
			return err
		}
		switch {
		case c.IsSystem:
			return InvalidStatus("system categories cannot be archived")
		case c.Status == StatusArchived:
			return InvalidStatus("category is already archived")
		}
		now := s.stamp()
		c.Status, c.ArchivedAt, c.UpdatedAt = StatusArchived, &now, now
		out = c
		if err := tx.DeleteBudgetThreshold(ctx, userID, c.ID); err != nil {
			return err
		}
		if err := tx.UpdateCategory(ctx, userID, c); err != nil {
			return err
		}
		return s.recordCategory(ctx, tx, userID, LogArchived, c, fmt.Sprintf("Category %s archived", quoted(c.Name)))
	})
	return out, err
}

// UnarchiveCategory makes an archived category active again (the web
// settings page offers it; the API only archives). Its name must not clash
// with a category of its kind that became active meanwhile. Its budget
// threshold, removed when it was archived, is not restored.
func (s *Service) UnarchiveCategory(ctx context.Context, userID, id string) (Category, error) {
	var out Category
	err := s.store.Write(ctx, func(tx Repo) error {
		c, err := tx.Category(ctx, userID, id)
		if err != nil {
			return err
		}
		if c.Status != StatusArchived {
			return InvalidStatus("category is not archived")
		}
		if err := uniqueCategoryName(ctx, tx, userID, c); err != nil {
			return err
		}
		c.Status, c.ArchivedAt, c.UpdatedAt = StatusActive, nil, s.stamp()
		out = c
		if err := tx.UpdateCategory(ctx, userID, c); err != nil {
			return err
		}
		return s.recordCategory(ctx, tx, userID, LogUnarchived, c, fmt.Sprintf("Category %s unarchived", quoted(c.Name)))
	})
	return out, err
}

// recordCategory appends the entry of a write on the category c.
func (s *Service) recordCategory(ctx context.Context, tx Repo, userID, action string, c Category, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordCategory, RecordID: c.ID, Action: action, Summary: summary})
}

// activeCategory resolves a category name in a write: an active category of
// kind, case-insensitively; anything else is a validation error on field.
func activeCategory(ctx context.Context, tx Repo, v *Validator, field, userID string, kind CategoryKind, name string) (Category, error) {
	c, err := tx.ActiveCategoryByName(ctx, userID, kind, name)
	if errors.Is(err, ErrNotFound) {
		v.Add(field, "must be the name of an active "+string(kind)+" category")
		return Category{}, nil
	}
	return c, err
}

// CategoryOption is a category as write forms offer it.
type CategoryOption struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// CategoryOptions lists the user's active categories of kind by name, for form-options routes.
func (s *Service) CategoryOptions(ctx context.Context, userID string, kind CategoryKind) ([]CategoryOption, error) {
	items, _, err := s.store.Read().ListCategories(ctx, userID, CategoryFilter{Kind: kind, Status: StatusActive},
		ListParams{Page: 1, Limit: allRows, SortBy: CategoryList.Sorts[0]})
	if err != nil {
		return nil, err
	}
	out := make([]CategoryOption, len(items))
	for i, c := range items {
		out[i] = CategoryOption{ID: c.ID, Name: c.Name}
	}
	return out, nil
}
