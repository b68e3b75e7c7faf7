package finance

import (
	"database/sql/driver"
	"fmt"
	"strconv"
	"strings"
)

// Rate is an exact percent with up to 4 decimals, held as an integer number
// of ten-thousandths of a percent: 3.5% is Rate(35000). Interest and
// minimum-due arithmetic on it is integer arithmetic (domain.md §1.3).
type Rate int64

// RateScale is the number of Rate units in one percent.
const RateScale = 10000

const problemRate = "must be a percent greater than 0 and at most 100, with at most 4 decimal places"

type errRate string

func (e errRate) Error() string { return string(e) }

// ParseRate reads "3", "0.75", "1.5000"; it must be > 0 and ≤ 100.
func ParseRate(s string) (Rate, error) {
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" || (hasDot && frac == "") || len(intPart) > 3 {
		return 0, errRate(problemRate)
	}
	for _, part := range []string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if !isDigit(part[i]) {
				return 0, errRate(problemRate)
			}
		}
	}
	frac = strings.TrimRight(frac, "0")
	if len(frac) > 4 {
		return 0, errRate(problemRate)
	}
	units, _ := strconv.ParseInt(intPart, 10, 64)
	f, _ := strconv.ParseInt((frac + "0000")[:4], 10, 64)
	r := Rate(units*RateScale + f)
	if r <= 0 || r > 100*RateScale {
		return 0, errRate(problemRate)
	}
	return r, nil
}

// String is the shortest exact decimal: "3", "0.75", "1.5".
func (r Rate) String() string {
	s := fmt.Sprintf("%d.%04d", int64(r)/RateScale, int64(r)%RateScale)
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// MarshalJSON writes the rate as a JSON number.
func (r Rate) MarshalJSON() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalJSON accepts a JSON number or a numeric string.
func (r *Rate) UnmarshalJSON(b []byte) error { return decodeNumber(b, ParseRate, r) }

// FieldProblem is the field problem text of a rate parse error.
func (e errRate) FieldProblem() string { return string(e) }

// Value stores the rate as exact decimal TEXT.
func (r Rate) Value() (driver.Value, error) { return r.String(), nil }

// Scan reads exact decimal TEXT.
func (r *Rate) Scan(src any) error {
	if v, ok := src.(int64); ok {
		*r = Rate(v * RateScale)
		return nil
	}
	return scanDecimalText(src, "finance.Rate", ParseRate, r)
}

// scanDecimalText reads a column of exact decimal TEXT into dst through
// parse: the one way Rate, FeePercent and FXRate come out of the database.
func scanDecimalText[T any](src any, name string, parse func(string) (T, error), dst *T) error {
	var s string
	switch v := src.(type) {
	case string:
		s = v
	case []byte:
		s = string(v)
	default:
		return fmt.Errorf("%s: cannot scan %T", name, src)
	}
	v, err := parse(s)
	if err != nil {
		return fmt.Errorf("%s %q: %w", name, s, err)
	}
	*dst = v
	return nil
}

// Percent returns part/whole × 100 rounded half-up to 2 decimals, as a Money
// (hundredths) so it prints with 2 decimals. whole must be positive.
func Percent(part, whole Money) Money {
	if whole <= 0 {
		return 0
	}
	// part/whole × 100 in hundredths = part × 10000 / whole, half-up.
	return Money(halfUpDiv(int64(part)*10000, int64(whole)))
}

// halfUpDiv returns floor(n/d + 1/2) for d > 0: n/d rounded half-up.
func halfUpDiv(n, d int64) int64 {
	q := (2*n + d) / (2 * d)
	if 2*n+d < 0 && (2*n+d)%(2*d) != 0 {
		q-- // floor for negative numerators
	}
	return q
}

// FeePercent is a card's foreign transaction fee: a percent like Rate, from 0
// (no fee, the default) to 10, with at most 4 decimals. Rate refuses 0, which
// is right for interest and minimum due but not for a fee a card may not have.
type FeePercent Rate

// MaxFeePercent is the largest foreign transaction fee accepted: 10%.
const MaxFeePercent FeePercent = 10 * RateScale

const problemFeePercent = "must be a percent from 0 to 10, with at most 4 decimal places"

// ParseFeePercent reads "0", "3", "1.75".
func ParseFeePercent(s string) (FeePercent, error) {
	if whole, frac, dot := strings.Cut(s, "."); whole != "" && strings.Trim(whole, "0") == "" &&
		(!dot || frac != "" && strings.Trim(frac, "0") == "") {
		return 0, nil // "0", "0.0", "00": no fee
	}
	r, err := ParseRate(s)
	if err != nil || FeePercent(r) > MaxFeePercent {
		return 0, errRate(problemFeePercent)
	}
	return FeePercent(r), nil
}

func (f FeePercent) String() string { return Rate(f).String() }

// MarshalJSON writes the fee as a JSON number.
func (f FeePercent) MarshalJSON() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalJSON accepts a JSON number or a numeric string.
func (f *FeePercent) UnmarshalJSON(b []byte) error { return decodeNumber(b, ParseFeePercent, f) }

// Value stores the fee as exact decimal TEXT.
func (f FeePercent) Value() (driver.Value, error) { return f.String(), nil }

// Scan reads exact decimal TEXT.
func (f *FeePercent) Scan(src any) error {
	return scanDecimalText(src, "finance.FeePercent", ParseFeePercent, f)
}
