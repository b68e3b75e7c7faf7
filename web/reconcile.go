package web

// The reconcile page of an account (docs/domain.md "Reconciliation"): the
// posted lines up to the statement's date with a tick box each, marked
// cleared or pending in one go, the cleared balance at that date, and the
// statement's date and balance to compare it with. A match locks the
// cleared lines; a difference is shown with the lines still pending. Every
// write goes through the service call of the REST route.

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
)

func (s *Site) registerWebAppReconcileRoutes() {
	s.page(http.MethodGet, AccountsPath+"/:id/reconcile", s.reconcilePage)
	s.page(http.MethodPost, AccountsPath+"/:id/reconcile", s.reconcileSubmit)
	s.page(http.MethodPost, AccountsPath+"/:id/reconcile/cleared", s.reconcileMark)
}

// reconcileLinesShown bounds the lines the page lists, newest first: a
// statement's month, with room to spare.
const reconcileLinesShown = 200

// reconcileForm is the statement's fields, with the API's names.
type reconcileForm struct{ Date, StatementBalance string }

type reconcileData struct {
	Show           display
	Account        finance.Account
	Form           reconcileForm
	Fields         map[string]string
	Date           finance.Date // the lines' and the cleared balance's date
	ClearedBalance finance.Money
	Lines          []finance.AccountTransaction
	More           int                     // lines up to the date beyond those listed
	Result         *finance.Reconciliation // the answer of a reconcile just sent
}

// reconcileView is the page for account id at the date form.Date (today
// when empty or unreadable).
func (s *Site) reconcileView(r *http.Request, u finance.User, id string, form reconcileForm) (reconcileData, error) {
	ctx := r.Context()
	if !finance.ValidID(id) {
		return reconcileData{}, finance.NotFound("account")
	}
	a, err := s.ledger.GetAccount(ctx, u.ID, id)
	if err != nil {
		return reconcileData{}, err
	}
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return reconcileData{}, err
	}
	d := reconcileData{Show: show, Account: a, Form: form, Fields: map[string]string{}, Date: show.today}
	if date, err := finance.ParseDate(form.Date); err == nil {
		d.Date = date
	}
	d.Form.Date = d.Date.String()
	if d.ClearedBalance, err = s.ledger.ClearedBalance(ctx, u.ID, id, d.Date); err != nil {
		return d, err
	}
	page, err := s.ledger.ListAccountTransactions(ctx, u.ID,
		finance.AccountTransactionFilter{AccountID: id, Status: finance.LinePosted, DateTo: d.Date},
		finance.ListParams{Page: 1, Limit: reconcileLinesShown, SortBy: "date", Desc: true})
	if err != nil {
		return d, err
	}
	d.Lines, d.More = page.Items, page.Pagination.TotalItems-len(page.Items)
	return d, nil
}

// renderReconcile shows the page, with a refused write's problems when err is one.
func (s *Site) renderReconcile(w http.ResponseWriter, r *http.Request, u finance.User, sid, id string, form reconcileForm,
	result *finance.Reconciliation, err error, prefix string) error {
	d, viewErr := s.reconcileView(r, u, id, form)
	if viewErr != nil {
		return viewErr
	}
	d.Result = result
	p, fields, err := accountsFormPage(r, &u, sid, "Reconcile "+d.Account.Name, err, prefix)
	if err != nil {
		return err
	}
	if fields != nil {
		d.Fields = fields
	}
	p.Data = d
	return s.render(w, r, "reconcile", p)
}

func (s *Site) reconcilePage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	form := reconcileForm{Date: r.URL.Query().Get("date")}
	return s.renderReconcile(w, r.Request, u, sid, r.Param("id"), form, nil, nil, "")
}

// reconcileSubmit reconciles as POST /accounts/{id}/reconcile does and
// shows its answer on the page (a match and a difference alike).
func (s *Site) reconcileSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "account")
	if !ok {
		return err
	}
	form := reconcileForm{Date: r.PostForm.Get("date"), StatementBalance: r.PostForm.Get("statement_balance")}
	var req finance.ReconcileRequest
	formRequest(&req, map[string]string{"date": form.Date, "statement_balance": form.StatementBalance})
	out, err := s.ledger.Reconcile(r.Context(), u.ID, id, req)
	if err != nil {
		return s.renderReconcile(w, r.Request, u, sid, id, form, nil, err, "Not reconciled.")
	}
	return s.renderReconcile(w, r.Request, u, sid, id, form, &out, nil, "")
}

// reconcileMark marks the ticked lines as POST /accounts/{id}/cleared
// does, then shows the page again at the same date.
func (s *Site) reconcileMark(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "account")
	if !ok {
		return err
	}
	date := r.PostForm.Get("date")
	req := finance.MarkClearedRequest{TransactionIDs: finance.Of(r.PostForm["ids"]), Cleared: finance.Of(r.PostForm.Get("cleared"))}
	if r.PostForm["ids"] == nil {
		req.TransactionIDs = finance.Field[[]string]{}
	}
	if _, err := s.ledger.MarkCleared(r.Context(), u.ID, id, req); err != nil {
		return s.renderReconcile(w, r.Request, u, sid, id, reconcileForm{Date: date}, nil, err, "Not marked.")
	}
	return Redirect(w, r.Request, AccountsPath+"/"+id+"/reconcile?"+url.Values{"date": {date}, "notice": {"lines-marked"}}.Encode())
}
