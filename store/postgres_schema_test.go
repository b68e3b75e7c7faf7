package store

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// openTestPostgres opens a migrated Postgres database of its own, or skips
// the test when no Postgres server is available.
func openTestPostgres(t *testing.T) *DB {
	t.Helper()
	server, ok := TestPostgresURL()
	if !ok {
		t.Skip("no Postgres server: set FINANCE_TEST_POSTGRES_URL, or run under pg_virtualenv")
	}
	u, drop, err := NewTestPostgresDatabase(context.Background(), server)
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenURL(u)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := drop(); err != nil {
			t.Errorf("drop the test database: %v", err)
		}
	})
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	return db
}

// schemaShape is what TestPostgresSchemaMatchesSQLite compares, table by
// table, each part a sorted list of one-line descriptions.
type schemaShape map[string]map[string][]string

// pgTypeOf is the Postgres type of each SQLite column type (baseline's
// header comment).
var pgTypeOf = map[string]string{
	"TEXT": "text", "INTEGER": "bigint", "BOOLEAN": "boolean", "TIMESTAMP": "timestamp with time zone", "BLOB": "bytea",
}

// sqliteOnlyTables are SQLite's own or bun's, made by the migrator on each side.
var sqliteOnlyTables = []string{"bun_migrations", "bun_migration_locks", "sqlite_sequence"}

func (s schemaShape) add(table, part, line string) {
	if s[table] == nil {
		s[table] = map[string][]string{}
	}
	s[table][part] = append(s[table][part], line)
}

func (s schemaShape) sort() {
	for _, parts := range s {
		for _, lines := range parts {
			slices.Sort(lines)
		}
	}
}

// TestPostgresSchemaMatchesSQLite: a database migrated on Postgres has the
// tables, columns (types mapped as pgTypeOf says), nullability, primary
// keys, unique constraints, foreign keys (with their ON DELETE), indexes
// (names, columns, uniqueness, partial or not), views and triggers of a
// database migrated on SQLite. It does not compare CHECK constraints, index
// predicates or trigger bodies, which the store's tests on Postgres exercise.
func TestPostgresSchemaMatchesSQLite(t *testing.T) {
	ctx := context.Background()
	pg := openTestPostgres(t)
	lite, err := Open(filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	if err := lite.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	want, err := sqliteShape(ctx, lite.writer.DB)
	if err != nil {
		t.Fatal(err)
	}
	got, err := postgresShape(ctx, pg.writer.DB)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Postgres schema differs from SQLite's (-sqlite +postgres):\n%s", d)
	}
}

func queryStrings(ctx context.Context, db *sql.DB, query string, args ...any) ([][]string, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", query, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = v.String
		}
		out = append(out, row)
	}
	return out, rows.Err()
}

func sqliteShape(ctx context.Context, db *sql.DB) (schemaShape, error) {
	s := schemaShape{}
	objects, err := queryStrings(ctx, db, "SELECT type, name, tbl_name FROM sqlite_schema WHERE type IN ('table', 'view', 'trigger')")
	if err != nil {
		return nil, err
	}
	for _, o := range objects {
		kind, name, table := o[0], o[1], o[2]
		switch {
		case slices.Contains(sqliteOnlyTables, name):
		case kind == "view":
			s.add(name, "view", name)
		case kind == "trigger":
			s.add(table, "triggers", name)
		default:
			if err := sqliteTable(ctx, db, s, name); err != nil {
				return nil, err
			}
		}
	}
	s.sort()
	return s, nil
}

func sqliteTable(ctx context.Context, db *sql.DB, s schemaShape, table string) error {
	cols, err := queryStrings(ctx, db, "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?) ORDER BY pk", table)
	if err != nil {
		return err
	}
	var pk []string
	for _, c := range cols {
		typ, ok := pgTypeOf[strings.ToUpper(c[1])]
		if !ok {
			return fmt.Errorf("%s.%s: no Postgres type for %q", table, c[0], c[1])
		}
		// A primary key column is NOT NULL on Postgres whatever it says;
		// SQLite lets a TEXT primary key hold NULL unless told not to, and
		// no writer of this service stores one.
		null := "null"
		if c[2] == "1" || c[3] != "0" {
			null = "not null"
		}
		s.add(table, "columns", c[0]+" "+typ+" "+null)
		if c[3] != "0" {
			pk = append(pk, c[0])
		}
	}
	if len(pk) > 0 {
		s.add(table, "primary key", strings.Join(pk, ", "))
	}
	indexes, err := queryStrings(ctx, db, "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?)", table)
	if err != nil {
		return err
	}
	for _, ix := range indexes {
		name, unique, origin, partial := ix[0], ix[1], ix[2], ix[3]
		// A column under NOCASE is lower(column) on Postgres (the baseline's header).
		cols, err := queryStrings(ctx, db, `SELECT CASE WHEN coll = 'NOCASE' THEN 'lower(' || name || ')' ELSE coalesce(name, '<expr>') END
			FROM pragma_index_xinfo(?) WHERE key ORDER BY seqno`, name)
		if err != nil {
			return err
		}
		var names []string
		for _, c := range cols {
			names = append(names, c[0])
		}
		switch origin {
		case "pk":
		case "u":
			s.add(table, "unique", strings.Join(names, ", "))
		default:
			s.add(table, "indexes", indexLine(name, unique == "1", partial == "1", names))
		}
	}
	fks, err := queryStrings(ctx, db, "SELECT id, \"table\", \"from\", coalesce(\"to\", ''), on_delete FROM pragma_foreign_key_list(?) ORDER BY id, seq", table)
	if err != nil {
		return err
	}
	byID := map[string][]string{}
	var ids []string
	for _, fk := range fks {
		if _, ok := byID[fk[0]]; !ok {
			ids = append(ids, fk[0])
			byID[fk[0]] = []string{fk[1], fk[4], "", ""}
		}
		f := byID[fk[0]]
		f[2] = strings.TrimPrefix(f[2]+", "+fk[2], ", ")
		f[3] = strings.TrimPrefix(f[3]+", "+fk[3], ", ")
	}
	for _, id := range ids {
		f := byID[id]
		s.add(table, "foreign keys", fmt.Sprintf("(%s) -> %s (%s) on delete %s", f[2], f[0], f[3], strings.ToLower(f[1])))
	}
	return nil
}

func indexLine(name string, unique, partial bool, cols []string) string {
	line := name + " (" + strings.Join(cols, ", ") + ")"
	if unique {
		line = "unique " + line
	}
	if partial {
		line += " partial"
	}
	return line
}

func postgresShape(ctx context.Context, db *sql.DB) (schemaShape, error) {
	s := schemaShape{}
	cols, err := queryStrings(ctx, db, `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable
		FROM information_schema.columns AS c JOIN information_schema.tables AS t USING (table_schema, table_name)
		WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'`)
	if err != nil {
		return nil, err
	}
	for _, c := range cols {
		if slices.Contains(sqliteOnlyTables, c[0]) {
			continue
		}
		null := "null"
		if c[3] == "NO" {
			null = "not null"
		}
		s.add(c[0], "columns", c[1]+" "+c[2]+" "+null)
	}
	views, err := queryStrings(ctx, db, "SELECT table_name FROM information_schema.views WHERE table_schema = current_schema()")
	if err != nil {
		return nil, err
	}
	for _, v := range views {
		s.add(v[0], "view", v[0])
	}
	triggers, err := queryStrings(ctx, db, `SELECT c.relname, t.tgname FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid
		WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace`)
	if err != nil {
		return nil, err
	}
	for _, tr := range triggers {
		s.add(tr[0], "triggers", tr[1])
	}
	// Constraints: columns in key order.
	cons, err := queryStrings(ctx, db, `SELECT c.conrelid::regclass::text, c.contype, c.confrelid::regclass::text, c.confdeltype,
		(SELECT string_agg(a.attname, ', ' ORDER BY k.i) FROM unnest(c.conkey) WITH ORDINALITY AS k(n, i)
			JOIN pg_attribute AS a ON a.attrelid = c.conrelid AND a.attnum = k.n),
		(SELECT string_agg(a.attname, ', ' ORDER BY k.i) FROM unnest(c.confkey) WITH ORDINALITY AS k(n, i)
			JOIN pg_attribute AS a ON a.attrelid = c.confrelid AND a.attnum = k.n)
		FROM pg_constraint AS c WHERE c.connamespace = current_schema()::regnamespace AND c.contype IN ('p', 'u', 'f')`)
	if err != nil {
		return nil, err
	}
	onDelete := map[string]string{"a": "no action", "r": "restrict", "c": "cascade", "n": "set null", "d": "set default"}
	for _, c := range cons {
		table := c[0]
		if slices.Contains(sqliteOnlyTables, table) {
			continue
		}
		switch c[1] {
		case "p":
			s.add(table, "primary key", c[4])
		case "u":
			s.add(table, "unique", c[4])
		case "f":
			s.add(table, "foreign keys", fmt.Sprintf("(%s) -> %s (%s) on delete %s", c[4], c[2], c[5], onDelete[c[3]]))
		}
	}
	// Indexes that back no constraint.
	indexes, err := queryStrings(ctx, db, `SELECT t.relname, i.relname, x.indisunique, x.indpred IS NOT NULL,
		(SELECT string_agg(coalesce(a.attname, pg_get_indexdef(x.indexrelid, k.i::int, true)), '|' ORDER BY k.i)
			FROM unnest(x.indkey) WITH ORDINALITY AS k(n, i)
			LEFT JOIN pg_attribute AS a ON a.attrelid = x.indrelid AND a.attnum = k.n)
		FROM pg_index AS x JOIN pg_class AS i ON i.oid = x.indexrelid JOIN pg_class AS t ON t.oid = x.indrelid
		WHERE t.relnamespace = current_schema()::regnamespace
			AND NOT EXISTS (SELECT 1 FROM pg_constraint AS c WHERE c.conindid = x.indexrelid AND c.contype IN ('p', 'u'))`)
	if err != nil {
		return nil, err
	}
	for _, ix := range indexes {
		if slices.Contains(sqliteOnlyTables, ix[0]) {
			continue
		}
		cols := strings.Split(ix[4], "|")
		for i, c := range cols {
			// Expressions compare as SQLite lists them, but for lower(column),
			// which stands for NOCASE.
			if strings.Contains(c, "(") && !(strings.HasPrefix(c, "lower(") && strings.Count(c, "(") == 1) {
				cols[i] = "<expr>"
			}
		}
		s.add(ix[0], "indexes", indexLine(ix[1], ix[2] == "true", ix[3] == "true", cols))
	}
	s.sort()
	return s, nil
}

// TestMigrationsArePaired: Postgres starts at the baseline, named after the
// SQLite migration whose schema it equals; every migration after it is a
// pair, one for each dialect under the same name, so that a database of
// either dialect reaches the same schema.
func TestMigrationsArePaired(t *testing.T) {
	names := func(d dialect) []string {
		all, err := d.migrations()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range all.Sorted() {
			out = append(out, m.Name)
		}
		return out
	}
	lite, pg := names(sqliteDialect), names(postgresDialect)
	if len(pg) == 0 || pg[0] != pgBaseline {
		t.Fatalf("Postgres migrations %v: want the baseline %s first", pg, pgBaseline)
	}
	if !slices.Contains(lite, pgBaseline) {
		t.Fatalf("the Postgres baseline %s names no SQLite migration", pgBaseline)
	}
	var after []string
	for _, n := range lite {
		if n >= pgBaseline {
			after = append(after, n)
		}
	}
	if d := cmp.Diff(after, pg); d != "" {
		t.Errorf("migrations after the baseline differ (-sqlite +postgres): a migration added to store/migrations "+
			"needs its Postgres twin of the same name in store/migrations_postgres:\n%s", d)
	}
}
