package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/store"
)

// importFixture is a user with an account and a card, on a service whose
// today is 2026-11-20 in the user's timezone.
type importFixture struct {
	t    *testing.T
	ctx  context.Context
	db   *store.DB
	svc  *finance.Service
	user finance.User
	acct finance.Account
	card finance.CreditCard
}

func newImportFixture(t *testing.T) *importFixture {
	t.Helper()
	db := openDB(t)
	svc := finance.NewService(db)
	svc.SetClock(func() time.Time { return time.Date(2026, 11, 20, 4, 0, 0, 0, time.UTC) })
	f := &importFixture{t: t, ctx: finance.WithActor(context.Background(), finance.WebActor), db: db, svc: svc,
		user: createUser(t, db, "importer@example.com")}
	var err error
	f.acct, err = svc.CreateAccount(f.ctx, f.user.ID, finance.AccountRequest{Name: finance.Of("BPI Savings"),
		Type: finance.Of("savings"), OpeningBalance: finance.Of(finance.Money(100000_00))})
	f.must(err)
	f.card, err = svc.CreateCreditCard(f.ctx, f.user.ID, finance.CardRequest{Name: finance.Of("Visa"),
		CreditLimit: finance.Of(finance.Money(100000_00)), StatementDay: finance.Of(15), DueDay: finance.Of(5)})
	f.must(err)
	return f
}

func (f *importFixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *importFixture) count(query string, args ...any) int {
	f.t.Helper()
	n, err := f.db.QueryInt(f.ctx, query, args...)
	f.must(err)
	return n
}

func row(line int, date, amount, direction, desc string) finance.ImportFileRow {
	d, err := finance.ParseDate(date)
	if err != nil {
		panic(err)
	}
	m, err := finance.ParseMoney(amount)
	if err != nil {
		panic(err)
	}
	return finance.ImportFileRow{Line: line, Date: d, Amount: m, Direction: direction, Description: desc}
}

// bankCSV is the file of domain.md's worked example.
func bankCSV() finance.ImportFile {
	return finance.ImportFile{Name: "bpi.csv", Format: "csv", Encoding: "utf-8", Rows: []finance.ImportFileRow{
		row(2, "2026-11-02", "150.00", "debit", "STARBUCKS"),
		row(3, "2026-11-02", "150.00", "debit", "STARBUCKS"),
		row(4, "2026-11-06", "2500.00", "debit", "MERALCO BILLS PAYMENT"),
		row(5, "2026-11-07", "30000.00", "credit", "PAYROLL"),
	}}
}

func (f *importFixture) rows(id string) []string {
	f.t.Helper()
	page, err := f.svc.ListImportRows(f.ctx, f.user.ID, id, finance.ImportRowFilter{}, finance.ListParams{Page: 1, Limit: 100, SortBy: "line"})
	f.must(err)
	return testkit.ImportRows(page.Items)
}

func TestImportAccountPreviewCommitReimportRevert(t *testing.T) {
	f := newImportFixture(t)
	coffee, err := f.svc.CreateExpense(f.ctx, f.user.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(150_00)),
		Date: finance.Of(finance.NewDate(2026, 11, 2)), Description: finance.Of("Coffee"), Category: finance.Of("Food & Dining"),
		PaymentMethod: finance.Of("Account Debit"), AccountID: finance.Of(f.acct.ID)})
	f.must(err)
	_, err = f.svc.CreateExpense(f.ctx, f.user.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(2500_00)),
		Date: finance.Of(finance.NewDate(2026, 11, 5)), Description: finance.Of("Meralco"), Category: finance.Of("Utilities"),
		PaymentMethod: finance.Of("Account Debit"), AccountID: finance.Of(f.acct.ID)})
	f.must(err)
	before := f.count("SELECT COUNT(*) FROM account_transactions")

	target := finance.ImportTargetRequest{AccountID: f.acct.ID}
	b, err := f.svc.PreviewImport(f.ctx, f.user.ID, target, bankCSV())
	f.must(err)
	want := []string{
		"2 skip expense exact Miscellaneous/default",
		"3 create expense Miscellaneous/default",
		"4 skip expense probable Miscellaneous/default",
		"5 create income Other Income/default",
	}
	if diff := cmp.Diff(want, f.rows(b.ID)); diff != "" {
		t.Errorf("preview rows (-want +got):\n%s", diff)
	}
	if s := b.Summary; s.Rows != 4 || s.New != 2 || s.Duplicates != 2 || s.Errors != 0 ||
		s.DebitTotal != 2800_00 || s.CreditTotal != 30000_00 {
		t.Errorf("summary = %+v", s)
	}
	if n := f.count("SELECT COUNT(*) FROM account_transactions"); n != before {
		t.Errorf("a preview wrote %d account lines", n-before)
	}

	// The person sets a category; it is the row's own choice from then on.
	r, err := f.svc.UpdateImportRow(f.ctx, f.user.ID, b.ID, 3, finance.ImportRowRequest{Category: finance.Of("food & dining")})
	f.must(err)
	if *r.Category != "Food & Dining" || *r.CategoryReason != finance.ReasonSet {
		t.Errorf("row 3 category = %s (%s)", *r.Category, *r.CategoryReason)
	}

	b, err = f.svc.CommitImport(f.ctx, f.user.ID, b.ID, nil)
	f.must(err)
	if b.Status != finance.ImportCommitted || b.Summary.Created != 2 {
		t.Errorf("commit: status %s, created %d", b.Status, b.Summary.Created)
	}
	if n := f.count("SELECT COUNT(*) FROM expenses WHERE source = 'import' AND description = 'STARBUCKS' AND category_id IS NOT NULL"); n != 1 {
		t.Errorf("imported expenses = %d, want 1", n)
	}
	if n := f.count("SELECT COUNT(*) FROM income WHERE description = 'PAYROLL' AND status = 'active'"); n != 1 {
		t.Errorf("imported income = %d, want 1", n)
	}
	acct, err := f.svc.GetAccount(f.ctx, f.user.ID, f.acct.ID)
	f.must(err)
	if want := finance.Money(100000_00 - 150_00 - 2500_00 - 150_00 + 30000_00); acct.CurrentBalance != want {
		t.Errorf("balance after commit = %s, want %s", acct.CurrentBalance, want)
	}
	if n := f.count("SELECT COUNT(*) FROM activity WHERE summary LIKE ?", `%(import `+b.ID+` of "bpi.csv")`); n != 2 {
		t.Errorf("activity entries naming the batch = %d, want 2", n)
	}
	if _, err := f.svc.CommitImport(f.ctx, f.user.ID, b.ID, nil); !errors.Is(err, finance.ErrInvalidStatus) {
		t.Errorf("second commit: %v, want INVALID_STATUS", err)
	}

	// The same file again creates nothing.
	again, err := f.svc.PreviewImport(f.ctx, f.user.ID, target, bankCSV())
	f.must(err)
	if again.Summary.New != 0 || again.Summary.Duplicates != 4 {
		t.Errorf("re-import summary = %+v, want nothing new", again.Summary)
	}
	f.must(f.svc.DeleteImport(f.ctx, f.user.ID, again.ID))
	if n := f.count("SELECT COUNT(*) FROM import_rows WHERE batch_id = ?", again.ID); n != 0 {
		t.Errorf("a deleted preview left %d rows", n)
	}

	// Revert restores the balance and voids what the commit created.
	b, err = f.svc.RevertImport(f.ctx, f.user.ID, b.ID, nil)
	f.must(err)
	if b.Status != finance.ImportReverted {
		t.Errorf("revert: status %s", b.Status)
	}
	acct, err = f.svc.GetAccount(f.ctx, f.user.ID, f.acct.ID)
	f.must(err)
	if want := finance.Money(100000_00 - 150_00 - 2500_00); acct.CurrentBalance != want {
		t.Errorf("balance after revert = %s, want %s", acct.CurrentBalance, want)
	}
	if n := f.count("SELECT COUNT(*) FROM expenses WHERE source = 'import' AND status = 'active'"); n != 0 {
		t.Errorf("active imported expenses after revert = %d", n)
	}
	if _, err := f.svc.GetExpense(f.ctx, f.user.ID, coffee.ID); err != nil {
		t.Errorf("the typed coffee: %v", err)
	}
	// A reverted batch's rows match nothing: the file can come in again.
	third, err := f.svc.PreviewImport(f.ctx, f.user.ID, target, bankCSV())
	f.must(err)
	if third.Summary.New != 2 {
		t.Errorf("after revert, new = %d, want 2", third.Summary.New)
	}
}

func TestImportRevertRefusedAfterAnEdit(t *testing.T) {
	f := newImportFixture(t)
	b, err := f.svc.PreviewImport(f.ctx, f.user.ID, finance.ImportTargetRequest{AccountID: f.acct.ID}, bankCSV())
	f.must(err)
	b, err = f.svc.CommitImport(f.ctx, f.user.ID, b.ID, nil)
	f.must(err)
	var expenseID string
	page, err := f.svc.ListImportRows(f.ctx, f.user.ID, b.ID, finance.ImportRowFilter{Action: "create"}, finance.ListParams{Page: 1, Limit: 10})
	f.must(err)
	expenseID = *page.Items[0].CreatedID
	_, err = f.svc.UpdateExpense(f.ctx, f.user.ID, expenseID, finance.ExpenseRequest{Description: finance.Of("Starbucks Ayala")})
	f.must(err)
	lines := f.count("SELECT COUNT(*) FROM account_transactions WHERE status = 'posted'")

	_, err = f.svc.RevertImport(f.ctx, f.user.ID, b.ID, nil)
	if !errors.Is(err, finance.ErrInvalidStatus) {
		t.Fatalf("revert after an edit: %v, want INVALID_STATUS", err)
	}
	if fields := finance.FieldsOf(err); fields["rows[2]"] == "" {
		t.Errorf("fields = %v, want the edited row named", fields)
	}
	if n := f.count("SELECT COUNT(*) FROM account_transactions WHERE status = 'posted'"); n != lines {
		t.Errorf("a refused revert voided %d lines", lines-n)
	}
	got, err := f.svc.GetImport(f.ctx, f.user.ID, b.ID)
	f.must(err)
	if got.Status != finance.ImportCommitted {
		t.Errorf("status after a refused revert = %s", got.Status)
	}
}

// domain.md's worked example of a card's history: four charges give the
// two statements the bank produced.
func TestImportCardHistoryProducesTheBanksStatements(t *testing.T) {
	f := newImportFixture(t)
	file := finance.ImportFile{Name: "visa.csv", Format: "csv", Encoding: "utf-8", Rows: []finance.ImportFileRow{
		row(2, "2026-09-03", "1000.00", "debit", "Shell"),
		row(3, "2026-09-20", "200.00", "debit", "Grab"),
		row(4, "2026-10-02", "300.00", "debit", "Lazada"),
		row(5, "2026-11-18", "400.00", "debit", "Netflix"),
		row(6, "2026-10-05", "5000.00", "credit", "PAYMENT - THANK YOU"),
	}}
	b, err := f.svc.PreviewImport(f.ctx, f.user.ID, finance.ImportTargetRequest{CardID: f.card.ID}, file)
	f.must(err)
	if got := f.rows(b.ID)[4]; got != "6 skip card_refund Miscellaneous/default" {
		t.Errorf("the card payment's row = %q, want skipped", got)
	}
	_, err = f.svc.CommitImport(f.ctx, f.user.ID, b.ID, nil)
	f.must(err)
	card, err := f.svc.GetCreditCard(f.ctx, f.user.ID, f.card.ID)
	f.must(err)
	if card.CycleStartDate != finance.NewDate(2026, 8, 16) {
		t.Errorf("cycle_start_date = %s, want 2026-08-16", card.CycleStartDate)
	}
	type stmt struct {
		Date  string
		Count int
		Total int
	}
	var got []stmt
	soas, err := f.svc.ListSOAs(f.ctx, f.user.ID, finance.SOAFilter{CardID: f.card.ID}, finance.ListParams{Page: 1, Limit: 10, SortBy: "statement_date"})
	f.must(err)
	for _, a := range soas.Items {
		got = append(got, stmt{a.StatementDate.String(), a.TransactionCount, int(a.StatementBalance)})
	}
	want := []stmt{{"2026-09-15", 1, 1000_00}, {"2026-10-15", 2, 500_00}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statements (-want +got):\n%s", diff)
	}
	if n := f.count("SELECT COUNT(*) FROM card_transactions WHERE credit_card_id = ? AND status = 'unbilled'", f.card.ID); n != 1 {
		t.Errorf("unbilled rows = %d, want 1 (the 11-18 charge)", n)
	}

	// Reverting takes the statements back with the rows.
	_, err = f.svc.RevertImport(f.ctx, f.user.ID, b.ID, nil)
	f.must(err)
	if n := f.count("SELECT COUNT(*) FROM soas WHERE credit_card_id = ? AND status <> 'voided'", f.card.ID); n != 0 {
		t.Errorf("live statements after revert = %d", n)
	}
	if n := f.count("SELECT COUNT(*) FROM card_transactions WHERE credit_card_id = ? AND status <> 'voided'", f.card.ID); n != 0 {
		t.Errorf("live card rows after revert = %d", n)
	}
}

func TestImportCommitRefusesARowWithoutCategory(t *testing.T) {
	f := newImportFixture(t)
	b, err := f.svc.PreviewImport(f.ctx, f.user.ID, finance.ImportTargetRequest{AccountID: f.acct.ID}, bankCSV())
	f.must(err)
	// Miscellaneous is archived between the preview and the commit.
	cats, err := f.svc.CategoryOptions(f.ctx, f.user.ID, finance.KindExpense)
	f.must(err)
	for _, c := range cats {
		if c.Name == "Miscellaneous" {
			_, err = f.svc.ArchiveCategory(f.ctx, f.user.ID, c.ID)
			f.must(err)
		}
	}
	_, err = f.svc.CommitImport(f.ctx, f.user.ID, b.ID, nil)
	var ve *finance.ValidationError
	if !errors.As(err, &ve) || ve.Fields["rows[3].category"] == "" {
		t.Fatalf("commit: %v, want rows[3].category", err)
	}
	if n := f.count("SELECT COUNT(*) FROM income"); n != 0 {
		t.Errorf("a refused commit wrote %d income", n)
	}
}

// A preview is kept for 7 days: the next preview removes older ones, and
// committed batches stay.
func TestImportPreviewsExpireAfterSevenDays(t *testing.T) {
	f := newImportFixture(t)
	target := finance.ImportTargetRequest{AccountID: f.acct.ID}
	old, err := f.svc.PreviewImport(f.ctx, f.user.ID, target, bankCSV())
	f.must(err)
	kept, err := f.svc.PreviewImport(f.ctx, f.user.ID, target, bankCSV())
	f.must(err)
	_, err = f.svc.CommitImport(f.ctx, f.user.ID, kept.ID, nil)
	f.must(err)

	f.svc.SetClock(func() time.Time { return time.Date(2026, 11, 27, 4, 0, 1, 0, time.UTC) }) // 7 days and a second later
	_, err = f.svc.PreviewImport(f.ctx, f.user.ID, target, bankCSV())
	f.must(err)
	if _, err := f.svc.GetImport(f.ctx, f.user.ID, old.ID); !errors.Is(err, finance.ErrNotFound) {
		t.Errorf("an 8-day-old preview: %v, want it removed", err)
	}
	if n := f.count("SELECT COUNT(*) FROM import_rows WHERE batch_id = ?", old.ID); n != 0 {
		t.Errorf("the removed preview left %d rows", n)
	}
	if b, err := f.svc.GetImport(f.ctx, f.user.ID, kept.ID); err != nil || b.Status != finance.ImportCommitted {
		t.Errorf("the committed batch: %v %v, want it kept", b.Status, err)
	}
}

// A revert names the batch's ids in its statements, a few thousand at a
// time: a batch of several statements' worth is voided whole, and the
// account's balance is what it was before the commit.
func TestRevertVoidsABatchOfSeveralStatements(t *testing.T) {
	store.SetVoidChunk(t, 10)
	f := newImportFixture(t)
	file := finance.ImportFile{Name: "history.csv", Format: "csv", Encoding: "utf-8"}
	for i := range 25 {
		direction := "debit"
		if i%3 == 2 {
			direction = "credit"
		}
		file.Rows = append(file.Rows, row(i+2, fmt.Sprintf("2026-10-%02d", 1+i), fmt.Sprintf("%d.25", 10+i), direction,
			fmt.Sprintf("PAYEE %d", i)))
	}
	b, err := f.svc.PreviewImport(f.ctx, f.user.ID, finance.ImportTargetRequest{AccountID: f.acct.ID}, file)
	f.must(err)
	_, err = f.svc.CommitImport(f.ctx, f.user.ID, b.ID, nil)
	f.must(err)
	// What the batch wrote, by status: its lines, expenses and income.
	lines := "SELECT COUNT(*) FROM account_transactions AS t JOIN import_rows AS r ON r.row_id = t.id WHERE r.batch_id = ? AND t.status = ?"
	records := func(table string) string {
		return "SELECT COUNT(*) FROM " + table + " AS x JOIN import_rows AS r ON r.record_id = x.id WHERE r.batch_id = ? AND x.status = ?"
	}
	if n := f.count(lines, b.ID, "posted"); n != 25 {
		t.Fatalf("posted lines of the batch after the commit = %d, want 25", n)
	}
	_, err = f.svc.RevertImport(f.ctx, f.user.ID, b.ID, nil)
	f.must(err)
	for _, c := range []struct {
		query, status string
		want          int
	}{
		{lines, "posted", 0}, {lines, "voided", 25},
		{records("expenses"), "active", 0}, {records("expenses"), "voided", 17},
		{records("income"), "active", 0}, {records("income"), "voided", 8},
	} {
		if n := f.count(c.query, b.ID, c.status); n != c.want {
			t.Errorf("%s (%s) = %d after the revert, want %d", c.query, c.status, n, c.want)
		}
	}
	acct, err := f.svc.GetAccount(f.ctx, f.user.ID, f.acct.ID)
	f.must(err)
	if acct.CurrentBalance != finance.Money(100000_00) {
		t.Errorf("balance after the revert = %s, want the opening 100,000.00", acct.CurrentBalance)
	}
}
