package finance

import "testing"

// Measure applies the state rule of domain.md §2.1 with integer arithmetic:
// exceeded above the limit; warning from warning_percent of it, the limit
// itself included; ok below.
func TestBudgetLimitMeasure(t *testing.T) {
	tests := []struct {
		name                   string
		limit, spent           Money
		warn                   int
		state                  string
		remaining, percentUsed Money
	}{
		{"nothing spent", 1000_00, 0, 80, BudgetOK, 1000_00, 0},
		{"one centavo below the warning", 1000_00, 799_99, 80, BudgetOK, 200_01, 80_00},
		{"exactly the warning", 1000_00, 800_00, 80, BudgetWarning, 200_00, 80_00},
		{"exactly the limit", 1000_00, 1000_00, 80, BudgetWarning, 0, 100_00},
		{"one centavo over", 1000_00, 1000_01, 80, BudgetExceeded, -1, 100_00},
		{"warning at 100% is the limit itself", 3_00, 3_00, 100, BudgetWarning, 0, 100_00},
		{"a third, half-up", 3_00, 1_00, 50, BudgetOK, 2_00, 33_33},
		{"two thirds, half-up", 3_00, 2_00, 50, BudgetWarning, 1_00, 66_67},
		{"refunds above spending", 100_00, -25_00, 1, BudgetOK, 125_00, -25_00},
		{"the largest limit, far over", MaxMoney, 3 * MaxMoney, 80, BudgetExceeded, -2 * MaxMoney, 300_00},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := BudgetLimit{MonthlyLimit: tt.limit, WarningPercent: tt.warn}.Measure(tt.spent)
			if got.State != tt.state || got.Remaining != tt.remaining || got.PercentUsed != tt.percentUsed || got.Spent != tt.spent {
				t.Errorf("Measure(%s of %s at %d%%) = %s, remaining %s, %s%%; want %s, %s, %s%%", tt.spent, tt.limit, tt.warn,
					got.State, got.Remaining, got.PercentUsed, tt.state, tt.remaining, tt.percentUsed)
			}
		})
	}
}
