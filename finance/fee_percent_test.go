package finance

import "testing"

func TestParseFeePercent(t *testing.T) {
	for in, want := range map[string]string{"0": "0", "0.0": "0", "00": "0", "3": "3", "1.75": "1.75", "10": "10", "0.0001": "0.0001"} {
		if f, err := ParseFeePercent(in); err != nil || f.String() != want {
			t.Errorf("ParseFeePercent(%q) = %v, %v; want %s", in, f, err, want)
		}
	}
	for _, in := range []string{"", ".", "-1", "10.0001", "11", "0.00001", "abc", ".5", "1e1"} {
		if f, err := ParseFeePercent(in); err == nil {
			t.Errorf("ParseFeePercent(%q) = %v, want an error", in, f)
		}
	}
}

// Rate, FeePercent and FXRate read their exact decimal TEXT columns through
// one scanner: text and bytes parse, anything else and bad text fail.
func TestScanDecimalText(t *testing.T) {
	var f FeePercent
	if err := f.Scan("0"); err != nil || f != 0 {
		t.Errorf("FeePercent.Scan(0) = %v, %v", f, err)
	}
	if err := f.Scan([]byte("2.5")); err != nil || f.String() != "2.5" {
		t.Errorf("FeePercent.Scan(2.5) = %v, %v", f, err)
	}
	var r Rate
	if err := r.Scan(int64(3)); err != nil || r != 3*RateScale {
		t.Errorf("Rate.Scan(3) = %v, %v", r, err)
	}
	if err := r.Scan("0"); err == nil {
		t.Error("Rate.Scan(0) succeeded; a rate is above 0")
	}
	var x FXRate
	if err := x.Scan("65.20"); err != nil || x.String() != "65.2" && x.String() != "65.20" {
		t.Errorf("FXRate.Scan = %v, %v", x, err)
	}
	if err := x.Scan(1.5); err == nil {
		t.Error("FXRate.Scan(float) succeeded")
	}
}
