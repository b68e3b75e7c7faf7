package main

import "testing"

// TestServeRefusesBadFXFlags: a rates source that cannot work stops the
// start with the flag named, rather than logging failures for ever.
func TestServeRefusesBadFXFlags(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		want string
		args []string
	}{
		{"--fx-source frankfurter: a frankfurter source needs the URL of its instance", []string{"--fx-source", "frankfurter"}},
		{`--fx-source fixer: unknown source "fixer"`, []string{"--fx-source", "fixer"}},
		{"--fx-interval 30s: want at least 1m", []string{"--fx-source", "ecb", "--fx-interval", "30s"}},
		{"--fx-url needs --fx-source ecb or frankfurter", []string{"--fx-url", "http://rates.lan/"}},
		{"is not an http or https URL", []string{"--fx-source", "ecb", "--fx-url", "rates.lan"}},
	} {
		mustFail(t, dir, "", tt.want, append([]string{"serve", "--addr", "127.0.0.1:0"}, tt.args...)...)
	}
}
