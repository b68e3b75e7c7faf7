package server

// Uploads: the files in request bodies (receipt photos, profile pictures).
//
// A body of files is large, so the server bounds what it receives at once:
// every upload route takes its share of Config.MaxUploadBytes before it
// reads its body (the length the body declares, or the route's limit when it
// declares none) and gives it back when the request ends. A request that
// finds the bound reached is refused with 429 and Retry-After, unread.
//
// Receipt photos do not stay in memory: each is written, as it arrives, to
// a file of its own in the upload directory (Config.UploadDir, the data
// directory's tmp folder under finance serve), at most one byte past its
// size limit, readable by the server's user only. The files go when their
// request ends, whatever happened (a refusal, an engine's failure, a client
// that went away); files left by a server that stopped mid-request go at its
// next start (PrepareUploadDir). The bound therefore holds on disk too: the
// folder never holds more than MaxUploadBytes.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/image/webp"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/web"
)

// DefaultMaxUploadBytes is the default bound on the bytes of uploads the
// server receives at once (128 MiB): four forms of five 5 MiB photos.
const DefaultMaxUploadBytes = 128 << 20

// MinUploadBytes is the smallest bound on uploads in flight that still takes
// the largest upload (the Record page's five photos and its note) with a
// body limit of maxBody bytes besides.
func MinUploadBytes(maxBody int64) int64 {
	return maxBody + ai.MaxImages*ai.MaxImageBytes + web.MaxNoteBytes
}

// UploadDirName is the folder of the data directory that holds receipt
// photos while they are read.
const UploadDirName = "tmp"

// uploadFilePrefix starts the name of every upload file, so that
// PrepareUploadDir removes only what the server wrote.
const uploadFilePrefix = "upload-"

// PrepareUploadDir creates dir, readable by its owner only, and removes the
// upload files that a server stopped mid-request left in it.
func PrepareUploadDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), uploadFilePrefix) {
			errs = append(errs, os.Remove(filepath.Join(dir, e.Name())))
		}
	}
	return errors.Join(errs...)
}

// uploadBudget counts the bytes of uploads in flight against the server's bound.
type uploadBudget struct {
	mu          sync.Mutex
	used, limit int64
}

// reserve takes n bytes of the bound, or reports that they are not there
// and how many are.
func (b *uploadBudget) reserve(n int64) (ok bool, free int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.limit {
		return false, b.limit - b.used
	}
	b.used += n
	return true, b.limit - b.used
}

func (b *uploadBudget) release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
}

// uploadRetryAfter is what a request refused at the bound is told to wait:
// time for the uploads in flight to be read and parsed.
const uploadRetryAfter = 10 * time.Second

var errUploadsFull = httperr.New(http.StatusTooManyRequests, CodeRateLimitExceeded,
	"The server is receiving as many uploads as it holds at once; retry after the number of seconds in the Retry-After header")

// reserveUpload takes r's share of the bound on uploads in flight, before
// its body is read: the length it declares, or limit (its route's body
// limit, which cuts it) when it declares none. Call release once the
// request's files are gone; it is a no-op after a refusal, whose RateLimit
// headers count the bound in bytes (as the AI job limit counts its slots).
func (s *Server) reserveUpload(r *http.Request, h http.Header, limit int64) (release func(), err error) {
	n := limit
	if r.ContentLength >= 0 && r.ContentLength < limit {
		n = r.ContentLength
	}
	if ok, free := s.uploads.reserve(n); !ok {
		secs := int(uploadRetryAfter.Seconds())
		h.Set("RateLimit-Policy", fmt.Sprintf(`"uploads";q=%d;w=%d`, s.uploads.limit, secs))
		h.Set("RateLimit", fmt.Sprintf(`"uploads";r=%d;t=%d`, free, secs))
		h.Set("Retry-After", strconv.Itoa(secs))
		return func() {}, errUploadsFull
	}
	return func() { s.uploads.release(n) }, nil
}

// storageError marks err as finance.ErrStorageFull when the system refused a
// write for want of room (a full disk, the user's disk quota), so that the
// client gets the answer every write gets on a full disk; other errors are
// returned as they are.
func storageError(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: %w", finance.ErrStorageFull, err)
	}
	return err
}

// spool writes head and then the rest of src to a new upload file named
// with ext, at most limit bytes and one more (so that a larger file shows),
// and returns its path and size; the caller removes it. A failure to read
// src is the request's (formReadError), one to write the file the server's.
func (s *Server) spool(head []byte, src io.Reader, ext string, limit int64) (path string, size int64, err error) {
	f, err := os.CreateTemp(s.cfg.UploadDir, uploadFilePrefix+"*."+ext) // mode 0600
	if err != nil {
		return "", 0, storageError(err)
	}
	path = f.Name()
	var w io.Writer = f
	if s.spoolHook != nil {
		w = s.spoolHook(w)
	}
	dst := &writeErr{w: w}
	size, err = io.Copy(dst, io.MultiReader(bytes.NewReader(head), io.LimitReader(src, limit+1-int64(len(head)))))
	closeErr := f.Close()
	switch {
	case dst.err != nil:
		err = storageError(dst.err)
	case err != nil:
		err = s.formReadError(err)
	case closeErr != nil:
		err = storageError(closeErr)
	}
	if err != nil {
		os.Remove(path)
		return "", 0, err
	}
	return path, size, nil
}

// writeErr keeps the error of its writer, to tell it from the reader's in io.Copy.
type writeErr struct {
	w   io.Writer
	err error
}

func (w *writeErr) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.err = err
	}
	return n, err
}

// MaxImagePixels bounds a receipt photo's size in pixels: 40 megapixels,
// more than a phone camera's photo. A decoder needs about 4 bytes a pixel
// and a small file can declare far more (an 874 KB PNG declaring 30000×30000
// pixels took OCR 2.8 GB), so the size is read from the image's header and
// checked before OCR or a vision model sees the image.
const MaxImagePixels = 40_000_000

// imageSize reads the width and height that the header of an image
// declares; contentType is its sniffed type. Only the header is read. WebP's
// header (VP8, VP8L or VP8X) is read by golang.org/x/image/webp, which the
// module already uses: the standard library has no WebP.
func imageSize(r io.Reader, contentType string) (width, height int, err error) {
	br := bufio.NewReader(r)
	var cfg image.Config
	switch contentType {
	case "image/png":
		cfg, err = png.DecodeConfig(br)
	case "image/jpeg":
		cfg, err = jpeg.DecodeConfig(br)
	case "image/webp":
		cfg, err = webp.DecodeConfig(br)
	default:
		err = fmt.Errorf("no decoder for %s", contentType)
	}
	return cfg.Width, cfg.Height, err
}
