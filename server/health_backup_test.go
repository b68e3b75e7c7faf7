package server

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// fakeBackups are scheduled backups whose newest was taken at last.
type fakeBackups struct {
	last     time.Time
	interval time.Duration
}

func (b fakeBackups) LastSuccess() time.Time  { return b.last }
func (b fakeBackups) Interval() time.Duration { return b.interval }

// Health reports the newest scheduled backup's time and age, null before
// the first, and nothing of backups when they are off; an old backup does
// not make the service degraded.
func TestHealthReportsBackups(t *testing.T) {
	env := newTestEnv(t)
	key := env.createKey(env.createUser(finance.PlanPro).ID, auth.ScopeRead)
	last := time.Now().Add(-26 * time.Hour).UTC().Truncate(time.Millisecond)
	type backup struct {
		LastSuccessAt   *time.Time `json:"last_success_at"`
		AgeSeconds      *int64     `json:"age_seconds"`
		IntervalSeconds int64      `json:"interval_seconds"`
	}
	for _, tc := range []struct {
		name    string
		backups BackupStatus
		check   func(t testing.TB, b *backup)
	}{
		{"off", nil, func(t testing.TB, b *backup) {
			if b != nil {
				t.Errorf("backup = %+v with scheduled backups off, want it absent", b)
			}
		}},
		{"none yet", fakeBackups{interval: 24 * time.Hour}, func(t testing.TB, b *backup) {
			if b == nil || b.LastSuccessAt != nil || b.AgeSeconds != nil || b.IntervalSeconds != 86400 {
				t.Errorf("backup = %+v, want nulls and the interval", b)
			}
		}},
		{"one 26 hours old", fakeBackups{last: last, interval: 24 * time.Hour}, func(t testing.TB, b *backup) {
			// Generous bounds: the age is counted when the request is answered.
			if b == nil || b.LastSuccessAt == nil || !b.LastSuccessAt.Equal(last) || b.AgeSeconds == nil ||
				*b.AgeSeconds < 26*3600 || *b.AgeSeconds > 26*3600+600 || b.IntervalSeconds != 86400 {
				t.Errorf("backup = %+v, want %v about 93600 s old", b, last)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withBackups := *env
			withBackups.srv = New(Config{Version: "test-version", Backups: tc.backups}, env.srv.log, env.auth, env.db)
			runScenarios(t, &withBackups, []apiScenario{{
				name: "health", method: http.MethodGet, url: "/api/v1/health", headers: bearer(key),
				wantStatus: http.StatusOK, wantMessage: "Service is healthy",
				check: func(t testing.TB, res apiResult) {
					var h struct {
						Status string  `json:"status"`
						Backup *backup `json:"backup"`
					}
					if err := json.Unmarshal(res.env.Data, &h); err != nil {
						t.Fatal(err)
					}
					if h.Status != "ok" {
						t.Errorf("status %q, want ok", h.Status)
					}
					tc.check(t, h.Backup)
				},
			}})
		})
	}
}
