package server

import (
	"context"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server/auth"
)

func (s *Server) modelReady() bool { return false }

func (s *Server) modelAnswer(ctx context.Context, p auth.Principal, in finance.ParseInputs, history []finance.ChatTurn, message string) (assistantAnswer, error) {
	return assistantAnswer{}, nil
}
