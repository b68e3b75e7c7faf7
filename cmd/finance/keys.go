package main

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/finance-app/finance/auth"
)

func newKeysCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{Use: "keys", Short: "Create, list and revoke API keys"}
	cmd.AddCommand(newKeysCreateCmd(c), newKeysListCmd(c), newKeysRevokeCmd(c))
	return cmd
}

func newKeysCreateCmd(c *cli) *cobra.Command {
	var (
		user, name, scopes, expiresIn string
		asJSON                        bool
	)
	cmd := &cobra.Command{
		Use:   "create --user EMAIL --name NAME --scopes S1,S2 [--expires-in 90d]",
		Short: "Create an API key; only the key is printed on standard output",
		Long: "create prints the new key (svk_...) alone on standard output, so scripts can capture it;\n" +
			"details go to standard error. The key is shown only once.\n\n" +
			"Scopes: all, " + auth.JoinScopes(auth.Scopes) + ".",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ttl, err := parseExpiresIn(expiresIn)
			if err != nil {
				return err
			}
			return c.withAuth(cmd.Context(), func(svc *auth.Service) error {
				u, err := svc.UserByEmail(cmd.Context(), user)
				if err != nil {
					return err
				}
				k, key, err := svc.CreateKey(cmd.Context(), auth.CreateKeyRequest{
					UserID: u.ID, Name: name, Scopes: strings.Split(scopes, ","), ExpiresIn: ttl,
				})
				if err != nil {
					return err
				}
				if asJSON {
					return printJSON(c, struct {
						Key       string       `json:"key"`
						ID        string       `json:"id"`
						Name      string       `json:"name"`
						Scopes    []auth.Scope `json:"scopes"`
						ExpiresAt *time.Time   `json:"expires_at"`
					}{key, k.ID, k.Name, k.Scopes, k.ExpiresAt})
				}
				fmt.Fprintln(c.stdout, key)
				fmt.Fprintf(c.stderr, "created key %q (id %s) for %s with scopes %s, expires %s\n",
					k.Name, k.ID, u.Email, auth.JoinScopes(k.Scopes), orNever(k.ExpiresAt))
				fmt.Fprintln(c.stderr, "The key is shown only now; store it safely.")
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&user, "user", "", "email of the key's owner (required)")
	cmd.Flags().StringVar(&name, "name", "", "a label for the key, e.g. the agent using it (required)")
	cmd.Flags().StringVar(&scopes, "scopes", "", "comma-separated scopes, or all (required)")
	cmd.Flags().StringVar(&expiresIn, "expires-in", "", "lifetime such as 90d, 2w, 12h or 30m, at most 10 years (default: never)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print an object with key, id and scopes")
	for _, f := range []string{"user", "name", "scopes"} {
		_ = cmd.MarkFlagRequired(f)
	}
	return cmd
}

// parseExpiresIn reads a key lifetime: days (90d), weeks (2w) or a Go
// duration (12h, 30m), positive and at most auth.MaxKeyLifetime (10 years).
// Days and weeks are bounded before they are multiplied, so a huge count
// cannot overflow time.Duration into a short or negative lifetime.
func parseExpiresIn(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	malformed := fmt.Errorf("--expires-in %q: want a positive number of days (90d), weeks (2w), hours (12h) or minutes (30m), "+
		"at most 10 years (3650d, 521w or 87600h)", s)
	tooLong := fmt.Errorf("--expires-in %q: a key may live at most 10 years (3650d, 521w or 87600h); omit --expires-in for a key that never expires", s)

	unit := map[byte]time.Duration{'d': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[s[len(s)-1]]
	if unit == 0 {
		d, err := time.ParseDuration(s) // reports overflow as an error
		switch {
		case err != nil || d <= 0:
			return 0, malformed
		case d > auth.MaxKeyLifetime:
			return 0, tooLong
		}
		return d, nil
	}
	n, err := strconv.ParseInt(s[:len(s)-1], 10, 64)
	switch {
	case n > int64(auth.MaxKeyLifetime/unit): // also a count beyond int64: ParseInt then returns MaxInt64
		return 0, tooLong
	case err != nil || n <= 0:
		return 0, malformed
	}
	return time.Duration(n) * unit, nil
}

func orNever(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.Format(time.RFC3339)
}

func newKeysListCmd(c *cli) *cobra.Command {
	var (
		user   string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list --user EMAIL",
		Short: "List a user's API keys (secrets are never shown)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withAuth(cmd.Context(), func(svc *auth.Service) error {
				u, err := svc.UserByEmail(cmd.Context(), user)
				if err != nil {
					return err
				}
				keys, err := svc.ListKeys(cmd.Context(), u.ID)
				if err != nil {
					return err
				}
				now := time.Now()
				if asJSON {
					type row struct {
						auth.APIKey
						Prefix string `json:"prefix"`
						Status string `json:"status"`
					}
					rows := make([]row, len(keys))
					for i, k := range keys {
						rows[i] = row{k, auth.KeyPrefix + k.PublicID, k.Status(now)}
					}
					return printJSON(c, rows)
				}
				tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tNAME\tPREFIX\tSCOPES\tSTATUS\tCREATED\tEXPIRES\tLAST USED")
				for _, k := range keys {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, auth.KeyPrefix+k.PublicID,
						strings.ReplaceAll(auth.JoinScopes(k.Scopes), " ", ""), k.Status(now),
						k.CreatedAt.Format(time.RFC3339), orNever(k.ExpiresAt), orDash(k.LastUsedAt))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().StringVar(&user, "user", "", "email of the keys' owner (required)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	_ = cmd.MarkFlagRequired("user")
	return cmd
}

func orDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Format(time.RFC3339)
}

func newKeysRevokeCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "revoke KEY_ID",
		Short: "Revoke an API key by its id (from keys list); it stops working at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return c.withAuth(cmd.Context(), func(svc *auth.Service) error {
				k, err := svc.RevokeKey(cmd.Context(), "", args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(c.stdout, "revoked key %q (id %s)\n", k.Name, k.ID)
				return nil
			})
		},
	}
}
