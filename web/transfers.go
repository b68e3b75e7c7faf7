package web

// The transfer form of the web app: money moved between two of the user's
// accounts (docs/domain.md "Transfers"), reached from the Accounts page and
// each account's page. The same page edits a transfer and deletes it, from
// the links on both accounts' lines. Every write goes through the service
// call of the REST route; a refused form is shown again with its problems.

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// TransfersPath is where transfers are posted; TransfersPath/new is the
// form and TransfersPath/{id} a transfer's page.
const TransfersPath = "/transfers"

func (s *Site) registerWebAppTransferRoutes() {
	s.page(http.MethodGet, TransfersPath+"/new", s.transferNewPage)
	s.oncePage(TransfersPath, s.transferCreate)
	s.page(http.MethodGet, TransfersPath+"/:id", s.transferPage)
	s.page(http.MethodPost, TransfersPath+"/:id", s.transferUpdate)
	s.page(http.MethodPost, TransfersPath+"/:id/delete", s.transferDelete)
}

// transferForm is the form's fields, with the API's names.
type transferForm struct {
	From, To, Amount, Date, Description, Fee, FeeCategory string
	ToAmount                                              string // what arrived, between accounts of two currencies
}

func postedTransferForm(f url.Values) transferForm {
	return transferForm{From: f.Get("from_account_id"), To: f.Get("to_account_id"), Amount: f.Get("amount"), Date: f.Get("date"),
		Description: f.Get("description"), Fee: f.Get("fee"), FeeCategory: f.Get("fee_category"), ToAmount: f.Get("to_amount")}
}

func transferFormOf(t finance.Transfer) transferForm {
	f := transferForm{From: t.FromAccountID, To: t.ToAccountID, Amount: t.Amount.String(), Date: t.Date.String(),
		Description: deref(t.Description), FeeCategory: deref(t.FeeCategory)}
	if t.FromCurrency != t.ToCurrency {
		f.ToAmount = t.ToAmount.String()
	}
	if t.Fee > 0 {
		f.Fee = t.Fee.String()
	}
	return f
}

// request is the form as a request body; on an edit, an emptied
// description or fee clears it as PUT's null does.
func (f transferForm) request(edit bool) finance.TransferRequest {
	var req finance.TransferRequest
	values := map[string]string{"from_account_id": f.From, "to_account_id": f.To, "amount": f.Amount, "date": f.Date,
		"description": f.Description, "fee": f.Fee, "to_amount": f.ToAmount}
	if strings.TrimSpace(f.Fee) != "" {
		// The category picker keeps its choice when the fee is emptied; it
		// goes with a fee only.
		values["fee_category"] = f.FeeCategory
	}
	if edit {
		formRequest(&req, values, "description", "fee")
	} else {
		formRequest(&req, values)
	}
	return req
}

type transferData struct {
	Show       display
	Transfer   *finance.Transfer // nil on the new transfer form
	Form       transferForm
	Fields     map[string]string
	Accounts   []finance.AccountOption
	Categories []finance.CategoryOption
	Back       string // the account the form came from
}

// transferView is the form's page: a new transfer from the account named
// in from, or the transfer t.
func (s *Site) transferView(r *http.Request, u finance.User, form transferForm, t *finance.Transfer) (transferData, error) {
	ctx := r.Context()
	show, err := s.displayFor(ctx, u.ID)
	if err != nil {
		return transferData{}, err
	}
	d := transferData{Show: show, Transfer: t, Form: form, Fields: map[string]string{}, Back: AccountsPath}
	if d.Accounts, err = s.ledger.AccountOptions(ctx, u.ID); err != nil {
		return d, err
	}
	if d.Categories, err = s.ledger.CategoryOptions(ctx, u.ID, finance.KindExpense); err != nil {
		return d, err
	}
	if finance.ValidID(form.From) {
		d.Back = AccountsPath + "/" + form.From
	}
	if d.Form.Date == "" {
		d.Form.Date = show.today.String()
	}
	return d, nil
}

func transferTitle(t *finance.Transfer) string {
	if t == nil {
		return "Transfer between accounts"
	}
	return "Transfer"
}

// renderTransfer shows the form page, with a refused write's problems
// when err is one.
func (s *Site) renderTransfer(w http.ResponseWriter, r *http.Request, u finance.User, sid string, form transferForm,
	t *finance.Transfer, err error, prefix string) error {
	d, viewErr := s.transferView(r, u, form, t)
	if viewErr != nil {
		return viewErr
	}
	p, fields, err := accountsFormPage(r, &u, sid, transferTitle(t), err, prefix)
	if err != nil {
		return err
	}
	if fields != nil {
		d.Fields = fields
	}
	p.Data = d
	return s.render(w, r, "transfer", p)
}

// accountsFormPage is the frame of a form page under Accounts, with a
// refused write's status and message when err is one; fields are the
// problems to show beside the form's fields (nil when none). err comes back
// only when it is a failure rather than a refusal.
func accountsFormPage(r *http.Request, u *finance.User, sid, title string, err error, prefix string) (pageView, map[string]string, error) {
	p := pageView{Title: title, Nav: "accounts", User: u, CSRF: auth.CSRFToken(sid), Notice: notices[r.URL.Query().Get("notice")]}
	if err == nil {
		return p, nil, nil
	}
	fields, ok := refusal(&p, err, prefix)
	if !ok {
		return p, nil, err
	}
	return p, fields, nil
}

func (s *Site) transferNewPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	q := r.URL.Query()
	return s.renderTransfer(w, r.Request, u, sid, transferForm{From: q.Get("from"), To: q.Get("to")}, nil, nil, "")
}

// transferCreate records the transfer as POST /transfers does, then opens
// the account the money left.
func (s *Site) transferCreate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	form := postedTransferForm(r.PostForm)
	t, err := s.ledger.CreateTransfer(r.Context(), u.ID, form.request(false))
	if err != nil {
		return s.renderTransfer(w, r.Request, u, sid, form, nil, err, "Not recorded.")
	}
	s.keepWarnings(w, t.Warnings, nil)
	return Redirect(w, r.Request, AccountsPath+"/"+t.FromAccountID+"?notice=transfer-recorded")
}

// transferOf is the path's transfer.
func (s *Site) transferOf(r bunrouter.Request, u finance.User) (finance.Transfer, error) {
	id, err := pathRecord(r, "id", "transfer")
	if err != nil {
		return finance.Transfer{}, err
	}
	return s.ledger.GetTransfer(r.Context(), u.ID, id)
}

func (s *Site) transferPage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	t, err := s.transferOf(r, u)
	if err != nil {
		return err
	}
	return s.renderTransfer(w, r.Request, u, sid, transferFormOf(t), &t, nil, "")
}

// transferUpdate changes the transfer as PUT /transfers/{id} does.
func (s *Site) transferUpdate(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "transfer")
	if !ok {
		return err
	}
	cur, err := s.ledger.GetTransfer(r.Context(), u.ID, id)
	if err != nil {
		return err
	}
	form := postedTransferForm(r.PostForm)
	t, err := s.ledger.UpdateTransfer(r.Context(), u.ID, id, form.request(true))
	if err != nil {
		return s.renderTransfer(w, r.Request, u, sid, form, &cur, err, "Not saved.")
	}
	s.keepWarnings(w, t.Warnings, nil)
	return Redirect(w, r.Request, AccountsPath+"/"+t.FromAccountID+"?notice=transfer-saved")
}

// transferDelete deletes the transfer as DELETE /transfers/{id} does.
func (s *Site) transferDelete(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", "transfer")
	if !ok {
		return err
	}
	t, err := s.ledger.VoidTransfer(r.Context(), u.ID, id)
	if err != nil {
		cur, getErr := s.ledger.GetTransfer(r.Context(), u.ID, id)
		if getErr != nil {
			return getErr
		}
		return s.renderTransfer(w, r.Request, u, sid, transferFormOf(cur), &cur, err, "Not deleted.")
	}
	return Redirect(w, r.Request, AccountsPath+"/"+t.FromAccountID+"?notice=transfer-deleted")
}
