package store_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// A whole database copied into a new one (SQLite, and Postgres when one is
// available) holds the same: each user's export document is the same byte
// for byte, an API key of the source signs in on the target, the target's
// triggers built the same kept totals (no drift), every table's rows were
// counted, and the target's activity log goes on numbering after the
// copied entries. A target that holds a user already is refused and left
// as it was.
func TestCopyIntoAnotherDatabase(t *testing.T) {
	ctx := context.Background()
	src := openDB(t)
	svc := finance.NewService(src)
	svc.SetClock(func() time.Time { return time.Date(2025, 3, 20, 4, 0, 0, 0, time.UTC) })
	ana, ben := createUser(t, src, "ana@example.com"), createUser(t, src, "ben@example.com")
	if _, err := svc.UpdateAppSettings(ctx, ben.ID, finance.AppSettingsRequest{Currency: finance.Of("USD")}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []finance.User{ana, ben} {
		fillHousehold(t, svc, u.ID)
	}
	_, key, err := newAuthService(t, src).CreateKey(ctx, auth.CreateKeyRequest{UserID: ana.ID, Name: "agent", Scopes: []string{"finance:read"}})
	if err != nil {
		t.Fatal(err)
	}
	signingKey, err := src.SigningKey(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	picture := setPicture(t, svc, ana.ID, []byte("ana's picture"))
	export := func(db *store.DB, userID string) string {
		t.Helper()
		var b bytes.Buffer
		if err := db.Export(ctx, userID, time.Date(2025, 3, 21, 0, 0, 0, 0, time.UTC), &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}

	targets := map[string]func() *store.DB{"sqlite": func() *store.DB {
		db := openAt(t, filepath.Join(t.TempDir(), store.FileName))
		if err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		return db
	}}
	if serverURL, ok := store.TestPostgresURL(); ok {
		targets["postgres"] = func() *store.DB {
			dbURL, drop, err := store.NewTestPostgresDatabase(ctx, serverURL)
			if err != nil {
				t.Fatal(err)
			}
			db, err := store.OpenURL(dbURL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := db.Close(); err != nil {
					t.Error(err)
				}
				if err := drop(); err != nil {
					t.Error(err)
				}
			})
			return db
		}
	} else {
		t.Log("no Postgres: the copy into Postgres is not tried (FINANCE_TEST_POSTGRES_URL, or run under pg_virtualenv)")
	}
	for name, open := range targets {
		t.Run(name, func(t *testing.T) {
			dst := open()
			if err := dst.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			// A replica started on the target before the copy made a key of its own.
			if k, err := dst.SigningKey(ctx, ""); err != nil || bytes.Equal(k, signingKey) {
				t.Fatalf("the target's own key: %v", err)
			}
			counts, err := src.CopyInto(ctx, dst)
			if err != nil {
				t.Fatal(err)
			}
			rows := map[string]int{}
			for _, c := range counts {
				rows[c.Table] = c.Rows
			}
			for _, table := range []string{"users", "expenses", "api_keys", "activity", "credit_cards", "soas", "server_secrets", "profile_pictures"} {
				n, err := src.QueryInt(ctx, `SELECT count(*) FROM `+table)
				if err != nil || n == 0 || rows[table] != n {
					t.Errorf("%s: %d copied, %d in the source (%v)", table, rows[table], n, err)
				}
			}
			for _, table := range []string{"spending_days", "expense_counts", "bun_migrations"} {
				if _, copied := rows[table]; copied {
					t.Errorf("%s was copied: the target keeps its own", table)
				}
			}
			for _, u := range []finance.User{ana, ben} {
				if got, want := export(dst, u.ID), export(src, u.ID); got != want {
					t.Errorf("%s's export document differs after the copy:\n got %s\nwant %s", u.Email, got, want)
				}
			}
			if drift, err := dst.TotalsDrift(ctx); err != nil || len(drift) > 0 {
				t.Errorf("the target's kept totals drift: %v, %v", drift, err)
			}
			if p, err := newAuthService(t, dst).Authenticate(ctx, key); err != nil || p.UserID() != ana.ID {
				t.Errorf("the source's key on the target: %+v, %v", p, err)
			}
			// The source's signing key signs on the target, so its sign-ins
			// stay valid; the pictures are there, at the same names.
			if k, err := dst.SigningKey(ctx, ""); err != nil || !bytes.Equal(k, signingKey) {
				t.Errorf("the target's signing key is not the source's (%v)", err)
			}
			if f, err := finance.NewService(dst).PictureFile(ctx, picture); err != nil || string(f.Content) != "ana's picture" {
				t.Errorf("ana's picture on the target: %+v, %v", f, err)
			}
			// New activity numbers on after the copied entries.
			before, err := dst.QueryInt(ctx, `SELECT max(seq) FROM activity`)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := finance.NewService(dst).CreateExpense(ctx, ana.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(500)),
				Date: finance.Of(finance.NewDate(2025, 3, 19)), Description: finance.Of("after the copy"), Category: finance.Of("Food & Dining"),
				PaymentMethod: finance.Of(finance.MethodCash)}); err != nil {
				t.Fatalf("a write on the target: %v", err)
			}
			if after, err := dst.QueryInt(ctx, `SELECT max(seq) FROM activity`); err != nil || after <= before {
				t.Errorf("activity after a write on the target: max seq %d, before %d (%v)", after, before, err)
			}

			// A second copy finds users there and writes nothing.
			users, _ := dst.QueryInt(ctx, `SELECT count(*) FROM users`)
			expenses, _ := dst.QueryInt(ctx, `SELECT count(*) FROM expenses`)
			if _, err := src.CopyInto(ctx, dst); err == nil || !strings.Contains(err.Error(), "already holds 2 user(s)") {
				t.Errorf("a copy into a used database: %v", err)
			}
			if u, _ := dst.QueryInt(ctx, `SELECT count(*) FROM users`); u != users {
				t.Errorf("users after the refused copy: %d, want %d", u, users)
			}
			if e, _ := dst.QueryInt(ctx, `SELECT count(*) FROM expenses`); e != expenses {
				t.Errorf("expenses after the refused copy: %d, want %d", e, expenses)
			}
		})
	}
}

// A source whose kept totals do not add up (a damaged database) is not
// copied: the target's triggers compute the totals from the rows, the
// comparison finds the difference, and the target keeps no row.
func TestCopyIntoRefusesATotalThatDiffers(t *testing.T) {
	ctx := context.Background()
	src := openAt(t, filepath.Join(t.TempDir(), store.FileName))
	if err := src.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	u := createUser(t, src, "ana@example.com")
	if _, err := finance.NewService(src).CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(1234)),
		Date: finance.Of(finance.NewDate(2025, 3, 19)), Description: finance.Of("lunch"), Category: finance.Of("Food & Dining"),
		PaymentMethod: finance.Of(finance.MethodCash)}); err != nil {
		t.Fatal(err)
	}
	execer(t, src)(`UPDATE spending_days SET amount = amount + 1`)
	dst := openAt(t, filepath.Join(t.TempDir(), store.FileName))
	if err := dst.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	_, err := src.CopyInto(ctx, dst)
	if err == nil || !strings.Contains(err.Error(), "spending_days: the target's totals differ") {
		t.Fatalf("CopyInto = %v, want the spending totals named", err)
	}
	for _, table := range []string{"users", "categories", "expenses", "spending_days"} {
		if n, err := dst.QueryInt(ctx, `SELECT count(*) FROM `+table); err != nil || n != 0 {
			t.Errorf("%s in the target after the refused copy: %d (%v)", table, n, err)
		}
	}
}
