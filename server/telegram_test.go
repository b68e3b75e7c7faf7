package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/ai/aitest"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/telegram"
	"github.com/finance-app/finance/telegram/telegramtest"
	"github.com/finance-app/finance/web"
)

const (
	testBotToken      = "123456789:AAEtest-token_abcdefghijklmnopqrstu"
	testWebhookSecret = "0123456789abcdef0123456789abcdef_webhook"
)

// lateStore lets the bot be built before the test database exists (the
// server's Config takes the bot, and the test env opens the database).
type lateStore struct{ telegram.Store }

// botEnv is a server with a Telegram bot talking to a fake Bot API.
type botEnv struct {
	*testEnv
	t       *testing.T
	fake    *telegramtest.Server
	bot     *telegram.Bot
	handled chan int64
	nextID  atomic.Int64
}

// newBotEnv starts a server whose bot talks to a fake Bot API and whose
// text goes to the assistant (its two REST routes, as in serve).
func newBotEnv(t *testing.T, configure ...func(*Config)) *botEnv {
	t.Helper()
	fake := telegramtest.New(t, testBotToken)
	handled := make(chan int64, 256)
	var ls lateStore
	bot, err := telegram.New(telegram.Config{Token: testBotToken, Secret: testWebhookSecret, APIURL: fake.URL,
		Handled: func(id int64) { handled <- id }}, &ls)
	if err != nil {
		t.Fatal(err)
	}
	env := newTestEnv(t, append([]func(*Config){func(c *Config) { c.Telegram = bot }}, configure...)...)
	ls.Store = env.db
	api := env.srv.MessagingAPI()
	bot.Start(api, telegram.NewRESTAssistant(api))
	t.Cleanup(func() { bot.Stop(context.Background()) })
	be := &botEnv{testEnv: env, t: t, fake: fake, bot: bot, handled: handled}
	be.nextID.Store(1000)
	return be
}

// post sends body to the webhook with the secret header value secret.
func (e *botEnv) post(secret string, body []byte) testkit.Exchange {
	e.t.Helper()
	req := httptest.NewRequest(http.MethodPost, MessagingWebhookPath, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if secret != "" {
		req.Header.Set(telegram.WebhookHeader, secret)
	}
	resp, raw := serveAPI(e.t, e.srv.Handler(), req, body, true)
	return testkit.Exchange{Status: resp.StatusCode, Header: resp.Header, Body: raw}
}

// deliver posts an update (with a fresh update_id unless it has one) and
// waits until the bot has handled it.
func (e *botEnv) deliver(update map[string]any) int64 {
	e.t.Helper()
	if _, ok := update["update_id"]; !ok {
		update["update_id"] = e.nextID.Add(1)
	}
	id := update["update_id"].(int64)
	body, _ := json.Marshal(update)
	if x := e.post(testWebhookSecret, body); x.Status != http.StatusOK {
		e.t.Fatalf("webhook: status %d: %s", x.Status, x.Body)
	}
	e.waitHandled(id)
	return id
}

// waitHandled waits for the bot to report update id handled. The timer
// only stops a broken test from hanging; nothing depends on timing.
func (e *botEnv) waitHandled(id int64) {
	e.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case got := <-e.handled:
			if got == id {
				return
			}
		case <-deadline:
			e.t.Fatalf("update %d was never handled", id)
		}
	}
}

func textUpdate(chat int64, text string) map[string]any {
	return map[string]any{"message": map[string]any{"message_id": 1, "date": 1764000000,
		"from": map[string]any{"id": chat, "is_bot": false, "first_name": "Ana"},
		"chat": map[string]any{"id": chat, "type": "private", "first_name": "Ana", "username": "ana_spends"}, "text": text}}
}

func photoUpdate(chat int64, fileID string) map[string]any {
	return map[string]any{"message": map[string]any{"message_id": 2, "date": 1764000000,
		"from": map[string]any{"id": chat, "is_bot": false, "first_name": "Ana"},
		"chat": map[string]any{"id": chat, "type": "private", "first_name": "Ana"},
		"photo": []any{
			map[string]any{"file_id": fileID + "-small", "file_unique_id": "s", "width": 90, "height": 160, "file_size": 900},
			map[string]any{"file_id": fileID, "file_unique_id": "l", "width": 720, "height": 1280, "file_size": 2000},
		}}}
}

func buttonUpdate(chat int64, data string) map[string]any {
	return map[string]any{"callback_query": map[string]any{"id": fmt.Sprintf("cb-%s", data),
		"from":    map[string]any{"id": chat, "is_bot": false, "first_name": "Ana"},
		"message": map[string]any{"message_id": 9, "date": 1764000000, "chat": map[string]any{"id": chat, "type": "private"}},
		"data":    data}}
}

// lastText is the text of the latest sendMessage to chat.
func (e *botEnv) lastText(chat int64) string {
	e.t.Helper()
	msgs := e.messages(chat)
	if len(msgs) == 0 {
		e.t.Fatalf("nothing was sent to chat %d", chat)
	}
	return msgs[len(msgs)-1].Text()
}

// messages are the sendMessage calls to chat, in order.
func (e *botEnv) messages(chat int64) []telegramtest.Call {
	var out []telegramtest.Call
	for _, c := range e.fake.Calls("sendMessage") {
		if id, _ := c.Body["chat_id"].(float64); int64(id) == chat {
			out = append(out, c)
		}
	}
	return out
}

// link links chat to u with a fresh code, as the user would.
func (e *botEnv) link(chat int64, u finance.User) {
	e.t.Helper()
	code, _, err := e.bot.IssueLinkCode(context.Background(), u.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	e.deliver(textUpdate(chat, "/link "+telegram.FormatLinkCode(code)))
	if got := e.lastText(chat); !strings.HasPrefix(got, "*Linked") {
		e.t.Fatalf("linking answered %q", got)
	}
}

// expenseCount is how many expenses u has, read through the REST route.
func (e *botEnv) expenseCount(u finance.User) int {
	e.t.Helper()
	// Read with the user's own sign-in, which works whatever the plan.
	req := httptest.NewRequest(http.MethodGet, "/api/v1/expenses", nil)
	req.Header.Set("Authorization", "Bearer "+e.login(u))
	resp, body := serveAPI(e.t, e.srv.Handler(), req, nil, true)
	if resp.StatusCode != http.StatusOK {
		e.t.Fatalf("list expenses: %d %s", resp.StatusCode, body)
	}
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil {
		e.t.Fatal(err)
	}
	var d struct {
		Items      []map[string]any `json:"items"`
		Pagination struct {
			TotalItems int `json:"total_items"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal(env.Data, &d); err != nil {
		e.t.Fatal(err)
	}
	return d.Pagination.TotalItems
}

func TestMessagingWebhookWithoutBotIs404(t *testing.T) {
	env := newTestEnv(t)
	req := httptest.NewRequest(http.MethodPost, MessagingWebhookPath, strings.NewReader(`{"update_id":1}`))
	req.Header.Set(telegram.WebhookHeader, testWebhookSecret)
	req.Header.Set("Content-Type", "application/json")
	resp, body := serveAPI(t, env.srv.Handler(), req, []byte(`{"update_id":1}`), true)
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
}

func TestMessagingWebhookSecret(t *testing.T) {
	env := newBotEnv(t)
	body := []byte(`{"update_id":77,"message":{"message_id":1,"date":1,"chat":{"id":5,"type":"private"},"text":"hi"}}`)
	for _, tc := range []struct{ name, secret string }{
		{"no header", ""},
		{"wrong secret", "0123456789abcdef0123456789abcdef_webhooK"},
		{"a prefix of the secret", testWebhookSecret[:20]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := env.post(tc.secret, body)
			if x.Status != http.StatusUnauthorized || !bytes.Contains(x.Body, []byte(`"code":"UNAUTHORIZED"`)) {
				t.Fatalf("status %d: %s", x.Status, x.Body)
			}
			if x.Header.Get("WWW-Authenticate") != "" {
				t.Error("the webhook's 401 offers a bearer challenge; it takes no bearer token")
			}
		})
	}
	pending, err := env.db.PendingTelegramUpdates(context.Background(), 10)
	if err != nil || len(pending) != 0 {
		t.Fatalf("refused deliveries were stored: %v %v", pending, err)
	}
	if calls := env.fake.Calls(""); len(calls) != 0 {
		t.Fatalf("refused deliveries reached the Bot API: %+v", calls)
	}

	if x := env.post(testWebhookSecret, []byte(`{"message":{}}`)); x.Status != http.StatusBadRequest {
		t.Errorf("an update without update_id: status %d", x.Status)
	}
	big := append([]byte(`{"update_id":78,"message":{"text":"`), bytes.Repeat([]byte("a"), telegram.MaxUpdateBytes)...)
	big = append(big, []byte(`"}}`)...)
	if x := env.post(testWebhookSecret, big); x.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("an update over the limit: status %d", x.Status)
	}
	// The right secret: stored, answered 200, handled (an unlinked chat gets instructions).
	if x := env.post(testWebhookSecret, body); x.Status != http.StatusOK {
		t.Fatalf("status %d: %s", x.Status, x.Body)
	}
	env.waitHandled(77)
	if got := env.lastText(5); !strings.Contains(got, "/link CODE") {
		t.Errorf("unlinked chat got %q", got)
	}
}

func TestMessagingWebhookRateLimitPerSource(t *testing.T) {
	env := newBotEnv(t, func(c *Config) { c.WebhookRateLimit = Rate{Count: 2, Window: time.Hour, Burst: 2} })
	send := func(remote string) int {
		req := httptest.NewRequest(http.MethodPost, MessagingWebhookPath, strings.NewReader(`{}`))
		req.RemoteAddr = remote
		req.Header.Set(telegram.WebhookHeader, "wrong")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		env.srv.Handler().ServeHTTP(rec, req)
		return rec.Code
	}
	got := []int{send("192.0.2.1:1000"), send("192.0.2.1:1001"), send("192.0.2.1:1002"), send("198.51.100.7:1000")}
	want := []int{http.StatusUnauthorized, http.StatusUnauthorized, http.StatusTooManyRequests, http.StatusUnauthorized}
	if !slices.Equal(got, want) {
		t.Fatalf("statuses %v, want %v (the third from one source is limited, another source is not)", got, want)
	}
}

func TestTelegramReplayIsHandledOnce(t *testing.T) {
	env := newBotEnv(t)
	u := env.createUser(finance.PlanPro)
	env.link(100, u)
	env.fake.Reset()

	update := textUpdate(100, "/today")
	update["update_id"] = int64(5000)
	body, _ := json.Marshal(update)
	for range 3 {
		if x := env.post(testWebhookSecret, body); x.Status != http.StatusOK {
			t.Fatalf("delivery: status %d", x.Status)
		}
	}
	env.waitHandled(5000)
	env.deliver(textUpdate(100, "/help")) // handled after the replays, in the same chat's order
	msgs := env.messages(100)
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0].Text(), "*Today") {
		t.Fatalf("want one answer to /today and one to /help, got %d messages: %+v", len(msgs), msgs)
	}
}

func TestTelegramUnlinkedChatGetsInstructionsOnly(t *testing.T) {
	env := newBotEnv(t)
	u := env.createUser(finance.PlanPro)
	env.fake.AddFile("receipt", aitest.ReceiptPNG(t, aitest.SampleReceipt))
	env.deliver(textUpdate(200, "lunch 250 cash"))
	env.deliver(textUpdate(200, "/today"))
	env.deliver(photoUpdate(200, "receipt"))
	env.deliver(buttonUpdate(200, "d:c:"+finance.NewID()))

	for _, m := range env.messages(200) {
		if !strings.Contains(m.Text(), "not linked") || len(m.Buttons()) != 0 {
			t.Errorf("unlinked chat got %q with buttons %v", m.Text(), m.Buttons())
		}
	}
	if n := len(env.messages(200)); n != 4 {
		t.Errorf("%d messages, want one per update", n)
	}
	if calls := env.fake.Calls("getFile"); len(calls) != 0 {
		t.Errorf("the photo of an unlinked chat was downloaded")
	}
	answers := env.fake.Calls("answerCallbackQuery")
	if len(answers) != 1 || answers[0].Body["text"] != "This chat is not linked" {
		t.Errorf("button answers %+v", answers)
	}
	if n := env.expenseCount(u); n != 0 {
		t.Errorf("%d expenses", n)
	}
	if _, err := env.db.TelegramChat(context.Background(), 200); err == nil {
		t.Error("the unlinked chat got linked")
	}
	if chats, _ := env.db.TelegramChats(context.Background(), u.ID); len(chats) != 0 {
		t.Errorf("links %+v", chats)
	}
}

func TestTelegramLinking(t *testing.T) {
	env := newBotEnv(t)
	pro := env.createUser(finance.PlanPro)
	ctx := context.Background()

	env.deliver(textUpdate(300, "/link"))
	if got := env.lastText(300); !strings.Contains(got, "8\\-character code") {
		t.Errorf("/link without a code: %q", got)
	}
	env.deliver(textUpdate(300, "/link ABCD-EFGH"))
	if got := env.lastText(300); !strings.Contains(got, "not valid or has expired") {
		t.Errorf("a wrong code: %q", got)
	}
	code, _, err := env.bot.IssueLinkCode(ctx, pro.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(code) != telegram.LinkCodeLen || strings.ContainsAny(code, "01ILO") {
		t.Errorf("code %q", code)
	}
	// Typed in lower case with a space: still the code.
	env.deliver(textUpdate(300, "/link@finance_bot "+strings.ToLower(code[:4]+" "+code[4:])))
	if got := env.lastText(300); !strings.HasPrefix(got, "*Linked") {
		t.Fatalf("linking: %q", got)
	}
	link, err := env.db.TelegramChat(ctx, 300)
	if err != nil || link.UserID != pro.ID || link.Label != "@ana_spends" {
		t.Fatalf("link %+v, %v", link, err)
	}
	// Single use: another chat cannot use the same code.
	env.deliver(textUpdate(301, "/link "+code))
	if got := env.lastText(301); !strings.Contains(got, "not valid or has expired") {
		t.Errorf("the code worked twice: %q", got)
	}
	if _, err := env.db.TelegramChat(ctx, 301); err == nil {
		t.Error("the second chat is linked")
	}

	// Too many attempts from one chat are refused before the code is looked at.
	for range 5 {
		env.deliver(textUpdate(302, "/link ZZZZ-ZZZZ"))
	}
	code2, _, _ := env.bot.IssueLinkCode(ctx, pro.ID)
	env.deliver(textUpdate(302, "/link "+code2))
	if got := env.lastText(302); !strings.Contains(got, "Too many link attempts") {
		t.Errorf("sixth attempt: %q", got)
	}

	// A free-plan user cannot link a chat.
	free := env.createUser(finance.PlanFree)
	code3, _, _ := env.bot.IssueLinkCode(ctx, free.ID)
	env.deliver(textUpdate(303, "/link "+code3))
	if got := env.lastText(303); !strings.Contains(got, "Pro plan") {
		t.Errorf("free plan linking: %q", got)
	}
	if _, err := env.db.TelegramChat(ctx, 303); err == nil {
		t.Error("a free-plan user's chat is linked")
	}

	// /unlink ends it; the chat is then unlinked.
	env.deliver(textUpdate(300, "/unlink"))
	if _, err := env.db.TelegramChat(ctx, 300); err == nil {
		t.Error("still linked after /unlink")
	}
	env.deliver(textUpdate(300, "/today"))
	if got := env.lastText(300); !strings.Contains(got, "not linked") {
		t.Errorf("after /unlink: %q", got)
	}
}

// proposalButtons returns the Confirm and Cancel data of the latest message with buttons.
func (e *botEnv) latestButtons(chat int64) []string {
	e.t.Helper()
	msgs := e.messages(chat)
	for i := len(msgs) - 1; i >= 0; i-- {
		if b := msgs[i].Buttons(); len(b) > 0 {
			if labels := msgs[i].ButtonLabels(); !slices.Equal(labels, []string{"Confirm", "Cancel"}) {
				e.t.Fatalf("buttons %v", labels)
			}
			return b
		}
	}
	e.t.Fatalf("no message to chat %d has buttons: %+v", chat, msgs)
	return nil
}

func TestTelegramExpenseRecordedOnlyAfterConfirm(t *testing.T) {
	env := newBotEnv(t)
	u := env.createUser(finance.PlanPro)
	other := env.createUser(finance.PlanPro)
	env.link(400, u)
	env.link(401, other)

	env.deliver(textUpdate(400, "lunch 250 cash"))
	btns := env.latestButtons(400)
	if !strings.HasPrefix(btns[0], "p:c:") || !strings.HasPrefix(btns[1], "p:x:") || len(btns[0]) > 64 {
		t.Fatalf("buttons %v", btns)
	}
	if n := env.expenseCount(u); n != 0 {
		t.Fatalf("%d expenses before the button", n)
	}

	// Another user's chat pressing this proposal's button gets nothing done.
	env.deliver(buttonUpdate(401, btns[0]))
	if n := env.expenseCount(u) + env.expenseCount(other); n != 0 {
		t.Fatalf("another chat's press recorded %d expenses", n)
	}

	env.fake.Reset()
	env.deliver(buttonUpdate(400, btns[0]))
	if n := env.expenseCount(u); n != 1 {
		t.Fatalf("%d expenses after Confirm, want 1", n)
	}
	if got := env.lastText(400); !strings.HasPrefix(got, "Done: ") {
		t.Errorf("after Confirm: %q", got)
	}
	answers := env.fake.Calls("answerCallbackQuery")
	if len(answers) != 1 || answers[0].Body["callback_query_id"] != "cb-"+btns[0] || answers[0].Body["text"] != "Done" {
		t.Errorf("answerCallbackQuery %+v", answers)
	}
	if edits := env.fake.Calls("editMessageReplyMarkup"); len(edits) != 1 {
		t.Errorf("the buttons were not removed: %+v", edits)
	}

	// Pressed again (a double tap, or Telegram redelivering under a new id): still one.
	env.deliver(buttonUpdate(400, btns[0]))
	if n := env.expenseCount(u); n != 1 {
		t.Fatalf("%d expenses after a second press, want 1", n)
	}
	// Cancel on another proposal writes nothing.
	env.deliver(textUpdate(400, "coffee 120 cash"))
	btns2 := env.latestButtons(400)
	env.deliver(buttonUpdate(400, btns2[1]))
	if got := env.lastText(400); !strings.Contains(got, "nothing was recorded") {
		t.Errorf("after Cancel: %q", got)
	}
	env.deliver(buttonUpdate(400, btns2[0]))
	if n := env.expenseCount(u); n != 1 {
		t.Fatalf("%d expenses after Cancel then Confirm, want 1", n)
	}
}

// fakeOCR is an OCR command that prints the sample receipt's text,
// whatever image it is given (called as CMD IMAGE stdout).
func fakeOCR(t *testing.T) *ai.OCR {
	t.Helper()
	script := filepath.Join(t.TempDir(), "ocr")
	text := strings.Join(aitest.SampleReceipt, "\n")
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat <<'EOF'\n"+text+"\nEOF\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ocr, err := ai.FindOCR(script, 0)
	if err != nil {
		t.Fatal(err)
	}
	return ocr
}

func TestTelegramPhotoBecomesADraftRecordedOnConfirm(t *testing.T) {
	ocr := fakeOCR(t)
	env := newBotEnv(t, func(c *Config) { c.AI = ai.New(ai.Config{OCR: ocr}) })
	u := env.createUser(finance.PlanPro)
	env.link(500, u)
	env.fake.AddFile("receipt-1", aitest.ReceiptPNG(t, []string{"a receipt"}))

	env.deliver(photoUpdate(500, "receipt-1"))
	if gets := env.fake.Calls("getFile"); len(gets) != 1 || gets[0].Body["file_id"] != "receipt-1" {
		t.Fatalf("getFile calls %+v (want the largest size)", gets)
	}
	msgs := env.messages(500)
	last := msgs[len(msgs)-1]
	if want := `*492\.00 · Jollibee Foods · Food & Dining · Cash · 2025\-11\-08*`; !strings.Contains(last.Text(), want) {
		t.Fatalf("draft message %q, want it to contain %q", last.Text(), want)
	}
	btns := env.latestButtons(500)
	if !strings.HasPrefix(btns[0], "d:c:") {
		t.Fatalf("buttons %v", btns)
	}
	if n := env.expenseCount(u); n != 0 {
		t.Fatalf("%d expenses before Confirm", n)
	}
	env.deliver(buttonUpdate(500, btns[0]))
	if n := env.expenseCount(u); n != 1 {
		t.Fatalf("%d expenses after Confirm", n)
	}
	if got := env.lastText(500); !strings.HasPrefix(got, "Recorded: 492") {
		t.Errorf("after Confirm: %q", got)
	}
	env.deliver(buttonUpdate(500, btns[0]))
	if n := env.expenseCount(u); n != 1 {
		t.Fatalf("%d expenses after a second press", n)
	}
	if got := env.lastText(500); !strings.HasPrefix(got, "Already recorded") {
		t.Errorf("second press: %q", got)
	}
	// Cancel of a draft records nothing; Confirm afterwards neither.
	env.deliver(photoUpdate(500, "receipt-1"))
	btns2 := env.latestButtons(500)
	env.deliver(buttonUpdate(500, btns2[1]))
	env.deliver(buttonUpdate(500, btns2[0]))
	if n := env.expenseCount(u); n != 1 {
		t.Fatalf("%d expenses after a cancelled draft", n)
	}
}

func TestTelegramReadsAndPlan(t *testing.T) {
	env := newBotEnv(t)
	u := env.createUser(finance.PlanPro)
	env.link(600, u)
	env.deliver(textUpdate(600, "lunch 250 cash"))
	env.deliver(buttonUpdate(600, env.latestButtons(600)[0]))

	env.deliver(textUpdate(600, "/today"))
	if got := env.lastText(600); !strings.Contains(got, `Spent PHP 250\.00 in 1 expense`) || !strings.Contains(got, `250\.00 Lunch \(Food & Dining\)`) {
		t.Errorf("/today: %q", got)
	}
	env.deliver(textUpdate(600, "/month"))
	if got := env.lastText(600); !strings.Contains(got, `Spent PHP 250\.00`) {
		t.Errorf("/month: %q", got)
	}
	env.deliver(textUpdate(600, "/bills"))
	if got := env.lastText(600); !strings.HasPrefix(got, "*Bills") {
		t.Errorf("/bills: %q", got)
	}

	// Moved off Pro: the chat stays linked but does nothing.
	if _, err := env.auth.SetPlan(context.Background(), u.Email, finance.PlanFree); err != nil {
		t.Fatal(err)
	}
	env.deliver(textUpdate(600, "dinner 300 cash"))
	if got := env.lastText(600); !strings.Contains(got, "Pro plan") {
		t.Errorf("free plan: %q", got)
	}
	env.deliver(buttonUpdate(600, env.latestButtons(600)[0]))
	if n := env.expenseCount(u); n != 1 {
		t.Errorf("%d expenses; a free-plan chat recorded one", n)
	}
}

var linkCodeField = regexp.MustCompile(`value="/link ([A-Z0-9]{4}-[A-Z0-9]{4})"`)

func TestMessagingSettingsPage(t *testing.T) {
	env := newBotEnv(t)
	u := env.createUser(finance.PlanPro)
	b := env.browser(t)
	b.SignIn(u)
	page := b.Get(web.MessagingPath)
	if page.Status != http.StatusOK || !page.Contains("No chat is linked") {
		t.Fatalf("status %d:\n%s", page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)
	if x := b.Post(web.MessagingPath+"/link-code", url.Values{}); x.Status != http.StatusForbidden {
		t.Errorf("a code without the form token: %d", x.Status)
	}
	x := b.Post(web.MessagingPath+"/link-code", url.Values{"csrf": {testkit.CSRF(t, page)}})
	m := linkCodeField.FindSubmatch(x.Body)
	if x.Status != http.StatusOK || m == nil {
		t.Fatalf("link code page %d:\n%s", x.Status, x.Body)
	}
	env.deliver(textUpdate(700, "/link "+string(m[1])))
	if got := env.lastText(700); !strings.HasPrefix(got, "*Linked") {
		t.Fatalf("linking with the page's code: %q", got)
	}
	page = b.Get(web.MessagingPath)
	if !page.Contains("@ana_spends") {
		t.Fatalf("the linked chat is not listed:\n%s", page.Body)
	}
	// Another user cannot unlink it.
	other := env.browser(t)
	other.SignIn(env.createUser(finance.PlanPro))
	op := other.Get(web.MessagingPath)
	if x := other.Post(web.MessagingPath+"/chats/700/unlink", url.Values{"csrf": {testkit.CSRF(t, op)}}); x.Status != http.StatusNotFound {
		t.Errorf("another user unlinking: %d", x.Status)
	}
	x = b.Post(web.MessagingPath+"/chats/700/unlink", url.Values{"csrf": {testkit.CSRF(t, page)}})
	if x.Status != http.StatusSeeOther {
		t.Fatalf("unlink: %d", x.Status)
	}
	if _, err := env.db.TelegramChat(context.Background(), 700); err == nil {
		t.Error("still linked")
	}

	// A free-plan user gets no code.
	fb := env.browser(t)
	fb.SignIn(env.createUser(finance.PlanFree))
	fp := fb.Get(web.MessagingPath)
	if !fp.Contains("Pro plan feature") {
		t.Error("the free plan is not explained")
	}
	if x := fb.Post(web.MessagingPath+"/link-code", url.Values{"csrf": {testkit.CSRF(t, fp)}}); x.Status != http.StatusPaymentRequired || linkCodeField.Match(x.Body) {
		t.Errorf("free plan code: %d", x.Status)
	}
}

func TestTelegramUpdatesStoredBeforeStartAreHandledAtStart(t *testing.T) {
	fake := telegramtest.New(t, testBotToken)
	handled := make(chan int64, 8)
	var ls lateStore
	bot, err := telegram.New(telegram.Config{Token: testBotToken, Secret: testWebhookSecret, APIURL: fake.URL,
		Handled: func(id int64) { handled <- id }}, &ls)
	if err != nil {
		t.Fatal(err)
	}
	env := &botEnv{testEnv: newTestEnv(t, func(c *Config) { c.Telegram = bot }), t: t, fake: fake, bot: bot, handled: handled}
	ls.Store = env.db
	// Delivered while no worker runs (as across a restart): stored and acknowledged, nothing sent yet.
	update := textUpdate(900, "hello")
	update["update_id"] = int64(900)
	body, _ := json.Marshal(update)
	if x := env.post(testWebhookSecret, body); x.Status != http.StatusOK {
		t.Fatalf("status %d", x.Status)
	}
	if calls := fake.Calls(""); len(calls) != 0 {
		t.Fatalf("sent before the bot started: %+v", calls)
	}
	bot.Start(env.srv.MessagingAPI(), nil)
	t.Cleanup(func() { bot.Stop(context.Background()) })
	env.waitHandled(900)
	if got := env.lastText(900); !strings.Contains(got, "not linked") {
		t.Errorf("answered %q", got)
	}
	if pending, _ := env.db.PendingTelegramUpdates(context.Background(), 10); len(pending) != 0 {
		t.Errorf("still pending: %+v", pending)
	}
}
