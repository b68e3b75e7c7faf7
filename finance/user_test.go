package finance

import (
	"errors"
	"strings"
	"testing"
)

func TestNormalizeEmail(t *testing.T) {
	tests := []struct {
		name, in, want string
		wantProblem    string
	}{
		{"lowercased and trimmed", "  Ana.Cruz@Example.COM ", "ana.cruz@example.com", ""},
		{"plus address", "ana+finance@example.com", "ana+finance@example.com", ""},
		{"empty", "", "", "is required"},
		{"blank", "   ", "", "is required"},
		{"no at", "ana.example.com", "", "must be a valid email address"},
		{"display name form", "Ana <ana@example.com>", "", "must be a valid email address"},
		{"two addresses", "a@example.com, b@example.com", "", "must be a valid email address"},
		{"bytes that are not UTF-8", "b\xff@example.com", "", "must be a valid email address"},
		{"a NUL", "b\x00@example.com", "", "must be a valid email address"},
		{"too long", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 63) + ".com", "", "must be a valid email address"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := NormalizeEmail(tt.in)
			if tt.wantProblem == "" {
				if err != nil || got != tt.want {
					t.Fatalf("NormalizeEmail(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
				}
				return
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("NormalizeEmail(%q) = %q, %v; want a ValidationError", tt.in, got, err)
			}
			if ve.Fields["email"] != tt.wantProblem {
				t.Errorf("problem = %q, want %q", ve.Fields["email"], tt.wantProblem)
			}
		})
	}
}

func TestParsePlan(t *testing.T) {
	tests := []struct {
		in      string
		want    Plan
		wantErr bool
	}{
		{"pro", PlanPro, false},
		{"free", PlanFree, false},
		{"PRO", PlanPro, false},
		{" Free ", PlanFree, false},
		{"", "", true},
		{"enterprise", "", true},
		{"pro ", PlanPro, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParsePlan(tt.in)
			if tt.wantErr {
				var ve *ValidationError
				if !errors.As(err, &ve) || ve.Fields["plan"] == "" {
					t.Fatalf("ParsePlan(%q) = %q, %v; want a validation error on plan", tt.in, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParsePlan(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestCheckPassword(t *testing.T) {
	tests := []struct {
		name string
		in   string
		ok   bool
	}{
		{"seven", "1234567", false},
		{"eight", "12345678", true},
		{"eight multibyte runes", "ññññññññ", true},
		{"128", strings.Repeat("x", 128), true},
		{"129", strings.Repeat("x", 129), false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckPassword("new_password", tt.in)
			if tt.ok != (err == nil) {
				t.Fatalf("CheckPassword(%q) = %v, want ok=%v", tt.in, err, tt.ok)
			}
			if err != nil {
				var ve *ValidationError
				if !errors.As(err, &ve) || ve.Fields["new_password"] == "" {
					t.Errorf("error %v is not reported on the given field", err)
				}
			}
		})
	}
}

// TestTextChecks: the text helpers every domain field goes through refuse a
// NUL and bytes that are not UTF-8 (the store refuses NUL in text, and the
// command line can pass any bytes), and bound the length in characters.
func TestTextChecks(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"Groceries", ""},
		{"Café ☕", ""},
		{"a\x00b", ProblemText},
		{"caf\xe9", ProblemText},
		{strings.Repeat("é", 10), ""},
		{strings.Repeat("é", 11), "must be at most 10 characters"},
	} {
		var v Validator
		v.RequiredText("name", Of(" "+tt.in+" "), 10)
		v.OptionalText("notes", Of(tt.in), 10)
		var ve *ValidationError
		if err := v.Err(); tt.want == "" && err != nil {
			t.Errorf("%q: %v", tt.in, err)
		} else if tt.want != "" && (!errors.As(err, &ve) || ve.Fields["name"] != tt.want || ve.Fields["notes"] != tt.want) {
			t.Errorf("%q: %v, want %q on both fields", tt.in, err, tt.want)
		}
	}
}
