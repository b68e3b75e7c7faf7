package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/finance-app/finance/internal/testkit"
)

// unmigratedDatabase is the test database whose schema is not the
// binary's (store's TestMigrated checks the real one's answer).
type unmigratedDatabase struct{ Database }

func (unmigratedDatabase) Migrated(context.Context) error {
	return errors.New("the database's schema 20260101000100 lacks 3 of this finance's migrations")
}

// GET /readyz needs no credential and answers 200 "Ready" with no data on a
// migrated database that takes writes; 503 "Not ready", still with no
// data and without the cause, when the schema is not the binary's, the
// database does not answer, or a write does not commit. The cause goes to
// the log, on a line with the request's id.
func TestReadyz(t *testing.T) {
	env := newTestEnv(t)
	apiScenario{
		method: http.MethodGet, url: "/readyz",
		wantStatus: http.StatusOK, wantMessage: "Ready", wantData: json.RawMessage("null"),
	}.run(t, env)
	if strings.Contains(env.logs.String(), "level=ERROR") {
		t.Errorf("a ready server logged an error:\n%s", env.logs)
	}

	probes := &atomic.Int64{}
	for _, tc := range []struct {
		name string
		db   Database
		// logged is the reason the log gives.
		logged string
	}{
		{"migrations not done", unmigratedDatabase{env.db}, "lacks 3 of this finance's migrations"},
		{"database unreachable", unreachableDatabase{env.db}, "database is gone"},
		{"writes do not commit", unwritableDatabase{env.db, probes}, "database or disk is full"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			notReady := *env
			notReady.logs = &testkit.LogBuffer{}
			notReady.srv = New(Config{Version: "test-version"}, newTextLog(notReady.logs), env.auth, tc.db)
			res := apiScenario{
				method: http.MethodGet, url: "/readyz", headers: map[string]string{"X-Request-Id": "probe-1"},
				wantStatus: http.StatusServiceUnavailable, wantMessage: "Not ready", wantData: json.RawMessage("null"),
			}.run(t, &notReady)
			if strings.Contains(string(res.raw), tc.logged) {
				t.Errorf("body leaks the cause: %s", res.raw)
			}
			log := notReady.logs.String()
			if !strings.Contains(log, "level=ERROR") || !strings.Contains(log, tc.logged) || !strings.Contains(log, "request_id=probe-1") {
				t.Errorf("the log does not give the reason %q under request_id=probe-1:\n%s", tc.logged, log)
			}
		})
	}
}
