package finance

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestParseMoneyAccepts(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Money
	}{
		{"whole number", "12", 1200},
		{"one decimal", "10.5", 1050},
		{"trailing zeros beyond centavos", "10.500", 1050},
		{"ten centavos", "0.10", 10},
		{"negative", "-3.25", -325},
		{"largest magnitude", "999999999.99", MaxMoney},
		{"largest negative magnitude", "-999999999.99", -MaxMoney},
		{"zero", "0", 0},
		{"negative zero", "-0.00", 0},
		{"leading zeros", "007.05", 705},
		{"many leading zeros do not count as magnitude", "0000000000001.00", 100},
		{"one centavo", "0.01", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMoney(tt.in)
			if err != nil {
				t.Fatalf("ParseMoney(%q) error: %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("ParseMoney(%q) = %d centavos, want %d", tt.in, int64(got), int64(tt.want))
			}
		})
	}
}

func TestParseMoneyRejects(t *testing.T) {
	tests := []struct {
		name        string
		in          string
		wantProblem string
	}{
		{"fraction of a centavo", "10.505", problemMoneyFormat},
		{"exponent", "1e3", problemMoneyFormat},
		{"plus sign", "+5", problemMoneyFormat},
		{"leading blank", " 5", problemMoneyFormat},
		{"trailing blank", "5 ", problemMoneyFormat},
		{"no integer part", ".5", problemMoneyFormat},
		{"no fraction digits", "5.", problemMoneyFormat},
		{"empty", "", problemMoneyFormat},
		{"letters", "abc", problemMoneyFormat},
		{"thousands separator", "1,000", problemMoneyFormat},
		{"too large", "1000000000.00", problemMoneyTooLarge},
		{"too large negative", "-1000000000", problemMoneyTooLarge},
		{"lone minus", "-", problemMoneyFormat},
		{"double minus", "--5", problemMoneyFormat},
		{"two points", "1.2.3", problemMoneyFormat},
		{"hex", "0x10", problemMoneyFormat},
		{"infinity", "Inf", problemMoneyFormat},
		{"non-zero third decimal after zeros", "1.001", problemMoneyFormat},
		{"quoted", `"5"`, problemMoneyFormat},
		{"unicode digit", "５", problemMoneyFormat},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseMoney(tt.in)
			if err == nil {
				t.Fatalf("ParseMoney(%q) = %v, want an error", tt.in, got)
			}
			if p := MoneyProblem(err); p != tt.wantProblem {
				t.Errorf("MoneyProblem(ParseMoney(%q)) = %q, want %q", tt.in, p, tt.wantProblem)
			}
		})
	}
}

func TestMoneyArithmeticIsExact(t *testing.T) {
	a, b, want := mustMoney(t, "0.10"), mustMoney(t, "0.20"), mustMoney(t, "0.30")
	if a+b != want {
		t.Errorf("0.10 + 0.20 = %v, want %v", a+b, want)
	}
	// A float64 sum would drift here; centavo integers do not.
	var sum Money
	for range 1000 {
		sum += mustMoney(t, "0.10")
	}
	if got := sum.String(); got != "100.00" {
		t.Errorf("1000 × 0.10 = %s, want 100.00", got)
	}
}

func TestMoneyString(t *testing.T) {
	tests := []struct {
		name string
		in   Money
		want string
	}{
		{"zero", 0, "0.00"},
		{"trailing zero kept", 123450, "1234.50"},
		{"negative centavos", -5, "-0.05"},
		{"negative", -325, "-3.25"},
		{"one centavo", 1, "0.01"},
		{"largest", MaxMoney, "999999999.99"},
		{"no thousands separator", 100000000, "1000000.00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.in.String(); got != tt.want {
				t.Errorf("Money(%d).String() = %q, want %q", int64(tt.in), got, tt.want)
			}
			b, err := json.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("json.Marshal(Money(%d)) = %s, want %s", int64(tt.in), b, tt.want)
			}
		})
	}
}

func TestMoneyMarshalJSONInStruct(t *testing.T) {
	b, err := json.Marshal(struct {
		Amount Money  `json:"amount"`
		Fee    *Money `json:"fee"`
	}{Amount: 123450})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"amount":1234.50,"fee":null}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestMoneyUnmarshalJSON(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		want    Money
		wantErr bool
	}{
		{"number", `{"amount": 10.5}`, 1050, false},
		{"integer", `{"amount": 12}`, 1200, false},
		{"numeric string", `{"amount": "10.50"}`, 1050, false},
		{"negative string", `{"amount": "-3.25"}`, -325, false},
		{"exact beyond float precision", `{"amount": 999999999.99}`, MaxMoney, false},
		{"trailing zeros", `{"amount": 10.500}`, 1050, false},
		{"fraction of a centavo", `{"amount": 10.505}`, 0, true},
		{"exponent number", `{"amount": 1e3}`, 0, true},
		{"exponent string", `{"amount": "1e3"}`, 0, true},
		{"string with blank", `{"amount": " 5"}`, 0, true},
		{"plus string", `{"amount": "+5"}`, 0, true},
		{"empty string", `{"amount": ""}`, 0, true},
		{"boolean", `{"amount": true}`, 0, true},
		{"object", `{"amount": {}}`, 0, true},
		{"too large", `{"amount": 1000000000}`, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got struct {
				Amount Money `json:"amount"`
			}
			err := json.Unmarshal([]byte(tt.body), &got)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("Unmarshal(%s) = %v, want an error", tt.body, got.Amount)
				}
				return
			}
			if err != nil {
				t.Fatalf("Unmarshal(%s): %v", tt.body, err)
			}
			if got.Amount != tt.want {
				t.Errorf("Unmarshal(%s) = %d centavos, want %d", tt.body, int64(got.Amount), int64(tt.want))
			}
		})
	}
}

func TestMoneyUnmarshalErrorCarriesProblem(t *testing.T) {
	var m Money
	err := json.Unmarshal([]byte(`"10.505"`), &m)
	if got := MoneyProblem(err); got != problemMoneyFormat {
		t.Errorf("MoneyProblem = %q, want %q (err %v)", got, problemMoneyFormat, err)
	}
	if MoneyProblem(nil) != "" {
		t.Error(`MoneyProblem(nil) != ""`)
	}
}

// TestMoneyRoundTrip checks that text -> Money -> JSON -> Money -> text keeps
// every digit.
func TestMoneyRoundTrip(t *testing.T) {
	for _, s := range []string{"0.00", "0.01", "-0.05", "1234.50", "999999999.99", "-999999999.99", "100.00", "42.42"} {
		t.Run(s, func(t *testing.T) {
			m := mustMoney(t, s)
			b, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != s {
				t.Errorf("Marshal = %s, want %s", b, s)
			}
			var back Money
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatalf("Unmarshal(%s): %v", b, err)
			}
			if back != m || back.String() != s {
				t.Errorf("round trip of %s gave %s (%d centavos), want %d", s, back, int64(back), int64(m))
			}
		})
	}
}

func TestMoneyScanValue(t *testing.T) {
	v, err := Money(-325).Value()
	if err != nil || v != int64(-325) {
		t.Fatalf("Value() = %v, %v; want int64(-325)", v, err)
	}
	tests := []struct {
		name    string
		src     any
		want    Money
		wantErr bool
	}{
		{"integer centavos", int64(123450), 123450, false},
		{"null", nil, 0, false},
		{"text is not centavos", "12.34", 0, true},
		{"float is refused", 12.34, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := Money(99) // Scan must overwrite or fail, never keep a stale value silently
			err := m.Scan(tt.src)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Scan(%v) error = %v, wantErr %v", tt.src, err, tt.wantErr)
			}
			if !tt.wantErr && m != tt.want {
				t.Errorf("Scan(%v) = %d, want %d", tt.src, int64(m), int64(tt.want))
			}
		})
	}
}

func TestMoneyAbs(t *testing.T) {
	for _, tt := range []struct{ in, want Money }{{-325, 325}, {325, 325}, {0, 0}} {
		if got := tt.in.Abs(); got != tt.want {
			t.Errorf("Money(%d).Abs() = %d, want %d", int64(tt.in), int64(got), int64(tt.want))
		}
	}
}

func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"12", "10.5", "10.500", "0.10", "-3.25", "999999999.99", "10.505", "1e3", "+5",
		" 5", ".5", "5.", "", "-", "1,000", "1000000000.00", "000000000000.01", "-0", "1.0000000001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMoney(s)
		if err != nil {
			if MoneyProblem(err) == "" {
				t.Fatalf("ParseMoney(%q) error %v carries no field problem", s, err)
			}
			return
		}
		if m.Abs() > MaxMoney {
			t.Fatalf("ParseMoney(%q) = %d centavos, beyond the limit", s, int64(m))
		}
		if _, frac, ok := strings.Cut(s, "."); ok && len(frac) > 2 && strings.Trim(frac[2:], "0") != "" {
			t.Fatalf("ParseMoney(%q) accepted a fraction of a centavo as %s", s, m)
		}
		out := m.String()
		back, err := ParseMoney(out)
		if err != nil {
			t.Fatalf("ParseMoney(%q) = %s, which does not re-parse: %v", s, out, err)
		}
		if back != m {
			t.Fatalf("ParseMoney(%q) = %d, re-parsed %q = %d", s, int64(m), out, int64(back))
		}
		if back.String() != out {
			t.Fatalf("format is not stable: %q then %q", out, back.String())
		}
	})
}

func mustMoney(t *testing.T, s string) Money {
	t.Helper()
	m, err := ParseMoney(s)
	if err != nil {
		t.Fatalf("ParseMoney(%q): %v", s, err)
	}
	return m
}

func TestReadAmount(t *testing.T) {
	const point, comma = false, true // the currency's usual decimal mark
	tests := []struct {
		name         string
		in           string
		decimalComma bool
		want         Money
		problem      string // "" when the amount is read
	}{
		{"grouping with commas", "50,000", point, 5_000_000, ""},
		{"grouping with a space", "50 000", point, 5_000_000, ""},
		{"grouping with a no-break space", "50\u00a0000", comma, 5_000_000, ""},
		{"grouping with points, decimal comma", "50.000,00", comma, 5_000_000, ""},
		{"both marks tell themselves apart, whatever the currency", "50.000,00", point, 5_000_000, ""},
		{"commas and a point", "1,234.56", point, 123_456, ""},
		{"points and a comma", "1.234,56", comma, 123_456, ""},
		{"millions", "1,234,567", comma, 123_456_700, ""},
		{"an apostrophe groups", "1'234.50", point, 123_450, ""},
		{"a plain decimal point", "12.5", point, 1250, ""},
		{"a decimal comma", "12,5", point, 1250, ""},
		{"space groups and a decimal comma", "1 234,5", point, 123_450, ""},
		{"ambiguous comma in a point currency is grouping", "1,234", point, 123_400, ""},
		{"ambiguous point in a comma currency is grouping", "1.234", comma, 123_400, ""},
		{"ambiguous comma in a comma currency is decimal", "1,234", comma, 0, problemMoneyFormat},
		{"ambiguous point in a point currency is decimal", "1.234", point, 0, problemMoneyFormat},
		{"a leading zero is never grouped", "0,500", point, 50, ""},
		{"negative", "-1,500.25", point, -150_025, ""},
		{"blanks around", "  42 ", point, 4200, ""},
		{"plain digits", "7", point, 700, ""},
		{"a sign alone", "-", point, 0, problemMoneyFormat},
		{"empty", "", point, 0, problemMoneyFormat},
		{"garbage", "fifty", point, 0, problemMoneyFormat},
		{"letters inside", "5o,000", point, 0, problemMoneyFormat},
		{"too many decimals", "12,3456", comma, 0, problemMoneyFormat},
		{"three decimals in a point currency", "12.345", point, 0, problemMoneyFormat},
		{"too many decimals after grouping", "1,234.567", point, 0, problemMoneyFormat},
		{"a group of two", "50,00,000", point, 0, problemMoneyFormat},
		{"a first group of four", "1234,567.00", point, 0, problemMoneyFormat},
		{"two kinds of grouping", "1,234 567", point, 0, problemMoneyFormat},
		{"a decimal mark twice", "1.234,56,7", point, 0, problemMoneyFormat},
		{"grouping after the decimal mark", "1.5,000", point, 0, problemMoneyFormat},
		{"a trailing mark", "50,", point, 0, problemMoneyFormat},
		{"a leading mark", ",50", point, 0, problemMoneyFormat},
		{"a plus sign", "+5", point, 0, problemMoneyFormat},
		{"two signs", "--5", point, 0, problemMoneyFormat},
		{"an exponent", "1e5", point, 0, problemMoneyFormat},
		{"too large", "1,000,000,000", point, 0, problemMoneyTooLarge},
		{"the largest", "999,999,999.99", point, MaxMoney, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ReadAmount(tt.in, tt.decimalComma)
			if problem := MoneyProblem(err); problem != tt.problem || (err != nil) != (tt.problem != "") {
				t.Fatalf("ReadAmount(%q) error %v, want problem %q", tt.in, err, tt.problem)
			}
			if got != tt.want {
				t.Errorf("ReadAmount(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestLookupCurrency(t *testing.T) {
	for _, code := range []string{"usd", "Usd", " USD "} {
		if c, ok := LookupCurrency(code); !ok || c.Code != "USD" || c.Name != "US Dollar" {
			t.Errorf("LookupCurrency(%q) = %+v, %v; want USD, US Dollar", code, c, ok)
		}
	}
	for _, code := range []string{"XYZ", "US", "", "USDX"} {
		if c, ok := LookupCurrency(code); ok {
			t.Errorf("LookupCurrency(%q) = %+v, want not found", code, c)
		}
	}
	if !slices.IsSortedFunc(Currencies, func(a, b Currency) int { return strings.Compare(a.Code, b.Code) }) {
		t.Error("Currencies must be sorted by code: LookupCurrency searches them")
	}
	if _, ok := LookupCurrency(DefaultCurrency); !ok {
		t.Errorf("the default currency %s is not in Currencies", DefaultCurrency)
	}
}

func TestTimezonesLoad(t *testing.T) {
	if !slices.IsSorted(Timezones) || !slices.Contains(Timezones, DefaultTimezone) {
		t.Fatalf("Timezones must be sorted and hold the default %s", DefaultTimezone)
	}
	for _, name := range Timezones {
		if _, err := LoadTimezone(name); err != nil {
			t.Errorf("LoadTimezone(%q): %v", name, err)
		}
	}
}
