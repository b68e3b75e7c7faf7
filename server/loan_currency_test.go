package server

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// A loan's schedule rounds to its currency's minor units (domain.md
// "Precision and storage"): a yen loan's installments are whole yen, the
// last taking the remainder, and a peso loan's keep their centavos.
func TestLoanScheduleInItsCurrencysMinorUnits(t *testing.T) {
	alice := currencyEnv(t)
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"¥100,000 over 3 months at 0%",
			`{"name":"Car","principal":"100000","interest_type":"none","term_months":3,"start_date":"2025-01-10","currency":"JPY"}`,
			[]string{"33333.00", "33333.00", "33334.00"}},
		{"₱10,000.00 over 3 months at 0%",
			`{"name":"Bike","principal":"10000","interest_type":"none","term_months":3,"start_date":"2025-01-10","currency":"PHP"}`,
			[]string{"3333.33", "3333.33", "3333.34"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			created := send[finance.LoanDetail](t, alice, http.MethodPost, loansURL, c.body, http.StatusCreated)
			// What the create answered, and what was stored: read back.
			for what, l := range map[string]finance.LoanDetail{"created": created, "read": alice.loan(t, created.ID)} {
				var got []string
				for _, in := range l.Instances {
					got = append(got, in.AmountDue.String())
					if in.PrincipalDue != in.AmountDue || in.InterestDue != 0 {
						t.Errorf("%s: instance %d = %s principal + %s interest, want all principal", what, in.InstallmentNumber, in.PrincipalDue, in.InterestDue)
					}
				}
				if diff := cmp.Diff(c.want, got); diff != "" {
					t.Errorf("%s: amounts due (-want +got):\n%s", what, diff)
				}
				if l.RemainingPayable != l.Principal {
					t.Errorf("%s: remaining payable %s, want the principal %s", what, l.RemainingPayable, l.Principal)
				}
			}
		})
	}
}
