package finance

import "testing"

// When a due item is due, in the words Home shows.
func TestDueItemWhen(t *testing.T) {
	for days, want := range map[int]string{-21: "21 days overdue", -1: "1 day overdue", 0: "due today", 1: "due tomorrow", 5: "due in 5 days"} {
		d := DueItem{Days: days}
		if got := d.When(); got != want {
			t.Errorf("%d days: %q, want %q", days, got, want)
		}
		if d.Overdue() != (days < 0) {
			t.Errorf("%d days: overdue %v", days, d.Overdue())
		}
	}
}
