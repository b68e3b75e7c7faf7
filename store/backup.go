package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
)

// Backup writes a consistent copy of the database at src to dest while other
// processes keep reading and writing. VACUUM INTO reads one snapshot (a WAL
// read transaction, which never blocks the writer) and writes a compact,
// self-contained file; the copy is then checked with PRAGMA integrity_check.
//
// Backup creates dest itself, empty, with O_EXCL and mode 0600 before SQLite
// writes into it (VACUUM INTO accepts an existing empty file): an existing
// file or symlink is never overwritten, there is no window between checking
// and creating in which another process could plant one, and the copy of
// everyone's finances is readable by its owner only. If the copy or its check
// fails (a full disk, a file size limit), dest is removed, so a retry to the
// same path works.
func Backup(ctx context.Context, src, dest string) (err error) {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("backup: no database at %s: %w", src, err)
	}
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("backup: %s already exists; refusing to overwrite it", dest)
	} else if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(dest)
		}
	}()
	if err := f.Close(); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	conn, err := sql.Open("sqlite", src+fmt.Sprintf("?_pragma=busy_timeout(%d)", busyTimeoutMS))
	if err != nil {
		return fmt.Errorf("backup: open: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "VACUUM INTO ?", dest); err != nil {
		return fmt.Errorf("backup: writing %s: %w", dest, err)
	}
	return IntegrityCheck(ctx, dest)
}

// IntegrityCheck runs PRAGMA integrity_check on the database file at path.
// A missing file is an error: opening it would create an empty database that
// passes the check.
func IntegrityCheck(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	conn, err := sql.Open("sqlite", path+"?_pragma=query_only(1)")
	if err != nil {
		return err
	}
	defer conn.Close()
	var result string
	if err := conn.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&result); err != nil {
		return fmt.Errorf("integrity check of %s: %w", path, err)
	}
	if result != "ok" {
		return fmt.Errorf("integrity check of %s failed: %s", path, result)
	}
	return nil
}
