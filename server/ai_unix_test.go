//go:build unix

package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/internal/testkit"
)

// An OCR command that hangs under a wrapper script (its child sleeps,
// holding the output) no longer keeps the job slots and leaves requests
// unanswered: at the OCR timeout the whole command is killed, both parses
// answer with the image left empty, and both slots are free again.
func TestParseImagesWithAHungOCRWrapper(t *testing.T) {
	script := filepath.Join(t.TempDir(), "ocr")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 300 &\nwait\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ocr, err := ai.FindOCR(script, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	env, alice, bob := newAIEnv(t, func(c *Config) { c.AI = ai.New(ai.Config{OCR: ocr, MaxJobs: 2}) })
	body, ct := imagesForm(t, testkit.PNGStub)
	answers := make(chan apiResult, 2)
	for _, u := range []ledgerUser{alice, bob} {
		go func() {
			answers <- apiScenario{method: http.MethodPost, url: parseImagesURL, body: body,
				headers:    map[string]string{"Authorization": "Bearer " + u.key, "Content-Type": ct},
				wantStatus: http.StatusOK}.run(t, env)
		}()
	}
	for range 2 {
		select {
		case res := <-answers:
			if !strings.Contains(string(res.raw), `"items[0]: the image could not be read"`) {
				t.Errorf("answer %s; want the image left empty with a warning", res.raw)
			}
		case <-time.After(time.Minute): // the child sleeps for five
			t.Fatal("a parse still has no answer a minute after its OCR timed out")
		}
	}
	for i := range 2 {
		if _, err := env.srv.ai.Acquire(t.Context()); err != nil {
			t.Fatalf("job slot %d is still taken: %v", i+1, err)
		}
	}
}
