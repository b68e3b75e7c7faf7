package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A backup is one file: a SQLite database, the consistent copy of the
// service's database, profile pictures and the signing key included (they
// are rows: profile_pictures, server_secrets). Backups of earlier versions
// carry one table more, backup_files, holding the files of the data
// directory's media folder, each by its path under that folder; finance
// restore puts those files back (the next start moves the pictures into the
// database: DB.ImportPictures) and drops the table.
const mediaTable = "backup_files"

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
			_ = os.Remove(dest + "-journal")
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

// extractMedia writes the files an earlier version's backup carries under
// dir, which must not exist yet, and returns how many there were; carried
// is false for a backup without the table of files (one of this version,
// or of a version before backups carried files), for which it makes no
// dir. A path that would leave dir is refused: the backup is not trusted to
// name only safe paths.
func extractMedia(ctx context.Context, backup, dir string) (n int, carried bool, err error) {
	conn, err := openReadOnly(backup)
	if err != nil {
		return 0, false, err
	}
	defer conn.Close()
	var tables int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", mediaTable).Scan(&tables); err != nil {
		return 0, false, err
	}
	if tables == 0 {
		return 0, false, nil
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return 0, true, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, true, err
	}
	defer root.Close()
	rows, err := conn.QueryContext(ctx, "SELECT path, content FROM "+mediaTable+" ORDER BY path")
	if err != nil {
		return 0, true, err
	}
	defer rows.Close()
	count := 0
	for rows.Next() {
		var path string
		var content []byte
		if err := rows.Scan(&path, &content); err != nil {
			return count, true, err
		}
		rel := filepath.FromSlash(path)
		if !filepath.IsLocal(rel) {
			return count, true, fmt.Errorf("the backup names a file outside the media folder: %q", path)
		}
		if parent := filepath.Dir(rel); parent != "." {
			if err := root.MkdirAll(parent, 0o700); err != nil {
				return count, true, err
			}
		}
		if err := root.WriteFile(rel, content, 0o600); err != nil {
			return count, true, err
		}
		count++
	}
	return count, true, rows.Err()
}

// dropMedia removes the backup's table of files from a restored database,
// so the service's database holds only its own tables.
func dropMedia(ctx context.Context, path string) error {
	conn, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "DROP TABLE IF EXISTS "+mediaTable); err != nil {
		return err
	}
	// The pages the files took go back to the file system.
	_, err = conn.ExecContext(ctx, "VACUUM")
	return err
}

// IntegrityCheck runs PRAGMA integrity_check on the database file at path.
// A missing file is an error: opening it would create an empty database that
// passes the check.
func IntegrityCheck(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("integrity check: %w", err)
	}
	conn, err := openReadOnly(path)
	if err != nil {
		return err
	}
	defer conn.Close()
	var result string
	if err := conn.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&result); err != nil {
		return fmt.Errorf("integrity check of %s: %w", path, err)
	}
	if result != "ok" {
		return fmt.Errorf("integrity check of %s failed: %s", path, strings.TrimSpace(result))
	}
	return nil
}

// openReadOnly opens the database file at path for reading only: checking
// a file never changes it.
func openReadOnly(path string) (*sql.DB, error) {
	return sql.Open("sqlite", path+"?_pragma=query_only(1)")
}
