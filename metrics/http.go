package metrics

import (
	"maps"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// UnmatchedRoute is the route label of a request no route answered (an
// unknown path): one series for all of them, whatever the paths. Every
// route pattern starts with a slash, so it cannot be taken for one.
const UnmatchedRoute = "unmatched"

// seriesKey names the series of one request: its route pattern, its
// method (one of methodLabel's) and its status code.
type seriesKey struct {
	route, method string
	code          int
}

// requestSeries are the counter and histogram of one seriesKey.
type requestSeries struct {
	count prometheus.Counter
	took  prometheus.Observer
}

// Request counts one answered request and its duration
// (server.RequestObserver). route is the pattern of the route that answered
// it (/api/v1/expenses/:id), empty when none did.
func (m *Metrics) Request(route, method string, status int, took time.Duration) {
	if m == nil {
		return
	}
	if route == "" {
		route = UnmatchedRoute
	}
	s := m.series(seriesKey{route: route, method: methodLabel(method), code: status})
	s.count.Inc()
	s.took.Observe(took.Seconds())
}

// series returns the series of k. The vectors' WithLabelValues hashes the
// label values and takes a read lock on every call, and allocates its
// variadic argument; a request instead reads an immutable map through one
// atomic load, and only the first request of a route, method and status
// takes the lock to add its series (copying the map: a server meets a few
// hundred of them).
func (m *Metrics) series(k seriesKey) requestSeries {
	if s, ok := (*m.seen.Load())[k]; ok {
		return s
	}
	m.seenAdd.Lock()
	defer m.seenAdd.Unlock()
	seen := *m.seen.Load()
	if s, ok := seen[k]; ok {
		return s
	}
	s := requestSeries{
		count: m.requests.WithLabelValues(k.route, k.method, strconv.Itoa(k.code)),
		took:  m.requestDuration.WithLabelValues(k.route, k.method, statusClass(k.code)),
	}
	next := make(map[seriesKey]requestSeries, len(seen)+1)
	maps.Copy(next, seen)
	next[k] = s
	m.seen.Store(&next)
	return s
}

// methodLabel is the method's label: the method itself for the standard
// ones, OTHER for anything else a client sends, so that made-up methods
// cannot add series.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "OTHER"
}

// statusClass is the status code's class: 2xx, 4xx, 5xx and so on.
func statusClass(code int) string {
	if code >= 100 && code < 600 {
		return strconv.Itoa(code/100) + "xx"
	}
	return "other"
}

// ServeLoopback serves the metrics at Path to clients on this machine and
// passes every other request to next, /metrics from anyone else included:
// to them the path does not exist, and next answers it as it answers any
// unknown path (404). It is how the metrics share the service's listener.
func (m *Metrics) ServeLoopback(next http.Handler) http.Handler {
	metrics := m.Handler()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == Path && (r.Method == http.MethodGet || r.Method == http.MethodHead) && FromLoopback(r) {
			metrics.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// FromLoopback reports whether r comes straight from a client on this
// machine: its peer is a loopback address and no proxy forwarded it. A
// reverse proxy on the same machine connects from 127.0.0.1 on behalf of
// clients anywhere, so a request carrying a forwarding header
// (X-Forwarded-For, Forwarded, X-Real-IP) is never taken as local, whatever
// its peer and whatever the header says: a header can only take access
// away, never grant it.
func FromLoopback(r *http.Request) bool {
	for _, h := range []string{"X-Forwarded-For", "Forwarded", "X-Real-Ip"} {
		if _, ok := r.Header[h]; ok {
			return false
		}
	}
	peer, err := netip.ParseAddrPort(r.RemoteAddr)
	return err == nil && peer.Addr().Unmap().IsLoopback()
}
