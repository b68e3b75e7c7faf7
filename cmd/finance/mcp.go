package main

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime/debug"
	"sync"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/mcpserver"
)

// mcpEndpoint is the MCP endpoint, built on its first use (an MCP request,
// or the assistant's first look at the tools) rather than at start:
// building it reads the whole OpenAPI contract (the tools' schemas), which
// took longer than the rest of start-up, and the endpoint with its schemas
// is memory a server whose clients never use MCP need not hold. Requests
// that arrive while it is being built wait for it.
type mcpEndpoint struct {
	build func() (*mcpserver.Handler, error)
	once  sync.Once
	h     *mcpserver.Handler
	err   error
}

// buildMCP returns the endpoint that build makes on first use.
func buildMCP(build func() (*mcpserver.Handler, error)) *mcpEndpoint {
	return &mcpEndpoint{build: build}
}

// wait returns the endpoint, building it first if no one has, or why it
// could not be built.
func (m *mcpEndpoint) wait() (*mcpserver.Handler, error) {
	m.once.Do(func() {
		m.h, m.err = m.build()
		// Reading the contract leaves about 10 MB of garbage behind: hand
		// it back to the system rather than keep it while idle, in the
		// background, so that the request that waited is not kept longer.
		go debug.FreeOSMemory()
	})
	return m.h, m.err
}

func (m *mcpEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h, err := m.wait()
	if err != nil {
		// serve logs why (see serve.go); the rest of the service goes on.
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
