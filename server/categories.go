package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Categories are served at two prefixes with identical behaviour (domain.md §2.2).
func (s *Server) registerCategoryRoutes() {
	read, write := auth.Read(auth.ScopeSettingsWrite), auth.Write(auth.ScopeSettingsWrite)
	for _, base := range []string{"/api/v1/categories", "/api/v1/user-settings/categories"} {
		s.handle(http.MethodGet, base, read, s.listCategories, list("kind", "status", "search")...)
		s.handle(http.MethodPost, base, write, s.createCategory)
		s.handle(http.MethodGet, base+"/:id", read, s.getCategory)
		s.handle(http.MethodPut, base+"/:id", write, s.updateCategory)
		s.handle(http.MethodDelete, base+"/:id", write, s.deleteCategory)
	}
}

func (s *Server) listCategories(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.CategoryFilter
	p, err := listQuery(r.Request, finance.CategoryList, func(v *finance.Validator, q url.Values) {
		var ferr error
		f, ferr = finance.ParseCategoryFilter(q.Get("kind"), q.Get("status"), q.Get("search"))
		v.Merge("", ferr)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListCategories(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Categories retrieved", page)
	return nil
}

func (s *Server) getCategory(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "category")
	if err != nil {
		return err
	}
	c, err := s.ledger.GetCategory(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Category retrieved", c)
	return nil
}

func (s *Server) createCategory(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.CategoryRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	c, err := s.ledger.CreateCategory(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Category created", c)
	return nil
}

func (s *Server) updateCategory(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := ownedPathID(r, "id", "category", s.ledger.GetCategory)
	if err != nil {
		return err
	}
	var req finance.CategoryRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	c, err := s.ledger.UpdateCategory(r.Context(), userID(r), id, req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Category updated", c)
	return nil
}

func (s *Server) deleteCategory(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "category")
	if err != nil {
		return err
	}
	c, err := s.ledger.ArchiveCategory(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Category archived", c)
	return nil
}
