package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/migrate"
	"modernc.org/sqlite"
)

// Ids on SQLite are stored as their 16 bytes: a BLOB where the canonical
// text (8-4-4-4-12 lowercase hex) took 36 bytes, in the row and in every
// index that holds one. Outside this package an id is still that text, and
// so is it in every query the store writes: the conversion happens where a
// value crosses into SQLite and back, in one place for each way.
//
//   - Into SQLite: a string that is a canonical UUID becomes its 16 bytes,
//     whether bun writes it into the query text (timeDialect.AppendString
//     writes X'…') or database/sql binds it to a prepared statement (the
//     driver's connections, idConn).
//   - Out of SQLite: a 16-byte BLOB read from a column not declared BLOB
//     (the secrets' hashes and stored bodies are) becomes the canonical text
//     again (idRows), so that every scan, bun's and database/sql's, reads
//     the string it wrote.
//
// The rule is by value, not by column: a canonical UUID is stored as bytes
// in whatever column it is written to, and read back as the same text, so
// an id is compared, joined and ordered the same way everywhere (the bytes
// order as the lowercase text does). A text that only looks like an id (an
// Idempotency-Key that is a UUID) is stored the same way and reads back
// unchanged. Only SQL's own text functions see the bytes, and the store
// applies them to no id; a description that is exactly a UUID, though, is
// not found by a search for a part of it, and sorts after the others.
//
// The kept totals' "no category" and "no card" are still '' (a text, apart
// from every id). Postgres keeps ids as text: nothing converts there.
//
// A database converts once, by migration 20261218000500 (binaryIDs);
// until then (a database of an earlier version, being migrated) its ids
// are text and nothing converts. An idSwitch, shared by the connections
// and the dialects of one DB, says which.

// binaryIDsMigration is the migration that turns text ids into bytes.
const binaryIDsMigration = "20261218000500"

// idSwitch says whether a database stores ids as bytes.
type idSwitch struct{ on atomic.Bool }

// idBytes is s as 16 bytes, if s is a canonical UUID: 36 characters,
// lowercase hex in groups of 8-4-4-4-12.
func idBytes(s string) ([16]byte, bool) {
	var b [16]byte
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return b, false
	}
	for i, j := 0, 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			i++
			continue
		}
		hi, ok1 := lowerHex(s[i])
		lo, ok2 := lowerHex(s[i+1])
		if !ok1 || !ok2 {
			return b, false
		}
		b[j] = hi<<4 | lo
		i, j = i+2, j+1
	}
	return b, true
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// idText is the canonical text of an id's 16 bytes.
func idText(b []byte) string {
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], b[10:16])
	return string(s[:])
}

// AppendString writes a canonical UUID as a BLOB literal once the database
// stores ids as bytes, and any other string as bun does.
func (d timeDialect) AppendString(b []byte, s string) []byte {
	if d.ids != nil && d.ids.on.Load() {
		if id, ok := idBytes(s); ok {
			b = append(b, "X'"...)
			b = hex.AppendEncode(b, id[:])
			return append(b, '\'')
		}
	}
	return d.Dialect.AppendString(b, s)
}

// sqliteDriver is the driver "sqlite" registers; the store's connections
// are opened from it through idConnector.
var sqliteDriver = func() driver.Driver {
	db, err := sql.Open("sqlite", "")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	return db.Driver()
}()

// openSQLite opens a pool of dsn whose connections store ids as ids says.
func openSQLite(dsn string, ids *idSwitch) *sql.DB {
	return sql.OpenDB(idConnector{dsn: dsn, ids: ids})
}

type idConnector struct {
	dsn string
	ids *idSwitch
}

func (c idConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := sqliteDriver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	sc, ok := conn.(sqliteConn)
	if !ok {
		conn.Close()
		return nil, fmt.Errorf("store: the SQLite driver's connection is a %T", conn)
	}
	return idConn{sc, c.ids}, nil
}

func (c idConnector) Driver() driver.Driver { return sqliteDriver }

// sqliteConn is what database/sql uses of the driver's connection.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
}

// idConn binds ids as bytes and reads them back as text (idRows).
type idConn struct {
	sqliteConn
	ids *idSwitch
}

func (c idConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if err := c.check(query); err != nil {
		return nil, err
	}
	return c.sqliteConn.ExecContext(ctx, query, c.args(args))
}

func (c idConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.check(query); err != nil {
		return nil, err
	}
	r, err := c.sqliteConn.QueryContext(ctx, query, c.args(args))
	if err != nil {
		return nil, err
	}
	return c.rows(r), nil
}

func (c idConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.check(query); err != nil {
		return nil, err
	}
	s, err := c.sqliteConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return idStmt{s.(sqliteStmt), c}, nil
}

func (c idConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// args are args with every canonical UUID as its bytes; args itself when
// the database stores text ids or none is one.
func (c idConn) args(args []driver.NamedValue) []driver.NamedValue {
	if !c.ids.on.Load() {
		return args
	}
	var out []driver.NamedValue
	for i, a := range args {
		s, ok := a.Value.(string)
		if !ok {
			continue
		}
		id, ok := idBytes(s)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]driver.NamedValue(nil), args...)
		}
		out[i].Value = id[:]
	}
	if out == nil {
		return args
	}
	return out
}

func (c idConn) rows(r driver.Rows) driver.Rows {
	if !c.ids.on.Load() {
		return r
	}
	if sr, ok := r.(sqliteRows); ok {
		return &idRows{sqliteRows: sr}
	}
	return r
}

// textIDLiteral matches a canonical UUID quoted in SQL text. It is compiled
// on first use, which only tests make, so the served binary never pays for it.
var textIDLiteral = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`'[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'`)
})

// refuseTextIDLiterals makes every query that holds a quoted canonical UUID
// fail, on a database that stores ids as bytes: such a literal compares as
// text with the bytes and matches nothing. Tests turn it on
// (RefuseTextIDLiterals) for their whole run, so that a query built
// around the conversion fails there.
var refuseTextIDLiterals atomic.Bool

// RefuseTextIDLiterals turns on, for the whole process, the refusal of any
// SQLite query that holds an id as quoted text. It is for tests.
func RefuseTextIDLiterals() { refuseTextIDLiterals.Store(true) }

func (c idConn) check(query string) error {
	if !refuseTextIDLiterals.Load() || !c.ids.on.Load() {
		return nil
	}
	if lit := textIDLiteral().FindString(query); lit != "" {
		return fmt.Errorf("store: a query holds the id %s as text, which matches no stored id: %s", lit, query)
	}
	return nil
}

// sqliteStmt is what database/sql uses of the driver's statement.
type sqliteStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

type idStmt struct {
	sqliteStmt
	c idConn
}

func (s idStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.sqliteStmt.ExecContext(ctx, s.c.args(args))
}

func (s idStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	r, err := s.sqliteStmt.QueryContext(ctx, s.c.args(args))
	if err != nil {
		return nil, err
	}
	return s.c.rows(r), nil
}

// sqliteRows is what database/sql uses of the driver's rows.
type sqliteRows interface {
	driver.Rows
	driver.RowsColumnTypeDatabaseTypeName
	driver.RowsColumnTypeScanType
	driver.RowsColumnTypeNullable
	driver.RowsColumnTypeLength
	driver.RowsColumnTypePrecisionScale
}

// idRows reads a 16-byte BLOB of a column not declared BLOB as the id's text.
type idRows struct {
	sqliteRows
	blob []bool // per column: declared BLOB, so left as it is; nil until the first id-sized value
}

func (r *idRows) Next(dest []driver.Value) error {
	if err := r.sqliteRows.Next(dest); err != nil {
		return err
	}
	for i, v := range dest {
		b, ok := v.([]byte)
		if !ok || len(b) != 16 {
			continue
		}
		if r.blob == nil {
			r.blob = make([]bool, len(dest))
			for j := range dest {
				r.blob[j] = r.sqliteRows.ColumnTypeDatabaseTypeName(j) == "BLOB"
			}
		}
		if !r.blob[i] {
			dest[i] = idText(b)
		}
	}
	return nil
}

// binaryIDs is the migration that stores every id as its 16 bytes, in one
// transaction: every text value of every table that is a canonical UUID,
// whatever its column. Before it, each column of ids (idColumns) is checked:
// a value there that is neither an id nor empty stops the migration,
// naming the column and the value, with nothing changed. The triggers are
// set aside for the conversion (withoutTriggers), as for integerTimestamps:
// an id changes no total. Foreign keys are checked
// at the commit, when parents and children agree again.
var binaryIDs = migrate.Migration{Name: binaryIDsMigration, Comment: "binary_ids",
	Up: func(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
		if err := m.DB().RunInTx(ctx, nil, convertIDs); err != nil {
			return err
		}
		if d, ok := m.DB().Dialect().(timeDialect); ok && d.ids != nil {
			d.ids.on.Store(true)
		}
		return nil
	}}

// freeTextIDColumns are columns named like ids that hold other systems'
// identifiers (a bank's, an OAuth client's URL, a key's public prefix):
// converted when a value is a UUID, never refused.
var freeTextIDColumns = map[string]bool{
	"import_rows.bank_id": true, "import_rows.row_id": true, "api_keys.public_id": true,
	"oauth_clients.id": true, "oauth_codes.client_id": true, "oauth_grants.client_id": true,
}

// textColumns are the TEXT columns of the database's tables (the
// migrator's own left out), and whether each holds ids: named id or
// ending in _id, and not in freeTextIDColumns.
func textColumns(ctx context.Context, tx bun.IDB) ([]idColumn, error) {
	var cols []idColumn
	err := tx.NewRaw(`SELECT t.name AS "table", c.name AS "column"
		FROM sqlite_schema AS t, pragma_table_info(t.name) AS c
		WHERE t.type = 'table' AND t.name NOT LIKE 'bun\_%' ESCAPE '\' AND t.name NOT LIKE 'sqlite\_%' ESCAPE '\'
		AND upper(c.type) = 'TEXT' ORDER BY 1, 2`).Scan(ctx, &cols)
	for i, c := range cols {
		name := c.Column
		cols[i].IDs = (name == "id" || len(name) > 3 && name[len(name)-3:] == "_id") && !freeTextIDColumns[c.Table+"."+name]
	}
	return cols, err
}

type idColumn struct {
	Table, Column string
	IDs           bool `bun:"-"`
}

func convertIDs(ctx context.Context, tx bun.Tx) error {
	cols, err := textColumns(ctx, tx)
	if err != nil {
		return err
	}
	for _, c := range cols {
		if !c.IDs {
			continue
		}
		var bad []string
		q := fmt.Sprintf(`SELECT "%s" FROM "%s" WHERE typeof("%[1]s") = 'text' AND "%[1]s" <> '' AND NOT is_text_id("%[1]s") LIMIT 1`, c.Column, c.Table)
		if err := tx.NewRaw(q).Scan(ctx, &bad); err != nil {
			return fmt.Errorf("ids of %s.%s: %w", c.Table, c.Column, err)
		}
		if len(bad) > 0 {
			return fmt.Errorf("ids of %s.%s: %q is not an id (a UUID in lowercase text)", c.Table, c.Column, bad[0])
		}
	}
	// The conversion changes most pages of the database: they go to the
	// log as the cache fills rather than staying in memory until the
	// commit (cache.go's spillPages, for the writes of a running server).
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_spill = %d", writerCacheKiB/4)); err != nil {
		return err
	}
	defer func() { _, _ = tx.ExecContext(ctx, fmt.Sprintf("PRAGMA cache_spill = %d", spillPages)) }()
	if _, err := tx.ExecContext(ctx, "PRAGMA defer_foreign_keys = ON"); err != nil {
		return err
	}
	return withoutTriggers(ctx, tx, func() error {
		for _, c := range cols {
			if err := convertColumn(ctx, tx, c); err != nil {
				return fmt.Errorf("ids of %s.%s: %w", c.Table, c.Column, err)
			}
		}
		return nil
	})
}

// idRowsPerUpdate bounds the rows one UPDATE of the conversion changes.
// An UPDATE of a key that indexes hold keeps what it changes in memory
// until it ends: a whole table of a million expenses at once would take
// gigabytes. (A variable: the tests make the slices small.)
var idRowsPerUpdate int64 = 20_000

// convertColumn stores the text ids of one column as bytes: in slices of
// rowids for a table that has them, at once for one that has none (the
// kept totals, which are small).
func convertColumn(ctx context.Context, tx bun.Tx, c idColumn) error {
	// OR FAIL keeps no statement journal, which would hold the old pages
	// of the table and its indexes in memory (temp_store): a failure rolls
	// the whole transaction back anyway.
	update := fmt.Sprintf(`UPDATE OR FAIL "%s" SET "%s" = text_id_bytes("%[2]s") WHERE typeof("%[2]s") = 'text' AND is_text_id("%[2]s")`, c.Table, c.Column)
	var withoutRowid []bool
	if err := tx.NewRaw(`SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?`, c.Table).Scan(ctx, &withoutRowid); err != nil {
		return err
	}
	if len(withoutRowid) != 1 || withoutRowid[0] {
		_, err := tx.ExecContext(ctx, update)
		return err
	}
	var bounds struct{ Lo, Hi sql.NullInt64 }
	if err := tx.NewRaw(fmt.Sprintf(`SELECT min(rowid) AS lo, max(rowid) AS hi FROM "%s"`, c.Table)).Scan(ctx, &bounds); err != nil {
		return err
	}
	for lo := bounds.Lo.Int64; bounds.Lo.Valid && lo <= bounds.Hi.Int64; lo += idRowsPerUpdate {
		if _, err := tx.ExecContext(ctx, update+" AND rowid >= ? AND rowid < ?", lo, lo+idRowsPerUpdate); err != nil {
			return err
		}
	}
	return nil
}

func init() {
	// The conversion's functions, registered for every connection the
	// driver opens (a function can only be added to a connection as it opens).
	sqlite.MustRegisterDeterministicScalarFunction("is_text_id", 1,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			s, ok := args[0].(string)
			if !ok {
				return int64(0), nil
			}
			if _, ok := idBytes(s); ok {
				return int64(1), nil
			}
			return int64(0), nil
		})
	sqlite.MustRegisterDeterministicScalarFunction("text_id_bytes", 1,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			s, ok := args[0].(string)
			if !ok {
				return args[0], nil
			}
			id, ok := idBytes(s)
			if !ok {
				return nil, errors.New("not an id: " + s)
			}
			return id[:], nil
		})
}

// read sets the switch from the database on db: on when it has applied the
// conversion.
func (s *idSwitch) read(db *sql.DB) error {
	var n int
	err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'bun_migrations'`).Scan(&n)
	if err != nil || n == 0 {
		return err
	}
	if err := db.QueryRow(`SELECT count(*) FROM bun_migrations WHERE name = ?`, binaryIDsMigration).Scan(&n); err != nil {
		return err
	}
	s.on.Store(n > 0)
	return nil
}
