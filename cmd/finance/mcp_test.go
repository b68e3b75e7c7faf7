package main

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"

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

// TestMCPEndpointIsBuiltOnFirstUse: serve does not build the endpoint at
// start; the first request builds it, once, and the next ones reuse it.
func TestMCPEndpointIsBuiltOnFirstUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		builds := 0
		m := buildMCP(func() (*mcpserver.Handler, error) {
			builds++
			return nil, errors.New("not needed here")
		})
		synctest.Wait() // anything started in the background has run
		if builds != 0 {
			t.Fatalf("built %d time(s) before any use", builds)
		}
		for range 2 {
			rec := httptest.NewRecorder()
			m.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/api/mcp", nil))
		}
		m.ToolNames()
		synctest.Wait()
		if builds != 1 {
			t.Errorf("built %d times after three uses, want 1", builds)
		}
	})
}
