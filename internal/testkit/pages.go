package testkit

import (
	"bytes"
	"context"
	"html"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
)

// Now is the ledger's clock in the web app's tests: 15 March 2025 at noon
// in Manila, the default timezone.
var Now = time.Date(2025, 3, 15, 4, 0, 0, 0, time.UTC)

// Unescaped is the page's body with HTML entities decoded, for matching text.
func Unescaped(x Exchange) string { return html.UnescapeString(string(x.Body)) }

// WantPage checks a page's status and that its text holds every want.
func WantPage(t testing.TB, what string, x Exchange, status int, want ...string) {
	t.Helper()
	if x.Status != status {
		t.Errorf("%s: status %d, want %d\n%s", what, x.Status, status, x.Body)
		return
	}
	body := Unescaped(x)
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
}

// WantRedirect checks that x is a 303 to target.
func WantRedirect(t testing.TB, what string, x Exchange, target string) {
	t.Helper()
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != target {
		t.Fatalf("%s: %d to %q, want 303 to %q\n%s", what, x.Status, x.Header.Get("Location"), target, x.Body)
	}
}

// CheckPageHeaders checks the security headers every page carries, and
// that the page runs only script files of its own origin, never an inline
// script, and sends no request of its own.
func CheckPageHeaders(t testing.TB, x Exchange) {
	t.Helper()
	checkPageHeaders(t, x, false)
}

// CheckScriptPageHeaders is CheckPageHeaders for a page whose own script
// sends requests to this origin (Import's import.js, setup's zone.js).
func CheckScriptPageHeaders(t testing.TB, x Exchange) {
	t.Helper()
	checkPageHeaders(t, x, true)
}

func checkPageHeaders(t testing.TB, x Exchange, connect bool) {
	t.Helper()
	csp := x.Header.Get("Content-Security-Policy")
	if connect {
		const connects = " connect-src 'self';"
		if !strings.Contains(csp, connects) {
			t.Errorf("CSP %q lacks %q", csp, connects)
		}
		csp = strings.Replace(csp, connects, "", 1)
	}
	want := "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; manifest-src 'self'; form-action 'self'"
	if !strings.HasPrefix(csp, want) {
		t.Errorf("CSP %q, want it to start %q", csp, want)
	}
	for _, want := range []string{"frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	for _, d := range strings.Split(csp, ";") {
		name, sources, _ := strings.Cut(strings.TrimSpace(d), " ")
		if name == "script-src" && sources != "'self'" || name == "connect-src" || strings.Contains(sources, "unsafe-") {
			t.Errorf("CSP %q allows more than this origin's script files: %s", csp, d)
		}
	}
	for k, want := range map[string]string{
		"X-Frame-Options": "DENY", "Referrer-Policy": "no-referrer", "X-Content-Type-Options": "nosniff", "Cache-Control": "no-store",
	} {
		if got := x.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// ExpensesOf lists the user's expenses of a status ("": any) straight from the ledger.
func ExpensesOf(t testing.TB, ledger *finance.Service, u finance.User, status string) []finance.Expense {
	t.Helper()
	if status == "" {
		return append(ExpensesOf(t, ledger, u, finance.StatusActive), ExpensesOf(t, ledger, u, finance.StatusVoided)...)
	}
	p, err := ledger.ListExpenses(context.Background(), u.ID, finance.ExpenseFilter{Status: status},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "date", Desc: true})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

// ReceiptForm is the Record page's "Read a receipt" form as a browser
// sends it, in the page's order: the form token first (none when token is
// ""), one file part per photo, then the note.
func ReceiptForm(t testing.TB, token, note string, files ...[]byte) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if token != "" {
		w.WriteField("csrf", token)
	}
	for _, f := range files {
		part, err := w.CreateFormFile("images", "receipt.png")
		if err != nil {
			t.Fatal(err)
		}
		part.Write(f)
	}
	w.WriteField("note", note)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), w.FormDataContentType()
}

// ActivityOf lists the user's activity through filter f, newest first
// (at most 100 entries), straight from the ledger.
func ActivityOf(t testing.TB, ledger *finance.Service, userID string, f finance.ActivityFilter) []finance.Activity {
	t.Helper()
	p, err := ledger.ListActivity(context.Background(), userID, f, finance.Date{}, finance.Date{},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "created_at", Desc: true})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}
