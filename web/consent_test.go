package web

import "testing"

func TestFormActionSource(t *testing.T) {
	for in, want := range map[string]string{
		"http://127.0.0.1:5000/cb":         "http://127.0.0.1:5000",
		"https://claude.ai/api/mcp/cb?x=1": "https://claude.ai",
		"cursor://anysphere.cursor/cb":     "cursor:",
		"com.example.app:/cb":              "com.example.app:",
		"http://[::1]:5000/cb":             "http:",
	} {
		if got := formActionSource(in); got != want {
			t.Errorf("formActionSource(%q) = %q, want %q", in, got, want)
		}
	}
}
