package ai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// Client talks to an OpenAI-compatible chat-completions service: Ollama,
// llama.cpp's server, LM Studio, vLLM, or a hosted one. It asks for JSON
// that matches a schema (response_format json_schema) and falls back to
// plain JSON mode (json_object) for servers that do not take a schema.
// Every call has a timeout, and answers are read up to a bound.
type Client struct {
	baseURL string // up to and including /v1
	apiKey  string
	timeout time.Duration
	http    *http.Client
	// noSchema is set once the server refused response_format json_schema.
	noSchema atomic.Bool
	calls    CallObserver // told of each Chat; the engine tells of its own calls
}

// DefaultModelTimeout bounds one call to the service. A parse request waits
// it out and still answers with the built-in parser within the server's
// write timeout (see server.MaxAITimeout).
const DefaultModelTimeout = 40 * time.Second

// maxModelResponse bounds the bytes read of an answer.
const maxModelResponse = 1 << 20

// NewClient returns a client of the service at baseURL (e.g.
// http://127.0.0.1:11434/v1); apiKey may be empty for a local server.
func NewClient(baseURL, apiKey string, timeout time.Duration, hc *http.Client) *Client {
	if timeout <= 0 {
		timeout = DefaultModelTimeout
	}
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{baseURL: strings.TrimRight(baseURL, "/"), apiKey: apiKey, timeout: timeout, http: hc}
}

// Message is one chat message. Content is a string, or a list of parts
// (text and image_url) for a vision model.
type Message struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// TextPart and ImagePart are the parts of a multimodal message.
type TextPart struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

type ImagePart struct {
	Type     string   `json:"type"` // "image_url"
	ImageURL ImageURL `json:"image_url"`
}

type ImageURL struct {
	URL string `json:"url"` // a data: URI
}

// ErrService is a failure of the service: unreachable, timed out, an
// error status, or an answer that is not the JSON asked for.
var ErrService = errors.New("AI service failed")

// CompleteJSON sends messages to model and decodes the JSON of its answer
// into out, which the schema (a JSON Schema object) describes.
func (c *Client) CompleteJSON(ctx context.Context, model string, messages []Message, schemaName string, schema map[string]any, out any) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	body := map[string]any{"model": model, "messages": messages, "temperature": 0, "stream": false}
	if !c.noSchema.Load() {
		body["response_format"] = map[string]any{"type": "json_schema",
			"json_schema": map[string]any{"name": schemaName, "strict": true, "schema": schema}}
		status, answer, err := c.post(ctx, body)
		if err != nil {
			return err
		}
		if status == http.StatusBadRequest || status == http.StatusUnprocessableEntity {
			if low := strings.ToLower(string(answer)); strings.Contains(low, "response_format") || strings.Contains(low, "json_schema") {
				c.noSchema.Store(true) // remembered: the next call goes straight to JSON mode
				return c.jsonMode(ctx, body, schema, out)
			}
		}
		return decodeAnswer(status, answer, out)
	}
	return c.jsonMode(ctx, body, schema, out)
}

// jsonMode asks for any JSON object, with the schema spelled out in the
// system message instead.
func (c *Client) jsonMode(ctx context.Context, body map[string]any, schema map[string]any, out any) error {
	s, _ := json.Marshal(schema)
	msgs := append([]Message{{Role: "system", Content: "Answer with one JSON object that matches this JSON Schema: " + string(s)}},
		body["messages"].([]Message)...)
	body["messages"] = msgs
	body["response_format"] = map[string]any{"type": "json_object"}
	status, answer, err := c.post(ctx, body)
	if err != nil {
		return err
	}
	return decodeAnswer(status, answer, out)
}

func (c *Client) post(ctx context.Context, body map[string]any) (int, []byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.baseURL+"/chat/completions", bytes.NewReader(b))
	if err != nil {
		return 0, nil, fmt.Errorf("%w: %v", ErrService, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, fmt.Errorf("%w: no answer within %s", ErrService, c.timeout)
		}
		return 0, nil, fmt.Errorf("%w: %v", ErrService, err)
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, maxModelResponse+1))
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, fmt.Errorf("%w: no answer within %s", ErrService, c.timeout)
		}
		return 0, nil, fmt.Errorf("%w: %v", ErrService, err)
	}
	if len(answer) > maxModelResponse {
		return 0, nil, fmt.Errorf("%w: the answer is larger than %d bytes", ErrService, maxModelResponse)
	}
	return resp.StatusCode, answer, nil
}

// decodeAnswer reads the JSON object in the first choice's message.
func decodeAnswer(status int, answer []byte, out any) error {
	if status != http.StatusOK {
		return quoting(fmt.Sprintf("status %d", status), answer)
	}
	var completion struct {
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(answer, &completion); err != nil || len(completion.Choices) == 0 {
		return quoting("not a chat completion", answer)
	}
	content := strings.TrimSpace(completion.Choices[0].Message.Content)
	// Some models wrap JSON in a Markdown code fence even in JSON mode.
	content = strings.TrimPrefix(content, "```json")
	content = strings.TrimPrefix(content, "```")
	content = strings.TrimSuffix(content, "```")
	if err := json.Unmarshal([]byte(content), out); err != nil {
		return fmt.Errorf("%w: the answer is not the JSON asked for: %v", ErrService, err)
	}
	return nil
}

// answerError is a failure of the AI service that quotes its answer. The
// person who asked reads it in the warning; but an answer may repeat what
// they wrote (descriptions, amounts), so the log shows it only at debug
// level (LogFailure).
type answerError struct{ reason, answer string }

func (e *answerError) Error() string { return ErrService.Error() + ": " + e.reason + ": " + e.answer }
func (e *answerError) Unwrap() error { return ErrService }

// quoting is the failure for reason, quoting the start of the answer.
func quoting(reason string, answer []byte) error {
	return &answerError{reason: reason, answer: snippet(answer)}
}

// LogFailure logs a failure of the AI service at warn level as msg, without
// the answer it may quote, and in full at debug level.
func LogFailure(ctx context.Context, log *slog.Logger, msg string, err error) {
	safe := err.Error()
	if ae := (*answerError)(nil); errors.As(err, &ae) {
		safe = strings.Replace(safe, ": "+ae.answer, " (the answer is logged at debug level)", 1)
	}
	log.WarnContext(ctx, msg, "error", safe)
	log.DebugContext(ctx, msg, "error", err)
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
