package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server/auth"
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
		Upload: MaxParseImages * MaxParseImageBytes}, s.parseImages)
}

// Limits of POST /expenses/ai/parse-images.
const (
	MaxParseImages     = 5
	MaxParseImageBytes = 5 << 20
)

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
	res, err := s.ai.ParseText(ctx, in, text.Value)
	if err != nil {
		return ai.Result{}, s.aiError(h, err)
	}
	return res, nil
}

func (s *Server) parseImages(w http.ResponseWriter, r bunrouter.Request) error {
	if ok, why := s.ai.CanReadImages(); !ok {
		return finance.Invalid("images", why) // refused before the files are read
	}
	form, err := s.readImagesForm(r.Request, "")
	if err != nil {
		return err
	}
	res, err := s.parseReceiptImages(r.Context(), w.Header(), userID(r), form.Images)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, parsedMessage(res), res)
	return nil
}

// parseReceiptImages is POST /expenses/ai/parse-images once its files are
// read, and the Record page's "Read a receipt" form: an engine that reads
// images, the user's AI budget, then one draft per image, each checked as
// a create would check it. The rate-limit headers go to h; a spent budget
// or busy engines are a 429.
func (s *Server) parseReceiptImages(ctx context.Context, h http.Header, userID string, images []ai.Image) (ai.Result, error) {
	if ok, why := s.ai.CanReadImages(); !ok {
		return ai.Result{}, finance.Invalid("images", why)
	}
	if err := s.spendAIBudget(h, userID, aiImageWeight*len(images)); err != nil {
		return ai.Result{}, err
	}
	in, err := s.ledger.ParseInputs(ctx, userID)
	if err != nil {
		return ai.Result{}, err
	}
	res, err := s.ai.ParseImages(ctx, in, images)
	if err != nil {
		return ai.Result{}, s.aiError(h, err)
	}
	return res, nil
}

func parsedMessage(res ai.Result) string {
	if len(res.Items) == 1 {
		return "Parsed 1 expense draft; nothing was saved"
	}
	return fmt.Sprintf("Parsed %d expense drafts; nothing was saved", len(res.Items))
}

// receiptUpload is what a parse-images form holds: the images, and the
// optional note of the Record page's form (the API ignores it).
type receiptUpload struct {
	Images []ai.Image
	Note   string
}

// maxNoteBytes bounds the note read from a form: a description's 255
// characters of up to 4 bytes each, and one byte more to tell it is longer.
const maxNoteBytes = finance.MaxDescription*4 + 1

// readImagesForm reads the multipart images of parse-images part by part:
// 1 to MaxParseImages files named "images", each read up to one byte past
// MaxParseImageBytes and refused on its own field when larger, and each
// sniffed as PNG, JPEG or WebP from its bytes (the part's declared type is
// not trusted); the first problem is answered once the whole form is read.
// A "note" is kept; other fields are ignored.
//
// A web page's form (formSecret not empty: the session id) must carry its
// form token in a csrf field first; it is checked when it arrives, so a
// forged upload is refused before any file is read.
func (s *Server) readImagesForm(r *http.Request, formSecret string) (receiptUpload, error) {
	var form receiptUpload
	if formSecret != "" && r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return form, errFormExpired
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		if formSecret != "" {
			return form, errFormExpired // a page's form is always multipart with its token
		}
		return form, badRequest("Content-Type must be multipart/form-data with 1 to "+strconv.Itoa(MaxParseImages)+" files named images", nil)
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return form, badRequest("Request body is not a valid multipart form", nil)
	}
	formChecked := formSecret == ""
	var problem error // the first problem of the images; the rest of the form is still read (the note)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return form, s.formReadError(err)
		}
		if !formChecked {
			token, err := io.ReadAll(io.LimitReader(part, 256))
			if err != nil {
				return form, s.formReadError(err)
			}
			if part.FormName() != "csrf" || !auth.CSRFValid(formSecret, string(token)) {
				return form, errFormExpired
			}
			formChecked = true
			continue
		}
		switch part.FormName() {
		case "images":
			if part.FileName() == "" && formSecret != "" {
				// A page's file field left empty still sends an empty part.
				if _, err := io.Copy(io.Discard, part); err != nil {
					return form, s.formReadError(err)
				}
				continue
			}
		case "note":
			b, err := io.ReadAll(io.LimitReader(part, maxNoteBytes))
			if err != nil {
				return form, s.formReadError(err)
			}
			form.Note = string(b)
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
		if len(form.Images) == MaxParseImages {
			problem = finance.Invalid("images", fmt.Sprintf("must hold 1 to %d images", MaxParseImages))
			continue
		}
		field := fmt.Sprintf("images[%d]", len(form.Images))
		data, err := io.ReadAll(io.LimitReader(part, MaxParseImageBytes+1))
		if err != nil {
			return form, s.formReadError(err)
		}
		if len(data) > MaxParseImageBytes {
			problem = finance.Invalid(field, "must be at most 5 MiB ("+strconv.Itoa(MaxParseImageBytes)+" bytes)")
			continue
		}
		ct := http.DetectContentType(data)
		if _, ok := pictureTypes[ct]; !ok {
			problem = finance.Invalid(field, "must be a PNG, JPEG or WebP image")
			continue
		}
		form.Images = append(form.Images, ai.Image{Data: data, ContentType: ct})
	}
	if !formChecked {
		return form, errFormExpired
	}
	if problem != nil {
		return form, problem
	}
	if len(form.Images) == 0 {
		return form, finance.Invalid("images", fmt.Sprintf("is required: send 1 to %d PNG, JPEG or WebP files named images", MaxParseImages))
	}
	return form, nil
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

// aiError answers the engines' refusals: every job slot busy is 429.
func (s *Server) aiError(h http.Header, err error) error {
	if errors.Is(err, ai.ErrBusy) {
		secs := int(ai.BusyRetryAfter.Seconds())
		h.Set("RateLimit-Policy", fmt.Sprintf(`"ai-jobs";q=%d;w=%d`, s.aiJobs, secs))
		h.Set("RateLimit", fmt.Sprintf(`"ai-jobs";r=0;t=%d`, secs))
		h.Set("Retry-After", strconv.Itoa(secs))
		return &httpError{status: http.StatusTooManyRequests, code: CodeRateLimitExceeded,
			message: "The server is already running as many AI parsing jobs as it allows; retry after the number of seconds in the Retry-After header"}
	}
	return err
}
