package web

// The Record page's "Read a receipt" form: receipt photos read by the same
// engines, limits and AI budget as POST /expenses/ai/parse-images, their
// drafts shown on the bulk form for review, as the "Type it" box does;
// nothing is saved until "Save all".

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
)

// RecordReceiptPath is where the "Read a receipt" form posts.
const RecordReceiptPath = "/record/receipt"

// MaxNoteBytes bounds the note read from the receipt form: a description's
// 255 characters of up to 4 bytes each, and one byte more to tell it is
// longer.
const MaxNoteBytes = finance.MaxDescription*4 + 1

func (s *Site) registerWebAppReceiptRoutes() {
	// The body holds up to the API's images, and a note.
	s.add(Route{Method: http.MethodPost, Path: RecordReceiptPath, Upload: ai.MaxImages*ai.MaxImageBytes + MaxNoteBytes,
		Handler: s.receiptSubmit})
}

// receiptSubmit reads the form (its token before any file), drafts one
// expense per photo as POST /expenses/ai/parse-images does, and shows the
// drafts for review. The note fills the description of a draft the reader
// found no name for. A refusal is the Record page again, with why beside
// the file field.
func (s *Site) receiptSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	note, res, err := s.host.ParseReceipt(r.Request, w.Header(), u.ID, sid)
	if err != nil {
		return s.receiptRefused(w, r.Request, u, sid, note, err)
	}
	d, err := s.bulkView(r.Request, u)
	if err != nil {
		return err
	}
	d.Receipt, d.Note = true, note
	d.Parsed, d.Engine = true, res.Engine
	for i, draft := range res.Items {
		row := draftRow(i, draft)
		if row.Form.Description == "" {
			row.Form.Description = note
		}
		d.Rows = append(d.Rows, row)
	}
	d.addWarnings(res.Warnings)
	return s.renderBulk(w, r.Request, u, sid, http.StatusOK, "", d)
}

// receiptRefused shows the Record page again with the note and why the
// photos were not read: a problem of the photos or the note beside its
// field, or when to try again.
func (s *Site) receiptRefused(w http.ResponseWriter, r *http.Request, u finance.User, sid, note string, err error) error {
	status, _ := httperr.Response(err, "")
	var ve *finance.ValidationError
	if !errors.As(err, &ve) && status != http.StatusTooManyRequests {
		return err
	}
	rd, verr := s.recordView(r, u, kindExpense, recordForm{})
	if verr != nil {
		return verr
	}
	rd.Note = note
	p := pageView{Title: "Record", Nav: "record", User: &u, CSRF: auth.CSRFToken(sid), status: status}
	switch {
	case ve == nil:
		p.Error = "Not read. " + aiBusyMessage(w.Header().Get("Retry-After"))
	case !rd.ReadsImages: // a page from before the engine went away
		p.Error = "Not read. " + receiptsOff
	default:
		p.Error = "Not read. Check the photo below."
		for name, problem := range ve.Fields {
			if name == "note" {
				rd.Fields["note"] = "Note " + problem
				p.Error = "Not read. Check the note below."
			} else {
				rd.Fields["images"] = photoProblem(name, problem)
			}
		}
	}
	p.Data = rd
	return s.render(w, r, "record", p)
}

// receiptsOff is what the Record page says of a receipt sent to a server
// that reads none, in the person's words: the admin's instructions (install
// an OCR engine, configure a vision model) are in the docs and the log.
const receiptsOff = "Reading receipts is not set up on this server."

// photoProblem words a problem of the photos (name "images" or
// "images[i]") for the file field.
func photoProblem(name, problem string) string {
	switch {
	case strings.HasPrefix(problem, "is required"):
		return "Choose a photo of a receipt: PNG, JPEG or WebP, up to " + strconv.Itoa(ai.MaxImages) + " of at most 5 MiB each."
	}
	if i, _, ok := rowProblem(name); ok {
		return "Photo " + strconv.Itoa(i+1) + " " + problem + "."
	}
	return "Photos " + problem + "."
}
