package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/assistant"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// The AI assistant's routes (specification §1 rule 6, §4.2): POST
// /ai-assistant/chat answers questions from the caller's data and turns
// requests to record or pay into proposals; POST /ai-assistant/confirm
// executes one proposal, once, through its REST route, as the caller. The
// assistant itself (package assistant) makes and decides the proposals;
// these handlers decode, call it, and answer in the envelope. The server
// is the assistant's way to the REST routes (assistantRoutes): served in
// process as the caller (ServeAs), so it sees exactly what the caller may see.
//
// Neither route is wrapped for Idempotency-Key (NoIdempotencyKey): chat must
// not hold the single writer during a model call (it stores its exchange in
// one short transaction after the answer), and confirm is exactly-once by
// its proposal id, in the write scope of the route it executes.

// The assistant's routes.
const (
	assistantChatPath    = APIPrefix + "ai-assistant/chat"
	assistantConfirmPath = APIPrefix + "ai-assistant/confirm"
)

func (s *Server) registerAssistantRoutes() {
	s.add(Route{Method: http.MethodPost, Path: assistantChatPath, Access: auth.ReportsRead, NoIdempotencyKey: true}, s.chat)
	s.add(Route{Method: http.MethodPost, Path: assistantConfirmPath, Access: auth.ReportsRead, NoIdempotencyKey: true}, s.confirm)
}

// SetAssistantTools gives the assistant's model the tools of t (the binary
// passes the MCP endpoint, mcpserver.Handler, which the server cannot
// import). Without them (or without a model) the built-in assistant answers.
func (s *Server) SetAssistantTools(t assistant.ToolTable) { s.assistant.SetTools(t) }

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

func (s *Server) chat(w http.ResponseWriter, r bunrouter.Request) error {
	var req chatRequest
	if err := s.decodeJSON(r.Request, &req); err != nil {
		return err
	}
	var v finance.Validator
	message := v.RequiredText("message", req.Message, assistant.MaxMessage)
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
	p, _ := auth.FromContext(r.Context())
	reply, err := s.assistant.Chat(r.Context(), p, convID, message)
	if err != nil {
		return s.aiError(w.Header(), err)
	}
	views := make([]ProposalView, len(reply.Proposals))
	for i, pr := range reply.Proposals {
		views[i] = proposalView(pr, pr.CreatedAt) // as at its making: pending
	}
	msg := "Answered; nothing was written"
	switch n := len(views); {
	case n == 1:
		msg = "Answered with 1 proposal; nothing is written until you confirm"
	case n > 1:
		msg = fmt.Sprintf("Answered with %d proposals; nothing is written until you confirm", n)
	}
	writeData(w, http.StatusOK, msg, ChatResponse{ConversationID: reply.ConversationID, Reply: reply.Text, Engine: reply.Engine, Proposals: views})
	return nil
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
	p, _ := auth.FromContext(r.Context())
	d, err := s.assistant.Decide(r.Context(), p, id, decision)
	if err != nil {
		return err
	}
	if d.Refused != nil {
		// The route refused (its scope, its validation, the state of a
		// record): its answer goes back as it is, nothing was written, and
		// the proposal stays pending.
		sendAnswer(w, *d.Refused)
		return nil
	}
	s.writeDecided(w, d.Proposal)
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

// assistantRoutes is the assistant's way to the REST routes
// (assistant.Routes): served in process, through the router, as the caller.
type assistantRoutes struct{ s *Server }

// Call serves one request through the router as p (see assistant.Routes).
func (a assistantRoutes) Call(ctx context.Context, p auth.Principal, method, target string, body []byte) assistant.Response {
	r, err := http.NewRequestWithContext(ctx, method, target, bytes.NewReader(body))
	if err != nil {
		return assistant.Response{Status: http.StatusBadRequest, Err: &assistant.RouteError{Code: CodeValidation, Message: err.Error()}}
	}
	r.Header.Set("Accept", "application/json")
	if len(body) > 0 {
		r.Header.Set("Content-Type", "application/json")
	}
	rec := &bufferedResponse{header: http.Header{}}
	a.s.ServeAs(p, rec, r)
	res := assistant.Response{Status: rec.status, ContentType: rec.header.Get("Content-Type"), Body: rec.body.Bytes()}
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
		Error   *errorDetail    `json:"error"`
	}
	if err := json.Unmarshal(res.Body, &env); err != nil {
		res.Err = &assistant.RouteError{Code: CodeInternal, Message: "the route did not answer with JSON"}
		return res
	}
	switch {
	case env.Success:
		res.Data = env.Data
		if res.Data == nil {
			res.Data = json.RawMessage("null")
		}
	case env.Error != nil:
		res.Err = &assistant.RouteError{Code: env.Error.Code, Message: env.Error.Message}
	default:
		res.Err = &assistant.RouteError{Code: CodeInternal, Message: "the route answered without an envelope"}
	}
	return res
}

// RecordPaths returns the GET routes that show the records a path names:
// for each path parameter, the path up to it, when the server has a GET
// route for it (/api/v1/bills/{id} for /api/v1/bills/{id}/payments). A path
// whose record has none (a loan instance) is checked by its route on confirm.
func (a assistantRoutes) RecordPaths(path string) []string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	var out []string
	for _, rt := range a.s.routes {
		if rt.Method != http.MethodGet || rt.Page {
			continue
		}
		pattern := strings.Split(strings.Trim(rt.Path, "/"), "/")
		if len(pattern) > len(segs) || !strings.HasPrefix(pattern[len(pattern)-1], ":") {
			continue
		}
		match := true
		for i, p := range pattern {
			// A parameter matches an id only: /loans/:id must not take the
			// static "instances" of /loans/instances/{instanceId}/payments.
			if (strings.HasPrefix(p, ":") && !finance.ValidID(segs[i])) || (!strings.HasPrefix(p, ":") && p != segs[i]) {
				match = false
				break
			}
		}
		if match {
			out = append(out, "/"+strings.Join(segs[:len(pattern)], "/"))
		}
	}
	return out
}

// sendAnswer copies a route's answer to w as it was.
func sendAnswer(w http.ResponseWriter, res assistant.Response) {
	if res.ContentType != "" {
		w.Header().Set("Content-Type", res.ContentType)
	}
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(res.Status)
	_, _ = w.Write(res.Body)
}
