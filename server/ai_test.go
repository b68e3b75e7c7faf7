package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/ai/aitest"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
)

// newAIEnv is newSpendingEnv (today is 2025-03-11) with the server's config adjusted.
func newAIEnv(t *testing.T, configure ...func(*Config)) (env *testEnv, alice, bob ledgerUser) {
	t.Helper()
	env = newTestEnv(t, configure...)
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	mk := func() ledgerUser {
		u := env.createUser(finance.PlanPro)
		return ledgerUser{env: env, user: u,
			key: env.createKey(u.ID, auth.ScopeExpensesWrite, auth.ScopeCardsWrite, auth.ScopeAccountsWrite, auth.ScopeSettingsWrite)}
	}
	return env, mk(), mk()
}

const parseTextURL, parseImagesURL = "/api/v1/expenses/ai/parse-text", "/api/v1/expenses/ai/parse-images"

func textBody(s string) string {
	b, _ := json.Marshal(map[string]string{"natural_text": s})
	return string(b)
}

// nothingWritten checks that u still has no expense, account line or card row.
func nothingWritten(t *testing.T, u ledgerUser) {
	t.Helper()
	for _, url := range []string{"/api/v1/expenses", "/api/v1/accounts/transactions", "/api/v1/credit-cards/transactions"} {
		if _, p := page[json.RawMessage](t, u, url); p.TotalItems != 0 {
			t.Errorf("%s: %d records after parsing; parsing must write nothing", url, p.TotalItems)
		}
	}
}

// draft is a draft as the parse routes answer it; guessed are the fields
// whose value the text did not state.
func draft(amount, date, desc, cat, method string, account, card any, guessed ...any) map[string]any {
	if guessed == nil {
		guessed = []any{}
	}
	var amt any = json.Number(amount)
	if amount == "" {
		amt = nil
	}
	var m any = method
	if method == "" {
		m = nil
	}
	return map[string]any{"amount": amt, "date": date, "description": desc, "category": cat,
		"payment_method": m, "account_id": account, "credit_card_id": card, "notes": nil, "guessed": guessed}
}

// The bar: a new user with no AI service types two expenses in one
// line and gets two correct drafts, which the bulk route then takes as they are.
func TestParseTextNewUser(t *testing.T) {
	env, alice, _ := newAIEnv(t)
	const text = "lunch 250 cash yesterday, grab 180 gcash card"
	alice.sc(apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody(text), wantStatus: http.StatusOK,
		wantMessage: "Parsed 2 expense drafts; nothing was saved",
		wantData: map[string]any{"engine": "builtin", "items": []any{
			draft("250.00", "2025-03-10", "Lunch", "Food & Dining", "Cash", nil, nil),
			// Its date is the expense's before it: a guess.
			draft("180.00", "2025-03-10", "Grab", "Transportation", "Account Debit", nil, nil, "date"),
		}, "warnings": []any{`items[1]: no active account is named like "gcash"; choose the account it was paid from`}},
	}).run(t, env)
	nothingWritten(t, alice)

	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet"}`)
	res := alice.sc(apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody(text), wantStatus: http.StatusOK,
		wantData: map[string]any{"engine": "builtin", "items": []any{
			draft("250.00", "2025-03-10", "Lunch", "Food & Dining", "Cash", nil, nil),
			draft("180.00", "2025-03-10", "Grab", "Transportation", "Account Debit", gcash.ID, nil, "date"),
		}, "warnings": []any{}},
	}).run(t, env)
	nothingWritten(t, alice)

	// The drafts go to POST /expenses/bulk unchanged.
	var parsed ai.Result
	res.decodeData(t, &parsed)
	items, _ := json.Marshal(map[string]any{"items": parsed.Items})
	created := send[finance.BulkExpenses](t, alice, http.MethodPost, "/api/v1/expenses/bulk", string(items), http.StatusCreated)
	if created.Count != 2 || created.Items[1].AccountID == nil || *created.Items[1].AccountID != gcash.ID {
		t.Errorf("bulk create from the drafts: %+v", created)
	}
}

// The three guesses a household's test found: a rough date of its own is
// not the previous item's, a card the person does not have is not their
// only card, and a line without an amount is not merged into another. Each
// draft says which fields the text did not state; the drafts, guessed and
// all, go to the bulk route as they are. Today is Tuesday 2025-03-11.
func TestParseTextSaysWhatItGuessed(t *testing.T) {
	env, alice, _ := newAIEnv(t)
	bdo := alice.createCard(t, `{"name":"BDO Visa","credit_limit":50000,"statement_day":15,"due_day":5}`)
	const text = "grab 180 yesterday\nmeralco 2,845.60 bdo last week\ngroceries 1,200 metrobank card\ncoffee at the mall"
	res := alice.sc(apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody(text), wantStatus: http.StatusOK,
		wantMessage: "Parsed 4 expense drafts; nothing was saved",
		wantData: map[string]any{"engine": "builtin", "items": []any{
			draft("180.00", "2025-03-10", "Grab", "Transportation", "Cash", nil, nil, "payment_method"),
			draft("2845.60", "2025-03-04", "Meralco", "Utilities", "Credit Card", nil, bdo.ID, "date"),
			draft("1200.00", "2025-03-04", "Groceries", "Groceries", "Credit Card", nil, nil, "date"),
			draft("", "2025-03-04", "Coffee at the mall", "Food & Dining", "Cash", nil, nil, "date", "payment_method"),
		}, "warnings": []any{
			`items[2]: no active credit card is named like "metrobank"; choose the card it was charged to`,
			"items[3]: no amount was found; fill it in",
		}},
	}).run(t, env)
	nothingWritten(t, alice)

	var parsed ai.Result
	res.decodeData(t, &parsed)
	items, _ := json.Marshal(map[string]any{"items": parsed.Items[:2]})
	created := send[finance.BulkExpenses](t, alice, http.MethodPost, "/api/v1/expenses/bulk", string(items), http.StatusCreated)
	if created.Count != 2 || created.Items[1].CreditCardID == nil || *created.Items[1].CreditCardID != bdo.ID ||
		created.Items[1].Date.String() != "2025-03-04" {
		t.Errorf("bulk create from the drafts: %+v", created)
	}
}

// What this user chose before for the same words wins over the keywords.
func TestParseTextLearnsFromHistory(t *testing.T) {
	env, alice, bob := newAIEnv(t)
	alice.createExpense(t, `{"amount":500,"date":"2025-03-01","description":"Pedigree dog food","category":"Shopping","payment_method":"Cash"}`)
	want := map[string]any{"engine": "builtin", "warnings": []any{},
		"items": []any{draft("640.00", "2025-03-11", "Dog food", "Shopping", "Cash", nil, nil, "date", "payment_method")}}
	alice.sc(apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody("dog food 640"), wantStatus: http.StatusOK, wantData: want}).run(t, env)
	// Bob's drafts know nothing of Alice's history.
	want["items"] = []any{draft("640.00", "2025-03-11", "Dog food", "Food & Dining", "Cash", nil, nil, "date", "payment_method")}
	bob.sc(apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody("dog food 640"), wantStatus: http.StatusOK, wantData: want}).run(t, env)
}

func TestParseTextRefusals(t *testing.T) {
	env, alice, _ := newAIEnv(t)
	readOnly := env.createKey(alice.user.ID, auth.ScopeRead)
	long := strings.Repeat("lunch 250 ", 201)
	for _, sc := range []apiScenario{
		{name: "missing", body: `{}`, wantFields: map[string]string{"natural_text": "is required"}},
		{name: "blank", body: `{"natural_text":"   "}`, wantFields: map[string]string{"natural_text": "is required"}},
		{name: "not a string", body: `{"natural_text":250}`, wantFields: map[string]string{"natural_text": "must be a string"}},
		{name: "too long", body: textBody(long), wantFields: map[string]string{"natural_text": "must be at most 2000 characters"}},
	} {
		sc.method, sc.url, sc.wantStatus, sc.wantCode = http.MethodPost, parseTextURL, http.StatusBadRequest, CodeValidation
		alice.sc(sc).run(t, env)
	}
	apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody("lunch 250"), headers: bearer(readOnly),
		wantStatus: http.StatusForbidden, wantCode: CodeForbidden}.run(t, env)
	nothingWritten(t, alice)
}

// The parse routes write nothing and are not wrapped for Idempotency-Key,
// whose write transaction would hold the single writer during a model call:
// a key, even a malformed one, is ignored, and a repeat parses again.
func TestParseIgnoresIdempotencyKey(t *testing.T) {
	env, alice, _ := newAIEnv(t)
	for range 2 {
		apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody("taxi 99"),
			headers:    map[string]string{"Authorization": "Bearer " + alice.key, IdempotencyKeyHeader: "not a key"},
			wantStatus: http.StatusOK, noHeaders: []string{IdempotentReplayedHeader}}.run(t, env)
	}
	for _, rt := range env.srv.Routes() {
		if rt.WritesNothing != strings.HasPrefix(rt.Path, "/api/v1/expenses/ai/") {
			t.Errorf("%s %s: WritesNothing is %v", rt.Method, rt.Path, rt.WritesNothing)
		}
	}
}

// imagesForm is a multipart body with one "images" part per file.
func imagesForm(t testing.TB, files ...[]byte) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for i, f := range files {
		part, err := w.CreateFormFile("images", fmt.Sprintf("receipt%d.png", i))
		if err != nil {
			t.Fatal(err)
		}
		part.Write(f)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), w.FormDataContentType()
}

func TestParseImagesWithoutEngine(t *testing.T) {
	env, alice, _ := newAIEnv(t, func(c *Config) { c.AI = ai.New(ai.Config{}) })
	body, ct := imagesForm(t, testkit.PNGStub)
	apiScenario{method: http.MethodPost, url: parseImagesURL, body: body,
		headers:    map[string]string{"Authorization": "Bearer " + alice.key, "Content-Type": ct},
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		wantInMsg: []string{"install tesseract-ocr", "--ocr-command", "--ai-base-url", "--ai-vision-model"}}.run(t, env)
}

func TestParseImagesOCR(t *testing.T) {
	aitest.RequireOCR(t)
	ocr, err := ai.FindOCR("", 0)
	if err != nil {
		t.Fatal(err)
	}
	env, alice, _ := newAIEnv(t, func(c *Config) { c.AI = ai.New(ai.Config{OCR: ocr}) })
	body, ct := imagesForm(t, aitest.ReceiptPNG(t, aitest.SampleReceipt))
	headers := map[string]string{"Authorization": "Bearer " + alice.key, "Content-Type": ct}
	apiScenario{method: http.MethodPost, url: parseImagesURL, body: body, headers: headers, wantStatus: http.StatusOK,
		wantMessage: "Parsed 1 expense draft; nothing was saved",
		wantData: map[string]any{"engine": "ocr", "warnings": []any{},
			"items": []any{draft("492.00", "2025-11-08", "Jollibee Foods", "Food & Dining", "Cash", nil, nil, "payment_method")}},
	}.run(t, env)
	nothingWritten(t, alice)

	refuse := func(name string, fields map[string]string, files ...[]byte) {
		t.Helper()
		body, ct := imagesForm(t, files...)
		apiScenario{name: name, method: http.MethodPost, url: parseImagesURL, body: body,
			headers:    map[string]string{"Authorization": "Bearer " + alice.key, "Content-Type": ct},
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fields}.run(t, env)
	}
	refuse("no file", map[string]string{"images": "is required: send 1 to 5 PNG, JPEG or WebP files named images"})
	refuse("not an image", map[string]string{"images[1]": "must be a PNG, JPEG or WebP image"}, testkit.PNGStub, []byte("%PDF-1.7 receipt"))
	refuse("a GIF", map[string]string{"images[0]": "must be a PNG, JPEG or WebP image"}, testkit.GIFBytes)
	refuse("six files", map[string]string{"images": "must hold 1 to 5 images"}, testkit.PNGStub, testkit.PNGStub, testkit.PNGStub, testkit.PNGStub, testkit.PNGStub, testkit.PNGStub)
	big := append(append([]byte{}, testkit.PNGStub...), make([]byte, ai.MaxImageBytes)...)
	refuse("too large", map[string]string{"images[0]": "must be at most 5 MiB (5242880 bytes)"}, big)
	apiScenario{method: http.MethodPost, url: parseImagesURL, body: textBody("x"), headers: bearer(alice.key),
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation}.run(t, env)
	nothingWritten(t, alice)
}

// fakeModel is an OpenAI-compatible service that answers every request with content.
func fakeModel(t *testing.T, handler http.HandlerFunc) *ai.Engine {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return ai.New(ai.Config{BaseURL: srv.URL + "/v1", Model: "m", VisionModel: "v", HTTPClient: srv.Client(), MaxJobs: 1,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

func chatAnswer(w http.ResponseWriter, content string) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"content": content}}}})
}

// A model that names another user's account gets null and a warning: ids
// in drafts are always the caller's own, and ones the text names.
func TestParseTextModelIdsAreTheCallers(t *testing.T) {
	var bobAccount string
	eng := fakeModel(t, func(w http.ResponseWriter, r *http.Request) {
		chatAnswer(w, `{"items":[{"amount":180,"date":"2025-03-10","description":"Grab","category":"Transportation",`+
			`"payment_method":"Account Debit","account_id":"`+bobAccount+`","credit_card_id":null,"notes":null}]}`)
	})
	env, alice, bob := newAIEnv(t, func(c *Config) { c.AI = eng })
	bobAccount = bob.createAccount(t, `{"name":"GCash","type":"e_wallet"}`).ID
	alice.sc(apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody("grab 180 gcash"), wantStatus: http.StatusOK,
		wantData: map[string]any{"engine": "openai",
			"items":    []any{draft("180.00", "2025-03-10", "Grab", "Transportation", "Account Debit", nil, nil, "date")},
			"warnings": []any{"items[0].account_id is an account the text does not name; it was left empty"}},
	}).run(t, env)
	nothingWritten(t, alice)
}

func TestAIBudget(t *testing.T) {
	eng := fakeModel(t, func(w http.ResponseWriter, r *http.Request) { chatAnswer(w, `{"items":[]}`) })
	env, alice, bob := newAIEnv(t, func(c *Config) {
		c.AI, c.AIRateLimit = eng, Rate{Count: 6, Window: time.Hour, Burst: 6}
	})
	body, ct := imagesForm(t, testkit.PNGStub)
	images := func(u ledgerUser, status int) apiResult {
		return apiScenario{method: http.MethodPost, url: parseImagesURL, body: body,
			headers: map[string]string{"Authorization": "Bearer " + u.key, "Content-Type": ct}, wantStatus: status}.run(t, env)
	}
	res := images(alice, http.StatusOK) // 5 of 6
	if got := res.header.Get("RateLimit-Policy"); got != `"ai";q=6;w=3600` {
		t.Errorf("RateLimit-Policy = %q", got)
	}
	alice.sc(apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody("taxi 99"), wantStatus: http.StatusOK}).run(t, env)
	res = alice.sc(apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody("taxi 99"),
		wantStatus: http.StatusTooManyRequests, wantCode: CodeRateLimitExceeded}).run(t, env)
	// The window is an hour of the real clock, which moves on while a loaded
	// machine runs the requests above: t is the hour less the seconds since
	// the first call, not always exactly 3600.
	var reset int
	if _, err := fmt.Sscanf(res.header.Get("RateLimit"), `"ai";r=0;t=%d`, &reset); err != nil || reset < 3600-60 || reset > 3600 ||
		res.header.Get("Retry-After") == "" {
		t.Errorf("Retry-After %q, RateLimit %q", res.header.Get("Retry-After"), res.header.Get("RateLimit"))
	}
	images(bob, http.StatusOK) // the budget is per user
}

// Every job slot taken: 429 with Retry-After, while the built-in parser
// would not have needed one.
func TestParseBusy(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	eng := fakeModel(t, func(w http.ResponseWriter, r *http.Request) {
		entered <- struct{}{}
		<-release
		chatAnswer(w, `{"items":[]}`)
	})
	env, alice, _ := newAIEnv(t, func(c *Config) { c.AI = eng })
	done := make(chan struct{})
	go func() {
		defer close(done)
		req := httptest.NewRequest(http.MethodPost, parseTextURL, strings.NewReader(textBody("taxi 99")))
		req.Header.Set("Authorization", "Bearer "+alice.key)
		req.Header.Set("Content-Type", "application/json")
		env.srv.Handler().ServeHTTP(httptest.NewRecorder(), req)
	}()
	<-entered
	alice.sc(apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody("taxi 99"),
		wantStatus: http.StatusTooManyRequests, wantCode: CodeRateLimitExceeded,
		wantHeaders: map[string]string{"Retry-After": "10", "RateLimit-Policy": `"ai-jobs";q=1;w=10`}}).run(t, env)
	close(release)
	<-done
}

// A model that never answers: parse-text still answers, with the built-in
// parser's drafts, well within the server's write timeout, although the
// model's own timeout (a minute) is longer than that timeout. The server
// here runs with a write timeout of 3 seconds, as finance serve does with 60.
func TestParseTextAnswersBeforeTheWriteTimeout(t *testing.T) {
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // then the server sees its client leave
		<-r.Context().Done()               // and never answers before
	}))
	t.Cleanup(model.Close)
	const writeTimeout = 3 * time.Second
	eng := ai.New(ai.Config{BaseURL: model.URL + "/v1", Model: "m", ModelTimeout: time.Minute, HTTPClient: model.Client(),
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	env, alice, _ := newAIEnv(t, func(c *Config) { c.AI, c.WriteTimeout = eng, writeTimeout })
	srv := httptest.NewUnstartedServer(env.srv.Handler())
	srv.Config.WriteTimeout = writeTimeout
	srv.Start()
	t.Cleanup(srv.Close)

	req, err := http.NewRequest(http.MethodPost, srv.URL+parseTextURL, strings.NewReader(textBody("taxi 99")))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+alice.key)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 30 * time.Second} // only catches a hang
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	defer resp.Body.Close()
	var env2 struct {
		Data ai.Result `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env2); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("answer %d, %v", resp.StatusCode, err)
	}
	res := env2.Data
	if res.Engine != ai.EngineBuiltin || len(res.Items) != 1 || res.Items[0].Amount == nil || res.Items[0].Amount.String() != "99.00" ||
		len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "the AI service did not answer usefully") {
		t.Errorf("answer %+v; want the built-in parser's draft and a warning about the AI service", res)
	}
	nothingWritten(t, alice)
}
