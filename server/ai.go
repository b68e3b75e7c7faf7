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
		return finance.Invalid("images", why)
	}
	images, err := s.readImagesForm(r.Request)
	if err != nil {
		return err
	}
	if err := s.spendAIBudget(w.Header(), userID(r), aiImageWeight*len(images)); err != nil {
		return err
	}
	in, err := s.ledger.ParseInputs(r.Context(), userID(r))
	if err != nil {
		return err
	}
	res, err := s.ai.ParseImages(r.Context(), in, images)
	if err != nil {
		return s.aiError(w.Header(), err)
	}
	writeData(w, http.StatusOK, parsedMessage(res), res)
	return nil
}

func parsedMessage(res ai.Result) string {
	if len(res.Items) == 1 {
		return "Parsed 1 expense draft; nothing was saved"
	}
	return fmt.Sprintf("Parsed %d expense drafts; nothing was saved", len(res.Items))
}

// readImagesForm reads the multipart images of parse-images part by part:
// 1 to MaxParseImages files named "images", each read up to one byte past
// MaxParseImageBytes and refused on its own field when larger, and each
// sniffed as PNG, JPEG or WebP from its bytes (the part's declared type is
// not trusted). Other fields are ignored.
func (s *Server) readImagesForm(r *http.Request) ([]ai.Image, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return nil, badRequest("Content-Type must be multipart/form-data with 1 to "+strconv.Itoa(MaxParseImages)+" files named images", nil)
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, badRequest("Request body is not a valid multipart form", nil)
	}
	var images []ai.Image
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, s.formReadError(err)
		}
		if part.FormName() != "images" {
			if _, err := io.Copy(io.Discard, part); err != nil {
				return nil, s.formReadError(err)
			}
			continue
		}
		if len(images) == MaxParseImages {
			return nil, finance.Invalid("images", fmt.Sprintf("must hold 1 to %d images", MaxParseImages))
		}
		field := fmt.Sprintf("images[%d]", len(images))
		data, err := io.ReadAll(io.LimitReader(part, MaxParseImageBytes+1))
		if err != nil {
			return nil, s.formReadError(err)
		}
		if len(data) > MaxParseImageBytes {
			return nil, finance.Invalid(field, "must be at most 5 MiB ("+strconv.Itoa(MaxParseImageBytes)+" bytes)")
		}
		ct := http.DetectContentType(data)
		if _, ok := pictureTypes[ct]; !ok {
			return nil, finance.Invalid(field, "must be a PNG, JPEG or WebP image")
		}
		images = append(images, ai.Image{Data: data, ContentType: ct})
	}
	if len(images) == 0 {
		return nil, finance.Invalid("images", fmt.Sprintf("is required: send 1 to %d PNG, JPEG or WebP files named images", MaxParseImages))
	}
	return images, nil
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
