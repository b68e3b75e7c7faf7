package server

import (
	"net/http"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// The dashboard and the reports (domain.md §5.5, §5.7). They need
// finance:read itself: no write scope implies them (specification §5).
func (s *Server) registerReportRoutes() {
	s.heavy(http.MethodGet, "/api/v1/dashboard", auth.ReportsRead, s.dashboard, "month")
	s.heavy(http.MethodGet, "/api/v1/reports/:report", auth.ReportsRead, s.report, queryparam.ReportParams()...)
}

func (s *Server) dashboard(w http.ResponseWriter, r bunrouter.Request) error {
	var v finance.Validator
	month := queryparam.Month(&v, r.URL.Query(), "month")
	if err := v.Err(); err != nil {
		return err
	}
	d, err := s.ledger.Dashboard(r.Context(), userID(r), month)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Dashboard retrieved", d)
	return nil
}

func (s *Server) report(w http.ResponseWriter, r bunrouter.Request) error {
	req, err := queryparam.Report(r.Param("report"), r.URL.Query())
	if err != nil {
		return err
	}
	out, err := s.ledger.Report(r.Context(), userID(r), req)
	if err != nil {
		return err
	}
	writeData(w, http.StatusOK, "Report retrieved", out)
	return nil
}
