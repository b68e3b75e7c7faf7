package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Loans (domain.md §2.11): a loan with its monthly instances, created at
// once; instance status changes and payments. /loans/current-month-dues and
// /loans/instances/... are static, so they win over /loans/:id.
func (s *Server) registerLoanRoutes() {
	read, write := auth.Read(auth.ScopeLoansWrite), auth.Write(auth.ScopeLoansWrite)
	const base = "/api/v1/loans"
	s.handle(http.MethodGet, base, read, s.listLoans, list("status", "dateFrom", "dateTo", "search")...)
	s.handle(http.MethodPost, base, write, s.createLoan)
	s.handle(http.MethodGet, base+"/current-month-dues", read, s.currentMonthLoanDues, list()...)
	s.handle(http.MethodPatch, base+"/instances/:instanceId/status", write, s.setLoanInstanceStatus)
	s.handle(http.MethodPost, base+"/instances/:instanceId/payments", write, s.payLoanInstance)
	s.handle(http.MethodGet, base+"/:id", read, s.getLoan)
	s.handle(http.MethodPatch, base+"/:id", write, s.updateLoan)
	s.handle(http.MethodPut, base+"/:id", write, s.replaceLoan)
	s.handle(http.MethodDelete, base+"/:id", write, s.deleteLoan)
	s.handle(http.MethodGet, base+"/:id/instances", read, s.listLoanInstances, list("status", "dateFrom", "dateTo")...)
	s.handle(http.MethodPost, base+"/:id/instances/mark-paid", write, s.markLoanInstancesPaid)
}

// pathLoan reads the {id} of a loan route: one of the caller's loans.
func (s *Server) pathLoan(r bunrouter.Request) (string, error) {
	return ownedPathID(r, "id", "loan", s.ledger.FindLoan)
}

// pathLoanInstance reads {instanceId}: an instance of one of the caller's loans.
func (s *Server) pathLoanInstance(r bunrouter.Request) (string, error) {
	return ownedPathID(r, "instanceId", "loan instance", s.ledger.FindLoanInstance)
}

func (s *Server) listLoans(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.LoanFilter
	p, err := listQuery(r.Request, finance.LoanList, func(v *finance.Validator, q url.Values) {
		f.Status = queryparam.Enum(v, q, "status", finance.LoanStatuses...)
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
		f.Search = q.Get("search")
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListLoans(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Loans retrieved", page)
	return nil
}

func (s *Server) createLoan(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.LoanRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	l, err := s.ledger.CreateLoan(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Loan created", l)
	return nil
}

func (s *Server) currentMonthLoanDues(w http.ResponseWriter, r bunrouter.Request) error {
	p, err := listQuery(r.Request, finance.LoanDuesList, nil)
	if err != nil {
		return err
	}
	dues, err := s.ledger.CurrentMonthLoanDues(r.Context(), userID(r), p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Loan dues of the current month retrieved", dues)
	return nil
}

func (s *Server) getLoan(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "loan")
	if err != nil {
		return err
	}
	l, err := s.ledger.GetLoan(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Loan retrieved", l)
	return nil
}

func (s *Server) updateLoan(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathLoan(r)
	if err != nil {
		return err
	}
	var req finance.LoanUpdateRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	l, err := s.ledger.UpdateLoan(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Loan updated", l)
	return nil
}

// replaceLoan is PUT /loans/{id}, the broad update: the create body again;
// changed money terms rebuild the schedule while nothing is paid.
func (s *Server) replaceLoan(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathLoan(r)
	if err != nil {
		return err
	}
	var req finance.LoanRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	l, err := s.ledger.ReplaceLoan(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Loan updated", l)
	return nil
}

func (s *Server) markLoanInstancesPaid(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathLoan(r)
	if err != nil {
		return err
	}
	var req finance.LoanMarkPaidRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	out, err := s.ledger.MarkLoanInstancesPaid(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Loan instances marked paid", out)
	return nil
}

func (s *Server) deleteLoan(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "loan")
	if err != nil {
		return err
	}
	l, err := s.ledger.DeleteLoan(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Loan deleted", l)
	return nil
}

func (s *Server) listLoanInstances(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathLoan(r)
	if err != nil {
		return err
	}
	var f finance.LoanInstanceFilter
	p, err := listQuery(r.Request, finance.LoanInstanceList, func(v *finance.Validator, q url.Values) {
		f.Status = queryparam.Enum(v, q, "status", finance.LoanInstanceStatusFilters...)
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListLoanInstances(r.Context(), userID(r), id, f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Loan instances retrieved", page)
	return nil
}

func (s *Server) setLoanInstanceStatus(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathLoanInstance(r)
	if err != nil {
		return err
	}
	var req finance.LoanInstanceStatusRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	out, err := s.ledger.SetLoanInstanceStatus(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Loan instance status updated", out)
	return nil
}

func (s *Server) payLoanInstance(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathLoanInstance(r)
	if err != nil {
		return err
	}
	var req finance.LoanPaymentRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	out, err := s.ledger.PayLoanInstance(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Loan payment recorded", out)
	return nil
}
