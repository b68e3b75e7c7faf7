package main

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fakeServer answers GET /healthz with status and anything else with 404.
func fakeServer(t *testing.T, status int) (addr string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://")
}

func TestHealthcheck(t *testing.T) {
	healthy := fakeServer(t, http.StatusOK)
	_, healthyPort, _ := net.SplitHostPort(healthy)
	degraded := fakeServer(t, http.StatusServiceUnavailable)
	// A port nothing listens on: a listener's, closed again.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()

	tests := []struct {
		name       string
		env        string // FINANCE_ADDR
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"healthy", "", []string{"--addr", healthy}, 0, "healthy: http://" + healthy + "/healthz\n", ""},
		{"every address is asked on loopback", "", []string{"--addr", "0.0.0.0:" + healthyPort}, 0, "healthy: http://" + healthy + "/healthz\n", ""},
		{"no host is asked on loopback", "", []string{"--addr", ":" + healthyPort}, 0, "healthy: http://" + healthy + "/healthz\n", ""},
		{"the address from FINANCE_ADDR", healthy, nil, 0, "healthy: http://" + healthy + "/healthz\n", ""},
		{"the flag wins over FINANCE_ADDR", closed, []string{"--addr", healthy}, 0, "healthy: http://" + healthy + "/healthz\n", ""},
		{"503", "", []string{"--addr", degraded}, 1, "", "error: unhealthy: http://" + degraded + "/healthz answered 503 Service Unavailable\n"},
		{"nothing listening", "", []string{"--addr", closed}, 1, "", "connection refused"},
		{"not an address", "", []string{"--addr", "localhost"}, 1, "", `error: --addr "localhost": want HOST:PORT, such as 127.0.0.1:8080` + "\n"},
		{"no timeout", "", []string{"--addr", healthy, "--timeout", "0s"}, 1, "", "error: --timeout: want a duration above 0, such as 5s\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("FINANCE_ADDR", tc.env)
			r := runCLI(t, t.TempDir(), "", append([]string{"healthcheck"}, tc.args...)...)
			if r.code != tc.wantCode {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, tc.wantCode, r.stderr)
			}
			if r.stdout != tc.wantStdout {
				t.Errorf("stdout = %q, want %q", r.stdout, tc.wantStdout)
			}
			if tc.wantCode == 0 && r.stderr != "" || !strings.Contains(r.stderr, tc.wantStderr) {
				t.Errorf("stderr = %q, want it to hold %q", r.stderr, tc.wantStderr)
			}
		})
	}
}

// TestHealthcheckOfTheRealServer asks a running finance serve, then the same
// address once it has stopped.
func TestHealthcheckOfTheRealServer(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	p := startServer(t, bin, dir)
	addr := strings.TrimPrefix(p.url, "http://")

	r := binCLI(t, bin, dir, "", "healthcheck", "--addr", addr)
	if r.code != 0 || r.stdout != "healthy: "+p.url+"/healthz\n" {
		t.Fatalf("healthcheck of a running server: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if code := p.interrupt(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	r = binCLI(t, bin, dir, "", "healthcheck", "--addr", addr)
	if r.code != 1 || r.stdout != "" || !strings.HasPrefix(r.stderr, "error: unhealthy: ") {
		t.Errorf("healthcheck of a stopped server: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}
