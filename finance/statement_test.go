package finance

import "testing"

// The statement table of domain.md §4.2.
func TestStatementDates(t *testing.T) {
	for _, tt := range []struct {
		statementDay, dueDay int
		in                   string
		s, start, end, due   string
	}{
		{15, 5, "2025-02-10", "2025-02-15", "2025-01-16", "2025-02-15", "2025-03-05"},
		{5, 25, "2025-02-01", "2025-02-05", "2025-01-06", "2025-02-05", "2025-02-25"},
		{31, 5, "2025-02-01", "2025-02-28", "2025-02-01", "2025-02-28", "2025-03-05"},
		{20, 20, "2025-01-20", "2025-01-20", "2024-12-21", "2025-01-20", "2025-02-20"},
		{2, 31, "2025-02-02", "2025-02-02", "2025-01-03", "2025-02-02", "2025-02-28"},
		{31, 31, "2024-02-03", "2024-02-29", "2024-02-01", "2024-02-29", "2024-03-31"},
		{30, 1, "2025-03-01", "2025-03-30", "2025-03-01", "2025-03-30", "2025-04-01"},
	} {
		s := NextStatementDate(tt.statementDay, mustDate(t, tt.in))
		p := StatementPeriod(tt.statementDay, s)
		due := DueDate(s, tt.dueDay)
		if s.String() != tt.s || p.Start.String() != tt.start || p.End.String() != tt.end || due.String() != tt.due {
			t.Errorf("day %d/%d from %s: S %s (%s … %s) due %s; want %s (%s … %s) due %s",
				tt.statementDay, tt.dueDay, tt.in, s, p.Start, p.End, due, tt.s, tt.start, tt.end, tt.due)
		}
	}
}

// The computed minimum due of domain.md §4.3.
func TestMinimumDue(t *testing.T) {
	for _, tt := range []struct {
		balance, floor Money
		percent        Rate
		want           Money
	}{
		{1_200_000, 50_000, 3 * RateScale, 50_000},
		{30_000, 50_000, 3 * RateScale, 30_000},
		{4_000_000, 50_000, 3 * RateScale, 120_000},
		{1_668_335, 50_000, 3 * RateScale, 50_050}, // 500.5005, half-up
		{0, 50_000, 3 * RateScale, 0},
		{-100, 50_000, 3 * RateScale, 0},
		{50_000, 50_000, 3 * RateScale, 50_000},
		{1_000, 0, 25_000, 25},                                             // 2.5% of 10.00
		{1_000_000_000_000_000, 0, 100 * RateScale, 1_000_000_000_000_000}, // no overflow
	} {
		if got := MinimumDue(tt.balance, tt.percent, tt.floor); got != tt.want {
			t.Errorf("MinimumDue(%s, %s%%, %s) = %s, want %s", tt.balance, tt.percent, tt.floor, got, tt.want)
		}
	}
}

// openStatementDates skips dates whose nominal period a live statement overlaps.
func TestOpenStatementDates(t *testing.T) {
	live := []Period{{mustDate(t, "2025-01-16"), mustDate(t, "2025-02-15")}}
	got := openStatementDates(15, mustDate(t, "2025-01-15"), mustDate(t, "2025-04-16"), live)
	want := []string{"2025-01-15", "2025-03-15", "2025-04-15"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range got {
		if got[i].String() != want[i] {
			t.Errorf("got %v, want %v", got, want)
		}
	}
}
