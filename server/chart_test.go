package server

import (
	"encoding/xml"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

func TestBarChart(t *testing.T) {
	svg := string(barChart("Spending <March>", []chartBar{
		{Label: "Food & Dining", Value: 40000, Text: "₱400.00"},
		{Label: "Transport", Value: 10000, Text: "₱100.00"},
		{Label: "A category with a rather long name indeed", Value: 1, Text: "₱0.01"},
	}))

	// Well-formed XML: every label is escaped.
	dec := xml.NewDecoder(strings.NewReader(svg))
	var texts []string
	var widths []string
	var root xml.StartElement
	inText := false
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() != "EOF" {
				t.Fatalf("the SVG is not well-formed XML: %v\n%s", err, svg)
			}
			break
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root.Name.Local == "" {
				root = el
			}
			inText = el.Name.Local == "text"
			if el.Name.Local == "rect" && attr(el, "class") == "bar" {
				widths = append(widths, attr(el, "width"))
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root.Name.Local != "svg" || attr(root, "role") != "img" || attr(root, "viewBox") != "0 0 320 120" {
		t.Errorf("root = %+v; want an svg with role=img and a viewBox of three rows", root)
	}
	wantLabel := "Spending <March>: Food & Dining ₱400.00, Transport ₱100.00, A category with a rather long name indeed ₱0.01"
	if got := attr(root, "aria-label"); got != wantLabel {
		t.Errorf("aria-label = %q, want %q", got, wantLabel)
	}
	wantTexts := []string{"Food & Dining", "₱400.00", "Transport", "₱100.00", "A category with a rather long…", "₱0.01"}
	if diff := cmp.Diff(wantTexts, texts); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	// The largest bar is full width, the others in proportion, and a tiny
	// positive amount still shows.
	if diff := cmp.Diff([]string{"320", "80", "2"}, widths); diff != "" {
		t.Errorf("bar widths (-want +got):\n%s", diff)
	}
	if regexp.MustCompile(`style=|<script`).MatchString(svg) {
		t.Error("the chart carries inline style or script, which the pages' CSP refuses")
	}
	if got := barChart("Nothing", nil); got != "" {
		t.Errorf("no bars rendered %q, want nothing", got)
	}
}

func attr(el xml.StartElement, name string) string {
	for _, a := range el.Attr {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

func TestBarWidth(t *testing.T) {
	for _, tc := range []struct {
		name    string
		v, peak finance.Money
		want    int
	}{
		{"the peak", 500, 500, chartWidth},
		{"half", 250, 500, chartWidth / 2},
		{"zero", 0, 500, 0},
		{"negative", -5, 500, 0},
		{"a sliver", 1, 99_999_999_999, 2},
		{"large amounts do not overflow", 99_999_999_999 * 50, 99_999_999_999 * 100, chartWidth / 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := barWidth(tc.v, tc.peak); got != tc.want {
				t.Errorf("barWidth(%d, %d) = %d, want %d", tc.v, tc.peak, got, tc.want)
			}
		})
	}
}

func TestDisplay(t *testing.T) {
	day := finance.NewDate(2025, 3, 7)
	for _, tc := range []struct {
		currency, format string
		m                finance.Money
		wantMoney        string
		wantDate         string
	}{
		{"PHP", "YYYY-MM-DD", 123456789, "₱1,234,567.89", "2025-03-07"},
		{"USD", "MM/DD/YYYY", -5, "-$0.05", "03/07/2025"},
		{"EUR", "DD/MM/YYYY", 100000, "€1,000.00", "07/03/2025"},
		{"CHF", "DD MMM YYYY", 1250, "CHF 12.50", "07 Mar 2025"},
		{"PHP", "", 99_999_999_999, "₱999,999,999.99", "2025-03-07"},
	} {
		t.Run(tc.currency+" "+tc.format, func(t *testing.T) {
			d := newDisplay(finance.AppSettings{Currency: tc.currency, DateFormat: tc.format}, day)
			if got := d.Money(tc.m); got != tc.wantMoney {
				t.Errorf("Money(%d) = %q, want %q", tc.m, got, tc.wantMoney)
			}
			if got := d.Date(day); got != tc.wantDate {
				t.Errorf("Date = %q, want %q", got, tc.wantDate)
			}
		})
	}
}
