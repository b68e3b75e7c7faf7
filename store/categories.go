package store

import (
	"context"
	"database/sql"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

type categoryRow struct {
	bun.BaseModel `bun:"table:categories"`
	finance.Category
	UserID  string
	NameKey string
}

func (l ledger) Category(ctx context.Context, userID, id string) (finance.Category, error) {
	var row categoryRow
	err := l.db.NewSelect().Model(&row).Where("id = ? AND user_id = ?", id, userID).Scan(ctx)
	return row.Category, notFound(err, "category")
}

func (l ledger) ActiveCategoryByName(ctx context.Context, userID string, kind finance.CategoryKind, name string) (finance.Category, error) {
	return l.cachedCategory(ctx, userID, kind, name) // lookups.go
}

// readActiveCategoryByName is ActiveCategoryByName read from the database.
func (l ledger) readActiveCategoryByName(ctx context.Context, userID string, kind finance.CategoryKind, name string) (finance.Category, error) {
	if st := l.stmt(ctx, func(h *hotStatements) *sql.Stmt { return h.categoryByName }); st != nil {
		return activeCategoryByName(ctx, st, userID, kind, name) // every expense write names a category
	}
	var row categoryRow
	err := l.db.NewSelect().Model(&row).
		Where("user_id = ? AND kind = ? AND name_key = ? AND status = 'active'", userID, kind, nameKey(name)).Scan(ctx)
	return row.Category, notFound(err, "category")
}

var categorySorts = map[string]string{"name": "name_key", "created_at": "created_at"}

func (l ledger) ListCategories(ctx context.Context, userID string, f finance.CategoryFilter, p finance.ListParams) ([]finance.Category, int, error) {
	var rows []categoryRow
	q := l.db.NewSelect().Model(&rows).Where("user_id = ?", userID)
	if f.Kind != "" {
		q = q.Where("kind = ?", f.Kind)
	}
	if f.Status != finance.StatusAll {
		q = q.Where("status = ?", f.Status)
	}
	q = searchAny(q, f.Search, "name")
	total, err := orderPage(q, categorySorts[p.SortBy], p).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]finance.Category, len(rows))
	for i, r := range rows {
		out[i] = r.Category
	}
	return out, int(total), nil
}

func (l ledger) InsertCategory(ctx context.Context, userID string, c finance.Category) error {
	l.changed() // lookups.go
	_, err := l.db.NewInsert().Model(&categoryRow{Category: c, UserID: userID, NameKey: nameKey(c.Name)}).Exec(ctx)
	return err
}

func (l ledger) UpdateCategory(ctx context.Context, userID string, c finance.Category) error {
	l.changed() // lookups.go
	row := categoryRow{Category: c, UserID: userID, NameKey: nameKey(c.Name)}
	_, err := l.db.NewUpdate().Model(&row).ExcludeColumn("created_at").Where("id = ? AND user_id = ?", c.ID, userID).Exec(ctx)
	return err
}

// seedCategories creates the default categories of a new user in tx.
func seedCategories(ctx context.Context, tx bun.IDB, u finance.User) error {
	defaults := finance.DefaultCategories()
	rows := make([]categoryRow, len(defaults))
	for i, c := range defaults {
		c.ID, c.Status, c.CreatedAt, c.UpdatedAt = finance.NewID(), finance.StatusActive, u.CreatedAt, u.CreatedAt
		rows[i] = categoryRow{Category: c, UserID: u.ID, NameKey: nameKey(c.Name)}
	}
	_, err := tx.NewInsert().Model(&rows).Exec(ctx)
	return err
}
