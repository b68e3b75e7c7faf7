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
		{Label: "Food & Dining", Value: 40000, Text: "₱400.00", Color: "#F97316"},
		{Label: "Transport", Value: 10000, Text: "₱100.00"},
		{Label: "A category with a rather long name indeed", Value: 1, Text: "₱0.01", Color: "red\" onload=\"x"},
	}))
	root, els, texts := parseSVG(t, svg)
	// Sized for the page, not scaled to it: no viewBox, a height in pixels
	// (three rows of 40) and the card's width, so the text keeps the
	// stylesheet's pixel size on a phone and on a desktop alike.
	if root.Name.Local != "svg" || attr(root, "role") != "img" || attr(root, "viewBox") != "" ||
		attr(root, "width") != "100%" || attr(root, "height") != "120" {
		t.Errorf("root = %+v; want an svg with role=img, width 100%%, height 120 and no viewBox", root)
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
	// positive amount still shows. A category's colour fills its bar; a
	// colour that is not #RRGGBB never reaches the markup.
	var bars []string
	for _, el := range els {
		if el.Name.Local == "rect" && attr(el, "class") != "track" {
			bars = append(bars, attr(el, "class")+" "+attr(el, "fill")+" "+attr(el, "width"))
		}
	}
	if diff := cmp.Diff([]string{"own #F97316 100.00%", "bar  25.00%", "bar  0.50%"}, bars); diff != "" {
		t.Errorf("bars (-want +got):\n%s", diff)
	}
	if regexp.MustCompile(`style=|<script|onload`).MatchString(svg) {
		t.Error("the chart carries inline style or script, which the pages' CSP refuses")
	}
	if got := barChart("Nothing", nil); got != "" {
		t.Errorf("no bars rendered %q, want nothing", got)
	}
}

// parseSVG reads svg as XML (failing on markup that is not well-formed):
// its root, every element, and the text of its text elements.
func parseSVG(t *testing.T, svg string) (xml.StartElement, []xml.StartElement, []string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	var els []xml.StartElement
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
			els = append(els, el.Copy())
			inText = el.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		case xml.EndElement:
			inText = false
		}
	}
	if len(els) == 0 {
		t.Fatalf("no SVG:\n%s", svg)
	}
	return els[0], els, texts
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
		want    string
	}{
		{"the peak", 500, 500, "100.00%"},
		{"half", 250, 500, "50.00%"},
		{"a third, in hundredths of a percent", 1, 3, "33.33%"},
		{"zero", 0, 500, "0.00%"},
		{"negative", -5, 500, "0.00%"},
		{"a sliver", 1, 99_999_999_999, "0.50%"},
		{"large amounts do not overflow", 99_999_999_999 * 50, 99_999_999_999 * 100, "50.00%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := barWidth(tc.v, tc.peak).String(); got != tc.want {
				t.Errorf("barWidth(%d, %d) = %s, want %s", tc.v, tc.peak, got, tc.want)
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
		[]string{"Jan '25", "Feb", "Mar", "Apr"}, []chartSeries{
			{Name: "Income", Values: []finance.Money{40000, 0, 10000, 0}, Texts: []string{"₱400.00", "₱0.00", "₱100.00", "₱0.00"}},
			{Name: "Spending", Class: "alt", Values: []finance.Money{20000, 1, -500, 0}, Texts: []string{"₱200.00", "₱0.01", "-₱5.00", "₱0.00"}},
		}))
	root, els, texts := parseSVG(t, svg)
	want := "Income & spending. Jan 2025: Income ₱400.00, Spending ₱200.00; Feb 2025: Income ₱0.00, Spending ₱0.01; " +
		"Mar 2025: Income ₱100.00, Spending -₱5.00; Apr 2025: Income ₱0.00, Spending ₱0.00"
	if attr(root, "role") != "img" || attr(root, "aria-label") != want || attr(root, "viewBox") != "" ||
		attr(root, "width") != "100%" || attr(root, "height") != "216" {
		t.Errorf("root %+v\nwant aria-label %q, width 100%%, height 216, no viewBox", root, want)
	}
	// The y-axis runs from -₱200 to ₱400 in steps of ₱200 (-5.00 needs the
	// one below zero): four lines over the 156 px from the top one (y 32)
	// to the bottom one (188), 52 px a step, zero at y 136.
	var lines, columns []string
	for _, el := range els {
		switch {
		case el.Name.Local == "line":
			lines = append(lines, attr(el, "class")+" "+attr(el, "y1"))
		case el.Name.Local == "rect" && attr(el, "height") != "10": // not a legend swatch
			columns = append(columns, attr(el, "class")+" "+attr(el, "x")+" "+attr(el, "y")+" "+attr(el, "height"))
		}
	}
	if diff := cmp.Diff([]string{"grid 188", "axis 136", "grid 84", "grid 32"}, lines); diff != "" {
		t.Errorf("y-axis lines (-want +got):\n%s", diff)
	}
	// Columns rise from zero (y 136) to their value, a negative one falls
	// from it, a tiny one shows a sliver on the line and zero nothing; each
	// period has a quarter of the width, a tenth of it free on either side.
	wantColumns := []string{
		"bar 2.50% 32 104", "bar alt 12.50% 84 52",
		"bar 27.50% 136 0", "bar alt 37.50% 135 1",
		"bar 52.50% 110 26", "bar alt 62.50% 136 2",
		"bar 77.50% 136 0", "bar alt 87.50% 136 0",
	}
	if diff := cmp.Diff(wantColumns, columns); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	// The legend, every period's label, then the y-axis values on their lines.
	wantTexts := []string{"Income", "Spending", "Jan '25", "Feb", "Mar", "Apr", "-200", "0", "200", "400"}
	if diff := cmp.Diff(wantTexts, texts); diff != "" {
		t.Errorf("texts (-want +got):\n%s", diff)
	}
	if regexp.MustCompile(`style=|<script`).MatchString(svg) {
		t.Error("the chart carries inline style or script")
	}

	// A long series names no figures in the accessible name, and thins its
	// labels: every 5th of 60 where the card is wide (12), every 10th where
	// it is narrow (6, the others marked wide-only).
	labels := make([]string, 60)
	values, textsIn := make([]finance.Money, 60), make([]string, 60)
	for i := range labels {
		labels[i], values[i], textsIn[i] = "d"+strings.Repeat("x", i%3), finance.Money(i), "v"
	}
	long := string(columnChart("Daily", labels, labels, []chartSeries{{Name: "Spending", Values: values, Texts: textsIn}}))
	if !strings.Contains(long, `aria-label="Daily, 60 periods; the figures are in the table"`) {
		t.Errorf("long chart's name:\n%.300s", long)
	}
	if all, wideOnly := strings.Count(long, `text-anchor="middle"`), strings.Count(long, `class="tick wide-only"`); all != 12 || wideOnly != 6 {
		t.Errorf("%d period labels, %d of them wide-only; want 12 and 6", all, wideOnly)
	}
	// Twelve months: every one labelled on a wide card, every other one on a narrow one.
	twelve := make([]string, 12)
	zeros, zeroTexts := make([]finance.Money, 12), make([]string, 12)
	for i := range twelve {
		twelve[i], zeroTexts[i] = "m", "₱0.00"
	}
	year := string(columnChart("Year", twelve, twelve, []chartSeries{{Name: "Net worth", Values: zeros, Texts: zeroTexts}}))
	if all, wideOnly := strings.Count(year, `text-anchor="middle"`), strings.Count(year, `wide-only`); all != 12 || wideOnly != 6 {
		t.Errorf("twelve months: %d labels, %d wide-only; want 12 and 6", all, wideOnly)
	}
	if got := columnChart("Nothing", nil, nil, nil); got != "" {
		t.Errorf("no periods rendered %q", got)
	}
}

// The y-axis takes round values, steps of 1, 2 or 5 times a power of ten,
// at most four intervals, zero always among them.
func TestAxisTicks(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lo, hi finance.Money
		want   string
	}{
		{"a month's spending", 0, 1_339_950, "0 5k 10k 15k"},
		{"salaries", 0, 6_000_000, "0 20k 40k 60k"},
		{"just past a round value", 0, 6_000_001, "0 20k 40k 60k 80k"},
		{"net worth below zero", -1_150_000, 22_900_000, "-100k 0 100k 200k 300k"},
		{"all below zero", -730_000, 0, "-8k -6k -4k -2k 0"},
		{"small amounts", 0, 4_50, "0 2 4 6"},
		{"cents", 0, 37, "0 0.1 0.2 0.3 0.4"},
		{"millions", 0, 123_456_789_00, "0 50M 100M 150M"},
		{"nothing", 0, 0, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ticks := axisTicks(tc.lo, tc.hi, 4)
			got := make([]string, len(ticks))
			for i, v := range ticks {
				got[i] = compactAmount(v)
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("axisTicks(%d, %d) = %q, want %q", tc.lo, tc.hi, strings.Join(got, " "), tc.want)
			}
		})
	}
}

func TestCompactAmount(t *testing.T) {
	for m, want := range map[finance.Money]string{0: "0", 50: "0.5", 5: "0.05", 500_00: "500", 1_000_00: "1k", 1_500_00: "1.5k",
		2_500_00: "2.5k", 20_000_00: "20k", 999_000_00: "999k", 1_250_000_00: "1.25M", -2_000_00: "-2k"} {
		if got := compactAmount(m); got != want {
			t.Errorf("compactAmount(%d) = %q, want %q", m, got, want)
		}
	}
}
