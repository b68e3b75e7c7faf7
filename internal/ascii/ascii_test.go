package ascii

import (
	"strings"
	"testing"
)

func TestOnly(t *testing.T) {
	for _, tc := range []struct {
		s        string
		min, max int
		punct    string
		want     bool
	}{
		{"items[2].amount", 1, 200, "_.-[]", true},
		{"", 1, 200, "_.-[]", false},
		{strings.Repeat("a", 200), 1, 200, "_.-[]", true},
		{strings.Repeat("a", 201), 1, 200, "_.-[]", false},
		{"a b", 1, 200, "_.-[]", false},
		{"<script>", 1, 200, "_.-[]", false},
		{"naïve", 1, 200, "_.-[]", false},
		{"a\x00", 1, 200, "_.-[]", false},
		{"Az09_-", 6, 6, "_-", true},
		{"Az09_.", 6, 6, "_-", false},
	} {
		if got := Only(tc.s, tc.min, tc.max, tc.punct); got != tc.want {
			t.Errorf("Only(%q, %d, %d, %q) = %v, want %v", tc.s, tc.min, tc.max, tc.punct, got, tc.want)
		}
	}
}
