package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/finance-app/finance/assistant"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

const chatURL, confirmURL = "/api/v1/ai-assistant/chat", "/api/v1/ai-assistant/confirm"

// newAssistantEnv is a server whose clock the test moves (it starts at
// ledgerNow: today is 2025-03-11 in the users' timezone), and two users
// whose keys read everything and write every domain.
func newAssistantEnv(t *testing.T, configure ...func(*Config)) (env *testEnv, clock *testClock, alice, bob ledgerUser) {
	t.Helper()
	env = newTestEnv(t, configure...)
	clock = &testClock{now: ledgerNow}
	env.srv.Ledger().SetClock(clock.Now)
	mk := func() ledgerUser {
		u := env.createUser(finance.PlanPro)
		return ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeRead, auth.ScopeExpensesWrite,
			auth.ScopeAccountsWrite, auth.ScopeCardsWrite, auth.ScopeBillsWrite, auth.ScopeSettingsWrite)}
	}
	return env, clock, mk(), mk()
}

func chatBody(message, conversationID string) string {
	m := map[string]string{"message": message}
	if conversationID != "" {
		m["conversation_id"] = conversationID
	}
	b, _ := json.Marshal(m)
	return string(b)
}

func decisionBody(id, decision string) string {
	return fmt.Sprintf(`{"proposal_id":%q,"decision":%q}`, id, decision)
}

// chat sends message as u (with key) and returns the answer.
func chat(t testing.TB, u ledgerUser, key, message, conversationID string) ChatResponse {
	t.Helper()
	var out ChatResponse
	apiScenario{method: http.MethodPost, url: chatURL, body: chatBody(message, conversationID), headers: bearer(key),
		wantStatus: http.StatusOK}.run(t, u.env).decodeData(t, &out)
	return out
}

// expenseCount is how many active expenses u has.
func expenseCount(t testing.TB, u ledgerUser) int {
	t.Helper()
	_, p := page[json.RawMessage](t, u, "/api/v1/expenses")
	return p.TotalItems
}

// The bar: an expense typed to the assistant is recorded only
// after an explicit confirm, and confirming twice records it once.
func TestAssistantRecordsExpenseOnlyAfterConfirm(t *testing.T) {
	env, _, alice, _ := newAssistantEnv(t)
	res := apiScenario{method: http.MethodPost, url: chatURL, body: chatBody("lunch 250 cash yesterday", ""),
		headers: bearer(alice.key), wantStatus: http.StatusOK,
		wantMessage: "Answered with 1 proposal; nothing is written until you confirm"}.run(t, env)
	var answer ChatResponse
	res.decodeData(t, &answer)
	if answer.Engine != "builtin" || len(answer.Proposals) != 1 || !finance.ValidID(answer.ConversationID) {
		t.Fatalf("answer: %s", res.env.Data)
	}
	p := answer.Proposals[0]
	wantArgs := map[string]any{"amount": 250, "date": "2025-03-10", "description": "Lunch", "category": "Food & Dining",
		"payment_method": "Cash"}
	if p.Action != "create_expense" || p.Status != "pending" || !p.ExpiresAt.Equal(ledgerNow.Add(30*time.Minute)) ||
		p.Summary != "Record Lunch: PHP 250.00 on 2025-03-10, Food & Dining, paid with Cash" {
		t.Errorf("proposal: %+v", p)
	}
	if diff := cmpJSON(t, wantArgs, p.Arguments); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
	if want := "Here is what I would record; confirm it to save it:\n- " + p.Summary; answer.Reply != want {
		t.Errorf("reply = %q, want %q", answer.Reply, want)
	}
	if n := expenseCount(t, alice); n != 0 {
		t.Fatalf("%d expenses before the confirm; the chat must write nothing", n)
	}

	first := apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(p.ID, "confirm"), headers: bearer(alice.key),
		wantStatus: http.StatusOK, wantMessage: "Confirmed: " + p.Summary}.run(t, env)
	var confirmed struct {
		Proposal ProposalView    `json:"proposal"`
		Result   finance.Expense `json:"result"`
	}
	first.decodeData(t, &confirmed)
	e := confirmed.Result
	if confirmed.Proposal.Status != "confirmed" || e.Description != "Lunch" || e.Amount.String() != "250.00" ||
		e.Date.String() != "2025-03-10" || e.PaymentMethod != "Cash" || !finance.ValidID(e.ID) {
		t.Errorf("confirm: %s", first.env.Data)
	}
	if got := alice.getExpense(t, e.ID); got.Description != "Lunch" {
		t.Errorf("the stored expense: %+v", got)
	}

	again := apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(p.ID, "confirm"), headers: bearer(alice.key),
		wantStatus: http.StatusOK}.run(t, env)
	if string(again.env.Data) != string(first.env.Data) {
		t.Errorf("a second confirm must return the first result:\nfirst  %s\nsecond %s", first.env.Data, again.env.Data)
	}
	if n := expenseCount(t, alice); n != 1 {
		t.Errorf("%d expenses after two confirms, want 1", n)
	}
	apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(p.ID, "reject"), headers: bearer(alice.key),
		wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus,
		wantMessage: "Proposal was already confirmed; it cannot be rejected"}.run(t, env)
}

// A proposal to pay from an account moves no money until it is confirmed,
// and moves it once however often it is confirmed, even at the same time.
func TestAssistantPaymentFromAccountOnce(t *testing.T) {
	env, _, alice, _ := newAssistantEnv(t)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet","opening_balance":1000}`)
	answer := chat(t, alice, alice.key, "grab 180 gcash", "")
	if len(answer.Proposals) != 1 {
		t.Fatalf("answer: %+v", answer)
	}
	p := answer.Proposals[0]
	if p.Summary != "Record Grab: PHP 180.00 on 2025-03-11, Transportation, paid with Account Debit (GCash)" {
		t.Errorf("summary = %q", p.Summary)
	}
	if got := alice.account(t, gcash.ID).CurrentBalance.String(); got != "1000.00" {
		t.Fatalf("balance before the confirm = %s, want 1000.00", got)
	}

	const n = 6
	var wg sync.WaitGroup
	bodies := make([]string, n)
	for i := range n {
		wg.Go(func() {
			res := apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(p.ID, "confirm"),
				headers: bearer(alice.key), wantStatus: http.StatusOK}.run(t, env)
			bodies[i] = string(res.env.Data)
		})
	}
	wg.Wait()
	for i := 1; i < n; i++ {
		if bodies[i] != bodies[0] {
			t.Errorf("confirm %d answered differently:\n%s\n%s", i, bodies[0], bodies[i])
		}
	}
	if got := alice.account(t, gcash.ID).CurrentBalance.String(); got != "820.00" {
		t.Errorf("balance after the confirms = %s, want 820.00 (debited once)", got)
	}
	if got := expenseCount(t, alice); got != 1 {
		t.Errorf("%d expenses, want 1", got)
	}
}

func TestAssistantReject(t *testing.T) {
	env, _, alice, _ := newAssistantEnv(t)
	p := chat(t, alice, alice.key, "coffee 120 cash", "").Proposals[0]
	for range 2 { // a repeated reject answers the same
		var out ConfirmResponse
		apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(p.ID, "reject"), headers: bearer(alice.key),
			wantStatus: http.StatusOK, wantMessage: "Rejected: nothing was written"}.run(t, env).decodeData(t, &out)
		if out.Proposal.Status != "rejected" || string(out.Result) != "null" {
			t.Errorf("reject: %+v", out)
		}
	}
	apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(p.ID, "confirm"), headers: bearer(alice.key),
		wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus,
		wantMessage: "Proposal was rejected; it cannot be confirmed"}.run(t, env)
	if n := expenseCount(t, alice); n != 0 {
		t.Errorf("%d expenses after a reject, want 0", n)
	}
}

// Proposals expire 30 minutes after they are made, on the service's clock.
func TestAssistantProposalExpires(t *testing.T) {
	env, clock, alice, _ := newAssistantEnv(t)
	answer := chat(t, alice, alice.key, "taxi 99 cash; bread 45 cash", "")
	if len(answer.Proposals) != 2 {
		t.Fatalf("answer: %+v", answer)
	}
	clock.Advance(30*time.Minute - time.Second)
	apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(answer.Proposals[0].ID, "confirm"),
		headers: bearer(alice.key), wantStatus: http.StatusOK}.run(t, env)
	clock.Advance(time.Second)
	for _, decision := range []string{"confirm", "reject"} {
		apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(answer.Proposals[1].ID, decision),
			headers: bearer(alice.key), wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus,
			wantInMsg: []string{"Proposal has expired"}}.run(t, env)
	}
	if n := expenseCount(t, alice); n != 1 {
		t.Errorf("%d expenses, want 1 (the one confirmed in time)", n)
	}
}

// Confirm executes the proposal through its route, whose scope applies: a
// key that may chat but not write gets the route's 403, naming the scope,
// and the proposal stays pending for a key that may.
func TestAssistantConfirmNeedsTheRoutesScope(t *testing.T) {
	env, _, alice, _ := newAssistantEnv(t)
	readOnly := env.createKey(alice.user.ID, auth.ScopeRead)
	p := chat(t, alice, readOnly, "lunch 250 cash", "").Proposals[0]
	apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(p.ID, "confirm"), headers: bearer(readOnly),
		wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantInMsg: []string{"expenses:write"}}.run(t, env)
	if n := expenseCount(t, alice); n != 0 {
		t.Fatalf("%d expenses after a refused confirm", n)
	}
	var out ConfirmResponse
	apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(p.ID, "confirm"), headers: bearer(alice.key),
		wantStatus: http.StatusOK}.run(t, env).decodeData(t, &out)
	if out.Proposal.Status != "confirmed" || expenseCount(t, alice) != 1 {
		t.Errorf("confirm with expenses:write: %+v", out)
	}

	// The assistant itself needs finance:read.
	writeOnly := env.createKey(alice.user.ID, auth.ScopeExpensesWrite)
	for _, url := range []string{chatURL, confirmURL} {
		apiScenario{method: http.MethodPost, url: url, body: chatBody("hello", ""), headers: bearer(writeOnly),
			wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantInMsg: []string{"finance:read"}}.run(t, env)
	}
}

// A proposal made in one user's conversation is nobody else's: another
// user, an unknown id and a malformed one all get 404; bad bodies get 400.
func TestAssistantConfirmRefusals(t *testing.T) {
	env, _, alice, bob := newAssistantEnv(t)
	p := chat(t, alice, alice.key, "lunch 250 cash", "").Proposals[0]
	for _, sc := range []apiScenario{
		{name: "another user's", body: decisionBody(p.ID, "confirm"), headers: bearer(bob.key),
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantMessage: "Proposal not found"},
		{name: "unknown", body: decisionBody(finance.NewID(), "confirm"), headers: bearer(alice.key),
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound},
		{name: "malformed", body: decisionBody("nope", "reject"), headers: bearer(alice.key),
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound},
		{name: "no decision", body: fmt.Sprintf(`{"proposal_id":%q}`, p.ID), headers: bearer(alice.key),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: map[string]string{"decision": "is required"}},
		{name: "other decision", body: decisionBody(p.ID, "maybe"), headers: bearer(alice.key),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: map[string]string{"decision": "must be confirm or reject"}},
	} {
		t.Run(sc.name, func(t *testing.T) {
			sc.method, sc.url = http.MethodPost, confirmURL
			sc.run(t, env)
		})
	}
	if n := expenseCount(t, alice); n != 0 {
		t.Errorf("%d expenses", n)
	}
	if got, err := env.db.AssistantProposal(context.Background(), alice.user.ID, p.ID); err != nil || got.Status != "pending" {
		t.Errorf("the proposal after the refusals: %+v, %v", got, err)
	}
}

// The built-in assistant answers the common questions from the read routes.
func TestAssistantAnswersQuestions(t *testing.T) {
	_, _, alice, bob := newAssistantEnv(t)
	ask := func(u ledgerUser, q string) string { return chat(t, u, u.key, q, "").Reply }
	if got, want := ask(alice, "How much did I spend this month?"),
		"This month (2025-03-01 to 2025-03-31) you spent PHP 0.00."; got != want {
		t.Errorf("spending, nothing yet:\n got %q\nwant %q", got, want)
	}
	alice.createAccount(t, `{"name":"GCash","type":"e_wallet","opening_balance":1000}`)
	alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"5000.50"}`)
	alice.createExpense(t, `{"amount":250,"date":"2025-03-02","description":"Lunch","category":"Food & Dining","payment_method":"Cash"}`)
	alice.createExpense(t, `{"amount":"1200","date":"2025-03-05","description":"Shoes","category":"Shopping","payment_method":"Cash"}`)
	alice.createExpense(t, `{"amount":99,"date":"2025-02-05","description":"Old","category":"Shopping","payment_method":"Cash"}`)
	visa := alice.createCard(t, `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5}`)
	alice.createCardRow(t, `{"credit_card_id":"`+visa.ID+`","type":"fee","amount":300,"date":"2025-03-03","description":"Annual fee"}`)
	alice.createTemplate(t, `{"name":"Water","amount":450,"category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":20}`)

	for _, c := range []struct{ q, want string }{
		// Card fees count as spending (the counting rule), under their own category.
		{"how much did i spend", "This month (2025-03-01 to 2025-03-31) you spent PHP 1750.00. " +
			"Most went to Shopping PHP 1200.00, Card Fees & Interest PHP 300.00, Food & Dining PHP 250.00."},
		{"what bills are due?", "You have 1 unpaid bill due this month:\n- Water: PHP 450.00 due 2025-03-20"},
		{"magkano utang ko sa card?", "Your credit cards owe PHP 300.00 in all:\n- Visa: PHP 300.00 outstanding; no statement to pay"},
		{"What are my account balances?", "Your accounts hold PHP 6000.50 in all:\n- BPI: PHP 5000.50\n- GCash: PHP 1000.00"},
		{"hello", assistant.Help},
		{"what is the weather?", assistant.Help},
	} {
		if got := ask(alice, c.q); got != c.want {
			t.Errorf("%q:\n got %q\nwant %q", c.q, got, c.want)
		}
	}
	// Bob's answers come from Bob's data only.
	if got, want := ask(bob, "what are my balances?"), "You have no active accounts."; got != want {
		t.Errorf("bob: %q, want %q", got, want)
	}
	// Two topics in one question get both answers.
	if got := ask(alice, "how much did I spend and what bills are due?"); !strings.Contains(got, "you spent PHP 1750.00") ||
		!strings.Contains(got, "Water: PHP 450.00") {
		t.Errorf("two topics: %q", got)
	}
}

// A draft the create route would refuse is not proposed; the reply says what it lacks.
func TestAssistantIncompleteDraft(t *testing.T) {
	_, _, alice, _ := newAssistantEnv(t)
	answer := chat(t, alice, alice.key, "xyzzy 300 bdo card", "")
	if len(answer.Proposals) != 0 {
		t.Errorf("proposals for an incomplete draft: %+v", answer.Proposals)
	}
	if !strings.Contains(answer.Reply, "I could not propose") || !strings.Contains(answer.Reply, "300.00 (missing") {
		t.Errorf("reply = %q", answer.Reply)
	}
}

// Conversations keep their last 20 exchanges, belong to one user, and are
// deleted 30 days after their last exchange.
func TestAssistantConversations(t *testing.T) {
	env, clock, alice, bob := newAssistantEnv(t)
	ctx := context.Background()
	first := chat(t, alice, alice.key, "message 1", "")
	id := first.ConversationID
	for i := 2; i <= 22; i++ {
		if got := chat(t, alice, alice.key, fmt.Sprintf("message %d", i), id).ConversationID; got != id {
			t.Fatalf("conversation_id = %s, want %s", got, id)
		}
	}
	turns, err := env.db.AssistantTurns(ctx, alice.user.ID, id, clock.Now())
	if err != nil || len(turns) != finance.MaxConversationTurns || turns[0].Message != "message 3" || turns[19].Message != "message 22" {
		t.Errorf("kept turns: %d, %v", len(turns), err)
	}
	for _, sc := range []apiScenario{
		{name: "another user's", body: chatBody("hi", id), headers: bearer(bob.key)},
		{name: "unknown", body: chatBody("hi", finance.NewID()), headers: bearer(alice.key)},
		{name: "malformed", body: chatBody("hi", "x"), headers: bearer(alice.key)},
	} {
		sc.method, sc.url, sc.wantStatus, sc.wantCode, sc.wantMessage = http.MethodPost, chatURL, http.StatusNotFound, CodeNotFound, "Conversation not found"
		sc.run(t, env)
	}
	p := chat(t, alice, alice.key, "lunch 250 cash", id).Proposals[0]

	clock.Advance(finance.ConversationTTL)
	apiScenario{method: http.MethodPost, url: chatURL, body: chatBody("hi", id), headers: bearer(alice.key),
		wantStatus: http.StatusNotFound, wantCode: CodeNotFound}.run(t, env)
	// The next exchange deletes it, with its proposals.
	chat(t, alice, alice.key, "hi", "")
	if _, err := env.db.AssistantProposal(ctx, alice.user.ID, p.ID); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("a proposal of a deleted conversation: %v", err)
	}

	for _, sc := range []apiScenario{
		{name: "no message", body: `{}`, wantFields: map[string]string{"message": "is required"}},
		{name: "too long", body: chatBody(strings.Repeat("a", 2001), ""), wantFields: map[string]string{"message": "must be at most 2000 characters"}},
		{name: "id not a string", body: `{"message":"hi","conversation_id":5}`, wantFields: map[string]string{"conversation_id": "must be a string"}},
	} {
		sc.method, sc.url, sc.headers, sc.wantStatus, sc.wantCode = http.MethodPost, chatURL, bearer(alice.key), http.StatusBadRequest, CodeValidation
		sc.run(t, env)
	}
}

// The assistant's routes keep their own transactions, so they are not
// wrapped for Idempotency-Key: a key, even a malformed one, is ignored.
func TestAssistantIgnoresIdempotencyKey(t *testing.T) {
	env, _, alice, _ := newAssistantEnv(t)
	headers := map[string]string{"Authorization": "Bearer " + alice.key, IdempotencyKeyHeader: "not a key"}
	var answer ChatResponse
	apiScenario{method: http.MethodPost, url: chatURL, body: chatBody("lunch 250 cash", ""), headers: headers,
		wantStatus: http.StatusOK, noHeaders: []string{IdempotentReplayedHeader}}.run(t, env).decodeData(t, &answer)
	apiScenario{method: http.MethodPost, url: confirmURL, body: decisionBody(answer.Proposals[0].ID, "confirm"), headers: headers,
		wantStatus: http.StatusOK, noHeaders: []string{IdempotentReplayedHeader}}.run(t, env)
	for _, rt := range env.srv.Routes() {
		// An import's preview is not wrapped either (see registerImportRoutes).
		preview := rt.Method == http.MethodPost && rt.Path == "/api/v1/imports"
		if rt.NoIdempotencyKey != (strings.HasPrefix(rt.Path, "/api/v1/ai-assistant/") || preview) {
			t.Errorf("%s %s: NoIdempotencyKey is %v", rt.Method, rt.Path, rt.NoIdempotencyKey)
		}
	}
}

// Chat spends the user's AI budget, shared with AI parsing.
func TestAssistantBudget(t *testing.T) {
	env, _, alice, _ := newAssistantEnv(t, func(c *Config) { c.AIRateLimit = Rate{Count: 2, Window: time.Hour} })
	chat(t, alice, alice.key, "hello", "")
	apiScenario{method: http.MethodPost, url: parseTextURL, body: textBody("lunch 250"), headers: bearer(alice.key),
		wantStatus: http.StatusOK}.run(t, env)
	res := apiScenario{method: http.MethodPost, url: chatURL, body: chatBody("hello", ""), headers: bearer(alice.key),
		wantStatus: http.StatusTooManyRequests, wantCode: CodeRateLimitExceeded}.run(t, env)
	if res.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
}

// cmpJSON compares want (a Go value) with got (JSON) by content.
func cmpJSON(t testing.TB, want any, got json.RawMessage) string {
	t.Helper()
	w, g := jsonValue(t, want), jsonValue(t, got)
	wb, _ := json.Marshal(w)
	gb, _ := json.Marshal(g)
	if string(wb) == string(gb) {
		return ""
	}
	return "-" + string(wb) + "\n+" + string(gb)
}
