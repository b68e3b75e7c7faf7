package server

// The web app for people: Home (the month's dashboard with a spending
// chart), Record (an expense or income form) and the expense list. These
// pages use the web session and form tokens of the other pages, call the
// finance service directly, and show its validation problems next to the
// fields they concern, in the words the API uses.

import (
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server/auth"
)

// Paths of the web app.
const (
	HomePath     = "/"
	RecordPath   = "/record"
	ExpensesPath = "/expenses"
)

func (s *Server) registerWebAppRoutes() {
	s.page(http.MethodGet, RecordPath, s.recordPage)
	s.page(http.MethodPost, RecordPath, s.recordSubmit)
	s.page(http.MethodGet, ExpensesPath, s.expensesPage)
	s.page(http.MethodPost, ExpensesPath+"/:id/void", s.expenseVoid)
	s.registerWebAppCardRoutes()
}

// redirect ends a page request with a 303 to target.
func redirect(w http.ResponseWriter, r *http.Request, target string) error {
	setPageHeaders(w.Header(), "")
	http.Redirect(w, r, target, http.StatusSeeOther)
	return nil
}

// --- Home -------------------------------------------------------------------------

type homeData struct {
	Show        display
	Month       finance.Date // the month's first day
	Prev, Next  string       // YYYY-MM of the months around it
	D           finance.Dashboard
	Bars        []chartBar // spending by category, the chart's and the table's figures
	Chart       template.HTML
	CurrentPage bool // the month is the current one
}

// otherCategories labels the bar of the spending outside the top categories.
const otherCategories = "Other categories"

// spendingBars are the dashboard's top categories plus one bar for the
// rest of the month's spending, so the bars add up to the month's total.
func spendingBars(d finance.Dashboard, show display) []chartBar {
	bars := make([]chartBar, 0, len(d.TopCategories)+1)
	var shown finance.Money
	for _, c := range d.TopCategories {
		bars = append(bars, chartBar{Label: c.Category, Value: c.Amount, Text: show.Money(c.Amount)})
		shown += c.Amount
	}
	if rest := d.Totals.Spending - shown; rest > 0 {
		bars = append(bars, chartBar{Label: otherCategories, Value: rest, Text: show.Money(rest)})
	}
	return bars
}

// homePage is the dashboard of ?month=YYYY-MM, by default the current month
// in the user's timezone.
func (s *Server) homePage(w http.ResponseWriter, r *http.Request, u finance.User, sid string) error {
	var v finance.Validator
	month := queryMonth(&v, r.URL.Query(), "month")
	if err := v.Err(); err != nil {
		return err
	}
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return err
	}
	d, err := s.ledger.Dashboard(r.Context(), u.ID, month)
	if err != nil {
		return err
	}
	first, err := finance.ParseMonth(d.Month)
	if err != nil {
		return err
	}
	data := homeData{Show: show, Month: first, D: d,
		Prev:        finance.MonthAdd(first, -1, 1).MonthString(),
		Next:        finance.MonthAdd(first, 1, 1).MonthString(),
		CurrentPage: first.MonthString() == show.today.MonthString()}
	data.Bars = spendingBars(d, show)
	data.Chart = barChart("Spending by category, "+show.Month(first), data.Bars)
	return s.render(w, r, "home", pageView{Title: "Home", Nav: "home", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[r.URL.Query().Get("notice")], Data: data})
}

// --- Record -----------------------------------------------------------------------

// Kinds of record the form writes.
const (
	kindExpense = "expense"
	kindIncome  = "income"
)

// recordForm is what the form holds: its defaults, or what was sent.
type recordForm struct {
	Amount, Date, Description, Category, PaymentMethod, AccountID, CreditCardID string
}

type recordData struct {
	Show       display
	Kind       string
	Form       recordForm
	Fields     map[string]string
	Methods    []string
	Categories []finance.CategoryOption
	Accounts   []finance.AccountOption
	Cards      []finance.CardOption
}

// recordKind is the form's kind from the query or the posted form.
func recordKind(s string) string {
	if s == kindIncome {
		return kindIncome
	}
	return kindExpense
}

// recordView builds the form of kind holding form, with the pickers'
// choices from the same form options as the REST routes.
func (s *Server) recordView(r *http.Request, u finance.User, kind string, form recordForm) (recordData, error) {
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return recordData{}, err
	}
	d := recordData{Show: show, Kind: kind, Form: form, Fields: map[string]string{}}
	if kind == kindIncome {
		opts, err := s.ledger.IncomeFormOptions(r.Context(), u.ID)
		if err != nil {
			return recordData{}, err
		}
		d.Categories, d.Accounts = opts.Categories, opts.Accounts
	} else {
		opts, err := s.ledger.ExpenseFormOptions(r.Context(), u.ID)
		if err != nil {
			return recordData{}, err
		}
		d.Methods, d.Categories, d.Accounts, d.Cards = opts.PaymentMethods, opts.Categories, opts.Accounts, opts.CreditCards
		if d.Form.PaymentMethod == "" {
			d.Form.PaymentMethod = opts.DefaultPaymentMethod
		}
	}
	if d.Form.Date == "" {
		d.Form.Date = show.today.String()
	}
	return d, nil
}

func (s *Server) recordPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	kind := recordKind(r.URL.Query().Get("kind"))
	d, err := s.recordView(r.Request, u, kind, recordForm{})
	if err != nil {
		return err
	}
	return s.render(w, r.Request, "record", pageView{Title: "Record", Nav: "record", User: &u, CSRF: auth.CSRFToken(sid), Data: d})
}

// recordSubmit writes the expense or income through the same service call
// as POST /expenses and POST /income. A refused form is shown again with
// what was sent and the problems beside their fields; nothing is written.
func (s *Server) recordSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	if err := checkForm(r.Request, sid); err != nil {
		return err
	}
	f := r.PostForm
	kind := recordKind(f.Get("kind"))
	form := recordForm{Amount: f.Get("amount"), Date: f.Get("date"), Description: f.Get("description"), Category: f.Get("category"),
		PaymentMethod: f.Get("payment_method"), AccountID: f.Get("account_id"), CreditCardID: f.Get("credit_card_id")}
	var written finance.Date
	if kind == kindIncome {
		var req finance.IncomeRequest
		formRequest(&req, map[string]string{"amount": form.Amount, "date": form.Date, "description": form.Description,
			"category": form.Category, "account_id": form.AccountID})
		var in finance.Income
		in, err = s.ledger.CreateIncome(r.Context(), u.ID, req)
		written = in.Date
	} else {
		fields := map[string]string{"amount": form.Amount, "date": form.Date, "description": form.Description,
			"category": form.Category, "payment_method": form.PaymentMethod}
		// Both pickers are on the page; only the chosen method's is sent on.
		switch m, _ := finance.ParsePaymentMethod(form.PaymentMethod); m {
		case finance.MethodAccountDebit:
			fields["account_id"] = form.AccountID
		case finance.MethodCreditCard:
			fields["credit_card_id"] = form.CreditCardID
		}
		var req finance.ExpenseRequest
		formRequest(&req, fields)
		var e finance.Expense
		e, err = s.ledger.CreateExpense(r.Context(), u.ID, req)
		written = e.Date
	}
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		d, verr := s.recordView(r.Request, u, kind, form)
		if verr != nil {
			return verr
		}
		d.Fields = ve.Fields
		return s.render(w, r.Request, "record", pageView{Title: "Record", Nav: "record", User: &u, CSRF: auth.CSRFToken(sid),
			status: http.StatusBadRequest, Error: "Not recorded. " + ve.Error() + ".", Data: d})
	} else if err != nil {
		return err
	}
	return redirect(w, r.Request, HomePath+"?month="+written.MonthString()+"&notice="+kind+"-recorded")
}

// formRequest fills a request of Fields from form values as a multipart
// REST body is read (every value a string), so the service sees what it
// would see from the API and reports the same problems. An empty value is
// left out, as a field not sent: "amount is required", not a format error;
// on an edit form, an emptied field named in clearable is sent as null,
// which clears it as PUT does.
func formRequest(dst any, values map[string]string, clearable ...string) {
	obj := map[string]any{}
	for k, v := range values {
		if strings.TrimSpace(v) != "" {
			obj[k] = v
		} else if slices.Contains(clearable, k) {
			obj[k] = nil
		}
	}
	b, _ := json.Marshal(obj)  // strings and nulls only: it cannot fail
	_ = json.Unmarshal(b, dst) // Fields record problems instead of failing
}

// --- Expenses -----------------------------------------------------------------------

// expensesPageSize is the number of expenses per page of the list.
const expensesPageSize = 20

// expenseFilter is the list's filter form, with the API's query names.
type expenseFilter struct {
	DateFrom, DateTo, Search, Category string
}

// query is the filter as a query string, without the page.
func (f expenseFilter) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"dateFrom": f.DateFrom, "dateTo": f.DateTo, "search": f.Search, "category": f.Category} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

type expensesData struct {
	Show       display
	Filter     expenseFilter
	Fields     map[string]string
	Categories []finance.CategoryOption
	Items      []finance.Expense
	Pagination finance.Pagination
	Prev, Next string // links to the pages around this one, "" when none
	Back       string // this page's address, where a void returns to
}

func (s *Server) expensesPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	q := r.URL.Query()
	filter := expenseFilter{DateFrom: q.Get("dateFrom"), DateTo: q.Get("dateTo"), Search: q.Get("search"), Category: q.Get("category")}
	p := pageView{Title: "Expenses", Nav: "expenses", User: &u, CSRF: auth.CSRFToken(sid), Notice: notices[q.Get("notice")]}
	d, err := s.expensesView(r.Request, u, filter, q.Get("page"))
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		p.status, p.Error = http.StatusBadRequest, ve.Error()+"."
	} else if err != nil {
		return err
	}
	p.Data = d
	return s.render(w, r.Request, "expenses", p)
}

// expensesView lists a page of the active expenses through the filter. A
// filter the API would refuse is returned as its ValidationError with the
// form (and no rows) to show it on.
func (s *Server) expensesView(r *http.Request, u finance.User, filter expenseFilter, pageText string) (expensesData, error) {
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return expensesData{}, err
	}
	cats, err := s.ledger.CategoryOptions(r.Context(), u.ID, finance.KindExpense)
	if err != nil {
		return expensesData{}, err
	}
	d := expensesData{Show: show, Filter: filter, Fields: map[string]string{}, Categories: cats}
	var v finance.Validator
	from, to := dateRange(&v, filter.query())
	page := 1
	if pageText != "" {
		n, err := strconv.Atoi(pageText)
		if err != nil || n < 1 {
			v.Add("page", "must be a positive integer")
		}
		page = max(n, 1)
	}
	if err := v.Err(); err != nil {
		var ve *finance.ValidationError
		errors.As(err, &ve)
		d.Fields = ve.Fields
		return d, err
	}
	list, err := s.ledger.ListExpenses(r.Context(), u.ID,
		finance.ExpenseFilter{Status: finance.StatusActive, DateFrom: from, DateTo: to, Search: filter.Search, Category: filter.Category},
		finance.ListParams{Page: page, Limit: expensesPageSize, SortBy: "date", Desc: true})
	if err != nil {
		return d, err
	}
	d.Items, d.Pagination = list.Items, list.Pagination
	link := func(n int) string {
		q := filter.query()
		if n > 1 {
			q.Set("page", strconv.Itoa(n))
		}
		if len(q) == 0 {
			return ExpensesPath
		}
		return ExpensesPath + "?" + q.Encode()
	}
	if page > 1 {
		d.Prev = link(page - 1)
	}
	if page < d.Pagination.TotalPages {
		d.Next = link(page + 1)
	}
	d.Back = link(page)
	return d, nil
}

// expenseVoid voids an expense as DELETE /expenses/{id} does, then returns
// to the list page it was on. A refusal (a billed card purchase, say) is
// shown on the list in the API's words.
func (s *Server) expenseVoid(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	if err := checkForm(r.Request, sid); err != nil {
		return err
	}
	back := safeNext(r.PostForm.Get("back"))
	if !strings.HasPrefix(back, ExpensesPath) {
		back = ExpensesPath
	}
	_, err = s.ledger.VoidExpense(r.Context(), u.ID, r.Param("id"))
	if status, ok := pageRefusal(err); ok {
		d, verr := s.expensesView(r.Request, u, expenseFilter{}, "")
		if verr != nil {
			return verr
		}
		_, detail := errorResponse(err, "")
		return s.render(w, r.Request, "expenses", pageView{Title: "Expenses", Nav: "expenses", User: &u, CSRF: auth.CSRFToken(sid),
			status: status, Error: detail.Message, Data: d})
	} else if err != nil {
		return err
	}
	sep := "?"
	if strings.Contains(back, "?") {
		sep = "&"
	}
	return redirect(w, r.Request, back+sep+"notice=expense-voided")
}

// pageRefusal reports whether err is a refusal a page shows the person (a
// validation problem, a state rule, a missing record) rather than a failure,
// and the status the API gives it, from the one error table.
func pageRefusal(err error) (int, bool) {
	var ve *finance.ValidationError
	if !errors.As(err, &ve) && !errors.Is(err, finance.ErrInvalidStatus) && !errors.Is(err, finance.ErrNotFound) {
		return 0, false
	}
	status, _ := errorResponse(err, "")
	return status, true
}
