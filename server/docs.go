package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

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
		if gz, err := fs.ReadFile(assets.Docs, name+".gz"); err == nil {
			serveGzipped(w, r.Request, name, gz)
			return nil
		}
		return httperr.RouteNotFound(r.Request)
	}
	w.Header().Set("Content-Security-Policy", docsCSP)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeFileFS(w, r.Request, assets.Docs, name)
	return nil
}

// serveGzipped serves name, embedded gzipped as gz (Swagger UI's script and
// stylesheet, 1.9 MB as they are and 0.5 MB gzipped, most of the binary's
// embedded bytes): as it is to a client that takes gzip, which every browser
// does, and unpacked to any other.
func serveGzipped(w http.ResponseWriter, r *http.Request, name string, gz []byte) {
	h := w.Header()
	h.Set("Content-Security-Policy", docsCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Type", mime.TypeByExtension(path.Ext(name)))
	h.Add("Vary", "Accept-Encoding")
	if acceptsGzip(r) {
		h.Set("Content-Encoding", "gzip")
		h.Set("Content-Length", strconv.Itoa(len(gz)))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			_, _ = w.Write(gz)
		}
		return
	}
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		http.Error(w, "the file cannot be read", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = io.Copy(w, zr)
	}
}

// acceptsGzip reports whether r's Accept-Encoding takes gzip (with a
// quality above 0).
func acceptsGzip(r *http.Request) bool {
	for _, v := range r.Header.Values("Accept-Encoding") {
		for part := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
			if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
				continue
			}
			q := strings.ReplaceAll(params, " ", "")
			return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
		}
	}
	return false
}
