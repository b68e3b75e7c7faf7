package finance

import (
	"testing"
	"time"
)

// The quiet window holds [start, end): one inside a day and one across
// midnight, with their edges.
func TestReminderQuietHours(t *testing.T) {
	window := func(start, end string) ReminderSettings { return ReminderSettings{QuietStart: &start, QuietEnd: &end} }
	at := func(hhmm string) time.Time {
		tm, err := time.Parse("15:04", hhmm)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, tc := range []struct {
		st    ReminderSettings
		at    string
		quiet bool
	}{
		{window("22:00", "07:00"), "21:59", false},
		{window("22:00", "07:00"), "22:00", true},
		{window("22:00", "07:00"), "00:00", true},
		{window("22:00", "07:00"), "06:59", true},
		{window("22:00", "07:00"), "07:00", false},
		{window("13:00", "14:30"), "12:59", false},
		{window("13:00", "14:30"), "13:00", true},
		{window("13:00", "14:30"), "14:29", true},
		{window("13:00", "14:30"), "14:30", false},
		{window("13:00", "14:30"), "23:00", false},
		{ReminderSettings{}, "03:00", false},
	} {
		if got := tc.st.quiet(at(tc.at)); got != tc.quiet {
			t.Errorf("quiet %v–%v at %s = %v, want %v", tc.st.QuietStart, tc.st.QuietEnd, tc.at, got, tc.quiet)
		}
	}
}

// The digest due at a moment is the last digest day whose hour has come.
func TestReminderDigestDate(t *testing.T) {
	st := ReminderSettings{DigestDay: "monday", DigestHour: 8}
	for _, tc := range []struct{ at, want string }{
		{"2025-03-10 07:59", "2025-03-03"}, // Monday before the hour: last week's
		{"2025-03-10 08:00", "2025-03-10"},
		{"2025-03-16 23:59", "2025-03-10"}, // Sunday
		{"2025-03-17 08:00", "2025-03-17"},
	} {
		at, _ := time.Parse("2006-01-02 15:04", tc.at)
		if got, ok := digestDate(st, at); !ok || got.String() != tc.want {
			t.Errorf("digest at %s = %s %v, want %s", tc.at, got, ok, tc.want)
		}
	}
	if _, ok := digestDate(ReminderSettings{DigestDay: "off"}, time.Now()); ok {
		t.Error("a digest that is off is due")
	}
	sunday := ReminderSettings{DigestDay: "sunday", DigestHour: 0}
	if got, _ := digestDate(sunday, time.Date(2025, 3, 15, 12, 0, 0, 0, time.UTC)); got.String() != "2025-03-09" {
		t.Errorf("Sunday's digest seen on Saturday 2025-03-15 = %s, want 2025-03-09", got)
	}
}

// Times are HH:MM, 24-hour, two digits each.
func TestClockMinutes(t *testing.T) {
	for in, want := range map[string]int{"00:00": 0, "07:30": 450, "23:59": 1439} {
		if got, ok := clockMinutes(in); !ok || got != want {
			t.Errorf("%s = %d %v, want %d", in, got, ok, want)
		}
	}
	for _, bad := range []string{"24:00", "7:30", "07:60", "0730", "+7:30", "07:+3", "", "aa:bb"} {
		if _, ok := clockMinutes(bad); ok {
			t.Errorf("%q read as a time", bad)
		}
	}
}
