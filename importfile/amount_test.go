package importfile

import (
	"testing"

	"github.com/finance-app/finance/finance"
)

func TestParseAmount(t *testing.T) {
	tests := []struct {
		text  string
		dec   byte
		want  finance.Money
		neg   bool
		wantE error
	}{
		{"1234.56", '.', 123456, false, nil},
		{"1,234.56", '.', 123456, false, nil},
		{"1.234,56", ',', 123456, false, nil},
		{"1 234,56", ',', 123456, false, nil},
		{"1\u00a0234,56", ',', 123456, false, nil},
		{"(1,234.56)", '.', 123456, true, nil},
		{"-5", '.', 500, true, nil},
		{"+5", '.', 500, false, nil},
		{"12.34-", '.', 1234, true, nil},
		{"\u22125.00", '.', 500, true, nil},
		{"₱1,234.50", '.', 123450, false, nil},
		{"PHP 1,234.50", '.', 123450, false, nil},
		{"-PHP 1,234.50", '.', 123450, true, nil},
		{"PHP -1,234.50", '.', 123450, true, nil},
		{"1.234,50 EUR", ',', 123450, false, nil},
		{"$-5.00", '.', 500, true, nil},
		{"-$5.00", '.', 500, true, nil},
		{"12.34 DR", '.', 1234, true, nil},
		{"12.34CR", '.', 1234, false, nil},
		{".50", '.', 50, false, nil},
		{"10.500", '.', 1050, false, nil},
		{"1,234,567.89", '.', 123456789, false, nil},
		{"999999999.99", '.', 99999999999, false, nil},
		// decided from the text alone (OFX, QIF amounts)
		{"-1234,56", 0, 123456, true, nil},
		{"1,234", 0, 123400, false, nil},
		{"1.234,5", 0, 123450, false, nil},
		// refused
		{"12,3.4", '.', 0, false, errNotNumber},
		{"1.2.3", '.', 0, false, errNotNumber},
		{"abc", '.', 0, false, errNotNumber},
		{"1e5", '.', 0, false, errNotNumber},
		{"--5", '.', 0, false, errNotNumber},
		{"-5-", '.', 0, false, errNotNumber},
		{"(-5.00)", '.', 500, true, nil},
		{"PHP -1,234.50 DR", '.', 123450, true, nil},
		{"5.", '.', 0, false, errNotNumber},
		{"-", '.', 0, false, errNotNumber},
		{"1.234", '.', 0, false, errTooPrecise},
		{"1000000000", '.', 0, false, errTooLarge},
		{"", '.', 0, false, errNoAmountText},
	}
	for _, tt := range tests {
		got, neg, err := parseAmount(tt.text, tt.dec)
		if err != tt.wantE || got != tt.want || neg != tt.neg {
			t.Errorf("parseAmount(%q, %q) = %v, %v, %v; want %v, %v, %v", tt.text, tt.dec, got, neg, err, tt.want, tt.neg, tt.wantE)
		}
	}
}

func TestDetectDecimal(t *testing.T) {
	tests := []struct {
		values []string
		want   byte
	}{
		{[]string{"1,234.56", "12.00"}, '.'},
		{[]string{"1.234,56", "-4,80", "-5"}, ','},
		{[]string{"1,234", "12,50"}, ','}, // "1,234" says nothing; "12,50" does
		{[]string{"1,234,567"}, '.'},
		{[]string{"1.234.567"}, ','},
		{[]string{"5", "7"}, '.'},
	}
	for _, tt := range tests {
		if got := detectDecimal(tt.values); got != tt.want {
			t.Errorf("detectDecimal(%q) = %q; want %q", tt.values, got, tt.want)
		}
	}
}
