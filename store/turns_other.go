//go:build !(linux || darwin || freebsd || openbsd || netbsd || dragonfly)

package store

import (
	"errors"
	"os"
)

// Elsewhere processes do not take turns: SQLite's busy timeout alone
// decides.
const canFlock = false

const (
	lockShared = iota
	lockSharedNow
	lockExclusiveNow
	lockNone
)

func flock(*os.File, int) error { return errors.ErrUnsupported }
