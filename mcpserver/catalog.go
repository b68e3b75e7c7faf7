package mcpserver

import (
	"context"
	"encoding/json"
	"io"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// The tool table as other programs in the binary offer it to a model: the
// AI assistant (package assistant, its ToolTable port) gives its model the
// read tools, and proposes the writes, with the same names, descriptions
// and input schemas an MCP client sees, and builds each call's REST request
// the same way a tools/call does. Neither the server nor the assistant
// imports this package, so these methods use plain values and the binary
// passes the Handler in.

// ToolNames lists the tools in table order, but for those whose route runs
// the AI itself (parsing, the assistant): the assistant's model calling a
// model would spend the user's AI budget twice for one answer, or call the
// assistant back.
func (h *Handler) ToolNames() []string {
	var names []string
	for _, t := range h.tools {
		if !t.runsAI {
			names = append(names, t.name)
		}
	}
	return names
}

// ToolInfo describes the tool called name (ok is false for no such tool):
// its title and description, its input schema, whether it only reads, and
// the requirement of the route it wraps.
func (h *Handler) ToolInfo(name string) (title, description string, inputSchema json.RawMessage, readOnly bool,
	access auth.Requirement, ok bool,
) {
	t, ok := h.byName[name]
	if !ok {
		return "", "", nil, false, auth.Requirement{}, false
	}
	return t.title, t.description, t.inputSchema, t.hints.readOnly, t.access, true
}

// ToolRequest builds the REST request of a call of the tool called name
// with args, as tools/call does, and returns it as plain values: its
// method, its target (path and query) and its body. Arguments that cannot
// form it are a *finance.ValidationError, whose message a model can act
// on. An idempotency_key argument is not part of these values: a caller
// that serves them is exactly-once by its own means (the assistant's
// proposals are, by their ids).
func (h *Handler) ToolRequest(ctx context.Context, name string, args json.RawMessage) (method, target string, body []byte, err error) {
	t, ok := h.byName[name]
	if !ok {
		return "", "", nil, finance.Invalid("name", "is not a tool of this server")
	}
	r, problem := t.request(ctx, args)
	if problem != nil {
		return "", "", nil, &finance.ValidationError{Message: problem.Message, Fields: problem.Fields}
	}
	if r.Body != nil {
		if body, err = io.ReadAll(r.Body); err != nil {
			return "", "", nil, finance.Invalid("arguments", "do not form a request")
		}
	}
	return r.Method, r.URL.RequestURI(), body, nil
}
