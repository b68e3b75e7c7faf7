package finance

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"time"
)

// Date is a calendar date with no time of day and no zone. The zero Date is
// "no date". Dates are written YYYY-MM-DD on the wire and in the database.
type Date struct {
	year  int
	month time.Month
	day   int
}

const problemDate = "must be a real calendar date in YYYY-MM-DD format between 1900 and 2100"

type errDate string

func (e errDate) Error() string { return string(e) }

// NewDate returns the date y-m-d. It panics on an impossible date: callers
// pass values they have already checked.
func NewDate(y int, m time.Month, d int) Date {
	if m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, m) {
		panic(fmt.Sprintf("finance.NewDate: impossible date %04d-%02d-%02d", y, m, d))
	}
	return Date{y, m, d}
}

// ParseDate parses a strict YYYY-MM-DD: four-digit year in 1900..2100, two-digit
// month and day, and a day that exists in that month ("2025-02-30" fails).
func ParseDate(s string) (Date, error) {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return Date{}, errDate(problemDate)
	}
	y, ok1 := atoiDigits(s[0:4])
	m, ok2 := atoiDigits(s[5:7])
	d, ok3 := atoiDigits(s[8:10])
	if !ok1 || !ok2 || !ok3 || y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, time.Month(m)) {
		return Date{}, errDate(problemDate)
	}
	return Date{y, time.Month(m), d}, nil
}

const problemMonth = "must be a month in YYYY-MM format between 1900-01 and 2100-12"

// ParseMonth parses a strict YYYY-MM (domain.md §1.4) and returns the
// month's first day.
func ParseMonth(s string) (Date, error) {
	if len(s) != 7 || s[4] != '-' {
		return Date{}, errDate(problemMonth)
	}
	y, ok1 := atoiDigits(s[0:4])
	m, ok2 := atoiDigits(s[5:7])
	if !ok1 || !ok2 || y < 1900 || y > 2100 || m < 1 || m > 12 {
		return Date{}, errDate(problemMonth)
	}
	return Date{y, time.Month(m), 1}, nil
}

// MonthString writes d's month as YYYY-MM.
func (d Date) MonthString() string { return fmt.Sprintf("%04d-%02d", d.year, d.month) }

func atoiDigits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// DateOf returns the calendar date of t in t's location.
func DateOf(t time.Time) Date {
	y, m, d := t.Date()
	return Date{y, m, d}
}

// Today returns the current date in loc.
func Today(now time.Time, loc *time.Location) Date { return DateOf(now.In(loc)) }

// DaysInMonth returns the number of days of month m in year y.
func DaysInMonth(y int, m time.Month) int {
	return time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// IsZero reports whether d is the zero Date.
func (d Date) IsZero() bool { return d.year == 0 }

// Year, Month and Day return the parts of d.
func (d Date) Year() int          { return d.year }
func (d Date) Month() time.Month  { return d.month }
func (d Date) Day() int           { return d.day }
func (d Date) time() time.Time    { return time.Date(d.year, d.month, d.day, 0, 0, 0, 0, time.UTC) }
func (d Date) String() string     { return fmt.Sprintf("%04d-%02d-%02d", d.year, d.month, d.day) }
func (d Date) Before(o Date) bool { return d.Compare(o) < 0 }
func (d Date) After(o Date) bool  { return d.Compare(o) > 0 }

// Compare returns -1, 0 or 1 as d is before, equal to or after o.
func (d Date) Compare(o Date) int {
	switch {
	case d.year != o.year:
		return cmpInt(d.year, o.year)
	case d.month != o.month:
		return cmpInt(int(d.month), int(o.month))
	default:
		return cmpInt(d.day, o.day)
	}
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// In returns the instant d starts at (midnight) in loc.
func (d Date) In(loc *time.Location) time.Time {
	return time.Date(d.year, d.month, d.day, 0, 0, 0, 0, loc)
}

// AddDays returns the date n days after d (n may be negative).
func (d Date) AddDays(n int) Date { return DateOf(d.time().AddDate(0, 0, n)) }

// DaysUntil returns the number of days from d to o (negative when o is earlier).
func (d Date) DaysUntil(o Date) int {
	return int(o.time().Sub(d.time()).Hours() / 24)
}

// MonthAdd returns the date k months after the anchor's month, on day `day`
// clamped to that month's length. Schedules always call it with the original
// anchor and k, never chaining from a previous result, so Jan 31 + 1 month is
// Feb 28 and + 2 months is Mar 31 (time.AddDate would give Mar 3).
func MonthAdd(anchor Date, k, day int) Date {
	idx := anchor.year*12 + int(anchor.month-1) + k
	y, m := idx/12, time.Month(idx%12+1)
	return Date{y, m, min(day, DaysInMonth(y, m))}
}

// MarshalJSON writes "YYYY-MM-DD", or null for the zero Date.
func (d Date) MarshalJSON() ([]byte, error) {
	if d.IsZero() {
		return []byte("null"), nil
	}
	return []byte(`"` + d.String() + `"`), nil
}

// UnmarshalJSON accepts a JSON string in strict YYYY-MM-DD form, and null as
// the zero Date, so that what MarshalJSON writes always reads back.
func (d *Date) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		*d = Date{}
		return nil
	}
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return errDate(problemDate)
	}
	v, err := ParseDate(s[1 : len(s)-1])
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Value stores a date as TEXT YYYY-MM-DD (NULL for the zero Date).
func (d Date) Value() (driver.Value, error) {
	if d.IsZero() {
		return nil, nil
	}
	return d.String(), nil
}

// Scan reads TEXT YYYY-MM-DD.
func (d *Date) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d = Date{}
		return nil
	case string:
		p, err := ParseDate(v)
		*d = p
		return err
	case []byte:
		p, err := ParseDate(string(v))
		*d = p
		return err
	}
	return fmt.Errorf("finance.Date: cannot scan %T", src)
}

// DateProblem returns the field problem text of a date parse error, or "".
func DateProblem(err error) string {
	var e errDate
	if errors.As(err, &e) {
		return string(e)
	}
	return ""
}
