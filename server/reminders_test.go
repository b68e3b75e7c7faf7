package server

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

const (
	reminderSettingsURL = "/api/v1/user-settings/reminders"
	remindersURL        = "/api/v1/reminders"
)

// reminderState is what a rejected reminder request must leave as it was.
type reminderState struct {
	Settings  finance.ReminderSettings
	Reminders []finance.Reminder
}

func snapshotReminders(t testing.TB, env *testEnv, userID string) reminderState {
	t.Helper()
	st, err := env.db.Read().ReminderSettings(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := env.db.Read().ListReminders(context.Background(), userID, 100)
	if err != nil {
		t.Fatal(err)
	}
	return reminderState{Settings: st, Reminders: rs}
}

func TestReminderSettings(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	reader := env.createKey(alice.user.ID, auth.ScopeRead)
	defaults := finance.ReminderSettings{BillDays: 3, StatementDays: 5, LoanDays: 3, BudgetThreshold: true,
		DigestDay: "monday", DigestHour: 8, QuietStart: ptr("22:00"), QuietEnd: ptr("07:00")}
	apiScenario{method: http.MethodGet, url: reminderSettingsURL, headers: bearer(reader), wantStatus: http.StatusOK,
		wantMessage: "Reminder settings retrieved", wantData: defaults}.run(t, env)

	changed := defaults
	changed.Enabled, changed.BillDays, changed.DigestDay, changed.QuietStart, changed.QuietEnd = true, 10, "off", ptr("13:00"), ptr("14:30")
	alice.sc(apiScenario{method: http.MethodPut, url: reminderSettingsURL,
		body:       `{"enabled":true,"bill_days":10,"digest_day":"off","quiet_start":"13:00","quiet_end":"14:30"}`,
		wantStatus: http.StatusOK, wantMessage: "Reminder settings updated", wantData: changed}).run(t, env)
	if diff := cmp.Diff(changed, snapshotReminders(t, env, alice.user.ID).Settings); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
	// null in either quiet end turns quiet hours off; the rest keep their values.
	changed.QuietStart, changed.QuietEnd, changed.LoanDays = nil, nil, 0
	alice.sc(apiScenario{method: http.MethodPut, url: reminderSettingsURL, body: `{"quiet_end":null,"loan_days":0}`,
		wantStatus: http.StatusOK, wantData: changed}).run(t, env)
	bob.sc(apiScenario{method: http.MethodGet, url: reminderSettingsURL, wantStatus: http.StatusOK, wantData: defaults}).run(t, env)

	runUnchanged(t, env, []ledgerUser{alice, bob}, snapshotReminders, []apiScenario{
		alice.sc(apiScenario{name: "every field wrong at once", method: http.MethodPut, url: reminderSettingsURL,
			body: `{"enabled":"yes","bill_days":32,"statement_days":-1,"loan_days":99,"budget_threshold":1,` +
				`"digest_day":"someday","digest_hour":24,"quiet_start":"7am","quiet_end":"24:00"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf(
				"enabled", "must be a boolean",
				"bill_days", "must be an integer from 0 to 31",
				"statement_days", "must be an integer from 0 to 31",
				"loan_days", "must be an integer from 0 to 31",
				"budget_threshold", "must be a boolean",
				"digest_day", "must be one of: off, monday, tuesday, wednesday, thursday, friday, saturday, sunday",
				"digest_hour", "must be an integer from 0 to 23",
				"quiet_start", "must be a time HH:MM from 00:00 to 23:59, or null for no quiet hours",
				"quiet_end", "must be a time HH:MM from 00:00 to 23:59, or null for no quiet hours")}),
		alice.sc(apiScenario{name: "one end of the quiet hours", method: http.MethodPut, url: reminderSettingsURL,
			body: `{"quiet_start":"22:00"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("quiet_end", "is required with the other end of the quiet hours (both HH:MM, or both null)")}),
		alice.sc(apiScenario{name: "an empty quiet window", method: http.MethodPut, url: reminderSettingsURL,
			body: `{"quiet_start":"06:00","quiet_end":"06:00"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("quiet_start", "must differ from quiet_end")}),
		{name: "a read key cannot change them", method: http.MethodPut, url: reminderSettingsURL, body: `{"enabled":true}`,
			headers: bearer(reader), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "an expenses key cannot read them", method: http.MethodGet, url: reminderSettingsURL,
			headers: bearer(env.createKey(alice.user.ID, auth.ScopeExpensesWrite)), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "an expenses key cannot read the reminders", method: http.MethodGet, url: remindersURL,
			headers: bearer(env.createKey(alice.user.ID, auth.ScopeExpensesWrite)), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
	})
}

// chatStub stands in for the Telegram delivery: it records each message
// per user, and answers as the test sets (no chat, a failure).
type chatStub struct {
	mu     sync.Mutex
	sent   map[string][]string
	noChat map[string]bool
	fail   error
}

func newChatStub() *chatStub {
	return &chatStub{sent: map[string][]string{}, noChat: map[string]bool{}}
}

func (c *chatStub) SendReminder(_ context.Context, userID, message string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fail != nil {
		return false, c.fail
	}
	if c.noChat[userID] {
		return false, nil
	}
	c.sent[userID] = append(c.sent[userID], message)
	return true, nil
}

func (c *chatStub) take(userID string) []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.sent[userID]
	delete(c.sent, userID)
	return out
}

// TestRemindersFireOnTheirDay moves the clock through a week of Manila
// days and runs the scheduler's pass at each step: each kind is sent on its
// day in the user's timezone, once, held through the quiet hours, and
// nothing is sent to a user who did not opt in.
func TestRemindersFireOnTheirDay(t *testing.T) {
	env, alice, bob := newBillEnv(t)
	ledger := env.srv.Ledger()
	now := time.Date(2025, 3, 9, 15, 0, 0, 0, time.UTC) // 23:00 on Sunday March 9 in Manila
	ledger.SetClock(func() time.Time { return now })
	at := func(manila string) {
		t.Helper()
		tm, err := time.ParseInLocation("2006-01-02 15:04", manila, time.FixedZone("PHT", 8*3600))
		if err != nil {
			t.Fatal(err)
		}
		now = tm
	}
	for _, u := range []ledgerUser{alice, bob} {
		u.createTemplate(t, `{"name":"Electricity","amount":"2450","category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":14}`)
		u.do(t, http.MethodPut, thresholdsURL, `{"thresholds":[{"category":"Groceries","monthly_limit":1000,"warning_percent":80}]}`, http.StatusOK)
	}
	alice.do(t, http.MethodPut, reminderSettingsURL, `{"enabled":true,"bill_days":3,"digest_day":"monday","digest_hour":8}`, http.StatusOK)
	// Bob keeps the defaults: reminders off.
	chat := newChatStub()
	pass := func() int {
		t.Helper()
		n, err := ledger.RunReminders(context.Background(), chat)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	expect := func(when string, want ...string) {
		t.Helper()
		at(when)
		pass()
		if diff := cmp.Diff(want, chat.take(alice.user.ID)); diff != "" {
			t.Errorf("%s: sent (-want +got):\n%s", when, diff)
		}
	}

	expect("2025-03-09 23:00") // quiet hours, and the bill is 5 days away
	// Monday 00:30: the digest's hour has not come, the bill is 4 days away.
	expect("2025-03-10 00:30")
	// Monday 08:00: the digest, this week's first. Quiet hours end at 07:00.
	expect("2025-03-10 08:00",
		"Week digest: spent ₱0.00 this month, income ₱0.00; 1 bill (₱2,450.00) and 0 statements (₱0.00) due in the next 7 days.")
	// Tuesday 00:10 is quiet: the bill, 3 days away from today, is held.
	expect("2025-03-11 00:10")
	expect("2025-03-11 06:59")
	expect("2025-03-11 07:00", "Electricity: ₱2,450.00 due 2025-03-14 (in 3 days).")
	// Later passes the same day and the next days send nothing again.
	expect("2025-03-11 12:00")
	expect("2025-03-13 12:00")

	// Spending crosses the warning percent, then the limit: two reminders.
	alice.createExpense(t, `{"amount":850,"date":"2025-03-13","description":"Market","category":"Groceries","payment_method":"Cash"}`)
	expect("2025-03-13 12:05", "Groceries: ₱850.00 spent of ₱1,000.00 this month (85%).")
	alice.createExpense(t, `{"amount":200,"date":"2025-03-13","description":"Market","category":"Groceries","payment_method":"Cash"}`)
	expect("2025-03-13 12:10", "Groceries: ₱1,050.00 spent of ₱1,000.00 this month (105%), over the limit.")
	expect("2025-03-13 12:15")

	if got := chat.take(bob.user.ID); got != nil {
		t.Errorf("bob, who never turned reminders on, was sent %q", got)
	}
	if got := snapshotReminders(t, env, bob.user.ID).Reminders; len(got) != 0 {
		t.Errorf("bob has %d reminders recorded, want none", len(got))
	}

	// The log: newest first, each sent once, and only the user's own.
	list := send[[]finance.Reminder](t, alice, http.MethodGet, remindersURL, "", http.StatusOK)
	var kinds []string
	for _, r := range list {
		if r.Delivery != finance.DeliverySent || r.SentAt == nil {
			t.Errorf("%s %s: delivery %s, sent_at %v", r.Kind, r.Occurrence, r.Delivery, r.SentAt)
		}
		kinds = append(kinds, r.Kind+" "+r.Occurrence)
	}
	slices.Sort(kinds)
	want := []string{"bill_due 2025-03-14", "budget_threshold 2025-03:exceeded", "budget_threshold 2025-03:warning", "weekly_digest 2025-03-10"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("alice's reminders (-want +got):\n%s", diff)
	}
	if got := send[[]finance.Reminder](t, bob, http.MethodGet, remindersURL, "", http.StatusOK); len(got) != 0 {
		t.Errorf("bob sees %d reminders, want none of alice's", len(got))
	}

	// Turning reminders off stops them: next Monday's digest is not sent.
	alice.do(t, http.MethodPut, reminderSettingsURL, `{"enabled":false}`, http.StatusOK)
	expect("2025-03-17 09:00")
}

// TestReminderDeliveryIsRecorded: a user without a chat, or a send that
// fails, still has the reminder recorded (and on Home), never retried.
func TestReminderDeliveryIsRecorded(t *testing.T) {
	env, alice, bob := newBillEnv(t)
	ledger := env.srv.Ledger()
	ledger.SetClock(func() time.Time { return time.Date(2025, 3, 12, 2, 0, 0, 0, time.UTC) }) // 10:00 March 12 in Manila
	for _, u := range []ledgerUser{alice, bob} {
		u.createTemplate(t, `{"name":"Water","amount":"450.5","category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":14}`)
		u.do(t, http.MethodPut, reminderSettingsURL, `{"enabled":true,"digest_day":"off","budget_threshold":false}`, http.StatusOK)
	}
	chat := newChatStub()
	chat.noChat[alice.user.ID] = true
	if n, err := ledger.RunReminders(context.Background(), chat); err != nil || n != 2 {
		t.Fatalf("pass claimed %d (%v), want 2", n, err)
	}
	chat.fail = errors.New("telegram sendMessage: 502 Bad Gateway")
	if n, err := ledger.RunReminders(context.Background(), chat); err != nil || n != 0 {
		t.Fatalf("second pass claimed %d (%v), want 0", n, err)
	}
	got := snapshotReminders(t, env, alice.user.ID).Reminders
	if len(got) != 1 || got[0].Delivery != finance.DeliveryHomeOnly || got[0].Message != "Water: ₱450.50 due 2025-03-14 (in 2 days)." {
		t.Errorf("alice's reminders %+v, want one home_only for the water bill", got)
	}
	if got := chat.take(bob.user.ID); len(got) != 1 {
		t.Errorf("bob was sent %q, want the water bill once", got)
	}

	// A failed send is recorded with its error and not tried again.
	carol := ledgerUser{env: env, user: env.createUser(finance.PlanPro)}
	carol.key = env.createKey(carol.user.ID, auth.ScopeBillsWrite, auth.ScopeSettingsWrite)
	carol.createTemplate(t, `{"name":"Rent","amount":"15000","category":"Rent & Housing","frequency":"monthly","start_date":"2025-03-01","due_day":13}`)
	carol.do(t, http.MethodPut, reminderSettingsURL, `{"enabled":true,"digest_day":"off"}`, http.StatusOK)
	for range 2 {
		if _, err := ledger.RunReminders(context.Background(), chat); err != nil {
			t.Fatal(err)
		}
	}
	got = snapshotReminders(t, env, carol.user.ID).Reminders
	if len(got) != 1 || got[0].Delivery != finance.DeliveryFailed || got[0].Error == nil ||
		*got[0].Error != "telegram sendMessage: 502 Bad Gateway" || got[0].SentAt != nil {
		t.Errorf("carol's reminders %+v, want one failed with the error", got)
	}
}

// stopDuringSend is a chat that takes the message while the server is
// being stopped: the pass's context ends as the send returns.
type stopDuringSend struct {
	*chatStub
	stop context.CancelFunc
}

func (c stopDuringSend) SendReminder(ctx context.Context, userID, message string) (bool, error) {
	defer c.stop()
	return c.chatStub.SendReminder(ctx, userID, message)
}

// TestReminderSentAsTheServerStops: a reminder the chat took while the
// server was stopping is recorded as sent, not left pending forever.
func TestReminderSentAsTheServerStops(t *testing.T) {
	env, alice, _ := newBillEnv(t)
	ledger := env.srv.Ledger()
	ledger.SetClock(func() time.Time { return time.Date(2025, 3, 12, 2, 0, 0, 0, time.UTC) })
	alice.createTemplate(t, `{"name":"Water","amount":"100","category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":14}`)
	alice.do(t, http.MethodPut, reminderSettingsURL, `{"enabled":true,"digest_day":"off","budget_threshold":false}`, http.StatusOK)
	ctx, stop := context.WithCancel(context.Background())
	chat := stopDuringSend{newChatStub(), stop}
	if n, err := ledger.RunReminders(ctx, chat); err != nil || n != 1 {
		t.Fatalf("pass claimed %d (%v), want 1 and no error", n, err)
	}
	got := snapshotReminders(t, env, alice.user.ID).Reminders
	if len(got) != 1 || got[0].Delivery != finance.DeliverySent || len(chat.take(alice.user.ID)) != 1 {
		t.Errorf("reminders %+v, want the water bill recorded as sent", got)
	}
}

// TestRemindersRaceOnce runs many scheduler passes at once on one
// database: every reminder is claimed, and sent, exactly once.
func TestRemindersRaceOnce(t *testing.T) {
	env, alice, _ := newBillEnv(t)
	ledger := env.srv.Ledger()
	ledger.SetClock(func() time.Time { return time.Date(2025, 3, 12, 2, 0, 0, 0, time.UTC) })
	for _, name := range []string{"Water", "Power", "Internet", "Phone"} {
		alice.createTemplate(t, `{"name":"`+name+`","amount":"100","category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":14}`)
	}
	alice.do(t, http.MethodPut, reminderSettingsURL, `{"enabled":true,"digest_day":"off"}`, http.StatusOK)
	chat := newChatStub()
	var wg sync.WaitGroup
	claimed := make([]int, 8)
	for i := range claimed {
		wg.Go(func() {
			n, err := ledger.RunReminders(context.Background(), chat)
			if err != nil {
				t.Error(err)
			}
			claimed[i] = n
		})
	}
	wg.Wait()
	total := 0
	for _, n := range claimed {
		total += n
	}
	sent := chat.take(alice.user.ID)
	slices.Sort(sent)
	if total != 4 || len(sent) != 4 || slices.Compact(sent) != nil && len(slices.Compact(sent)) != 4 {
		t.Errorf("8 racing passes claimed %d and sent %q, want each of the 4 bills once", total, sent)
	}
}

// TestStatementAndLoanReminders: a card statement is reminded of with its
// minimum, and a loan installment with its number, each on the day its
// days-before setting says, in the user's timezone.
func TestStatementAndLoanReminders(t *testing.T) {
	env, alice, _ := newBillEnv(t)
	alice.key = env.createKey(alice.user.ID, auth.ScopeBillsWrite, auth.ScopeExpensesWrite, auth.ScopeCardsWrite,
		auth.ScopeLoansWrite, auth.ScopeSettingsWrite)
	ledger := env.srv.Ledger()
	now := time.Date(2025, 2, 20, 4, 0, 0, 0, time.UTC)
	ledger.SetClock(func() time.Time { return now })
	c := alice.createCard(t, `{"name":"Gold","credit_limit":100000,"statement_day":1,"due_day":20,"cycle_start_date":"2025-01-01"}`)
	alice.createExpense(t, `{"amount":"18200","date":"2025-02-20","description":"Laptop","category":"Shopping","payment_method":"Credit Card","credit_card_id":"`+c.ID+`"}`)
	alice.createLoan(t, `{"name":"Car loan","principal":1200,"interest_type":"none","term_months":12,"start_date":"2025-02-14","first_due_date":"2025-03-14"}`)
	alice.do(t, http.MethodPut, reminderSettingsURL,
		`{"enabled":true,"statement_days":5,"loan_days":3,"bill_days":0,"budget_threshold":false,"digest_day":"off"}`, http.StatusOK)
	chat := newChatStub()
	pass := func(utc time.Time) []string {
		t.Helper()
		now = utc
		if _, err := ledger.RunReminders(context.Background(), chat); err != nil {
			t.Fatal(err)
		}
		return chat.take(alice.user.ID)
	}
	// 23:30 UTC on March 10 is 07:30 on March 11 in Manila: the loan's
	// installment is 3 days away there (4 in UTC).
	if got := pass(time.Date(2025, 3, 10, 22, 30, 0, 0, time.UTC)); got != nil {
		t.Errorf("06:30 in Manila, quiet: sent %q", got)
	}
	got := pass(time.Date(2025, 3, 10, 23, 30, 0, 0, time.UTC))
	if diff := cmp.Diff([]string{"Car loan installment 1: ₱100.00 due 2025-03-14 (in 3 days)."}, got); diff != "" {
		t.Errorf("March 11 (-want +got):\n%s", diff)
	}
	soas := alice.soas(t, "/api/v1/credit-cards/soa")
	if len(soas) != 1 {
		t.Fatalf("%d statements, want the one of March 1", len(soas))
	}
	due := soas[0].DueDate
	day := due.AddDays(-5).In(time.UTC).Add(2 * time.Hour) // 10:00 in Manila, 5 days before
	if got := pass(day.Add(-24 * time.Hour)); got != nil {
		t.Errorf("6 days before the statement's due date: sent %q", got)
	}
	want := "Gold statement: ₱18,200.00 due " + due.String() + " (in 5 days), minimum " + finance.FormatMoney("PHP", soas[0].MinimumDue) + "."
	if diff := cmp.Diff([]string{want}, pass(day)); diff != "" {
		t.Errorf("5 days before (-want +got):\n%s", diff)
	}
	if got := pass(day.Add(time.Hour)); got != nil {
		t.Errorf("an hour later: sent %q again", got)
	}
}

// A bill in another currency is reminded of in its currency, and the
// digest, in the reporting currency, names what it could not convert
// instead of adding yen to pesos.
func TestRemindersInTheirCurrencies(t *testing.T) {
	env, alice, _ := newBillEnv(t)
	ledger := env.srv.Ledger()
	now := time.Date(2025, 3, 10, 0, 0, 0, 0, time.UTC) // 08:00 on Monday March 10 in Manila
	ledger.SetClock(func() time.Time { return now })
	alice.createTemplate(t, `{"name":"Electricity","amount":"2450","category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":14}`)
	alice.createTemplate(t, `{"name":"Dorm","currency":"JPY","amount":"5000","category":"Rent & Housing","frequency":"monthly","start_date":"2025-03-01","due_day":13}`)
	alice.do(t, http.MethodPut, reminderSettingsURL, `{"enabled":true,"bill_days":3,"digest_day":"monday","digest_hour":8}`, http.StatusOK)
	chat := newChatStub()
	if _, err := ledger.RunReminders(context.Background(), chat); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"Dorm: ¥5,000 due 2025-03-13 (in 3 days).",
		"Week digest: spent ₱0.00 this month, income ₱0.00; 2 bills (₱2,450.00) and 0 statements (₱0.00) due in the next 7 days. Not counted, for want of a rate: ¥5,000.",
	}
	if diff := cmp.Diff(want, chat.take(alice.user.ID)); diff != "" {
		t.Errorf("sent (-want +got):\n%s", diff)
	}
}
