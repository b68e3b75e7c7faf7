// Package store keeps the service's data in an embedded SQLite database. It is
// the only package that imports bun and the database driver; it implements the
// ports declared by package finance and package auth.
//
// SQLite runs in WAL mode with synchronous=FULL (an acknowledged write survives
// a power cut) and foreign keys on. All writes go through a single writer
// connection whose transactions begin IMMEDIATE, so concurrent writers queue in
// Go instead of failing with "database is locked"; reads use a separate pool of
// query-only connections, which WAL lets run alongside the writer.
package store
