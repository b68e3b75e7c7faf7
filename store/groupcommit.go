package store

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/uptrace/bun"
)

// Group commit. With synchronous=FULL every commit waits for an fsync of the
// WAL, and the one writer connection does one commit at a time, so
// concurrent writers used to queue for one fsync each and the write rate
// stayed flat however many clients wrote. The committer instead takes every
// write waiting when the writer frees up and runs them in one transaction,
// each in its own savepoint, so one write that fails rolls back only itself;
// then it commits once, with one fsync, and only then answers each write.
// An acknowledged write is therefore exactly as durable as before; writes
// that arrive together share the cost of making them so.
//
// A lone write runs without a savepoint, in a transaction of its own, as it
// always did.

// maxCommitBatch bounds the writes in one transaction, so that a crowd of
// writers does not make one batch, and the wait of its first write, long.
const maxCommitBatch = 64

// errClosed answers writes submitted after Close.
var errClosed = errors.New("store: the database is closed")

// commitJob is one write waiting for the committer.
type commitJob struct {
	ctx      context.Context
	fn       func(ctx context.Context, tx bun.Tx) error
	err      error
	panicked any // a panic of fn, raised again in the caller
	done     chan struct{}
}

// committer runs the writes of db.tx on the writer, in batches.
type committer struct {
	writer  *bun.DB
	turns   *turns          // with other processes writing the same file
	health  *writeHealth    // told how each transaction ended
	watch   *writeWatch     // what each transaction changed of the in-memory caches
	jobs    chan *commitJob // unbuffered: a job handed over is in the committer's hands
	quit    chan struct{}
	stopped chan struct{}
	// observer is told of each commit (ObserveCommits); nil for none.
	observer atomic.Pointer[CommitObserver]
	// plain runs each write in a transaction of its own, side by side
	// (Postgres: runPlain), instead of in batches.
	plain bool
}

// CommitObserver is told of each write transaction committed (the
// service's metrics): how many writes it held, several when they arrived
// together, and how long its COMMIT took, the fsync that makes them durable.
type CommitObserver interface {
	Committed(writes int, took time.Duration)
}

// ObserveCommits has o told of every write transaction committed from now on.
func (db *DB) ObserveCommits(o CommitObserver) { db.commits.observer.Store(&o) }

// commit commits tx, which ran writes writes, and tells the observer.
func (c *committer) commit(tx bun.Tx, writes int) error {
	c.watch.beforeCommit(context.Background(), tx.Tx)
	start := time.Now()
	err := tx.Commit()
	if o := c.observer.Load(); o != nil && err == nil {
		(*o).Committed(writes, time.Since(start))
	}
	return err
}

func newCommitter(writer *bun.DB, t *turns, health *writeHealth, watch *writeWatch) *committer {
	c := &committer{writer: writer, turns: t, health: health, watch: watch,
		jobs: make(chan *commitJob), quit: make(chan struct{}), stopped: make(chan struct{})}
	go c.loop()
	return c
}

// run has fn run in a write transaction and returns once that transaction
// committed (fn's error, or the commit's, if any).
func (c *committer) run(ctx context.Context, fn func(ctx context.Context, tx bun.Tx) error) error {
	if c.plain {
		return c.runPlain(ctx, fn)
	}
	j := &commitJob{ctx: ctx, fn: fn, done: make(chan struct{})}
	select {
	case c.jobs <- j:
	case <-c.quit:
		return errClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	<-j.done
	if j.panicked != nil {
		panic(j.panicked)
	}
	return j.err
}

// close stops the committer once the batch it runs is answered.
func (c *committer) close() {
	select {
	case <-c.quit:
	default:
		close(c.quit)
	}
	<-c.stopped
}

func (c *committer) loop() {
	defer close(c.stopped)
	var pending []*commitJob
	for {
		if len(pending) == 0 {
			select {
			case j := <-c.jobs:
				pending = append(pending, j)
			case <-c.quit:
				return
			}
		}
	gather:
		for len(pending) < maxCommitBatch {
			select {
			case j := <-c.jobs:
				pending = append(pending, j)
			default:
				break gather
			}
		}
		pending = c.batch(pending)
	}
}

// batch runs jobs in one transaction and answers them. When the transaction
// breaks part way (SQLite rolled all of it back, say on a full disk), the
// jobs that ran are answered with the error and those that did not are
// returned, to run in the next batch.
func (c *committer) batch(jobs []*commitJob) (notRun []*commitJob) {
	// The transaction outlives any one request: database/sql rolls a
	// transaction back when the context it began with ends.
	ctx := context.Background()
	standing := c.health.failure.Load()
	c.watch.prepare(c.writer.DB)
	c.turns.yield()
	var tx bun.Tx
	err := c.turns.begin(func() (err error) {
		tx, err = c.writer.BeginTx(ctx, nil)
		return err
	})
	if err != nil {
		c.health.failed(err)
		answer(jobs, err)
		return nil
	}
	if len(jobs) == 1 {
		j := jobs[0]
		j.panicked, j.err = call(j.ctx, j, tx)
		if j.err != nil || j.panicked != nil {
			_ = tx.Rollback()
		} else if err := c.commit(tx, 1); err != nil {
			j.err = err
		} else {
			c.health.committed(standing)
		}
		c.watch.ended()
		c.health.failed(j.err)
		close(j.done)
		return nil
	}
	for i, j := range jobs {
		if _, err := tx.ExecContext(ctx, "SAVEPOINT write"); err != nil {
			return c.broken(tx, jobs[:i], jobs[i:], err)
		}
		// Not cancelled with the request: interrupting a statement rolls
		// back the whole transaction, the other writes of the batch too.
		j.panicked, j.err = call(context.WithoutCancel(j.ctx), j, tx)
		if j.err != nil || j.panicked != nil {
			if _, err := tx.ExecContext(ctx, "ROLLBACK TO write"); err != nil {
				return c.broken(tx, jobs[:i+1], jobs[i+1:], err)
			}
		}
		if _, err := tx.ExecContext(ctx, "RELEASE write"); err != nil {
			return c.broken(tx, jobs[:i+1], jobs[i+1:], err)
		}
	}
	if err := c.commit(tx, len(jobs)); err != nil {
		// Nothing of the batch is stored, including what a failed write
		// may have read from an earlier one (an idempotent replay).
		c.watch.ended()
		c.health.failed(err)
		answer(jobs, fmt.Errorf("store: commit: %w", err))
		return nil
	}
	// The commit shows the disk took writes again, unless a write of the
	// batch failed on it (its statement rolled back to its savepoint): on a
	// nearly full disk, small writes may fit where a larger one did not.
	// The caches learn what the batch changed before any write is
	// answered: the next request of a writer sees its own change.
	c.watch.ended()
	c.health.committed(standing)
	for _, j := range jobs {
		c.health.failed(j.err)
		close(j.done)
	}
	return nil
}

// broken rolls tx back, answers the jobs that ran in it with err and
// returns those that did not run.
func (c *committer) broken(tx bun.Tx, ran, rest []*commitJob, err error) []*commitJob {
	_ = tx.Rollback()
	c.watch.ended()
	c.health.failed(err)
	answer(ran, fmt.Errorf("store: write batch rolled back: %w", err))
	return rest
}

// answer fails jobs with err (a panic of a job's own is raised still).
func answer(jobs []*commitJob, err error) {
	for _, j := range jobs {
		if j.panicked == nil {
			j.err = err
		}
		close(j.done)
	}
}

// call runs j's function, catching a panic for its caller.
func call(ctx context.Context, j *commitJob, tx bun.Tx) (panicked any, err error) {
	defer func() {
		if p := recover(); p != nil {
			panicked = p
		}
	}()
	return nil, j.fn(ctx, tx)
}
