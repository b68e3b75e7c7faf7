package web

// A loan's pages in the web app: the form that creates a loan, with a
// preview of its schedule before it is saved, and a loan's own page with
// its whole schedule, a card to pay or change the status of one
// installment, one to mark the past ones paid at once, its terms (all of
// them while nothing is paid, else the name, lender and notes), and
// cancelling, reactivating or (while nothing was paid) deleting it. They
// write through the same service calls as the /loans REST routes and show
// the API's problems beside the fields.

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
)

// LoanNewPath is the form that creates a loan.
const LoanNewPath = LoansPath + "/new"

func (s *Site) registerWebAppLoanRoutes() {
	s.page(http.MethodGet, LoanNewPath, s.loanNewPage)
	s.page(http.MethodPost, LoanNewPath, s.loanPreview)
	s.oncePage(LoansPath, s.loanCreate)
	s.page(http.MethodGet, LoansPath+"/:id", s.loanPage)
	s.page(http.MethodPost, LoansPath+"/:id", s.loanUpdate)
	s.page(http.MethodPost, LoansPath+"/:id/status", s.loanStatusSubmit)
	s.page(http.MethodPost, LoansPath+"/:id/delete", s.loanDelete)
	s.page(http.MethodPost, LoansPath+"/:id/mark-paid", s.loanMarkPaid)
	s.page(http.MethodPost, LoansPath+"/instances/:id/status", s.loanInstanceStatusSubmit)
}

// --- New loan -----------------------------------------------------------------------

// loanForm is a loan's fields (the body of POST and PUT /loans), with the API's names.
type loanForm struct {
	Name, Lender, Principal, InterestType, InterestRate, RatePeriod     string
	TermMonths, StartDate, FirstDueDate, MonthlyAmount, Currency, Notes string
}

func postedLoanForm(f url.Values) loanForm {
	return loanForm{Name: f.Get("name"), Lender: f.Get("lender"), Principal: f.Get("principal"), InterestType: f.Get("interest_type"),
		InterestRate: f.Get("interest_rate"), RatePeriod: f.Get("rate_period"), TermMonths: f.Get("term_months"),
		StartDate: f.Get("start_date"), FirstDueDate: f.Get("first_due_date"), MonthlyAmount: f.Get("monthly_amount"),
		Currency: f.Get("currency"), Notes: f.Get("notes")}
}

func (f loanForm) request() finance.LoanRequest {
	var req finance.LoanRequest
	formRequest(&req, map[string]string{"name": f.Name, "lender": f.Lender, "principal": f.Principal, "interest_type": f.InterestType,
		"interest_rate": f.InterestRate, "rate_period": f.RatePeriod, "term_months": f.TermMonths, "start_date": f.StartDate,
		"first_due_date": f.FirstDueDate, "monthly_amount": f.MonthlyAmount, "currency": f.Currency, "notes": f.Notes})
	return req
}

// loanFieldsView is what the "loan-fields" partial shows: the fields'
// element ids start with ID.
type loanFieldsView struct {
	ID       string
	Form     loanForm
	Fields   map[string]string
	Currency currencyField
}

// newLoanFields is the loan's fields of form, their ids prefixed by id.
func newLoanFields(id string, form loanForm) loanFieldsView {
	return loanFieldsView{ID: id, Form: form, Fields: map[string]string{}, Currency: newCurrencyField(id)}
}

type loanNewData struct {
	Show  display
	Terms loanFieldsView
	// Preview is the loan and schedule the form would save; nil until asked for.
	Preview *finance.LoanDetail
}

func (s *Site) loanNewPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, show, ok, err := s.signedInShow(w, r.Request)
	if !ok || err != nil {
		return err
	}
	form := loanForm{InterestType: finance.InterestDiminishing, StartDate: show.today.String(), Currency: show.currency}
	return s.render(w, r.Request, "loannew", pageView{Title: "New loan", Nav: "loans", User: &u, CSRF: auth.CSRFToken(sid),
		Data: loanNewData{Show: show, Terms: newLoanFields("n", form)}})
}

// loanNewRefused shows the new loan form again with what was typed and
// each problem beside its field.
func (s *Site) loanNewRefused(w http.ResponseWriter, r *http.Request, p pageView, d loanNewData, what string, ve *finance.ValidationError) error {
	d.Terms.Fields = ve.Fields
	p.status, p.Data = http.StatusBadRequest, d
	p.refuseFields(what, ve)
	return s.render(w, r, "loannew", p)
}

// loanPreview shows the schedule the form would save, computed by the
// code that saves it, under the form as typed; nothing is written.
func (s *Site) loanPreview(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return err
	}
	form := postedLoanForm(r.PostForm)
	p := pageView{Title: "New loan", Nav: "loans", User: &u, CSRF: auth.CSRFToken(sid)}
	d := loanNewData{Show: show, Terms: newLoanFields("n", form)}
	l, err := s.ledger.PreviewLoan(r.Context(), u.ID, form.request())
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		return s.loanNewRefused(w, r.Request, p, d, "No schedule yet.", ve)
	} else if err != nil {
		return err
	}
	d.Preview = &l
	p.Data = d
	return s.render(w, r.Request, "loannew", p)
}

// loanCreate creates the loan and its schedule as POST /loans does, then
// shows the schedule.
func (s *Site) loanCreate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	form := postedLoanForm(r.PostForm)
	l, err := s.ledger.CreateLoan(r.Context(), u.ID, form.request())
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		show, serr := s.displayFor(r.Context(), u.ID)
		if serr != nil {
			return serr
		}
		p := pageView{Title: "New loan", Nav: "loans", User: &u, CSRF: auth.CSRFToken(sid)}
		return s.loanNewRefused(w, r.Request, p, loanNewData{Show: show, Terms: newLoanFields("n", form)}, "Not created.", ve)
	} else if err != nil {
		return err
	}
	return Redirect(w, r.Request, LoansPath+"/"+l.ID+"?notice=loan-created")
}

// --- A loan's page ------------------------------------------------------------------

// loanEditForm is the loan's descriptive fields, the ones PATCH /loans/{id} changes.
type loanEditForm struct {
	Name, Lender, Notes string
}

// loanPaymentRow is one payment of the loan with its installment's number.
type loanPaymentRow struct {
	finance.LoanPayment
	Installment int
}

type loanData struct {
	Show     display
	Loan     finance.LoanDetail
	Interest string // the interest terms in words
	// Selected is the installment the "Installment" card pays or changes:
	// the one asked for, else the first open one; nil when there is none.
	Selected   *finance.LoanInstance
	Form       payForm
	Fields     map[string]string
	Pay        payChoices
	Edit       loanEditForm
	EditFields map[string]string
	// TermsFixed is why the money terms no longer change ("" while they
	// may: then Terms is the whole loan's form).
	TermsFixed string
	Terms      loanFieldsView
	// PastOpen are the open installments due by today, which "Mark paid
	// through" offers (none unless the loan is active); Through is the one
	// chosen, the last by default.
	PastOpen   []finance.LoanInstance
	Through    string
	MarkFields map[string]string
	Payments   []loanPaymentRow
}

// instanceOpen reports whether an instance still expects money.
func instanceOpen(x finance.LoanInstance) bool {
	return x.Status == finance.InstanceUnpaid || x.Status == finance.InstancePartiallyPaid
}

// loanView reads loan id with its schedule and payments; installment (0:
// none asked for) picks the installment card's instance.
func (s *Site) loanView(r *http.Request, u finance.User, id string, installment int) (loanData, error) {
	ctx := r.Context()
	if !finance.ValidID(id) {
		return loanData{}, finance.NotFound("loan")
	}
	l, err := s.ledger.GetLoan(ctx, u.ID, id)
	if err != nil {
		return loanData{}, err
	}
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return loanData{}, err
	}
	accts, err := s.ledger.AccountOptions(ctx, u.ID)
	if err != nil {
		return loanData{}, err
	}
	d := loanData{Show: show, Loan: l, Fields: map[string]string{}, Pay: payChoices{Show: show, Accounts: accts},
		Edit: loanEditForm{Name: l.Name}, EditFields: map[string]string{}, MarkFields: map[string]string{},
		TermsFixed: finance.LoanTermsFixed(l), Terms: newLoanFields("e", loanFormOf(l.Loan))}
	d.Interest = loanInterest(l.Loan)
	if d.Terms.Currency, err = s.editCurrencyField(ctx, u.ID, "e", finance.RecordLoan, l.ID); err != nil {
		return d, err
	}
	if l.Lender != nil {
		d.Edit.Lender = *l.Lender
	}
	if l.Notes != nil {
		d.Edit.Notes = *l.Notes
	}
	for i, x := range l.Instances {
		if x.InstallmentNumber == installment || (installment == 0 && d.Selected == nil && instanceOpen(x)) {
			d.Selected = &l.Instances[i]
		}
		for _, p := range x.Payments {
			d.Payments = append(d.Payments, loanPaymentRow{LoanPayment: p, Installment: x.InstallmentNumber})
		}
		if l.Status == finance.LoanActive && instanceOpen(x) && !x.DueDate.After(show.today) {
			d.PastOpen = append(d.PastOpen, x)
			d.Through = x.DueDate.String()
		}
	}
	if d.Selected != nil {
		d.Form = payForm{Amount: d.Selected.Remaining.String(), Date: show.today.String()}
	}
	return d, nil
}

// loanFormOf is the form of loan l's fields as they are saved.
func loanFormOf(l finance.Loan) loanForm {
	f := loanForm{Name: l.Name, Principal: l.Principal.String(), InterestType: l.InterestType, TermMonths: strconv.Itoa(l.TermMonths),
		StartDate: l.StartDate.String(), FirstDueDate: l.FirstDueDate.String(), Currency: l.Currency}
	if l.Lender != nil {
		f.Lender = *l.Lender
	}
	if l.Notes != nil {
		f.Notes = *l.Notes
	}
	if l.InterestRate != nil {
		f.InterestRate = l.InterestRate.String()
	}
	if l.RatePeriod != nil {
		f.RatePeriod = *l.RatePeriod
	}
	if l.MonthlyAmount != nil {
		f.MonthlyAmount = l.MonthlyAmount.String()
	}
	return f
}

// loanInterest says how a loan's interest is computed: "None", "Add-on,
// 1.5% a month", "Diminishing balance, 12% a year".
func loanInterest(l finance.Loan) string {
	var b strings.Builder
	switch l.InterestType {
	case finance.InterestNone:
		return "None"
	case finance.InterestAddOn:
		b.WriteString("Add-on")
	default:
		b.WriteString("Diminishing balance")
	}
	if l.InterestRate != nil {
		b.WriteString(", " + l.InterestRate.String() + "%")
		if l.RatePeriod != nil && *l.RatePeriod == finance.RateAnnual {
			b.WriteString(" a year")
		} else {
			b.WriteString(" a month")
		}
	}
	return b.String()
}

func (s *Site) loanPage(w http.ResponseWriter, r bunrouter.Request) error {
	n, _ := strconv.Atoi(r.URL.Query().Get("installment")) // anything else: the next open one
	return showNamed(s, w, r, "loan", "loans", func(rq *http.Request, u finance.User) (loanData, error) {
		return s.loanView(rq, u, r.Param("id"), n)
	}, func(d loanData) string { return d.Loan.Name })
}

// loanRefused shows the loan's page again after a refused write, with the
// installment card on installment: a validation problem goes beside the
// fields of the form that fill puts back, any other refusal at the top in
// the API's words.
func (s *Site) loanRefused(w http.ResponseWriter, r *http.Request, u finance.User, sid, loanID string, installment int,
	err error, fill func(d *loanData, fields map[string]string)) error {
	status, ok := pageRefusal(err)
	if !ok {
		return err
	}
	d, verr := s.loanView(r, u, loanID, installment)
	if verr != nil {
		return verr
	}
	p := pageView{Title: d.Loan.Name, Nav: "loans", User: &u, CSRF: auth.CSRFToken(sid), status: status}
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		fill(&d, ve.Fields)
		p.refuseFields("Not saved.", ve)
	} else {
		_, detail := httperr.Response(err, "")
		p.Error = detail.Message
	}
	p.Data = d
	return s.render(w, r, "loan", p)
}

// loanPageReturn is the loan's page with the installment card on installment.
func loanPageReturn(loanID string, installment int, notice string) string {
	return fmt.Sprintf("%s/%s?installment=%d&notice=%s#installment", LoansPath, loanID, installment, notice)
}

// loanPayRefused answers a refused payment posted from the loan's page.
func (s *Site) loanPayRefused(w http.ResponseWriter, r *http.Request, u finance.User, sid, instanceID string, form payForm, err error) error {
	x, ferr := s.ledger.FindLoanInstance(r.Context(), u.ID, instanceID)
	if ferr != nil {
		return ferr
	}
	return s.loanRefused(w, r, u, sid, x.LoanID, x.InstallmentNumber, err, func(d *loanData, fields map[string]string) {
		d.Form, d.Fields = form, fields
	})
}

// loanUpdate saves the loan's form. The whole loan's form (it carries the
// principal) is PUT /loans/{id}: changed terms write the schedule again.
// The short form of a loan with payments is PATCH /loans/{id} with the
// name, lender and notes; an empty lender or notes clears it.
func (s *Site) loanUpdate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	id, f := r.Param("id"), r.PostForm
	if !finance.ValidID(id) {
		return finance.NotFound("loan")
	}
	var fill func(d *loanData, fields map[string]string)
	if f.Has("principal") {
		form := postedLoanForm(f)
		_, err = s.ledger.ReplaceLoan(r.Context(), u.ID, id, form.request())
		fill = func(d *loanData, fields map[string]string) { d.Terms.Form, d.Terms.Fields = form, fields }
	} else {
		form := loanEditForm{Name: f.Get("name"), Lender: f.Get("lender"), Notes: f.Get("notes")}
		_, err = s.ledger.UpdateLoan(r.Context(), u.ID, id, finance.LoanUpdateRequest{Name: finance.Of(form.Name),
			Lender: finance.Of(form.Lender), Notes: finance.Of(form.Notes)})
		fill = func(d *loanData, fields map[string]string) { d.Edit, d.EditFields = form, fields }
	}
	if errors.Is(err, finance.ErrNotFound) {
		return err
	} else if err != nil {
		return s.loanRefused(w, r.Request, u, sid, id, 0, err, fill)
	}
	return Redirect(w, r.Request, LoansPath+"/"+id+"?notice=loan-saved")
}

// loanMarkPaid marks every open installment due through the chosen date
// paid, as POST /loans/{id}/instances/mark-paid does.
func (s *Site) loanMarkPaid(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "loan")
	if !ok {
		return err
	}
	var req finance.LoanMarkPaidRequest
	through := r.PostForm.Get("through")
	formRequest(&req, map[string]string{"through": through})
	out, err := s.ledger.MarkLoanInstancesPaid(r.Context(), u.ID, id, req)
	if errors.Is(err, finance.ErrNotFound) {
		return err
	} else if err != nil {
		return s.loanRefused(w, r.Request, u, sid, id, 0, err, func(d *loanData, fields map[string]string) {
			d.Through, d.MarkFields = through, fields
		})
	}
	notice := "installments-marked"
	if len(out.Instances) == 0 {
		notice = "installments-none-open"
	}
	return Redirect(w, r.Request, LoansPath+"/"+id+"?notice="+notice)
}

// loanStatusSubmit cancels or reactivates the loan as PATCH /loans/{id}
// with a status does (§3.5).
func (s *Site) loanStatusSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "loan")
	if !ok {
		return err
	}
	l, err := s.ledger.UpdateLoan(r.Context(), u.ID, id, finance.LoanUpdateRequest{Status: finance.Of(r.PostForm.Get("status"))})
	if errors.Is(err, finance.ErrNotFound) {
		return err
	} else if err != nil {
		return s.loanRefused(w, r.Request, u, sid, id, 0, err, func(*loanData, map[string]string) {})
	}
	return Redirect(w, r.Request, LoansPath+"/"+id+"?notice=loan-"+l.Status)
}

// loanDelete erases a loan without payments as DELETE /loans/{id} does.
func (s *Site) loanDelete(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "loan")
	if !ok {
		return err
	}
	_, err = s.ledger.DeleteLoan(r.Context(), u.ID, id)
	if errors.Is(err, finance.ErrNotFound) {
		return err
	} else if err != nil {
		return s.loanRefused(w, r.Request, u, sid, id, 0, err, func(*loanData, map[string]string) {})
	}
	return Redirect(w, r.Request, LoansPath+"?notice=loan-deleted")
}

// loanInstanceStatusSubmit marks an installment paid (without money),
// waives it, or opens it again, as PATCH /loans/instances/{id}/status does
// (§3.6).
func (s *Site) loanInstanceStatusSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	id := r.Param("id")
	if !finance.ValidID(id) {
		return finance.NotFound("loan instance")
	}
	x, err := s.ledger.FindLoanInstance(r.Context(), u.ID, id)
	if err != nil {
		return err
	}
	out, err := s.ledger.SetLoanInstanceStatus(r.Context(), u.ID, id,
		finance.LoanInstanceStatusRequest{Status: finance.Of(r.PostForm.Get("status"))})
	if err != nil {
		return s.loanRefused(w, r.Request, u, sid, x.LoanID, x.InstallmentNumber, err, func(*loanData, map[string]string) {})
	}
	return Redirect(w, r.Request, loanPageReturn(x.LoanID, x.InstallmentNumber, "installment-"+out.Instance.Status))
}
