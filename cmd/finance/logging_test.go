package main

import (
	"encoding/json"
	"net/http"
	"os/exec"
	"strings"
	"testing"
)

// --log-format and --log-level are flags of every command, from the
// command line or FINANCE_LOG_FORMAT and FINANCE_LOG_LEVEL; a value that
// is not one of theirs is refused, naming what is wanted.
func TestLogFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string // on stderr; exit 1
	}{
		{"format", nil, []string{"--log-format", "yaml"}, `invalid argument "yaml" for "--log-format" flag: want text or json`},
		{"level", nil, []string{"--log-level", "trace"}, `invalid argument "trace" for "--log-level" flag: want debug, info, warn or error`},
		{"format from the environment", map[string]string{"FINANCE_LOG_FORMAT": "xml"}, nil,
			`environment variable FINANCE_LOG_FORMAT="xml" (it sets --log-format): want text or json`},
		{"level from the environment", map[string]string{"FINANCE_LOG_LEVEL": "loud"}, nil,
			`environment variable FINANCE_LOG_LEVEL="loud" (it sets --log-level): want debug, info, warn or error`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			r := runCLI(t, dir, "", append([]string{"migrate"}, tc.args...)...)
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 1 and %q", r.code, r.stderr, tc.want)
			}
		})
	}
	// Accepted in any case; migrate of a new database logs nothing, so its
	// only line is its answer.
	t.Setenv("FINANCE_LOG_LEVEL", "WARN")
	if r := mustRun(t, dir, "", "migrate", "--log-format", "JSON"); !strings.HasPrefix(r.stderr, "database is up to date") {
		t.Errorf("stderr %q", r.stderr)
	}
}

// serve --log-format json writes one JSON object a line: start-up (the
// setup link included), each request's access line carrying the id its
// X-Request-Id answered, and shutdown; the query string is not logged.
func TestServeLogsJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	p := startServerCmd(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(), "--log-format", "json"))
	resp, _ := send(t, http.MethodGet, p.url+"/readyz?token=not-for-the-log", "", http.Header{"X-Request-Id": {"probe-42"}}, nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Request-Id") != "probe-42" {
		t.Fatalf("GET /readyz: %d, X-Request-Id %q", resp.StatusCode, resp.Header.Get("X-Request-Id"))
	}
	if code := p.interrupt(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	log := p.stderr()
	if strings.Contains(log, "not-for-the-log") {
		t.Errorf("the query string is in the log:\n%s", log)
	}
	msgs := map[string]map[string]any{}
	for line := range strings.Lines(log) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("not a JSON line (%v): %s", err, line)
			continue
		}
		msgs[rec["msg"].(string)] = rec
	}
	for _, m := range []string{"finance listening", "no users yet: open the setup page to create the first one", "request", "stopped"} {
		if msgs[m] == nil {
			t.Errorf("no %q line in the log:\n%s", m, log)
		}
	}
	if req := msgs["request"]; req != nil && (req["request_id"] != "probe-42" || req["route"] != "/readyz" || req["status"] != float64(200)) {
		t.Errorf("the access line %v; want request_id probe-42, route /readyz, status 200", req)
	}
	if _, ok := msgs["finance listening"]["request_id"]; ok {
		t.Errorf("a line logged outside any request carries a request_id: %v", msgs["finance listening"])
	}
}
