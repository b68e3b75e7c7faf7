package server

import (
	"context"
	"net/http"
	"time"
)

// RequestObserver is told of every request the server answered (the
// service's metrics): the pattern of the route that answered it, empty when
// none did (an unknown path), its method, status and duration.
type RequestObserver interface {
	Request(route, method string, status int, took time.Duration)
}

// setRoute notes the pattern of the route serving the request in its
// requestInfo, for the metrics. The first route wins: an MCP tool's
// in-process call to a REST route is part of the /api/mcp request that
// made it, and counts as that.
func setRoute(ctx context.Context, pattern string) {
	if info, _ := ctx.Value(requestKey{}).(*requestInfo); info != nil && info.route == "" {
		info.route = pattern
	}
}

// observe reports the answered request to the configured observer.
func (s *Server) observe(r *http.Request, info *requestInfo, status int) {
	if s.cfg.Requests == nil {
		return
	}
	if status == 0 {
		status = http.StatusOK // what net/http sent for a handler that wrote nothing
	}
	s.cfg.Requests.Request(info.route, r.Method, status, time.Since(info.start))
}
