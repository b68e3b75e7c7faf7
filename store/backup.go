package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A backup is one file: a SQLite database, the consistent copy of the
// service's database, with one table more, backup_files, holding the files
// the database refers to (the media folder of the data directory: profile
// pictures), each by its path under that folder. A backup is therefore
// still a database any SQLite tool opens; finance restore puts the files
// back and drops the table.
const mediaTable = "backup_files"

// maxMediaBytes bounds the media one backup carries. Profile pictures are
// small (the server shrinks them); a folder far larger than this holds
// something the database does not refer to, and a backup is no place for it.
const maxMediaBytes = 1 << 30

// Backup writes a consistent copy of the database at src to dest while other
// processes keep reading and writing, with the files of mediaDir (none when
// mediaDir is empty or missing). VACUUM INTO reads one snapshot (a WAL read
// transaction, which never blocks the writer) and writes a compact,
// self-contained file; the media are added to the copy, and the copy is then
// checked with PRAGMA integrity_check.
//
// Backup creates dest itself, empty, with O_EXCL and mode 0600 before SQLite
// writes into it (VACUUM INTO accepts an existing empty file): an existing
// file or symlink is never overwritten, there is no window between checking
// and creating in which another process could plant one, and the copy of
// everyone's finances is readable by its owner only. If the copy or its check
// fails (a full disk, a file size limit), dest is removed, so a retry to the
// same path works.
func Backup(ctx context.Context, src, mediaDir, dest string) (err error) {
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
	if err := addMedia(ctx, dest, mediaDir); err != nil {
		return fmt.Errorf("backup: media of %s: %w", mediaDir, err)
	}
	return IntegrityCheck(ctx, dest)
}

// addMedia stores every regular file under mediaDir in the copy at dest, in
// one transaction. Symbolic links and other special files are left out: the
// server writes only regular files there. The files are read after the
// database's snapshot: a picture uploaded in between comes along unused,
// one replaced in between is missing, as its user's new one would be.
func addMedia(ctx context.Context, dest, mediaDir string) error {
	if mediaDir == "" {
		return nil
	}
	if _, err := os.Stat(mediaDir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	conn, err := sql.Open("sqlite", dest)
	if err != nil {
		return err
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "CREATE TABLE "+mediaTable+" (path TEXT PRIMARY KEY, content BLOB NOT NULL)"); err != nil {
		return err
	}
	var total int64
	err = filepath.WalkDir(mediaDir, func(path string, d fs.DirEntry, err error) error {
		// Names starting with a dot are files being written (an upload
		// before its rename), not yet anything the database refers to.
		if err != nil || !d.Type().IsRegular() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		rel, err := filepath.Rel(mediaDir, path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil // deleted (a picture replaced) since the walk listed it
		} else if err != nil {
			return err
		}
		if total += int64(len(b)); total > maxMediaBytes {
			return fmt.Errorf("more than %d bytes of files; a backup carries the media folder only up to that", maxMediaBytes)
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO "+mediaTable+" (path, content) VALUES (?, ?)", filepath.ToSlash(rel), b)
		return err
	})
	if err != nil {
		return err
	}
	return tx.Commit()
}

// extractMedia writes the files a backup carries under dir, which must not
// exist yet, and returns how many there were. A path that would leave dir
// is refused: the backup is not trusted to name only safe paths.
func extractMedia(ctx context.Context, backup, dir string) (int, error) {
	conn, err := openReadOnly(backup)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", mediaTable).Scan(&n); err != nil {
		return 0, err
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, nil // a backup of a server without media, or of an earlier finance
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	rows, err := conn.QueryContext(ctx, "SELECT path, content FROM "+mediaTable+" ORDER BY path")
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	count := 0
	for rows.Next() {
		var path string
		var content []byte
		if err := rows.Scan(&path, &content); err != nil {
			return count, err
		}
		rel := filepath.FromSlash(path)
		if !filepath.IsLocal(rel) {
			return count, fmt.Errorf("the backup names a file outside the media folder: %q", path)
		}
		if parent := filepath.Dir(rel); parent != "." {
			if err := root.MkdirAll(parent, 0o700); err != nil {
				return count, err
			}
		}
		if err := root.WriteFile(rel, content, 0o600); err != nil {
			return count, err
		}
		count++
	}
	return count, rows.Err()
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
