package finance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCheckDecimals(t *testing.T) {
	for _, c := range []struct {
		currency string
		m        Money
		want     string // the problem, or "" for none
	}{
		{"JPY", 1500_00, ""},
		{"JPY", 1500_50, "must be a number with at most 0 decimal places"},
		{"JPY", 1, "must be a number with at most 0 decimal places"},
		{"JPY", -3_00, ""},
		{"KRW", 0, ""},
		{"PHP", 1500_55, ""},
		{"USD", 1, ""},
	} {
		var v Validator
		checkDecimals(&v, "opening_balance", c.m, currencyOf(c.currency))
		got := map[string]string(nil)
		if err := v.Err(); err != nil {
			got = err.(*ValidationError).Fields
		}
		var want map[string]string
		if c.want != "" {
			want = map[string]string{"opening_balance": c.want}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("checkDecimals(%s, %s) (-want +got):\n%s", c.currency, c.m, diff)
		}
	}
}

func TestRecordCurrency(t *testing.T) {
	php, _ := LookupCurrency("PHP")
	for _, c := range []struct {
		name    string
		f       Field[string]
		want    string
		problem string
	}{
		{"absent takes the fallback", Field[string]{}, "PHP", ""},
		{"null takes the fallback", Field[string]{Set: true, Null: true}, "PHP", ""},
		{"capitals", Of("USD"), "USD", ""},
		{"any case", Of("jPy"), "JPY", ""},
		{"unknown", Of("XYZ"), "PHP", "must be an ISO 4217 currency code, like PHP, USD or EUR"},
		{"empty", Of(""), "PHP", "must be an ISO 4217 currency code, like PHP, USD or EUR"},
		{"three decimals", Of("kwd"), "PHP", "KWD has 3 decimal places; records take currencies with at most 2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v Validator
			got := recordCurrency(&v, "currency", c.f, php)
			var problem string
			if err := v.Err(); err != nil {
				problem = err.(*ValidationError).Fields["currency"]
			}
			if got.Code != c.want || problem != c.problem {
				t.Errorf("recordCurrency = %s, %q; want %s, %q", got.Code, problem, c.want, c.problem)
			}
		})
	}
}
