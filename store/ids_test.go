package store_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// beforeBinaryIDs is the last migration before ids were stored as bytes.
const beforeBinaryIDs = "20261218000100"

// textIDsLeft lists, for every TEXT column of every table, how many values
// are still an id as text: the columns named id or ending in _id, and any
// other column, since the conversion is by value.
func textIDsLeft(t *testing.T, db *store.DB) map[string]int {
	t.Helper()
	ctx := context.Background()
	var columns []struct{ Table, Column string }
	if err := db.ReaderScan(ctx, &columns, `SELECT t.name AS "table", c.name AS "column"
		FROM sqlite_schema AS t, pragma_table_info(t.name) AS c
		WHERE t.type = 'table' AND t.name NOT LIKE 'bun\_%' ESCAPE '\' AND upper(c.type) = 'TEXT'`); err != nil {
		t.Fatal(err)
	}
	left := map[string]int{}
	for _, c := range columns {
		n, err := db.QueryInt(ctx, fmt.Sprintf(`SELECT count(*) FROM "%s" WHERE typeof("%s") = 'text' AND is_text_id("%[2]s")`, c.Table, c.Column))
		if err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			left[c.Table+"."+c.Column] = n
		}
	}
	return left
}

// idColumnTypes counts, per column named id or ending in _id, the storage
// classes of its values.
func idColumnTypes(t *testing.T, db *store.DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	var columns []struct{ Table, Column string }
	if err := db.ReaderScan(ctx, &columns, `SELECT t.name AS "table", c.name AS "column"
		FROM sqlite_schema AS t, pragma_table_info(t.name) AS c
		WHERE t.type = 'table' AND t.name NOT LIKE 'bun\_%' ESCAPE '\' AND upper(c.type) = 'TEXT'
		AND (c.name = 'id' OR c.name LIKE '%\_id' ESCAPE '\')`); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range columns {
		var kinds []string
		if err := db.ReaderScan(ctx, &kinds, fmt.Sprintf(`SELECT DISTINCT CASE WHEN "%s" = '' THEN 'empty' ELSE typeof("%[1]s") END
			FROM "%s" WHERE "%[1]s" IS NOT NULL ORDER BY 1`, c.Column, c.Table)); err != nil {
			t.Fatal(err)
		}
		if len(kinds) > 0 {
			out[c.Table+"."+c.Column] = strings.Join(kinds, ",")
		}
	}
	return out
}

// A freshly migrated database stores every id a user's records write as
// its 16 bytes, and the service reads them back as the same text.
func TestFreshDatabaseStoresIDsAsBytes(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	svc := finance.NewService(db)
	svc.SetClock(func() time.Time { return time.Date(2025, 3, 20, 4, 0, 0, 0, time.UTC) })
	ana := createUser(t, db, "ana@example.com")
	fillHousehold(t, svc, ana.ID)
	if left := textIDsLeft(t, db); len(left) > 0 {
		t.Errorf("ids stored as text: %v", left)
	}
	for col, kinds := range idColumnTypes(t, db) {
		if kinds != "blob" && kinds != "blob,empty" && kinds != "empty" {
			t.Errorf("%s holds %s, want blob", col, kinds)
		}
	}
	if n, err := db.QueryInt(ctx, `SELECT length(id) FROM users WHERE id = ?`, ana.ID); err != nil || n != 16 {
		t.Errorf("length of the user's stored id = %d, %v; want 16", n, err)
	}
	u, err := db.UserByID(ctx, ana.ID)
	if err != nil || u.ID != ana.ID {
		t.Errorf("UserByID = %q, %v; want %q", u.ID, err, ana.ID)
	}
}

// A database whose ids are text, as every earlier version wrote them, holds
// the same records after the migration with every id as bytes: each user's
// export document is the same byte for byte, the lists come in the same
// orders, no id is left as text in any column, and the triggers that keep
// totals still keep them.
func TestBinaryIDsMigrationKeepsEveryRecord(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, beforeBinaryIDs)
	svc := finance.NewService(db)
	svc.SetClock(func() time.Time { return time.Date(2025, 3, 20, 4, 0, 0, 0, time.UTC) })
	ana := createUser(t, db, "ana@example.com")
	ben := createUser(t, db, "ben@example.com")
	fillHousehold(t, svc, ana.ID)
	fillHousehold(t, svc, ben.ID)

	export := func(userID string) string {
		t.Helper()
		var b bytes.Buffer
		if err := db.Export(ctx, userID, time.Date(2025, 3, 21, 0, 0, 0, 0, time.UTC), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	lists := func(userID string) map[string][]string {
		t.Helper()
		out := map[string][]string{}
		for _, sort := range []string{"date", "amount", "description", "created_at"} {
			for _, desc := range []bool{false, true} {
				page, err := svc.ListExpenses(ctx, userID, finance.ExpenseFilter{Status: "active"},
					finance.ListParams{Page: 1, Limit: 100, SortBy: sort, Desc: desc})
				if err != nil {
					t.Fatal(err)
				}
				for _, e := range page.Items {
					out[fmt.Sprint(sort, desc)] = append(out[fmt.Sprint(sort, desc)], e.ID)
				}
			}
		}
		return out
	}
	// A picture whose bytes are 16, as many as an id's: its column is
	// declared BLOB, so they are never taken for one.
	pictureBytes := []byte("0123456789abcdef")
	execer(t, db)(`INSERT INTO profile_pictures (name, user_id, content_type, content, created_at)
		VALUES ('p.png', ?, 'image/png', ?, 0)`, ana.ID, pictureBytes)
	wantDocs := map[string]string{ana.ID: export(ana.ID), ben.ID: export(ben.ID)}
	wantLists := map[string]map[string][]string{ana.ID: lists(ana.ID), ben.ID: lists(ben.ID)}
	textBefore := textIDsLeft(t, db)
	if textBefore["expenses.id"] == 0 || textBefore["users.id"] != 2 || textBefore["profile_pictures.user_id"] != 1 {
		t.Fatalf("text ids before the migration: %v", textBefore)
	}
	triggers, err := db.QueryInt(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'`)
	if err != nil {
		t.Fatal(err)
	}

	// Slices of a few rows, so that every table of more takes several.
	defer store.SetIDRowsPerUpdate(7)()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if left := textIDsLeft(t, db); len(left) > 0 {
		t.Errorf("ids left as text after the migration: %v", left)
	}
	for col, kinds := range idColumnTypes(t, db) {
		if kinds != "blob" && kinds != "blob,empty" && kinds != "empty" {
			t.Errorf("%s holds %s after the migration, want blob", col, kinds)
		}
	}
	if n, err := db.QueryInt(ctx, `SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'`); err != nil || n != triggers {
		t.Errorf("triggers after the migration: %d, want %d (%v)", n, triggers, err)
	}
	if n, err := db.QueryInt(ctx, `SELECT count(*) FROM pragma_foreign_key_check`); err != nil || n != 0 {
		t.Errorf("foreign keys broken after the migration: %d, %v", n, err)
	}
	for _, u := range []finance.User{ana, ben} {
		want := strings.Replace(wantDocs[u.ID], `"schema_version":"`+beforeBinaryIDs+`"`, `"schema_version":"`+store.SchemaVersion()+`"`, 1)
		if got := export(u.ID); got != want {
			t.Errorf("%s: the export document changed through the migration:\n got %s\nwant %s", u.Email, got, want)
		}
		if diff := cmp.Diff(wantLists[u.ID], lists(u.ID)); diff != "" {
			t.Errorf("%s: list orders changed through the migration (-want +got):\n%s", u.Email, diff)
		}
	}
	if drift, err := db.TotalsDrift(ctx); err != nil || len(drift) > 0 {
		t.Errorf("kept totals drift after the migration: %v, %v", drift, err)
	}
	if pic, err := svc.PictureFile(ctx, "p.png"); err != nil || !bytes.Equal(pic.Content, pictureBytes) {
		t.Errorf("the picture after the migration: %q, %v; want %q", pic.Content, err, pictureBytes)
	}

	// The totals' triggers work on the converted rows.
	if _, err := svc.CreateExpense(ctx, ana.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(1234)),
		Date: finance.Of(finance.NewDate(2025, 3, 19)), Description: finance.Of("after"), Category: finance.Of("Food & Dining"),
		PaymentMethod: finance.Of(finance.MethodCash)}); err != nil {
		t.Fatal(err)
	}
	if drift, err := db.TotalsDrift(ctx); err != nil || len(drift) > 0 {
		t.Errorf("kept totals drift after a write on the converted rows: %v, %v", drift, err)
	}
	if left := textIDsLeft(t, db); len(left) > 0 {
		t.Errorf("ids written as text after the migration: %v", left)
	}
}

// A value in a column of ids that is not an id stops the migration, naming
// the column and the value, and leaves the database as it was.
func TestBinaryIDsMigrationRefusesMalformedID(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, beforeBinaryIDs)
	svc := finance.NewService(db)
	ana := createUser(t, db, "ana@example.com")
	fillHousehold(t, svc, ana.ID)
	exec := execer(t, db)
	exec(`UPDATE activity SET record_id = 'EXP-42' WHERE rowid = (SELECT min(rowid) FROM activity WHERE record_id IS NOT NULL)`)
	before := textIDsLeft(t, db)
	err := db.Migrate(ctx)
	if err == nil || !strings.Contains(err.Error(), "activity.record_id") || !strings.Contains(err.Error(), `"EXP-42"`) {
		t.Fatalf("Migrate = %v, want an error naming activity.record_id and its value", err)
	}
	if n, err := db.QueryInt(ctx, `SELECT count(*) FROM bun_migrations WHERE name > '`+beforeBinaryIDs+`'`); err != nil || n != 0 {
		t.Errorf("migrations recorded after the failure: %d, %v", n, err)
	}
	if diff := cmp.Diff(before, textIDsLeft(t, db)); diff != "" {
		t.Errorf("text ids changed by the failed migration (-before +after):\n%s", diff)
	}
	if _, err := db.UserByID(ctx, ana.ID); err != nil {
		t.Errorf("the user after the failed migration: %v", err)
	}
}

// The tests' guard: a query that holds an id as quoted text fails instead
// of matching nothing, and the same id as an argument is found.
func TestTextIDLiteralIsRefused(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	ana := createUser(t, db, "ana@example.com")
	if _, err := db.QueryInt(ctx, `SELECT count(*) FROM users WHERE id = '`+ana.ID+`'`); err == nil || !strings.Contains(err.Error(), ana.ID) {
		t.Errorf("a query with the id as quoted text = %v, want an error naming it", err)
	}
	if n, err := db.QueryInt(ctx, `SELECT count(*) FROM users WHERE id = ?`, ana.ID); err != nil || n != 1 {
		t.Errorf("users with the id as an argument = %d, %v; want 1", n, err)
	}
	var got string
	if err := db.ReaderScan(ctx, &got, `SELECT id FROM users WHERE email = ?`, ana.Email); err != nil || got != ana.ID {
		t.Errorf("the id read back = %q, %v; want %q", got, err, ana.ID)
	}
}

// A text that only looks like an id (a description that is a UUID) is
// stored as bytes too and reads back the same: the rule is by value.
func TestTextThatIsAUUIDReadsBackTheSame(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	svc := finance.NewService(db)
	ana := createUser(t, db, "ana@example.com")
	text := finance.NewID()
	e, err := svc.CreateExpense(ctx, ana.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(1234)),
		Date: finance.Of(finance.NewDate(2025, 3, 19)), Description: finance.Of(text), Category: finance.Of("Food & Dining"),
		PaymentMethod: finance.Of(finance.MethodCash)})
	if err != nil {
		t.Fatal(err)
	}
	got, err := svc.GetExpense(ctx, ana.ID, e.ID)
	if err != nil || got.Description != text {
		t.Errorf("description read back = %q, %v; want %q", got.Description, err, text)
	}
	page, err := svc.ListExpenses(ctx, ana.ID, finance.ExpenseFilter{Status: "active"},
		finance.ListParams{Page: 1, Limit: 10, SortBy: "description"})
	if err != nil || len(page.Items) != 1 || page.Items[0].Description != text {
		t.Errorf("list = %+v, %v; want the one expense described %q", page.Items, err, text)
	}
}
