package testkit

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"
)

// LogBuffer collects a server's log lines; requests write them from their
// own goroutines.
type LogBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Reset forgets the lines logged so far.
func (b *LogBuffer) Reset() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Reset()
}

// JSONLines decodes each line of a log written with --log-format json,
// failing t on a line that is not one JSON object.
func (b *LogBuffer) JSONLines(t testing.TB) []map[string]any {
	t.Helper()
	var lines []map[string]any
	for line := range strings.Lines(b.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("a log line is not a JSON object (%v): %s", err, line)
			continue
		}
		lines = append(lines, rec)
	}
	return lines
}

// WantRequestLines checks that every line of a JSON log logged while one
// request was served carries that request's id (its X-Request-Id), and that
// the messages want are among them: the lines logged deep inside, by the
// packages the request went through, carry it as the access log does.
func (b *LogBuffer) WantRequestLines(t testing.TB, requestID string, want ...string) {
	t.Helper()
	if requestID == "" {
		t.Fatal("the response has no X-Request-Id")
	}
	lines := b.JSONLines(t)
	msgs := map[string]bool{}
	for _, rec := range lines {
		msgs[rec["msg"].(string)] = true
		if rec["request_id"] != requestID {
			t.Errorf("log line %q has request_id %v, want %s (the response's X-Request-Id): %v", rec["msg"], rec["request_id"], requestID, rec)
		}
	}
	for _, m := range want {
		if !msgs[m] {
			t.Errorf("no log line %q; the log:\n%s", m, b)
		}
	}
}
