package server

import (
	"net/http"
	"strings"

	"github.com/uptrace/bunrouter"
)

// generatingPrefixes are the route groups whose responses show the
// statements due on the user's cards (domain.md §1.7): a card billed on the
// 15th shows its statement on the 16th with nobody running a job.
var generatingPrefixes = []string{APIPrefix + "credit-cards", APIPrefix + "expenses", APIPrefix + "bills",
	APIPrefix + "dashboard", APIPrefix + "reports"}

func generates(path string) bool {
	for _, p := range generatingPrefixes {
		if path == p || strings.HasPrefix(path, p+"/") {
			return true
		}
	}
	return false
}

// withGeneration runs h after generating the statements due. Nothing due
// costs one indexed read. A failed generation is logged and the request
// goes on: a read can still answer (the next request retries), and a write
// generates again inside its own transaction, where a failure fails it.
func (s *Server) withGeneration(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r bunrouter.Request) error {
		if err := s.ledger.GenerateStatements(r.Context(), userID(r)); err != nil {
			s.log.WarnContext(r.Context(), "statement generation failed", "error", err)
		}
		return h(w, r)
	}
}
