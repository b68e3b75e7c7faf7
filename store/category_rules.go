package store

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type categoryRuleRow struct {
	bun.BaseModel `bun:"table:category_rules,alias:r"`

	ID                  string `bun:"id,pk"`
	UserID              string
	Position            int
	DescriptionContains *string
	PayeeEquals         *string
	AmountMin           *finance.Money
	AmountMax           *finance.Money
	CategoryID          string
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// categoryRuleView is a rule with its category's name, kind and status.
type categoryRuleView struct {
	categoryRuleRow `bun:",extend"`

	CategoryName   string               `bun:"category_name,scanonly"`
	CategoryKind   finance.CategoryKind `bun:"category_kind,scanonly"`
	CategoryStatus string               `bun:"category_status,scanonly"`
}

func newCategoryRuleRow(userID string, r finance.CategoryRule) categoryRuleRow {
	return categoryRuleRow{ID: r.ID, UserID: userID, Position: r.Position, DescriptionContains: r.DescriptionContains,
		PayeeEquals: r.PayeeEquals, AmountMin: r.AmountMin, AmountMax: r.AmountMax, CategoryID: r.CategoryID,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

func (v categoryRuleView) rule() finance.CategoryRule {
	return finance.CategoryRule{ID: v.ID, Position: v.Position, DescriptionContains: v.DescriptionContains,
		PayeeEquals: v.PayeeEquals, AmountMin: v.AmountMin, AmountMax: v.AmountMax, CategoryID: v.CategoryID,
		Category: v.CategoryName, CategoryKind: v.CategoryKind, Active: v.CategoryStatus == finance.StatusActive,
		CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
}

func (l ledger) selectCategoryRules(rows *[]categoryRuleView, userID string) *bun.SelectQuery {
	return l.db.NewSelect().Model(rows).
		ColumnExpr("r.*, c.name AS category_name, c.kind AS category_kind, c.status AS category_status").
		Join("JOIN categories AS c ON c.id = r.category_id").
		Where("r.user_id = ?", userID)
}

func (l ledger) CategoryRule(ctx context.Context, userID, id string) (finance.CategoryRule, error) {
	var rows []categoryRuleView
	if err := l.selectCategoryRules(&rows, userID).Where("r.id = ?", id).Scan(ctx); err != nil {
		return finance.CategoryRule{}, err
	}
	if len(rows) == 0 {
		return finance.CategoryRule{}, finance.NotFound("category rule")
	}
	return rows[0].rule(), nil
}

func (l ledger) CategoryRules(ctx context.Context, userID string) ([]finance.CategoryRule, error) {
	var rows []categoryRuleView
	if err := l.selectCategoryRules(&rows, userID).Order("r.position").Scan(ctx); err != nil {
		return nil, err
	}
	out := make([]finance.CategoryRule, len(rows))
	for i, r := range rows {
		out[i] = r.rule()
	}
	return out, nil
}

func (l ledger) InsertCategoryRule(ctx context.Context, userID string, r finance.CategoryRule) error {
	row := newCategoryRuleRow(userID, r)
	_, err := l.db.NewInsert().Model(&row).Exec(ctx)
	return err
}

func (l ledger) UpdateCategoryRule(ctx context.Context, userID string, r finance.CategoryRule) error {
	row := newCategoryRuleRow(userID, r)
	_, err := l.db.NewUpdate().Model(&row).ExcludeColumn("position", "created_at", "user_id").
		Where("id = ? AND user_id = ?", r.ID, userID).Exec(ctx)
	return err
}

func (l ledger) DeleteCategoryRule(ctx context.Context, userID, id string) error {
	_, err := l.db.NewDelete().TableExpr("category_rules").Where("id = ? AND user_id = ?", id, userID).Exec(ctx)
	return err
}

// PlaceCategoryRules numbers the rules in two steps because SQLite checks
// the unique position of each row as it is updated: first every rule of the
// user moves out of the way (past any position a rule can have), then each
// takes its place.
func (l ledger) PlaceCategoryRules(ctx context.Context, userID string, ids []string) error {
	if _, err := l.db.ExecContext(ctx, "UPDATE category_rules SET position = position + ? WHERE user_id = ?",
		finance.MaxCategoryRules+1, userID); err != nil {
		return err
	}
	for i, id := range ids {
		if _, err := l.db.ExecContext(ctx, "UPDATE category_rules SET position = ? WHERE id = ? AND user_id = ?", i+1, id, userID); err != nil {
			return err
		}
	}
	return nil
}
