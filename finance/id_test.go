package finance

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"
)

func TestNewID(t *testing.T) {
	const n = 2000
	ids := make([]string, n)
	for i := range ids {
		ids[i] = NewID()
	}
	seen := make(map[string]bool, n)
	for i, id := range ids {
		if id != strings.ToLower(id) {
			t.Fatalf("id %q is not lowercase", id)
		}
		if !ValidID(id) {
			t.Fatalf("NewID() = %q is not a ValidID", id)
		}
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 7 {
			t.Fatalf("id %q: version %v, err %v; want UUIDv7", id, u.Version(), err)
		}
		if seen[id] {
			t.Fatalf("duplicate id %q", id)
		}
		seen[id] = true
		if i > 0 && ids[i-1] >= id {
			t.Fatalf("ids do not sort by creation: %q then %q", ids[i-1], id)
		}
	}
	if !slices.IsSorted(ids) {
		t.Error("ids are not sorted")
	}
}

func TestValidID(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"v7", "0190a6d2-7b1c-7cc3-9d6e-3a1f2b4c5d6e", true},
		{"v4", "6ba7b810-9dad-41d1-80b4-00c04fd430c8", true},
		{"uppercase", "0190A6D2-7B1C-7CC3-9D6E-3A1F2B4C5D6E", false},
		{"no hyphens", "0190a6d27b1c7cc39d6e3a1f2b4c5d6e", false},
		{"braces", "{0190a6d2-7b1c-7cc3-9d6e-3a1f2b4c5d6e}", false},
		{"urn", "urn:uuid:0190a6d2-7b1c-7cc3-9d6e-3a1f2b4c5d6e", false},
		{"not hex", "0190a6d2-7b1c-7cc3-9d6e-3a1f2b4c5dzz", false},
		{"hyphens misplaced", "0190a6d27-b1c-7cc3-9d6e-3a1f2b4c5d6e", false},
		{"empty", "", false},
		{"number", "123", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidID(tt.in); got != tt.want {
				t.Errorf("ValidID(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
