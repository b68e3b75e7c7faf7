//go:build unix

package ai

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// wrapperOCR is an OCR command that is a shell script whose child does the
// work: it writes the child's pid to a file, then waits for it. The child
// sleeps for five minutes holding the script's standard output, as a hung
// OCR program under a wrapper would.
func wrapperOCR(t *testing.T, timeout time.Duration) (ocr *OCR, pidFile string) {
	t.Helper()
	dir := t.TempDir()
	pidFile = filepath.Join(dir, "child.pid")
	script := filepath.Join(dir, "ocr")
	body := fmt.Sprintf("#!/bin/sh\nsleep 300 &\necho $! > %s.tmp && mv %s.tmp %s\nwait\n", pidFile, pidFile, pidFile)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	ocr, err := FindOCR(script, timeout)
	if err != nil {
		t.Fatal(err)
	}
	return ocr, pidFile
}

// startOCR runs ocr.Read in the background; wait returns its error.
func startOCR(t *testing.T, ctx context.Context, ocr *OCR) (wait func() error) {
	t.Helper()
	img := imageFile(t, []byte("\x89PNG\r\n\x1a\n"), "image/png")
	done := make(chan error, 1)
	go func() {
		_, err := ocr.Read(ctx, img)
		done <- err
	}()
	return func() error {
		t.Helper()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			// The child sleeps for five minutes.
			t.Fatal("OCR.Read still waits a minute after its command was stopped: the wrapper's child holds the pipe")
			return nil
		}
	}
}

// processGone reports whether pid has exited within ten seconds (a zombie
// waiting for its parent to reap it counts as exited): a killed process
// closes its files a moment before it is marked as exited.
func processGone(pid int) bool {
	for range 200 {
		if exited(pid) {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}

func exited(pid int) bool {
	if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// pid (comm) state ...: the state follows the last ')'.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		return len(fields) > 0 && fields[0] == "Z"
	} else if _, statErr := os.Stat("/proc/self"); statErr == nil {
		return true // /proc is there and the process is not
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// waitForPid waits for the wrapper to write its child's pid.
func waitForPid(t *testing.T, pidFile string) int {
	t.Helper()
	for range 600 {
		if b, err := os.ReadFile(pidFile); err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("pid file %q: %v", b, err)
			}
			return pid
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the wrapper did not start its child within 30 seconds")
	return 0
}

// A request that ends (the client went away) stops the whole OCR command,
// the wrapper's child included, and Read returns at once.
func TestOCRCancelKillsTheWrappersChildren(t *testing.T) {
	ocr, pidFile := wrapperOCR(t, time.Hour)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wait := startOCR(t, ctx, ocr)
	child := waitForPid(t, pidFile)
	t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) }) // in case it is left running
	cancel()
	if err := wait(); err == nil {
		t.Fatal("a cancelled OCR returned no error")
	}
	if !processGone(child) {
		t.Errorf("the wrapper's child %d still runs after the OCR was cancelled", child)
	}
}

// The OCR timeout stops the whole command too: Read answers with the
// timeout, not after the wrapper's child has finished.
func TestOCRTimeoutKillsTheWrappersChildren(t *testing.T) {
	ocr, pidFile := wrapperOCR(t, 500*time.Millisecond)
	err := startOCR(t, context.Background(), ocr)()
	if err == nil || !strings.Contains(err.Error(), "OCR timed out after 500ms") {
		t.Fatalf("Read = %v, want the timeout", err)
	}
	if b, err := os.ReadFile(pidFile); err == nil {
		child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
		t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
		if !processGone(child) {
			t.Errorf("the wrapper's child %d still runs after the OCR timed out", child)
		}
	}
}
