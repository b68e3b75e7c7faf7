package telegram

import (
	"context"
	"encoding/json"
	"net/http"
)

// RESTAssistant is the Assistant served by the REST routes POST
// /ai-assistant/chat and POST /ai-assistant/confirm, called in process as
// the linked user: the bot depends on their contract, not on the
// assistant's internals, and every check of those routes applies.
type RESTAssistant struct {
	API API
}

// NewRESTAssistant returns the assistant of the REST routes reached through api.
func NewRESTAssistant(api API) *RESTAssistant { return &RESTAssistant{API: api} }

// Chat calls POST /ai-assistant/chat.
func (a *RESTAssistant) Chat(ctx context.Context, userID, conversationID, message string) (ChatAnswer, error) {
	req := map[string]string{"message": message}
	if conversationID != "" {
		req["conversation_id"] = conversationID
	}
	body, _ := json.Marshal(req)
	resp := a.API.Call(ctx, userID, Request{Method: http.MethodPost, Path: "/api/v1/ai-assistant/chat",
		ContentType: "application/json", Body: body})
	if !resp.OK() {
		return ChatAnswer{}, refused(resp)
	}
	var data struct {
		ConversationID string `json:"conversation_id"`
		Reply          string `json:"reply"`
		Proposals      []struct {
			ID      string `json:"id"`
			Summary string `json:"summary"`
			Status  string `json:"status"`
		} `json:"proposals"`
	}
	if err := json.Unmarshal(resp.Data, &data); err != nil {
		return ChatAnswer{}, err
	}
	ans := ChatAnswer{ConversationID: data.ConversationID, Reply: data.Reply}
	for _, p := range data.Proposals {
		if p.Status == "" || p.Status == "pending" {
			ans.Proposals = append(ans.Proposals, Proposal{ID: p.ID, Summary: p.Summary})
		}
	}
	return ans, nil
}

// Decide calls POST /ai-assistant/confirm with decision confirm or reject.
func (a *RESTAssistant) Decide(ctx context.Context, userID, proposalID string, confirm bool) (Decision, error) {
	decision := "reject"
	if confirm {
		decision = "confirm"
	}
	body, _ := json.Marshal(map[string]string{"proposal_id": proposalID, "decision": decision})
	resp := a.API.Call(ctx, userID, Request{Method: http.MethodPost, Path: "/api/v1/ai-assistant/confirm",
		ContentType: "application/json", Body: body})
	if !resp.OK() {
		return Decision{}, refused(resp)
	}
	var data struct {
		Proposal struct {
			Status  string `json:"status"`
			Summary string `json:"summary"`
		} `json:"proposal"`
	}
	if err := json.Unmarshal(resp.Data, &data); err != nil {
		return Decision{}, err
	}
	return Decision{Status: data.Proposal.Status, Summary: data.Proposal.Summary}, nil
}
