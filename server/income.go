package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Income (domain.md §2.5). The static /income/form-options is matched before /income/:id.
func (s *Server) registerIncomeRoutes() {
	read, write := auth.Read(auth.ScopeIncomeWrite), auth.Write(auth.ScopeIncomeWrite)
	const base = "/api/v1/income"
	s.handle(http.MethodGet, base, read, s.listIncome,
		list("status", "dateFrom", "dateTo", "search", "category", "accountId")...)
	s.handle(http.MethodPost, base, write, s.createIncome)
	s.handle(http.MethodGet, base+"/form-options", read, s.incomeFormOptions)
	s.handle(http.MethodGet, base+"/:id", read, s.getIncome)
	s.handle(http.MethodPut, base+"/:id", write, s.updateIncome)
	s.handle(http.MethodDelete, base+"/:id", write, s.voidIncome)
}

func (s *Server) listIncome(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.IncomeFilter
	p, err := listQuery(r.Request, finance.IncomeList, func(v *finance.Validator, q url.Values) {
		f = finance.IncomeFilter{
			Status:    queryparam.Enum(v, q, "status", finance.IncomeStatuses...),
			Search:    q.Get("search"),
			Category:  q.Get("category"),
			AccountID: queryparam.ID(v, q, "accountId"),
		}
		if f.Status == "" {
			f.Status = finance.IncomeActive
		}
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListIncome(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Income retrieved", page)
	return nil
}

func (s *Server) getIncome(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "income")
	if err != nil {
		return err
	}
	in, err := s.ledger.GetIncome(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Income retrieved", in)
	return nil
}

func (s *Server) createIncome(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.IncomeRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	in, err := s.ledger.CreateIncome(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Income created", in)
	return nil
}

func (s *Server) updateIncome(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "income")
	if err != nil {
		return err
	}
	// Another user's id is 404 even with a malformed body (domain.md §1.1 order).
	if _, err := s.ledger.GetIncome(r.Context(), userID(r), id); err != nil {
		return err
	}
	var req finance.IncomeRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	in, err := s.ledger.UpdateIncome(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Income updated", in)
	return nil
}

func (s *Server) voidIncome(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "income")
	if err != nil {
		return err
	}
	in, err := s.ledger.VoidIncome(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Income voided", in)
	return nil
}

func (s *Server) incomeFormOptions(w http.ResponseWriter, r bunrouter.Request) error {
	opts, err := s.ledger.IncomeFormOptions(r.Context(), userID(r))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Income form options retrieved", opts)
	return nil
}
