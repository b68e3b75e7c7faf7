package main

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
)

// apiCaller is testkit.APICall to the server srv with key.
func apiCaller(t *testing.T, srv *serverProc, key string) testkit.APICall {
	return func(method, path string, body any) (int, json.RawMessage) {
		t.Helper()
		status, env := call(t, method, srv.url+"/api/v1"+path, key, body)
		if env.Error != nil {
			b, _ := json.Marshal(env.Error)
			return status, b
		}
		return status, env.Data
	}
}

// Moving in: a ledger recorded over REST, exported with finance export while
// its server runs, and imported with finance import into a new user of a
// fresh data directory, reads the same on the new server: balances,
// statements, plans, bills, loans, every list, the dashboard and reports.
func TestExportImportEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test builds and runs the binary")
	}
	bin := buildBinary(t)
	loc, err := time.LoadLocation(finance.DefaultTimezone)
	if err != nil {
		t.Fatal(err)
	}
	today := finance.Today(time.Now(), loc)
	// A user with a key on a server of its own: a full ledger and its
	// figures read twice take more requests than the default burst.
	serve := func(dataDir, email string) (*serverProc, string) {
		binMustRun(t, bin, dataDir, "a long enough password\n", "users", "create", "--email", email, "--password-stdin")
		key := strings.TrimSpace(binMustRun(t, bin, dataDir, "", "keys", "create", "--user", email, "--name", "e2e",
			"--scopes", "all").stdout)
		return startServerCmd(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir, "--rate-limit", "off")), key
	}
	dataDir := filepath.Join(t.TempDir(), "data")
	oldSrv, oldKey := serve(dataDir, "moving@example.com")
	old := apiCaller(t, oldSrv, oldKey)
	testkit.BuildFullLedger(t, old, today)
	// Reading generates what is due (bills through a report's end): read
	// once so that the export and the figures hold the same records.
	testkit.LedgerFigures(t, old, today)

	file := filepath.Join(t.TempDir(), "moving.json")
	binMustRun(t, bin, dataDir, "", "export", "--user", "moving@example.com", file)
	want := testkit.LedgerFigures(t, old, today)
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("export file mode %v, want 0600", info.Mode().Perm())
	}
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// The same document on stdout, but for the moment it was taken.
	stamp := regexp.MustCompile(`"exported_at":"[^"]+"`)
	stdout := binMustRun(t, bin, dataDir, "", "export", "--user", "moving@example.com", "-").stdout
	if stamp.ReplaceAllString(stdout, "") != stamp.ReplaceAllString(string(doc), "") {
		t.Error("export to - wrote another document than export to a file")
	}

	// The new server runs while the document is imported into its new user.
	fresh := filepath.Join(t.TempDir(), "fresh")
	srv, key := serve(fresh, "moved@example.com")
	imported := binMustRun(t, bin, fresh, "", "import", "--user", "moved@example.com", file).stdout
	if !regexp.MustCompile(`^imported \d+ records into moved@example\.com: \d+ categories, 2 accounts, 1 credit cards, \d+ expenses, 2 expense splits, `).
		MatchString(imported) {
		t.Errorf("import said %q", imported)
	}
	got := testkit.LedgerFigures(t, apiCaller(t, srv, key), today)
	sameFigures(t, "on the new server (-old +new)", want, got)

	// A second import refuses, names why, and changes nothing.
	again := binCLI(t, bin, fresh, "", "import", "--user", "moved@example.com", file)
	if again.code != 1 || !strings.Contains(again.stderr, "nothing imported: the user already has records") {
		t.Errorf("second import: exit %d, stderr %q", again.code, again.stderr)
	}
	if status, env := call(t, http.MethodGet, srv.url+"/api/v1/accounts?limit=100&status=all", key, nil); status != http.StatusOK ||
		!cmp.Equal(jsonOf(t, env.Data), jsonOf(t, want["/accounts?limit=100&status=all"])) {
		t.Errorf("accounts after a refused import: %d %s", status, env.Data)
	}
}

// sameFigures reports every ledger figure in got that differs from want;
// what says when, and which side is which.
func sameFigures(t *testing.T, what string, want, got map[string]json.RawMessage) {
	t.Helper()
	for _, path := range slices.Sorted(maps.Keys(want)) {
		if diff := cmp.Diff(jsonOf(t, want[path]), jsonOf(t, got[path])); diff != "" {
			t.Errorf("GET %s %s:\n%s", path, what, diff)
		}
	}
}

func jsonOf(t *testing.T, raw json.RawMessage) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return v
}
