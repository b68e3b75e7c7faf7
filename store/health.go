package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
	"modernc.org/sqlite"

	"github.com/finance-app/finance/finance"
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

// sqliteCode is the primary result code of err, 0 when err is not SQLite's.
func sqliteCode(err error) int {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return 0
	}
	return se.Code() & 0xff
}

// isDiskError reports whether err is SQLite failing to write its files.
func isDiskError(err error) bool {
	code := sqliteCode(err)
	return code == sqliteIOErr || code == sqliteFull
}

// storageFull marks a write's error as finance.ErrStorageFull when SQLite
// found no room to write (SQLITE_FULL: the disk is full), so that the
// client is told the server could not save rather than of an unexpected
// error. The transaction was rolled back: nothing of the write is stored.
// Other I/O errors stay unexpected ones: the disk may be failing rather
// than full, and the message would then mislead.
func storageFull(err error) error {
	if sqliteCode(err) != sqliteFull || errors.Is(err, finance.ErrStorageFull) {
		return err
	}
	return fmt.Errorf("%w: %w", finance.ErrStorageFull, err)
}

// writeHealth is what the writes found of the disk: the latest write that
// failed on it, which stands until a later transaction commits. The
// committer and ProbeWrite report to it; health reads it (WriteFailure), so
// a failed write shows at once rather than at the next periodic probe.
type writeHealth struct {
	failure atomic.Pointer[diskFailure]
}

// failed records err when it is a failure of the disk; other errors (a
// refused write, a cancelled request) say nothing about the disk.
func (h *writeHealth) failed(err error) {
	if err != nil && isDiskError(err) {
		h.failure.Store(&diskFailure{at: time.Now().UTC(), err: err})
	}
}

// committed records a commit of a transaction begun when standing was the
// standing failure: that failure is over, as writes commit again. A failure
// recorded since (by the probe, which shares the writer) is kept.
func (h *writeHealth) committed(standing *diskFailure) {
	h.failure.CompareAndSwap(standing, nil)
}

// WriteFailure returns the standing disk failure of the writes, if any:
// when the latest write that failed on the disk failed, and why. It stands
// until a later write or ProbeWrite commits.
func (db *DB) WriteFailure() (time.Time, error) {
	f := db.writes.failure.Load()
	if f == nil {
		return time.Time{}, nil
	}
	return f.at, fmt.Errorf("a write failed on the disk at %s: %w", f.at.Format(time.RFC3339), f.err)
}

// ProbeWrite reports whether writes commit: it commits one small write on
// the writer, durably like any other (synchronous=FULL). Its commit ends a
// standing failure of the writes (WriteFailure), its failure on the disk
// starts one.
func (db *DB) ProbeWrite(ctx context.Context) error {
	standing := db.writes.failure.Load()
	// Straight on the writer rather than through tx: the probe is not a
	// user's write, and its failure is not to be told as one.
	err := db.writer.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewRaw("INSERT INTO health_probe (id, checked_at) VALUES (1, ?) "+
			"ON CONFLICT (id) DO UPDATE SET checked_at = excluded.checked_at", time.Now().UTC()).Exec(ctx)
		return err
	})
	if err != nil {
		db.writes.failed(err)
		return err
	}
	db.writes.committed(standing)
	return nil
}
