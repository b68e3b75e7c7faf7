package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/store"
	"github.com/finance-app/finance/web"
)

// fullDisk is the test database on a disk that can fill up. While full,
// every ledger write fails as the store fails one that finds no room (see
// store's TestWriteOnAFullDisk, which fills a real database): rolled back,
// with an error that is finance.ErrStorageFull, and standing for health as
// the store's WriteFailure until a write commits again. The write probe
// still commits, as on a disk whose last free page the probe's row fits in.
type fullDisk struct {
	*store.DB
	mu       sync.Mutex
	full     bool
	failedAt time.Time
}

func (d *fullDisk) fill(full bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.full = full
}

func (d *fullDisk) Write(ctx context.Context, fn func(finance.Repo) error) error {
	d.mu.Lock()
	full := d.full
	if full {
		d.failedAt = time.Now()
	}
	d.mu.Unlock()
	if full {
		return fmt.Errorf("store: commit: %w: database or disk is full (13)", finance.ErrStorageFull)
	}
	err := d.DB.Write(ctx, fn)
	if err == nil {
		d.mu.Lock()
		d.failedAt = time.Time{}
		d.mu.Unlock()
	}
	return err
}

func (d *fullDisk) WriteFailure() (time.Time, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.failedAt.IsZero() {
		return d.DB.WriteFailure()
	}
	return d.failedAt, errors.New("a write failed on the disk")
}

// A write that finds the disk full is answered 507 with the message every
// write gets, saying nothing was saved, and nothing is; health fails at
// once (its write probe ran a moment before and would still stand), and
// recovers once a write commits again.
func TestWriteOnAFullDisk(t *testing.T) {
	disk := &fullDisk{}
	env := newTestEnvOn(t, func(db *store.DB) Database { disk.DB = db; return disk })
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	u := env.createUser(finance.PlanPro)
	alice := ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeExpensesWrite)}
	health := func(status int, database string) {
		t.Helper()
		want := Health{Status: "ok", Version: "test-version", Database: database}
		if status != http.StatusOK {
			want.Status = "degraded"
		}
		alice.sc(apiScenario{method: http.MethodGet, url: "/api/v1/health", wantStatus: status, wantData: want}).run(t, env)
	}
	health(http.StatusOK, databaseOK) // the probe ran and commits
	busFare := expenseBody(`"12.50"`, `"Cash"`)

	disk.fill(true)
	notSaved := func(sc apiScenario) {
		t.Helper()
		sc.wantStatus, sc.wantCode, sc.wantMessage = http.StatusInsufficientStorage, CodeInternal, httperr.StorageFullMessage
		sc.check = func(t testing.TB, res apiResult) {
			if res.env.Error == nil || res.env.Error.RequestID == "" || res.env.Error.RequestID != res.header.Get("X-Request-Id") {
				t.Errorf("the answer does not carry its request id: %s", res.raw)
			}
		}
		sc.run(t, env)
	}
	keyed := map[string]string{"Authorization": "Bearer " + alice.key, IdempotencyKeyHeader: "bus-fare"}
	notSaved(alice.sc(apiScenario{method: http.MethodPost, url: "/api/v1/expenses", body: busFare}))
	health(http.StatusServiceUnavailable, databaseReadOnly)
	// A write under an Idempotency-Key (one write scope) says the same; a
	// retry with the key runs again rather than replaying the failure.
	notSaved(apiScenario{method: http.MethodPost, url: "/api/v1/expenses", body: busFare, headers: keyed})
	if _, p := page[finance.Expense](t, alice, "/api/v1/expenses"); p.TotalItems != 0 {
		t.Fatalf("%d expenses stored on a full disk", p.TotalItems)
	}

	disk.fill(false)
	apiScenario{method: http.MethodPost, url: "/api/v1/expenses", body: busFare, headers: keyed,
		wantStatus: http.StatusCreated, noHeaders: []string{IdempotentReplayedHeader}}.run(t, env)
	health(http.StatusOK, databaseOK)
	if _, p := page[finance.Expense](t, alice, "/api/v1/expenses"); p.TotalItems != 1 {
		t.Errorf("%d expenses after the disk had room again, want 1", p.TotalItems)
	}
}

// A page's form on a full disk is answered with a page that says the
// same, and how to get back to the form; not with the page of an
// unexpected failure.
func TestPageWriteOnAFullDisk(t *testing.T) {
	disk := &fullDisk{}
	env := newTestEnvOn(t, func(db *store.DB) Database { disk.DB = db; return disk })
	env.srv.Ledger().SetClock(func() time.Time { return testkit.Now })
	u := env.createUser(finance.PlanFree)
	b := env.browser(t)
	b.SignIn(u)
	page := b.Get(web.RecordPath)
	disk.fill(true)
	x := b.Post(web.RecordPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "kind": {"expense"}, "amount": {"90"}, "date": {"2025-03-15"},
		"description": {"Market"}, "category": {"Groceries"}, "payment_method": {"Cash"}})
	testkit.WantPage(t, "a form on a full disk", x, http.StatusInsufficientStorage, "<h1>Not saved</h1>",
		"The server could not save: its disk is full, so nothing was saved.", "Back button returns to the form, which still holds what you entered")
	if x.Contains("Something went wrong") {
		t.Errorf("the page of an unexpected failure:\n%s", x.Body)
	}
	if n := len(testkit.ExpensesOf(t, env.srv.Ledger(), u, "")); n != 0 {
		t.Errorf("%d expenses saved on a full disk", n)
	}
}
