package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Installment plans (domain.md §2.9): an unbilled purchase converted into
// monthly installment rows, and the cancellation of a plan.
// /credit-cards/installment-plans is static, so it wins over /credit-cards/:id.
func (s *Server) registerInstallmentRoutes() {
	read, write := auth.Read(auth.ScopeCardsWrite), auth.Write(auth.ScopeCardsWrite)
	const base = "/api/v1/credit-cards/installment-plans"
	s.handle(http.MethodPost, "/api/v1/credit-cards/transactions/:id/convert-to-installment", write, s.convertToInstallment)
	s.handle(http.MethodGet, base, read, s.listInstallmentPlans, list("status", "cardId", "dateFrom", "dateTo", "search")...)
	s.handle(http.MethodGet, base+"/:id", read, s.getInstallmentPlan)
	s.handle(http.MethodPost, base+"/:id/cancel", write, s.cancelInstallmentPlan)
}

func (s *Server) convertToInstallment(w http.ResponseWriter, r bunrouter.Request) error {
	// The path record first: another user's row is 404 even with a bad body (§1.1).
	id, err := ownedPathID(r, "id", "card transaction", s.ledger.GetCardTransaction)
	if err != nil {
		return err
	}
	var req finance.ConvertRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	p, err := s.ledger.ConvertToInstallment(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Purchase converted to an installment plan", p)
	return nil
}

func (s *Server) listInstallmentPlans(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.PlanFilter
	p, err := listQuery(r.Request, finance.PlanList, func(v *finance.Validator, q url.Values) {
		f.Status = queryparam.Enum(v, q, "status", finance.PlanStatuses...)
		f.CardID = queryparam.ID(v, q, "cardId")
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
		f.Search = q.Get("search")
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListInstallmentPlans(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Installment plans retrieved", page)
	return nil
}

func (s *Server) getInstallmentPlan(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "installment plan")
	if err != nil {
		return err
	}
	p, err := s.ledger.GetInstallmentPlan(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Installment plan retrieved", p)
	return nil
}

func (s *Server) cancelInstallmentPlan(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "installment plan")
	if err != nil {
		return err
	}
	p, err := s.ledger.CancelInstallmentPlan(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Installment plan cancelled", p)
	return nil
}
