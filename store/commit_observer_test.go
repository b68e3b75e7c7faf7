package store

import (
	"context"
	"errors"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/uptrace/bun"
)

// commitLog records what a CommitObserver is told.
type commitLog struct{ writes []int }

func (l *commitLog) Committed(writes int, took time.Duration) {
	if took <= 0 {
		writes = -writes // a commit takes some time; a zero would be a bug
	}
	l.writes = append(l.writes, writes)
}

// TestCommitsObserved: the observer hears of every transaction committed,
// with the writes it ran (a write rolled back to its savepoint included: it
// ran in the batch), and of none that rolled back whole.
func TestCommitsObserved(t *testing.T) {
	db := openScratch(t)
	log := &commitLog{}
	db.ObserveCommits(log)
	refused := errors.New("refused")
	fail := func(context.Context, bun.Tx) error { return refused }

	db.commits.batch([]*commitJob{insertJob("a", nil), insertJob("b", fail), insertJob("c", nil)})
	db.commits.batch([]*commitJob{insertJob("d", nil)})
	db.commits.batch([]*commitJob{insertJob("e", fail)}) // a lone write that fails: rolled back, nothing committed
	broken := func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "ROLLBACK")
		return errors.Join(err, refused)
	}
	rest := db.commits.batch([]*commitJob{insertJob("f", nil), insertJob("g", broken), insertJob("h", nil)})
	if len(rest) != 1 {
		t.Fatalf("%d writes left by the broken batch, want 1", len(rest))
	}
	if got, want := log.writes, []int{3, 1}; !slices.Equal(got, want) {
		t.Errorf("commits observed %v, want %v", got, want)
	}
	if got, want := scratchIDs(t, db), []string{"a", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	// Through tx, as every write of the service goes.
	if err := db.tx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO scratch (id) VALUES ('i')")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := log.writes, []int{3, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("commits observed %v, want %v", got, want)
	}
}

// TestSize: the database's file and its write-ahead log, from the disk.
func TestSize(t *testing.T) {
	db := openScratch(t)
	file, wal := db.Size()
	for path, got := range map[string]int64{db.Path(): file, db.Path() + "-wal": wal} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		// WAL mode keeps a log once something was written (the migrations).
		if got != fi.Size() || got == 0 {
			t.Errorf("%s: %d bytes, want the file's %d", path, got, fi.Size())
		}
	}
}
