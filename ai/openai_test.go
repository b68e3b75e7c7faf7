package ai

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// fakeService is a local OpenAI-compatible chat-completions server with
// canned answers, one per request in order (the last one repeats).
type fakeService struct {
	t       *testing.T
	mu      sync.Mutex
	answers []func(w http.ResponseWriter, r *http.Request)
	bodies  []map[string]any
	headers []http.Header
	srv     *httptest.Server
}

func newFakeService(t *testing.T, answers ...func(w http.ResponseWriter, r *http.Request)) *fakeService {
	f := &fakeService{t: t, answers: answers}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil {
			t.Errorf("the client sent a body that is not JSON: %s", b)
		}
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.headers = append(f.headers, r.Header.Clone())
		answer := f.answers[min(len(f.bodies), len(f.answers))-1]
		f.mu.Unlock()
		answer(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeService) engine(cfg Config) *Engine {
	cfg.BaseURL = f.srv.URL + "/v1"
	if cfg.Model == "" && cfg.VisionModel == "" {
		cfg.Model = "test-model"
	}
	cfg.APIKey = "sk-test"
	cfg.HTTPClient = f.srv.Client()
	cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	return New(cfg)
}

func (f *fakeService) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies
}

// completion answers with a chat completion whose message is content.
func completion(content string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"id": "x", "object": "chat.completion",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}}}})
	}
}

func status(code int, body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(code)
		_, _ = io.WriteString(w, body)
	}
}

const otherUsersAccount = "019a8000-0000-7000-8000-0000000000ff"

func TestModelDraftsAreChecked(t *testing.T) {
	answer := `{"items":[
		{"amount":250,"date":"2025-11-13","description":"Lunch","category":"Food & Dining","payment_method":"Cash","account_id":null,"credit_card_id":null,"notes":null},
		{"amount":"180.50","date":"2025-11-13","description":"Grab","category":"Rides","payment_method":"Account Debit","account_id":"` + otherUsersAccount + `","credit_card_id":null,"notes":null},
		{"amount":-5,"date":"13/11/2025","description":{"x":1},"category":"groceries","payment_method":"credit card","account_id":null,"credit_card_id":"` + fixtureIDs["bdo"] + `","notes":null}
	]}`
	f := newFakeService(t, completion(answer))
	in := fixture("YYYY-MM-DD")
	res, err := f.engine(Config{}).ParseText(context.Background(), in, "lunch 250 cash yesterday, grab 180 gcash, groceries on my bdo")
	if err != nil {
		t.Fatal(err)
	}
	str := func(s string) *string { return &s }
	m250, _ := finance.ParseMoney("250")
	m180, _ := finance.ParseMoney("180.50")
	d13, _ := finance.ParseDate("2025-11-13")
	want := Result{Engine: EngineOpenAI, Items: []finance.ExpenseDraft{
		{Amount: &m250, Date: &d13, Description: str("Lunch"), Category: str("Food & Dining"), PaymentMethod: str("Cash"), Guessed: []string{}},
		// another user's account (which the text cannot name) and a category the user does not have: null, with warnings
		{Amount: &m180, Date: &d13, Description: str("Grab"), PaymentMethod: str("Account Debit"), Guessed: []string{}},
		// a bad type, a non-ISO date and a negative amount: null; names are canonicalised
		{Category: str("Groceries"), PaymentMethod: str("Credit Card"), CreditCardID: str(fixtureIDs["bdo"]), Guessed: []string{}},
	}, Warnings: []string{
		"items[2].date must be a real calendar date in YYYY-MM-DD format between 1900 and 2100; it was left empty",
		"items[2].description must be a string; it was left empty",
		"items[1].account_id is an account the text does not name; it was left empty",
		"items[1].category must be the name of an active expense category; it was left empty",
		"items[2].amount must be greater than 0; it was left empty",
	}}
	if diff := cmp.Diff(want, res, dateEq); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// What the service was asked: the model, JSON that matches the schema,
	// and the user's today, categories, accounts and cards.
	reqs := f.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	if f.headers[0].Get("Authorization") != "Bearer sk-test" {
		t.Errorf("Authorization = %q", f.headers[0].Get("Authorization"))
	}
	body := reqs[0]
	rf := body["response_format"].(map[string]any)
	if body["model"] != "test-model" || rf["type"] != "json_schema" || rf["json_schema"].(map[string]any)["strict"] != true {
		t.Errorf("model %v, response_format %v", body["model"], rf)
	}
	system := body["messages"].([]any)[0].(map[string]any)["content"].(string)
	for _, s := range []string{"Today is 2025-11-14 (timezone Asia/Manila)", `"Pets"`, fixtureIDs["gcash"], `"last_four":"1234"`} {
		if !strings.Contains(system, s) {
			t.Errorf("the system message does not say %q:\n%s", s, system)
		}
	}
}

func TestModelFailureFallsBackToBuiltin(t *testing.T) {
	text := "lunch 250 cash yesterday"
	builtin := ParseText(fixture("YYYY-MM-DD"), text)
	block := make(chan struct{})
	t.Cleanup(func() { close(block) })
	tests := []struct {
		name   string
		answer func(w http.ResponseWriter, r *http.Request)
		want   string // in the warning
	}{
		{"malformed JSON", completion(`{"items": [ {"amount": 250,`), "not the JSON asked for"},
		{"not a completion", status(200, `<html>hello</html>`), "not a chat completion"},
		{"server error", status(500, `{"error":"model crashed"}`), "status 500"},
		{"items is not a list", completion(`{"items": "lunch"}`), "not the JSON asked for"},
		{"answer too large", completion(`{"items":[],"pad":"` + strings.Repeat("x", maxModelResponse) + `"}`), "larger than"},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-block:
			}
		}, "no answer within"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeService(t, tt.answer)
			// Only the service that never answers meets the short timeout: on
			// a loaded machine, sending the oversized answer can take longer.
			timeout := time.Minute
			if tt.name == "timeout" {
				timeout = 200 * time.Millisecond
			}
			res, err := f.engine(Config{ModelTimeout: timeout}).ParseText(context.Background(), fixture("YYYY-MM-DD"), text)
			if err != nil {
				t.Fatal(err)
			}
			if res.Engine != EngineBuiltin || !cmp.Equal(builtin.Items, res.Items, dateEq) {
				t.Errorf("engine %q, items %+v; want the built-in parser's", res.Engine, res.Items)
			}
			if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], tt.want) || !strings.Contains(res.Warnings[0], "built-in parser") {
				t.Errorf("warnings %q; want one saying %q and that the built-in parser answered", res.Warnings, tt.want)
			}
		})
	}
}

// A server without json_schema support refuses response_format; the client
// asks again in JSON mode, and goes straight to it from then on.
func TestJSONModeFallback(t *testing.T) {
	ok := completion(`{"items":[{"amount":99,"date":null,"description":"Taxi","category":null,"payment_method":null,"account_id":null,"credit_card_id":null,"notes":null}]}`)
	f := newFakeService(t, status(400, `{"error":{"message":"response_format.type json_schema is not supported"}}`), ok, ok)
	e := f.engine(Config{})
	for range 2 {
		res, err := e.ParseText(context.Background(), fixture("YYYY-MM-DD"), "taxi 99")
		if err != nil || res.Engine != EngineOpenAI || len(res.Items) != 1 || *res.Items[0].Description != "Taxi" {
			t.Fatalf("res %+v, err %v", res, err)
		}
	}
	var types []string
	for _, b := range f.requests() {
		types = append(types, b["response_format"].(map[string]any)["type"].(string))
	}
	if diff := cmp.Diff([]string{"json_schema", "json_object", "json_object"}, types); diff != "" {
		t.Errorf("response formats asked for (-want +got):\n%s", diff)
	}
	last := f.requests()[2]["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.Contains(last, "JSON Schema") {
		t.Errorf("in JSON mode the schema must be in the system message: %q", last)
	}
}

func TestVisionModelReadsImages(t *testing.T) {
	f := newFakeService(t, completion(`{"items":[{"amount":492,"date":"2025-11-08","description":"Jollibee","category":"Food & Dining","payment_method":"Cash","account_id":null,"credit_card_id":null,"notes":null}]}`))
	e := f.engine(Config{VisionModel: "test-vision"})
	if ok, _ := e.CanReadImages(); !ok {
		t.Fatal("a vision model reads images")
	}
	png := []byte("\x89PNG\r\n\x1a\nfake")
	res, err := e.ParseImages(context.Background(), fixture("YYYY-MM-DD"), []Image{imageFile(t, png, "image/png")})
	if err != nil || res.Engine != EngineOpenAI || len(res.Items) != 1 || res.Items[0].Amount.String() != "492.00" {
		t.Fatalf("res %+v, err %v", res, err)
	}
	body := f.requests()[0]
	parts := body["messages"].([]any)[1].(map[string]any)["content"].([]any)
	url := parts[1].(map[string]any)["image_url"].(map[string]any)["url"].(string)
	if body["model"] != "test-vision" || !strings.HasPrefix(url, "data:image/png;base64,iVBORw0KGg") {
		t.Errorf("model %v, image url %.40s", body["model"], url)
	}
}

// Every job slot taken: a parse that needs one is refused at once (with no
// wait configured) instead of queueing without bound.
func TestBusyEngine(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	f := newFakeService(t, func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		completion(`{"items":[]}`)(w, r)
	})
	e := f.engine(Config{MaxJobs: 1})
	done := make(chan error)
	go func() {
		_, err := e.ParseText(context.Background(), fixture("YYYY-MM-DD"), "taxi 99")
		done <- err
	}()
	<-entered // the first parse holds the only slot
	if _, err := e.ParseText(context.Background(), fixture("YYYY-MM-DD"), "taxi 99"); err != ErrBusy {
		t.Errorf("second parse: err %v, want ErrBusy", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Errorf("first parse: %v", err)
	}
	if _, err := New(Config{MaxJobs: 1}).ParseText(context.Background(), fixture("YYYY-MM-DD"), "taxi 99"); err != nil {
		t.Errorf("the built-in parser needs no slot: %v", err)
	}
}
