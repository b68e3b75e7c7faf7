package server

import (
	"io/fs"
	"net/http"
	"path"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/httperr"

	assets "github.com/finance-app/finance/embed"
)

// The documentation lives beside the API: the raw contract and an
// interactive page that renders it. Both are embedded; nothing comes from a CDN.
const (
	OpenAPIPath = "/api/openapi.yaml"
	DocsPath    = httperr.DocsPath
)

func (s *Server) registerDocsRoutes() {
	s.handle(http.MethodGet, OpenAPIPath, auth.Public, s.openAPI)
	s.page(http.MethodGet, DocsPath, s.docsPage)
	s.page(http.MethodGet, DocsPath+"/:file", s.docsAsset)
}

func (s *Server) openAPI(w http.ResponseWriter, _ bunrouter.Request) error {
	w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(assets.OpenAPI)
	return nil
}

// docsCSP allows only this origin's scripts and styles. Swagger UI sets inline
// styles on elements, hence 'unsafe-inline' for styles only.
const docsCSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'"

func (s *Server) docsPage(w http.ResponseWriter, r bunrouter.Request) error {
	return serveEmbedded(w, r, "docs/index.html")
}

func (s *Server) docsAsset(w http.ResponseWriter, r bunrouter.Request) error {
	return serveEmbedded(w, r, "docs/"+path.Base(r.Param("file")))
}

func serveEmbedded(w http.ResponseWriter, r bunrouter.Request, name string) error {
	if _, err := fs.Stat(assets.Docs, name); err != nil {
		return httperr.RouteNotFound(r.Request)
	}
	w.Header().Set("Content-Security-Policy", docsCSP)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeFileFS(w, r.Request, assets.Docs, name)
	return nil
}
