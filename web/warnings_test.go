package web_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// A form whose write looks like a mistake saves it and shows its warnings
// on the page it redirects to, once, beside the notice (docs/domain.md,
// Warnings); a write with nothing to warn about shows none.
func TestWarningsShownAfterSave(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	acct, err := env.srv.Ledger().CreateAccount(ctx, u.ID, finance.AccountRequest{
		Name: finance.Of("Wallet"), Type: finance.Of("e_wallet"), OpeningBalance: finance.Of(finance.Money(100_00))})
	if err != nil {
		t.Fatal(err)
	}
	token := testkit.CSRF(t, b.Get(web.RecordPath))
	expense := func(amount, description, method string) url.Values {
		return url.Values{"csrf": {token}, "kind": {"expense"}, "amount": {amount}, "date": {"2025-03-14"},
			"description": {description}, "category": {"Food & Dining"}, "payment_method": {method}, "account_id": {acct.ID}}
	}
	const box = `class="alert warning" role="alert"`
	// next follows a saved form's redirect and returns the page, unescaped.
	next := func(x testkit.Exchange) string {
		t.Helper()
		if x.Status != http.StatusSeeOther {
			t.Fatalf("the form was not saved: %d\n%s", x.Status, x.Body)
		}
		page := b.Get(x.Header.Get("Location"))
		if page.Status != http.StatusOK {
			t.Fatalf("GET %s: %d", x.Header.Get("Location"), page.Status)
		}
		return testkit.Unescaped(page)
	}

	// Nothing to warn about.
	if body := next(b.Post(web.RecordPath, expense("20", "Coffee", "Cash"))); strings.Contains(body, box) ||
		!strings.Contains(body, "Expense recorded: ₱20.00.") {
		t.Errorf("a plain expense's page shows a warning or lacks its notice:\n%s", body)
	}

	// A debit of 250.50 from 100.00: saved, and the next page says so.
	body := next(b.Post(web.RecordPath, expense("250.50", "Groceries", "Account Debit")))
	for _, want := range []string{"Expense recorded: ₱250.50.", box, "Saved, but this looks like a mistake:",
		`<li>Account "Wallet" is below zero after this write: its balance is -150.50.`,
		`<a href="/accounts/` + acct.ID + `">Open the account</a></li>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the page after the debit lacks %q", want)
		}
	}
	if a, _ := env.srv.Ledger().GetAccount(ctx, u.ID, acct.ID); a.CurrentBalance != -150_50 {
		t.Errorf("balance %s, want -150.50: the debit is saved", a.CurrentBalance)
	}
	// Shown once: the next page has no warning.
	if again := testkit.Unescaped(b.Get(web.HomePath)); strings.Contains(again, box) {
		t.Error("the warning is shown again on a later page")
	}

	// A manual debit line takes it further down: the account's page says so.
	accountPath := web.AccountsPath + "/" + acct.ID
	lineToken := testkit.CSRF(t, b.Get(accountPath))
	body = next(b.Post(accountPath+"/lines", url.Values{"csrf": {lineToken}, "type": {"debit"}, "amount": {"10"},
		"date": {"2025-03-14"}, "description": {"ATM fee"}}))
	if !strings.Contains(body, `<li>Account "Wallet" is below zero after this write: its balance is -160.50.`) {
		t.Errorf("the account's page after the line lacks its warning:\n%s", body)
	}
	if a, _ := env.srv.Ledger().GetAccount(ctx, u.ID, acct.ID); a.CurrentBalance != -160_50 {
		t.Errorf("balance %s, want -160.50: the line is saved", a.CurrentBalance)
	}

	// A bulk form names the row of each warning: row 3 repeats row 1 (row 2
	// is blank and skipped).
	row := func(amount, desc string) map[string]string {
		return map[string]string{"amount": amount, "description": desc, "category": "Groceries", "date": "2025-03-12", "payment_method": "Cash"}
	}
	bulkToken := testkit.CSRF(t, b.Get(web.RecordBulkPath))
	body = next(b.Post(web.RecordBulkPath, bulkForm(bulkToken, row("60", "milk"), map[string]string{"amount": ""}, row("60", "Milk"))))
	var first finance.Expense
	for _, e := range expensesOf(t, env, u, "") {
		if e.Description == "milk" {
			first = e
		}
	}
	// A person acts through the link: the message names no tool, route or id.
	if !strings.Contains(body, `<li>Row 3: This looks like a duplicate of the expense "milk" (60.00 on 2025-03-12). `+
		`If both record the same spending, void one of them. <a href=`) ||
		strings.Contains(body, "DELETE /api/") || strings.Contains(body, "delete_expense") || strings.Contains(body, first.ID+")") ||
		!strings.Contains(body, `<a href="/expenses/`+first.ID+`/edit">Open the earlier expense</a>`) ||
		strings.Count(body, "<li>Row ") != 1 {
		t.Errorf("the page after the bulk form lacks row 3's warning:\n%s", body)
	}
	// A link a forged cookie names off the site is not shown.
	forged, _ := json.Marshal([]map[string]string{{"t": "Forged", "l": "https://evil.example/"}, {"t": "Twice", "l": "//evil.example/"}})
	b.Cookies["finance_warnings"] = &http.Cookie{Name: "finance_warnings", Value: base64.RawURLEncoding.EncodeToString(forged)}
	if page := testkit.Unescaped(b.Get(web.HomePath)); !strings.Contains(page, "<li>Forged</li>") ||
		!strings.Contains(page, "<li>Twice</li>") || strings.Contains(page, "evil.example") {
		t.Errorf("a forged link is shown:\n%s", page)
	}

	var milk int
	for _, e := range expensesOf(t, env, u, "") {
		if strings.EqualFold(e.Description, "milk") {
			milk++
		}
	}
	if milk != 2 {
		t.Errorf("%d milk expenses saved, want both", milk)
	}
}

// A back-dated card expense saved on the Record form or bulk entry shows
// how the card's statements bill it, in a box of notes apart from the
// warnings of a possible mistake, linked to the card; the card's
// statements changed as the note says (docs/domain.md, Back-dated card
// charges, On the web pages: this is its worked example).
func TestBackdatedCardExpenseNotes(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	l := env.srv.Ledger()
	var cr finance.CardRequest
	fromJSON(t, `{"name":"Visa","credit_limit":"50000","statement_day":10,"due_day":5,"cycle_start_date":"2025-03-01"}`, &cr)
	card, err := l.CreateCreditCard(ctx, u.ID, cr)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := l.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("Payroll"), Type: finance.Of("savings"),
		OpeningBalance: finance.Of(finance.Money(100_000_00))})
	if err != nil {
		t.Fatal(err)
	}
	const (
		mistakes = `<div class="alert warning" role="alert">`
		notes    = `<div class="notice notes" role="status">` + "\n    <p>Saved. About your card's statements:</p>"
	)
	cardLink := `<a href="/cards/` + card.ID + `">Open the card</a></li>`
	token := testkit.CSRF(t, b.Get(web.RecordPath))
	record := func(amount, date, description string) string {
		t.Helper()
		x := b.Post(web.RecordPath, url.Values{"csrf": {token}, "kind": {"expense"}, "amount": {amount}, "date": {date},
			"description": {description}, "category": {"Shopping"}, "payment_method": {"Credit Card"}, "credit_card_id": {card.ID}})
		if x.Status != http.StatusSeeOther {
			t.Fatalf("the form was not saved: %d\n%s", x.Status, x.Body)
		}
		return testkit.Unescaped(b.Get(x.Header.Get("Location")))
	}
	statementsFrom := func() finance.Date {
		c, err := l.GetCreditCard(ctx, u.ID, card.ID)
		if err != nil {
			t.Fatal(err)
		}
		return c.CycleStartDate
	}
	statementOf := func(date finance.Date) (finance.SOA, bool) {
		for _, a := range soasOf(t, env, u, card.ID) {
			if a.StatementDate == date {
				return a, true
			}
		}
		return finance.SOA{}, false
	}
	unbilled := func(description string) bool {
		e := expenseNamed(t, env, u, description)
		row, err := l.GetCardTransaction(ctx, u.ID, *e.CardTransactionID)
		if err != nil {
			t.Fatal(err)
		}
		return row.Status == finance.CardUnbilled && row.SOAID == nil
	}

	// Before Statements from, nothing paid: Statements from moves back and
	// the period's statement bills the charge; nothing looks like a mistake.
	body := record("1200", "2025-01-20", "Tent")
	for _, want := range []string{"Expense recorded: ₱1,200.00.", notes,
		"<li>Statements from on Visa moved back from 2025-03-01 to 2025-01-11 so that its statements bill this purchase dated 2025-01-20. " + cardLink} {
		if !strings.Contains(body, want) {
			t.Errorf("the page after the back-dated expense lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, mistakes) || strings.Contains(body, "looks like a mistake") {
		t.Errorf("a moved Statements from is shown as a mistake:\n%s", body)
	}
	if got := statementsFrom(); got != finance.NewDate(2025, 1, 11) {
		t.Errorf("Statements from is %s, want 2025-01-11", got)
	}
	if a, ok := statementOf(finance.NewDate(2025, 2, 10)); !ok || a.StatementBalance != 1200_00 || a.TransactionCount != 1 {
		t.Errorf("the statement of 2025-02-10 = %+v (found %v), want the tent's 1,200.00 alone", a, ok)
	}
	if again := testkit.Unescaped(b.Get(web.HomePath)); strings.Contains(again, "About your card's statements") {
		t.Error("the note is shown again on a later page")
	}

	// In a closed period of no statement yet: billed as any charge, no note.
	if body := record("500", "2025-03-05", "Lamp"); strings.Contains(body, "About your card's statements") ||
		strings.Contains(body, mistakes) || !strings.Contains(body, "Expense recorded: ₱500.00.") {
		t.Errorf("a charge billed in its own period shows a note:\n%s", body)
	}
	march, ok := statementOf(finance.NewDate(2025, 3, 10))
	if !ok || march.StatementBalance != 500_00 {
		t.Fatalf("the statement of 2025-03-10 = %+v (found %v), want the lamp's 500.00", march, ok)
	}

	// Once the statement has a payment, a charge of its period waits for the
	// next one; the bulk form names its row.
	var pay finance.SOAPaymentRequest
	fromJSON(t, `{"amount":"500","account_id":"`+acct.ID+`","date":"2025-03-15"}`, &pay)
	if _, err := l.PaySOA(ctx, u.ID, march.ID, pay); err != nil {
		t.Fatal(err)
	}
	row := func(amount, desc, date, method string) map[string]string {
		r := map[string]string{"amount": amount, "description": desc, "category": "Shopping", "date": date, "payment_method": method}
		if method == "Credit Card" {
			r["credit_card_id"] = card.ID
		}
		return r
	}
	x := b.Post(web.RecordBulkPath, bulkForm(testkit.CSRF(t, b.Get(web.RecordBulkPath)),
		row("15", "Stamps", "2025-03-15", "Cash"), row("80", "Batteries", "2025-03-08", "Credit Card")))
	if x.Status != http.StatusSeeOther {
		t.Fatalf("the bulk form was not saved: %d\n%s", x.Status, x.Body)
	}
	body = testkit.Unescaped(b.Get(x.Header.Get("Location")))
	if !strings.Contains(body, notes) || strings.Contains(body, mistakes) || !strings.Contains(body,
		"<li>Row 2: This purchase dated 2025-03-08 on Visa stays unbilled until the next statement: the statement of its period has a payment. "+cardLink) {
		t.Errorf("the page after the bulk form lacks row 2's note:\n%s", body)
	}
	if a, _ := statementOf(march.StatementDate); a.StatementBalance != 500_00 || !unbilled("Batteries") {
		t.Errorf("a paid statement took the charge: balance %s", a.StatementBalance)
	}

	// A save with both kinds shows both boxes: over the limit is a possible
	// mistake, and Statements from stays put once a statement is paid.
	body = record("60000", "2025-01-05", "Canoe")
	mistakeAt, noteAt := strings.Index(body, mistakes), strings.Index(body, notes)
	if mistakeAt < 0 || noteAt < 0 || !strings.Contains(body[mistakeAt:noteAt], `Card "Visa" is over its credit limit`) ||
		!strings.Contains(body[noteAt:], "<li>This purchase dated 2025-01-05 on Visa stays unbilled until the next statement: "+
			"it is dated before Statements from (2025-01-11) and a statement of the card has a payment. "+cardLink) {
		t.Errorf("the page after an over-limit back-dated expense lacks one of its boxes:\n%s", body)
	}
	if got := statementsFrom(); got != finance.NewDate(2025, 1, 11) || !unbilled("Canoe") {
		t.Errorf("Statements from moved to %s, or the canoe was billed, after a payment", got)
	}

	// A bill paid with a new card, dated a period before the one its
	// Statements from falls in.
	fromJSON(t, `{"name":"Amex","credit_limit":"50000","statement_day":10,"due_day":5,"cycle_start_date":"2025-03-01"}`, &cr)
	amex, err := l.CreateCreditCard(ctx, u.ID, cr)
	if err != nil {
		t.Fatal(err)
	}
	power := marchBill(t, env, u, `{"name":"Electricity","amount":"1500","category":"Utilities","frequency":"monthly",
		"start_date":"2025-01-01","due_day":20}`)
	page := b.Get(web.BillsPath)
	x = b.Post(web.BillsPath+"/"+power.ID+"/pay", url.Values{"csrf": {testkit.CSRF(t, page)}, "amount": {"1500"},
		"date": {"2025-02-05"}, "payment_method": {"Credit Card"}, "credit_card_id": {amex.ID}})
	if x.Status != http.StatusSeeOther {
		t.Fatalf("the bill was not paid: %d\n%s", x.Status, x.Body)
	}
	body = testkit.Unescaped(b.Get(x.Header.Get("Location")))
	if !strings.Contains(body, notes) || !strings.Contains(body, "<li>Statements from on Amex moved back from 2025-03-01 to 2025-01-11 "+
		`so that its statements bill this purchase dated 2025-02-05. <a href="/cards/`+amex.ID+`">Open the card</a></li>`) {
		t.Errorf("the page after the bill paid with a card lacks its note:\n%s", body)
	}
	if c, err := l.GetCreditCard(ctx, u.ID, amex.ID); err != nil || c.CycleStartDate != finance.NewDate(2025, 1, 11) {
		t.Errorf("Amex's Statements from is %s (%v), want 2025-01-11", c.CycleStartDate, err)
	}

	// The dates are written in the person's date format, as on the rest of the pages.
	if _, err := l.UpdateAppSettings(ctx, u.ID, finance.AppSettingsRequest{DateFormat: finance.Of("DD MMM YYYY")}); err != nil {
		t.Fatal(err)
	}
	x = b.Post(web.RecordPath, url.Values{"csrf": {token}, "kind": {"expense"}, "amount": {"45"}, "date": {"2024-12-20"},
		"description": {"Gift wrap"}, "category": {"Shopping"}, "payment_method": {"Credit Card"}, "credit_card_id": {amex.ID}})
	if x.Status != http.StatusSeeOther {
		t.Fatalf("the form was not saved: %d\n%s", x.Status, x.Body)
	}
	if body := testkit.Unescaped(b.Get(x.Header.Get("Location"))); !strings.Contains(body,
		"<li>Statements from on Amex moved back from 11 Jan 2025 to 11 Dec 2024 so that its statements bill this purchase dated 20 Dec 2024. ") {
		t.Errorf("the note's dates are not in the person's format:\n%s", body)
	}
}
