package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/telegram/telegramtest"
)

// TestRemindersSentExactlyOnceAcrossARestart runs the reminders' scheduler
// of the real binary against a stand-in Bot API: a chat is linked, a bill
// due in two days is reminded of once; after a restart, and then with two
// servers passing at once on the same database, each bill's reminder still
// reaches the chat exactly once, and the log holds one row per bill.
func TestRemindersSentExactlyOnceAcrossARestart(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test builds and runs the binary")
	}
	const chatID = 4242
	bin := buildBinary(t)
	dataDir := filepath.Join(t.TempDir(), "data")
	const email = "ana@example.com"
	binMustRun(t, bin, dataDir, "a long enough password\n", "users", "create", "--email", email, "--password-stdin")
	key := strings.TrimSpace(binMustRun(t, bin, dataDir, "", "keys", "create", "--user", email, "--name", "e2e",
		"--scopes", "finance:read,bills:write,settings:write").stdout)
	fake := telegramtest.New(t, testBotToken)
	start := func() *serverProc {
		t.Helper()
		return startServerCmd(t, exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir,
			"--telegram-bot-token", testBotToken, "--telegram-webhook-secret", testWebhookSecret,
			"--telegram-api-url", fake.URL, "--reminder-interval", "1s"))
	}
	srv := start()
	api := func(method, path string, body any, want int) envelope {
		t.Helper()
		status, env := call(t, method, srv.url+"/api/v1"+path, key, body)
		if status != want {
			t.Fatalf("%s %s: %d, want %d: %+v", method, path, status, want, env.Error)
		}
		return env
	}

	// Link the chat as a person would: a code, sent to the bot as /link CODE.
	code := strings.TrimSpace(binMustRun(t, bin, dataDir, "", "telegram", "link-code", "--user", email).stdout)
	update, _ := json.Marshal(map[string]any{"update_id": 1, "message": map[string]any{"message_id": 1, "date": time.Now().Unix(),
		"chat": map[string]any{"id": chatID, "type": "private"}, "from": map[string]any{"id": chatID, "first_name": "Ana"}, "text": code}})
	req, _ := http.NewRequest(http.MethodPost, srv.url+server.MessagingWebhookPath, strings.NewReader(string(update)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Telegram-Bot-Api-Secret-Token", testWebhookSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("webhook: %v %v", resp, err)
	}
	resp.Body.Close()
	waitFor(t, "the chat to be linked", func() bool { return len(fake.Calls("sendMessage")) > 0 })
	fake.Reset()

	// Bills only, no quiet hours: the test runs at any hour.
	api("PUT", "/user-settings/reminders", map[string]any{"enabled": true, "bill_days": 3, "statement_days": 0, "loan_days": 0,
		"budget_threshold": false, "digest_day": "off", "quiet_start": nil, "quiet_end": nil}, http.StatusOK)
	loc, err := time.LoadLocation(finance.DefaultTimezone)
	if err != nil {
		t.Fatal(err)
	}
	today := finance.Today(time.Now(), loc)
	bill := func(name string, inDays int) string {
		t.Helper()
		due := today.AddDays(inDays)
		api("POST", "/bills/templates", map[string]any{"name": name, "amount": "1250.50", "category": "Utilities",
			"frequency": "monthly", "start_date": due.String(), "due_day": due.Day()}, http.StatusCreated)
		return fmt.Sprintf("⏰ %s: ₱1,250.50 due %s", name, due)
	}
	sentTimes := func(prefix string) int {
		n := 0
		for _, c := range fake.Calls("sendMessage") {
			// The text is MarkdownV2, its punctuation escaped.
			if strings.HasPrefix(strings.ReplaceAll(c.Text(), `\`, ""), prefix) {
				n++
			}
		}
		return n
	}
	waitSent := func(prefix string) {
		t.Helper()
		waitFor(t, "the reminder "+prefix, func() bool { return sentTimes(prefix) > 0 })
	}

	electricity := bill("Electricity", 2)
	waitSent(electricity)

	// A restart: the new process's passes find the reminder claimed.
	if code := srv.interrupt(t); code != 0 {
		t.Fatalf("serve exited %d", code)
	}
	srv = start()
	water := bill("Water", 1) // sent only once the restarted scheduler has passed
	waitSent(water)

	// Two servers on one database, both passing every second.
	other := start()
	names := []string{"Internet", "Phone", "Gas", "Rent"}
	var prefixes []string
	for _, n := range names {
		prefixes = append(prefixes, bill(n, 3))
	}
	for _, p := range prefixes {
		waitSent(p)
	}
	// A last bill through the second server's door: once it is sent, both
	// servers have passed over the four bills above at least once more.
	srv, other = other, srv
	last := bill("Insurance", 0)
	waitSent(last)
	srv, other = other, srv
	waitSent(bill("Parking", 1))

	for _, p := range append([]string{electricity, water, last}, prefixes...) {
		if n := sentTimes(p); n != 1 {
			t.Errorf("%q sent %d times, want once", p, n)
		}
	}
	// The chat has the last message a moment before the server records that
	// it was sent: wait for the record rather than read it once.
	var log []finance.Reminder
	waitFor(t, "every reminder's delivery recorded", func() bool {
		log = nil
		if err := json.Unmarshal(api("GET", "/reminders", nil, http.StatusOK).Data, &log); err != nil {
			t.Fatal(err)
		}
		return !slices.ContainsFunc(log, func(r finance.Reminder) bool { return r.Delivery == finance.DeliveryPending })
	})
	if len(log) != 8 {
		t.Errorf("%d reminders recorded, want 8 (one per bill)", len(log))
	}
	for _, r := range log {
		if r.Kind != finance.ReminderBill || r.Delivery != finance.DeliverySent {
			t.Errorf("reminder %s %s: delivery %s", r.Kind, r.Message, r.Delivery)
		}
	}
	for _, p := range []*serverProc{srv, other} {
		if code := p.interrupt(t); code != 0 {
			t.Errorf("serve exited %d", code)
		}
	}
}

// waitFor polls cond until it holds, failing the test after e2eWait.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(e2eWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", e2eWait, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServeRefusesABadReminderInterval: below a second would make the
// passes a busy loop; a negative one means nothing.
func TestServeRefusesABadReminderInterval(t *testing.T) {
	dir := t.TempDir()
	for bad, shown := range map[string]string{"500ms": "500ms", "-1m": "-1m0s"} {
		mustFail(t, dir, "", "--reminder-interval "+shown+": want 0 (off) or at least 1s",
			"serve", "--addr", "127.0.0.1:0", "--reminder-interval", bad)
	}
}
