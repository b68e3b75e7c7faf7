package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/sqlitedialect"
	"github.com/uptrace/bun/migrate"
	"modernc.org/sqlite"
)

// Timestamps (the columns declared TIMESTAMP: created_at, expires_at, …)
// are stored as integer microseconds since 1970 UTC: 8 bytes where the text
// form took 29 to 39, in the row and in every index that holds one, and
// ordered as numbers. Microseconds are Postgres's precision, so a timestamp
// reads back the same from either database; the service stamps whole
// seconds anyway (finance.Service.stamp).
//
// Both ways a time reaches SQLite write the integer: a bound argument
// through the driver's _time_integer_format, and a query bun formats itself
// through timeDialect. The driver turns an integer read from a TIMESTAMP
// column back into a time (_inttotime). A time computed by an expression
// (MAX(created_at)) has no declared type and reads back as the integer.
const timePragmas = "&_time_integer_format=unix_micro&_inttotime=1"

// timeDialect is bun's SQLite dialect, but a time in a query bun formats is
// its integer microseconds, as the driver binds one; and an id is its 16
// bytes once the database stores them so (ids.go).
type timeDialect struct {
	*sqlitedialect.Dialect
	ids *idSwitch
}

func newSQLiteDialect(ids *idSwitch) timeDialect { return timeDialect{sqlitedialect.New(), ids} }

func (timeDialect) AppendTime(b []byte, tm time.Time) []byte {
	return strconv.AppendInt(b, tm.UnixMicro(), 10)
}

// integerTimestamps is the migration that turns every TIMESTAMP value
// stored as text into its integer microseconds, in one transaction. The
// migrator's own table keeps its text: its migrated_at defaults to SQLite's
// CURRENT_TIMESTAMP, and the driver reads both forms. The
// tables' triggers are dropped for the conversion and created again from
// their stored SQL: a timestamp changes no total, and a trigger without a
// column list would otherwise run once per converted row.
var integerTimestamps = migrate.Migration{Name: "20261217000100", Comment: "integer_timestamps",
	Up: func(ctx context.Context, m *migrate.Migrator, _ *migrate.Migration) error {
		return m.DB().RunInTx(ctx, nil, convertTimestamps)
	}}

func convertTimestamps(ctx context.Context, tx bun.Tx) error {
	return withoutTriggers(ctx, tx, func() error {
		var columns []struct{ Table, Column string }
		if err := tx.NewRaw(`SELECT t.name AS "table", c.name AS "column"
		FROM sqlite_schema AS t, pragma_table_info(t.name) AS c
		WHERE t.type = 'table' AND t.name NOT LIKE 'bun\_%' ESCAPE '\' AND upper(c.type) = 'TIMESTAMP' ORDER BY 1, 2`).Scan(ctx, &columns); err != nil {
			return err
		}
		for _, c := range columns {
			q := fmt.Sprintf(`UPDATE "%s" SET "%s" = text_time_micros("%[2]s") WHERE typeof("%[2]s") = 'text'`, c.Table, c.Column)
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("timestamps of %s.%s: %w", c.Table, c.Column, err)
			}
		}
		return nil
	})
}

// withoutTriggers runs convert, a migration's rewrite of stored values,
// with every trigger dropped, and creates them again from their stored SQL
// when it succeeds: a rewritten value changes no total, and a trigger
// without a column list would otherwise run once per rewritten row. On
// failure the transaction's rollback brings them back.
func withoutTriggers(ctx context.Context, tx bun.Tx, convert func() error) error {
	var triggers []struct{ Name, SQL string }
	if err := tx.NewRaw("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name").Scan(ctx, &triggers); err != nil {
		return err
	}
	for _, t := range triggers {
		if _, err := tx.ExecContext(ctx, `DROP TRIGGER "`+t.Name+`"`); err != nil {
			return err
		}
	}
	if err := convert(); err != nil {
		return err
	}
	for _, t := range triggers {
		if _, err := tx.ExecContext(ctx, t.SQL); err != nil {
			return fmt.Errorf("trigger %s: %w", t.Name, err)
		}
	}
	return nil
}

func init() {
	// text_time_micros is the conversion's parser; SQLite has none for Go's
	// time formats. It is registered for every connection the driver opens
	// because a function can only be added to a connection as it opens.
	sqlite.MustRegisterDeterministicScalarFunction("text_time_micros", 1,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			s, ok := args[0].(string)
			if !ok {
				return args[0], nil
			}
			t, err := parseTimeText(s)
			if err != nil {
				return nil, err
			}
			return t.UnixMicro(), nil
		})
}

// timeTextLayouts are the forms a timestamp was stored in as text: the
// driver's (time.Time.String, its monotonic reading cut off), bun's, and
// RFC 3339 with and without its T and zone.
var timeTextLayouts = []string{
	"2006-01-02 15:04:05.999999999 -0700 MST",
	"2006-01-02 15:04:05.999999999-07:00",
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02",
}

func parseTimeText(s string) (time.Time, error) {
	s, _, _ = strings.Cut(strings.TrimSpace(s), " m=")
	for _, layout := range timeTextLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("not a timestamp: " + strconv.Quote(s))
}
