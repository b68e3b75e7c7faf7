package finance

import "testing"

func TestFormatMoneyKeepsEachCurrencysDecimals(t *testing.T) {
	for _, c := range []struct {
		currency string
		m        Money
		want     string
	}{
		{"PHP", 1_234_50, "₱1,234.50"},
		{"USD", -5, "-$0.05"},
		{"CHF", 12_00, "CHF 12.00"},
		{"JPY", 50_000_00, "¥50,000"}, // yen are whole: no ".00"
		{"JPY", 12_34, "¥12.34"},      // never hides a fraction that is there
		{"KRW", 0, "₩0"},
		{"", 1_00, "1.00"},
	} {
		if got := FormatMoney(c.currency, c.m); got != c.want {
			t.Errorf("FormatMoney(%q, %d) = %q, want %q", c.currency, c.m, got, c.want)
		}
	}
}
