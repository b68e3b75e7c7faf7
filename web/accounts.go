package web

// The Accounts pages of the web app: the accounts with their balances (a
// create form, and archived ones behind a filter), and one account with
// its lines (the line list's filters, sort and paging), an edit form,
// archive and unarchive, a form for a manual line and a void button on the
// lines the API lets a person void. Every write goes through the same
// service call as the REST route; a refused form is shown again with the
// problems beside its fields, and nothing is written.

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/queryparam"
)

// AccountsPath is the web app's list of accounts; an account is AccountsPath/{id}.
const AccountsPath = "/accounts"

func (s *Site) registerWebAppAccountRoutes() {
	s.page(http.MethodGet, AccountsPath, s.accountsPage)
	s.oncePage(AccountsPath, s.accountCreate)
	s.page(http.MethodGet, AccountsPath+"/:id", s.accountPage)
	s.page(http.MethodPost, AccountsPath+"/:id", s.accountEdit)
	s.page(http.MethodPost, AccountsPath+"/:id/archive", s.accountArchive)
	s.page(http.MethodPost, AccountsPath+"/:id/unarchive", s.accountArchive)
	s.oncePage(AccountsPath+"/:id/lines", s.accountLineCreate)
	s.page(http.MethodPost, AccountsPath+"/:id/lines/:lineId/void", s.accountLineVoid)
}

// choice is one option of a picker: the API's value and the words shown.
type choice struct{ Value, Label string }

// choices are the options of a picker for the API's values, in words.
func choices[T ~string](values ...T) []choice {
	out := make([]choice, len(values))
	for i, v := range values {
		out[i] = choice{Value: string(v), Label: label(string(v))}
	}
	return out
}

// valueWords are the words of the API's values whose plain capitalization
// would read oddly; label does the rest.
var valueWords = map[string]string{
	"e_wallet": "E-wallet", "soa_payment": "Statement payment", "loan_payment": "Loan payment",
	"add_on": "Add-on", "debit": "Money out (debit)", "credit": "Money in (credit)",
	"none": "No interest", "created_at": "Date added",
	"ok": "On track", "warning": "Near limit", "exceeded": "Over limit", // a budget's state
	"biweekly": "Every two weeks", "semimonthly": "Twice a month", "semiannual": "Twice a year",
	"expense": "Expense", "income": "Income", "pro": "Pro", "free": "Free",
	"csv": "CSV", "ofx": "OFX", "qif": "QIF", "camt": "CAMT", "mt940": "MT940", // an import's file format
	"account_line": "Account line (not spending)", "card_fee": "Card fee", "card_refund": "Card refund", // what an imported row becomes
}

// label is an API value in words: "partially_paid" is "Partially paid".
// Templates call it as {{label .Status}}, with a string or any string type
// (finance.AccountType, say); a nil pointer is "".
func label(v any) string {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.String {
		return ""
	}
	value := rv.String()
	if w, ok := valueWords[value]; ok {
		return w
	}
	return capitalize(strings.ReplaceAll(value, "_", " "))
}

// capitalize is s with its first letter upper case.
func capitalize(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// refusal fills p with a refused write's status and message: a validation
// problem as "<prefix> <the problems>." with its fields returned for the
// form, a refusalAdvice as its advice and link, any other refusal in the
// API's words. ok is false when err is a failure rather than a refusal.
func refusal(p *pageView, err error, prefix string) (fields map[string]string, ok bool) {
	status, ok := pageRefusal(err)
	if !ok {
		return nil, false
	}
	p.status = status
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		p.refuseFields(prefix, ve)
		return ve.Fields, true
	}
	var advice *refusalAdvice
	if errors.As(err, &advice) {
		p.Error, p.ErrorLink = advice.message, &advice.link
		return nil, true
	}
	_, detail := httperr.Response(err, "")
	p.Error = detail.Message
	return nil, true
}

// problems are the fields of a refusal the API words as a ValidationError,
// nil for any other error.
func problems(err error) map[string]string {
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		return ve.Fields
	}
	return nil
}

// filterRefused shows a list filter the API refuses (err, a
// ValidationError whose fields the view already holds) at the top of p with
// status 400; any other error is returned.
func filterRefused(p *pageView, err error) error {
	var ve *finance.ValidationError
	if err == nil || !errors.As(err, &ve) {
		return err
	}
	p.status = http.StatusBadRequest
	p.refuseFields("", ve)
	return nil
}

// withNotice adds notice=name to a page address.
func withNotice(target, name string) string {
	sep := "?"
	if strings.Contains(target, "?") {
		sep = "&"
	}
	return target + sep + "notice=" + name
}

// listPage reads page, sortBy and sortOrder of a web list as the REST
// route reads them (the API's words for a bad value), webPageSize rows a page.
func listPage(v *finance.Validator, q url.Values, spec finance.ListSpec) finance.ListParams {
	lq := url.Values{}
	for _, k := range []string{"page", "sortBy", "sortOrder"} {
		if x := q.Get(k); x != "" {
			lq.Set(k, x)
		}
	}
	p, err := queryparam.List(lq, spec)
	v.Merge("", err)
	p.Limit = webPageSize
	return p
}

// pager holds the links of a paged list: the pages around this one ("" when
// none) and this page's own address, where a row's button returns to.
type pager struct {
	Pagination       finance.Pagination
	Prev, Next, Self string
}

// newPager links the pages of a list at path whose filter is q (without page).
func newPager(path string, q url.Values, pg finance.Pagination) pager {
	link := func(n int) string {
		lq := url.Values{}
		for k, v := range q {
			if len(v) > 0 && v[0] != "" && k != "page" && k != "notice" {
				lq.Set(k, v[0])
			}
		}
		if n > 1 {
			lq.Set("page", strconv.Itoa(n))
		}
		if len(lq) == 0 {
			return path
		}
		return path + "?" + lq.Encode()
	}
	p := pager{Pagination: pg, Self: link(pg.Page)}
	if pg.Page > 1 {
		p.Prev = link(pg.Page - 1)
	}
	if pg.Page < pg.TotalPages {
		p.Next = link(pg.Page + 1)
	}
	return p
}

// --- the account form -----------------------------------------------------------

// accountForm is the account form's fields: their defaults, or what was sent.
type accountForm struct {
	Name, Type, Institution, Last4, OpeningBalance, Currency, Notes string
}

func postedAccountForm(f url.Values) accountForm {
	return accountForm{Name: f.Get("name"), Type: f.Get("type"), Institution: f.Get("institution"),
		Last4: f.Get("account_number_last4"), OpeningBalance: f.Get("opening_balance"), Currency: f.Get("currency"), Notes: f.Get("notes")}
}

func accountFormOf(a finance.Account) accountForm {
	f := accountForm{Name: a.Name, Type: string(a.Type), OpeningBalance: a.OpeningBalance.String(), Currency: a.Currency}
	if a.Institution != nil {
		f.Institution = *a.Institution
	}
	if a.AccountNumberLast4 != nil {
		f.Last4 = *a.AccountNumberLast4
	}
	if a.Notes != nil {
		f.Notes = *a.Notes
	}
	return f
}

// request is the form as the body of POST or PUT /accounts. On an edit,
// every field is sent: an emptied one is null, which clears an optional
// field (the opening balance back to 0) and is "required" for the others.
func (f accountForm) request(edit bool) finance.AccountRequest {
	var req finance.AccountRequest
	values := map[string]string{"name": f.Name, "type": f.Type, "institution": f.Institution,
		"account_number_last4": f.Last4, "opening_balance": f.OpeningBalance, "currency": f.Currency, "notes": f.Notes}
	if edit {
		formRequest(&req, values, slices.Collect(maps.Keys(values))...)
	} else {
		formRequest(&req, values)
	}
	return req
}

// accountFormView is what the "account-fields" partial shows.
type accountFormView struct {
	ID       string // the prefix of the fields' element ids
	Form     accountForm
	Fields   map[string]string
	Types    []choice
	Currency currencyField
}

func newAccountFormView(id string, f accountForm) accountFormView {
	return accountFormView{ID: id, Form: f, Fields: map[string]string{}, Types: choices(finance.AccountTypes...),
		Currency: newCurrencyField(id)}
}

// --- Accounts -----------------------------------------------------------------------

type accountsData struct {
	Show         display
	Status       string // the filter: active, archived or all
	Statuses     []choice
	Items        []finance.Account
	Total        finance.Money  // the balances shown, in the reporting currency
	Lines        *currencyLines // the balances per currency, when there are several
	Note         conversionNote
	Beside       map[string]string // what each balance in another currency shows beside it, by id
	New          accountFormView
	FilterFields map[string]string
}

// accountsView lists the accounts of the status filter, by name.
func (s *Site) accountsView(r *http.Request, u finance.User, status string) (accountsData, error) {
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return accountsData{}, err
	}
	d := accountsData{Show: show, Status: status, Statuses: choices(finance.StatusActive, finance.StatusArchived, finance.StatusAll),
		New: newAccountFormView("new", accountForm{Type: string(finance.AccountSavings), Currency: show.currency}), FilterFields: map[string]string{}}
	f, err := finance.ParseAccountFilter(status, "", "")
	if err != nil {
		d.FilterFields = problems(err)
		return d, err
	}
	d.Status = f.Status
	list, err := s.ledger.ListAccounts(r.Context(), u.ID, f, finance.ListParams{Page: 1, Limit: finance.MaxLimit, SortBy: "name"})
	if err != nil {
		return d, err
	}
	d.Items, d.Total = list.Items, list.Total
	d.Lines = newCurrencyLines(show, "Balances by currency", list.ByCurrency)
	d.Note = newConversionNote(show, "The total", list.Note)
	amounts := make([]convertible, len(list.Items))
	for i, a := range list.Items {
		amounts[i] = convertible{ID: a.ID, Amount: a.CurrentBalance, Currency: a.Currency, Date: show.today}
	}
	d.Beside, err = s.convertedBeside(r.Context(), u.ID, show, amounts)
	return d, err
}

func (s *Site) accountsPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showStatusList(s, w, r, "accounts", "Accounts", s.accountsView)
}

// accountCreate creates an account as POST /accounts does, then opens it.
func (s *Site) accountCreate(w http.ResponseWriter, r bunrouter.Request) error {
	return createThenOpen(s, w, r, "accounts", "Accounts", postedAccountForm,
		func(ctx context.Context, userID string, form accountForm) (string, error) {
			a, err := s.ledger.CreateAccount(ctx, userID, form.request(false))
			return AccountsPath + "/" + a.ID + "?notice=account-created", err
		},
		s.accountsView, func(d *accountsData, form accountForm, fields map[string]string) {
			d.New.Form, d.New.Fields = form, fields
		})
}

// --- one account --------------------------------------------------------------------

// lineForm is the manual line form's fields.
type lineForm struct {
	Type, Amount, Date, Description string
}

type accountData struct {
	Show         display
	Account      finance.Account
	Edit         accountFormView
	Line         lineForm
	LineFields   map[string]string
	Adjust       adjustForm
	AdjustFields map[string]string
	LineList
}

// accountView shows account id with a page of its lines through the
// filter of q. A filter the API would refuse comes back as its
// ValidationError, with the page (and no lines) to show it on.
func (s *Site) accountView(r *http.Request, u finance.User, id string, q url.Values) (accountData, error) {
	ctx := r.Context()
	if !finance.ValidID(id) {
		return accountData{}, finance.NotFound("account")
	}
	a, err := s.ledger.GetAccount(ctx, u.ID, id)
	if err != nil {
		return accountData{}, err
	}
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return accountData{}, err
	}
	d := accountData{Show: show, Account: a, Edit: newAccountFormView("edit", accountFormOf(a)),
		Line: lineForm{Type: finance.LineDebit, Date: show.today.String()}, LineFields: map[string]string{},
		Adjust: adjustForm{TargetBalance: a.CurrentBalance.String(), Date: show.today.String()}, AdjustFields: map[string]string{}}
	if d.Edit.Currency, err = s.editCurrencyField(ctx, u.ID, "edit", finance.RecordAccount, a.ID); err != nil {
		return d, err
	}
	d.LineList, err = s.lineList(r, u, AccountsPath+"/"+a.ID, q, a.ID)
	return d, err
}

func (s *Site) accountPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showFilteredRecord(s, w, r, "account", "accounts", s.accountView, accountTitle)
}

func accountTitle(d accountData) string { return d.Account.Name }

// accountRefused shows the account page again after a refused write on it;
// keep puts what was sent back in the form it came from, with its problems.
func (s *Site) accountRefused(w http.ResponseWriter, r bunrouter.Request, u finance.User, sid string, err error, prefix string,
	keep func(d *accountData, fields map[string]string)) error {
	var kept func(d *accountData, fields map[string]string)
	if keep != nil {
		kept = func(d *accountData, fields map[string]string) {
			if fields != nil {
				keep(d, fields)
			}
		}
	}
	return refusedOn(s, w, r.Request, u, sid, "account", "accounts", err, prefix,
		func() (accountData, error) { return s.accountView(r.Request, u, r.Param("id"), url.Values{}) }, kept, accountTitle)
}

// accountEdit changes the account as PUT /accounts/{id} does.
func (s *Site) accountEdit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "account")
	if !ok {
		return err
	}
	form := postedAccountForm(r.PostForm)
	if _, err := s.ledger.UpdateAccount(r.Context(), u.ID, id, form.request(true)); err != nil {
		return s.accountRefused(w, r, u, sid, err, "Not saved.", func(d *accountData, fields map[string]string) {
			d.Edit.Form, d.Edit.Fields = form, fields
		})
	}
	return Redirect(w, r.Request, AccountsPath+"/"+id+"?notice=account-saved")
}

// accountArchive archives or unarchives the account as PATCH
// /accounts/{id}/archive and /unarchive do.
func (s *Site) accountArchive(w http.ResponseWriter, r bunrouter.Request) error {
	return archiveToggle(s, w, r, "account", AccountsPath, "account", s.ledger.ArchiveAccount, s.ledger.UnarchiveAccount,
		func(u finance.User, sid, _ string, err error) error {
			return s.accountRefused(w, r, u, sid, err, "Not changed.", nil)
		})
}

// accountLineCreate posts a manual line as POST /accounts/{id}/transactions does.
func (s *Site) accountLineCreate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "account")
	if !ok {
		return err
	}
	f := r.PostForm
	form := lineForm{Type: f.Get("type"), Amount: f.Get("amount"), Date: f.Get("date"), Description: f.Get("description")}
	var req finance.AccountTransactionRequest
	formRequest(&req, map[string]string{"type": form.Type, "amount": form.Amount, "date": form.Date, "description": form.Description})
	line, err := s.ledger.CreateAccountTransaction(r.Context(), u.ID, id, req)
	if err != nil {
		return s.accountRefused(w, r, u, sid, err, "Not added.", func(d *accountData, fields map[string]string) {
			d.Line, d.LineFields = form, fields
		})
	}
	s.keepWarnings(w, line.Warnings, nil)
	return Redirect(w, r.Request, AccountsPath+"/"+id+"?notice=line-added")
}

// accountLineVoid voids a manual or adjustment line as DELETE
// /accounts/{id}/transactions/{transactionId} does, back to the page it was on.
func (s *Site) accountLineVoid(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "account")
	if !ok {
		return err
	}
	lineID := r.Param("lineId")
	err = finance.NotFound("account transaction")
	if finance.ValidID(lineID) {
		_, err = s.ledger.VoidAccountTransaction(r.Context(), u.ID, id, lineID)
	}
	if err != nil {
		return s.accountRefused(w, r, u, sid, err, "Not voided.", nil)
	}
	back := SafeNext(r.PostForm.Get("back"))
	if !strings.HasPrefix(back, AccountsPath+"/"+id) {
		back = AccountsPath + "/" + id
	}
	return Redirect(w, r.Request, withNotice(back, "line-voided"))
}
