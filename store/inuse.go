package store

import (
	"errors"
	"fmt"
	"os"
)

// The database's "-inuse" file tells whether a process has the database
// open. Every Open holds a shared lock on it (flock(2), as the "-writers"
// file's turns) until Close; finance restore takes it exclusively, so it
// replaces the database only while nothing has it open, and nothing opens
// it while the restore runs. A lock belongs to the open file and ends with
// the process, so a crashed server leaves none behind.

// ErrInUse refuses a restore while a server or another command has the
// database open.
var ErrInUse = errors.New("the database is in use by a running finance (serve, or another command): stop it first")

// ErrRestoring refuses to open the database while finance restore replaces it.
var ErrRestoring = errors.New("finance restore is replacing the database: try again when it has finished")

// holdInUse opens the "-inuse" file of the database at path and locks it
// with how (lockSharedNow or lockExclusiveNow); failing to get the lock
// is refused. Where there is no flock the file is opened and not locked.
func holdInUse(path string, how int, busy error) (*os.File, error) {
	f, err := os.OpenFile(path+"-inuse", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("store: open %s-inuse: %w", path, err)
	}
	if !canFlock {
		return f, nil
	}
	if err := flock(f, how); err != nil {
		f.Close()
		return nil, busy
	}
	return f, nil
}
