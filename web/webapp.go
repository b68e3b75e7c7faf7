package web

// The web app for people: Home (the month's dashboard with a spending
// chart), Record (an expense or income form) and the expense list. These
// pages use the web session and form tokens of the other pages, call the
// finance service directly, and show its validation problems next to the
// fields they concern, in the words the API uses.

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/queryparam"
)

// Paths of the web app.
const (
	HomePath     = "/"
	RecordPath   = "/record"
	ExpensesPath = "/expenses"
)

func (s *Site) registerWebAppRoutes() {
	s.page(http.MethodGet, RecordPath, s.recordPage)
	s.oncePage(RecordPath, s.recordSubmit)
	s.heavyPage(ExpensesPath, s.expensesPage, "search")
	s.heavyPage(ExpensesPath+".csv", s.expensesCSV)
	s.page(http.MethodPost, ExpensesPath+"/:id/void", s.expenseVoid)
	s.registerWebAppRecordRoutes()
	s.registerWebAppReceiptRoutes()
	s.registerWebAppIncomeRoutes()
	s.registerWebAppIncomeTemplateRoutes()
	s.registerWebAppCardRoutes()
	s.registerWebAppListRoutes()
	s.registerWebAppReportRoutes()
	s.registerWebAppSettingsRoutes()
	s.registerWebAppBudgetRoutes()
	s.registerWebAppCategoryRuleRoutes()
	s.registerWebAppExchangeRateRoutes()
	s.registerWebAppImportRoutes()
}

// Redirect ends a page request with a 303 to target.
func Redirect(w http.ResponseWriter, r *http.Request, target string) error {
	setPageHeaders(w.Header(), "")
	http.Redirect(w, r, target, http.StatusSeeOther)
	return nil
}

// --- Home -------------------------------------------------------------------------

type homeData struct {
	Show   display
	Month  finance.Date // the month's first day
	Months monthNav
	D      finance.Dashboard
	// NetWorth is today's net worth, as the net-worth report has it; Owed
	// is what its cards and loans owe, when there are any.
	NetWorth finance.NetWorthReport
	Owed     []worthLine
	// WorthLines are net worth's lines per currency when there are several;
	// WorthNote and MonthNote say what net worth and the month's figures
	// converted and left out. Beside is what each account's balance and
	// recent entry in another currency shows beside it, by id.
	WorthLines           *currencyLines
	WorthNote, MonthNote conversionNote
	Beside               map[string]string
	// Due is what is overdue or due in the next finance.DueSoonDays days,
	// soonest first, up to homeDueShown; DueMore counts the rest.
	Due     []finance.DueItem
	DueMore int
	Budgets []budgetBar
	Bars    []chartBar // spending by category, the chart's and the table's figures
	Chart   template.HTML
	// NetWorthChart and Trends are the charts over the twelve months ending
	// at Month: net worth; spending, and income against spending.
	NetWorthChart reportSection
	Trends        []reportSection
	// Checklist is the first-run checklist, until done or put away.
	Checklist []checklistStep
	// Expected is the recurring income still expected this month (on this
	// month's page only).
	Expected finance.ExpectedIncomeMonth
	// Reminders are the newest reminders claimed for the user, whatever
	// reached their chat: Home is where every reminder is seen.
	Reminders reminderList
}

// worthLine is a line between the accounts' total and net worth: what
// archived accounts hold, what the cards or the loans owe (negative).
type worthLine struct {
	Label  string
	Amount finance.Money
}

// owedOf lists the lines from the active accounts' total to net worth,
// leaving out a kind the person has none of: archived accounts count in
// net worth but are not among the accounts listed, then the cards and the
// loans.
func owedOf(nw finance.NetWorthReport, active finance.Money) []worthLine {
	var out []worthLine
	if archived := nw.Assets.Total - active; archived != 0 {
		out = append(out, worthLine{Label: "Archived accounts", Amount: archived})
	}
	// Each in the reporting currency, as net worth converts them.
	if len(nw.Liabilities.CreditCards) > 0 {
		out = append(out, worthLine{Label: "Cards owe", Amount: -nw.Liabilities.CardsTotal})
	}
	if len(nw.Liabilities.Loans) > 0 {
		out = append(out, worthLine{Label: "Loans owe", Amount: -nw.Liabilities.LoansTotal})
	}
	return out
}

// homeDueShown is how many due items Home's first screen lists; the Bills
// and Cards pages have the rest.
const homeDueShown = 5

// budgetBar is a budget of a month as Home and the Budgets page draw it: a
// bar filled to the share spent (full when over), and what is left or over
// in words.
type budgetBar struct {
	finance.DashboardBudget
	Fill percent
	Left string // "₱199.00 left", "₱199.00 over"
}

func newBudgetBar(b finance.DashboardBudget, show display) budgetBar {
	return budgetBar{DashboardBudget: b, Fill: barWidth(min(b.Spent, b.MonthlyLimit), b.MonthlyLimit),
		Left: show.Left(b.MonthlyLimit - b.Spent)}
}

func budgetBars(budgets []finance.DashboardBudget, show display) []budgetBar {
	out := make([]budgetBar, len(budgets))
	for i, b := range budgets {
		out[i] = newBudgetBar(b, show)
	}
	return out
}

// homeReminders is how many reminders Home shows; the reminders page has more.
const homeReminders = 5

// monthNav is the links of a month page (Home, Bills) to the months around
// it and to this month; "" for none.
type monthNav struct {
	Prev, This, Next string
}

// monthsAround links path?month=YYYY-MM to the months around first, except
// past the months the API accepts (1900-01 to 2100-12), where a link would
// only lead to a refusal, and to this month unless first is it.
func monthsAround(path string, first, today finance.Date) monthNav {
	link := func(m finance.Date) string {
		if _, err := finance.ParseMonth(m.MonthString()); err != nil {
			return ""
		}
		return path + "?month=" + m.MonthString()
	}
	n := monthNav{Prev: link(finance.MonthAdd(first, -1, 1)), Next: link(finance.MonthAdd(first, 1, 1))}
	if first.MonthString() != today.MonthString() {
		n.This = path
	}
	return n
}

// otherCategories labels the bar of the spending outside the top categories.
const otherCategories = "Other categories"

// spendingBars are the dashboard's top categories, each in its colour,
// plus one bar for the rest of the month's spending, so the bars add up to
// the month's total.
func spendingBars(d finance.Dashboard, show display, colors map[string]string) []chartBar {
	bars := make([]chartBar, 0, len(d.TopCategories)+1)
	var shown finance.Money
	for _, c := range d.TopCategories {
		bars = append(bars, chartBar{Label: c.Category, Value: c.Amount, Text: show.Money(c.Amount), Color: colors[c.CategoryID]})
		shown += c.Amount
	}
	if rest := d.Totals.Spending - shown; rest > 0 {
		bars = append(bars, chartBar{Label: otherCategories, Value: rest, Text: show.Money(rest)})
	}
	return bars
}

// homePage is the dashboard of ?month=YYYY-MM, by default the current month
// in the user's timezone.
func (s *Site) homePage(w http.ResponseWriter, r *http.Request, u finance.User, sid string) error {
	var v finance.Validator
	month := queryparam.Month(&v, r.URL.Query(), "month")
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
	data := homeData{Show: show, Month: first, D: d, Months: monthsAround("/", first, show.today), Budgets: budgetBars(d.Budgets, show)}
	colors, err := s.ledger.CategoryColors(r.Context(), u.ID)
	if err != nil {
		return err
	}
	data.Bars = spendingBars(d, show, colors)
	data.Chart = barChart("Spending by category, "+show.Month(first), data.Bars)
	due, err := s.ledger.DueSoon(r.Context(), u.ID, finance.DueSoonDays)
	if err != nil {
		return err
	}
	data.Due, data.DueMore = due[:min(homeDueShown, len(due))], max(len(due)-homeDueShown, 0)
	if data.NetWorth, data.NetWorthChart, data.Trends, err = s.homeTrends(r.Context(), u.ID, show, first); err != nil {
		return err
	}
	data.Owed = owedOf(data.NetWorth, d.Accounts.TotalBalance)
	data.WorthLines = newCurrencyLines(show, "Net worth by currency", data.NetWorth.ByCurrency)
	data.WorthNote = newConversionNote(show, "Net worth", data.NetWorth.ConversionNote)
	data.MonthNote = newConversionNote(show, "This month", d.MonthNote)
	data.MonthNote.RatesAsOf = "" // net worth's line says it once for the first screen
	amounts := make([]convertible, 0, len(d.Accounts.Items)+len(d.Recent))
	for _, a := range d.Accounts.Items {
		amounts = append(amounts, convertible{ID: a.ID, Amount: a.CurrentBalance, Currency: a.Currency, Date: show.today})
	}
	for _, e := range d.Recent {
		amounts = append(amounts, convertible{ID: e.ID, Amount: e.Amount, Currency: e.Currency, Date: e.Date})
	}
	if data.Beside, err = s.convertedBeside(r.Context(), u.ID, show, amounts); err != nil {
		return err
	}
	if first == finance.MonthAdd(show.today, 0, 1) {
		if data.Expected, err = s.ledger.ExpectedIncomeThisMonth(r.Context(), u.ID); err != nil {
			return err
		}
	}
	if data.Checklist, err = s.checklist(r, u); err != nil {
		return err
	}
	if data.Reminders, err = s.recentReminders(r.Context(), u.ID); err != nil {
		return err
	}
	data.Reminders.Recent = data.Reminders.Recent[:min(homeReminders, len(data.Reminders.Recent))]
	return s.render(w, r, "home", pageView{Title: "Home", Nav: "home", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: recordedNotice(r.URL.Query(), show), Data: data})
}

// recordedNotice is Home's notice. After Record it says the amount written
// ("Expense recorded: ₱50,000.00."), so a person sees how "50,000" was read.
// The amount in the query is only ever printed as an amount.
func recordedNotice(q url.Values, show display) string {
	name := q.Get("notice")
	if m, err := finance.ParseMoney(q.Get("amount")); err == nil && (name == "expense-recorded" || name == "income-recorded") {
		return strings.TrimSuffix(notices[name], ".") + ": " + show.Money(m) + "."
	}
	return notices[name]
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
	// Currency is a Cash expense's, or an income's without an account;
	// OriginalAmount and OriginalCurrency a card purchase abroad.
	Currency, OriginalAmount, OriginalCurrency string
}

type recordData struct {
	Show display
	Kind string
	Edit *recordEdit // the record being changed; nil on a new one
	Text string      // what was typed in the "Type it" box
	Note string      // the note sent with a receipt
	// ReadsImages reports whether this server reads receipt photos (an OCR
	// engine or a vision model). Without one the page offers no receipt
	// tool at all: how to set one up is for the admin (the server's log and
	// docs say it), not for the person recording an expense.
	ReadsImages bool
	Form        recordForm
	Fields      map[string]string
	Methods     []string
	Categories  []finance.CategoryOption
	Accounts    []finance.AccountOption
	Cards       []finance.CardOption
	// Currencies are those a record can be in (at most 2 decimals).
	Currencies []choice
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
func (s *Site) recordView(r *http.Request, u finance.User, kind string, form recordForm) (recordData, error) {
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return recordData{}, err
	}
	d := recordData{Show: show, Kind: kind, Form: form, Fields: map[string]string{}, Currencies: recordCurrencies()}
	if d.Form.Currency == "" {
		d.Form.Currency = show.currency // the reporting currency, what a record names by default
	}
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
		d.ReadsImages, _ = s.host.CanReadImages()
		if d.Form.PaymentMethod == "" {
			d.Form.PaymentMethod = opts.DefaultPaymentMethod
		}
	}
	if d.Form.Date == "" {
		d.Form.Date = show.today.String()
	}
	return d, nil
}

func (s *Site) recordPage(w http.ResponseWriter, r bunrouter.Request) error {
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
func (s *Site) recordSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	f := r.PostForm
	kind := recordKind(f.Get("kind"))
	form := postedRecordForm(f)
	var written finance.Date
	var amount finance.Money // the amount written, for the confirmation to say what was understood
	var id string            // the expense written
	if kind == kindIncome {
		var req finance.IncomeRequest
		formRequest(&req, form.incomeFields())
		var in finance.Income
		in, err = s.ledger.CreateIncome(r.Context(), u.ID, req)
		written, amount = in.Date, in.Amount
	} else {
		var req finance.ExpenseRequest
		formRequest(&req, form.expenseFields())
		var e finance.Expense
		e, err = s.ledger.CreateExpense(r.Context(), u.ID, req)
		written, amount, id = e.Date, e.Amount, e.ID
		s.keepWarnings(w, e.Warnings, nil)
	}
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		d, verr := s.recordView(r.Request, u, kind, form)
		if verr != nil {
			return verr
		}
		d.Fields = ve.Fields
		p := pageView{Title: "Record", Nav: "record", User: &u, CSRF: auth.CSRFToken(sid), status: http.StatusBadRequest, Data: d}
		p.refuseFields("Not recorded.", ve)
		return s.render(w, r.Request, "record", p)
	} else if err != nil {
		return err
	}
	if kind == kindExpense && f.Get("then") == "split" {
		return Redirect(w, r.Request, ExpensesPath+"/"+id+"/split?notice=expense-recorded")
	}
	return Redirect(w, r.Request, HomePath+"?month="+written.MonthString()+"&notice="+kind+"-recorded&amount="+amount.String())
}

// expenseFields are the form's values as the fields of an expense body.
// Both pickers are on the page; only the chosen method's is sent on.
func (f recordForm) expenseFields() map[string]string {
	fields := map[string]string{"amount": f.Amount, "date": f.Date, "description": f.Description,
		"category": f.Category, "payment_method": f.PaymentMethod}
	switch m, _ := finance.ParsePaymentMethod(f.PaymentMethod); m {
	case finance.MethodAccountDebit:
		fields["account_id"] = f.AccountID
	case finance.MethodCreditCard:
		fields["credit_card_id"] = f.CreditCardID
		fields["original_amount"], fields["original_currency"] = f.OriginalAmount, f.OriginalCurrency
		if strings.TrimSpace(f.OriginalAmount) == "" {
			// The currency picker keeps its choice; it goes with an amount only.
			fields["original_currency"] = ""
		}
	case finance.MethodCash:
		fields["currency"] = f.Currency
	}
	return fields
}

// incomeFields are the form's values as the fields of an income body. The
// currency picker counts only without an account: the account's is the
// income's.
func (f recordForm) incomeFields() map[string]string {
	fields := map[string]string{"amount": f.Amount, "date": f.Date, "description": f.Description,
		"category": f.Category, "account_id": f.AccountID}
	if strings.TrimSpace(f.AccountID) == "" {
		fields["currency"] = f.Currency
	}
	return fields
}

// formRequest fills a request of Fields from form values as a multipart
// REST body is read (every value a string), so the service sees what it
// would see from the API and reports the same problems. An empty value is
// left out, as a field not sent: "amount is required", not a format error;
// on an edit form, an emptied field named in clearable is sent as null,
// which clears it as PUT does.
func formRequest(dst any, values map[string]string, clearable ...string) {
	obj := map[string]any{}
	for k, v := range nonEmpty(values) {
		obj[k] = v
	}
	for _, k := range clearable {
		if v, onForm := values[k]; onForm && strings.TrimSpace(v) == "" {
			obj[k] = nil
		}
	}
	b, _ := json.Marshal(obj)  // strings and nulls only: it cannot fail
	_ = json.Unmarshal(b, dst) // Fields record problems instead of failing
}

// nonEmpty is values without the empty ones (blank fields are not sent).
func nonEmpty(values map[string]string) map[string]string {
	obj := map[string]string{}
	for k, v := range values {
		if strings.TrimSpace(v) != "" {
			obj[k] = v
		}
	}
	return obj
}

// --- Lists (expenses, income) -------------------------------------------------------

// webPageSize is the number of rows per page of a web list.
const webPageSize = finance.DefaultLimit

// listFilter is a web list's filter, sort and page, with the API's query
// names, as the person typed them. The payment method, account, card and
// amount range are the expense list's own; the income list has none of them.
type listFilter struct {
	Status, DateFrom, DateTo, Search, Category, SortBy, SortOrder, Page string
	PaymentMethod, AccountID, CardID, AmountMin, AmountMax              string
}

func readListFilter(q url.Values) listFilter {
	return listFilter{Status: q.Get("status"), DateFrom: q.Get("dateFrom"), DateTo: q.Get("dateTo"), Search: q.Get("search"),
		Category: q.Get("category"), SortBy: q.Get("sortBy"), SortOrder: q.Get("sortOrder"), Page: q.Get("page"),
		PaymentMethod: q.Get("payment_method"), AccountID: q.Get("accountId"), CardID: q.Get("cardId"),
		AmountMin: q.Get("amountMin"), AmountMax: q.Get("amountMax")}
}

// query is the filter and sort as a query string, without the page.
func (f listFilter) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"status": f.Status, "dateFrom": f.DateFrom, "dateTo": f.DateTo, "search": f.Search,
		"category": f.Category, "sortBy": f.SortBy, "sortOrder": f.SortOrder, "payment_method": f.PaymentMethod,
		"accountId": f.AccountID, "cardId": f.CardID, "amountMin": f.AmountMin, "amountMax": f.AmountMax} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// filterLabels are the labels of a list's filter fields: a refused filter
// is named by the label beside it, never by the API's parameter.
var filterLabels = map[string]string{"dateFrom": "From", "dateTo": "To", "category": "Category", "search": "Search",
	"status": "Status", "sortBy": "Sort by", "sortOrder": "Order", "page": "Page", "payment_method": "Paid with",
	"accountId": "Account", "cardId": "Card", "amountMin": "Amount from", "amountMax": "Amount to"}

// filterWords rewrites the API's problems with a list's filter into the
// page's words: a parameter a problem names ("must not be more than
// amountMax") becomes its label ("… than Amount to").
func filterWords(fields map[string]string) map[string]string {
	out := make(map[string]string, len(fields))
	for k, problem := range fields {
		words := strings.Fields(problem)
		for i, w := range words {
			if label, ok := filterLabels[w]; ok {
				words[i] = label
			}
		}
		out[k] = strings.Join(words, " ")
	}
	return out
}

// withQuery is path with q as its query string, if any.
func withQuery(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// listView is what a list page shows around its rows: the filter form
// with its problems, the count and total of every row through the filter,
// the page links and the CSV download of the same rows.
type listView struct {
	Show       display
	Path       string
	Noun       string // what the list holds: expenses, income
	Filter     listFilter
	Fields     map[string]string
	On         []string // the filters in force, in words, on the folded form's line
	Categories []finance.CategoryOption
	Statuses   []choice // the active rows, or the voided ones
	Sorts      []choice
	// The expense list's own pickers; empty on the income list.
	Methods  []choice
	Accounts []finance.Account
	Cards    []finance.CreditCard
	Summary  finance.ConvertedSummary
	// Note says what the total converted and left out; Beside is what each
	// row in another currency shows beside its amount, by id.
	Note       conversionNote
	Beside     map[string]string
	Pagination finance.Pagination
	Prev, Next string // links to the pages around this one, "" when none
	Back       string // this page's address, where a void returns to
	CSV        string // the download of every row through the filter
}

// converted fills the note of the list's total and what its rows in
// another currency show beside their amounts.
func (v *listView) converted(ctx context.Context, s *Site, userID string, rows []convertible) error {
	v.Note = newConversionNote(v.Show, "The total", v.Summary.ConversionNote)
	var err error
	v.Beside, err = s.convertedBeside(ctx, userID, v.Show, rows)
	return err
}

// Counted is the list's heading: how many rows the filter selects and what
// they come to, on every page ("No expenses", "1 expense · total ₱250.00").
func (v listView) Counted(one, many string) string {
	if v.Filter.Status == finance.StatusVoided {
		one, many = "voided "+one, "voided "+many
	}
	switch n := v.Summary.Count; n {
	case 0:
		return "No " + many
	case 1:
		return "1 " + one + " · total " + v.Show.Money(v.Summary.Total)
	default:
		return strconv.Itoa(n) + " " + many + " · total " + v.Show.Money(v.Summary.Total)
	}
}

// listRange is a list's validated request: the status (active by
// default), the date range and the page and sort, read as the API reads its
// list route.
type listRange struct {
	Status   string
	From, To finance.Date
	Params   finance.ListParams
}

// listRequest reads filter as the list route of spec, whose rows have
// statuses, reads its query and prepares the page around it; filters, when
// set, reads the list's own filters from the same query. Amounts in the
// query are read as the pages' money fields are ("1,000"). A filter the
// API would refuse is returned as its ValidationError, with the problems,
// in the page's words, in the view's Fields.
func (s *Site) listRequest(r *http.Request, u finance.User, path string, kind finance.CategoryKind, spec finance.ListSpec,
	statuses []string, filter listFilter, filters func(*finance.Validator, url.Values)) (listView, listRange, error) {
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return listView{}, listRange{}, err
	}
	cats, err := s.ledger.CategoryOptions(r.Context(), u.ID, kind)
	if err != nil {
		return listView{}, listRange{}, err
	}
	v := listView{Show: show, Path: path, Noun: strings.TrimPrefix(path, "/"), Filter: filter, Fields: map[string]string{}, Categories: cats,
		Statuses: choices(statuses...), Sorts: choices(spec.Sorts...), CSV: withQuery(path+".csv", filter.query())}
	q := filter.query()
	if filter.Page != "" {
		q.Set("page", filter.Page)
	}
	if err := readPageAmounts(q, func() (string, error) { return show.currency, nil }); err != nil {
		return v, listRange{}, err
	}
	var lq listRange
	var vd finance.Validator
	p, perr := queryparam.List(q, spec)
	_ = vd.Merge("", perr)
	if lq.Status = queryparam.Enum(&vd, q, "status", statuses...); lq.Status == "" {
		lq.Status = finance.StatusActive
	}
	lq.From, lq.To = queryparam.DateRange(&vd, q)
	if filters != nil {
		filters(&vd, q)
	}
	p.Limit = webPageSize
	lq.Params = p
	if err := vd.Err(); err != nil {
		var ve *finance.ValidationError
		errors.As(err, &ve)
		v.Fields = filterWords(ve.Fields)
		return v, lq, &finance.ValidationError{Message: ve.Message, Fields: v.Fields}
	}
	v.On = filtersOn(show, filter, lq)
	return v, lq, nil
}

// filtersOn names the dates, category, search and status of a list's
// filter, for the line of its folded form; a list adds its own filters.
func filtersOn(show display, f listFilter, lq listRange) []string {
	var on []string
	switch {
	case !lq.From.IsZero() && !lq.To.IsZero():
		on = append(on, show.Date(lq.From)+" to "+show.Date(lq.To))
	case !lq.From.IsZero():
		on = append(on, "from "+show.Date(lq.From))
	case !lq.To.IsZero():
		on = append(on, "to "+show.Date(lq.To))
	}
	if f.Category != "" {
		on = append(on, f.Category)
	}
	if f.Search != "" {
		on = append(on, "“"+f.Search+"”")
	}
	if lq.Status == finance.StatusVoided {
		on = append(on, label(lq.Status))
	}
	return on
}

// paged sets the view's pagination and the links to the pages around it.
func (v *listView) paged(p finance.Pagination) {
	v.Pagination = p
	link := func(n int) string {
		q := v.Filter.query()
		if n > 1 {
			q.Set("page", strconv.Itoa(n))
		}
		return withQuery(v.Path, q)
	}
	if p.Page > 1 {
		v.Prev = link(p.Page - 1)
	}
	if p.Page < p.TotalPages {
		v.Next = link(p.Page + 1)
	}
	v.Back = link(p.Page)
}

// allRows collects every row of a list through its use case, in the order
// of p: a CSV download holds all the rows through the filter, not one page.
// A list of more than csvMaxRows rows is refused, naming the date range.
func allRows[T any](p finance.ListParams, list func(finance.ListParams) (finance.Page[T], error)) ([]T, error) {
	p.Page, p.Limit = 1, csvPageSize
	var out []T
	for {
		page, err := list(p)
		if err != nil {
			return nil, err
		}
		if n := page.Pagination.TotalItems; n > csvMaxRows {
			return nil, finance.Invalid("dateFrom", fmt.Sprintf("selects %d rows, and a download holds at most %d: choose a shorter date range", n, csvMaxRows))
		}
		out = append(out, page.Items...)
		if p.Page >= page.Pagination.TotalPages {
			return out, nil
		}
		p.Page++
	}
}

// A list download is read csvPageSize rows at a time (the pages are
// offsets into the list's index order, so large pages keep their number
// small) and holds at most csvMaxRows rows: more than a spreadsheet works
// with comfortably, and a bound on the memory one download takes.
const (
	csvPageSize = 5_000
	csvMaxRows  = 100_000
)

// listPage renders a list page, or its refusal of the filter (with the
// form, and no rows, to correct it on).
func (s *Site) listPage(w http.ResponseWriter, r *http.Request, name string, p pageView, err error) error {
	var ve *finance.ValidationError
	if errors.As(err, &ve) {
		p.status = http.StatusBadRequest
		p.refuseFields("Not filtered.", ve)
	} else if err != nil {
		return err
	}
	return s.render(w, r, name, p)
}

// csvName is a download's file name: what it holds and the date range of
// its filter, when it has one.
func csvName(what string, from, to finance.Date) string {
	switch {
	case !from.IsZero() && !to.IsZero():
		return what + "-" + from.String() + "-to-" + to.String() + ".csv"
	case !from.IsZero():
		return what + "-from-" + from.String() + ".csv"
	case !to.IsZero():
		return what + "-to-" + to.String() + ".csv"
	}
	return what + ".csv"
}

// --- Expenses -----------------------------------------------------------------------

type expensesData struct {
	listView
	Items []expenseRow
}

func (s *Site) expensesPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	q := r.URL.Query()
	d, err := s.expensesView(r.Request, u, readListFilter(q))
	return s.listPage(w, r.Request, "expenses", pageView{Title: "Expenses", Nav: "expenses", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[q.Get("notice")], Data: d}, err)
}

// expenseRequest reads the expense list's filter as GET /expenses reads
// it (queryparam.ExpenseFilter), with the page around it.
func (s *Site) expenseRequest(r *http.Request, u finance.User, filter listFilter) (listView, listRange, finance.ExpenseFilter, error) {
	var f finance.ExpenseFilter
	v, lq, err := s.listRequest(r, u, ExpensesPath, finance.KindExpense, finance.ExpenseList, finance.ExpenseStatuses, filter,
		func(v *finance.Validator, q url.Values) { f = queryparam.ExpenseFilter(v, q) })
	return v, lq, f, err
}

// expensesView lists a page of the expenses through the filter (the
// active ones unless it asks for the voided ones) with the count and total
// of all of them, and the pickers of the filter form.
func (s *Site) expensesView(r *http.Request, u finance.User, filter listFilter) (expensesData, error) {
	v, lq, f, err := s.expenseRequest(r, u, filter)
	d := expensesData{listView: v}
	d.Methods = choices(finance.PaymentMethods...)
	accts, aerr := s.ledger.ListAccounts(r.Context(), u.ID, finance.AccountFilter{Status: finance.StatusAll},
		finance.ListParams{Page: 1, Limit: finance.MaxLimit, SortBy: "name"})
	if aerr != nil {
		return d, aerr
	}
	cards, cerr := s.ledger.ListCreditCards(r.Context(), u.ID, finance.CardFilter{Status: finance.StatusAll},
		finance.ListParams{Page: 1, Limit: finance.MaxLimit, SortBy: "name"})
	if cerr != nil {
		return d, cerr
	}
	d.Accounts, d.Cards = accts.Items, cards.Items
	if err != nil {
		return d, err
	}
	list, err := s.ledger.ListExpenses(r.Context(), u.ID, f, lq.Params)
	if err != nil {
		return d, err
	}
	d.On = append(d.On, d.expenseFiltersOn(f)...)
	d.Items, d.Summary = expenseRows(list.Items), list.Summary
	d.paged(list.Pagination)
	amounts := make([]convertible, len(list.Items))
	for i, e := range list.Items {
		amounts[i] = convertible{ID: e.ID, Amount: e.Amount, Currency: e.Currency, Date: e.Date}
	}
	err = d.converted(r.Context(), s, u.ID, amounts)
	return d, err
}

// expenseFiltersOn names the expense list's own filters in force: the
// method, the account or card by name, the amount range in the currency.
func (d expensesData) expenseFiltersOn(f finance.ExpenseFilter) []string {
	var on []string
	if f.PaymentMethod != "" {
		on = append(on, f.PaymentMethod)
	}
	if i := slices.IndexFunc(d.Accounts, func(a finance.Account) bool { return a.ID == f.AccountID }); i >= 0 {
		on = append(on, d.Accounts[i].Name)
	}
	if i := slices.IndexFunc(d.Cards, func(c finance.CreditCard) bool { return c.ID == f.CardID }); i >= 0 {
		on = append(on, d.Cards[i].Name)
	}
	switch {
	case f.AmountMin != nil && f.AmountMax != nil:
		on = append(on, d.Show.Money(*f.AmountMin)+" to "+d.Show.Money(*f.AmountMax))
	case f.AmountMin != nil:
		on = append(on, "at least "+d.Show.Money(*f.AmountMin))
	case f.AmountMax != nil:
		on = append(on, "at most "+d.Show.Money(*f.AmountMax))
	}
	return on
}

// accountOrCard is the name of the account an expense was debited from or
// the card it was charged to, "" for cash.
func accountOrCard(e finance.Expense) string {
	switch {
	case e.AccountName != nil:
		return *e.AccountName
	case e.CreditCardName != nil:
		return *e.CreditCardName
	}
	return ""
}

// expenseRow is an expense of the list with where its money came from: the
// account's or card's name, else its method (Cash).
type expenseRow struct {
	finance.Expense
	From string
}

func expenseRows(items []finance.Expense) []expenseRow {
	rows := make([]expenseRow, len(items))
	for i, e := range items {
		rows[i] = expenseRow{Expense: e, From: cmp.Or(accountOrCard(e), e.PaymentMethod)}
	}
	return rows
}

// expensesCSV downloads every expense through the list's filter (the
// active ones unless it asks for the voided ones) and sort. A split expense
// is one row, its category "Split" and its parts in the parts column.
func (s *Site) expensesCSV(w http.ResponseWriter, r bunrouter.Request) error {
	u, _, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	_, lq, f, err := s.expenseRequest(r.Request, u, readListFilter(r.URL.Query()))
	if err != nil {
		return err
	}
	items, err := allRows(lq.Params, func(p finance.ListParams) (finance.Page[finance.Expense], error) {
		page, err := s.ledger.ListExpenses(r.Context(), u.ID, f, p)
		return page.Page, err
	})
	if err != nil {
		return err
	}
	rows := make([][]string, len(items))
	for i, e := range items {
		category, parts := "", make([]string, len(e.Splits))
		if e.Category != nil {
			category = *e.Category
		} else if e.IsSplit {
			category = "Split"
		}
		for j, sp := range e.Splits {
			parts[j] = sp.Category + " " + sp.Amount.String()
		}
		rows[i] = []string{e.Date.String(), e.Description, category, e.PaymentMethod, e.Amount.String(),
			strings.Join(parts, "; "), deref(e.Notes), e.ID, accountOrCard(e)}
	}
	// account_or_card came after the others: it goes last, so a sheet that reads the columns by place keeps working.
	return writeCSV(w, r.Request, csvName("expenses", lq.From, lq.To),
		[]string{"date", "description", "category", "payment_method", "amount", "split_parts", "notes", "id", "account_or_card"}, rows)
}

// expenseVoid voids an expense as DELETE /expenses/{id} does; the list's
// Void button opens the confirm step that posts here. A refusal says what
// to do instead (expenseVoidAdvice).
func (s *Site) expenseVoid(w http.ResponseWriter, r bunrouter.Request) error {
	return s.listVoid(w, r, ExpensesPath, "expenses", "Expenses", "expense-voided",
		func(ctx context.Context, userID, id string) error {
			_, err := s.ledger.VoidExpense(ctx, userID, id)
			if errors.Is(err, finance.ErrInvalidStatus) {
				return s.expenseVoidAdvice(ctx, userID, id, err)
			}
			return err
		},
		func(r *http.Request, u finance.User, q url.Values) (any, error) {
			return s.expensesView(r, u, readListFilter(q))
		})
}

// expenseVoidAdvice turns the refused void of an expense that another
// record holds (a card purchase on a statement or in installments, a bill
// payment) into what to do instead, with a link to where it is done. Any
// other refusal (already voided) stays as the API words it.
func (s *Site) expenseVoidAdvice(ctx context.Context, userID, id string, refused error) error {
	e, err := s.ledger.GetExpense(ctx, userID, id)
	if err != nil {
		return refused
	}
	if e.Source == finance.ExpenseBillPayment && e.BillPaymentID != nil {
		if p, err := s.ledger.GetBillPayment(ctx, userID, *e.BillPaymentID); err == nil {
			return &refusalAdvice{err: refused, message: e.Description + " is the payment of a bill, so it cannot be voided here. " +
				"Delete the payment on the bill's page instead; that voids this expense too.",
				link: pageLink{Href: BillsPath + "/" + p.BillID, Text: "Open the bill"}}
		}
	}
	if e.CardTransactionID == nil || e.Status == finance.StatusVoided {
		return refused
	}
	t, err := s.ledger.GetCardTransaction(ctx, userID, *e.CardTransactionID)
	if err != nil {
		return refused
	}
	switch {
	case t.Status == finance.CardBilled && t.SOAID != nil:
		soa, err := s.ledger.FindSOA(ctx, userID, *t.SOAID)
		if err != nil {
			return refused
		}
		show, err := s.displayFor(ctx, userID)
		if err != nil {
			return refused
		}
		return &refusalAdvice{err: refused, message: e.Description + " is on the " + t.CreditCardName + " statement of " +
			show.Date(soa.StatementDate) + ", so it can no longer be voided. If the purchase was returned or charged by " +
			"mistake, add a refund line on that statement instead.",
			link: pageLink{Href: StatementsPath + "/" + soa.ID + "?refund=" + t.ID + "#line-heading", Text: "Add a refund on the statement"}}
	case t.Status == finance.CardConverted:
		return &refusalAdvice{err: refused, message: e.Description + " was converted to installments, so it cannot be voided. " +
			"Cancel its installment plan on the card's page instead.",
			link: pageLink{Href: CardsPath + "/" + t.CreditCardID, Text: "Open " + t.CreditCardName}}
	}
	return refused
}

// refusalAdvice is a refused write (err, which keeps its status) in the
// page's words: what to do instead, and a link to where it is done.
type refusalAdvice struct {
	err     error
	message string
	link    pageLink
}

func (a *refusalAdvice) Error() string { return a.message }
func (a *refusalAdvice) Unwrap() error { return a.err }

// pageLink is a link a page shows beside a message.
type pageLink struct{ Href, Text string }

// listVoid voids the row of the list at path (a template's name and title)
// that the route's id names, through void, then returns to the page of the
// list it was on (the form's back) with notice. A refusal (a billed card
// purchase, say) is shown on that same page of the list, from view with
// back's query, with the advice of a refusalAdvice or in the API's words.
func (s *Site) listVoid(w http.ResponseWriter, r bunrouter.Request, path, name, title, notice string,
	void func(ctx context.Context, userID, id string) error, view func(*http.Request, finance.User, url.Values) (any, error)) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	back := SafeNext(r.PostForm.Get("back"))
	if back != path && !strings.HasPrefix(back, path+"?") {
		back = path
	}
	err = void(r.Context(), u.ID, r.Param("id"))
	p := pageView{Title: title, Nav: name, User: &u, CSRF: auth.CSRFToken(sid)}
	if _, ok := refusal(&p, err, "Not voided."); ok {
		var q url.Values
		if b, perr := url.Parse(back); perr == nil {
			q = b.Query()
		}
		if p.Data, err = view(r.Request, u, q); err != nil { // a back the list refuses: its first page
			if p.Data, err = view(r.Request, u, nil); err != nil {
				return err
			}
		}
		return s.render(w, r.Request, name, p)
	} else if err != nil {
		return err
	}
	return Redirect(w, r.Request, withNotice(back, notice))
}

// pageRefusal reports whether err is a refusal a page shows the person (a
// validation problem, a state rule, a missing record) rather than a failure,
// and the status the API gives it, from the one error table.
func pageRefusal(err error) (int, bool) {
	var ve *finance.ValidationError
	if !errors.As(err, &ve) && !errors.Is(err, finance.ErrInvalidStatus) && !errors.Is(err, finance.ErrNotFound) &&
		!errors.Is(err, finance.ErrConflict) && !errors.Is(err, finance.ErrRateMissing) {
		return 0, false
	}
	status, _ := httperr.Response(err, "")
	return status, true
}
