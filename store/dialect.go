package store

import (
	"strconv"
	"strings"
)

// dialect is the SQL database a DB runs on. Only this package knows it, and
// the few constructs that differ between the two are written once here, so
// that every query of the ledger is one text for both.
type dialect int

const (
	sqliteDialect   dialect = iota // the default: one file in the data directory
	postgresDialect                // postgres://… (postgres.go)
)

func (d dialect) String() string {
	if d == postgresDialect {
		return "postgres"
	}
	return "sqlite"
}

// bind returns query with its placeholders in the dialect's form. Queries
// handed to database/sql directly (prepared statements, which bun does not
// format) are written with SQLite's placeholders, ? and ?N; Postgres wants
// $N. A ? inside a quoted string or identifier is left alone. bun's own
// queries need none of this: bun writes their arguments into the text.
func (d dialect) bind(query string) string {
	if d != postgresDialect || !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	next := 0
	var quote byte
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
			b.WriteByte(c)
		case c == '\'' || c == '"':
			quote = c
			b.WriteByte(c)
		case c == '?':
			j := i + 1
			for j < len(query) && query[j] >= '0' && query[j] <= '9' {
				j++
			}
			b.WriteByte('$')
			if j > i+1 {
				b.WriteString(query[i+1 : j])
				n, _ := strconv.Atoi(query[i+1 : j])
				next = max(next, n)
				i = j - 1
			} else {
				next++
				b.WriteString(strconv.Itoa(next))
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
