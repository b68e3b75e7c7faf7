package ai

import (
	"regexp"
	"sync"
)

// lazyRegexp compiles expr on first use rather than when the binary starts:
// the parser's expressions and word lists took about 3 ms of every start,
// including the starts of commands that never parse a note.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
