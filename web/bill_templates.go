package web

// The bill template pages of the web app: the list of templates, and one
// form to create or edit a template (its name, amount, category, how often
// and from when it is due, and the payment defaults its bills start with),
// with a delete button on the edit form. They write through the same
// service calls as the /bills/templates REST routes and show the API's
// problems beside the fields.

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
)

// BillTemplatesPath is the list of bill templates.
const BillTemplatesPath = BillsPath + "/templates"

func (s *Site) registerWebAppBillTemplateRoutes() {
	s.page(http.MethodGet, BillTemplatesPath, s.billTemplatesPage)
	s.oncePage(BillTemplatesPath, s.billTemplateCreate)
	s.page(http.MethodGet, BillTemplatesPath+"/new", s.billTemplateNewPage)
	s.page(http.MethodGet, BillTemplatesPath+"/:id", s.billTemplateEditPage)
	s.page(http.MethodPost, BillTemplatesPath+"/:id", s.billTemplateUpdate)
	s.page(http.MethodPost, BillTemplatesPath+"/:id/delete", s.billTemplateDelete)
}

type billTemplatesData struct {
	Show  display
	Items []finance.BillTemplate
}

func (s *Site) billTemplatesPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, show, ok, err := s.signedInShow(w, r.Request)
	if !ok || err != nil {
		return err
	}
	list, err := s.ledger.ListBillTemplates(r.Context(), u.ID, finance.BillTemplateFilter{},
		finance.ListParams{Page: 1, Limit: webListLimit, SortBy: "name"})
	if err != nil {
		return err
	}
	return s.render(w, r.Request, "billtemplates", pageView{Title: "Bill templates", Nav: "bills", User: &u,
		CSRF: auth.CSRFToken(sid), Notice: notices[r.URL.Query().Get("notice")], Data: billTemplatesData{Show: show, Items: list.Items}})
}

// templateForm is the template form's fields, with the API's names: its
// defaults, a template's values, or what was sent.
type templateForm struct {
	Name, Amount, Category, Frequency, StartDate, DueDay, SecondDueDay, EndDate string
	PaymentMethod, AccountID, CreditCardID, Currency, Notes, Status             string
}

func postedTemplateForm(f url.Values) templateForm {
	return templateForm{Name: f.Get("name"), Amount: f.Get("amount"), Category: f.Get("category"), Frequency: f.Get("frequency"),
		StartDate: f.Get("start_date"), DueDay: f.Get("due_day"), SecondDueDay: f.Get("second_due_day"), EndDate: f.Get("end_date"),
		PaymentMethod: f.Get("default_payment_method"), AccountID: f.Get("default_account_id"),
		CreditCardID: f.Get("default_credit_card_id"), Currency: f.Get("currency"), Notes: f.Get("notes"), Status: f.Get("status")}
}

// templateFormOf is the edit form of t.
func templateFormOf(t finance.BillTemplate) templateForm {
	f := templateForm{Name: t.Name, Amount: t.Amount.String(), Category: t.Category, Frequency: t.Frequency,
		StartDate: t.StartDate.String(), Currency: t.Currency, Status: t.Status}
	f.DueDay, f.SecondDueDay = dayText(t.DueDay), dayText(t.SecondDueDay)
	if !t.EndDate.IsZero() {
		f.EndDate = t.EndDate.String()
	}
	for dst, src := range map[*string]*string{&f.PaymentMethod: t.DefaultPaymentMethod, &f.AccountID: t.DefaultAccountID,
		&f.CreditCardID: t.DefaultCreditCardID, &f.Notes: t.Notes} {
		if src != nil {
			*dst = *src
		}
	}
	return f
}

// request is the form as the API's request. Only the chosen method's
// account or card is sent on. Editing sends the whole form: an optional
// field left empty clears the template's value (null), and an empty
// account or card for its method is "required", not "kept".
func (f templateForm) request(edit bool) finance.BillTemplateRequest {
	values := map[string]string{"name": f.Name, "amount": f.Amount, "category": f.Category, "frequency": f.Frequency,
		"start_date": f.StartDate, "due_day": f.DueDay, "second_due_day": f.SecondDueDay, "end_date": f.EndDate, "default_payment_method": f.PaymentMethod,
		"currency": f.Currency, "notes": f.Notes}
	if edit {
		values["status"] = f.Status
	}
	m, _ := finance.ParsePaymentMethod(f.PaymentMethod)
	switch m {
	case finance.MethodAccountDebit:
		values["default_account_id"] = f.AccountID
	case finance.MethodCreditCard:
		values["default_credit_card_id"] = f.CreditCardID
	}
	var req finance.BillTemplateRequest
	formRequest(&req, values)
	if edit {
		clearIfEmpty(&req.DueDay, f.DueDay)
		clearIfEmpty(&req.SecondDueDay, f.SecondDueDay)
		clearIfEmpty(&req.EndDate, f.EndDate)
		clearIfEmpty(&req.Notes, f.Notes)
		clearIfEmpty(&req.DefaultPaymentMethod, f.PaymentMethod)
		switch m {
		case finance.MethodAccountDebit:
			clearIfEmpty(&req.DefaultAccountID, f.AccountID)
		case finance.MethodCreditCard:
			clearIfEmpty(&req.DefaultCreditCardID, f.CreditCardID)
		}
	}
	return req
}

// clearIfEmpty makes a field left empty on an edit form null, as a PUT body
// clears an optional value.
func clearIfEmpty[T any](field *finance.Field[T], text string) {
	if strings.TrimSpace(text) == "" {
		*field = finance.Field[T]{Set: true, Null: true}
	}
}

type billTemplateData struct {
	Show     display
	ID       string // "" on the new template form
	Form     templateForm
	Fields   map[string]string
	Opts     finance.BillFormOptions
	Currency currencyField
}

func (s *Site) billTemplateView(r *http.Request, u finance.User, id string, form templateForm) (billTemplateData, error) {
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return billTemplateData{}, err
	}
	opts, err := s.ledger.BillFormOptions(r.Context(), u.ID)
	if err != nil {
		return billTemplateData{}, err
	}
	d := billTemplateData{Show: show, ID: id, Form: form, Fields: map[string]string{}, Opts: opts, Currency: newCurrencyField("t")}
	if id != "" {
		d.Currency, err = s.editCurrencyField(r.Context(), u.ID, "t", finance.RecordBillTemplate, id)
	}
	return d, err
}

// renderBillTemplate shows the template form; a refusal (status not 0)
// with its problems beside the fields.
func (s *Site) renderBillTemplate(w http.ResponseWriter, r *http.Request, u finance.User, sid string, d billTemplateData, status int, err error) error {
	title := "New bill template"
	if d.ID != "" {
		title = "Edit " + d.Form.Name
	}
	p := pageView{Title: title, Nav: "bills", User: &u, CSRF: auth.CSRFToken(sid), status: status,
		Notice: notices[r.URL.Query().Get("notice")], Data: d}
	if err != nil {
		var ve *finance.ValidationError
		if errors.As(err, &ve) {
			d.Fields = ve.Fields
			p.Data = d
			p.refuseFields("Not saved.", ve)
		} else {
			_, detail := httperr.Response(err, "")
			p.Error = detail.Message
		}
	}
	return s.render(w, r, "billtemplate", p)
}

func (s *Site) billTemplateNewPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, show, ok, err := s.signedInShow(w, r.Request)
	if !ok || err != nil {
		return err
	}
	d, err := s.billTemplateView(r.Request, u, "", templateForm{Frequency: finance.FrequencyMonthly, StartDate: show.today.String(),
		Currency: show.currency})
	if err != nil {
		return err
	}
	return s.renderBillTemplate(w, r.Request, u, sid, d, 0, nil)
}

// billTemplateCreate creates a template as POST /bills/templates does; its
// bills appear on the calendar at once.
func (s *Site) billTemplateCreate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	form := postedTemplateForm(r.PostForm)
	t, err := s.ledger.CreateBillTemplate(r.Context(), u.ID, form.request(false))
	return s.templateSaved(w, r.Request, u, sid, "", form, t, err, "template-created")
}

// templateSaved ends a write of the template form (editing: the template
// changed, "" for a new one): on to the list at the saved template with
// notice, or a refusal shown on the form again with what was sent.
func (s *Site) templateSaved(w http.ResponseWriter, r *http.Request, u finance.User, sid, editing string, form templateForm,
	saved finance.BillTemplate, err error, notice string) error {
	if status, refused := pageRefusal(err); refused {
		d, verr := s.billTemplateView(r, u, editing, form)
		if verr != nil {
			return verr
		}
		return s.renderBillTemplate(w, r, u, sid, d, status, err)
	} else if err != nil {
		return err
	}
	return Redirect(w, r, BillTemplatesPath+"?notice="+notice+"#template-"+saved.ID)
}

// pathTemplate reads and loads the template of an edit route.
func (s *Site) pathTemplate(r bunrouter.Request, u finance.User) (finance.BillTemplate, error) {
	id, err := pathRecord(r, "id", "bill template")
	if err != nil {
		return finance.BillTemplate{}, err
	}
	return s.ledger.GetBillTemplate(r.Context(), u.ID, id)
}

func (s *Site) billTemplateEditPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	t, err := s.pathTemplate(r, u)
	if err != nil {
		return err
	}
	d, err := s.billTemplateView(r.Request, u, t.ID, templateFormOf(t))
	if err != nil {
		return err
	}
	return s.renderBillTemplate(w, r.Request, u, sid, d, 0, nil)
}

// billTemplateUpdate saves the edit form as PUT /bills/templates/{id} does:
// the template's untouched upcoming bills are made again from the new terms.
func (s *Site) billTemplateUpdate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	t, err := s.pathTemplate(r, u)
	if err != nil {
		return err
	}
	form := postedTemplateForm(r.PostForm)
	saved, err := s.ledger.UpdateBillTemplate(r.Context(), u.ID, t.ID, form.request(true))
	return s.templateSaved(w, r.Request, u, sid, t.ID, form, saved, err, "template-saved")
}

// billTemplateDelete removes a template as DELETE /bills/templates/{id}
// does: with its untouched upcoming bills; bills paid, skipped, edited or
// already due stay.
func (s *Site) billTemplateDelete(w http.ResponseWriter, r bunrouter.Request) error {
	u, _, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	t, err := s.pathTemplate(r, u)
	if err != nil {
		return err
	}
	if _, err := s.ledger.DeleteBillTemplate(r.Context(), u.ID, t.ID); err != nil {
		return err
	}
	return Redirect(w, r.Request, BillTemplatesPath+"?notice=template-deleted")
}
