package arch_test

// The README is short and points into docs/ for everything else, so a page
// moved or a heading renamed would leave dead links behind. These tests
// read the Markdown as GitHub renders it: every relative link must lead to
// a file of the repository and every #anchor to a heading of its page, and
// a table must not be cut in two by a line that is not a row.

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// docFiles are the Markdown pages a reader follows links through.
func docFiles(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	if len(pages) == 0 {
		t.Fatal("no pages in docs/")
	}
	return append([]string{"README.md"}, pages...)
}

// markdown is one page split into what GitHub renders as text (fenced code
// blocks blanked, so that their lines keep their numbers) and its headings.
type markdown struct {
	text     string
	headings []string
}

func readMarkdown(t *testing.T, file string) markdown {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var md markdown
	lines := strings.Split(string(raw), "\n")
	fence := ""
	for i, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if fence == "" && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")) {
			fence = trimmed[:3]
			lines[i] = ""
			continue
		}
		if fence != "" {
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
			lines[i] = ""
			continue
		}
		if m := headingLine.FindStringSubmatch(line); m != nil {
			md.headings = append(md.headings, m[1])
		}
	}
	if fence != "" {
		t.Errorf("%s: a code block is never closed", file)
	}
	md.text = strings.Join(lines, "\n")
	return md
}

var (
	headingLine = regexp.MustCompile(`^#{1,6}\s+(.*?)\s*#*\s*$`)
	codeSpan    = regexp.MustCompile("`[^`]*`")
	inlineLink  = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)(?:\s+"[^"]*")?\)`)
	hasScheme   = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// anchors returns the ids GitHub gives a page's headings: the heading's text
// in lower case, without punctuation but for hyphens and underscores, spaces
// turned into hyphens, and -1, -2 ... after a repeated one.
func (md markdown) anchors() map[string]bool {
	ids := map[string]bool{}
	seen := map[string]int{}
	for _, h := range md.headings {
		h = inlineLink.ReplaceAllString(h, "$1")
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
				b.WriteRune(r)
			}
		}
		id := b.String()
		if n := seen[id]; n > 0 {
			ids[fmt.Sprintf("%s-%d", id, n)] = true
		} else {
			ids[id] = true
		}
		seen[id]++
	}
	return ids
}

func TestDocLinksLeadSomewhere(t *testing.T) {
	pages := map[string]markdown{}
	page := func(file string) markdown {
		md, ok := pages[file]
		if !ok {
			md = readMarkdown(t, file)
			pages[file] = md
		}
		return md
	}
	links := 0
	for _, file := range docFiles(t) {
		text := codeSpan.ReplaceAllString(page(file).text, "")
		for _, m := range inlineLink.FindAllStringSubmatch(text, -1) {
			target := m[2]
			if hasScheme.MatchString(target) {
				continue
			}
			links++
			if strings.HasPrefix(target, "/") {
				t.Errorf("%s: link %q: a link into the repository must be relative", file, target)
				continue
			}
			ref, anchor, _ := strings.Cut(target, "#")
			dest := file
			if ref != "" {
				dest = path.Join(path.Dir(file), ref)
				if dest == ".." || strings.HasPrefix(dest, "../") {
					t.Errorf("%s: link %q leaves the repository", file, target)
					continue
				}
				if _, err := os.Stat(filepath.FromSlash(dest)); err != nil {
					t.Errorf("%s: link %q: no such file %s", file, target, dest)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(dest, ".md") {
				t.Errorf("%s: link %q: an anchor into a file that is not Markdown", file, target)
				continue
			}
			if !page(dest).anchors()[anchor] {
				t.Errorf("%s: link %q: %s has no heading with the anchor #%s", file, target, dest, anchor)
			}
		}
	}
	if links < 20 {
		t.Errorf("found only %d relative links; the README should point into docs/", links)
	}
}

// TestDocTablesAreWhole: a table row broken over two lines renders as two
// rows, the second a stray cell; a table ends only at a blank line.
func TestDocTablesAreWhole(t *testing.T) {
	delimiter := regexp.MustCompile(`^\|(\s*:?-+:?\s*\|)+\s*$`)
	for _, file := range docFiles(t) {
		lines := strings.Split(readMarkdown(t, file).text, "\n")
		inTable := false
		for i, line := range lines {
			switch {
			case strings.TrimSpace(line) == "":
				inTable = false
			case delimiter.MatchString(line) && i > 0 && strings.HasPrefix(lines[i-1], "|"):
				inTable = true
			case inTable && !strings.HasPrefix(line, "|"):
				t.Errorf("%s:%d: a line inside a table that is not a row: %.60q", file, i+1, line)
			}
		}
	}
}
