package server

import (
	"maps"
	"net/http"
	"net/url"
	"slices"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// The dashboard and the reports (domain.md §5.5, §5.7). They need
// finance:read itself: no write scope implies them (specification §5).
func (s *Server) registerReportRoutes() {
	s.heavy(http.MethodGet, "/api/v1/dashboard", auth.ReportsRead, s.dashboard, "month")
	s.heavy(http.MethodGet, "/api/v1/reports/:report", auth.ReportsRead, s.report, reportQueryParams()...)
}

// reportQueryParams is every parameter of any report: the route declares
// them all, and the handler refuses those the named report does not take.
func reportQueryParams() []string {
	var out []string
	for _, r := range finance.Reports {
		for _, p := range r.Accepts() {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func (s *Server) dashboard(w http.ResponseWriter, r bunrouter.Request) error {
	var v finance.Validator
	month := queryMonth(&v, r.URL.Query(), "month")
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
	req, err := reportRequest(r.Param("report"), r.URL.Query())
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

// reportRequest reads the query of the named report: an unknown report is
// ErrNotFound, and a parameter the report does not take, or a bad value,
// a ValidationError. The web app's report pages read theirs with it too.
func reportRequest(name string, q url.Values) (finance.ReportRequest, error) {
	spec, ok := finance.FindReport(name)
	if !ok {
		return finance.ReportRequest{}, finance.UnknownReport()
	}
	accepted := spec.Accepts()
	var v finance.Validator
	for _, p := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(accepted, p) {
			v.Add(p, reportParamProblem(name, accepted))
		}
	}
	if err := v.Err(); err != nil {
		return finance.ReportRequest{}, err
	}
	req := finance.ReportRequest{Name: name}
	req.From, req.To = dateRange(&v, q)
	req.Month = queryMonth(&v, q, "month")
	req.Granularity = queryEnum(&v, q, "granularity", finance.Granularities...)
	req.PaymentMethod = queryPaymentMethod(&v, q)
	req.CardID = queryID(&v, q, "cardId")
	req.Category = q.Get("category")
	return req, v.Err()
}

func reportParamProblem(report string, accepted []string) string {
	return "is not a parameter of the " + report + " report; it takes: " + joinQuoted(accepted)
}
