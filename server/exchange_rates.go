package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Exchange rates (docs/domain.md "Exchange rates"): everyone with
// finance:read reads them and converts; a person's own manual rates are
// settings, written with settings:write.
func (s *Server) registerExchangeRateRoutes() {
	read, write := auth.Read(auth.ScopeSettingsWrite), auth.Write(auth.ScopeSettingsWrite)
	const base = "/api/v1/exchange-rates"
	s.handle(http.MethodGet, base, read, s.listExchangeRates, list("base", "quote", "dateFrom", "dateTo", "source")...)
	s.handle(http.MethodPost, base, write, s.createExchangeRate)
	s.handle(http.MethodGet, base+"/convert", read, s.convertAmount, "amount", "from", "to", "date")
	s.handle(http.MethodDelete, base+"/:id", write, s.deleteExchangeRate)
}

// exchangeRateList is the list spec of GET /exchange-rates: newest first.
var exchangeRateList = finance.ListSpec{Sorts: []string{"date"}, DefaultDesc: true}

func (s *Server) listExchangeRates(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.ExchangeRateFilter
	p, err := listQuery(r.Request, exchangeRateList, func(v *finance.Validator, q url.Values) {
		f.Base = queryparam.Currency(v, q, "base")
		f.Quote = queryparam.Currency(v, q, "quote")
		f.Source = queryparam.Enum(v, q, "source", finance.RateSources...)
		f.From, f.To = queryparam.DateRange(v, q)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListExchangeRates(r.Context(), userID(r), f, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Exchange rates retrieved", page)
	return nil
}

func (s *Server) createExchangeRate(w http.ResponseWriter, r bunrouter.Request) error {
	var req finance.ExchangeRateRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	rate, err := s.ledger.CreateExchangeRate(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusCreated, "Exchange rate created", rate)
	return nil
}

func (s *Server) deleteExchangeRate(w http.ResponseWriter, r bunrouter.Request) error {
	id, err := pathID(r, "id", "exchange rate")
	if err != nil {
		return err
	}
	rate, err := s.ledger.DeleteExchangeRate(r.Context(), userID(r), id)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Exchange rate deleted", rate)
	return nil
}

func (s *Server) convertAmount(w http.ResponseWriter, r bunrouter.Request) error {
	q := r.URL.Query()
	req := finance.ConversionRequest{Amount: q.Get("amount"), From: q.Get("from"), To: q.Get("to"), Date: q.Get("date")}
	c, err := s.ledger.Convert(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Amount converted", c)
	return nil
}
