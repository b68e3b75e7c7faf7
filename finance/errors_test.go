package finance

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestValidatorEmptyIsNil(t *testing.T) {
	var v Validator
	if err := v.Err(); err != nil {
		t.Fatalf("Err() of an empty Validator = %v, want nil", err)
	}
	if v.Has("amount") {
		t.Error("Has on an empty Validator is true")
	}
}

func TestValidatorFirstProblemWins(t *testing.T) {
	var v Validator
	v.Add("amount", "is required")
	v.Add("amount", "must be greater than 0")
	v.Add("date", "must be a real calendar date")
	if !v.Has("amount") || !v.Has("date") || v.Has("category") {
		t.Errorf("Has: amount %v, date %v, category %v", v.Has("amount"), v.Has("date"), v.Has("category"))
	}
	var ve *ValidationError
	if !errors.As(v.Err(), &ve) {
		t.Fatalf("Err() = %T, want *ValidationError", v.Err())
	}
	want := map[string]string{"amount": "is required", "date": "must be a real calendar date"}
	if diff := cmp.Diff(want, ve.Fields); diff != "" {
		t.Errorf("Fields (-want +got):\n%s", diff)
	}
	if ve.Message != "Validation failed" {
		t.Errorf("Message = %q, want %q", ve.Message, "Validation failed")
	}
	if want := "Validation failed: amount is required; date must be a real calendar date"; ve.Error() != want {
		t.Errorf("Error() = %q, want %q (fields sorted by name)", ve.Error(), want)
	}
}

func TestValidatorSingleFieldMessage(t *testing.T) {
	var v Validator
	v.Add("amount", "must be greater than 0")
	var ve *ValidationError
	if !errors.As(v.Err(), &ve) {
		t.Fatalf("Err() = %T", v.Err())
	}
	if want := "Validation failed: amount must be greater than 0"; ve.Message != want {
		t.Errorf("Message = %q, want %q", ve.Message, want)
	}
	// The message already names the field problem; Error does not repeat it.
	if want := "Validation failed: amount must be greater than 0"; ve.Error() != want {
		t.Errorf("Error() = %q, want %q", ve.Error(), want)
	}
}

func TestValidationErrorWithItsOwnMessage(t *testing.T) {
	tests := []struct {
		name string
		err  *ValidationError
		want string
	}{
		{"no fields", &ValidationError{Message: "Invalid multipart body"}, "Invalid multipart body"},
		{"a message that does not name the field", &ValidationError{
			Message: "Another active account is named \"Cash\"; rename one of them first",
			Fields:  map[string]string{"name": "is already used by another active account"},
		}, "Another active account is named \"Cash\"; rename one of them first: name is already used by another active account"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestValidatorMerge(t *testing.T) {
	var item Validator
	item.Add("amount", "must be greater than 0")
	item.Add("category", "is required")

	var v Validator
	v.Add("items[2].amount", "is required") // already there: wins over the merged problem
	if err := v.Merge("items[2].", item.Err()); err != nil {
		t.Fatalf("Merge of a ValidationError returned %v", err)
	}
	if err := v.Merge("items[3].", nil); err != nil {
		t.Fatalf("Merge(nil) = %v", err)
	}
	other := errors.New("database is down")
	if err := v.Merge("x.", fmt.Errorf("wrapped: %w", other)); !errors.Is(err, other) {
		t.Fatalf("Merge of a non-validation error = %v, want it returned unchanged", err)
	}
	var ve *ValidationError
	if !errors.As(v.Err(), &ve) {
		t.Fatalf("Err() = %T", v.Err())
	}
	want := map[string]string{"items[2].amount": "is required", "items[2].category": "is required"}
	if diff := cmp.Diff(want, ve.Fields); diff != "" {
		t.Errorf("Fields (-want +got):\n%s", diff)
	}
}

func TestMergeFindsWrappedValidationError(t *testing.T) {
	var v Validator
	if err := v.Merge("", fmt.Errorf("context: %w", Invalid("email", "is required"))); err != nil {
		t.Fatalf("Merge = %v", err)
	}
	if !v.Has("email") {
		t.Error("wrapped validation error was not merged")
	}
}

func TestInvalid(t *testing.T) {
	err := Invalid("email", "is already registered")
	if want := map[string]string{"email": "is already registered"}; !cmp.Equal(want, err.Fields) {
		t.Errorf("Fields = %v, want %v", err.Fields, want)
	}
	if want := "Validation failed: email is already registered"; err.Message != want {
		t.Errorf("Message = %q, want %q", err.Message, want)
	}
}

func TestKindErrors(t *testing.T) {
	tests := []struct {
		name     string
		err      error
		wantKind error
		wantMsg  string
	}{
		{"not found", NotFound("expense"), ErrNotFound, "expense not found"},
		{"invalid status", InvalidStatus("statement %s is voided", "abc"), ErrInvalidStatus, "statement abc is voided"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !errors.Is(tt.err, tt.wantKind) {
				t.Errorf("errors.Is(%v, %v) = false", tt.err, tt.wantKind)
			}
			if errors.Is(tt.err, ErrNotFound) && errors.Is(tt.err, ErrInvalidStatus) {
				t.Error("an error matches both kinds")
			}
			if !errors.Is(fmt.Errorf("store: %w", tt.err), tt.wantKind) {
				t.Error("the kind is lost when wrapped")
			}
			if tt.err.Error() != tt.wantMsg {
				t.Errorf("Error() = %q, want %q", tt.err.Error(), tt.wantMsg)
			}
		})
	}
}
