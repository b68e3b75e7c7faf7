package server

import (
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
)

// Generated request ids keep the form the logs and X-Request-Id document:
// a canonical lowercase UUID of version 7 whose first 48 bits are the
// request's millisecond, and no two are alike, however many goroutines ask.
func TestRequestIDsAreUUIDv7AndUnique(t *testing.T) {
	g := newRequestIDs()
	at := time.Date(2026, 11, 27, 8, 51, 41, 881_000_000, time.UTC)
	const workers, each = 8, 5000
	ids := make([][]string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				ids[w] = append(ids[w], g.next(at))
			}
		})
	}
	wg.Wait()
	seen := make(map[string]bool, workers*each)
	for _, list := range ids {
		for _, id := range list {
			if !finance.ValidID(id) {
				t.Fatalf("id %q is not a canonical UUID", id)
			}
			raw, err := hex.DecodeString(strings.ReplaceAll(id, "-", ""))
			if err != nil || len(raw) != 16 {
				t.Fatalf("id %q does not decode: %v", id, err)
			}
			if raw[6]>>4 != 7 || raw[8]>>6 != 2 {
				t.Fatalf("id %q: version %d, variant bits %b; want 7 and 10", id, raw[6]>>4, raw[8]>>6)
			}
			ms := uint64(raw[0])<<40 | uint64(raw[1])<<32 | uint64(raw[2])<<24 | uint64(raw[3])<<16 | uint64(raw[4])<<8 | uint64(raw[5])
			if ms != uint64(at.UnixMilli()) {
				t.Fatalf("id %q carries millisecond %d, want %d", id, ms, at.UnixMilli())
			}
			if seen[id] {
				t.Fatalf("id %q was handed out twice", id)
			}
			seen[id] = true
		}
	}
	// Another process (another generator) does not start where this one is.
	if a, b := newRequestIDs().next(at), newRequestIDs().next(at); a == b {
		t.Errorf("two generators made the same first id %q", a)
	}
}

// The response headers shared by every response (one value slice for all)
// are not changed by a handler that adds to its own response's header.
func TestSharedHeaderValuesStayPut(t *testing.T) {
	first := httptest.NewRecorder()
	writeJSON(first, http.StatusOK, map[string]int{"a": 1})
	first.Header().Add("Cache-Control", "private")
	first.Header().Add("Content-Type", "text/plain")
	first.Header().Add("X-Content-Type-Options", "other")

	second := httptest.NewRecorder()
	writeJSON(second, http.StatusOK, map[string]int{"a": 1})
	if got := second.Header().Values("Cache-Control"); len(got) != 1 || got[0] != "no-store" {
		t.Errorf("Cache-Control = %q, want only no-store", got)
	}
	if got := second.Header().Values("Content-Type"); len(got) != 1 || got[0] != "application/json; charset=utf-8" {
		t.Errorf("Content-Type = %q, want only JSON", got)
	}
	if got := headerNosniff; len(got) != 1 || got[0] != "nosniff" {
		t.Errorf("the shared nosniff value became %q", got)
	}
}

// Response bodies encoded in reused buffers carry nothing of an earlier
// response: not of a larger one, nor of one whose encoding failed halfway.
func TestReusedResponseBuffersStartEmpty(t *testing.T) {
	big := httptest.NewRecorder()
	writeJSON(big, http.StatusOK, map[string]string{"filler": strings.Repeat("x", 10_000)})
	broken := httptest.NewRecorder()
	writeJSON(broken, http.StatusOK, map[string]any{"a": "partial", "z": func() {}})
	if broken.Code != http.StatusInternalServerError || !strings.Contains(broken.Body.String(), "response encoding failed") {
		t.Fatalf("an unencodable value answered %d %s", broken.Code, broken.Body)
	}
	for range 50 {
		rec := httptest.NewRecorder()
		writeJSON(rec, http.StatusCreated, map[string]int{"n": 1})
		if rec.Code != http.StatusCreated || rec.Body.String() != "{\"n\":1}\n" {
			t.Fatalf("answered %d %q, want 201 {\"n\":1}", rec.Code, rec.Body)
		}
	}
}
