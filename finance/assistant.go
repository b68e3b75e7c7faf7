package finance

import (
	"encoding/json"
	"time"
)

// The AI assistant's records (specification §1 rule 6, §4.2): its
// conversations, and the writes it proposes. The assistant itself never
// writes to the ledger; a proposal is executed by its REST route only when
// the user confirms it, once.

// Limits of the assistant's records.
const (
	// ProposalTTL is how long a proposal can be confirmed.
	ProposalTTL = 30 * time.Minute
	// ConversationTTL is how long a conversation is kept after its last exchange.
	ConversationTTL = 30 * 24 * time.Hour
	// MaxConversationTurns is how many exchanges a conversation keeps, the newest.
	MaxConversationTurns = 20
)

// Proposal states. A pending proposal whose expiry has passed is expired;
// that state is computed, never stored, so it follows the service's clock.
const (
	ProposalPending   = "pending"
	ProposalConfirmed = "confirmed"
	ProposalRejected  = "rejected"
	ProposalExpired   = "expired"
)

// Decisions of POST /ai-assistant/confirm.
const (
	DecisionConfirm = "confirm"
	DecisionReject  = "reject"
)

// ChatTurn is one exchange of a conversation: what the user wrote and what
// the assistant replied.
type ChatTurn struct {
	Message   string
	Reply     string
	CreatedAt time.Time
}

// Proposal is a write the assistant suggested: the REST request that
// performs it (Method, Path, Body, exactly as a client would send it) and
// what the user is shown (Action, the tool's name; Summary; Arguments).
type Proposal struct {
	ID             string
	UserID         string
	ConversationID string
	Action         string
	Summary        string
	Arguments      json.RawMessage
	Method         string
	Path           string // under /api/v1, with its query if any
	Body           []byte
	Status         string // pending, confirmed or rejected, as stored
	ExpiresAt      time.Time
	CreatedAt      time.Time
	DecidedAt      *time.Time
	// ResultStatus and ResultData are the route's HTTP status and envelope
	// data once the proposal was confirmed and executed.
	ResultStatus int
	ResultData   json.RawMessage
}

// State is the proposal's state at now: its stored status, or expired when
// it is still pending past ExpiresAt.
func (p Proposal) State(now time.Time) string {
	if p.Status == ProposalPending && !now.Before(p.ExpiresAt) {
		return ProposalExpired
	}
	return p.Status
}

// CheckDecision returns the error of deciding p at now: nil when p is
// pending, else INVALID_STATUS saying why. A repeat of the decision already
// made is not an error here; the caller replays its result first.
func (p Proposal) CheckDecision(now time.Time, decision string) error {
	switch p.State(now) {
	case ProposalPending:
		return nil
	case ProposalExpired:
		return InvalidStatus("proposal has expired; proposals can be confirmed for 30 minutes; ask the assistant again")
	case ProposalConfirmed:
		return InvalidStatus("proposal was already confirmed; it cannot be %s", pastTense(decision))
	default:
		return InvalidStatus("proposal was rejected; it cannot be %s", pastTense(decision))
	}
}

func pastTense(decision string) string {
	if decision == DecisionReject {
		return "rejected"
	}
	return "confirmed"
}

// Decided reports whether the proposal already carries decision, whose
// result a repeated request gets again.
func (p Proposal) Decided(decision string) bool {
	return (decision == DecisionConfirm && p.Status == ProposalConfirmed) ||
		(decision == DecisionReject && p.Status == ProposalRejected)
}
