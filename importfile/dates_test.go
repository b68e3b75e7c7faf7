package importfile

import "testing"

func TestDateLayouts(t *testing.T) {
	tests := []struct {
		layout, text, want string // want "" = refused
	}{
		{"YYYY-MM-DD", "2026-01-31", "2026-01-31"},
		{"YYYY-MM-DD", "2026-01-31T23:59:59+08:00", "2026-01-31"},
		{"YYYY-MM-DD", "2026-02-29", ""},
		{"YYYY-MM-DD", "2024-02-29", "2024-02-29"},
		{"YYYYMMDD", "20260131", "2026-01-31"},
		{"DD/MM/YYYY", "31/01/2026", "2026-01-31"},
		{"DD/MM/YYYY", "1/2/2026", "2026-02-01"},
		{"DD/MM/YYYY", "31/02/2026", ""},
		{"MM/DD/YYYY", "01/31/2026", "2026-01-31"},
		{"MM/DD/YYYY", "01/31/2026 10:15 AM", "2026-01-31"},
		{"DD.MM.YYYY", "31.01.2026", "2026-01-31"},
		{"DD.MM.YY", "31.01.26", "2026-01-31"},
		{"DD/MM/YY", "31/01/99", "1999-01-31"},
		{"DD-MM-YYYY", "31-01-2026", "2026-01-31"},
		{"MM-DD-YYYY", "01-31-2026", "2026-01-31"},
		{"D MMM YYYY", "5 Jan 2026", "2026-01-05"},
		{"D MMM YYYY", "5 January 2026", "2026-01-05"},
		{"D MMM YYYY", "5 Sept 2026", "2026-09-05"},
		{"D MMM YYYY", "5 Jax 2026", ""},
		{"DD-MMM-YYYY", "05-JAN-2026", "2026-01-05"},
		{"DD-MMM-YY", "05-Jan-26", "2026-01-05"},
		{"MMM D, YYYY", "Jan 5, 2026", "2026-01-05"},
		{"YYYY-MM-DD", "1899-12-31", ""},
		{"DD/MM/YYYY", "31/01/26", ""},
		{"DD/MM/YYYY", "", ""},
	}
	for _, tt := range tests {
		l, ok := layoutNamed(tt.layout)
		if !ok {
			t.Fatalf("layout %q unknown", tt.layout)
		}
		d, ok := l.parse(tt.text)
		got := ""
		if ok {
			got = d.String()
		}
		if got != tt.want {
			t.Errorf("%s.parse(%q) = %q; want %q", tt.layout, tt.text, got, tt.want)
		}
	}
}

func TestDetectDateLayout(t *testing.T) {
	tests := []struct {
		values    []string
		preferred string
		want      string // "" = an error
	}{
		{[]string{"2026-01-05", "2026-01-06"}, "", "YYYY-MM-DD"},
		{[]string{"05/01/2026", "25/01/2026"}, "", "DD/MM/YYYY"},
		{[]string{"05/01/2026", "01/25/2026"}, "", "MM/DD/YYYY"},
		{[]string{"05/01/2026"}, "MM/DD/YYYY", "MM/DD/YYYY"},
		{[]string{"05/01/2026"}, "YYYY-MM-DD", ""},
		{[]string{"05/01/2026", "garbage", "25/01/2026"}, "", "DD/MM/YYYY"},
		{[]string{"garbage"}, "", ""},
	}
	for _, tt := range tests {
		l, err := detectDateLayout(tt.values, tt.preferred)
		if got := l.name; got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("detectDateLayout(%q, %q) = %q, %v; want %q", tt.values, tt.preferred, got, err, tt.want)
		}
		if err != nil && err.(*Error).Field != "date_format" {
			t.Errorf("error %+v; want field date_format", err)
		}
	}
}
