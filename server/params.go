package server

import (
	"context"
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
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

// listQuery parses the shared list parameters plus the route's own filters
// (parsed by filters into v), reporting all problems together.
func listQuery(r *http.Request, spec finance.ListSpec, filters func(v *finance.Validator, q url.Values)) (finance.ListParams, error) {
	q := r.URL.Query()
	p, err := queryparam.List(q, spec)
	var v finance.Validator
	if err := v.Merge("", err); err != nil {
		return p, err
	}
	if filters != nil {
		filters(&v, q)
	}
	return p, v.Err()
}
