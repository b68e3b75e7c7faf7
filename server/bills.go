package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Bills (domain.md §2.10): recurring templates, the instances materialized
// from them on demand, and payments, each of which records an expense.
// /bills/{id} is an instance. The static segments summary, form-options,
// templates and payments win over {id}.
func (s *Server) registerBillRoutes() {
	read, write := auth.Read(auth.ScopeBillsWrite), auth.Write(auth.ScopeBillsWrite)
	const base = "/api/v1/bills"
	s.handle(http.MethodGet, base, read, s.listBills, list("status", "dateFrom", "dateTo", "search", "category", "templateId")...)
	s.heavy(http.MethodGet, base+"/summary", read, s.billSummary, "month")
	s.handle(http.MethodGet, base+"/form-options", read, s.billFormOptions)
	s.handle(http.MethodGet, base+"/templates", read, s.listBillTemplates, list("status", "search", "category")...)
	s.handle(http.MethodPost, base+"/templates", write, s.createBillTemplate)
	s.handle(http.MethodGet, base+"/templates/:id", read, s.getBillTemplate)
	s.handle(http.MethodPut, base+"/templates/:id", write, s.updateBillTemplate)
	s.handle(http.MethodDelete, base+"/templates/:id", write, s.deleteBillTemplate)
	s.handle(http.MethodDelete, base+"/payments/:paymentId", write, s.deleteBillPayment)
	s.handle(http.MethodGet, base+"/:id", read, s.getBill)
	s.handle(http.MethodPut, base+"/:id", write, s.updateBill)
	s.handle(http.MethodPost, base+"/:id/status", write, s.setBillStatus)
	s.handle(http.MethodGet, base+"/:id/payments", read, s.listBillPayments, list("status", "dateFrom", "dateTo")...)
	s.handle(http.MethodPost, base+"/:id/payments", write, s.payBill)
}

// pathBill reads the {id} of an instance route: one of the caller's bills.
func (s *Server) pathBill(r bunrouter.Request) (string, error) {
	return ownedPathID(r, "id", "bill", s.ledger.GetBill)
}

// pathBillTemplate reads the {id} of a template route: one of the caller's
// templates that is not removed.
func (s *Server) pathBillTemplate(r bunrouter.Request) (string, error) {
	return ownedPathID(r, "id", "bill template", s.ledger.GetBillTemplate)
}

func (s *Server) listBills(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.BillFilter
	p, err := listQuery(r.Request, finance.BillList, func(v *finance.Validator, q url.Values) {
		f.Status = queryparam.Enum(v, q, "status", finance.BillStatusFilters...)
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
		f.Search = q.Get("search")
		f.Category = q.Get("category")
		f.TemplateID = queryparam.ID(v, q, "templateId")
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListBills(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bills retrieved", page)
	return nil
}

func (s *Server) billSummary(w http.ResponseWriter, r bunrouter.Request) error {
	var v finance.Validator
	month := queryparam.Month(&v, r.URL.Query(), "month")
	if err := v.Err(); err != nil {
		return err
	}
	out, err := s.ledger.SummarizeBills(r.Context(), userID(r), month)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bill summary retrieved", out)
	return nil
}

func (s *Server) billFormOptions(w http.ResponseWriter, r bunrouter.Request) error {
	out, err := s.ledger.BillFormOptions(r.Context(), userID(r))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bill form options retrieved", out)
	return nil
}

func (s *Server) listBillTemplates(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.BillTemplateFilter
	p, err := listQuery(r.Request, finance.BillTemplateList, func(v *finance.Validator, q url.Values) {
		f.Status = queryparam.Enum(v, q, "status", finance.BillTemplateStatuses...)
		f.Search = q.Get("search")
		f.Category = q.Get("category")
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListBillTemplates(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bill templates retrieved", page)
	return nil
}

func (s *Server) createBillTemplate(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.BillTemplateRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	t, err := s.ledger.CreateBillTemplate(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Bill template created", t)
	return nil
}

func (s *Server) getBillTemplate(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "bill template")
	if err != nil {
		return err
	}
	t, err := s.ledger.GetBillTemplate(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bill template retrieved", t)
	return nil
}

func (s *Server) updateBillTemplate(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathBillTemplate(r)
	if err != nil {
		return err
	}
	var req finance.BillTemplateRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	t, err := s.ledger.UpdateBillTemplate(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bill template updated", t)
	return nil
}

func (s *Server) deleteBillTemplate(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "bill template")
	if err != nil {
		return err
	}
	t, err := s.ledger.DeleteBillTemplate(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bill template removed", t)
	return nil
}

func (s *Server) getBill(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "bill")
	if err != nil {
		return err
	}
	b, err := s.ledger.GetBill(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bill retrieved", b)
	return nil
}

func (s *Server) updateBill(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathBill(r)
	if err != nil {
		return err
	}
	var req finance.BillRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	b, err := s.ledger.UpdateBill(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bill updated", b)
	return nil
}

func (s *Server) setBillStatus(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathBill(r)
	if err != nil {
		return err
	}
	var req finance.BillStatusRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	b, err := s.ledger.SetBillStatus(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bill status updated", b)
	return nil
}

func (s *Server) listBillPayments(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathBill(r)
	if err != nil {
		return err
	}
	var f finance.BillPaymentFilter
	p, err := listQuery(r.Request, finance.BillPaymentList, func(v *finance.Validator, q url.Values) {
		f.Status = queryparam.Enum(v, q, "status", finance.PaymentStatuses...)
		f.DateFrom, f.DateTo = queryparam.DateRange(v, q)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListBillPayments(r.Context(), userID(r), id, f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bill payments retrieved", page)
	return nil
}

func (s *Server) payBill(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathBill(r)
	if err != nil {
		return err
	}
	var req finance.BillPaymentRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	out, err := s.ledger.PayBill(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Bill payment recorded", out)
	return nil
}

func (s *Server) deleteBillPayment(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "paymentId", "bill payment")
	if err != nil {
		return err
	}
	out, err := s.ledger.DeleteBillPayment(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Bill payment deleted", out)
	return nil
}
