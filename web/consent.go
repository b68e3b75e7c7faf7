package web

import (
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/oauth"
)

// The consent screen: the authorization endpoint of the OAuth server
// (GET and POST /api/oauth/authorize, and the fallback /authorize), where a
// person signed in on this browser connects an app. The protocol's
// decisions are the authorization server's (package oauth); this is the
// page around them. Its routes have a per-IP limit of their own
// (AuthorizeLimit): the endpoint may fetch a client's metadata document for
// anyone, signed in or not, and a person connecting an app opens it twice
// (before and after signing in) and posts its form once, which must not
// eat into their sign-in attempts.

func (s *Site) registerConsentRoutes() {
	for _, path := range []string{oauth.AuthorizePath, oauth.FallbackAuthorizePath} {
		s.add(Route{Method: http.MethodGet, Path: path, Limit: AuthorizeLimit, Handler: s.authorizePage})
		s.add(Route{Method: http.MethodPost, Path: path, Limit: AuthorizeLimit, Handler: s.authorizeDecision})
	}
}

// hiddenParam is a parameter of the authorization request that the consent
// form sends back.
type hiddenParam struct{ Name, Value string }

type consentData struct {
	ClientName string
	// ClientHost is the host of a metadata document client's document: the
	// name is that site's claim, not something this server checked.
	ClientHost     string
	Target         string
	Pro            bool
	Scopes         []scopeOption
	MCPDescription string
	Params         []hiddenParam
}

// authorizeRequest validates the authorization request in params. A refused
// request has been answered with an error page, never a redirect (see
// oauth.AuthorizeError), and the returned request is nil.
func (s *Site) authorizeRequest(w http.ResponseWriter, r *http.Request, params url.Values) (*oauth.AuthorizeRequest, error) {
	if s.oauth == nil {
		return nil, httperr.RouteNotFound(r)
	}
	req, err := s.oauth.ParseAuthorize(r.Context(), params)
	if err != nil {
		return nil, s.authorizeRefused(w, r, err)
	}
	return req, nil
}

// authorizeRefused answers a refused authorization request or approval with
// an error page (never a redirect): a refused request (400), or a server
// fetching as many metadata documents as it allows (503 with Retry-After).
// Any other error is returned as it is.
func (s *Site) authorizeRefused(w http.ResponseWriter, r *http.Request, err error) error {
	var ae *oauth.AuthorizeError
	switch {
	case errors.As(err, &ae):
		return s.showFailure(w, r, &pageFailure{status: http.StatusBadRequest,
			heading: "This connection request cannot be completed", message: ae.Description,
			hint: "Nothing was shared, and you have not been sent anywhere. If you did not start connecting an app, " +
				"close this page. (For the app's developers: OAuth error " + ae.Code + ".)"})
	case errors.Is(err, oauth.ErrMetadataBusy):
		// The whole server's doing, not this client's: 503 rather than 429.
		w.Header().Set("Retry-After", strconv.Itoa(int(oauth.MetadataBusyRetryAfter.Seconds())))
		return s.showFailure(w, r, &pageFailure{status: http.StatusServiceUnavailable,
			heading: "The server is busy", message: "It is reading the descriptions of other apps being connected.",
			hint: "Nothing was shared. Reload this page to try again in a few seconds."})
	}
	return err
}

// authorizePage serves GET /api/oauth/authorize: it checks the request and shows
// the consent screen to the signed-in user, sending others to sign in first.
func (s *Site) authorizePage(w http.ResponseWriter, r bunrouter.Request) error {
	req, err := s.authorizeRequest(w, r.Request, r.URL.Query())
	if req == nil || err != nil {
		return err
	}
	u, sid, ok, err := s.SessionUser(r.Request)
	if err != nil {
		return err
	}
	if !ok {
		setPageHeaders(w.Header(), "")
		http.Redirect(w, r.Request, LoginPath+"?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return nil
	}
	return s.renderConsent(w, r.Request, req, u, sid, req.Preselected, "", http.StatusOK)
}

func (s *Site) renderConsent(w http.ResponseWriter, r *http.Request, req *oauth.AuthorizeRequest, u finance.User, sid string,
	checked []auth.Scope, problem string, status int,
) error {
	d := consentData{
		ClientName:     clientDisplayName(req.Client.Name),
		ClientHost:     req.Client.MetadataHost(),
		Target:         oauth.RedirectTarget(req.RedirectURI),
		Pro:            u.Plan == finance.PlanPro,
		Scopes:         scopeOptions(req.Offered, func(sc auth.Scope) bool { return slices.Contains(checked, sc) }),
		MCPDescription: auth.ScopeDescriptions[auth.ScopeMCP],
	}
	for _, k := range slices.Sorted(maps.Keys(req.Params)) {
		for _, v := range req.Params[k] {
			d.Params = append(d.Params, hiddenParam{Name: k, Value: v})
		}
	}
	return s.render(w, r, "consent", pageView{Title: "Connect " + d.ClientName, Narrow: true, User: &u,
		CSRF: auth.CSRFToken(sid), Error: problem, Data: d, status: status,
		formAction: formActionSource(req.RedirectURI)})
}

// formActionSource is the CSP source that lets the consent form's redirect
// reach the client: the redirect URI's origin, or its scheme for an app.
// Anything that could not be written safely in the header gets nothing
// (the redirect is then blocked by the browser, which is the safe failure).
func formActionSource(redirectURI string) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return ""
	}
	// An app's scheme, or a web origin. An IPv6 literal ([::1]) cannot be
	// written as a CSP host source, so such an origin gets its scheme source.
	src := u.Scheme + ":"
	if (u.Scheme == "http" || u.Scheme == "https") && !strings.Contains(u.Hostname(), ":") {
		src = u.Scheme + "://" + u.Host
	}
	if strings.ContainsAny(src, " ;,'\"\r\n") {
		return ""
	}
	return src
}

// authorizeDecision serves the consent form (POST /api/oauth/authorize):
// the same request is validated again, then denied (access_denied) or
// approved with the scopes the user kept ticked.
func (s *Site) authorizeDecision(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.SessionUser(r.Request)
	if err != nil {
		return err
	}
	if !ok {
		return s.showFailure(w, r.Request, &pageFailure{status: http.StatusUnauthorized,
			heading: "You are signed out", message: "Your sign-in expired before you decided.",
			hint: "Start connecting again from the app."})
	}
	if err := checkForm(r.Request, sid); err != nil {
		return err
	}
	params := url.Values{}
	for k, v := range r.PostForm {
		if k != "csrf" && k != "decision" && k != "scope_grant" {
			params[k] = v
		}
	}
	req, err := s.authorizeRequest(w, r.Request, params)
	if req == nil || err != nil {
		return err
	}
	switch r.PostForm.Get("decision") {
	case "deny":
		setPageHeaders(w.Header(), formActionSource(req.RedirectURI))
		http.Redirect(w, r.Request, s.oauth.Deny(req), http.StatusSeeOther)
		return nil
	case "approve":
	default:
		return httperr.BadRequest("The form must say approve or deny", nil)
	}
	var approved []auth.Scope
	for _, name := range r.PostForm["scope_grant"] {
		approved = append(approved, auth.Scope(name))
	}
	target, err := s.oauth.Approve(r.Context(), req, u, approved)
	switch {
	case errors.Is(err, oauth.ErrProRequired):
		return s.renderConsent(w, r.Request, req, u, sid, approved,
			"Connecting apps is a Pro plan feature; this account is on the free plan.", http.StatusPaymentRequired)
	case err != nil:
		return s.authorizeRefused(w, r.Request, err)
	}
	setPageHeaders(w.Header(), formActionSource(req.RedirectURI))
	http.Redirect(w, r.Request, target, http.StatusSeeOther)
	return nil
}
