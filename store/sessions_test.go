package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

func TestWebSessions(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	u := createUser(t, db, "session@example.com")
	t0 := now()
	old := auth.WebSession{IDHash: auth.HashSecret("old"), UserID: u.ID, CreatedAt: t0.Add(-13 * time.Hour), ExpiresAt: t0.Add(-time.Hour)}
	live := auth.WebSession{IDHash: auth.HashSecret("live"), UserID: u.ID, CreatedAt: t0, ExpiresAt: t0.Add(12 * time.Hour)}
	if err := db.CreateWebSession(ctx, old, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.WebSession(ctx, old.IDHash); err != nil {
		t.Fatalf("stored session not found: %v", err)
	}
	// Storing a session drops the expired ones in the same transaction.
	if err := db.CreateWebSession(ctx, live, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.WebSession(ctx, old.IDHash); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("expired session kept: %v", err)
	}
	got, err := db.WebSession(ctx, live.IDHash)
	if err != nil || got.UserID != u.ID || !got.ExpiresAt.Equal(live.ExpiresAt) {
		t.Errorf("session = %+v, %v", got, err)
	}
	if err := db.DeleteWebSession(ctx, live.IDHash); err != nil {
		t.Fatal(err)
	}
	if _, err := db.WebSession(ctx, live.IDHash); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("deleted session found: %v", err)
	}
}

func TestCreateFirstUser(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	first := newUser("first@example.com")
	if err := db.CreateFirstUser(ctx, first, "hash", finance.DefaultAppSettings()); err != nil {
		t.Fatal(err)
	}
	err := db.CreateFirstUser(ctx, newUser("second@example.com"), "hash", finance.DefaultAppSettings())
	if !errors.Is(err, finance.ErrInvalidStatus) {
		t.Errorf("second first user: %v, want ErrInvalidStatus", err)
	}
	if n, _ := db.CountUsers(ctx); n != 1 {
		t.Errorf("%d users", n)
	}
	// The first user records money like any other: its expenses carry its
	// user number (set by a trigger for every way a user is created).
	_, err = finance.NewService(db).CreateExpense(ctx, first.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(250_50)),
		Date: finance.Of(finance.NewDate(2026, 11, 24)), Description: finance.Of("Lunch"), Category: finance.Of("Food & Dining"),
		PaymentMethod: finance.Of(finance.MethodCash)})
	if err != nil {
		t.Errorf("the first user's expense: %v", err)
	}
}

// TestChangePasswordEndsSessions: the new hash, the next epoch and the end of
// the user's other sessions land together; another user is untouched.
func TestChangePasswordEndsSessions(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	ana, ben := createUser(t, db, "ana@example.com"), createUser(t, db, "ben@example.com")
	t0 := now()
	session := func(id string, u finance.User) auth.WebSession {
		ws := auth.WebSession{IDHash: auth.HashSecret(id), UserID: u.ID, CreatedAt: t0, ExpiresAt: t0.Add(12 * time.Hour)}
		if err := db.CreateWebSession(ctx, ws, 0); err != nil {
			t.Fatal(err)
		}
		return ws
	}
	kept, ended, bens := session("kept", ana), session("ended", ana), session("bens", ben)

	who, err := db.ChangePassword(ctx, ana.ID, "new-hash", kept.IDHash, t0)
	if err != nil || who.Epoch != 1 || who.ID != ana.ID {
		t.Fatalf("ChangePassword = %+v, %v; want ana at epoch 1", who, err)
	}
	for _, c := range []struct {
		name   string
		ws     auth.WebSession
		stored bool
	}{{"kept", kept, true}, {"ended", ended, false}, {"another user's", bens, true}} {
		_, err := db.WebSession(ctx, c.ws.IDHash)
		if stored := err == nil; stored != c.stored || (err != nil && !errors.Is(err, finance.ErrNotFound)) {
			t.Errorf("%s session: stored %v (%v), want %v", c.name, stored, err, c.stored)
		}
	}

	// Without a session to keep, all of them end.
	if _, err := db.ChangePassword(ctx, ana.ID, "newer-hash", nil, t0); err != nil {
		t.Fatal(err)
	}
	if _, err := db.WebSession(ctx, kept.IDHash); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("the kept session survived a change that keeps none: %v", err)
	}
	if c, err := db.Credentials(ctx, ana.ID); err != nil || c != (auth.Credentials{PasswordHash: "newer-hash", Epoch: 2}) {
		t.Errorf("Credentials = %+v, %v; want newer-hash at epoch 2", c, err)
	}

	// A session for an epoch that has moved on is not stored.
	late := auth.WebSession{IDHash: auth.HashSecret("late"), UserID: ana.ID, CreatedAt: t0, ExpiresAt: t0.Add(time.Hour)}
	if err := db.CreateWebSession(ctx, late, 1); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("CreateWebSession at a past epoch = %v, want ErrNotFound", err)
	}
	if _, err := db.WebSession(ctx, late.IDHash); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("a session of a past epoch was stored: %v", err)
	}
	if err := db.CreateWebSession(ctx, late, 2); err != nil {
		t.Errorf("CreateWebSession at the current epoch: %v", err)
	}
}
