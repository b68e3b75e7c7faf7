package server

// The Bills and Loans pages of the web app: a month's bills with a payment
// form per open bill and its Skip and Mark paid buttons, and the active
// loans with this month's dues and a payment form per open instance. Every
// write goes through the same service calls as the REST routes, and a
// refused form is shown again with the problems beside its fields.

import (
	"errors"
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server/auth"
)

// Paths of the Bills and Loans pages.
const (
	BillsPath = "/bills"
	LoansPath = "/loans"
)

// webListLimit is how many bills or loans a page shows at most.
const webListLimit = 100

func (s *Server) registerWebAppBillLoanRoutes() {
	s.page(http.MethodGet, BillsPath, s.billsPage)
	s.page(http.MethodPost, BillsPath+"/:id/pay", s.billPaySubmit)
	s.page(http.MethodPost, BillsPath+"/:id/status", s.billStatusSubmit)
	s.page(http.MethodGet, LoansPath, s.loansPage)
	s.page(http.MethodPost, LoansPath+"/instances/:id/pay", s.loanPaySubmit)
}

// --- Bills ------------------------------------------------------------------------

// billRow is one bill of the month with its payment form.
type billRow struct {
	finance.Bill
	Form   payForm
	Fields map[string]string // the form's problems, by field
}

type billsData struct {
	Show       display
	Month      finance.Date
	Prev, Next string
	Current    bool
	Summary    finance.BillSummary
	Bills      []billRow
	Pay        payChoices // the payment forms' pickers
}

// billsView lists the bills due in month (its first day) with their forms'
// defaults: the remaining amount, today, and the template's payment fields.
func (s *Server) billsView(r *http.Request, u finance.User, month finance.Date) (billsData, error) {
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
	d := billsData{Show: show, Month: month, Summary: sum,
		Pay:  payChoices{Show: show, Methods: opts.PaymentMethods, Accounts: opts.Accounts, Cards: opts.CreditCards},
		Prev: finance.MonthAdd(month, -1, 1).MonthString(), Next: finance.MonthAdd(month, 1, 1).MonthString(),
		Current: month.MonthString() == show.today.MonthString()}
	for _, b := range list.Items {
		f := payForm{Amount: b.Remaining.String(), Date: show.today.String()}
		if b.DefaultPaymentMethod != nil {
			f.PaymentMethod = *b.DefaultPaymentMethod
		}
		if b.DefaultAccountID != nil {
			f.AccountID = *b.DefaultAccountID
		}
		if b.DefaultCreditCardID != nil {
			f.CreditCardID = *b.DefaultCreditCardID
		}
		d.Bills = append(d.Bills, billRow{Bill: b, Form: f, Fields: map[string]string{}})
	}
	return d, nil
}

func (s *Server) billsPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	var v finance.Validator
	month := queryMonth(&v, r.URL.Query(), "month")
	if err := v.Err(); err != nil {
		return err
	}
	d, err := s.billsView(r.Request, u, month)
	if err != nil {
		return err
	}
	return s.render(w, r.Request, "bills", pageView{Title: "Bills", Nav: "bills", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[r.URL.Query().Get("notice")], Data: d})
}

// billMonth is the month a bill form returns to: the bill's due month, or
// the current month when the bill cannot be read.
func (s *Server) billMonth(r *http.Request, u finance.User, id string) finance.Date {
	b, err := s.ledger.GetBill(r.Context(), u.ID, id)
	if err != nil {
		return finance.Date{}
	}
	return finance.MonthAdd(b.DueDate, 0, 1)
}

// billRefused shows the bills page of month again after a refused write:
// a validation problem beside the fields of the bill's form (holding what
// was sent), any other refusal in the API's words at the top.
func (s *Server) billRefused(w http.ResponseWriter, r bunrouter.Request, u finance.User, sid, id string, sent *payForm, err error) error {
	status, ok := pageRefusal(err)
	if !ok {
		return err
	}
	d, verr := s.billsView(r.Request, u, s.billMonth(r.Request, u, id))
	if verr != nil {
		return verr
	}
	p := pageView{Title: "Bills", Nav: "bills", User: &u, CSRF: auth.CSRFToken(sid), status: status, Data: d}
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		p.Error = "Not paid. " + ve.Error() + "."
		for i := range d.Bills {
			if d.Bills[i].ID == id {
				if sent != nil {
					d.Bills[i].Form = *sent
				}
				d.Bills[i].Fields = ve.Fields
			}
		}
	} else {
		_, detail := errorResponse(err, "")
		p.Error = detail.Message
	}
	return s.render(w, r.Request, "bills", p)
}

// billPaySubmit records a payment as POST /bills/{id}/payments does.
func (s *Server) billPaySubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	if err := checkForm(r.Request, sid); err != nil {
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
	return redirect(w, r.Request, BillsPath+"?month="+out.Bill.DueDate.MonthString()+"&notice=bill-paid")
}

// billStatusSubmit skips a bill or marks it paid as POST /bills/{id}/status does.
func (s *Server) billStatusSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	if err := checkForm(r.Request, sid); err != nil {
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
	return redirect(w, r.Request, BillsPath+"?month="+b.DueDate.MonthString()+"&notice=bill-"+b.Status)
}

// --- Loans ------------------------------------------------------------------------

// loanDueRow is one instance of this month's dues with its payment form.
type loanDueRow struct {
	finance.LoanInstance
	Form   payForm
	Fields map[string]string
}

type loansData struct {
	Show  display
	Loans []finance.Loan
	Dues  finance.LoanDues
	Rows  []loanDueRow
	Pay   payChoices // the payment forms' account picker
}

func (s *Server) loansView(r *http.Request, u finance.User) (loansData, error) {
	ctx := r.Context()
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return loansData{}, err
	}
	loans, err := s.ledger.ListLoans(ctx, u.ID, finance.LoanFilter{Status: finance.LoanActive},
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
	d := loansData{Show: show, Loans: loans.Items, Dues: dues, Pay: payChoices{Show: show, Accounts: accts}}
	for _, x := range dues.Items {
		d.Rows = append(d.Rows, loanDueRow{LoanInstance: x, Form: payForm{Amount: x.Remaining.String(), Date: show.today.String()},
			Fields: map[string]string{}})
	}
	return d, nil
}

func (s *Server) loansPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	d, err := s.loansView(r.Request, u)
	if err != nil {
		return err
	}
	return s.render(w, r.Request, "loans", pageView{Title: "Loans", Nav: "loans", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[r.URL.Query().Get("notice")], Data: d})
}

// loanPaySubmit records a payment as POST /loans/instances/{id}/payments does.
func (s *Server) loanPaySubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	if err := checkForm(r.Request, sid); err != nil {
		return err
	}
	id := r.Param("id")
	form := postedPayForm(r.PostForm)
	form.PaymentMethod, form.CreditCardID = "", "" // an installment is paid from an account or in cash
	var req finance.LoanPaymentRequest
	formRequest(&req, form.values())
	err = finance.ErrNotFound
	if finance.ValidID(id) {
		_, err = s.ledger.PayLoanInstance(r.Context(), u.ID, id, req)
	}
	if err == nil {
		return redirect(w, r.Request, LoansPath+"?notice=loan-paid")
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
		p.Error = "Not paid. " + ve.Error() + "."
		for i := range d.Rows {
			if d.Rows[i].ID == id {
				d.Rows[i].Form, d.Rows[i].Fields = form, ve.Fields
			}
		}
	} else {
		_, detail := errorResponse(err, "")
		p.Error = detail.Message
	}
	return s.render(w, r.Request, "loans", p)
}
