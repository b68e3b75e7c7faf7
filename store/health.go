package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"modernc.org/sqlite"
)

// diskFailure is a write that failed because the database file or its log
// could not be written (a full disk, a file size limit, an I/O error).
type diskFailure struct {
	at  time.Time
	err error
}

// SQLite's primary result codes for failed writes to the files
// (https://sqlite.org/rescode.html); extended codes keep them in the low byte.
const (
	sqliteIOErr = 10 // SQLITE_IOERR: the operating system refused a read or write
	sqliteFull  = 13 // SQLITE_FULL: the disk (or the file size limit) is full
)

// isDiskError reports whether err is SQLite failing to write its files.
func isDiskError(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	code := se.Code() & 0xff
	return code == sqliteIOErr || code == sqliteFull
}

// noteWrite remembers a write that failed on the disk, for ProbeWrite.
func (db *DB) noteWrite(err error) {
	if err != nil && isDiskError(err) {
		db.lastDiskFailure.Store(&diskFailure{at: time.Now().UTC(), err: err})
	}
}

// ProbeWrite reports whether writes commit: it commits one small write on
// the writer, durably like any other (synchronous=FULL), and also fails
// when any write since the previous probe failed on the disk. The second
// part matters on a nearly full disk, where the probe's one page may still
// fit while the user's larger writes do not.
func (db *DB) ProbeWrite(ctx context.Context) error {
	recent := db.lastDiskFailure.Swap(nil)
	// Straight on the writer rather than through tx: the probe's own failure
	// is its answer now, not a failure to report again at the next probe.
	err := db.writer.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewRaw("INSERT INTO health_probe (id, checked_at) VALUES (1, ?) "+
			"ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at", time.Now().UTC()).Exec(ctx)
		return err
	})
	if err != nil {
		return err
	}
	if recent != nil {
		return fmt.Errorf("a write failed on the disk at %s: %w", recent.at.Format(time.RFC3339), recent.err)
	}
	return nil
}
