package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/telegram"
)

// parseServeFlags parses args and env as serve does and returns the result.
func parseServeFlags(t *testing.T, env map[string]string, args ...string) (serveFlags, error) {
	t.Helper()
	for k, v := range env {
		t.Setenv(k, v)
	}
	var f serveFlags
	cmd := &cobra.Command{Use: "serve"}
	f.register(cmd.Flags())
	if err := cmd.ParseFlags(args); err != nil {
		return f, err
	}
	return f, applyEnv(cmd)
}

var serveDefaults = serveFlags{
	addr: "127.0.0.1:8080", rateLimit: "600/min", rateBurst: 120, loginRateLimit: "10/min", loginBurst: 10,
	authorizeRateLimit: "30/min", maxBody: server.DefaultMaxBodyBytes, maxUploadBytes: server.DefaultMaxUploadBytes, maxImportBytes: server.DefaultMaxImportBytes, accessLog: true,
	aiTimeout: ai.DefaultModelTimeout, aiRateLimit: "60/h", telegram: telegramFlags{apiURL: telegram.DefaultAPIURL, rateLimit: "120/min"},
	reminderInterval: defaultReminderInterval, fxSource: "off", fxInterval: defaultFXInterval,
	backupInterval: defaultBackupInterval, backupKeep: defaultBackupKeep,
}

func TestServeFlagsFromTheEnvironment(t *testing.T) {
	with := func(change func(*serveFlags)) serveFlags {
		f := serveDefaults
		change(&f)
		return f
	}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		want serveFlags
	}{
		{"defaults", nil, nil, serveDefaults},
		// FINANCE_ACCESS_LOG=1 turned the log off: only "true" counted.
		{"1 is on", map[string]string{"FINANCE_ACCESS_LOG": "1", "FINANCE_TRUST_PROXY": "1"}, nil,
			with(func(f *serveFlags) { f.accessLog, f.trustProxy = true, true })},
		{"0 is off", map[string]string{"FINANCE_ACCESS_LOG": "0"}, nil, with(func(f *serveFlags) { f.accessLog = false })},
		{"yes and OFF in any case", map[string]string{"FINANCE_ACCESS_LOG": "OFF", "FINANCE_TRUST_PROXY": "Yes"}, nil,
			with(func(f *serveFlags) { f.accessLog, f.trustProxy = false, true })},
		{"on and no", map[string]string{"FINANCE_ACCESS_LOG": "no", "FINANCE_TRUST_PROXY": "on"}, nil,
			with(func(f *serveFlags) { f.accessLog, f.trustProxy = false, true })},
		{"TRUE and False", map[string]string{"FINANCE_ACCESS_LOG": "False", "FINANCE_TRUST_PROXY": "TRUE"}, nil,
			with(func(f *serveFlags) { f.accessLog, f.trustProxy = false, true })},
		{"every variable", map[string]string{
			"FINANCE_ADDR": "0.0.0.0:9000", "FINANCE_BASE_URL": "https://finance.home.lan",
			"FINANCE_RATE_LIMIT": "5/s", "FINANCE_RATE_BURST": "7", "FINANCE_LOGIN_RATE_LIMIT": "off",
			"FINANCE_LOGIN_RATE_BURST": "0", "FINANCE_MAX_BODY": "2048", "FINANCE_AUTHORIZE_RATE_LIMIT": "5/min",
		}, nil, with(func(f *serveFlags) {
			f.addr, f.baseURL, f.rateLimit, f.rateBurst, f.loginRateLimit, f.loginBurst, f.maxBody =
				"0.0.0.0:9000", "https://finance.home.lan", "5/s", 7, "off", 0, 2048
			f.authorizeRateLimit = "5/min"
		})},
		{"the AI variables", map[string]string{
			"FINANCE_AI_BASE_URL": "http://127.0.0.1:11434/v1", "FINANCE_AI_MODEL": "llama3.2", "FINANCE_AI_VISION_MODEL": "llava",
			"FINANCE_AI_API_KEY": "sk-local", "FINANCE_AI_TIMEOUT": "90s", "FINANCE_OCR_COMMAND": "/usr/bin/tesseract",
			"FINANCE_AI_RATE_LIMIT": "30/h",
		}, nil, with(func(f *serveFlags) {
			f.aiBaseURL, f.aiModel, f.aiVisionModel, f.aiAPIKey = "http://127.0.0.1:11434/v1", "llama3.2", "llava", "sk-local"
			f.aiTimeout, f.ocrCommand, f.aiRateLimit = 90*time.Second, "/usr/bin/tesseract", "30/h"
		})},
		{"the Telegram variables", map[string]string{
			"FINANCE_TELEGRAM_BOT_TOKEN": "123:abc", "FINANCE_TELEGRAM_WEBHOOK_SECRET": "s3cret",
			"FINANCE_TELEGRAM_API_URL": "http://127.0.0.1:8081", "FINANCE_TELEGRAM_RATE_LIMIT": "30/min",
		}, nil, with(func(f *serveFlags) {
			f.telegram = telegramFlags{token: "123:abc", secret: "s3cret", apiURL: "http://127.0.0.1:8081", rateLimit: "30/min"}
		})},
		{"reminders", map[string]string{"FINANCE_REMINDER_INTERVAL": "30s"}, nil,
			with(func(f *serveFlags) { f.reminderInterval = 30 * time.Second })},
		{"exchange rates", map[string]string{"FINANCE_FX_SOURCE": "frankfurter", "FINANCE_FX_URL": "http://rates.lan:8080",
			"FINANCE_FX_INTERVAL": "1h"}, nil,
			with(func(f *serveFlags) {
				f.fxSource, f.fxURL, f.fxInterval = "frankfurter", "http://rates.lan:8080", time.Hour
			})},
		{"scheduled backups", map[string]string{"FINANCE_BACKUP_INTERVAL": "6h30m", "FINANCE_BACKUP_KEEP": "30"}, nil,
			with(func(f *serveFlags) { f.backupInterval, f.backupKeep = 6*time.Hour+30*time.Minute, 30 })},
		{"scheduled backups off", map[string]string{"FINANCE_BACKUP_INTERVAL": "OFF"}, nil,
			with(func(f *serveFlags) { f.backupInterval = 0 })},
		{"metrics", map[string]string{"FINANCE_METRICS": "on", "FINANCE_METRICS_ADDR": "127.0.0.1:9464"}, nil,
			with(func(f *serveFlags) { f.metrics, f.metricsAddr = true, "127.0.0.1:9464" })},
		{"metrics alone", nil, []string{"--metrics"}, with(func(f *serveFlags) { f.metrics = true })},
		{"an empty variable is unset", map[string]string{"FINANCE_RATE_BURST": "", "FINANCE_ACCESS_LOG": ""}, nil, serveDefaults},
		{"the command line wins", map[string]string{"FINANCE_ACCESS_LOG": "1", "FINANCE_RATE_BURST": "abc"},
			[]string{"--access-log=off", "--rate-burst", "3"}, with(func(f *serveFlags) { f.accessLog, f.rateBurst = false, 3 })},
		{"a bool flag alone is on", map[string]string{"FINANCE_TRUST_PROXY": "0"}, []string{"--trust-proxy"},
			with(func(f *serveFlags) { f.trustProxy = true })},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseServeFlags(t, tt.env, tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(serveFlags{}, telegramFlags{})); diff != "" {
				t.Errorf("flags (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInvalidEnvironmentValues(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want []string // one line per invalid variable
	}{
		{map[string]string{"FINANCE_RATE_BURST": "abc"},
			[]string{`environment variable FINANCE_RATE_BURST="abc" (it sets --rate-burst): want a whole number, 0 or more`}},
		{map[string]string{"FINANCE_LOGIN_RATE_BURST": "-1"},
			[]string{`environment variable FINANCE_LOGIN_RATE_BURST="-1" (it sets --login-rate-burst): want a whole number, 0 or more`}},
		{map[string]string{"FINANCE_ACCESS_LOG": "enabled"},
			[]string{`environment variable FINANCE_ACCESS_LOG="enabled" (it sets --access-log): want true or false (also 1/0, yes/no, on/off)`}},
		{map[string]string{"FINANCE_MAX_BODY": "1MB"},
			[]string{`environment variable FINANCE_MAX_BODY="1MB" (it sets --max-body): want a whole number`}},
		{map[string]string{"FINANCE_MAX_BODY": "99999999999999999999"},
			[]string{`environment variable FINANCE_MAX_BODY="99999999999999999999" (it sets --max-body): the number is too large`}},
		{map[string]string{"FINANCE_AUTHORIZE_RATE_LIMIT": "10/week"},
			[]string{`environment variable FINANCE_AUTHORIZE_RATE_LIMIT="10/week" (it sets --authorize-rate-limit): rate "10/week": unit must be s, min or h`}},
		{map[string]string{"FINANCE_AI_RATE_LIMIT": "lots"},
			[]string{`environment variable FINANCE_AI_RATE_LIMIT="lots" (it sets --ai-rate-limit): rate "lots": want N/s, N/min, N/h or off`}},
		{map[string]string{"FINANCE_BACKUP_INTERVAL": "500ms"},
			[]string{`environment variable FINANCE_BACKUP_INTERVAL="500ms" (it sets --backup-interval): want off, or a duration of at least 1s, such as 24h or 6h30m`}},
		{map[string]string{"FINANCE_BACKUP_INTERVAL": "daily"},
			[]string{`environment variable FINANCE_BACKUP_INTERVAL="daily" (it sets --backup-interval): want off, or a duration of at least 1s, such as 24h or 6h30m`}},
		{map[string]string{"FINANCE_METRICS": "prometheus"},
			[]string{`environment variable FINANCE_METRICS="prometheus" (it sets --metrics): want true or false (also 1/0, yes/no, on/off)`}},
		{map[string]string{"FINANCE_BACKUP_KEEP": "0"},
			[]string{`environment variable FINANCE_BACKUP_KEEP="0" (it sets --backup-keep): want a whole number, 1 or more`}},
		{map[string]string{"FINANCE_RATE_LIMIT": "100/day", "FINANCE_TRUST_PROXY": "si"}, []string{
			`environment variable FINANCE_RATE_LIMIT="100/day" (it sets --rate-limit): rate "100/day": unit must be s, min or h`,
			`environment variable FINANCE_TRUST_PROXY="si" (it sets --trust-proxy): want true or false (also 1/0, yes/no, on/off)`,
		}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.want, ","), func(t *testing.T) {
			_, err := parseServeFlags(t, tt.env)
			if err == nil {
				t.Fatal("no error")
			}
			if diff := cmp.Diff(tt.want, strings.Split(err.Error(), "\n")); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestAIConfiguration: serve refuses AI settings that cannot work, before it starts.
func TestAIConfiguration(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	tests := []struct {
		name    string
		change  func(*serveFlags)
		wantErr string
	}{
		{"none: the built-in parser", func(*serveFlags) {}, ""},
		{"a service and a model", func(f *serveFlags) { f.aiBaseURL, f.aiModel = "http://127.0.0.1:11434/v1", "llama3.2" }, ""},
		{"a model without a service", func(f *serveFlags) { f.aiModel = "llama3.2" }, "need --ai-base-url"},
		{"a service without a model", func(f *serveFlags) { f.aiBaseURL = "http://127.0.0.1:11434/v1" }, "neither --ai-model nor --ai-vision-model"},
		{"not an http URL", func(f *serveFlags) { f.aiBaseURL, f.aiModel = "127.0.0.1:11434", "m" }, "want an http or https URL"},
		{"no timeout", func(f *serveFlags) { f.aiTimeout = 0 }, "--ai-timeout must be above 0"},
		// A parse waits for a job slot (5 s) and the model, then answers with
		// the built-in parser, within the 60 s write timeout with 10 s to spare.
		{"the longest timeout", func(f *serveFlags) { f.aiTimeout = 45 * time.Second }, ""},
		{"a timeout as long as the write timeout", func(f *serveFlags) { f.aiTimeout = time.Minute },
			"--ai-timeout 1m0s is too long: at most 45s, so that when the AI service does not answer, " +
				"the built-in parser's drafts still reach the client before the server's 1m0s write timeout"},
		{"a missing OCR command", func(f *serveFlags) { f.ocrCommand = "/nonexistent/ocr" }, "--ocr-command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := serveDefaults
			tt.change(&f)
			e, err := f.aiEngine(log, nil)
			switch {
			case tt.wantErr == "" && (err != nil || e == nil):
				t.Errorf("aiEngine: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("aiEngine error %v; want one saying %q", err, tt.wantErr)
			}
		})
	}
}

// TestServeRefusesInvalidEnvironment runs serve itself: it must stop before
// touching the data directory. The context is cancelled, so a serve that
// wrongly started would stop at once instead of running on.
func TestServeRefusesInvalidEnvironment(t *testing.T) {
	t.Setenv("FINANCE_RATE_BURST", "abc")
	dataDir := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr bytes.Buffer
	code := run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir}, strings.NewReader(""), &stdout, &stderr)
	want := "error: environment variable FINANCE_RATE_BURST=\"abc\" (it sets --rate-burst): want a whole number, 0 or more\n"
	if code != 1 || stderr.String() != want || stdout.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, stdout.String(), stderr.String(), want)
	}
	if _, err := os.Stat(dataDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the data directory was created (%v)", err)
	}
}

// FINANCE_BACKUP_DIR, like --backup-dir, applies to every command: the
// backup taken before a schema upgrade goes there whichever command opens
// the database first.
func TestBackupDirFromTheEnvironment(t *testing.T) {
	backupDir := filepath.Join(t.TempDir(), "from-env")
	t.Setenv("FINANCE_BACKUP_DIR", backupDir)
	c := cli{stdout: io.Discard}
	root := newRootCmd(&c)
	root.SetArgs([]string{"version"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if c.backupsDir() != backupDir {
		t.Errorf("backup directory %q, want %q", c.backupsDir(), backupDir)
	}
	c = cli{dataDir: "/srv/finance"}
	if got := c.backupsDir(); got != filepath.Join("/srv/finance", "backups") {
		t.Errorf("default backup directory %q, want DATA_DIR/backups", got)
	}
}

// FINANCE_DATA_DIR names the data directory, whose finance.db is the
// database; on Postgres FINANCE_DATABASE_URL names the database, and the
// data directory (made, the owner's only) holds no database file.
func TestDataDirFromTheEnvironment(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "from-env")
	t.Setenv("FINANCE_DATA_DIR", dataDir)
	if onPostgres() {
		t.Setenv("FINANCE_DATABASE_URL", databaseURL(t, dataDir))
	}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"migrate"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("migrate: exit %d, %s", code, stderr.String())
	}
	if onPostgres() {
		if want := "database is up to date: the Postgres database of --database-url\n"; stderr.String() != want {
			t.Errorf("stderr = %q, want %q", stderr.String(), want)
		}
		checkOwnerOnly(t, dataDir)
		checkNoFile(t, filepath.Join(dataDir, "finance.db"))
		return
	}
	if !strings.Contains(stderr.String(), filepath.Join(dataDir, "finance.db")) {
		t.Errorf("stderr = %q, want the database in %s", stderr.String(), dataDir)
	}
	if _, err := os.Stat(filepath.Join(dataDir, "finance.db")); err != nil {
		t.Error(err)
	}
}

// envFlags returns, for every flag of serve (its own and --data-dir), the
// environment variable its help names, failing for a flag that names none.
func envFlags(t *testing.T) map[string]string {
	t.Helper()
	r := mustRun(t, t.TempDir(), "", "serve", "--help")
	cmd, _, err := newRootCmd(&cli{}).Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	cmd.InitDefaultHelpFlag()
	flags := map[string]string{}
	visit := func(f *pflag.Flag) {
		if f.Name == "help" {
			return
		}
		line := regexp.MustCompile(`(?m)^.*--` + regexp.QuoteMeta(f.Name) + ` .*$`).FindString(r.stdout)
		m := regexp.MustCompile(`\(env (FINANCE_[A-Z_]+)\)`).FindStringSubmatch(line)
		if m == nil {
			t.Errorf("serve --help does not name the environment variable of --%s: %q", f.Name, line)
			return
		}
		flags[f.Name] = m[1]
	}
	cmd.LocalFlags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return flags
}

func TestServeHelpNamesEveryEnvironmentVariable(t *testing.T) {
	flags := envFlags(t)
	if len(flags) < 10 {
		t.Errorf("found %d flags in serve --help, want at least 10: %v", len(flags), flags)
	}
	for name, env := range flags {
		if want := envName(name); env != want {
			t.Errorf("--%s: help names %s, want %s", name, env, want)
		}
	}
}

// TestConfigurationPageTable keeps the table of docs/configuration.md in
// step with the flags: one row per flag of serve, with its variable.
func TestConfigurationPageTable(t *testing.T) {
	page := readRepoFile(t, "docs/configuration.md")
	rows := map[string]string{}
	for _, m := range regexp.MustCompile("(?m)^\\| `--([a-z-]+)` \\| `(FINANCE_[A-Z_]+)` \\|").FindAllStringSubmatch(page, -1) {
		rows[m[1]] = m[2]
	}
	if diff := cmp.Diff(envFlags(t), rows); diff != "" {
		t.Errorf("docs/configuration.md rows (-flags +page):\n%s", diff)
	}
}

// TestUploadBoundConfiguration: serve refuses a bound on uploads in flight
// that the largest upload could never fit in.
func TestUploadBoundConfiguration(t *testing.T) {
	least := server.MinUploadBytes(server.DefaultMaxBodyBytes)
	for _, tt := range []struct {
		bound, maxBody int64
		wantErr        string
	}{
		{server.DefaultMaxUploadBytes, server.DefaultMaxBodyBytes, ""},
		{least, server.DefaultMaxBodyBytes, ""},
		{least, 0, ""}, // --max-body 0: the default
		{least - 1, server.DefaultMaxBodyBytes, fmt.Sprintf("--max-upload-bytes %d is too small: at least %d,", least-1, least)},
		{least, server.DefaultMaxBodyBytes + 1, fmt.Sprintf("--max-upload-bytes %d is too small: at least %d,", least, least+1)},
	} {
		f := serveDefaults
		f.maxUploadBytes, f.maxBody = tt.bound, tt.maxBody
		err := f.checkUploads()
		if (tt.wantErr == "") != (err == nil) || err != nil && !strings.HasPrefix(err.Error(), tt.wantErr) {
			t.Errorf("--max-upload-bytes %d --max-body %d: %v; want %q", tt.bound, tt.maxBody, err, tt.wantErr)
		}
	}
}

// TestPackagedEnvironmentFile keeps the packages' /etc/finance/finance.env
// in step with the flags: every variable it names, set or commented out, is
// one of serve's, and every value it sets is one serve takes. The data
// directory is left to the unit, whose sandbox allows writes there alone.
func TestPackagedEnvironmentFile(t *testing.T) {
	known := map[string]string{} // variable: flag
	for flag, env := range envFlags(t) {
		known[env] = flag
	}
	cmd, _, err := newRootCmd(&cli{}).Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	set := 0
	for _, m := range regexp.MustCompile(`(?m)^(#?)(FINANCE_[A-Z_]+)=(.*)$`).FindAllStringSubmatch(readRepoFile(t, "packaging/finance.env"), -1) {
		commented, env, value := m[1] == "#", m[2], m[3]
		flag, ok := known[env]
		switch {
		case !ok:
			t.Errorf("finance.env names %s, which sets no flag of serve", env)
		case env == "FINANCE_DATA_DIR":
			t.Errorf("finance.env names FINANCE_DATA_DIR; the unit gives --data-dir, the one directory its sandbox lets the service write")
		case !commented:
			set++
			if err := cmd.Flags().Lookup(flag).Value.Set(value); err != nil {
				t.Errorf("finance.env sets %s=%q, which --%s refuses: %v", env, value, flag, err)
			}
		}
	}
	if set == 0 {
		t.Error("finance.env sets no variable; it should at least set FINANCE_ADDR")
	}
}
