package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Store keeps the assistant's conversations and proposals.
type Store interface {
	// WriteScope runs fn in one write transaction, committed only when fn
	// returns nil; every write made under fn's context joins it, those of a
	// route served by Routes.Call with that context included.
	WriteScope(ctx context.Context, fn func(ctx context.Context) error) error
	// AssistantTurns returns the exchanges of the user's conversation id,
	// oldest first, or finance.ErrNotFound (unknown, another user's, or
	// older than finance.ConversationTTL at now).
	AssistantTurns(ctx context.Context, userID, id string, now time.Time) ([]finance.ChatTurn, error)
	// SaveAssistantTurn appends turn to the conversation (creating it),
	// keeps its newest finance.MaxConversationTurns, stores proposals, and
	// deletes the user's conversations past their retention: one transaction.
	SaveAssistantTurn(ctx context.Context, userID, id string, turn finance.ChatTurn, proposals []finance.Proposal) error
	// AssistantProposal returns the user's proposal id or finance.ErrNotFound:
	// in the write scope of ctx if there is one, else on the read pool.
	AssistantProposal(ctx context.Context, userID, id string) (finance.Proposal, error)
	// DecideAssistantProposal marks the user's pending proposal confirmed
	// (with the route's status and data) or rejected, in the write scope of
	// ctx if there is one.
	DecideAssistantProposal(ctx context.Context, userID, id, status string, resultStatus int,
		resultData json.RawMessage, at time.Time) error
}

// Ledger is what the assistant needs of the domain's service
// (finance.Service): its clock, and what a user's messages are read against.
type Ledger interface {
	// Now is the service's clock.
	Now() time.Time
	// ParseInputs returns the user's today, timezone, currency and active
	// accounts and cards.
	ParseInputs(ctx context.Context, userID string) (finance.ParseInputs, error)
}

// Routes serves the REST routes in process: the assistant's only way to
// the ledger, for its reads and for a confirmed proposal's write.
type Routes interface {
	// Call serves one request (target is a path under /api/v1 with its
	// query, body is JSON or empty) as principal p, with the route's scope,
	// validation and side effects, and reads its envelope. ctx may carry a
	// write scope (Store.WriteScope), which the route's writes then join.
	Call(ctx context.Context, p auth.Principal, method, target string, body []byte) Response
	// RecordPaths returns the GET routes that show the records a path
	// names: for each path parameter, the path up to it, when there is a
	// GET route for it (/api/v1/bills/{id} for /api/v1/bills/{id}/payments).
	RecordPaths(path string) []string
}

// Response is a route's answer.
type Response struct {
	Status      int
	ContentType string
	Body        []byte          // the answer as the route wrote it
	Data        json.RawMessage // the envelope's data, on success
	Err         *RouteError     // the envelope's error, on failure
}

// RouteError is the error of a route's envelope.
type RouteError struct {
	Code    string
	Message string
}

// ToolTable is the MCP tool table as the assistant's model sees it; the
// binary passes the MCP endpoint (mcpserver.Handler).
type ToolTable interface {
	// ToolNames lists the tools in table order.
	ToolNames() []string
	// ToolInfo describes one tool; ok is false for no such tool.
	ToolInfo(name string) (title, description string, inputSchema json.RawMessage, readOnly bool,
		access auth.Requirement, ok bool)
	// ToolRequest builds the REST request of a call with args (its method,
	// target and body), or a *finance.ValidationError when they cannot form it.
	ToolRequest(ctx context.Context, name string, args json.RawMessage) (method, target string, body []byte, err error)
}

// MaxMessage is the longest chat message, in characters: what AI parsing reads.
const MaxMessage = ai.MaxTextLen

// apiPrefix is where the REST routes the assistant calls live.
const apiPrefix = "/api/v1/"

// The REST API's error codes that the model is told, so that it reads one
// vocabulary from the assistant and from the routes.
const (
	codeValidation = "VALIDATION_ERROR"
	codeNotFound   = "NOT_FOUND"
	codeForbidden  = "FORBIDDEN"
)

// Assistant answers chat messages and decides proposals.
type Assistant struct {
	store  Store
	ledger Ledger
	routes Routes
	ai     *ai.Engine
	log    *slog.Logger
	// tools are the MCP tools the model may use (SetTools).
	tools ToolTable
}

// New returns the assistant. engine is the AI engine whose chat model
// answers when it has one and SetTools gave the tools.
func New(store Store, ledger Ledger, routes Routes, engine *ai.Engine, log *slog.Logger) *Assistant {
	if log == nil {
		log = slog.Default()
	}
	return &Assistant{store: store, ledger: ledger, routes: routes, ai: engine, log: log}
}

// SetTools gives the model the tools of t. Without them (or without a
// model) the built-in assistant answers. The binary calls it once, before
// serving: the tool table is built on the server that serves the assistant.
func (a *Assistant) SetTools(t ToolTable) { a.tools = t }

// answer is what an engine made of one message.
type answer struct {
	reply     string
	engine    string
	proposals []finance.Proposal
}

// Reply is the assistant's answer to one message, as stored.
type Reply struct {
	ConversationID string
	Text           string
	Engine         string // ai.EngineBuiltin or ai.EngineOpenAI
	// Proposals are the writes it proposes, stored pending.
	Proposals []finance.Proposal
}

// Chat answers message from p in the conversation conversationID, or in a
// new one when it is empty, and stores the exchange and its proposals.
// A conversation that is not p's (or is malformed, unknown or past its
// retention) is finance.ErrNotFound; every model job slot taken is
// ai.ErrBusy.
func (a *Assistant) Chat(ctx context.Context, p auth.Principal, conversationID, message string) (Reply, error) {
	user := p.UserID()
	now := a.ledger.Now()
	var history []finance.ChatTurn
	if conversationID != "" {
		if !finance.ValidID(conversationID) {
			return Reply{}, finance.NotFound("conversation")
		}
		var err error
		if history, err = a.store.AssistantTurns(ctx, user, conversationID, now); err != nil {
			return Reply{}, err
		}
	} else {
		conversationID = finance.NewID()
	}
	in, err := a.ledger.ParseInputs(ctx, user)
	if err != nil {
		return Reply{}, err
	}

	ans, err := a.answer(ctx, p, in, history, message)
	if err != nil {
		return Reply{}, err
	}
	// Stamped after the answer: a slow model must not eat the proposals' 30 minutes.
	now = a.ledger.Now()
	for i := range ans.proposals {
		pr := &ans.proposals[i]
		if pr.ID == "" {
			pr.ID = finance.NewID()
		}
		pr.UserID, pr.ConversationID = user, conversationID
		pr.Status, pr.CreatedAt, pr.ExpiresAt = finance.ProposalPending, now.UTC(), now.UTC().Add(finance.ProposalTTL)
	}
	turn := finance.ChatTurn{Message: message, Reply: ans.reply, CreatedAt: now.UTC()}
	if err := a.store.SaveAssistantTurn(ctx, user, conversationID, turn, ans.proposals); err != nil {
		return Reply{}, err
	}
	return Reply{ConversationID: conversationID, Text: ans.reply, Engine: ans.engine, Proposals: ans.proposals}, nil
}

// answer runs the model with its tools when one is configured, else (or
// when the service fails) the built-in engine.
func (a *Assistant) answer(ctx context.Context, p auth.Principal, in finance.ParseInputs, history []finance.ChatTurn, message string) (answer, error) {
	var note string
	if a.modelReady() {
		ans, err := a.modelAnswer(ctx, p, in, history, message)
		if err == nil {
			return ans, nil
		}
		if !errors.Is(err, ai.ErrService) {
			return answer{}, err
		}
		ai.LogFailure(ctx, a.log, "AI service failed; the built-in assistant answers", err)
		note = "(The AI service did not answer, so the built-in assistant replied.) "
	}
	ans, err := a.builtinAnswer(ctx, p, in, message)
	ans.reply = note + ans.reply
	return ans, err
}

// Decision is a decided proposal, or the answer of the route that refused
// to execute it.
type Decision struct {
	// Proposal is the proposal as decided: as now stored, or as decided
	// before for a repeat of the same decision.
	Proposal finance.Proposal
	// Refused is the answer of the proposal's route when it refused to
	// execute it (its scope, its validation, the state of a record):
	// nothing was written and the proposal stays pending. nil otherwise.
	Refused *Response
}

// errDecided and errRefused end a write scope without committing: the
// proposal was decided meanwhile, or its route refused.
var (
	errDecided = errors.New("the proposal is decided already")
	errRefused = errors.New("the route refused the proposal")
)

// Decide confirms or rejects (finance.DecisionConfirm, DecisionReject) p's
// proposal id. A confirm executes the proposal through its route as p; a
// repeat of the decision made gets that decision and its stored result
// again, and executes nothing. A proposal that is not p's (or is malformed
// or unknown) is finance.ErrNotFound; one that cannot take the decision
// (expired, or decided the other way) is finance.ErrInvalidStatus.
func (a *Assistant) Decide(ctx context.Context, p auth.Principal, id, decision string) (Decision, error) {
	if !finance.ValidID(id) {
		return Decision{}, finance.NotFound("proposal")
	}
	user := p.UserID()
	pr, err := a.store.AssistantProposal(ctx, user, id)
	if err != nil {
		return Decision{}, err
	}
	if pr.Decided(decision) {
		return Decision{Proposal: pr}, nil
	}
	if err := pr.CheckDecision(a.ledger.Now(), decision); err != nil {
		return Decision{}, err
	}

	if decision == finance.DecisionReject {
		err := a.store.WriteScope(ctx, func(ctx context.Context) error {
			cur, err := a.store.AssistantProposal(ctx, user, id)
			if err != nil {
				return err
			}
			if cur.Decided(decision) {
				return errDecided
			}
			if err := cur.CheckDecision(a.ledger.Now(), decision); err != nil {
				return err
			}
			return a.store.DecideAssistantProposal(ctx, user, id, finance.ProposalRejected, 0, nil, a.ledger.Now())
		})
		if err != nil && !errors.Is(err, errDecided) {
			return Decision{}, err
		}
		return a.stored(ctx, user, id)
	}

	// Confirm: the route runs inside a write scope that also records the
	// proposal's result, so the write and the result commit together. The
	// proposal is read again inside the scope: the writer is one connection
	// taking IMMEDIATE transactions, so a concurrent confirm of the same
	// proposal gets here only after the first committed, and finds its result.
	var res Response
	err = a.store.WriteScope(ctx, func(ctx context.Context) error {
		cur, err := a.store.AssistantProposal(ctx, user, id)
		if err != nil {
			return err
		}
		if pr = cur; cur.Decided(decision) {
			return errDecided
		}
		if err := cur.CheckDecision(a.ledger.Now(), decision); err != nil {
			return err
		}
		// The assistant is the author of what it proposed and the user
		// confirmed, whichever door the confirm came through.
		res = a.routes.Call(finance.WithActor(ctx, Actor(id)), p, cur.Method, cur.Path, cur.Body)
		if res.Status < 200 || res.Status > 299 || res.Data == nil {
			return errRefused
		}
		return a.store.DecideAssistantProposal(ctx, user, id, finance.ProposalConfirmed, res.Status, res.Data, a.ledger.Now())
	})
	switch {
	case errors.Is(err, errDecided):
		return Decision{Proposal: pr}, nil
	case errors.Is(err, errRefused):
		return Decision{Proposal: pr, Refused: &res}, nil
	case err != nil:
		return Decision{}, err
	}
	return a.stored(ctx, user, id)
}

// stored is the decision of the user's proposal id as now stored.
func (a *Assistant) stored(ctx context.Context, user, id string) (Decision, error) {
	pr, err := a.store.AssistantProposal(ctx, user, id)
	if err != nil {
		return Decision{}, err
	}
	return Decision{Proposal: pr}, nil
}

// Actor is who the ledger records as writing a confirmed proposal's route:
// the assistant, by the proposal's id.
func Actor(proposalID string) finance.Actor {
	return finance.Actor{Kind: finance.ActorAssistant, ID: proposalID, Name: "Assistant"}
}
