package server

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// userID is the caller's user id. Route handlers run only after
// authentication, so the Principal is always there; the owner of every
// record is taken from it and never from the request.
func userID(r bunrouter.Request) string {
	p, _ := auth.FromContext(r.Context())
	return p.UserID()
}

// pathID reads a path id. A malformed id is answered like an unknown one:
// 404 naming the resource.
func pathID(r bunrouter.Request, param, what string) (string, error) {
	id := r.Param(param)
	if !finance.ValidID(id) {
		return "", finance.NotFound(what)
	}
	return id, nil
}

// ownedPathID reads a path id and checks that it names one of the caller's
// records (get returns finance.ErrNotFound otherwise) before the handler
// reads the query or body: a path id that is not the caller's is 404 whatever
// else is wrong with the request (domain.md §1.1).
func ownedPathID[T any](r bunrouter.Request, param, what string,
	get func(ctx context.Context, userID, id string) (T, error)) (string, error) {
	id, err := pathID(r, param, what)
	if err != nil {
		return "", err
	}
	if _, err := get(r.Context(), userID(r), id); err != nil {
		return "", err
	}
	return id, nil
}

// queryDate reads an optional YYYY-MM-DD query parameter.
func queryDate(v *finance.Validator, q url.Values, name string) finance.Date {
	s := q.Get(name)
	if s == "" {
		return finance.Date{}
	}
	d, err := finance.ParseDate(s)
	if err != nil {
		v.Add(name, finance.DateProblem(err))
	}
	return d
}

// queryMonth reads an optional YYYY-MM query parameter as the month's first day.
func queryMonth(v *finance.Validator, q url.Values, name string) finance.Date {
	s := q.Get(name)
	if s == "" {
		return finance.Date{}
	}
	d, err := finance.ParseMonth(s)
	if err != nil {
		v.Add(name, finance.DateProblem(err))
	}
	return d
}

// queryBool reads an optional true/false query parameter.
func queryBool(v *finance.Validator, q url.Values, name string) bool {
	switch q.Get(name) {
	case "", "false":
		return false
	case "true":
		return true
	}
	v.Add(name, "must be true or false")
	return false
}

// dateRange reads dateFrom and dateTo (inclusive); from after to is invalid.
func dateRange(v *finance.Validator, q url.Values) (from, to finance.Date) {
	from, to = queryDate(v, q, "dateFrom"), queryDate(v, q, "dateTo")
	if !from.IsZero() && !to.IsZero() && from.After(to) {
		v.Add("dateFrom", "must not be after dateTo")
	}
	return from, to
}

// queryID reads an optional UUID query parameter such as cardId.
func queryID(v *finance.Validator, q url.Values, name string) string {
	s := q.Get(name)
	if s != "" && !finance.ValidID(s) {
		v.Add(name, "must be a UUID")
	}
	return s
}

// queryPaymentMethod reads the optional payment_method filter, in any letter case.
func queryPaymentMethod(v *finance.Validator, q url.Values) string {
	s := q.Get("payment_method")
	if s == "" {
		return ""
	}
	m, ok := finance.ParsePaymentMethod(s)
	if !ok {
		v.Add("payment_method", "must be one of: "+strings.Join(finance.PaymentMethods, ", "))
	}
	return m
}

// queryEnum reads an optional parameter that must be one of allowed.
func queryEnum(v *finance.Validator, q url.Values, name string, allowed ...string) string {
	s := q.Get(name)
	if s == "" {
		return ""
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	v.Add(name, "must be one of: "+joinQuoted(allowed))
	return ""
}

func joinQuoted(items []string) string {
	out := ""
	for i, it := range items {
		if i > 0 {
			out += ", "
		}
		out += it
	}
	return out
}

// listQuery parses the shared list parameters plus the route's own filters
// (parsed by filters into v), reporting all problems together.
func listQuery(r *http.Request, spec finance.ListSpec, filters func(v *finance.Validator, q url.Values)) (finance.ListParams, error) {
	q := r.URL.Query()
	p, err := parseList(q, spec)
	var v finance.Validator
	if err := v.Merge("", err); err != nil {
		return p, err
	}
	if filters != nil {
		filters(&v, q)
	}
	return p, v.Err()
}

// deref is the text of an optional string: empty for none.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
