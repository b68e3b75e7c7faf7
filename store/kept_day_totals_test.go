package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

// beforeKeptDayTotals is the last migration before the kept expense totals
// were merged into the day rows of spending_days.
const beforeKeptDayTotals = "20261215000200"

// keptTotalsBefore and keptTotalsAfter read the same sums from the tables
// before and after the merge, in key order: the spending lines per day and
// key; each expense once, per day and method (expense_days); each expense
// line, per day and category (expense_category_days); and both per month
// (expense_months, expense_category_months); and the count and total of
// each user's expenses per status, which are now kept per currency too.
// Rows that an edit or a void emptied (0 in 0) count nothing.
var keptTotalsBefore = map[string]string{
	"spending": `SELECT user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines FROM spending_days
		WHERE lines <> 0 OR amount <> 0 ORDER BY 1, 2, 3, 4, 5, 6`,
	"expenses by day and method": `SELECT user_id, date, currency, payment_method, amount, count FROM expense_days
		WHERE count <> 0 OR amount <> 0 ORDER BY 1, 2, 3, 4`,
	"expense lines by day and category": `SELECT user_id, date, currency, category_id, amount, count FROM expense_category_days
		WHERE count <> 0 OR amount <> 0 ORDER BY 1, 2, 3, 4`,
	"expenses by month and method": `SELECT user_id, month, currency, payment_method, amount, count FROM expense_months
		WHERE count <> 0 OR amount <> 0 ORDER BY 1, 2, 3, 4`,
	"expense lines by month and category": `SELECT user_id, month, currency, category_id, amount, count FROM expense_category_months
		WHERE count <> 0 OR amount <> 0 ORDER BY 1, 2, 3, 4`,
	"expense counts": `SELECT user_id, status, n, total FROM expense_counts ORDER BY 1, 2`,
}

var keptTotalsAfter = map[string]string{
	"spending": `SELECT user_id, date, currency, category_id, payment_method, credit_card_id, amount, lines FROM spending_days
		WHERE lines <> 0 OR amount <> 0 ORDER BY 1, 2, 3, 4, 5, 6`,
	"expenses by day and method": `SELECT user_id, date, currency, payment_method, SUM(expense_amount) AS amount, SUM(expense_count) AS count
		FROM spending_days GROUP BY 1, 2, 3, 4 HAVING SUM(expense_count) <> 0 OR SUM(expense_amount) <> 0 ORDER BY 1, 2, 3, 4`,
	"expense lines by day and category": `SELECT user_id, date, currency, category_id, SUM(expense_line_amount) AS amount, SUM(expense_lines) AS count
		FROM spending_days GROUP BY 1, 2, 3, 4 HAVING SUM(expense_lines) <> 0 OR SUM(expense_line_amount) <> 0 ORDER BY 1, 2, 3, 4`,
	"expenses by month and method": `SELECT user_id, month, currency, payment_method, SUM(expense_amount) AS amount,
		SUM(expense_count) AS count FROM expense_months GROUP BY 1, 2, 3, 4 HAVING SUM(expense_count) <> 0 OR SUM(expense_amount) <> 0 ORDER BY 1, 2, 3, 4`,
	"expense lines by month and category": `SELECT user_id, month, currency, category_id, SUM(expense_line_amount) AS amount,
		SUM(expense_lines) AS count FROM expense_months GROUP BY 1, 2, 3, 4 HAVING SUM(expense_lines) <> 0 OR SUM(expense_line_amount) <> 0 ORDER BY 1, 2, 3, 4`,
	"expense counts": `SELECT user_id, status, SUM(n) AS n, SUM(total) AS total FROM expense_counts GROUP BY 1, 2 ORDER BY 1, 2`,
}

// A database written before the merge (two users, one in PHP and one in
// USD, each with expenses of every method over three months, a split, an
// edit, a void, a card fee, a refund and a loan payment with interest)
// keeps every total through the migration: the merged rows, grouped as the
// readers group them, give the sums the five tables held; the expenses and
// every list order are unchanged; the summaries equal a recount of the
// rows. Then the one trigger pass goes on keeping them through creates,
// splits, edits, voids and a delete.
func TestKeptDayTotalsMigrationKeepsEveryTotal(t *testing.T) {
	ctx := context.Background()
	db := openThrough(t, beforeKeptDayTotals)
	svc := finance.NewService(db)
	svc.SetClock(func() time.Time { return time.Date(2025, 3, 20, 4, 0, 0, 0, time.UTC) })
	ana, ben := createUser(t, db, "ana@example.com"), createUser(t, db, "ben@example.com")
	if _, err := svc.UpdateAppSettings(ctx, ben.ID, finance.AppSettingsRequest{Currency: finance.Of("USD")}); err != nil {
		t.Fatal(err)
	}
	for _, u := range []finance.User{ana, ben} {
		fillHousehold(t, svc, u.ID)
	}
	payLoanInterest(t, svc, ana.ID)

	snapshot := func(queries map[string]string) map[string][]map[string]any {
		t.Helper()
		out := map[string][]map[string]any{}
		for name, q := range queries {
			var rows []map[string]any
			if err := db.ReaderScan(ctx, &rows, q); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[name] = rows
		}
		return out
	}
	rows := map[string]string{
		"expenses": "SELECT * FROM expenses ORDER BY id",
		"splits":   "SELECT * FROM expense_splits ORDER BY id",
	}
	before, beforeRows := snapshot(keptTotalsBefore), snapshot(rows)
	for name, want := range map[string]int{"spending": 20, "expenses by month and method": 10, "expense lines by month and category": 10} {
		if n := len(before[name]); n < want {
			t.Fatalf("%s: %d rows before the migration, want at least %d", name, n, want)
		}
	}
	type listCase struct {
		user, status, sortBy string
		desc                 bool
	}
	sortCols := map[string]string{"date": "date", "amount": "amount", "description": "description COLLATE NOCASE", "created_at": "created_at"}
	wantOrder := map[listCase][]string{}
	for _, u := range []finance.User{ana, ben} {
		for _, status := range []string{finance.StatusActive, finance.StatusVoided} {
			for sortBy, col := range sortCols {
				for _, desc := range []bool{false, true} {
					dir := " ASC"
					if desc {
						dir = " DESC"
					}
					var ids []string
					if err := db.ReaderScan(ctx, &ids, "SELECT id FROM expenses WHERE user_id = ? AND status = ? ORDER BY "+
						col+dir+", id"+dir, u.ID, status); err != nil {
						t.Fatal(err)
					}
					wantOrder[listCase{u.ID, status, sortBy, desc}] = ids
				}
			}
		}
	}

	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(before, snapshot(keptTotalsAfter)); d != "" {
		t.Errorf("kept totals changed by the migration (-before +after):\n%s", d)
	}
	if d := cmp.Diff(beforeRows, snapshot(rows)); d != "" {
		t.Errorf("rows changed by the migration (-before +after):\n%s", d)
	}
	var gone []string
	if err := db.ReaderScan(ctx, &gone, `SELECT name FROM sqlite_schema WHERE name IN
		('expense_days', 'expense_category_days', 'expense_category_months')
		OR (type = 'trigger' AND sql LIKE '%expense_days%')`); err != nil || len(gone) > 0 {
		t.Errorf("left behind: %v (%v)", gone, err)
	}
	for c, want := range wantOrder {
		var got []string
		for page := 1; ; page++ {
			p, err := svc.ListExpenses(ctx, c.user, finance.ExpenseFilter{Status: c.status},
				finance.ListParams{Page: page, Limit: 7, SortBy: c.sortBy, Desc: c.desc})
			if err != nil {
				t.Fatal(err)
			}
			if p.Pagination.TotalItems != len(want) {
				t.Errorf("%+v: total_items %d, want %d", c, p.Pagination.TotalItems, len(want))
			}
			for _, e := range p.Items {
				got = append(got, e.ID)
			}
			if len(p.Items) < 7 {
				break
			}
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("%+v: list order changed (-before +after):\n%s", c, d)
		}
	}
	checkKeptTotals(t, db, svc, []finance.User{ana, ben}, "after the migration")

	// The one trigger pass keeps the merged rows through every kind of write.
	for _, u := range []finance.User{ana, ben} {
		fillHousehold(t, svc, u.ID)
	}
	checkKeptTotals(t, db, svc, []finance.User{ana, ben}, "after writes")
	split, err := svc.CreateExpense(ctx, ana.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(90_00)),
		Date: finance.Of(finance.NewDate(2025, 3, 14)), Description: finance.Of("to delete"), Category: finance.Of("Groceries"),
		PaymentMethod: finance.Of(finance.MethodCash)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SplitExpense(ctx, ana.ID, split.ID, finance.SplitRequest{Parts: []finance.SplitPart{
		{Amount: finance.Of(finance.Money(30_00)), Category: finance.Of("Groceries")},
		{Amount: finance.Of(finance.Money(60_00)), Category: finance.Of("Shopping")}}}); err != nil {
		t.Fatal(err)
	}
	// A split expense's date and amount move with its parts.
	if _, err := svc.UpdateExpense(ctx, ana.ID, split.ID, finance.ExpenseRequest{Date: finance.Of(finance.NewDate(2025, 2, 14))}); err != nil {
		t.Fatal(err)
	}
	checkKeptTotals(t, db, svc, []finance.User{ana, ben}, "after a split expense moved")
	if err := db.WriterExec(ctx, "DELETE FROM expenses WHERE id = ?", split.ID); err != nil {
		t.Fatal(err)
	}
	checkKeptTotals(t, db, svc, []finance.User{ana, ben}, "after a split expense was deleted")
}

// checkKeptTotals fails t unless the kept totals equal their rows
// (TotalsDrift) and each user's expense summary of whole and partial months
// equals a recount of the rows.
func checkKeptTotals(t *testing.T, db interface {
	TotalsDrift(context.Context) ([]string, error)
	RecountExpenseTotals(context.Context, string, finance.Date, finance.Date) (finance.ExpenseTotals, error)
}, svc *finance.Service, users []finance.User, when string) {
	t.Helper()
	ctx := context.Background()
	if drift, err := db.TotalsDrift(ctx); err != nil || len(drift) > 0 {
		t.Errorf("%s: TotalsDrift = %v, %v", when, drift, err)
	}
	for _, u := range users {
		for _, r := range [][2]finance.Date{
			{finance.NewDate(2025, 1, 1), finance.NewDate(2025, 3, 31)},
			{finance.NewDate(2025, 1, 15), finance.NewDate(2025, 3, 12)},
			{finance.NewDate(2025, 3, 10), finance.NewDate(2025, 3, 10)},
		} {
			got, err := svc.ExpenseSummary(ctx, u.ID, r[0], r[1])
			if err != nil {
				t.Fatal(err)
			}
			want, err := db.RecountExpenseTotals(ctx, u.ID, r[0], r[1])
			if err != nil {
				t.Fatal(err)
			}
			if got.TotalExpenses != want.Total || got.Count != want.Count {
				t.Errorf("%s: %s %v..%v: summary %v in %d, the rows %v in %d", when, u.Email, r[0], r[1],
					got.TotalExpenses, got.Count, want.Total, want.Count)
			}
			gotCats := map[string]finance.Money{}
			for _, c := range got.ByCategory {
				if c.Count != 0 {
					gotCats[c.Category] = c.Amount
				}
			}
			wantCats := map[string]finance.Money{}
			for _, c := range want.ByCategory {
				wantCats[c.Category] = c.Amount
			}
			if d := cmp.Diff(wantCats, gotCats); d != "" {
				t.Errorf("%s: %s %v..%v: by category (-rows +summary):\n%s", when, u.Email, r[0], r[1], d)
			}
			gotMethods := map[string]finance.Money{}
			for _, m := range got.ByPaymentMethod {
				if m.Count != 0 {
					gotMethods[m.PaymentMethod] = m.Amount
				}
			}
			wantMethods := map[string]finance.Money{}
			for _, m := range want.ByMethod {
				wantMethods[m.PaymentMethod] = m.Amount
			}
			if d := cmp.Diff(wantMethods, gotMethods); d != "" {
				t.Errorf("%s: %s %v..%v: by method (-rows +summary):\n%s", when, u.Email, r[0], r[1], d)
			}
		}
	}
}

// payLoanInterest gives the user a loan with interest and pays its first
// instance, so that a spending line of loan interest is kept.
func payLoanInterest(t *testing.T, svc *finance.Service, userID string) {
	t.Helper()
	ctx := context.Background()
	var req finance.LoanRequest
	if err := json.Unmarshal([]byte(`{"name":"Car","principal":12000,"interest_type":"add_on","interest_rate":1,`+
		`"term_months":12,"start_date":"2025-01-15"}`), &req); err != nil {
		t.Fatal(err)
	}
	loan, err := svc.CreateLoan(ctx, userID, req)
	if err != nil {
		t.Fatal(err)
	}
	var pay finance.LoanPaymentRequest
	if err := json.Unmarshal([]byte(fmt.Sprintf(`{"amount":1120,"date":%q}`, "2025-02-15")), &pay); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.PayLoanInstance(ctx, userID, loan.Instances[0].ID, pay); err != nil {
		t.Fatal(err)
	}
}
