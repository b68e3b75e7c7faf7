package store

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// Every table is either exported or left out with its reason: a table added
// later (import batches, say) fails here until it is one or the other. And
// every column of an exported table has a rule, so a new INTEGER column is
// declared money or not before it can leave in an export.
func TestExportCoversEveryTable(t *testing.T) {
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	var tables []string
	if err := db.reader.NewRaw("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").Scan(ctx, &tables); err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, k := range exportKinds {
		if exported[k.table] {
			t.Errorf("%s is exported twice", k.table)
		}
		exported[k.table] = true
	}
	for _, table := range tables {
		_, left := exportLeftOut[table]
		switch {
		case exported[table] && left:
			t.Errorf("%s is both exported and left out", table)
		case !exported[table] && !left:
			t.Errorf("%s is neither exported nor left out with a reason (store/export.go)", table)
		}
	}
	for table := range exportLeftOut {
		if !slices.Contains(tables, table) {
			t.Errorf("%s is left out but no longer exists", table)
		}
	}
	for _, k := range exportKinds {
		cols, err := k.columns(ctx, db.reader.DB, db.dialect)
		if err != nil {
			t.Errorf("%s: %v", k.key, err)
			continue
		}
		var types map[string]string
		rows, err := db.reader.QueryContext(ctx, "SELECT name, upper(type) FROM pragma_table_info(?)", k.table)
		if err != nil {
			t.Fatal(err)
		}
		types = map[string]string{}
		for rows.Next() {
			var n, typ string
			if err := rows.Scan(&n, &typ); err != nil {
				t.Fatal(err)
			}
			types[n] = typ
		}
		rows.Close()
		if types["user_id"] == "" {
			t.Errorf("%s has no user_id: the export cannot select the user's rows", k.table)
		}
		for _, name := range append(slices.Clone(k.money), k.integers...) {
			if types[name] != "INTEGER" {
				t.Errorf("%s.%s is listed as money or an integer but is %q", k.table, name, types[name])
			}
		}
		if len(cols)+len(slices.DeleteFunc(slices.Clone(ownerColumns), func(c string) bool { return types[c] == "" })) != len(types) {
			t.Errorf("%s: %d columns exported of %d", k.table, len(cols), len(types))
		}
	}
}
