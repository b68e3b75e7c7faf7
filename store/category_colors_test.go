package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// beforeCategoryColors is the last migration before default categories
// had colours.
const beforeCategoryColors = "20261208000100"

// The default categories of a user created before they had colours get
// the colours a new user's get; a colour the person chose, a category of
// their own and one of another kind with a default's name keep theirs,
// and no row's updated_at moves.
func TestCategoryColorsMigration(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, beforeCategoryColors)
	exec := execer(t, db)
	const at = "2025-03-01 08:00:00+00:00"
	user := finance.NewID()
	exec(`INSERT INTO users (id, email, name, password_hash, plan, seq, created_at, updated_at) VALUES (?, 'old@example.com', 'Old', 'h', 'pro', 1, ?, ?)`,
		user, at, at)
	insert := func(name, kind, status string, color any) {
		exec(`INSERT INTO categories (id, user_id, name, name_key, kind, color, is_system, status, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`, finance.NewID(), user, name, strings.ToLower(name), kind, color, status, at, at)
	}
	want := map[string]string{}
	for _, c := range finance.DefaultCategories() {
		switch c.Name {
		case "Shopping": // the person chose a colour
			insert(c.Name, string(c.Kind), "active", "#123456")
			want[c.Name] = "#123456"
		case "Travel": // archived, still shown in old records
			insert(c.Name, string(c.Kind), "archived", nil)
			want[c.Name] = *c.Color
		default:
			insert(c.Name, string(c.Kind), "active", nil)
			want[c.Name] = *c.Color
		}
	}
	insert("Pets", "expense", "active", nil)
	want["Pets"] = ""
	insert("Salary ", "expense", "active", nil) // an expense category named like an income one
	want["Salary "] = ""

	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Name      string
		Kind      string
		Color     *string
		UpdatedAt string
	}
	if err := db.ReaderScan(ctx, &rows, `SELECT name, kind, color, updated_at FROM categories WHERE user_id = ?`, user); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range rows {
		if r.Color != nil {
			got[r.Name] = *r.Color
		} else {
			got[r.Name] = ""
		}
		if !strings.HasPrefix(r.UpdatedAt, "2025-03-01") {
			t.Errorf("%s: updated_at %s, want it kept", r.Name, r.UpdatedAt)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("colours (-want +got):\n%s", diff)
	}
}
