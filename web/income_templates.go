package web

// The recurring income pages of the web app: one page with the income
// expected this month and next, each confirmed as received or skipped with
// one button, and the income templates that make it; one form to create or
// edit a template, with a delete button on the edit form. They write
// through the same service calls as the /income/templates and
// /income/expected REST routes and show the API's problems beside the fields.

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
)

// Paths of the recurring income pages.
const (
	RecurringIncomePath = IncomePath + "/recurring"
	expectedIncomePath  = IncomePath + "/expected"
)

func (s *Site) registerWebAppIncomeTemplateRoutes() {
	s.page(http.MethodGet, RecurringIncomePath, s.recurringIncomePage)
	s.oncePage(RecurringIncomePath, s.incomeTemplateCreate)
	s.page(http.MethodGet, RecurringIncomePath+"/new", s.incomeTemplateNewPage)
	s.page(http.MethodGet, RecurringIncomePath+"/:id", s.incomeTemplateEditPage)
	s.page(http.MethodPost, RecurringIncomePath+"/:id", s.incomeTemplateUpdate)
	s.page(http.MethodPost, RecurringIncomePath+"/:id/delete", s.incomeTemplateDelete)
	s.oncePage(expectedIncomePath+"/:id/confirm", s.expectedIncomeConfirm)
	s.page(http.MethodPost, expectedIncomePath+"/:id/skip", s.expectedIncomeSkip)
}

type recurringIncomeData struct {
	Show      display
	Expected  []finance.ExpectedIncome // still expected, through the end of next month
	Templates []finance.IncomeTemplate
}

// recurringIncomePage lists what is still expected through the end of next
// month, oldest first (a missed salary stays on top until confirmed or
// skipped), and the templates.
func (s *Site) recurringIncomePage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, show, ok, err := s.signedInShow(w, r.Request)
	if !ok || err != nil {
		return err
	}
	return s.renderRecurringIncome(w, r.Request, u, sid, show, 0, "")
}

// renderRecurringIncome shows the page, with a refused confirm or skip's
// reason (status not 0).
func (s *Site) renderRecurringIncome(w http.ResponseWriter, r *http.Request, u finance.User, sid string, show display,
	status int, problem string) error {
	expected, err := s.ledger.ListExpectedIncome(r.Context(), u.ID,
		finance.ExpectedIncomeFilter{Status: finance.ExpectedPending, DateTo: finance.BillHorizon(show.today, finance.Date{})},
		finance.ListParams{Page: 1, Limit: webListLimit, SortBy: "expected_date"})
	if err != nil {
		return err
	}
	templates, err := s.ledger.ListIncomeTemplates(r.Context(), u.ID, finance.IncomeTemplateFilter{},
		finance.ListParams{Page: 1, Limit: webListLimit, SortBy: "name"})
	if err != nil {
		return err
	}
	return s.render(w, r, "incometemplates", pageView{Title: "Recurring income", Nav: "income", User: &u,
		CSRF: auth.CSRFToken(sid), Notice: notices[r.URL.Query().Get("notice")], status: status, Error: problem,
		Data: recurringIncomeData{Show: show, Expected: expected.Items, Templates: templates.Items}})
}

// incomeTemplateForm is the template form's fields, with the API's names.
type incomeTemplateForm struct {
	Name, Amount, Category, Frequency, StartDate, DueDay, SecondDueDay, EndDate, AccountID, Currency, Notes, Status string
}

func postedIncomeTemplateForm(f url.Values) incomeTemplateForm {
	return incomeTemplateForm{Name: f.Get("name"), Amount: f.Get("amount"), Category: f.Get("category"),
		Frequency: f.Get("frequency"), StartDate: f.Get("start_date"), DueDay: f.Get("due_day"),
		SecondDueDay: f.Get("second_due_day"), EndDate: f.Get("end_date"), AccountID: f.Get("account_id"),
		Currency: f.Get("currency"), Notes: f.Get("notes"), Status: f.Get("status")}
}

func incomeTemplateFormOf(t finance.IncomeTemplate) incomeTemplateForm {
	f := incomeTemplateForm{Name: t.Name, Amount: t.Amount.String(), Category: t.Category, Frequency: t.Frequency,
		StartDate: t.StartDate.String(), Status: t.Status, DueDay: dayText(t.DueDay), SecondDueDay: dayText(t.SecondDueDay),
		Currency: t.Currency}
	if !t.EndDate.IsZero() {
		f.EndDate = t.EndDate.String()
	}
	if t.AccountID != nil {
		f.AccountID = *t.AccountID
	}
	if t.Notes != nil {
		f.Notes = *t.Notes
	}
	return f
}

// dayText is a day of month on a form: "" for none.
func dayText(day *int) string {
	if day == nil {
		return ""
	}
	return strconv.Itoa(*day)
}

// request is the form as the API's request; editing sends the whole form,
// so an optional field left empty clears the template's value.
func (f incomeTemplateForm) request(edit bool) finance.IncomeTemplateRequest {
	values := map[string]string{"name": f.Name, "amount": f.Amount, "category": f.Category, "frequency": f.Frequency,
		"start_date": f.StartDate, "due_day": f.DueDay, "second_due_day": f.SecondDueDay, "end_date": f.EndDate,
		"account_id": f.AccountID, "currency": f.Currency, "notes": f.Notes}
	var req finance.IncomeTemplateRequest
	if !edit {
		formRequest(&req, values)
		return req
	}
	values["status"] = f.Status
	formRequest(&req, values, "due_day", "second_due_day", "end_date", "account_id", "notes")
	return req
}

type incomeTemplateData struct {
	Show   display
	ID     string // "" on the new template form
	Form   incomeTemplateForm
	Fields map[string]string
	Opts   finance.IncomeFormOptions
	// Frequencies are the schedules a template may have.
	Frequencies []string
	Currency    currencyField
}

func (s *Site) renderIncomeTemplate(w http.ResponseWriter, r *http.Request, u finance.User, sid, id string,
	form incomeTemplateForm, status int, err error) error {
	show, derr := s.displayFor(r.Context(), u.ID)
	if derr != nil {
		return derr
	}
	opts, oerr := s.ledger.IncomeFormOptions(r.Context(), u.ID)
	if oerr != nil {
		return oerr
	}
	d := incomeTemplateData{Show: show, ID: id, Form: form, Fields: map[string]string{}, Opts: opts, Frequencies: finance.Frequencies,
		Currency: newCurrencyField("t")}
	if id != "" {
		var cerr error
		if d.Currency, cerr = s.editCurrencyField(r.Context(), u.ID, "t", finance.RecordIncomeTemplate, id); cerr != nil {
			return cerr
		}
	}
	title := "New recurring income"
	if id != "" {
		title = "Edit " + form.Name
	}
	p := pageView{Title: title, Nav: "income", User: &u, CSRF: auth.CSRFToken(sid), status: status}
	if err != nil {
		var ve *finance.ValidationError
		if errors.As(err, &ve) {
			d.Fields = ve.Fields
			p.refuseFields("Not saved.", ve)
		} else {
			_, detail := httperr.Response(err, "")
			p.Error = detail.Message
		}
	}
	p.Data = d
	return s.render(w, r, "incometemplate", p)
}

func (s *Site) incomeTemplateNewPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, show, ok, err := s.signedInShow(w, r.Request)
	if !ok || err != nil {
		return err
	}
	form := incomeTemplateForm{Frequency: finance.FrequencySemimonthly, StartDate: show.today.String(), DueDay: "15", SecondDueDay: "31",
		Currency: show.currency}
	return s.renderIncomeTemplate(w, r.Request, u, sid, "", form, 0, nil)
}

// incomeTemplateSaved ends a write of the template form: on to the list with
// notice, or the refusal shown on the form again with what was sent.
func (s *Site) incomeTemplateSaved(w http.ResponseWriter, r *http.Request, u finance.User, sid, editing string,
	form incomeTemplateForm, err error, notice string) error {
	if status, refused := pageRefusal(err); refused {
		return s.renderIncomeTemplate(w, r, u, sid, editing, form, status, err)
	} else if err != nil {
		return err
	}
	return Redirect(w, r, RecurringIncomePath+"?notice="+notice)
}

func (s *Site) incomeTemplateCreate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	form := postedIncomeTemplateForm(r.PostForm)
	_, err = s.ledger.CreateIncomeTemplate(r.Context(), u.ID, form.request(false))
	return s.incomeTemplateSaved(w, r.Request, u, sid, "", form, err, "income-template-created")
}

// pathIncomeTemplate reads and loads the template of an edit route.
func (s *Site) pathIncomeTemplate(r bunrouter.Request, u finance.User) (finance.IncomeTemplate, error) {
	id, err := pathRecord(r, "id", "income template")
	if err != nil {
		return finance.IncomeTemplate{}, err
	}
	return s.ledger.GetIncomeTemplate(r.Context(), u.ID, id)
}

func (s *Site) incomeTemplateEditPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	t, err := s.pathIncomeTemplate(r, u)
	if err != nil {
		return err
	}
	return s.renderIncomeTemplate(w, r.Request, u, sid, t.ID, incomeTemplateFormOf(t), 0, nil)
}

func (s *Site) incomeTemplateUpdate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	t, err := s.pathIncomeTemplate(r, u)
	if err != nil {
		return err
	}
	form := postedIncomeTemplateForm(r.PostForm)
	_, err = s.ledger.UpdateIncomeTemplate(r.Context(), u.ID, t.ID, form.request(true))
	return s.incomeTemplateSaved(w, r.Request, u, sid, t.ID, form, err, "income-template-saved")
}

func (s *Site) incomeTemplateDelete(w http.ResponseWriter, r bunrouter.Request) error {
	u, _, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	t, err := s.pathIncomeTemplate(r, u)
	if err != nil {
		return err
	}
	if _, err := s.ledger.DeleteIncomeTemplate(r.Context(), u.ID, t.ID); err != nil {
		return err
	}
	return Redirect(w, r.Request, RecurringIncomePath+"?notice=income-template-deleted")
}

// expectedIncomeConfirm records an expected income as received, with the
// amount typed beside its button (the expected amount unless changed),
// into its template's account.
func (s *Site) expectedIncomeConfirm(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	id, err := pathRecord(r, "id", "expected income")
	if err != nil {
		return err
	}
	var req finance.ConfirmIncomeRequest
	formRequest(&req, map[string]string{"amount": r.PostForm.Get("amount")})
	if _, err := s.ledger.ConfirmExpectedIncome(r.Context(), u.ID, id, req); err != nil {
		return s.expectedIncomeRefused(w, r.Request, u, sid, err)
	}
	return Redirect(w, r.Request, RecurringIncomePath+"?notice=income-received")
}

func (s *Site) expectedIncomeSkip(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	id, err := pathRecord(r, "id", "expected income")
	if err != nil {
		return err
	}
	if _, err := s.ledger.SkipExpectedIncome(r.Context(), u.ID, id); err != nil {
		return s.expectedIncomeRefused(w, r.Request, u, sid, err)
	}
	return Redirect(w, r.Request, RecurringIncomePath+"?notice=income-skipped")
}

// expectedIncomeRefused answers a refused confirm or skip: the page again
// with the API's reason, or the failure as it is.
func (s *Site) expectedIncomeRefused(w http.ResponseWriter, r *http.Request, u finance.User, sid string, err error) error {
	status, refused := pageRefusal(err)
	if !refused {
		return err
	}
	show, derr := s.displayFor(r.Context(), u.ID)
	if derr != nil {
		return derr
	}
	_, detail := httperr.Response(err, "")
	return s.renderRecurringIncome(w, r, u, sid, show, status, "Not saved. "+detail.Message)
}
