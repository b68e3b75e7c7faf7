package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Card transactions (domain.md §2.7): purchases, fees, interest and refunds
// on the user's cards.
func (s *Server) registerCardTransactionRoutes() {
	read, write := auth.Read(auth.ScopeCardsWrite), auth.Write(auth.ScopeCardsWrite)
	const base = "/api/v1/credit-cards/transactions"
	s.handle(http.MethodGet, base, read, s.listCardTransactions,
		list("status", "type", "cardId", "dateFrom", "dateTo", "search", "category")...)
	s.handle(http.MethodPost, base, write, s.createCardTransaction)
	s.handle(http.MethodGet, base+"/:id", read, s.getCardTransaction)
	s.handle(http.MethodPut, base+"/:id", write, s.updateCardTransaction)
	s.handle(http.MethodDelete, base+"/:id", write, s.voidCardTransaction)
}

func (s *Server) listCardTransactions(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.CardTransactionFilter
	p, err := listQuery(r.Request, finance.CardTransactionList, func(v *finance.Validator, q url.Values) {
		f.Status = queryparam.Enum(v, q, "status", finance.CardStatuses...)
		f.Type = queryparam.Enum(v, q, "type", finance.CardTypeFilters...)
		f.CardID = queryparam.ID(v, q, "cardId")
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
		f.Search, f.Category = q.Get("search"), q.Get("category")
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListCardTransactions(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Card transactions retrieved", page)
	return nil
}

func (s *Server) getCardTransaction(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "card transaction")
	if err != nil {
		return err
	}
	t, err := s.ledger.GetCardTransaction(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Card transaction retrieved", t)
	return nil
}

func (s *Server) createCardTransaction(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.CardTransactionRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	t, err := s.ledger.CreateCardTransaction(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Card transaction created", t)
	return nil
}

func (s *Server) updateCardTransaction(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "card transaction")
	if err != nil {
		return err
	}
	// The path record first: another user's row is 404 even with a bad body (§1.1).
	if _, err := s.ledger.GetCardTransaction(r.Context(), userID(r), id); err != nil {
		return err
	}
	var req finance.CardTransactionRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	t, err := s.ledger.UpdateCardTransaction(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Card transaction updated", t)
	return nil
}

func (s *Server) voidCardTransaction(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "card transaction")
	if err != nil {
		return err
	}
	t, err := s.ledger.VoidCardTransaction(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Card transaction voided", t)
	return nil
}
