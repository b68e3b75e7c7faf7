package server

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/store"
)

// apiCaller is testkit.APICall over env as the holder of key.
func apiCaller(t testing.TB, env *testEnv, key string) testkit.APICall {
	return func(method, path string, body any) (int, json.RawMessage) {
		t.Helper()
		var raw []byte
		if body != nil {
			var err error
			if raw, err = json.Marshal(body); err != nil {
				t.Fatal(err)
			}
		}
		res := apiScenario{method: method, url: "/api/v1" + path, body: string(raw), headers: bearer(key)}.run(t, env)
		if res.status >= 400 {
			return res.status, res.raw
		}
		return res.status, res.env.Data
	}
}

// getExport sends GET /api/v1/export+query as the holder of key, checked
// against the contract; the body is the document, not the envelope.
func getExport(t testing.TB, env *testEnv, key, query string) (*http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "/api/v1/export"+query, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	return serveAPI(t, env.srv.Handler(), req, nil, true)
}

// A full export restored into a new user on a fresh server gives the same
// figures everywhere a person looks: balances, lines, statements, plans,
// bills, loans, every list in every state, the dashboard and every report.
// And the restored user exports the same document.
func TestExportRestoreRoundTrip(t *testing.T) {
	clock := func() time.Time { return ledgerNow }
	loc, err := time.LoadLocation(finance.DefaultTimezone)
	if err != nil {
		t.Fatal(err)
	}
	today := finance.Today(ledgerNow, loc)

	src := newTestEnv(t)
	src.srv.Ledger().SetClock(clock)
	alice := src.createUser(finance.PlanPro)
	aliceKey := src.createKey(alice.ID, auth.ScopeAll)
	testkit.BuildFullLedger(t, apiCaller(t, src, aliceKey), today)
	// Reading generates what is due (a report over months ahead generates
	// the bills through its end): read once so that the export and the
	// figures compared hold the same records.
	testkit.LedgerFigures(t, apiCaller(t, src, aliceKey), today)

	resp, doc := getExport(t, src, aliceKey, "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /export: %d %s", resp.StatusCode, doc)
	}
	for k, v := range map[string]string{"Content-Type": "application/json",
		"Content-Disposition": `attachment; filename="finance-export-2025-03-10.json"`, "Cache-Control": "no-store"} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	var parsed map[string]json.RawMessage
	if err := json.Unmarshal(doc, &parsed); err != nil {
		t.Fatalf("the document is not JSON: %v", err)
	}
	if string(parsed["format"]) != `"finance-export"` || string(parsed["version"]) != "1" ||
		string(parsed["exported_at"]) != `"2025-03-10T20:00:00Z"` {
		t.Errorf("header: format %s, version %s, exported_at %s", parsed["format"], parsed["version"], parsed["exported_at"])
	}
	// Every kind of record is in the ledger, in every state it was left in.
	for _, kind := range []string{"categories", "accounts", "credit_cards", "expenses", "expense_splits", "account_transactions",
		"income", "card_transactions", "statements", "statement_payments", "installment_plans", "bill_templates", "bills",
		"bill_payments", "loans", "loan_instances", "loan_payments", "budget_thresholds"} {
		if len(parsed[kind]) < 4 {
			t.Errorf("%s: %s, want records", kind, parsed[kind])
		}
	}
	for _, state := range []string{`"status":"voided"`, `"status":"archived"`, `"status":"cancelled"`, `"status":"skipped"`,
		`"status":"partially_paid"`, `"type":"refund"`, `"type":"fee"`, `"source":"adjustment"`, `"replaced_by_id":"`} {
		if !bytes.Contains(doc, []byte(state)) {
			t.Errorf("the document holds no record with %s", state)
		}
	}
	if bytes.Contains(doc, []byte(alice.ID)) || bytes.Contains(doc, []byte(alice.Email)) {
		t.Error("the document names the user: it must carry records and settings only")
	}

	want := testkit.LedgerFigures(t, apiCaller(t, src, aliceKey), today)

	dst := newTestEnv(t)
	dst.srv.Ledger().SetClock(clock)
	bob := dst.createUser(finance.PlanPro)
	bobKey := dst.createKey(bob.ID, auth.ScopeAll)
	counts, err := dst.db.Restore(context.Background(), bob.ID, bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	if i := slices.IndexFunc(counts, func(c store.RestoreCount) bool { return c.Kind == "expenses" }); i < 0 || counts[i].N != strings.Count(string(parsed["expenses"]), `"payment_method"`) {
		t.Errorf("restore counts %+v", counts)
	}
	got := testkit.LedgerFigures(t, apiCaller(t, dst, bobKey), today)
	for _, path := range slices.Sorted(maps.Keys(want)) {
		if diff := cmp.Diff(jsonValue(t, want[path]), jsonValue(t, got[path])); diff != "" {
			t.Errorf("GET %s after the restore (-before +after):\n%s", path, diff)
		}
	}
	if _, again := getExport(t, dst, bobKey, ""); !bytes.Equal(again, doc) {
		t.Errorf("the restored user exports another document")
	}
}

func TestExportRoute(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	reader := env.createKey(u.ID, auth.ScopeRead)
	runScenarios(t, env, []apiScenario{
		{name: "another format", method: http.MethodGet, url: "/api/v1/export?format=csv", headers: bearer(reader),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: map[string]string{"format": "must be json, the only export format"}},
		{name: "a write scope alone", method: http.MethodGet, url: "/api/v1/export",
			headers: bearer(env.createKey(u.ID, auth.ScopeExpensesWrite)), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "no key", method: http.MethodGet, url: "/api/v1/export", wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized},
	})
	resp, doc := getExport(t, env, reader, "?format=json")
	if resp.StatusCode != http.StatusOK || !bytes.HasPrefix(doc, []byte(`{"format":"finance-export","version":1,`)) ||
		!bytes.Contains(doc, []byte(`"user":{},`)) || !bytes.Contains(doc, []byte(`"expenses":[],`)) {
		t.Errorf("a new user's export: %d %s", resp.StatusCode, doc)
	}
}
