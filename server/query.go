package server

import (
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
)

// APIPrefix starts every route of the REST API.
const APIPrefix = "/api/v1/"

// MaxQueryValueLen bounds every query parameter value of the REST API, in
// characters. Ids, dates and enums are far shorter; a search longer than
// this is not a search, and SQLite refuses LIKE patterns past about 50,000
// bytes, which would otherwise surface as a 500.
const MaxQueryValueLen = 200

// listParams are the paging and sorting parameters every list route takes.
var listParams = []string{"page", "limit", "sortBy", "sortOrder"}

// list returns the query parameters of a list route: paging and sorting,
// then its own filters.
func list(filters ...string) []string { return append(slices.Clone(listParams), filters...) }

// plainName matches parameter names and member paths (items[2].amount) that
// an error may repeat back as they are: they cannot carry markup or control
// characters. Others are named by where they are ("query", "body").
var plainName = regexp.MustCompile(`^[A-Za-z0-9_.\-\[\]]{1,200}$`)

// checkQuery refuses a query string that the route would not read exactly as
// sent: a parameter the route does not take (an agent reading an unfiltered
// list as filtered is worse than an error), a parameter given twice, a value
// over MaxQueryValueLen characters, or text that is not valid UTF-8 or holds
// NUL. accepted lists the route's parameters; every problem is reported at
// once, as a VALIDATION_ERROR naming the parameters.
func checkQuery(rawQuery string, accepted []string) error {
	if rawQuery == "" {
		return nil
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return httperr.BadRequest("The query string is malformed: encode each name and value (a ';' as %3B, a '%' as %25)", nil)
	}
	var v finance.Validator
	for _, name := range slices.Sorted(maps.Keys(q)) {
		values := q[name]
		if !slices.Contains(accepted, name) {
			field := name
			if !plainName.MatchString(name) {
				field = "query"
			}
			v.Add(field, unknownParamProblem(accepted))
			continue
		}
		switch value := values[0]; {
		case len(values) > 1:
			v.Add(name, "must be given once")
		case !finance.PlainText(value):
			v.Add(name, finance.ProblemText)
		case utf8.RuneCountInString(value) > MaxQueryValueLen:
			v.Add(name, "must be at most "+strconv.Itoa(MaxQueryValueLen)+" characters")
		}
	}
	return v.Err()
}

// maxPageValueLen bounds a web page's query and form values, in characters.
// It is far looser than the API's MaxQueryValueLen: a page's "back"
// parameter carries a list's whole address, and the domain's own limits
// (2,000 characters of text to parse, 1,000 of notes) must keep answering
// next to their fields. It only keeps a search (4 bytes a character at most,
// each escaped) below the 50,000 bytes SQLite's LIKE refuses.
const maxPageValueLen = 10000

// checkPageValues checks a page's query or posted form: every name and value
// plain text, every value at most maxPageValueLen characters. Pages ignore
// parameters they do not take (a person's bookmarks outlive them), so unlike
// checkQuery nothing is refused for its name alone.
func checkPageValues(values url.Values, where string) error {
	var v finance.Validator
	for _, name := range slices.Sorted(maps.Keys(values)) {
		field := name
		if !plainName.MatchString(name) {
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

// checkedPageQuery runs checkPageValues on a page's query before h.
func checkedPageQuery(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r bunrouter.Request) error {
		// A malformed pair is dropped, as r.URL.Query() does for the page.
		q, _ := url.ParseQuery(r.URL.RawQuery)
		if err := checkPageValues(q, "query"); err != nil {
			return err
		}
		return h(w, r)
	}
}

func unknownParamProblem(accepted []string) string {
	if len(accepted) == 0 {
		return "is not a query parameter of this route, which takes none"
	}
	return "is not a query parameter of this route; it takes: " + strings.Join(accepted, ", ")
}

// checkedQuery runs checkQuery before h. It runs after authentication and
// the scope check and before anything reads the path ids, so the answer to
// a bad query string never depends on the records the path names.
func checkedQuery(accepted []string, h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r bunrouter.Request) error {
		if err := checkQuery(r.URL.RawQuery, accepted); err != nil {
			return err
		}
		return h(w, r)
	}
}
