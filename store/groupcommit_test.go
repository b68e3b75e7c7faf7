package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/uptrace/bun"
)

// openScratch opens a migrated database with a scratch table of ids.
func openScratch(t *testing.T) *DB {
	t.Helper()
	db, err := Open(filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := db.writer.ExecContext(context.Background(), "CREATE TABLE scratch (id TEXT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	return db
}

func scratchIDs(t *testing.T, db *DB) []string {
	t.Helper()
	var ids []string
	if err := db.reader.NewRaw("SELECT id FROM scratch ORDER BY id").Scan(context.Background(), &ids); err != nil {
		t.Fatal(err)
	}
	return ids
}

func insertJob(id string, then func(ctx context.Context, tx bun.Tx) error) *commitJob {
	return &commitJob{ctx: context.Background(), done: make(chan struct{}), fn: func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO scratch (id) VALUES (?)", id); err != nil {
			return err
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	}}
}

func TestBatchRollsBackOnlyTheFailedWrite(t *testing.T) {
	db := openScratch(t)
	refused := errors.New("refused")
	jobs := []*commitJob{
		insertJob("a", nil),
		insertJob("b", func(context.Context, bun.Tx) error { return refused }),
		insertJob("c", func(context.Context, bun.Tx) error { panic("boom") }),
		insertJob("d", nil),
		insertJob("a", nil), // a duplicate of a write earlier in the batch: sees it
	}
	if notRun := db.commits.batch(jobs); len(notRun) != 0 {
		t.Fatalf("batch left %d writes unrun", len(notRun))
	}
	for i, j := range jobs {
		select {
		case <-j.done:
		default:
			t.Errorf("write %d not answered", i)
		}
	}
	if jobs[0].err != nil || jobs[3].err != nil {
		t.Errorf("errors of the good writes = %v, %v; want nil", jobs[0].err, jobs[3].err)
	}
	if !errors.Is(jobs[1].err, refused) {
		t.Errorf("error of the refused write = %v, want %v", jobs[1].err, refused)
	}
	if jobs[2].panicked != "boom" {
		t.Errorf("panic of the panicking write = %v, want boom", jobs[2].panicked)
	}
	if jobs[4].err == nil {
		t.Errorf("duplicate of an earlier write in the batch: no error")
	}
	if got, want := scratchIDs(t, db), []string{"a", "d"}; !slices.Equal(got, want) {
		t.Errorf("rows after the batch = %v, want %v", got, want)
	}
}

func TestBrokenBatchFailsWhatRanAndReturnsTheRest(t *testing.T) {
	db := openScratch(t)
	jobs := []*commitJob{
		insertJob("a", nil),
		insertJob("b", func(ctx context.Context, tx bun.Tx) error {
			// As SQLite does on some errors (a full disk): the whole
			// transaction is gone, savepoints and all.
			_, err := tx.ExecContext(ctx, "ROLLBACK")
			if err == nil {
				err = errors.New("rolled back")
			}
			return err
		}),
		insertJob("c", nil),
	}
	notRun := db.commits.batch(jobs)
	if len(notRun) != 1 || notRun[0] != jobs[2] {
		t.Fatalf("writes left to run = %d, want the last one", len(notRun))
	}
	if jobs[0].err == nil || jobs[1].err == nil {
		t.Errorf("errors of the writes in the broken batch = %v, %v; want both set", jobs[0].err, jobs[1].err)
	}
	if got := scratchIDs(t, db); len(got) != 0 {
		t.Errorf("rows after a broken batch = %v, want none", got)
	}
	// The write that did not run runs in the next batch.
	if db.commits.batch(notRun); jobs[2].err != nil {
		t.Fatalf("the rerun write: %v", jobs[2].err)
	}
	if got, want := scratchIDs(t, db), []string{"c"}; !slices.Equal(got, want) {
		t.Errorf("rows after the rerun = %v, want %v", got, want)
	}
}

// TestConcurrentWritesAllAnswered sends many writes at once through tx, a
// few of them failing: each gets its own answer, and exactly the others
// are stored.
func TestConcurrentWritesAllAnswered(t *testing.T) {
	db := openScratch(t)
	const n = 200
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = db.tx(context.Background(), func(ctx context.Context, tx bun.Tx) error {
				if _, err := tx.ExecContext(ctx, "INSERT INTO scratch (id) VALUES (?)", string(rune('A'+i%50))+string(rune('a'+i/50))); err != nil {
					return err
				}
				if i%10 == 3 {
					return errors.New("refused")
				}
				return nil
			})
		}()
	}
	wg.Wait()
	var want []string
	for i, err := range errs {
		if (i%10 == 3) != (err != nil) {
			t.Errorf("write %d: error %v", i, err)
		}
		if i%10 != 3 {
			want = append(want, string(rune('A'+i%50))+string(rune('a'+i/50)))
		}
	}
	slices.Sort(want)
	if got := scratchIDs(t, db); !slices.Equal(got, want) {
		t.Errorf("stored %d rows, want %d", len(got), len(want))
	}
}

func TestWritesAfterCloseFail(t *testing.T) {
	db := openScratch(t)
	_ = db.Close()
	err := db.tx(context.Background(), func(ctx context.Context, tx bun.Tx) error { return nil })
	if !errors.Is(err, errClosed) {
		t.Errorf("write after Close = %v, want %v", err, errClosed)
	}
}
