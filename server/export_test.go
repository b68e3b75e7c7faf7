package server

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"maps"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
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

// wantDownload checks that an export answered 200 as a download of
// fileName, never cached.
func wantDownload(t *testing.T, resp *http.Response, body []byte, contentType, fileName string) {
	t.Helper()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /export: %d %s", resp.StatusCode, body)
	}
	for k, v := range map[string]string{"Content-Type": contentType,
		"Content-Disposition": `attachment; filename="` + fileName + `"`, "Cache-Control": "no-store"} {
		if got := resp.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
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
	// The reminders claimed travel with the ledger.
	if n, err := src.srv.Ledger().RunReminders(context.Background(), newChatStub()); err != nil || n == 0 {
		t.Fatalf("reminders pass: %d claimed, %v", n, err)
	}
	// Reading generates what is due (a report over months ahead generates
	// the bills through its end): read once so that the export and the
	// figures compared hold the same records.
	testkit.LedgerFigures(t, apiCaller(t, src, aliceKey), today)

	resp, doc := getExport(t, src, aliceKey, "")
	wantDownload(t, resp, doc, "application/json", "finance-export-2025-03-10.json")
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
		"bill_payments", "income_templates", "expected_income", "loans", "loan_instances", "loan_payments", "budget_thresholds",
		"reminders", "exchange_rates"} {
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

	// A document whose records leave out their empty columns, as the API's
	// records leave out fields without a value, restores the same ledger:
	// a column left out takes its default.
	sparse := regexp.MustCompile(`,"[a-z_0-9]+":null|"[a-z_0-9]+":null,`).ReplaceAll(doc, nil)
	if bytes.Contains(sparse, []byte(":null")) || len(sparse) > len(doc)*9/10 {
		t.Fatalf("the sparse document still holds nulls, or few were left out (%d of %d bytes)", len(sparse), len(doc))
	}
	third := newTestEnv(t)
	third.srv.Ledger().SetClock(clock)
	carol := third.createUser(finance.PlanPro)
	carolKey := third.createKey(carol.ID, auth.ScopeAll)
	if _, err := third.db.Restore(context.Background(), carol.ID, bytes.NewReader(sparse)); err != nil {
		t.Fatalf("Restore of the sparse document: %v", err)
	}
	got = testkit.LedgerFigures(t, apiCaller(t, third, carolKey), today)
	for _, path := range slices.Sorted(maps.Keys(want)) {
		if diff := cmp.Diff(jsonValue(t, want[path]), jsonValue(t, got[path])); diff != "" {
			t.Errorf("GET %s after restoring the sparse document (-before +after):\n%s", path, diff)
		}
	}
	if _, again := getExport(t, third, carolKey, ""); !bytes.Equal(again, doc) {
		t.Errorf("the user restored from the sparse document exports another document than the full one")
	}
}

func TestExportRoute(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	reader := env.createKey(u.ID, auth.ScopeRead)
	runScenarios(t, env, []apiScenario{
		{name: "another format", method: http.MethodGet, url: "/api/v1/export?format=xlsx", headers: bearer(reader),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: map[string]string{"format": "must be json or csv"}},
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

// The zip of CSV files holds the JSON document's records: a file per array,
// its header the same fields in the same order, every row the same values
// as text (null an empty cell), and a manifest naming the schema version
// and each file's row count.
func TestExportCSV(t *testing.T) {
	loc, err := time.LoadLocation(finance.DefaultTimezone)
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeAll)
	testkit.BuildFullLedger(t, apiCaller(t, env, key), finance.Today(ledgerNow, loc))
	if _, err := env.srv.Ledger().RunReminders(context.Background(), newChatStub()); err != nil {
		t.Fatal(err)
	}
	reader := env.createKey(u.ID, auth.ScopeRead)

	_, doc := getExport(t, env, reader, "")
	resp, body := getExport(t, env, reader, "?format=csv")
	wantDownload(t, resp, body, "application/zip", "finance-export-2025-03-10.zip")
	zr, err := zip.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		t.Fatalf("the answer is not a zip: %v", err)
	}
	files := map[string][][]string{}
	var names []string
	var manifest struct {
		Format        string `json:"format"`
		Version       int    `json:"version"`
		ExportedAt    string `json:"exported_at"`
		SchemaVersion string `json:"schema_version"`
		Files         []struct {
			Name string `json:"name"`
			Rows int    `json:"rows"`
		} `json:"files"`
	}
	for _, f := range zr.File {
		names = append(names, f.Name)
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == "manifest.json" {
			err = json.NewDecoder(rc).Decode(&manifest)
		} else {
			files[f.Name], err = csv.NewReader(rc).ReadAll()
		}
		rc.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
	}

	kinds := exportedKinds(t, doc)
	var wantNames []string
	for _, k := range kinds.order {
		wantNames = append(wantNames, k+".csv")
	}
	if diff := cmp.Diff(append(wantNames, "manifest.json"), names); diff != "" {
		t.Errorf("the zip's files (-want +got):\n%s", diff)
	}
	if manifest.Format != "finance-export" || manifest.Version != 1 || manifest.ExportedAt != "2025-03-10T20:00:00Z" ||
		manifest.SchemaVersion != store.SchemaVersion() || len(manifest.Files) != len(kinds.order) {
		t.Errorf("manifest %+v", manifest)
	}
	for i, k := range kinds.order {
		name := k + ".csv"
		want := kinds.rows[k]
		got := files[name]
		if len(got) == 0 {
			t.Errorf("%s: no header", name)
			continue
		}
		if diff := cmp.Diff(kinds.fields[k], got[0]); diff != "" {
			t.Errorf("%s: header (-want, the document's fields +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(want, got[1:]); diff != "" {
			t.Errorf("%s: rows (-want, the document's values +got):\n%s", name, diff)
		}
		if i < len(manifest.Files) && (manifest.Files[i].Name != name || manifest.Files[i].Rows != len(want)) {
			t.Errorf("manifest's file %d: %+v, want %s with %d rows", i, manifest.Files[i], name, len(want))
		}
		if k != "user" && len(want) == 0 {
			t.Errorf("%s: no rows: the ledger should hold every kind", name)
		}
	}
	// A few values as a person reads them: an exact amount, a date, a
	// null as an empty cell.
	exp := files["expenses.csv"]
	col := func(name string) int { return slices.Index(exp[0], name) }
	if !slices.ContainsFunc(exp[1:], func(r []string) bool { return strings.Contains(r[col("amount")], ".") }) ||
		!slices.ContainsFunc(exp[1:], func(r []string) bool { return r[col("voided_at")] == "" }) ||
		!slices.ContainsFunc(exp[1:], func(r []string) bool { _, err := finance.ParseDate(r[col("date")]); return err == nil }) {
		t.Errorf("expenses.csv: amounts, dates or nulls not as written: %q", exp[:min(3, len(exp))])
	}
}

// exportedDoc is an export document's arrays as text: each kind's fields
// in the document's order and each row's values as a CSV cell holds them.
type exportedDoc struct {
	order  []string
	fields map[string][]string
	rows   map[string][][]string
}

// exportedKinds reads doc's arrays (and the user object) in order.
func exportedKinds(t *testing.T, doc []byte) exportedDoc {
	t.Helper()
	out := exportedDoc{fields: map[string][]string{}, rows: map[string][][]string{}}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	next := func() json.Token {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("the document: %v", err)
		}
		return tok
	}
	// object reads one row, its fields in order.
	object := func(kind string) {
		var fields, row []string
		for dec.More() {
			fields = append(fields, next().(string))
			switch v := next().(type) {
			case nil:
				row = append(row, "")
			case json.Number:
				row = append(row, v.String())
			case bool:
				row = append(row, strconv.FormatBool(v))
			case string:
				row = append(row, v)
			default:
				t.Fatalf("%s: a value %v", kind, v)
			}
		}
		next() // }
		if len(fields) > 0 {
			out.fields[kind] = fields
			out.rows[kind] = append(out.rows[kind], row)
		}
	}
	next() // {
	for dec.More() {
		key := next().(string)
		switch next() {
		case json.Delim('{'):
			out.order = append(out.order, key)
			object(key)
		case json.Delim('['):
			out.order = append(out.order, key)
			out.rows[key] = [][]string{}
			for dec.More() {
				next() // {
				object(key)
			}
			next() // ]
		}
	}
	return out
}
