package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// beforeTransferRebuilds is the last migration before the rebuilds that let
// account lines, expenses and activity entries name transfers.
const beforeTransferRebuilds = "20261202000100"

// lastTransferRebuild is the last of those rebuilds; later migrations (an
// index, say) are not theirs to check here.
const lastTransferRebuild = "20261202000130"

// Account lines, expenses and activity entries written before the transfer
// rebuilds keep every row, kept total, index and trigger through them, and
// a transfer can be written afterwards.
func TestTransferRebuildsKeepRowsTotalsIndexesAndTriggers(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, beforeTransferRebuilds)
	alice := createUser(t, db, "alice@example.com")
	svc := finance.NewService(db)
	// Everything before the rebuilds is written in SQL: the service writes
	// columns that later migrations add (cleared, currency), which this
	// schema does not have yet.
	type acct struct{ ID string }
	bpi, gcash := acct{"01a00000-0000-7000-8000-a00000000001"}, acct{"01a00000-0000-7000-8000-a00000000002"}
	for _, a := range []struct {
		id, name, typ string
		opening       int
	}{{bpi.ID, "BPI", "savings", 10000}, {gcash.ID, "GCash", "e_wallet", 0}} {
		if err := db.WriterExec(ctx, `INSERT INTO accounts (id, user_id, name, name_key, type, opening_balance, status,
			created_at, updated_at) VALUES (?, ?, ?, lower(?), ?, ?, 'active', '2026-02-01 00:00:00', '2026-02-01 00:00:00')`,
			a.id, alice.ID, a.name, a.name, a.typ, a.opening); err != nil {
			t.Fatal(err)
		}
	}
	for i, l := range []struct {
		account, typ, date, status, source string
		amount                             int
		description                        any
	}{{bpi.ID, "debit", "2026-02-03", "posted", "manual", 1025, "ATM"}, {bpi.ID, "credit", "2026-02-04", "posted", "manual", 300, nil},
		{bpi.ID, "debit", "2026-02-05", "voided", "manual", 100, nil}, {gcash.ID, "debit", "2026-02-06", "posted", "expense", 500, "Load"}} {
		err := db.WriterExec(ctx, `INSERT INTO account_transactions (id, user_id, account_id, type, amount, date, description, source,
			status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '2026-02-06 00:00:00', '2026-02-06 00:00:00')`,
			fmt.Sprintf("01a00000-0000-7000-8000-%012d", i), alice.ID, l.account, l.typ, l.amount, l.date, l.description, l.source, l.status)
		if err != nil {
			t.Fatal(err)
		}
	}
	var utilities string
	if err := db.ReaderScan(ctx, &utilities, "SELECT id FROM categories WHERE user_id = ? AND name = 'Utilities'", alice.ID); err != nil {
		t.Fatal(err)
	}
	if err := db.WriterExec(ctx, `INSERT INTO expenses (id, user_id, user_seq, amount, date, description, category_id, payment_method,
		account_id, status, source, account_transaction_id, created_at, updated_at)
		VALUES ('01a00000-0000-7000-8000-e00000000001', ?, (SELECT seq FROM users WHERE id = ?), 500, '2026-02-06', 'Load', ?,
		'Account Debit', ?, 'active', 'manual', '01a00000-0000-7000-8000-000000000003', '2026-02-06 00:00:00', '2026-02-06 00:00:00')`,
		alice.ID, alice.ID, utilities, gcash.ID); err != nil {
		t.Fatal(err)
	}
	for i, kind := range []string{"account", "account", "expense"} {
		if err := db.WriterExec(ctx, `INSERT INTO activity_actors (id, user_seq, kind, ref, name, source)
			SELECT 1, seq, 'web', 'test', 'Alice', 'manual' FROM users WHERE id = ? AND NOT EXISTS (SELECT 1 FROM activity_actors)`,
			alice.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.WriterExec(ctx, `INSERT INTO activity (id, user_seq, at, actor, kind, record_id, action, summary)
			SELECT ?, seq, ?, 1, ?, ?, 'created', 'written before the rebuilds' FROM users WHERE id = ?`,
			fmt.Sprintf("01a00000-0000-7000-8000-f0000000000%d", i), 1770336000000+i, kind, bpi.ID, alice.ID); err != nil {
			t.Fatal(err)
		}
	}
	snapshot := func() map[string][]map[string]any {
		t.Helper()
		out := map[string][]map[string]any{}
		for _, q := range []string{
			"SELECT * FROM account_transactions ORDER BY id",
			"SELECT * FROM account_line_totals ORDER BY account_id",
			"SELECT * FROM expenses ORDER BY id",
			"SELECT * FROM expense_days ORDER BY user_id, date, payment_method",
			"SELECT * FROM activity ORDER BY seq",
			// Every index and trigger of the rebuilt tables, as written (the
			// reconcile migration's index is new, not rebuilt).
			`SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE type IN ('index', 'trigger')
				AND tbl_name IN ('account_transactions', 'expenses', 'activity') AND name <> 'account_transactions_cleared' ORDER BY name`,
		} {
			var rows []map[string]any
			if err := db.ReaderScan(ctx, &rows, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			for _, r := range rows {
				delete(r, "cleared") // a later migration's column: new, not rebuilt
			}
			out[q] = rows
		}
		return out
	}
	before := snapshot()
	if n := len(before["SELECT * FROM activity ORDER BY seq"]); n < 3 {
		t.Fatalf("%d activity entries written, want at least 3", n)
	}

	if err := db.MigrateThrough(ctx, lastTransferRebuild); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, snapshot()); diff != "" {
		t.Errorf("rows, totals, indexes or triggers changed by the rebuilds (-before +after):\n%s", diff)
	}
	// The service writes today's schema.
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	// TotalsDrift reads today's schema: the totals kept through the rebuild
	// and then re-keyed by currency still equal their rows.
	if drift, err := db.TotalsDrift(ctx); err != nil || len(drift) > 0 {
		t.Errorf("TotalsDrift = %v, %v", drift, err)
	}

	// The widened checks take a transfer, and the kept totals follow it.
	var req finance.TransferRequest
	if err := json.Unmarshal([]byte(`{"from_account_id":"`+bpi.ID+`","to_account_id":"`+gcash.ID+
		`","amount":"50","date":"2026-02-07","fee":"1.50"}`), &req); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateTransfer(ctx, alice.ID, req); err != nil {
		t.Fatal(err)
	}
	if drift, err := db.TotalsDrift(ctx); err != nil || len(drift) > 0 {
		t.Errorf("TotalsDrift after a transfer = %v, %v", drift, err)
	}
	for id, want := range map[string]string{bpi.ID: "41.25", gcash.ID: "45.00"} {
		if a, err := svc.GetAccount(ctx, alice.ID, id); err != nil || a.CurrentBalance.String() != want {
			t.Errorf("balance %+v, %v; want %s", a, err, want)
		}
	}
}

// A restore brings a transfer back with both its lines and its fee
// expense, and the same balances.
func TestRestoreBringsTransfersBack(t *testing.T) {
	ctx := context.Background()
	src := openDB(t)
	alice := createUser(t, src, "alice@example.com")
	svc := finance.NewService(src)
	bpi := createAccount(t, src, alice.ID, `{"name":"BPI","type":"savings","opening_balance":"100.00"}`)
	gcash := createAccount(t, src, alice.ID, `{"name":"GCash","type":"e_wallet"}`)
	var req finance.TransferRequest
	if err := json.Unmarshal([]byte(`{"from_account_id":"`+bpi.ID+`","to_account_id":"`+gcash.ID+
		`","amount":"30","date":"2026-02-07","fee":"0.75","description":"Top-up"}`), &req); err != nil {
		t.Fatal(err)
	}
	tr, err := svc.CreateTransfer(ctx, alice.ID, req)
	if err != nil {
		t.Fatal(err)
	}
	doc := exportOf(t, src, alice.ID)
	if !bytes.Contains(doc, []byte("\"transfers\":[\n{\"id\":\""+tr.ID+"\"")) || !bytes.Contains(doc, []byte(`"fee":0.75`)) {
		t.Errorf("document lacks the transfer:\n%s", doc)
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
	if got["transfers"] != 1 || got["account_transactions"] != 3 || got["expenses"] != 1 {
		t.Errorf("counts %+v", counts)
	}
	if again := exportOf(t, dst, bob.ID); !bytes.Equal(again, doc) {
		t.Errorf("the restored user exports another document")
	}
	back, err := finance.NewService(dst).GetTransfer(ctx, bob.ID, tr.ID)
	if err != nil || back.FromLineID != tr.FromLineID || back.ToLineID != tr.ToLineID || back.Fee != 75 ||
		back.FeeCategory == nil || *back.FeeCategory != "Miscellaneous" {
		t.Errorf("restored transfer %+v, %v", back, err)
	}
	lines, err := finance.NewService(dst).ListAccountTransactions(ctx, bob.ID, finance.AccountTransactionFilter{Status: "posted",
		Source: finance.SourceTransfer}, finance.ListParams{Page: 1, Limit: 10, SortBy: "date"})
	if err != nil || len(lines.Items) != 2 {
		t.Fatalf("restored lines %+v, %v", lines, err)
	}
	var others []string
	for _, l := range lines.Items {
		others = append(others, l.AccountName+"->"+l.Transfer.OtherAccountName)
	}
	if s := strings.Join(others, " "); s != "BPI->GCash GCash->BPI" && s != "GCash->BPI BPI->GCash" {
		t.Errorf("restored lines link %s", s)
	}
	for id, want := range map[string]string{bpi.ID: "69.25", gcash.ID: "30.00"} {
		if a, err := finance.NewService(dst).GetAccount(ctx, bob.ID, id); err != nil || a.CurrentBalance.String() != want {
			t.Errorf("restored balance %+v, %v; want %s", a, err, want)
		}
	}
}
