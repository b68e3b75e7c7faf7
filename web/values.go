package web

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// maxPageValueLen bounds a web page's query and form values, in characters.
// It is far looser than the REST API's bound on a query value (200
// characters): a page's "back"
// parameter carries a list's whole address, and the domain's own limits
// (2,000 characters of text to parse, 1,000 of notes) must keep answering
// next to their fields. It only keeps a search (4 bytes a character at most,
// each escaped) below the 50,000 bytes SQLite's LIKE refuses.
const maxPageValueLen = 10000

// CheckPageValues checks a page's query or posted form: every name and value
// plain text, every value at most maxPageValueLen characters. Pages ignore
// parameters they do not take (a person's bookmarks outlive them), so unlike the
// API's query check nothing is refused for its name alone.
func CheckPageValues(values url.Values, where string) error {
	var v finance.Validator
	for _, name := range slices.Sorted(maps.Keys(values)) {
		field := name
		if !queryparam.PlainName.MatchString(name) {
			field = where
		}
		for _, value := range values[name] {
			if problem := pageValueProblem(name, value); problem != "" {
				v.Add(field, problem) // once per name
				break
			}
		}
	}
	return v.Err()
}

func pageValueProblem(name, value string) string {
	switch {
	case !finance.PlainText(name) || !finance.PlainText(value):
		return finance.ProblemText
	case utf8.RuneCountInString(value) > maxPageValueLen:
		return "must be at most " + strconv.Itoa(maxPageValueLen) + " characters"
	}
	return ""
}
