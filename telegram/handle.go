package telegram

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/finance-app/finance/finance"
)

// handle acts on one update. Nothing is done for a chat that is not linked
// beyond telling it how to link; nothing is done in group chats at all
// (any member there could press a button).
func (b *Bot) handle(ctx context.Context, u Update) error {
	switch {
	case u.CallbackQuery != nil:
		return b.onButton(ctx, u.CallbackQuery)
	case u.Message != nil:
		return b.onMessage(ctx, u.Message)
	}
	return nil
}

// command splits "/link@finance_bot ABCD-EFGH" into "/link" and "ABCD-EFGH".
func command(text string) (cmd, arg string) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return "", ""
	}
	cmd, arg, _ = strings.Cut(text, " ")
	cmd, _, _ = strings.Cut(cmd, "@")
	return strings.ToLower(cmd), strings.TrimSpace(arg)
}

func (b *Bot) onMessage(ctx context.Context, m *Message) error {
	if m.Chat.Type != "private" || (m.From != nil && m.From.IsBot) {
		return nil
	}
	cmd, arg := command(m.Text)
	link, err := b.store.TelegramChat(ctx, m.Chat.ID)
	if errors.Is(err, finance.ErrNotFound) {
		if cmd == "/link" {
			return b.link(ctx, m, arg)
		}
		return b.say(ctx, m.Chat.ID, notLinkedText)
	}
	if err != nil {
		return err
	}
	switch cmd {
	case "/unlink":
		if err := b.store.UnlinkTelegramChat(ctx, link.UserID, m.Chat.ID); err != nil && !errors.Is(err, finance.ErrNotFound) {
			return err
		}
		return b.say(ctx, m.Chat.ID, unlinkedText)
	case "/link":
		return b.say(ctx, m.Chat.ID, Escape("This chat is already linked. Send /unlink first to link it to another user."))
	case "/start", "/help":
		return b.say(ctx, m.Chat.ID, b.helpText())
	}
	if ok, err := b.mayUse(ctx, m.Chat.ID, link.UserID); !ok || err != nil {
		return err
	}
	if read, ok := b.reads()[cmd]; ok {
		text, err := read(ctx, link.UserID)
		return b.reply(ctx, m.Chat.ID, text, err)
	}
	switch {
	case cmd != "":
		return b.say(ctx, m.Chat.ID, Escape("I do not know "+cmd+". ")+b.helpText())
	case len(m.Photo) > 0:
		return b.onPhoto(ctx, link, m)
	case strings.TrimSpace(m.Text) != "":
		return b.onText(ctx, link, strings.TrimSpace(m.Text))
	}
	return b.say(ctx, m.Chat.ID, Escape("Send me text or a photo of a receipt. ")+b.helpText())
}

// mayUse checks that the linked user may use the bot now (Pro plan), and
// tells the chat when not.
func (b *Bot) mayUse(ctx context.Context, chat int64, userID string) (bool, error) {
	pro, err := b.api.Pro(ctx, userID)
	if err != nil {
		return false, err
	}
	if !pro {
		return false, b.say(ctx, chat, proText)
	}
	return true, nil
}

// link handles /link CODE in a chat that is not linked.
func (b *Bot) link(ctx context.Context, m *Message, arg string) error {
	if !b.links.allow(m.Chat.ID, b.now()) {
		return b.say(ctx, m.Chat.ID, Escape("Too many link attempts. Wait 10 minutes, then send /link with a new code."))
	}
	code, ok := normalizeLinkCode(arg)
	if !ok {
		return b.say(ctx, m.Chat.ID, Escape("Send /link followed by the 8-character code from the Messaging settings page, for example: ")+Code("/link ABCD-EFGH"))
	}
	label := m.Chat.FirstName
	if m.Chat.Username != "" {
		label = "@" + m.Chat.Username
	}
	link, err := b.store.LinkTelegramChat(ctx, hashLinkCode(code), ChatLink{ChatID: m.Chat.ID, Label: label, LinkedAt: b.now().UTC()})
	if errors.Is(err, finance.ErrNotFound) {
		return b.say(ctx, m.Chat.ID, Escape("That code is not valid or has expired (codes last 10 minutes and work once). Get a new one on the Messaging settings page."))
	}
	if err != nil {
		return err
	}
	pro, err := b.api.Pro(ctx, link.UserID)
	if err != nil || !pro {
		// Undone at once: a user off the Pro plan cannot link a chat.
		if uerr := b.store.UnlinkTelegramChat(ctx, link.UserID, m.Chat.ID); uerr != nil {
			return uerr
		}
		if err != nil {
			return err
		}
		return b.say(ctx, m.Chat.ID, proText)
	}
	return b.say(ctx, m.Chat.ID, Bold("Linked.")+" "+b.helpText())
}

var (
	notLinkedText = Escape("This chat is not linked to a finance user, so I cannot do anything here yet. "+
		"Sign in to finance, open Settings, then Messaging, get a link code, and send it here as ") + Code("/link CODE") + Escape(".")
	unlinkedText = Escape("Unlinked. This chat no longer acts for your finance user; send /link with a new code to link it again.")
	proText      = Escape("Telegram access is a Pro plan feature, like API access. Ask your household admin to move your user to the Pro plan.")
)

func (b *Bot) helpText() string {
	text := "Send an expense as text (for example: lunch 250 cash) or a photo of a receipt; nothing is recorded until you press Confirm. "
	if b.assistant != nil {
		text = "Ask me about your money or tell me what you spent (for example: lunch 250 cash), or send a photo of a receipt; nothing is recorded until you press Confirm. "
	}
	return Escape(text) + Code("/today") + Escape(", ") + Code("/month") + Escape(" and ") + Code("/bills") +
		Escape(" show your day, your month and your bills; ") + Code("/unlink") + Escape(" ends the link.")
}

// onText answers a linked chat's text: the assistant when the server has
// one, else the built-in parser's drafts.
func (b *Bot) onText(ctx context.Context, link ChatLink, text string) error {
	if b.assistant == nil {
		return b.draftsFromText(ctx, link, text)
	}
	ans, err := b.assistant.Chat(ctx, link.UserID, link.ConversationID, text)
	var re *RefusedError
	if errors.As(err, &re) && re.Status == http.StatusNotFound && link.ConversationID != "" {
		// The conversation expired: start a new one.
		ans, err = b.assistant.Chat(ctx, link.UserID, "", text)
	}
	if err != nil {
		return b.refusal(ctx, link.ChatID, err)
	}
	if ans.ConversationID != "" && ans.ConversationID != link.ConversationID {
		if err := b.store.SetTelegramConversation(ctx, link.ChatID, ans.ConversationID); err != nil {
			b.log.Warn("telegram: saving the conversation", "error", err)
		}
	}
	if reply := strings.TrimSpace(ans.Reply); reply != "" || len(ans.Proposals) == 0 {
		if reply == "" {
			reply = "(no answer)"
		}
		if err := b.say(ctx, link.ChatID, Escape(clip(reply, MaxMessageLen/2))); err != nil {
			return err
		}
	}
	for _, p := range ans.Proposals {
		if err := b.send(ctx, link.ChatID, Escape(clip(p.Summary, 1000)), buttons(kindProposal, p.ID)); err != nil {
			return err
		}
	}
	return nil
}

// refusal tells the chat why a route refused, in the route's words.
func (b *Bot) refusal(ctx context.Context, chat int64, err error) error {
	var re *RefusedError
	if !errors.As(err, &re) {
		b.log.Warn("telegram: a request failed", "error", err)
		return b.say(ctx, chat, Escape("Something went wrong on the server; try again in a moment."))
	}
	switch re.Status {
	case http.StatusPaymentRequired:
		return b.say(ctx, chat, proText)
	case http.StatusTooManyRequests:
		return b.say(ctx, chat, Escape("You have used your AI budget for now, or the server is busy; try again in a few minutes."))
	case http.StatusForbidden:
		return b.say(ctx, chat, Escape("This cannot be done from Telegram ("+re.Message+"); do it in the app."))
	}
	return b.say(ctx, chat, Escape(re.Message))
}

// Button kinds: an assistant proposal, or the bot's own draft.
const (
	kindProposal = "p"
	kindDraft    = "d"
)

// buttons are Confirm and Cancel for one proposal or draft. The callback
// data ("p:c:<uuid>", 38 bytes) stays under Telegram's 64.
func buttons(kind, id string) *InlineKeyboardMarkup {
	return &InlineKeyboardMarkup{InlineKeyboard: [][]InlineKeyboardButton{{
		{Text: "Confirm", CallbackData: kind + ":c:" + id},
		{Text: "Cancel", CallbackData: kind + ":x:" + id},
	}}}
}

// onButton handles a press of Confirm or Cancel.
func (b *Bot) onButton(ctx context.Context, q *CallbackQuery) error {
	if q.Message == nil || q.Message.Chat.Type != "private" || q.From.ID != q.Message.Chat.ID {
		return b.client.AnswerCallbackQuery(ctx, AnswerCallbackQueryRequest{CallbackQueryID: q.ID})
	}
	chat := q.Message.Chat.ID
	link, err := b.store.TelegramChat(ctx, chat)
	if errors.Is(err, finance.ErrNotFound) {
		if err := b.client.AnswerCallbackQuery(ctx, AnswerCallbackQueryRequest{CallbackQueryID: q.ID, Text: "This chat is not linked"}); err != nil {
			return err
		}
		return b.say(ctx, chat, notLinkedText)
	}
	if err != nil {
		return err
	}
	kind, action, id := parseCallback(q.Data)
	if kind == "" {
		return b.client.AnswerCallbackQuery(ctx, AnswerCallbackQueryRequest{CallbackQueryID: q.ID, Text: "Unknown button"})
	}
	if ok, err := b.mayUse(ctx, chat, link.UserID); !ok || err != nil {
		_ = b.client.AnswerCallbackQuery(ctx, AnswerCallbackQueryRequest{CallbackQueryID: q.ID})
		return err
	}
	confirm := action == "c"
	var text, toast string
	if kind == kindProposal {
		text, toast = b.decideProposal(ctx, link, id, confirm)
	} else {
		text, toast = b.decideDraft(ctx, link, id, confirm)
	}
	if err := b.client.AnswerCallbackQuery(ctx, AnswerCallbackQueryRequest{CallbackQueryID: q.ID, Text: toast}); err != nil {
		b.log.Warn("telegram: answering a button", "error", err)
	}
	// The buttons go: the message now belongs to a decided proposal.
	if err := b.client.EditMessageReplyMarkup(ctx, EditMessageReplyMarkupRequest{ChatID: chat, MessageID: q.Message.MessageID}); err != nil {
		b.log.Debug("telegram: removing buttons", "error", err)
	}
	return b.say(ctx, chat, text)
}

// parseCallback reads "p:c:<id>"; kind is "" when data is not a button of this bot.
func parseCallback(data string) (kind, action, id string) {
	parts := strings.SplitN(data, ":", 3)
	if len(parts) != 3 || (parts[0] != kindProposal && parts[0] != kindDraft) ||
		(parts[1] != "c" && parts[1] != "x") || !finance.ValidID(parts[2]) {
		return "", "", ""
	}
	return parts[0], parts[1], parts[2]
}

// decideProposal runs the assistant's confirm step; it returns the chat's
// message and the button's toast.
func (b *Bot) decideProposal(ctx context.Context, link ChatLink, id string, confirm bool) (string, string) {
	if b.assistant == nil {
		return Escape("The assistant is not available on this server."), "Not available"
	}
	d, err := b.assistant.Decide(ctx, link.UserID, id, confirm)
	if err != nil {
		return b.refusalText(err), "Not done"
	}
	if d.Status == "confirmed" {
		return Escape("Done: " + d.Summary), "Done"
	}
	return Escape("Cancelled; nothing was recorded."), "Cancelled"
}

// refusalText is the chat's message for a refused step.
func (b *Bot) refusalText(err error) string {
	var re *RefusedError
	if !errors.As(err, &re) {
		b.log.Warn("telegram: a request failed", "error", err)
		return Escape("Something went wrong on the server; nothing was recorded. Try again in a moment.")
	}
	switch re.Status {
	case http.StatusPaymentRequired:
		return proText
	case http.StatusForbidden:
		return Escape("This cannot be done from Telegram (" + re.Message + "); do it in the app.")
	}
	return Escape("Not done: " + re.Message)
}

// say sends a MarkdownV2 message.
func (b *Bot) say(ctx context.Context, chat int64, text string) error {
	return b.send(ctx, chat, text, nil)
}

func (b *Bot) send(ctx context.Context, chat int64, text string, markup *InlineKeyboardMarkup) error {
	return b.client.SendMessage(ctx, SendMessageRequest{ChatID: chat, Text: text, ParseMode: "MarkdownV2", ReplyMarkup: markup,
		LinkPreviewOptions: &linkPreviewOptions{IsDisabled: true}})
}

// reply sends a read's answer, or the refusal that stopped it.
func (b *Bot) reply(ctx context.Context, chat int64, text string, err error) error {
	if err != nil {
		return b.refusal(ctx, chat, err)
	}
	return b.say(ctx, chat, text)
}

// clip shortens s to at most n runes.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
