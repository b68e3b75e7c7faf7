package web

// The Record screens beyond the single form (webapp.go): the "Type it" box
// that drafts expenses from a sentence for review, bulk entry of several
// expenses at once, splitting an expense into parts, and editing an
// expense or an income with the record form. Every write goes through the
// service call of the matching REST route (POST /expenses/bulk, POST
// /expenses/{id}/split, PUT /expenses/{id}, PUT /income/{id}), so a page
// accepts and refuses exactly what the API does, in its words, beside the
// field concerned; a refused form is shown again as it was sent and
// nothing is written.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
)

// Paths of the Record screens.
const (
	RecordBulkPath  = "/record/bulk"
	RecordParsePath = "/record/parse"
)

// Rows the bulk and split forms start with, and add at a time.
const (
	bulkRows  = 5
	splitRows = 2
)

func (s *Site) registerWebAppRecordRoutes() {
	s.page(http.MethodGet, RecordBulkPath, s.bulkPage)
	s.oncePage(RecordBulkPath, s.bulkSubmit)
	s.page(http.MethodPost, RecordParsePath, s.parseSubmit)
	expenses := s.expenseEditor()
	s.page(http.MethodGet, ExpensesPath+"/:id/edit", func(w http.ResponseWriter, r bunrouter.Request) error { return expenses.page(s, w, r) })
	s.page(http.MethodPost, ExpensesPath+"/:id/edit", func(w http.ResponseWriter, r bunrouter.Request) error { return expenses.submit(s, w, r) })
	s.page(http.MethodGet, ExpensesPath+"/:id/split", s.splitPage)
	s.oncePage(ExpensesPath+"/:id/split", s.splitSubmit)
	income := s.incomeEditor()
	s.page(http.MethodGet, IncomePath+"/:id/edit", func(w http.ResponseWriter, r bunrouter.Request) error { return income.page(s, w, r) })
	s.page(http.MethodPost, IncomePath+"/:id/edit", func(w http.ResponseWriter, r bunrouter.Request) error { return income.submit(s, w, r) })
}

// backTo is where a form returns: back when it is a page of this site, else def.
func backTo(back, def string) string {
	if back == "" || SafeNext(back) != back {
		return def
	}
	return back
}

// formEdit fills a change request (PUT) from a form's values. Every field of
// the form is sent, a blank one as null: "is required" for a field that must
// have a value, cleared for one that may be empty, as the API answers.
func formEdit(dst any, values map[string]string) {
	obj := map[string]*string{}
	for k, v := range values {
		if strings.TrimSpace(v) != "" {
			obj[k] = &v
		} else {
			obj[k] = nil
		}
	}
	b, _ := json.Marshal(obj)  // strings and nulls only: it cannot fail
	_ = json.Unmarshal(b, dst) // Fields record problems instead of failing
}

// rowProblem splits a problem's field name of a multi-row body
// ("items[2].amount") into the row and the field; ok is false for a field
// of the whole body ("items").
var rowField = regexp.MustCompile(`^[a-z_]+\[(\d+)\]\.?(.*)$`)

func rowProblem(name string) (row int, field string, ok bool) {
	m := rowField.FindStringSubmatch(name)
	if m == nil {
		return 0, "", false
	}
	n, err := strconv.Atoi(m[1])
	return n, m[2], err == nil
}

// formRows is the number of rows a posted multi-row form holds (its "rows"
// value, within [0, most]), and whether the person asked for more rows.
func formRows(f url.Values, most int) (n int, more bool) {
	n, _ = strconv.Atoi(f.Get("rows"))
	return min(max(n, 0), most), f.Get("action") == "more"
}

// refusedRows sums up a refused multi-row form: the rows (by index) that
// have problems beside their fields, as people count them ("Check row 2
// below.", "Check rows 2 and 4 below."), or the problem of the whole form
// in the API's words.
func refusedRows(ve *finance.ValidationError, what string, bad map[int]bool) string {
	if len(bad) == 0 {
		return sentence("", problemsInWords(ve))
	}
	var nums []string
	for _, i := range slices.Sorted(maps.Keys(bad)) {
		nums = append(nums, strconv.Itoa(i+1))
	}
	if len(nums) > 1 {
		what += "s"
	}
	return "Check " + what + " " + andList(nums) + " below."
}

// andList joins words as people list them: "1", "1 and 2", "1, 2 and 3".
func andList(words []string) string {
	if n := len(words); n > 1 {
		return strings.Join(words[:n-1], ", ") + " and " + words[n-1]
	}
	return strings.Join(words, "")
}

// --- Edit -------------------------------------------------------------------------

// recordEdit is what the record form needs to change a record rather than
// write a new one.
type recordEdit struct {
	ID     string
	Action string // where the form posts
	Back   string // where saving and Cancel return
	Status string
	Splits []finance.ExpenseSplit // an expense's parts while it is split
}

// pathRecord reads the path parameter param naming a record (what): a
// malformed id is not found, as in the API. Forms posted to a record's page
// read it with pageWrite.
func pathRecord(r bunrouter.Request, param, what string) (string, error) {
	id := r.Param(param)
	if !finance.ValidID(id) {
		return "", finance.NotFound(what)
	}
	return id, nil
}

func expenseForm(e finance.Expense) recordForm {
	f := recordForm{Amount: e.Amount.String(), Date: e.Date.String(), Description: e.Description, PaymentMethod: e.PaymentMethod,
		Currency: e.Currency}
	if e.OriginalAmount != nil && e.OriginalCurrency != nil {
		f.OriginalAmount, f.OriginalCurrency = e.OriginalAmount.String(), *e.OriginalCurrency
	}
	if e.Category != nil {
		f.Category = *e.Category
	}
	if e.AccountID != nil {
		f.AccountID = *e.AccountID
	}
	if e.CreditCardID != nil {
		f.CreditCardID = *e.CreditCardID
	}
	return f
}

// expenseEditView is the record form changing e, holding form. The account
// or card e is paid with stays in its picker even when it is archived, so
// saving another field does not move the expense off it.
func (s *Site) expenseEditView(r *http.Request, u finance.User, e finance.Expense, form recordForm, back string) (recordData, error) {
	d, err := s.recordView(r, u, kindExpense, form)
	if err != nil {
		return d, err
	}
	d.Edit = &recordEdit{ID: e.ID, Action: ExpensesPath + "/" + e.ID + "/edit", Back: backTo(back, ExpensesPath), Status: e.Status, Splits: e.Splits}
	if d.Accounts, err = s.keepAccount(r, u, d.Accounts, e.AccountID); err != nil {
		return d, err
	}
	if id := e.CreditCardID; id != nil && !hasOption(d.Cards, *id, func(c finance.CardOption) string { return c.ID }) {
		c, err := s.ledger.GetCreditCard(r.Context(), u.ID, *id)
		if err != nil {
			return d, err
		}
		d.Cards = append(d.Cards, finance.CardOption{ID: c.ID, Name: c.Name + " (archived)", LastFour: c.LastFour})
	}
	return d, nil
}

// keepAccount adds the account a record is posted to (id, nil for none) to
// the picker's active accounts when it is archived.
func (s *Site) keepAccount(r *http.Request, u finance.User, opts []finance.AccountOption, id *string) ([]finance.AccountOption, error) {
	if id == nil || hasOption(opts, *id, func(a finance.AccountOption) string { return a.ID }) {
		return opts, nil
	}
	a, err := s.ledger.GetAccount(r.Context(), u.ID, *id)
	if err != nil {
		return opts, err
	}
	return append(opts, finance.AccountOption{ID: a.ID, Name: a.Name + " (archived)", Type: a.Type, CurrentBalance: a.CurrentBalance}), nil
}

func hasOption[T any](opts []T, id string, idOf func(T) string) bool {
	return slices.ContainsFunc(opts, func(o T) bool { return idOf(o) == id })
}

// editPage shows the record form of d, with the problems of a refused
// save (err) when there was one.
func (s *Site) editPage(w http.ResponseWriter, r *http.Request, u finance.User, sid, title string, d recordData, err error) error {
	p := pageView{Title: title, Nav: "income", User: &u, CSRF: auth.CSRFToken(sid), Data: d,
		Notice: notices[r.URL.Query().Get("notice")]}
	if d.Kind == kindExpense {
		p.Nav = "expenses"
	}
	if err != nil {
		status, ok := pageRefusal(err)
		if !ok {
			return err
		}
		p.status = status
		var ve *finance.ValidationError
		if errors.As(err, &ve) {
			d.Fields = ve.Fields
			p.Data = d
			p.refuseFields("Not saved.", ve)
		} else {
			_, detail := httperr.Response(err, "")
			p.Error = "Not saved. " + detail.Message
		}
	}
	return s.render(w, r, "record", p)
}

// recordEditor is the edit form of one kind of record (an expense, an
// income): how it is read, shown and changed through the same service call
// as its PUT route.
type recordEditor[T any] struct {
	what, title  string // what the record is (for a 404), and the page's title
	list, notice string // the list a change returns to (unless the form's back says where), and its notice
	get          func(ctx context.Context, userID, id string) (T, error)
	formOf       func(T) recordForm // the form holding the record
	posted       func(f url.Values) recordForm
	view         func(r *http.Request, u finance.User, rec T, form recordForm, back string) (recordData, error)
	// save changes rec to what form holds.
	save func(ctx context.Context, userID string, rec T, form recordForm) error
}

// page shows the form holding the record the route's id names.
func (e recordEditor[T]) page(s *Site, w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	id, err := pathRecord(r, "id", e.what)
	if err != nil {
		return err
	}
	rec, err := e.get(r.Context(), u.ID, id)
	if err != nil {
		return err
	}
	d, err := e.view(r.Request, u, rec, e.formOf(rec), r.URL.Query().Get("back"))
	if err != nil {
		return err
	}
	return s.editPage(w, r.Request, u, sid, e.title, d, nil)
}

// submit changes the record as its PUT route does, then returns to the
// page the form came from; a refusal shows the form again with what was
// sent and the problems beside their fields.
func (e recordEditor[T]) submit(s *Site, w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", e.what)
	if !ok {
		return err
	}
	rec, err := e.get(r.Context(), u.ID, id)
	if err != nil {
		return err
	}
	f := r.PostForm
	form := e.posted(f)
	err = e.save(r.Context(), u.ID, rec, form)
	back := backTo(f.Get("back"), e.list)
	if err == nil {
		return Redirect(w, r.Request, withNotice(back, e.notice))
	}
	d, verr := e.view(r.Request, u, rec, form, back)
	if verr != nil {
		return verr
	}
	return s.editPage(w, r.Request, u, sid, e.title, d, err)
}

// postedRecordForm reads the record form's fields from a posted form.
func postedRecordForm(f url.Values) recordForm {
	return recordForm{Amount: f.Get("amount"), Date: f.Get("date"), Description: f.Get("description"), Category: f.Get("category"),
		PaymentMethod: f.Get("payment_method"), AccountID: f.Get("account_id"), CreditCardID: f.Get("credit_card_id"),
		Currency: f.Get("currency"), OriginalAmount: f.Get("original_amount"), OriginalCurrency: f.Get("original_currency")}
}

// expenseEditor changes an expense as PUT /expenses/{id} does.
func (s *Site) expenseEditor() recordEditor[finance.Expense] {
	return recordEditor[finance.Expense]{what: "expense", title: "Edit expense", list: ExpensesPath, notice: "expense-updated",
		get: s.ledger.GetExpense, formOf: expenseForm, posted: postedRecordForm, view: s.expenseEditView,
		save: func(ctx context.Context, userID string, e finance.Expense, form recordForm) error {
			fields := form.expenseFields()
			if e.IsSplit && strings.TrimSpace(form.Category) == "" {
				delete(fields, "category") // left as it is: the parts stay
			}
			var req finance.ExpenseRequest
			formEdit(&req, fields)
			_, err := s.ledger.UpdateExpense(ctx, userID, e.ID, req)
			return err
		}}
}

// incomeEditor changes an income as PUT /income/{id} does; a blank
// description or account clears it.
func (s *Site) incomeEditor() recordEditor[finance.Income] {
	return recordEditor[finance.Income]{what: "income", title: "Edit income", list: IncomePath, notice: "income-updated",
		get: s.ledger.GetIncome, formOf: incomeForm, view: s.incomeEditView,
		posted: func(f url.Values) recordForm {
			form := postedRecordForm(f)
			form.PaymentMethod, form.CreditCardID = "", "" // an income's form has neither
			return form
		},
		save: func(ctx context.Context, userID string, in finance.Income, form recordForm) error {
			var req finance.IncomeRequest
			formEdit(&req, form.incomeFields())
			_, err := s.ledger.UpdateIncome(ctx, userID, in.ID, req)
			return err
		}}
}

func incomeForm(in finance.Income) recordForm {
	f := recordForm{Amount: in.Amount.String(), Date: in.Date.String(), Category: in.Category, Currency: in.Currency}
	if in.Description != nil {
		f.Description = *in.Description
	}
	if in.AccountID != nil {
		f.AccountID = *in.AccountID
	}
	return f
}

// incomeEditView is the record form changing in, holding form; an archived
// account it is posted to stays in the picker.
func (s *Site) incomeEditView(r *http.Request, u finance.User, in finance.Income, form recordForm, back string) (recordData, error) {
	d, err := s.recordView(r, u, kindIncome, form)
	if err != nil {
		return d, err
	}
	d.Edit = &recordEdit{ID: in.ID, Action: IncomePath + "/" + in.ID + "/edit", Status: in.Status, Back: backTo(back, IncomePath)}
	if d.Accounts, err = s.keepAccount(r, u, d.Accounts, in.AccountID); err != nil {
		return d, err
	}
	return d, nil
}

// --- Bulk entry and "Type it" ---------------------------------------------------

// bulkRow is one row of the bulk form: an expense to write.
type bulkRow struct {
	N        int // its index in the form, from 0
	Form     recordForm
	Fields   map[string]string // its problems, by field
	Warnings []string          // what the parser said of this draft
	Guessed  []string          // the draft's fields whose value the text did not state
}

// Number is the row's number as people count, from 1.
func (b bulkRow) Number() int { return b.N + 1 }

// Guess reports whether the draft's field (a name of the API's guessed
// list) holds a value the text did not state.
func (b bulkRow) Guess(field string) bool { return slices.Contains(b.Guessed, field) }

// guessedWords name the guessable draft fields as the review asks about them.
var guessedWords = map[string]string{"date": "the date", "payment_method": "how it was paid",
	"account_id": "the account", "credit_card_id": "the card"}

// GuessedWords lists the guessed fields in words ("the date and how it was
// paid"), "" when the parser read every value.
func (b bulkRow) GuessedWords() string {
	var words []string
	for _, f := range b.Guessed {
		words = append(words, guessedWords[f])
	}
	return andList(words)
}

// blank reports whether the row was left empty (the date and method have defaults).
func (b bulkRow) blank() bool {
	return strings.TrimSpace(b.Form.Amount+b.Form.Description+b.Form.Category) == ""
}

// bulkColumns are the grid's fields in the order of its columns.
var bulkColumns = []string{"date", "description", "amount", "category", "payment_method", "account_id", "credit_card_id"}

// bulkWords name the grid's fields whose heading is not their key in words.
var bulkWords = map[string]string{"payment_method": "Paid with", "account_id": "Account", "credit_card_id": "Card", "": "This expense"}

// rowMessage is a problem of one row, said once under the row with its
// number and field ("Row 4: Amount must be greater than 0"); ID is what
// the field's aria-describedby names.
type rowMessage struct{ ID, Text string }

// Problems are the row's problems in the order of its columns; a problem
// of a field the grid has no column for, or of the whole item, comes
// last, so none is lost.
func (b bulkRow) Problems() []rowMessage {
	column := func(field string) int {
		if i := slices.Index(bulkColumns, field); i >= 0 {
			return i
		}
		return len(bulkColumns)
	}
	fields := slices.SortedFunc(maps.Keys(b.Fields), func(x, y string) int { return cmp.Or(column(x)-column(y), strings.Compare(x, y)) })
	out := make([]rowMessage, 0, len(fields))
	for _, field := range fields {
		words, ok := bulkWords[field]
		if !ok {
			words = fieldWords(field)
		}
		out = append(out, rowMessage{ID: b.problemID(field), Text: fmt.Sprintf("Row %d: %s %s", b.Number(), words, b.Fields[field])})
	}
	return out
}

// problemID is the id of the message of field's problem.
func (b bulkRow) problemID(field string) string {
	if field == "" {
		field = "row"
	}
	return fmt.Sprintf("r%d-%s-error", b.N, field)
}

type bulkData struct {
	Show       display
	Text       string            // the "Type it" text
	Fields     map[string]string // problems of the text, and of the whole list ("items")
	Parsed     bool              // the rows are drafts of the text or of receipts, for review
	Receipt    bool              // the drafts are of receipt photos
	Note       string            // the note sent with the photos
	Engine     string
	Warnings   []string // the parser's warnings about no one draft
	Rows       []bulkRow
	Methods    []string
	Categories []finance.CategoryOption
	Accounts   []finance.AccountOption
	Cards      []finance.CardOption

	defaultMethod string // the method of a new row
}

// MaxRows is the most rows the grid takes, the API's bound on one bulk write.
func (bulkData) MaxRows() int { return finance.MaxBulkItems }

func (s *Site) bulkView(r *http.Request, u finance.User) (bulkData, error) {
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return bulkData{}, err
	}
	opts, err := s.ledger.ExpenseFormOptions(r.Context(), u.ID)
	if err != nil {
		return bulkData{}, err
	}
	return bulkData{Show: show, Fields: map[string]string{}, Methods: opts.PaymentMethods, Categories: opts.Categories,
		Accounts: opts.Accounts, Cards: opts.CreditCards, defaultMethod: opts.DefaultPaymentMethod}, nil
}

// addBlankRows adds rows up to n in all, paid with the default method. The
// first row is dated today and the others left blank: a blank date takes
// the one above it (withDates).
func (d *bulkData) addBlankRows(n int) {
	for i := len(d.Rows); i < min(n, finance.MaxBulkItems); i++ {
		row := bulkRow{N: i, Form: recordForm{PaymentMethod: d.defaultMethod}, Fields: map[string]string{}}
		if i == 0 {
			row.Form.Date = d.Show.today.String()
		}
		d.Rows = append(d.Rows, row)
	}
}

// withDates is the date each row is saved with: its own, or, left blank,
// the nearest date above it (blank rows count, as people read the grid
// down), or today for a first row without one. A date that does not read
// is not passed down: only its own row is refused for it.
func withDates(rows []bulkRow, today finance.Date) []string {
	dates := make([]string, len(rows))
	above := today.String()
	for i, row := range rows {
		date := strings.TrimSpace(row.Form.Date)
		if date == "" {
			dates[i] = above
			continue
		}
		dates[i] = date
		if _, err := finance.ParseDate(date); err == nil {
			above = date
		}
	}
	return dates
}

func (s *Site) renderBulk(w http.ResponseWriter, r *http.Request, u finance.User, sid string, status int, message string, d bulkData) error {
	return s.render(w, r, "record_bulk", pageView{Title: "Record several", Nav: "record", User: &u, CSRF: auth.CSRFToken(sid),
		status: status, Error: message, Data: d})
}

func (s *Site) bulkPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	d, err := s.bulkView(r.Request, u)
	if err != nil {
		return err
	}
	d.addBlankRows(bulkRows)
	return s.renderBulk(w, r.Request, u, sid, http.StatusOK, "", d)
}

// bulkSubmit writes the rows that are not blank as POST /expenses/bulk
// does: all of them or, on any problem, none, with each problem beside
// its row's field. "Add rows" shows the form again with more rows.
func (s *Site) bulkSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	d, err := s.bulkView(r.Request, u)
	if err != nil {
		return err
	}
	f := r.PostForm
	d.Parsed, d.Text = f.Get("parsed") == "true", f.Get("text")
	d.Receipt, d.Note = d.Parsed && f.Get("receipt") == "true", f.Get("note")
	n, more := formRows(f, finance.MaxBulkItems)
	for i := range n {
		v := func(name string) string { return f.Get(fmt.Sprintf("items[%d].%s", i, name)) }
		d.Rows = append(d.Rows, bulkRow{N: i, Fields: map[string]string{}, Form: recordForm{Amount: v("amount"), Date: v("date"),
			Description: v("description"), Category: v("category"), PaymentMethod: v("payment_method"),
			AccountID: v("account_id"), CreditCardID: v("credit_card_id")}})
	}
	if more {
		d.addBlankRows(n + bulkRows)
		return s.renderBulk(w, r.Request, u, sid, http.StatusOK, "", d)
	}
	var req finance.BulkExpenseRequest
	var rowOf []int // the form row of each item sent
	dates := withDates(d.Rows, d.Show.today)
	for i, row := range d.Rows {
		if row.blank() {
			continue
		}
		fields := row.Form.expenseFields()
		fields["date"] = dates[i]
		var item finance.ExpenseRequest
		formRequest(&item, fields)
		req.Items = append(req.Items, item)
		rowOf = append(rowOf, i)
	}
	saved, err := s.ledger.CreateExpenses(r.Context(), u.ID, req)
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		bad := map[int]bool{}
		for name, problem := range ve.Fields {
			if item, field, ok := rowProblem(name); ok && item < len(rowOf) {
				d.Rows[rowOf[item]].Fields[field] = problem
				bad[rowOf[item]] = true
			} else {
				d.Fields[name] = problem
			}
		}
		return s.renderBulk(w, r.Request, u, sid, http.StatusBadRequest, "Nothing saved. "+refusedRows(ve, "row", bad), d)
	} else if err != nil {
		return err
	}
	s.keepWarnings(w, saved.Warnings, func(item int) string { return fmt.Sprintf("Row %d", rowOf[item]+1) })
	return Redirect(w, r.Request, ExpensesPath+"?notice=expenses-recorded")
}

// parseSubmit drafts expenses from the typed text with the same parser and
// checks as POST /expenses/ai/parse-text, and shows them on the bulk form
// for review; nothing is saved until "Save all".
func (s *Site) parseSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	text := r.PostForm.Get("text")
	res, err := s.host.ParseText(r.Context(), w.Header(), u.ID, finance.Of(text))
	if err != nil {
		// Refused: the Record page again, with the text and why.
		status, _ := httperr.Response(err, "")
		var ve *finance.ValidationError
		if !errors.As(err, &ve) && status != http.StatusTooManyRequests {
			return err
		}
		rd, verr := s.recordView(r.Request, u, kindExpense, recordForm{})
		if verr != nil {
			return verr
		}
		rd.Text = text
		p := pageView{Title: "Record", Nav: "record", User: &u, CSRF: auth.CSRFToken(sid), status: status, Data: rd}
		if ve != nil {
			rd.Fields["text"] = ve.Fields["natural_text"]
			p.refuseFields("Not read.", ve)
		} else {
			p.Error = "Not read. " + aiBusyMessage(w.Header().Get("Retry-After"))
		}
		return s.render(w, r.Request, "record", p)
	}
	d, err := s.bulkView(r.Request, u)
	if err != nil {
		return err
	}
	d.Text = text
	d.Parsed, d.Engine = true, res.Engine
	for i, draft := range res.Items {
		d.Rows = append(d.Rows, draftRow(i, draft))
	}
	d.addWarnings(res.Warnings)
	return s.renderBulk(w, r.Request, u, sid, http.StatusOK, "", d)
}

// addWarnings puts the parser's warnings on the drafts they name
// ("items[1].account_id ..."), the others above all of them.
func (d *bulkData) addWarnings(warnings []string) {
	for _, warning := range warnings {
		if i, rest, ok := rowProblem(warning); ok && i < len(d.Rows) {
			d.Rows[i].Warnings = append(d.Rows[i].Warnings, strings.TrimSpace(strings.TrimPrefix(rest, ":")))
		} else {
			d.Warnings = append(d.Warnings, warning)
		}
	}
}

// aiBusyMessage tells a person that AI parsing refused for now (their
// budget is spent, or every job slot is taken), and when to try again.
func aiBusyMessage(retryAfter string) string {
	return "You have used up AI parsing for now, or the server is busy parsing for others: try again " + retryIn(retryAfter) +
		", or fill in the rows yourself."
}

// retryIn says when a refused person may try again, from a Retry-After
// header in seconds: "in 40 seconds", "in 3 minutes".
func retryIn(retryAfter string) string {
	n, err := strconv.Atoi(retryAfter)
	switch {
	case err != nil:
		return "in a minute"
	case n >= 120:
		return fmt.Sprintf("in %d minutes", (n+59)/60)
	}
	return fmt.Sprintf("in %d seconds", n)
}

// draftRow is a parser's draft as a row of the bulk form; what it did not
// know stays blank for the person to fill in.
func draftRow(i int, d finance.ExpenseDraft) bulkRow {
	row := bulkRow{N: i, Fields: map[string]string{}}
	text := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if d.Amount != nil {
		row.Form.Amount = d.Amount.String()
	}
	if d.Date != nil {
		row.Form.Date = d.Date.String()
	}
	row.Form.Description, row.Form.Category = text(d.Description), text(d.Category)
	row.Form.PaymentMethod, row.Form.AccountID, row.Form.CreditCardID = text(d.PaymentMethod), text(d.AccountID), text(d.CreditCardID)
	row.Guessed = d.Guessed
	return row
}

// --- Split ------------------------------------------------------------------------

// splitRow is one part of the split form.
type splitRow struct {
	N                             int
	Amount, Category, Description string
	Fields                        map[string]string
}

// Number is the part's number as people count, from 1.
func (p splitRow) Number() int { return p.N + 1 }

func (p splitRow) blank() bool { return strings.TrimSpace(p.Amount+p.Category+p.Description) == "" }

type splitData struct {
	Show       display
	Expense    finance.Expense
	Rows       []splitRow
	Fields     map[string]string // problems of the whole split ("parts")
	Categories []finance.CategoryOption
	Back       string
}

// addBlankRows adds blank parts up to n in all.
func (d *splitData) addBlankRows(n int) {
	for i := len(d.Rows); i < min(n, finance.MaxSplitParts); i++ {
		d.Rows = append(d.Rows, splitRow{N: i, Fields: map[string]string{}})
	}
}

// remainder reads the parts typed on the split form (rows that are not
// blank) so the person never computes the last one: open is the one part
// left without an amount, which takes what the others leave of the
// expense (left), or -1 when no part, or more than one, is left without
// one. When the typed amounts already come to the expense or more, the
// split is refused beside a part's amount (over, the row, else -1): the
// open part's, with nothing left for it, or the part that takes the sum
// past the expense. An amount that does not read as a positive amount
// leaves everything to the API, which names that field.
func (d *splitData) remainder() (open int, left finance.Money, over int) {
	open, over = -1, -1
	total, money := d.Expense.Amount, d.Show.Money
	var sum finance.Money
	blanks := 0
	for i, row := range d.Rows {
		if row.blank() {
			continue
		}
		if strings.TrimSpace(row.Amount) == "" {
			open, blanks = i, blanks+1
			continue
		}
		m, err := finance.ParseMoney(strings.TrimSpace(row.Amount)) // at most MaxMoney: 20 parts cannot overflow
		if err != nil || m <= 0 {
			return -1, 0, -1
		}
		if sum += m; sum > total && over < 0 {
			over = i
		}
	}
	if blanks > 1 {
		open = -1
	}
	switch {
	case open >= 0 && sum >= total:
		over = open
		d.Rows[open].Fields["amount"] = "has nothing left to take: the other parts already come to " + money(sum)
		if sum > total {
			d.Rows[open].Fields["amount"] += ", " + money(sum-total) + " more than the expense (" + money(total) + ")"
		}
	case over >= 0:
		d.Rows[over].Fields["amount"] = "takes the parts to " + money(sum) + ", " + money(sum-total) + " more than the expense (" + money(total) + ")"
	}
	return open, total - sum, over
}

func (s *Site) splitView(r *http.Request, u finance.User, e finance.Expense, back string) (splitData, error) {
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return splitData{}, err
	}
	cats, err := s.ledger.CategoryOptions(r.Context(), u.ID, finance.KindExpense)
	if err != nil {
		return splitData{}, err
	}
	return splitData{Show: show, Expense: e, Fields: map[string]string{}, Categories: cats, Back: backTo(back, ExpensesPath)}, nil
}

func (s *Site) renderSplit(w http.ResponseWriter, r *http.Request, u finance.User, sid string, status int, message string, d splitData) error {
	return s.render(w, r, "expense_split", pageView{Title: "Split expense", Nav: "expenses", User: &u, CSRF: auth.CSRFToken(sid),
		status: status, Error: message, Notice: notices[r.URL.Query().Get("notice")], Data: d})
}

// splitPage shows the parts of an expense: its current ones, or a first
// part in its category; and blank rows to add to.
func (s *Site) splitPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	id, err := pathRecord(r, "id", "expense")
	if err != nil {
		return err
	}
	e, err := s.ledger.GetExpense(r.Context(), u.ID, id)
	if err != nil {
		return err
	}
	d, err := s.splitView(r.Request, u, e, r.URL.Query().Get("back"))
	if err != nil {
		return err
	}
	for i, p := range e.Splits {
		row := splitRow{N: i, Amount: p.Amount.String(), Category: p.Category, Fields: map[string]string{}}
		if p.Description != nil {
			row.Description = *p.Description
		}
		d.Rows = append(d.Rows, row)
	}
	if len(d.Rows) == 0 && e.Category != nil {
		d.Rows = append(d.Rows, splitRow{Category: *e.Category, Fields: map[string]string{}})
	}
	d.addBlankRows(max(finance.MinSplitParts, len(e.Splits)) + splitRows)
	return s.renderSplit(w, r.Request, u, sid, http.StatusOK, "", d)
}

// splitSubmit splits the expense into the rows that are not blank as POST
// /expenses/{id}/split does; "Add parts" shows the form again with more rows.
func (s *Site) splitSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "expense")
	if !ok {
		return err
	}
	e, err := s.ledger.GetExpense(r.Context(), u.ID, id)
	if err != nil {
		return err
	}
	f := r.PostForm
	d, err := s.splitView(r.Request, u, e, f.Get("back"))
	if err != nil {
		return err
	}
	n, more := formRows(f, finance.MaxSplitParts)
	for i := range n {
		v := func(name string) string { return f.Get(fmt.Sprintf("parts[%d].%s", i, name)) }
		d.Rows = append(d.Rows, splitRow{N: i, Amount: v("amount"), Category: v("category"), Description: v("description"),
			Fields: map[string]string{}})
	}
	if more {
		d.addBlankRows(n + splitRows)
		return s.renderSplit(w, r.Request, u, sid, http.StatusOK, "", d)
	}
	open, left, over := d.remainder()
	if over >= 0 {
		return s.renderSplit(w, r.Request, u, sid, http.StatusBadRequest, "Not split. Check part "+strconv.Itoa(over+1)+" below.", d)
	}
	var req finance.SplitRequest
	var rowOf []int
	for i, row := range d.Rows {
		if row.blank() {
			continue
		}
		amount := row.Amount
		if i == open {
			amount = left.String()
		}
		var part finance.SplitPart
		formRequest(&part, map[string]string{"amount": amount, "category": row.Category, "description": row.Description})
		req.Parts = append(req.Parts, part)
		rowOf = append(rowOf, i)
	}
	_, err = s.ledger.SplitExpense(r.Context(), u.ID, e.ID, req)
	if err == nil {
		return Redirect(w, r.Request, withNotice(d.Back, "expense-split"))
	}
	status, ok := pageRefusal(err)
	if !ok {
		return err
	}
	var ve *finance.ValidationError
	if !errors.As(err, &ve) {
		_, detail := httperr.Response(err, "")
		return s.renderSplit(w, r.Request, u, sid, status, "Not split. "+detail.Message, d)
	}
	bad := map[int]bool{}
	for name, problem := range ve.Fields {
		if part, field, ok := rowProblem(name); ok && part < len(rowOf) {
			d.Rows[rowOf[part]].Fields[field] = problem
			bad[rowOf[part]] = true
		} else {
			d.Fields[name] = problem
		}
	}
	return s.renderSplit(w, r.Request, u, sid, status, "Not split. "+refusedRows(ve, "part", bad), d)
}
