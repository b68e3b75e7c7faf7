package store_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// beforeIntegerTimestamps is the last migration before timestamps were
// stored as integer microseconds.
const beforeIntegerTimestamps = "20261216000300"

// A database whose timestamps are text, in the two forms earlier versions
// wrote (the driver's time.Time.String and bun's), holds the same instants
// after the migration, as integers: the user's export document is the same
// byte for byte, the newest expenses come in the same order, a fraction of
// a second survives to the microsecond, no text is left in a timestamp
// column, and the triggers that keep totals still keep them.
func TestIntegerTimestampsMigrationKeepsEveryInstant(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, beforeIntegerTimestamps)
	svc := finance.NewService(db)
	svc.SetClock(func() time.Time { return time.Date(2025, 3, 20, 4, 0, 0, 0, time.UTC) })
	ana := createUser(t, db, "ana@example.com")
	fillHousehold(t, svc, ana.ID)
	exec := execer(t, db)

	export := func() string {
		t.Helper()
		var b bytes.Buffer
		if err := db.Export(ctx, ana.ID, time.Date(2025, 3, 21, 0, 0, 0, 0, time.UTC), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	newest := func() []string {
		t.Helper()
		page, err := svc.ListExpenses(ctx, ana.ID, finance.ExpenseFilter{Status: "active"},
			finance.ListParams{Page: 1, Limit: 100, SortBy: "created_at", Desc: true})
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range page.Items {
			ids = append(ids, e.ID)
		}
		return ids
	}
	wantDoc, wantNewest := export(), newest()

	// Turn every stored timestamp back into text, alternating the forms,
	// to the microsecond.
	var columns []struct{ Table, Column string }
	if err := db.ReaderScan(ctx, &columns, `SELECT t.name AS "table", c.name AS "column"
		FROM sqlite_schema AS t, pragma_table_info(t.name) AS c
		WHERE t.type = 'table' AND t.name NOT LIKE 'bun\_%' ESCAPE '\' AND c.type = 'TIMESTAMP'`); err != nil {
		t.Fatal(err)
	}
	for i, c := range columns {
		suffix := " +0000 UTC"
		if i%2 == 1 {
			suffix = "+00:00"
		}
		exec(fmt.Sprintf(`UPDATE "%s" SET "%s" = strftime('%%Y-%%m-%%d %%H:%%M:%%S', "%[2]s" / 1000000, 'unixepoch')
			|| printf('.%%06d', "%[2]s" %% 1000000) || ?
			WHERE "%[2]s" IS NOT NULL`, c.Table, c.Column), suffix)
	}
	exec(`UPDATE users SET updated_at = '2025-03-20 04:00:00.123456789 +0000 UTC m=+0.000000001' WHERE id = ?`, ana.ID)
	text, err := db.QueryInt(ctx, `SELECT count(*) FROM expenses WHERE typeof(created_at) = 'text'`)
	if err != nil || text == 0 {
		t.Fatalf("expenses with text timestamps before the migration: %d, %v", text, err)
	}
	triggers, err := db.QueryInt(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'`)
	if err != nil {
		t.Fatal(err)
	}

	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	for _, c := range columns {
		n, err := db.QueryInt(ctx, fmt.Sprintf(`SELECT count(*) FROM "%s" WHERE typeof("%s") NOT IN ('integer', 'null')`, c.Table, c.Column))
		if err != nil || n != 0 {
			t.Errorf("%s.%s: %d values not integer after the migration (%v)", c.Table, c.Column, n, err)
		}
	}
	if n, err := db.QueryInt(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'`); err != nil || n != triggers {
		t.Errorf("triggers after the migration: %d, want %d (%v)", n, triggers, err)
	}
	u, err := db.UserByID(ctx, ana.ID)
	if want := time.Date(2025, 3, 20, 4, 0, 0, 123456000, time.UTC); err != nil || !u.UpdatedAt.Equal(want) {
		t.Errorf("user's updated_at = %v, %v; want %v", u.UpdatedAt, err, want)
	}
	exec(`UPDATE users SET updated_at = ? WHERE id = ?`, time.Date(2025, 3, 20, 4, 0, 0, 0, time.UTC), ana.ID)
	// The document names the schema it was written under; the rest is the same.
	wantDoc = strings.Replace(wantDoc, `"schema_version":"`+beforeIntegerTimestamps+`"`, `"schema_version":"`+store.SchemaVersion()+`"`, 1)
	if got := export(); got != wantDoc {
		t.Errorf("the export document changed through the migration:\n got %s\nwant %s", got, wantDoc)
	}
	if got := newest(); fmt.Sprint(got) != fmt.Sprint(wantNewest) {
		t.Errorf("newest expenses after the migration = %v, want %v", got, wantNewest)
	}

	// The totals' triggers work on the converted rows.
	if _, err := svc.CreateExpense(ctx, ana.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(1234)),
		Date: finance.Of(finance.NewDate(2025, 3, 19)), Description: finance.Of("after"), Category: finance.Of("Food & Dining"),
		PaymentMethod: finance.Of(finance.MethodCash)}); err != nil {
		t.Fatal(err)
	}
	if drift, err := db.TotalsDrift(ctx); err != nil || len(drift) > 0 {
		t.Errorf("kept totals drift after the migration: %v, %v", drift, err)
	}
}

// A timestamp the conversion cannot read stops the migration, naming the
// column and the value, and leaves the database as it was.
func TestIntegerTimestampsMigrationRefusesUnreadableText(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, beforeIntegerTimestamps)
	u := createUser(t, db, "ana@example.com")
	exec := execer(t, db)
	exec(`UPDATE categories SET created_at = '2025-03-20 04:00:00+00:00'`)
	exec(`UPDATE users SET created_at = 'last tuesday' WHERE id = ?`, u.ID)
	err := db.Migrate(ctx)
	if err == nil || !strings.Contains(err.Error(), "users.created_at") || !strings.Contains(err.Error(), `"last tuesday"`) {
		t.Fatalf("Migrate = %v, want an error naming users.created_at and its value", err)
	}
	for q, want := range map[string]int{
		`SELECT count(*) FROM bun_migrations WHERE name > '` + beforeIntegerTimestamps + `'`: 0,
		`SELECT count(*) FROM categories WHERE typeof(created_at) <> 'text'`:                 0,
	} {
		if n, err := db.QueryInt(ctx, q); err != nil || n != want {
			t.Errorf("%s = %d, %v; want %d", q, n, err, want)
		}
	}
}
