package ai

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Image is an uploaded picture, in a file of its own: its bytes were sniffed
// as PNG, JPEG or WebP and its size in pixels checked before it got here. The
// caller owns the file and removes it once parsing returns. Keeping images on
// disk rather than in memory bounds what a parse holds: OCR reads the file
// itself, and a vision model's request reads it only while it holds a job slot.
type Image struct {
	Path        string
	ContentType string // image/png, image/jpeg or image/webp
}

// DefaultOCRCommand is the OCR program looked for on the PATH (Debian: tesseract-ocr).
const DefaultOCRCommand = "tesseract"

// OCR runs a tesseract-compatible command: OCR IMAGE stdout [options],
// writing the text it reads to standard output. It runs without a shell, on
// the image's own file, under a timeout; on Unix in a process group of its
// own, which the timeout kills whole.
type OCR struct {
	path    string
	timeout time.Duration
}

// maxOCRText bounds what is read of the command's output: a receipt is a
// few kilobytes of text.
const maxOCRText = 256 << 10

// FindOCR returns the OCR runner for command: the default, looked up on
// the PATH, is optional (nil without error when absent); a command the
// admin named must exist.
func FindOCR(command string, timeout time.Duration) (*OCR, error) {
	name := command
	if name == "" {
		name = DefaultOCRCommand
	}
	path, err := exec.LookPath(name)
	if err != nil {
		if command == "" {
			return nil, nil
		}
		return nil, fmt.Errorf("OCR command %q: %w", command, err)
	}
	if timeout <= 0 {
		timeout = DefaultOCRTimeout
	}
	return &OCR{path: path, timeout: timeout}, nil
}

// DefaultOCRTimeout bounds one image's OCR.
const DefaultOCRTimeout = 60 * time.Second

// ocrWaitDelay bounds how long Read waits for the command's output pipes
// once the command was killed or has exited: a process that left the group
// (one that started a session of its own) could otherwise hold them open.
const ocrWaitDelay = 2 * time.Second

// Read returns the text of img.
func (o *OCR) Read(ctx context.Context, img Image) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	// --psm 6: one uniform block of text, which keeps a receipt's price column on its
	// lines (the default layout analysis splits it off as a second column).
	cmd := exec.CommandContext(ctx, o.path, img.Path, "stdout", "--psm", "6")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1") // one core per job; the server bounds the jobs
	ownProcessGroup(cmd)
	cmd.WaitDelay = ocrWaitDelay
	var out limitedBuffer
	out.max = maxOCRText
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &limitWriter{w: &stderr, n: 4 << 10}
	err := cmd.Run()
	// Whatever the command left running (a wrapper's children) goes with it:
	// nothing of a job outlives its slot.
	_ = killProcessGroup(cmd)
	if ctx.Err() != nil {
		return "", fmt.Errorf("OCR timed out after %s: %w", o.timeout, ctx.Err())
	}
	if err != nil {
		return "", fmt.Errorf("OCR failed: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out.String(), nil
}

// limitedBuffer keeps the first max bytes written to it and drops the rest.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		if _, err := l.w.Write(p[:k]); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
