package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/fxrates"
	"github.com/finance-app/finance/mcpserver"
	"github.com/finance-app/finance/metrics"
	"github.com/finance-app/finance/oauth"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/store"
	"github.com/finance-app/finance/telegram"
	"github.com/finance-app/finance/web"
)

// serveFlags are the settings of serve, from its flags or their environment
// variables (see env.go). Values are checked as they are set, so serve
// starts only with valid ones.
type serveFlags struct {
	addr, baseURL             string
	rateLimit, loginRateLimit string
	authorizeRateLimit        string
	rateBurst, loginBurst     int
	corsOrigins               []string
	maxBody, maxUploadBytes   int64
	maxImportBytes            int64
	accessLog, trustProxy     bool
	// AI parsing: an OpenAI-compatible service, OCR, and the per-user budget.
	aiBaseURL, aiModel, aiVisionModel, aiAPIKey string
	aiTimeout                                   time.Duration
	ocrCommand, aiRateLimit                     string
	// The Telegram bot: its token, the webhook's secret, the Bot API's
	// address, and the webhook's limit per source address.
	telegram telegramFlags
	// reminderInterval is how often reminders due are looked for; 0: never.
	reminderInterval time.Duration
	// Exchange rates: the source fetched (off, ecb, frankfurter), its
	// address, and how often.
	fxSource, fxURL string
	fxInterval      time.Duration
	// Scheduled backups (into --backup-dir, a flag of every command): how
	// often, 0 for never, and how many are kept.
	backupInterval time.Duration
	backupKeep     int
	// Prometheus metrics: served at /metrics to loopback clients of the
	// main listener, or at metricsAddr, a listener of their own.
	metrics     bool
	metricsAddr string
}

// The scheduled backups' defaults: one a day, a week of them.
const (
	defaultBackupInterval = 24 * time.Hour
	defaultBackupKeep     = 7
)

func newServeCmd(c *cli) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the service: REST API, MCP endpoint, web pages and documentation",
		Long: "serve runs the service until SIGINT or SIGTERM. Each flag can also be set by the environment\n" +
			"variable named beside it; a flag given on the command line wins.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.serve(cmd.Context(), f)
		},
	}
	f.register(cmd.Flags())
	return cmd
}

// register defines the flags of serve, each with its environment variable.
func (f *serveFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.addr, "addr", "127.0.0.1:8080", "listen address; use 0.0.0.0:8080 to serve the LAN")
	fl.StringVar(&f.baseURL, "base-url", "", "external URL of the service, e.g. https://finance.home.lan (default http://ADDR)")
	rateVar(fl, &f.rateLimit, "rate-limit", "600/min", "requests per credential: N/s, N/min, N/h or off")
	burstVar(fl, &f.rateBurst, "rate-burst", 120, "largest burst per credential")
	rateVar(fl, &f.loginRateLimit, "login-rate-limit", "10/min", "sign-in attempts per client IP (also OAuth registration, token and revocation), and wrong current passwords of a password change per user and per client IP")
	burstVar(fl, &f.loginBurst, "login-rate-burst", 10, "largest burst of sign-in attempts per client IP")
	rateVar(fl, &f.authorizeRateLimit, "authorize-rate-limit", "30/min", "OAuth authorization requests (the consent page and its form) per client IP: N/s, N/min, N/h or off")
	fl.Int64Var(&f.maxBody, "max-body", server.DefaultMaxBodyBytes, "largest request body in bytes")
	fl.Int64Var(&f.maxUploadBytes, "max-upload-bytes", server.DefaultMaxUploadBytes,
		"bytes of uploads (receipt photos) the server receives at once, held in DATA_DIR/"+server.UploadDirName+"; more are refused with 429 until some are done")
	fl.Int64Var(&f.maxImportBytes, "max-import-bytes", server.DefaultMaxImportBytes,
		"largest statement or export file POST /api/v1/imports takes, in bytes")
	boolVar(fl, &f.accessLog, "access-log", true, "log one line per request: true or false (also 1/0, yes/no, on/off)")
	boolVar(fl, &f.trustProxy, "trust-proxy", false, "take the client IP from X-Forwarded-For (only behind a reverse proxy)")
	fl.StringVar(&f.aiBaseURL, "ai-base-url", "", "OpenAI-compatible chat-completions service for AI parsing, e.g. http://127.0.0.1:11434/v1 (Ollama); empty: the built-in parser only")
	fl.StringVar(&f.aiModel, "ai-model", "", "model that reads expense text (needs --ai-base-url)")
	fl.StringVar(&f.aiVisionModel, "ai-vision-model", "", "model that reads receipt photos (needs --ai-base-url)")
	fl.StringVar(&f.aiAPIKey, "ai-api-key", "", "API key of the AI service, sent as a bearer token (local servers need none)")
	fl.DurationVar(&f.aiTimeout, "ai-timeout", ai.DefaultModelTimeout,
		fmt.Sprintf("longest wait for one answer of the AI service, at most %s", server.MaxAITimeout(server.WriteTimeout, ai.DefaultJobWait)))
	fl.StringVar(&f.ocrCommand, "ocr-command", "", "OCR program for receipt photos, called as CMD IMAGE stdout (default: tesseract, when it is on the PATH)")
	rateVar(fl, &f.aiRateLimit, "ai-rate-limit", "60/h", "AI parsing calls per user (an image counts 5): N/s, N/min, N/h or off")
	fl.StringSliceVar(&f.corsOrigins, "cors-origin", nil, "a browser origin (https://host[:port]) allowed to call /api/mcp from its pages (CORS); repeat or comma-separate for more; none by default")
	f.telegram.register(fl)
	rateVar(fl, &f.telegram.rateLimit, "telegram-rate-limit", "120/min", "messaging webhook deliveries per source address: N/s, N/min, N/h or off")
	fl.DurationVar(&f.reminderInterval, "reminder-interval", defaultReminderInterval,
		"how often to send the reminders due (Telegram and Home), such as 5m; 0 turns reminders off")
	fl.StringVar(&f.fxSource, "fx-source", "off", "where the server fetches exchange rates: off, ecb or frankfurter")
	fl.StringVar(&f.fxURL, "fx-url", "", "address of the rates: the ECB's daily XML file (default "+fxrates.ECBDailyURL+
		"; its 90-day file is read beside it), or a self-hosted Frankfurter's base URL (required for frankfurter)")
	fl.DurationVar(&f.fxInterval, "fx-interval", defaultFXInterval, "how often to fetch exchange rates, at least 1m")
	offDurationVar(fl, &f.backupInterval, "backup-interval", defaultBackupInterval,
		"how often to back up the database and its media into --backup-dir, such as 24h or 6h; off turns scheduled backups off")
	countVar(fl, &f.backupKeep, "backup-keep", defaultBackupKeep, "how many scheduled backups to keep; older ones are removed")
	boolVar(fl, &f.metrics, "metrics", false, "serve Prometheus metrics at /metrics, to clients on this machine only (or on --metrics-addr)")
	fl.StringVar(&f.metricsAddr, "metrics-addr", "", "serve the metrics on a listener of their own at this address, such as 127.0.0.1:9464, instead of the main one (needs --metrics)")
	bindEnv(fl)
}

func (c *cli) serve(ctx context.Context, f serveFlags) error {
	log := c.logger()

	keyRate, err := server.ParseRate(f.rateLimit, f.rateBurst)
	if err != nil {
		return fmt.Errorf("--rate-limit: %w", err)
	}
	loginRate, err := server.ParseRate(f.loginRateLimit, f.loginBurst)
	if err != nil {
		return fmt.Errorf("--login-rate-limit: %w", err)
	}
	authorizeRate, err := server.ParseRate(f.authorizeRateLimit, 0)
	if err != nil {
		return fmt.Errorf("--authorize-rate-limit: %w", err)
	}

	if err := f.telegram.check(false); err != nil {
		return err
	}
	webhookRate, err := server.ParseRate(f.telegram.rateLimit, 0)
	if err != nil {
		return fmt.Errorf("--telegram-rate-limit: %w", err)
	}

	if f.reminderInterval < 0 || (f.reminderInterval > 0 && f.reminderInterval < time.Second) {
		return fmt.Errorf("--reminder-interval %s: want 0 (off) or at least 1s, such as 5m", f.reminderInterval)
	}
	fx, err := f.fxFetcher()
	if err != nil {
		return err
	}
	if f.metricsAddr != "" && !f.metrics {
		return fmt.Errorf("--metrics-addr %s is set but metrics are off: add --metrics (or FINANCE_METRICS=true) to serve them there", f.metricsAddr)
	}
	var meter *metrics.Metrics // nil, counting nothing, when metrics are off
	if f.metrics {
		meter = metrics.New(appVersion(), log)
	}
	engine, err := f.aiEngine(log, meter)
	if err != nil {
		return err
	}
	if err := f.checkUploads(); err != nil {
		return err
	}
	aiRate, err := server.ParseRate(f.aiRateLimit, 0)
	if err != nil {
		return fmt.Errorf("--ai-rate-limit: %w", err)
	}
	var corsOrigins []string
	for _, o := range f.corsOrigins {
		origin, err := server.ParseOrigin(o)
		if err != nil {
			return fmt.Errorf("--cors-origin: %w", err)
		}
		corsOrigins = append(corsOrigins, origin)
	}

	db, err := c.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	// The first request would open a reader and the credential check's
	// connection; open them while the rest of start-up runs (and let them
	// finish before the database closes).
	warmed := make(chan struct{})
	go func() { defer close(warmed); db.Warm(ctx) }()
	defer func() { <-warmed }()
	bot, err := f.telegram.bot(db, log)
	if err != nil {
		return err
	}
	// Assistant conversations past their 30 days go at start; each user's
	// next chat also deletes theirs, so no background job is needed.
	if err := db.PruneAssistant(ctx, time.Now()); err != nil {
		log.Warn("could not delete old assistant conversations", "error", err)
	}
	if meter != nil {
		db.ObserveCommits(meter)
		// The sizes are of SQLite's files; a Postgres database has none
		// here, and its own statistics report its size.
		if !c.onPostgres() {
			meter.WatchDatabase(db.Size)
		}
	}
	secret, err := db.SigningKey(ctx, filepath.Join(c.dataDir, jwtSecretFile))
	if err != nil {
		return fmt.Errorf("JWT signing key: %w", err)
	}
	var (
		backups      *store.Backups
		backupStatus server.BackupStatus // stays nil, not a nil *store.Backups, when off
	)
	if f.backupInterval > 0 && c.onPostgres() {
		log.Info("scheduled backups are off on Postgres: back it up with its own tools")
	} else if f.backupInterval > 0 {
		if backups, err = store.NewBackups(c.dbPath(), c.backupsDir(), f.backupInterval, f.backupKeep, log); err != nil {
			return fmt.Errorf("--backup-dir: %w", err)
		}
		backupStatus = backups
		meter.WatchBackups(backups)
		log.Info("scheduled backups", "dir", backups.Dir(), "interval", f.backupInterval, "keep", f.backupKeep)
	}
	warnLoosePermissions(log, c.dataDir)
	uploadDir := filepath.Join(c.dataDir, server.UploadDirName)
	if err := server.PrepareUploadDir(uploadDir); err != nil {
		return fmt.Errorf("upload directory: %w", err)
	}
	issuer, err := auth.NewJWT(secret, auth.DefaultJWTTTL)
	if err != nil {
		return err
	}
	authService := auth.NewService(db, issuer)

	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		return err
	}
	baseURL := strings.TrimRight(f.baseURL, "/")
	if baseURL == "" {
		baseURL = "http://" + ln.Addr().String()
	}
	// The OAuth authorization server issues the access tokens of MCP clients;
	// auth routes fat_ bearer tokens to it.
	authz := oauth.New(db, oauth.Config{Issuer: baseURL, Log: log})
	authService.SetTokenVerifier(authz)
	srv := server.New(server.Config{
		BaseURL: baseURL, Version: appVersion(),
		RateLimit: keyRate, LoginRateLimit: loginRate, AuthorizeRateLimit: authorizeRate,
		MaxBodyBytes: f.maxBody, AccessLog: f.accessLog, TrustProxy: f.trustProxy,
		UploadDir: uploadDir, MaxUploadBytes: f.maxUploadBytes, MaxImportBytes: f.maxImportBytes, WriteTimeout: server.WriteTimeout,
		OAuth: authz, MCPCORSOrigins: corsOrigins,
		AI: engine, AIRateLimit: aiRate,
		Telegram: bot, WebhookRateLimit: webhookRate,
		Backups: backupStatus, Requests: meter,
	}, log, authService, db)

	// The MCP tools call the REST routes in process, so the endpoint is built
	// from the finished server and mounted on it; it is built on its first
	// use (mcpEndpoint).
	mcp := buildMCP(func() (*mcpserver.Handler, error) {
		h, err := mcpserver.New(srv, mcpserver.Config{BaseURL: baseURL, Version: appVersion(), Logger: log,
			ResourceMetadataURL: srv.ResourceMetadataURL(), CORSOrigins: corsOrigins, Settings: srv.Ledger(), ToolCalls: meter})
		if err != nil {
			log.Error("the MCP endpoint could not be built: it answers 503 and the assistant has no tools", "error", err)
		}
		return h, err
	})
	srv.MountMCP(mcp)
	// The assistant offers its model the same tools, built the same way.
	srv.SetAssistantTools(mcp)
	if bot != nil {
		// The bot reaches the ledger and the assistant only through REST
		// routes served in process as the linked user.
		api := srv.MessagingAPI()
		bot.Start(api, telegram.NewRESTAssistant(api))
		log.Info("telegram bot", "webhook", baseURL+server.MessagingWebhookPath, "api", f.telegram.apiURL)
	}

	handler := srv.Handler()
	var metricsServer *http.Server
	switch {
	case meter != nil && f.metricsAddr != "":
		if metricsServer, err = serveMetrics(meter, f.metricsAddr, log); err != nil {
			ln.Close()
			return err
		}
	case meter != nil:
		handler = meter.ServeLoopback(handler)
		log.Info("metrics", "endpoint", "http://"+ln.Addr().String()+metrics.Path, "clients", "this machine only")
	}
	httpServer := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       server.ReadTimeout,
		WriteTimeout:      server.WriteTimeout,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}

	flushCtx, stopFlusher := context.WithCancel(context.WithoutCancel(ctx))
	flusherDone := make(chan struct{})
	go func() {
		var wg sync.WaitGroup
		wg.Go(func() { authService.RunUsageFlusher(flushCtx, 15*time.Second) })
		wg.Go(func() { authz.Run(flushCtx, 15*time.Second) })
		if f.reminderInterval > 0 {
			var send finance.ReminderSender = homeOnly{}
			if bot != nil {
				send = bot
			}
			if meter != nil {
				send = countedReminders{send, meter}
			}
			wg.Go(func() { runReminders(flushCtx, srv.Ledger(), send, f.reminderInterval, log) })
		}
		if fx != nil {
			wg.Go(func() { fx.Run(flushCtx, srv.Ledger(), f.fxInterval, log) })
		}
		if backups != nil {
			wg.Go(func() { backups.Run(flushCtx) })
		}
		wg.Wait()
		close(flusherDone)
	}()

	// Counted before serving starts, so that a stop signal right after the
	// line announcing the URL cannot cancel the count and lose the setup
	// advice below.
	users, countErr := authService.CountUsers(ctx)

	serveErr := make(chan error, 1)
	go func() { serveErr <- httpServer.Serve(ln) }()

	log.Info("finance listening", "url", baseURL, "addr", ln.Addr().String(), "data_dir", c.dataDir,
		"version", appVersion(), "docs", baseURL+server.DocsPath)
	if countErr == nil && users == 0 && c.logs.format == logJSON {
		// One JSON line like the others, for a log collector to keep: the
		// setup code is the one secret the log carries, on purpose: reading
		// the log is what proves the visitor is the server's admin.
		log.Info("no users yet: open the setup page to create the first one", "setup_url", srv.SetupURL(),
			"or_run", firstUserCommand(executable(), c.dataDir))
	} else if countErr == nil && users == 0 {
		fmt.Fprintf(c.stderr, "\nNo users yet. Open the setup page to create the first one (the link carries a one-time setup code):\n  %s\n"+
			"or create it on the command line with:\n  %s\n"+
			"then sign in at %s to create API keys and approve MCP clients.\n\n",
			srv.SetupURL(), firstUserCommand(executable(), c.dataDir), baseURL+web.LoginPath)
	}

	select {
	case err := <-serveErr:
		if metricsServer != nil {
			metricsServer.Close()
		}
		if bot != nil {
			stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			bot.Stop(stopCtx)
			cancel()
		}
		stopFlusher()
		<-flusherDone
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = httpServer.Shutdown(shutdownCtx)
	if metricsServer != nil {
		_ = metricsServer.Shutdown(shutdownCtx)
	}
	if bot != nil {
		// Updates still being handled get until the deadline; any left are
		// stored as pending and handled at the next start.
		bot.Stop(shutdownCtx)
	}
	stopFlusher()
	<-flusherDone // the flusher writes pending last-use times before the database closes
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// serveMetrics serves the metrics, and nothing else, on a listener of their
// own at addr: any client that reaches it may read them, so it is for an
// address only the monitoring can reach (loopback, a private network).
func serveMetrics(m *metrics.Metrics, addr string, log *slog.Logger) (*http.Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET "+metrics.Path, m.Handler())
	s := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, WriteTimeout: server.WriteTimeout,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		if err := s.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics listener stopped", "error", err)
		}
	}()
	log.Info("metrics", "endpoint", "http://"+ln.Addr().String()+metrics.Path, "clients", "any that reach it")
	return s, nil
}

// aiEngine builds the AI parsing engines from the flags, refusing a
// configuration that cannot work: a model without a service, a service
// without a model, a URL that is not http(s), an OCR command that is not there.
func (f serveFlags) aiEngine(log *slog.Logger, calls ai.CallObserver) (*ai.Engine, error) {
	if f.aiBaseURL != "" {
		u, err := url.Parse(f.aiBaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("--ai-base-url %q: want an http or https URL, such as http://127.0.0.1:11434/v1", f.aiBaseURL)
		}
		if f.aiModel == "" && f.aiVisionModel == "" {
			return nil, errors.New("--ai-base-url is set but neither --ai-model nor --ai-vision-model names a model to use")
		}
	} else if f.aiModel != "" || f.aiVisionModel != "" {
		return nil, errors.New("--ai-model and --ai-vision-model need --ai-base-url, the address of the service that runs them")
	}
	if f.aiTimeout <= 0 {
		return nil, errors.New("--ai-timeout must be above 0, such as 40s")
	}
	// A parse waits for a job slot, then for the model, then answers with the
	// built-in parser if the model did not: all within the write timeout.
	if limit := server.MaxAITimeout(server.WriteTimeout, ai.DefaultJobWait); f.aiTimeout > limit {
		return nil, fmt.Errorf("--ai-timeout %s is too long: at most %s, so that when the AI service does not answer, "+
			"the built-in parser's drafts still reach the client before the server's %s write timeout", f.aiTimeout, limit, server.WriteTimeout)
	}
	ocr, err := ai.FindOCR(f.ocrCommand, 0)
	if err != nil {
		return nil, fmt.Errorf("--ocr-command: %w", err)
	}
	e := ai.New(ai.Config{BaseURL: f.aiBaseURL, Model: f.aiModel, VisionModel: f.aiVisionModel, APIKey: f.aiAPIKey,
		ModelTimeout: f.aiTimeout, OCR: ocr, JobWait: ai.DefaultJobWait, Log: log, Calls: calls})
	images, _ := e.CanReadImages()
	log.Info("AI parsing", "text", textEngine(f), "images", images, "ocr", ocr != nil)
	return e, nil
}

func textEngine(f serveFlags) string {
	if f.aiBaseURL != "" && f.aiModel != "" {
		return "model " + f.aiModel + ", built-in as fallback"
	}
	return "built-in"
}

// checkUploads refuses a bound on uploads in flight that would refuse the
// largest upload every time.
func (f serveFlags) checkUploads() error {
	maxBody := f.maxBody
	if maxBody <= 0 {
		maxBody = server.DefaultMaxBodyBytes
	}
	if least := server.MinUploadBytes(maxBody); f.maxUploadBytes < least {
		return fmt.Errorf("--max-upload-bytes %d is too small: at least %d, one Record page's five 5 MiB photos with --max-body besides",
			f.maxUploadBytes, least)
	}
	if f.maxImportBytes <= 0 {
		return fmt.Errorf("--max-import-bytes %d must be greater than 0", f.maxImportBytes)
	}
	// An import's file is an upload in flight too (server/uploads.go).
	if least := maxBody + f.maxImportBytes; f.maxUploadBytes < least {
		return fmt.Errorf("--max-upload-bytes %d is too small: at least %d, one --max-import-bytes file with --max-body besides",
			f.maxUploadBytes, least)
	}
	return nil
}

// firstUserCommand is the command line that creates the first user of a
// server run by the binary exe on dataDir, ready to paste into a shell: the
// binary by its path (it need not be on the PATH: make run starts
// bin/finance, go run a temporary build) and the absolute data directory,
// each quoted when needed.
func firstUserCommand(exe, dataDir string) string {
	if abs, err := filepath.Abs(dataDir); err == nil {
		dataDir = abs
	}
	return shellQuote(exe) + " users create --email you@example.com --data-dir " + shellQuote(dataDir)
}

// executable is the path of the running binary, or its name if the system cannot tell.
func executable() string {
	if exe, err := os.Executable(); err == nil {
		return exe
	}
	return "finance"
}
