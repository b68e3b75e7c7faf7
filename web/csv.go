package web

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"strings"
)

// writeCSV answers with a CSV download named filename (a plain name such
// as "expenses-2025-03-01-to-2025-03-31.csv"): the header, then the rows.
// Cells are already formatted text; amounts are plain decimal strings
// ("1234.50", from finance.Money's String), never floats. A cell a
// spreadsheet would read as a formula gets a leading single quote (OWASP,
// CSV injection), so an expense described as "=HYPERLINK(...)" stays text.
// Lines end in LF: Go's writer drops a lone CR inside a cell when it writes
// CRLF line ends, and every spreadsheet reads LF. The file is built in
// memory first, so a failure is a clean error rather than half a file.
func writeCSV(w http.ResponseWriter, r *http.Request, filename string, header []string, rows [][]string) error {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	if err := cw.Write(csvCells(header)); err != nil {
		return err
	}
	for _, row := range rows {
		if err := cw.Write(csvCells(row)); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	setPageHeaders(w.Header(), "")
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="`+csvFilename(filename)+`"`)
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
	return nil
}

// csvCells neutralizes the cells of one row that a spreadsheet would run as
// a formula: those starting with = + - @, a tab or a carriage return.
func csvCells(row []string) []string {
	out := make([]string, len(row))
	for i, c := range row {
		if c != "" && strings.ContainsRune("=+-@\t\r", rune(c[0])) && !plainNumber(c) {
			c = "'" + c
		}
		out[i] = c
	}
	return out
}

// plainNumber reports whether c is a signed decimal such as "-12.50", which
// a spreadsheet reads as a number, not a formula: a negative amount or net
// keeps its sign.
func plainNumber(c string) bool {
	digits := strings.TrimPrefix(c, "-")
	if digits == "" || digits == c {
		return false
	}
	whole, frac, _ := strings.Cut(digits, ".")
	return whole != "" && allDigits(whole) && allDigits(frac)
}

func allDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// csvFilename keeps the characters of name that are safe in a header's
// quoted filename, replacing any other with "-".
func csvFilename(name string) string {
	return strings.Map(func(c rune) rune {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '_' {
			return c
		}
		return '-'
	}, name)
}
