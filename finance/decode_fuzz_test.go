package finance

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// FuzzDecodeExpenseRequest feeds arbitrary bodies through the decoding and
// shape checks of POST /expenses. Decoding into Fields must never fail on a
// member (only on malformed JSON), the checks must never panic, every
// rejection must be a ValidationError naming fields, and an accepted body
// must hold a positive amount, a real date and one of the three methods.
func FuzzDecodeExpenseRequest(f *testing.F) {
	for _, seed := range []string{
		`{"amount":"12.50","date":"2026-01-15","description":"Bus","category":"Transportation","payment_method":"Cash"}`,
		`{"amount":12.505,"date":"2026-02-30","payment_method":"Debit"}`,
		`{"amount":null,"date":null,"description":"","category":5,"payment_method":["Cash"]}`,
		`{"amount":"1e3","account_id":"x","credit_card_id":null,"notes":"` + strings.Repeat("n", 1001) + `"}`,
		`[]`, `null`, `{"amount":-0.00}`,
	} {
		f.Add(seed)
	}
	s := NewService(nil)
	s.SetClock(func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) })
	f.Fuzz(func(t *testing.T, body string) {
		var r ExpenseRequest
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) && typeErr.Field != "" {
				t.Fatalf("a member failed to decode instead of reporting a problem: %v", err)
			}
			return // not a JSON object: the HTTP layer answers 400
		}
		d, err := r.shape(s.newExpense(context.Background()), true)
		if err != nil {
			var ve *ValidationError
			if !errors.As(err, &ve) || len(ve.Fields) == 0 {
				t.Fatalf("rejection is not a ValidationError with fields: %v", err)
			}
			return
		}
		e := d.next
		if e.Amount <= 0 || e.Amount > MaxMoney || e.Date.IsZero() || e.Description == "" {
			t.Fatalf("accepted an invalid expense: %+v", e)
		}
		switch e.PaymentMethod {
		case MethodCash, MethodAccountDebit, MethodCreditCard:
		default:
			t.Fatalf("accepted payment method %q", e.PaymentMethod)
		}
	})
}
