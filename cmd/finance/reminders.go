package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/finance-app/finance/finance"
)

// defaultReminderInterval is how often serve looks for reminders due: often
// enough that a reminder leaves within minutes of its time (the end of the
// quiet hours, the digest's hour), rarely enough to cost nothing.
const defaultReminderInterval = 5 * time.Minute

// homeOnly is the reminders' sender of a server without a Telegram bot:
// every reminder is recorded and shown on Home only.
type homeOnly struct{}

func (homeOnly) SendReminder(context.Context, string, string) (bool, error) { return false, nil }

// runReminders runs the reminders' pass every interval until ctx ends. A
// pass that fails is logged and the next one tries again; what it claimed
// stays claimed (docs/domain.md, Reminders).
func runReminders(ctx context.Context, ledger *finance.Service, send finance.ReminderSender, interval time.Duration, log *slog.Logger) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		n, err := ledger.RunReminders(ctx, send)
		if err != nil && ctx.Err() == nil {
			log.Warn("reminders pass", "claimed", n, "error", err)
		} else if n > 0 {
			log.Info("reminders sent", "claimed", n)
		}
	}
}
