package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// activityOf is the user's activity, newest first, read straight from the ledger.
func activityOf(t testing.TB, env *testEnv, userID string, f finance.ActivityFilter) []finance.Activity {
	t.Helper()
	p, err := env.srv.Ledger().ListActivity(context.Background(), userID, f, finance.Date{}, finance.Date{},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "created_at", Desc: true})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

// A form posted on the web app writes as the web app.
func TestActivityRecordsTheWebApp(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.RecordPath)
	x := b.Post(web.RecordPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "kind": {"expense"}, "amount": {"250.50"},
		"date": {"2025-03-14"}, "description": {"Lunch with Ana"}, "category": {"Food & Dining"}, "payment_method": {"Cash"}})
	if x.Status != http.StatusSeeOther {
		t.Fatalf("POST /record: %d\n%s", x.Status, x.Body)
	}
	es := expensesOf(t, env, u, "")
	if len(es) != 1 {
		t.Fatalf("%d expenses", len(es))
	}
	got := activityOf(t, env, u.ID, finance.ActivityFilter{})
	if len(got) != 1 || got[0].RecordID != es[0].ID || got[0].Actor != finance.WebActor ||
		got[0].Source != finance.WriteManual || got[0].Action != finance.LogCreated {
		t.Errorf("a page's write: %+v", got)
	}
}
