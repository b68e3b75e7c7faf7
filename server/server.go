package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/assistant"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/oauth"
	"github.com/finance-app/finance/telegram"
	"github.com/finance-app/finance/web"
)

// Config holds the settings of the HTTP layer.
type Config struct {
	// BaseURL is the externally visible address, e.g. http://127.0.0.1:8080.
	BaseURL string
	// Version is reported by GET /api/v1/health.
	Version string
	// RateLimit applies per credential to authenticated routes.
	RateLimit Rate
	// LoginRateLimit applies per client IP to unauthenticated routes
	// (sign-in), and per user and per client IP to wrong current passwords
	// of a password change.
	LoginRateLimit Rate
	// AuthorizeRateLimit applies per client IP to the OAuth authorization
	// endpoint (the consent page and its form), which may fetch a client's
	// metadata document before anyone signs in.
	AuthorizeRateLimit Rate
	// MaxBodyBytes bounds request bodies; larger ones get 413.
	MaxBodyBytes int64
	// AccessLog logs one line per request when true.
	AccessLog bool
	// TrustProxy makes X-Forwarded-For the client IP (behind a reverse proxy).
	TrustProxy bool
	// OAuth is the authorization server for MCP clients. Without it the
	// OAuth endpoints answer 404 and the connected apps page is empty.
	OAuth *oauth.Server
	// AI parses text and receipt images into expense drafts. Without one,
	// the built-in parser reads text and no engine reads images.
	AI *ai.Engine
	// AIRateLimit is each user's budget of AI parsing calls (an image
	// weighs 5), apart from RateLimit.
	AIRateLimit Rate
	// MCPCORSOrigins are the browser origins (as ParseOrigin returns them)
	// allowed to call the MCP endpoint across origins; none by default.
	MCPCORSOrigins []string
	// Backups are the scheduled backups health reports on; nil when they
	// are off.
	Backups BackupStatus
	// Telegram is the bot whose updates the messaging webhook takes.
	// Without one the webhook answers 404.
	Telegram *telegram.Bot
	// WebhookRateLimit applies per client IP to the messaging webhook.
	WebhookRateLimit Rate
	// HeavyReads is how many heavy reads (Route.Heavy) run at once; more
	// wait their turn. 0 means one per CPU, which leaves at least half of
	// the store's readers (two per CPU) and CPU time to cheap reads.
	HeavyReads int
	// UploadDir holds receipt photos while they are read (see uploads.go),
	// normally the data directory's tmp folder (PrepareUploadDir); empty:
	// the system's temporary directory.
	UploadDir string
	// MaxUploadBytes bounds the bytes of uploads the server receives at
	// once (DefaultMaxUploadBytes when 0, and never below MinUploadBytes).
	MaxUploadBytes int64
	// MaxImportBytes is the largest file POST /imports takes
	// (DefaultMaxImportBytes when 0).
	MaxImportBytes int64
	// WriteTimeout is the HTTP server's write timeout (WriteTimeout when
	// 0): the AI parse routes answer well within it (aiContext).
	WriteTimeout time.Duration
	// Requests is told of every request answered (the metrics); nil for none.
	Requests RequestObserver
}

// DefaultMaxBodyBytes is the default request body limit (1 MiB).
const DefaultMaxBodyBytes = 1 << 20

// The HTTP server's timeouts (finance serve sets them): a request's body
// must arrive within ReadTimeout of its start, and its answer be written
// within WriteTimeout of the end of its headers.
const (
	ReadTimeout  = 60 * time.Second
	WriteTimeout = 60 * time.Second
)

// LongWriteTimeout is how long a LongWrite route may take to answer,
// counted from its handler's start. An import's commit and revert of a
// 50,000-row file took 14 to 42 s on a small two-core server, too near
// WriteTimeout: past it, net/http drops the answer of a commit that did
// happen, and the person sees a failure for an import that is in the ledger.
// The routes are a signed-in person's or a key's own writes, one at a time
// behind the writer, so a longer deadline holds nothing open for others.
const LongWriteTimeout = 10 * time.Minute

// HealthChecker checks the database for the health routes.
type HealthChecker interface {
	// Ping reports whether the database answers a read.
	Ping(ctx context.Context) error
	// ReadAnsweredSince reports whether the database answered a read begun
	// at or after t (for example the credentials' freshness check of the
	// request's authentication), so that health need not Ping again.
	ReadAnsweredSince(t time.Time) bool
	// ProbeWrite reports whether a write commits, durably. Its commit ends
	// a standing WriteFailure.
	ProbeWrite(ctx context.Context) error
	// WriteFailure returns when and why the latest write that failed on the
	// disk (a full disk) failed, while no later write has committed; a zero
	// time and nil otherwise.
	WriteFailure() (time.Time, error)
	// Migrated reports whether the database's schema is this binary's:
	// every migration applied, none it does not know.
	Migrated(ctx context.Context) error
}

// Database is what the server needs of the store: health checks, the
// ledger's persistence port, the responses of idempotent writes, and the
// AI assistant's conversations and proposals.
type Database interface {
	HealthChecker
	finance.Store
	IdempotencyStore
	assistant.Store
	Exporter
}

// Server is the HTTP application.
type Server struct {
	cfg    Config
	log    *slog.Logger
	auth   *auth.Service
	ledger *finance.Service
	db     Database
	router routeTrees
	routes []Route
	// heads are the handlers of the GET routes by path, which answer HEAD
	// too (methodNotAllowed).
	heads map[string]bunrouter.HandlerFunc

	oauth *oauth.Server

	keyLimiter   *limiter
	loginLimiter *limiter
	// passwordLimiter counts wrong current passwords per user and per
	// client IP, at the sign-in rate: the API's password change and the
	// password settings page draw on the same count.
	passwordLimiter *limiter
	// authorizeLimiter is the OAuth authorization endpoint's, per client IP.
	authorizeLimiter *limiter
	aiLimiter        *limiter // each user's AI parsing budget
	telegram         *telegram.Bot
	webhookLimiter   *limiter // per client IP, on the messaging webhook
	ai               *ai.Engine
	aiJobs           int        // the engine's job slots, reported when they are all taken
	probe            writeProbe // the health routes' shared write probe
	// assistant answers the assistant's routes; it reaches the REST
	// routes through the server (assistantRoutes).
	assistant *assistant.Assistant
	// web is the web app, whose routes are mounted as pages (mountWeb).
	web *web.Site
	// heavySlots holds one token per heavy read running (Route.Heavy).
	heavySlots chan struct{}
	// heavyHook, when set by a test, runs in each heavy read once it has its slot.
	heavyHook func()
	// uploads counts the bytes of uploads in flight (Config.MaxUploadBytes).
	uploads uploadBudget
	// spoolHook, when set by a test, wraps the writer of each upload file
	// (to fail as a full disk does).
	spoolHook func(io.Writer) io.Writer
}

// Route is one registered route and the requirement its caller must meet.
type Route struct {
	Method string
	Path   string // bunrouter syntax: /api/v1/expenses/:id
	Access auth.Requirement
	Page   bool // an HTML or static page, not part of the API contract
	// PerIP is the limiter of a public route limited per client IP: sign-in's,
	// or the authorization endpoint's. nil for none.
	PerIP *limiter
	// Query lists the query parameters the route takes. Routes of the REST
	// API (APIPrefix) refuse any other (see checkQuery).
	Query []string
	// Upload is the largest file the route takes, in bytes; 0 for none. Its
	// body may be that much larger than the server's limit, and its declared
	// length is not checked up front: the handler reads the file and refuses
	// one that is too large on its own field, which says more than a 413.
	Upload int64
	// WritesNothing marks a POST that only computes an answer (AI parsing):
	// it is not wrapped for Idempotency-Key, whose write transaction would
	// hold the single writer while a model or OCR runs, and it generates
	// no statements first.
	WritesNothing bool
	// NoIdempotencyKey marks a POST that is not wrapped for Idempotency-Key
	// although it writes: the assistant's chat, which stores its exchange in
	// a short transaction of its own after a model call, and its confirm,
	// which is exactly-once by proposal id in a write scope of its own
	// (scopes do not nest). WritesNothing routes are not wrapped either.
	NoIdempotencyKey bool
	// Heavy marks an expensive read (summaries, reports, the dashboard):
	// it waits for one of the server's few heavy-read slots
	// (Config.HeavyReads), so however many of them clients send at once,
	// cheap reads (lists, single records, health) keep reader connections
	// and CPU time and answer promptly.
	Heavy bool
	// HeavyWith lists query parameters that make a request to the route
	// heavy when present: a text search scans rows where a page reads
	// one index range.
	HeavyWith []string
	// Once marks a page form that records something: a form carrying a
	// once id runs once per id (see pageonce.go).
	Once bool
	// LongWrite marks a route whose answer may come later than the HTTP
	// server's WriteTimeout allows (an import of up to 50,000 rows: see
	// LongWriteTimeout); its handler gets that long from its start.
	LongWrite bool
	handler   bunrouter.HandlerFunc
}

// New builds the server and registers every route.
func New(cfg Config, log *slog.Logger, authService *auth.Service, db Database) *Server {
	if cfg.MaxBodyBytes <= 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.MaxUploadBytes <= 0 {
		cfg.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if cfg.MaxImportBytes <= 0 {
		cfg.MaxImportBytes = DefaultMaxImportBytes
	}
	cfg.MaxUploadBytes = max(cfg.MaxUploadBytes, MinUploadBytes(cfg.MaxBodyBytes), cfg.MaxBodyBytes+cfg.MaxImportBytes)
	if cfg.UploadDir == "" {
		cfg.UploadDir = os.TempDir()
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = WriteTimeout
	}
	if log == nil {
		log = slog.Default()
	}
	s := &Server{
		cfg:          cfg,
		log:          log,
		auth:         authService,
		ledger:       finance.NewService(db),
		db:           db,
		oauth:        cfg.OAuth,
		keyLimiter:   newLimiter("per-credential", cfg.RateLimit),
		loginLimiter: newLimiter("per-ip", cfg.LoginRateLimit),
		// The same numbers as sign-in: a stolen session should not guess a
		// password faster than a stranger at the sign-in form can.
		passwordLimiter:  newLimiter("password", cfg.LoginRateLimit),
		authorizeLimiter: newLimiter("authorize", cfg.AuthorizeRateLimit),
		aiLimiter:        newLimiter("ai", cfg.AIRateLimit),
		ai:               cfg.AI,
		uploads:          uploadBudget{limit: cfg.MaxUploadBytes},
	}
	if s.ai == nil {
		s.ai = ai.New(ai.Config{Log: log})
	}
	s.telegram = cfg.Telegram
	s.webhookLimiter = newLimiter("webhook", cfg.WebhookRateLimit)
	if cfg.HeavyReads <= 0 {
		cfg.HeavyReads = runtime.GOMAXPROCS(0)
	}
	s.heavySlots = make(chan struct{}, cfg.HeavyReads)
	s.aiJobs = s.ai.MaxJobs()
	s.assistant = assistant.New(db, s.ledger, assistantRoutes{s}, s.ai, log)
	s.router = newRouteTrees(
		bunrouter.WithNotFoundHandler(s.notFound),
		bunrouter.WithMethodNotAllowedHandler(s.methodNotAllowed),
	)
	s.registerHealthRoutes()
	s.registerLoginRoutes()
	s.registerDocsRoutes()
	s.mountWeb()
	s.registerOAuthRoutes()
	s.registerCategoryRoutes()
	s.registerCategoryRuleRoutes()
	s.registerExchangeRateRoutes()
	s.registerAccountRoutes()
	s.registerIncomeRoutes()
	s.registerIncomeTemplateRoutes()
	s.registerTransferRoutes()
	s.registerCardRoutes()
	s.registerCardFigureRoutes()
	s.registerCardTransactionRoutes()
	s.registerSOARoutes()
	s.registerInstallmentRoutes()
	s.registerExpenseRoutes()
	s.registerAIRoutes()
	s.registerAssistantRoutes()
	s.registerSettingsRoutes()
	s.registerReminderRoutes()
	s.registerBillRoutes()
	s.registerLoanRoutes()
	s.registerReportRoutes()
	s.registerMessagingRoutes()
	s.registerActivityRoutes()
	s.registerExportRoutes()
	s.registerImportRoutes()
	return s
}

// Ledger returns the domain service behind the routes.
func (s *Server) Ledger() *finance.Service { return s.ledger }

// Handler returns the root handler with the request-wide middleware.
func (s *Server) Handler() http.Handler { return s.outer(s.router) }

// Routes lists every registered route.
func (s *Server) Routes() []Route { return slices.Clone(s.routes) }

// handlerFunc is what route handlers implement: they return errors and never
// write error bodies themselves.
type handlerFunc func(w http.ResponseWriter, r bunrouter.Request) error

// handle registers a route with its requirement and the query parameters it
// takes. The chain per route is: body limit -> authenticate -> Pro plan ->
// rate limit -> scope -> query check (REST API routes) -> Idempotency-Key
// (POST routes of the REST API that need a credential) -> handler.
func (s *Server) handle(method, path string, access auth.Requirement, h handlerFunc, query ...string) {
	s.add(Route{Method: method, Path: path, Access: access, Query: query}, h)
}

// heavy registers an expensive read route (see Route.Heavy).
func (s *Server) heavy(method, path string, access auth.Requirement, h handlerFunc, query ...string) {
	s.add(Route{Method: method, Path: path, Access: access, Query: query, Heavy: true}, h)
}

// page registers an HTML or static route of the server's own (public,
// outside the API contract): the API's documentation, the uploaded pictures.
func (s *Server) page(method, path string, h handlerFunc) {
	s.add(Route{Method: method, Path: path, Access: auth.Public, Page: true}, h)
}

func (s *Server) add(rt Route, h handlerFunc) {
	if !rt.Access.Valid() {
		panic(fmt.Sprintf("server: route %s %s declares no scope", rt.Method, rt.Path))
	}
	if generates(rt.Path) && !rt.WritesNothing {
		h = s.withGeneration(rt.Path, h)
	}
	if rt.Once {
		h = s.onceForm(h)
	}
	if rt.Heavy || len(rt.HeavyWith) > 0 {
		h = s.limitHeavy(rt, h)
	}
	if rt.LongWrite {
		h = longWrite(h)
	}
	if strings.HasPrefix(rt.Path, APIPrefix) {
		if rt.Method == http.MethodPost && !rt.Access.IsPublic() && !rt.WritesNothing && !rt.NoIdempotencyKey {
			// Inside the query check: a request the route refuses for its
			// query is refused before its key is looked at.
			h = s.idempotent(rt, h)
		}
		h = checkedQuery(rt.Query, h)
	}
	if rt.Page {
		h = checkedPageQuery(h)
		h = webWrites(h)
	}
	rt.handler = func(w http.ResponseWriter, r bunrouter.Request) error {
		noteRoute(r.Context(), rt.Path, "")
		if err := s.serve(rt, h, w, r); err != nil {
			if rt.Page {
				// A person is reading: answer with a page, not JSON.
				s.web.RenderError(w, r.Request, err)
				return nil
			}
			if c, ok := s.challenge(r.Request, err); ok {
				w.Header().Set("WWW-Authenticate", c.String())
			}
			s.writeError(w, r.Request, err)
		}
		return nil
	}
	s.router.Handle(rt.Method, rt.Path, rt.handler)
	if rt.Method == http.MethodGet {
		if s.heads == nil {
			s.heads = map[string]bunrouter.HandlerFunc{}
		}
		s.heads[rt.Path] = rt.handler
	}
	s.routes = append(s.routes, rt)
}

func (s *Server) serve(rt Route, h handlerFunc, w http.ResponseWriter, r bunrouter.Request) error {
	if rt.Upload == 0 && r.ContentLength > s.cfg.MaxBodyBytes {
		return httperr.TooLarge(s.cfg.MaxBodyBytes)
	}
	if r.Body != nil && r.Body != http.NoBody {
		// A request without a body (most GETs) has nothing to bound.
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes+rt.Upload)
	}

	if rt.Access.IsPublic() {
		noteRoute(r.Context(), rt.Path, "")
		if rt.PerIP != nil {
			d := rt.PerIP.take(s.clientIP(r.Request))
			rt.PerIP.setHeaders(w.Header(), d)
			if !d.allowed {
				return errRateLimited
			}
		}
		return h(w, r)
	}

	p, trusted := r.Context().Value(inProcessKey{}).(auth.Principal)
	if trusted {
		// An in-process call (ServeAs): the caller was authenticated and rate
		// limited by the outer request; plan and scope still apply per route.
		return s.authorize(rt, h, w, r, p)
	}
	p, err := s.auth.Authenticate(r.Context(), bearerToken(r.Request))
	noteRoute(r.Context(), rt.Path, p.Method) // no credential kind when refused
	if err != nil {
		return err
	}
	if p.NeedsPro() && p.User.Plan != finance.PlanPro {
		// Checked before the rate limit, so refused calls do not use up a bucket.
		return &auth.Error{Kind: auth.ErrPlanRequired,
			Message: "API access is a Pro plan feature; ask your household admin to run: finance users set-plan " + p.User.Email + " pro"}
	}
	d := s.keyLimiter.take(string(p.Method) + ":" + p.CredentialID)
	s.keyLimiter.setHeaders(w.Header(), d)
	if !d.allowed {
		return errRateLimited
	}
	return s.authorize(rt, h, w, r, p)
}

// authorize applies the Pro plan and the route's scope, then runs the handler.
func (s *Server) authorize(rt Route, h handlerFunc, w http.ResponseWriter, r bunrouter.Request, p auth.Principal) error {
	if p.NeedsPro() && p.User.Plan != finance.PlanPro {
		return &auth.Error{Kind: auth.ErrPlanRequired,
			Message: "API access is a Pro plan feature; ask your household admin to run: finance users set-plan " + p.User.Email + " pro"}
	}
	if err := p.Allow(rt.Access); err != nil {
		return err
	}
	ctx := auth.WithPrincipal(r.Context(), p)
	if _, ok := finance.ActorOf(ctx); !ok {
		// The credential makes the writes, unless the caller serving this
		// request in process already named another author (the assistant).
		ctx = finance.WithActor(ctx, p.Actor())
	}
	return h(w, r.WithContext(ctx))
}

// longWrite gives h LongWriteTimeout to answer, from its start, beyond the
// HTTP server's WriteTimeout. A ResponseWriter without deadlines (a test's
// recorder, an in-process call) has none to extend.
func longWrite(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r bunrouter.Request) error {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(LongWriteTimeout))
		return h(w, r)
	}
}

// webWrites marks what a page writes as the web app's: a person signed in
// with a session cookie, which the page checks itself.
func webWrites(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r bunrouter.Request) error {
		return h(w, r.WithContext(finance.WithActor(r.Context(), finance.WebActor)))
	}
}

// limitHeavy runs h in a heavy-read slot when the request is heavy for rt,
// waiting for one to free up (or for the client to give up).
func (s *Server) limitHeavy(rt Route, h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r bunrouter.Request) error {
		if !rt.Heavy && !slices.ContainsFunc(rt.HeavyWith, r.URL.Query().Has) {
			return h(w, r)
		}
		select {
		case s.heavySlots <- struct{}{}:
		case <-r.Context().Done():
			return r.Context().Err()
		}
		defer func() { <-s.heavySlots }()
		if s.heavyHook != nil {
			s.heavyHook()
		}
		return h(w, r)
	}
}

// ResourceMetadataURL is the address of the protected resource metadata
// (RFC 9728) that every challenge points OAuth clients at.
func (s *Server) ResourceMetadataURL() string {
	return s.cfg.BaseURL + "/.well-known/oauth-protected-resource"
}

// challenge is the WWW-Authenticate challenge of a refusal, if it has one.
// Every 401 carries one naming the scopes a typical agent needs, and
// error="invalid_token" when a credential was sent (RFC 6750 §3.1), so that
// a client with a dead token gets a new one instead of retrying it. A 403
// for a missing scope carries error="insufficient_scope" with the scopes the
// request needs, those held included, so that an OAuth client can ask the
// user for just the one more it needs (step-up authorization).
func (s *Server) challenge(r *http.Request, err error) (auth.Challenge, bool) {
	c := auth.Challenge{ResourceMetadata: s.ResourceMetadataURL()}
	var ae *auth.Error
	switch {
	case errors.Is(err, auth.ErrUnauthenticated):
		c.Scopes = auth.AgentScopes
		if bearerToken(r) != "" {
			c.Error = "invalid_token"
			c.Description = err.Error()
		}
		return c, true
	case errors.As(err, &ae) && len(ae.Needed) > 0:
		c.Error, c.Description, c.Scopes = "insufficient_scope", ae.Message, ae.Needed
		return c, true
	}
	return c, false
}

// inProcessKey marks a request built by ServeAs. The key is unexported, so
// nothing outside this package can forge it.
type inProcessKey struct{}

// ServeAs serves r through the router as principal p, without authenticating
// it again. MCP tools use it to call the REST route they wrap, so each tool
// keeps the route's validation, scope, owner scoping and side effects.
func (s *Server) ServeAs(p auth.Principal, w http.ResponseWriter, r *http.Request) {
	ctx := context.WithValue(r.Context(), inProcessKey{}, p)
	s.router.ServeHTTP(w, r.WithContext(ctx))
}

// Mount registers an external handler (the MCP endpoint, say) as a route
// with its requirement, behind the same middleware as every other route.
func (s *Server) Mount(method, path string, access auth.Requirement, h http.Handler) {
	s.handle(method, path, access, func(w http.ResponseWriter, r bunrouter.Request) error {
		h.ServeHTTP(w, r.Request)
		return nil
	})
}

// MCPPath is the address of the MCP endpoint (specification section 4.4).
const MCPPath = "/api/mcp"

// MountMCP serves h as the MCP endpoint: POST only (the router answers GET
// and DELETE with 405 and Allow: POST), behind the API middleware, for
// credentials holding mcp:connect. The binary always mounts it, and the
// contract tests mount a stand-in the same way, so the route list they check
// is the binary's.
func (s *Server) MountMCP(h http.Handler) {
	s.Mount(http.MethodPost, MCPPath, auth.MCPConnect, h)
}

var errRateLimited = httperr.New(http.StatusTooManyRequests, CodeRateLimitExceeded,
	"Too many requests; retry after the number of seconds in the Retry-After header")

// bearerToken reads Authorization: Bearer <token>, or else X-Service-API-Key
// for MCP clients that cannot set Authorization.
func bearerToken(r *http.Request) string {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, token, _ := strings.Cut(h, " ")
		if strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(token)
		}
		return ""
	}
	return strings.TrimSpace(r.Header.Get("X-Service-API-Key"))
}

// clientIP is the peer address, or, behind a trusted reverse proxy, the
// address that proxy appended last to X-Forwarded-For. Earlier entries come
// from the client and could be forged to dodge the per-IP limit.
func (s *Server) clientIP(r *http.Request) string {
	if s.cfg.TrustProxy {
		if xff := r.Header.Values("X-Forwarded-For"); len(xff) > 0 {
			hops := strings.Split(xff[len(xff)-1], ",")
			if last := strings.TrimSpace(hops[len(hops)-1]); last != "" {
				return last
			}
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func (s *Server) notFound(w http.ResponseWriter, r bunrouter.Request) error {
	s.routeNotFound(w, r.Request)
	return nil
}

// routeNotFound answers a path no route has, with status 404 either way: a
// program (the API, MCP and OAuth under /api/, metadata under
// /.well-known/) gets the JSON envelope it can read; a person who typed or
// followed a wrong address gets the web app's not-found page.
func (s *Server) routeNotFound(w http.ResponseWriter, r *http.Request) {
	if forPrograms(r.URL.Path) {
		s.writeError(w, r, httperr.RouteNotFound(r))
		return
	}
	s.web.NotFound(w, r)
}

// forPrograms reports whether path lies where programs call, not people.
func forPrograms(path string) bool {
	return path == "/api" || strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/.well-known/")
}

// methodNotAllowed answers 405 with the Allow header listing the methods
// registered for the matched path.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r bunrouter.Request) error {
	// HEAD is answered by every GET route; net/http drops the body. It is
	// not registered with the router: the router indexes its whole tree
	// again after each route it adds, and HEAD would double that work at
	// start-up (about 3 ms of it).
	if h, ok := s.heads[r.Route()]; ok && r.Method == http.MethodHead {
		return h(w, r)
	}
	noteRoute(r.Context(), r.Route(), "")
	var allow []string
	for _, rt := range s.routes {
		if rt.Path == r.Route() {
			allow = append(allow, rt.Method)
			if rt.Method == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
	}
	slices.Sort(allow)
	w.Header().Set("Allow", strings.Join(allow, ", "))
	s.writeError(w, r.Request, httperr.New(http.StatusMethodNotAllowed, CodeValidation,
		fmt.Sprintf("Method %s is not allowed on this path; allowed: %s", httperr.MethodName(r.Method), strings.Join(allow, ", "))))
	return nil
}
