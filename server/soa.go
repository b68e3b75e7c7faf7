package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Statements of account (domain.md §2.8): generated from each card's cycle,
// with their lines, links, payments and void. /credit-cards/soa is static,
// so it wins over /credit-cards/:id.
func (s *Server) registerSOARoutes() {
	read, write := auth.Read(auth.ScopeCardsWrite), auth.Write(auth.ScopeCardsWrite)
	const base = "/api/v1/credit-cards/soa"
	s.handle(http.MethodGet, base, read, s.listSOAs, list("status", "cardId", "dateFrom", "dateTo")...)
	s.handle(http.MethodGet, base+"/counts", read, s.soaCounts, "cardId")
	s.handle(http.MethodGet, base+"/:id", read, s.getSOA)
	s.handle(http.MethodPut, base+"/:id", write, s.updateSOA)
	s.handle(http.MethodGet, base+"/:id/payments", read, s.listSOAPayments, list("status", "dateFrom", "dateTo")...)
	s.handle(http.MethodPost, base+"/:id/payments", write, s.paySOA)
	s.handle(http.MethodPost, base+"/:id/transactions", write, s.addSOALine)
	s.handle(http.MethodPost, base+"/:id/transactions/link", write, s.linkToSOA)
	s.handle(http.MethodPut, base+"/:id/transactions/:transactionId", write, s.updateSOALine)
	s.handle(http.MethodDelete, base+"/:id/transactions/:transactionId", write, s.removeSOALine)
	s.handle(http.MethodPost, base+"/:id/void", write, s.voidSOA)
}

// pathSOA reads the {id} of a statement route: one of the caller's statements.
func (s *Server) pathSOA(r bunrouter.Request) (string, error) {
	return ownedPathID(r, "id", "statement", s.ledger.FindSOA)
}

func (s *Server) listSOAs(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.SOAFilter
	p, err := listQuery(r.Request, finance.SOAList, func(v *finance.Validator, q url.Values) {
		f.Status = queryparam.Enum(v, q, "status", finance.SOAStatusFilters...)
		f.CardID = queryparam.ID(v, q, "cardId")
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListSOAs(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Statements retrieved", page)
	return nil
}

func (s *Server) soaCounts(w http.ResponseWriter, r bunrouter.Request) error {
	var v finance.Validator
	cardID := queryparam.ID(&v, r.URL.Query(), "cardId")
	if err := v.Err(); err != nil {
		return err
	}
	c, err := s.ledger.SOACounts(r.Context(), userID(r), cardID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Statement counts retrieved", c)
	return nil
}

func (s *Server) getSOA(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "statement")
	if err != nil {
		return err
	}
	a, err := s.ledger.GetSOA(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Statement retrieved", a)
	return nil
}

func (s *Server) updateSOA(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathSOA(r)
	if err != nil {
		return err
	}
	var req finance.SOARequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	a, err := s.ledger.UpdateSOA(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Statement updated", a)
	return nil
}

func (s *Server) listSOAPayments(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathSOA(r)
	if err != nil {
		return err
	}
	var f finance.SOAPaymentFilter
	p, err := listQuery(r.Request, finance.SOAPaymentList, func(v *finance.Validator, q url.Values) {
		f.Status = queryparam.Enum(v, q, "status", finance.PaymentStatuses...)
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListSOAPayments(r.Context(), userID(r), id, f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Statement payments retrieved", page)
	return nil
}

func (s *Server) paySOA(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathSOA(r)
	if err != nil {
		return err
	}
	var req finance.SOAPaymentRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	out, err := s.ledger.PaySOA(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Statement payment recorded", out)
	return nil
}

func (s *Server) addSOALine(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathSOA(r)
	if err != nil {
		return err
	}
	var req finance.SOALineRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	a, err := s.ledger.AddSOALine(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Statement line added", a)
	return nil
}

func (s *Server) linkToSOA(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathSOA(r)
	if err != nil {
		return err
	}
	var req finance.LinkRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	a, err := s.ledger.LinkToSOA(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Transactions linked to the statement", a)
	return nil
}

// pathSOATransaction reads {id} and {transactionId}: a row on one of the caller's statements.
func (s *Server) pathSOATransaction(r bunrouter.Request) (string, string, error) {
	id, err := pathID(r, "id", "statement")
	if err != nil {
		return "", "", err
	}
	txID, err := pathID(r, "transactionId", "transaction on this statement")
	if err != nil {
		return "", "", err
	}
	if _, err := s.ledger.FindSOATransaction(r.Context(), userID(r), id, txID); err != nil {
		return "", "", err
	}
	return id, txID, nil
}

func (s *Server) updateSOALine(w http.ResponseWriter, r bunrouter.Request) error {
	id, txID, err := s.pathSOATransaction(r)
	if err != nil {
		return err
	}
	var req finance.SOALineRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	a, err := s.ledger.UpdateSOALine(r.Context(), userID(r), id, txID, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Statement transaction updated", a)
	return nil
}

func (s *Server) removeSOALine(w http.ResponseWriter, r bunrouter.Request) error {
	id, txID, err := s.pathSOATransaction(r)
	if err != nil {
		return err
	}
	a, err := s.ledger.RemoveSOALine(r.Context(), userID(r), id, txID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Statement transaction removed", a)
	return nil
}

func (s *Server) voidSOA(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "statement")
	if err != nil {
		return err
	}
	a, err := s.ledger.VoidSOA(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Statement voided", a)
	return nil
}
