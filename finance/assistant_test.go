package finance

import (
	"errors"
	"testing"
	"time"
)

func TestProposalDecisions(t *testing.T) {
	made := time.Date(2025, 3, 10, 20, 0, 0, 0, time.UTC)
	pending := Proposal{Status: ProposalPending, ExpiresAt: made.Add(ProposalTTL)}
	tests := []struct {
		name      string
		p         Proposal
		at        time.Time
		decision  string
		wantState string
		wantErr   bool
	}{
		{"pending", pending, made, DecisionConfirm, ProposalPending, false},
		{"a second before expiry", pending, made.Add(ProposalTTL - time.Second), DecisionReject, ProposalPending, false},
		{"at expiry", pending, made.Add(ProposalTTL), DecisionConfirm, ProposalExpired, true},
		{"confirmed, then rejected", Proposal{Status: ProposalConfirmed, ExpiresAt: made}, made.Add(time.Hour), DecisionReject, ProposalConfirmed, true},
		{"rejected, then confirmed", Proposal{Status: ProposalRejected, ExpiresAt: made}, made, DecisionConfirm, ProposalRejected, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.State(tt.at); got != tt.wantState {
				t.Errorf("State = %s, want %s", got, tt.wantState)
			}
			err := tt.p.CheckDecision(tt.at, tt.decision)
			if (err != nil) != tt.wantErr || (err != nil && !errors.Is(err, ErrInvalidStatus)) {
				t.Errorf("CheckDecision = %v, want error %v", err, tt.wantErr)
			}
		})
	}
	// A confirmed proposal stays confirmed after its expiry: its result is replayed.
	confirmed := Proposal{Status: ProposalConfirmed, ExpiresAt: made}
	if !confirmed.Decided(DecisionConfirm) || confirmed.Decided(DecisionReject) || pending.Decided(DecisionConfirm) {
		t.Error("Decided")
	}
}
