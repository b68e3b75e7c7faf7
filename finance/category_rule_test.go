package finance

import (
	"testing"
)

func TestApplyRulesFirstMatchWins(t *testing.T) {
	text := func(s string) *string { return &s }
	money := func(m Money) *Money { return &m }
	rules := []CategoryRule{
		{ID: "archived", Position: 1, DescriptionContains: text("grab"), Category: "Old", CategoryKind: KindExpense},
		{ID: "big", Position: 2, DescriptionContains: text("GRAB"), AmountMin: money(500_00), AmountMax: money(1000_00),
			Category: "Travel", CategoryKind: KindExpense, Active: true},
		{ID: "grab", Position: 3, DescriptionContains: text("Grab"), Category: "Transportation", CategoryKind: KindExpense, Active: true},
		{ID: "payee", Position: 4, PayeeEquals: text("Meralco"), Category: "Utilities", CategoryKind: KindExpense, Active: true},
		{ID: "income", Position: 5, DescriptionContains: text("grab"), Category: "Freelance", CategoryKind: KindIncome, Active: true},
	}
	set := "Food & Dining"
	row := func(desc string, amount Money, payee *string, record string) ImportRow {
		return ImportRow{Description: desc, Amount: &amount, Payee: payee, Record: record}
	}
	rows := []ImportRow{
		row("GRAB A-1", 185_00, nil, RecordImportExpense),                                        // below the range: rule 3
		row("grabfood", 500_00, nil, RecordImportExpense),                                        // the range's inclusive bound: rule 2
		row("GRAB CAR", 1000_01, nil, RecordImportRefund),                                        // above it, a refund needs an expense category: rule 3
		row("MERALCO", 10_00, text(" meralco "), RecordImportExpense),                            // payee ignoring case and blanks: rule 4
		row("MERALCO", 10_00, nil, RecordImportExpense),                                          // no payee: no rule
		row("GRAB PAY", 10_00, nil, RecordImportIncome),                                          // an income rule for income
		row("GRAB", 10_00, nil, RecordImportLine),                                                // an account line has no category
		{Description: "GRAB", Amount: money(10_00), Record: RecordImportExpense, Category: &set}, // the person's choice stays
	}
	for _, kind := range []CategoryKind{KindExpense, KindIncome} {
		applyRules(rules, kind, rows)
	}
	want := []string{"grab 3", "big 2", "grab 3", "payee 4", "", "income 5", "", ""}
	for i, r := range rows {
		got := ""
		if r.CategoryRule != nil {
			got = r.CategoryRule.ID + " " + string(rune('0'+r.CategoryRule.Position))
			if *r.CategoryReason != ReasonRule {
				t.Errorf("row %d reason %s", i, *r.CategoryReason)
			}
		}
		if got != want[i] {
			t.Errorf("row %d (%s) rule %q, want %q", i, r.Description, got, want[i])
		}
	}
	if *rows[7].Category != set || rows[7].CategoryRule != nil {
		t.Errorf("the person's category changed: %+v", rows[7])
	}
}
