package store

import (
	"testing"

	"github.com/finance-app/finance/finance"
)

// A range reads its whole months from the month totals and the days before
// and after them from the day totals; the three parts cover the range
// exactly once.
func TestSplitKeptRange(t *testing.T) {
	d := func(s string) finance.Date {
		v, err := finance.ParseDate(s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		from, to           string
		head, months, tail [2]string // "" where the part is empty
	}{
		{"2025-03-01", "2025-03-31", [2]string{}, [2]string{"2025-03", "2025-03"}, [2]string{}},
		{"2025-03-12", "2025-03-13", [2]string{"2025-03-12", "2025-03-13"}, [2]string{}, [2]string{}},
		{"2025-02-20", "2025-03-13", [2]string{"2025-02-20", "2025-03-13"}, [2]string{}, [2]string{}},
		{"2025-02-01", "2025-03-13", [2]string{}, [2]string{"2025-02", "2025-02"}, [2]string{"2025-03-01", "2025-03-13"}},
		{"2025-02-28", "2025-03-31", [2]string{"2025-02-28", "2025-02-28"}, [2]string{"2025-03", "2025-03"}, [2]string{}},
		{"2024-02-15", "2025-03-20", [2]string{"2024-02-15", "2024-02-29"}, [2]string{"2024-03", "2025-02"}, [2]string{"2025-03-01", "2025-03-20"}},
		{"2020-04-01", "2025-03-31", [2]string{}, [2]string{"2020-04", "2025-03"}, [2]string{}},
	} {
		r := splitKeptRange(d(tc.from), d(tc.to))
		days := func(from, to finance.Date) [2]string {
			if from.After(to) {
				return [2]string{}
			}
			return [2]string{from.String(), to.String()}
		}
		months := [2]string{}
		if r.monthFrom <= r.monthTo {
			months = [2]string{r.monthFrom, r.monthTo}
		}
		if got := days(r.headFrom, r.headTo); got != tc.head {
			t.Errorf("%s..%s: head %v, want %v", tc.from, tc.to, got, tc.head)
		}
		if months != tc.months {
			t.Errorf("%s..%s: months %v, want %v", tc.from, tc.to, months, tc.months)
		}
		if got := days(r.tailFrom, r.tailTo); got != tc.tail {
			t.Errorf("%s..%s: tail %v, want %v", tc.from, tc.to, got, tc.tail)
		}
	}
}
