//go:build unix

package ai

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup runs cmd as the leader of a process group of its own, and
// makes its cancellation (the timeout, or the request ending) kill the whole
// group. An OCR command may be a wrapper script: killing only the process
// started would leave its children running, and one that holds the output
// pipe would keep Wait, and with it the job slot, for as long as it lives.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killProcessGroup(cmd) }
}

// killProcessGroup kills every process left in cmd's group. The group's id
// is the leader's pid, which the system does not give to another process
// while the group has members.
func killProcessGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone // the group is already gone
		}
		return err
	}
	return nil
}
