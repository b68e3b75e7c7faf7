package finance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNextStatementDate(t *testing.T) {
	tests := []struct {
		day   int
		today Date
		want  Date
	}{
		{15, NewDate(2025, 3, 11), NewDate(2025, 3, 15)},
		{11, NewDate(2025, 3, 11), NewDate(2025, 3, 11)}, // today itself is still open
		{10, NewDate(2025, 3, 11), NewDate(2025, 4, 10)},
		{31, NewDate(2025, 2, 10), NewDate(2025, 2, 28)}, // clamped to the month's end
		{31, NewDate(2024, 2, 29), NewDate(2024, 2, 29)},
		{30, NewDate(2025, 1, 31), NewDate(2025, 2, 28)},
		{31, NewDate(2025, 4, 30), NewDate(2025, 4, 30)},
		{5, NewDate(2025, 12, 6), NewDate(2026, 1, 5)},
	}
	for _, tt := range tests {
		if got := NextStatementDate(tt.day, tt.today); got != tt.want {
			t.Errorf("NextStatementDate(%d, %s) = %s, want %s", tt.day, tt.today, got, tt.want)
		}
	}
}

func TestCardFigures(t *testing.T) {
	today := NewDate(2025, 3, 11)
	due := NewDate(2025, 4, 5)
	tests := []struct {
		name   string
		limit  Money
		totals CardTotals
		want   CardFigures
	}{
		{
			name: "no rows", limit: 50000_00,
			want: CardFigures{AvailableCredit: 50000_00, NextStatementDate: NewDate(2025, 3, 15)},
		},
		{
			// 3.05 of 8.00 is 38.125%: half-up to 38.13.
			name: "half-up utilization", limit: 8_00,
			totals: CardTotals{Charges: 4_00, Credits: 95, UnbilledCharges: 3_00, UnbilledCredits: 95},
			want: CardFigures{OutstandingBalance: 3_05, AvailableCredit: 4_95, UtilizationPercent: 38_13,
				UnbilledTotal: 2_05, NextStatementDate: NewDate(2025, 3, 15)},
		},
		{
			name: "payments and open statements", limit: 10000_00,
			totals: CardTotals{Charges: 12000_00, Payments: 1000_00, OpenStatementBalance: 5000_00, OpenSOACount: 2, NextDueDate: due},
			want: CardFigures{OutstandingBalance: 11000_00, AvailableCredit: -1000_00, UtilizationPercent: 110_00,
				OpenStatementBalance: 5000_00, OpenSOACount: 2, NextDueDate: due, NextStatementDate: NewDate(2025, 3, 15)},
		},
		{
			name: "credits above charges", limit: 100_00,
			totals: CardTotals{Charges: 10_00, Credits: 15_00, UnbilledCredits: 15_00},
			want: CardFigures{OutstandingBalance: -5_00, AvailableCredit: 105_00, UtilizationPercent: 0,
				UnbilledTotal: -15_00, NextStatementDate: NewDate(2025, 3, 15)},
		},
		{
			// 0.01 of 300.00 is 0.00333...%: rounds down to 0.00; of 3.00 it is 0.333...%: 0.33.
			name: "tiny utilization", limit: 300_00, totals: CardTotals{Charges: 1},
			want: CardFigures{OutstandingBalance: 1, AvailableCredit: 299_99, NextStatementDate: NewDate(2025, 3, 15)},
		},
		{
			name: "small utilization", limit: 3_00, totals: CardTotals{Charges: 1},
			want: CardFigures{OutstandingBalance: 1, AvailableCredit: 2_99, UtilizationPercent: 33, NextStatementDate: NewDate(2025, 3, 15)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := CreditCard{CreditLimit: tt.limit, StatementDay: 15}
			if diff := cmp.Diff(tt.want, c.Figures(tt.totals, today), cmp.AllowUnexported(Date{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCardRequestCycleStart(t *testing.T) {
	today := NewDate(2025, 3, 11)
	old := NewDate(2019, 1, 1)
	tests := []struct {
		name    string
		create  bool
		field   Field[Date]
		current Date
		want    Date
		problem string
	}{
		{name: "create default", create: true, want: today},
		{name: "create null", create: true, field: Field[Date]{Set: true, Null: true}, want: today},
		{name: "earliest", create: true, field: Of(NewDate(2020, 3, 11)), want: NewDate(2020, 3, 11)},
		{name: "too old", create: true, field: Of(NewDate(2020, 3, 10)), want: NewDate(2020, 3, 10),
			problem: "must be from 2020-03-11 to 2025-03-11 (today, at most 5 years back)"},
		{name: "future", create: true, field: Of(today.AddDays(1)), want: today.AddDays(1),
			problem: "must be from 2020-03-11 to 2025-03-11 (today, at most 5 years back)"},
		{name: "update keeps an aged date", current: old, want: old},
		{name: "update sends the aged date back unchanged", current: old, field: Of(old), want: old},
		{name: "update null resets to today", current: old, field: Field[Date]{Set: true, Null: true}, want: today},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v Validator
			c := CreditCard{CycleStartDate: tt.current}
			CardRequest{CycleStartDate: tt.field}.apply(&v, &c, tt.create, today)
			if c.CycleStartDate != tt.want || v.fields["cycle_start_date"] != tt.problem {
				t.Errorf("cycle_start_date %s (problem %q), want %s (%q)", c.CycleStartDate, v.fields["cycle_start_date"], tt.want, tt.problem)
			}
		})
	}
}
