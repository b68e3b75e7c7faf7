package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// userExists reports whether a user with email is committed (read on the read pool).
func userExists(t *testing.T, db *store.DB, email string) bool {
	t.Helper()
	_, err := db.UserByEmail(context.Background(), email)
	if err != nil && !errors.Is(err, finance.ErrNotFound) {
		t.Fatalf("UserByEmail(%s): %v", email, err)
	}
	return err == nil
}

// addUser stores a user under ctx, which a write in a scope must be given:
// a write without the scope's context waits for the writer the scope holds.
func addUser(ctx context.Context, t *testing.T, db *store.DB, email string) {
	t.Helper()
	if err := db.CreateUser(ctx, newUser(email), "hash"); err != nil {
		t.Fatalf("CreateUser(%s): %v", email, err)
	}
}

// A write scope commits every write made under it together, or none of them.
func TestWriteScope(t *testing.T) {
	ctx := context.Background()
	errStop := errors.New("stop")

	t.Run("commits the joined writes together", func(t *testing.T) {
		db := openDB(t)
		err := db.WriteScope(ctx, func(ctx context.Context) error {
			addUser(ctx, t, db, "a@example.com")
			addUser(ctx, t, db, "b@example.com")
			if userExists(t, db, "a@example.com") {
				t.Error("the read pool sees a write of the scope before it commits")
			}
			return nil
		})
		if err != nil {
			t.Fatalf("WriteScope: %v", err)
		}
		if !userExists(t, db, "a@example.com") || !userExists(t, db, "b@example.com") {
			t.Error("a write of a committed scope is missing")
		}
	})

	t.Run("an error from fn rolls every write back", func(t *testing.T) {
		db := openDB(t)
		err := db.WriteScope(ctx, func(ctx context.Context) error {
			addUser(ctx, t, db, "a@example.com")
			return errStop
		})
		if !errors.Is(err, errStop) {
			t.Fatalf("WriteScope = %v, want fn's error", err)
		}
		if userExists(t, db, "a@example.com") {
			t.Error("a write of a rolled back scope was committed")
		}
	})

	t.Run("a failed joined write stops the commit even if its caller carries on", func(t *testing.T) {
		db := openDB(t)
		createUser(t, db, "taken@example.com")
		err := db.WriteScope(ctx, func(ctx context.Context) error {
			addUser(ctx, t, db, "a@example.com")
			if err := db.CreateUser(ctx, newUser("taken@example.com"), "hash"); err == nil {
				t.Error("a duplicate email was stored")
			}
			return nil // the failure is ignored here
		})
		var ve *finance.ValidationError
		if !errors.As(err, &ve) {
			t.Fatalf("WriteScope = %v, want the joined write's error", err)
		}
		if userExists(t, db, "a@example.com") {
			t.Error("the scope committed after a write in it failed")
		}
	})

	t.Run("a panic rolls back and frees the writer", func(t *testing.T) {
		db := openDB(t)
		func() {
			defer func() {
				if recover() == nil {
					t.Error("the panic did not reach the caller")
				}
			}()
			_ = db.WriteScope(ctx, func(ctx context.Context) error {
				addUser(ctx, t, db, "a@example.com")
				panic("handler bug")
			})
		}()
		if userExists(t, db, "a@example.com") {
			t.Error("a write of a panicking scope was committed")
		}
		createUser(t, db, "after@example.com") // would wait forever on a writer left in a transaction
	})

	t.Run("scopes do not nest", func(t *testing.T) {
		db := openDB(t)
		err := db.WriteScope(ctx, func(ctx context.Context) error {
			return db.WriteScope(ctx, func(context.Context) error { return nil })
		})
		if err == nil {
			t.Error("a nested write scope was opened")
		}
	})

	t.Run("another database's scope is not joined", func(t *testing.T) {
		db, other := openDB(t), openDB(t)
		_ = db.WriteScope(ctx, func(ctx context.Context) error {
			if err := other.CreateUser(ctx, newUser("other@example.com"), "hash"); err != nil {
				t.Errorf("CreateUser on another database: %v", err)
			}
			return errStop
		})
		if !userExists(t, other, "other@example.com") {
			t.Error("a write to another database followed this one's scope")
		}
	})
}

// A stored response is found by user and key for 24 hours, in a write scope
// or on the read pool; saving drops the user's expired responses.
func TestIdempotentResponses(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	alice, bob := createUser(t, db, "alice@example.com"), createUser(t, db, "bob@example.com")
	t0 := time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)
	save := func(u finance.User, key, body string, at time.Time) {
		t.Helper()
		err := db.WriteScope(ctx, func(ctx context.Context) error {
			return db.SaveIdempotentResponse(ctx, u.ID, key, []byte("fp-"+body), 201, "application/json", []byte(body), at)
		})
		if err != nil {
			t.Fatalf("SaveIdempotentResponse(%s): %v", key, err)
		}
	}
	type found struct {
		Fingerprint, ContentType, Body string
		Status                         int
	}
	lookup := func(ctx context.Context, u finance.User, key string, at time.Time) (found, error) {
		fp, status, ct, body, err := db.IdempotentResponse(ctx, u.ID, key, at)
		return found{string(fp), ct, string(body), status}, err
	}
	keys := func(u finance.User) []string {
		t.Helper()
		k, err := db.IdempotencyKeys(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}

	save(alice, "k1", `{"n":1}`, t0)
	want := found{Fingerprint: `fp-{"n":1}`, ContentType: "application/json", Body: `{"n":1}`, Status: 201}
	for _, at := range []time.Time{t0, t0.Add(24*time.Hour - time.Second)} {
		got, err := lookup(ctx, alice, "k1", at)
		if err != nil {
			t.Fatalf("lookup at %s: %v", at, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("lookup at %s (-want +got):\n%s", at, diff)
		}
	}
	_ = db.WriteScope(ctx, func(ctx context.Context) error {
		if got, err := lookup(ctx, alice, "k1", t0); err != nil || got != want {
			t.Errorf("lookup in a write scope = %+v, %v", got, err)
		}
		return nil
	})
	if _, err := lookup(ctx, bob, "k1", t0); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("bob finds alice's key: %v", err)
	}
	if _, err := lookup(ctx, alice, "k1", t0.Add(24*time.Hour)); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("lookup after 24 hours: %v, want not found", err)
	}

	// Saving drops only the saving user's expired rows, the reused key's included.
	save(alice, "k2", `{"n":2}`, t0.Add(time.Hour))
	save(bob, "k1", `{"bob":1}`, t0)
	save(alice, "k1", `{"n":3}`, t0.Add(24*time.Hour))
	if diff := cmp.Diff([]string{"k1", "k2"}, keys(alice)); diff != "" {
		t.Errorf("alice's keys (-want +got):\n%s", diff)
	}
	if got, err := lookup(ctx, alice, "k1", t0.Add(24*time.Hour)); err != nil || got.Body != `{"n":3}` {
		t.Errorf("the reused key: %+v, %v", got, err)
	}
	save(alice, "k3", `{"n":4}`, t0.Add(25*time.Hour))
	if diff := cmp.Diff([]string{"k1", "k3"}, keys(alice)); diff != "" {
		t.Errorf("alice's keys after k2 expired (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"k1"}, keys(bob)); diff != "" {
		t.Errorf("bob's keys, older than 24 hours but his own to drop (-want +got):\n%s", diff)
	}
}
