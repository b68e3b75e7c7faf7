package store

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/telegram"
)

// The Telegram bot's state (telegram.Store): delivered updates, link codes,
// linked chats and drafts.

var _ telegram.Store = (*DB)(nil)

type telegramUpdateRow struct {
	bun.BaseModel `bun:"table:telegram_updates"`

	UpdateID   int64 `bun:",pk"`
	Payload    []byte
	ReceivedAt time.Time
	DoneAt     *time.Time
}

type telegramLinkCodeRow struct {
	bun.BaseModel `bun:"table:telegram_link_codes"`

	CodeHash  []byte `bun:",pk"`
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

type telegramChatRow struct {
	bun.BaseModel `bun:"table:telegram_chats"`

	ChatID         int64 `bun:",pk"`
	UserID         string
	Label          string
	ConversationID *string
	LinkedAt       time.Time
}

func (r telegramChatRow) link() telegram.ChatLink {
	l := telegram.ChatLink{ChatID: r.ChatID, UserID: r.UserID, Label: r.Label, LinkedAt: r.LinkedAt.UTC()}
	if r.ConversationID != nil {
		l.ConversationID = *r.ConversationID
	}
	return l
}

type telegramDraftRow struct {
	bun.BaseModel `bun:"table:telegram_drafts"`

	ID        string `bun:",pk"`
	UserID    string
	ChatID    int64
	Body      []byte
	Summary   string
	Status    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// ClaimTelegramUpdate stores an update as pending unless its id is there
// already: INSERT OR IGNORE makes the check and the insert one statement,
// so of two concurrent deliveries exactly one is new.
func (db *DB) ClaimTelegramUpdate(ctx context.Context, updateID int64, payload []byte, at, prune time.Time) (bool, error) {
	var fresh bool
	err := db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewInsert().Model(&telegramUpdateRow{UpdateID: updateID, Payload: payload, ReceivedAt: at}).
			Ignore().Exec(ctx)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		fresh = n == 1
		_, err = tx.NewDelete().Model((*telegramUpdateRow)(nil)).
			Where("done_at IS NOT NULL AND received_at < ?", prune).Exec(ctx)
		return err
	})
	return fresh, err
}

// PendingTelegramUpdates returns the oldest pending updates.
func (db *DB) PendingTelegramUpdates(ctx context.Context, limit int) ([]telegram.PendingUpdate, error) {
	var rows []telegramUpdateRow
	if err := db.reader.NewSelect().Model(&rows).Where("done_at IS NULL").
		OrderExpr("update_id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, err
	}
	out := make([]telegram.PendingUpdate, len(rows))
	for i, r := range rows {
		out[i] = telegram.PendingUpdate{UpdateID: r.UpdateID, Payload: r.Payload}
	}
	return out, nil
}

// FinishTelegramUpdate marks an update handled and drops its payload.
func (db *DB) FinishTelegramUpdate(ctx context.Context, updateID int64, at time.Time) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewUpdate().Model((*telegramUpdateRow)(nil)).
			Set("done_at = ?", at).Set("payload = NULL").Where("update_id = ?", updateID).Exec(ctx)
		return err
	})
}

// SaveTelegramLinkCode stores a user's new code in place of the earlier one,
// and drops expired codes.
func (db *DB) SaveTelegramLinkCode(ctx context.Context, userID string, codeHash []byte, at, expires time.Time) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*telegramLinkCodeRow)(nil)).
			Where("user_id = ? OR expires_at <= ?", userID, at).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(&telegramLinkCodeRow{CodeHash: codeHash, UserID: userID, CreatedAt: at, ExpiresAt: expires}).Exec(ctx)
		return err
	})
}

// LinkTelegramChat uses a live code and links the chat, in one transaction:
// the code is deleted whether or not it had expired, so it works once.
func (db *DB) LinkTelegramChat(ctx context.Context, codeHash []byte, link telegram.ChatLink) (telegram.ChatLink, error) {
	err := db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		var code telegramLinkCodeRow
		if err := tx.NewSelect().Model(&code).Where("code_hash = ?", codeHash).Scan(ctx); err != nil {
			return notFound(err, "link code")
		}
		if _, err := tx.NewDelete().Model((*telegramLinkCodeRow)(nil)).Where("code_hash = ?", codeHash).Exec(ctx); err != nil {
			return err
		}
		if !link.LinkedAt.Before(code.ExpiresAt) {
			return errExpiredCode
		}
		link.UserID = code.UserID
		row := telegramChatRow{ChatID: link.ChatID, UserID: link.UserID, Label: link.Label, LinkedAt: link.LinkedAt}
		_, err := tx.NewInsert().Model(&row).
			On("CONFLICT (chat_id) DO UPDATE").
			Set("user_id = EXCLUDED.user_id, label = EXCLUDED.label, conversation_id = NULL, linked_at = EXCLUDED.linked_at").
			Exec(ctx)
		return err
	})
	if errors.Is(err, errExpiredCode) {
		// The expired code is gone all the same: delete it in its own transaction.
		_ = db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
			_, err := tx.NewDelete().Model((*telegramLinkCodeRow)(nil)).Where("code_hash = ?", codeHash).Exec(ctx)
			return err
		})
		return telegram.ChatLink{}, finance.NotFound("link code")
	}
	if err != nil {
		return telegram.ChatLink{}, err
	}
	return link, nil
}

var errExpiredCode = errors.New("the link code has expired")

// TelegramChat returns the link of a chat.
func (db *DB) TelegramChat(ctx context.Context, chatID int64) (telegram.ChatLink, error) {
	var row telegramChatRow
	if err := db.reader.NewSelect().Model(&row).Where("chat_id = ?", chatID).Scan(ctx); err != nil {
		return telegram.ChatLink{}, notFound(err, "chat")
	}
	return row.link(), nil
}

// TelegramChats returns the user's linked chats, newest first.
func (db *DB) TelegramChats(ctx context.Context, userID string) ([]telegram.ChatLink, error) {
	var rows []telegramChatRow
	if err := db.reader.NewSelect().Model(&rows).Where("user_id = ?", userID).
		OrderExpr("linked_at DESC, chat_id").Scan(ctx); err != nil {
		return nil, err
	}
	out := make([]telegram.ChatLink, len(rows))
	for i, r := range rows {
		out[i] = r.link()
	}
	return out, nil
}

// UnlinkTelegramChat deletes the user's link of a chat and the chat's pending drafts.
func (db *DB) UnlinkTelegramChat(ctx context.Context, userID string, chatID int64) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewDelete().Model((*telegramChatRow)(nil)).Where("chat_id = ? AND user_id = ?", chatID, userID).Exec(ctx)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return finance.NotFound("linked chat")
		}
		_, err = tx.NewUpdate().Model((*telegramDraftRow)(nil)).Set("status = ?", telegram.DraftCancelled).
			Where("user_id = ? AND chat_id = ? AND status = ?", userID, chatID, telegram.DraftPending).Exec(ctx)
		return err
	})
}

// SetTelegramConversation records the conversation a chat continues.
func (db *DB) SetTelegramConversation(ctx context.Context, chatID int64, conversationID string) error {
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.NewUpdate().Model((*telegramChatRow)(nil)).Set("conversation_id = ?", conversationID).
			Where("chat_id = ?", chatID).Exec(ctx)
		return err
	})
}

// telegramDraftKeep is how long drafts are kept after they expire.
const telegramDraftKeep = 7 * 24 * time.Hour

// SaveTelegramDraft stores a draft and drops the user's drafts long expired.
func (db *DB) SaveTelegramDraft(ctx context.Context, d telegram.Draft) error {
	row := telegramDraftRow{ID: d.ID, UserID: d.UserID, ChatID: d.ChatID, Body: d.Body, Summary: d.Summary,
		Status: d.Status, CreatedAt: d.CreatedAt, ExpiresAt: d.ExpiresAt}
	return db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.NewDelete().Model((*telegramDraftRow)(nil)).
			Where("user_id = ? AND created_at < ?", d.UserID, d.CreatedAt.Add(-telegramDraftKeep)).Exec(ctx); err != nil {
			return err
		}
		_, err := tx.NewInsert().Model(&row).Exec(ctx)
		return err
	})
}

// TelegramDraft returns the user's draft.
func (db *DB) TelegramDraft(ctx context.Context, userID, id string) (telegram.Draft, error) {
	var r telegramDraftRow
	if err := db.reader.NewSelect().Model(&r).Where("id = ? AND user_id = ?", id, userID).Scan(ctx); err != nil {
		return telegram.Draft{}, notFound(err, "draft")
	}
	return telegram.Draft{ID: r.ID, UserID: r.UserID, ChatID: r.ChatID, Body: r.Body, Summary: r.Summary, Status: r.Status,
		CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC()}, nil
}

// SetTelegramDraftStatus moves a draft from one status to another, only
// if it is in from (compare and set in one statement).
func (db *DB) SetTelegramDraftStatus(ctx context.Context, userID, id, from, to string) (bool, error) {
	var moved bool
	err := db.tx(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.NewUpdate().Model((*telegramDraftRow)(nil)).Set("status = ?", to).
			Where("id = ? AND user_id = ? AND status = ?", id, userID, from).Exec(ctx)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		moved = n == 1
		return err
	})
	return moved, err
}
