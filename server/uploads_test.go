package server

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// countingBody is a request body that counts the bytes the server read of it.
type countingBody struct {
	r    io.Reader
	read atomic.Int64
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.read.Add(int64(n))
	return n, err
}

// uploadRequest is POST parse-images as u with body; its length is
// declared unless it is a pipe, as a client that streams does not.
func uploadRequest(u ledgerUser, body io.Reader, contentType string, length int64) *http.Request {
	req := httptest.NewRequest(http.MethodPost, parseImagesURL, body)
	req.ContentLength = length
	req.Header.Set("Authorization", "Bearer "+u.key)
	req.Header.Set("Content-Type", contentType)
	return req
}

// serve sends req through the server and returns the response.
func serve(env *testEnv, req *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	env.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// refusedUnread checks that the answer to req, whose body is form, is what
// the contract allows, and that the server read nothing of the body.
func refusedUnread(t *testing.T, what string, req *http.Request, form string, body *countingBody, rec *httptest.ResponseRecorder) {
	t.Helper()
	checkContract(t, req, []byte(form), rec.Result(), rec.Body.Bytes())
	if n := body.read.Load(); n != 0 {
		t.Errorf("%s: the server read %d bytes of the body before refusing it", what, n)
	}
}

// wantRefusal checks a JSON error answer: its status, code and message.
func wantRefusal(t *testing.T, what string, rec *httptest.ResponseRecorder, status int, code, message string) {
	t.Helper()
	var body struct {
		Error struct {
			Message string            `json:"message"`
			Code    string            `json:"code"`
			Fields  map[string]string `json:"fields"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || rec.Code != status || body.Error.Code != code ||
		!strings.Contains(body.Error.Message, message) {
		t.Errorf("%s: %d %s; want %d %s saying %q", what, rec.Code, rec.Body, status, code, message)
	}
}

// uploadFiles lists what the server's upload directory holds.
func uploadFiles(t testing.TB, env *testEnv) []string {
	t.Helper()
	entries, err := os.ReadDir(env.srv.cfg.UploadDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// padded is img followed by zeros up to size bytes: a photo of that size
// whose header is img's.
func padded(img []byte, size int) []byte {
	return append(append([]byte{}, img...), make([]byte, size-len(img))...)
}

// countingModel is a vision model that answers every request with one
// empty draft, and counts the requests.
func countingModel(t *testing.T) (*ai.Engine, *atomic.Int64) {
	calls := &atomic.Int64{}
	eng := fakeModel(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		chatAnswer(w, `{"items":[]}`)
	})
	return eng, calls
}

// The attack: a key whose AI budget is spent sends receipts of
// 5 × 5 MiB. Each is refused with 429 before one byte of its body is read
// (the server holds none of it), and so is one that finds every job slot
// busy. A form refused for what it holds spends nothing of the budget.
func TestParseImagesRefusedBeforeReading(t *testing.T) {
	eng, calls := countingModel(t)
	env, alice, _ := newAIEnv(t, func(c *Config) {
		c.AI, c.AIRateLimit = eng, Rate{Count: aiImageWeight, Window: time.Hour, Burst: aiImageWeight} // one image an hour
	})
	big := padded(testkit.PNGStub, ai.MaxImageBytes)
	attack, ct := imagesForm(t, big, big, big, big, big)
	send := func(what string, status int, code, message string) *countingBody {
		t.Helper()
		body := &countingBody{r: strings.NewReader(attack)}
		req := uploadRequest(alice, body, ct, int64(len(attack)))
		rec := serve(env, req)
		wantRefusal(t, what, rec, status, code, message)
		refusedUnread(t, what, req, attack, body, rec)
		return body
	}

	// Every job slot busy (the engine has one).
	release, err := env.srv.ai.Acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	send("every job slot busy", http.StatusTooManyRequests, CodeRateLimitExceeded, "as many AI parsing jobs as it allows")
	release()

	// Not an image: refused, and the budget is untouched...
	notImage, nct := imagesForm(t, []byte("%PDF-1.7 receipt"))
	wantRefusal(t, "not an image", serve(env, uploadRequest(alice, strings.NewReader(notImage), nct, int64(len(notImage)))),
		http.StatusBadRequest, CodeValidation, "images[0] must be a PNG, JPEG or WebP image")
	// ...so the one image of the hour is still there.
	one, oct := imagesForm(t, testkit.PNGStub)
	if rec := serve(env, uploadRequest(alice, strings.NewReader(one), oct, int64(len(one)))); rec.Code != http.StatusOK {
		t.Fatalf("one image after a refused form: %d %s", rec.Code, rec.Body)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("the model was asked %d times, want once", n)
	}

	// The budget spent: 429, unread.
	send("the budget spent", http.StatusTooManyRequests, CodeRateLimitExceeded, "Too many requests")
	if n := calls.Load(); n != 1 {
		t.Errorf("the model was asked %d times, want once", n)
	}
	if files := uploadFiles(t, env); len(files) != 0 {
		t.Errorf("upload files left: %v", files)
	}
}

// The server bounds the bytes of uploads it receives at once. With room
// for one full form, a second upload that arrives while the first is still
// being received is refused with 429 and Retry-After, unread; the first's
// photo waits in an upload file, which goes when its client goes away
// mid-upload; then uploads are taken again, and leave nothing behind.
func TestUploadsInFlightAreBounded(t *testing.T) {
	eng, _ := countingModel(t)
	env, alice, bob := newAIEnv(t, func(c *Config) { c.AI, c.MaxUploadBytes = eng, 1 }) // 1: raised to one full form

	// Alice's upload streams (no declared length: it takes the whole
	// bound) and stalls in its first photo.
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	done := make(chan *httptest.ResponseRecorder, 1)
	go func() { done <- serve(env, uploadRequest(alice, pr, mw.FormDataContentType(), -1)) }()
	part, err := mw.CreateFormFile("images", "receipt.png")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := part.Write(padded(testkit.PNGStub, 64<<10)); err != nil {
		t.Fatal(err)
	}
	for i := 0; len(uploadFiles(t, env)) == 0; i++ {
		if i == 600 {
			t.Fatal("no upload file after 30 seconds")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// Bob's upload finds no room.
	form, ct := imagesForm(t, testkit.PNGStub)
	body := &countingBody{r: strings.NewReader(form)}
	req := uploadRequest(bob, body, ct, int64(len(form)))
	rec := serve(env, req)
	wantRefusal(t, "a second upload at the bound", rec, http.StatusTooManyRequests, CodeRateLimitExceeded,
		"The server is receiving as many uploads as it holds at once; retry after the number of seconds in the Retry-After header")
	bound := MinUploadBytes(DefaultMaxBodyBytes)
	for name, want := range map[string]string{"Retry-After": "10",
		"RateLimit-Policy": fmt.Sprintf(`"uploads";q=%d;w=10`, bound), "RateLimit": `"uploads";r=0;t=10`} {
		if got := rec.Header().Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	refusedUnread(t, "a second upload at the bound", req, form, body, rec)

	// Alice's client goes away mid-photo: a refusal, and no file left.
	pw.CloseWithError(io.ErrUnexpectedEOF)
	if rec := <-done; rec.Code != http.StatusBadRequest {
		t.Errorf("an upload cut short: %d %s", rec.Code, rec.Body)
	}
	if files := uploadFiles(t, env); len(files) != 0 {
		t.Errorf("upload files left by an upload cut short: %v", files)
	}

	// Room again.
	if rec := serve(env, uploadRequest(bob, strings.NewReader(form), ct, int64(len(form)))); rec.Code != http.StatusOK {
		t.Errorf("an upload with room again: %d %s", rec.Code, rec.Body)
	}
	if files := uploadFiles(t, env); len(files) != 0 {
		t.Errorf("upload files left after a parse: %v", files)
	}
}

// pngHeader is the start of a PNG declaring width × height pixels: its
// signature and IHDR chunk, all that is read of it for its size.
func pngHeader(width, height uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32([]byte("IHDR"), width), height)
	chunk = append(chunk, 8, 0, 0, 0, 0) // 8-bit greyscale
	b.Write(binary.BigEndian.AppendUint32(nil, 13))
	b.Write(chunk)
	b.Write(binary.BigEndian.AppendUint32(nil, crc32.ChecksumIEEE(chunk)))
	return b.Bytes()
}

// jpegHeader is the start of a JPEG (JFIF) declaring width × height pixels.
func jpegHeader(width, height uint16) []byte {
	return []byte{0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0,
		0xFF, 0xC0, 0x00, 0x11, 8, byte(height >> 8), byte(height), byte(width >> 8), byte(width), 3, 1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0}
}

// webpHeader is the start of an extended WebP (VP8X) declaring a canvas of
// width × height pixels.
func webpHeader(width, height uint32) []byte {
	b := []byte("RIFF")
	b = binary.LittleEndian.AppendUint32(b, 4+8+10)
	b = append(b, "WEBPVP8X"...)
	b = binary.LittleEndian.AppendUint32(b, 10)
	w, h := width-1, height-1
	return append(b, 0, 0, 0, 0, byte(w), byte(w>>8), byte(w>>16), byte(h), byte(h>>8), byte(h>>16))
}

// markerOCR is an OCR command that leaves a file behind when it runs.
func markerOCR(t *testing.T) (ocr *ai.OCR, ran func() bool) {
	t.Helper()
	dir := t.TempDir()
	marker, script := filepath.Join(dir, "ran"), filepath.Join(dir, "ocr")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\necho 'TOTAL 100.00'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ocr, err := ai.FindOCR(script, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ocr, func() bool { _, err := os.Stat(marker); return err == nil }
}

// A photo whose header declares more than 40 megapixels (a decompression
// bomb: a small file that decodes to gigabytes) is refused with 400 on its
// field before OCR or a vision model sees it, whatever its type. One of 40
// megapixels exactly is read.
func TestParseImagesPixelLimit(t *testing.T) {
	bombs := []struct {
		name, problem string
		image         []byte
	}{
		{"PNG", "must be at most 40 megapixels; this one is 30000×30000 pixels", pngHeader(30000, 30000)},
		{"JPEG", "must be at most 40 megapixels; this one is 10000×5000 pixels", jpegHeader(10000, 5000)},
		{"WebP", "must be at most 40 megapixels; this one is 8000×8000 pixels", webpHeader(8000, 8000)},
		{"a PNG cut in its header", "must be a PNG, JPEG or WebP image whose size can be read", pngHeader(100, 100)[:20]},
	}
	ocr, ocrRan := markerOCR(t)
	vision, visionCalls := countingModel(t)
	for _, engine := range []struct {
		name string
		eng  *ai.Engine
		ran  func() bool
	}{
		{"OCR", ai.New(ai.Config{OCR: ocr}), ocrRan},
		{"a vision model", vision, func() bool { return visionCalls.Load() > 0 }},
	} {
		t.Run(engine.name, func(t *testing.T) {
			env, alice, _ := newAIEnv(t, func(c *Config) { c.AI = engine.eng })
			for _, bomb := range bombs {
				body, ct := imagesForm(t, testkit.PNGStub, bomb.image)
				(apiScenario{name: bomb.name, method: http.MethodPost, url: parseImagesURL, body: body,
					headers:    map[string]string{"Authorization": "Bearer " + alice.key, "Content-Type": ct},
					wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: map[string]string{"images[1]": bomb.problem},
				}).run(t, env)
			}
			if engine.ran() {
				t.Fatal("the engine was given the images of a refused form")
			}
			if files := uploadFiles(t, env); len(files) != 0 {
				t.Errorf("upload files left: %v", files)
			}
			body, ct := imagesForm(t, pngHeader(8000, 5000))
			apiScenario{name: "40 megapixels", method: http.MethodPost, url: parseImagesURL, body: body,
				headers:    map[string]string{"Authorization": "Bearer " + alice.key, "Content-Type": ct},
				wantStatus: http.StatusOK}.run(t, env)
			if !engine.ran() {
				t.Error("the engine did not read a photo of 40 megapixels")
			}
		})
	}
}

// The 413 of a receipt form too large for its route names the route's own
// limit (the server's body limit and five photos), not the body limit of
// the other routes.
func TestParseImagesTooLargeNamesItsLimit(t *testing.T) {
	eng, calls := countingModel(t)
	env, alice, _ := newAIEnv(t, func(c *Config) { c.AI = eng })
	big := padded(testkit.PNGStub, ai.MaxImageBytes)
	body, ct := imagesForm(t, big, big, big, big, big, big) // six photos: 30 MiB
	limit := DefaultMaxBodyBytes + ai.MaxImages*ai.MaxImageBytes
	// Sent without the contract's check, which would parse all 30 MiB.
	wantRefusal(t, "six photos", serve(env, uploadRequest(alice, strings.NewReader(body), ct, int64(len(body)))),
		http.StatusRequestEntityTooLarge, CodeValidation, fmt.Sprintf("Request body is larger than the %d byte limit of this route", limit))
	if n := calls.Load(); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	if files := uploadFiles(t, env); len(files) != 0 {
		t.Errorf("upload files left: %v", files)
	}
}

// noRoom fails every write as a full disk does.
type noRoom struct{}

func (noRoom) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: "upload", Err: syscall.ENOSPC}
}

// A receipt form that finds the server's disk full is answered as every
// write on a full disk is (507, nothing saved), not with an empty draft;
// it spends nothing of the budget and leaves no file. The Record page says
// the same on a page of its own.
func TestParseImagesOnAFullDisk(t *testing.T) {
	eng, calls := countingModel(t)
	env, alice, _ := newAIEnv(t, func(c *Config) {
		c.AI, c.AIRateLimit = eng, Rate{Count: aiImageWeight, Window: time.Hour, Burst: aiImageWeight}
	})
	env.srv.spoolHook = func(io.Writer) io.Writer { return noRoom{} }
	body, ct := imagesForm(t, testkit.PNGStub)
	(apiScenario{method: http.MethodPost, url: parseImagesURL, body: body,
		headers:     map[string]string{"Authorization": "Bearer " + alice.key, "Content-Type": ct},
		wantStatus:  http.StatusInsufficientStorage,
		wantCode:    CodeInternal,
		wantMessage: httperr.StorageFullMessage,
	}).run(t, env)
	if n := calls.Load(); n != 0 {
		t.Errorf("the model was asked %d times", n)
	}
	if files := uploadFiles(t, env); len(files) != 0 {
		t.Errorf("upload files left: %v", files)
	}

	// The web page's door, for a person.
	u := env.createUser(finance.PlanFree)
	b := env.browser(t)
	b.SignIn(u)
	form, fct := testkit.ReceiptForm(t, testkit.CSRF(t, b.Get(web.RecordPath)), "lunch", testkit.PNGStub)
	x := b.Send(http.MethodPost, web.RecordReceiptPath, form, fct)
	testkit.WantPage(t, "a receipt on a full disk", x, http.StatusInsufficientStorage, "<h1>Not saved</h1>",
		"The server could not save: its disk is full, so nothing was saved.")

	// Room again: the hour's one image was not spent.
	env.srv.spoolHook = nil
	(apiScenario{method: http.MethodPost, url: parseImagesURL, body: body,
		headers: map[string]string{"Authorization": "Bearer " + alice.key, "Content-Type": ct}, wantStatus: http.StatusOK}).run(t, env)
	if files := uploadFiles(t, env); len(files) != 0 {
		t.Errorf("upload files left: %v", files)
	}
}
