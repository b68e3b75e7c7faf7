package web

// The Import page: a bank's statement or another app's export uploaded into
// a preview (an import batch), a CSV's columns mapped when they were not
// recognised or the person wants to choose them, the rows reviewed and
// committed to the ledger, and a committed import undone. The file is read
// by importfile.ReadForLedger and the batch kept by the same service calls
// as the REST routes under /api/v1/imports.
//
// Between the upload and the mapping step the file travels in the mapping
// form itself (base64, in a hidden field), not on the server: nothing is
// kept for a file that is never previewed, and what comes back is read as
// an upload again, with the same limits and checks as the first time. A
// file is the person's own upload, so carrying it adds no trust.

import (
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/importfile"
)

// Paths of the import pages.
const (
	ImportPath  = "/import"
	ImportsPath = "/imports"
)

// importFieldBytes bounds each field of the Import form but the file.
const importFieldBytes = 4 << 10

// keptFileBytes is the size of a file of n bytes kept in the mapping form.
func keptFileBytes(n int64) int64 { return int64(base64.StdEncoding.EncodedLen(int(n))) }

func (s *Site) registerWebAppImportRoutes() {
	s.page(http.MethodGet, ImportPath, s.importPage)
	// The form carries the file, or on the mapping step the same file kept
	// in base64, which is the larger of the two.
	// Reading a large file, and committing or undoing its rows, can take
	// longer than the server's write timeout allows (LongWrite).
	s.add(Route{Method: http.MethodPost, Path: ImportPath, Upload: keptFileBytes(s.cfg.MaxImportBytes), Handler: s.importUpload,
		LongWrite: true})
	s.page(http.MethodGet, ImportsPath, s.importsPage)
	s.page(http.MethodGet, ImportsPath+"/:id", s.importBatchPage)
	s.page(http.MethodPost, ImportsPath+"/:id/rows/:line", s.importRowUpdate)
	s.add(Route{Method: http.MethodPost, Path: ImportsPath + "/:id/commit", Handler: s.importCommit, LongWrite: true})
	s.page(http.MethodPost, ImportsPath+"/:id/discard", s.importDiscard)
	s.page(http.MethodGet, ImportsPath+"/:id/undo", s.importUndoConfirm)
	s.add(Route{Method: http.MethodPost, Path: ImportsPath + "/:id/undo", Handler: s.importUndo, LongWrite: true})
}

// --- the upload form and the mapping step ------------------------------------------

// importForm is what the Import form holds beside the file.
type importForm struct {
	Target                                   string // "account:<id>" or "card:<id>"
	Format, DateFormat, Decimal, Encoding    string
	MapColumns                               bool // the person asked to choose the columns
	Date, Amount, Debit, Credit, Description string
	Payee, Category                          string
	Negate                                   bool     // positive amounts are money out
	Columns                                  []string // the file's columns, sent back by the mapping step
}

// mapped reports whether the form names columns (the mapping step was sent).
func (f importForm) mapped() bool {
	return f.Date != "" || f.Amount != "" || f.Debit != "" || f.Credit != ""
}

// target is the form's target as the service takes it.
func (f importForm) target() finance.ImportTargetRequest {
	kind, id, _ := strings.Cut(f.Target, ":")
	switch kind {
	case "account":
		return finance.ImportTargetRequest{AccountID: id}
	case "card":
		return finance.ImportTargetRequest{CardID: id}
	}
	return finance.ImportTargetRequest{}
}

// options are the reader's options of the form.
func (f importForm) options() importfile.Options {
	opt := importfile.Options{Format: importfile.Format(f.Format), DateFormat: f.DateFormat, DecimalSeparator: f.Decimal, Encoding: f.Encoding}
	if f.mapped() {
		opt.Mapping = &importfile.Mapping{Date: f.Date, Amount: f.Amount, Debit: f.Debit, Credit: f.Credit,
			Description: f.Description, Payee: f.Payee, Category: f.Category, Negate: f.Negate}
		if f.Amount != "" { // one signed column: the pair is not used
			opt.Mapping.Debit, opt.Mapping.Credit = "", ""
		}
	}
	return opt
}

// withMapping is the form with the columns of a mapping preselected.
func (f importForm) withMapping(m *importfile.Mapping) importForm {
	if m == nil || f.mapped() {
		return f
	}
	f.Date, f.Amount, f.Debit, f.Credit, f.Description, f.Payee, f.Category, f.Negate =
		m.Date, m.Amount, m.Debit, m.Credit, m.Description, m.Payee, m.Category, m.Negate
	return f
}

// importColumnView is one column picker of the mapping step: its field,
// its label, the file's columns and the one chosen.
type importColumnView struct {
	Name, Label, Chosen string
	Columns             []choice
}

// importColumn builds a column picker for the template: a file without a
// header names its columns by number, shown as "Column 3".
func importColumn(name, label, chosen string, columns []string) importColumnView {
	v := importColumnView{Name: name, Label: label, Chosen: chosen}
	for _, c := range columns {
		text := c
		if _, err := strconv.Atoi(c); err == nil {
			text = "Column " + c
		}
		v.Columns = append(v.Columns, choice{Value: c, Label: text})
	}
	return v
}

// importTarget is one choice of the target picker.
type importTarget struct{ Value, Label string }

type importData struct {
	Form      importForm
	Fields    map[string]string
	Targets   []importTarget
	Formats   []choice
	Dates     []string
	Encodings []string
	MaxSize   string
	// The mapping step: the file's columns, and the file kept for the next read.
	Columns      []string
	KeptFile     string
	FileName     string
	Unrecognised bool // the reader recognised none of the columns
}

// mapping reports whether the page is the mapping step.
func (d importData) Mapping() bool { return d.KeptFile != "" }

func (s *Site) importView(r *http.Request, u finance.User, form importForm) (importData, error) {
	accounts, err := s.ledger.AccountOptions(r.Context(), u.ID)
	if err != nil {
		return importData{}, err
	}
	cards, err := s.ledger.CardOptions(r.Context(), u.ID)
	if err != nil {
		return importData{}, err
	}
	d := importData{Form: form, Fields: map[string]string{}, Dates: importfile.DateFormats(),
		Encodings: []string{"utf-8", "windows-1252", "iso-8859-1", "utf-16"},
		Formats:   choices(importfile.CSV, importfile.OFX, importfile.QIF, importfile.CAMT, importfile.MT940),
		MaxSize:   strconv.FormatInt(s.cfg.MaxImportBytes>>20, 10) + " MiB"}
	for _, a := range accounts {
		d.Targets = append(d.Targets, importTarget{Value: "account:" + a.ID, Label: a.Name + " (account)"})
	}
	for _, c := range cards {
		name := c.Name
		if c.LastFour != nil {
			name += " ••" + *c.LastFour
		}
		d.Targets = append(d.Targets, importTarget{Value: "card:" + c.ID, Label: name + " (card)"})
	}
	return d, nil
}

// importPage is the upload form; ?account= or ?card= preselects the target
// (the "Import a statement" link of an account's or card's page).
func (s *Site) importPage(w http.ResponseWriter, r bunrouter.Request) error {
	q := r.URL.Query()
	form := importForm{MapColumns: q.Get("map") == "1"}
	if id := q.Get("account"); id != "" {
		form.Target = "account:" + id
	} else if id := q.Get("card"); id != "" {
		form.Target = "card:" + id
	}
	return showPage(s, w, r, "import", "Import", "settings", func(r *http.Request, u finance.User) (importData, error) {
		return s.importView(r, u, form)
	})
}

// importUpload reads the form (its token before the file), reads the file
// and previews it as POST /imports does, then opens the batch. A CSV whose
// columns were not recognised, or whose person asked to choose them, goes
// to the mapping step instead; any other problem is the form again with
// the problem beside its field. Nothing is saved but the preview.
func (s *Site) importUpload(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	release, err := s.host.ReserveUpload(r.Request, w.Header(), keptFileBytes(s.cfg.MaxImportBytes))
	defer release()
	if err != nil {
		return err
	}
	form, name, data, err := s.readImportUpload(r.Request, sid)
	if err != nil {
		return s.importRefused(w, r.Request, u, sid, form, err, nil)
	}
	file, res, err := importfile.ReadForLedger(name, data, form.options())
	columns := form.Columns
	if res != nil && len(res.Columns) > 0 {
		columns = res.Columns
	}
	switch {
	case err != nil && res != nil && len(res.Columns) > 0 && !form.mapped():
		// Only a CSV's mapping problem comes with its columns: a file whose
		// columns were not recognised is the step itself, not a refusal.
		return s.importMapStep(w, r.Request, u, sid, form, name, data, columns, nil, true)
	case err == nil && form.MapColumns && !form.mapped() && len(res.Columns) > 0:
		// Asked for, on a CSV with a header (a file without one was mapped
		// by its cells, which its preview shows).
		return s.importMapStep(w, r.Request, u, sid, form.withMapping(res.Mapping), name, data, columns, nil, false)
	case err == nil:
		var b finance.ImportBatch
		if b, err = s.ledger.PreviewImport(r.Context(), u.ID, form.target(), file); err == nil {
			return Redirect(w, r.Request, ImportsPath+"/"+b.ID+"?notice=import-previewed")
		}
	}
	if form.mapped() {
		// Refused on the mapping step (the columns, the target, a date
		// format): the step again, so the file is not lost.
		return s.importMapStep(w, r.Request, u, sid, form, name, data, columns, err, false)
	}
	return s.importRefused(w, r.Request, u, sid, form, err, nil)
}

// importMapStep shows the columns of the file to map, the file kept in the
// form; refused, when not nil, is why the mapping sent did not read, and
// unrecognised says the columns were not recognised by themselves.
func (s *Site) importMapStep(w http.ResponseWriter, r *http.Request, u finance.User, sid string, form importForm,
	name string, data []byte, columns []string, refused error, unrecognised bool) error {
	return s.importRefused(w, r, u, sid, form, refused, func(p *pageView, d *importData) {
		d.Columns, d.FileName, d.Unrecognised = columns, name, unrecognised
		d.KeptFile = base64.StdEncoding.EncodeToString(data)
		p.Title = "Map the columns"
		if refused != nil {
			p.Error = "Not read with these columns. Check them below."
		}
	})
}

// importRefused shows the Import form again with what was sent, the
// problems beside their fields, and the mapping step when step sets it.
func (s *Site) importRefused(w http.ResponseWriter, r *http.Request, u finance.User, sid string, form importForm, err error,
	step func(*pageView, *importData)) error {
	p := frame(&u, sid, "Import", "settings")
	var fields map[string]string
	if err != nil {
		var ok bool
		if fields, ok = refusal(&p, err, "Not imported."); !ok {
			return err
		}
	}
	d, verr := s.importView(r, u, form)
	if verr != nil {
		return verr
	}
	for k, v := range fields {
		if k == "target_account_id" || k == "target_credit_card_id" || k == "target" {
			k = "target"
		}
		d.Fields[k] = v
	}
	if step != nil {
		step(&p, &d)
	}
	p.Data = d
	return s.render(w, r, "import", p)
}

// readImportUpload reads the multipart Import form: its token first (so a
// forged form is refused before a file is read), then the file or the file
// kept by the mapping step, each at most MaxImportBytes, and the small
// fields. A problem of the file is returned as a ValidationError on "file"
// with the form as read so far.
func (s *Site) readImportUpload(r *http.Request, sid string) (importForm, string, []byte, error) {
	var form importForm
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return form, "", nil, ErrFormExpired
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "multipart/form-data" {
		return form, "", nil, ErrFormExpired
	}
	mr, err := r.MultipartReader()
	if err != nil {
		return form, "", nil, httperr.FormRead(err)
	}
	// The small fields, by their names on the page.
	text := map[string]*string{"target": &form.Target, "format": &form.Format, "date_format": &form.DateFormat,
		"decimal_separator": &form.Decimal, "encoding": &form.Encoding, "col_date": &form.Date, "col_amount": &form.Amount,
		"col_debit": &form.Debit, "col_credit": &form.Credit, "col_description": &form.Description, "col_payee": &form.Payee,
		"col_category": &form.Category}
	flags := map[string]*bool{"map": &form.MapColumns, "negate": &form.Negate}
	var name string
	var data []byte
	var problem error
	checked := false
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return form, "", nil, httperr.FormRead(err)
		}
		field := part.FormName()
		limit := int64(importFieldBytes)
		switch {
		case !checked:
			limit = 256 // the token: a forged form's file is never read
		case field == "file":
			limit = s.cfg.MaxImportBytes
		case field == "kept_file":
			limit = keptFileBytes(s.cfg.MaxImportBytes)
		}
		b, err := io.ReadAll(io.LimitReader(part, limit+1))
		if err != nil {
			return form, "", nil, httperr.FormRead(err)
		}
		if !checked {
			if field != "csrf" || !auth.CSRFValid(sid, string(b)) {
				return form, "", nil, ErrFormExpired
			}
			checked = true
			continue
		}
		if int64(len(b)) > limit {
			problem = finance.Invalid("file", "is larger than "+strconv.FormatInt(s.cfg.MaxImportBytes, 10)+" bytes, this server's import limit; split it into smaller files")
			continue
		}
		v := strings.TrimSpace(string(b))
		switch field {
		case "file":
			if part.FileName() != "" && len(b) > 0 {
				name, data = part.FileName(), b
			}
		case "kept_file":
			if data == nil && v != "" {
				if data, err = base64.StdEncoding.DecodeString(v); err != nil {
					problem = finance.Invalid("file", "was not kept whole between the steps; choose it again")
				}
			}
		case "file_name":
			if name == "" {
				name = v
			}
		case "column":
			form.Columns = append(form.Columns, v)
		default:
			if p, ok := text[field]; ok {
				*p = v
			} else if p, ok := flags[field]; ok {
				*p = v != ""
			}
		}
	}
	if !checked {
		return form, "", nil, ErrFormExpired
	}
	if problem == nil && data == nil {
		problem = finance.Invalid("file", "is required: choose the statement or export to import")
	}
	if name == "" {
		name = "upload"
	}
	return form, name, data, problem
}

// --- the batch --------------------------------------------------------------------

// importShows are the batch page's row filters, each as the rows filter
// the service takes.
var importShows = []struct {
	Value, Label string
	Filter       finance.ImportRowFilter
}{
	{"all", "All rows", finance.ImportRowFilter{}},
	{"create", "To create", finance.ImportRowFilter{Action: finance.ActionCreate}},
	{"duplicates", "Duplicates", finance.ImportRowFilter{Matched: true}},
	{"errors", "Errors", finance.ImportRowFilter{Failed: true}},
}

// importRowView is one row of the batch page.
type importRowView struct {
	finance.ImportRow
	Categories  []finance.CategoryOption // the choices of the row's category, none when its record has no category
	Records     []choice                 // what the row may become
	MatchLink   string                   // where the matched record is listed
	CreatedAt   string                   // where the record a commit created is listed
	CategoryWhy string                   // why the row has its category
}

// CategoryName is the row's category, "" for none.
func (v importRowView) CategoryName() string { return deref(v.Category) }

// categoryWhy words why a row has its category; a rule's and history's
// reasons are worded by categoryWhyOf.
var categoryWhy = map[string]string{finance.ReasonSet: "your choice", finance.ReasonFile: "from the file",
	finance.ReasonDefault: "the default"}

// categoryWhyOf says why row has its category, "" when it has none: a rule
// by its position and conditions (rules holds the rules by id; one deleted
// since the preview is said to be), history by how many earlier records.
func categoryWhyOf(row finance.ImportRow, rules map[string]finance.CategoryRule) string {
	switch reason := deref(row.CategoryReason); {
	case reason == finance.ReasonRule && row.CategoryRule != nil:
		why := "rule " + strconv.Itoa(row.CategoryRule.Position)
		if r, ok := rules[row.CategoryRule.ID]; ok {
			return why + ": " + r.Conditions()
		}
		return why + " (deleted since)"
	case reason == finance.ReasonHistory && row.CategoryUses == 1:
		return "like 1 earlier row"
	case reason == finance.ReasonHistory:
		return "like " + strconv.Itoa(row.CategoryUses) + " earlier rows"
	default:
		return categoryWhy[reason]
	}
}

// RuleLink is the Category rules page with a new rule filled in from the
// row (its description and category), or "" for a row a rule already
// categorised or one without a category.
func (v importRowView) RuleLink() string {
	if v.Category == nil || deref(v.CategoryReason) == finance.ReasonRule {
		return ""
	}
	q := url.Values{"description": {v.Description},
		"category": {string(finance.ImportCategoryKind(v.Record)) + ":" + *v.Category}}
	return CategoryRulesPath + "?" + q.Encode() + "#new"
}

type importBatchData struct {
	Show   display
	Batch  finance.ImportBatch
	Target string // the target's page
	Filter string // the filter shown: all, create, duplicates, errors
	Shows  []choice
	Rows   []importRowView
	Pager  pager
	Back   string // this page with its filter and page, where a row change returns
	Fields map[string]string
	Line   int // the row a refused change was made on
}

func (s *Site) importBatchPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showFilteredRecord(s, w, r, "importbatch", "settings", s.importBatchView, func(d importBatchData) string {
		return "Import of " + d.Batch.FileName
	})
}

// importBatchView is the batch the route's id names with a page of its rows
// through the query's filter (?show=) and page.
func (s *Site) importBatchView(r *http.Request, u finance.User, id string, q url.Values) (importBatchData, error) {
	if !finance.ValidID(id) {
		return importBatchData{}, finance.NotFound("import")
	}
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return importBatchData{}, err
	}
	b, err := s.ledger.GetImport(r.Context(), u.ID, id)
	if err != nil {
		return importBatchData{}, err
	}
	d := importBatchData{Show: show, Batch: b, Filter: "all", Fields: map[string]string{}}
	d.Target = AccountsPath + "/" + b.Target.ID
	if b.Target.Kind == finance.TargetCard {
		d.Target = CardsPath + "/" + b.Target.ID
	}
	filter := importShows[0].Filter
	for _, f := range importShows {
		d.Shows = append(d.Shows, choice{Value: f.Value, Label: f.Label})
		if q.Get("show") == f.Value {
			d.Filter, filter = f.Value, f.Filter
		}
	}
	page, _ := strconv.Atoi(q.Get("page"))
	p := finance.ListParams{Page: max(page, 1), Limit: webPageSize, SortBy: "line"}
	list, err := s.ledger.ListImportRows(r.Context(), u.ID, id, filter, p)
	if err != nil {
		return d, err
	}
	fq := url.Values{}
	if d.Filter != "all" {
		fq.Set("show", d.Filter)
	}
	d.Pager = newPager(ImportsPath+"/"+id, fq, list.Pagination)
	d.Back = d.Pager.Self
	cats := map[finance.CategoryKind][]finance.CategoryOption{}
	for _, kind := range []finance.CategoryKind{finance.KindExpense, finance.KindIncome} {
		if cats[kind], err = s.ledger.CategoryOptions(r.Context(), u.ID, kind); err != nil {
			return d, err
		}
	}
	rules := map[string]finance.CategoryRule{}
	all, err := s.ledger.AllCategoryRules(r.Context(), u.ID)
	if err != nil {
		return d, err
	}
	for _, rule := range all {
		rules[rule.ID] = rule
	}
	for _, row := range list.Items {
		v := importRowView{ImportRow: row, Records: choices(finance.ImportRecordChoices(b.Target.Kind, row.Direction)...),
			CategoryWhy: categoryWhyOf(row, rules)}
		v.Categories = cats[finance.ImportCategoryKind(row.Record)]
		if row.Match != nil && row.Date != nil {
			v.MatchLink = ledgerLink(b.Target, *row.Date, 3)
		}
		if row.CreatedID != nil && row.Date != nil {
			v.CreatedAt = ledgerLink(b.Target, *row.Date, 0)
		}
		d.Rows = append(d.Rows, v)
	}
	return d, nil
}

// ledgerLink lists the target's lines (an account's) or rows (a card's)
// within days of date: where a row's match or created record is, since a
// probable match may be a few days off.
func ledgerLink(t finance.ImportTarget, date finance.Date, days int) string {
	q := url.Values{"dateFrom": {date.AddDays(-days).String()}, "dateTo": {date.AddDays(days).String()}}
	if t.Kind == finance.TargetCard {
		q.Set("cardId", t.ID)
		return CardTransactionsPath + "?" + q.Encode()
	}
	q.Set("accountId", t.ID)
	return AccountLinesPath + "?" + q.Encode()
}

// importBack is the batch page a form came from (its back field), or the
// batch's first page.
func importBack(r bunrouter.Request, id string) string {
	path := ImportsPath + "/" + id
	back := SafeNext(r.PostForm.Get("back"))
	if back != path && !strings.HasPrefix(back, path+"?") {
		return path
	}
	return back
}

// importRowUpdate changes one row of a preview (its action, record or
// category) as PUT /imports/{id}/rows/{line} does, then returns to the
// page of rows it was made on. A refusal is shown on that page, beside
// the row.
func (s *Site) importRowUpdate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "import")
	if !ok {
		return err
	}
	line, err := strconv.Atoi(r.Param("line"))
	if err != nil || line < 1 {
		return finance.NotFound("import row")
	}
	f := r.PostForm
	var req finance.ImportRowRequest
	formRequest(&req, map[string]string{"action": f.Get("action"), "record": f.Get("record"), "category": f.Get("category")})
	back := importBack(r, id)
	if _, err := s.ledger.UpdateImportRow(r.Context(), u.ID, id, line, req); err != nil {
		return s.importBatchRefused(w, r, u, sid, id, back, err, "Not changed.", line)
	}
	return Redirect(w, r.Request, withNotice(back, "import-row-saved")+"#row-"+strconv.Itoa(line))
}

// importBatchRefused shows the batch page (at back's filter and page) with
// a refused write on it; line is the row it concerned, 0 for the batch.
func (s *Site) importBatchRefused(w http.ResponseWriter, r bunrouter.Request, u finance.User, sid, id, back string, err error,
	prefix string, line int) error {
	return refusedOn(s, w, r.Request, u, sid, "importbatch", "settings", err, prefix,
		func() (importBatchData, error) {
			var q url.Values
			if b, perr := url.Parse(back); perr == nil {
				q = b.Query()
			}
			return s.importBatchView(r.Request, u, id, q)
		},
		func(d *importBatchData, fields map[string]string) { d.Fields, d.Line = fields, line },
		func(d importBatchData) string { return "Import of " + d.Batch.FileName })
}

// importCommit commits a preview as POST /imports/{id}/commit does: every
// row to create is written in one transaction, or none.
func (s *Site) importCommit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "import")
	if !ok {
		return err
	}
	if _, err := s.ledger.CommitImport(r.Context(), u.ID, id, nil); err != nil {
		return s.importBatchRefused(w, r, u, sid, id, importBack(r, id), err, "Not imported.", 0)
	}
	return Redirect(w, r.Request, ImportsPath+"/"+id+"?notice=import-committed")
}

// importDiscard deletes a preview as DELETE /imports/{id} does.
func (s *Site) importDiscard(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "import")
	if !ok {
		return err
	}
	if err := s.ledger.DeleteImport(r.Context(), u.ID, id); err != nil {
		return s.importBatchRefused(w, r, u, sid, id, importBack(r, id), err, "Not discarded.", 0)
	}
	return Redirect(w, r.Request, ImportsPath+"?notice=import-discarded")
}

// importUndoConfirm asks before a committed import is taken back.
func (s *Site) importUndoConfirm(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	id := r.Param("id")
	if !finance.ValidID(id) {
		return finance.NotFound("import")
	}
	b, err := s.ledger.GetImport(r.Context(), u.ID, id)
	if err != nil {
		return err
	}
	back := ImportsPath + "/" + id
	figure := "the balance goes"
	if b.Target.Kind == finance.TargetCard {
		figure = "what is owed on the card goes" // a card shows what is owed, not a balance
	}
	d := confirmData{Heading: "Undo the import of " + b.FileName + "?", Action: back + "/undo", Button: "Undo this import", Back: back,
		Lines: []string{
			"The " + strconv.Itoa(b.Summary.Created) + " records this import created on " + b.Target.Name + " are voided, and " + figure + " back to what it was without them.",
			"An import can be undone only while none of its records has changed since; the file can then be imported again.",
		}}
	p := frame(&u, sid, "Undo import", "settings")
	p.Narrow, p.Data = true, d
	return s.render(w, r.Request, "confirm", p)
}

// importUndo reverts a committed import as POST /imports/{id}/revert does.
func (s *Site) importUndo(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "import")
	if !ok {
		return err
	}
	if _, err := s.ledger.RevertImport(r.Context(), u.ID, id, nil); err != nil {
		return s.importBatchRefused(w, r, u, sid, id, ImportsPath+"/"+id, err, "Not undone.", 0)
	}
	return Redirect(w, r.Request, ImportsPath+"/"+id+"?notice=import-reverted")
}

// --- the list ---------------------------------------------------------------------

type importsData struct {
	Show        display
	PreviewDays int
	Items       []finance.ImportBatch
	Pager       pager
}

// importsPage lists the person's imports, newest first.
func (s *Site) importsPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showPage(s, w, r, "imports", "Imports", "settings", func(r *http.Request, u finance.User) (importsData, error) {
		show, err := s.displayFor(r.Context(), u.ID)
		if err != nil {
			return importsData{}, err
		}
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		list, err := s.ledger.ListImports(r.Context(), u.ID, finance.ListParams{Page: max(page, 1), Limit: webPageSize, SortBy: "created_at", Desc: true})
		if err != nil {
			return importsData{}, err
		}
		return importsData{Show: show, PreviewDays: finance.ImportPreviewDays, Items: list.Items, Pager: newPager(ImportsPath, nil, list.Pagination)}, nil
	})
}
