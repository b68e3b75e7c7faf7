package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/finance"
)

// statementPrefixes are the route groups whose responses show the
// statements due on the user's cards (domain.md §1.7): a card billed on the
// 15th shows its statement on the 16th with nobody running a job.
var statementPrefixes = []string{APIPrefix + "credit-cards", APIPrefix + "expenses", APIPrefix + "bills",
	APIPrefix + "dashboard", APIPrefix + "reports"}

// billPrefixes are the route groups whose responses show the bill instances
// due through the horizon of every active template (§1.7, §2.10).
var billPrefixes = []string{APIPrefix + "bills", APIPrefix + "dashboard", APIPrefix + "reports"}

func under(path string, prefixes []string) bool {
	for _, p := range prefixes {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// generates reports whether requests to path generate anything first.
func generates(path string) bool { return under(path, statementPrefixes) || under(path, billPrefixes) }

// withGeneration runs h after generating what is due for the route's group:
// the statements, the bill instances, or both. Nothing due costs one indexed
// read each. A failed generation is logged and the request goes on: a read
// can still answer (the next request retries), and a write generates again
// inside its own transaction, where a failure fails it.
func (s *Server) withGeneration(path string, h handlerFunc) handlerFunc {
	statements, bills := under(path, statementPrefixes), under(path, billPrefixes)
	return func(w http.ResponseWriter, r bunrouter.Request) error {
		s.generateDue(r.Context(), userID(r), statements, bills)
		return h(w, r)
	}
}

// generateDue generates the user's statements and bill instances that are
// due, as asked; a failure is logged (see withGeneration).
func (s *Server) generateDue(ctx context.Context, userID string, statements, bills bool) {
	if statements {
		if err := s.ledger.GenerateStatements(ctx, userID); err != nil {
			s.log.WarnContext(ctx, "statement generation failed", "error", err)
		}
	}
	if bills {
		if err := s.ledger.GenerateBills(ctx, userID, finance.Date{}); err != nil {
			s.log.WarnContext(ctx, "bill generation failed", "error", err)
		}
	}
}
