package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// exportOf is the user's export document, exported at a fixed instant.
func exportOf(t testing.TB, db *store.DB, userID string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := db.Export(context.Background(), userID, time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), &buf); err != nil {
		t.Fatalf("Export: %v", err)
	}
	return buf.Bytes()
}

// createAccount records an account for userID through the domain.
func createAccount(t testing.TB, db *store.DB, userID, body string) finance.Account {
	t.Helper()
	var req finance.AccountRequest
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	a, err := finance.NewService(db).CreateAccount(context.Background(), userID, req)
	if err != nil {
		t.Fatalf("CreateAccount: %v", err)
	}
	return a
}

// userRows counts the user's rows in the tables a restore writes.
func userRows(t testing.TB, db *store.DB, userID string) string {
	t.Helper()
	var out []string
	for _, table := range []string{"categories", "accounts", "account_transactions", "user_settings"} {
		n, err := db.QueryInt(context.Background(), "SELECT count(*) FROM "+table+" WHERE user_id = ?", userID)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s=%d", table, n))
	}
	return strings.Join(out, " ")
}

// A document restored into a new user on a fresh database exports as the
// same document: every record, id and field came across, and the
// restored user's balance is the original's (the kept totals the triggers
// maintain came out right).
func TestRestoreRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := openDB(t)
	alice := createUser(t, src, "alice@example.com")
	svc := finance.NewService(src)
	var settings finance.AppSettingsRequest
	if err := json.Unmarshal([]byte(`{"due_soon_days":12,"week_start":"sunday"}`), &settings); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateAppSettings(ctx, alice.ID, settings); err != nil {
		t.Fatal(err)
	}
	acct := createAccount(t, src, alice.ID, `{"name":"Cash box","type":"cash","opening_balance":"12.34"}`)
	var line finance.AccountTransactionRequest
	if err := json.Unmarshal([]byte(`{"type":"debit","amount":"0.35","date":"2026-02-03","description":"Stamps"}`), &line); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateAccountTransaction(ctx, alice.ID, acct.ID, line); err != nil {
		t.Fatal(err)
	}
	var rule finance.CategoryRuleRequest
	if err := json.Unmarshal([]byte(`{"description_contains":"GRAB","amount_min":"0.50","amount_max":"1200.05","category":"Transportation"}`), &rule); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateCategoryRule(ctx, alice.ID, rule); err != nil {
		t.Fatal(err)
	}
	var reminders finance.ReminderSettingsRequest
	if err := json.Unmarshal([]byte(`{"enabled":true,"bill_days":9,"quiet_start":"23:15","quiet_end":"06:45"}`), &reminders); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.UpdateReminderSettings(ctx, alice.ID, reminders); err != nil {
		t.Fatal(err)
	}
	sent := finance.Reminder{ID: finance.NewID(), Kind: finance.ReminderBill, Subject: "bill-1", Occurrence: "2026-02-10",
		Message: "Water: ₱450.00 due 2026-02-10 (in 3 days).", Delivery: finance.DeliveryPending, CreatedAt: time.Date(2026, 2, 7, 0, 0, 0, 0, time.UTC)}
	if err := src.Write(ctx, func(tx finance.Repo) error {
		if _, err := tx.ClaimReminder(ctx, alice.ID, sent); err != nil {
			return err
		}
		return tx.SetReminderDelivery(ctx, alice.ID, sent.ID, finance.DeliverySent, nil, sent.CreatedAt.Add(time.Second))
	}); err != nil {
		t.Fatal(err)
	}
	// Her manual exchange rate is hers; the server's fetched one is not.
	usdPHP := finance.ExchangeRateRequest{Base: finance.Of("USD"), Quote: finance.Of("PHP"),
		Date: finance.Of(finance.NewDate(2026, 2, 3)), Rate: finance.Of(mustFXRate(t, "59.1"))}
	if _, err := svc.CreateExchangeRate(ctx, alice.ID, usdPHP); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SaveFetchedRates(ctx, []finance.ExchangeRate{{ID: finance.NewID(), Base: "EUR", Quote: "PHP",
		Date: finance.NewDate(2026, 2, 3), Rate: mustFXRate(t, "68.115"), Source: finance.RateSourceECB}}); err != nil {
		t.Fatal(err)
	}
	doc := exportOf(t, src, alice.ID)
	if bytes.Contains(doc, []byte("68.115")) {
		t.Errorf("document carries the server's fetched rate:\n%s", doc)
	}
	for _, want := range []string{`"bill_days":9`, `"base":"USD","quote":"PHP","date":"2026-02-03","rate":"59.1","source":"manual"`, `"quiet_start":"23:15"`, `"occurrence":"2026-02-10"`, `"delivery":"sent"`,
		`"description_contains":"GRAB","payee_equals":null,"amount_min":0.50,"amount_max":1200.05`, `{"format":"finance-export","version":1,"exported_at":"2026-03-01T09:00:00Z","schema_version":"` + store.SchemaVersion() + `"`,
		`"opening_balance":12.34`, `"amount":0.35`, `"date":"2026-02-03"`, `"is_system":true`, `"due_soon_days":12`} {
		if !bytes.Contains(doc, []byte(want)) {
			t.Errorf("document lacks %s:\n%s", want, doc)
		}
	}
	if bytes.Contains(doc, []byte("hash-of-")) || bytes.Contains(doc, []byte(alice.ID)) {
		t.Errorf("document carries the password hash or the user's id:\n%s", doc)
	}

	dst := openDB(t)
	bob := createUser(t, dst, "bob@example.com")
	counts, err := dst.Restore(ctx, bob.ID, bytes.NewReader(doc))
	if err != nil {
		t.Fatalf("Restore: %v", err)
	}
	got := map[string]int{}
	for _, c := range counts {
		got[c.Kind] = c.N
	}
	if got["categories"] != len(finance.DefaultCategories()) || got["accounts"] != 1 || got["account_transactions"] != 1 || got["expenses"] != 0 ||
		got["category_rules"] != 1 || got["exchange_rates"] != 1 {
		t.Errorf("counts %+v", counts)
	}
	if again := exportOf(t, dst, bob.ID); !bytes.Equal(again, doc) {
		t.Errorf("the restored user exports another document:\n%s\nwant:\n%s", again, doc)
	}
	restored, err := finance.NewService(dst).GetAccount(ctx, bob.ID, acct.ID)
	if err != nil || restored.CurrentBalance.String() != "11.99" {
		t.Errorf("restored account %+v, %v; want balance 11.99", restored, err)
	}
	// The preferences and the log came across: the restored server does
	// not send again what the old one sent.
	if st, err := dst.Read().ReminderSettings(ctx, bob.ID); err != nil || !st.Enabled || st.BillDays != 9 || *st.QuietEnd != "06:45" {
		t.Errorf("restored reminder settings %+v, %v", st, err)
	}
	var again bool
	if err := dst.Write(ctx, func(tx finance.Repo) error {
		var err error
		again, err = tx.ClaimReminder(ctx, bob.ID, finance.Reminder{ID: finance.NewID(), Kind: sent.Kind, Subject: sent.Subject,
			Occurrence: sent.Occurrence, Message: sent.Message, Delivery: finance.DeliveryPending, CreatedAt: time.Now()})
		return err
	}); err != nil || again {
		t.Errorf("the restored reminder was claimed again (%v, %v)", again, err)
	}
	rules, err := finance.NewService(dst).AllCategoryRules(ctx, bob.ID)
	if err != nil || len(rules) != 1 || rules[0].Position != 1 || rules[0].Category != "Transportation" || !rules[0].Active ||
		rules[0].Conditions() != `description contains "GRAB", amount 0.50 to 1200.05` {
		t.Errorf("restored rules %+v, %v", rules, err)
	}
}

// Each refusal names its reason and writes nothing: the user keeps exactly
// what they had.
func TestRestoreRefusals(t *testing.T) {
	ctx := context.Background()
	src := openDB(t)
	alice := createUser(t, src, "alice@example.com")
	createAccount(t, src, alice.ID, `{"name":"Cash box","type":"cash","opening_balance":"12.34"}`)
	doc := string(exportOf(t, src, alice.ID))
	header := regexp.MustCompile(`^\{"format":"finance-export","version":1,"exported_at":"[^"]+","schema_version":"\d+"`)
	withHeader := func(h string) string { return header.ReplaceAllString(doc, h) }
	firstCategory := regexp.MustCompile(`"categories":\[\n\{"id":"[^"]+"`).FindString(doc)

	dst := openDB(t)
	other := createUser(t, dst, "other@example.com")
	var otherCategory string
	if err := dst.ReaderScan(ctx, &otherCategory, "SELECT id FROM categories WHERE user_id = ? LIMIT 1", other.ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, doc, want string
	}{
		{"not JSON", "hello", "not a finance export"},
		{"another format", withHeader(`{"format":"bank-file","version":1,"schema_version":"1"`), `format: must be "finance-export"`},
		{"no format", withHeader(`{"version":1,"schema_version":"1"`), "no format"},
		{"a later version", withHeader(`{"format":"finance-export","version":2,"schema_version":"1"`), "version: must be 1"},
		{"a newer schema", withHeader(`{"format":"finance-export","version":1,"schema_version":"99991231000000"`),
			"schema_version: 99991231000000 is newer than this finance knows (" + store.SchemaVersion() + "): upgrade finance"},
		{"out of order", strings.Replace(doc, `{"format"`, `{"accounts":[],"format"`, 1), "user: out of order: it must come before accounts"},
		{"unknown kind", strings.Replace(doc, `"categories":[`, `"pets":[],"categories":[`, 1), "pets: not a kind of record"},
		{"unknown field", strings.Replace(doc, `"opening_balance":12.34`, `"opening_balance":12.34,"colour":"red"`, 1), "accounts[0]: unknown field colour"},
		{"money of three decimals", strings.Replace(doc, `"opening_balance":12.34`, `"opening_balance":12.345`, 1),
			"accounts[0].opening_balance: must be a number with at most 2 decimal places"},
		{"money as a string", strings.Replace(doc, `"opening_balance":12.34`, `"opening_balance":"12.34"`, 1), "accounts[0].opening_balance: must be a number"},
		{"a truncated document", doc[:len(doc)-20], "export document"},
		{"another user's category", strings.Replace(doc, firstCategory, `"categories":[`+"\n"+`{"id":"`+otherCategory+`"`, 1),
			"its id is already on this server"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := createUser(t, dst, strings.ReplaceAll(tc.name, " ", "-")+"@example.com")
			wantRefused(t, dst, u.ID, tc.doc, tc.want)
		})
	}

	t.Run("a user with records", func(t *testing.T) {
		u := createUser(t, dst, "busy@example.com")
		createAccount(t, dst, u.ID, `{"name":"Mine","type":"savings"}`)
		err := wantRefused(t, dst, u.ID, doc, "the user already has records (accounts): restore only into a new user (finance users create)")
		if !errors.Is(err, store.ErrRestoreNotEmpty) {
			t.Errorf("Restore: %v; want ErrRestoreNotEmpty", err)
		}
	})
	t.Run("a user with a category of their own", func(t *testing.T) {
		u := createUser(t, dst, "pets@example.com")
		var req finance.CategoryRequest
		if err := json.Unmarshal([]byte(`{"name":"Pets","kind":"expense"}`), &req); err != nil {
			t.Fatal(err)
		}
		if _, err := finance.NewService(dst).CreateCategory(ctx, u.ID, req); err != nil {
			t.Fatal(err)
		}
		wantRefused(t, dst, u.ID, doc, "the user already has records (categories of their own)")
	})
	t.Run("a second restore", func(t *testing.T) {
		fresh := openDB(t)
		u := createUser(t, fresh, "twice@example.com")
		if _, err := fresh.Restore(ctx, u.ID, strings.NewReader(doc)); err != nil {
			t.Fatal(err)
		}
		wantRefused(t, fresh, u.ID, doc, "the user already has records (categories of their own)")
	})
	t.Run("a link to another user's record", func(t *testing.T) {
		fresh := openDB(t)
		mallory := createUser(t, fresh, "mallory@example.com")
		victim := createUser(t, fresh, "victim@example.com")
		theirs := createAccount(t, fresh, victim.ID, `{"name":"Savings","type":"savings"}`)
		line := `"account_transactions":[` + "\n" + `{"id":"` + finance.NewID() + `","account_id":"` + theirs.ID +
			`","type":"credit","amount":5,"date":"2026-01-01","description":null,"source":"manual","source_id":null,"status":"posted","voided_at":null,` +
			`"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z"}]`
		wantRefused(t, fresh, mallory.ID, strings.Replace(doc, `"account_transactions":[]`, line, 1),
			"account_transactions: account_id "+theirs.ID+" is another user's record")
	})
}

// wantRefused restores doc into the user and wants an error holding want,
// with nothing written: the user keeps exactly what they had.
func wantRefused(t *testing.T, db *store.DB, userID, doc, want string) error {
	t.Helper()
	before := userRows(t, db, userID)
	_, err := db.Restore(context.Background(), userID, strings.NewReader(doc))
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Restore: %v; want an error with %q", err, want)
	}
	if after := userRows(t, db, userID); after != before {
		t.Errorf("a refused restore wrote: %s, before %s", after, before)
	}
	return err
}

// The first-run checklist put away travels with the settings: the restored
// user does not see it again.
func TestRestoreCarriesChecklistDismissal(t *testing.T) {
	ctx := context.Background()
	src := openDB(t)
	alice := createUser(t, src, "alice@example.com")
	if err := finance.NewService(src).DismissChecklist(ctx, alice.ID); err != nil {
		t.Fatal(err)
	}
	doc := exportOf(t, src, alice.ID)
	if !bytes.Contains(doc, []byte(`"checklist_dismissed_at":"`)) {
		t.Fatalf("document lacks the dismissal:\n%s", doc)
	}
	dst := openDB(t)
	bob := createUser(t, dst, "bob@example.com")
	if _, err := dst.Restore(ctx, bob.ID, bytes.NewReader(doc)); err != nil {
		t.Fatalf("Restore: %v", err)
	}
	fs, err := finance.NewService(dst).FirstSteps(ctx, bob.ID)
	if err != nil || fs != (finance.FirstSteps{Dismissed: true}) {
		t.Errorf("restored first steps = %+v, %v; want the checklist put away", fs, err)
	}
	if st, _ := finance.NewService(dst).AppSettings(ctx, bob.ID); st != finance.DefaultAppSettings() {
		t.Errorf("restored settings %+v, want the defaults", st)
	}
}
