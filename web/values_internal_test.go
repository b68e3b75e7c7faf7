package web

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	assets "github.com/finance-app/finance/embed"
	"github.com/finance-app/finance/finance"
)

// TestEveryMoneyInputIsRead: each decimal input of the templates is a
// money field that readPageAmounts reads, or a percent (which is not
// money). A new money field left off pageMoneyFields would refuse "50,000".
func TestEveryMoneyInputIsRead(t *testing.T) {
	input := regexp.MustCompile(`(?s)<input[^>]*inputmode="decimal"[^>]*>`)
	name := regexp.MustCompile(`name="(?:[^"]*\.)?([A-Za-z_]+)"`)
	// Percents and exchange rates are decimals but not money.
	percents := []string{"interest_rate", "minimum_due_percent", "foreign_fee_percent", "rate"}
	seen := 0
	err := fs.WalkDir(assets.Templates, "templates", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(assets.Templates, path)
		if err != nil {
			return err
		}
		for _, tag := range input.FindAllString(string(b), -1) {
			m := name.FindStringSubmatch(strings.ReplaceAll(tag, "{{$n}}", "row"))
			if m == nil {
				t.Errorf("%s: a decimal input without a name: %s", path, tag)
				continue
			}
			seen++
			if !slices.Contains(percents, m[1]) && !isPageMoneyField(m[1]) {
				t.Errorf("%s: the money field %q is not in pageMoneyFields", path, m[1])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 15 {
		t.Errorf("found %d decimal inputs; the pattern no longer finds them", seen)
	}
}

// DueIn and Left put days and amounts in words from the person's today.
func TestDueInAndLeftWords(t *testing.T) {
	show := display{currency: "PHP", layout: dateLayouts["YYYY-MM-DD"], today: finance.NewDate(2026, 11, 26)}
	for due, want := range map[finance.Date]string{
		finance.NewDate(2026, 11, 5): "21 days overdue", finance.NewDate(2026, 11, 25): "1 day overdue",
		finance.NewDate(2026, 11, 26): "due today", finance.NewDate(2026, 11, 27): "due tomorrow",
		finance.NewDate(2026, 11, 29): "due in 3 days", finance.NewDate(2027, 1, 1): "due in 36 days",
	} {
		if got := show.DueIn(due); got != want {
			t.Errorf("DueIn(%s) = %q, want %q", due, got, want)
		}
	}
	for m, want := range map[finance.Money]string{-19900: "₱199.00 over", 0: "₱0.00 left", 80100: "₱801.00 left"} {
		if got := show.Left(m); got != want {
			t.Errorf("Left(%s) = %q, want %q", m, got, want)
		}
	}
}
