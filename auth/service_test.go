package auth

import (
	"context"
	"errors"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// memStore is an in-memory Store with the parts Authenticate, CreateKey and
// the usage recorder need. It counts TouchAPIKeys calls and can fail them.
type memStore struct {
	Store // other methods are not used here and panic if called

	mu      sync.Mutex
	users   map[string]finance.User
	epochs  map[string]int64  // credential epoch by user id; 0 when absent
	keys    map[string]APIKey // by id
	touches []map[string]time.Time
	// touchErr fails TouchAPIKeys while set; duringTouch runs inside it.
	touchErr    error
	duringTouch func()
}

func newMemStore() *memStore {
	return &memStore{users: map[string]finance.User{}, epochs: map[string]int64{}, keys: map[string]APIKey{}}
}

func (m *memStore) UserByID(ctx context.Context, id string) (finance.User, error) {
	u, err := m.UserIdentity(ctx, id)
	return u.User, err
}

func (m *memStore) UserIdentity(_ context.Context, id string) (Identity, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[id]
	if !ok {
		return Identity{}, finance.NotFound("user")
	}
	return Identity{User: u, Epoch: m.epochs[id]}, nil
}

func (m *memStore) CreateAPIKey(_ context.Context, k APIKey) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keys[k.ID] = k
	return nil
}

func (m *memStore) APIKeyByPublicID(_ context.Context, publicID string) (APIKey, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, k := range m.keys {
		if k.PublicID == publicID {
			return k, nil
		}
	}
	return APIKey{}, finance.NotFound("API key")
}

func (m *memStore) TouchAPIKeys(_ context.Context, lastUsed map[string]time.Time) error {
	if m.duringTouch != nil {
		m.duringTouch()
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.touches = append(m.touches, maps.Clone(lastUsed))
	return m.touchErr
}

func TestUsageRecorderBatches(t *testing.T) {
	st := newMemStore()
	u := NewUsageRecorder(st.TouchAPIKeys)
	ctx := context.Background()
	t0 := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)

	if err := u.Flush(ctx); err != nil || len(st.touches) != 0 {
		t.Fatalf("flushing nothing: err %v, %d writes; want no write", err, len(st.touches))
	}
	for i := range 100 {
		u.Record("k1", t0.Add(time.Duration(i)*time.Second))
		u.Record("k2", t0)
	}
	u.Record("k3", t0.Add(time.Hour))
	if len(st.touches) != 0 {
		t.Fatalf("Record wrote to the store %d times; it must only remember", len(st.touches))
	}
	if err := u.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want := []map[string]time.Time{{"k1": t0.Add(99 * time.Second), "k2": t0, "k3": t0.Add(time.Hour)}}
	if diff := cmp.Diff(want, st.touches); diff != "" {
		t.Errorf("writes mismatch (-want +got):\n%s", diff)
	}
	if err := u.Flush(ctx); err != nil || len(st.touches) != 1 {
		t.Errorf("second flush with nothing new: err %v, %d writes in all; want 1", err, len(st.touches))
	}
}

func TestUsageRecorderKeepsTheLatestTime(t *testing.T) {
	st := newMemStore()
	u := NewUsageRecorder(st.TouchAPIKeys)
	t0 := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	// A request that read the clock first may record last.
	u.Record("k1", t0.Add(time.Second))
	u.Record("k1", t0)
	if err := u.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]map[string]time.Time{{"k1": t0.Add(time.Second)}}, st.touches); diff != "" {
		t.Errorf("writes mismatch (-want +got):\n%s", diff)
	}
}

func TestUsageRecorderKeepsTheBatchOnFailure(t *testing.T) {
	st := newMemStore()
	u := NewUsageRecorder(st.TouchAPIKeys)
	ctx := context.Background()
	t0 := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	u.Record("k1", t0)
	u.Record("k2", t0)

	boom := errors.New("database is locked")
	st.touchErr = boom
	// While the failing write runs, requests go on: k1 is used again (newer)
	// and k3 for the first time. A stale record of k2 arrives too.
	st.duringTouch = func() {
		u.Record("k1", t0.Add(time.Minute))
		u.Record("k2", t0.Add(-time.Minute))
		u.Record("k3", t0.Add(time.Second))
	}
	if err := u.Flush(ctx); !errors.Is(err, boom) {
		t.Fatalf("Flush error = %v, want %v", err, boom)
	}

	st.touchErr, st.duringTouch = nil, nil
	if err := u.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	want := []map[string]time.Time{
		{"k1": t0, "k2": t0},
		{"k1": t0.Add(time.Minute), "k2": t0, "k3": t0.Add(time.Second)},
	}
	if diff := cmp.Diff(want, st.touches); diff != "" {
		t.Errorf("writes mismatch (-want +got):\n%s", diff)
	}
	if err := u.Flush(ctx); err != nil || len(st.touches) != 2 {
		t.Errorf("after a successful retry: err %v, %d writes in all; want 2", err, len(st.touches))
	}
}

func TestUsageRecorderConcurrent(t *testing.T) {
	st := newMemStore()
	u := NewUsageRecorder(st.TouchAPIKeys)
	ctx := context.Background()
	t0 := time.Date(2026, 4, 1, 9, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				u.Record("k", t0.Add(time.Duration(g*50+i)))
				if i%10 == 0 {
					_ = u.Flush(ctx)
				}
			}
		})
	}
	wg.Wait()
	_ = u.Flush(ctx)
	var latest time.Time
	for _, w := range st.touches {
		if at := w["k"]; at.After(latest) {
			latest = at
		}
	}
	// Every record is written by some flush; the greatest time reaches the store.
	if want := t0.Add(7*50 + 49); !latest.Equal(want) {
		t.Errorf("latest written time %v, want %v", latest, want)
	}
}

func TestAuthenticate(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	st := newMemStore()
	user := finance.User{ID: "user-1", Email: "a@example.com", Plan: finance.PlanFree}
	st.users[user.ID] = user
	j, err := NewJWT(testSecret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	j.now = clock
	s := NewService(st, j)
	s.now = clock

	key, full, err := s.CreateKey(ctx, CreateKeyRequest{UserID: user.ID, Name: " laptop ", Scopes: []string{"income:write", "finance:read"}, ExpiresIn: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if key.Name != "laptop" || !key.ExpiresAt.Equal(now.Add(time.Hour)) || !key.CreatedAt.Equal(now) {
		t.Errorf("created key = %+v; want name laptop, created now, expiring in an hour", key)
	}
	if diff := cmp.Diff([]Scope{ScopeRead, ScopeIncomeWrite}, key.Scopes); diff != "" {
		t.Errorf("scopes mismatch (-want +got):\n%s", diff)
	}

	p, err := s.Authenticate(ctx, full)
	if err != nil {
		t.Fatal(err)
	}
	want := Principal{User: user, Method: MethodAPIKey, CredentialID: key.ID, CredentialName: "laptop", Scopes: []Scope{ScopeRead, ScopeIncomeWrite}}
	if diff := cmp.Diff(want, p); diff != "" {
		t.Errorf("key principal mismatch (-want +got):\n%s", diff)
	}
	if !p.NeedsPro() {
		t.Error("an API key principal must need the Pro plan")
	}
	if got := s.usage.pending[key.ID]; !got.Equal(now) {
		t.Errorf("use recorded at %v, want %v", got, now)
	}

	st.epochs[user.ID] = 2
	token, _ := j.Issue(user.ID, 2)
	p, err = s.Authenticate(ctx, token)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Principal{User: user, Method: MethodJWT, CredentialID: user.ID}, p); diff != "" {
		t.Errorf("JWT principal mismatch (-want +got):\n%s", diff)
	}
	if p.NeedsPro() {
		t.Error("a first-party JWT must not need the Pro plan")
	}
	// A token of another epoch, earlier or (forged or not) later, is refused.
	for _, epoch := range []int64{0, 1, 3} {
		stale, _ := j.Issue(user.ID, epoch)
		if _, err := s.Authenticate(ctx, stale); !errors.Is(err, ErrUnauthenticated) ||
			err.Error() != "The access token was issued before the password was changed; sign in again" {
			t.Errorf("token of epoch %d when the user is at 2: %v", epoch, err)
		}
	}

	// One nanosecond before its expiry the key works; at its expiry it does not.
	now = key.ExpiresAt.Add(-time.Nanosecond)
	if _, err := s.Authenticate(ctx, full); err != nil {
		t.Errorf("just before expiry: %v", err)
	}
	now = *key.ExpiresAt
	delete(s.usage.pending, key.ID)
	if _, err := s.Authenticate(ctx, full); err == nil || err.Error() != "This API key has expired" {
		t.Errorf("at expiry: %v, want the expired message", err)
	}
	if _, recorded := s.usage.pending[key.ID]; recorded {
		t.Error("a refused key's use was recorded")
	}
}

func TestCreateKeyValidation(t *testing.T) {
	s := NewService(newMemStore(), nil)
	_, _, err := s.CreateKey(context.Background(), CreateKeyRequest{UserID: "u", Name: "  ", Scopes: []string{"root"}, ExpiresIn: -time.Second})
	var ve *finance.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("CreateKey error = %v, want a *finance.ValidationError", err)
	}
	want := map[string]string{
		"name":       "is required",
		"scopes":     "has unknown scope root; known scopes: all, finance:read, expenses:write, income:write, accounts:write, bills:write, loans:write, credit_cards:write, settings:write, mcp:connect",
		"expires_in": "must be positive",
	}
	if diff := cmp.Diff(want, ve.Fields); diff != "" {
		t.Errorf("fields mismatch (-want +got):\n%s", diff)
	}
}

// TestNamesAreText: a user's and a key's name given on the command line can
// hold any bytes; a NUL or bytes that are not UTF-8 are refused, and nothing
// is stored.
func TestNamesAreText(t *testing.T) {
	store := newMemStore()
	s := NewService(store, nil)
	ctx := context.Background()
	for _, name := range []string{"B\xff", "B\x00"} {
		_, err := s.CreateUser(ctx, CreateUserRequest{Email: "b@example.com", Name: name, Plan: finance.PlanPro, Password: "correct horse"})
		var ve *finance.ValidationError
		if !errors.As(err, &ve) || ve.Fields["name"] != finance.ProblemText {
			t.Errorf("user name %q: %v", name, err)
		}
		_, _, err = s.CreateKey(ctx, CreateKeyRequest{UserID: "u", Name: name, Scopes: []string{"all"}})
		if !errors.As(err, &ve) || ve.Fields["name"] != finance.ProblemText {
			t.Errorf("key name %q: %v", name, err)
		}
	}
	if len(store.users) != 0 || len(store.keys) != 0 {
		t.Errorf("refused names were stored: %v %v", store.users, store.keys)
	}
}

func TestCreateKeyLifetimeIsBounded(t *testing.T) {
	tests := []struct {
		name      string
		expiresIn time.Duration
		wantErr   map[string]string
	}{
		{"ten years", MaxKeyLifetime, nil},
		{"a nanosecond more", MaxKeyLifetime + 1, map[string]string{"expires_in": "must be at most 10 years (3650 days)"}},
		{"the longest duration", time.Duration(1<<63 - 1), map[string]string{"expires_in": "must be at most 10 years (3650 days)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			now := time.Date(2026, 6, 1, 8, 0, 0, 0, time.UTC)
			st := newMemStore()
			s := NewService(st, nil)
			s.now = func() time.Time { return now }
			k, _, err := s.CreateKey(context.Background(), CreateKeyRequest{UserID: "u", Name: "k", Scopes: []string{"all"}, ExpiresIn: tt.expiresIn})
			if tt.wantErr == nil {
				if err != nil || k.ExpiresAt == nil || !k.ExpiresAt.Equal(now.Add(tt.expiresIn)) {
					t.Fatalf("CreateKey = %+v, %v; want a key expiring at %v", k, err, now.Add(tt.expiresIn))
				}
				if len(st.keys) != 1 {
					t.Errorf("%d keys stored, want 1", len(st.keys))
				}
				return
			}
			var ve *finance.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("CreateKey error = %v, want a *finance.ValidationError", err)
			}
			if diff := cmp.Diff(tt.wantErr, ve.Fields); diff != "" {
				t.Errorf("fields mismatch (-want +got):\n%s", diff)
			}
			if len(st.keys) != 0 {
				t.Errorf("a refused key was stored: %+v", st.keys)
			}
		})
	}
}
