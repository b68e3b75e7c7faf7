package server

import (
	"net/http"
	"time"
)

// RequestObserver is told of every request the server answered (the
// service's metrics): the pattern of the route that answered it, empty when
// none did (an unknown path), its method, status and duration.
type RequestObserver interface {
	Request(route, method string, status int, took time.Duration)
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
