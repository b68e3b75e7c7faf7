package queryparam

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/finance-app/finance/finance"
)

// maxPage keeps (page-1)*limit far from integer overflow.
const maxPage = 10_000_000

// List validates the shared list parameters (page, limit, sortBy,
// sortOrder) against spec. Every problem is reported together.
func List(q url.Values, spec finance.ListSpec) (finance.ListParams, error) {
	p := finance.ListParams{Page: 1, Limit: finance.DefaultLimit, SortBy: spec.Sorts[0], Desc: spec.DefaultDesc}
	var v finance.Validator
	if s := q.Get("page"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > maxPage {
			v.Add("page", "must be an integer from 1 to 10000000")
		} else {
			p.Page = n
		}
	}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > finance.MaxLimit {
			v.Add("limit", "must be an integer from 1 to 100")
		} else {
			p.Limit = n
		}
	}
	if s := q.Get("sortBy"); s != "" {
		if !slices.Contains(spec.Sorts, s) {
			v.Add("sortBy", "must be one of: "+strings.Join(spec.Sorts, ", "))
		} else {
			p.SortBy = s
		}
	}
	switch q.Get("sortOrder") {
	case "":
	case "asc":
		p.Desc = false
	case "desc":
		p.Desc = true
	default:
		v.Add("sortOrder", "must be asc or desc")
	}
	return p, v.Err()
}
