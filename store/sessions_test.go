package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server/auth"
)

func TestWebSessions(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	u := createUser(t, db, "session@example.com")
	t0 := now()
	old := auth.WebSession{IDHash: auth.HashSecret("old"), UserID: u.ID, CreatedAt: t0.Add(-13 * time.Hour), ExpiresAt: t0.Add(-time.Hour)}
	live := auth.WebSession{IDHash: auth.HashSecret("live"), UserID: u.ID, CreatedAt: t0, ExpiresAt: t0.Add(12 * time.Hour)}
	if err := db.CreateWebSession(ctx, old); err != nil {
		t.Fatal(err)
	}
	if _, err := db.WebSession(ctx, old.IDHash); err != nil {
		t.Fatalf("stored session not found: %v", err)
	}
	// Storing a session drops the expired ones in the same transaction.
	if err := db.CreateWebSession(ctx, live); err != nil {
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
	if err := db.CreateFirstUser(ctx, first, "hash"); err != nil {
		t.Fatal(err)
	}
	err := db.CreateFirstUser(ctx, newUser("second@example.com"), "hash")
	if !errors.Is(err, finance.ErrInvalidStatus) {
		t.Errorf("second first user: %v, want ErrInvalidStatus", err)
	}
	if n, _ := db.CountUsers(ctx); n != 1 {
		t.Errorf("%d users", n)
	}
}
