package web

// The lists across accounts and cards: every account's lines and every
// card's transactions, each with the filters, sort and paging of its API
// list route and a CSV download of all its rows (one account's or one
// card's through the same filter); a balance adjustment on an account; and
// on a statement, its own fee, interest and refund lines and its editable
// fields. Every write goes through the same service call as the REST route;
// a refused form is shown again with the problems beside its fields.

import (
	"errors"
	"net/http"
	"net/url"
	"slices"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Paths of the lists: every account's lines and every card's transactions
// (each with its .csv download).
const (
	AccountLinesPath     = AccountsPath + "/lines"
	CardTransactionsPath = CardsPath + "/transactions"
)

func (s *Site) registerWebAppListRoutes() {
	s.page(http.MethodGet, AccountLinesPath, s.accountLinesPage)
	s.heavyPage(AccountLinesPath+".csv", s.accountLinesCSV)
	s.oncePage(AccountsPath+"/:id/adjust", s.accountAdjust)
	s.page(http.MethodGet, CardTransactionsPath, s.cardTransactionsPage)
	s.heavyPage(CardTransactionsPath+".csv", s.cardTransactionsCSV)
	s.page(http.MethodPost, StatementsPath+"/:id", s.statementEdit)
	s.oncePage(StatementsPath+"/:id/lines", s.statementLineAdd)
	s.page(http.MethodGet, StatementsPath+"/:id/lines/:txId/edit", s.statementLinePage)
	s.page(http.MethodPost, StatementsPath+"/:id/lines/:txId/edit", s.statementLineUpdate)
}

// --- account lines ------------------------------------------------------------------

// lineQuery is the line list's filter and sort, with the API's query names.
type lineQuery struct {
	AccountID, Status, Type, Source, DateFrom, DateTo, Search, SortBy, SortOrder string
}

func readLineQuery(q url.Values) lineQuery {
	return lineQuery{AccountID: q.Get("accountId"), Status: q.Get("status"), Type: q.Get("type"), Source: q.Get("source"),
		DateFrom: q.Get("dateFrom"), DateTo: q.Get("dateTo"), Search: q.Get("search"), SortBy: q.Get("sortBy"), SortOrder: q.Get("sortOrder")}
}

func (f lineQuery) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"accountId": f.AccountID, "status": f.Status, "type": f.Type, "source": f.Source,
		"dateFrom": f.DateFrom, "dateTo": f.DateTo, "search": f.Search, "sortBy": f.SortBy, "sortOrder": f.SortOrder} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// LineList is a page of a line list with its filter form (the
// "line-filters" partial), page links and the CSV download of its rows.
type LineList struct {
	Path         string // where the filter form goes
	Filter       lineQuery
	FilterFields map[string]string
	Accounts     []finance.Account // the account picker; nil on one account's page
	LineTypes    []choice
	Statuses     []choice
	Sources      []choice
	Sorts        []choice
	Lines        []finance.AccountTransaction
	Pager        pager
	CSV          string
}

// lineRequest reads a line list's filter, sort and page from q as GET
// /accounts/transactions reads them; accountID, when set, is the one
// account of the list. A filter the API refuses is its ValidationError.
func lineRequest(q url.Values, accountID string) (lineQuery, finance.AccountTransactionFilter, finance.ListParams, error) {
	filter := readLineQuery(q)
	if accountID != "" {
		filter.AccountID = accountID
	}
	lq := filter.query()
	if pg := q.Get("page"); pg != "" {
		lq.Set("page", pg)
	}
	var v finance.Validator
	params := listPage(&v, lq, finance.AccountTransactionList)
	f := queryparam.LineFilter(&v, lq)
	f.AccountID = queryparam.ID(&v, lq, "accountId")
	return filter, f, params, v.Err()
}

// lineList is a page of the lines through the filter of q, of account
// accountID or, when it is "", of every account.
func (s *Site) lineList(r *http.Request, u finance.User, path string, q url.Values, accountID string) (LineList, error) {
	filter, f, params, err := lineRequest(q, accountID)
	d := LineList{Path: path, Filter: filter, FilterFields: map[string]string{}, LineTypes: choices(finance.LineTypes...),
		Statuses: choices(finance.LineStatuses...), Sources: choices(finance.LineSources...),
		Sorts: choices(finance.AccountTransactionList.Sorts...), CSV: withQuery(AccountLinesPath+".csv", filter.query())}
	if accountID != "" { // the page's own account: in its download, not in its form or page links
		d.Filter.AccountID = ""
	} else {
		accts, aerr := s.ledger.ListAccounts(r.Context(), u.ID, finance.AccountFilter{Status: finance.StatusAll},
			finance.ListParams{Page: 1, Limit: finance.MaxLimit, SortBy: "name"})
		if aerr != nil {
			return d, aerr
		}
		d.Accounts = accts.Items
	}
	if err != nil {
		var ve *finance.ValidationError
		errors.As(err, &ve)
		d.FilterFields = ve.Fields
		return d, err
	}
	list, err := s.ledger.ListAccountTransactions(r.Context(), u.ID, f, params)
	if err != nil {
		return d, err
	}
	d.Lines = list.Items
	d.Pager = newPager(path, d.Filter.query(), list.Pagination)
	return d, nil
}

type accountLinesData struct {
	Show display
	LineList
}

func (s *Site) accountLinesPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, show, ok, err := s.signedInShow(w, r.Request)
	if !ok || err != nil {
		return err
	}
	p := pageView{Title: "All account lines", Nav: "accounts", User: &u, CSRF: auth.CSRFToken(sid)}
	list, err := s.lineList(r.Request, u, AccountLinesPath, r.URL.Query(), "")
	if err := filterRefused(&p, err); err != nil {
		return err
	}
	p.Data = accountLinesData{Show: show, LineList: list}
	return s.render(w, r.Request, "accountlines", p)
}

// accountLinesCSV downloads every line through the list's filter and sort:
// of every account, or of the one its accountId names.
func (s *Site) accountLinesCSV(w http.ResponseWriter, r bunrouter.Request) error {
	u, _, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	_, f, params, err := lineRequest(r.URL.Query(), "")
	if err != nil {
		return err
	}
	if f.AccountID != "" { // another user's account is not found, as on the API
		if _, err := s.ledger.GetAccount(r.Context(), u.ID, f.AccountID); err != nil {
			return err
		}
	}
	items, err := allRows(params, func(p finance.ListParams) (finance.Page[finance.AccountTransaction], error) {
		page, err := s.ledger.ListAccountTransactions(r.Context(), u.ID, f, p)
		return page.Page, err
	})
	if err != nil {
		return err
	}
	rows := make([][]string, len(items))
	for i, t := range items {
		amount := t.Amount
		if t.Type == finance.LineDebit {
			amount = -amount
		}
		rows[i] = []string{t.Date.String(), t.AccountName, deref(t.Description), t.Type, amount.String(), t.Source, t.Status, t.AccountID, t.ID}
	}
	return writeCSV(w, r.Request, csvName("account-lines", f.DateFrom, f.DateTo),
		[]string{"date", "account", "description", "type", "amount", "source", "status", "account_id", "id"}, rows)
}

// --- balance adjustment ---------------------------------------------------------------

// adjustForm is the balance adjustment form's fields.
type adjustForm struct {
	TargetBalance, Date, Reason string
}

// accountAdjust brings the account's balance to the one typed, as POST
// /accounts/{id}/balance-adjustment does: one adjustment line.
func (s *Site) accountAdjust(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "account")
	if !ok {
		return err
	}
	f := r.PostForm
	form := adjustForm{TargetBalance: f.Get("target_balance"), Date: f.Get("date"), Reason: f.Get("reason")}
	var req finance.BalanceAdjustmentRequest
	formRequest(&req, map[string]string{"target_balance": form.TargetBalance, "date": form.Date, "reason": form.Reason})
	if _, err := s.ledger.AdjustBalance(r.Context(), u.ID, id, req); err != nil {
		return s.accountRefused(w, r, u, sid, err, "Not adjusted.", func(d *accountData, fields map[string]string) {
			d.Adjust, d.AdjustFields = form, fields
		})
	}
	return Redirect(w, r.Request, AccountsPath+"/"+id+"?notice=balance-adjusted")
}

// --- card transactions ----------------------------------------------------------------

// cardTxQuery is the card transaction list's filter and sort, with the API's query names.
type cardTxQuery struct {
	CardID, Status, Type, DateFrom, DateTo, Search, SortBy, SortOrder string
}

func (f cardTxQuery) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"cardId": f.CardID, "status": f.Status, "type": f.Type, "dateFrom": f.DateFrom,
		"dateTo": f.DateTo, "search": f.Search, "sortBy": f.SortBy, "sortOrder": f.SortOrder} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// cardTxRequest reads the list's filter, sort and page from q as GET
// /credit-cards/transactions reads them.
func cardTxRequest(q url.Values) (cardTxQuery, finance.CardTransactionFilter, finance.ListParams, error) {
	filter := cardTxQuery{CardID: q.Get("cardId"), Status: q.Get("status"), Type: q.Get("type"), DateFrom: q.Get("dateFrom"),
		DateTo: q.Get("dateTo"), Search: q.Get("search"), SortBy: q.Get("sortBy"), SortOrder: q.Get("sortOrder")}
	lq := filter.query()
	if pg := q.Get("page"); pg != "" {
		lq.Set("page", pg)
	}
	var v finance.Validator
	params := listPage(&v, lq, finance.CardTransactionList)
	f := finance.CardTransactionFilter{Status: queryparam.Enum(&v, lq, "status", finance.CardStatuses...),
		Type: queryparam.Enum(&v, lq, "type", finance.CardTypeFilters...), CardID: queryparam.ID(&v, lq, "cardId"), Search: filter.Search}
	f.DateFrom, f.DateTo = queryparam.DateRange(&v, lq)
	return filter, f, params, v.Err()
}

type cardTransactionsData struct {
	Show         display
	Filter       cardTxQuery
	FilterFields map[string]string
	Cards        []finance.CreditCard
	Statuses     []choice
	Types        []choice
	Sorts        []choice
	Items        []finance.CardTransaction
	Pager        pager
	CSV          string
}

func (s *Site) cardTransactionsPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	s.generateStatements(r.Request, u)
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return err
	}
	cards, err := s.ledger.ListCreditCards(r.Context(), u.ID, finance.CardFilter{Status: finance.StatusAll},
		finance.ListParams{Page: 1, Limit: finance.MaxLimit, SortBy: "name"})
	if err != nil {
		return err
	}
	filter, f, params, err := cardTxRequest(r.URL.Query())
	d := cardTransactionsData{Show: show, Filter: filter, FilterFields: map[string]string{}, Cards: cards.Items,
		Statuses: choices(finance.CardStatuses...), Types: choices(finance.CardTypeFilters...),
		Sorts: choices(finance.CardTransactionList.Sorts...), CSV: withQuery(CardTransactionsPath+".csv", filter.query())}
	p := pageView{Title: "All card transactions", Nav: "cards", User: &u, CSRF: auth.CSRFToken(sid)}
	if err != nil {
		var ve *finance.ValidationError
		errors.As(err, &ve)
		d.FilterFields = ve.Fields
		if err := filterRefused(&p, err); err != nil {
			return err
		}
	} else {
		list, err := s.ledger.ListCardTransactions(r.Context(), u.ID, f, params)
		if err != nil {
			return err
		}
		d.Items = list.Items
		d.Pager = newPager(CardTransactionsPath, filter.query(), list.Pagination)
	}
	p.Data = d
	return s.render(w, r.Request, "cardtransactions", p)
}

// cardTransactionsCSV downloads every card transaction through the list's
// filter and sort: of every card, or of the one its cardId names.
func (s *Site) cardTransactionsCSV(w http.ResponseWriter, r bunrouter.Request) error {
	u, _, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	s.generateStatements(r.Request, u)
	_, f, params, err := cardTxRequest(r.URL.Query())
	if err != nil {
		return err
	}
	if f.CardID != "" { // another user's card is not found, as on the API
		if _, err := s.ledger.GetCreditCard(r.Context(), u.ID, f.CardID); err != nil {
			return err
		}
	}
	items, err := allRows(params, func(p finance.ListParams) (finance.Page[finance.CardTransaction], error) {
		page, err := s.ledger.ListCardTransactions(r.Context(), u.ID, f, p)
		return page.Page, err
	})
	if err != nil {
		return err
	}
	rows := make([][]string, len(items))
	for i, t := range items {
		amount := t.Amount
		if t.Type == finance.CardRefund {
			amount = -amount
		}
		rows[i] = []string{t.Date.String(), t.CreditCardName, t.Description, t.Type, deref(t.Category), amount.String(), t.Status,
			deref(t.SOAID), t.CreditCardID, t.ID}
	}
	return writeCSV(w, r.Request, csvName("card-transactions", f.DateFrom, f.DateTo),
		[]string{"date", "card", "description", "type", "category", "amount", "status", "statement_id", "card_id", "id"}, rows)
}

// --- statement edits and lines --------------------------------------------------------

// soaForm is the statement edit form's fields.
type soaForm struct {
	DueDate, MinimumDue, Notes string
}

func soaFormOf(a finance.SOA) soaForm {
	f := soaForm{DueDate: a.DueDate.String(), Notes: deref(a.Notes)}
	if a.MinimumDueSource == finance.MinimumDueUser {
		f.MinimumDue = a.MinimumDue.String()
	}
	return f
}

// soaLineForm is the form of a statement's own line.
type soaLineForm struct {
	Type, Amount, Description, Category, Date string
}

// soaLineFormOf is the form filled in with a row of the statement.
func soaLineFormOf(t finance.CardTransaction) soaLineForm {
	return soaLineForm{Type: t.Type, Amount: t.Amount.String(), Description: t.Description, Category: deref(t.Category), Date: t.Date.String()}
}

// request is the form as the API takes it: a refund's category only, and,
// for a linked transaction, its description alone. An emptied field is sent
// as null (required, or the statement date for the date), as PUT does.
func (f soaLineForm) request(linked bool) finance.SOALineRequest {
	values := map[string]string{"description": f.Description}
	clearable := []string{"description"}
	if !linked {
		values["type"], values["amount"], values["date"] = f.Type, f.Amount, f.Date
		if f.Type == finance.CardRefund {
			values["category"] = f.Category
		}
		clearable = append(clearable, "amount", "date")
	}
	var req finance.SOALineRequest
	formRequest(&req, values, clearable...)
	return req
}

// soaLineView is what the soa-line-fields partial shows.
type soaLineView struct {
	ID            string // the fields' id prefix
	Form          soaLineForm
	Fields        map[string]string
	Types         []choice
	Categories    []finance.CategoryOption
	Show          display
	StatementDate finance.Date
	Linked        bool // a linked transaction: its description only
}

// AddLine is the statement page's form for a new line of its own.
func (d statementData) AddLine() soaLineView {
	return soaLineView{ID: "line", Form: d.Line, Fields: d.LineFields, Types: d.LineTypes, Categories: d.Categories,
		Show: d.Show, StatementDate: d.SOA.StatementDate}
}

// statementLineData is the page that edits one row of a statement.
type statementLineData struct {
	Show display
	SOA  finance.SOADetail
	Row  finance.CardTransaction
	Form soaLineView
}

// statementLineView finds row txID among the statement's live rows: a
// voided statement or row has nothing to edit (404, as for a row not on it).
func (s *Site) statementLineView(r *http.Request, u finance.User, id, txID string) (statementLineData, error) {
	d, err := s.statementView(r, u, id)
	if err != nil {
		return statementLineData{}, err
	}
	i := slices.IndexFunc(d.SOA.Transactions, func(t finance.CardTransaction) bool { return t.ID == txID })
	if i < 0 || d.SOA.Status == finance.StatusVoided || d.SOA.Transactions[i].Status == finance.StatusVoided {
		return statementLineData{}, finance.NotFound("statement line")
	}
	row := d.SOA.Transactions[i]
	return statementLineData{Show: d.Show, SOA: d.SOA, Row: row, Form: soaLineView{ID: "edit", Form: soaLineFormOf(row),
		Fields: map[string]string{}, Types: d.LineTypes, Categories: d.Categories, Show: d.Show,
		StatementDate: d.SOA.StatementDate, Linked: !row.IsSOALine}}, nil
}

// statementLinePage shows the form that edits one row of a statement: all
// of a line of its own, the description of a linked transaction.
func (s *Site) statementLinePage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	d, err := s.statementLineView(r.Request, u, r.Param("id"), r.Param("txId"))
	if err != nil {
		return err
	}
	return s.render(w, r.Request, "statement_line", pageView{Title: "Edit statement line", Nav: "cards", User: &u, CSRF: auth.CSRFToken(sid), Data: d})
}

// statementLineUpdate saves the form as PUT
// /credit-cards/soa/{id}/transactions/{transactionId} does.
func (s *Site) statementLineUpdate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "statement")
	if !ok {
		return err
	}
	txID := r.Param("txId")
	d, err := s.statementLineView(r.Request, u, id, txID)
	if err != nil {
		return err
	}
	f := r.PostForm
	form := soaLineForm{Type: f.Get("type"), Amount: f.Get("amount"), Description: f.Get("description"), Category: f.Get("category"),
		Date: f.Get("date")}
	if _, err := s.ledger.UpdateSOALine(r.Context(), u.ID, id, txID, form.request(d.Form.Linked)); err != nil {
		p := pageView{Title: "Edit statement line", Nav: "cards", User: &u, CSRF: auth.CSRFToken(sid)}
		fields, ok := refusal(&p, err, "Not saved.")
		if !ok {
			return err
		}
		d.Form.Form = form
		if fields != nil {
			d.Form.Fields = fields
		}
		p.Data = d
		return s.render(w, r.Request, "statement_line", p)
	}
	return Redirect(w, r.Request, StatementsPath+"/"+id+"?notice=statement-line-saved")
}

// statementEdit changes the due date, minimum due and notes as PUT
// /credit-cards/soa/{id} does. An emptied minimum due is null: back to the
// computed one; emptied notes are cleared.
func (s *Site) statementEdit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "statement")
	if !ok {
		return err
	}
	f := r.PostForm
	form := soaForm{DueDate: f.Get("due_date"), MinimumDue: f.Get("minimum_due"), Notes: f.Get("notes")}
	var req finance.SOARequest
	formRequest(&req, map[string]string{"due_date": form.DueDate, "minimum_due": form.MinimumDue, "notes": form.Notes},
		"due_date", "minimum_due", "notes")
	if _, err := s.ledger.UpdateSOA(r.Context(), u.ID, id, req); err != nil {
		return s.statementRefused(w, r, u, sid, id, err, "Not saved.", func(d *statementData, fields map[string]string) {
			d.Edit = form
			if fields != nil {
				d.EditFields = fields
			}
		})
	}
	return Redirect(w, r.Request, StatementsPath+"/"+id+"?notice=statement-saved")
}

// statementLineAdd adds a fee, interest or refund line as POST
// /credit-cards/soa/{id}/transactions does. The category goes only with a
// refund; an empty date is the statement date.
func (s *Site) statementLineAdd(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "statement")
	if !ok {
		return err
	}
	f := r.PostForm
	form := soaLineForm{Type: f.Get("type"), Amount: f.Get("amount"), Description: f.Get("description"), Category: f.Get("category"),
		Date: f.Get("date")}
	values := map[string]string{"type": form.Type, "amount": form.Amount, "description": form.Description, "date": form.Date}
	if form.Type == finance.CardRefund {
		values["category"] = form.Category
	}
	var req finance.SOALineRequest
	formRequest(&req, values)
	if _, err := s.ledger.AddSOALine(r.Context(), u.ID, id, req); err != nil {
		return s.statementRefused(w, r, u, sid, id, err, "Not added.", func(d *statementData, fields map[string]string) {
			d.Line = form
			if fields != nil {
				d.LineFields = fields
			}
		})
	}
	return Redirect(w, r.Request, StatementsPath+"/"+id+"?notice=statement-line-added")
}
