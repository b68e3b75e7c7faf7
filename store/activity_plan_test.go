package store_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
)

// Every index on activity is there for a list: the activity page, with and
// without its filters, walks activity_user in the list's order (no sort of
// the user's entries), the kind and actor filters read from the index
// entries; the card log walks the card entries' own indexes. An index no
// case proves, or a list that sorts or scans, shows up here.
func TestActivityQueryPlans(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	svc := finance.NewService(db)
	u := createUser(t, db, "activity-plans@example.com")
	fx := seedLedger(t, db, svc, u)
	repo := db.Read()
	page := finance.ListParams{Page: 2, Limit: 5, SortBy: "created_at", Desc: true}
	from, until := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
	list := func(f finance.ActivityFilter, p finance.ListParams) func() error {
		return func() error { _, _, err := repo.ListActivity(ctx, u.ID, f, p); return err }
	}
	cardLog := func(f finance.CardLogFilter) func() error {
		return func() error { _, _, err := repo.ListCardLogs(ctx, u.ID, f, page); return err }
	}
	const byUser = "SEARCH g USING INDEX activity_user (user_seq=?)"
	oldestFirst := page
	oldestFirst.Desc = false
	cases := []struct {
		name, plan string
		read       func() error
	}{
		{"newest first", byUser, list(finance.ActivityFilter{}, page)},
		{"oldest first", byUser, list(finance.ActivityFilter{}, oldestFirst)},
		{"a time range", "SEARCH g USING INDEX activity_user (user_seq=? AND at>? AND at<?)",
			list(finance.ActivityFilter{From: from, Until: until}, page)},
		{"a kind", byUser, list(finance.ActivityFilter{Kind: "expense"}, page)},
		{"an actor kind", byUser, list(finance.ActivityFilter{Actor: "user"}, page)},
		{"an actor", byUser, list(finance.ActivityFilter{ActorID: u.ID}, page)},
		{"a source", byUser, list(finance.ActivityFilter{Source: "web"}, page)},
		{"a kind and a source in a time range", "SEARCH g USING INDEX activity_user (user_seq=? AND at>? AND at<?)",
			list(finance.ActivityFilter{Kind: "expense", Source: "api", From: from, Until: until}, page)},
		{"card log", "SEARCH g USING INDEX activity_cards (user_seq=?)", cardLog(finance.CardLogFilter{})},
		{"one card's log", "SEARCH g USING INDEX activity_card (credit_card_id=?)", cardLog(finance.CardLogFilter{CardID: fx.card})},
	}
	var indexes []string
	if err := db.ReaderScan(ctx, &indexes, "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'activity'"); err != nil {
		t.Fatal(err)
	}
	for _, name := range indexes {
		proven := false
		for _, tc := range cases {
			proven = proven || strings.Contains(tc.plan, " "+name+" ")
		}
		if !proven {
			t.Errorf("no list is shown to need the index %s", name)
		}
	}
	for _, tc := range cases {
		plans, err := db.ReaderPlans(ctx, tc.read)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var matched bool
		for q, plan := range plans {
			if !strings.Contains(plan, " g ") && !strings.HasSuffix(plan, " g") {
				continue // not a query of activity
			}
			matched = matched || strings.Contains(plan, tc.plan)
			if strings.Contains(plan, "SCAN g") {
				t.Errorf("%s: a query scans activity: %s", tc.name, plan)
			}
			if strings.Contains(plan, "TEMP B-TREE FOR ORDER BY") && strings.Contains(q, "ORDER BY") {
				t.Errorf("%s: a page is sorted instead of read in index order: %s", tc.name, plan)
			}
		}
		if !matched {
			var all []string
			for q, plan := range plans {
				all = append(all, fmt.Sprintf("%s\n  => %s", q, plan))
			}
			sort.Strings(all)
			t.Errorf("%s: no query's plan contains %q; plans:\n%s", tc.name, tc.plan, strings.Join(all, "\n"))
		}
	}
}
