package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Credit cards (domain.md §2.6). The static /credit-cards/form-options (and
// /credit-cards/transactions, in card_transactions.go) sit beside
// /credit-cards/:id; bunrouter matches static segments before parameters.
func (s *Server) registerCardRoutes() {
	read, write := auth.Read(auth.ScopeCardsWrite), auth.Write(auth.ScopeCardsWrite)
	const base = "/api/v1/credit-cards"
	s.handle(http.MethodGet, base, read, s.listCreditCards, list("status", "search")...)
	s.handle(http.MethodPost, base, write, s.createCreditCard)
	s.handle(http.MethodGet, base+"/form-options", read, s.cardFormOptions)
	s.handle(http.MethodGet, base+"/:id", read, s.getCreditCard)
	s.handle(http.MethodPut, base+"/:id", write, s.updateCreditCard)
	s.handle(http.MethodDelete, base+"/:id", write, s.archiveCreditCard)
	s.handle(http.MethodPatch, base+"/:id/archive", write, s.archiveCreditCard)
	s.handle(http.MethodPatch, base+"/:id/unarchive", write, s.unarchiveCreditCard)
	s.handle(http.MethodGet, base+"/:id/unbilled-transactions", read, s.listUnbilledTransactions,
		list("type", "dateFrom", "dateTo", "search")...)
}

func (s *Server) listCreditCards(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.CardFilter
	p, err := listQuery(r.Request, finance.CardList, func(v *finance.Validator, q url.Values) {
		var ferr error
		f, ferr = finance.ParseCardFilter(q.Get("status"), q.Get("search"))
		v.Merge("", ferr)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListCreditCards(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Credit cards retrieved", page)
	return nil
}

func (s *Server) getCreditCard(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "credit card")
	if err != nil {
		return err
	}
	c, err := s.ledger.GetCreditCard(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Credit card retrieved", c)
	return nil
}

func (s *Server) createCreditCard(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.CardRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	c, err := s.ledger.CreateCreditCard(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Credit card created", c)
	return nil
}

func (s *Server) updateCreditCard(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathCard(r)
	if err != nil {
		return err
	}
	var req finance.CardRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	c, err := s.ledger.UpdateCreditCard(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Credit card updated", c)
	return nil
}

// archiveCreditCard serves DELETE /credit-cards/{id} and PATCH
// /credit-cards/{id}/archive: a soft archive that keeps the history.
func (s *Server) archiveCreditCard(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "credit card")
	if err != nil {
		return err
	}
	c, err := s.ledger.ArchiveCreditCard(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Credit card archived", c)
	return nil
}

func (s *Server) unarchiveCreditCard(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "credit card")
	if err != nil {
		return err
	}
	c, err := s.ledger.UnarchiveCreditCard(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Credit card unarchived", c)
	return nil
}

// listUnbilledTransactions lists the card's unbilled rows, future-dated ones included.
func (s *Server) listUnbilledTransactions(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathCard(r)
	if err != nil {
		return err
	}
	var f finance.CardTransactionFilter
	p, err := listQuery(r.Request, finance.CardTransactionList, func(v *finance.Validator, q url.Values) {
		f.Type = queryparam.Enum(v, q, "type", finance.CardTypeFilters...)
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
		f.Search = q.Get("search")
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListUnbilledTransactions(r.Context(), userID(r), id, f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Unbilled transactions retrieved", page)
	return nil
}

// pathCard reads the {id} of a route under /credit-cards/{id}: one of the caller's cards (archived ones included).
func (s *Server) pathCard(r bunrouter.Request) (string, error) {
	return ownedPathID(r, "id", "credit card", s.ledger.GetCreditCard)
}

func (s *Server) cardFormOptions(w http.ResponseWriter, r bunrouter.Request) error {
	opts, err := s.ledger.CardFormOptions(r.Context(), userID(r))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Credit card form options retrieved", opts)
	return nil
}
