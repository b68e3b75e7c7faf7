package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// Card figures across cards (domain.md §5.2, §2.12): metrics, the monthly
// usage summary and the activity log. Their static paths win over
// /credit-cards/:id in bunrouter.
func (s *Server) registerCardFigureRoutes() {
	read := auth.Read(auth.ScopeCardsWrite)
	const base = "/api/v1/credit-cards"
	s.handle(http.MethodGet, base+"/metrics", read, s.cardMetrics, "cardId", "includeArchived")
	s.heavy(http.MethodGet, base+"/usage-summary", read, s.cardUsageSummary, "month", "cardId")
	s.handle(http.MethodGet, base+"/logs", read, s.listCardLogs,
		list("cardId", "dateFrom", "dateTo", "search", "action", "entity_type")...)
}

func (s *Server) cardMetrics(w http.ResponseWriter, r bunrouter.Request) error {
	var v finance.Validator
	q := r.URL.Query()
	f := finance.CardMetricsFilter{CardID: queryparam.ID(&v, q, "cardId"), IncludeArchived: queryparam.Bool(&v, q, "includeArchived")}
	if err := v.Err(); err != nil {
		return err
	}
	m, err := s.ledger.CardMetrics(r.Context(), userID(r), f)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Credit card metrics retrieved", m)
	return nil
}

func (s *Server) cardUsageSummary(w http.ResponseWriter, r bunrouter.Request) error {
	var v finance.Validator
	q := r.URL.Query()
	month, cardID := queryparam.Month(&v, q, "month"), queryparam.ID(&v, q, "cardId")
	if err := v.Err(); err != nil {
		return err
	}
	u, err := s.ledger.CardUsageSummary(r.Context(), userID(r), month, cardID)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Credit card usage summary retrieved", u)
	return nil
}

func (s *Server) listCardLogs(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.CardLogFilter
	var from, to finance.Date
	p, err := listQuery(r.Request, finance.CardLogList, func(v *finance.Validator, q url.Values) {
		f.CardID = queryparam.ID(v, q, "cardId")
		from, to = queryparam.DateRange(v, q)
		f.Search = q.Get("search")
		f.Action = queryparam.Enum(v, q, "action", finance.LogActions...)
		f.EntityType = queryparam.Enum(v, q, "entity_type", finance.LogEntityTypes...)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListCardLogs(r.Context(), userID(r), f, from, to, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Credit card activity retrieved", page)
	return nil
}
