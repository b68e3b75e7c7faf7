package finance

import (
	"math/big"
	"testing"

	"golang.org/x/text/currency"
)

// cldrFewerDecimals are the codes whose CLDR standard digits (what
// golang.org/x/text reports) are fewer than ISO 4217's minor unit, because
// their coins are out of use. The table keeps ISO's, which statements and
// the ECB use; a code joining or leaving this list is a change to look at.
var cldrFewerDecimals = map[string]int{
	"AFN": 0, "ALL": 0, "AMD": 0, "COP": 0, "GYD": 0, "IDR": 0, "IQD": 0, "IRR": 0, "KPW": 0, "LAK": 0, "LBP": 0,
	"MGA": 0, "MMK": 0, "MNT": 0, "MRU": 0, "MUR": 0, "PKR": 0, "RSD": 0, "SLE": 0, "SOS": 0, "SYP": 0, "TZS": 0, "UZS": 0, "YER": 0,
}

func TestCurrencyMinorUnitsAgreeWithCLDR(t *testing.T) {
	for _, c := range Currencies {
		unit, err := currency.ParseISO(c.Code)
		if err != nil {
			// Codes newer than the CLDR data in golang.org/x/text (ZWG, 2024).
			if c.Minor != 2 {
				t.Errorf("%s: not in CLDR, Minor = %d, want ISO's 2", c.Code, c.Minor)
			}
			continue
		}
		cldr, _ := currency.Standard.Rounding(unit)
		want := cldr
		if d, ok := cldrFewerDecimals[c.Code]; ok {
			if cldr != d {
				t.Errorf("%s: CLDR now says %d decimals; update cldrFewerDecimals", c.Code, cldr)
			}
			want = c.Minor // ISO's, checked by the spot checks below
		}
		if c.Minor != want {
			t.Errorf("%s: Minor = %d, CLDR standard digits = %d", c.Code, c.Minor, cldr)
		}
	}
	for code, want := range map[string]int{"JPY": 0, "KRW": 0, "VND": 0, "CLP": 0, "ISK": 0, "UGX": 0, "XAF": 0,
		"BHD": 3, "IQD": 3, "JOD": 3, "KWD": 3, "LYD": 3, "OMR": 3, "TND": 3, "USD": 2, "PHP": 2, "EUR": 2, "IDR": 2} {
		if c, _ := LookupCurrency(code); c.Minor != want {
			t.Errorf("%s: Minor = %d, want %d", code, c.Minor, want)
		}
	}
}

func mustCurrency(t *testing.T, code string) Currency {
	t.Helper()
	c, ok := LookupCurrency(code)
	if !ok {
		t.Fatalf("no currency %s", code)
	}
	return c
}

func TestParseAndFormatMinorUnits(t *testing.T) {
	tests := []struct {
		in, code string
		want     int64
		text     string // canonical text written back
	}{
		{"12345", "JPY", 12345, "12345"},
		{"0", "JPY", 0, "0"},
		{"-7", "JPY", -7, "-7"},
		{"19.99", "USD", 1999, "19.99"},
		{"19.9", "USD", 1990, "19.90"},
		{"19", "USD", 1900, "19.00"},
		{"-0.05", "USD", -5, "-0.05"},
		{"007.10", "USD", 710, "7.10"},
		{"1.234", "KWD", 1234, "1.234"},
		{"1.2", "KWD", 1200, "1.200"},
		// Digits past the currency's decimals may be zeros, as in every
		// amount of the API: "100.00" yen is ¥100, "10.500" pesos 10.50.
		{"100.00", "JPY", 100, "100"},
		{"-3.0", "JPY", -3, "-3"},
		{"10.500", "PHP", 1050, "10.50"},
		{"1.23400", "KWD", 1234, "1.234"},
		{"9999999999999.9900", "USD", 999999999999999, "9999999999999.99"},
		{"999999999999999", "JPY", 999999999999999, "999999999999999"},
		{"9999999999999.99", "USD", 999999999999999, "9999999999999.99"},
	}
	for _, tt := range tests {
		t.Run(tt.code+" "+tt.in, func(t *testing.T) {
			cur := mustCurrency(t, tt.code)
			got, err := ParseMinorUnits(tt.in, cur)
			if err != nil || got != tt.want {
				t.Fatalf("ParseMinorUnits(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
			}
			if text := FormatMinorUnits(got, cur); text != tt.text {
				t.Errorf("FormatMinorUnits(%d) = %q, want %q", got, text, tt.text)
			}
		})
	}
}

func TestParseMinorUnitsRefuses(t *testing.T) {
	tests := []struct{ in, code, problem string }{
		{"100.5", "JPY", "must be a number with at most 0 decimal places"},
		{"100.05", "JPY", "must be a number with at most 0 decimal places"},
		{"100.000001", "JPY", "must be a number with at most 0 decimal places"},
		{"19.9901", "USD", "must be a number with at most 2 decimal places"},
		{"1.", "JPY", "must be a number with at most 0 decimal places"},
		{"19.999", "USD", "must be a number with at most 2 decimal places"},
		{"1.2345", "KWD", "must be a number with at most 3 decimal places"},
		{"", "USD", "must be a number with at most 2 decimal places"},
		{"-", "USD", "must be a number with at most 2 decimal places"},
		{"1.", "USD", "must be a number with at most 2 decimal places"},
		{".5", "USD", "must be a number with at most 2 decimal places"},
		{"+1", "USD", "must be a number with at most 2 decimal places"},
		{"1e3", "USD", "must be a number with at most 2 decimal places"},
		{"1,000", "USD", "must be a number with at most 2 decimal places"},
		{"--1", "USD", "must be a number with at most 2 decimal places"},
		{"1000000000000000", "JPY", "must be at most 999999999999999 in magnitude"},
		{"10000000000000.00", "USD", "must be at most 9999999999999.99 in magnitude"},
	}
	for _, tt := range tests {
		t.Run(tt.code+" "+tt.in, func(t *testing.T) {
			got, err := ParseMinorUnits(tt.in, mustCurrency(t, tt.code))
			if err == nil || err.Error() != tt.problem {
				t.Fatalf("ParseMinorUnits(%q) = %d, %v; want %q", tt.in, got, err, tt.problem)
			}
		})
	}
}

func TestRoundHalfEven(t *testing.T) {
	jpy, usd := mustCurrency(t, "JPY"), mustCurrency(t, "USD")
	tests := []struct {
		num, den int64
		cur      Currency
		want     int64
	}{
		{5, 2, jpy, 2},           // 2.5 → 2 (tie, even)
		{7, 2, jpy, 4},           // 3.5 → 4 (tie, even)
		{-5, 2, jpy, -2},         // -2.5 → -2
		{-7, 2, jpy, -4},         // -3.5 → -4
		{251, 100, jpy, 3},       // 2.51 → 3
		{249, 100, jpy, 2},       // 2.49 → 2
		{12345, 1000, usd, 1234}, // 12.345 → 12.34 (tie, even)
		{12355, 1000, usd, 1236}, // 12.355 → 12.36 (tie, even)
		{-12345, 1000, usd, -1234},
	}
	for _, tt := range tests {
		if got := roundHalfEven(big.NewRat(tt.num, tt.den), tt.cur.Minor).Int64(); got != tt.want {
			t.Errorf("round(%d/%d, %s) = %d, want %d", tt.num, tt.den, tt.cur.Code, got, tt.want)
		}
	}
}
