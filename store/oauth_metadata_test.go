package store_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/oauth"
)

// TestCreateOAuthCodeStoresTheMetadataClient stores a metadata document
// client with the code of its first approval and refreshes it from the
// document of a later one, keeping when it was first stored; it never
// overwrites a registered client, and a code that cannot be stored leaves
// no client behind.
func TestCreateOAuthCodeStoresTheMetadataClient(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	u := createUser(t, db, "a@example.com")
	const id = "https://app.example/client.json"
	t0 := now()
	code := func(hash string, clientID string, at time.Time) oauth.Code {
		return oauth.Code{Hash: []byte(hash), ClientID: clientID, UserID: u.ID, RedirectURI: "https://app.example/cb",
			Challenge: "x", Scopes: []auth.Scope{auth.ScopeRead}, Resource: "r", CreatedAt: at, ExpiresAt: at.Add(time.Minute)}
	}
	first := oauth.Client{ID: id, Name: "First", RedirectURIs: []string{"https://app.example/cb"},
		GrantTypes: []string{"authorization_code", "refresh_token"}, CreatedAt: t0, MetadataDocument: true, FetchedAt: &t0}
	if err := db.CreateOAuthCode(ctx, code("first", id, t0), &first); err != nil {
		t.Fatal(err)
	}
	t1 := t0.Add(10 * time.Minute)
	second := first
	second.Name, second.RedirectURIs, second.GrantTypes = "Second", []string{"https://app.example/cb2"}, []string{"authorization_code"}
	second.CreatedAt, second.FetchedAt = t1, &t1
	if err := db.CreateOAuthCode(ctx, code("second", id, t1), &second); err != nil {
		t.Fatal(err)
	}
	got, err := db.OAuthClient(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "Second" || !slices.Equal(got.RedirectURIs, second.RedirectURIs) || !slices.Equal(got.GrantTypes, second.GrantTypes) ||
		!got.MetadataDocument || got.FetchedAt == nil || !got.FetchedAt.Equal(t1) || !got.CreatedAt.Equal(t0) {
		t.Errorf("client = %+v", got)
	}

	// The code's insert fails (its hash is taken): the client is not stored either.
	other := first
	other.ID = "https://other.example/client.json"
	if err := db.CreateOAuthCode(ctx, code("second", other.ID, t1), &other); err == nil {
		t.Fatal("a code stored twice under one hash")
	}
	if c, err := db.OAuthClient(ctx, other.ID); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("client of the failed code = %+v, %v; want none", c, err)
	}

	reg := oauth.Client{ID: finance.NewID(), Name: "Registered", RedirectURIs: []string{"http://127.0.0.1/cb"},
		GrantTypes: []string{"authorization_code"}, CreatedAt: t0}
	if err := db.CreateOAuthClient(ctx, reg); err != nil {
		t.Fatal(err)
	}
	spoof := second
	spoof.ID = reg.ID
	if err := db.CreateOAuthCode(ctx, code("spoof", reg.ID, t1), &spoof); err != nil {
		t.Fatal(err)
	}
	if got, err := db.OAuthClient(ctx, reg.ID); err != nil || got.Name != "Registered" || got.MetadataDocument || got.FetchedAt != nil {
		t.Errorf("registered client = %+v, %v; want it unchanged", got, err)
	}
}
