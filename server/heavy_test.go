package server

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// TestCheapReadsDoNotWaitForHeavyOnes fills every heavy-read slot with a
// request held inside its handler, then checks that cheap reads still
// answer while further heavy reads wait for a slot.
func TestCheapReadsDoNotWaitForHeavyOnes(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.HeavyReads = 1 })
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeAll)

	var (
		mu      sync.Mutex
		entered []string
	)
	inside := make(chan struct{}, 8)
	release := make(chan struct{})
	env.srv.heavyHook = func() {
		inside <- struct{}{}
		<-release
	}
	get := func(path string) int {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		rec := httptest.NewRecorder()
		env.srv.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	heavy := []string{"/api/v1/expenses/summary", "/api/v1/dashboard", "/api/v1/expenses?search=coffee"}
	var wg sync.WaitGroup
	codes := make([]int, len(heavy))
	for i, path := range heavy {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = get(path)
			mu.Lock()
			entered = append(entered, path)
			mu.Unlock()
		}()
		if i == 0 {
			<-inside // the only slot is taken and held
		}
	}

	for _, path := range []string{"/api/v1/accounts", "/api/v1/expenses", "/api/v1/health", "/api/v1/categories"} {
		if code := get(path); code != http.StatusOK {
			t.Errorf("GET %s while heavy reads are held = %d, want 200", path, code)
		}
	}
	mu.Lock()
	if len(entered) != 0 {
		t.Errorf("heavy reads finished while the only slot was held: %v", entered)
	}
	mu.Unlock()

	close(release)
	wg.Wait()
	for i, path := range heavy {
		if codes[i] != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", path, codes[i])
		}
	}
}

// TestHeavyRoutesAreDeclared pins which routes are heavy, so a new summary
// or report is classified on purpose.
func TestHeavyRoutesAreDeclared(t *testing.T) {
	env := newTestEnv(t)
	var got []string
	for _, rt := range env.srv.Routes() {
		if rt.Heavy {
			got = append(got, rt.Method+" "+rt.Path)
		}
		for _, p := range rt.HeavyWith {
			got = append(got, rt.Method+" "+rt.Path+"?"+p)
		}
	}
	want := []string{
		"GET /api/v1/bills/summary",
		"GET /api/v1/credit-cards/usage-summary",
		"GET /api/v1/expenses?search",
		"GET /api/v1/expenses/summary",
		"GET /api/v1/dashboard",
		"GET /api/v1/reports/:report",
		"GET /api/v1/export",
		// The web app's pages of the same reads.
		"GET /",
		"GET /expenses?search",
		"GET /expenses.csv",
		"GET /income?search",
		"GET /income.csv",
		"GET /reports/:name",
		"GET /accounts/lines.csv",
		"GET /cards/transactions.csv",
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("heavy routes (-want +got):\n%s", diff)
	}
}
