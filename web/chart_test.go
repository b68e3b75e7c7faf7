package web

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

func TestColumnChart(t *testing.T) {
	svg := string(columnChart("Income & spending", []string{"Jan 2025", "Feb 2025", "Mar 2025", "Apr 2025"},
		[]string{"Jan '25", "Feb '25", "Mar '25", "Apr '25"}, []chartSeries{
			{Name: "Income", Values: []finance.Money{40000, 0, 10000, 0}, Texts: []string{"₱400.00", "₱0.00", "₱100.00", "₱0.00"}},
			{Name: "Spending", Class: "alt", Values: []finance.Money{20000, 1, -500, 0}, Texts: []string{"₱200.00", "₱0.01", "-₱5.00", "₱0.00"}},
		}))
	dec := xml.NewDecoder(strings.NewReader(svg))
	var root xml.StartElement
	var heights []string
	var texts []string
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
			if el.Name.Local == "rect" && attr(el, "height") != "10" { // not a legend swatch
				heights = append(heights, attr(el, "class")+" "+attr(el, "height"))
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		case xml.EndElement:
			inText = false
		}
	}
	want := "Income & spending. Jan 2025: Income ₱400.00, Spending ₱200.00; Feb 2025: Income ₱0.00, Spending ₱0.01; " +
		"Mar 2025: Income ₱100.00, Spending -₱5.00; Apr 2025: Income ₱0.00, Spending ₱0.00"
	if attr(root, "role") != "img" || attr(root, "aria-label") != want {
		t.Errorf("root %+v\nwant aria-label %q", root, want)
	}
	// The peak is full height (144 units), the rest in proportion; a tiny
	// amount shows a sliver and a negative one nothing.
	wantHeights := []string{"bar 144", "bar alt 72", "bar 0", "bar alt 1", "bar 36", "bar alt 0", "bar 0", "bar alt 0"}
	if diff := cmp.Diff(wantHeights, heights); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	wantTexts := []string{"Income", "Spending", "₱400.00", "Jan '25", "Feb '25", "Mar '25", "Apr '25"}
	if diff := cmp.Diff(wantTexts, texts); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	if regexp.MustCompile(`style=|<script`).MatchString(svg) {
		t.Error("the chart carries inline style or script")
	}

	// A long series names no figures in the accessible name and labels every nth period.
	labels := make([]string, 60)
	values, textsIn := make([]finance.Money, 60), make([]string, 60)
	for i := range labels {
		labels[i], values[i], textsIn[i] = "d"+strings.Repeat("x", i%3), finance.Money(i), "v"
	}
	long := string(columnChart("Daily", labels, labels, []chartSeries{{Name: "Spending", Values: values, Texts: textsIn}}))
	if !strings.Contains(long, `aria-label="Daily, 60 periods; the figures are in the table"`) {
		t.Errorf("long chart's name:\n%.300s", long)
	}
	if n := strings.Count(long, `text-anchor="middle"`); n != 6 {
		t.Errorf("%d period labels, want 6", n)
	}
	if got := columnChart("Nothing", nil, nil, nil); got != "" {
		t.Errorf("no periods rendered %q", got)
	}
}
