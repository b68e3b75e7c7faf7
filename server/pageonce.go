package server

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/web"
)

// A page form that records something (web.Route.Once) runs once per once id
// (web.OnceField), as an API write runs once per Idempotency-Key (once, in
// idempotency.go): the first request runs, and its redirect is kept for the
// signed-in user, in the transaction of the write; a repeat waits for the
// first to commit, then gets the same redirect and writes nothing.

// pageOnce: a page form commits unless it was refused (4xx, 5xx) and keeps
// its redirect; a repeat is sent to the same place.
var pageOnce = onceRules{
	keep: func(res *bufferedResponse) (storedResponse, bool, bool) {
		loc := res.header.Get("Location")
		return storedResponse{status: http.StatusSeeOther, body: []byte(loc)}, res.status < 400,
			res.status == http.StatusSeeOther && loc != ""
	},
	replay: func(w http.ResponseWriter, r *http.Request, sr storedResponse) {
		_ = web.Redirect(w, r, web.SafeNext(string(sr.body)))
	},
}

// onceForm runs h once per once id of the signed-in person's form.
func (s *Server) onceForm(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r bunrouter.Request) error {
		u, _, ok, err := s.web.SessionUser(r.Request)
		if err != nil || !ok {
			return h(w, r) // the form sends the person to sign in
		}
		// Read whole before the write starts, as for an Idempotency-Key:
		// the body is the request's fingerprint.
		body, err := s.readAll(r.Request)
		if err != nil {
			return err
		}
		r.Request.Body = io.NopCloser(bytes.NewReader(body))
		form, err := url.ParseQuery(string(body))
		key := form.Get(web.OnceField)
		if err != nil || !finance.ValidID(key) {
			return h(w, r)
		}
		q := idempotentRequest{userID: u.ID, key: "page:" + key, fingerprint: fingerprint(r.Request, body)}
		err = s.once(w, r, q, body, h, pageOnce)
		if errors.Is(err, errKeyReused) {
			return httperr.BadRequest("This form was already sent with other values. Open the page again to send it anew.", nil)
		}
		return err
	}
}
