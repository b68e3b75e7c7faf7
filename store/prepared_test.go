package store

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/uptrace/bun"

	"github.com/finance-app/finance/finance"
)

// The prepared statements of hotStatements must write and read exactly what
// the bun queries do.

func openPrepared(t *testing.T) (*DB, finance.User) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(filepath.Join(t.TempDir(), FileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 3, 10, 20, 0, 0, 0, time.UTC)
	u := finance.User{ID: finance.NewID(), Email: "prepared@example.com", Name: "P", Plan: finance.PlanPro, CreatedAt: at, UpdatedAt: at}
	if err := db.CreateUser(ctx, u, "hash"); err != nil {
		t.Fatal(err)
	}
	return db, u
}

func TestExpenseInsertColumnsCoverTheTable(t *testing.T) {
	db, _ := openPrepared(t)
	var cols []string
	if err := db.reader.NewRaw("SELECT name FROM pragma_table_info('expenses')").Scan(context.Background(), &cols); err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, c := range strings.Split(expenseColumns+", user_seq", ",") {
		listed = append(listed, strings.TrimSpace(c))
	}
	slices.Sort(cols)
	slices.Sort(listed)
	if diff := cmp.Diff(cols, listed); diff != "" {
		t.Errorf("expenseColumns and the expenses table differ (-table +listed):\n%s", diff)
	}
}

func TestPreparedStatementsMatchBun(t *testing.T) {
	ctx := context.Background()
	db, u := openPrepared(t)
	acc := finance.Account{ID: finance.NewID(), Name: "BPI", Type: finance.AccountSavings, Status: finance.StatusActive, Currency: "PHP",
		CreatedAt: time.Now().UTC().Truncate(time.Second), UpdatedAt: time.Now().UTC().Truncate(time.Second)}
	var cat finance.Category
	err := db.Write(ctx, func(tx finance.Repo) error {
		if err := tx.InsertAccount(ctx, u.ID, acc); err != nil {
			return err
		}
		var err error
		cat, err = tx.ActiveCategoryByName(ctx, u.ID, finance.KindExpense, " GROCERIES ") // prepared
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	viaBun, err := db.Read().ActiveCategoryByName(ctx, u.ID, finance.KindExpense, "groceries")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(viaBun, cat); diff != "" || cat.Name != "Groceries" {
		t.Errorf("category (-bun +prepared):\n%s", diff)
	}
	err = db.Write(ctx, func(tx finance.Repo) error {
		_, err := tx.ActiveCategoryByName(ctx, u.ID, finance.KindIncome, "groceries")
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "category not found") {
		t.Errorf("unknown name through the prepared lookup: %v", err)
	}

	at := time.Date(2025, 3, 10, 20, 0, 0, 0, time.UTC)
	voided := at.Add(time.Hour)
	notes, line, yen, orig := "n", finance.NewID(), "JPY", finance.Money(1234500)
	full := finance.Expense{Amount: 123_45, Currency: "PHP", OriginalAmount: &orig, OriginalCurrency: &yen, Date: finance.NewDate(2025, 3, 1), Description: "full", CategoryID: &cat.ID,
		PaymentMethod: finance.MethodAccountDebit, AccountID: &acc.ID, Notes: &notes, Status: finance.StatusVoided,
		Source: finance.ExpenseManual, AccountTransactionID: &line, VoidedAt: &voided, CreatedAt: at, UpdatedAt: at}
	bare := finance.Expense{Amount: 1, Currency: "USD", Date: finance.NewDate(2025, 3, 2), Description: "bare", PaymentMethod: finance.MethodCash,
		Status: finance.StatusActive, Source: finance.ExpenseBillPayment, CreatedAt: at, UpdatedAt: at}
	for _, e := range []finance.Expense{full, bare} {
		prepared, plain := e, e
		prepared.ID, plain.ID = finance.NewID(), finance.NewID()
		err := db.Write(ctx, func(tx finance.Repo) error { return tx.InsertExpense(ctx, u.ID, prepared) })
		if err == nil {
			err = db.tx(ctx, func(ctx context.Context, tx bun.Tx) error { return ledger{db: tx}.InsertExpense(ctx, u.ID, plain) })
		}
		if err != nil {
			t.Fatal(err)
		}
		a, err := db.Read().Expense(ctx, u.ID, prepared.ID)
		if err != nil {
			t.Fatal(err)
		}
		b, err := db.Read().Expense(ctx, u.ID, plain.ID)
		if err != nil {
			t.Fatal(err)
		}
		b.ID = a.ID
		if diff := cmp.Diff(b, a, cmpopts.EquateComparable(finance.Date{})); diff != "" {
			t.Errorf("%s: (-bun +prepared):\n%s", e.Description, diff)
		}
		var raw []string
		err = db.reader.NewRaw("SELECT created_at || '|' || COALESCE(voided_at, '') FROM expenses WHERE id IN (?, ?) ORDER BY description",
			prepared.ID, plain.ID).Scan(ctx, &raw)
		if err != nil || len(raw) != 2 || raw[0] != raw[1] {
			t.Errorf("%s: stored timestamps differ: %q (%v)", e.Description, raw, err)
		}
	}
}
