package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
)

// ledgerServer is the binary serving one user who holds a key with the given
// scopes: the setting of the end-to-end tests of the ledger's domains
// (statements, bills, loans), which drive it over HTTP on dates relative to
// today and kill it with SIGKILL to check what survives.
type ledgerServer struct {
	t                 *testing.T
	bin, dataDir, key string
	srv               *serverProc
	// today is the date in the default timezone, as the server sees it.
	today finance.Date
}

func startLedgerServer(t *testing.T, email, scopes string) *ledgerServer {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test builds and runs the binary")
	}
	bin := buildBinary(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	binMustRun(t, bin, dataDir, "a long enough password\n", "users", "create", "--email", email, "--password-stdin")
	key := strings.TrimSpace(binMustRun(t, bin, dataDir, "", "keys", "create", "--user", email, "--name", "e2e",
		"--scopes", scopes).stdout)
	loc, err := time.LoadLocation(finance.DefaultTimezone)
	if err != nil {
		t.Fatal(err)
	}
	return &ledgerServer{t: t, bin: bin, dataDir: dataDir, key: key, srv: startServer(t, bin, dataDir),
		today: finance.Today(time.Now(), loc)}
}

// call sends a request to /api/v1+path with the user's key.
func (l *ledgerServer) call(method, path string, body any) (int, envelope) {
	l.t.Helper()
	return call(l.t, method, l.srv.url+"/api/v1"+path, l.key, body)
}

// api sends a request and fails the test unless it is answered with want.
func (l *ledgerServer) api(method, path string, body any, want int) envelope {
	l.t.Helper()
	status, env := l.call(method, path, body)
	if status != want {
		l.t.Fatalf("%s %s: %d, want %d: %+v", method, path, status, want, env.Error)
	}
	return env
}

// month is the date k months from today's month on the given day, clamped.
func (l *ledgerServer) month(k, day int) string { return finance.MonthAdd(l.today, k, day).String() }

// killAndRestart kills the server with SIGKILL and starts it again on the
// same data directory.
func (l *ledgerServer) killAndRestart() {
	l.t.Helper()
	l.srv.kill(l.t)
	l.srv = startServer(l.t, l.bin, l.dataDir)
}
