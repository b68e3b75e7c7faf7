package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Accounts, their lines and balance adjustments (domain.md §2.3). The static
// /accounts/transactions is registered beside /accounts/:id; bunrouter
// matches static segments before parameters.
func (s *Server) registerAccountRoutes() {
	read, write := auth.Read(auth.ScopeAccountsWrite), auth.Write(auth.ScopeAccountsWrite)
	const base = "/api/v1/accounts"
	s.handle(http.MethodGet, base, read, s.listAccounts, list("status", "type", "search")...)
	s.handle(http.MethodPost, base, write, s.createAccount)
	s.handle(http.MethodGet, base+"/transactions", read, s.listAllAccountTransactions, list(append(accountLineFilters, "accountId")...)...)
	s.handle(http.MethodGet, base+"/:id", read, s.getAccount)
	s.handle(http.MethodPut, base+"/:id", write, s.updateAccount)
	s.handle(http.MethodDelete, base+"/:id", write, s.archiveAccount)
	s.handle(http.MethodPatch, base+"/:id/archive", write, s.archiveAccount)
	s.handle(http.MethodPatch, base+"/:id/unarchive", write, s.unarchiveAccount)
	s.handle(http.MethodGet, base+"/:id/transactions", read, s.listAccountTransactions, list(append(accountLineFilters, "cleared")...)...)
	s.handle(http.MethodPost, base+"/:id/transactions", write, s.createAccountTransaction)
	s.handle(http.MethodPut, base+"/:id/transactions/:transactionId", write, s.updateAccountTransaction)
	s.handle(http.MethodDelete, base+"/:id/transactions/:transactionId", write, s.voidAccountTransaction)
	s.handle(http.MethodPost, base+"/:id/balance-adjustment", write, s.adjustAccountBalance)
	s.handle(http.MethodPost, base+"/:id/cleared", write, s.markLinesCleared)
	s.handle(http.MethodPost, base+"/:id/reconcile", write, s.reconcileAccount)
}

// accountLineFilters are the filters of an account's line list; the list of
// every account's lines adds accountId.
var accountLineFilters = []string{"status", "type", "source", "dateFrom", "dateTo", "search"}

func (s *Server) listAccounts(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.AccountFilter
	p, err := listQuery(r.Request, finance.AccountList, func(v *finance.Validator, q url.Values) {
		var ferr error
		f, ferr = finance.ParseAccountFilter(q.Get("status"), q.Get("type"), q.Get("search"))
		v.Merge("", ferr)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListAccounts(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Accounts retrieved", page)
	return nil
}

func (s *Server) getAccount(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "account")
	if err != nil {
		return err
	}
	a, err := s.ledger.GetAccount(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Account retrieved", a)
	return nil
}

func (s *Server) createAccount(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.AccountRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	a, err := s.ledger.CreateAccount(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Account created", a)
	return nil
}

func (s *Server) updateAccount(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathAccount(r)
	if err != nil {
		return err
	}
	var req finance.AccountRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	a, err := s.ledger.UpdateAccount(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Account updated", a)
	return nil
}

// archiveAccount serves DELETE /accounts/{id} and PATCH /accounts/{id}/archive,
// which do the same thing: a soft archive that keeps the history.
func (s *Server) archiveAccount(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "account")
	if err != nil {
		return err
	}
	a, err := s.ledger.ArchiveAccount(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Account archived", a)
	return nil
}

func (s *Server) unarchiveAccount(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "account")
	if err != nil {
		return err
	}
	a, err := s.ledger.UnarchiveAccount(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Account unarchived", a)
	return nil
}

func (s *Server) listAllAccountTransactions(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.AccountTransactionFilter
	p, err := listQuery(r.Request, finance.AccountTransactionList, func(v *finance.Validator, q url.Values) {
		f = queryparam.LineFilter(v, q)
		f.AccountID = queryparam.ID(v, q, "accountId")
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListAccountTransactions(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Account transactions retrieved", page)
	return nil
}

func (s *Server) listAccountTransactions(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathAccount(r)
	if err != nil {
		return err
	}
	var f finance.AccountTransactionFilter
	p, err := listQuery(r.Request, finance.AccountTransactionList, func(v *finance.Validator, q url.Values) {
		f = queryparam.LineFilter(v, q)
	})
	if err != nil {
		return err
	}
	f.AccountID = id
	page, err := s.ledger.ListAccountTransactions(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Account transactions retrieved", page)
	return nil
}

func (s *Server) createAccountTransaction(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathAccount(r)
	if err != nil {
		return err
	}
	var req finance.AccountTransactionRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	t, err := s.ledger.CreateAccountTransaction(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Account transaction created", t)
	return nil
}

// pathAccount reads the {id} of a route under /accounts/{id}: one of the caller's accounts.
func (s *Server) pathAccount(r bunrouter.Request) (string, error) {
	return ownedPathID(r, "id", "account", s.ledger.GetAccount)
}

// linePath reads both path ids of /accounts/{id}/transactions/{transactionId}
// and checks, before the body is read, that the line is on that account of the caller's.
func (s *Server) linePath(r bunrouter.Request) (accountID, lineID string, err error) {
	if accountID, err = pathID(r, "id", "account"); err != nil {
		return "", "", err
	}
	if lineID, err = pathID(r, "transactionId", "account transaction"); err != nil {
		return "", "", err
	}
	if _, err := s.ledger.GetAccountTransaction(r.Context(), userID(r), accountID, lineID); err != nil {
		return "", "", err
	}
	return accountID, lineID, nil
}

func (s *Server) updateAccountTransaction(w http.ResponseWriter, r bunrouter.Request) error {
	accountID, lineID, err := s.linePath(r)
	if err != nil {
		return err
	}
	var req finance.AccountTransactionRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	t, err := s.ledger.UpdateAccountTransaction(r.Context(), userID(r), accountID, lineID, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Account transaction updated", t)
	return nil
}

func (s *Server) voidAccountTransaction(w http.ResponseWriter, r bunrouter.Request) error {
	accountID, lineID, err := s.linePath(r)
	if err != nil {
		return err
	}
	t, err := s.ledger.VoidAccountTransaction(r.Context(), userID(r), accountID, lineID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Account transaction voided", t)
	return nil
}

func (s *Server) adjustAccountBalance(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathAccount(r)
	if err != nil {
		return err
	}
	var req finance.BalanceAdjustmentRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	adj, err := s.ledger.AdjustBalance(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Balance adjusted", adj)
	return nil
}

// markLinesCleared is POST /accounts/{id}/cleared: lines ticked off (or
// back) against the bank, all or none (docs/domain.md "Reconciliation").
func (s *Server) markLinesCleared(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathAccount(r)
	if err != nil {
		return err
	}
	var req finance.MarkClearedRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	out, err := s.ledger.MarkCleared(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Account transactions marked "+out.Cleared, out)
	return nil
}

// reconcileAccount is POST /accounts/{id}/reconcile. A difference is an
// answer, not an error: 200 with reconciled false and what is still pending.
func (s *Server) reconcileAccount(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathAccount(r)
	if err != nil {
		return err
	}
	var req finance.ReconcileRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	out, err := s.ledger.Reconcile(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	msg := "Account reconciled"
	if !out.Reconciled {
		msg = "Statement balance differs from the cleared balance by " + out.Difference.String()
	}
	writeData(w, http.StatusOK, msg, out)
	return nil
}
