package server

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
