package ai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// toolCalls answers with a chat completion that calls tools; each call is
// {id, name, arguments}, where arguments is sent as written (a JSON string
// or, as some servers do, an object).
func toolCalls(calls ...[3]any) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		var wire []any
		for _, c := range calls {
			wire = append(wire, map[string]any{"id": c[0], "type": "function",
				"function": map[string]any{"name": c[1], "arguments": c[2]}})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "chat.completion", "choices": []any{
			map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": nil, "tool_calls": wire}}}})
	}
}

func TestChatToolCalls(t *testing.T) {
	f := newFakeService(t,
		toolCalls([3]any{"c1", "list_accounts", `{"limit":5}`}, [3]any{"", "get_dashboard_summary", map[string]any{"month": "2025-03"}},
			[3]any{"c3", "list_bills", nil}),
		completion("You have 2 accounts."))
	client := f.engine(Config{}).Client()
	tools := []ToolDef{{Name: "list_accounts", Description: "List accounts", Parameters: json.RawMessage(`{"type":"object"}`)}}
	msgs := []ChatMessage{{Role: "system", Content: "rules"}, {Role: "user", Content: "my balances?"}}
	got, err := client.Chat(context.Background(), "test-model", msgs, tools)
	if err != nil {
		t.Fatal(err)
	}
	want := ChatMessage{Role: "assistant", ToolCalls: []ToolCall{
		{ID: "c1", Name: "list_accounts", Arguments: `{"limit":5}`},
		{ID: "call_1", Name: "get_dashboard_summary", Arguments: `{"month":"2025-03"}`},
		{ID: "c3", Name: "list_bills", Arguments: `{}`},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// The calls and their results go back in the chat-completions form.
	msgs = append(msgs, got, ChatMessage{Role: "tool", ToolCallID: "c1", Content: `{"items":[]}`})
	reply, err := client.Chat(context.Background(), "test-model", msgs, tools)
	if err != nil || reply.Content != "You have 2 accounts." || reply.ToolCalls != nil {
		t.Fatalf("reply: %+v, %v", reply, err)
	}
	sent := f.requests()
	if diff := cmp.Diff([]any{map[string]any{"type": "function", "function": map[string]any{
		"name": "list_accounts", "description": "List accounts", "parameters": map[string]any{"type": "object"}}}},
		sent[0]["tools"]); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	second := sent[1]["messages"].([]any)
	if diff := cmp.Diff(map[string]any{"role": "assistant", "content": "", "tool_calls": []any{
		map[string]any{"id": "c1", "type": "function", "function": map[string]any{"name": "list_accounts", "arguments": `{"limit":5}`}},
		map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "get_dashboard_summary", "arguments": `{"month":"2025-03"}`}},
		map[string]any{"id": "c3", "type": "function", "function": map[string]any{"name": "list_bills", "arguments": `{}`}},
	}}, second[2]); diff != "" {
		t.Errorf("the assistant's calls as sent back (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"role": "tool", "content": `{"items":[]}`, "tool_call_id": "c1"}, second[3]); diff != "" {
		t.Errorf("the tool result as sent (-want +got):\n%s", diff)
	}
	if h := f.headers[0].Get("Authorization"); h != "Bearer sk-test" {
		t.Errorf("Authorization = %q", h)
	}
}

// Failures of the service are ErrService, so the assistant can fall back.
func TestChatFailures(t *testing.T) {
	for _, c := range []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
	}{
		{"error status", status(http.StatusInternalServerError, `{"error":"boom"}`)},
		{"malformed JSON", status(http.StatusOK, `{"choices":[{"message":`)},
		{"no choices", status(http.StatusOK, `{"choices":[]}`)},
		{"timeout", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeService(t, c.answer)
			client := f.engine(Config{ModelTimeout: 200 * time.Millisecond}).Client()
			_, err := client.Chat(context.Background(), "test-model", []ChatMessage{{Role: "user", Content: "hi"}}, nil)
			if !errors.Is(err, ErrService) {
				t.Errorf("err = %v, want ErrService", err)
			}
		})
	}
}
