package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finance-app/finance/store"
)

// errorLog collects errors from many goroutines.
type errorLog struct {
	mu   sync.Mutex
	errs []error
}

func (l *errorLog) add(err error) {
	if err == nil {
		return
	}
	l.mu.Lock()
	l.errs = append(l.errs, err)
	l.mu.Unlock()
}

func isBusy(err error) bool {
	s := err.Error()
	return strings.Contains(s, "database is locked") || strings.Contains(s, "SQLITE_BUSY") ||
		strings.Contains(s, "database table is locked")
}

// check fails the test on any error, counting "database is locked" separately.
func (l *errorLog) check(t *testing.T) {
	t.Helper()
	busy := 0
	for _, err := range l.errs {
		if isBusy(err) {
			busy++
		}
	}
	if busy > 0 {
		t.Errorf("%d of %d errors are SQLITE_BUSY (database is locked)", busy, len(l.errs))
	}
	for i, err := range l.errs {
		if i == 5 {
			t.Errorf("... and %d more errors", len(l.errs)-5)
			break
		}
		t.Errorf("error: %v", err)
	}
}

// writeLoad runs goroutines × perGoroutine rounds of CreateUser + CreateAPIKey +
// TouchAPIKeys on db; email addresses start with prefix.
func writeLoad(db *store.DB, prefix string, goroutines, perGoroutine int, errs *errorLog, wg *sync.WaitGroup) {
	ctx := context.Background()
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perGoroutine {
				u := newUser(fmt.Sprintf("%s-%02d-%02d@example.com", prefix, g, i))
				if err := db.CreateUser(ctx, u, "h"); err != nil {
					errs.add(fmt.Errorf("CreateUser: %w", err))
					continue
				}
				k := newKey(u.ID, "key", now())
				if err := db.CreateAPIKey(ctx, k); err != nil {
					errs.add(fmt.Errorf("CreateAPIKey: %w", err))
					continue
				}
				errs.add(db.TouchAPIKeys(ctx, map[string]time.Time{k.ID: now()}))
			}
		}()
	}
}

// readLoad keeps readers busy on db until stop is closed.
func readLoad(db *store.DB, readers int, stop <-chan struct{}, errs *errorLog, wg *sync.WaitGroup) {
	ctx := context.Background()
	for range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_, err := db.CountUsers(ctx)
				errs.add(err)
				_, err = db.ListAPIKeys(ctx, "none")
				errs.add(err)
				// Leave the CPUs to the writers: readers are here to overlap
				// with writes, not to measure read throughput.
				time.Sleep(time.Millisecond)
			}
		}()
	}
}

// checkRows verifies every user written by writeLoad exists with one key
// whose last use was recorded.
func checkRows(t *testing.T, db *store.DB, prefix string, goroutines, perGoroutine int) {
	t.Helper()
	ctx := context.Background()
	missing := 0
	for g := range goroutines {
		for i := range perGoroutine {
			email := fmt.Sprintf("%s-%02d-%02d@example.com", prefix, g, i)
			u, err := db.UserByEmail(ctx, email)
			if err != nil {
				missing++
				continue
			}
			keys, err := db.ListAPIKeys(ctx, u.ID)
			if err != nil || len(keys) != 1 || keys[0].LastUsedAt == nil {
				t.Errorf("%s: keys %+v, err %v; want one key with a last use", email, keys, err)
			}
		}
	}
	if missing > 0 {
		t.Errorf("%d users of %s missing", missing, prefix)
	}
}

// rounds scales a loop count down under the race detector, which slows the
// pure-Go SQLite engine by an order of magnitude; the number of goroutines
// writing at once stays the same.
func rounds(n int) int {
	if raceEnabled {
		return max(1, n/3)
	}
	return n
}

// TestConcurrentWritesNeverBusy hammers the single writer from many goroutines
// while readers run: writes must queue, never fail with "database is locked".
func TestConcurrentWritesNeverBusy(t *testing.T) {
	const goroutines = 32
	perGoroutine := rounds(25)
	db := openDB(t)
	var errs errorLog
	var writers, readers sync.WaitGroup
	stop := make(chan struct{})
	readLoad(db, 8, stop, &errs, &readers)
	writeLoad(db, "w", goroutines, perGoroutine, &errs, &writers)
	writers.Wait()
	close(stop)
	readers.Wait()
	errs.check(t)

	if n, err := db.CountUsers(context.Background()); err != nil || n != goroutines*perGoroutine {
		t.Errorf("CountUsers = %d, %v; want %d", n, err, goroutines*perGoroutine)
	}
	checkRows(t, db, "w", goroutines, perGoroutine)
}

// TestTwoHandlesWriteConcurrently opens the file twice, as the CLI does while
// the server runs: the two writers wait for each other (busy_timeout +
// BEGIN IMMEDIATE) instead of failing.
func TestTwoHandlesWriteConcurrently(t *testing.T) {
	const goroutines = 16
	perGoroutine := rounds(25)
	path := filepath.Join(t.TempDir(), store.FileName)
	server := openAt(t, path)
	if err := server.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	cli := openAt(t, path)
	if err := cli.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}

	var errs errorLog
	var writers, readers sync.WaitGroup
	stop := make(chan struct{})
	readLoad(server, 4, stop, &errs, &readers)
	readLoad(cli, 4, stop, &errs, &readers)
	writeLoad(server, "server", goroutines, perGoroutine, &errs, &writers)
	writeLoad(cli, "cli", goroutines, perGoroutine, &errs, &writers)
	writers.Wait()
	close(stop)
	readers.Wait()
	errs.check(t)

	for _, db := range []*store.DB{server, cli} {
		if n, err := db.CountUsers(context.Background()); err != nil || n != 2*goroutines*perGoroutine {
			t.Errorf("CountUsers = %d, %v; want %d", n, err, 2*goroutines*perGoroutine)
		}
	}
	checkRows(t, server, "cli", goroutines, perGoroutine)
	checkRows(t, cli, "server", goroutines, perGoroutine)
}

// TestAWriterUnderLoadLetsAnotherProcessIn: while one handle (the server)
// is kept writing by many goroutines without a pause, a second handle of
// the same file (the CLI, as it opens it) still gets its writes in, and
// soon. Before the handles took turns, SQLite's busy handler retried only
// every 100 ms into a lock that was free for microseconds between batches,
// so the second handle usually ran out its 10 s timeout with "database is
// locked".
func TestAWriterUnderLoadLetsAnotherProcessIn(t *testing.T) {
	path := filepath.Join(t.TempDir(), store.FileName)
	server := openAt(t, path)
	if err := server.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	cli := openAt(t, path)
	ctx := context.Background()

	var errs errorLog
	var load sync.WaitGroup
	stop := make(chan struct{})
	for g := range 16 {
		load.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				errs.add(server.CreateUser(ctx, newUser(fmt.Sprintf("load-%02d-%05d@example.com", g, i)), "h"))
			}
		})
	}
	// The load is running once the server has written a batch or two.
	for n := 0; n < 32; {
		time.Sleep(10 * time.Millisecond)
		var err error
		if n, err = server.CountUsers(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// How many of the server's writes commit while a CLI write waits says
	// whether it waited for a turn or for luck: the server's batches hold
	// 16 writes at most here, and a turn comes within a batch or two. (Without
	// turns, the first CLI write here waited for 2,000 and more.)
	const maxWritesWaited = 10 * 16
	for i := range 5 {
		before, err := server.CountUsers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		errs.add(cli.CreateUser(ctx, newUser(fmt.Sprintf("cli-%d@example.com", i)), "h"))
		after, err := server.CountUsers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if waited := after - before - 1; waited > maxWritesWaited {
			t.Errorf("CLI write %d waited while the server wrote %d rows, more than %d batches", i, waited, maxWritesWaited/16)
		}
	}
	close(stop)
	load.Wait()
	errs.check(t)
	for i := range 5 {
		if _, err := server.UserByEmail(ctx, fmt.Sprintf("cli-%d@example.com", i)); err != nil {
			t.Errorf("the second handle's write %d: %v", i, err)
		}
	}
}
