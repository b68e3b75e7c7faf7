package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Expenses (domain.md §2.4, §5.1). The static /expenses/bulk, /summary and
// /form-options sit beside /expenses/:id; bunrouter matches static segments
// before parameters.
func (s *Server) registerExpenseRoutes() {
	read, write := auth.Read(auth.ScopeExpensesWrite), auth.Write(auth.ScopeExpensesWrite)
	const base = "/api/v1/expenses"
	s.add(Route{Method: http.MethodGet, Path: base, Access: read, HeavyWith: []string{"search"},
		Query: list("status", "dateFrom", "dateTo", "search", "category", "payment_method", "cardId", "accountId",
			"amountMin", "amountMax")}, s.listExpenses)
	s.handle(http.MethodPost, base, write, s.createExpense)
	s.handle(http.MethodPost, base+"/bulk", write, s.createExpenses)
	s.handle(http.MethodGet, base+"/form-options", read, s.expenseFormOptions)
	s.heavy(http.MethodGet, base+"/summary", read, s.expenseSummary, "dateFrom", "dateTo")
	s.handle(http.MethodGet, base+"/:id", read, s.getExpense)
	s.handle(http.MethodPut, base+"/:id", write, s.updateExpense)
	s.handle(http.MethodDelete, base+"/:id", write, s.voidExpense)
	s.handle(http.MethodPost, base+"/:id/split", write, s.splitExpense)
}

func (s *Server) listExpenses(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.ExpenseFilter
	p, err := listQuery(r.Request, finance.ExpenseList, func(v *finance.Validator, q url.Values) {
		f = queryparam.ExpenseFilter(v, q)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListExpenses(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Expenses retrieved", page)
	return nil
}

func (s *Server) getExpense(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "expense")
	if err != nil {
		return err
	}
	e, err := s.ledger.GetExpense(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Expense retrieved", e)
	return nil
}

func (s *Server) createExpense(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.ExpenseRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	e, err := s.ledger.CreateExpense(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Expense created", e)
	return nil
}

func (s *Server) createExpenses(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.BulkExpenseRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	out, err := s.ledger.CreateExpenses(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Expenses created", out)
	return nil
}

func (s *Server) updateExpense(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathExpense(r)
	if err != nil {
		return err
	}
	var req finance.ExpenseRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	e, err := s.ledger.UpdateExpense(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Expense updated", e)
	return nil
}

func (s *Server) voidExpense(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "expense")
	if err != nil {
		return err
	}
	e, err := s.ledger.VoidExpense(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Expense voided", e)
	return nil
}

func (s *Server) splitExpense(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := s.pathExpense(r)
	if err != nil {
		return err
	}
	var req finance.SplitRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	e, err := s.ledger.SplitExpense(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Expense split", e)
	return nil
}

// pathExpense reads the {id} of a route under /expenses/{id}: one of the caller's expenses.
func (s *Server) pathExpense(r bunrouter.Request) (string, error) {
	return ownedPathID(r, "id", "expense", s.ledger.GetExpense)
}

func (s *Server) expenseFormOptions(w http.ResponseWriter, r bunrouter.Request) error {
	opts, err := s.ledger.ExpenseFormOptions(r.Context(), userID(r))
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Expense form options retrieved", opts)
	return nil
}

func (s *Server) expenseSummary(w http.ResponseWriter, r bunrouter.Request) error {
	var v finance.Validator
	from, to := queryparam.DateRange(&v, r.URL.Query())
	if err := v.Err(); err != nil {
		return err
	}
	sum, err := s.ledger.ExpenseSummary(r.Context(), userID(r), from, to)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Expense summary retrieved", sum)
	return nil
}
