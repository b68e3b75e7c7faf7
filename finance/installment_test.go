package finance

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The worked examples of domain.md §4.4, to the centavo: the rows are given
// as runs of equal rows (the last run is the last row).
func TestScheduleWorkedExamples(t *testing.T) {
	type run struct {
		count               int
		principal, interest Money
	}
	m98334 := Money(983_34)
	tests := []struct {
		name         string
		principal    Money
		months       int
		rate         Rate
		monthly      *Money
		wantInterest Money
		want         []run
	}{
		{name: "10,000.00 over 3 months, no interest", principal: 10000_00, months: 3,
			wantInterest: 0, want: []run{{2, 3333_33, 0}, {1, 3333_34, 0}}},
		{name: "20,000.00 over 24 months, add-on 0.75%", principal: 20000_00, months: 24, rate: 7500,
			wantInterest: 3600_00, want: []run{{23, 833_33, 150_00}, {1, 833_41, 150_00}}},
		{name: "12,345.67 over 5 months, add-on 0.5%", principal: 12345_67, months: 5, rate: 5000,
			wantInterest: 308_64, want: []run{{4, 2469_13, 61_72}, {1, 2469_15, 61_76}}},
		{name: "20,000.00 over 24 months at a quoted 983.34", principal: 20000_00, months: 24, monthly: &m98334,
			wantInterest: 3600_16, want: []run{{23, 833_34, 150_00}, {1, 833_18, 150_16}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first := NewDate(2025, 3, 11)
			interest, rows, err := Schedule(tt.principal, tt.months, tt.rate, tt.monthly, first)
			if err != nil {
				t.Fatal(err)
			}
			if interest != tt.wantInterest {
				t.Errorf("interest = %s, want %s", interest, tt.wantInterest)
			}
			var want []Installment
			for _, r := range tt.want {
				for range r.count {
					k := len(want)
					want = append(want, Installment{Number: k + 1, Date: MonthAdd(first, k, 11), Principal: r.principal, Interest: r.interest})
				}
			}
			if diff := cmp.Diff(want, rows, cmp.Comparer(func(a, b Date) bool { return a == b })); diff != "" {
				t.Errorf("rows (-want +got):\n%s", diff)
			}
			var principal, total Money
			for _, r := range rows {
				principal += r.Principal
				total += r.Amount()
			}
			if principal != tt.principal || total != tt.principal+interest {
				t.Errorf("principal sums to %s (want %s), amounts to %s (want %s)", principal, tt.principal, total, tt.principal+interest)
			}
		})
	}
}

// Row k is dated k−1 months after the first date, computed from the first
// date each time: a month-end first date stays on each month's end.
func TestScheduleMonthEndDates(t *testing.T) {
	_, rows, err := Schedule(400_00, 4, 0, nil, NewDate(2025, 1, 31))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Date.String())
	}
	if diff := cmp.Diff([]string{"2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30"}, got); diff != "" {
		t.Errorf("dates (-want +got):\n%s", diff)
	}
}

// A quoted monthly amount whose interest share outgrows it on the last row
// leaves that row without principal: refused on monthly_amount.
func TestScheduleQuotedAmountWithoutPrincipal(t *testing.T) {
	// 1.00 over 60 months at 1.00 a month: interest 59.00, 0.98 a row and
	// 1.18 on the last, which is more than the 1.00 it bills.
	m := Money(1_00)
	_, _, err := Schedule(1_00, 60, 0, &m, NewDate(2025, 3, 11))
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("err = %v, want a validation error", err)
	}
	want := map[string]string{"monthly_amount": "leaves installment 60 without principal: 1.18 of interest in a 1.00 payment"}
	if diff := cmp.Diff(want, ve.Fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}
