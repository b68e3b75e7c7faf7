package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// Tool calling (the AI assistant): the chat-completions request with
// "tools", and the model's answer, which is either text or calls of those
// tools. The caller runs the calls and sends their results back; this
// client only carries messages, with the same timeout and bounded reads as
// CompleteJSON.

// ToolDef is a function the model may call.
type ToolDef struct {
	Name        string
	Description string
	Parameters  json.RawMessage // a JSON Schema object
}

// ToolCall is one call the model asked for. Arguments is the JSON text the
// model wrote, which may be anything: the caller checks it.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// ChatMessage is one message of a conversation with tools: the system's,
// the user's, the assistant's (text or tool calls), or a tool's result
// (ToolCallID names the call it answers).
type ChatMessage struct {
	Role       string
	Content    string
	ToolCalls  []ToolCall
	ToolCallID string
}

// wireToolCall is a tool call as the chat-completions API writes it.
type wireToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
		// Arguments is a string of JSON in OpenAI's API; some compatible
		// servers send the object itself, which is accepted too.
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type wireMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []wireToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

// MarshalJSON writes the message as the chat-completions API reads it.
func (m ChatMessage) MarshalJSON() ([]byte, error) {
	w := wireMessage{Role: m.Role, Content: m.Content, ToolCallID: m.ToolCallID}
	for _, c := range m.ToolCalls {
		var wc wireToolCall
		wc.ID, wc.Type, wc.Function.Name = c.ID, "function", c.Name
		args, err := json.Marshal(c.Arguments)
		if err != nil {
			return nil, err
		}
		wc.Function.Arguments = args
		w.ToolCalls = append(w.ToolCalls, wc)
	}
	return json.Marshal(w)
}

// Chat sends the conversation and the tools to model and returns its next
// message: text (a reply) or tool calls. Every call has the client's
// timeout; a failure, a timeout or an answer that is not a chat completion
// is ErrService.
func (c *Client) Chat(ctx context.Context, model string, messages []ChatMessage, tools []ToolDef) (_ ChatMessage, err error) {
	defer func() { observeCall(c.calls, CallChat, err) }()
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type tool struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	body := map[string]any{"model": model, "messages": messages, "temperature": 0, "stream": false}
	if len(tools) > 0 {
		wire := make([]tool, len(tools))
		for i, t := range tools {
			wire[i] = tool{Type: "function", Function: function{Name: t.Name, Description: t.Description, Parameters: t.Parameters}}
		}
		body["tools"] = wire
		body["tool_choice"] = "auto"
	}
	status, answer, err := c.post(ctx, body)
	if err != nil {
		return ChatMessage{}, err
	}
	if status != http.StatusOK {
		return ChatMessage{}, quoting(fmt.Sprintf("status %d", status), answer)
	}
	var completion struct {
		Choices []struct {
			Message wireMessage `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(answer, &completion); err != nil || len(completion.Choices) == 0 {
		return ChatMessage{}, quoting("not a chat completion", answer)
	}
	w := completion.Choices[0].Message
	out := ChatMessage{Role: "assistant", Content: w.Content}
	for i, wc := range w.ToolCalls {
		call := ToolCall{ID: wc.ID, Name: wc.Function.Name, Arguments: "{}"}
		if call.ID == "" {
			call.ID = fmt.Sprintf("call_%d", i)
		}
		if raw := bytes.TrimSpace(wc.Function.Arguments); len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
			var s string
			if json.Unmarshal(raw, &s) == nil {
				call.Arguments = s
			} else {
				call.Arguments = string(raw)
			}
		}
		out.ToolCalls = append(out.ToolCalls, call)
	}
	return out, nil
}

// ChatModel is the model the assistant talks to, "" when none is configured.
func (e *Engine) ChatModel() string {
	if e.client == nil {
		return ""
	}
	return e.cfg.Model
}
