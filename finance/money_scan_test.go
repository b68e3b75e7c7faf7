package finance

import "testing"

// TestMoneyScan: Money reads whole minor units as a database hands them: an
// integer, or a sum some databases write as decimal text (Postgres sums
// bigint to numeric); anything with a fraction is refused, never rounded.
func TestMoneyScan(t *testing.T) {
	for _, tt := range []struct {
		name    string
		src     any
		want    Money
		wantErr bool
	}{
		{"integer", int64(12345), 12345, false},
		{"null", nil, 0, false},
		{"decimal text", "-9007199254740993", -9007199254740993, false},
		{"decimal bytes", []byte("250"), 250, false},
		{"fraction", "1.5", 0, true},
		{"float", 1.5, 0, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := Money(7)
			err := m.Scan(tt.src)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Scan(%v) error = %v, wantErr %v", tt.src, err, tt.wantErr)
			}
			if !tt.wantErr && m != tt.want {
				t.Errorf("Scan(%v) = %d, want %d", tt.src, m, tt.want)
			}
		})
	}
}
