package assistant

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// The assistant through fakes of its ports, without HTTP: what it asks of
// the routes, and what it stores. The routes' own answers, scopes and
// writes are tested through the real router in package server.

var testNow = time.Date(2025, 3, 11, 4, 0, 0, 0, time.UTC)

// memStore keeps conversations and proposals in memory. WriteScope runs one
// scope at a time, as the store's single writer does.
type memStore struct {
	writer    sync.Mutex
	mu        sync.Mutex
	turns     map[string][]finance.ChatTurn
	owners    map[string]string // conversation id -> user id
	proposals map[string]finance.Proposal
	decided   int // DecideAssistantProposal calls
}

func newMemStore() *memStore {
	return &memStore{turns: map[string][]finance.ChatTurn{}, owners: map[string]string{}, proposals: map[string]finance.Proposal{}}
}

func (s *memStore) WriteScope(ctx context.Context, fn func(ctx context.Context) error) error {
	s.writer.Lock()
	defer s.writer.Unlock()
	return fn(ctx)
}

func (s *memStore) AssistantTurns(_ context.Context, userID, id string, _ time.Time) ([]finance.ChatTurn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.turns[id]
	if !ok || s.owners[id] != userID {
		return nil, finance.NotFound("conversation")
	}
	return t, nil
}

func (s *memStore) SaveAssistantTurn(_ context.Context, userID, id string, turn finance.ChatTurn, proposals []finance.Proposal) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.owners[id] = userID
	s.turns[id] = append(s.turns[id], turn)
	for _, p := range proposals {
		s.proposals[p.ID] = p
	}
	return nil
}

func (s *memStore) AssistantProposal(_ context.Context, userID, id string) (finance.Proposal, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.proposals[id]
	if !ok || p.UserID != userID {
		return finance.Proposal{}, finance.NotFound("proposal")
	}
	return p, nil
}

func (s *memStore) DecideAssistantProposal(_ context.Context, userID, id, status string, resultStatus int,
	resultData json.RawMessage, at time.Time,
) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.decided++
	p := s.proposals[id]
	if p.UserID != userID || p.Status != finance.ProposalPending {
		return finance.ErrInvalidStatus
	}
	p.Status, p.ResultStatus, p.ResultData, p.DecidedAt = status, resultStatus, resultData, &at
	s.proposals[id] = p
	return nil
}

type fixedLedger struct{ now time.Time }

func (l fixedLedger) Now() time.Time { return l.now }

func (l fixedLedger) ParseInputs(context.Context, string) (finance.ParseInputs, error) {
	return finance.ParseInputs{Today: finance.NewDate(2025, time.March, 11), Currency: "PHP", Timezone: "Asia/Manila",
		DefaultPaymentMethod: finance.MethodCash,
		Categories:           []finance.CategoryOption{{ID: "c1", Name: "Food & Dining"}, {ID: "c2", Name: "Transportation"}}}, nil
}

// call is one request the assistant made of the routes.
type call struct {
	user           string
	method, target string
	body           string
}

// fakeRoutes answers every request with answer and keeps the requests.
type fakeRoutes struct {
	mu     sync.Mutex
	calls  []call
	answer func(method, target string) Response
}

func (r *fakeRoutes) Call(_ context.Context, p auth.Principal, method, target string, body []byte) Response {
	r.mu.Lock()
	r.calls = append(r.calls, call{user: p.UserID(), method: method, target: target, body: string(body)})
	r.mu.Unlock()
	return r.answer(method, target)
}

func (r *fakeRoutes) RecordPaths(string) []string { return nil }

func (r *fakeRoutes) made() []call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]call(nil), r.calls...)
}

func newTestAssistant(answer func(method, target string) Response) (*Assistant, *memStore, *fakeRoutes) {
	store, routes := newMemStore(), &fakeRoutes{answer: answer}
	return New(store, fixedLedger{now: testNow}, routes, ai.New(ai.Config{}), nil), store, routes
}

func principal(userID string) auth.Principal {
	return auth.Principal{User: finance.User{ID: userID}, Method: auth.MethodAPIKey}
}

var alice, bob = principal(finance.NewID()), principal(finance.NewID())

// An expense typed to the assistant becomes a stored, pending proposal of
// the create route; nothing is asked of the routes.
func TestChatProposesAndCallsNoRoute(t *testing.T) {
	a, store, routes := newTestAssistant(func(string, string) Response {
		t.Error("the chat called a route")
		return Response{}
	})
	reply, err := a.Chat(context.Background(), alice, "", "lunch 250 cash")
	if err != nil {
		t.Fatal(err)
	}
	if reply.Engine != ai.EngineBuiltin || !finance.ValidID(reply.ConversationID) || len(reply.Proposals) != 1 {
		t.Fatalf("reply: %+v", reply)
	}
	p := reply.Proposals[0]
	if p.Method != "POST" || p.Path != "/api/v1/expenses" || p.Status != finance.ProposalPending ||
		p.UserID != alice.UserID() || p.ConversationID != reply.ConversationID ||
		!p.ExpiresAt.Equal(testNow.Add(finance.ProposalTTL)) {
		t.Errorf("proposal: %+v", p)
	}
	if got, err := store.AssistantProposal(context.Background(), alice.UserID(), p.ID); err != nil || got.Status != finance.ProposalPending {
		t.Errorf("stored: %+v, %v", got, err)
	}
	if turns := store.turns[reply.ConversationID]; len(turns) != 1 || turns[0].Reply != reply.Text {
		t.Errorf("stored turns: %+v", turns)
	}
	if n := len(routes.made()); n != 0 {
		t.Errorf("%d route calls", n)
	}

	// Another user's conversation, and a malformed id, are not found.
	for _, id := range []string{reply.ConversationID, "x"} {
		if _, err := a.Chat(context.Background(), bob, id, "hi"); !errors.Is(err, finance.ErrNotFound) {
			t.Errorf("conversation %q as bob: %v", id, err)
		}
	}
}

// A question is answered from a read route, called as the caller.
func TestChatReadsAsTheCaller(t *testing.T) {
	a, _, routes := newTestAssistant(func(string, string) Response {
		return Response{Status: 200, Data: json.RawMessage(`{"items":[{"name":"GCash","current_balance":1000}]}`)}
	})
	reply, err := a.Chat(context.Background(), alice, "", "what are my balances?")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Your accounts hold PHP 1000.00 in all:\n- GCash: PHP 1000.00"; reply.Text != want {
		t.Errorf("reply = %q, want %q", reply.Text, want)
	}
	if got := routes.made(); len(got) != 1 || got[0] != (call{user: alice.UserID(), method: "GET", target: "/api/v1/accounts?limit=100"}) {
		t.Errorf("route calls: %+v", got)
	}
}

// Confirms at the same time execute the proposal's route once; every one
// answers with its result.
func TestDecideConfirmExecutesOnce(t *testing.T) {
	a, store, routes := newTestAssistant(func(method, target string) Response {
		return Response{Status: 201, Data: json.RawMessage(`{"id":"e1"}`)}
	})
	p := mustChat(t, a, "lunch 250 cash").Proposals[0]

	const n = 6
	var wg sync.WaitGroup
	decisions := make([]Decision, n)
	for i := range n {
		wg.Go(func() {
			d, err := a.Decide(context.Background(), alice, p.ID, finance.DecisionConfirm)
			if err != nil {
				t.Error(err)
			}
			decisions[i] = d
		})
	}
	wg.Wait()
	for i, d := range decisions {
		if d.Refused != nil || d.Proposal.Status != finance.ProposalConfirmed || string(d.Proposal.ResultData) != `{"id":"e1"}` {
			t.Errorf("decision %d: %+v", i, d)
		}
	}
	calls := routes.made()
	if len(calls) != 1 || calls[0].method != "POST" || calls[0].target != "/api/v1/expenses" || calls[0].user != alice.UserID() ||
		calls[0].body != string(p.Body) {
		t.Errorf("route calls: %+v", calls)
	}
	if store.decided != 1 {
		t.Errorf("%d decisions stored, want 1", store.decided)
	}
	if _, err := a.Decide(context.Background(), alice, p.ID, finance.DecisionReject); !errors.Is(err, finance.ErrInvalidStatus) {
		t.Errorf("reject after confirm: %v", err)
	}
}

// A route that refuses leaves the proposal pending, and its answer is
// handed back as it was.
func TestDecideRefusedStaysPending(t *testing.T) {
	refusal := Response{Status: 403, ContentType: "application/json", Body: []byte(`{"success":false}`),
		Err: &RouteError{Code: codeForbidden, Message: "needs expenses:write"}}
	a, store, routes := newTestAssistant(func(string, string) Response { return refusal })
	p := mustChat(t, a, "lunch 250 cash").Proposals[0]
	d, err := a.Decide(context.Background(), alice, p.ID, finance.DecisionConfirm)
	if err != nil {
		t.Fatal(err)
	}
	if d.Refused == nil || d.Refused.Status != 403 || string(d.Refused.Body) != `{"success":false}` {
		t.Errorf("decision: %+v", d)
	}
	if got, _ := store.AssistantProposal(context.Background(), alice.UserID(), p.ID); got.Status != finance.ProposalPending || store.decided != 0 {
		t.Errorf("after a refusal: %+v, %d decisions", got, store.decided)
	}
	if n := len(routes.made()); n != 1 {
		t.Errorf("%d route calls", n)
	}
}

// A proposal is only its user's, a malformed id is not looked up, and an
// expired one takes no decision; none of them calls a route.
func TestDecideRefusals(t *testing.T) {
	a, store, routes := newTestAssistant(func(string, string) Response { return Response{Status: 201, Data: json.RawMessage(`{}`)} })
	p := mustChat(t, a, "lunch 250 cash").Proposals[0]
	for _, c := range []struct {
		name string
		who  auth.Principal
		id   string
		want error
	}{
		{"another user's", bob, p.ID, finance.ErrNotFound},
		{"malformed", alice, "nope", finance.ErrNotFound},
	} {
		if _, err := a.Decide(context.Background(), c.who, c.id, finance.DecisionConfirm); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	late := New(store, fixedLedger{now: testNow.Add(finance.ProposalTTL)}, routes, ai.New(ai.Config{}), nil)
	if _, err := late.Decide(context.Background(), alice, p.ID, finance.DecisionConfirm); !errors.Is(err, finance.ErrInvalidStatus) {
		t.Errorf("expired: %v", err)
	}
	if n := len(routes.made()); n != 0 || store.decided != 0 {
		t.Errorf("%d route calls, %d decisions", n, store.decided)
	}
}

func mustChat(t *testing.T, a *Assistant, message string) Reply {
	t.Helper()
	reply, err := a.Chat(context.Background(), alice, "", message)
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.Proposals) != 1 {
		t.Fatalf("reply: %+v", reply)
	}
	return reply
}
