package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/finance-app/finance/mcpserver"
)

// TestMCPEndpointWaitsForItsBuild: a request that arrives while the
// endpoint is being built waits for the build; one that could not be built
// answers 503 and offers the assistant no tools.
func TestMCPEndpointWaitsForItsBuild(t *testing.T) {
	release := make(chan struct{})
	broken := errors.New("the contract has no such operation")
	m := buildMCP(func() (*mcpserver.Handler, error) {
		<-release
		return nil, broken
	})
	answered := make(chan *httptest.ResponseRecorder)
	go func() {
		rec := httptest.NewRecorder()
		m.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/mcp", nil))
		answered <- rec
	}()
	select {
	case rec := <-answered:
		t.Fatalf("answered %d before the endpoint was built", rec.Code)
	default:
	}
	close(release)
	if rec := <-answered; rec.Code != http.StatusServiceUnavailable {
		t.Errorf("a request to an endpoint that could not be built: %d, want 503", rec.Code)
	}
	if _, err := m.wait(); !errors.Is(err, broken) {
		t.Errorf("wait: %v, want the build's error", err)
	}
	if names := m.ToolNames(); names != nil {
		t.Errorf("the assistant is offered tools %v of an endpoint that could not be built", names)
	}
}
