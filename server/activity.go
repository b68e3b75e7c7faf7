package server

import (
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// registerActivityRoutes serves who did what (docs/domain.md "Activity: who
// did what"): every write of the caller's ledger, newest first, with its
// actor. It reads every domain, so it needs finance:read itself, as the
// dashboard and reports do; no write scope implies it.
func (s *Server) registerActivityRoutes() {
	s.handle(http.MethodGet, "/api/v1/activity", auth.ReportsRead, s.listActivity,
		list("actor", "actorId", "kind", "source", "dateFrom", "dateTo")...)
}

func (s *Server) listActivity(w http.ResponseWriter, r bunrouter.Request) error {
	var f finance.ActivityFilter
	var from, to finance.Date
	p, err := listQuery(r.Request, finance.ActivityList, func(v *finance.Validator, q url.Values) {
		f.Actor = queryparam.Enum(v, q, "actor", finance.ActorKinds...)
		f.ActorID = queryparam.ID(v, q, "actorId")
		f.Kind = queryparam.Enum(v, q, "kind", finance.ActivityKinds...)
		f.Source = queryparam.Enum(v, q, "source", finance.WriteSources...)
		from, to = queryparam.DateRange(v, q)
	})
	if err != nil {
		return err
	}
	page, err := s.ledger.ListActivity(r.Context(), userID(r), f, from, to, p)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Activity retrieved", page)
	return nil
}
