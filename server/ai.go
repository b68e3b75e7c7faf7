package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/web"
)

// AI parsing (specification §4.2, rule 5): text or receipt photos in,
// expense drafts out, nothing saved. The drafts come from the engines of
// package ai; every one is checked as a create would check it.
//
// Both routes write nothing, so they are not wrapped for Idempotency-Key
// (WritesNothing): that wrapper runs the whole handler inside one write
// transaction, which would hold the database's single writer for as long as
// a model or OCR takes. A client that repeats a parse simply parses again.
func (s *Server) registerAIRoutes() {
	write := auth.Write(auth.ScopeExpensesWrite)
	const base = "/api/v1/expenses/ai"
	s.add(Route{Method: http.MethodPost, Path: base + "/parse-text", Access: write, WritesNothing: true}, s.parseText)
	s.add(Route{Method: http.MethodPost, Path: base + "/parse-images", Access: write, WritesNothing: true,
		Upload: ai.MaxImages * ai.MaxImageBytes}, s.parseImages)
}

// AI budget weights: a parse of text costs one call of the per-user AI
// budget, each image five (OCR or a vision model is that much heavier).
const (
	aiTextWeight  = 1
	aiImageWeight = 5
)

// parseTextRequest is the body of POST /expenses/ai/parse-text.
type parseTextRequest struct {
	NaturalText finance.Field[string] `json:"natural_text"`
}

func (s *Server) parseText(w http.ResponseWriter, r bunrouter.Request) error {
	var req parseTextRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	res, err := s.parseExpenseText(r.Context(), w.Header(), userID(r), req.NaturalText)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, parsedMessage(res), res)
	return nil
}

// parseExpenseText is POST /expenses/ai/parse-text once its body is read,
// and the Record page's "Type it" box: the text's checks, the user's AI
// budget, then the drafts, each checked as a create would check it. The
// rate-limit headers go to h; a spent budget or busy engines are a 429.
func (s *Server) parseExpenseText(ctx context.Context, h http.Header, userID string, text finance.Field[string]) (ai.Result, error) {
	var v finance.Validator
	if finance.Readable(&v, "natural_text", text); v.Err() != nil {
		return ai.Result{}, v.Err()
	}
	if err := ai.CheckText(text.Value); err != nil {
		return ai.Result{}, err
	}
	if err := s.spendAIBudget(h, userID, aiTextWeight); err != nil {
		return ai.Result{}, err
	}
	in, err := s.ledger.ParseInputs(ctx, userID)
	if err != nil {
		return ai.Result{}, err
	}
	ctx, cancel := s.aiContext(ctx)
	defer cancel()
	res, err := s.ai.ParseText(ctx, in, text.Value)
	if err != nil {
		return ai.Result{}, s.aiError(h, err)
	}
	return res, nil
}

func (s *Server) parseImages(w http.ResponseWriter, r bunrouter.Request) error {
	_, res, err := s.parseReceiptForm(r.Request, w.Header(), userID(r), "")
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, parsedMessage(res), res)
	return nil
}

// parseReceiptForm is POST /expenses/ai/parse-images, and the Record page's
// "Read a receipt" form (formSecret: the page's session id; "" for the
// API). It returns the form's note (the page's; the API has none) and one
// draft per image, each checked as a create would check it. In order:
//
//  1. The form itself: multipart, and a page's form token (its first part).
//  2. What the server can do, before the photos are read, so that a refused
//     upload costs the server nothing to receive: an engine that reads
//     images, the user's AI budget holding at least one image's weight,
//     a free job slot (waited for as a parse would), and room in the bound
//     on uploads in flight. Nothing is spent: a form then refused for its
//     contents (not an image, too large) costs the person none of their
//     budget. A job slot is not held while the photos arrive either: a slow
//     upload would keep it from everyone else's parses.
//  3. The photos, each streamed to an upload file and checked (readImagesForm).
//  4. The budget spent for the images sent (a 429 if they weigh more than is
//     left), then the engines.
//
// The upload files are removed before it returns, whatever happened. The
// rate-limit headers go to h; a spent budget or busy engines are a 429.
func (s *Server) parseReceiptForm(r *http.Request, h http.Header, userID, formSecret string) (note string, res ai.Result, err error) {
	page := formSecret != ""
	mr, err := s.openImagesForm(r, formSecret)
	if err != nil {
		return "", ai.Result{}, err
	}
	refused := func(err error) (string, ai.Result, error) {
		if page {
			// A browser sends its whole form whatever the answer, and may show
			// a broken connection instead of an answer sent before it is done;
			// the page shows the person's note again. The photos are discarded
			// unread: this costs time, neither memory nor disk.
			note, _ = discardImages(mr)
		}
		return note, ai.Result{}, err
	}
	if ok, why := s.ai.CanReadImages(); !ok {
		return refused(finance.Invalid("images", why))
	}
	if err := s.aiAvailable(r.Context(), h, userID, aiImageWeight); err != nil {
		return refused(err)
	}
	release, err := s.reserveUpload(r, h, s.cfg.MaxBodyBytes+ai.MaxImages*ai.MaxImageBytes+web.MaxNoteBytes)
	defer release()
	if err != nil {
		return refused(err)
	}
	form, err := s.readImagesForm(mr, page)
	defer form.remove()
	if err != nil {
		return form.Note, ai.Result{}, err
	}
	if err := s.spendAIBudget(h, userID, aiImageWeight*len(form.Images)); err != nil {
		return form.Note, ai.Result{}, err
	}
	in, err := s.ledger.ParseInputs(r.Context(), userID)
	if err != nil {
		return form.Note, ai.Result{}, err
	}
	ctx, cancel := s.aiContext(r.Context())
	defer cancel()
	res, err = s.ai.ParseImages(ctx, in, form.Images)
	if err != nil {
		return form.Note, ai.Result{}, s.aiError(h, err)
	}
	return form.Note, res, nil
}

func parsedMessage(res ai.Result) string {
	if len(res.Items) == 1 {
		return "Parsed 1 expense draft; nothing was saved"
	}
	return fmt.Sprintf("Parsed %d expense drafts; nothing was saved", len(res.Items))
}

// receiptUpload is what a parse-images form holds: the images, each in an
// upload file, and the optional note of the Record page's form, trimmed
// (the API ignores it).
type receiptUpload struct {
	Images []ai.Image
	Note   string
}

// remove deletes the form's upload files.
func (u receiptUpload) remove() {
	for _, img := range u.Images {
		os.Remove(img.Path)
	}
}

// openImagesForm checks the request of a parse-images form and returns its
// multipart reader, before any file is read. A web page's form (formSecret
// not empty: the session id) must come from the page and carry its form
// token in a csrf field first; it is checked here, so a forged upload is
// refused before anything else of it is read.
func (s *Server) openImagesForm(r *http.Request, formSecret string) (*multipart.Reader, error) {
	if formSecret != "" && r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return nil, web.ErrFormExpired
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		if formSecret != "" {
			return nil, web.ErrFormExpired // a page's form is always multipart with its token
		}
		return nil, httperr.BadRequest("Content-Type must be multipart/form-data with 1 to "+strconv.Itoa(ai.MaxImages)+" files named images", nil)
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, httperr.BadRequest("Request body is not a valid multipart form", nil)
	}
	if formSecret == "" {
		return mr, nil
	}
	part, err := mr.NextPart()
	if errors.Is(err, io.EOF) {
		return nil, web.ErrFormExpired
	}
	if err != nil {
		return nil, s.formReadError(err)
	}
	token, err := io.ReadAll(io.LimitReader(part, 256))
	if err != nil {
		return nil, s.formReadError(err)
	}
	if part.FormName() != "csrf" || !auth.CSRFValid(formSecret, string(token)) {
		return nil, web.ErrFormExpired
	}
	return mr, nil
}

// readImagesForm reads the parts of a parse-images form after its token: 1
// to ai.MaxImages files named "images", each streamed to an upload file up
// to one byte past ai.MaxImageBytes and refused on its own field when
// larger, sniffed as PNG, JPEG or WebP from its bytes (the part's declared
// type is not trusted), and refused when its header does not give a size in
// pixels within MaxImagePixels. The first problem is answered once the whole
// form is read. A "note" is kept (on a page's form, checked too); other
// fields are ignored. The files of the form are in the result even with an
// error: the caller removes them.
func (s *Server) readImagesForm(mr *multipart.Reader, page bool) (receiptUpload, error) {
	var form receiptUpload
	var problem error // the first problem of the images; the rest of the form is still read (the note)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return form, s.formReadError(err)
		}
		switch part.FormName() {
		case "images":
			if part.FileName() == "" && page {
				// A page's file field left empty still sends an empty part.
				if _, err := io.Copy(io.Discard, part); err != nil {
					return form, s.formReadError(err)
				}
				continue
			}
		case "note":
			b, err := io.ReadAll(io.LimitReader(part, web.MaxNoteBytes))
			if err != nil {
				return form, s.formReadError(err)
			}
			form.Note = strings.TrimSpace(string(b))
			continue
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				return form, s.formReadError(err)
			}
			continue
		}
		if problem != nil {
			continue // the next part skips what is left of this one
		}
		if len(form.Images) == ai.MaxImages {
			problem = finance.Invalid("images", fmt.Sprintf("must hold 1 to %d images", ai.MaxImages))
			continue
		}
		img, bad, err := s.readImage(part, fmt.Sprintf("images[%d]", len(form.Images)))
		switch {
		case err != nil:
			return form, err
		case bad != nil:
			problem = bad
		default:
			form.Images = append(form.Images, img)
		}
	}
	switch {
	case problem != nil:
		return form, problem
	case len(form.Images) == 0:
		return form, finance.Invalid("images", fmt.Sprintf("is required: send 1 to %d PNG, JPEG or WebP files named images", ai.MaxImages))
	case page && utf8.RuneCountInString(form.Note) > finance.MaxDescription:
		return form, finance.Invalid("note", "must be at most "+strconv.Itoa(finance.MaxDescription)+" characters")
	}
	return form, nil
}

// readImage streams one image part to an upload file and checks it as
// field. A problem the person can fix is returned as bad, with no file
// left; err is a failure to read the request or to write the file.
func (s *Server) readImage(part io.Reader, field string) (img ai.Image, bad, err error) {
	head := make([]byte, 512) // what http.DetectContentType looks at
	n, err := io.ReadFull(part, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return ai.Image{}, nil, s.formReadError(err)
	}
	head = head[:n]
	ct := http.DetectContentType(head)
	ext, ok := pictureTypes[ct]
	if !ok {
		return ai.Image{}, finance.Invalid(field, "must be a PNG, JPEG or WebP image"), nil
	}
	path, size, err := s.spool(head, part, ext, ai.MaxImageBytes)
	if err != nil {
		return ai.Image{}, nil, err
	}
	keep := false
	defer func() {
		if !keep {
			os.Remove(path)
		}
	}()
	if size > ai.MaxImageBytes {
		return ai.Image{}, finance.Invalid(field, "must be at most 5 MiB ("+strconv.Itoa(ai.MaxImageBytes)+" bytes)"), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return ai.Image{}, nil, err
	}
	width, height, err := imageSize(f, ct)
	f.Close()
	switch {
	case err != nil:
		return ai.Image{}, finance.Invalid(field, "must be a PNG, JPEG or WebP image whose size can be read"), nil
	case int64(width)*int64(height) > MaxImagePixels:
		return ai.Image{}, finance.Invalid(field, fmt.Sprintf("must be at most %d megapixels; this one is %d×%d pixels",
			MaxImagePixels/1_000_000, width, height)), nil
	}
	keep = true
	return ai.Image{Path: path, ContentType: ct}, nil, nil
}

// discardImages reads what is left of a form without keeping its files,
// and returns its note, trimmed.
func discardImages(mr *multipart.Reader) (string, error) {
	var note string
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return note, nil
		}
		if err != nil {
			return note, err
		}
		if part.FormName() == "note" {
			b, err := io.ReadAll(io.LimitReader(part, web.MaxNoteBytes))
			if err != nil {
				return note, err
			}
			note = strings.TrimSpace(string(b))
		}
	}
}

// aiAvailable refuses, before a request's body is read, what the parse
// would refuse after it: the user's AI budget without weight left, or every
// job slot still busy after the usual wait. It takes nothing: the budget is
// spent, and a slot taken, once the request is known to be valid.
func (s *Server) aiAvailable(ctx context.Context, h http.Header, userID string, weight int) error {
	d := s.aiLimiter.peekN(userID, weight)
	s.aiLimiter.setHeaders(h, d)
	if !d.allowed {
		return errRateLimited
	}
	release, err := s.ai.Acquire(ctx)
	if err != nil {
		return s.aiError(h, err)
	}
	release()
	return nil
}

// spendAIBudget takes weight from the user's AI budget, or refuses with
// 429. The budget is per user, across their keys and tokens, apart from
// the per-credential limit: a model or OCR job costs far more than a
// request. On these routes the RateLimit headers describe the AI budget.
func (s *Server) spendAIBudget(h http.Header, userID string, weight int) error {
	d := s.aiLimiter.takeN(userID, weight)
	s.aiLimiter.setHeaders(h, d)
	if !d.allowed {
		return errRateLimited
	}
	return nil
}

// aiContext bounds the engines' part of a parse request so that its answer
// reaches the client well before the server's write timeout, whatever the
// model's timeout (--ai-timeout), the wait for a job slot or the upload took:
// the engines must be done a sixth of the write timeout (10 s of 60 s)
// before it ends, counted from the request's start. A model cut short
// gives way to the built-in parser; an image whose OCR is cut short is a
// draft left empty with a warning.
func (s *Server) aiContext(ctx context.Context) (context.Context, context.CancelFunc) {
	start := requestStart(ctx)
	if start.IsZero() {
		start = time.Now() // an in-process call: the bot's, outside any HTTP request
	}
	return context.WithDeadline(ctx, start.Add(s.cfg.WriteTimeout-AIAnswerMargin(s.cfg.WriteTimeout)))
}

// AIAnswerMargin is what a parse request keeps of the write timeout for its
// answer once the engines are done or cut short: the built-in parser, the
// drafts' checks and the write of the response.
func AIAnswerMargin(writeTimeout time.Duration) time.Duration { return writeTimeout / 6 }

// MaxAITimeout is the longest model timeout (--ai-timeout) that a parse can
// wait out with a job slot waited for first, and still have its answer
// reach the client within writeTimeout: 45 s of the default 60 s.
func MaxAITimeout(writeTimeout, jobWait time.Duration) time.Duration {
	return writeTimeout - AIAnswerMargin(writeTimeout) - jobWait
}

// aiError answers the engines' refusals: every job slot busy is 429.
func (s *Server) aiError(h http.Header, err error) error {
	if errors.Is(err, ai.ErrBusy) {
		secs := int(ai.BusyRetryAfter.Seconds())
		h.Set("RateLimit-Policy", fmt.Sprintf(`"ai-jobs";q=%d;w=%d`, s.aiJobs, secs))
		h.Set("RateLimit", fmt.Sprintf(`"ai-jobs";r=0;t=%d`, secs))
		h.Set("Retry-After", strconv.Itoa(secs))
		return httperr.New(http.StatusTooManyRequests, CodeRateLimitExceeded,
			"The server is already running as many AI parsing jobs as it allows; retry after the number of seconds in the Retry-After header")
	}
	return err
}
