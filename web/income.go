package web

// The Income page of the web app: the user's income through the API's
// filters, sorted and paged as the expense list is (the list machinery of
// webapp.go), with a CSV download of the same rows and a void with a
// confirm step. Each row links to its edit form.

import (
	"context"
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// IncomePath is the income list.
const IncomePath = "/income"

func (s *Site) registerWebAppIncomeRoutes() {
	s.heavyPage(IncomePath, s.incomePage, "search")
	s.heavyPage(IncomePath+".csv", s.incomeCSV)
	s.page(http.MethodPost, IncomePath+"/:id/void", s.incomeVoid)
}

type incomeData struct {
	listView
	Items []finance.Income
}

// incomeFilter is the finance filter of the income through a list's query.
func incomeFilter(f listFilter, lq listRange) finance.IncomeFilter {
	return finance.IncomeFilter{Status: lq.Status, DateFrom: lq.From, DateTo: lq.To, Search: f.Search, Category: f.Category}
}

func (s *Site) incomePage(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	q := r.URL.Query()
	d, err := s.incomeView(r.Request, u, readListFilter(q))
	return s.listPage(w, r.Request, "income", pageView{Title: "Income", Nav: "income", User: &u, CSRF: auth.CSRFToken(sid),
		Notice: notices[q.Get("notice")], Data: d}, err)
}

// incomeView lists a page of the income through the filter: the active
// entries unless it asks for the voided ones.
func (s *Site) incomeView(r *http.Request, u finance.User, filter listFilter) (incomeData, error) {
	v, lq, err := s.listRequest(r, u, IncomePath, finance.KindIncome, finance.IncomeList, finance.IncomeStatuses, filter, nil)
	d := incomeData{listView: v}
	if err != nil {
		return d, err
	}
	list, err := s.ledger.ListIncome(r.Context(), u.ID, incomeFilter(filter, lq), lq.Params)
	if err != nil {
		return d, err
	}
	d.Items, d.Summary = list.Items, list.Summary
	d.paged(list.Pagination)
	amounts := make([]convertible, len(list.Items))
	for i, in := range list.Items {
		amounts[i] = convertible{ID: in.ID, Amount: in.Amount, Currency: in.Currency, Date: in.Date}
	}
	err = d.converted(r.Context(), s, u.ID, amounts)
	return d, err
}

// incomeCSV downloads every income entry through the list's filter (the
// active ones unless it asks for the voided ones) and sort.
func (s *Site) incomeCSV(w http.ResponseWriter, r bunrouter.Request) error {
	u, _, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	filter := readListFilter(r.URL.Query())
	_, lq, err := s.listRequest(r.Request, u, IncomePath, finance.KindIncome, finance.IncomeList, finance.IncomeStatuses, filter, nil)
	if err != nil {
		return err
	}
	items, err := allRows(lq.Params, func(p finance.ListParams) (finance.Page[finance.Income], error) {
		page, err := s.ledger.ListIncome(r.Context(), u.ID, incomeFilter(filter, lq), p)
		return page.Page, err
	})
	if err != nil {
		return err
	}
	rows := make([][]string, len(items))
	for i, in := range items {
		rows[i] = []string{in.Date.String(), deref(in.Description), in.Category, in.Amount.String(), deref(in.AccountID), deref(in.Notes), in.ID}
	}
	return writeCSV(w, r.Request, csvName("income", lq.From, lq.To),
		[]string{"date", "description", "category", "amount", "account_id", "notes", "id"}, rows)
}

// incomeVoid voids an income entry as DELETE /income/{id} does; the list's
// Void button opens the confirm step that posts here.
func (s *Site) incomeVoid(w http.ResponseWriter, r bunrouter.Request) error {
	return s.listVoid(w, r, IncomePath, "income", "Income", "income-voided",
		func(ctx context.Context, userID, id string) error {
			_, err := s.ledger.VoidIncome(ctx, userID, id)
			return err
		},
		func(r *http.Request, u finance.User, q url.Values) (any, error) {
			return s.incomeView(r, u, readListFilter(q))
		})
}
