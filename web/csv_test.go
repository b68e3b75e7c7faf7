package web

import (
	"encoding/csv"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

func TestWriteCSV(t *testing.T) {
	rec := httptest.NewRecorder()
	rows := [][]string{
		{"2025-03-14", "Lunch, with \"Ana\"\nand Ben", "1234.50"},
		{"2025-03-15", "=HYPERLINK(\"https://evil.example\",\"x\")", "-12.00"},
		{"2025-03-16", "+1", "0.05"},
		{"2025-03-17", "-2+3", "7.00"},
		{"2025-03-18", "@SUM(A1)", "1.00"},
		{"2025-03-19", "\tTabbed", "1.00"},
		{"2025-03-20", "\rReturn", "1.00"},
		{"2025-03-21", "", "1.00"},
	}
	err := writeCSV(rec, httptest.NewRequest(http.MethodGet, "/expenses.csv", nil), "expenses 2025/03.csv",
		[]string{"date", "description", "amount"}, rows)
	if err != nil {
		t.Fatal(err)
	}
	res := rec.Result()
	if got := res.Header.Get("Content-Type"); got != "text/csv; charset=utf-8" {
		t.Errorf("Content-Type %q", got)
	}
	if got := res.Header.Get("Content-Disposition"); got != `attachment; filename="expenses-2025-03.csv"` {
		t.Errorf("Content-Disposition %q", got)
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Cache-Control") != "no-store" {
		t.Errorf("security headers missing: %v", res.Header)
	}
	want := "date,description,amount\n" +
		"2025-03-14,\"Lunch, with \"\"Ana\"\"\nand Ben\",1234.50\n" +
		"2025-03-15,\"'=HYPERLINK(\"\"https://evil.example\"\",\"\"x\"\")\",-12.00\n" +
		"2025-03-16,'+1,0.05\n" +
		"2025-03-17,'-2+3,7.00\n" +
		"2025-03-18,'@SUM(A1),1.00\n" +
		"2025-03-19,'\tTabbed,1.00\n" +
		"2025-03-20,\"'\rReturn\",1.00\n" +
		"2025-03-21,,1.00\n"
	if got := rec.Body.String(); got != want {
		t.Errorf("body:\n%q\nwant\n%q", got, want)
	}
	// A CSV reader gets the cells back, the neutralized ones with their quote.
	got, err := csv.NewReader(strings.NewReader(rec.Body.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows)+1 || got[1][1] != "Lunch, with \"Ana\"\nand Ben" || got[2][1] != `'=HYPERLINK("https://evil.example","x")` ||
		got[2][2] != "-12.00" {
		t.Errorf("read back: %q", got)
	}
}

func TestCSVCells(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1234.50", "1234.50"}, {"-1234.50", "-1234.50"}, {"-5", "-5"}, {"-", "'-"}, {"-.5", "'-.5"}, {"-1.2.3", "'-1.2.3"},
		{"=1+1", "'=1+1"}, {"+1", "'+1"}, {"@x", "'@x"}, {"a=b", "a=b"}, {"Food & Dining", "Food & Dining"},
	} {
		if got := csvCells([]string{tc.in}); !slices.Equal(got, []string{tc.want}) {
			t.Errorf("csvCells(%q) = %q, want %q", tc.in, got[0], tc.want)
		}
	}
}
