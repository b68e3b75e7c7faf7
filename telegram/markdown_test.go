package telegram

import "testing"

func TestEscape(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "Lunch at Jollibee", "Lunch at Jollibee"},
		{"every special character", `_*[]()~` + "`" + `>#+-=|{}.!\`,
			`\_\*\[\]\(\)\~\` + "`" + `\>\#\+\-\=\|\{\}\.\!\\`},
		{"amount and date", "1,234.50 on 2026-11-20", `1,234\.50 on 2026\-11\-20`},
		{"already escaped text is escaped again", `a\.b`, `a\\\.b`},
		{"unicode is left alone", "Kape ☕ ₱95", "Kape ☕ ₱95"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Escape(tt.in); got != tt.want {
				t.Errorf("Escape(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestFormatting(t *testing.T) {
	if got, want := Bold("Total: 1.5"), `*Total: 1\.5*`; got != want {
		t.Errorf("Bold = %q, want %q", got, want)
	}
	if got, want := Italic("a_b"), `_a\_b_`; got != want {
		t.Errorf("Italic = %q, want %q", got, want)
	}
	// Inside code only the backtick and the backslash are special.
	if got, want := Code("/link AB-12.x`\\"), "`/link AB-12.x\\`\\\\`"; got != want {
		t.Errorf("Code = %q, want %q", got, want)
	}
}
