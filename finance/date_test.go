package finance

import (
	"encoding/json"
	"testing"
	"time"
)

func TestParseDateAccepts(t *testing.T) {
	tests := []struct {
		in      string
		y, m, d int
	}{
		{"2025-01-31", 2025, 1, 31},
		{"2024-02-29", 2024, 2, 29}, // leap year
		{"2000-02-29", 2000, 2, 29}, // divisible by 400: leap
		{"1900-01-01", 1900, 1, 1},  // lower bound
		{"2100-12-31", 2100, 12, 31},
		{"2025-04-30", 2025, 4, 30},
		{"2025-12-01", 2025, 12, 1},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseDate(tt.in)
			if err != nil {
				t.Fatalf("ParseDate(%q): %v", tt.in, err)
			}
			if got.Year() != tt.y || int(got.Month()) != tt.m || got.Day() != tt.d {
				t.Errorf("ParseDate(%q) = %d-%d-%d", tt.in, got.Year(), got.Month(), got.Day())
			}
			if got.String() != tt.in {
				t.Errorf("String() = %q, want %q", got.String(), tt.in)
			}
			if got.IsZero() {
				t.Error("a parsed date is zero")
			}
		})
	}
}

func TestParseDateRejects(t *testing.T) {
	tests := []struct{ name, in string }{
		{"not a leap year", "2025-02-29"},
		{"february 30", "2025-02-30"},
		{"1900 is not a leap year", "1900-02-29"},
		{"april 31", "2025-04-31"},
		{"single-digit month and day", "2025-2-3"},
		{"single-digit day padded at end", "2025-02-3 "},
		{"with time", "2025-02-03T00:00:00Z"},
		{"with space time", "2025-02-03 10:00"},
		{"before 1900", "1899-12-31"},
		{"after 2100", "2101-01-01"},
		{"month 13", "2025-13-01"},
		{"month 0", "2025-00-10"},
		{"day 0", "2025-01-00"},
		{"day 32", "2025-01-32"},
		{"slashes", "2025/01/31"},
		{"day first", "31-01-2025"},
		{"empty", ""},
		{"signed year", "+025-01-01"},
		{"signed month", "2025--1-01"},
		{"letters", "abcd-ef-gh"},
		{"leading blank", " 2025-01-31"},
		{"compact", "20250131"},
		{"month only", "2025-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseDate(tt.in)
			if err == nil {
				t.Fatalf("ParseDate(%q) = %v, want an error", tt.in, got)
			}
			if DateProblem(err) != problemDate {
				t.Errorf("DateProblem = %q, want %q", DateProblem(err), problemDate)
			}
			if !got.IsZero() {
				t.Errorf("a failed parse returned %v, want the zero Date", got)
			}
		})
	}
}

// TestMonthAddSchedules reproduces the calendar table of domain.md §4.2.
// Every date is computed from the anchor, never from the previous result.
func TestParseMonth(t *testing.T) {
	for _, s := range []string{"2025-03", "1900-01", "2100-12"} {
		d, err := ParseMonth(s)
		if err != nil || d.Day() != 1 || d.MonthString() != s {
			t.Errorf("ParseMonth(%q) = %v, %v; want the first day of %s", s, d, err, s)
		}
	}
	for _, s := range []string{"", "2025-3", "2025-13", "2025-00", "1899-12", "2101-01", "2025-03-01", "2025/03", "+025-03", " 2025-03"} {
		if _, err := ParseMonth(s); DateProblem(err) != "must be a month in YYYY-MM format between 1900-01 and 2100-12" {
			t.Errorf("ParseMonth(%q) error = %v", s, err)
		}
	}
}

func TestMonthAddSchedules(t *testing.T) {
	tests := []struct {
		name   string
		anchor string
		step   int
		start  int // first k
		want   []string
	}{
		{"monthly from 2025-01-31", "2025-01-31", 1, 0,
			[]string{"2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30", "2025-05-31"}},
		{"quarterly from 2024-11-30", "2024-11-30", 3, 0,
			[]string{"2024-11-30", "2025-02-28", "2025-05-30", "2025-08-30"}},
		{"yearly from 2024-02-29", "2024-02-29", 12, 1,
			[]string{"2025-02-28", "2026-02-28", "2027-02-28", "2028-02-29"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			anchor := mustDate(t, tt.anchor)
			for i, want := range tt.want {
				k := (tt.start + i) * tt.step
				if got := MonthAdd(anchor, k, anchor.Day()).String(); got != want {
					t.Errorf("MonthAdd(%s, %d, %d) = %s, want %s", anchor, k, anchor.Day(), got, want)
				}
			}
		})
	}
}

func TestMonthAdd(t *testing.T) {
	tests := []struct {
		name   string
		anchor string
		k, day int
		want   string
	}{
		{"due day beyond february", "2025-01-10", 1, 31, "2025-02-28"},
		{"due day kept when it exists", "2025-01-10", 2, 31, "2025-03-31"},
		{"due day in leap february", "2024-01-10", 1, 30, "2024-02-29"},
		{"across the year end", "2025-11-15", 3, 15, "2026-02-15"},
		{"zero months", "2025-01-31", 0, 31, "2025-01-31"},
		{"backwards", "2025-03-31", -1, 31, "2025-02-28"},
		{"backwards across the year", "2025-01-15", -2, 15, "2024-11-15"},
		{"smaller day than anchor", "2025-01-31", 1, 5, "2025-02-05"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MonthAdd(mustDate(t, tt.anchor), tt.k, tt.day).String(); got != tt.want {
				t.Errorf("MonthAdd(%s, %d, %d) = %s, want %s", tt.anchor, tt.k, tt.day, got, tt.want)
			}
		})
	}
}

func TestAddDaysAndDaysUntil(t *testing.T) {
	tests := []struct {
		name     string
		from     string
		n        int
		want     string
		backDays int
	}{
		{"into leap day", "2024-02-28", 1, "2024-02-29", 1},
		{"over leap day", "2024-02-28", 2, "2024-03-01", 2},
		{"no leap day", "2025-02-28", 1, "2025-03-01", 1},
		{"over the year end", "2024-12-31", 1, "2025-01-01", 1},
		{"backwards", "2025-03-01", -1, "2025-02-28", -1},
		{"zero", "2025-03-01", 0, "2025-03-01", 0},
		{"a whole leap year", "2024-01-01", 366, "2025-01-01", 366},
		{"across a DST change elsewhere", "2025-03-08", 2, "2025-03-10", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from := mustDate(t, tt.from)
			got := from.AddDays(tt.n)
			if got.String() != tt.want {
				t.Errorf("%s.AddDays(%d) = %s, want %s", from, tt.n, got, tt.want)
			}
			if d := from.DaysUntil(got); d != tt.backDays {
				t.Errorf("%s.DaysUntil(%s) = %d, want %d", from, got, d, tt.backDays)
			}
			if d := got.DaysUntil(from); d != -tt.backDays {
				t.Errorf("%s.DaysUntil(%s) = %d, want %d", got, from, d, -tt.backDays)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"2025-01-31", "2025-01-31", 0},
		{"2025-01-31", "2025-02-01", -1},
		{"2025-02-01", "2025-01-31", 1},
		{"2024-12-31", "2025-01-01", -1},
		{"2025-01-02", "2025-01-10", -1},
		{"2025-10-01", "2025-09-30", 1},
	}
	for _, tt := range tests {
		t.Run(tt.a+" vs "+tt.b, func(t *testing.T) {
			a, b := mustDate(t, tt.a), mustDate(t, tt.b)
			if got := a.Compare(b); got != tt.want {
				t.Errorf("Compare = %d, want %d", got, tt.want)
			}
			if got := a.Before(b); got != (tt.want < 0) {
				t.Errorf("Before = %v", got)
			}
			if got := a.After(b); got != (tt.want > 0) {
				t.Errorf("After = %v", got)
			}
			if got := b.Compare(a); got != -tt.want {
				t.Errorf("reverse Compare = %d, want %d", got, -tt.want)
			}
		})
	}
}

func TestNewDate(t *testing.T) {
	if got := NewDate(2024, time.February, 29).String(); got != "2024-02-29" {
		t.Errorf("NewDate = %s", got)
	}
	for _, tt := range []struct {
		name    string
		y, m, d int
	}{{"february 30", 2025, 2, 30}, {"month 13", 2025, 13, 1}, {"day 0", 2025, 1, 0}} {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("NewDate(%d, %d, %d) did not panic", tt.y, tt.m, tt.d)
				}
			}()
			NewDate(tt.y, time.Month(tt.m), tt.d)
		})
	}
}

func TestDateOfAndToday(t *testing.T) {
	manila, err := time.LoadLocation("Asia/Manila")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	// 2025-01-31 20:00 UTC is already 2025-02-01 in Manila (UTC+8).
	now := time.Date(2025, 1, 31, 20, 0, 0, 0, time.UTC)
	if got := DateOf(now).String(); got != "2025-01-31" {
		t.Errorf("DateOf(UTC) = %s, want 2025-01-31", got)
	}
	if got := Today(now, manila).String(); got != "2025-02-01" {
		t.Errorf("Today(Manila) = %s, want 2025-02-01", got)
	}
}

func TestDaysInMonth(t *testing.T) {
	tests := []struct {
		y    int
		m    time.Month
		want int
	}{
		{2025, time.February, 28}, {2024, time.February, 29}, {1900, time.February, 28},
		{2000, time.February, 29}, {2025, time.April, 30}, {2025, time.December, 31},
	}
	for _, tt := range tests {
		if got := DaysInMonth(tt.y, tt.m); got != tt.want {
			t.Errorf("DaysInMonth(%d, %s) = %d, want %d", tt.y, tt.m, got, tt.want)
		}
	}
}

type dateHolder struct {
	Date Date  `json:"date"`
	Opt  *Date `json:"opt"`
}

func TestDateJSON(t *testing.T) {
	d := mustDate(t, "2025-02-03")
	b, err := json.Marshal(dateHolder{Date: d, Opt: &d})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"date":"2025-02-03","opt":"2025-02-03"}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	b, err = json.Marshal(dateHolder{})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"date":null,"opt":null}`; string(b) != want {
		t.Errorf("Marshal(zero) = %s, want %s", b, want)
	}
}

func TestDateUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    string // "" for the zero Date
		wantErr bool
	}{
		{"date string", `{"date":"2024-02-29"}`, "2024-02-29", false},
		{"null is the zero date", `{"date":null}`, "", false},
		{"absent", `{}`, "", false},
		{"impossible date", `{"date":"2025-02-30"}`, "", true},
		{"unpadded", `{"date":"2025-2-3"}`, "", true},
		{"with time", `{"date":"2025-02-03T00:00:00Z"}`, "", true},
		{"number", `{"date":20250203}`, "", true},
		{"empty string", `{"date":""}`, "", true},
		{"boolean", `{"date":true}`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got dateHolder
			err := json.Unmarshal([]byte(tt.body), &got)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Unmarshal(%s) = %v, want an error", tt.body, got.Date)
				}
				return
			}
			if err != nil {
				t.Fatalf("Unmarshal(%s): %v", tt.body, err)
			}
			if tt.want == "" {
				if !got.Date.IsZero() {
					t.Errorf("got %s, want the zero Date", got.Date)
				}
				return
			}
			if got.Date.String() != tt.want {
				t.Errorf("got %s, want %s", got.Date, tt.want)
			}
		})
	}
}

func TestDateUnmarshalErrorCarriesProblem(t *testing.T) {
	var d Date
	err := json.Unmarshal([]byte(`"2025-02-30"`), &d)
	if DateProblem(err) != problemDate {
		t.Errorf("DateProblem = %q (err %v)", DateProblem(err), err)
	}
	if DateProblem(nil) != "" {
		t.Error(`DateProblem(nil) != ""`)
	}
}

// TestDateJSONRoundTrip: what MarshalJSON writes, UnmarshalJSON reads back,
// including null for the zero Date.
func TestDateJSONRoundTrip(t *testing.T) {
	for _, in := range []dateHolder{{}, {Date: mustDate(t, "2100-12-31")}} {
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatal(err)
		}
		var out dateHolder
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("Unmarshal(%s): %v", b, err)
		}
		if out.Date != in.Date || out.Opt != nil {
			t.Errorf("round trip of %s gave %+v", b, out)
		}
	}
}

func TestDateScanValue(t *testing.T) {
	d := mustDate(t, "2025-01-31")
	if v, err := d.Value(); err != nil || v != "2025-01-31" {
		t.Errorf("Value() = %v, %v; want \"2025-01-31\"", v, err)
	}
	if v, err := (Date{}).Value(); err != nil || v != nil {
		t.Errorf("zero Value() = %v, %v; want nil (NULL)", v, err)
	}
	tests := []struct {
		name    string
		src     any
		want    string
		wantErr bool
	}{
		{"text", "2025-01-31", "2025-01-31", false},
		{"bytes", []byte("2024-02-29"), "2024-02-29", false},
		{"null", nil, "", false},
		{"bad text", "2025-02-30", "", true},
		{"bad bytes", []byte("2025-2-3"), "", true},
		{"integer", int64(20250131), "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustDate(t, "2000-01-01") // Scan must replace the old value
			err := got.Scan(tt.src)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Scan(%v) error = %v, wantErr %v", tt.src, err, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if tt.want == "" {
				if !got.IsZero() {
					t.Errorf("Scan(nil) = %s, want the zero Date", got)
				}
			} else if got.String() != tt.want {
				t.Errorf("Scan(%v) = %s, want %s", tt.src, got, tt.want)
			}
		})
	}
}

func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2025-01-31", "2024-02-29", "2025-02-29", "2025-2-3", "1900-01-01", "2100-12-31",
		"2101-01-01", "2025-02-03T00:00:00Z", "", "0000-00-00", "-001-01-01", "２０２５-01-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDate(s)
		if err != nil {
			if DateProblem(err) == "" {
				t.Fatalf("ParseDate(%q) error %v carries no field problem", s, err)
			}
			return
		}
		if d.String() != s {
			t.Fatalf("ParseDate(%q) formats back as %q", s, d.String())
		}
		if d.Year() < 1900 || d.Year() > 2100 {
			t.Fatalf("ParseDate(%q) accepted year %d", s, d.Year())
		}
		// The same date through the standard library must agree.
		if tm, err := time.Parse(time.DateOnly, s); err != nil || DateOf(tm) != d {
			t.Fatalf("ParseDate(%q) = %v, time.Parse says %v, %v", s, d, tm, err)
		}
	})
}

func mustDate(t *testing.T, s string) Date {
	t.Helper()
	d, err := ParseDate(s)
	if err != nil {
		t.Fatalf("ParseDate(%q): %v", s, err)
	}
	return d
}
