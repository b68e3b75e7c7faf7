package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Settings reads a user's app settings: the server's ledger
// (server.Server.Ledger) in the binary.
type Settings interface {
	AppSettings(ctx context.Context, userID string) (finance.AppSettings, error)
}

// contextLine tells the agent what every write needs and nothing in the
// tool list says: the user's today (writes take a date, and "yesterday"
// means the user's yesterday), the timezone that defines it, the reporting
// currency (that of summaries and of a new record by default), and the scopes of the credential, which decide the tools
// it has. It is added to the instructions of initialize and server/discover;
// without settings (or when they cannot be read) it names the scopes only.
func (h *Handler) contextLine(ctx context.Context) string {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return ""
	}
	var b strings.Builder
	if h.settings != nil {
		if s, err := h.settings.AppSettings(ctx, p.User.ID); err == nil {
			loc, err := time.LoadLocation(s.Timezone)
			if err != nil {
				loc = time.UTC
			}
			fmt.Fprintf(&b, "Today is %s in %s; the reporting currency is %s. ", finance.Today(h.now(), loc), s.Timezone, s.Currency)
		}
	}
	scopes := make([]string, len(p.Scopes))
	for i, s := range p.Scopes {
		scopes[i] = string(s)
	}
	fmt.Fprintf(&b, "This %s holds the scopes %s; tools needing others are not listed.", credential(p), strings.Join(scopes, ", "))
	return b.String()
}

// withContext is the instructions with the caller's context line first.
func (h *Handler) withContext(ctx context.Context) string {
	if line := h.contextLine(ctx); line != "" {
		return line + "\n\n" + Instructions
	}
	return Instructions
}

func credential(p auth.Principal) string {
	if p.Method == auth.MethodOAuth {
		return "connection"
	}
	return "API key"
}

// hiddenTool answers a tools/call of a tool that exists but that the
// caller's scopes hide with a tool error naming the scope it needs and how
// the user grants it, and reports whether it did. mcp-go would answer "tool
// not found", which leaves an agent nothing to tell the user. A name that
// is no tool at all is still not found. An OAuth token that can be widened
// is answered with a step-up challenge before this (stepUp).
func (h *Handler) hiddenTool(w http.ResponseWriter, r *http.Request, msg message) bool {
	p, t, refused := h.refusedCall(r, msg)
	if refused == nil {
		return false
	}
	var missing []string
	for _, s := range refused.Needed {
		if !slices.Contains(p.Scopes, s) {
			missing = append(missing, string(s))
		}
	}
	need := strings.Join(missing, " and ")
	if need == "" {
		need = "a scope"
	}
	how := "Create an API key that also holds " + need + " (the API keys page in Settings, or `finance keys create --scopes ...`) and connect with it; a key's scopes cannot be changed."
	if p.Method == auth.MethodOAuth {
		how = "Reconnect the app and approve " + need + " on the consent page (disconnect it first on Settings → Connected apps if it does not ask)."
	}
	text, _ := json.Marshal(restError{Code: "FORBIDDEN",
		Message: fmt.Sprintf("Tool %s needs the scope %s, which this %s does not hold. %s", t.name, need, credential(p), how)})
	result := mcp.CallToolResult{IsError: true, Content: []mcp.Content{mcp.NewTextContent(string(text))}}
	id := msg.id
	if id == nil {
		id = json.RawMessage("null")
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(struct {
		JSONRPC string             `json:"jsonrpc"`
		ID      json.RawMessage    `json:"id"`
		Result  mcp.CallToolResult `json:"result"`
	}{mcp.JSONRPC_VERSION, id, result})
	return true
}

// refusedCall reports a tools/call of a tool the caller's scopes do not
// allow: the caller, the tool, and the refusal (nil for any other message,
// an unknown tool, or an allowed call).
func (h *Handler) refusedCall(r *http.Request, msg message) (auth.Principal, tool, *auth.Error) {
	if msg.method != string(mcp.MethodToolsCall) {
		return auth.Principal{}, tool{}, nil
	}
	p, ok := auth.FromContext(r.Context())
	if !ok {
		return auth.Principal{}, tool{}, nil
	}
	var name string
	_ = json.Unmarshal(msg.params["name"], &name)
	t, ok := h.byName[name]
	if !ok {
		return auth.Principal{}, tool{}, nil
	}
	var refused *auth.Error
	if err := p.Allow(t.access); !errors.As(err, &refused) {
		return auth.Principal{}, tool{}, nil
	}
	return p, t, refused
}
