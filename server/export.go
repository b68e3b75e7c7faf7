package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Exporter writes every record of a user as one export document, or as a
// zip of one CSV file per kind of record (docs/domain.md "Export and restore").
type Exporter interface {
	Export(ctx context.Context, userID string, exportedAt time.Time, w io.Writer) error
	ExportCSV(ctx context.Context, userID string, exportedAt time.Time, w io.Writer) error
}

// exportFormat is one way GET /export writes the user's records.
type exportFormat struct {
	contentType, extension string
	write                  func(Exporter, context.Context, string, time.Time, io.Writer) error
}

// exportFormats are the formats by the name the format parameter gives.
var exportFormats = map[string]exportFormat{
	"json": {"application/json", "json", Exporter.Export},
	"csv":  {"application/zip", "zip", Exporter.ExportCSV},
}

func (s *Server) registerExportRoutes() {
	// finance:read alone: the document spans every domain, so no domain's
	// write scope reaches it (as with the dashboard and reports).
	s.heavy(http.MethodGet, "/api/v1/export", auth.ReportsRead, s.export, "format")
}

// export streams the user's export document, or the zip of CSV files, as a
// download. It is the file itself, not the envelope: what a person keeps or
// restores.
func (s *Server) export(w http.ResponseWriter, r bunrouter.Request) error {
	name := r.URL.Query().Get("format")
	if name == "" {
		name = "json"
	}
	format, ok := exportFormats[name]
	if !ok {
		return finance.Invalid("format", "must be json or csv")
	}
	// What is due is generated first, so the document holds what the
	// user's lists show now.
	s.generateDue(r.Context(), userID(r), true, true)
	at := s.ledger.Now()
	h := w.Header()
	h.Set("Content-Type", format.contentType)
	h.Set("Content-Disposition", fmt.Sprintf(`attachment; filename="finance-export-%s.%s"`,
		at.UTC().Format("2006-01-02"), format.extension))
	h.Set("Cache-Control", "no-store")
	out := &startedWriter{w: w}
	if err := format.write(s.db, r.Context(), userID(r), at, out); err != nil {
		if !out.started {
			h.Del("Content-Disposition")
			return err
		}
		// Part of the document is on the wire under a 200: cut the
		// connection so the client sees a failed download, not a short file.
		s.log.ErrorContext(r.Context(), "export failed while streaming", "error", err)
		panic(http.ErrAbortHandler)
	}
	return nil
}

// startedWriter records whether anything was written.
type startedWriter struct {
	w       io.Writer
	started bool
}

func (s *startedWriter) Write(p []byte) (int, error) {
	s.started = true
	return s.w.Write(p)
}
