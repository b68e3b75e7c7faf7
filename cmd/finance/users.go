package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

func newUsersCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{Use: "users", Short: "Create and manage users"}
	cmd.AddCommand(newUsersCreateCmd(c), newUsersListCmd(c), newUsersSetPlanCmd(c), newUsersSetPasswordCmd(c))
	return cmd
}

func newUsersCreateCmd(c *cli) *cobra.Command {
	var (
		email, name, plan string
		passwordStdin     bool
		asJSON            bool
	)
	cmd := &cobra.Command{
		Use:   "create --email EMAIL [--name NAME] [--plan pro|free] [--password-stdin]",
		Short: "Create a user; without --password-stdin a password is generated and printed once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := finance.ParsePlan(plan)
			if err != nil {
				return err
			}
			password, generated := "", false
			if passwordStdin {
				if password, err = c.readSecretLine(); err != nil {
					return err
				}
			} else {
				password, generated = auth.GeneratePassword(), true
			}
			return c.withAuth(cmd.Context(), func(svc *auth.Service) error {
				u, err := svc.CreateUser(cmd.Context(), auth.CreateUserRequest{Email: email, Name: name, Plan: p, Password: password})
				if err != nil {
					return err
				}
				if asJSON {
					out := struct {
						finance.User
						Password string `json:"password,omitempty"`
					}{User: u}
					if generated {
						out.Password = password
					}
					return printJSON(c, out)
				}
				fmt.Fprintf(c.stdout, "created user %s (id %s, plan %s)\n", u.Email, u.ID, u.Plan)
				if generated {
					fmt.Fprintf(c.stdout, "password: %s\n", password)
					fmt.Fprintln(c.stderr, "The password is shown only now. Change it with: finance users set-password "+u.Email+" --password-stdin")
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&email, "email", "", "email address (required; unique, case-insensitive)")
	cmd.Flags().StringVar(&name, "name", "", "display name")
	cmd.Flags().StringVar(&plan, "plan", string(finance.PlanPro), "plan: pro or free (API keys need pro)")
	cmd.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the password from standard input")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the user as JSON")
	_ = cmd.MarkFlagRequired("email")
	return cmd
}

func newUsersListCmd(c *cli) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List users",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.withAuth(cmd.Context(), func(svc *auth.Service) error {
				users, err := svc.ListUsers(cmd.Context())
				if err != nil {
					return err
				}
				if asJSON {
					if users == nil {
						users = []finance.User{}
					}
					return printJSON(c, users)
				}
				tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tEMAIL\tNAME\tPLAN\tCREATED")
				for _, u := range users {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", u.ID, u.Email, u.Name, u.Plan, u.CreatedAt.Format(time.RFC3339))
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newUsersSetPlanCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "set-plan EMAIL PLAN",
		Short: "Move a user to the pro or free plan",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := finance.ParsePlan(args[1])
			if err != nil {
				return err
			}
			return c.withAuth(cmd.Context(), func(svc *auth.Service) error {
				u, err := svc.SetPlan(cmd.Context(), args[0], p)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.stdout, "user %s is now on the %s plan\n", u.Email, u.Plan)
				return nil
			})
		},
	}
}

func newUsersSetPasswordCmd(c *cli) *cobra.Command {
	var passwordStdin bool
	cmd := &cobra.Command{
		Use:   "set-password EMAIL --password-stdin",
		Short: "Replace a user's password; without --password-stdin one is generated and printed once",
		Long: "set-password replaces a user's password and ends every sign-in made with the old one: browser\n" +
			"sessions and access tokens from POST /api/v1/auth/login. API keys and connected apps (OAuth) are\n" +
			"separate credentials and keep working; revoke them with finance keys revoke or on the web pages.\n" +
			"Without --password-stdin a password is generated and printed once.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			password, generated := "", false
			if passwordStdin {
				var err error
				if password, err = c.readSecretLine(); err != nil {
					return err
				}
			} else {
				password, generated = auth.GeneratePassword(), true
			}
			return c.withAuth(cmd.Context(), func(svc *auth.Service) error {
				if err := svc.SetPassword(cmd.Context(), args[0], password); err != nil {
					return err
				}
				fmt.Fprintf(c.stdout, "password updated for %s; sign-ins with the old password (browser sessions, access tokens) "+
					"have ended; API keys and connected apps keep working\n", args[0])
				if generated {
					fmt.Fprintf(c.stdout, "password: %s\n", password)
				}
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&passwordStdin, "password-stdin", false, "read the new password from standard input")
	return cmd
}

func printJSON(c *cli, v any) error {
	enc := json.NewEncoder(c.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
