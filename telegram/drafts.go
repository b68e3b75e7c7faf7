package telegram

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"

	"github.com/finance-app/finance/finance"
)

// Drafts: expenses the parse routes read from a receipt photo (or, on a
// server without the assistant, from text). Each complete one is stored
// and shown with Confirm and Cancel; Confirm sends it to POST /expenses as
// the user, with the draft's id as Idempotency-Key, so a second press or a
// redelivered button records nothing more.

// maxDrafts bounds the drafts shown for one message.
const maxDrafts = 5

// parseResult is the data of the parse routes.
type parseResult struct {
	Items    []finance.ExpenseDraft `json:"items"`
	Warnings []string               `json:"warnings"`
}

func (b *Bot) draftsFromText(ctx context.Context, link ChatLink, text string) error {
	body, _ := json.Marshal(map[string]string{"natural_text": text})
	resp := b.api.Call(ctx, link.UserID, Request{Method: http.MethodPost, Path: "/api/v1/expenses/ai/parse-text",
		ContentType: "application/json", Body: body})
	if !resp.OK() {
		return b.refusal(ctx, link.ChatID, refused(resp))
	}
	var res parseResult
	if err := json.Unmarshal(resp.Data, &res); err != nil {
		return err
	}
	sent, err := b.offerDrafts(ctx, link, res)
	if err != nil || sent > 0 {
		return err
	}
	return b.say(ctx, link.ChatID, Escape("The assistant is not available on this server, so I can only record expenses. "+
		"I did not find a complete one in that: write it like \"lunch 250 cash\" (what, how much, how you paid), or send a photo of a receipt."))
}

func (b *Bot) onPhoto(ctx context.Context, link ChatLink, m *Message) error {
	photo, ok := pickPhoto(m.Photo)
	if !ok {
		return b.say(ctx, link.ChatID, Escape("That photo is too large to read (the limit is 5 MiB)."))
	}
	data, err := b.client.DownloadFile(ctx, photo.FileID, MaxPhotoBytes)
	if errors.Is(err, ErrFileTooLarge) {
		return b.say(ctx, link.ChatID, Escape("That photo is too large to read (the limit is 5 MiB)."))
	}
	if err != nil {
		b.log.Warn("telegram: downloading a photo", "error", err)
		return b.say(ctx, link.ChatID, Escape("I could not download that photo from Telegram; send it again in a moment."))
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="images"; filename="receipt.jpg"`)
	h.Set("Content-Type", "image/jpeg")
	part, err := mw.CreatePart(h)
	if err != nil {
		return err
	}
	if _, err := part.Write(data); err != nil {
		return err
	}
	if err := mw.Close(); err != nil {
		return err
	}
	resp := b.api.Call(ctx, link.UserID, Request{Method: http.MethodPost, Path: "/api/v1/expenses/ai/parse-images",
		ContentType: mw.FormDataContentType(), Body: form.Bytes()})
	if !resp.OK() {
		return b.refusal(ctx, link.ChatID, refused(resp))
	}
	var res parseResult
	if err := json.Unmarshal(resp.Data, &res); err != nil {
		return err
	}
	sent, err := b.offerDrafts(ctx, link, res)
	if err != nil || sent > 0 {
		return err
	}
	return b.say(ctx, link.ChatID, Escape("I could not read a complete expense from that receipt"+readPart(res)+
		". Send it as text instead, like \"Jollibee 245.50 food cash\"."))
}

// pickPhoto is the largest size of a photo within the download limit
// (Telegram lists the sizes smallest first).
func pickPhoto(sizes []PhotoSize) (PhotoSize, bool) {
	for i := len(sizes) - 1; i >= 0; i-- {
		if sizes[i].FileSize <= MaxPhotoBytes {
			return sizes[i], true
		}
	}
	return PhotoSize{}, false
}

// readPart says what was read of an incomplete draft.
func readPart(res parseResult) string {
	if len(res.Items) == 0 {
		return ""
	}
	d := res.Items[0]
	var got []string
	if d.Amount != nil {
		got = append(got, d.Amount.String())
	}
	if d.Description != nil {
		got = append(got, *d.Description)
	}
	if d.Date != nil {
		got = append(got, d.Date.String())
	}
	missing := missingFields(d)
	if len(got) == 0 {
		return ""
	}
	return " (I read " + strings.Join(got, ", ") + " but not the " + strings.Join(missing, " or the ") + ")"
}

// missingFields lists what a draft needs before it can be recorded.
func missingFields(d finance.ExpenseDraft) []string {
	var out []string
	if d.Amount == nil {
		out = append(out, "amount")
	}
	if d.Date == nil {
		out = append(out, "date")
	}
	if d.Description == nil || strings.TrimSpace(*d.Description) == "" {
		out = append(out, "description")
	}
	if d.Category == nil {
		out = append(out, "category")
	}
	switch {
	case d.PaymentMethod == nil:
		out = append(out, "payment method")
	case *d.PaymentMethod == "Account Debit" && d.AccountID == nil:
		out = append(out, "account")
	case *d.PaymentMethod == "Credit Card" && d.CreditCardID == nil:
		out = append(out, "credit card")
	}
	return out
}

// offerDrafts stores each complete draft and shows it with its buttons; it
// returns how many it showed.
func (b *Bot) offerDrafts(ctx context.Context, link ChatLink, res parseResult) (int, error) {
	sent := 0
	for _, d := range res.Items {
		if sent == maxDrafts || len(missingFields(d)) > 0 {
			continue
		}
		body, err := json.Marshal(d) // the create body: the draft's fields, as the parse route checked them
		if err != nil {
			return sent, err
		}
		now := b.now().UTC()
		dr := Draft{ID: finance.NewID(), UserID: link.UserID, ChatID: link.ChatID, Body: body, Summary: draftSummary(d),
			Status: DraftPending, CreatedAt: now, ExpiresAt: now.Add(DraftTTL)}
		if err := b.store.SaveTelegramDraft(ctx, dr); err != nil {
			return sent, err
		}
		text := Escape("Record this expense?") + "\n" + Bold(dr.Summary)
		if err := b.send(ctx, link.ChatID, text, buttons(kindDraft, dr.ID)); err != nil {
			return sent, err
		}
		sent++
	}
	return sent, nil
}

// draftSummary is one line: amount, description, category, how paid, date.
func draftSummary(d finance.ExpenseDraft) string {
	return fmt.Sprintf("%s · %s · %s · %s · %s", d.Amount.String(), clip(*d.Description, 200), clip(*d.Category, 100),
		*d.PaymentMethod, d.Date.String())
}

// decideDraft records (or cancels) one of the bot's drafts.
func (b *Bot) decideDraft(ctx context.Context, link ChatLink, id string, confirm bool) (string, string) {
	d, err := b.store.TelegramDraft(ctx, link.UserID, id)
	if errors.Is(err, finance.ErrNotFound) {
		return Escape("That draft is no longer available; send the expense again."), "Not available"
	}
	if err != nil {
		return b.refusalText(err), "Not done"
	}
	switch d.Status {
	case DraftConfirmed:
		return Escape("Already recorded: " + d.Summary), "Already recorded"
	case DraftCancelled:
		return Escape("Already cancelled; nothing was recorded."), "Already cancelled"
	}
	if !confirm {
		if _, err := b.store.SetTelegramDraftStatus(ctx, link.UserID, id, DraftPending, DraftCancelled); err != nil {
			return b.refusalText(err), "Not done"
		}
		return Escape("Cancelled; nothing was recorded."), "Cancelled"
	}
	if !b.now().Before(d.ExpiresAt) {
		return Escape("That draft has expired (drafts last 30 minutes); send the expense again."), "Expired"
	}
	resp := b.api.Call(ctx, link.UserID, Request{Method: http.MethodPost, Path: "/api/v1/expenses",
		ContentType: "application/json", Body: d.Body, IdempotencyKey: "telegram-draft-" + d.ID})
	if !resp.OK() {
		return b.refusalText(refused(resp)), "Not recorded"
	}
	if _, err := b.store.SetTelegramDraftStatus(ctx, link.UserID, id, DraftPending, DraftConfirmed); err != nil {
		// The expense is recorded; a repeat press replays it (Idempotency-Key).
		b.log.Warn("telegram: marking a draft recorded", "error", err)
	}
	return Escape("Recorded: " + d.Summary), "Recorded"
}
