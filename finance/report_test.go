package finance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReportBuckets(t *testing.T) {
	d := func(s string) Date {
		t.Helper()
		x, err := ParseDate(s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	tests := []struct {
		name, from, to, granularity, weekStart string
		want                                   []string
	}{
		{"days across a year end", "2024-12-30", "2025-01-02", GranularityDay, "monday", []string{"2024-12-30", "2024-12-31", "2025-01-01", "2025-01-02"}},
		{"days across a leap day", "2024-02-28", "2024-03-01", GranularityDay, "monday", []string{"2024-02-28", "2024-02-29", "2024-03-01"}},
		{"one day", "2025-03-05", "2025-03-05", GranularityDay, "monday", []string{"2025-03-05"}},
		// 2025-03-01 is a Saturday: its Monday week starts 02-24, its Sunday week 02-23.
		{"monday weeks of a month", "2025-03-01", "2025-03-31", GranularityWeek, "monday",
			[]string{"2025-02-24", "2025-03-03", "2025-03-10", "2025-03-17", "2025-03-24", "2025-03-31"}},
		{"sunday weeks of a month", "2025-03-01", "2025-03-31", GranularityWeek, "sunday",
			[]string{"2025-02-23", "2025-03-02", "2025-03-09", "2025-03-16", "2025-03-23", "2025-03-30"}},
		{"a range starting on the week's first day", "2025-03-03", "2025-03-09", GranularityWeek, "monday", []string{"2025-03-03"}},
		{"sunday weeks across a year end", "2024-12-30", "2025-01-06", GranularityWeek, "sunday", []string{"2024-12-29", "2025-01-05"}},
		{"months across a year end", "2024-11-15", "2025-02-01", GranularityMonth, "monday", []string{"2024-11", "2024-12", "2025-01", "2025-02"}},
		{"one month", "2025-03-01", "2025-03-31", GranularityMonth, "monday", []string{"2025-03"}},
		{"the default is months", "2025-01-31", "2025-02-01", "", "monday", []string{"2025-01", "2025-02"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, b := range ReportBuckets(d(tt.from), d(tt.to), tt.granularity, tt.weekStart) {
				got = append(got, b.Period)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("periods (-want +got):\n%s", diff)
			}
		})
	}

	// Days fall into their bucket; empty buckets stay empty; days outside none.
	buckets := ReportBuckets(d("2025-03-01"), d("2025-03-31"), GranularityWeek, "monday")
	day := func(s string, m Money) DatedAmount { return DatedAmount{Currency: "PHP", Date: d(s), Amount: m} }
	got := byBucket(buckets, []DatedAmount{day("2025-03-01", 100), day("2025-03-02", 5), day("2025-03-03", 7),
		day("2025-03-31", 9), day("2025-04-07", 1000), day("2025-02-23", 1000)})
	want := [][]DatedAmount{{day("2025-03-01", 100), day("2025-03-02", 5)}, {day("2025-03-03", 7)}, nil, nil, nil, {day("2025-03-31", 9)}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(Date{})); diff != "" {
		t.Errorf("buckets (-want +got):\n%s", diff)
	}
}

func TestReportRange(t *testing.T) {
	today := NewDate(2025, 3, 11)
	d := func(s string) Date { x, _ := ParseDate(s); return x }
	tests := []struct {
		name      string
		req       ReportRequest
		from, to  string
		wantField string
	}{
		{"defaults to the current month", ReportRequest{}, "2025-03-01", "2025-03-31", ""},
		{"exactly five years", ReportRequest{From: d("2020-02-29"), To: d("2025-02-27")}, "2020-02-29", "2025-02-27", ""},
		{"five years and a day", ReportRequest{From: d("2020-03-01"), To: d("2025-03-01")}, "", "", "dateTo"},
		{"366 days by day", ReportRequest{From: d("2024-01-01"), To: d("2024-12-31"), Granularity: GranularityDay}, "2024-01-01", "2024-12-31", ""},
		{"367 days by day", ReportRequest{From: d("2024-01-01"), To: d("2025-01-01"), Granularity: GranularityDay}, "", "", "granularity"},
		{"367 days by week", ReportRequest{From: d("2024-01-01"), To: d("2025-01-01"), Granularity: GranularityWeek}, "2024-01-01", "2025-01-01", ""},
		{"from after the default to", ReportRequest{From: d("2025-04-01")}, "", "", "dateFrom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to, err := reportRange(tt.req, today)
			if tt.wantField != "" {
				var v *ValidationError
				if ve, ok := err.(*ValidationError); ok {
					v = ve
				}
				if v == nil || v.Fields[tt.wantField] == "" {
					t.Fatalf("err = %v, want a problem with %s", err, tt.wantField)
				}
				return
			}
			if err != nil || from.String() != tt.from || to.String() != tt.to {
				t.Errorf("range = %s..%s, %v; want %s..%s", from, to, err, tt.from, tt.to)
			}
		})
	}
}
