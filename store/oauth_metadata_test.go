package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/server/oauth"
)

// TestUpsertOAuthMetadataClient stores a metadata document client under its
// URL and refreshes it from a later fetch, keeping when it was first stored;
// it never overwrites a registered client.
func TestUpsertOAuthMetadataClient(t *testing.T) {
	db := openDB(t)
	ctx := context.Background()
	const id = "https://app.example/client.json"
	t0 := now()
	first := oauth.Client{ID: id, Name: "First", RedirectURIs: []string{"https://app.example/cb"},
		GrantTypes: []string{"authorization_code", "refresh_token"}, CreatedAt: t0, MetadataDocument: true, FetchedAt: &t0}
	if err := db.UpsertOAuthMetadataClient(ctx, first); err != nil {
		t.Fatal(err)
	}
	t1 := t0.Add(10 * time.Minute)
	second := first
	second.Name, second.RedirectURIs, second.GrantTypes = "Second", []string{"https://app.example/cb2"}, []string{"authorization_code"}
	second.CreatedAt, second.FetchedAt = t1, &t1
	if err := db.UpsertOAuthMetadataClient(ctx, second); err != nil {
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

	reg := oauth.Client{ID: finance.NewID(), Name: "Registered", RedirectURIs: []string{"http://127.0.0.1/cb"},
		GrantTypes: []string{"authorization_code"}, CreatedAt: t0}
	if err := db.CreateOAuthClient(ctx, reg); err != nil {
		t.Fatal(err)
	}
	spoof := second
	spoof.ID = reg.ID
	if err := db.UpsertOAuthMetadataClient(ctx, spoof); err != nil {
		t.Fatal(err)
	}
	if got, err := db.OAuthClient(ctx, reg.ID); err != nil || got.Name != "Registered" || got.MetadataDocument || got.FetchedAt != nil {
		t.Errorf("registered client = %+v, %v; want it unchanged", got, err)
	}
}
