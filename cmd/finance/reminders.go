package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/metrics"
)

// defaultReminderInterval is how often serve looks for reminders due: often
// enough that a reminder leaves within minutes of its time (the end of the
// quiet hours, the digest's hour), rarely enough to cost nothing.
const defaultReminderInterval = 5 * time.Minute

// homeOnly is the reminders' sender of a server without a Telegram bot:
// every reminder is recorded and shown on Home only.
type homeOnly struct{}

func (homeOnly) SendReminder(context.Context, string, string) (bool, error) { return false, nil }

// countedReminders counts each reminder's delivery in the metrics: sent to
// a Telegram chat or failed there, or recorded for Home alone when the user
// has no linked chat (or no bot runs).
type countedReminders struct {
	finance.ReminderSender
	meter *metrics.Metrics
}

func (c countedReminders) SendReminder(ctx context.Context, userID, message string) (bool, error) {
	sent, err := c.ReminderSender.SendReminder(ctx, userID, message)
	switch {
	case err != nil:
		c.meter.Reminder("telegram", "failed")
	case sent:
		c.meter.Reminder("telegram", "sent")
	default:
		c.meter.Reminder("home", "sent")
	}
	return sent, err
}

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
