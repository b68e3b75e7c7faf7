package server

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Category rules choose imported rows' categories (domain.md "Category
// rules"); they are settings, like the categories they name.
func (s *Server) registerCategoryRuleRoutes() {
	read, write := auth.Read(auth.ScopeSettingsWrite), auth.Write(auth.ScopeSettingsWrite)
	base := "/api/v1/category-rules"
	s.handle(http.MethodGet, base, read, s.listCategoryRules, list()...)
	s.handle(http.MethodPost, base, write, s.createCategoryRule)
	s.handle(http.MethodGet, base+"/:id", read, s.getCategoryRule)
	s.handle(http.MethodPut, base+"/:id", write, s.updateCategoryRule)
	s.handle(http.MethodDelete, base+"/:id", write, s.deleteCategoryRule)
}

func (s *Server) listCategoryRules(w http.ResponseWriter, r bunrouter.Request) error {
	p, err := listQuery(r.Request, finance.CategoryRuleList, nil)
	if err != nil {
		return err
	}
	page, err := s.ledger.ListCategoryRules(r.Context(), userID(r), p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Category rules retrieved", page)
	return nil
}

func (s *Server) getCategoryRule(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "category rule")
	if err != nil {
		return err
	}
	rule, err := s.ledger.GetCategoryRule(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Category rule retrieved", rule)
	return nil
}

func (s *Server) createCategoryRule(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.CategoryRuleRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	rule, err := s.ledger.CreateCategoryRule(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Category rule created", rule)
	return nil
}

func (s *Server) updateCategoryRule(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := ownedPathID(r, "id", "category rule", s.ledger.GetCategoryRule)
	if err != nil {
		return err
	}
	var req finance.CategoryRuleRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	rule, err := s.ledger.UpdateCategoryRule(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Category rule updated", rule)
	return nil
}

func (s *Server) deleteCategoryRule(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "category rule")
	if err != nil {
		return err
	}
	rule, err := s.ledger.DeleteCategoryRule(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Category rule deleted", rule)
	return nil
}
