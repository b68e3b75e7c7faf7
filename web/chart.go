package web

import (
	"fmt"
	"html/template"
	"strings"
	"unicode/utf8"

	"github.com/finance-app/finance/finance"
)

// The charts are server-drawn SVG, sized for the page rather than scaled
// to it: an SVG with a viewBox scales its text with its width, so labels
// came out about 32 px on a desktop card and 9 px on a phone. These SVGs
// have no viewBox: their height is fixed in CSS pixels, horizontal
// positions and widths are percentages of the width the card gives them,
// and text is set in pixels by the stylesheet, so a label is the same size
// on every screen. Period labels that would not fit a phone's width carry
// a class the stylesheet hides there (every month on a desktop, every
// other on a phone); every figure is in the table beside each chart.
//
// A chart is an image (role="img") whose accessible name carries its
// figures, with no script and no inline style (the pages' CSP allows
// neither): colours come from the stylesheet's classes, or from a
// category's own colour as a fill attribute, which is not a style. Sizes
// are computed from the integer amounts, never through a float.

// chartBar is one bar of a bar chart: what it stands for, its value, that
// value as the page shows it, and its colour ("#RRGGBB", the category's
// own; "" for the theme's).
type chartBar struct {
	Label string
	Value finance.Money
	Text  string
	Color string
}

// Bar chart geometry, in CSS pixels.
const (
	chartRow      = 40 // a label line and a bar under it
	chartBarY     = 20 // the bar's top within its row
	chartBarH     = 12
	chartMaxLabel = 30 // runes; the full label is in the table beside the chart
)

// percent is a position or length as a share of the chart's width, in
// hundredths of a percent (10000 is the whole width), written for SVG.
type percent int

const fullWidth percent = 10000

func (p percent) String() string { return fmt.Sprintf("%d.%02d%%", p/100, p%100) }

// barChart renders bars as horizontal bars, the largest value full width,
// each with its label and its figure above it. No bars render nothing.
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
	esc := template.HTMLEscapeString
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" width="100%%" height="%d" role="img" aria-label="%s">`,
		chartRow*len(bars), esc(title+": "+strings.Join(names, ", ")))
	fmt.Fprintf(&sb, `<title>%s</title>`, esc(title))
	for i, b := range bars {
		top := i * chartRow
		sb.WriteString(`<g class="row">`)
		fmt.Fprintf(&sb, `<text class="label" x="0" y="%d">%s</text>`, top+14, esc(shorten(b.Label, chartMaxLabel)))
		fmt.Fprintf(&sb, `<text class="value" x="100%%" y="%d" text-anchor="end">%s</text>`, top+14, esc(b.Text))
		fmt.Fprintf(&sb, `<rect class="track" x="0" y="%d" width="100%%" height="%d" rx="3"/>`, top+chartBarY, chartBarH)
		fmt.Fprintf(&sb, `<rect %s x="0" y="%d" width="%s" height="%d" rx="3"/>`, barPaint(b.Color), top+chartBarY, barWidth(b.Value, peak), chartBarH)
		sb.WriteString(`</g>`)
	}
	sb.WriteString(`</svg>`)
	return template.HTML(sb.String()) // every text above is escaped
}

// barPaint is a bar's class, and its fill when it has a colour of its
// own: a well-formed "#RRGGBB" only, so nothing else reaches the markup.
// Such a bar is not of class "bar", whose stylesheet fill would win over
// the attribute.
func barPaint(color string) string {
	if len(color) == 7 && color[0] == '#' && strings.Trim(color[1:], "0123456789abcdefABCDEF") == "" {
		return `class="own" fill="` + color + `"`
	}
	return `class="bar"`
}

// barWidth scales v against peak to a share of the chart's width in
// integer arithmetic; a positive value always shows at least a sliver.
func barWidth(v, peak finance.Money) percent {
	if v <= 0 || peak <= 0 {
		return 0
	}
	w := percent(int64(v) * int64(fullWidth) / int64(peak))
	return max(w, 50)
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

// Column chart geometry, in CSS pixels.
const (
	columnHeight    = 216
	columnTop       = 32  // the top tick's line, below the legend
	columnBase      = 188 // the bottom tick's line; period labels go under it
	columnTicks     = 4   // intervals of the y-axis at most
	columnWide      = 12  // period labels shown at most on a wide screen
	columnNarrow    = 6   // and on a phone
	columnMaxNamed  = 36  // periods whose figures fit in the accessible name
	columnLabelRoom = 11  // runes of a period label
)

// columnChart renders periods as vertical columns over time, one column
// per series in each period (income beside spending, say), against a
// y-axis of round values (axisTicks) whose labels sit beside their grid lines.
// A column rises from zero, or falls from it for a negative value (a net
// worth below zero). The accessible name carries the figures (up to
// columnMaxNamed periods; beyond that it points to the table every page
// puts beside it). Under the axis, axis holds the periods' short labels
// ("Mar '25"): every one up to columnWide on a wide screen, thinned to
// columnNarrow on a phone. No periods render nothing.
func columnChart(title string, labels, axis []string, series []chartSeries) template.HTML {
	n := len(labels)
	if n == 0 || len(series) == 0 {
		return ""
	}
	var lo, hi finance.Money
	for _, s := range series {
		for _, v := range s.Values {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	ticks := axisTicks(lo, hi, columnTicks)
	bottom, top := ticks[0], ticks[len(ticks)-1]
	y := func(v finance.Money) int {
		if top == bottom {
			return columnBase
		}
		return columnBase - int(int64(v-bottom)*(columnBase-columnTop)/int64(top-bottom))
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
	fmt.Fprintf(&sb, `<svg class="chart columns" xmlns="http://www.w3.org/2000/svg" width="100%%" height="%d" role="img" aria-label="%s">`,
		columnHeight, esc(name))
	fmt.Fprintf(&sb, `<title>%s</title>`, esc(title))
	x := 0
	for _, s := range series { // the legend
		fmt.Fprintf(&sb, `<rect class="%s" x="%d" y="4" width="10" height="10" rx="2"/>`, s.class(), x)
		fmt.Fprintf(&sb, `<text class="tick" x="%d" y="13">%s</text>`, x+14, esc(s.Name))
		x += 14 + 7*utf8.RuneCountInString(s.Name) + 12
	}
	for _, t := range ticks { // the y-axis: a line per round value, its label beside it
		class := "grid"
		if t == 0 {
			class = "axis"
		}
		fmt.Fprintf(&sb, `<line class="%s" x1="0" y1="%d" x2="100%%" y2="%d"/>`, class, y(t), y(t))
	}
	slot := fullWidth / percent(n)
	gap := slot / 5
	width := max((slot-gap)/percent(len(series)), 1)
	wide := (n + columnWide - 1) / columnWide
	narrow := wide * ((n/wide + columnNarrow - 1) / columnNarrow)
	zero := y(0)
	for i, label := range labels {
		left := percent(i) * fullWidth / percent(n)
		for j, s := range series {
			v := s.Values[i]
			upper, lower := y(v), zero
			if v < 0 {
				upper, lower = zero, y(v)
			}
			h := columnSize(lower-upper, v)
			if v > 0 {
				upper = lower - h // a sliver sits on the zero line, not under it
			}
			fmt.Fprintf(&sb, `<rect class="%s" x="%s" y="%d" width="%s" height="%d"><title>%s</title></rect>`,
				s.class(), left+gap/2+percent(j)*width, upper, width, h, esc(label+", "+s.Name+": "+s.Texts[i]))
		}
		// Thinned from the last period back, so the latest is always labelled.
		back := n - 1 - i
		if back%wide != 0 {
			continue
		}
		class := "tick"
		if back%narrow != 0 {
			class += " wide-only"
		}
		fmt.Fprintf(&sb, `<text class="%s" x="%s" y="%d" text-anchor="middle">%s</text>`,
			class, left+slot/2, columnBase+18, esc(shorten(axis[i], columnLabelRoom)))
	}
	// The values sit in the margin the stylesheet keeps left of the chart
	// (its overflow is visible), right-aligned against the first column, so
	// no label is drawn over a column whatever the width.
	for _, t := range ticks {
		fmt.Fprintf(&sb, `<text class="tick y" x="-6" y="%d" text-anchor="end">%s</text>`, y(t)+4, esc(compactAmount(t)))
	}
	sb.WriteString(`</svg>`)
	return template.HTML(sb.String()) // every text above is escaped
}

// columnSize is a column's height in pixels: a value other than zero
// always shows at least a sliver.
func columnSize(h int, v finance.Money) int {
	if v != 0 {
		return max(h, 1)
	}
	return 0
}

// axisTicks are the round values of a y-axis covering lo..hi (lo ≤ 0 ≤ hi):
// multiples of a step of 1, 2 or 5 times a power of ten, from the multiple
// at or below lo to the one at or above hi, at most intervals+1 of them,
// zero always among them. With nothing to show the axis is zero alone.
func axisTicks(lo, hi finance.Money, intervals int) []finance.Money {
	span := hi - lo
	if span <= 0 {
		return []finance.Money{0}
	}
	step := niceStep(span, intervals)
	// The step fits the span, but rounding both ends outwards may need
	// one interval more: take the next round step then.
	for {
		bottom := -ceilDiv(-lo, step) * step
		top := ceilDiv(hi, step) * step
		if int((top-bottom)/step) <= intervals {
			out := make([]finance.Money, 0, intervals+1)
			for t := bottom; t <= top; t += step {
				out = append(out, t)
			}
			return out
		}
		step = niceStep(step+1, 1)
	}
}

// niceStep is the smallest of 1, 2 and 5 times a power of ten (in minor
// units) that covers span in intervals steps.
func niceStep(span finance.Money, intervals int) finance.Money {
	need := ceilDiv(span, finance.Money(intervals))
	for power := finance.Money(1); ; power *= 10 {
		for _, m := range []finance.Money{1, 2, 5} {
			if m*power >= need {
				return m * power
			}
		}
	}
}

func ceilDiv(a, b finance.Money) finance.Money {
	if a <= 0 {
		return -(-a / b)
	}
	return (a + b - 1) / b
}

// compactAmount writes a tick's amount short, in major units: "0", "500",
// "1.5k", "20k", "1.25M", "-2k", "0.5". Ticks are round, so two decimals
// of the unit always suffice.
func compactAmount(m finance.Money) string {
	sign := ""
	if m < 0 {
		sign, m = "-", -m
	}
	unit, base := "", finance.Money(100) // minor units in a major one
	switch {
	case m >= 100*1_000_000:
		unit, base = "M", 100*1_000_000
	case m >= 100*1_000:
		unit, base = "k", 100*1_000
	}
	whole, rest := m/base, m%base
	text := fmt.Sprintf("%d", whole)
	if rest != 0 {
		hundredths := rest * 100 / base
		text += strings.TrimRight(fmt.Sprintf(".%02d", hundredths), "0")
	}
	return sign + text + unit
}
