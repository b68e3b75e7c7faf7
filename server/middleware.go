package server

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/finance-app/finance/auth"
)

// requestKey holds the request's requestInfo in its context.
type requestKey struct{}

// requestInfo is what the outer layer knows of every request.
type requestInfo struct {
	id    string    // X-Request-Id
	start time.Time // when the request reached the server
	// For the access log, set by the first route that serves the request
	// (an MCP tool's in-process call to a REST route leaves the outer
	// request's): its pattern, and the kind of credential that
	// authenticated it (auth.Method), never the credential.
	route, credential string
}

// noteRoute records the route serving the request and how it was
// authenticated, unless an outer route of the same request already did.
func noteRoute(ctx context.Context, route string, credential auth.Method) {
	info, _ := ctx.Value(requestKey{}).(*requestInfo)
	if info == nil {
		return
	}
	if info.route == "" {
		info.route = route
	}
	if info.credential == "" {
		info.credential = string(credential)
	}
}

func requestIDFrom(ctx context.Context) string {
	info, _ := ctx.Value(requestKey{}).(*requestInfo)
	if info == nil {
		return ""
	}
	return info.id
}

// requestStart is when the request reached the server (zero outside a request).
func requestStart(ctx context.Context) time.Time {
	info, _ := ctx.Value(requestKey{}).(*requestInfo)
	if info == nil {
		return time.Time{}
	}
	return info.start
}

// validRequestID accepts a client's X-Request-Id only when it is short and
// plain, so it can be logged and echoed safely.
func validRequestID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// requestState is what outer allocates per request, in one piece.
type requestState struct {
	info    requestInfo
	rec     statusRecorder
	idValue [1]string // the X-Request-Id header's value
}

// requestIDGen makes the ids of requests that bring none of their own.
var requestIDGen = newRequestIDs()

// Header values the same for every response. net/http and the handlers
// only replace a header's value slice (Set, or a map assignment), never
// write into it, so one slice serves every response; Add appends to a
// full slice, which copies it.
var (
	headerNosniff = []string{"nosniff"}
	headerJSON    = []string{"application/json; charset=utf-8"}
	headerNoStore = []string{"no-store"}
)

// statusRecorder remembers the status and size for the access log. It
// deliberately does not implement http.Flusher: every response here is one
// JSON document (and the MCP transport relies on that to answer in JSON).
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

// SetWriteDeadline lets a long route extend its deadline
// (http.ResponseController) without the recorder unwrapping to a Flusher.
func (r *statusRecorder) SetWriteDeadline(t time.Time) error {
	return http.NewResponseController(r.ResponseWriter).SetWriteDeadline(t)
}

func (r *statusRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// outer wraps the router with what every request gets, in this order:
// request id, panic recovery, access log, and the path guard.
func (s *Server) outer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := r.Header.Get("X-Request-Id")
		if !validRequestID(id) {
			id = requestIDGen.next(start)
		}
		// One allocation holds what the request's layers share: its
		// id and route for the log, its status, and the header value.
		st := &requestState{info: requestInfo{id: id, start: start}, idValue: [1]string{id}}
		h := w.Header()
		h["X-Request-Id"] = st.idValue[:]
		// Every answer is JSON, YAML, a page or a static file with its
		// declared type; no browser may guess another (a JSON error read as
		// HTML, say).
		h["X-Content-Type-Options"] = headerNosniff
		info := &st.info
		r = r.WithContext(context.WithValue(r.Context(), requestKey{}, info))

		rec := &st.rec
		rec.ResponseWriter = w
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.ErrorContext(r.Context(), "panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if rec.status == 0 {
					s.writeError(rec, r, fmt.Errorf("panic: %v", v))
				}
			}
			if s.cfg.AccessLog {
				// The path, not the URL: a query string may carry a code or a
				// token (OAuth's authorize, the setup link). Paths hold ids only.
				attrs := []any{"method", r.Method, "path", r.URL.Path}
				if info.route != "" {
					attrs = append(attrs, "route", info.route)
				}
				attrs = append(attrs, "status", rec.status, "bytes", rec.bytes, "duration_ms", time.Since(start).Milliseconds())
				if info.credential != "" {
					attrs = append(attrs, "credential", info.credential)
				}
				s.log.InfoContext(r.Context(), "request", attrs...)
			}
			s.observe(r, info, rec.status)
		}()
		// bunrouter answers a path with a trailing slash or unclean segments
		// with a 301 redirect, and has no option to turn it off
		// (uptrace/bunrouter router.go, Router.redir). A redirected POST loses
		// its body in most clients, so such paths are refused here as unknown.
		// No route has a NUL in its path, and bunrouter panics on one at the
		// end of a path parameter (node._findRoute indexes an empty table):
		// refused here as unknown.
		if strings.ContainsRune(r.URL.Path, 0) {
			s.routeNotFound(rec, r)
			return
		}
		if p := r.URL.Path; p != "/" && (strings.HasSuffix(p, "/") || path.Clean(p) != p) {
			// The documentation page is typed by people, often with a slash.
			if p == DocsPath+"/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
				http.Redirect(rec, r, DocsPath, http.StatusMovedPermanently)
				return
			}
			s.routeNotFound(rec, r)
			return
		}
		if s.mcpCORS(rec, r) {
			return
		}
		next.ServeHTTP(rec, r)
	})
}
