package store_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// Every index on expenses is there for a query; each case below runs a real
// store read and checks that its expense query seeks the index it needs, and
// that a list page is read in index order (no sort of the user's rows). A
// new query that needs an index, or an index no case proves, shows up here.
func TestExpenseQueryPlans(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	sqliteOnly(t, db)
	svc := finance.NewService(db)
	u := createUser(t, db, "plans@example.com")
	fx := seedLedger(t, db, svc, u)
	repo := db.Read()
	from, to := finance.NewDate(2025, 1, 1), finance.NewDate(2025, 12, 31)
	page := func(sortBy string) finance.ListParams {
		return finance.ListParams{Page: 2, Limit: 5, SortBy: sortBy, Desc: true}
	}
	list := func(f finance.ExpenseFilter, p finance.ListParams) func() error {
		return func() error {
			if f.Status == "" {
				f.Status = finance.StatusActive
			}
			_, _, err := repo.ListExpenses(ctx, u.ID, "PHP", f, p)
			return err
		}
	}
	type planCase struct {
		name string
		read func() error
		// plan is what the expense query's plan must contain; sorted says
		// whether a query may sort rows instead of reading them in index
		// order.
		plan   string
		sorted bool
	}
	var cases []planCase
	for _, status := range []string{finance.StatusActive, finance.StatusVoided} {
		filter := func(f finance.ExpenseFilter) finance.ExpenseFilter { f.Status = status; return f }
		index := func(name string) string { return "expenses_" + status + "_" + name }
		cases = append(cases,
			planCase{status + " page by date", list(filter(finance.ExpenseFilter{}), page("date")),
				"SEARCH e USING INDEX " + index("date") + " (user_seq=?)", false},
			planCase{status + " page by date in a date range", list(filter(finance.ExpenseFilter{DateFrom: from, DateTo: to}), page("date")),
				"SEARCH e USING INDEX " + index("date") + " (user_seq=? AND date>? AND date<?)", false},
			planCase{status + " page by amount", list(filter(finance.ExpenseFilter{}), page("amount")),
				"SEARCH e USING INDEX " + index("amount") + " (user_seq=?)", false},
			planCase{status + " page by description", list(filter(finance.ExpenseFilter{}), page("description")),
				"SEARCH e USING INDEX " + index("description") + " (user_seq=?)", false},
			planCase{status + " page by created_at", list(filter(finance.ExpenseFilter{}), page("created_at")),
				"SEARCH e USING INDEX " + index("created") + " (user_seq=?)", false},
			// A date range sorted by another key sorts the range's rows; the
			// count reads index entries alone.
			planCase{status + " count in a date range", list(filter(finance.ExpenseFilter{DateFrom: from, DateTo: to}), page("amount")),
				"SEARCH e USING COVERING INDEX " + index("date") + " (user_seq=? AND date>? AND date<?)", true},
			// The page's ids are sorted from the entries of the range alone.
			planCase{status + " category in a date range by amount",
				list(filter(finance.ExpenseFilter{Category: "Groceries", DateFrom: from, DateTo: to}), page("amount")),
				"SEARCH e USING COVERING INDEX " + index("category") + " (user_seq=? AND category_id=? AND date>? AND date<?)", true},
		)
	}
	cases = append(cases,
		planCase{"card", list(finance.ExpenseFilter{CardID: fx.card}, page("date")),
			"SEARCH e USING INDEX expenses_card (credit_card_id=? AND status=?)", false},
		planCase{"account", list(finance.ExpenseFilter{AccountID: fx.account}, page("date")),
			"SEARCH e USING INDEX expenses_account (account_id=? AND status=?)", false},
		planCase{"by id", func() error { _, err := repo.Expense(ctx, u.ID, fx.expenses[0]); return err },
			"SEARCH e USING INDEX sqlite_autoindex_expenses_1 (id=?)", false},
		planCase{"recent choices", func() error { _, err := repo.RecentExpenseChoices(ctx, u.ID, 5); return err },
			"SEARCH e USING INDEX expenses_active_created (user_seq=?)", false},
		// The newest n of the range in index order; the union of those n
		// expenses and n income rows is sorted.
		planCase{"dashboard's recent entries", func() error { _, err := repo.RecentEntries(ctx, u.ID, from, to, 5); return err },
			"SEARCH e USING INDEX expenses_active_date (user_seq=? AND date>? AND date<?)", true},
	)
	var indexes []string
	if err := db.ReaderScan(ctx, &indexes, "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'expenses'"); err != nil {
		t.Fatal(err)
	}
	for _, name := range indexes {
		proven := false
		for _, tc := range cases {
			proven = proven || strings.Contains(tc.plan, " "+name+" ")
		}
		if !proven {
			t.Errorf("no query is shown to need the index %s", name)
		}
	}
	for _, tc := range cases {
		plans, err := db.ReaderPlans(ctx, tc.read)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var matched []string
		for q, plan := range plans {
			if !strings.Contains(plan, "SEARCH e ") && !strings.Contains(plan, "SCAN e") {
				continue // not a query of expenses
			}
			if strings.Contains(plan, tc.plan) {
				matched = append(matched, q)
			}
			if strings.Contains(plan, "SCAN e") {
				t.Errorf("%s: a query scans expenses: %s", tc.name, plan)
			}
			if !tc.sorted && strings.Contains(plan, "TEMP B-TREE FOR ORDER BY") && strings.Contains(q, "ORDER BY") {
				t.Errorf("%s: a page is sorted instead of read in index order: %s", tc.name, plan)
			}
		}
		if len(matched) == 0 {
			var all []string
			for q, plan := range plans {
				all = append(all, fmt.Sprintf("%s\n  => %s", q, plan))
			}
			sort.Strings(all)
			t.Errorf("%s: no query's plan contains %q; plans:\n%s", tc.name, tc.plan, strings.Join(all, "\n"))
		}
	}
}

// ledgerFixture is what seedLedger made.
type ledgerFixture struct {
	account, card string
	expenses      []string // every expense made, in creation order
}

// seedLedger gives u expenses of every kind through the service: Cash,
// Account Debit and Credit Card ones over several dates and categories, a
// split one and a voided one.
func seedLedger(t *testing.T, db *store.DB, svc *finance.Service, u finance.User) ledgerFixture {
	t.Helper()
	ctx := context.Background()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	acct, err := svc.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("Savings"), Type: finance.Of("savings")})
	must(err)
	card, err := svc.CreateCreditCard(ctx, u.ID, finance.CardRequest{Name: finance.Of("Visa"), CreditLimit: finance.Of(finance.Money(100000_00)),
		StatementDay: finance.Of(15), DueDay: finance.Of(5)})
	must(err)
	fx := ledgerFixture{account: acct.ID, card: card.ID}
	cats := []string{"Groceries", "Transportation", "Food & Dining"}
	for i := 0; i < 24; i++ {
		r := finance.ExpenseRequest{Amount: finance.Of(finance.Money(100 + (i*37)%500)), Date: finance.Of(finance.NewDate(2025, time.Month(1+i%12), 1+i%28)),
			Description: finance.Of(fmt.Sprintf("Expense %c%d", 'a'+i%5, i)), Category: finance.Of(cats[i%len(cats)]),
			PaymentMethod: finance.Of(finance.MethodCash)}
		switch i % 3 {
		case 1:
			r.PaymentMethod, r.AccountID = finance.Of(finance.MethodAccountDebit), finance.Of(acct.ID)
		case 2:
			r.PaymentMethod, r.CreditCardID = finance.Of(finance.MethodCreditCard), finance.Of(card.ID)
		}
		e, err := svc.CreateExpense(ctx, u.ID, r)
		must(err)
		fx.expenses = append(fx.expenses, e.ID)
	}
	_, err = svc.SplitExpense(ctx, u.ID, fx.expenses[0], finance.SplitRequest{Parts: []finance.SplitPart{
		{Amount: finance.Of(finance.Money(60)), Category: finance.Of("Groceries")},
		{Amount: finance.Of(finance.Money(40)), Category: finance.Of("Transportation")}}})
	must(err)
	_, err = svc.VoidExpense(ctx, u.ID, fx.expenses[3])
	must(err)
	return fx
}
