package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// BenchmarkCreateExpenseCash serves POST /api/v1/expenses (Cash) through the
// real router and store, in process: the cost of one request without the
// network. `make bench` measures the same over HTTP against the binary.
func BenchmarkCreateExpenseCash(b *testing.B) {
	env := newTestEnv(b)
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeExpensesWrite)
	h := env.srv.Handler()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		body := fmt.Sprintf(`{"amount":"%d.25","date":"2026-01-15","description":"bench %d","category":"Groceries","payment_method":"Cash"}`, 1+i%999, i)
		req := httptest.NewRequest(http.MethodPost, "/api/v1/expenses", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusCreated {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkHealth is the floor of an authenticated request: auth and envelope, no ledger work.
func BenchmarkHealth(b *testing.B) { benchHealth(b) }

// benchHealth measures GET /api/v1/health with a key, on a server whose
// Config configure adjusts.
func benchHealth(b *testing.B, configure ...func(*Config)) {
	env := newTestEnv(b, configure...)
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeRead)
	h := env.srv.Handler()
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/health", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
}
