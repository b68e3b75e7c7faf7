package store

import (
	"os"
	"time"
)

// Taking turns with other processes. SQLite lets one connection write at a
// time and makes the others retry: its busy handler sleeps between tries,
// 100 ms apart after the first quarter second. The committer takes the write
// lock again right after each commit while writes keep arriving, so under a
// sustained load a second process (the CLI beside the server, a second
// server on the same file) could miss every free moment until its busy
// timeout ran out and fail with "database is locked". So the processes say
// when they wait: each holds a shared lock on a file beside the database
// (the database's name with "-writers") while it begins a write transaction,
// and before each batch the committer checks whether another process holds
// one; if so, it waits, at most maxYield, for that process to get in. One
// process alone pays a lock and an unlock per batch.

// maxYield bounds how long a committer leaves the write lock to another
// process: longer than SQLite's longest sleep between tries, so the other
// process gets at least one try while the lock is free.
const maxYield = 250 * time.Millisecond

// turns are this process's handles on the "-writers" file: want is held
// shared while beginning a write, probe tries for it exclusively. Both are
// nil where another process cannot be told (a platform without flock).
type turns struct {
	want, probe *os.File
	// inUse is the "-inuse" file, held shared while the database is open
	// (inuse.go); closed with the turns.
	inUse *os.File
}

// openTurns opens the "-writers" file of the database at path, owner-only
// like the database.
func openTurns(path string) (*turns, error) {
	if !canFlock {
		return &turns{}, nil
	}
	var files [2]*os.File
	for i := range files {
		f, err := os.OpenFile(path+"-writers", os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			if files[0] != nil {
				files[0].Close()
			}
			return nil, err
		}
		files[i] = f
	}
	return &turns{want: files[0], probe: files[1]}, nil
}

// begin runs fn, which begins a write transaction and may wait for the
// write lock, while other processes can see this one waiting. The lock is
// a courtesy: when it cannot be taken, fn runs anyway.
func (t *turns) begin(fn func() error) error {
	if t.want == nil || flock(t.want, lockShared) != nil {
		return fn()
	}
	defer flock(t.want, lockNone)
	return fn()
}

// yield waits while another process is beginning a write, at most maxYield.
func (t *turns) yield() {
	if t.probe == nil {
		return
	}
	deadline := time.Now().Add(maxYield)
	for flock(t.probe, lockExclusiveNow) != nil {
		if time.Now().After(deadline) {
			return
		}
		time.Sleep(time.Millisecond)
	}
	_ = flock(t.probe, lockNone)
}

func (t *turns) close() {
	if t == nil { // Postgres takes no turns
		return
	}
	for _, f := range []*os.File{t.want, t.probe, t.inUse} {
		if f != nil {
			f.Close()
		}
	}
}
