package server

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
)

// frozenClock returns a clock for a limiter that stands still until advanced,
// so token counts are exact and no test depends on how fast it runs.
func frozenClock() (now func() time.Time, advance func(time.Duration)) {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { return t }, func(d time.Duration) { t = t.Add(d) }
}

var (
	policyHeader = regexp.MustCompile(`^"([a-z-]+)";q=(\d+);w=(\d+)$`)
	limitHeader  = regexp.MustCompile(`^"([a-z-]+)";r=(\d+);t=(\d+)$`)
)

// rateHeaders are the rate-limit fields of one response.
type rateHeaders struct {
	Policy     string
	Remaining  int
	Reset      int // seconds until the allowance is full
	RetryAfter string
}

// readRateHeaders parses and checks the form of the RateLimit-Policy and
// RateLimit fields; both must name policy.
func readRateHeaders(t testing.TB, h http.Header, policy string) rateHeaders {
	t.Helper()
	p := policyHeader.FindStringSubmatch(h.Get("RateLimit-Policy"))
	l := limitHeader.FindStringSubmatch(h.Get("RateLimit"))
	if p == nil || l == nil {
		t.Fatalf("malformed rate-limit headers: RateLimit-Policy %q, RateLimit %q", h.Get("RateLimit-Policy"), h.Get("RateLimit"))
	}
	if p[1] != policy || l[1] != policy {
		t.Errorf("policy names %q and %q, want %q", p[1], l[1], policy)
	}
	r, _ := strconv.Atoi(l[2])
	reset, _ := strconv.Atoi(l[3])
	return rateHeaders{Policy: p[0], Remaining: r, Reset: reset, RetryAfter: h.Get("Retry-After")}
}

func TestRateLimitPerCredential(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.RateLimit = Rate{Count: 3, Window: time.Minute, Burst: 3} })
	now, advance := frozenClock()
	env.srv.keyLimiter.now = now
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeRead)
	otherKey := env.createKey(u.ID, auth.ScopeRead)

	health := func(key string, status int) apiScenario {
		sc := apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(key), wantStatus: status}
		if status == http.StatusTooManyRequests {
			sc.wantCode = CodeRateLimitExceeded
			sc.wantMessage = "Too many requests; retry after the number of seconds in the Retry-After header"
		} else {
			sc.noHeaders = []string{"Retry-After"}
		}
		return sc
	}
	const policy = `"per-credential";q=3;w=60`
	// One token comes back every 20 s; the bucket holds 3.
	steps := []struct {
		name   string
		key    string
		status int
		want   rateHeaders
	}{
		{"first", key, http.StatusOK, rateHeaders{policy, 2, 20, ""}},
		{"second", key, http.StatusOK, rateHeaders{policy, 1, 40, ""}},
		{"third", key, http.StatusOK, rateHeaders{policy, 0, 60, ""}},
		{"fourth is refused", key, http.StatusTooManyRequests, rateHeaders{policy, 0, 60, "20"}},
		{"fifth is refused too", key, http.StatusTooManyRequests, rateHeaders{policy, 0, 60, "20"}},
		{"another key is unaffected", otherKey, http.StatusOK, rateHeaders{policy, 2, 20, ""}},
	}
	for _, s := range steps {
		res := health(s.key, s.status).run(t, env)
		if diff := cmp.Diff(s.want, readRateHeaders(t, res.header, "per-credential")); diff != "" {
			t.Errorf("%s: rate headers mismatch (-want +got):\n%s", s.name, diff)
		}
	}

	advance(15 * time.Second)
	res := health(key, http.StatusTooManyRequests).run(t, env)
	if diff := cmp.Diff(rateHeaders{policy, 0, 45, "5"}, readRateHeaders(t, res.header, "per-credential")); diff != "" {
		t.Errorf("15 s later: rate headers mismatch (-want +got):\n%s", diff)
	}
	advance(5 * time.Second)
	res = health(key, http.StatusOK).run(t, env)
	if diff := cmp.Diff(rateHeaders{policy, 0, 60, ""}, readRateHeaders(t, res.header, "per-credential")); diff != "" {
		t.Errorf("20 s later: rate headers mismatch (-want +got):\n%s", diff)
	}
}

func TestRateLimitCountsTheUserForJWT(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.RateLimit = Rate{Count: 1, Window: time.Hour, Burst: 1} })
	env.srv.keyLimiter.now, _ = frozenClock()
	u := env.createUser(finance.PlanFree)
	token := env.login(u)
	health := apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(token)}
	first, second := health, health
	first.wantStatus = http.StatusOK
	second.wantStatus, second.wantCode = http.StatusTooManyRequests, CodeRateLimitExceeded
	first.run(t, env)
	res := second.run(t, env)
	if got := res.header.Get("Retry-After"); got != "3600" {
		t.Errorf("Retry-After = %q, want 3600", got)
	}
}

func TestRateLimitNotCountedForRejectedCredentials(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.RateLimit = Rate{Count: 1, Window: time.Hour, Burst: 1} })
	env.srv.keyLimiter.now, _ = frozenClock()
	free := env.createUser(finance.PlanFree)
	freeKey := env.createKey(free.ID, auth.ScopeRead)
	for range 3 {
		apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(freeKey),
			wantStatus: http.StatusPaymentRequired, wantCode: CodeSubscriptionRequired,
			noHeaders: []string{"RateLimit", "RateLimit-Policy", "Retry-After"}}.run(t, env)
	}
}

func TestRateLimitBurstDefaultsToCount(t *testing.T) {
	// A Rate written without Burst means "Count per Window", not "nothing".
	env := newTestEnv(t, func(c *Config) { c.RateLimit = Rate{Count: 2, Window: time.Minute} })
	env.srv.keyLimiter.now, _ = frozenClock()
	key := env.createKey(env.createUser(finance.PlanPro).ID, auth.ScopeRead)
	health := apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(key), wantStatus: http.StatusOK}
	health.run(t, env)
	health.run(t, env)
	health.wantStatus, health.wantCode = http.StatusTooManyRequests, CodeRateLimitExceeded
	health.run(t, env)
}

func TestNoRateLimitHeadersWhenUnlimited(t *testing.T) {
	env := newTestEnv(t)
	key := env.createKey(env.createUser(finance.PlanPro).ID, auth.ScopeRead)
	for range 5 {
		apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(key), wantStatus: http.StatusOK,
			noHeaders: []string{"RateLimit", "RateLimit-Policy", "Retry-After"}}.run(t, env)
	}
}

func TestLoginRateLimitPerIP(t *testing.T) {
	env := newTestEnv(t, func(c *Config) {
		c.LoginRateLimit = Rate{Count: 2, Window: time.Minute, Burst: 2}
		c.TrustProxy = true
	})
	env.srv.loginLimiter.now, _ = frozenClock()
	u := env.createUser(finance.PlanPro)
	good := `{"email":"` + u.Email + `","password":"` + testkit.Password + `"}`
	bad := `{"email":"` + u.Email + `","password":"wrong password"}`
	login := func(name, body, remote string, headers map[string]string, status int) apiScenario {
		sc := apiScenario{name: name, method: http.MethodPost, url: "/api/v1/auth/login", body: body,
			remoteAddr: remote, headers: headers, wantStatus: status}
		switch status {
		case http.StatusTooManyRequests:
			sc.wantCode = CodeRateLimitExceeded
			sc.check = func(t testing.TB, res apiResult) {
				got := readRateHeaders(t, res.header, "per-ip")
				if got.Remaining != 0 || got.RetryAfter != "30" {
					t.Errorf("refused login: remaining %d, Retry-After %q; want 0, 30", got.Remaining, got.RetryAfter)
				}
			}
		case http.StatusUnauthorized:
			sc.wantCode = CodeUnauthorized
		}
		return sc
	}
	// The trusted proxy (10.0.0.1) appends the client it saw; whatever the
	// client put first is ignored, so forging it buys no fresh bucket.
	forged := 0
	xff := func(ip string) map[string]string {
		forged++
		return map[string]string{"X-Forwarded-For": fmt.Sprintf("192.0.2.%d, %s", forged, ip)}
	}
	runScenarios(t, env, []apiScenario{
		login("first attempt", bad, "198.51.100.7:4000", nil, http.StatusUnauthorized),
		login("second attempt from another port", bad, "198.51.100.7:4001", nil, http.StatusUnauthorized),
		login("third attempt is refused even with the right password", good, "198.51.100.7:4002", nil, http.StatusTooManyRequests),
		login("another IP is unaffected", good, "198.51.100.8:4000", nil, http.StatusOK),
		login("forwarded client has its own bucket", bad, "10.0.0.1:5000", xff("203.0.113.9"), http.StatusUnauthorized),
		login("forwarded client again", bad, "10.0.0.1:5001", xff("203.0.113.9"), http.StatusUnauthorized),
		login("forwarded client refused", good, "10.0.0.1:5002", xff("203.0.113.9"), http.StatusTooManyRequests),
	})
}

func TestLoginIgnoresForwardedForUnlessTrusted(t *testing.T) {
	env := newTestEnv(t, func(c *Config) { c.LoginRateLimit = Rate{Count: 1, Window: time.Minute, Burst: 1} })
	env.srv.loginLimiter.now, _ = frozenClock()
	bad := `{"email":"nobody@example.com","password":"wrong password"}`
	apiScenario{method: http.MethodPost, url: "/api/v1/auth/login", body: bad,
		headers: map[string]string{"X-Forwarded-For": "203.0.113.1"}, wantStatus: http.StatusUnauthorized}.run(t, env)
	// A spoofed X-Forwarded-For does not buy a fresh bucket.
	apiScenario{method: http.MethodPost, url: "/api/v1/auth/login", body: bad,
		headers: map[string]string{"X-Forwarded-For": "203.0.113.2"}, wantStatus: http.StatusTooManyRequests,
		wantCode: CodeRateLimitExceeded}.run(t, env)
}

func TestParseRate(t *testing.T) {
	for _, tc := range []struct {
		in      string
		burst   int
		want    Rate
		wantErr bool
	}{
		{"120/min", 0, Rate{120, time.Minute, 120}, false},
		{"5/s", 10, Rate{5, time.Second, 10}, false},
		{" 1000/H ", 0, Rate{1000, time.Hour, 1000}, false},
		{"off", 0, Rate{}, false},
		{"0", 0, Rate{}, false},
		{"", 0, Rate{}, false},
		{"10", 0, Rate{}, true},
		{"-1/min", 0, Rate{}, true},
		{"x/min", 0, Rate{}, true},
		{"10/day", 0, Rate{}, true},
		{"10/min", -1, Rate{}, true},
	} {
		got, err := ParseRate(tc.in, tc.burst)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseRate(%q, %d) error = %v, want error %v", tc.in, tc.burst, err, tc.wantErr)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("ParseRate(%q, %d) mismatch (-want +got):\n%s", tc.in, tc.burst, diff)
		}
	}
}

// TestGuessesInFlightHoldTheirToken: guesses admitted and still being
// checked hold a token each, so guesses sent at once cannot all pass a
// bucket with fewer tokens left; only a wrong one spends its token.
func TestGuessesInFlightHoldTheirToken(t *testing.T) {
	l := newLimiter("password", Rate{Count: 2, Window: time.Hour, Burst: 2})
	now, advance := frozenClock()
	l.now = now
	admit := func(name string, want bool, keys ...string) func(bool) {
		t.Helper()
		d, done := l.admit(keys...)
		if d.allowed != want {
			t.Fatalf("%s: allowed = %v, want %v", name, d.allowed, want)
		}
		return done
	}
	first := admit("first guess", true, "user:a", "ip:1")
	second := admit("second guess, while the first is checked", true, "user:a", "ip:2")
	admit("third guess, while both are checked", false, "user:a", "ip:3")
	first(false) // the right password: its token comes back
	second(true) // a wrong one: spent
	third := admit("third guess, after one right and one wrong", true, "user:a", "ip:3")
	third(true)
	d, _ := l.admit("user:a", "ip:4")
	if d.allowed || d.retryAfter != 30*time.Minute {
		t.Errorf("after two wrong guesses: %+v, want refused for 30 minutes", d)
	}
	// The address of a wrong guess is spent as well, for any user.
	admit("ip:2 for another user", true, "user:b", "ip:2")(true)
	if d, _ := l.admit("user:c", "ip:2"); d.allowed || d.retryAfter != 30*time.Minute {
		t.Errorf("ip:2 after two wrong guesses: %+v, want refused for 30 minutes", d)
	}
	advance(30 * time.Minute)
	admit("half an hour later", true, "user:a", "ip:4")
}
