package telegram

import (
	"context"
	"errors"
)

// SendReminder sends a reminder's message to every chat linked to the user
// (finance.ReminderSender). It reports sent when at least one chat took it,
// and no error and not sent when the user has no linked chat. It never
// retries: the caller has claimed the reminder once, and a reminder sent
// twice is worse than one shown on Home only (docs/domain.md, Reminders).
func (b *Bot) SendReminder(ctx context.Context, userID, message string) (bool, error) {
	chats, err := b.store.TelegramChats(ctx, userID)
	if err != nil {
		return false, err
	}
	var errs []error
	sent := false
	for _, c := range chats {
		if err := b.say(ctx, c.ChatID, Escape("⏰ "+message)); err != nil {
			errs = append(errs, err)
			continue
		}
		sent = true
	}
	if sent {
		if len(errs) > 0 {
			b.log.Warn("reminder not sent to every linked chat", "user", userID, "error", errors.Join(errs...))
		}
		return true, nil
	}
	return false, errors.Join(errs...)
}
