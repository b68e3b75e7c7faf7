package importfile

import (
	"fmt"
	"strings"
	"time"

	"github.com/finance-app/finance/finance"
)

// dateLayout is one way of writing a date: the order of its day, month
// and year, the separator between them, and whether the month is a name
// and the year two digits. Days and months may lose their leading zero
// ("1/2/2026"), as banks print them.
type dateLayout struct {
	name      string
	order     string // "YMD", "DMY" or "MDY"
	sep       string // "" for YYYYMMDD
	monthName bool
	shortYear bool
}

// dateLayouts are the formats Options.DateFormat names and detection tries,
// in the order detection prefers among equals.
var dateLayouts = []dateLayout{
	{name: "YYYY-MM-DD", order: "YMD", sep: "-"},
	{name: "YYYY/MM/DD", order: "YMD", sep: "/"},
	{name: "YYYY.MM.DD", order: "YMD", sep: "."},
	{name: "YYYYMMDD", order: "YMD"},
	{name: "DD/MM/YYYY", order: "DMY", sep: "/"},
	{name: "MM/DD/YYYY", order: "MDY", sep: "/"},
	{name: "DD.MM.YYYY", order: "DMY", sep: "."},
	{name: "DD-MM-YYYY", order: "DMY", sep: "-"},
	{name: "MM-DD-YYYY", order: "MDY", sep: "-"},
	{name: "DD/MM/YY", order: "DMY", sep: "/", shortYear: true},
	{name: "MM/DD/YY", order: "MDY", sep: "/", shortYear: true},
	{name: "DD.MM.YY", order: "DMY", sep: ".", shortYear: true},
	{name: "D MMM YYYY", order: "DMY", sep: " ", monthName: true},
	{name: "DD-MMM-YYYY", order: "DMY", sep: "-", monthName: true},
	{name: "DD-MMM-YY", order: "DMY", sep: "-", monthName: true, shortYear: true},
	{name: "MMM D, YYYY", order: "MDY", sep: " ", monthName: true},
}

// The layouts of the formats that fix their dates.
var (
	isoDate, _     = layoutNamed("YYYY-MM-DD")
	compactDate, _ = layoutNamed("YYYYMMDD")
)

// DateFormats lists the names Options.DateFormat accepts.
func DateFormats() []string {
	names := make([]string, len(dateLayouts))
	for i, l := range dateLayouts {
		names[i] = l.name
	}
	return names
}

func dateFormatList() string { return strings.Join(DateFormats(), ", ") }

func layoutNamed(name string) (dateLayout, bool) {
	n := strings.ToUpper(strings.TrimSpace(name))
	if n == "DD MMM YYYY" {
		n = "D MMM YYYY"
	}
	for _, l := range dateLayouts {
		if l.name == n {
			return l, true
		}
	}
	return dateLayout{}, false
}

// parse reads s in this layout; a time of day after the date
// ("2026-01-15T09:30:00+08:00", "2026-01-15 09:30:00") is left aside.
func (l dateLayout) parse(s string) (finance.Date, bool) {
	s = dateOnly(strings.TrimSpace(s))
	var parts []string
	switch {
	case l.sep == "":
		if len(s) != 8 || !allDigits(s) {
			return finance.Date{}, false
		}
		parts = []string{s[0:4], s[4:6], s[6:8]}
	case l.sep == " ":
		parts = strings.Fields(strings.ReplaceAll(s, ",", " "))
	default:
		parts = strings.Split(s, l.sep)
	}
	if len(parts) != 3 {
		return finance.Date{}, false
	}
	var ys, ms, ds string
	switch l.order {
	case "YMD":
		ys, ms, ds = parts[0], parts[1], parts[2]
	case "DMY":
		ds, ms, ys = parts[0], parts[1], parts[2]
	default:
		ms, ds, ys = parts[0], parts[1], parts[2]
	}
	y, ok := year(ys, l.shortYear)
	if !ok {
		return finance.Date{}, false
	}
	var m int
	if l.monthName {
		m = monthNamed(ms)
	} else if len(ms) <= 2 {
		m, _ = number(ms)
	}
	d := 0
	if len(ds) <= 2 {
		d, _ = number(ds)
	}
	if m < 1 || m > 12 || d < 1 || d > finance.DaysInMonth(y, time.Month(m)) {
		return finance.Date{}, false
	}
	return finance.NewDate(y, time.Month(m), d), true
}

// dateOnly cuts a time of day off a date: after an ISO date's "T", or the
// words holding ":" ("09:30", "+08:00") and AM/PM.
func dateOnly(s string) string {
	if len(s) > 10 && s[4] == '-' && s[7] == '-' && (s[10] == 'T' || s[10] == ' ') {
		return s[:10]
	}
	if !strings.Contains(s, ":") {
		return s
	}
	f := strings.Fields(s)
	for len(f) > 1 {
		last := strings.ToUpper(f[len(f)-1])
		if !strings.Contains(last, ":") && last != "AM" && last != "PM" {
			break
		}
		f = f[:len(f)-1]
	}
	return strings.Join(f, " ")
}

func number(s string) (int, bool) {
	if s == "" || !allDigits(s) {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// year reads a four-digit year in finance's range, or a two-digit one as
// 1970-2069 (the pivot every spreadsheet uses).
func year(s string, short bool) (int, bool) {
	y, ok := number(s)
	switch {
	case !ok:
		return 0, false
	case short && len(s) == 2:
		if y < 70 {
			return 2000 + y, true
		}
		return 1900 + y, true
	case !short && len(s) == 4 && y >= 1900 && y <= 2100:
		return y, true
	}
	return 0, false
}

// monthNamed reads an English month name or its abbreviation ("Jan",
// "Sept", "January"); 0 when it is none.
func monthNamed(s string) int {
	s = strings.ToLower(strings.TrimSuffix(s, "."))
	if len(s) < 3 {
		return 0
	}
	if s == "sept" {
		return 9
	}
	for m := time.January; m <= time.December; m++ {
		if strings.HasPrefix(strings.ToLower(m.String()), s) {
			return int(m)
		}
	}
	return 0
}

// detectDateLayout picks the layout that reads the most of a column's
// dates. A value like "05/01/2026" reads both day first and month first:
// when no value settles it, the preferred layout (a preset's) wins if it
// is one of the two, and otherwise the caller must say, which is an error
// naming an example.
func detectDateLayout(values []string, preferred string) (dateLayout, error) {
	best, bestCount := []dateLayout(nil), 0
	for _, l := range dateLayouts {
		n := 0
		for _, v := range values {
			if _, ok := l.parse(v); ok {
				n++
			}
		}
		switch {
		case n > bestCount:
			best, bestCount = []dateLayout{l}, n
		case n == bestCount && n > 0:
			best = append(best, l)
		}
	}
	if bestCount == 0 {
		example := ""
		for _, v := range values {
			if v = strings.TrimSpace(v); v != "" {
				example = " such as " + quote(v)
				break
			}
		}
		return dateLayout{}, &Error{Field: "date_format", Message: fmt.Sprintf("no date%s could be read in any known format; set the date format (%s)", example, dateFormatList())}
	}
	if len(best) == 1 {
		return best[0], nil
	}
	for _, l := range best {
		if l.name == preferred {
			return l, nil
		}
	}
	example := ""
	for _, v := range values {
		if _, ok := best[0].parse(v); ok {
			example = quote(strings.TrimSpace(v))
			break
		}
	}
	names := make([]string, len(best))
	for i, l := range best {
		names[i] = l.name
	}
	return dateLayout{}, &Error{Field: "date_format", Message: fmt.Sprintf("dates such as %s read as %s alike, and no date in the file tells which; set the date format", example, strings.Join(names, " or "))}
}

// dateProblem words a date that does not read in the layout.
func dateProblem(text string, l dateLayout) string {
	if strings.TrimSpace(text) == "" {
		return "the date is empty"
	}
	return fmt.Sprintf("date %s is not a date in %s", quote(strings.TrimSpace(text)), l.name)
}
