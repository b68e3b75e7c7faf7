package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Recurring income (domain.md "Recurring income and semi-monthly
// schedules"): income templates and the expected income materialized from
// them on demand, each confirmed as received or skipped. The static
// segments templates and expected win over /income/{id}.
func (s *Server) registerIncomeTemplateRoutes() {
	read, write := auth.Read(auth.ScopeIncomeWrite), auth.Write(auth.ScopeIncomeWrite)
	const base = "/api/v1/income"
	s.handle(http.MethodGet, base+"/templates", read, s.listIncomeTemplates, list("status", "search")...)
	s.handle(http.MethodPost, base+"/templates", write, s.createIncomeTemplate)
	s.handle(http.MethodGet, base+"/templates/:id", read, s.getIncomeTemplate)
	s.handle(http.MethodPut, base+"/templates/:id", write, s.updateIncomeTemplate)
	s.handle(http.MethodDelete, base+"/templates/:id", write, s.deleteIncomeTemplate)
	s.handle(http.MethodGet, base+"/expected", read, s.listExpectedIncome, list("status", "dateFrom", "dateTo", "templateId")...)
	s.handle(http.MethodPost, base+"/expected/:id/confirm", write, s.confirmExpectedIncome)
	s.handle(http.MethodPost, base+"/expected/:id/skip", write, s.skipExpectedIncome)
}

func (s *Server) listIncomeTemplates(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.IncomeTemplateFilter
	p, err := listQuery(r.Request, finance.IncomeTemplateList, func(v *finance.Validator, q url.Values) {
		f.Status = queryparam.Enum(v, q, "status", finance.BillTemplateStatuses...)
		f.Search = q.Get("search")
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListIncomeTemplates(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Income templates retrieved", page)
	return nil
}

func (s *Server) createIncomeTemplate(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.IncomeTemplateRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	t, err := s.ledger.CreateIncomeTemplate(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Income template created", t)
	return nil
}

func (s *Server) getIncomeTemplate(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "income template")
	if err != nil {
		return err
	}
	t, err := s.ledger.GetIncomeTemplate(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Income template retrieved", t)
	return nil
}

func (s *Server) updateIncomeTemplate(w http.ResponseWriter, r bunrouter.Request) error {
	// Another user's id is 404 even with a malformed body (domain.md §1.1 order).
	id, err := ownedPathID(r, "id", "income template", s.ledger.GetIncomeTemplate)
	if err != nil {
		return err
	}
	var req finance.IncomeTemplateRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	t, err := s.ledger.UpdateIncomeTemplate(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Income template updated", t)
	return nil
}

func (s *Server) deleteIncomeTemplate(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "income template")
	if err != nil {
		return err
	}
	t, err := s.ledger.DeleteIncomeTemplate(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Income template removed", t)
	return nil
}

func (s *Server) listExpectedIncome(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.ExpectedIncomeFilter
	p, err := listQuery(r.Request, finance.ExpectedIncomeList, func(v *finance.Validator, q url.Values) {
		f.Status = queryparam.Enum(v, q, "status", finance.ExpectedIncomeStatuses...)
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
		f.TemplateID = queryparam.ID(v, q, "templateId")
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListExpectedIncome(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Expected income retrieved", page)
	return nil
}

func (s *Server) confirmExpectedIncome(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := ownedPathID(r, "id", "expected income", s.ledger.GetExpectedIncome)
	if err != nil {
		return err
	}
	// Every field is optional, so a confirm may come without a body.
	var req finance.ConfirmIncomeRequest
	if r.ContentLength != 0 {
		if err := s.decodeJSON(r.Request, &req); err != nil {
			return err
		}
	}
	e, err := s.ledger.ConfirmExpectedIncome(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Expected income received", e)
	return nil
}

func (s *Server) skipExpectedIncome(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "expected income")
	if err != nil {
		return err
	}
	e, err := s.ledger.SkipExpectedIncome(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Expected income skipped", e)
	return nil
}
