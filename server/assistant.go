package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// The AI assistant (specification §1 rule 6, §4.2): POST /ai-assistant/chat
// answers questions from the caller's data and turns requests to record or
// pay into proposals; POST /ai-assistant/confirm executes one proposal, once,
// through its REST route, as the caller.
//
// The assistant reads only through the REST routes, served in process as
// the caller (ServeAs), so it sees exactly what the caller may see. It never
// writes to the ledger: a write is a stored proposal (method, path and body
// of a REST request) until the user confirms it, and what the assistant read
// (including text inside the user's records, or a model's output) can only
// ever produce a proposal, never an action.
//
// Neither route is wrapped for Idempotency-Key (NoIdempotencyKey): chat must
// not hold the single writer during a model call (it stores its exchange in
// one short transaction after the answer), and confirm is exactly-once by
// its proposal id, in the write scope of the route it executes.

// AssistantStore keeps the assistant's conversations and proposals.
type AssistantStore interface {
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

// The assistant's routes.
const (
	assistantChatPath    = APIPrefix + "ai-assistant/chat"
	assistantConfirmPath = APIPrefix + "ai-assistant/confirm"
)

func (s *Server) registerAssistantRoutes() {
	s.add(Route{Method: http.MethodPost, Path: assistantChatPath, Access: auth.ReportsRead, NoIdempotencyKey: true}, s.chat)
	s.add(Route{Method: http.MethodPost, Path: assistantConfirmPath, Access: auth.ReportsRead, NoIdempotencyKey: true}, s.confirm)
}

// chatRequest is the body of POST /ai-assistant/chat.
type chatRequest struct {
	Message        finance.Field[string] `json:"message"`
	ConversationID finance.Field[string] `json:"conversation_id"`
}

// ChatResponse is the data of POST /ai-assistant/chat.
type ChatResponse struct {
	ConversationID string         `json:"conversation_id"`
	Reply          string         `json:"reply"`
	Engine         string         `json:"engine"`
	Proposals      []ProposalView `json:"proposals"`
}

// ProposalView is a proposal as the user sees it.
type ProposalView struct {
	ID        string          `json:"id"`
	Action    string          `json:"action"`
	Summary   string          `json:"summary"`
	Arguments json.RawMessage `json:"arguments"`
	Status    string          `json:"status"`
	ExpiresAt time.Time       `json:"expires_at"`
}

func proposalView(p finance.Proposal, now time.Time) ProposalView {
	return ProposalView{ID: p.ID, Action: p.Action, Summary: p.Summary, Arguments: p.Arguments,
		Status: p.State(now), ExpiresAt: p.ExpiresAt}
}

// MaxChatMessage is the longest chat message, in characters.
const MaxChatMessage = ai.MaxTextLen

// assistantAnswer is what an engine made of one message.
type assistantAnswer struct {
	reply     string
	engine    string
	proposals []finance.Proposal
}

func (s *Server) chat(w http.ResponseWriter, r bunrouter.Request) error {
	var req chatRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	var v finance.Validator
	message := v.RequiredText("message", req.Message, MaxChatMessage)
	var convID string
	if finance.Readable(&v, "conversation_id", req.ConversationID) && req.ConversationID.Has() {
		convID = strings.TrimSpace(req.ConversationID.Value)
	}
	if err := v.Err(); err != nil {
		return err
	}
	if err := s.spendAIBudget(w.Header(), userID(r), aiTextWeight); err != nil {
		return err
	}
	ctx, user := r.Context(), userID(r)
	now := s.ledger.Now()
	var history []finance.ChatTurn
	if convID != "" {
		if !finance.ValidID(convID) {
			return finance.NotFound("conversation")
		}
		var err error
		if history, err = s.db.AssistantTurns(ctx, user, convID, now); err != nil {
			return err
		}
	} else {
		convID = finance.NewID()
	}
	p, _ := auth.FromContext(ctx)
	in, err := s.ledger.ParseInputs(ctx, user)
	if err != nil {
		return err
	}

	answer, err := s.answer(ctx, p, in, history, message)
	if err != nil {
		return s.aiError(w.Header(), err)
	}
	// Stamped after the answer: a slow model must not eat the proposals' 30 minutes.
	now = s.ledger.Now()
	views := make([]ProposalView, len(answer.proposals))
	for i := range answer.proposals {
		pr := &answer.proposals[i]
		if pr.ID == "" {
			pr.ID = finance.NewID()
		}
		pr.UserID, pr.ConversationID = user, convID
		pr.Status, pr.CreatedAt, pr.ExpiresAt = finance.ProposalPending, now.UTC(), now.UTC().Add(finance.ProposalTTL)
		views[i] = proposalView(*pr, now)
	}
	turn := finance.ChatTurn{Message: message, Reply: answer.reply, CreatedAt: now.UTC()}
	if err := s.db.SaveAssistantTurn(ctx, user, convID, turn, answer.proposals); err != nil {
		return err
	}
	msg := "Answered; nothing was written"
	if n := len(views); n > 0 {
		msg = fmt.Sprintf("Answered with %d proposal%s; nothing is written until you confirm", n, plural(n))
	}
	writeData(w, http.StatusOK, msg, ChatResponse{ConversationID: convID, Reply: answer.reply, Engine: answer.engine, Proposals: views})
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// answer runs the model with its tools when one is configured, else (or
// when the service fails) the built-in engine.
func (s *Server) answer(ctx context.Context, p auth.Principal, in finance.ParseInputs, history []finance.ChatTurn, message string) (assistantAnswer, error) {
	var note string
	if s.modelReady() {
		a, err := s.modelAnswer(ctx, p, in, history, message)
		if err == nil {
			return a, nil
		}
		if !errors.Is(err, ai.ErrService) {
			return assistantAnswer{}, err
		}
		s.log.WarnContext(ctx, "AI service failed; the built-in assistant answers", "error", err)
		note = "(The AI service did not answer, so the built-in assistant replied.) "
	}
	a, err := s.builtinAnswer(ctx, p, in, message)
	a.reply = note + a.reply
	return a, err
}

// confirmRequest is the body of POST /ai-assistant/confirm.
type confirmRequest struct {
	ProposalID finance.Field[string] `json:"proposal_id"`
	Decision   finance.Field[string] `json:"decision"`
}

// ConfirmResponse is the data of POST /ai-assistant/confirm: the proposal
// as decided, and the data of the route that executed it (null when rejected).
type ConfirmResponse struct {
	Proposal ProposalView    `json:"proposal"`
	Result   json.RawMessage `json:"result"`
}

func (s *Server) confirm(w http.ResponseWriter, r bunrouter.Request) error {
	var req confirmRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	var v finance.Validator
	id := v.RequiredText("proposal_id", req.ProposalID, finance.MaxName)
	decision := v.RequiredText("decision", req.Decision, finance.MaxName)
	if decision != "" && decision != finance.DecisionConfirm && decision != finance.DecisionReject {
		v.Add("decision", "must be confirm or reject")
	}
	if err := v.Err(); err != nil {
		return err
	}
	if !finance.ValidID(id) {
		return finance.NotFound("proposal")
	}
	ctx, user := r.Context(), userID(r)
	p, err := s.db.AssistantProposal(ctx, user, id)
	if err != nil {
		return err
	}
	if p.Decided(decision) {
		s.writeDecided(w, p)
		return nil
	}
	if err := p.CheckDecision(s.ledger.Now(), decision); err != nil {
		return err
	}

	if decision == finance.DecisionReject {
		err := s.db.WriteScope(ctx, func(ctx context.Context) error {
			cur, err := s.db.AssistantProposal(ctx, user, id)
			if err != nil {
				return err
			}
			if p = cur; cur.Decided(decision) {
				return errReplay
			}
			if err := cur.CheckDecision(s.ledger.Now(), decision); err != nil {
				return err
			}
			return s.db.DecideAssistantProposal(ctx, user, id, finance.ProposalRejected, 0, nil, s.ledger.Now())
		})
		if err != nil && !errors.Is(err, errReplay) {
			return err
		}
		return s.writeProposal(w, ctx, user, id)
	}

	// Confirm: the route runs inside a write scope that also records the
	// proposal's result, so the write and the result commit together. The
	// proposal is read again inside the scope: the writer is one connection
	// taking IMMEDIATE transactions, so a concurrent confirm of the same
	// proposal gets here only after the first committed, and finds its result.
	caller, _ := auth.FromContext(ctx)
	var res routeResult
	err = s.db.WriteScope(ctx, func(ctx context.Context) error {
		cur, err := s.db.AssistantProposal(ctx, user, id)
		if err != nil {
			return err
		}
		if p = cur; cur.Decided(decision) {
			return errReplay
		}
		if err := cur.CheckDecision(s.ledger.Now(), decision); err != nil {
			return err
		}
		res = s.callAs(ctx, caller, cur.Method, cur.Path, cur.Body)
		if res.status < 200 || res.status > 299 || res.data == nil {
			return errNotStored
		}
		return s.db.DecideAssistantProposal(ctx, user, id, finance.ProposalConfirmed, res.status, res.data, s.ledger.Now())
	})
	switch {
	case errors.Is(err, errReplay):
		s.writeDecided(w, p)
		return nil
	case errors.Is(err, errNotStored):
		// The route refused (its scope, its validation, the state of a
		// record): its answer goes back as it is, nothing was written, and
		// the proposal stays pending.
		res.send(w)
		return nil
	case err != nil:
		return err
	}
	return s.writeProposal(w, ctx, user, id)
}

// writeProposal answers with the proposal as now stored.
func (s *Server) writeProposal(w http.ResponseWriter, ctx context.Context, user, id string) error {
	p, err := s.db.AssistantProposal(ctx, user, id)
	if err != nil {
		return err
	}
	s.writeDecided(w, p)
	return nil
}

// writeDecided answers with a decided proposal and the stored result of its route.
func (s *Server) writeDecided(w http.ResponseWriter, p finance.Proposal) {
	msg := "Rejected: nothing was written"
	result := json.RawMessage("null")
	if p.Status == finance.ProposalConfirmed {
		msg = "Confirmed: " + p.Summary
		result = p.ResultData
	}
	writeData(w, http.StatusOK, msg, ConfirmResponse{Proposal: proposalView(p, s.ledger.Now()), Result: result})
}

// routeResult is the answer of a route served in process.
type routeResult struct {
	status      int
	contentType string
	body        []byte
	data        json.RawMessage // the envelope's data, on success
	err         *errorDetail    // the envelope's error, on failure
}

// callAs serves one request through the router as principal p, with the
// route's scope, validation and side effects, and reads its envelope. ctx
// may carry a write scope, which the route's writes then join.
func (s *Server) callAs(ctx context.Context, p auth.Principal, method, target string, body []byte) routeResult {
	r, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return routeResult{status: http.StatusBadRequest, err: &errorDetail{Code: CodeValidation, Message: err.Error()}}
	}
	r.Header.Set("Accept", "application/json")
	if len(body) > 0 {
		r.Header.Set("Content-Type", "application/json")
	}
	rec := &bufferedResponse{header: http.Header{}}
	s.ServeAs(p, rec, r)
	res := routeResult{status: rec.status, contentType: rec.header.Get("Content-Type"), body: rec.body.Bytes()}
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   *errorDetail    `json:"error"`
	}
	if err := json.Unmarshal(res.body, &env); err != nil {
		res.err = &errorDetail{Code: CodeInternal, Message: "the route did not answer with JSON"}
		return res
	}
	if env.Success {
		res.data = env.Data
		if res.data == nil {
			res.data = json.RawMessage("null")
		}
	} else {
		res.err = env.Error
		if res.err == nil {
			res.err = &errorDetail{Code: CodeInternal, Message: "the route answered without an envelope"}
		}
	}
	return res
}

// send copies the route's answer to w as it was.
func (res routeResult) send(w http.ResponseWriter) {
	if res.contentType != "" {
		w.Header().Set("Content-Type", res.contentType)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(res.status)
	_, _ = w.Write(res.body)
}
