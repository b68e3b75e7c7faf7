package oauth

import (
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
)

func TestCheckRedirectURI(t *testing.T) {
	ok := []string{
		"https://claude.ai/api/mcp/auth_callback",
		"https://app.example:8443/cb?tenant=1",
		"http://127.0.0.1/cb",
		"http://127.0.0.1:33418/callback",
		"http://[::1]:8080/cb",
		"http://localhost:6274/oauth/callback",
		"http://LOCALHOST:6274/cb",
		"cursor://anysphere.cursor-retrieval/oauth/user-abc/callback",
		"com.example.app:/oauth2redirect",
		"vscode://vscode.github-authentication/did-authenticate",
	}
	for _, u := range ok {
		if why := checkRedirectURI(u); why != "" {
			t.Errorf("checkRedirectURI(%q) refused: %s", u, why)
		}
	}
	bad := []string{
		"", "/relative", "cb", "http://example.com/cb", "http://10.0.0.2/cb", "http://127.0.0.2/cb",
		"http://localhost.evil.example/cb", "https:///cb", "https://app.example/cb#frag", "https://app.example/cb#",
		"https://u:p@app.example/cb", "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,x", "file:///etc/passwd",
		"vbscript:x", "about:blank", "blob:https://x/1", "ws://127.0.0.1/cb", "mailto:a@b.example", "chrome-extension://abc/cb",
		"https://app.example/c b", "https://app.example/\\cb", "1abc://x", "https://" + strings.Repeat("a", 2000) + ".example",
		// Handlers of the operating system or Office, never an OAuth client.
		"ms-msdt:/id=PCWDiagnostic", "ms-officecmd:{}", "ms-word:ofe|u|https://evil.example/d", "ms-excel:ofv|u|https://e.example/x",
		"ms-settings:privacy", "ms-appinstaller:?source=https://evil.example/x.msix", "search-ms:query=x", "search:query=x",
		"shell:startup", "hcp://system/x", "its:evil.chm::/x.htm", "mk:@MSITStore:x", "microsoft-edge:https://evil.example",
		"x-man-page://ls", "help:openbook=x", "ghelp:x", "applescript://com.apple.scripteditor?action=new",
		"smb://evil.example/share", "afp://evil.example/share", "nfs://evil.example/x", "ssh://evil.example", "telnet://evil.example",
	}
	for _, u := range bad {
		if why := checkRedirectURI(u); why == "" {
			t.Errorf("checkRedirectURI(%q) accepted", u)
		}
	}
}

func TestRedirectMatches(t *testing.T) {
	tests := []struct {
		registered, requested string
		want                  bool
	}{
		{"https://app.example/cb", "https://app.example/cb", true},
		{"https://app.example/cb", "https://app.example/cb/", false},
		{"https://app.example/cb", "https://APP.example/cb", false},
		{"https://app.example/cb", "https://app.example:443/cb", false},
		{"https://app.example/cb", "https://app.example/cb?x=1", false},
		{"http://127.0.0.1:3000/cb", "http://127.0.0.1:51234/cb", true},
		{"http://127.0.0.1/cb", "http://127.0.0.1:51234/cb", true},
		{"http://127.0.0.1:3000/cb", "http://127.0.0.1/cb", true},
		{"http://[::1]:3000/cb", "http://[::1]:4000/cb", true},
		{"http://localhost:3000/cb", "http://localhost:4000/cb", true},
		{"http://127.0.0.1:3000/cb", "http://localhost:3000/cb", false},
		{"http://127.0.0.1:3000/cb", "http://127.0.0.1:3000/other", false},
		{"http://127.0.0.1:3000/cb?a=1", "http://127.0.0.1:4000/cb?a=2", false},
		{"http://127.0.0.1:3000/cb", "http://127.0.0.1:4000/cb#x", false},
		{"http://127.0.0.1:3000/cb", "http://u@127.0.0.1:4000/cb", false},
		{"http://127.0.0.1:3000/cb", "http://127.0.0.1:99999/cb", false},
		{"http://127.0.0.1:3000/cb", "http://127.0.0.1:0/cb", false},
		{"http://127.0.0.1:3000/cb", "https://127.0.0.1:3000/cb", false},
		{"https://127.0.0.1:3000/cb", "https://127.0.0.1:4000/cb", false}, // the port rule is for http loopback only
		{"cursor://a.b/cb", "cursor://a.b/cb", true},
		{"cursor://a.b/cb", "cursor://a.b/cb2", false},
	}
	for _, tt := range tests {
		if got := redirectMatches(tt.registered, tt.requested); got != tt.want {
			t.Errorf("redirectMatches(%q, %q) = %v, want %v", tt.registered, tt.requested, got, tt.want)
		}
	}
}

func TestRedirectTarget(t *testing.T) {
	for in, want := range map[string]string{
		"https://claude.ai/api/mcp/auth_callback":     "claude.ai",
		"http://127.0.0.1:33418/cb":                   "an app on this device (127.0.0.1:33418)",
		"cursor://anysphere.cursor-retrieval/oauth/x": "the app that opens cursor://anysphere.cursor-retrieval links",
		"com.example.app:/cb":                         "the app that opens com.example.app: links",
	} {
		if got := RedirectTarget(in); got != want {
			t.Errorf("RedirectTarget(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAppendQuery(t *testing.T) {
	q := url.Values{"code": {"c"}, "state": {"a b"}}
	for in, want := range map[string]string{
		"https://a.example/cb":       "https://a.example/cb?code=c&state=a+b",
		"https://a.example/cb?x=1":   "https://a.example/cb?x=1&code=c&state=a+b",
		"https://a.example/cb?":      "https://a.example/cb?code=c&state=a+b",
		"https://a.example/cb?x=1&":  "https://a.example/cb?x=1&code=c&state=a+b",
		"com.example.app:/cb?y=%2F2": "com.example.app:/cb?y=%2F2&code=c&state=a+b",
	} {
		if got := appendQuery(in, q); got != want {
			t.Errorf("appendQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestPKCE uses the example of RFC 7636 Appendix B.
func TestPKCE(t *testing.T) {
	const verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
	if !pkceMatches(verifier, challenge) {
		t.Error("the RFC 7636 example does not match")
	}
	if pkceMatches(challenge, challenge) || pkceMatches(verifier+"x", challenge) || pkceMatches(verifier, "") {
		t.Error("a wrong verifier matches")
	}
	if !s256Challenge(challenge) || s256Challenge(challenge+"=") || s256Challenge(verifier[:42]) {
		t.Error("challenge syntax check is wrong")
	}
	if !codeVerifier(verifier) || codeVerifier(verifier[:42]) || codeVerifier(strings.Repeat("a", 129)) ||
		codeVerifier(verifier[:42]+"+") {
		t.Error("verifier syntax check is wrong")
	}
}

func TestCleanClientName(t *testing.T) {
	for in, want := range map[string]string{
		"  Claude   Desktop ":         "Claude Desktop",
		"Evil\u202eppA":               "EvilppA",
		"Tab\tand\nnewline\x00":       "Tab and newline",
		"Zero\u200bwidth":             "Zerowidth",
		strings.Repeat("é", 150):      strings.Repeat("é", 100),
		"<script>alert(1)</script>":   "<script>alert(1)</script>", // html/template escapes it on the page
		"":                            "",
		"\u00a0":                      "",
		"Cursor (anysphere.cursor) ✨": "Cursor (anysphere.cursor) ✨",
	} {
		if got := cleanClientName(in); got != want {
			t.Errorf("cleanClientName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseRequestedScopes(t *testing.T) {
	got, err := parseRequestedScopes("mcp:connect finance:read  finance:read expenses:write")
	if err != nil {
		t.Fatal(err)
	}
	want := []auth.Scope{auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	all, err := parseRequestedScopes("all")
	if err != nil || len(all) != len(auth.Scopes) {
		t.Errorf("all = %v, %v", all, err)
	}
	if _, err := parseRequestedScopes("finance:read profile"); err == nil || err.Code != "invalid_scope" {
		t.Errorf("unknown scope: %v", err)
	}
	// offline_access and openid ask for nothing withheld: dropped, not refused.
	got, err = parseRequestedScopes("openid finance:read offline_access")
	if err != nil || !cmp.Equal(got, []auth.Scope{auth.ScopeRead}) {
		t.Errorf("with openid and offline_access: %v, %v; want finance:read alone", got, err)
	}
}

// TestDeny checks the one error that goes back to the client: the redirect
// URI keeps its own query and gains the error, state and iss.
func TestDeny(t *testing.T) {
	s := &Server{issuer: "https://finance.example"}
	got, _ := url.Parse(s.Deny(&AuthorizeRequest{RedirectURI: "https://a.example/cb?k=v", State: "s 1"}))
	want := url.Values{"k": {"v"}, "error": {"access_denied"}, "error_description": {"The user denied the request"},
		"state": {"s 1"}, "iss": {"https://finance.example"}}
	if diff := cmp.Diff(want, got.Query()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got.Host != "a.example" || got.Path != "/cb" {
		t.Errorf("Deny redirects to %s", got)
	}
}
