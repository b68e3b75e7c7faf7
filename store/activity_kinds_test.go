package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
)

// Every record kind the activity names can be stored: the table's CHECK on
// kind lists each value of finance.ActivityKinds, and the kind filter reads
// each back.
func TestActivityStoresEveryKind(t *testing.T) {
	db := openDB(t)
	u := createUser(t, db, "kinds@example.com")
	ctx := context.Background()
	at := time.Date(2026, 11, 26, 4, 0, 0, 0, time.UTC)
	for _, kind := range finance.ActivityKinds {
		e := finance.Activity{ID: finance.NewID(), CreatedAt: at, Actor: finance.WebActor, Source: finance.WriteManual,
			Kind: kind, RecordID: finance.NewID(), Action: finance.LogUpdated, Summary: "a " + kind}
		if err := db.Write(ctx, func(tx finance.Repo) error { return tx.AppendActivity(ctx, u.ID, e) }); err != nil {
			t.Errorf("kind %s: %v", kind, err)
			continue
		}
		got, total, err := db.Read().ListActivity(ctx, u.ID, finance.ActivityFilter{Kind: kind},
			finance.ListParams{Page: 1, Limit: 10, SortBy: "created_at", Desc: true})
		if err != nil || total != 1 || len(got) != 1 || got[0].ID != e.ID || got[0].Summary != e.Summary {
			t.Errorf("kind %s read back: %+v (total %d), %v", kind, got, total, err)
		}
	}
}
