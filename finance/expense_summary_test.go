package finance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPreviousPeriod(t *testing.T) {
	tests := []struct{ from, to, wantFrom, wantTo Date }{
		// One whole calendar month compares with the whole previous month.
		{NewDate(2025, 3, 1), NewDate(2025, 3, 31), NewDate(2025, 2, 1), NewDate(2025, 2, 28)},
		{NewDate(2025, 11, 1), NewDate(2025, 11, 30), NewDate(2025, 10, 1), NewDate(2025, 10, 31)},
		{NewDate(2024, 3, 1), NewDate(2024, 3, 31), NewDate(2024, 2, 1), NewDate(2024, 2, 29)},
		{NewDate(2025, 1, 1), NewDate(2025, 1, 31), NewDate(2024, 12, 1), NewDate(2024, 12, 31)},
		{NewDate(2025, 2, 1), NewDate(2025, 2, 28), NewDate(2025, 1, 1), NewDate(2025, 1, 31)},
		// Any other range: the equal-length range just before.
		{NewDate(2025, 3, 1), NewDate(2025, 3, 1), NewDate(2025, 2, 28), NewDate(2025, 2, 28)},
		{NewDate(2025, 3, 1), NewDate(2025, 3, 30), NewDate(2025, 1, 30), NewDate(2025, 2, 28)}, // a day short of the month
		{NewDate(2025, 3, 2), NewDate(2025, 3, 31), NewDate(2025, 1, 31), NewDate(2025, 3, 1)},
		{NewDate(2025, 3, 1), NewDate(2025, 4, 30), NewDate(2024, 12, 30), NewDate(2025, 2, 28)}, // two months
		{NewDate(2024, 3, 1), NewDate(2024, 3, 7), NewDate(2024, 2, 23), NewDate(2024, 2, 29)},
		// 365 days back from 2025 ends inside leap 2024.
		{NewDate(2025, 1, 1), NewDate(2025, 12, 31), NewDate(2024, 1, 2), NewDate(2024, 12, 31)},
	}
	for _, tt := range tests {
		from, to := PreviousPeriod(tt.from, tt.to)
		if from != tt.wantFrom || to != tt.wantTo {
			t.Errorf("PreviousPeriod(%s, %s) = %s, %s; want %s, %s", tt.from, tt.to, from, to, tt.wantFrom, tt.wantTo)
		}
	}
}

func TestBuildExpenseSummary(t *testing.T) {
	from, to := NewDate(2025, 3, 1), NewDate(2025, 3, 31)
	cur := ExpenseTotals{
		Total: 1_00, Count: 3,
		ByCategory: []CategoryTotal{
			{CategoryID: "g", Category: "Groceries", Amount: 30, Count: 2},
			{CategoryID: "s", Category: "Shopping", Amount: 70, Count: 1},
			{CategoryID: "a", Category: "Apparel", Amount: 0, Count: 1},
		},
		ByMethod: []MethodTotal{{PaymentMethod: MethodCreditCard, Amount: 1_00, Count: 3}},
	}
	got := BuildExpenseSummary(from, to, "PHP", cur, ExpenseTotals{Total: 3_00}, CardSpending{FeesInterest: 50, Refunds: 20}, 5)
	change := Money(-66_67) // (1.00 - 3.00) / 3.00 = -66.666...%: half-up is -66.67
	want := ExpenseSummary{
		DateFrom: from, DateTo: to, Currency: "PHP", TotalExpenses: 1_00, Count: 3,
		DailyAverage: 3, // 1.00 / 31 days = 0.0322...: 0.03
		ByCategory: []CategoryShare{
			{CategoryID: "s", Category: "Shopping", Amount: 70, Count: 1, Percent: 70_00},
			{CategoryID: "g", Category: "Groceries", Amount: 30, Count: 2, Percent: 30_00},
			{CategoryID: "a", Category: "Apparel", Amount: 0, Count: 1, Percent: 0},
		},
		ByPaymentMethod: []MethodShare{{PaymentMethod: MethodCash}, {PaymentMethod: MethodAccountDebit},
			{PaymentMethod: MethodCreditCard, Amount: 1_00, Count: 3}},
		OtherSpending:  OtherSpending{CardFeesInterest: 50, LoanInterest: 5, CardRefunds: 20},
		TotalSpending:  1_35,
		PreviousPeriod: PeriodTotal{DateFrom: NewDate(2025, 2, 1), DateTo: NewDate(2025, 2, 28), TotalExpenses: 3_00},
		ChangePercent:  &change,
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(Date{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// Nothing before: no change; nothing at all: zero percents, no division by zero.
	empty := BuildExpenseSummary(from, to, "PHP", ExpenseTotals{}, ExpenseTotals{}, CardSpending{}, 0)
	if empty.ChangePercent != nil || empty.DailyAverage != 0 || len(empty.ByCategory) != 0 || len(empty.ByPaymentMethod) != 3 {
		t.Errorf("empty summary %+v", empty)
	}
	// Half-up on the daily average: 0.31 over 2 days is 0.155, which rounds to 0.16.
	if got := BuildExpenseSummary(from, from.AddDays(1), "PHP", ExpenseTotals{Total: 31}, ExpenseTotals{}, CardSpending{}, 0); got.DailyAverage != 16 {
		t.Errorf("daily average %s, want 0.16", got.DailyAverage)
	}
	// Growth from 0.01 to 1.00 is 9900%.
	up := BuildExpenseSummary(from, to, "PHP", ExpenseTotals{Total: 1_00}, ExpenseTotals{Total: 1}, CardSpending{}, 0)
	if up.ChangePercent == nil || *up.ChangePercent != 9900_00 {
		t.Errorf("change %v", up.ChangePercent)
	}
}
