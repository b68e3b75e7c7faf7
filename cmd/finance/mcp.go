package main

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime/debug"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/mcpserver"
)

// mcpEndpoint is the MCP endpoint, built beside the server rather than
// before it listens: building it reads the whole OpenAPI contract (the
// tools' schemas), which took longer than the rest of start-up. A request
// that arrives before it is built waits for it; so does the assistant's
// first look at the tools.
type mcpEndpoint struct {
	ready chan struct{} // closed once h or err is set
	h     *mcpserver.Handler
	err   error
}

// buildMCP starts building the endpoint with build, in the background.
func buildMCP(build func() (*mcpserver.Handler, error)) *mcpEndpoint {
	m := &mcpEndpoint{ready: make(chan struct{})}
	go func() {
		defer close(m.ready)
		m.h, m.err = build()
		// Reading the contract leaves about 10 MB of garbage behind, the
		// most the process allocates before it serves anything: hand it
		// back to the system now rather than keep it while idle.
		debug.FreeOSMemory()
	}()
	return m
}

// wait returns the endpoint once it is built, or why it could not be.
func (m *mcpEndpoint) wait() (*mcpserver.Handler, error) {
	<-m.ready
	return m.h, m.err
}

func (m *mcpEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, err := m.wait()
	if err != nil {
		// serve stops the server when the endpoint cannot be built.
		http.Error(w, "the MCP endpoint is not available", http.StatusServiceUnavailable)
		return
	}
	h.ServeHTTP(w, r)
}

// The assistant's tool table (assistant.ToolTable): the endpoint's tools.

func (m *mcpEndpoint) ToolNames() []string {
	h, err := m.wait()
	if err != nil {
		return nil
	}
	return h.ToolNames()
}

func (m *mcpEndpoint) ToolInfo(name string) (title, description string, inputSchema json.RawMessage, readOnly bool,
	access auth.Requirement, ok bool,
) {
	h, err := m.wait()
	if err != nil {
		return "", "", nil, false, auth.Requirement{}, false
	}
	return h.ToolInfo(name)
}

func (m *mcpEndpoint) ToolRequest(ctx context.Context, name string, args json.RawMessage) (method, target string, body []byte, err error) {
	h, err := m.wait()
	if err != nil {
		return "", "", nil, err
	}
	return h.ToolRequest(ctx, name, args)
}
