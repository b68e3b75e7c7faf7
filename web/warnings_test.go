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
