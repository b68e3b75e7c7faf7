package web

// The frame of every page (templates, security headers, error pages,
// cookies and sessions, form tokens), first-run setup, sign-in and sign-out.
// The pages are server-rendered with html/template from embedded files, need
// no script (pageScripts only add to pages that work without them), and are
// declared as routes (Route) that the server registers as pages, outside
// the API contract.
//
// Browser sessions live in an HttpOnly cookie holding a random id whose
// SHA-256 is stored (auth.WebSession). Every state-changing form carries a
// token derived from a cookie secret (auth.CSRFToken) and is refused when a
// browser says it comes from another site (Sec-Fetch-Site). The API routes
// (/api/v1, /api/mcp) never read cookies: only the Authorization and
// X-Service-API-Key headers authenticate them.

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"maps"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"

	assets "github.com/finance-app/finance/embed"
)

// Paths of the web pages.
const (
	SetupPath        = "/setup"
	LoginPath        = "/login"
	LogoutPath       = "/logout"
	APIKeysPath      = "/settings/api-keys"
	ConnectedAppPath = "/settings/connected-apps"
	staticPath       = "/static"
	ManifestPath     = "/manifest.webmanifest"
)

// pageCSP allows this origin's stylesheet, images, web app manifest and
// script files (app.js on every page, and a page's own script of
// pageScripts) and nothing else: no inline script, no other origin, no
// framing (clickjacking), forms only to this origin. The consent page adds
// the client's redirect origin to form-action, since browsers apply
// form-action to the redirect that follows the form.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; manifest-src 'self';%s " +
	"form-action 'self'%s; frame-ancestors 'none'; base-uri 'none'"

// connectCSP is what a page of pageScripts adds to pageCSP: requests to
// this origin (the Import form sends its file itself, to show progress).
const connectCSP = " connect-src 'self';"

// pageScripts are the pages, by template, that load a script of their own
// beside app.js: each a small enhancement of a page that works without it
// (the Import form's upload progress; setup's choice of the browser's
// timezone).
var pageScripts = map[string]string{"import": staticPath + "/import.js", "setup": staticPath + "/zone.js"}

// pageFuncs are the functions templates may call beyond the built-in ones:
// they hand a partial (templates/partials) the one value it shows.
var pageFuncs = template.FuncMap{
	"payFields":        payFields,
	"label":            label,
	"once":             onceInput,
	"filterEnd":        filterEnd,
	"activityWord":     activityWord,
	"importColumn":     importColumn,
	"ruleFields":       ruleFields,
	"daysField":        daysField,
	"reminderDelivery": reminderDelivery,
	"copyButton":       copyButton,
	"monthBar":         monthBar,
	"rateCurrency":     rateCurrency,
	"rateSource":       rateSource,
	"currencyPicker":   currencyPicker,
}

// copyButtonView is what the "copy-button" partial shows: the id of the
// field to copy, and what it holds, for the button's name.
type copyButtonView struct{ Target, What string }

func copyButton(target, what string) copyButtonView {
	return copyButtonView{Target: target, What: what}
}

// filterEndView is what the "filter-end" partial shows: the search box
// with what was searched, and Clear back to the unfiltered page at Path.
type filterEndView struct{ Path, Search string }

func filterEnd(path, search string) filterEndView { return filterEndView{Path: path, Search: search} }

// pageNames are the page templates: each page file (templates/NAME.html)
// is parsed with the shared layout and the partials (the pieces several
// pages show, such as a payment form's fields).
var pageNames = []string{"setup", "login", "consent", "apikeys", "apps", "messaging", "error", "home", "record", "expenses", "bills", "loans",
	"income", "reports", "report",
	"accounts", "account", "cards", "card", "statement", "convert", "installment", "confirm",
	"settings", "profile", "password", "appsettings", "categories", "budgets",
	"bill", "billtemplates", "billtemplate", "incometemplates", "incometemplate", "loan", "loannew",
	"record_bulk", "expense_split", "accountlines", "cardtransactions", "statement_line", "activity",
	"import", "importbatch", "imports", "categoryrules", "transfer", "reconcile", "reminders", "more", "exchangerates"}

// lazyTemplate is a template parsed on first use, once, however many
// requests ask for it at the same time. Parsing all pages took about 66 ms
// and 15 MB at start (most of the start-up time); a server that is
// restarted often or serves only the API never pays for pages it does not
// show.
type lazyTemplate struct {
	once  sync.Once
	parse func() (*template.Template, error)
	t     *template.Template
	err   error
}

func (l *lazyTemplate) get() (*template.Template, error) {
	l.once.Do(func() { l.t, l.err = l.parse() })
	return l.t, l.err
}

// templateParses counts the template files parsed since start: the tests
// read it to see that start parses none.
var templateParses atomic.Int64

// pageBase is the layout with the partials, parsed once and cloned for each
// page (html/template copies the parse trees, so pages never share escaping).
var pageBase = &lazyTemplate{parse: func() (*template.Template, error) {
	templateParses.Add(1)
	return template.New("pages").Funcs(pageFuncs).ParseFS(assets.Templates, "templates/layout.html", "templates/partials/*.html")
}}

// pageTemplates are the pages by name, each parsed on its first render.
var pageTemplates = func() map[string]*lazyTemplate {
	m := make(map[string]*lazyTemplate, len(pageNames))
	for _, name := range pageNames {
		m[name] = &lazyTemplate{parse: func() (*template.Template, error) {
			base, err := pageBase.get()
			if err != nil {
				return nil, err
			}
			t, err := base.Clone()
			if err != nil {
				return nil, err
			}
			templateParses.Add(1)
			return t.ParseFS(assets.Templates, "templates/"+name+".html")
		}}
	}
	return m
}()

// pageTemplate is the page template name, parsed if this is its first use.
func pageTemplate(name string) (*template.Template, error) {
	l, ok := pageTemplates[name]
	if !ok {
		return nil, fmt.Errorf("no template %q", name)
	}
	t, err := l.get()
	if err != nil {
		return nil, fmt.Errorf("template %s: %w", name, err)
	}
	return t, nil
}

// pageView is what every template gets; Data is the page's own content.
type pageView struct {
	Title     string
	Nav       string // the current page in the navigation: home, record, expenses, income, accounts, cards, bills, loans, reports, settings (every settings page) or more
	Narrow    bool   // a single form (sign-in, setup, consent) rather than a list
	User      *finance.User
	CSRF      string
	Notice    string
	Warnings  pageWarnings // the warnings of the write that led here (warnings.go)
	Error     string
	ErrorLink *pageLink // where to do what Error advises, if anywhere
	Data      any

	Script string // the page's script (pageScripts), if any

	status     int
	formAction string // an extra form-action source (the consent page's redirect target)

	// refused is the refusal whose fields the page marks, and refusedWhat
	// what was not done ("Not saved."), for render to word the banner
	// again when the page marks none of them (refuseFields).
	refused     *finance.ValidationError
	refusedWhat string
}

// fieldsBanner is the banner over a form refused for its fields.
const fieldsBanner = "Please fix the fields marked below."

// refuseFields sets the banner of a form refused for ve's fields: what was
// not done (what, "Not saved.", may be "") and where to look. The problems
// are beside their fields, in the page's words ("Monthly limit must be at
// least 0"); the banner does not repeat them, and never shows the API's
// keys for them (thresholds[3].monthly_limit). A refusal that names no
// field is its message. Every page builds such a banner here.
func (p *pageView) refuseFields(what string, ve *finance.ValidationError) {
	p.refused, p.refusedWhat = ve, what
	if len(ve.Fields) == 0 {
		p.Error = sentence(what, ve.Message)
		return
	}
	p.Error = sentence(what, fieldsBanner)
}

// problemsInWords are a refusal's problems for a banner, each field named
// in words rather than by its key ("Monthly limit must be at least 0"):
// for a page that marks none of the fields, or a problem of a whole form.
func problemsInWords(ve *finance.ValidationError) string {
	if len(ve.Fields) == 0 {
		return ve.Message
	}
	out := make([]string, 0, len(ve.Fields))
	for _, k := range slices.Sorted(maps.Keys(ve.Fields)) {
		out = append(out, fieldWords(k)+" "+ve.Fields[k])
	}
	return strings.Join(out, "; ")
}

// fieldWords names a field key in words: the last part of its path,
// without the row index, its words apart ("thresholds[3].monthly_limit" is
// "Monthly limit", "dateFrom" is "Date from").
func fieldWords(key string) string {
	if i := strings.LastIndex(key, "."); i >= 0 {
		key = key[i+1:]
	}
	if i := strings.Index(key, "["); i >= 0 {
		key = key[:i]
	}
	var b strings.Builder
	for i, r := range key {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return label(b.String())
}

// sentence joins what was not done and why as the banner's sentences,
// the second capitalized and ending with a full stop.
func sentence(what, why string) string {
	why = capitalize(strings.TrimSpace(why))
	if !strings.HasSuffix(why, ".") {
		why += "."
	}
	return strings.TrimSpace(what + " " + why)
}

// setPageHeaders sets the security headers every page carries.
func setPageHeaders(h http.Header, formAction string) { setPageHeadersConnect(h, formAction, false) }

// setPageHeadersConnect is setPageHeaders for a page whose own script
// sends requests (connectCSP) when connect is set.
func setPageHeadersConnect(h http.Header, formAction string, connect bool) {
	extra, connects := "", ""
	if formAction != "" {
		extra = " " + formAction
	}
	if connect {
		connects = connectCSP
	}
	h.Set("Content-Security-Policy", fmt.Sprintf(pageCSP, connects, extra))
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	// Pages carry form tokens, and the API keys page a new key: never cache them.
	h.Set("Cache-Control", "no-store")
}

// render writes a page. Rendering goes to a buffer first, so a template
// failure is a clean 500 rather than half a page.
func (s *Site) render(w http.ResponseWriter, r *http.Request, name string, p pageView) error {
	t, err := pageTemplate(name)
	if err != nil {
		return err
	}
	if p.User != nil && r.Method == http.MethodGet {
		p.Warnings = s.takeWarnings(w, r, *p.User)
	}
	p.Script = pageScripts[name]
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	if p.refused != nil && len(p.refused.Fields) > 0 && !bytes.Contains(buf.Bytes(), []byte(`class="field-error`)) {
		// The page marks none of the refused fields (a filter in the
		// address, say): the banner says the problems itself.
		p.Error = sentence(p.refusedWhat, problemsInWords(p.refused))
		buf.Reset()
		if err := t.ExecuteTemplate(&buf, "layout", p); err != nil {
			return fmt.Errorf("render %s: %w", name, err)
		}
	}
	setPageHeadersConnect(w.Header(), p.formAction, p.Script != "")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	status := p.status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
	return nil
}

// errorPage is the content of the error template. SignIn offers sign-in
// instead of the start page, to a visitor who is not signed in.
type errorPage struct {
	Heading, Message, Hint string
	SignIn                 bool
}

// NotFound is the page of an address no route has: with the navigation
// for a signed-in person, else with a link to sign in. It never repeats the
// address, which can carry any text a link planted in it.
func (s *Site) NotFound(w http.ResponseWriter, r *http.Request) {
	d := errorPage{Heading: "Page not found", Message: "There is no page at this address.", Hint: "The link may be mistyped or out of date."}
	p := pageView{Title: d.Heading, Narrow: true, status: http.StatusNotFound}
	u, sid, ok, err := s.SessionUser(r)
	if err != nil { // the page for a visitor still answers
		s.log.ErrorContext(r.Context(), "not found page: session", "err", err)
	}
	if ok {
		p.User, p.CSRF = &u, auth.CSRFToken(sid)
	} else {
		d.SignIn = true
	}
	p.Data = d
	if err := s.render(w, r, "error", p); err != nil {
		s.log.ErrorContext(r.Context(), "render not found page", "err", err)
		http.Error(w, d.Heading, http.StatusNotFound)
	}
}

// RenderError answers a page route's error with an HTML page, mapping
// it to a status as the API does (one table, httperr.Response). 5xx causes are
// logged and not shown.
func (s *Site) RenderError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, finance.ErrStorageFull) {
		s.log.ErrorContext(r.Context(), "page write found the disk full",
			"method", r.Method, "path", r.URL.Path, "err", err)
		err = errNotSaved
	}
	var pf *pageFailure
	if errors.As(err, &pf) {
		if rerr := s.showFailure(w, r, pf); rerr == nil {
			return
		}
	}
	id := s.requestID(r.Context())
	status, detail := httperr.Response(err, id)
	heading := http.StatusText(status)
	if status >= 500 {
		s.log.ErrorContext(r.Context(), "page failed", "method", r.Method, "path", r.URL.Path, "err", err)
		heading = "Something went wrong"
	}
	if status == http.StatusTooManyRequests {
		detail.Message = "Too many attempts from your network. Wait a minute and try again."
	}
	p := pageView{Title: heading, Narrow: true, status: status, Data: errorPage{Heading: heading, Message: detail.Message}}
	if rerr := s.render(w, r, "error", p); rerr != nil {
		s.log.ErrorContext(r.Context(), "render error page", "err", rerr)
		http.Error(w, detail.Message, status)
	}
}

// pageFailure is a page error with its own status, heading and hint.
type pageFailure struct {
	status           int
	heading, message string
	hint             string
}

func (e *pageFailure) Error() string { return e.message }

// showFailure renders f as an error page.
func (s *Site) showFailure(w http.ResponseWriter, r *http.Request, f *pageFailure) error {
	return s.render(w, r, "error", pageView{Title: f.heading, Narrow: true, status: f.status,
		Data: errorPage{Heading: f.heading, Message: f.message, Hint: f.hint}})
}

// errNotSaved is the page of a write that found the server's disk full: what
// the API says, and the way back to the form, which the browser still holds.
var errNotSaved = &pageFailure{status: http.StatusInsufficientStorage, heading: "Not saved",
	message: httperr.StorageFullMessage, hint: "Your browser's Back button returns to the form, which still holds what you entered, to send again later."}

// ErrFormExpired refuses a form whose token does not verify or that a
// browser says came from another site; the server's upload forms (a receipt,
// a profile picture), whose token it reads before their files, refuse with it.
var ErrFormExpired = &pageFailure{status: http.StatusForbidden, heading: "This form has expired",
	message: "The form could not be verified (it is older than your sign-in, or came from another site).",
	hint:    "Go back, reload the page and try again."}

// --- cookies and sessions ---------------------------------------------------

// cookieSecure reports whether cookies get the Secure attribute: when the
// service is reached over https. Then the names also carry the __Host-
// prefix, which makes browsers refuse the cookie unless it is Secure,
// host-only and for path /, so a sibling subdomain cannot plant one.
func (s *Site) cookieSecure() bool { return strings.HasPrefix(s.cfg.BaseURL, "https://") }

func (s *Site) cookieName(base string) string {
	if s.cookieSecure() {
		return "__Host-" + base
	}
	return base
}

const (
	sessionCookie = "finance_session"
	// formCookie holds the secret behind the form tokens of pages shown
	// before sign-in (setup, sign-in), which have no session yet.
	formCookie = "finance_form"
)

func (s *Site) setCookie(w http.ResponseWriter, name, value string, maxAge int, sameSite http.SameSite) {
	http.SetCookie(w, &http.Cookie{
		Name: s.cookieName(name), Value: value, Path: "/", MaxAge: maxAge,
		HttpOnly: true, Secure: s.cookieSecure(), SameSite: sameSite,
	})
}

func (s *Site) cookieValue(r *http.Request, name string) string {
	c, err := r.Cookie(s.cookieName(name))
	if err != nil {
		return ""
	}
	return c.Value
}

// startSession signs u in on this browser: a new session id (never one the
// browser brought, so a planted id is not promoted) in a cookie that is
// HttpOnly, SameSite=Lax and, over https, Secure. Lax, not Strict: the
// consent page is reached by a redirect from the client's site, and the
// session must come along.
func (s *Site) startSession(w http.ResponseWriter, r *http.Request, u auth.Identity) error {
	id, ws, err := s.auth.StartSession(r.Context(), u)
	if err != nil {
		return err
	}
	s.setCookie(w, sessionCookie, id, int(time.Until(ws.ExpiresAt).Seconds()), http.SameSiteLaxMode)
	return nil
}

// SessionUser returns the signed-in user and the session id, if any.
func (s *Site) SessionUser(r *http.Request) (finance.User, string, bool, error) {
	id := s.cookieValue(r, sessionCookie)
	if id == "" {
		return finance.User{}, "", false, nil
	}
	u, err := s.auth.SessionUser(r.Context(), id)
	if errors.Is(err, auth.ErrUnauthenticated) {
		return finance.User{}, "", false, nil
	} else if err != nil {
		return finance.User{}, "", false, err
	}
	return u, id, true, nil
}

// formSecret returns the pre-session form secret of this browser, setting
// the cookie when it has none. SameSite=Strict: it is only needed on forms
// posted from this site's own pages.
func (s *Site) formSecret(w http.ResponseWriter, r *http.Request) string {
	if v := s.cookieValue(r, formCookie); v != "" && len(v) <= 128 {
		return v
	}
	v := auth.NewSecret()
	s.setCookie(w, formCookie, v, 0, http.SameSiteStrictMode)
	return v
}

// checkForm parses a posted form and checks its token against secret (the
// session id, or the pre-session form secret). A browser that labels the
// request cross-site is refused whatever the token says.
func checkForm(r *http.Request, secret string) error {
	if r.Header.Get("Sec-Fetch-Site") == "cross-site" {
		return ErrFormExpired
	}
	if err := r.ParseForm(); err != nil {
		return httperr.BadRequest("The form could not be read", nil)
	}
	if !auth.CSRFValid(secret, r.PostForm.Get("csrf")) {
		return ErrFormExpired
	}
	return CheckPageValues(r.PostForm, "form")
}

// signedIn loads the session of a settings page, or redirects to sign-in
// and reports false.
func (s *Site) signedIn(w http.ResponseWriter, r *http.Request) (finance.User, string, bool, error) {
	u, sid, ok, err := s.SessionUser(r)
	if err != nil || ok {
		return u, sid, ok, err
	}
	next := r.URL.RequestURI()
	if r.Method != http.MethodGet {
		next = "/" // a form posted after the session ended: start from the settings again
	}
	setPageHeaders(w.Header(), "")
	http.Redirect(w, r, LoginPath+"?next="+url.QueryEscape(next), http.StatusSeeOther)
	return finance.User{}, "", false, nil
}

// signedInShow is signedIn with the person's display settings, for a page
// that formats money or dates itself.
func (s *Site) signedInShow(w http.ResponseWriter, r *http.Request) (finance.User, string, display, bool, error) {
	u, sid, ok, err := s.signedIn(w, r)
	if !ok || err != nil {
		return u, sid, display{}, ok, err
	}
	show, err := s.displayFor(r.Context(), u.ID)
	return u, sid, show, err == nil, err
}

// signedInForm is signedIn for a posted form: the session, then its token,
// then its money fields read as the person typed them (readPageAmounts).
// ok is false when the response is decided: a redirect to sign-in (err nil)
// or a refusal (err).
func (s *Site) signedInForm(w http.ResponseWriter, r *http.Request) (finance.User, string, bool, error) {
	u, sid, ok, err := s.signedIn(w, r)
	if !ok || err != nil {
		return u, sid, false, err
	}
	if err := checkForm(r, sid); err != nil {
		return u, sid, false, err
	}
	err = readPageAmounts(r.PostForm, func() (string, error) {
		st, err := s.ledger.AppSettings(r.Context(), u.ID)
		return st.Currency, err
	})
	if err != nil {
		return u, sid, false, err
	}
	return u, sid, true, nil
}

// SafeNext returns next when it is a path on this site, else "/". It keeps
// the sign-in page from being an open redirect.
func SafeNext(next string) string {
	if next == "" || !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" {
		return "/"
	}
	return next
}

// --- routes -----------------------------------------------------------------

func (s *Site) registerPageRoutes() {
	s.heavyPage("/", s.home) // Home is the dashboard
	s.page(http.MethodGet, staticPath+"/:file", s.staticFile)
	s.page(http.MethodGet, ManifestPath, s.manifest)
	s.page(http.MethodGet, SetupPath, s.setupPage)
	s.page(http.MethodPost, ChecklistDismissPath, s.checklistDismiss)
	s.add(Route{Method: http.MethodPost, Path: SetupPath, Limit: SignInLimit, Handler: s.setupSubmit})
	s.page(http.MethodGet, LoginPath, s.loginPage)
	s.add(Route{Method: http.MethodPost, Path: LoginPath, Limit: SignInLimit, Handler: s.loginSubmit})
	s.page(http.MethodPost, LogoutPath, s.logout)
	s.page(http.MethodGet, ActivityPath, s.activityPage)
	s.page(http.MethodGet, APIKeysPath, s.apiKeysPage)
	s.page(http.MethodPost, APIKeysPath, s.apiKeysCreate)
	s.page(http.MethodPost, APIKeysPath+"/:id/revoke", s.apiKeysRevoke)
	s.page(http.MethodGet, ConnectedAppPath, s.appsPage)
	s.page(http.MethodPost, ConnectedAppPath+"/:id/revoke", s.appsRevoke)
	s.registerWebAppRoutes()
	s.registerWebAppBillLoanRoutes()
	s.registerConsentRoutes()
	s.registerMessagingRoutes()
}

// home is the signed-in person's dashboard (homePage); anyone else is sent
// to the first-run setup while there is no user, else to sign-in.
func (s *Site) home(w http.ResponseWriter, r bunrouter.Request) error {
	u, sid, ok, err := s.SessionUser(r.Request)
	if err != nil {
		return err
	}
	if ok {
		return s.homePage(w, r.Request, u, sid)
	}
	n, err := s.auth.CountUsers(r.Context())
	if err != nil {
		return err
	}
	target := LoginPath
	if n == 0 {
		target = SetupPath
	}
	return Redirect(w, r.Request, target)
}

func (s *Site) staticFile(w http.ResponseWriter, r bunrouter.Request) error {
	return serveStatic(w, r.Request, path.Base(r.Param("file")))
}

// manifest is the web app manifest, at the site's root as browsers look
// for it, for anyone: "Add to Home Screen" reads it before sign-in.
func (s *Site) manifest(w http.ResponseWriter, r bunrouter.Request) error {
	// Go's table of types by extension has no .webmanifest.
	w.Header().Set("Content-Type", "application/manifest+json")
	return serveStatic(w, r.Request, path.Base(ManifestPath))
}

// serveStatic answers with the file of the static folder named name, which
// browsers may keep for an hour.
func serveStatic(w http.ResponseWriter, r *http.Request, name string) error {
	name = "static/" + name
	if _, err := fs.Stat(assets.Static, name); err != nil {
		return httperr.RouteNotFound(r)
	}
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "public, max-age=3600")
	http.ServeFileFS(w, r, assets.Static, name)
	return nil
}

// --- first-run setup ----------------------------------------------------------

// SetupURL is the link to the first-run setup page, with the setup code
// that proves the visitor can read the server's log. Without the code,
// anyone who reached a fresh server on the LAN before its owner could
// claim it.
func (s *Site) SetupURL() string { return s.cfg.BaseURL + SetupPath + "?code=" + s.setupCode }

type setupForm struct {
	Code, Name, Email string
	Fields            map[string]string
	Picker            zonePicker // currency and timezone
}

// setupOpen reports whether setup is still possible (no user exists); when
// it is not, it redirects to sign-in.
func (s *Site) setupOpen(w http.ResponseWriter, r *http.Request) (bool, error) {
	n, err := s.auth.CountUsers(r.Context())
	if err != nil {
		return false, err
	}
	if n > 0 {
		setPageHeaders(w.Header(), "")
		http.Redirect(w, r, LoginPath, http.StatusSeeOther)
		return false, nil
	}
	return true, nil
}

func (s *Site) setupPage(w http.ResponseWriter, r bunrouter.Request) error {
	if open, err := s.setupOpen(w, r.Request); !open || err != nil {
		return err
	}
	picker := newZonePicker(currencyForLanguages(r.Header.Get("Accept-Language")), serverTimezone(), nil)
	picker.BrowserZone = true
	return s.render(w, r.Request, "setup", pageView{Title: "Set up", Narrow: true, CSRF: auth.CSRFToken(s.formSecret(w, r.Request)),
		Data: setupForm{Code: r.URL.Query().Get("code"), Picker: picker}})
}

func (s *Site) setupSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	if open, err := s.setupOpen(w, r.Request); !open || err != nil {
		return err
	}
	secret := s.formSecret(w, r.Request)
	if err := checkForm(r.Request, secret); err != nil {
		return err
	}
	f := r.PostForm
	form := setupForm{Code: f.Get("code"), Name: f.Get("name"), Email: f.Get("email"), Fields: map[string]string{},
		Picker: newZonePicker(f.Get("currency"), f.Get("timezone"), nil)}
	p := pageView{Title: "Set up", Narrow: true, CSRF: auth.CSRFToken(secret), status: http.StatusBadRequest}
	switch {
	case subtle.ConstantTimeCompare([]byte(strings.TrimSpace(form.Code)), []byte(s.setupCode)) != 1:
		p.Error = "The setup code is not right. Use the setup link printed in the server log."
	case f.Get("password") != f.Get("password_confirm"):
		p.Error = "The two passwords differ."
	}
	if p.Error != "" {
		p.Data = form
		return s.render(w, r.Request, "setup", p)
	}
	u, err := s.auth.SetupFirstUser(r.Context(), auth.CreateUserRequest{Email: form.Email, Name: form.Name, Password: f.Get("password")},
		pickerSettings(f))
	var ve *finance.ValidationError
	switch {
	case errors.As(err, &ve):
		form.Fields, form.Picker.Fields = ve.Fields, ve.Fields
		p.Error = "Check the highlighted fields."
		p.Data = form
		return s.render(w, r.Request, "setup", p)
	case errors.Is(err, finance.ErrInvalidStatus):
		setPageHeaders(w.Header(), "")
		http.Redirect(w, r.Request, LoginPath, http.StatusSeeOther)
		return nil
	case err != nil:
		return err
	}
	if err := s.startSession(w, r.Request, u); err != nil {
		return err
	}
	setPageHeaders(w.Header(), "")
	http.Redirect(w, r.Request, HomePath+"?notice=welcome", http.StatusSeeOther)
	return nil
}

// --- sign-in and sign-out -----------------------------------------------------

type loginForm struct {
	Next, Email string
	ForApp      bool // the sign-in leads to a consent page
}

func (s *Site) loginPage(w http.ResponseWriter, r bunrouter.Request) error {
	next := SafeNext(r.URL.Query().Get("next"))
	if _, _, ok, err := s.SessionUser(r.Request); err != nil {
		return err
	} else if ok {
		setPageHeaders(w.Header(), "")
		http.Redirect(w, r.Request, next, http.StatusSeeOther)
		return nil
	}
	if n, err := s.auth.CountUsers(r.Context()); err != nil {
		return err
	} else if n == 0 {
		setPageHeaders(w.Header(), "")
		http.Redirect(w, r.Request, SetupPath, http.StatusSeeOther)
		return nil
	}
	return s.render(w, r.Request, "login", pageView{Title: "Sign in", Narrow: true,
		CSRF: auth.CSRFToken(s.formSecret(w, r.Request)),
		Data: loginForm{Next: next, ForApp: strings.HasPrefix(next, "/api/oauth/authorize")}})
}

func (s *Site) loginSubmit(w http.ResponseWriter, r bunrouter.Request) error {
	secret := s.formSecret(w, r.Request)
	if err := checkForm(r.Request, secret); err != nil {
		return err
	}
	f := r.PostForm
	next := SafeNext(f.Get("next"))
	u, err := s.auth.Login(r.Context(), f.Get("email"), f.Get("password"))
	if errors.Is(err, auth.ErrUnauthenticated) {
		return s.render(w, r.Request, "login", pageView{Title: "Sign in", Narrow: true, CSRF: auth.CSRFToken(secret),
			status: http.StatusUnauthorized, Error: "Wrong email or password.",
			Data: loginForm{Next: next, Email: f.Get("email"), ForApp: strings.HasPrefix(next, "/api/oauth/authorize")}})
	} else if err != nil {
		return err
	}
	if err := s.startSession(w, r.Request, u); err != nil {
		return err
	}
	setPageHeaders(w.Header(), "")
	http.Redirect(w, r.Request, next, http.StatusSeeOther)
	return nil
}

func (s *Site) logout(w http.ResponseWriter, r bunrouter.Request) error {
	_, sid, ok, err := s.SessionUser(r.Request)
	if err != nil {
		return err
	}
	setPageHeaders(w.Header(), "")
	if ok {
		if err := checkForm(r.Request, sid); err != nil {
			return err
		}
		if err := s.auth.EndSession(r.Context(), sid); err != nil {
			return err
		}
	}
	s.setCookie(w, sessionCookie, "", -1, http.SameSiteLaxMode)
	http.Redirect(w, r.Request, LoginPath, http.StatusSeeOther)
	return nil
}

// notices are the fixed messages a redirect may ask a page to show; the
// query names one, so no text from the URL reaches the page.
var notices = map[string]string{
	"import-previewed":           "The file is read. Check the rows below; nothing is saved until you import them.",
	"import-row-saved":           "The row has been changed.",
	"import-committed":           "Imported.",
	"import-discarded":           "The preview has been discarded; nothing was saved.",
	"import-reverted":            "The import has been undone: its records are voided.",
	"welcome":                    "Your user is ready. The list below walks through the first steps; each ticks itself off.",
	"expense-recorded":           "Expense recorded.",
	"income-recorded":            "Income recorded.",
	"transfer-recorded":          "Transfer recorded.",
	"transfer-saved":             "The transfer has been changed.",
	"transfer-deleted":           "The transfer has been deleted: both its lines and its fee are voided.",
	"expense-voided":             "The expense has been voided.",
	"expense-updated":            "The expense has been saved.",
	"expense-split":              "The expense has been split.",
	"expenses-recorded":          "The expenses have been recorded.",
	"income-updated":             "The income has been saved.",
	"bill-paid":                  "Bill payment recorded.",
	"bill-partially_paid":        "Bill payment recorded.",
	"bill-skipped":               "The bill has been skipped.",
	"bill-saved":                 "The bill has been saved; its template no longer changes it.",
	"loan-paid":                  "Loan payment recorded.",
	"revoked":                    "The key has been revoked. It no longer works.",
	"disconnected":               "The app has been disconnected. Its tokens no longer work.",
	"unlinked":                   "The chat has been unlinked. It can no longer act for you.",
	"account-created":            "Account created.",
	"account-saved":              "Account saved.",
	"lines-marked":               "The lines are marked.",
	"account-archived":           "The account has been archived. Its history stays; it takes no new lines.",
	"account-unarchived":         "The account is active again.",
	"line-added":                 "Line added.",
	"line-voided":                "The line has been voided.",
	"balance-adjusted":           "Balance adjusted: one adjustment line added.",
	"statement-saved":            "The statement has been saved.",
	"statement-line-added":       "Line added to the statement.",
	"statement-line-saved":       "The statement line has been saved.",
	"card-created":               "Card created.",
	"card-saved":                 "Card saved.",
	"card-archived":              "The card has been archived. Its history stays; it takes no new charges.",
	"card-unarchived":            "The card is active again.",
	"statement-paid":             "Statement payment recorded.",
	"statement-linked":           "Transactions linked to the statement.",
	"statement-line-removed":     "The line has been taken off the statement.",
	"statement-voided":           "The statement has been voided and reset.",
	"plan-created":               "Purchase converted to an installment plan.",
	"plan-cancelled":             "The installment plan has been cancelled.",
	"profile-saved":              "Your profile has been saved.",
	"picture-changed":            "Your profile picture has been changed.",
	"password-changed":           "Your password has been changed. You stay signed in here; every other sign-in has ended. API keys and connected apps keep working.",
	"settings-saved":             "Your settings have been saved.",
	"category-created":           "The category has been created.",
	"category-saved":             "The category has been saved.",
	"category-archived":          "The category has been archived. Records that use it keep it.",
	"category-unarchived":        "The category is active again.",
	"rule-created":               "The rule has been added. It applies to files you import from now on.",
	"rule-saved":                 "The rule has been saved.",
	"rule-moved":                 "The rule has been moved.",
	"rule-deleted":               "The rule has been deleted.",
	"rate-created":               "Your rate has been saved. Conversions on its date and after use it until a newer rate.",
	"rate-deleted":               "Your rate has been deleted.",
	"budgets-saved":              "Your budgets have been saved.",
	"budget-removed":             "The budget was removed.",
	"income-voided":              "The income has been voided.",
	"bill-unpaid":                "The bill is unpaid again.",
	"bill-payment-deleted":       "The payment has been deleted and its expense voided.",
	"template-created":           "Bill template created. Its bills are on the calendar.",
	"template-saved":             "Bill template saved. Its upcoming untouched bills follow the new terms.",
	"template-deleted":           "Bill template deleted, with its upcoming untouched bills.",
	"income-template-created":    "Recurring income created. What it expects is listed below.",
	"income-template-saved":      "Recurring income saved. Its upcoming expected income follows the new terms.",
	"income-template-deleted":    "Recurring income deleted, with its upcoming expected income.",
	"income-received":            "Income recorded as received.",
	"income-skipped":             "Expected income skipped; nothing recorded.",
	"loan-created":               "Loan created. This is its schedule.",
	"loan-saved":                 "Loan saved.",
	"installments-marked":        "Past installments marked paid.",
	"installments-none-open":     "Nothing to mark: no open installment was due by then.",
	"loan-cancelled":             "The loan has been cancelled. Its open installments are closed; its payments are kept.",
	"loan-active":                "The loan is active again.",
	"loan-deleted":               "The loan has been deleted.",
	"installment-paid":           "Installment marked paid, without recording money.",
	"installment-waived":         "Installment waived.",
	"installment-unpaid":         "The installment is open again.",
	"installment-partially_paid": "The installment is open again.",
}
