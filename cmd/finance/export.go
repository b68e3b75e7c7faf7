package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/store"
)

func newExportCmd(c *cli) *cobra.Command {
	var user, format string
	cmd := &cobra.Command{
		Use:   "export --user EMAIL [--format json|csv] FILE",
		Short: "Write everything of one user to FILE as one JSON document (- for stdout), safe while the server runs",
		Long: `export writes every record of one user (settings, categories, accounts, cards, statements,
plans, expenses, income, bills, loans, budgets) to FILE as one JSON document: to keep a copy
in an open format, or to move the ledger to another server with finance import. It reads one
consistent snapshot, even while the server runs. FILE must not exist (export never
overwrites) and is readable by its owner only; - writes to standard output.

API keys, sign-ins, connected apps, the activity log and assistant conversations stay on
this server. To copy the whole server, every user and credential, use finance backup.

--format csv writes the same records as a zip of CSV files instead, one per kind of record
with a header row, and a manifest.json naming the schema version and each file's row
count: for spreadsheets and other programs. finance import reads only the JSON document.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			export := (*store.DB).Export
			switch format {
			case "json":
			case "csv":
				export = (*store.DB).ExportCSV
			default:
				return fmt.Errorf("--format %q: must be json or csv", format)
			}
			db, userID, err := c.openUser(cmd, user)
			if err != nil {
				return err
			}
			defer db.Close()
			if args[0] == "-" {
				return export(db, cmd.Context(), userID, time.Now(), c.stdout)
			}
			return writeNew(args[0], func(w io.Writer) error { return export(db, cmd.Context(), userID, time.Now(), w) })
		},
	}
	cmd.Flags().StringVar(&user, "user", "", "email of the user to export (required)")
	cmd.Flags().StringVar(&format, "format", "json", "json for the document finance import restores, csv for a zip of CSV files")
	_ = cmd.MarkFlagRequired("user")
	return cmd
}

func newImportCmd(c *cli) *cobra.Command {
	var user string
	cmd := &cobra.Command{
		Use:   "import --user EMAIL FILE",
		Short: "Restore an export document (- for stdin) into a user who has no records yet",
		Long: `import restores a document written by finance export into a user who has no records yet:
create the user first (finance users create), then import. Every record keeps its id, so
import into a server that does not hold the ledger already. The import is one transaction:
all of it or, on any problem, nothing, with the problem named. It refuses a user who has
records, a file that is not a finance export, and an export from a newer finance (upgrade
first).

Import is safe while the server runs: it writes through the same lock as the server. The
server's writes wait while it runs, up to 10 seconds; for a very large ledger (hundreds of
thousands of records) stop the server first, so that no write times out.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in := c.stdin
			if args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return err
				}
				defer f.Close()
				in = f
			}
			db, userID, err := c.openUser(cmd, user)
			if err != nil {
				return err
			}
			defer db.Close()
			counts, err := db.Restore(cmd.Context(), userID, in)
			if err != nil {
				return fmt.Errorf("nothing imported: %w", err)
			}
			var parts []string
			total := 0
			for _, n := range counts {
				if n.N > 0 {
					parts = append(parts, fmt.Sprintf("%d %s", n.N, strings.ReplaceAll(n.Kind, "_", " ")))
				}
				total += n.N
			}
			fmt.Fprintf(c.stdout, "imported %d records into %s: %s\n", total, user, strings.Join(parts, ", "))
			return nil
		},
	}
	cmd.Flags().StringVar(&user, "user", "", "email of the user to restore into (required)")
	_ = cmd.MarkFlagRequired("user")
	return cmd
}

// openUser opens the store and finds the user by email.
func (c *cli) openUser(cmd *cobra.Command, email string) (*store.DB, string, error) {
	db, err := c.openStore(cmd.Context())
	if err != nil {
		return nil, "", err
	}
	u, err := auth.NewService(db, nil).UserByEmail(cmd.Context(), email)
	if err != nil {
		db.Close()
		return nil, "", err
	}
	return db, u.ID, nil
}

// writeNew creates path (never overwriting, owner-only), lets write fill
// it, and removes it when write fails, so a retry to the same path works.
func writeNew(path string, write func(io.Writer) error) (err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s already exists; refusing to overwrite it", path)
	} else if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = os.Remove(path)
		}
	}()
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
