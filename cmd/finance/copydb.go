package main

import (
	"errors"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/finance-app/finance/store"
)

func newCopyDBCmd(c *cli) *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "copy-db --to URL [--from URL]",
		Short: "Copy the whole database (every user, record, key and session) into a new one, such as from SQLite to Postgres",
		Long: `copy-db copies every user, record, API key, sign-in, connected app, activity entry and
conversation of one database into another that no one uses yet: to move a server from SQLite
to Postgres (or back). --from is the database this server uses (--database-url, or finance.db
in the data directory) unless given; --to is a database URL (sqlite:PATH or postgres://…),
whose schema copy-db creates.

The source is read in one consistent snapshot, so the server may keep running, but what it
writes after the copy began is not in the copy: stop it first, or stop it, copy again into a
new database, and start it on the new one. The target is written in one transaction: the
copy then checks that every table holds as many rows as the source's and that the totals
the target computed (spending per day and month, card and account totals, expense counts)
equal the source's, and writes nothing if any differs. The key that signs sign-ins and the
profile pictures are in the database and are copied too: sign-ins made on the source stay
valid on the target (its own key, if a server started on it first, is replaced).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if from == "" {
				from = c.databaseURL
			}
			if from == "" {
				if c.dataDir == "" {
					return errors.New("no data directory: pass --from, --data-dir or set FINANCE_DATA_DIR")
				}
				from = "sqlite:" + c.dbPath()
			}
			if from == to {
				return errors.New("--from and --to name the same database")
			}
			src, err := store.OpenURL(from)
			if err != nil {
				return fmt.Errorf("--from: %w", err)
			}
			defer src.Close()
			dst, err := store.OpenURL(to)
			if err != nil {
				return fmt.Errorf("--to: %w", err)
			}
			defer dst.Close()
			if err := dst.Migrate(ctx); err != nil {
				return fmt.Errorf("--to: create the schema: %w", err)
			}
			counts, err := src.CopyInto(ctx, dst)
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
			total := 0
			for _, n := range counts {
				fmt.Fprintf(tw, "%s\t%d\t\n", n.Table, n.Rows)
				total += n.Rows
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			fmt.Fprintf(c.stderr, "copied %d rows of %d tables; every table's count and the totals match the source\n", total, len(counts))
			return nil
		},
	}
	cmd.Flags().StringVar(&to, "to", "", "the database to copy into: sqlite:PATH or postgres://… (required; it must hold no user)")
	cmd.Flags().StringVar(&from, "from", "", "the database to copy from (default: the server's, --database-url or the data directory's)")
	_ = cmd.MarkFlagRequired("to")
	return cmd
}
