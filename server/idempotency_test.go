package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
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

// The same key with another request (body, or path) is refused, naming the
// header, and writes nothing; the stored answer stays.
func TestIdempotencyKeyReusedForAnotherRequest(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	first := alice.postWithKey(t, "/api/v1/expenses", "k1", cashExpense("10.00"), http.StatusCreated)
	category := alice.postWithKey(t, "/api/v1/categories", "k2", `{"name":"Pets","kind":"expense"}`, http.StatusCreated)

	reuse := func(name, url, key, body string) apiScenario {
		return apiScenario{name: name, method: http.MethodPost, url: url, body: body,
			headers:    map[string]string{"Authorization": "Bearer " + alice.key, IdempotencyKeyHeader: key},
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantMessage: "Idempotency-Key was already used with a different request in the last 24 hours; send a new key with a new request",
			wantFields:  map[string]string{IdempotencyKeyHeader: "was used with a different request"},
			noHeaders:   []string{IdempotentReplayedHeader}}
	}
	runRejectedSpending(t, env, []ledgerUser{alice, bob}, []apiScenario{
		reuse("another amount", "/api/v1/expenses", "k1", cashExpense("10.01")),
		// Bodies are compared byte for byte: the same object spelled otherwise is another request.
		reuse("the same fields in other bytes", "/api/v1/expenses", "k1", " "+cashExpense("10.00")),
		reuse("the same body on another route", "/api/v1/user-settings/categories", "k2", `{"name":"Pets","kind":"expense"}`),
		reuse("another route and body", "/api/v1/categories", "k1", `{"name":"Toys","kind":"expense"}`),
	})
	if cats, _ := alice.categories(t, "/api/v1/categories?search=Toys"); len(cats) != 0 {
		t.Errorf("a refused request created a category: %v", cats)
	}
	stored, err := storedFor(t, alice, "k1")
	if err != nil || !bytes.Equal(stored.body, first.raw) {
		t.Errorf("the stored answer changed: %s, %v", stored.body, err)
	}
	checkReplay(t, first, alice.postWithKey(t, "/api/v1/expenses", "k1", cashExpense("10.00"), http.StatusCreated))
	checkReplay(t, category, alice.postWithKey(t, "/api/v1/categories", "k2", `{"name":"Pets","kind":"expense"}`, http.StatusCreated))
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
		writeError(w, r.Request, finance.InvalidStatus("the request failed after its write"))
		return nil
	})
	captureDefaultLog(t)
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

// Duplicates sent at once write once: one runs, the others wait for it and
// replay its answer.
func TestIdempotentConcurrentDuplicates(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	const n = 8
	body := cashExpense("99.00")
	type answer struct {
		status   int
		body     []byte
		replayed bool
	}
	answers := make([]answer, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
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

// A multipart form is a body like any other: resent with the same bytes (and
// so the same boundary) it replays; the same fields under a new boundary are
// other bytes, so another request.
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
	res := post(again, headers, http.StatusBadRequest)
	if res.env.Error == nil || res.env.Error.Fields[IdempotencyKeyHeader] != "was used with a different request" {
		t.Errorf("the same fields under another boundary: %s", res.raw)
	}
	if got := len(snapshotSpending(t, env, alice.user.ID).Expenses); got != 1 {
		t.Errorf("expenses: %d, want 1", got)
	}
}
