package server

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestDocsAssetsGzipped: Swagger UI's script and stylesheet are embedded
// gzipped; a browser gets them so, any other client unpacked, both with
// their type, and the docs page links both.
func TestDocsAssetsGzipped(t *testing.T) {
	env := newTestEnv(t)
	get := func(target, acceptEncoding string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		if acceptEncoding != "" {
			req.Header.Set("Accept-Encoding", acceptEncoding)
		}
		rec := httptest.NewRecorder()
		env.srv.Handler().ServeHTTP(rec, req)
		return rec
	}
	page := get(DocsPath, "")
	if page.Code != http.StatusOK {
		t.Fatalf("GET %s: %d", DocsPath, page.Code)
	}
	for _, c := range []struct{ file, contentType, starts string }{
		{"swagger-ui-bundle.js", "text/javascript; charset=utf-8", "/*! For license information"},
		{"swagger-ui.css", "text/css; charset=utf-8", ".swagger-ui"},
	} {
		target := DocsPath + "/" + c.file
		if !strings.Contains(page.Body.String(), `"`+target+`"`) {
			t.Errorf("the docs page does not link %s", target)
		}
		for _, ae := range []string{"gzip, deflate, br", "", "gzip;q=0", "br"} {
			rec := get(target, ae)
			gzipped := ae == "gzip, deflate, br"
			body := rec.Body.Bytes()
			if gzipped {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatalf("%s with Accept-Encoding %q: not gzip: %v", c.file, ae, err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatal(err)
				}
			}
			wantEncoding := map[bool]string{true: "gzip", false: ""}[gzipped]
			if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != c.contentType ||
				rec.Header().Get("Content-Encoding") != wantEncoding || rec.Header().Get("Vary") != "Accept-Encoding" ||
				!bytes.HasPrefix(body, []byte(c.starts)) || len(body) < 20000 {
				t.Errorf("%s with Accept-Encoding %q: %d, type %q, encoding %q, vary %q, %d bytes starting %.40q",
					c.file, ae, rec.Code, rec.Header().Get("Content-Type"), rec.Header().Get("Content-Encoding"),
					rec.Header().Get("Vary"), len(body), body)
			}
		}
	}
	if rec := get(DocsPath+"/nope.js", "gzip"); rec.Code != http.StatusNotFound {
		t.Errorf("a file not embedded: %d, want 404", rec.Code)
	}
}
