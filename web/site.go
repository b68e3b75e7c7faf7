// Package web is the web app for people: the pages, their forms, charts and
// CSV downloads, sign-in and first-run setup, the settings pages and the
// consent screen of the OAuth server. The pages are server-rendered with
// html/template from embedded files; no page needs a script (the few there
// are, pageScripts, only add to a page that works without them).
//
// A page calls the same finance services as the REST handlers (and auth,
// oauth and the Telegram bot where it manages them), never the store, and
// shows their validation problems next to the fields they concern, in the
// words the API uses (httperr, queryparam). What a page shares with a REST
// route at the HTTP level and that holds server-wide state (the AI budget
// and job slots, the bound on uploads in flight, the count of wrong
// passwords, statement and bill generation) it reaches through Host, which
// the server implements.
//
// The site declares its routes as data (Routes); the server registers each
// one behind its middleware as a page, so body limits, heavy-read slots,
// once-forms, rate limits and error pages apply as to every other route.
package web

import (
	"context"
	"log/slog"
	"net/http"
	"slices"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/oauth"
	"github.com/finance-app/finance/telegram"
)

// HandlerFunc is what page handlers implement: they return errors, which
// the server answers with an error page (RenderError).
type HandlerFunc func(w http.ResponseWriter, r bunrouter.Request) error

// Limit names the per-client-IP limit a page's route draws on.
type Limit int

const (
	// NoLimit: only the credential's limits of the pages behind sign-in.
	NoLimit Limit = iota
	// SignInLimit is counted with sign-in attempts (sign-in, first-run setup).
	SignInLimit
	// AuthorizeLimit is the OAuth authorization endpoint's own (the consent screen).
	AuthorizeLimit
)

// Route is one page route as the server registers it. Every page route is
// public: a page checks its session itself and sends a visitor to sign in.
type Route struct {
	Method  string
	Path    string // bunrouter syntax: /accounts/:id
	Handler HandlerFunc
	// Heavy marks a page of expensive reads (a dashboard, a report, a whole
	// list as CSV): it runs in the server's heavy-read slots. With
	// HeavyWith, only a request carrying one of those query parameters is
	// heavy (a list's text search).
	Heavy     bool
	HeavyWith []string
	// Once marks a form that records something: it runs once per once id
	// (OnceField).
	Once bool
	// Upload is the largest file the form takes, in bytes, beyond the
	// server's body limit; 0 for none.
	Upload int64
	// Limit is the per-client-IP limit of a route open before sign-in.
	Limit Limit
	// LongWrite marks a form whose answer may come later than the server's
	// write timeout allows (an import's upload, commit and undo).
	LongWrite bool
}

// Host is what the pages need of the server that mounts them: work the
// REST routes do too, whose state is the server's.
type Host interface {
	// CanReadImages reports whether receipt photos can be read, and if not
	// why, in words for the person.
	CanReadImages() (bool, string)
	// ParseText is POST /expenses/ai/parse-text once its body is read: the
	// user's AI budget, then the drafts. The rate-limit headers go to h.
	ParseText(ctx context.Context, h http.Header, userID string, text finance.Field[string]) (ai.Result, error)
	// ParseReceipt reads the Record page's receipt form (multipart, its form
	// token checked against formSecret first) as POST
	// /expenses/ai/parse-images reads its upload, and returns the form's note
	// and the drafts.
	ParseReceipt(r *http.Request, h http.Header, userID, formSecret string) (note string, res ai.Result, err error)
	// UploadPicture reads the profile page's picture form (multipart, its
	// form token checked against formSecret first) as PUT
	// /user-settings/account/profile-picture reads its upload, and makes it
	// the user's picture.
	UploadPicture(r *http.Request, userID, formSecret string) error
	// SetPicture makes pic (an address, or none) the user's picture.
	SetPicture(ctx context.Context, userID string, pic finance.ProfilePicture) error
	// ChangePassword is PUT /user-settings/account/password, keeping the web
	// session keepSessionID: wrong current passwords are counted with the
	// API's, and once there were too many it returns
	// httperr.ErrPasswordGuesses with Retry-After set on w.
	ChangePassword(w http.ResponseWriter, r *http.Request, userID string, req auth.PasswordChangeRequest, keepSessionID string) error
	// ReserveUpload holds room for an upload of up to limit bytes among the
	// server's uploads in flight, as the REST routes that take files do;
	// when there is none it sets Retry-After on h and returns an error the
	// page shows as "try again". release is always safe to call.
	ReserveUpload(r *http.Request, h http.Header, limit int64) (release func(), err error)
	// GenerateDue makes the statements and bills that have come due, as
	// every read of them through the API does first.
	GenerateDue(ctx context.Context, userID string, statements, bills bool)
}

// Config is what the site is built from.
type Config struct {
	// BaseURL is the externally visible address, e.g. http://127.0.0.1:8080.
	BaseURL string
	Log     *slog.Logger
	Auth    *auth.Service
	Ledger  *finance.Service
	// OAuth is the authorization server; without it the consent screen is
	// not found and the connected apps page is empty.
	OAuth *oauth.Server
	// Telegram is the bot the Messaging page links chats to; without it the
	// page says there is none.
	Telegram *telegram.Bot
	Host     Host
	// MaxImportBytes is the largest statement the Import page takes, the
	// limit of POST /imports.
	MaxImportBytes int64
	// RequestID is the id the server gave the request, for the log and for
	// a failure's page.
	RequestID func(context.Context) string
}

// Site is the web app.
type Site struct {
	cfg      Config
	log      *slog.Logger
	auth     *auth.Service
	ledger   *finance.Service
	oauth    *oauth.Server
	telegram *telegram.Bot
	host     Host
	// setupCode must accompany the first-run setup form (see SetupURL).
	setupCode string
	routes    []Route
}

// New builds the site and declares its routes.
func New(cfg Config) *Site {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	if cfg.RequestID == nil {
		cfg.RequestID = func(context.Context) string { return "" }
	}
	s := &Site{cfg: cfg, log: cfg.Log, auth: cfg.Auth, ledger: cfg.Ledger, oauth: cfg.OAuth, telegram: cfg.Telegram,
		host: cfg.Host, setupCode: auth.NewSecret()[:26]}
	s.registerPageRoutes()
	return s
}

// Routes lists the site's routes.
func (s *Site) Routes() []Route { return slices.Clone(s.routes) }

// requestID is the server's id of the request.
func (s *Site) requestID(ctx context.Context) string { return s.cfg.RequestID(ctx) }

func (s *Site) add(rt Route) { s.routes = append(s.routes, rt) }

// page declares a page route.
func (s *Site) page(method, path string, h HandlerFunc) {
	s.add(Route{Method: method, Path: path, Handler: h})
}

// heavyPage declares a page of expensive reads (Route.Heavy); with
// parameters, only a request carrying one of them is heavy.
func (s *Site) heavyPage(path string, h HandlerFunc, with ...string) {
	s.add(Route{Method: http.MethodGet, Path: path, Handler: h, Heavy: len(with) == 0, HeavyWith: with})
}

// oncePage declares a form that records something, run once per once id
// (a form without one is served as it is).
func (s *Site) oncePage(path string, h HandlerFunc) {
	s.add(Route{Method: http.MethodPost, Path: path, Handler: h, Once: true})
}
