package store_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// beforeSemimonthlyRebuild is the last migration before bill templates
// gain semimonthly and second_due_day.
const beforeSemimonthlyRebuild = "20261205000100"

// Bill templates written before the rebuild keep every column and their
// index; afterwards one can fall due twice a month.
func TestSemimonthlyRebuildKeepsBillTemplates(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, beforeSemimonthlyRebuild)
	alice := createUser(t, db, "alice@example.com")
	var cats []string
	if err := db.ReaderScan(ctx, &cats, "SELECT id FROM categories WHERE user_id = ? AND name = 'Utilities'", alice.ID); err != nil || len(cats) != 1 {
		t.Fatalf("categories %v, %v", cats, err)
	}
	for _, row := range []struct{ id, freq, day, gen string }{
		{"01930000-0000-7000-8000-000000000001", "monthly", "31", "2026-03-31"},
		{"01930000-0000-7000-8000-000000000002", "weekly", "", ""},
	} {
		if err := db.WriterExec(ctx, `INSERT INTO bill_templates (id, user_id, name, amount, category_id, frequency, start_date,
			due_day, status, generated_through, created_at, updated_at)
			VALUES (?, ?, 'Rent', 1500000, ?, ?, '2026-01-01', NULLIF(?, ''), 'active', NULLIF(?, ''), '2026-01-01 00:00:00', '2026-01-01 00:00:00')`,
			row.id, alice.ID, cats[0], row.freq, row.day, row.gen); err != nil {
			t.Fatal(err)
		}
	}
	snapshot := func() []map[string]any {
		t.Helper()
		var rows []map[string]any
		if err := db.ReaderScan(ctx, &rows, "SELECT * FROM bill_templates ORDER BY id"); err != nil {
			t.Fatal(err)
		}
		var ix []map[string]any
		if err := db.ReaderScan(ctx, &ix, "SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'bill_templates' ORDER BY name"); err != nil {
			t.Fatal(err)
		}
		return append(rows, ix...)
	}
	before := snapshot()
	// Through the rebuild only: later migrations add columns (currency) of their own.
	if err := db.MigrateThrough(ctx, "20261205000110"); err != nil {
		t.Fatal(err)
	}
	after := snapshot()
	for i := range after[:2] {
		if v, ok := after[i]["second_due_day"]; !ok || v != nil {
			t.Errorf("row %d: second_due_day %v (present %v), want null", i, v, ok)
		}
		delete(after[i], "second_due_day")
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("rows or index changed by the rebuild (-before +after):\n%s", diff)
	}

	if err := db.Migrate(ctx); err != nil { // the service reads today's schema
		t.Fatal(err)
	}
	var req finance.BillTemplateRequest
	if err := json.Unmarshal([]byte(`{"frequency":"semimonthly","due_day":15,"second_due_day":31}`), &req); err != nil {
		t.Fatal(err)
	}
	got, err := finance.NewService(db).UpdateBillTemplate(ctx, alice.ID, "01930000-0000-7000-8000-000000000001", req)
	if err != nil || got.SecondDueDay == nil || *got.SecondDueDay != 31 {
		t.Fatalf("semimonthly after the rebuild: %+v, %v", got, err)
	}
}
