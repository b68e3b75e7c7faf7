package server

import (
	"bytes"
	"errors"
	"html/template"
	"io"
	"net/http"
	"net/url"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
)

// Forms that count once. A second click on Save while the first is on its
// way, or a form sent again after its answer was lost, must not record the
// money twice, and must not answer with an error (the name is taken, the
// statement is already paid) about a write that succeeded. Each form that
// records something carries a fresh id in onceField; its route runs under
// that id as an API write runs under an Idempotency-Key (once, in
// idempotency.go): the first request runs, and its redirect is kept for the
// signed-in user, in the transaction of the write; a repeat waits for the
// first to commit, then gets the same redirect and writes nothing.

// onceField names the hidden field that holds a form's once id.
const onceField = "once"

// onceInput is the hidden field with a fresh once id: every rendering of a
// form is a new form.
func onceInput() template.HTML {
	return template.HTML(`<input type="hidden" name="` + onceField + `" value="` + finance.NewID() + `">`)
}

// pageOnce: a page form commits unless it was refused (4xx, 5xx) and keeps
// its redirect; a repeat is sent to the same place.
var pageOnce = onceRules{
	keep: func(res *bufferedResponse) (storedResponse, bool, bool) {
		loc := res.header.Get("Location")
		return storedResponse{status: http.StatusSeeOther, body: []byte(loc)}, res.status < 400,
			res.status == http.StatusSeeOther && loc != ""
	},
	replay: func(w http.ResponseWriter, r *http.Request, sr storedResponse) {
		_ = redirect(w, r, safeNext(string(sr.body)))
	},
}

// oncePage registers a page form that records something, run once per
// once id (a form without one is served as it is).
func (s *Server) oncePage(path string, h handlerFunc) {
	s.add(Route{Method: http.MethodPost, Path: path, Access: auth.Public, Page: true, Once: true}, h)
}

func (s *Server) onceForm(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r bunrouter.Request) error {
		u, _, ok, err := s.sessionUser(r.Request)
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
		key := form.Get(onceField)
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
