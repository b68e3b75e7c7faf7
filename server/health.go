package server

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
)

func (s *Server) registerHealthRoutes() {
	s.handle(http.MethodGet, "/api/v1/health", auth.Authenticated, s.health)
	s.handle(http.MethodGet, "/healthz", auth.Public, s.healthz)
	s.handle(http.MethodGet, "/readyz", auth.Public, s.readyz)
}

// Health is the body of GET /api/v1/health.
type Health struct {
	Status   string `json:"status"`   // "ok" or "degraded"
	Version  string `json:"version"`  // the server's version
	Database string `json:"database"` // "ok", "read_only" or "unavailable"
	// Backup is the scheduled backups' state; absent when they are off.
	Backup *BackupHealth `json:"backup,omitempty"`
}

// BackupHealth is how recent the newest scheduled backup is, for a monitor
// to alert on: a backup older than a day or two past its interval has been
// failing (the server's log says why). It does not make the status
// degraded: the service itself works.
type BackupHealth struct {
	// LastSuccessAt is when the newest whole backup was taken; null when
	// there is none yet.
	LastSuccessAt *time.Time `json:"last_success_at"`
	// AgeSeconds is its age in whole seconds; null when there is none.
	AgeSeconds *int64 `json:"age_seconds"`
	// IntervalSeconds is how often one is taken (--backup-interval).
	IntervalSeconds int64 `json:"interval_seconds"`
}

// BackupStatus is what health reads of the scheduled backups.
type BackupStatus interface {
	// LastSuccess is when the newest whole backup was taken; zero when
	// there is none.
	LastSuccess() time.Time
	// Interval is how often one is taken.
	Interval() time.Duration
}

// backupHealth is the backups' part of health at now, nil when they are off.
func (s *Server) backupHealth(now time.Time) *BackupHealth {
	if s.cfg.Backups == nil {
		return nil
	}
	h := &BackupHealth{IntervalSeconds: int64(s.cfg.Backups.Interval() / time.Second)}
	if last := s.cfg.Backups.LastSuccess(); !last.IsZero() {
		age := int64(max(0, now.Sub(last)) / time.Second)
		h.LastSuccessAt, h.AgeSeconds = &last, &age
	}
	return h
}

// The database states of Health.
const (
	databaseOK          = "ok"
	databaseReadOnly    = "read_only"   // reads answer, a write does not commit (disk full, say)
	databaseUnavailable = "unavailable" // reads do not answer
)

// healthCheckTimeout bounds each database check of the health routes.
const healthCheckTimeout = 2 * time.Second

// writeProbeInterval is how long a write probe's result stands. A probe is
// a committed, fsynced write; probing at most this often keeps a load
// balancer polling every second from adding a write per poll, and a full
// disk still shows within seconds.
const writeProbeInterval = 5 * time.Second

// writeProbe runs the database's write probe at most once per interval
// and shares the result with every caller in between.
type writeProbe struct {
	mu  sync.Mutex
	at  time.Time
	err error
}

// check returns the latest probe's result, probing first when it is older
// than writeProbeInterval. Callers that arrive while a probe runs wait for it.
func (p *writeProbe) check(ctx context.Context, probe func(context.Context) error, now time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.at.IsZero() && now.Sub(p.at) < writeProbeInterval {
		return p.err
	}
	ctx, cancel := context.WithTimeout(ctx, healthCheckTimeout)
	defer cancel()
	p.err, p.at = probe(ctx), now
	return p.err
}

// databaseReadFresh is how long a read the database answered stands for
// health: within it, "the database answers reads" needs no query of its own.
// The credentials' freshness check of authenticated requests reads the
// database at most every half second, so under load health never asks, and
// a database that stops answering shows within a second.
const databaseReadFresh = time.Second

// checkDatabase reports the database's state: can it be read, and do writes
// commit. The read is asked only when no read begun in the second before
// this request (databaseReadFresh) was answered: an authenticated request
// has usually had the credentials' freshness read by then.
//
// Writes: a user's write that failed on the disk fails health at once, and
// stands until a later transaction commits (a user's write, or the probe).
// While the failure is younger than writeProbeInterval the probe is not
// asked: on a nearly full disk its one small page may fit where the user's
// write did not, and the failure would be cleared before anyone saw it.
// Otherwise the shared, periodic probe answers, and its commit ends the
// failure.
func (s *Server) checkDatabase(ctx context.Context) (string, error) {
	if start := requestStart(ctx); start.IsZero() || !s.db.ReadAnsweredSince(start.Add(-databaseReadFresh)) {
		readCtx, cancel := context.WithTimeout(ctx, healthCheckTimeout)
		defer cancel()
		if err := s.db.Ping(readCtx); err != nil {
			return databaseUnavailable, err
		}
	}
	now := time.Now()
	at, failure := s.db.WriteFailure()
	if failure == nil || now.Sub(at) >= writeProbeInterval {
		if err := s.probe.check(ctx, s.db.ProbeWrite, now); err != nil {
			return databaseReadOnly, err
		}
		_, failure = s.db.WriteFailure()
	}
	if failure != nil {
		return databaseReadOnly, failure
	}
	return databaseOK, nil
}

// health answers any authenticated caller, whatever its scopes.
func (s *Server) health(w http.ResponseWriter, r bunrouter.Request) error {
	h := Health{Status: "ok", Version: s.cfg.Version, Database: databaseOK, Backup: s.backupHealth(time.Now())}
	state, err := s.checkDatabase(r.Context())
	if err != nil {
		s.log.ErrorContext(r.Context(), "health: database check failed", "database", state, "err", err)
		h.Status, h.Database = "degraded", state
		writeData(w, http.StatusServiceUnavailable, "Service is degraded", h)
		return nil
	}
	writeData(w, http.StatusOK, "Service is healthy", h)
	return nil
}

// healthz is the unauthenticated probe for load balancers: a status code and no data.
func (s *Server) healthz(w http.ResponseWriter, r bunrouter.Request) error {
	if state, err := s.checkDatabase(r.Context()); err != nil {
		s.log.ErrorContext(r.Context(), "healthz: database check failed", "database", state, "err", err)
		writeData(w, http.StatusServiceUnavailable, "Unavailable", nil)
		return nil
	}
	writeData(w, http.StatusOK, "OK", nil)
	return nil
}

// readyz is the readiness probe of an orchestrator or a load balancer: the
// schema is this binary's (migrations done) and the database takes reads
// and writes, as healthz checks them. Writable is checked honestly, by a
// committed and fsynced write (the shared probe, at most once per
// writeProbeInterval) and by any user's write that failed on the disk,
// since a full disk or a file turned read-only fails only a write; a read
// or a PRAGMA alone would call such a database ready. The reason of a 503
// goes to the log, never to the unauthenticated caller.
func (s *Server) readyz(w http.ResponseWriter, r bunrouter.Request) error {
	ctx := r.Context()
	migrateCtx, cancel := context.WithTimeout(ctx, healthCheckTimeout)
	err := s.db.Migrated(migrateCtx)
	cancel()
	if err != nil {
		s.log.ErrorContext(ctx, "readyz: the schema is not this finance's", "err", err)
	} else if state, dberr := s.checkDatabase(ctx); dberr != nil {
		err = dberr
		s.log.ErrorContext(ctx, "readyz: database check failed", "database", state, "err", err)
	}
	if err != nil {
		writeData(w, http.StatusServiceUnavailable, "Not ready", nil)
		return nil
	}
	writeData(w, http.StatusOK, "Ready", nil)
	return nil
}
