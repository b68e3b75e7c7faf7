//go:build !unix

package ai

import "os/exec"

// ownProcessGroup leaves cmd as it is: outside Unix, cancelling it kills the
// process started, and Cmd.WaitDelay bounds the wait for its output pipe
// when a child of it holds the pipe open.
func ownProcessGroup(*exec.Cmd) {}

// killProcessGroup has no group to kill outside Unix.
func killProcessGroup(*exec.Cmd) error { return nil }
