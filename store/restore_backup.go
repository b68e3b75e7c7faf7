package store

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// ErrBadBackup refuses a file that is not a whole, sound backup of a
// finance database.
var ErrBadBackup = errors.New("not a sound finance backup")

// sqliteHeader opens every SQLite database file.
var sqliteHeader = []byte("SQLite format 3\x00")

// CheckBackup checks that the file at path is a backup this binary can
// restore: a SQLite database that passes its integrity check and holds a
// finance schema no newer than this binary's (*SchemaNewerError otherwise).
// An older schema is fine: the next start migrates it.
func CheckBackup(ctx context.Context, path string) (Schema, error) {
	f, err := os.Open(path)
	if err != nil {
		return Schema{}, fmt.Errorf("%w: %w", ErrBadBackup, err)
	}
	head := make([]byte, len(sqliteHeader))
	_, err = io.ReadFull(f, head)
	f.Close()
	if err != nil || !bytes.Equal(head, sqliteHeader) {
		return Schema{}, fmt.Errorf("%w: %s is not a SQLite database", ErrBadBackup, path)
	}
	if err := IntegrityCheck(ctx, path); err != nil {
		return Schema{}, fmt.Errorf("%w: %w", ErrBadBackup, err)
	}
	conn, err := openReadOnly(path)
	if err != nil {
		return Schema{}, err
	}
	defer conn.Close()
	s, err := schemaOf(ctx, conn, sqliteDialect)
	if err != nil {
		return Schema{}, fmt.Errorf("%w: %w", ErrBadBackup, err)
	}
	if s.Empty() {
		return s, fmt.Errorf("%w: %s holds no finance database (no schema version)", ErrBadBackup, path)
	}
	return s, s.newer("the backup")
}

// Restored is what Restore did.
type Restored struct {
	Schema Schema
	// Kept is where the database that was in place is now
	// (DB.before-restore-TIMESTAMP); empty when there was none.
	Kept string
	// KeptMedia is where the media folder that was in place is now; empty
	// when there was none, or when the backup carried no files.
	KeptMedia string
	// Media counts the files an earlier version's backup put in the media
	// folder; the next start moves its pictures into the database.
	Media int
}

// Restore puts the backup at file in place of the database at dbPath, and
// the files an earlier version's backup carries in place of the media
// folder mediaDir (a backup of this version is the database alone, and the
// media folder is left as it is). It refuses while anything has the database
// open (ErrInUse), and a file CheckBackup refuses, before changing
// anything. The database and media folder in place are kept beside them,
// renamed with .before-restore-TIMESTAMP (the database's -wal file with
// it, so that copy keeps its last writes); nothing is deleted.
//
// The backup is copied and checked next to the database first, so the
// switch is a few renames in one directory.
func Restore(ctx context.Context, file, dbPath, mediaDir string, now time.Time) (Restored, error) {
	if err := os.MkdirAll(filepath.Dir(dbPath), 0o700); err != nil {
		return Restored{}, fmt.Errorf("data directory: %w", err)
	}
	lock, err := holdInUse(dbPath, lockExclusiveNow, ErrInUse)
	if err != nil {
		return Restored{}, err
	}
	defer lock.Close()
	s, err := CheckBackup(ctx, file)
	if err != nil {
		return Restored{}, err
	}
	r := Restored{Schema: s}
	stamp := now.UTC().Format(stampLayout)
	incoming := dbPath + ".restoring-" + stamp
	incomingMedia := mediaDir + ".restoring-" + stamp
	done := false
	defer func() {
		if !done {
			_ = os.Remove(incoming)
			_ = os.RemoveAll(incomingMedia)
		}
	}()
	if err := copyOwnerOnly(file, incoming); err != nil {
		return r, fmt.Errorf("copying the backup: %w", err)
	}
	var carried bool
	if r.Media, carried, err = extractMedia(ctx, incoming, incomingMedia); err != nil {
		return r, fmt.Errorf("the backup's media: %w", err)
	}
	if carried {
		if err := dropMedia(ctx, incoming); err != nil {
			return r, fmt.Errorf("copying the backup: %w", err)
		}
	}
	if err := IntegrityCheck(ctx, incoming); err != nil {
		return r, err
	}
	if err := syncFile(incoming); err != nil {
		return r, err
	}

	// From here a failure leaves every file where it is, for a person to
	// finish by hand with the paths the error names.
	done = true
	if !carried {
		incomingMedia = ""
	}
	if err := switchTo(incoming, incomingMedia, dbPath, mediaDir, stamp, &r); err != nil {
		return r, fmt.Errorf("putting the backup in place stopped part way (nothing was deleted; the database "+
			"that was in place is %s, the checked copy of the backup %s): %w", cmp.Or(r.Kept, dbPath), incoming, err)
	}
	return r, syncFile(filepath.Dir(dbPath))
}

// switchTo moves the database and media folder in place aside and the
// checked copies of the backup's into their places; the media folder stays
// when incomingMedia is empty.
func switchTo(incoming, incomingMedia, dbPath, mediaDir, stamp string, r *Restored) error {
	kept := dbPath + ".before-restore-" + stamp
	if _, err := os.Stat(dbPath); err == nil {
		if err := os.Rename(dbPath, kept); err != nil {
			return err
		}
		r.Kept = kept
		if err := os.Rename(dbPath+"-wal", kept+"-wal"); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		// The shared-memory index is rebuilt from the -wal file by the next open.
		if err := os.Remove(dbPath + "-shm"); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	if err := os.Rename(incoming, dbPath); err != nil {
		return err
	}
	if incomingMedia == "" {
		return nil
	}
	if _, err := os.Stat(mediaDir); err == nil {
		r.KeptMedia = mediaDir + ".before-restore-" + stamp
		if err := os.Rename(mediaDir, r.KeptMedia); err != nil {
			return err
		}
	}
	return os.Rename(incomingMedia, mediaDir)
}

// copyOwnerOnly copies src to dest, a new file readable by its owner only.
func copyOwnerOnly(src, dest string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
