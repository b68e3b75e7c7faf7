package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/importfile"
	"github.com/finance-app/finance/queryparam"
)

// DefaultMaxImportBytes is the largest file POST /imports takes (10 MiB).
const DefaultMaxImportBytes = 10 << 20

// maxImportField bounds each form field beside the file (a CSV mapping is the largest).
const maxImportField = 64 << 10

// Import batches (domain.md "Importing a file"). The routes declare
// expenses:write, since nearly every import writes expenses; each write
// also needs the target's write scope, and a commit that creates income
// income:write, which the handlers check (importScopes).
func (s *Server) registerImportRoutes() {
	read, write := auth.Read(auth.ScopeExpensesWrite), auth.Write(auth.ScopeExpensesWrite)
	const base = "/api/v1/imports"
	// A preview is not wrapped for Idempotency-Key: the wrapper keeps the
	// request to compare a retry with, and a file is up to MaxImportBytes.
	// A repeated upload makes a second preview, which changes no record and
	// goes with the others after ImportPreviewDays.
	// Reading, matching and writing a large file can outlast the server's
	// WriteTimeout: the preview, commit and revert have LongWriteTimeout.
	s.add(Route{Method: http.MethodPost, Path: base, Access: write, Upload: s.cfg.MaxImportBytes, NoIdempotencyKey: true,
		LongWrite: true}, s.previewImport)
	s.add(Route{Method: http.MethodGet, Path: base, Access: read, Query: list()}, s.listImports)
	s.handle(http.MethodGet, base+"/:id", read, s.getImport)
	s.add(Route{Method: http.MethodGet, Path: base + "/:id/rows", Access: read, Query: list("action", "match")}, s.listImportRows)
	s.handle(http.MethodPut, base+"/:id/rows/:line", write, s.updateImportRow)
	s.add(Route{Method: http.MethodPost, Path: base + "/:id/commit", Access: write, LongWrite: true}, s.commitImport)
	s.add(Route{Method: http.MethodPost, Path: base + "/:id/revert", Access: write, LongWrite: true}, s.revertImport)
	s.handle(http.MethodDelete, base+"/:id", write, s.deleteImport)
}

// importScopes checks that the caller may write to a batch's target and,
// through the returned check, create (or void) each record kind of a commit
// (or revert): 403 naming the scope missing.
func importScopes(r bunrouter.Request, targetKind string) (finance.ImportAllowed, error) {
	p, _ := auth.FromContext(r.Context())
	target := auth.ScopeAccountsWrite
	if targetKind == finance.TargetCard {
		target = auth.ScopeCardsWrite
	}
	if err := p.Allow(auth.Write(target)); err != nil {
		return nil, err
	}
	return func(record string) error {
		if record == finance.RecordImportIncome {
			return p.Allow(auth.Write(auth.ScopeIncomeWrite))
		}
		return nil
	}, nil
}

// importForm is what POST /imports sends beside the file.
type importForm struct {
	fileName string
	data     []byte
	target   finance.ImportTargetRequest
	options  importfile.Options
}

// importMapping is the JSON of the mapping field: importfile.Mapping in
// the API's spelling.
type importMapping struct {
	Date        string `json:"date"`
	Amount      string `json:"amount"`
	Debit       string `json:"debit"`
	Credit      string `json:"credit"`
	Description string `json:"description"`
	Payee       string `json:"payee"`
	Category    string `json:"category"`
	Reference   string `json:"reference"`
	Type        string `json:"type"`
	PayeeIn     string `json:"payee_in"`
	Currency    string `json:"currency"`
	Negate      bool   `json:"negate"`
	Delimiter   string `json:"delimiter"`
	Header      *bool  `json:"header"`
	SkipLines   int    `json:"skip_lines"`
}

func (m importMapping) mapping() *importfile.Mapping {
	return &importfile.Mapping{Date: m.Date, Amount: m.Amount, Debit: m.Debit, Credit: m.Credit, Description: m.Description,
		Payee: m.Payee, Category: m.Category, Reference: m.Reference, Type: m.Type, PayeeIn: m.PayeeIn, Currency: m.Currency,
		Negate: m.Negate, Delimiter: m.Delimiter, Header: m.Header, SkipLines: m.SkipLines}
}

// readImportForm reads the multipart form of POST /imports: the file, at
// most MaxImportBytes, and the small fields beside it. Every problem is
// a 400 naming its field.
func (s *Server) readImportForm(r *http.Request) (importForm, error) {
	var form importForm
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return form, httperr.BadRequest("Content-Type must be multipart/form-data with the statement in a field named file", nil)
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return form, httperr.BadRequest("Request body is not a valid multipart form", nil)
	}
	var v finance.Validator
	seen := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return form, s.formReadError(err)
		}
		name := part.FormName()
		limit := int64(maxImportField)
		if name == "file" {
			limit = s.cfg.MaxImportBytes
		}
		data, err := io.ReadAll(io.LimitReader(part, limit+1))
		if err != nil {
			return form, s.formReadError(err)
		}
		if int64(len(data)) > limit {
			if name == "file" {
				v.Add("file", fmt.Sprintf("is larger than %d bytes (the server's import limit)", limit))
			} else {
				v.Add(name, fmt.Sprintf("is longer than %d bytes", limit))
			}
			if _, err := io.Copy(io.Discard, part); err != nil {
				return form, s.formReadError(err)
			}
			continue
		}
		value := string(data)
		switch name {
		case "file":
			seen, form.fileName, form.data = true, part.FileName(), data
		case "target_account_id":
			form.target.AccountID = value
		case "target_credit_card_id":
			form.target.CardID = value
		case "format":
			form.options.Format = importfile.Format(value)
		case "encoding":
			form.options.Encoding = value
		case "date_format":
			form.options.DateFormat = value
		case "decimal_separator":
			form.options.DecimalSeparator = value
		case "mapping":
			var m importMapping
			dec := json.NewDecoder(bytes.NewReader(data))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&m); err != nil {
				v.Add("mapping", "must be a JSON object of column names ("+err.Error()+")")
				continue
			}
			form.options.Mapping = m.mapping()
		default:
			v.Add(name, "is not a field of an import (file, target_account_id, target_credit_card_id, format, mapping, date_format, decimal_separator, encoding)")
		}
	}
	switch {
	case !seen && !v.Has("file"):
		v.Add("file", "is required: the statement or export to import")
	case seen && len(form.data) == 0:
		v.Add("file", "is empty")
	}
	if form.fileName == "" {
		form.fileName = "upload"
	}
	return form, v.Err()
}

func (s *Server) previewImport(w http.ResponseWriter, r bunrouter.Request) error {
	release, err := s.reserveUpload(r.Request, w.Header(), s.cfg.MaxBodyBytes+s.cfg.MaxImportBytes)
	defer release()
	if err != nil {
		return err
	}
	form, err := s.readImportForm(r.Request)
	if err != nil {
		return err
	}
	kind := finance.TargetAccount
	if form.target.AccountID == "" && form.target.CardID != "" {
		kind = finance.TargetCard
	}
	if _, err := importScopes(r, kind); err != nil {
		return err
	}
	file, _, err := importfile.ReadForLedger(form.fileName, form.data, form.options)
	if err != nil {
		return err
	}
	b, err := s.ledger.PreviewImport(r.Context(), userID(r), form.target, file)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, fmt.Sprintf("Import previewed: %d rows, %d to create, %d duplicates, %d with errors; nothing was saved to the ledger",
		b.Summary.Rows, b.Summary.New, b.Summary.Duplicates, b.Summary.Errors), b)
	return nil
}

func (s *Server) listImports(w http.ResponseWriter, r bunrouter.Request) error {
	p, err := listQuery(r.Request, finance.ImportList, nil)
	if err != nil {
		return err
	}
	page, err := s.ledger.ListImports(r.Context(), userID(r), p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Imports retrieved", page)
	return nil
}

func (s *Server) getImport(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "import")
	if err != nil {
		return err
	}
	b, err := s.ledger.GetImport(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Import retrieved", b)
	return nil
}

func (s *Server) listImportRows(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := ownedPathID(r, "id", "import", s.ledger.GetImport)
	if err != nil {
		return err
	}
	var f finance.ImportRowFilter
	p, err := listQuery(r.Request, finance.ImportRowList, func(v *finance.Validator, q url.Values) {
		f.Action = queryparam.Enum(v, q, "action", finance.ImportActions...)
		f.Match = queryparam.Enum(v, q, "match", finance.ImportMatches...)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListImportRows(r.Context(), userID(r), id, f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Import rows retrieved", page)
	return nil
}

// writableImport loads the path's batch and checks the caller's scopes for its target.
func (s *Server) writableImport(r bunrouter.Request) (finance.ImportBatch, finance.ImportAllowed, error) {
	id, err := pathID(r, "id", "import")
	if err != nil {
		return finance.ImportBatch{}, nil, err
	}
	b, err := s.ledger.GetImport(r.Context(), userID(r), id)
	if err != nil {
		return finance.ImportBatch{}, nil, err
	}
	allowed, err := importScopes(r, b.Target.Kind)
	return b, allowed, err
}

func (s *Server) updateImportRow(w http.ResponseWriter, r bunrouter.Request) error {
	b, _, err := s.writableImport(r)
	if err != nil {
		return err
	}
	line, err := strconv.Atoi(r.Param("line"))
	if err != nil || line < 1 {
		return finance.NotFound("import row")
	}
	var req finance.ImportRowRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	row, err := s.ledger.UpdateImportRow(r.Context(), userID(r), b.ID, line, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Import row updated", row)
	return nil
}

func (s *Server) commitImport(w http.ResponseWriter, r bunrouter.Request) error {
	b, allowed, err := s.writableImport(r)
	if err != nil {
		return err
	}
	if b, err = s.ledger.CommitImport(r.Context(), userID(r), b.ID, allowed); err != nil {
		return err
	}
	writeData(w, http.StatusOK, fmt.Sprintf("Import committed: %d records created", b.Summary.Created), b)
	return nil
}

func (s *Server) revertImport(w http.ResponseWriter, r bunrouter.Request) error {
	b, allowed, err := s.writableImport(r)
	if err != nil {
		return err
	}
	if b, err = s.ledger.RevertImport(r.Context(), userID(r), b.ID, allowed); err != nil {
		return err
	}
	writeData(w, http.StatusOK, fmt.Sprintf("Import reverted: %d records voided", b.Summary.Created), b)
	return nil
}

func (s *Server) deleteImport(w http.ResponseWriter, r bunrouter.Request) error {
	b, _, err := s.writableImport(r)
	if err != nil {
		return err
	}
	if err := s.ledger.DeleteImport(r.Context(), userID(r), b.ID); err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Import preview deleted", b)
	return nil
}
