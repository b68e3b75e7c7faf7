package server

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Rate is a token-bucket rate: Count requests per Window on average, with
// bursts of up to Burst (Count when Burst is 0). The zero Rate means unlimited.
type Rate struct {
	Count  int
	Window time.Duration
	Burst  int
}

// Unlimited reports whether r imposes no limit.
func (r Rate) Unlimited() bool { return r.Count <= 0 }

func (r Rate) String() string {
	if r.Unlimited() {
		return "off"
	}
	return fmt.Sprintf("%d/%s burst %d", r.Count, windowName(r.Window), r.Burst)
}

func windowName(d time.Duration) string {
	switch d {
	case time.Second:
		return "s"
	case time.Minute:
		return "min"
	case time.Hour:
		return "h"
	}
	return d.String()
}

// ParseRate reads "120/min", "5/s", "1000/h" or "off". burst 0 defaults to Count.
func ParseRate(s string, burst int) (Rate, error) {
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "off" || s == "0" || s == "" {
		return Rate{}, nil
	}
	n, unit, ok := strings.Cut(s, "/")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count <= 0 {
		return Rate{}, fmt.Errorf("rate %q: want N/s, N/min, N/h or off", s)
	}
	var w time.Duration
	switch unit {
	case "s", "sec", "second":
		w = time.Second
	case "m", "min", "minute":
		w = time.Minute
	case "h", "hour":
		w = time.Hour
	default:
		return Rate{}, fmt.Errorf("rate %q: unit must be s, min or h", s)
	}
	if burst < 0 {
		return Rate{}, fmt.Errorf("burst %d: must not be negative", burst)
	}
	if burst == 0 {
		burst = count
	}
	return Rate{Count: count, Window: w, Burst: burst}, nil
}

// limiter keeps one token bucket per key (a credential or a client IP).
// Buckets idle long enough to be full again are dropped, so memory stays
// proportional to the number of recently active callers.
type limiter struct {
	name  string // the policy name in RateLimit headers
	rate  Rate
	now   func() time.Time
	mu    sync.Mutex
	byKey map[string]*bucket
	swept time.Time
	// policy is the RateLimit-Policy header's value, made once.
	policy     []string
	policyOnce sync.Once
	// checking counts, per key, the guesses admitted and not yet done (see admit).
	checking map[string]int
}

type bucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func newLimiter(name string, r Rate) *limiter {
	if r.Burst <= 0 {
		// As in ParseRate: a Rate built without Burst means bursts of Count.
		// A bucket of size 0 would refuse every request.
		r.Burst = r.Count
	}
	return &limiter{name: name, rate: r, now: time.Now, byKey: map[string]*bucket{}, checking: map[string]int{}}
}

// decision is the outcome of one request against a bucket.
type decision struct {
	allowed    bool
	remaining  int
	retryAfter time.Duration // until one token is available, when refused
	reset      time.Duration // until the bucket is full again
}

func (l *limiter) take(key string) decision { return l.takeN(key, 1) }

// takeN takes n tokens at once (a weighted call). A call heavier than the
// whole burst can never pass; it is refused like any other over the limit.
func (l *limiter) takeN(key string, n int) decision {
	if l == nil || l.rate.Unlimited() {
		return decision{allowed: true}
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.bucket(key, now)
	allowed := b.lim.AllowN(now, n)
	return l.decide(allowed, b.lim.TokensAt(now), n)
}

// peekN tells whether n tokens are there, taking none: a request that will
// take them once it is known to be valid is refused early when they are not.
func (l *limiter) peekN(key string, n int) decision {
	if l == nil || l.rate.Unlimited() {
		return decision{allowed: true}
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	tokens := l.bucket(key, now).lim.TokensAt(now)
	return l.decide(tokens >= float64(n), tokens, n)
}

// bucket returns key's bucket, made full when there is none. l.mu is held.
func (l *limiter) bucket(key string, now time.Time) *bucket {
	if now.Sub(l.swept) > time.Minute {
		l.sweep(now)
	}
	b := l.byKey[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(rate.Every(l.perToken()), l.rate.Burst)}
		l.byKey[key] = b
	}
	b.seen = now
	return b
}

// perToken is how long one token takes to come back.
func (l *limiter) perToken() time.Duration { return l.rate.Window / time.Duration(l.rate.Count) }

// decide describes a bucket left with tokens after a call of weight n.
func (l *limiter) decide(allowed bool, tokens float64, n int) decision {
	d := decision{allowed: allowed, remaining: max(0, int(math.Floor(tokens)))}
	if !allowed {
		d.retryAfter = time.Duration((float64(n) - tokens) * float64(l.perToken()))
	}
	d.reset = time.Duration((float64(l.rate.Burst) - tokens) * float64(l.perToken()))
	return d
}

// admit lets one guess of a secret through (a current password checked
// before it is changed) when every key still has a token for it, besides
// the tokens of the guesses admitted before and still being checked; it
// takes nothing yet. The caller reports the outcome with done: only a
// wrong guess takes its token, from every key. Counting the guesses in
// flight means that many guesses sent at once cannot all pass a bucket
// with one token left. A refusal describes the key that waits longest.
func (l *limiter) admit(keys ...string) (d decision, done func(wrong bool)) {
	if l == nil || l.rate.Unlimited() {
		return decision{allowed: true}, func(bool) {}
	}
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	d = decision{allowed: true}
	for _, k := range keys {
		free := l.bucket(k, now).lim.TokensAt(now) - float64(l.checking[k])
		if kd := l.decide(free >= 1, free, 1); !kd.allowed && (d.allowed || kd.retryAfter > d.retryAfter) {
			d = kd
		}
	}
	if !d.allowed {
		return d, func(bool) {}
	}
	for _, k := range keys {
		l.checking[k]++
	}
	return d, func(wrong bool) {
		now := l.now()
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, k := range keys {
			if l.checking[k]--; l.checking[k] <= 0 {
				delete(l.checking, k)
			}
			if wrong {
				l.bucket(k, now).lim.AllowN(now, 1)
			}
		}
	}
}

// sweep drops buckets that have refilled completely; they would behave
// exactly like new ones. A bucket with a guess being checked stays.
func (l *limiter) sweep(now time.Time) {
	full := time.Duration(l.rate.Burst) * l.perToken()
	for k, b := range l.byKey {
		if now.Sub(b.seen) > full && l.checking[k] == 0 {
			delete(l.byKey, k)
		}
	}
	l.swept = now
}

// setHeaders writes the RateLimit-Policy and RateLimit fields of the IETF
// httpapi rate-limit headers draft, and Retry-After on refusal.
func (l *limiter) setHeaders(h http.Header, d decision) {
	if l == nil || l.rate.Unlimited() {
		return
	}
	// The policy is the limiter's for its life: one value for every response.
	l.policyOnce.Do(func() {
		l.policy = []string{fmt.Sprintf(`"%s";q=%d;w=%d`, l.name, l.rate.Count, int(l.rate.Window.Seconds()))}
	})
	h["Ratelimit-Policy"] = l.policy
	var buf [64]byte
	v := append(buf[:0], '"')
	v = append(v, l.name...)
	v = append(v, `";r=`...)
	v = strconv.AppendInt(v, int64(d.remaining), 10)
	v = append(v, ";t="...)
	v = strconv.AppendInt(v, int64(ceilSeconds(d.reset)), 10)
	h["Ratelimit"] = []string{string(v)}
	if !d.allowed {
		h.Set("Retry-After", strconv.Itoa(max(1, ceilSeconds(d.retryAfter))))
	}
}

func ceilSeconds(d time.Duration) int {
	return int(math.Ceil(d.Seconds()))
}
