package finance

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The worked examples of domain.md §4.5, to the centavo. want lists the rows
// the example states, by number; every row is checked to sum with the others
// to the principal and the total interest.
func TestLoanScheduleWorkedExamples(t *testing.T) {
	m985000 := Money(9850_00)
	tests := []struct {
		name         string
		terms        LoanTerms
		wantInterest Money
		want         map[int]LoanRow // by number; rows not listed equal the row before them unless a run says so
		runs         []loanRun       // equal rows, when the example gives runs
	}{
		{name: "100,000.00, add-on 1.5%/month, 12 months",
			terms:        LoanTerms{Principal: 100000_00, InterestType: InterestAddOn, Rate: 15000, RatePeriod: RateMonthly, Months: 12},
			wantInterest: 18000_00, runs: []loanRun{{11, 8333_33, 1500_00}, {1, 8333_37, 1500_00}}},
		{name: "25,000.00, add-on 18%/year, 9 months",
			terms:        LoanTerms{Principal: 25000_00, InterestType: InterestAddOn, Rate: 180000, RatePeriod: RateAnnual, Months: 9},
			wantInterest: 3375_00, runs: []loanRun{{8, 2777_77, 375_00}, {1, 2777_84, 375_00}}},
		{name: "100,000.00, add-on, 12 months, M = 9,850.00",
			terms:        LoanTerms{Principal: 100000_00, InterestType: InterestAddOn, Months: 12, MonthlyAmount: &m985000},
			wantInterest: 18200_00, runs: []loanRun{{11, 8333_34, 1516_66}, {1, 8333_26, 1516_74}}},
		{name: "100,000.00, diminishing 12%/year, 12 months",
			terms:        LoanTerms{Principal: 100000_00, InterestType: InterestDiminishing, Rate: 120000, RatePeriod: RateAnnual, Months: 12},
			wantInterest: 6618_53, want: map[int]LoanRow{
				1:  {Number: 1, Interest: 1000_00, Principal: 7884_88},
				2:  {Number: 2, Interest: 921_15, Principal: 7963_73},
				11: {Number: 11, Interest: 175_07, Principal: 8709_81},
				12: {Number: 12, Interest: 87_97, Principal: 8796_88},
			}},
		{name: "50,000.00, diminishing 2%/month, 6 months",
			terms:        LoanTerms{Principal: 50000_00, InterestType: InterestDiminishing, Rate: 20000, RatePeriod: RateMonthly, Months: 6},
			wantInterest: 3557_75, want: map[int]LoanRow{
				1: {Number: 1, Interest: 1000_00, Principal: 7926_29},
				6: {Number: 6, Interest: 175_03, Principal: 8751_27},
			}},
		{name: "10,000.00, no interest, 3 months",
			terms:        LoanTerms{Principal: 10000_00, InterestType: InterestNone, Months: 3},
			wantInterest: 0, runs: []loanRun{{2, 3333_33, 0}, {1, 3333_34, 0}}},
		// A loan's schedule rounds to its currency's minor units: a peso
		// loan to the centavo as always, a yen loan to the whole yen,
		// stored in hundredths (¥33,333 is 3333300), the last row taking
		// the remainder.
		{name: "₱10,000.00, no interest, 3 months",
			terms:        LoanTerms{Principal: 10000_00, InterestType: InterestNone, Months: 3, Currency: "PHP"},
			wantInterest: 0, runs: []loanRun{{2, 3333_33, 0}, {1, 3333_34, 0}}},
		{name: "¥100,000, no interest, 3 months",
			terms:        LoanTerms{Principal: 100000_00, InterestType: InterestNone, Months: 3, Currency: "JPY"},
			wantInterest: 0, runs: []loanRun{{2, 33333_00, 0}, {1, 33334_00, 0}}},
		// I = 100,000 × 1.5% × 12 = 18,000 → 1,500 a month; the principal
		// splits 8,333 × 11 and 8,337 (¥8,333.33 and ¥8,333.37 in hundredths).
		{name: "¥100,000, add-on 1.5%/month, 12 months",
			terms:        LoanTerms{Principal: 100000_00, InterestType: InterestAddOn, Rate: 15000, RatePeriod: RateMonthly, Months: 12, Currency: "JPY"},
			wantInterest: 18000_00, runs: []loanRun{{11, 8333_00, 1500_00}, {1, 8337_00, 1500_00}}},
		// M = half_up(8,884.88…) = ¥8,885; row 1: interest 100,000 × 1% =
		// ¥1,000, principal ¥7,885; row 2: 92,115 × 1% = 921.15 → ¥921.
		{name: "¥100,000, diminishing 12%/year, 12 months",
			terms:        LoanTerms{Principal: 100000_00, InterestType: InterestDiminishing, Rate: 120000, RatePeriod: RateAnnual, Months: 12, Currency: "JPY"},
			wantInterest: 6619_00, want: map[int]LoanRow{
				1: {Number: 1, Interest: 1000_00, Principal: 7885_00},
				2: {Number: 2, Interest: 921_00, Principal: 7964_00},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			interest, rows, err := LoanSchedule(tt.terms)
			if err != nil {
				t.Fatal(err)
			}
			if interest != tt.wantInterest {
				t.Errorf("total interest = %s, want %s", interest, tt.wantInterest)
			}
			if len(rows) != tt.terms.Months {
				t.Fatalf("%d rows, want %d", len(rows), tt.terms.Months)
			}
			if tt.runs != nil {
				if diff := cmp.Diff(expandRuns(tt.runs), rows); diff != "" {
					t.Errorf("rows (-want +got):\n%s", diff)
				}
			}
			for k, want := range tt.want {
				if diff := cmp.Diff(want, rows[k-1]); diff != "" {
					t.Errorf("row %d (-want +got):\n%s", k, diff)
				}
			}
			var principal, sumInterest Money
			unit := currencyOf(tt.terms.Currency).storedUnit()
			for _, r := range rows {
				principal += r.Principal
				sumInterest += r.Interest
				if r.Principal%unit != 0 || r.Interest%unit != 0 {
					t.Errorf("row %d = %s + %s, not whole minor units of %q", r.Number, r.Principal, r.Interest, tt.terms.Currency)
				}
			}
			if principal != tt.terms.Principal || sumInterest != interest {
				t.Errorf("rows sum to principal %s and interest %s, want %s and %s", principal, sumInterest, tt.terms.Principal, interest)
			}
		})
	}
}

// Rows 1..n−1 of a diminishing loan all ask for M; only the last differs.
func TestLoanScheduleDiminishingLevelPayment(t *testing.T) {
	_, rows, err := LoanSchedule(LoanTerms{Principal: 100000_00, InterestType: InterestDiminishing, Rate: 120000,
		RatePeriod: RateAnnual, Months: 12})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[:11] {
		if r.Amount() != 8884_88 {
			t.Errorf("row %d asks %s, want 8884.88", r.Number, r.Amount())
		}
	}
	if rows[11].Amount() != 8884_85 {
		t.Errorf("row 12 asks %s, want 8884.85", rows[11].Amount())
	}
}

func TestAnnuityPayment(t *testing.T) {
	for _, tt := range []struct {
		p        Money
		num, den int64
		n        int
		want     Money
	}{
		{100000_00, 120000, 100 * RateScale * 12, 12, 8884_88}, // 1%/month: 8884.8788…
		{50000_00, 20000, 100 * RateScale, 6, 8926_29},         // 2%/month: 8926.2903…
		{1000_00, 10000, 100 * RateScale, 1, 1010_00},          // one month at 1%: principal plus interest
		{1000000_00, 1, 100 * RateScale * 12, 360, 2777_82},    // 0.0001%/year over 30 years: barely above P/n (2777.78)
	} {
		if got := AnnuityPayment(tt.p, tt.num, tt.den, tt.n); got != tt.want {
			t.Errorf("AnnuityPayment(%s, %d/%d, %d) = %s, want %s", tt.p, tt.num, tt.den, tt.n, got, tt.want)
		}
	}
}

func TestLoanScheduleRejectsImpossibleTerms(t *testing.T) {
	m := func(v Money) *Money { return &v }
	for _, tt := range []struct {
		name         string
		terms        LoanTerms
		field, probl string
	}{
		{"diminishing M not above the first interest",
			LoanTerms{Principal: 100000_00, InterestType: InterestDiminishing, Rate: 120000, RatePeriod: RateAnnual, Months: 12, MonthlyAmount: m(1000_00)},
			"monthly_amount", "must be more than the interest of installment 1 (1000.00)"},
		{"diminishing M repaying the loan early",
			LoanTerms{Principal: 100000_00, InterestType: InterestDiminishing, Rate: 120000, RatePeriod: RateAnnual, Months: 12, MonthlyAmount: m(20000_00)},
			"monthly_amount", "repays the loan by installment 6 of 12; the term and the monthly amount disagree"},
		{"add-on M not covering the principal",
			LoanTerms{Principal: 100000_00, InterestType: InterestAddOn, Months: 12, MonthlyAmount: m(8000_00)},
			"monthly_amount", "times 12 months is 96000.00, less than the principal 100000.00"},
		{"add-on M leaving a row without principal",
			LoanTerms{Principal: 1, InterestType: InterestAddOn, Months: 2, MonthlyAmount: m(1_00)},
			"monthly_amount", "leaves installment 2 without principal: 1.00 of interest in a 1.00 payment"},
		{"principal smaller than the term",
			LoanTerms{Principal: 1_00, InterestType: InterestNone, Months: 360},
			"principal", "is too small to spread over 360 monthly installments"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := LoanSchedule(tt.terms)
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("err = %v, want a validation error", err)
			}
			if diff := cmp.Diff(map[string]string{tt.field: tt.probl}, ve.Fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
		})
	}
}

// Due dates are anchored on the first due date's month and the anchor day,
// clamped to each month's end (§4.2), never chained.
func TestLoanDueDate(t *testing.T) {
	first := NewDate(2025, 2, 28) // defaulted from a start on Jan 31: the anchor day is 31
	var got []string
	for k := 1; k <= 4; k++ {
		got = append(got, LoanDueDate(first, 31, k).String())
	}
	if diff := cmp.Diff([]string{"2025-02-28", "2025-03-31", "2025-04-30", "2025-05-31"}, got); diff != "" {
		t.Errorf("due dates (-want +got):\n%s", diff)
	}
}

type loanRun struct {
	count               int
	principal, interest Money
}

func expandRuns(runs []loanRun) []LoanRow {
	var out []LoanRow
	for _, r := range runs {
		for range r.count {
			out = append(out, LoanRow{Number: len(out) + 1, Principal: r.principal, Interest: r.interest})
		}
	}
	return out
}
