package web

// The Cards pages of the web app: the cards with their figures, one card
// with its statements (overdue, open, paid), its unbilled transactions and
// its installment plans; a statement with its lines, link and un-link, its
// payments, a pay form and void; converting an unbilled purchase to an
// installment plan, and a plan with its schedule and cancel. Void and
// cancel ask first, on a page of their own that says what will happen.
// Every write goes through the same service call as the REST route, and
// the statements due are generated before a page reads, as the REST routes
// under /credit-cards do.

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Paths of the Cards pages.
const (
	CardsPath        = "/cards"
	StatementsPath   = "/statements"
	InstallmentsPath = "/installments"
	// convertPath is the conversion form of a card purchase: CardsPath/transactions/{id}/convert.
	convertPath = CardsPath + "/transactions"
)

func (s *Site) registerWebAppCardRoutes() {
	s.registerWebAppAccountRoutes()
	s.registerWebAppTransferRoutes()
	s.registerWebAppReconcileRoutes()
	s.page(http.MethodGet, CardsPath, s.cardsPage)
	s.oncePage(CardsPath, s.cardCreate)
	s.page(http.MethodGet, CardsPath+"/:id", s.cardPage)
	s.page(http.MethodPost, CardsPath+"/:id", s.cardEdit)
	s.page(http.MethodPost, CardsPath+"/:id/archive", s.cardArchive)
	s.page(http.MethodPost, CardsPath+"/:id/unarchive", s.cardArchive)
	s.page(http.MethodGet, convertPath+"/:id/convert", s.convertPage)
	s.oncePage(convertPath+"/:id/convert", s.convertSubmit)
	s.page(http.MethodGet, StatementsPath+"/:id", s.statementPage)
	s.oncePage(StatementsPath+"/:id/pay", s.statementPay)
	s.page(http.MethodPost, StatementsPath+"/:id/link", s.statementLink)
	s.page(http.MethodPost, StatementsPath+"/:id/lines/:txId/remove", s.statementRemoveLine)
	s.page(http.MethodGet, StatementsPath+"/:id/void", s.statementVoidConfirm)
	s.page(http.MethodPost, StatementsPath+"/:id/void", s.statementVoid)
	s.page(http.MethodGet, InstallmentsPath+"/:id", s.installmentPage)
	s.page(http.MethodGet, InstallmentsPath+"/:id/cancel", s.installmentCancelConfirm)
	s.page(http.MethodPost, InstallmentsPath+"/:id/cancel", s.installmentCancel)
}

// generateStatements creates the statements due on the user's cards before
// a page reads them, as withGeneration does for the REST routes. A failure
// is logged and the page still answers; a write generates again in its own
// transaction.
func (s *Site) generateStatements(r *http.Request, u finance.User) {
	if err := s.ledger.GenerateStatements(r.Context(), u.ID); err != nil {
		s.log.WarnContext(r.Context(), "statement generation failed", "error", err)
	}
}

// pageWrite checks a posted form and its path id (what names the record in
// 404s); ok is false when the response is already decided by err.
func (s *Site) pageWrite(w http.ResponseWriter, r bunrouter.Request, param, what string) (finance.User, string, string, bool, error) {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return u, sid, "", false, err
	}
	id, err := pathRecord(r, param, what)
	if err != nil {
		return u, sid, "", false, err
	}
	return u, sid, id, true, nil
}

// confirmData is the content of the confirm template: what a destructive
// action will do, its button, and the way back.
type confirmData struct {
	Heading string
	Lines   []string
	Action  string // where the form posts
	Button  string
	Back    string
}

// --- the card form --------------------------------------------------------------

// cardForm is the card form's fields: their defaults, or what was sent.
type cardForm struct {
	Name, Bank, LastFour, CreditLimit, StatementDay, DueDay, CycleStartDate, MinimumDuePercent, MinimumDueFloor string
	Currency, ForeignFeePercent, Notes                                                                          string
}

func postedCardForm(f url.Values) cardForm {
	return cardForm{Name: f.Get("name"), Bank: f.Get("bank"), LastFour: f.Get("last_four"), CreditLimit: f.Get("credit_limit"),
		StatementDay: f.Get("statement_day"), DueDay: f.Get("due_day"), CycleStartDate: f.Get("cycle_start_date"),
		MinimumDuePercent: f.Get("minimum_due_percent"), MinimumDueFloor: f.Get("minimum_due_floor"), Currency: f.Get("currency"),
		ForeignFeePercent: f.Get("foreign_fee_percent"), Notes: f.Get("notes")}
}

func cardFormOf(c finance.CreditCard) cardForm {
	f := cardForm{Name: c.Name, CreditLimit: c.CreditLimit.String(), StatementDay: strconv.Itoa(c.StatementDay), DueDay: strconv.Itoa(c.DueDay),
		CycleStartDate: c.CycleStartDate.String(), MinimumDuePercent: c.MinimumDuePercent.String(), MinimumDueFloor: c.MinimumDueFloor.String(),
		Currency: c.Currency, ForeignFeePercent: c.ForeignFeePercent.String()}
	for dst, src := range map[*string]*string{&f.Bank: c.Bank, &f.LastFour: c.LastFour, &f.Notes: c.Notes} {
		if src != nil {
			*dst = *src
		}
	}
	return f
}

// request is the form as the body of POST or PUT /credit-cards. On an edit,
// every field is sent: an emptied one is null, which clears an optional
// field or resets it to its default and is "required" for the others.
func (f cardForm) request(edit bool) finance.CardRequest {
	var req finance.CardRequest
	values := map[string]string{"name": f.Name, "bank": f.Bank, "last_four": f.LastFour, "credit_limit": f.CreditLimit,
		"statement_day": f.StatementDay, "due_day": f.DueDay, "cycle_start_date": f.CycleStartDate,
		"minimum_due_percent": f.MinimumDuePercent, "minimum_due_floor": f.MinimumDueFloor, "currency": f.Currency,
		"foreign_fee_percent": f.ForeignFeePercent, "notes": f.Notes}
	if edit {
		formRequest(&req, values, slices.Collect(maps.Keys(values))...)
	} else {
		formRequest(&req, values)
	}
	return req
}

// cardFormView is what the "card-fields" partial shows.
type cardFormView struct {
	ID       string
	Form     cardForm
	Fields   map[string]string
	Currency currencyField
}

// --- Cards ------------------------------------------------------------------------

// cardRow is a card with its utilization band.
type cardRow struct {
	finance.CreditCard
	Level string
}

func cardRowOf(c finance.CreditCard) cardRow {
	return cardRow{CreditCard: c, Level: finance.UtilizationLevel(c.UtilizationPercent)}
}

type cardsData struct {
	Show         display
	Status       string
	Statuses     []choice
	Items        []cardRow
	New          cardFormView
	FilterFields map[string]string
}

func (s *Site) cardsView(r *http.Request, u finance.User, status string) (cardsData, error) {
	s.generateStatements(r, u)
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return cardsData{}, err
	}
	d := cardsData{Show: show, Status: status, Statuses: choices(finance.StatusActive, finance.StatusArchived, finance.StatusAll),
		New: cardFormView{ID: "new", Form: cardForm{CycleStartDate: show.today.String(), Currency: show.currency},
			Fields: map[string]string{}, Currency: newCurrencyField("new")},
		FilterFields: map[string]string{}}
	f, err := finance.ParseCardFilter(status, "")
	if err != nil {
		d.FilterFields = problems(err)
		return d, err
	}
	d.Status = f.Status
	list, err := s.ledger.ListCreditCards(r.Context(), u.ID, f, finance.ListParams{Page: 1, Limit: finance.MaxLimit, SortBy: "name"})
	if err != nil {
		return d, err
	}
	for _, c := range list.Items {
		d.Items = append(d.Items, cardRowOf(c))
	}
	return d, nil
}

func (s *Site) cardsPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showStatusList(s, w, r, "cards", "Cards", s.cardsView)
}

// cardCreate creates a card as POST /credit-cards does, then opens it.
func (s *Site) cardCreate(w http.ResponseWriter, r bunrouter.Request) error {
	return createThenOpen(s, w, r, "cards", "Cards", postedCardForm,
		func(ctx context.Context, userID string, form cardForm) (string, error) {
			c, err := s.ledger.CreateCreditCard(ctx, userID, form.request(false))
			return CardsPath + "/" + c.ID + "?notice=card-created", err
		},
		s.cardsView, func(d *cardsData, form cardForm, fields map[string]string) { d.New.Form, d.New.Fields = form, fields })
}

// --- one card -----------------------------------------------------------------------

// unbilledQuery is the unbilled list's filter, with the API's query names.
type unbilledQuery struct {
	Type, DateFrom, DateTo, Search string
}

func (f unbilledQuery) query() url.Values {
	q := url.Values{}
	for k, v := range map[string]string{"type": f.Type, "dateFrom": f.DateFrom, "dateTo": f.DateTo, "search": f.Search} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

type cardData struct {
	Show         display
	Card         cardRow
	Edit         cardFormView
	Statements   []soaGroup // overdue, open and paid, the empty ones left out
	Filter       unbilledQuery
	FilterFields map[string]string
	Types        []choice
	Unbilled     []finance.CardTransaction
	Pager        pager
	Plans        []finance.InstallmentPlan
}

// soaGroup is one state's statements on the card page.
type soaGroup struct {
	Name  string
	Items []finance.SOA
}

// groupSOAs sorts a card's statements into overdue, open (not yet due) and
// paid, in that order, leaving out the empty groups.
func groupSOAs(soas []finance.SOA) []soaGroup {
	groups := []soaGroup{{Name: "Overdue"}, {Name: "Open"}, {Name: "Paid"}}
	for _, a := range soas {
		switch {
		case a.IsOverdue:
			groups[0].Items = append(groups[0].Items, a)
		case a.Open():
			groups[1].Items = append(groups[1].Items, a)
		default:
			groups[2].Items = append(groups[2].Items, a)
		}
	}
	out := groups[:0]
	for _, g := range groups {
		if len(g.Items) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// cardView shows card id: its figures, its statements by state, a page of
// its unbilled rows through the filter of q, and its installment plans.
func (s *Site) cardView(r *http.Request, u finance.User, id string, q url.Values) (cardData, error) {
	ctx := r.Context()
	if !finance.ValidID(id) {
		return cardData{}, finance.NotFound("credit card")
	}
	s.generateStatements(r, u)
	c, err := s.ledger.GetCreditCard(ctx, u.ID, id)
	if err != nil {
		return cardData{}, err
	}
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return cardData{}, err
	}
	d := cardData{Show: show, Card: cardRowOf(c), Edit: cardFormView{ID: "edit", Form: cardFormOf(c), Fields: map[string]string{}},
		Filter:       unbilledQuery{Type: q.Get("type"), DateFrom: q.Get("dateFrom"), DateTo: q.Get("dateTo"), Search: q.Get("search")},
		FilterFields: map[string]string{}, Types: choices(finance.CardTypeFilters...)}
	if d.Edit.Currency, err = s.editCurrencyField(ctx, u.ID, "edit", finance.LogCreditCard, c.ID); err != nil {
		return d, err
	}
	soas, err := s.ledger.ListSOAs(ctx, u.ID, finance.SOAFilter{CardID: c.ID}, finance.ListParams{Page: 1, Limit: finance.MaxLimit, SortBy: "statement_date", Desc: true})
	if err != nil {
		return d, err
	}
	d.Statements = groupSOAs(soas.Items)
	plans, err := s.ledger.ListInstallmentPlans(ctx, u.ID, finance.PlanFilter{CardID: c.ID},
		finance.ListParams{Page: 1, Limit: finance.MaxLimit, SortBy: "created_at", Desc: true})
	if err != nil {
		return d, err
	}
	d.Plans = plans.Items

	var v finance.Validator
	lq := d.Filter.query()
	if pg := q.Get("page"); pg != "" {
		lq.Set("page", pg)
	}
	params := listPage(&v, lq, finance.CardTransactionList)
	f := finance.CardTransactionFilter{CardID: c.ID, Status: finance.CardUnbilled, Search: d.Filter.Search,
		Type: queryparam.Enum(&v, lq, "type", finance.CardTypeFilters...)}
	f.DateFrom, f.DateTo = queryparam.DateRange(&v, lq)
	if err := v.Err(); err != nil {
		var ve *finance.ValidationError
		errors.As(err, &ve)
		d.FilterFields = ve.Fields
		return d, err
	}
	list, err := s.ledger.ListCardTransactions(ctx, u.ID, f, params)
	if err != nil {
		return d, err
	}
	d.Unbilled = list.Items
	d.Pager = newPager(CardsPath+"/"+c.ID, lq, list.Pagination)
	return d, nil
}

func (s *Site) cardPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showFilteredRecord(s, w, r, "card", "cards", s.cardView, cardTitle)
}

func cardTitle(d cardData) string { return d.Card.Name }

// cardEdit changes the card as PUT /credit-cards/{id} does.
func (s *Site) cardEdit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "credit card")
	if !ok {
		return err
	}
	form := postedCardForm(r.PostForm)
	if _, err := s.ledger.UpdateCreditCard(r.Context(), u.ID, id, form.request(true)); err != nil {
		return s.cardRefused(w, r, u, sid, id, err, "Not saved.", &form)
	}
	return Redirect(w, r.Request, CardsPath+"/"+id+"?notice=card-saved")
}

// cardArchive archives or unarchives the card as PATCH
// /credit-cards/{id}/archive and /unarchive do.
func (s *Site) cardArchive(w http.ResponseWriter, r bunrouter.Request) error {
	return archiveToggle(s, w, r, "credit card", CardsPath, "card", s.ledger.ArchiveCreditCard, s.ledger.UnarchiveCreditCard,
		func(u finance.User, sid, id string, err error) error {
			return s.cardRefused(w, r, u, sid, id, err, "Not changed.", nil)
		})
}

// cardRefused shows the card page again after a refused write, with the
// edit form holding what was sent (when sent is not nil) and its problems.
func (s *Site) cardRefused(w http.ResponseWriter, r bunrouter.Request, u finance.User, sid, id string, err error, prefix string, sent *cardForm) error {
	var keep func(d *cardData, fields map[string]string)
	if sent != nil {
		keep = func(d *cardData, fields map[string]string) {
			if fields != nil {
				d.Edit.Form, d.Edit.Fields = *sent, fields
			}
		}
	}
	return refusedOn(s, w, r.Request, u, sid, "card", "cards", err, prefix,
		func() (cardData, error) { return s.cardView(r.Request, u, id, url.Values{}) }, keep, cardTitle)
}

// --- statements ---------------------------------------------------------------------

type statementData struct {
	Show       display
	SOA        finance.SOADetail
	Linkable   []finance.CardTransaction // the card's unbilled rows the statement can take
	LinkFields map[string]string
	Payments   []finance.SOAPayment
	PayForm    payForm
	PayFields  map[string]string
	Pay        payChoices
	Edit       soaForm
	EditFields map[string]string
	Line       soaLineForm
	LineFields map[string]string
	LineOpen   bool // the line form starts open: a refund is suggested
	LineTypes  []choice
	Categories []finance.CategoryOption // a refund line's category
}

func (s *Site) statementView(r *http.Request, u finance.User, id string) (statementData, error) {
	ctx := r.Context()
	if !finance.ValidID(id) {
		return statementData{}, finance.NotFound("statement")
	}
	s.generateStatements(r, u)
	a, err := s.ledger.GetSOA(ctx, u.ID, id)
	if err != nil {
		return statementData{}, err
	}
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return statementData{}, err
	}
	accts, err := s.ledger.AccountOptions(ctx, u.ID)
	if err != nil {
		return statementData{}, err
	}
	d := statementData{Show: show, SOA: a, LinkFields: map[string]string{}, PayFields: map[string]string{},
		PayForm: payForm{Amount: a.Remaining.String(), Date: show.today.String()},
		Pay:     payChoices{Show: show, Accounts: accts, AccountRequired: true},
		Edit:    soaFormOf(a.SOA), EditFields: map[string]string{}, Line: soaLineForm{Type: finance.CardFee, Date: a.StatementDate.String()},
		LineFields: map[string]string{}, LineTypes: choices(finance.SOALineTypes...)}
	if d.Categories, err = s.ledger.CategoryOptions(ctx, u.ID, finance.KindExpense); err != nil {
		return statementData{}, err
	}
	if len(accts) > 0 {
		d.PayForm.AccountID = accts[0].ID
	}
	all := finance.ListParams{Page: 1, Limit: finance.MaxLimit, SortBy: "date"}
	payments, err := s.ledger.ListSOAPayments(ctx, u.ID, a.ID, finance.SOAPaymentFilter{}, all)
	if err != nil {
		return statementData{}, err
	}
	d.Payments = payments.Items
	if a.Status != finance.StatusVoided {
		rows, err := s.ledger.ListCardTransactions(ctx, u.ID, finance.CardTransactionFilter{CardID: a.CreditCardID,
			Status: finance.CardUnbilled, DateTo: a.StatementDate}, all)
		if err != nil {
			return statementData{}, err
		}
		d.Linkable = rows.Items
	}
	return d, nil
}

func (s *Site) statementPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	d, err := s.statementView(r.Request, u, r.Param("id"))
	if err != nil {
		return err
	}
	q := r.URL.Query()
	d.suggestRefund(q.Get("refund"))
	return s.render(w, r.Request, "statement", pageView{Title: "Statement", Nav: "cards", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[q.Get("notice")], Data: d})
}

// suggestRefund fills the line form, opened, with a refund of the whole
// purchase txID when it is a live purchase on this live statement: where a
// refused void of a billed purchase sends the person. Anything else leaves
// the form as it was.
func (d *statementData) suggestRefund(txID string) {
	if txID == "" || d.SOA.Status == finance.StatusVoided {
		return
	}
	i := slices.IndexFunc(d.SOA.Transactions, func(t finance.CardTransaction) bool {
		return t.ID == txID && t.Type == finance.CardPurchase && t.Status != finance.StatusVoided
	})
	if i < 0 {
		return
	}
	t := d.SOA.Transactions[i]
	desc := []rune("Refund: " + t.Description)
	if len(desc) > finance.MaxDescription {
		desc = desc[:finance.MaxDescription]
	}
	d.Line = soaLineForm{Type: finance.CardRefund, Amount: t.Amount.String(), Description: string(desc), Category: deref(t.Category),
		Date: d.SOA.StatementDate.String()}
	d.LineOpen = true
}

// statementRefused shows the statement page again after a refused write;
// keep puts what was sent back in its form, with the problems.
func (s *Site) statementRefused(w http.ResponseWriter, r bunrouter.Request, u finance.User, sid, id string, err error, prefix string,
	keep func(d *statementData, fields map[string]string)) error {
	return refusedOn(s, w, r.Request, u, sid, "statement", "cards", err, prefix,
		func() (statementData, error) { return s.statementView(r.Request, u, id) }, keep,
		func(statementData) string { return "Statement" })
}

// statementPay records a payment from an account as POST
// /credit-cards/soa/{id}/payments does.
func (s *Site) statementPay(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "statement")
	if !ok {
		return err
	}
	form := postedPayForm(r.PostForm)
	form.PaymentMethod, form.CreditCardID = "", "" // a statement is paid from an account
	var req finance.SOAPaymentRequest
	formRequest(&req, form.values())
	paid, err := s.ledger.PaySOA(r.Context(), u.ID, id, req)
	if err != nil {
		return s.statementRefused(w, r, u, sid, id, err, "Not paid.", func(d *statementData, fields map[string]string) {
			d.PayForm = form
			if fields != nil {
				d.PayFields = fields
			}
		})
	}
	s.keepWarnings(w, paid.Warnings, nil)
	return Redirect(w, r.Request, StatementsPath+"/"+id+"?notice=statement-paid")
}

// statementLink links the ticked unbilled rows as POST
// /credit-cards/soa/{id}/transactions/link does: all of them or none.
func (s *Site) statementLink(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "statement")
	if !ok {
		return err
	}
	ids := r.PostForm["transaction_ids"]
	if ids == nil {
		ids = []string{}
	}
	if _, err := s.ledger.LinkToSOA(r.Context(), u.ID, id, finance.LinkRequest{TransactionIDs: finance.Of(ids)}); err != nil {
		return s.statementRefused(w, r, u, sid, id, err, "Not linked.", func(d *statementData, fields map[string]string) {
			if fields != nil {
				d.LinkFields = fields
			}
		})
	}
	return Redirect(w, r.Request, StatementsPath+"/"+id+"?notice=statement-linked")
}

// statementRemoveLine un-links a linked row (back to unbilled, for the next
// statement) or voids a statement line, as DELETE
// /credit-cards/soa/{id}/transactions/{transactionId} does.
func (s *Site) statementRemoveLine(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "statement")
	if !ok {
		return err
	}
	txID := r.Param("txId")
	err = finance.NotFound("transaction on this statement")
	if finance.ValidID(txID) {
		_, err = s.ledger.RemoveSOALine(r.Context(), u.ID, id, txID)
	}
	if err != nil {
		return s.statementRefused(w, r, u, sid, id, err, "Not changed.", nil)
	}
	return Redirect(w, r.Request, StatementsPath+"/"+id+"?notice=statement-line-removed")
}

// statementVoidConfirm asks before a void, saying what it resets.
func (s *Site) statementVoidConfirm(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	id := r.Param("id")
	if !finance.ValidID(id) {
		return finance.NotFound("statement")
	}
	a, err := s.ledger.GetSOA(r.Context(), u.ID, id)
	if err != nil {
		return err
	}
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return err
	}
	back := StatementsPath + "/" + id
	d := confirmData{Heading: "Void the statement of " + show.Date(a.StatementDate) + "?", Action: back + "/void", Button: "Void and reset the statement", Back: back,
		Lines: []string{
			"Voiding resets the statement: its own fee, interest and refund lines are voided, and its linked transactions go back to unbilled.",
			"Its " + strconv.Itoa(len(a.Transactions)) + " lines and " + show.Money(a.PaidTotal) + " of payments are undone; the payments' account debits are voided, so the money returns to those accounts.",
			"A fresh statement for the same date is generated at once from the released transactions. This is how a wrong payment or line is corrected.",
		}}
	return s.render(w, r.Request, "confirm", pageView{Title: "Void statement", Nav: "cards", User: &u, CSRF: auth.CSRFToken(sid), Narrow: true, Data: d})
}

// statementVoid voids the statement as POST /credit-cards/soa/{id}/void
// does, then opens its replacement when one was generated.
func (s *Site) statementVoid(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "statement")
	if !ok {
		return err
	}
	a, err := s.ledger.VoidSOA(r.Context(), u.ID, id)
	if err != nil {
		return s.statementRefused(w, r, u, sid, id, err, "Not voided.", nil)
	}
	target := StatementsPath + "/" + id
	if a.ReplacedByID != nil {
		target = StatementsPath + "/" + *a.ReplacedByID
	}
	return Redirect(w, r.Request, target+"?notice=statement-voided")
}

// --- installments -------------------------------------------------------------------

// Kinds of interest on the conversion form: the API's none and add_on, the
// latter either as a monthly rate or as the bank's quoted monthly amount.
const (
	planNone   = finance.InterestNone
	planAddOn  = finance.InterestAddOn
	planQuoted = "quoted"
)

// convertForm is the conversion form's fields.
type convertForm struct {
	Months, Kind, InterestRate, MonthlyAmount, FirstInstallmentDate, Description string
}

type convertData struct {
	Show   display
	Tx     finance.CardTransaction
	Form   convertForm
	Fields map[string]string
	Kinds  []choice
}

func (s *Site) convertView(r *http.Request, u finance.User, id string) (convertData, error) {
	if !finance.ValidID(id) {
		return convertData{}, finance.NotFound("card transaction")
	}
	t, err := s.ledger.GetCardTransaction(r.Context(), u.ID, id)
	if err != nil {
		return convertData{}, err
	}
	show, err := s.displayFor(r.Context(), u.ID)
	if err != nil {
		return convertData{}, err
	}
	return convertData{Show: show, Tx: t, Form: convertForm{Months: "3", Kind: planNone, FirstInstallmentDate: t.Date.String()},
		Fields: map[string]string{}, Kinds: []choice{{planNone, "No interest"}, {planAddOn, "Add-on rate per month"},
			{planQuoted, "The bank's quoted monthly amount"}}}, nil
}

func (s *Site) convertPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	d, err := s.convertView(r.Request, u, r.Param("id"))
	if err != nil {
		return err
	}
	return s.render(w, r.Request, "convert", pageView{Title: "Convert to installments", Nav: "cards", User: &u, CSRF: auth.CSRFToken(sid), Data: d})
}

// convertSubmit converts the purchase as POST
// /credit-cards/transactions/{id}/convert-to-installment does, then opens the plan.
func (s *Site) convertSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "card transaction")
	if !ok {
		return err
	}
	f := r.PostForm
	form := convertForm{Months: f.Get("months"), Kind: f.Get("kind"), InterestRate: f.Get("interest_rate"),
		MonthlyAmount: f.Get("monthly_amount"), FirstInstallmentDate: f.Get("first_installment_date"), Description: f.Get("description")}
	values := map[string]string{"months": form.Months, "interest_type": form.Kind,
		"first_installment_date": form.FirstInstallmentDate, "description": form.Description}
	// Both amounts are on the form; only the chosen kind's is sent on.
	switch form.Kind {
	case planAddOn:
		values["interest_rate"] = form.InterestRate
	case planQuoted:
		values["interest_type"], values["monthly_amount"] = planAddOn, form.MonthlyAmount
	}
	var req finance.ConvertRequest
	formRequest(&req, values)
	plan, err := s.ledger.ConvertToInstallment(r.Context(), u.ID, id, req)
	if err == nil {
		return Redirect(w, r.Request, InstallmentsPath+"/"+plan.ID+"?notice=plan-created")
	}
	p := pageView{Title: "Convert to installments", Nav: "cards", User: &u, CSRF: auth.CSRFToken(sid)}
	fields, ok := refusal(&p, err, "Not converted.")
	if !ok {
		return err
	}
	d, err := s.convertView(r.Request, u, id)
	if err != nil {
		return err
	}
	d.Form = form
	if fields != nil {
		d.Fields = fields
	}
	p.Data = d
	return s.render(w, r.Request, "convert", p)
}

type installmentData struct {
	Show display
	Plan finance.InstallmentPlanDetail
}

func (s *Site) installmentView(r *http.Request, u finance.User, id string) (installmentData, error) {
	if !finance.ValidID(id) {
		return installmentData{}, finance.NotFound("installment plan")
	}
	s.generateStatements(r, u)
	p, err := s.ledger.GetInstallmentPlan(r.Context(), u.ID, id)
	if err != nil {
		return installmentData{}, err
	}
	show, err := s.displayFor(r.Context(), u.ID)
	return installmentData{Show: show, Plan: p}, err
}

func (s *Site) installmentPage(w http.ResponseWriter, r bunrouter.Request) error {
	return showPage(s, w, r, "installment", "Installment plan", "cards", func(rq *http.Request, u finance.User) (installmentData, error) {
		return s.installmentView(rq, u, r.Param("id"))
	})
}

// installmentCancelConfirm asks before a cancel, saying what it does to the rows.
func (s *Site) installmentCancelConfirm(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	d, err := s.installmentView(r.Request, u, r.Param("id"))
	if err != nil {
		return err
	}
	p := d.Plan
	back := InstallmentsPath + "/" + p.ID
	c := confirmData{Heading: "Cancel the plan for " + p.Description + "?", Action: back + "/cancel", Button: "Cancel the plan", Back: back}
	if p.BilledCount == 0 {
		c.Lines = []string{"No installment is billed yet: every row of the plan is voided and the purchase of " +
			d.Show.Money(p.Principal) + " goes back to unbilled, to be billed whole on the next statement."}
	} else {
		c.Lines = []string{"The " + strconv.Itoa(p.BilledCount) + " billed installments stay. The unbilled ones are voided and replaced by one pre-termination charge of " +
			d.Show.Money(p.RemainingPrincipal) + " dated today, the principal left; their interest is dropped."}
	}
	return s.render(w, r.Request, "confirm", pageView{Title: "Cancel installment plan", Nav: "cards", User: &u, CSRF: auth.CSRFToken(sid), Narrow: true, Data: c})
}

// installmentCancel cancels the plan as POST
// /credit-cards/installment-plans/{id}/cancel does.
func (s *Site) installmentCancel(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "installment plan")
	if !ok {
		return err
	}
	if _, err := s.ledger.CancelInstallmentPlan(r.Context(), u.ID, id); err != nil {
		p := pageView{Title: "Installment plan", Nav: "cards", User: &u, CSRF: auth.CSRFToken(sid)}
		if _, ok := refusal(&p, err, "Not cancelled."); !ok {
			return err
		}
		d, verr := s.installmentView(r.Request, u, id)
		if verr != nil {
			return verr
		}
		p.Data = d
		return s.render(w, r.Request, "installment", p)
	}
	return Redirect(w, r.Request, InstallmentsPath+"/"+id+"?notice=plan-cancelled")
}
