package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/store"
)

// fullDisk is the test database on a full disk: every ledger write fails
// as the store fails one that finds no room (finance.ErrStorageFull).
type fullDisk struct{ *store.DB }

func (fullDisk) Write(context.Context, func(finance.Repo) error) error {
	return fmt.Errorf("store: commit: %w: database or disk is full (13)", finance.ErrStorageFull)
}

// A write tool on a full disk is a tool error carrying the route's answer:
// the server could not save, nothing was saved.
func TestWriteToolOnAFullDisk(t *testing.T) {
	env := newTestEnvOn(t, func(db *store.DB) server.Database { return fullDisk{db} })
	key := env.key(auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeMCP)
	res := env.callTool(key, "create_expense", map[string]any{
		"amount": "12.50", "date": "2025-03-08", "description": "Bus", "category": "Transportation", "payment_method": "Cash",
	})
	got := res.problem(t)
	if got["code"] != "INTERNAL_SERVER_ERROR" || !strings.HasPrefix(fmt.Sprint(got["message"]), "The server could not save: its disk is full, so nothing was saved.") {
		t.Errorf("tool error %v; want the REST answer to a write on a full disk", got)
	}
	if _, list := env.rest(key, http.MethodGet, "/api/v1/expenses", ""); list.Data.(map[string]any)["pagination"].(map[string]any)["total_items"] != json.Number("0") {
		t.Errorf("expenses stored on a full disk: %v", list.Data)
	}
}
