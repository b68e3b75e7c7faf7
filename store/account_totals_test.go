package store_test

import (
	"context"
	"testing"

	"github.com/finance-app/finance/finance"
)

// An account's balance reads line totals that triggers keep. After every kind
// of write that posts, edits, moves or voids a line, the balance must equal
// the opening balance plus the sum of the posted lines, recomputed here.
func TestAccountBalanceFollowsEveryLineWrite(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	svc := finance.NewService(db)
	u := createUser(t, db, "alice@example.com")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	newAccount := func(name string) finance.Account {
		a, err := svc.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of(name), Type: finance.Of("savings"),
			OpeningBalance: finance.Of(finance.Money(100_00))})
		must(err)
		return a
	}
	a, b := newAccount("A"), newAccount("B")
	day := finance.Of(finance.NewDate(2025, 3, 1))
	check := func(step string) {
		t.Helper()
		for _, acct := range []finance.Account{a, b} {
			got, err := svc.GetAccount(ctx, u.ID, acct.ID)
			must(err)
			sum, err := db.QueryInt(ctx, `SELECT COALESCE(SUM(CASE WHEN type = 'credit' THEN amount ELSE -amount END), 0)
				FROM account_transactions WHERE account_id = ? AND status = 'posted'`, acct.ID)
			must(err)
			if want := finance.Money(100_00 + sum); got.CurrentBalance != want {
				t.Errorf("after %s: account %s balance %s, want %s", step, acct.Name, got.CurrentBalance, want)
			}
		}
	}

	credit, err := svc.CreateAccountTransaction(ctx, u.ID, a.ID, finance.AccountTransactionRequest{Type: finance.Of("credit"),
		Amount: finance.Of(finance.Money(50_10)), Date: day})
	must(err)
	debit, err := svc.CreateAccountTransaction(ctx, u.ID, a.ID, finance.AccountTransactionRequest{Type: finance.Of("debit"),
		Amount: finance.Of(finance.Money(20_20)), Date: day})
	must(err)
	check("manual lines")
	_, err = svc.UpdateAccountTransaction(ctx, u.ID, a.ID, debit.ID, finance.AccountTransactionRequest{Amount: finance.Of(finance.Money(5_05)),
		Type: finance.Of("credit")})
	must(err)
	check("a line's amount and type edited")
	_, err = svc.VoidAccountTransaction(ctx, u.ID, a.ID, credit.ID)
	must(err)
	check("a line voided")
	in, err := svc.CreateIncome(ctx, u.ID, finance.IncomeRequest{Amount: finance.Of(finance.Money(1000_00)), Date: day,
		Category: finance.Of("Salary"), AccountID: finance.Of(a.ID)})
	must(err)
	check("income into A")
	_, err = svc.UpdateIncome(ctx, u.ID, in.ID, finance.IncomeRequest{AccountID: finance.Of(b.ID), Amount: finance.Of(finance.Money(900_00))})
	must(err)
	check("income moved to B with a new amount")
	e, err := svc.CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(33_33)), Date: day,
		Description: finance.Of("Lunch"), Category: finance.Of("Food & Dining"), PaymentMethod: finance.Of(finance.MethodAccountDebit),
		AccountID: finance.Of(b.ID)})
	must(err)
	check("an expense debited from B")
	_, err = svc.VoidExpense(ctx, u.ID, e.ID)
	must(err)
	_, err = svc.VoidIncome(ctx, u.ID, in.ID)
	must(err)
	check("the expense and the income voided")
	adj, err := svc.AdjustBalance(ctx, u.ID, a.ID, finance.BalanceAdjustmentRequest{TargetBalance: finance.Of(finance.Money(-12_34))})
	must(err)
	check("a balance adjustment")
	if adj.NewBalance != -12_34 {
		t.Errorf("adjusted balance %s, want -12.34", adj.NewBalance)
	}
}
