package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Transfers between the user's own accounts (docs/domain.md "Transfers"):
// they write account lines, so they take the accounts scope.
func (s *Server) registerTransferRoutes() {
	read, write := auth.Read(auth.ScopeAccountsWrite), auth.Write(auth.ScopeAccountsWrite)
	const base = "/api/v1/transfers"
	s.handle(http.MethodGet, base, read, s.listTransfers, list("status", "accountId", "dateFrom", "dateTo")...)
	s.handle(http.MethodPost, base, write, s.createTransfer)
	s.handle(http.MethodGet, base+"/:id", read, s.getTransfer)
	s.handle(http.MethodPut, base+"/:id", write, s.updateTransfer)
	s.handle(http.MethodDelete, base+"/:id", write, s.voidTransfer)
}

func (s *Server) listTransfers(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.TransferFilter
	p, err := listQuery(r.Request, finance.TransferList, func(v *finance.Validator, q url.Values) {
		f = finance.TransferFilter{
			Status:    queryparam.Enum(v, q, "status", finance.TransferStatuses...),
			AccountID: queryparam.ID(v, q, "accountId"),
		}
		if f.Status == "" {
			f.Status = finance.LinePosted
		}
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListTransfers(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Transfers retrieved", page)
	return nil
}

func (s *Server) getTransfer(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "transfer")
	if err != nil {
		return err
	}
	t, err := s.ledger.GetTransfer(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Transfer retrieved", t)
	return nil
}

func (s *Server) createTransfer(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.TransferRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	t, err := s.ledger.CreateTransfer(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Transfer created", t)
	return nil
}

func (s *Server) updateTransfer(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "transfer")
	if err != nil {
		return err
	}
	// Another user's id is 404 even with a malformed body (domain.md §1.1 order).
	if _, err := s.ledger.GetTransfer(r.Context(), userID(r), id); err != nil {
		return err
	}
	var req finance.TransferRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	t, err := s.ledger.UpdateTransfer(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Transfer updated", t)
	return nil
}

func (s *Server) voidTransfer(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "transfer")
	if err != nil {
		return err
	}
	t, err := s.ledger.VoidTransfer(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Transfer deleted", t)
	return nil
}
