package finance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The bill rows of domain.md §4.2 and the other frequencies, anchored on the
// due day from the first occurrence.
func TestBillOccurrences(t *testing.T) {
	day := func(d int) *int { return &d }
	for _, tt := range []struct {
		name           string
		t              BillTemplate
		after, through string
		want           []string
	}{
		{"monthly on the 31st", BillTemplate{Frequency: FrequencyMonthly, StartDate: mustDate(t, "2025-01-10"), DueDay: day(31)}, "", "2025-05-01",
			[]string{"2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30"}},
		{"the 31st from a clamped first occurrence", BillTemplate{Frequency: FrequencyMonthly, StartDate: mustDate(t, "2025-02-10"), DueDay: day(31)}, "", "2025-05-01",
			[]string{"2025-02-28", "2025-03-31", "2025-04-30"}},
		{"first due day after the start", BillTemplate{Frequency: FrequencyMonthly, StartDate: mustDate(t, "2025-02-10"), DueDay: day(5)}, "", "2025-04-05",
			[]string{"2025-03-05", "2025-04-05"}},
		{"due on the start date", BillTemplate{Frequency: FrequencyMonthly, StartDate: mustDate(t, "2025-02-05"), DueDay: day(5)}, "", "2025-03-04",
			[]string{"2025-02-05"}},
		{"biweekly", BillTemplate{Frequency: FrequencyBiweekly, StartDate: mustDate(t, "2025-03-03")}, "", "2025-04-01",
			[]string{"2025-03-03", "2025-03-17", "2025-03-31"}},
		{"weekly after a date", BillTemplate{Frequency: FrequencyWeekly, StartDate: mustDate(t, "2024-01-01")}, "2025-03-03", "2025-03-17",
			[]string{"2025-03-10", "2025-03-17"}},
		{"quarterly from a month end", BillTemplate{Frequency: FrequencyQuarterly, StartDate: mustDate(t, "2024-11-30"), DueDay: day(30)}, "", "2025-08-31",
			[]string{"2024-11-30", "2025-02-28", "2025-05-30", "2025-08-30"}},
		{"semiannual", BillTemplate{Frequency: FrequencySemiannual, StartDate: mustDate(t, "2024-08-31"), DueDay: day(31)}, "", "2025-08-31",
			[]string{"2024-08-31", "2025-02-28", "2025-08-31"}},
		{"yearly from a leap day", BillTemplate{Frequency: FrequencyYearly, StartDate: mustDate(t, "2024-02-29"), DueDay: day(29)}, "2024-02-29", "2028-03-01",
			[]string{"2025-02-28", "2026-02-28", "2027-02-28", "2028-02-29"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var after Date
			if tt.after != "" {
				after = mustDate(t, tt.after)
			}
			var got []string
			for _, d := range tt.t.Occurrences(after, mustDate(t, tt.through)) {
				got = append(got, d.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The horizon is the end of next month, or a later dateTo capped at a year ahead.
func TestBillHorizon(t *testing.T) {
	for _, tt := range []struct{ today, dateTo, want string }{
		{"2025-01-31", "", "2025-02-28"},
		{"2025-12-15", "", "2026-01-31"},
		{"2025-03-11", "2025-04-01", "2025-04-30"},
		{"2025-03-11", "2025-09-30", "2025-09-30"},
		{"2025-03-11", "2030-01-01", "2026-03-11"},
		{"2024-02-29", "2030-01-01", "2025-02-28"},
	} {
		var dateTo Date
		if tt.dateTo != "" {
			dateTo = mustDate(t, tt.dateTo)
		}
		if got := BillHorizon(mustDate(t, tt.today), dateTo).String(); got != tt.want {
			t.Errorf("BillHorizon(%s, %q) = %s, want %s", tt.today, tt.dateTo, got, tt.want)
		}
	}
}

// Semi-monthly dates (domain.md "Frequencies and the semi-monthly rule"):
// the 15th and the last day across 31-day months and February, leap and not.
func TestSemimonthlyOccurrences(t *testing.T) {
	day := func(d int) *int { return &d }
	for _, tt := range []struct {
		name           string
		start          string
		first, second  int
		after, through string
		want           []string
	}{
		{"15th and last through a non-leap February", "2025-01-01", 15, 31, "", "2025-05-31",
			[]string{"2025-01-15", "2025-01-31", "2025-02-15", "2025-02-28", "2025-03-15", "2025-03-31",
				"2025-04-15", "2025-04-30", "2025-05-15", "2025-05-31"}},
		{"15th and last through a leap February", "2024-01-20", 15, 31, "", "2024-03-15",
			[]string{"2024-01-31", "2024-02-15", "2024-02-29", "2024-03-15"}},
		{"10th and 30th: February's falls on its last day", "2025-01-01", 10, 30, "", "2025-03-31",
			[]string{"2025-01-10", "2025-01-30", "2025-02-10", "2025-02-28", "2025-03-10", "2025-03-30"}},
		{"27th and 29th meet neither in February 2025 nor 2024", "2025-02-01", 27, 29, "", "2025-03-31",
			[]string{"2025-02-27", "2025-02-28", "2025-03-27", "2025-03-29"}},
		{"a start after both days of its month", "2025-02-20", 1, 15, "", "2025-03-31",
			[]string{"2025-03-01", "2025-03-15"}},
		{"a start between the days, on a clamped last day", "2025-02-20", 15, 31, "", "2025-03-15",
			[]string{"2025-02-28", "2025-03-15"}},
		{"after a date", "2024-12-01", 15, 31, "2025-02-15", "2025-03-31",
			[]string{"2025-02-28", "2025-03-15", "2025-03-31"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := Recurrence{Frequency: FrequencySemimonthly, StartDate: mustDate(t, tt.start), DueDay: day(tt.first), SecondDueDay: day(tt.second)}
			var after Date
			if tt.after != "" {
				after = mustDate(t, tt.after)
			}
			var got []string
			for _, d := range r.Occurrences(after, mustDate(t, tt.through)) {
				got = append(got, d.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
