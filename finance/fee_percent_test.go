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
