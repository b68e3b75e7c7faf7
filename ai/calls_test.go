package ai

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// callLog records what a CallObserver is told, as "kind outcome".
type callLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *callLog) AICall(kind, outcome string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, kind+" "+outcome)
}

// TestCallsObserved: each call to the service, and each OCR run, is told
// with its kind and outcome; the built-in parser, which calls nothing, is
// not.
func TestCallsObserved(t *testing.T) {
	drafts := completion(`{"items":[{"amount":99,"date":null,"description":"Taxi","category":null,"payment_method":null,"account_id":null,"credit_card_id":null,"notes":null}]}`)
	f := newFakeService(t, drafts, status(500, `{"error":"model crashed"}`), drafts, completion("Hello."), status(502, "bad gateway"))
	log := &callLog{}
	e := f.engine(Config{Model: "test-model", VisionModel: "test-vision", Calls: log})
	in := fixture("YYYY-MM-DD")
	ctx := context.Background()

	if res, err := e.ParseText(ctx, in, "taxi 99"); err != nil || res.Engine != EngineOpenAI {
		t.Fatalf("text: %+v %v", res, err)
	}
	if res, err := e.ParseText(ctx, in, "taxi 99"); err != nil || res.Engine != EngineBuiltin {
		t.Fatalf("text, the model failing: %+v %v", res, err) // the built-in parser answered
	}
	if res, err := e.ParseImages(ctx, in, []Image{imageFile(t, []byte("\x89PNG\r\n\x1a\nfake"), "image/png")}); err != nil || res.Engine != EngineOpenAI {
		t.Fatalf("images: %+v %v", res, err)
	}
	msgs := []ChatMessage{{Role: "user", Content: "hi"}}
	if _, err := e.Client().Chat(ctx, "test-model", msgs, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Client().Chat(ctx, "test-model", msgs, nil); err == nil {
		t.Fatal("a chat the service failed: no error")
	}
	if _, err := New(Config{Calls: log}).ParseText(ctx, in, "taxi 99"); err != nil {
		t.Fatal(err)
	}
	want := []string{"text ok", "text error", "vision ok", "chat ok", "chat error"}
	if diff := cmp.Diff(want, log.calls); diff != "" {
		t.Errorf("calls told (-want +got):\n%s", diff)
	}
	if len(f.requests()) != 5 {
		t.Errorf("%d requests to the service, want 5", len(f.requests()))
	}

	if runtime.GOOS == "windows" {
		return
	}
	// OCR: one run per photo, one that reads and one whose program fails.
	dir := t.TempDir()
	script := filepath.Join(dir, "ocr")
	body := "#!/bin/sh\ncase \"$1\" in *bad*) echo unreadable >&2; exit 1;; esac\necho 'JOLLIBEE'; echo 'TOTAL 492.00'\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	ocr, err := FindOCR(script, 0)
	if err != nil {
		t.Fatal(err)
	}
	log.calls = nil
	good := imageFile(t, []byte("\x89PNG\r\n\x1a\ngood"), "image/png")
	bad := good
	bad.Path = filepath.Join(dir, "bad.png")
	if err := os.WriteFile(bad.Path, []byte("\x89PNG\r\n\x1a\nbad"), 0o600); err != nil {
		t.Fatal(err)
	}
	res, err := New(Config{OCR: ocr, Calls: log}).ParseImages(ctx, in, []Image{good, bad})
	if err != nil || len(res.Items) != 2 {
		t.Fatalf("OCR: %+v %v", res, err)
	}
	if diff := cmp.Diff([]string{"ocr ok", "ocr error"}, log.calls); diff != "" {
		t.Errorf("OCR runs told (-want +got):\n%s", diff)
	}
}
