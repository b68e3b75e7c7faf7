package store

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"slices"

	"github.com/uptrace/bun/migrate"
)

// allMigrations are the migrations this binary knows: the embedded SQL
// files, the table rebuilds (rebuild.go), the timestamps' conversion
// (times.go) and the ids' (ids.go), in order.
func allMigrations() (*migrate.Migrations, error) {
	all := migrate.NewMigrations()
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	if err := all.Discover(sub); err != nil {
		return nil, fmt.Errorf("store: discover migrations: %w", err)
	}
	for _, r := range rebuilds {
		all.Add(r.migration())
	}
	all.Add(integerTimestamps)
	all.Add(binaryIDs)
	return all, nil
}

// Schema is where a database stands against this binary's migrations.
type Schema struct {
	// Version is the name of the newest migration the database records
	// (such as 20261215000100); empty for a new database.
	Version string
	// Binary is the name of this binary's newest migration.
	Binary string
	// Pending counts the migrations this binary would apply.
	Pending int
	// Unknown are the migrations the database records that this binary
	// does not know: a newer finance applied them.
	Unknown []string
}

// Empty reports whether the database has no schema yet (a new data directory).
func (s Schema) Empty() bool { return s.Version == "" }

// SchemaNewerError refuses a database a newer finance upgraded: this binary
// does not know its schema and could misread or damage it.
type SchemaNewerError struct {
	What           string // "the database", "the backup"
	Version        string // the newest migration the database records
	Binary         string // this binary's newest migration
	UnknownApplied []string
}

func (e *SchemaNewerError) Error() string {
	return fmt.Sprintf("%s's schema is version %s, newer than this finance's %s (%d migration(s) it does not know, such as %s): "+
		"it was written by a newer finance; run that version (or newer) instead, or restore a backup taken before the upgrade",
		e.What, e.Version, e.Binary, len(e.UnknownApplied), e.UnknownApplied[0])
}

// schemaOf reads the migrations conn's database records.
func schemaOf(ctx context.Context, conn *sql.DB, d dialect) (Schema, error) {
	all, err := d.migrations()
	if err != nil {
		return Schema{}, err
	}
	known := map[string]bool{}
	var s Schema
	for _, m := range all.Sorted() {
		known[m.Name] = true
		s.Binary = m.Name
	}
	var tables int
	if err := conn.QueryRowContext(ctx, d.hasMigrationsTableSQL()).Scan(&tables); err != nil {
		return Schema{}, fmt.Errorf("store: read the schema version: %w", err)
	}
	applied := map[string]bool{}
	if tables > 0 {
		rows, err := conn.QueryContext(ctx, "SELECT name FROM bun_migrations")
		if err != nil {
			return Schema{}, fmt.Errorf("store: read the schema version: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				return Schema{}, err
			}
			applied[name] = true
			s.Version = max(s.Version, name)
			if !known[name] {
				s.Unknown = append(s.Unknown, name)
			}
		}
		if err := rows.Err(); err != nil {
			return Schema{}, err
		}
	}
	for name := range known {
		if !applied[name] {
			s.Pending++
		}
	}
	slices.Sort(s.Unknown)
	return s, nil
}

// newer is the refusal of a schema this binary does not know, or nil.
func (s Schema) newer(what string) error {
	if len(s.Unknown) == 0 {
		return nil
	}
	return &SchemaNewerError{What: what, Version: s.Version, Binary: s.Binary, UnknownApplied: s.Unknown}
}

// Schema reads where the database stands against this binary's migrations.
func (db *DB) Schema(ctx context.Context) (Schema, error) {
	return schemaOf(ctx, db.writer.DB, db.dialect)
}

// Migrated reports whether the database's schema is this binary's: every
// migration applied and none it does not know (a newer finance's). It reads
// on the reader pool, so that a readiness probe does not wait behind writes.
func (db *DB) Migrated(ctx context.Context) error {
	s, err := schemaOf(ctx, db.reader.DB, db.dialect)
	if err != nil {
		return err
	}
	if err := s.newer("the database"); err != nil {
		return err
	}
	if s.Pending > 0 {
		return fmt.Errorf("store: the database's schema %s lacks %d of this finance's migrations (up to %s)", s.Version, s.Pending, s.Binary)
	}
	return nil
}

// Upgrade applies the pending migrations, the way every command opens the
// database. It refuses a database a newer finance upgraded
// (*SchemaNewerError) before touching it. When there are migrations to
// apply to a database that holds a schema already, it first writes a backup
// of it under backupDir, named
// pre-migrate-VERSION-TIMESTAMP.db after the schema it holds, and returns
// its path; a new database, or one already up to date, gets none.
func (db *DB) Upgrade(ctx context.Context, backupDir string) (backup string, err error) {
	s, err := db.Schema(ctx)
	if err != nil {
		return "", err
	}
	if err := s.newer("the database"); err != nil {
		return "", err
	}
	// On Postgres the operator's own backups (pg_dump) stand for this one.
	if s.Pending > 0 && !s.Empty() && db.dialect == sqliteDialect {
		backup, err = writePreMigrate(ctx, db.path, backupDir, s.Version)
		if err != nil {
			return "", fmt.Errorf("store: the backup before upgrading the schema from %s to %s failed, so nothing was changed: %w",
				s.Version, s.Binary, err)
		}
	}
	return backup, db.Migrate(ctx)
}
