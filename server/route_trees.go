package server

import (
	"net/http"
	"strings"

	"github.com/uptrace/bunrouter"
)

// routeTrees are the server's two route trees: the one of paths under /api/
// (the REST API, its documentation, OAuth's API endpoints) and the one of
// every other path (pages, health, OAuth's pages and metadata). bunrouter
// indexes its whole tree again after each route it adds, so building one
// tree takes time that grows with the square of its routes; two trees of
// about half the routes each take half as long at start-up. A path is in
// exactly one tree, so routing, redirects, 404 and 405 answers are the same
// as one tree's.
type routeTrees struct{ api, other *bunrouter.Router }

func newRouteTrees(opts ...bunrouter.Option) routeTrees {
	return routeTrees{api: bunrouter.New(opts...), other: bunrouter.New(opts...)}
}

// of is the tree that holds path.
func (rs routeTrees) of(path string) *bunrouter.Router {
	if strings.HasPrefix(path, "/api/") {
		return rs.api
	}
	return rs.other
}

func (rs routeTrees) Handle(method, path string, h bunrouter.HandlerFunc) {
	rs.of(path).Handle(method, path, h)
}

// ServeHTTP routes r in its path's tree; the path is the one bunrouter
// matches (the escaped form, when the URL has one).
func (rs routeTrees) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	rs.of(path).ServeHTTP(w, r)
}
