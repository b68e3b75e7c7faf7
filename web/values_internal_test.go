package web

import (
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	assets "github.com/finance-app/finance/embed"
)

// TestEveryMoneyInputIsRead: each decimal input of the templates is a
// money field that readPageAmounts reads, or a percent (which is not
// money). A new money field left off pageMoneyFields would refuse "50,000".
func TestEveryMoneyInputIsRead(t *testing.T) {
	input := regexp.MustCompile(`(?s)<input[^>]*inputmode="decimal"[^>]*>`)
	name := regexp.MustCompile(`name="(?:[^"]*\.)?([A-Za-z_]+)"`)
	percents := []string{"interest_rate", "minimum_due_percent"}
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
