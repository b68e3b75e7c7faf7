package web

// The Bills and Loans pages of the web app: a month's bills as a calendar
// and as a list with a payment form per open bill and its Skip and Mark
// paid buttons; a bill's own page with its payments; and the loans with this
// month's dues and a payment form per open instance. Bill templates are in
// webapp_bill_templates.go, a loan's own page in webapp_loan.go. Every write
// goes through the same service calls as the REST routes, and a refused form
// is shown again with the problems beside its fields.

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/queryparam"
)

// Paths of the Bills and Loans pages.
const (
	BillsPath = "/bills"
	LoansPath = "/loans"
)

// webListLimit is how many bills or loans a page shows at most.
const webListLimit = 100

func (s *Site) registerWebAppBillLoanRoutes() {
	s.page(http.MethodGet, BillsPath, s.billsPage)
	s.page(http.MethodGet, BillsPath+"/:id", s.billPage)
	s.oncePage(BillsPath+"/:id/pay", s.billPaySubmit)
	s.page(http.MethodPost, BillsPath+"/:id/status", s.billStatusSubmit)
	s.page(http.MethodPost, BillsPath+"/:id", s.billUpdate)
	s.page(http.MethodPost, BillsPath+"/payments/:id/delete", s.billPaymentDelete)
	s.registerWebAppBillTemplateRoutes()
	s.page(http.MethodGet, LoansPath, s.loansPage)
	s.oncePage(LoansPath+"/instances/:id/pay", s.loanPaySubmit)
	s.registerWebAppLoanRoutes()
}

// --- Bills ------------------------------------------------------------------------

// billRow is one bill of the month with its payment form.
type billRow struct {
	finance.Bill
	Form   payForm
	Fields map[string]string // the form's problems, by field
}

type billsData struct {
	Show     display
	Month    finance.Date
	Months   monthNav
	Summary  finance.BillSummary
	Note     conversionNote // what the totals, in the reporting currency, left out
	Calendar billCalendar
	Bills    []billRow
	Pay      payChoices // the payment forms' pickers
}

// billCalendar is a month as the rows of a calendar: weeks of seven days
// from the user's week start, with the bills due on each day.
type billCalendar struct {
	Weekdays []time.Weekday
	Weeks    [][]calendarDay
}

// calendarDay is one cell of the calendar; a zero Date is a day of the
// first or last week that falls outside the month.
type calendarDay struct {
	Date    finance.Date
	Weekday time.Weekday
	Today   bool
	Bills   []finance.Bill
}

// newBillCalendar lays out month (its first day) in weeks that start as
// the week_start setting says, placing each bill on its due day.
func newBillCalendar(month, today finance.Date, weekStartsOn string, bills []finance.Bill) billCalendar {
	var c billCalendar
	start := finance.WeekStart(month, weekStartsOn)
	for i := range 7 {
		c.Weekdays = append(c.Weekdays, start.AddDays(i).In(time.UTC).Weekday())
	}
	byDay := map[int][]finance.Bill{}
	for _, b := range bills {
		if b.DueDate.MonthString() == month.MonthString() {
			byDay[b.DueDate.Day()] = append(byDay[b.DueDate.Day()], b)
		}
	}
	week := make([]calendarDay, start.DaysUntil(month))
	for day := 1; day <= finance.DaysInMonth(month.Year(), month.Month()); day++ {
		d := finance.NewDate(month.Year(), month.Month(), day)
		week = append(week, calendarDay{Date: d, Weekday: d.In(time.UTC).Weekday(), Today: d.Compare(today) == 0, Bills: byDay[day]})
		if len(week) == 7 {
			c.Weeks, week = append(c.Weeks, week), nil
		}
	}
	if len(week) > 0 {
		c.Weeks = append(c.Weeks, append(week, make([]calendarDay, 7-len(week))...))
	}
	return c
}

// billPayDefaults is a bill's payment form as it first shows: what remains,
// today, and the template's payment fields.
func billPayDefaults(b finance.Bill, today finance.Date) payForm {
	f := payForm{Amount: b.Remaining.String(), Date: today.String()}
	if b.DefaultPaymentMethod != nil {
		f.PaymentMethod = *b.DefaultPaymentMethod
	}
	if b.DefaultAccountID != nil {
		f.AccountID = *b.DefaultAccountID
	}
	if b.DefaultCreditCardID != nil {
		f.CreditCardID = *b.DefaultCreditCardID
	}
	return f
}

// billsView lists the bills due in month (its first day) with their forms'
// defaults: the remaining amount, today, and the template's payment fields.
func (s *Site) billsView(r *http.Request, u finance.User, month finance.Date) (billsData, error) {
	ctx := r.Context()
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return billsData{}, err
	}
	if month.IsZero() {
		month = finance.MonthAdd(show.today, 0, 1)
	}
	sum, err := s.ledger.SummarizeBills(ctx, u.ID, month)
	if err != nil {
		return billsData{}, err
	}
	opts, err := s.ledger.BillFormOptions(ctx, u.ID)
	if err != nil {
		return billsData{}, err
	}
	list, err := s.ledger.ListBills(ctx, u.ID, finance.BillFilter{DateFrom: month, DateTo: finance.MonthAdd(month, 0, 31)},
		finance.ListParams{Page: 1, Limit: webListLimit, SortBy: "due_date"})
	if err != nil {
		return billsData{}, err
	}
	st, err := s.ledger.AppSettings(ctx, u.ID)
	if err != nil {
		return billsData{}, err
	}
	d := billsData{Show: show, Month: month, Summary: sum, Calendar: newBillCalendar(month, show.today, st.WeekStart, list.Items),
		Pay:    payChoices{Show: show, Methods: opts.PaymentMethods, Accounts: opts.Accounts, Cards: opts.CreditCards},
		Months: monthsAround(BillsPath, month, show.today), Note: newConversionNote(show, "The summary", sum.ConversionNote)}
	for _, b := range list.Items {
		d.Bills = append(d.Bills, billRow{Bill: b, Form: billPayDefaults(b, show.today), Fields: map[string]string{}})
	}
	return d, nil
}

func (s *Site) billsPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showPage(s, w, r, "bills", "Bills", "bills", func(r *http.Request, u finance.User) (billsData, error) {
		var v finance.Validator
		month := queryparam.Month(&v, r.URL.Query(), "month")
		if err := v.Err(); err != nil {
			return billsData{}, err
		}
		return s.billsView(r, u, month)
	})
}

// billMonth is the month a bill form returns to: the bill's due month, or
// the current month when the bill cannot be read.
func (s *Site) billMonth(r *http.Request, u finance.User, id string) finance.Date {
	b, err := s.ledger.GetBill(r.Context(), u.ID, id)
	if err != nil {
		return finance.Date{}
	}
	return finance.MonthAdd(b.DueDate, 0, 1)
}

// billRefused shows the bills page of month again after a refused write:
// a validation problem beside the fields of the bill's form (holding what
// was sent), any other refusal in the API's words at the top.
func (s *Site) billRefused(w http.ResponseWriter, r bunrouter.Request, u finance.User, sid, id string, sent *payForm, err error) error {
	status, ok := pageRefusal(err)
	if !ok {
		return err
	}
	if fromBillPage(r.Request) && !errors.Is(err, finance.ErrNotFound) {
		return s.billPageRefused(w, r.Request, u, sid, id, status, err, "Not paid.", func(d *billData, fields map[string]string) {
			if sent != nil {
				d.Form = *sent
			}
			d.Fields = fields
		})
	}
	d, verr := s.billsView(r.Request, u, s.billMonth(r.Request, u, id))
	if verr != nil {
		return verr
	}
	p := pageView{Title: "Bills", Nav: "bills", User: &u, CSRF: auth.CSRFToken(sid), status: status, Data: d}
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		p.refuseFields("Not paid.", ve)
		for i := range d.Bills {
			if d.Bills[i].ID == id {
				if sent != nil {
					d.Bills[i].Form = *sent
				}
				d.Bills[i].Fields = ve.Fields
			}
		}
	} else {
		_, detail := httperr.Response(err, "")
		p.Error = detail.Message
	}
	return s.render(w, r.Request, "bills", p)
}

// billPaySubmit records a payment as POST /bills/{id}/payments does.
func (s *Site) billPaySubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	id := r.Param("id")
	form := postedPayForm(r.PostForm)
	var req finance.BillPaymentRequest
	formRequest(&req, form.values())
	if !finance.ValidID(id) {
		return s.billRefused(w, r, u, sid, id, nil, finance.ErrNotFound)
	}
	out, err := s.ledger.PayBill(r.Context(), u.ID, id, req)
	if err != nil {
		return s.billRefused(w, r, u, sid, id, &form, err)
	}
	s.keepWarnings(w, out.Warnings, nil)
	return Redirect(w, r.Request, billReturn(r.Request, out.Bill, "bill-paid"))
}

// billStatusSubmit skips a bill or marks it paid as POST /bills/{id}/status does.
func (s *Site) billStatusSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	id := r.Param("id")
	if !finance.ValidID(id) {
		return s.billRefused(w, r, u, sid, id, nil, finance.ErrNotFound)
	}
	var req finance.BillStatusRequest
	formRequest(&req, map[string]string{"status": r.PostForm.Get("status")})
	b, err := s.ledger.SetBillStatus(r.Context(), u.ID, id, req)
	if err != nil {
		return s.billRefused(w, r, u, sid, id, nil, err)
	}
	return Redirect(w, r.Request, billReturn(r.Request, b, "bill-"+b.Status))
}

// billUpdate changes one bill's amount, due date or notes as PUT /bills/{id}
// does; the bill counts as edited from then on, so its template leaves it
// alone.
func (s *Site) billUpdate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "bill")
	if !ok {
		return err
	}
	f := r.PostForm
	form := billEditForm{Amount: f.Get("amount"), DueDate: f.Get("due_date"), Notes: f.Get("notes")}
	var req finance.BillRequest
	// Every field is on the form: an emptied amount or date is refused as
	// required (sent as null), emptied notes are cleared.
	formRequest(&req, map[string]string{"amount": form.Amount, "due_date": form.DueDate, "notes": form.Notes}, "amount", "due_date", "notes")
	if _, err := s.ledger.UpdateBill(r.Context(), u.ID, id, req); err != nil {
		status, ok := pageRefusal(err)
		if !ok || errors.Is(err, finance.ErrNotFound) {
			return err
		}
		return s.billPageRefused(w, r.Request, u, sid, id, status, err, "Not saved.", func(d *billData, fields map[string]string) {
			d.Edit, d.EditFields = form, fields
		})
	}
	return Redirect(w, r.Request, BillsPath+"/"+id+"?notice=bill-saved")
}

// fromBillPage reports whether a bill form was posted from the bill's own
// page (rather than from the month's list), where its answer goes back to.
func fromBillPage(r *http.Request) bool { return r.PostForm.Get("from") == "bill" }

// billReturn is where a bill form goes after a write: the bill's own page
// or the month of the list it was posted from, with a notice.
func billReturn(r *http.Request, b finance.Bill, notice string) string {
	if fromBillPage(r) {
		return BillsPath + "/" + b.ID + "?notice=" + notice
	}
	return BillsPath + "?month=" + b.DueDate.MonthString() + "&notice=" + notice
}

// billData is a bill's own page: the bill, its payment form and status
// buttons, and its payments (posted and voided), newest first.
type billData struct {
	Show        display
	Bill        finance.Bill
	Form        payForm
	Fields      map[string]string
	Pay         payChoices
	Payments    []finance.BillPayment
	HasTemplate bool // its template still exists (it can be edited)
	Edit        billEditForm
	EditFields  map[string]string // the edit form's problems, by field
}

// billEditForm is the fields of one bill's edit form, as PUT /bills/{id}
// takes them.
type billEditForm struct {
	Amount, DueDate, Notes string
}

// billEditOf is the edit form filled in with the bill.
func billEditOf(b finance.Bill) billEditForm {
	f := billEditForm{Amount: b.Amount.String(), DueDate: b.DueDate.String()}
	if b.Notes != nil {
		f.Notes = *b.Notes
	}
	return f
}

func (s *Site) billView(r *http.Request, u finance.User, id string) (billData, error) {
	ctx := r.Context()
	if !finance.ValidID(id) {
		return billData{}, finance.NotFound("bill")
	}
	b, err := s.ledger.GetBill(ctx, u.ID, id)
	if err != nil {
		return billData{}, err
	}
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return billData{}, err
	}
	opts, err := s.ledger.BillFormOptions(ctx, u.ID)
	if err != nil {
		return billData{}, err
	}
	d := billData{Show: show, Bill: b, Form: billPayDefaults(b, show.today), Fields: map[string]string{},
		Edit: billEditOf(b), EditFields: map[string]string{},
		Pay:         payChoices{Show: show, Methods: opts.PaymentMethods, Accounts: opts.Accounts, Cards: opts.CreditCards},
		HasTemplate: slices.ContainsFunc(opts.Templates, func(t finance.TemplateOption) bool { return t.ID == b.TemplateID })}
	for _, status := range []string{finance.PaymentPosted, finance.StatusVoided} {
		list, err := s.ledger.ListBillPayments(ctx, u.ID, id, finance.BillPaymentFilter{Status: status},
			finance.ListParams{Page: 1, Limit: webListLimit, SortBy: "date", Desc: true})
		if err != nil {
			return billData{}, err
		}
		d.Payments = append(d.Payments, list.Items...)
	}
	return d, nil
}

// billPage is a bill's own page.
func (s *Site) billPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showNamed(s, w, r, "bill", "bills", func(rq *http.Request, u finance.User) (billData, error) {
		return s.billView(rq, u, r.Param("id"))
	}, func(d billData) string { return d.Bill.Name })
}

// billPageRefused shows a bill's page again after a refused write: a
// validation problem of its payment form beside the fields (holding what
// was sent), any other refusal in the API's words at the top.
func (s *Site) billPageRefused(w http.ResponseWriter, r *http.Request, u finance.User, sid, id string, status int, err error,
	not string, apply func(d *billData, fields map[string]string)) error {
	d, verr := s.billView(r, u, id)
	if verr != nil {
		return verr
	}
	p := pageView{Title: d.Bill.Name, Nav: "bills", User: &u, CSRF: auth.CSRFToken(sid), status: status, Data: d}
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		p.refuseFields(not, ve)
		apply(&d, ve.Fields)
		p.Data = d
	} else {
		_, detail := httperr.Response(err, "")
		p.Error = detail.Message
	}
	return s.render(w, r, "bill", p)
}

// billPaymentDelete voids a bill payment and its expense as DELETE
// /bills/payments/{paymentId} does, then returns to the bill's page, where a
// refusal (its card purchase is already on a statement) is shown.
func (s *Site) billPaymentDelete(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	id := r.Param("id")
	if !finance.ValidID(id) {
		return finance.NotFound("bill payment")
	}
	p, err := s.ledger.GetBillPayment(r.Context(), u.ID, id)
	if err != nil {
		return err
	}
	if _, err := s.ledger.DeleteBillPayment(r.Context(), u.ID, id); err != nil {
		status, ok := pageRefusal(err)
		if !ok {
			return err
		}
		return s.billPageRefused(w, r.Request, u, sid, p.BillID, status, err, "Not deleted.", func(*billData, map[string]string) {})
	}
	return Redirect(w, r.Request, BillsPath+"/"+p.BillID+"?notice=bill-payment-deleted")
}

// --- Loans ------------------------------------------------------------------------

// loanDueRow is one instance of this month's dues with its payment form.
type loanDueRow struct {
	finance.LoanInstance
	Form   payForm
	Fields map[string]string
}

type loansData struct {
	Show   display
	Loans  []finance.Loan // the active ones
	Closed []finance.Loan // completed and cancelled
	Dues   finance.LoanDues
	Note   conversionNote // what the dues' totals, in the reporting currency, left out
	Rows   []loanDueRow
	Pay    payChoices // the payment forms' account picker
}

func (s *Site) loansView(r *http.Request, u finance.User) (loansData, error) {
	ctx := r.Context()
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return loansData{}, err
	}
	loans, err := s.ledger.ListLoans(ctx, u.ID, finance.LoanFilter{},
		finance.ListParams{Page: 1, Limit: webListLimit, SortBy: "start_date"})
	if err != nil {
		return loansData{}, err
	}
	dues, err := s.ledger.CurrentMonthLoanDues(ctx, u.ID, finance.ListParams{Page: 1, Limit: webListLimit, SortBy: "due_date"})
	if err != nil {
		return loansData{}, err
	}
	accts, err := s.ledger.AccountOptions(ctx, u.ID)
	if err != nil {
		return loansData{}, err
	}
	d := loansData{Show: show, Dues: dues, Note: newConversionNote(show, "The summary", dues.ConversionNote),
		Pay: payChoices{Show: show, Accounts: accts}}
	for _, l := range loans.Items {
		if l.Status == finance.LoanActive {
			d.Loans = append(d.Loans, l)
		} else {
			d.Closed = append(d.Closed, l)
		}
	}
	for _, x := range dues.Items {
		d.Rows = append(d.Rows, loanDueRow{LoanInstance: x, Form: payForm{Amount: x.Remaining.String(), Date: show.today.String()},
			Fields: map[string]string{}})
	}
	return d, nil
}

func (s *Site) loansPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showPage(s, w, r, "loans", "Loans", "loans", s.loansView)
}

// loanPaySubmit records a payment as POST /loans/instances/{id}/payments does.
func (s *Site) loanPaySubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	id := r.Param("id")
	form := postedPayForm(r.PostForm)
	form.PaymentMethod, form.CreditCardID = "", "" // an installment is paid from an account or in cash
	var req finance.LoanPaymentRequest
	formRequest(&req, form.values())
	err = finance.ErrNotFound
	var out finance.LoanPaymentResult
	if finance.ValidID(id) {
		out, err = s.ledger.PayLoanInstance(r.Context(), u.ID, id, req)
	}
	fromLoan := r.PostForm.Get("from") == "loan" // the loan's own page
	s.keepWarnings(w, out.Warnings, nil)
	switch {
	case err == nil && fromLoan:
		return Redirect(w, r.Request, loanPageReturn(out.Loan.ID, out.Instance.InstallmentNumber, "loan-paid"))
	case err == nil:
		return Redirect(w, r.Request, LoansPath+"?notice=loan-paid")
	case fromLoan && !errors.Is(err, finance.ErrNotFound):
		return s.loanPayRefused(w, r.Request, u, sid, id, form, err)
	}
	status, ok := pageRefusal(err)
	if !ok {
		return err
	}
	d, verr := s.loansView(r.Request, u)
	if verr != nil {
		return verr
	}
	p := pageView{Title: "Loans", Nav: "loans", User: &u, CSRF: auth.CSRFToken(sid), status: status, Data: d}
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		p.refuseFields("Not paid.", ve)
		for i := range d.Rows {
			if d.Rows[i].ID == id {
				d.Rows[i].Form, d.Rows[i].Fields = form, ve.Fields
			}
		}
	} else {
		_, detail := httperr.Response(err, "")
		p.Error = detail.Message
	}
	return s.render(w, r.Request, "loans", p)
}
