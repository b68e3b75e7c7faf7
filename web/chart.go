package web

import (
	"fmt"
	"html/template"
	"strings"
	"unicode/utf8"

	"github.com/finance-app/finance/finance"
)

// chartBar is one bar of a bar chart: what it stands for, its value, and
// that value as the page shows it.
type chartBar struct {
	Label string
	Value finance.Money
	Text  string
}

// Bar chart geometry, in the SVG's own units; the SVG scales to the width
// of its container (viewBox), so the same markup fits a phone and a desktop.
const (
	chartWidth    = 320
	chartRow      = 40 // a label line and a bar under it
	chartBarY     = 20 // the bar's top within its row
	chartBarH     = 12
	chartMaxLabel = 30 // runes; the full label is in the table beside the chart
)

// barChart renders bars as a server-side SVG of horizontal bars, largest
// value full width, each with its label and formatted value as text. The
// SVG is an image (role="img") whose accessible name carries every figure,
// so a screen reader gets the data without reading the drawing; pages put
// a table with the same figures beside it. It needs no script and no
// inline style (the pages' CSP allows neither): colours come from the
// stylesheet's classes. Widths are computed from the integer amounts, never
// through a float. No bars render nothing.
func barChart(title string, bars []chartBar) template.HTML {
	if len(bars) == 0 {
		return ""
	}
	var peak finance.Money
	for _, b := range bars {
		peak = max(peak, b.Value)
	}
	names := make([]string, len(bars))
	for i, b := range bars {
		names[i] = b.Label + " " + b.Text
	}
	height := chartRow * len(bars)
	esc := template.HTMLEscapeString
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		chartWidth, height, esc(title+": "+strings.Join(names, ", ")))
	fmt.Fprintf(&sb, `<title>%s</title>`, esc(title))
	for i, b := range bars {
		top := i * chartRow
		fmt.Fprintf(&sb, `<g class="row">`)
		fmt.Fprintf(&sb, `<text class="label" x="0" y="%d">%s</text>`, top+14, esc(shorten(b.Label, chartMaxLabel)))
		fmt.Fprintf(&sb, `<text class="value" x="%d" y="%d" text-anchor="end">%s</text>`, chartWidth, top+14, esc(b.Text))
		fmt.Fprintf(&sb, `<rect class="track" x="0" y="%d" width="%d" height="%d" rx="3"/>`, top+chartBarY, chartWidth, chartBarH)
		fmt.Fprintf(&sb, `<rect class="bar" x="0" y="%d" width="%d" height="%d" rx="3"/>`, top+chartBarY, barWidth(b.Value, peak), chartBarH)
		sb.WriteString(`</g>`)
	}
	sb.WriteString(`</svg>`)
	return template.HTML(sb.String()) // every text above is escaped
}

// barWidth scales v against peak to the chart's width in integer
// arithmetic; a positive value always shows at least a sliver.
func barWidth(v, peak finance.Money) int {
	if v <= 0 || peak <= 0 {
		return 0
	}
	w := int(int64(v) * chartWidth / int64(peak))
	return max(w, 2)
}

// shorten cuts s to n runes, ending in an ellipsis when it was longer.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// chartSeries is one series of a column chart: its name, the stylesheet
// class of its columns ("" or "alt"), and per period a value and that value
// as the page shows it.
type chartSeries struct {
	Name   string
	Class  string
	Values []finance.Money
	Texts  []string
}

func (s chartSeries) class() string { return strings.TrimSpace("bar " + s.Class) }

// Column chart geometry, in the SVG's own units (tenths where noted, so
// positions stay integers however many periods share the width).
const (
	columnHeight    = 200
	columnTop       = 28  // below the legend and the peak's label
	columnBase      = 172 // the baseline; period labels go under it
	columnMaxLabels = 6   // period labels shown at most; every one is in the table
	columnMaxNamed  = 36  // periods whose figures fit in the accessible name
)

// columnChart renders periods as vertical columns over time, one column
// per series in each period (income beside spending, say), the tallest
// reaching the top. Like barChart it is an image whose accessible name
// carries the figures (up to columnMaxNamed periods; beyond that it points
// to the table every page puts beside it), uses classes, not inline style,
// and computes heights from the integer amounts. A negative value draws no
// column. Under the baseline, axis holds the periods' short labels ("Mar
// '25"), of which at most columnMaxLabels are shown. No periods render
// nothing.
func columnChart(title string, labels, axis []string, series []chartSeries) template.HTML {
	n := len(labels)
	if n == 0 || len(series) == 0 {
		return ""
	}
	var peak finance.Money
	peakText := ""
	for _, s := range series {
		for i, v := range s.Values {
			if v > peak {
				peak, peakText = v, s.Texts[i]
			}
		}
	}
	name := title
	if n <= columnMaxNamed {
		parts := make([]string, n)
		for i, l := range labels {
			figures := make([]string, len(series))
			for j, s := range series {
				figures[j] = s.Name + " " + s.Texts[i]
			}
			parts[i] = l + ": " + strings.Join(figures, ", ")
		}
		name += ". " + strings.Join(parts, "; ")
	} else {
		name += fmt.Sprintf(", %d periods; the figures are in the table", n)
	}
	esc := template.HTMLEscapeString
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg class="chart columns" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" role="img" aria-label="%s">`,
		chartWidth, columnHeight, esc(name))
	fmt.Fprintf(&sb, `<title>%s</title>`, esc(title))
	x := 0
	for _, s := range series { // the legend
		fmt.Fprintf(&sb, `<rect class="%s" x="%d" y="4" width="10" height="10" rx="2"/>`, s.class(), x)
		fmt.Fprintf(&sb, `<text class="tick" x="%d" y="13">%s</text>`, x+14, esc(s.Name))
		x += 14 + 7*len([]rune(s.Name)) + 12
	}
	if peak > 0 {
		fmt.Fprintf(&sb, `<line class="grid" x1="0" y1="%d" x2="%d" y2="%d"/>`, columnTop, chartWidth, columnTop)
		fmt.Fprintf(&sb, `<text class="tick" x="%d" y="%d" text-anchor="end">%s</text>`, chartWidth, columnTop-4, esc(peakText))
	}
	fmt.Fprintf(&sb, `<line class="axis" x1="0" y1="%d" x2="%d" y2="%d"/>`, columnBase, chartWidth, columnBase)
	slot := chartWidth * 10 / n // tenths
	gap := slot / 5
	width := (slot - gap) / len(series)
	every := (n + columnMaxLabels - 1) / columnMaxLabels
	for i, label := range labels {
		left := i * chartWidth * 10 / n
		for j, s := range series {
			h := columnSize(s.Values[i], peak)
			fmt.Fprintf(&sb, `<rect class="%s" x="%s" y="%d" width="%s" height="%d"><title>%s</title></rect>`,
				s.class(), tenths(left+gap/2+j*width), columnBase-h, tenths(max(width, 1)), h, esc(label+", "+s.Name+": "+s.Texts[i]))
		}
		if i%every == 0 {
			fmt.Fprintf(&sb, `<text class="tick" x="%s" y="%d" text-anchor="middle">%s</text>`,
				tenths(min(max(left+slot/2, 240), chartWidth*10-240)), columnBase+16, esc(shorten(axis[i], 10)))
		}
	}
	sb.WriteString(`</svg>`)
	return template.HTML(sb.String()) // every text above is escaped
}

// columnSize scales v against peak to the plot's height in integer
// arithmetic; a positive value always shows at least a sliver.
func columnSize(v, peak finance.Money) int {
	if v <= 0 || peak <= 0 {
		return 0
	}
	return max(int(int64(v)*(columnBase-columnTop)/int64(peak)), 1)
}

// tenths writes a length in tenths of a unit as SVG text: 125 is "12.5".
func tenths(v int) string { return fmt.Sprintf("%d.%d", v/10, v%10) }
