package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/store"
	"github.com/finance-app/finance/telegram"
)

// telegramFlags configure the Telegram bot, for serve and for the telegram
// commands alike.
type telegramFlags struct {
	token, secret, apiURL, rateLimit string
}

func (f *telegramFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.token, "telegram-bot-token", "", "token of the Telegram bot, from BotFather (empty: no bot; the messaging webhook answers 404)")
	fl.StringVar(&f.secret, "telegram-webhook-secret", "", "secret Telegram sends with every webhook delivery: 32 to 256 characters of A-Z a-z 0-9 _ - (openssl rand -hex 32)")
	fl.StringVar(&f.apiURL, "telegram-api-url", telegram.DefaultAPIURL, "address of the Telegram Bot API (a local Bot API server or a proxy)")
}

// check refuses settings that cannot work: a token without a secret (or
// the reverse), either malformed, an API URL that is not http(s). A bot is
// optional for serve (needToken false) and required by the telegram commands.
func (f telegramFlags) check(needToken bool) error {
	if f.token == "" && f.secret == "" && !needToken {
		return nil
	}
	var errs []error
	if f.token == "" {
		errs = append(errs, errors.New("--telegram-bot-token is not set (the token BotFather gave, or FINANCE_TELEGRAM_BOT_TOKEN)"))
	} else if err := telegram.CheckToken(f.token); err != nil {
		errs = append(errs, fmt.Errorf("--telegram-bot-token: %w", err))
	}
	if f.secret == "" {
		errs = append(errs, errors.New("--telegram-webhook-secret is not set: the webhook needs a secret (make one with: openssl rand -hex 32)"))
	} else if err := telegram.CheckSecret(f.secret); err != nil {
		errs = append(errs, fmt.Errorf("--telegram-webhook-secret: %w", err))
	}
	if u, err := url.Parse(f.apiURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("--telegram-api-url %q: want an http or https URL, such as %s", f.apiURL, telegram.DefaultAPIURL))
	}
	return errors.Join(errs...)
}

// bot builds the bot of the flags, or nil when no token is set.
func (f telegramFlags) bot(db *store.DB, log *slog.Logger) (*telegram.Bot, error) {
	if f.token == "" {
		return nil, nil
	}
	return telegram.New(telegram.Config{Token: f.token, Secret: f.secret, APIURL: f.apiURL, Log: log}, db)
}

func newTelegramCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{Use: "telegram", Short: "Set up the Telegram bot: register its webhook, make link codes"}
	cmd.AddCommand(newTelegramSetWebhookCmd(c), newTelegramLinkCodeCmd(c))
	return cmd
}

func newTelegramSetWebhookCmd(c *cli) *cobra.Command {
	var (
		f       telegramFlags
		baseURL string
	)
	cmd := &cobra.Command{
		Use:   "set-webhook --base-url URL",
		Short: "Tell Telegram where to deliver the bot's updates, with the webhook secret",
		Long: "set-webhook registers BASE_URL" + server.MessagingWebhookPath + " as the bot's webhook (setWebhook),\n" +
			"with the webhook secret, for messages and button presses. Telegram delivers only to https URLs\n" +
			"on port 443, 80, 88 or 8443, reachable from the internet. Run it again after changing either.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := f.check(true); err != nil {
				return err
			}
			u, err := url.Parse(baseURL)
			if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
				return fmt.Errorf("--base-url %q: want the server's external address, such as https://finance.example.com", baseURL)
			}
			if u.Scheme != "https" && f.apiURL == telegram.DefaultAPIURL {
				return fmt.Errorf("--base-url %q: Telegram delivers webhooks only to https addresses", baseURL)
			}
			hook := strings.TrimRight(baseURL, "/") + server.MessagingWebhookPath
			client := telegram.NewClient(f.apiURL, f.token, 0, nil)
			if err := client.SetWebhook(cmd.Context(), telegram.SetWebhookRequest{URL: hook, SecretToken: f.secret,
				AllowedUpdates: []string{"message", "callback_query"}}); err != nil {
				return err
			}
			fmt.Fprintf(c.stdout, "webhook set: Telegram now delivers the bot's updates to %s\n", hook)
			return nil
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&baseURL, "base-url", "", "external https address of the server, as in serve --base-url (required)")
	bindEnv(cmd.Flags())
	_ = cmd.MarkFlagRequired("base-url")
	return cmd
}

func newTelegramLinkCodeCmd(c *cli) *cobra.Command {
	var user string
	cmd := &cobra.Command{
		Use:   "link-code --user EMAIL",
		Short: "Make a one-time code that links a Telegram chat to a user (/link CODE in the chat)",
		Long: "link-code prints a code valid for 10 minutes and once: send /link CODE to the bot from the\n" +
			"chat to link. Signed-in users can make one themselves on the Messaging settings page.\n" +
			"Telegram access is a Pro plan feature.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := c.openStore(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			u, err := auth.NewService(db, nil).UserByEmail(cmd.Context(), user)
			if err != nil {
				return err
			}
			if u.Plan != finance.PlanPro {
				return fmt.Errorf("%s is on the %s plan; Telegram access is a Pro plan feature (finance users set-plan %s pro)", u.Email, u.Plan, u.Email)
			}
			code, expires, err := telegram.IssueLinkCode(cmd.Context(), db, u.ID, time.Now())
			if err != nil {
				return err
			}
			fmt.Fprintln(c.stdout, "/link "+telegram.FormatLinkCode(code))
			fmt.Fprintf(c.stderr, "Send that line to the bot from the Telegram chat to link it to %s; it works once, until %s.\n",
				u.Email, expires.Format(time.RFC3339))
			return nil
		},
	}
	cmd.Flags().StringVar(&user, "user", "", "email of the user the chat will act for (required)")
	_ = cmd.MarkFlagRequired("user")
	return cmd
}
