package finance

import (
	"context"
	"errors"
	"testing"
)

// The worked example of domain.md "A purchase abroad on a card", and how a
// billed or delivered amount rounds: once, half to even, to the decimals of
// the currency it is in.
func TestConvertMoneyBillsAPurchaseAbroad(t *testing.T) {
	book := rateBook{rates: []ExchangeRate{
		rate(t, "EUR", "PHP", "2026-11-20", "65.20", RateSourceECB),
		rate(t, "EUR", "JPY", "2026-11-20", "162.40", RateSourceECB),
		rate(t, "USD", "JPY", "2026-11-20", "150", RateSourceManual),
		rate(t, "USD", "PHP", "2026-11-20", "0.5", RateSourceManual),
	}}
	day, _ := ParseDate("2026-11-20")
	for _, c := range []struct {
		name     string
		amount   Money // hundredths of from
		from, to string
		fee      FeePercent
		want     Money // hundredths of to
	}{
		// 12,345 × 65.20 ÷ 162.40 × 1.03 = 5,104.93115…
		{"the doc's ramen: ¥12,345 on a PHP card with a 3% fee", 1_234_500, "JPY", "PHP", 3 * RateScale, 510_493},
		{"the same without a fee", 1_234_500, "JPY", "PHP", 0, 495_624},
		{"to a yen card: whole yen", 1_00, "USD", "JPY", 0, 150_00},
		{"a tie to yen goes to the even yen: 4.5 → ¥4", 3, "USD", "JPY", 0, 4_00},
		{"a tie to yen goes to the even yen: 7.5 → ¥8", 5, "USD", "JPY", 0, 8_00},
		{"a tie to centavos: 0.015 → 0.02", 3, "USD", "PHP", 0, 2},
		{"a tie to centavos: 0.005 → 0.00", 1, "USD", "PHP", 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := convertMoney(context.Background(), book, "u", c.amount, c.from, c.to, day, c.fee, "amount")
			if err != nil || got != c.want {
				t.Fatalf("convertMoney = %d, %v; want %d", got, err, c.want)
			}
		})
	}
	_, err := convertMoney(context.Background(), book, "u", 1_00, "JPY", "KRW", day, 0, "amount")
	var missing *RateMissingError
	if !errors.As(err, &missing) || missing.Error() != "no exchange rate from JPY to KRW on or before 2026-11-20" {
		t.Fatalf("no rate: err = %v, want the RateMissingError naming JPY to KRW", err)
	}
	if _, err := convertMoney(context.Background(), book, "u", MaxMoney, "USD", "JPY", day, 0, "to_amount"); !problemOn(err, "to_amount") {
		t.Fatalf("a result past the largest amount: err = %v, want a problem on to_amount", err)
	}
}

func TestCheckDecimalsByCurrency(t *testing.T) {
	for _, c := range []struct {
		m    Money
		code string
		ok   bool
	}{
		{1500_00, "JPY", true}, {1500_50, "JPY", false}, {1500_05, "JPY", false},
		{1500_55, "PHP", true}, {1, "USD", true},
	} {
		var v Validator
		checkDecimals(&v, "amount", c.m, currencyOf(c.code))
		if got := !v.Has("amount"); got != c.ok {
			t.Errorf("checkDecimals(%d, %s) ok = %v, want %v (%v)", c.m, c.code, got, c.ok, v.Err())
		}
	}
	var v Validator
	checkDecimals(&v, "amount", 1500_50, currencyOf("JPY"))
	if got := v.fields["amount"]; got != "must be a number with at most 0 decimal places" {
		t.Errorf("problem = %q", got)
	}
}

// problemOn reports whether err is a ValidationError naming field.
func problemOn(err error, field string) bool {
	var ve *ValidationError
	return errors.As(err, &ve) && ve.Fields[field] != ""
}
