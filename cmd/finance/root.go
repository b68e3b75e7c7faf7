package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/adrg/xdg"
	"github.com/spf13/cobra"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/store"
)

// version is set at build time (-ldflags "-X main.version=v1.2.3"); otherwise
// the module version from the build info is used.
var version = ""

func appVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// cli carries the process streams and the global flags to every command.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	dataDir        string
	// databaseURL names the database: empty for the data directory's
	// finance.db, sqlite:PATH, or postgres://… (store.OpenURL).
	databaseURL string
	// backupDir is where serve's scheduled backups and every command's
	// pre-migrate backups go; empty: DATA_DIR/backups.
	backupDir string
	logs      logFlags
	log       *slog.Logger // built from logs once the flags are read
}

func newRootCmd(c *cli) *cobra.Command {
	root := &cobra.Command{
		Use:           "finance",
		Short:         "Self-hosted personal finance tracker: REST API, MCP endpoint and embedded database in one binary",
		SilenceUsage:  true,
		SilenceErrors: true,
		// Flags left off the command line take their environment variable;
		// then the log is set up as they say.
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			err := applyEnv(cmd)
			c.log = newLogger(c.stderr, c.logs)
			slog.SetDefault(c.log) // for what logs without a logger of its own
			return err
		},
	}
	root.PersistentFlags().StringVar(&c.dataDir, "data-dir", defaultDataDir(), "directory holding the database and keys")
	root.PersistentFlags().StringVar(&c.databaseURL, "database-url", "", "the database: sqlite:PATH or postgres://… (default: finance.db in the data directory)")
	root.PersistentFlags().StringVar(&c.backupDir, "backup-dir", "", "directory of the scheduled backups and of the backups taken before a schema upgrade (default DATA_DIR/backups)")
	c.logs.register(root.PersistentFlags())
	bindEnv(root.PersistentFlags())
	root.AddCommand(newServeCmd(c), newUsersCmd(c), newKeysCmd(c), newTelegramCmd(c), newBackupCmd(c), newRestoreCmd(c), newExportCmd(c), newImportCmd(c), newMigrateCmd(c), newCopyDBCmd(c), newHealthcheckCmd(c), newVersionCmd(c))
	return root
}

// logger is the commands' logger (newLogger); text at info level when no
// command line set it up.
func (c *cli) logger() *slog.Logger {
	if c.log == nil {
		c.log = newLogger(c.stderr, logFlags{format: logText, level: slog.LevelInfo})
	}
	return c.log
}

func defaultDataDir() string { return filepath.Join(xdg.DataHome, "finance") }

// dbPath is the SQLite database file: the data directory's, unless
// --database-url names another.
func (c *cli) dbPath() string {
	if p, ok := strings.CutPrefix(c.databaseURL, "sqlite:"); ok {
		return p
	}
	return filepath.Join(c.dataDir, store.FileName)
}

// onPostgres reports whether --database-url names a Postgres database.
func (c *cli) onPostgres() bool {
	return strings.HasPrefix(c.databaseURL, "postgres://") || strings.HasPrefix(c.databaseURL, "postgresql://")
}

// errNotOnPostgres refuses the commands that copy SQLite's file.
var errNotOnPostgres = errors.New("backup and restore copy SQLite's database file; on Postgres use its own tools (pg_dump, pg_restore)")

// mediaDir is where earlier versions kept the profile pictures, which the
// database now holds (importDataDir), and where a restore puts the pictures
// of such a version's backup.
func (c *cli) mediaDir() string { return filepath.Join(c.dataDir, "media") }

func (c *cli) backupsDir() string {
	if c.backupDir != "" {
		return c.backupDir
	}
	return filepath.Join(c.dataDir, "backups")
}

// openStore opens and migrates the database in the data directory. A
// database a newer finance upgraded is refused; one with migrations to
// apply is backed up first (store.DB.Upgrade).
func (c *cli) openStore(ctx context.Context) (*store.DB, error) {
	if c.dataDir == "" {
		return nil, errors.New("no data directory: pass --data-dir or set FINANCE_DATA_DIR")
	}
	var db *store.DB
	var err error
	if c.onPostgres() {
		// The data directory still holds the uploads being read and may hold
		// an earlier version's files; SQLite's Open makes it on the way to
		// its file.
		if err := os.MkdirAll(c.dataDir, 0o700); err != nil {
			return nil, fmt.Errorf("data directory: %w", err)
		}
	}
	if c.databaseURL != "" {
		db, err = store.OpenURL(c.databaseURL)
	} else {
		db, err = store.Open(c.dbPath())
	}
	if err != nil {
		return nil, err
	}
	backup, err := db.Upgrade(ctx, c.backupsDir())
	if err != nil {
		db.Close()
		return nil, err
	}
	if backup != "" {
		c.logger().Info("the database's schema was upgraded", "backup_taken_before", backup)
	}
	if err := c.importDataDir(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// importDataDir brings what earlier versions kept as files in the data
// directory into the database, where every replica finds it: the profile
// pictures of media/profile-pictures that the database lacks, and jwt.key as
// the signing key when the database has none yet. Both are no-ops once done;
// the files are left in place (docs/backup.md says why).
func (c *cli) importDataDir(ctx context.Context, db *store.DB) error {
	n, err := db.ImportPictures(ctx, filepath.Join(c.mediaDir(), "profile-pictures"))
	if err != nil {
		return fmt.Errorf("importing the profile pictures of %s: %w", c.mediaDir(), err)
	}
	if n > 0 {
		c.logger().Info("profile pictures moved into the database", "pictures", n, "from", c.mediaDir())
	}
	if _, err := db.SigningKey(ctx, filepath.Join(c.dataDir, jwtSecretFile)); err != nil {
		return err
	}
	return nil
}

// withAuth runs fn with a migrated store and an auth service (no JWT issuer:
// admin commands never sign tokens).
func (c *cli) withAuth(ctx context.Context, fn func(*auth.Service) error) error {
	db, err := c.openStore(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	svc := auth.NewService(db, nil)
	return fn(svc)
}

// jwtSecretFile is where earlier versions kept the key that signs
// first-party access tokens; the database holds it now (store.DB.SigningKey).
const jwtSecretFile = "jwt.key"

// readSecretLine reads one line (a password) from stdin, without its line ending.
func (c *cli) readSecretLine() (string, error) {
	b, err := io.ReadAll(io.LimitReader(c.stdin, 4096))
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == "" {
		return "", errors.New("no password on standard input")
	}
	return line, nil
}

func newVersionCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(c.stdout, "finance", appVersion())
			return nil
		},
	}
}

func newMigrateCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "migrate",
		Short: "Create or upgrade the database schema and exit (serve does this on start)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := c.openStore(cmd.Context())
			if err != nil {
				return err
			}
			where := c.dbPath()
			if c.onPostgres() {
				where = "the Postgres database of --database-url"
			}
			fmt.Fprintln(c.stderr, "database is up to date:", where)
			return db.Close()
		},
	}
}

func newBackupCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of the database to FILE, safe while the server runs",
		Long: `backup writes a consistent snapshot of the database to FILE (VACUUM INTO), even while the
server runs, and verifies it with PRAGMA integrity_check. The database holds everything,
profile pictures and the key that signs sign-ins included. FILE is one SQLite database file. FILE must not exist: backup never
overwrites. The copy is readable by its owner only (mode 0600). If the backup fails (a full
disk, say), FILE is removed, so the same command can be retried.

Back up with this command, not by copying finance.db: while the server runs, recent writes
live in finance.db-wal beside it, so a copy of finance.db lacks them, and a copy taken during
a write can be corrupt. A file copy is safe only after a clean stop (Ctrl-C or SIGTERM),
which leaves no finance.db-wal behind.

To restore a backup, stop the server and run finance restore FILE (see finance restore --help).
The backup holds the key that signs sign-ins, so they survive a restore.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if c.onPostgres() {
				return errNotOnPostgres
			}
			if err := store.Backup(cmd.Context(), c.dbPath(), args[0]); err != nil {
				return err
			}
			info, err := os.Stat(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "backup written to %s (%d bytes, integrity ok)\n", args[0], info.Size())
			return nil
		},
	}
}

func newRestoreCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "restore FILE",
		Short: "Put a backup in place of the database (the server stopped)",
		Long: `restore puts FILE, a backup written by finance backup or by serve's scheduled backups, in
place of the database of the data directory. A backup of an earlier version that carries the
media folder's files (profile pictures) puts them in place of the media folder, and the next
start moves the pictures into the database.

It first checks FILE: a SQLite database that passes PRAGMA integrity_check and whose schema is
not newer than this finance's (an older one is upgraded at the next start). It refuses while a
server or another finance command has the database open: stop the server first. Nothing is
deleted: the database in place is kept as finance.db.before-restore-TIMESTAMP (with its
finance.db-wal, if any) and, when the backup carries files, the media folder as
media.before-restore-TIMESTAMP, beside them. jwt.key stays as it is: a backup of an earlier
version holds no signing key, and the next start takes the key from jwt.key again.

Exit codes: 0 restored; 1 another error; 3 FILE is not a sound backup; 4 FILE's schema is
newer than this finance; 5 the database is in use.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if c.dataDir == "" {
				return errors.New("no data directory: pass --data-dir or set FINANCE_DATA_DIR")
			}
			if c.onPostgres() {
				return errNotOnPostgres
			}
			r, err := store.Restore(cmd.Context(), args[0], c.dbPath(), c.mediaDir(), time.Now())
			if err != nil {
				return fmt.Errorf("restore: %w", err)
			}
			fmt.Fprintf(c.stdout, "restored %s into %s (schema %s, %d media files)\n", args[0], c.dbPath(), r.Schema.Version, r.Media)
			if r.Kept != "" {
				fmt.Fprintln(c.stdout, "the database that was there is kept as", r.Kept)
			}
			if r.KeptMedia != "" {
				fmt.Fprintln(c.stdout, "the media folder that was there is kept as", r.KeptMedia)
			}
			return nil
		},
	}
}
