package finance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUtilizationLevel(t *testing.T) {
	for _, tc := range []struct {
		percent Money
		want    string
	}{
		{-1, UtilizationLow}, {0, UtilizationLow}, {29_99, UtilizationLow}, {30_00, UtilizationModerate},
		{69_99, UtilizationModerate}, {70_00, UtilizationHigh}, {89_99, UtilizationHigh}, {90_00, UtilizationCritical},
		{250_00, UtilizationCritical},
	} {
		if got := UtilizationLevel(tc.percent); got != tc.want {
			t.Errorf("UtilizationLevel(%s) = %s, want %s", tc.percent, got, tc.want)
		}
	}
}

// The totals' utilization is the summed balance over the summed limit: a
// card in credit lowers it, and no cards is 0%.
func TestBuildCardMetricsTotals(t *testing.T) {
	card := func(id string, limit, outstanding Money) CreditCard {
		c := CreditCard{ID: id, Name: id, Status: StatusActive, CreditLimit: limit}
		c.CardFigures = c.Figures(CardTotals{Charges: max(0, outstanding), Credits: max(0, -outstanding)}, NewDate(2025, 3, 11))
		return c
	}
	m := BuildCardMetrics([]CreditCard{card("a", 1000_00, 950_00), card("b", 1000_00, -150_00)},
		map[string]CardMetricTotals{"a": {MinimumDueOpen: 10_00, OverdueSOACount: 1, ActivePlans: 2, MonthInstallments: 5_50}},
		DefaultCurrency)
	want := MetricFigures{CreditLimit: 2000_00, OutstandingBalance: 800_00, AvailableCredit: 1200_00, UtilizationPercent: 40_00,
		MinimumDueOpen: 10_00, OverdueSOACount: 1, ActiveInstallmentPlans: 2, MonthlyInstallmentCommitment: 5_50}
	if diff := cmp.Diff(want, m.Totals); diff != "" {
		t.Errorf("totals (-want +got):\n%s", diff)
	}
	if m.Cards[0].UtilizationLevel != UtilizationCritical || m.Cards[1].UtilizationPercent != 0 || m.Cards[1].NextDue != nil {
		t.Errorf("cards: %+v", m.Cards)
	}
	if empty := BuildCardMetrics(nil, nil, DefaultCurrency); empty.Totals != (MetricFigures{}) || empty.Cards == nil {
		t.Errorf("no cards: %+v", empty)
	}
}

func TestTopCategories(t *testing.T) {
	cat := func(id, name string, amount Money, count int) CategoryTotal {
		return CategoryTotal{CategoryID: id, Category: name, Amount: amount, Count: count}
	}
	cats := []CategoryTotal{cat("1", "Zoo", 5_00, 1), cat("2", "Books", 50_00, 1), cat("3", "Apps", 5_00, 1), cat("4", "Cafe", 7_00, 2),
		cat("5", "Dining", 5_00, 1), cat("6", "Travel", 90_00, 1)}
	want := []CategoryAmount{{"Travel", 90_00}, {"Books", 50_00}, {"Cafe", 7_00}, {"Apps", 5_00}, {"Dining", 5_00}}
	if diff := cmp.Diff(want, topCategories(cats, MaxTopCategories)); diff != "" {
		t.Errorf("top 5 (-want +got):\n%s", diff)
	}
	if got := topCategories(nil, MaxTopCategories); got == nil || len(got) != 0 {
		t.Errorf("no categories: %#v", got)
	}
}
