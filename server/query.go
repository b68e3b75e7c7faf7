package server

import (
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/queryparam"
	"github.com/finance-app/finance/web"
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
			if !queryparam.PlainName(name) {
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

// checkedPageQuery runs web.CheckPageValues on a page's query before h.
func checkedPageQuery(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r bunrouter.Request) error {
		// A malformed pair is dropped, as r.URL.Query() does for the page.
		q, _ := url.ParseQuery(r.URL.RawQuery)
		if err := web.CheckPageValues(q, "query"); err != nil {
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
