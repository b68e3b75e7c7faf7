//go:build linux || darwin || freebsd || openbsd || netbsd || dragonfly

package store

import (
	"os"
	"syscall"
)

const canFlock = true

const (
	lockShared       = syscall.LOCK_SH
	lockSharedNow    = syscall.LOCK_SH | syscall.LOCK_NB
	lockExclusiveNow = syscall.LOCK_EX | syscall.LOCK_NB
	lockNone         = syscall.LOCK_UN
)

// flock takes or releases an advisory lock on f (flock(2)). A lock belongs
// to the open file, so two opens of one file conflict even in one process.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}
