package server

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/uptrace/bunrouter"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
)

// cashExpense is a create body of a Cash expense of amount.
func cashExpense(amount string) string {
	return `{"amount":"` + amount + `","date":"2025-03-05","description":"Lunch","category":"Food & Dining","payment_method":"Cash"}`
}

// postWithKey sends body to url as u with the Idempotency-Key key.
func (u ledgerUser) postWithKey(t testing.TB, url, key, body string, wantStatus int) apiResult {
	t.Helper()
	h := bearer(u.key)
	h[IdempotencyKeyHeader] = key
	return apiScenario{method: http.MethodPost, url: url, body: body, headers: h, wantStatus: wantStatus}.run(t, u.env)
}

// storedFor returns the response stored for u's key, or finance.ErrNotFound.
func storedFor(t testing.TB, u ledgerUser, key string) (storedResponse, error) {
	t.Helper()
	_, status, ct, body, err := u.env.db.IdempotentResponse(context.Background(), u.user.ID, key, u.env.srv.Ledger().Now())
	if err != nil && !errors.Is(err, finance.ErrNotFound) {
		t.Fatalf("IdempotentResponse: %v", err)
	}
	return storedResponse{status: status, contentType: ct, body: body}, err
}

// checkReplay checks that res is a replay of first: the same status and body, marked.
func checkReplay(t testing.TB, first, res apiResult) {
	t.Helper()
	if res.status != first.status || !bytes.Equal(res.raw, first.raw) {
		t.Errorf("replay = %d %s, want the first answer %d %s", res.status, res.raw, first.status, first.raw)
	}
	if got := res.header.Get(IdempotentReplayedHeader); got != "true" {
		t.Errorf("replay: %s = %q, want true", IdempotentReplayedHeader, got)
	}
	if got, want := res.header.Get("Content-Type"), first.header.Get("Content-Type"); got != want {
		t.Errorf("replay: Content-Type = %q, want %q", got, want)
	}
}

// notReplayed checks that res ran: no replay header.
func notReplayed(t testing.TB, res apiResult) {
	t.Helper()
	if v, ok := res.header[IdempotentReplayedHeader]; ok {
		t.Errorf("a request that ran carries %s: %v", IdempotentReplayedHeader, v)
	}
}

// The first request with a key writes and stores its answer; the same
// request again gets that answer, marked as a replay, and writes nothing.
func TestIdempotentWriteReplays(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	acc := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":1000}`)
	before := snapshotSpending(t, env, alice.user.ID)

	first := alice.postWithKey(t, "/api/v1/expenses", "lunch-0305", cashExpense("249.50"), http.StatusCreated)
	notReplayed(t, first)
	afterFirst := snapshotSpending(t, env, alice.user.ID)
	if len(afterFirst.Expenses) != len(before.Expenses)+1 {
		t.Fatalf("expenses: %d, want %d", len(afterFirst.Expenses), len(before.Expenses)+1)
	}
	stored, err := storedFor(t, alice, "lunch-0305")
	if err != nil {
		t.Fatalf("no stored response: %v", err)
	}
	want := storedResponse{status: http.StatusCreated, contentType: "application/json; charset=utf-8", body: first.raw}
	if diff := cmp.Diff(want, stored, cmp.AllowUnexported(storedResponse{})); diff != "" {
		t.Errorf("stored response (-want +got):\n%s", diff)
	}

	for range 2 {
		again := alice.postWithKey(t, "/api/v1/expenses", "lunch-0305", cashExpense("249.50"), http.StatusCreated)
		checkReplay(t, first, again)
	}
	if diff := cmp.Diff(afterFirst, snapshotSpending(t, env, alice.user.ID), equateDates); diff != "" {
		t.Errorf("a replay wrote (-after first +after replays):\n%s", diff)
	}

	// A balance adjustment, the write an agent must never repeat, moves the
	// balance once however often it is sent.
	adjust := `{"target_balance":"1500.00","reason":"match the bank"}`
	url := "/api/v1/accounts/" + acc.ID + "/balance-adjustment"
	first = alice.postWithKey(t, url, "adjust-1", adjust, http.StatusCreated)
	checkReplay(t, first, alice.postWithKey(t, url, "adjust-1", adjust, http.StatusCreated))
	if got := alice.account(t, acc.ID).CurrentBalance; got != 1500_00 {
		t.Errorf("balance after an adjustment and its replay: %s, want 1500.00", got)
	}
	lines, _ := alice.lines(t, "/api/v1/accounts/"+acc.ID+"/transactions?source=adjustment")
	if len(lines) != 1 {
		t.Errorf("adjustment lines: %d, want 1", len(lines))
	}

	// Without a key every request writes, as before.
	alice.do(t, http.MethodPost, "/api/v1/expenses", cashExpense("249.50"), http.StatusCreated)
	alice.do(t, http.MethodPost, "/api/v1/expenses", cashExpense("249.50"), http.StatusCreated)
	if got := len(snapshotSpending(t, env, alice.user.ID).Expenses); got != len(afterFirst.Expenses)+2 {
		t.Errorf("expenses after two requests without a key: %d, want %d", got, len(afterFirst.Expenses)+2)
	}
}

// conflictMessage is the answer to a key sent again with another request:
// read the state first; never "send a new key".
const conflictMessage = "This Idempotency-Key was used in the last 24 hours with a different request, which was carried out; " +
	"nothing was written now. Read the current state first to see what that request did. If it is the write " +
	"you meant, it is done (the same request with the same key returns its answer); if it is not, decide " +
	"with the user whether another write is wanted before sending one."

// conflict is a request with alice's key that must be refused as another
// request than the one the key was used for.
func conflict(u ledgerUser, name, url, key, body string) apiScenario {
	return apiScenario{name: name, method: http.MethodPost, url: url, body: body,
		headers:    map[string]string{"Authorization": "Bearer " + u.key, IdempotencyKeyHeader: key},
		wantStatus: http.StatusUnprocessableEntity, wantCode: CodeIdempotencyConflict, wantMessage: conflictMessage,
		wantFields: map[string]string{IdempotencyKeyHeader: "was used with a different request"},
		noHeaders:  []string{IdempotentReplayedHeader}}
}

// The same key with another request (another amount, other text, another
// route) is its own error, 422 IDEMPOTENCY_CONFLICT, whose message sends
// the client to read the state and never to a new key; it writes nothing,
// and the stored answer stays.
func TestIdempotencyConflict(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	first := alice.postWithKey(t, "/api/v1/expenses", "k1", cashExpense("10.00"), http.StatusCreated)
	category := alice.postWithKey(t, "/api/v1/categories", "k2", `{"name":"Pets","kind":"expense"}`, http.StatusCreated)
	if strings.Contains(strings.ToLower(conflictMessage), "new key") {
		t.Fatal("the conflict message speaks of a new key")
	}

	lunch := func(description, method string) string {
		return `{"amount":"10.00","date":"2025-03-05","description":"` + description +
			`","category":"Food & Dining","payment_method":"` + method + `"}`
	}
	alice.postWithKey(t, "/api/v1/categories", "k3", `{"name":"10","kind":"expense"}`, http.StatusCreated)
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		conflict(alice, "another amount", "/api/v1/expenses", "k1", cashExpense("10.01")),
		conflict(alice, "another amount spelled as a number", "/api/v1/expenses", "k1",
			strings.Replace(cashExpense("x"), `"x"`, "10.1", 1)),
		// Text compares as sent: the route would trim the blank and read
		// any letter case of the method, but a retry copies text.
		conflict(alice, "a description with a trailing blank", "/api/v1/expenses", "k1", lunch("Lunch ", "Cash")),
		conflict(alice, "the method in another letter case", "/api/v1/expenses", "k1", lunch("Lunch", "cash")),
		conflict(alice, "a note added", "/api/v1/expenses", "k1", strings.Replace(cashExpense("10.00"), "}", `,"notes":"x"}`, 1)),
		conflict(alice, "the same body on another route", "/api/v1/user-settings/categories", "k2", `{"name":"Pets","kind":"expense"}`),
		conflict(alice, "another route and body", "/api/v1/categories", "k1", `{"name":"Toys","kind":"expense"}`),
		// A text member holding a number is text: "10" is not "10.0".
		conflict(alice, "a name spelled as another number", "/api/v1/categories", "k3", `{"name":"10.0","kind":"expense"}`),
	})
	if cats, _ := alice.categories(t, "/api/v1/categories?search=Toys"); len(cats) != 0 {
		t.Errorf("a refused request created a category: %v", cats)
	}
	if cats, _ := alice.categories(t, "/api/v1/categories?search=10"); len(cats) != 1 {
		t.Errorf("categories named like 10: %v, want the one written", cats)
	}
	stored, err := storedFor(t, alice, "k1")
	if err != nil || !bytes.Equal(stored.body, first.raw) {
		t.Errorf("the stored answer changed: %s, %v", stored.body, err)
	}
	checkReplay(t, first, alice.postWithKey(t, "/api/v1/expenses", "k1", cashExpense("10.00"), http.StatusCreated))
	checkReplay(t, category, alice.postWithKey(t, "/api/v1/categories", "k2", `{"name":"Pets","kind":"expense"}`, http.StatusCreated))
	if got := len(snapshotSpending(t, env, alice.user.ID).Expenses); got != 1 {
		t.Errorf("expenses: %d, want 1", got)
	}
}

// A retry is the same request however its client spells it: an amount as
// 1, 1.0 or "1.00", members in another order, null for an absent member,
// blanks between tokens, a form instead of JSON. Each replays the first
// answer (status, body, the replay header) and the database keeps one row.
func TestIdempotentSameRequestSpelledOtherwise(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	const rest = `"date":"2025-03-05","description":"Lunch","category":"Food & Dining","payment_method":"Cash"`
	first := alice.postWithKey(t, "/api/v1/expenses", "lunch", `{"amount":1,`+rest+`}`, http.StatusCreated)
	notReplayed(t, first)
	for _, body := range []string{
		`{"amount":1.0,` + rest + `}`,
		`{"amount":"1.00",` + rest + `}`,
		`{"amount":"01.000",` + rest + `}`,
		`{` + rest + `,"amount":1}`,
		`{"amount":1,` + rest + `,"notes":null,"account_id":null}`,
		" {\n  \"amount\" : 1 ,\t" + rest + " }\n",
	} {
		checkReplay(t, first, alice.postWithKey(t, "/api/v1/expenses", "lunch", body, http.StatusCreated))
	}
	// A form stands for the same object, whatever its boundary.
	for range 2 {
		body, ct := form(t, [][2]string{{"payment_method", "Cash"}, {"amount", "1.0"}, {"date", "2025-03-05"},
			{"description", "Lunch"}, {"category", "Food & Dining"}})
		res := apiScenario{method: http.MethodPost, url: "/api/v1/expenses", body: body, wantStatus: http.StatusCreated,
			headers: map[string]string{"Authorization": "Bearer " + alice.key, "Content-Type": ct, IdempotencyKeyHeader: "lunch"}}.run(t, env)
		checkReplay(t, first, res)
	}
	if got := snapshotSpending(t, env, alice.user.ID).Expenses; len(got) != 1 || got[0].Amount != 1_00 {
		t.Errorf("expenses after one write and its retries: %+v, want one of 1.00", got)
	}

	// Nested amounts too: the items of a bulk request.
	item := func(amount string) string {
		return `{"amount":` + amount + `,"date":"2025-03-06","description":"Taxi","category":"Transportation","payment_method":"Cash"}`
	}
	bulk := alice.postWithKey(t, "/api/v1/expenses/bulk", "bulk", `{"items":[`+item("2.5")+`,`+item("3")+`]}`, http.StatusCreated)
	checkReplay(t, bulk, alice.postWithKey(t, "/api/v1/expenses/bulk", "bulk", `{"items":[`+item(`"2.50"`)+`,`+item(`"3.00"`)+`]}`, http.StatusCreated))
	// The items' order is the request's: swapped, they are another request.
	conflict(alice, "", "/api/v1/expenses/bulk", "bulk", `{"items":[`+item("3")+`,`+item("2.5")+`]}`).run(t, env)
	if got := len(snapshotSpending(t, env, alice.user.ID).Expenses); got != 3 {
		t.Errorf("expenses: %d, want 3", got)
	}
}

// An absent member the contract gives a constant default is that default,
// and a count or a day reads as the route reads it ("15", " 15 ", 15): a
// card sent with and without its defaults, an account with and without its
// zero opening balance, an adjustment with and without its default reason
// are one write each.
func TestIdempotentDefaultsApplied(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	card := alice.postWithKey(t, "/api/v1/credit-cards", "card",
		`{"name":"BPI Gold","credit_limit":50000,"statement_day":15,"due_day":5}`, http.StatusCreated)
	checkReplay(t, card, alice.postWithKey(t, "/api/v1/credit-cards", "card",
		`{"name":"BPI Gold","credit_limit":"50000.00","statement_day":"15","due_day":" 5 ","minimum_due_percent":"3.0","minimum_due_floor":500}`,
		http.StatusCreated))
	checkReplay(t, card, alice.postWithKey(t, "/api/v1/credit-cards", "card",
		`{"name":"BPI Gold","credit_limit":50000,"statement_day":15,"due_day":5,"minimum_due_percent":null,"minimum_due_floor":"500.00"}`,
		http.StatusCreated))
	// Another value than the default is another card.
	conflict(alice, "", "/api/v1/credit-cards", "card",
		`{"name":"BPI Gold","credit_limit":50000,"statement_day":15,"due_day":5,"minimum_due_percent":5}`).run(t, env)

	acc := alice.postWithKey(t, "/api/v1/accounts", "acc", `{"name":"BPI","type":"savings","opening_balance":0}`, http.StatusCreated)
	checkReplay(t, acc, alice.postWithKey(t, "/api/v1/accounts", "acc", `{"name":"BPI","type":"savings"}`, http.StatusCreated))
	checkReplay(t, acc, alice.postWithKey(t, "/api/v1/accounts", "acc", `{"name":"BPI","type":"savings","opening_balance":"-0.00"}`, http.StatusCreated))

	var account finance.Account
	acc.decodeData(t, &account)
	url := "/api/v1/accounts/" + account.ID + "/balance-adjustment"
	adjusted := alice.postWithKey(t, url, "adjust", `{"target_balance":250,"date":"2025-03-10"}`, http.StatusCreated)
	checkReplay(t, adjusted, alice.postWithKey(t, url, "adjust",
		`{"reason":"Balance adjustment","target_balance":"250.00","date":"2025-03-10"}`, http.StatusCreated))
	// A default that is today's date is not filled in: an omitted date
	// and today's, spelled out, are two requests.
	conflict(alice, "", url, "adjust", `{"target_balance":250,"date":"2025-03-11"}`).run(t, env)

	st := snapshotSpending(t, env, alice.user.ID)
	if len(st.Cards) != 1 || len(st.Ledger.Accounts) != 1 || st.Ledger.Accounts[0].CurrentBalance != 250_00 {
		t.Errorf("after one card, one account and one adjustment, each retried: %d cards, accounts %+v", len(st.Cards), st.Ledger.Accounts)
	}
	lines, _ := alice.lines(t, "/api/v1/accounts/"+account.ID+"/transactions")
	if len(lines) != 1 {
		t.Errorf("account lines: %d, want the one adjustment", len(lines))
	}
}

// A key stored before requests were normalized kept the SHA-256 of the
// request's bytes: it still replays a request of the same bytes, and
// answers any other with the conflict, until it expires.
func TestIdempotencyKeyStoredBeforeNormalization(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	body := cashExpense("7.50")
	first := alice.postWithKey(t, "/api/v1/expenses", "new", body, http.StatusCreated)
	// The same answer kept under another key, as the server kept it
	// before: with the fingerprint of the bytes.
	ctx := context.Background()
	legacy := fingerprint(httptest.NewRequest(http.MethodPost, "/api/v1/expenses", nil), []byte(body))
	if len(legacy) != sha256.Size {
		t.Fatalf("the fingerprint of the bytes is %d bytes, want a bare SHA-256", len(legacy))
	}
	err := env.db.WriteScope(ctx, func(ctx context.Context) error {
		return env.db.SaveIdempotentResponse(ctx, alice.user.ID, "old", legacy, first.status,
			first.header.Get("Content-Type"), first.raw, env.srv.Ledger().Now())
	})
	if err != nil {
		t.Fatal(err)
	}
	checkReplay(t, first, alice.postWithKey(t, "/api/v1/expenses", "old", body, http.StatusCreated))
	conflict(alice, "", "/api/v1/expenses", "old", strings.Replace(body, `"7.50"`, "7.5", 1)).run(t, env)
	if got := len(snapshotSpending(t, env, alice.user.ID).Expenses); got != 1 {
		t.Errorf("expenses: %d, want 1", got)
	}
}

// A key that is not 1 to 255 visible ASCII characters, or is given twice, is
// refused before anything runs.
func TestIdempotencyKeyInvalid(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	const message = "Idempotency-Key must be 1 to 255 visible ASCII characters, without spaces; a random UUID is a good key"
	fields := map[string]string{IdempotencyKeyHeader: "must be 1 to 255 visible ASCII characters"}
	bad := func(name, key string) apiScenario {
		return apiScenario{name: name, method: http.MethodPost, url: "/api/v1/expenses", body: cashExpense("5.00"),
			headers:    map[string]string{"Authorization": "Bearer " + alice.key, IdempotencyKeyHeader: key},
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantMessage: message, wantFields: fields}
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		bad("empty", ""),
		bad("256 characters", strings.Repeat("k", 256)),
		bad("a space", "my key"),
		bad("a tab", "my\tkey"),
		bad("non-ASCII", "clé-1"),
		bad("a control character", "key\x7f"),
	})
	t.Run("given twice", func(t *testing.T) {
		before := snapshotSpending(t, env, alice.user.ID)
		req := httptest.NewRequest(http.MethodPost, "/api/v1/expenses", strings.NewReader(cashExpense("5.00")))
		req.Header.Set("Authorization", "Bearer "+alice.key)
		req.Header.Add(IdempotencyKeyHeader, "a")
		req.Header.Add(IdempotencyKeyHeader, "b")
		resp, raw := serveAPI(t, env.srv.Handler(), req, []byte(cashExpense("5.00")), true)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(raw), `"fields":{"Idempotency-Key":"must be given once"}`) {
			t.Errorf("two keys: %d %s", resp.StatusCode, raw)
		}
		if diff := cmp.Diff(before, snapshotSpending(t, env, alice.user.ID), equateDates); diff != "" {
			t.Errorf("two keys wrote (-before +after):\n%s", diff)
		}
	})
	t.Run("255 characters and every visible character are a key", func(t *testing.T) {
		var visible strings.Builder
		for c := byte(0x21); c <= 0x7e; c++ {
			visible.WriteByte(c)
		}
		for _, key := range []string{strings.Repeat("k", 255), visible.String()} {
			first := alice.postWithKey(t, "/api/v1/expenses", key, cashExpense("5.00"), http.StatusCreated)
			checkReplay(t, first, alice.postWithKey(t, "/api/v1/expenses", key, cashExpense("5.00"), http.StatusCreated))
		}
	})
}

// Keys belong to a user: another user's key of the same value is unrelated.
func TestIdempotencyKeyIsPerUser(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	mine := alice.postWithKey(t, "/api/v1/expenses", "shared-key", cashExpense("20.00"), http.StatusCreated)
	theirs := bob.postWithKey(t, "/api/v1/expenses", "shared-key", cashExpense("20.00"), http.StatusCreated)
	notReplayed(t, theirs)
	if bytes.Equal(mine.raw, theirs.raw) {
		t.Fatal("bob got alice's answer")
	}
	// Bob's key also takes another body: alice's request is nothing to him.
	bob.postWithKey(t, "/api/v1/expenses", "other-key", cashExpense("1.00"), http.StatusCreated)
	checkReplay(t, mine, alice.postWithKey(t, "/api/v1/expenses", "shared-key", cashExpense("20.00"), http.StatusCreated))
	checkReplay(t, theirs, bob.postWithKey(t, "/api/v1/expenses", "shared-key", cashExpense("20.00"), http.StatusCreated))
	for _, u := range []struct {
		who  ledgerUser
		want int
	}{{alice, 1}, {bob, 2}} {
		if got := len(snapshotSpending(t, env, u.who.user.ID).Expenses); got != u.want {
			t.Errorf("user %s has %d expenses, want %d", u.who.user.Email, got, u.want)
		}
	}
}

// A stored answer is replayed for 24 hours on the ledger's clock; after
// that the key runs again as a new request.
func TestIdempotencyKeyExpires(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	clock := ledgerNow
	env.srv.Ledger().SetClock(func() time.Time { return clock })
	first := alice.postWithKey(t, "/api/v1/expenses", "daily", cashExpense("3.00"), http.StatusCreated)

	clock = ledgerNow.Add(24*time.Hour - time.Second)
	checkReplay(t, first, alice.postWithKey(t, "/api/v1/expenses", "daily", cashExpense("3.00"), http.StatusCreated))
	if got := len(snapshotSpending(t, env, alice.user.ID).Expenses); got != 1 {
		t.Fatalf("expenses before expiry: %d, want 1", got)
	}

	clock = ledgerNow.Add(24 * time.Hour)
	if _, err := storedFor(t, alice, "daily"); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("the answer is still found after 24 hours: %v", err)
	}
	second := alice.postWithKey(t, "/api/v1/expenses", "daily", cashExpense("3.00"), http.StatusCreated)
	notReplayed(t, second)
	if bytes.Equal(first.raw, second.raw) {
		t.Error("the expired answer was sent again")
	}
	if got := len(snapshotSpending(t, env, alice.user.ID).Expenses); got != 2 {
		t.Errorf("expenses after the key expired and ran again: %d, want 2", got)
	}
	clock = clock.Add(time.Minute)
	checkReplay(t, second, alice.postWithKey(t, "/api/v1/expenses", "daily", cashExpense("3.00"), http.StatusCreated))
}

// An error is not stored: nothing was written, so the same key runs again,
// and a request corrected after a 400 (another body) may keep its key.
func TestIdempotencyErrorsAreNotStored(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	bad := alice.postWithKey(t, "/api/v1/expenses", "retry-me", `{"amount":-5,"date":"2025-03-05","description":"x","category":"Food & Dining","payment_method":"Cash"}`, http.StatusBadRequest)
	notReplayed(t, bad)
	if bad.env.Error == nil || bad.env.Error.Fields["amount"] == "" {
		t.Fatalf("want a 400 naming amount: %s", bad.raw)
	}
	if _, err := storedFor(t, alice, "retry-me"); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("an error was stored: %v", err)
	}
	// The same bad request again runs again (and fails again): no replay of errors.
	notReplayed(t, alice.postWithKey(t, "/api/v1/expenses", "retry-me", `{"amount":-5,"date":"2025-03-05","description":"x","category":"Food & Dining","payment_method":"Cash"}`, http.StatusBadRequest))
	if got := len(snapshotSpending(t, env, alice.user.ID).Expenses); got != 0 {
		t.Fatalf("a refused request wrote %d expenses", got)
	}

	fixed := alice.postWithKey(t, "/api/v1/expenses", "retry-me", cashExpense("5.00"), http.StatusCreated)
	notReplayed(t, fixed)
	checkReplay(t, fixed, alice.postWithKey(t, "/api/v1/expenses", "retry-me", cashExpense("5.00"), http.StatusCreated))
	if got := len(snapshotSpending(t, env, alice.user.ID).Expenses); got != 1 {
		t.Errorf("expenses: %d, want 1", got)
	}
}

// A request with a key commits its writes and its answer together: a
// handler that fails, answers an error or panics after writing leaves
// nothing behind, and the writer is free for the next request.
func TestIdempotentWriteIsOneTransaction(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	writeExpense := func(r bunrouter.Request) error {
		_, err := env.srv.ledger.CreateExpense(r.Context(), userID(r), finance.ExpenseRequest{
			Amount: finance.Of(finance.Money(7_00)), Date: finance.Of(finance.NewDate(2025, 3, 5)),
			Description: finance.Of("written, then the request failed"), Category: finance.Of("Food & Dining"),
			PaymentMethod: finance.Of(finance.MethodCash)})
		return err
	}
	write := auth.Write(auth.ScopeExpensesWrite)
	env.srv.handle(http.MethodPost, "/api/v1/test/fails-after-writing", write, func(w http.ResponseWriter, r bunrouter.Request) error {
		if err := writeExpense(r); err != nil {
			return err
		}
		return finance.InvalidStatus("the request failed after its write")
	})
	env.srv.handle(http.MethodPost, "/api/v1/test/panics-after-writing", write, func(w http.ResponseWriter, r bunrouter.Request) error {
		if err := writeExpense(r); err != nil {
			return err
		}
		panic("a bug after the write")
	})
	// A handler may write an error answer itself and return nil; that is
	// not a success either.
	env.srv.handle(http.MethodPost, "/api/v1/test/answers-an-error-after-writing", write, func(w http.ResponseWriter, r bunrouter.Request) error {
		if err := writeExpense(r); err != nil {
			return err
		}
		env.srv.writeError(w, r.Request, finance.InvalidStatus("the request failed after its write"))
		return nil
	})
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/api/v1/test/fails-after-writing", http.StatusBadRequest},
		{"/api/v1/test/answers-an-error-after-writing", http.StatusBadRequest},
		{"/api/v1/test/panics-after-writing", http.StatusInternalServerError},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res := apiScenario{method: http.MethodPost, url: tc.path, body: `{}`, testRoute: true, wantStatus: tc.status,
				headers: map[string]string{"Authorization": "Bearer " + alice.key, IdempotencyKeyHeader: "k-" + tc.path}}.run(t, env)
			notReplayed(t, res)
			if got := snapshotSpending(t, env, alice.user.ID).Expenses; len(got) != 0 {
				t.Errorf("the write of a failed request was committed: %+v", got)
			}
			if _, err := storedFor(t, alice, "k-"+tc.path); !errors.Is(err, finance.ErrNotFound) {
				t.Errorf("a failed request stored an answer: %v", err)
			}
		})
	}
	// The writer was released: a write goes through.
	alice.postWithKey(t, "/api/v1/expenses", "after", cashExpense("1.00"), http.StatusCreated)
}

// Duplicates sent at once write once, however each spells the amount: one
// runs, the others wait for it and replay its answer.
func TestIdempotentConcurrentDuplicates(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	const n = 8
	spellings := []string{`"99.00"`, `99`, `99.0`, `"99"`, `"099.000"`, `99.00`}
	type answer struct {
		status   int
		body     []byte
		replayed bool
	}
	answers := make([]answer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		body := strings.Replace(cashExpense("x"), `"x"`, spellings[i%len(spellings)], 1)
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodPost, "/api/v1/expenses", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+alice.key)
			req.Header.Set(IdempotencyKeyHeader, "burst")
			<-start
			resp, raw := serveAPI(t, env.srv.Handler(), req, []byte(body), true)
			answers[i] = answer{resp.StatusCode, raw, resp.Header.Get(IdempotentReplayedHeader) == "true"}
		})
	}
	close(start)
	wg.Wait()

	ran := 0
	for i, a := range answers {
		if a.status != http.StatusCreated || !bytes.Equal(a.body, answers[0].body) {
			t.Errorf("answer %d: %d %s; want 201 and the same body as answer 0 (%s)", i, a.status, a.body, answers[0].body)
		}
		if !a.replayed {
			ran++
		}
	}
	if ran != 1 {
		t.Errorf("%d of %d duplicates ran; want exactly 1, the others replayed", ran, n)
	}
	if got := snapshotSpending(t, env, alice.user.ID).Expenses; len(got) != 1 || got[0].Amount != 99_00 {
		t.Errorf("expenses: %+v, want one of 99.00", got)
	}
}

// Two different requests sent at once with one key: one writes, the other
// gets the conflict, whichever comes first, and one row is written.
func TestIdempotentConcurrentConflict(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	bodies := []string{cashExpense("40.00"), cashExpense("41.00")}
	statuses := make([]int, len(bodies))
	codes := make([]string, len(bodies))
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i, body := range bodies {
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodPost, "/api/v1/expenses", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+alice.key)
			req.Header.Set(IdempotencyKeyHeader, "race")
			<-start
			resp, raw := serveAPI(t, env.srv.Handler(), req, []byte(body), true)
			statuses[i] = resp.StatusCode
			var env apiEnvelope
			_ = json.Unmarshal(raw, &env)
			if env.Error != nil {
				codes[i] = env.Error.Code
			}
		})
	}
	close(start)
	wg.Wait()
	slices.Sort(statuses)
	slices.Sort(codes)
	if diff := cmp.Diff([]int{http.StatusCreated, http.StatusUnprocessableEntity}, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"", CodeIdempotencyConflict}, codes); diff != "" {
		t.Errorf("codes (-want +got):\n%s", diff)
	}
	if got := len(snapshotSpending(t, env, alice.user.ID).Expenses); got != 1 {
		t.Errorf("expenses: %d, want 1", got)
	}
}

// Every POST route under /api/v1 that needs a credential reads the key (an
// invalid one is refused before the path id or the body is looked at), as
// the contract says (TestContractIdempotencyKey). Sign-in ignores it.
func TestIdempotencyKeyOnEveryWrite(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeAll)
	checked := 0
	for _, rt := range env.srv.Routes() {
		if rt.Method != http.MethodPost || !strings.HasPrefix(rt.Path, APIPrefix) || rt.Access.IsPublic() || rt.WritesNothing || rt.NoIdempotencyKey {
			// AI parsing writes nothing and is not wrapped (TestParseIgnoresIdempotencyKey);
			// the assistant keeps its own transactions (TestAssistantIgnoresIdempotencyKey).
			continue
		}
		checked++
		url := strings.ReplaceAll(contractPath(rt.Path), "{id}", finance.NewID())
		apiScenario{name: rt.Path, method: http.MethodPost, url: url, body: `{}`,
			headers:    map[string]string{"Authorization": "Bearer " + key, IdempotencyKeyHeader: "not a key"},
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: map[string]string{IdempotencyKeyHeader: "must be 1 to 255 visible ASCII characters"}}.run(t, env)
	}
	if checked < 10 {
		t.Errorf("checked %d routes; the API has more POST routes than that", checked)
	}
	apiScenario{method: http.MethodPost, url: "/api/v1/auth/login",
		body:       fmt.Sprintf(`{"email":%q,"password":%q}`, u.Email, testkit.Password),
		headers:    map[string]string{IdempotencyKeyHeader: "not a key"},
		wantStatus: http.StatusOK, noHeaders: []string{IdempotentReplayedHeader}}.run(t, env)
}

// A multipart form is the JSON object it stands for: resent under another
// boundary, or as JSON, it replays; another value in it is a conflict.
func TestIdempotentMultipartForm(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	fields := [][2]string{{"amount", "12.50"}, {"date", "2025-03-05"}, {"description", "Bus"},
		{"category", "Transportation"}, {"payment_method", "Cash"}}
	body, ct := form(t, fields)
	headers := map[string]string{"Authorization": "Bearer " + alice.key, "Content-Type": ct, IdempotencyKeyHeader: "bus"}
	post := func(body string, headers map[string]string, wantStatus int) apiResult {
		return apiScenario{method: http.MethodPost, url: "/api/v1/expenses", body: body, headers: headers, wantStatus: wantStatus}.run(t, env)
	}
	first := post(body, headers, http.StatusCreated)
	notReplayed(t, first)
	checkReplay(t, first, post(body, headers, http.StatusCreated))

	again, ct := form(t, fields)
	headers["Content-Type"] = ct
	checkReplay(t, first, post(again, headers, http.StatusCreated))
	checkReplay(t, first, alice.postWithKey(t, "/api/v1/expenses", "bus",
		`{"amount":12.5,"date":"2025-03-05","description":"Bus","category":"Transportation","payment_method":"Cash"}`, http.StatusCreated))

	other, ct := form(t, append(fields[1:], [2]string{"amount", "12.00"}))
	c := conflict(alice, "", "/api/v1/expenses", "bus", other)
	c.headers["Content-Type"] = ct
	c.run(t, env)
	if got := len(snapshotSpending(t, env, alice.user.ID).Expenses); got != 1 {
		t.Errorf("expenses: %d, want 1", got)
	}
}

// TestIdempotentRoutesHaveBodyShapes resolves the body shape of every route
// that takes an Idempotency-Key, which the server reads from the contract on
// the route's first keyed request rather than at start.
func TestIdempotentRoutesHaveBodyShapes(t *testing.T) {
	env := newTestEnv(t)
	n := 0
	for _, rt := range env.srv.Routes() {
		if !strings.HasPrefix(rt.Path, APIPrefix) || rt.Method != http.MethodPost || rt.Access.IsPublic() || rt.WritesNothing || rt.NoIdempotencyKey {
			continue
		}
		n++
		if _, err := requestBodyShape(rt.Method, rt.Path); err != nil {
			t.Errorf("%s %s: %v", rt.Method, rt.Path, err)
		}
	}
	if n < 20 {
		t.Errorf("%d routes take an Idempotency-Key, want the API's POST routes", n)
	}
}
