package ai

import (
	"strconv"
	"strings"
	"time"

	"github.com/finance-app/finance/finance"
)

// dateReader reads the date phrases of a message relative to the user's today.
type dateReader struct {
	today      finance.Date
	dayFirst   bool // 3/11 is 3 November (DD/MM/YYYY and DD MMM YYYY users), else 11 March
	monthFirst bool
}

func newDateReader(today finance.Date, dateFormat string) dateReader {
	dayFirst := dateFormat == "DD/MM/YYYY" || dateFormat == "DD MMM YYYY"
	return dateReader{today: today, dayFirst: dayFirst, monthFirst: !dayFirst}
}

var (
	isoDateRE     = lazyRegexp(`^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$`)
	slashDateRE   = lazyRegexp(`^(\d{1,2})/(\d{1,2})(?:/(\d{2}|\d{4}))?$`)
	dashDateRE    = lazyRegexp(`^(\d{1,2})[-.](\d{1,2})[-.](\d{2}|\d{4})$`)
	dayRE         = lazyRegexp(`^(\d{1,2})(?:st|nd|rd|th)?$`)
	yearRE        = lazyRegexp(`^(19|20)\d{2}$`)
	daysAgoRE     = lazyRegexp(`^(\d{1,3})$`)
	dayMonthDashR = lazyRegexp(`^(\d{1,2})-([a-z]{3,9})(?:-(\d{2}|\d{4}))?$`) // 03-nov-2025
)

// datePrefixes may stand before a date phrase and belong to it.
var datePrefixes = map[string]bool{"on": true, "nung": true, "noong": true, "last": true, "this": true,
	"nakaraang": true, "past": true, "dated": true, "date": true}

// match reads a date phrase at toks[i:]. It returns the date, the number
// of tokens it took (0 for none), and whether the phrase names the day only
// roughly ("last week"), so that the date is a guess.
func (r dateReader) match(toks []string, i int) (d finance.Date, n int, approx bool) {
	if d, n := r.matchApproximate(toks, i); n > 0 {
		return d, n, true
	}
	if datePrefixes[toks[i]] && i+1 < len(toks) {
		if d, n := r.matchBare(toks, i+1, toks[i] == "last" || toks[i] == "nakaraang" || toks[i] == "past"); n > 0 {
			return d, n + 1, false
		}
	}
	d, n = r.matchBare(toks, i, false)
	return d, n, false
}

// matchApproximate reads a phrase that places an expense only roughly, the
// longest first: "last week" is read as a week before today, "last weekend"
// as the Saturday before today, "last month" as today's day of the month
// before. The draft carries that day as a guess for the person to check.
func (r dateReader) matchApproximate(toks []string, i int) (finance.Date, int) {
	for n := 4; n >= 1; n-- {
		if i+n > len(toks) {
			continue
		}
		switch approximateDates[strings.Join(toks[i:i+n], " ")] {
		case aboutDaysAgo2:
			return r.today.AddDays(-2), n
		case aboutDaysAgo3:
			return r.today.AddDays(-3), n
		case aboutWeekAgo:
			return r.today.AddDays(-7), n
		case aboutLastWeekend:
			back := (int(r.weekday()) - int(time.Saturday) + 7) % 7
			if back == 0 {
				back = 7
			}
			return r.today.AddDays(-back), n
		case aboutMonthAgo:
			return finance.MonthAdd(r.today, -1, r.today.Day()), n
		}
	}
	return finance.Date{}, 0
}

func (r dateReader) matchBare(toks []string, i int, last bool) (finance.Date, int) {
	at := func(k int) string {
		if i+k < len(toks) {
			return toks[i+k]
		}
		return ""
	}
	// Relative words and phrases, longest first.
	for n := 4; n >= 1; n-- {
		if i+n > len(toks) {
			continue
		}
		phrase := strings.Join(toks[i:i+n], " ")
		if n == 1 {
			phrase = correct(phrase)
		}
		if back, ok := relativeDays[phrase]; ok {
			return r.today.AddDays(-back), n
		}
	}
	// "2 days ago", "a week ago"
	if at(2) == "ago" {
		unit := strings.TrimSuffix(at(1), "s")
		count := 0
		if m := daysAgoRE().FindStringSubmatch(at(0)); m != nil {
			count, _ = strconv.Atoi(m[1])
		} else if at(0) == "a" || at(0) == "one" || at(0) == "isang" {
			count = 1
		}
		if count > 0 && count <= 366 {
			switch unit {
			case "day", "araw":
				return r.today.AddDays(-count), 3
			case "week", "linggo":
				return r.today.AddDays(-7 * count), 3
			}
		}
	}
	// Weekdays: the latest one on or before today ("friday"), or before
	// today ("last friday").
	if wd, ok := weekdayNames[correct(at(0))]; ok {
		back := (int(r.weekday()) - wd + 7) % 7
		if last && back == 0 {
			back = 7
		}
		return r.today.AddDays(-back), 1
	}
	// ISO and numeric dates.
	if m := isoDateRE().FindStringSubmatch(at(0)); m != nil {
		if d, ok := r.ymd(m[1], m[2], m[3]); ok {
			return d, 1
		}
	}
	if m := slashDateRE().FindStringSubmatch(at(0)); m != nil {
		if d, ok := r.numeric(m[1], m[2], m[3]); ok {
			return d, 1
		}
	}
	if m := dashDateRE().FindStringSubmatch(at(0)); m != nil {
		if d, ok := r.numeric(m[1], m[2], m[3]); ok {
			return d, 1
		}
	}
	if m := dayMonthDashR().FindStringSubmatch(at(0)); m != nil {
		if mon, ok := monthNames[strings.TrimSuffix(m[2], ".")]; ok {
			if d, ok := r.monthDay(mon, m[1], m[3]); ok {
				return d, 1
			}
		}
	}
	// "Nov 3", "November 3rd, 2025", "3 Nov", "3rd of November 2025".
	if mon, ok := month(at(0)); ok {
		if m := dayRE().FindStringSubmatch(at(1)); m != nil {
			year, n := "", 2
			if yearRE().MatchString(at(2)) {
				year, n = at(2), 3
			}
			if d, ok := r.monthDay(mon, m[1], year); ok {
				return d, n
			}
		}
	}
	if m := dayRE().FindStringSubmatch(at(0)); m != nil {
		k := 1
		if at(1) == "of" {
			k = 2
		}
		if mon, ok := month(at(k)); ok {
			year, n := "", k+1
			if yearRE().MatchString(at(k + 1)) {
				year, n = at(k+1), k+2
			}
			if d, ok := r.monthDay(mon, m[1], year); ok {
				return d, n
			}
		}
	}
	return finance.Date{}, 0
}

func month(tok string) (int, bool) {
	tok = strings.TrimSuffix(tok, ".")
	if m, ok := monthNames[tok]; ok {
		return m, true
	}
	m, ok := monthNames[correct(tok)]
	return m, ok && len(tok) >= 5
}

func (r dateReader) weekday() time.Weekday {
	return time.Date(r.today.Year(), r.today.Month(), r.today.Day(), 0, 0, 0, 0, time.UTC).Weekday()
}

// numeric reads a/b[/y] in the user's order of day and month. A part above
// 12 can only be the day, whatever the order.
func (r dateReader) numeric(a, b, y string) (finance.Date, bool) {
	x, _ := strconv.Atoi(a)
	z, _ := strconv.Atoi(b)
	mon, day := x, z
	if r.dayFirst {
		mon, day = z, x
	}
	if mon > 12 && day <= 12 {
		mon, day = day, mon
	}
	return r.monthDay(mon, strconv.Itoa(day), y)
}

// monthDay is the date of day in month mon; without a year, the latest such
// date on or before today (people record what they spent), and so last year's
// when this year's is still ahead.
func (r dateReader) monthDay(mon int, day, year string) (finance.Date, bool) {
	d, _ := strconv.Atoi(day)
	if year == "" {
		y := r.today.Year()
		if date, ok := validDate(y, mon, d); ok && !date.After(r.today) {
			return date, true
		}
		return validDate(y-1, mon, d)
	}
	y, _ := strconv.Atoi(year)
	if len(year) == 2 {
		y += 2000
	}
	return validDate(y, mon, d)
}

func (r dateReader) ymd(y, m, d string) (finance.Date, bool) {
	yy, _ := strconv.Atoi(y)
	mm, _ := strconv.Atoi(m)
	dd, _ := strconv.Atoi(d)
	return validDate(yy, mm, dd)
}

func validDate(y, m, d int) (finance.Date, bool) {
	if y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1 || d > finance.DaysInMonth(y, time.Month(m)) {
		return finance.Date{}, false
	}
	return finance.NewDate(y, time.Month(m), d), true
}
