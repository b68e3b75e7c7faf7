package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sync/atomic"
	"time"
)

// Scheduled backups. Each is a Backup written under a temporary name in
// the backup directory and renamed when complete and checked, so a file
// under a backup's name is always a whole one: a crash or a full disk
// leaves at most a temporary file, which the next backup removes. Names
// carry the UTC time to the millisecond, so they sort by age:
//
//	finance-20261127T051200.123Z.db       a scheduled backup, rotated
//	pre-migrate-20261214000100-20261127T051200.123Z.db
//	                                      before an upgrade, never rotated
//
// Rotation removes only files named like the scheduled ones: whatever else
// the directory holds (the pre-migrate backups, a person's own copies) is
// never touched.

const stampLayout = "20060102T150405.000Z"

var (
	scheduledName = regexp.MustCompile(`^finance-(\d{8}T\d{6}\.\d{3}Z)\.db$`)
	// partialName is a scheduled or pre-migrate backup being written, or
	// the rollback journal SQLite keeps beside it while the media go in.
	partialName = regexp.MustCompile(`^(finance|pre-migrate-\d+)-\d{8}T\d{6}\.\d{3}Z\.db\.partial(-journal)?$`)
)

const partialSuffix = ".partial"

// writeBackupFile writes a Backup of src to dir/name by way
// of dir/name.partial, renamed once whole and checked, and makes the rename
// durable. A failed backup leaves nothing.
func writeBackupFile(ctx context.Context, src, dir, name string) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("backup directory: %w", err)
	}
	final := filepath.Join(dir, name)
	if _, err := os.Lstat(final); err == nil {
		return "", fmt.Errorf("backup: %s already exists; refusing to overwrite it", final)
	}
	tmp := final + partialSuffix
	if err := Backup(ctx, src, tmp); err != nil {
		return "", err
	}
	if err := syncFile(tmp); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		_ = os.Remove(tmp)
		return "", fmt.Errorf("backup: %w", err)
	}
	return final, syncFile(dir)
}

// syncFile flushes a file's or a directory's contents to the disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// writePreMigrate writes the backup taken before applying migrations to a
// database whose schema is version.
func writePreMigrate(ctx context.Context, src, dir, version string) (string, error) {
	return writeBackupFile(ctx, src, dir, fmt.Sprintf("pre-migrate-%s-%s.db", version, time.Now().UTC().Format(stampLayout)))
}

// Backups writes the scheduled backups of one database.
type Backups struct {
	src, dir string
	interval time.Duration
	keep     int
	log      *slog.Logger
	last     atomic.Int64 // UnixNano of the newest whole backup; 0: none
}

// NewBackups prepares the scheduled backups of the database at src, one
// every interval, kept in dir, the newest keep of them. The newest backup
// dir holds already counts as the last success, so a restarted
// server neither reports none nor backs up again too soon.
func NewBackups(src, dir string, interval time.Duration, keep int, log *slog.Logger) (*Backups, error) {
	if keep < 1 || interval <= 0 {
		return nil, fmt.Errorf("backups every %s, %d kept: want an interval above 0 and 1 or more kept", interval, keep)
	}
	b := &Backups{src: src, dir: dir, interval: interval, keep: keep, log: log}
	names, err := b.scheduled()
	if err != nil {
		return nil, err
	}
	if len(names) > 0 {
		at, _ := time.Parse(stampLayout, scheduledName.FindStringSubmatch(names[len(names)-1])[1])
		b.last.Store(at.UnixNano())
	}
	return b, nil
}

// Dir is where the backups are written.
func (b *Backups) Dir() string { return b.dir }

// Interval is how often a backup is taken.
func (b *Backups) Interval() time.Duration { return b.interval }

// LastSuccess is when the newest whole scheduled backup was taken; zero
// when there is none.
func (b *Backups) LastSuccess() time.Time {
	if n := b.last.Load(); n != 0 {
		return time.Unix(0, n).UTC()
	}
	return time.Time{}
}

// scheduled lists the scheduled backups in dir, oldest first.
func (b *Backups) scheduled() ([]string, error) {
	entries, err := os.ReadDir(b.dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("backup directory: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.Type().IsRegular() && scheduledName.MatchString(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// Write takes one scheduled backup at now, then removes the oldest beyond
// keep. It first removes partial files a crash left, so one process at a
// time must write backups into a directory (the server; the pre-migrate
// backup is taken before it starts them).
func (b *Backups) Write(ctx context.Context, now time.Time) (string, error) {
	now = now.UTC().Truncate(time.Millisecond) // the name's precision
	b.removePartial()
	path, err := writeBackupFile(ctx, b.src, b.dir, "finance-"+now.Format(stampLayout)+".db")
	if err != nil {
		return "", err
	}
	b.last.Store(now.UnixNano())
	names, err := b.scheduled()
	if err != nil {
		return path, err
	}
	var errs []error
	for _, name := range names[:max(0, len(names)-b.keep)] {
		errs = append(errs, os.Remove(filepath.Join(b.dir, name)))
	}
	return path, errors.Join(errs...)
}

// removePartial removes the temporary files of backups that never finished.
func (b *Backups) removePartial() {
	entries, _ := os.ReadDir(b.dir)
	for _, e := range entries {
		if e.Type().IsRegular() && partialName.MatchString(e.Name()) {
			if err := os.Remove(filepath.Join(b.dir, e.Name())); err == nil {
				b.log.Info("removed an unfinished backup", "file", e.Name())
			}
		}
	}
}

// Run takes a backup every interval until ctx ends. The first is due one
// interval after the newest backup in the directory: at once when there is
// none or it is older than that. A failure is logged and tried again at
// the next interval.
func (b *Backups) Run(ctx context.Context) {
	interval := b.interval
	wait := time.Duration(0)
	if last := b.LastSuccess(); !last.IsZero() {
		wait = max(0, time.Until(last.Add(interval)))
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-timer.C:
		}
		start := time.Now()
		path, err := b.Write(ctx, start)
		switch {
		case err != nil && path == "":
			b.log.Error("scheduled backup failed; no file was written", "dir", b.dir, "error", err)
		case err != nil:
			b.log.Warn("scheduled backup written, but removing older ones failed", "file", path, "error", err)
		default:
			b.log.Info("scheduled backup written", "file", path, "took", time.Since(start).Round(time.Millisecond))
		}
		timer.Reset(interval)
	}
}
