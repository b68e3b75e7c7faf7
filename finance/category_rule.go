package finance

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Category rules choose an imported row's category before the file's and
// history's (domain.md "Category rules").
const (
	MaxCategoryRules = 200
	// MaxRuleText bounds description_contains and payee_equals.
	MaxRuleText = 100
)

// CategoryRuleList is the list spec of GET /category-rules: always in order.
var CategoryRuleList = ListSpec{Sorts: []string{"position"}}

// CategoryRule is a standing choice of a category for imported rows. A row
// matches when every condition given holds; at least one is given.
type CategoryRule struct {
	ID                  string  `json:"id"`
	Position            int     `json:"position"`
	DescriptionContains *string `json:"description_contains,omitempty"`
	PayeeEquals         *string `json:"payee_equals,omitempty"`
	AmountMin           *Money  `json:"amount_min,omitempty"`
	AmountMax           *Money  `json:"amount_max,omitempty"`
	CategoryID          string  `json:"-"`
	// Category, CategoryKind and Active are the category's: its name, kind,
	// and whether it is active (a rule of an archived one is skipped).
	Category     string       `json:"category"`
	CategoryKind CategoryKind `json:"category_kind"`
	Active       bool         `json:"active"`
	CreatedAt    time.Time    `json:"created_at"`
	UpdatedAt    time.Time    `json:"updated_at"`
}

// Conditions words the rule's conditions, as the web app shows them:
// description contains "GRAB", amount 500.00 to 1,000.00.
func (r CategoryRule) Conditions() string {
	var parts []string
	if r.DescriptionContains != nil {
		parts = append(parts, fmt.Sprintf("description contains %q", *r.DescriptionContains))
	}
	if r.PayeeEquals != nil {
		parts = append(parts, fmt.Sprintf("payee is %q", *r.PayeeEquals))
	}
	switch {
	case r.AmountMin != nil && r.AmountMax != nil:
		parts = append(parts, "amount "+r.AmountMin.String()+" to "+r.AmountMax.String())
	case r.AmountMin != nil:
		parts = append(parts, "amount at least "+r.AmountMin.String())
	case r.AmountMax != nil:
		parts = append(parts, "amount at most "+r.AmountMax.String())
	}
	return strings.Join(parts, ", ")
}

// matches reports whether the row meets every condition of the rule.
func (r CategoryRule) matches(row ImportRow) bool {
	if r.DescriptionContains != nil && !strings.Contains(strings.ToLower(row.Description), strings.ToLower(*r.DescriptionContains)) {
		return false
	}
	if r.PayeeEquals != nil && (row.Payee == nil || !strings.EqualFold(strings.TrimSpace(*row.Payee), *r.PayeeEquals)) {
		return false
	}
	if r.AmountMin != nil && (row.Amount == nil || *row.Amount < *r.AmountMin) {
		return false
	}
	if r.AmountMax != nil && (row.Amount == nil || *row.Amount > *r.AmountMax) {
		return false
	}
	return true
}

// CategoryRuleRef is the rule that chose an import row's category: its id
// and its position when the preview was made.
type CategoryRuleRef struct {
	ID       string `json:"id"`
	Position int    `json:"position"`
}

// CategoryRuleRequest is the body of POST and PUT /category-rules. On PUT an
// absent field keeps its value and null removes a condition.
type CategoryRuleRequest struct {
	DescriptionContains Field[string] `json:"description_contains"`
	PayeeEquals         Field[string] `json:"payee_equals"`
	AmountMin           Field[Money]  `json:"amount_min"`
	AmountMax           Field[Money]  `json:"amount_max"`
	Category            Field[string] `json:"category"`
	CategoryKind        Field[string] `json:"category_kind"`
	Position            Field[int]    `json:"position"`
}

// CategoryRuleRepo is the persistence of category rules. Rules come with
// their category's name, kind and status.
type CategoryRuleRepo interface {
	CategoryRule(ctx context.Context, userID, id string) (CategoryRule, error)
	// CategoryRules returns all of the user's rules (at most
	// MaxCategoryRules) by position.
	CategoryRules(ctx context.Context, userID string) ([]CategoryRule, error)
	// InsertCategoryRule stores a rule; its position must be free.
	InsertCategoryRule(ctx context.Context, userID string, r CategoryRule) error
	// UpdateCategoryRule stores a rule's conditions, category and time, not its position.
	UpdateCategoryRule(ctx context.Context, userID string, r CategoryRule) error
	DeleteCategoryRule(ctx context.Context, userID, id string) error
	// PlaceCategoryRules gives the rules ids, in that order, positions 1, 2, 3….
	PlaceCategoryRules(ctx context.Context, userID string, ids []string) error
}

// ListCategoryRules returns a page of the user's rules in order.
func (s *Service) ListCategoryRules(ctx context.Context, userID string, p ListParams) (Page[CategoryRule], error) {
	rules, err := s.store.Read().CategoryRules(ctx, userID)
	if err != nil {
		return Page[CategoryRule]{}, err
	}
	from := min(p.Offset(), len(rules))
	return NewPage(rules[from:min(from+p.Limit, len(rules))], len(rules), p), nil
}

// AllCategoryRules returns every rule of the user in order (the web page).
func (s *Service) AllCategoryRules(ctx context.Context, userID string) ([]CategoryRule, error) {
	return s.store.Read().CategoryRules(ctx, userID)
}

// GetCategoryRule returns one rule.
func (s *Service) GetCategoryRule(ctx context.Context, userID, id string) (CategoryRule, error) {
	return s.store.Read().CategoryRule(ctx, userID, id)
}

// CreateCategoryRule adds a rule, last unless the request places it.
func (s *Service) CreateCategoryRule(ctx context.Context, userID string, req CategoryRuleRequest) (CategoryRule, error) {
	var out CategoryRule
	err := s.store.Write(ctx, func(tx Repo) error {
		rules, err := tx.CategoryRules(ctx, userID)
		if err != nil {
			return err
		}
		r := CategoryRule{ID: NewID()}
		var v Validator
		req.applyConditions(&v, &r)
		if !req.Category.Set || req.Category.Null {
			v.Add("category", "is required")
		}
		position := len(rules) + 1
		if req.Position.Set {
			position = rulePosition(&v, req.Position, len(rules)+1)
		}
		if err := v.Err(); err != nil {
			return err
		}
		if len(rules) >= MaxCategoryRules {
			return Invalid("category_rules", fmt.Sprintf("at most %d rules can be kept; delete one to add another", MaxCategoryRules))
		}
		if err := ruleCategory(ctx, tx, userID, req, &r); err != nil {
			return err
		}
		r.Position, r.CreatedAt, r.UpdatedAt = len(rules)+1, s.stamp(), s.stamp()
		if err := tx.InsertCategoryRule(ctx, userID, r); err != nil {
			return err
		}
		out = r
		if err := placeRule(ctx, tx, userID, rules, &out, position); err != nil {
			return err
		}
		return s.recordCategoryRule(ctx, tx, userID, LogCreated, out, fmt.Sprintf("Category rule %d: %s", out.Position, out.chooses()))
	})
	return out, err
}

// UpdateCategoryRule changes a rule's conditions or category, and moves it
// when the request gives a position.
func (s *Service) UpdateCategoryRule(ctx context.Context, userID, id string, req CategoryRuleRequest) (CategoryRule, error) {
	var out CategoryRule
	err := s.store.Write(ctx, func(tx Repo) error {
		r, rules, err := ruleAmongAll(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		cur := r
		var v Validator
		req.applyConditions(&v, &r)
		if req.Category.Set && req.Category.Null {
			v.Add("category", "cannot be null")
		}
		position := r.Position
		if req.Position.Set {
			position = rulePosition(&v, req.Position, len(rules))
		}
		if err := v.Err(); err != nil {
			return err
		}
		if req.Category.Set || req.CategoryKind.Set {
			if !req.Category.Set {
				req.Category = Of(r.Category)
			}
			if err := ruleCategory(ctx, tx, userID, req, &r); err != nil {
				return err
			}
		}
		r.UpdatedAt = s.stamp()
		if err := tx.UpdateCategoryRule(ctx, userID, r); err != nil {
			return err
		}
		out = r
		if err := placeRule(ctx, tx, userID, rules, &out, position); err != nil {
			return err
		}
		c := changes(cur, out, "position", "description_contains", "payee_equals", "amount_min", "amount_max", "category",
			"category_kind")
		if len(c) == 0 {
			return nil
		}
		return s.recordCategoryRule(ctx, tx, userID, LogUpdated, out, fmt.Sprintf("Category rule %d: %s", out.Position, c))
	})
	return out, err
}

// DeleteCategoryRule removes a rule and returns it as it was; the rules
// after it move up one.
func (s *Service) DeleteCategoryRule(ctx context.Context, userID, id string) (CategoryRule, error) {
	var out CategoryRule
	err := s.store.Write(ctx, func(tx Repo) error {
		r, rules, err := ruleAmongAll(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteCategoryRule(ctx, userID, id); err != nil {
			return err
		}
		out = r
		if err := tx.PlaceCategoryRules(ctx, userID, othersThan(rules, r.ID)); err != nil {
			return err
		}
		return s.recordCategoryRule(ctx, tx, userID, LogDeleted, r, fmt.Sprintf("Category rule %d deleted: %s", r.Position, r.chooses()))
	})
	return out, err
}

// chooses words the rule whole for its activity entries: description
// contains "GRAB" → Transportation.
func (r CategoryRule) chooses() string {
	return r.Conditions() + " → " + r.Category
}

// recordCategoryRule appends the entry of a write on the rule r, which has
// no amount: its bounds are conditions, not money moved.
func (s *Service) recordCategoryRule(ctx context.Context, tx Repo, userID, action string, r CategoryRule, summary string) error {
	return s.record(ctx, tx, userID, Activity{Kind: RecordCategoryRule, RecordID: r.ID, Action: action, Summary: summary})
}

// ruleAmongAll returns the user's rule id and all of their rules in order.
func ruleAmongAll(ctx context.Context, tx Repo, userID, id string) (CategoryRule, []CategoryRule, error) {
	r, err := tx.CategoryRule(ctx, userID, id)
	if err != nil {
		return CategoryRule{}, nil, err
	}
	rules, err := tx.CategoryRules(ctx, userID)
	return r, rules, err
}

// othersThan is the ids of rules in order, without id.
func othersThan(rules []CategoryRule, id string) []string {
	ids := make([]string, 0, len(rules))
	for _, o := range rules {
		if o.ID != id {
			ids = append(ids, o.ID)
		}
	}
	return ids
}

// placeRule moves the stored rule r to position (1 first) among rules, the
// others shifting by one, when it stands elsewhere.
func placeRule(ctx context.Context, tx Repo, userID string, rules []CategoryRule, r *CategoryRule, position int) error {
	if position == r.Position {
		return nil
	}
	r.Position = position
	return tx.PlaceCategoryRules(ctx, userID, slices.Insert(othersThan(rules, r.ID), position-1, r.ID))
}

// rulePosition reads a requested position, 1 to last.
func rulePosition(v *Validator, f Field[int], last int) int {
	if !Readable(v, "position", f) {
		if f.Null {
			v.Add("position", "cannot be null")
		}
		return 0
	}
	if f.Value < 1 || f.Value > last {
		v.Add("position", fmt.Sprintf("must be from 1 to %d", last))
	}
	return f.Value
}

// applyConditions checks and applies the conditions the request gives, then
// checks the rule keeps at least one and a range that is not empty.
func (req CategoryRuleRequest) applyConditions(v *Validator, r *CategoryRule) {
	if req.DescriptionContains.Set {
		r.DescriptionContains = v.OptionalText("description_contains", req.DescriptionContains, MaxRuleText)
	}
	if req.PayeeEquals.Set {
		r.PayeeEquals = v.OptionalText("payee_equals", req.PayeeEquals, MaxRuleText)
	}
	amount := func(name string, f Field[Money], dst **Money) {
		if !f.Set {
			return
		}
		*dst = nil
		if Readable(v, name, f) {
			m := v.PositiveMoney(name, f.Value)
			*dst = &m
		}
	}
	amount("amount_min", req.AmountMin, &r.AmountMin)
	amount("amount_max", req.AmountMax, &r.AmountMax)
	if r.AmountMin != nil && r.AmountMax != nil && *r.AmountMin > *r.AmountMax && !v.Has("amount_min") && !v.Has("amount_max") {
		v.Add("amount_max", "must be at least amount_min ("+r.AmountMin.String()+")")
	}
	none := r.DescriptionContains == nil && r.PayeeEquals == nil && r.AmountMin == nil && r.AmountMax == nil
	if none && !v.Has("description_contains") && !v.Has("payee_equals") && !v.Has("amount_min") && !v.Has("amount_max") {
		v.Add("description_contains", "is required unless payee_equals, amount_min or amount_max is given (a rule needs a condition)")
	}
}

// ruleCategory resolves the request's category into r: an active category
// of the kind given, or of either kind when the name says which.
func ruleCategory(ctx context.Context, tx Repo, userID string, req CategoryRuleRequest, r *CategoryRule) error {
	var v Validator
	name := v.RequiredText("category", req.Category, MaxName)
	var kinds []CategoryKind
	if req.CategoryKind.Set {
		if req.CategoryKind.Null {
			v.Add("category_kind", "must be expense or income")
		} else if k := parseKind(&v, "category_kind", req.CategoryKind); k != "" {
			kinds = []CategoryKind{k}
		}
	} else {
		kinds = []CategoryKind{KindExpense, KindIncome}
	}
	if err := v.Err(); err != nil {
		return err
	}
	var found []Category
	for _, k := range kinds {
		c, err := tx.ActiveCategoryByName(ctx, userID, k, name)
		switch {
		case err == nil:
			found = append(found, c)
		case !errors.Is(err, ErrNotFound):
			return err
		}
	}
	switch len(found) {
	case 0:
		if len(kinds) == 1 {
			return Invalid("category", "must be the name of an active "+string(kinds[0])+" category")
		}
		return Invalid("category", "must be the name of an active category")
	case 2:
		return Invalid("category_kind", fmt.Sprintf("is required: both an expense and an income category are named %s", quoted(name)))
	}
	c := found[0]
	r.CategoryID, r.Category, r.CategoryKind, r.Active = c.ID, c.Name, c.Kind, true
	return nil
}

// applyRules gives each row that needs a category of kind and has none of
// the person's the category of the first active rule of that kind that
// matches it. A rule of an archived category is skipped.
func applyRules(rules []CategoryRule, kind CategoryKind, rows []ImportRow) {
	var own []CategoryRule
	for _, r := range rules {
		if r.Active && r.CategoryKind == kind {
			own = append(own, r)
		}
	}
	if len(own) == 0 {
		return
	}
	for i := range rows {
		row := &rows[i]
		if ImportCategoryKind(row.Record) != kind || row.Error != nil || row.Category != nil {
			continue
		}
		for _, r := range own {
			if r.matches(*row) {
				name, reason := r.Category, ReasonRule
				row.Category, row.CategoryReason, row.CategoryRule = &name, &reason, &CategoryRuleRef{ID: r.ID, Position: r.Position}
				break
			}
		}
	}
}
