package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
)

// A conversation keeps its newest exchanges, belongs to its user, and is
// deleted with its proposals once it has had none for the retention window.
func TestAssistantConversations(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	alice, bob := createUser(t, db, "alice@example.com"), createUser(t, db, "bob@example.com")
	t0 := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	conv := finance.NewID()
	p := finance.Proposal{ID: finance.NewID(), Action: "create_expense", Summary: "Record lunch", Arguments: json.RawMessage(`{"amount":250}`),
		Method: "POST", Path: "/api/v1/expenses", Body: []byte(`{"amount":250}`), ExpiresAt: t0.Add(finance.ProposalTTL), CreatedAt: t0}
	for i := 1; i <= 25; i++ {
		var ps []finance.Proposal
		if i == 1 {
			ps = []finance.Proposal{p}
		}
		turn := finance.ChatTurn{Message: fmt.Sprintf("m%d", i), Reply: fmt.Sprintf("r%d", i), CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
		if err := db.SaveAssistantTurn(ctx, alice.ID, conv, turn, ps); err != nil {
			t.Fatal(err)
		}
	}
	last := t0.Add(25 * time.Minute)
	turns, err := db.AssistantTurns(ctx, alice.ID, conv, last)
	if err != nil || len(turns) != finance.MaxConversationTurns || turns[0].Message != "m6" || turns[19].Reply != "r25" ||
		!turns[19].CreatedAt.Equal(last) {
		t.Fatalf("turns: %d %+v, %v", len(turns), turns, err)
	}
	if _, err := db.AssistantTurns(ctx, bob.ID, conv, last); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("bob reads alice's conversation: %v", err)
	}
	got, err := db.AssistantProposal(ctx, alice.ID, p.ID)
	if err != nil || got.Status != finance.ProposalPending || string(got.Body) != `{"amount":250}` || !got.ExpiresAt.Equal(p.ExpiresAt) {
		t.Fatalf("proposal: %+v, %v", got, err)
	}
	if _, err := db.AssistantProposal(ctx, bob.ID, p.ID); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("bob reads alice's proposal: %v", err)
	}

	// Decided once: a second decision finds it no longer pending.
	at := t0.Add(26 * time.Minute)
	if err := db.DecideAssistantProposal(ctx, alice.ID, p.ID, finance.ProposalConfirmed, 201, json.RawMessage(`{"id":"e1"}`), at); err != nil {
		t.Fatal(err)
	}
	if err := db.DecideAssistantProposal(ctx, alice.ID, p.ID, finance.ProposalRejected, 0, nil, at); !errors.Is(err, finance.ErrInvalidStatus) {
		t.Errorf("second decision: %v", err)
	}
	got, _ = db.AssistantProposal(ctx, alice.ID, p.ID)
	if got.Status != finance.ProposalConfirmed || got.ResultStatus != 201 || string(got.ResultData) != `{"id":"e1"}` ||
		got.DecidedAt == nil || !got.DecidedAt.Equal(at) {
		t.Errorf("decided: %+v", got)
	}

	// Just inside the window it is kept; at its end it is gone, with its proposal.
	if err := db.PruneAssistant(ctx, last.Add(finance.ConversationTTL-time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AssistantProposal(ctx, alice.ID, p.ID); err != nil {
		t.Errorf("pruned too early: %v", err)
	}
	if err := db.PruneAssistant(ctx, last.Add(finance.ConversationTTL)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AssistantProposal(ctx, alice.ID, p.ID); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("after the retention window: %v", err)
	}
	if _, err := db.AssistantTurns(ctx, alice.ID, conv, last); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("the conversation after the retention window: %v", err)
	}
}
