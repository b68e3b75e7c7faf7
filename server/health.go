package server

import (
	"context"
	"net/http"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/server/auth"
)

func (s *Server) registerHealthRoutes() {
	s.handle(http.MethodGet, "/api/v1/health", auth.Authenticated, s.health)
	s.handle(http.MethodGet, "/healthz", auth.Public, s.healthz)
}

// Health is the body of GET /api/v1/health.
type Health struct {
	Status   string `json:"status"`   // "ok" or "degraded"
	Version  string `json:"version"`  // the server's version
	Database string `json:"database"` // "ok" or "unavailable"
}

func (s *Server) checkDatabase(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return s.db.Ping(ctx)
}

// health answers any authenticated caller, whatever its scopes.
func (s *Server) health(w http.ResponseWriter, r bunrouter.Request) error {
	h := Health{Status: "ok", Version: s.cfg.Version, Database: "ok"}
	if err := s.checkDatabase(r.Context()); err != nil {
		s.log.Error("health: database check failed", "err", err)
		h.Status, h.Database = "degraded", "unavailable"
		writeData(w, http.StatusServiceUnavailable, "Service is degraded", h)
		return nil
	}
	writeData(w, http.StatusOK, "Service is healthy", h)
	return nil
}

// healthz is the unauthenticated probe for load balancers: a status code and no data.
func (s *Server) healthz(w http.ResponseWriter, r bunrouter.Request) error {
	if err := s.checkDatabase(r.Context()); err != nil {
		s.log.Error("healthz: database check failed", "err", err)
		writeData(w, http.StatusServiceUnavailable, "Unavailable", nil)
		return nil
	}
	writeData(w, http.StatusOK, "OK", nil)
	return nil
}
