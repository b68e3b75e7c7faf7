// Package telegramtest is a fake Telegram Bot API for tests: an httptest
// server that answers the methods the bot uses and records every call, so
// tests can assert what the bot sent (texts, buttons) without the network.
package telegramtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// Call is one recorded Bot API call.
type Call struct {
	Method string
	Body   map[string]any
}

// Text is the call's "text" field ("" when there is none).
func (c Call) Text() string { s, _ := c.Body["text"].(string); return s }

// Buttons are the callback data of the call's inline keyboard, row by row flattened.
func (c Call) Buttons() []string {
	var out []string
	markup, _ := c.Body["reply_markup"].(map[string]any)
	rows, _ := markup["inline_keyboard"].([]any)
	for _, row := range rows {
		btns, _ := row.([]any)
		for _, b := range btns {
			m, _ := b.(map[string]any)
			data, _ := m["callback_data"].(string)
			out = append(out, data)
		}
	}
	return out
}

// ButtonLabels are the texts of the call's inline keyboard buttons.
func (c Call) ButtonLabels() []string {
	var out []string
	markup, _ := c.Body["reply_markup"].(map[string]any)
	rows, _ := markup["inline_keyboard"].([]any)
	for _, row := range rows {
		btns, _ := row.([]any)
		for _, b := range btns {
			m, _ := b.(map[string]any)
			text, _ := m["text"].(string)
			out = append(out, text)
		}
	}
	return out
}

// Server is the fake Bot API.
type Server struct {
	*httptest.Server
	Token string

	mu    sync.Mutex
	calls []Call
	files map[string][]byte // file_id -> content, for getFile and downloads
}

// New starts a fake Bot API for token, stopped when the test ends.
func New(t testing.TB, token string) *Server {
	f := &Server{Token: token, files: map[string][]byte{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

// AddFile makes a file downloadable by its id.
func (f *Server) AddFile(id string, content []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.files[id] = content
}

// Calls returns the recorded calls of method ("" for all), in order.
func (f *Server) Calls(method string) []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []Call
	for _, c := range f.calls {
		if method == "" || c.Method == method {
			out = append(out, c)
		}
	}
	return out
}

// Reset forgets the recorded calls.
func (f *Server) Reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = nil
}

func (f *Server) serve(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if name, ok := strings.CutPrefix(r.URL.Path, "/file/bot"+f.Token+"/"); ok {
		f.mu.Lock()
		b, found := f.files[strings.TrimPrefix(name, "photos/")]
		f.mu.Unlock()
		if !found {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(b)
		return
	}
	method, ok := strings.CutPrefix(r.URL.Path, "/bot"+f.Token+"/")
	if !ok {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = io.WriteString(w, `{"ok":false,"error_code":401,"description":"Unauthorized"}`)
		return
	}
	var body map[string]any
	_ = json.NewDecoder(r.Body).Decode(&body)
	f.mu.Lock()
	f.calls = append(f.calls, Call{Method: method, Body: body})
	f.mu.Unlock()

	if method == "sendMessage" {
		if text, _ := body["text"].(string); !ValidMarkdownV2(text) {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"ok":false,"error_code":400,"description":"Bad Request: can't parse entities"}`)
			return
		}
	}
	switch method {
	case "getFile":
		id, _ := body["file_id"].(string)
		f.mu.Lock()
		b, found := f.files[id]
		f.mu.Unlock()
		if !found {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"ok":false,"error_code":400,"description":"Bad Request: invalid file_id"}`)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{
			"file_id": id, "file_size": len(b), "file_path": "photos/" + id}})
	case "sendMessage":
		_ = json.NewEncoder(w).Encode(map[string]any{"ok": true, "result": map[string]any{"message_id": len(f.Calls("sendMessage"))}})
	default:
		_, _ = io.WriteString(w, `{"ok":true,"result":true}`)
	}
}

// ValidMarkdownV2 reports whether text would parse as MarkdownV2 the way
// Telegram checks it: every reserved character outside code is escaped or
// part of a balanced * or _ entity, and code spans are closed.
func ValidMarkdownV2(text string) bool {
	const reserved = "_*[]()~`>#+-=|{}.!"
	open := map[rune]bool{}
	inCode := false
	rs := []rune(text)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		if c == '\\' {
			if i+1 >= len(rs) {
				return false
			}
			i++
			continue
		}
		if inCode {
			if c == '`' {
				inCode = false
			}
			continue
		}
		switch c {
		case '`':
			inCode = true
		case '*', '_':
			open[c] = !open[c]
		default:
			if strings.ContainsRune(reserved, c) {
				return false
			}
		}
	}
	return !inCode && !open['*'] && !open['_']
}
