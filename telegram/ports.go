package telegram

import (
	"context"
	"encoding/json"
	"time"
)

// Store keeps the bot's state; store implements it. Lookups that find
// nothing return an error wrapping finance.ErrNotFound.
type Store interface {
	// ClaimTelegramUpdate stores an update as pending unless its id is
	// stored already, and reports whether it was new; in the same
	// transaction it deletes handled updates received before prune.
	ClaimTelegramUpdate(ctx context.Context, updateID int64, payload []byte, at, prune time.Time) (bool, error)
	// PendingTelegramUpdates returns up to limit pending updates, oldest id first.
	PendingTelegramUpdates(ctx context.Context, limit int) ([]PendingUpdate, error)
	// FinishTelegramUpdate marks an update handled and drops its payload.
	FinishTelegramUpdate(ctx context.Context, updateID int64, at time.Time) error

	// SaveTelegramLinkCode stores the hash of a user's new link code,
	// replacing the user's earlier one.
	SaveTelegramLinkCode(ctx context.Context, userID string, codeHash []byte, at, expires time.Time) error
	// LinkTelegramChat uses the link code whose hash is codeHash, if it has
	// not expired at link.LinkedAt: in one transaction it deletes the code
	// and links the chat to the code's user (replacing the chat's earlier
	// link), and returns the link. An unknown or expired code is
	// finance.ErrNotFound.
	LinkTelegramChat(ctx context.Context, codeHash []byte, link ChatLink) (ChatLink, error)
	// TelegramChat returns the link of a chat.
	TelegramChat(ctx context.Context, chatID int64) (ChatLink, error)
	// TelegramChats returns the user's linked chats, newest first.
	TelegramChats(ctx context.Context, userID string) ([]ChatLink, error)
	// UnlinkTelegramChat ends the user's link of a chat (finance.ErrNotFound
	// when the user has no such link).
	UnlinkTelegramChat(ctx context.Context, userID string, chatID int64) error
	// SetTelegramConversation records the assistant conversation a chat continues.
	SetTelegramConversation(ctx context.Context, chatID int64, conversationID string) error

	// SaveTelegramDraft stores a draft waiting for its button.
	SaveTelegramDraft(ctx context.Context, d Draft) error
	// TelegramDraft returns the user's draft.
	TelegramDraft(ctx context.Context, userID, id string) (Draft, error)
	// SetTelegramDraftStatus moves the user's draft from status from to to,
	// and reports whether it was in from.
	SetTelegramDraftStatus(ctx context.Context, userID, id, from, to string) (bool, error)
}

// PendingUpdate is a stored update not handled yet.
type PendingUpdate struct {
	UpdateID int64
	Payload  []byte
}

// ChatLink ties a Telegram chat to the user it acts for.
type ChatLink struct {
	ChatID         int64
	UserID         string
	Label          string // the chat's @username or first name, for the settings page
	ConversationID string // the assistant conversation the chat continues
	LinkedAt       time.Time
}

// Draft is an expense read from a photo (or from text when no assistant
// is configured), recorded only when its Confirm button is pressed.
type Draft struct {
	ID        string
	UserID    string
	ChatID    int64
	Body      []byte // the POST /expenses body
	Summary   string
	Status    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Draft statuses.
const (
	DraftPending   = "pending"
	DraftConfirmed = "confirmed"
	DraftCancelled = "cancelled"
)

// DraftTTL is how long a draft's buttons work.
const DraftTTL = 30 * time.Minute

// API serves requests of the REST API (/api/v1) in process, as a linked
// user, through the same routes, checks and side effects as any client.
// The server implements it; the bot never reaches the ledger otherwise.
type API interface {
	// Pro reports whether the user may use the bot (the Pro plan, as for
	// API access). An unknown user is finance.ErrNotFound.
	Pro(ctx context.Context, userID string) (bool, error)
	// Call serves one request as the user and returns its answer.
	Call(ctx context.Context, userID string, req Request) Response
}

// Request is one in-process REST request.
type Request struct {
	Method      string
	Path        string // under /api/v1, with its query
	ContentType string
	Body        []byte
	// IdempotencyKey, when set, makes a repeated write replay its first answer.
	IdempotencyKey string
}

// Response is the answer of a REST route: its status and its envelope.
type Response struct {
	Status  int
	Message string
	Data    json.RawMessage
	Code    string // the error code, on failure
}

// OK reports a 2xx answer.
func (r Response) OK() bool { return r.Status >= 200 && r.Status <= 299 }

// Assistant is the AI assistant as the bot uses it: a chat step that may
// propose writes, and a confirm step that executes one proposal, once.
type Assistant interface {
	// Chat sends the user's message; conversationID continues a
	// conversation ("" starts one).
	Chat(ctx context.Context, userID, conversationID, message string) (ChatAnswer, error)
	// Decide confirms (or rejects) one of the user's proposals.
	Decide(ctx context.Context, userID, proposalID string, confirm bool) (Decision, error)
}

// ChatAnswer is the assistant's reply with the writes it proposes.
type ChatAnswer struct {
	ConversationID string
	Reply          string
	Proposals      []Proposal
}

// Proposal is a write the assistant proposes, shown with Confirm and Cancel.
type Proposal struct {
	ID      string
	Summary string
}

// Decision is the outcome of a confirm step.
type Decision struct {
	Status  string // confirmed or rejected
	Summary string
}

// RefusedError is a refusal of a REST route (its status, code and message),
// shown to the user as the route words it.
type RefusedError struct {
	Status  int
	Code    string
	Message string
}

func (e *RefusedError) Error() string { return e.Message }

// refused turns a failed response into a RefusedError.
func refused(r Response) error {
	return &RefusedError{Status: r.Status, Code: r.Code, Message: r.Message}
}
