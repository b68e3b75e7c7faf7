package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// The shapes every page of a signed-in person shares: its frame, showing it
// with the content a view builds, and a write that goes back to the page it
// was made on.

// frame is the frame of a signed-in person's page: its title, its entry in
// the navigation, the person and the form token of their session.
func frame(u *finance.User, sid, title, nav string) pageView {
	return pageView{Title: title, Nav: nav, User: u, CSRF: auth.CSRFToken(sid)}
}

// noticed is the frame with the notice a redirect named in the query.
func noticed(r *http.Request, u *finance.User, sid, title, nav string) pageView {
	p := frame(u, sid, title, nav)
	p.Notice = notices[r.URL.Query().Get("notice")]
	return p
}

// showPage answers a signed-in person's page name (title, under nav) with
// the content view builds for them; a visitor is sent to sign in.
func showPage[D any](s *Site, w http.ResponseWriter, r bunrouter.Request, name, title, nav string,
	view func(*http.Request, finance.User) (D, error)) error {
	return showNamed(s, w, r, name, nav, view, func(D) string { return title })
}

// showNamed is showPage for a page whose title is in its content (a bill's
// name, say).
func showNamed[D any](s *Site, w http.ResponseWriter, r bunrouter.Request, name, nav string,
	view func(*http.Request, finance.User) (D, error), title func(D) string) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	d, err := view(r.Request, u)
	if err != nil {
		return err
	}
	p := noticed(r.Request, &u, sid, title(d), nav)
	p.Data = d
	return s.render(w, r.Request, name, p)
}

// showStatusList is showPage for a list of records by status (the query's
// status): a status the API refuses is shown on the page (filterRefused).
func showStatusList[D any](s *Site, w http.ResponseWriter, r bunrouter.Request, name, title string,
	view func(r *http.Request, u finance.User, status string) (D, error)) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	p := noticed(r.Request, &u, sid, title, name)
	d, err := view(r.Request, u, r.URL.Query().Get("status"))
	if err := filterRefused(&p, err); err != nil {
		return err
	}
	p.Data = d
	return s.render(w, r.Request, name, p)
}

// showFilteredRecord is the page of one record, the one the route's id
// names, with a list through the filter of the query: a filter the API
// refuses is shown on the page (filterRefused). The title is the record's.
func showFilteredRecord[D any](s *Site, w http.ResponseWriter, r bunrouter.Request, name, nav string,
	view func(r *http.Request, u finance.User, id string, q url.Values) (D, error), title func(D) string) error {
	u, sid, ok, err := s.signedIn(w, r.Request)
	if !ok || err != nil {
		return err
	}
	q := r.URL.Query()
	p := noticed(r.Request, &u, sid, "", nav)
	d, err := view(r.Request, u, r.Param("id"), q)
	if err := filterRefused(&p, err); err != nil {
		return err
	}
	p.Title, p.Data = title(d), d
	return s.render(w, r.Request, name, p)
}

// refusedOn shows the page name (under nav) of a record again after a
// refused write on it (err, in words beginning with prefix), from view;
// keep, when not nil, puts what was sent back in the form it came from,
// with its problems by field (nil for a refusal that names none). The title
// is the record's. Any error that is not a refusal is returned.
func refusedOn[D any](s *Site, w http.ResponseWriter, r *http.Request, u finance.User, sid, name, nav string, err error, prefix string,
	view func() (D, error), keep func(d *D, fields map[string]string), title func(D) string) error {
	p := frame(&u, sid, "", nav)
	fields, ok := refusal(&p, err, prefix)
	if !ok {
		return err
	}
	d, verr := view()
	if verr != nil {
		return verr
	}
	if keep != nil {
		keep(&d, fields)
	}
	p.Title, p.Data = title(d), d
	return s.render(w, r, name, p)
}

// archiveToggle archives or unarchives (as the path ends) the record the
// route's id names, as PATCH .../archive and .../unarchive do, then opens
// its page at path/{id} with the notice noun-archived or noun-unarchived;
// refused shows a refusal on that page.
func archiveToggle[T any](s *Site, w http.ResponseWriter, r bunrouter.Request, what, path, noun string,
	archive, unarchive func(ctx context.Context, userID, id string) (T, error),
	refused func(u finance.User, sid, id string, err error) error) error {
	u, sid, id, ok, err := s.pageWrite(w, r, "id", what)
	if !ok {
		return err
	}
	change, notice := archive, noun+"-archived"
	if strings.HasSuffix(r.URL.Path, "/unarchive") {
		change, notice = unarchive, noun+"-unarchived"
	}
	if _, err := change(r.Context(), u.ID, id); err != nil {
		return refused(u, sid, id, err)
	}
	return Redirect(w, r.Request, path+"/"+id+"?notice="+notice)
}

// createThenOpen is a list page's create form: read reads what was sent,
// create writes it through the same service call as the REST route and
// returns the new record's page. A refusal shows the list again (name,
// title) with what was sent in its form (keep), beside its problems.
func createThenOpen[F, D any](s *Site, w http.ResponseWriter, r bunrouter.Request, name, title string,
	read func(url.Values) F, create func(ctx context.Context, userID string, form F) (string, error),
	view func(*http.Request, finance.User, string) (D, error), keep func(d *D, form F, fields map[string]string)) error {
	u, sid, ok, err := s.signedInForm(w, r.Request)
	if !ok {
		return err
	}
	form := read(r.PostForm)
	target, err := create(r.Context(), u.ID, form)
	if err == nil {
		return Redirect(w, r.Request, target)
	}
	p := frame(&u, sid, title, name)
	fields, ok := refusal(&p, err, "Not created.")
	if !ok {
		return err
	}
	d, err := view(r.Request, u, "")
	if err != nil {
		return err
	}
	keep(&d, form, fields)
	p.Data = d
	return s.render(w, r.Request, name, p)
}
