package finance

import (
	"slices"
	"testing"
)

// A checked draft's guessed names only guessable fields that still hold a
// value, once each, in the order of GuessableFields: a field the checks
// dropped is missing, not guessed.
func TestCheckDraftKeepsGuessedToItsValues(t *testing.T) {
	in := ParseInputs{Accounts: []AccountOption{{ID: "acct-1", Name: "BPI Savings"}}}
	method, other, amount := MethodAccountDebit, "someone-elses-account", Money(25000)
	today := NewDate(2025, 11, 14)
	d := ExpenseDraft{Amount: &amount, Date: &today, PaymentMethod: &method, AccountID: &other,
		Guessed: []string{"account_id", "payment_method", "amount", "date", "payment_method", "credit_card_id"}}
	got, problems := in.CheckDraft(d)
	if got.AccountID != nil || problems["account_id"] == "" {
		t.Fatalf("account_id %v, problems %v: another user's account must be dropped", got.AccountID, problems)
	}
	if want := []string{"date", "payment_method"}; !slices.Equal(got.Guessed, want) {
		t.Errorf("guessed = %q, want %q", got.Guessed, want)
	}
	if got, _ := in.CheckDraft(ExpenseDraft{}); got.Guessed == nil || len(got.Guessed) != 0 {
		t.Errorf("guessed of a draft without one = %#v, want an empty list", got.Guessed)
	}
}
