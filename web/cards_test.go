package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// cardSetup is a card (statement day 10, due day 5, from January) with a
// statement of 10 March 2025 holding two purchases (12.00 and 8.00, the
// second entered after the statement was made), a later unbilled purchase
// of 30.00, and an account of 200.00 to pay from.
type cardSetup struct {
	card     finance.CreditCard
	account  finance.Account
	soa      finance.SOA
	unbilled finance.CardTransaction
}

func newCardSetup(t *testing.T, env *testEnv, u finance.User) cardSetup {
	t.Helper()
	ctx := context.Background()
	l := env.srv.Ledger()
	var cr finance.CardRequest
	fromJSON(t, `{"name":"Visa","credit_limit":"500","statement_day":10,"due_day":5,"cycle_start_date":"2025-01-01"}`, &cr)
	card, err := l.CreateCreditCard(ctx, u.ID, cr)
	if err != nil {
		t.Fatal(err)
	}
	acct, err := l.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("Payroll"), Type: finance.Of("savings"),
		OpeningBalance: finance.Of(finance.Money(20000))})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []struct {
		day    int
		amount finance.Money
		what   string
	}{{5, 1200, "Books"}, {8, 800, "Lunch"}, {12, 3000, "Shoes"}} {
		if _, err := l.CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(p.amount), Date: finance.Of(finance.NewDate(2025, 3, p.day)),
			Description: finance.Of(p.what), Category: finance.Of("Shopping"), PaymentMethod: finance.Of("Credit Card"),
			CreditCardID: finance.Of(card.ID)}); err != nil {
			t.Fatal(err)
		}
	}
	// The first purchase made the statement; the second, entered after it
	// and dated in its period, joined it as it was created (docs/domain.md,
	// Back-dated card charges).
	soas := soasOf(t, env, u, card.ID)
	if len(soas) != 1 || soas[0].StatementBalance != 2000 || soas[0].TransactionCount != 2 {
		t.Fatalf("statements = %+v", soas)
	}
	rows, err := l.ListCardTransactions(ctx, u.ID, finance.CardTransactionFilter{CardID: card.ID, Status: finance.CardUnbilled},
		finance.ListParams{Page: 1, Limit: 10, SortBy: "date"})
	if err != nil || len(rows.Items) != 1 || rows.Items[0].Description != "Shoes" {
		t.Fatalf("unbilled = %+v, %v", rows.Items, err)
	}
	return cardSetup{card: card, account: acct, soa: soas[0], unbilled: rows.Items[0]}
}

// soasOf lists a card's statements that are not voided.
func soasOf(t *testing.T, env *testEnv, u finance.User, cardID string) []finance.SOA {
	t.Helper()
	p, err := env.srv.Ledger().ListSOAs(context.Background(), u.ID, finance.SOAFilter{CardID: cardID},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "statement_date"})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func getSOA(t *testing.T, env *testEnv, u finance.User, id string) finance.SOADetail {
	t.Helper()
	a, err := env.srv.Ledger().GetSOA(context.Background(), u.ID, id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func cardsOf(t *testing.T, env *testEnv, u finance.User) []finance.CreditCard {
	t.Helper()
	p, err := env.srv.Ledger().ListCreditCards(context.Background(), u.ID, finance.CardFilter{Status: finance.StatusAll},
		finance.ListParams{Page: 1, Limit: 100, SortBy: "name"})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

func TestCardsPage(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.CardsPath)
	testkit.WantPage(t, "no cards", page, http.StatusOK, "<h1>Cards</h1>", `aria-current="page">Cards</a>`, "No cards yet",
		`name="cycle_start_date" value="2025-03-15"`)
	testkit.CheckPageHeaders(t, page)
	token := testkit.CSRF(t, page)
	valid := func() url.Values {
		return url.Values{"csrf": {token}, "name": {"Visa"}, "credit_limit": {"50000"}, "statement_day": {"10"}, "due_day": {"5"},
			"cycle_start_date": {"2025-01-01"}, "last_four": {"4242"}, "bank": {""}, "minimum_due_percent": {""}, "minimum_due_floor": {""}, "notes": {""}}
	}
	for _, tc := range []struct {
		name   string
		edit   func(url.Values)
		status int
		want   []string
	}{
		{"no form token", func(f url.Values) { f.Del("csrf") }, http.StatusForbidden, []string{"This form has expired"}},
		{"no limit", func(f url.Values) { f.Set("credit_limit", "") }, http.StatusBadRequest,
			[]string{`id="new-limit-error">Credit limit is required<`, `value="4242"`, "Not created."}},
		{"days out of range", func(f url.Values) { f.Set("statement_day", "32"); f.Set("due_day", "x") }, http.StatusBadRequest,
			[]string{`id="new-sday-error">Statement day must be an integer from 1 to 31<`, `id="new-dday-error">Due day `}},
		{"statements from the future", func(f url.Values) { f.Set("cycle_start_date", "2025-04-01") }, http.StatusBadRequest,
			[]string{`id="new-cycle-error">Statements from must be from 2020-03-15 to 2025-03-15`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := valid()
			tc.edit(f)
			testkit.WantPage(t, "refused create", b.Post(web.CardsPath, f), tc.status, tc.want...)
			if n := len(cardsOf(t, env, u)); n != 0 {
				t.Fatalf("a refused form wrote %d cards", n)
			}
		})
	}
	x := b.Post(web.CardsPath, valid())
	cards := cardsOf(t, env, u)
	if len(cards) != 1 {
		t.Fatalf("%d cards after a valid form", len(cards))
	}
	c := cards[0]
	testkit.WantRedirect(t, "create", x, web.CardsPath+"/"+c.ID+"?notice=card-created")
	if c.CreditLimit != 5000000 || c.StatementDay != 10 || c.DueDay != 5 || c.CycleStartDate != finance.NewDate(2025, 1, 1) ||
		c.MinimumDuePercent != finance.DefaultMinimumDuePercent || c.LastFour == nil || *c.LastFour != "4242" {
		t.Errorf("card = %+v", c)
	}
	if _, err := env.srv.Ledger().CreateExpense(context.Background(), u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(1500000)),
		Date: finance.Of(finance.NewDate(2025, 3, 12)), Description: finance.Of("Laptop"), Category: finance.Of("Shopping"),
		PaymentMethod: finance.Of("Credit Card"), CreditCardID: finance.Of(c.ID)}); err != nil {
		t.Fatal(err)
	}
	testkit.WantPage(t, "cards", b.Get(web.CardsPath), http.StatusOK, `href="/cards/`+c.ID+`">Visa ···4242</a>`, "<dt>Owed</dt><dd>₱15,000.00</dd>",
		"<dd>₱35,000.00 of ₱50,000.00</dd>", "30.00% · Moderate", "<dt>Next statement</dt><dd>2025-04-10</dd>")

	// Edit: refused, then saved; archive hides it from the active list.
	path := web.CardsPath + "/" + c.ID
	edit := valid()
	edit.Set("due_day", "0")
	testkit.WantPage(t, "a refused edit", b.Post(path, edit), http.StatusBadRequest, `id="edit-dday-error">Due day must be an integer from 1 to 31<`,
		`id="edit-dday" name="due_day" inputmode="numeric" maxlength="2" autocomplete="off" value="0"`)
	if got := cardsOf(t, env, u)[0]; got.DueDay != 5 {
		t.Errorf("a refused edit changed the due day to %d", got.DueDay)
	}
	edit = valid()
	edit.Set("name", "Visa Gold")
	edit.Set("last_four", "")
	testkit.WantRedirect(t, "edit", b.Post(path, edit), path+"?notice=card-saved")
	if got := cardsOf(t, env, u)[0]; got.Name != "Visa Gold" || got.LastFour != nil {
		t.Errorf("after edit: %+v", got)
	}
	testkit.WantRedirect(t, "archive", b.Post(path+"/archive", url.Values{"csrf": {token}}), path+"?notice=card-archived")
	if x := b.Get(web.CardsPath); strings.Contains(testkit.Unescaped(x), "Visa Gold") {
		t.Error("an archived card is in the active list")
	}
	testkit.WantPage(t, "archived cards", b.Get(web.CardsPath+"?status=archived"), http.StatusOK, "Visa Gold", "Archived")
	testkit.WantPage(t, "archived card", b.Get(path), http.StatusOK, "Unarchive card")
	if strings.Contains(string(b.Get(path).Body), "/convert") {
		t.Error("an archived card offers to convert a purchase")
	}
	testkit.WantRedirect(t, "unarchive", b.Post(path+"/unarchive", url.Values{"csrf": {token}}), path+"?notice=card-unarchived")
}

func TestCardPage(t *testing.T) {
	env, u, b := webApp(t)
	cs := newCardSetup(t, env, u)
	path := web.CardsPath + "/" + cs.card.ID
	page := b.Get(path)
	testkit.WantPage(t, "card", page, http.StatusOK, "<h1>Visa</h1>", "<dt>Owed</dt><dd>₱50.00</dd>", "<dt>Unbilled</dt><dd>₱30.00</dd>",
		"<h3>Open</h3>", `href="/statements/`+cs.soa.ID+`">Statement of 2025-03-10</a>`, "Due 2025-04-05 · due in 21 days · ₱20.00 left to pay",
		"Unbilled · 1 transaction", "Shoes", `href="/cards/transactions/`+cs.unbilled.ID+`/convert"`, "No installment plans")
	testkit.CheckPageHeaders(t, page)
	if strings.Contains(testkit.Unescaped(page), "<h3>Overdue</h3>") || strings.Contains(testkit.Unescaped(page), "<h3>Paid</h3>") {
		t.Error("empty statement groups are shown")
	}
	testkit.WantPage(t, "a filter that matches nothing", b.Get(path+"?search=zzz&dateTo=2099-01-31"), http.StatusOK, "Unbilled · 0 transactions", "Nothing unbilled matches",
		`name="dateTo" value="2099-01-31"`, `name="search" value="zzz"`, `<a class="button secondary" href="/cards/`+cs.card.ID+`">Clear</a>`)
	testkit.WantPage(t, "a bad date", b.Get(path+"?dateFrom=soon"), http.StatusBadRequest, `id="from-error">From `)
	testkit.WantPage(t, "a bad type", b.Get(path+"?type=gift"), http.StatusBadRequest, `id="type-error">Type must be one of: purchase, fee, interest, refund, installment<`)

	// Once the due date passes, the statement is overdue.
	env.srv.Ledger().SetClock(func() time.Time { return testkit.Now.AddDate(0, 0, 25) })
	testkit.WantPage(t, "card in April", b.Get(path), http.StatusOK, "<h3>Overdue</h3>", `class="badge status-unpaid overdue">Overdue<`)
}

func TestStatementPage(t *testing.T) {
	env, u, b := webApp(t)
	cs := newCardSetup(t, env, u)
	path := web.StatementsPath + "/" + cs.soa.ID
	page := b.Get(path)
	testkit.WantPage(t, "statement", page, http.StatusOK, "<h1>Statement of 2025-03-10</h1>", `<a href="/cards/`+cs.card.ID+`">Visa</a>`,
		`<dd id="remaining">₱20.00</dd>`, "2 lines", "Books", "Lunch", `name="amount" inputmode="decimal" autocomplete="off" value="20.00"`,
		`<option value="`+cs.account.ID+`" selected>Payroll · ₱200.00</option>`, `<option value="">Choose an account</option>`, `href="/statements/`+cs.soa.ID+`/void"`,
		"No unbilled transactions of this card are dated on or before 2025-03-10")
	testkit.CheckPageHeaders(t, page)
	token := testkit.CSRF(t, page)
	balance := func() finance.Money { return getAccount(t, env, u, cs.account.ID).CurrentBalance }

	// Pay: refused forms write nothing.
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   []string
	}{
		{"no form token", url.Values{"amount": {"20"}, "account_id": {cs.account.ID}}, http.StatusForbidden, []string{"This form has expired"}},
		{"more than is left", url.Values{"csrf": {token}, "amount": {"20.01"}, "date": {"2025-03-15"}, "account_id": {cs.account.ID}},
			http.StatusBadRequest, []string{`id="pay-amount-error">Amount must not exceed the remaining balance 20.00<`, `value="20.01"`, "Not paid."}},
		{"no account", url.Values{"csrf": {token}, "amount": {"20"}, "date": {"2025-03-15"}, "account_id": {""}},
			http.StatusBadRequest, []string{`id="pay-account-error">Account is required<`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testkit.WantPage(t, "refused payment", b.Post(path+"/pay", tc.form), tc.status, tc.want...)
			if got := getSOA(t, env, u, cs.soa.ID); got.PaidTotal != 0 || balance() != 20000 {
				t.Fatalf("a refused payment wrote: paid %s, balance %s", got.PaidTotal, balance())
			}
		})
	}
	testkit.WantRedirect(t, "pay", b.Post(path+"/pay", url.Values{"csrf": {token}, "amount": {"20.00"}, "date": {"2025-03-15"},
		"account_id": {cs.account.ID}}), path+"?notice=statement-paid")
	if got := getSOA(t, env, u, cs.soa.ID); got.Status != finance.SOAPaid || got.PaidTotal != 2000 || balance() != 18000 {
		t.Fatalf("after paying 20.00: %s, paid %s, balance %s", got.Status, got.PaidTotal, balance())
	}
	paid := b.Get(path + "?notice=statement-paid")
	testkit.WantPage(t, "paid statement", paid, http.StatusOK, "Statement payment recorded.", `class="badge status-paid">Paid<`, "2025-03-15 · from Payroll")
	if strings.Contains(string(paid.Body), `action="`+path+`/pay"`) {
		t.Error("a paid statement still offers the pay form")
	}
	testkit.WantPage(t, "pay a paid statement", b.Post(path+"/pay", url.Values{"csrf": {token}, "amount": {"1"}, "account_id": {cs.account.ID}}),
		http.StatusBadRequest, "Statement is already paid")

	// Un-link a line: back to unbilled; the statement can take it again.
	lunch := getSOA(t, env, u, cs.soa.ID).Transactions[1]
	if lunch.Description != "Lunch" {
		t.Fatalf("second line = %+v", lunch)
	}
	if x := b.Post(path+"/lines/"+lunch.ID+"/remove", url.Values{}); x.Status != http.StatusForbidden {
		t.Errorf("un-link without a form token: %d", x.Status)
	}
	testkit.WantPage(t, "un-link a row of no statement", b.Post(path+"/lines/"+cs.unbilled.ID+"/remove", url.Values{"csrf": {token}}),
		http.StatusNotFound, "not found")
	testkit.WantRedirect(t, "un-link", b.Post(path+"/lines/"+lunch.ID+"/remove", url.Values{"csrf": {token}}), path+"?notice=statement-line-removed")
	if got := getSOA(t, env, u, cs.soa.ID); got.StatementBalance != 1200 || len(got.Transactions) != 1 {
		t.Fatalf("after un-linking lunch: balance %s, %d lines", got.StatementBalance, len(got.Transactions))
	}
	linkPage := b.Get(path)
	testkit.WantPage(t, "linkable", linkPage, http.StatusOK, `name="transaction_ids" value="`+lunch.ID+`"`)
	if strings.Contains(string(linkPage.Body), `value="`+cs.unbilled.ID+`"`) {
		t.Error("a purchase after the statement date is offered for linking")
	}
	testkit.WantPage(t, "link nothing", b.Post(path+"/link", url.Values{"csrf": {token}}), http.StatusBadRequest,
		"transaction_ids must hold 1 to 100 transaction ids (got 0)", "Not linked.")
	testkit.WantPage(t, "link a later row", b.Post(path+"/link", url.Values{"csrf": {token}, "transaction_ids": {lunch.ID, cs.unbilled.ID}}),
		http.StatusBadRequest, "transaction_ids[1] ")
	if got := getSOA(t, env, u, cs.soa.ID); len(got.Transactions) != 1 {
		t.Fatalf("a refused link linked: %d lines", len(got.Transactions))
	}
	testkit.WantRedirect(t, "link", b.Post(path+"/link", url.Values{"csrf": {token}, "transaction_ids": {lunch.ID}}), path+"?notice=statement-linked")
	if got := getSOA(t, env, u, cs.soa.ID); got.StatementBalance != 2000 || got.Status != finance.SOAPaid {
		t.Errorf("after linking lunch again: balance %s, %s", got.StatementBalance, got.Status)
	}

	// Void asks first, then resets: the payment's debit is undone and a fresh statement replaces it.
	confirm := b.Get(path + "/void")
	testkit.WantPage(t, "void confirm", confirm, http.StatusOK, "Void the statement of 2025-03-10?", "Voiding resets the statement",
		"₱20.00 of payments are undone", `action="`+path+`/void"`, "Keep it")
	if x := b.Post(path+"/void", url.Values{}); x.Status != http.StatusForbidden {
		t.Errorf("void without a form token: %d", x.Status)
	}
	if got := getSOA(t, env, u, cs.soa.ID); got.Status != finance.SOAPaid {
		t.Fatalf("a refused void changed the statement: %s", got.Status)
	}
	x := b.Post(path+"/void", url.Values{"csrf": {testkit.CSRF(t, confirm)}})
	old := getSOA(t, env, u, cs.soa.ID)
	if old.Status != finance.StatusVoided || old.ReplacedByID == nil {
		t.Fatalf("after void: %+v", old.SOA)
	}
	testkit.WantRedirect(t, "void", x, web.StatementsPath+"/"+*old.ReplacedByID+"?notice=statement-voided")
	if balance() != 20000 {
		t.Errorf("balance %s after the void, want the payment back", balance())
	}
	testkit.WantPage(t, "replacement", b.Get(x.Header.Get("Location")), http.StatusOK, "The statement has been voided and reset.", `<dd id="remaining">₱20.00</dd>`)
	testkit.WantPage(t, "voided statement", b.Get(path), http.StatusOK, "This statement was voided", `href="/statements/`+*old.ReplacedByID+`"`)
	testkit.WantPage(t, "void twice", b.Post(path+"/void", url.Values{"csrf": {token}}), http.StatusBadRequest, "Statement is voided")

	for _, p := range []string{web.StatementsPath + "/0190f1a2-0000-7000-8000-000000000000", web.StatementsPath + "/nope"} {
		if x := b.Get(p); x.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d", p, x.Status)
		}
	}
}

func TestInstallmentPages(t *testing.T) {
	env, u, b := webApp(t)
	cs := newCardSetup(t, env, u)
	path := web.ConvertPath + "/" + cs.unbilled.ID + "/convert"
	page := b.Get(path)
	testkit.WantPage(t, "convert", page, http.StatusOK, "Pay in installments", "Shoes · ₱30.00 on 2025-03-12", `value="none" checked`,
		`name="first_installment_date" value="2025-03-12"`)
	testkit.CheckPageHeaders(t, page)
	token := testkit.CSRF(t, page)
	plans := func() int {
		p, err := env.srv.Ledger().ListInstallmentPlans(context.Background(), u.ID, finance.PlanFilter{}, finance.ListParams{Page: 1, Limit: 10, SortBy: "created_at"})
		if err != nil {
			t.Fatal(err)
		}
		return len(p.Items)
	}
	for _, tc := range []struct {
		name   string
		form   url.Values
		status int
		want   []string
	}{
		{"no form token", url.Values{"months": {"3"}, "kind": {"none"}}, http.StatusForbidden, []string{"This form has expired"}},
		{"one month", url.Values{"csrf": {token}, "months": {"1"}, "kind": {"none"}}, http.StatusBadRequest,
			[]string{`id="months-error">Months must be an integer from 2 to 60<`, "Not converted."}},
		{"add-on without a rate", url.Values{"csrf": {token}, "months": {"3"}, "kind": {"add_on"}, "monthly_amount": {"11"}}, http.StatusBadRequest,
			[]string{`id="interest_rate-error">Interest rate is required when interest_type is add_on`, `value="add_on" checked`}},
		{"a quote below the price", url.Values{"csrf": {token}, "months": {"3"}, "kind": {"quoted"}, "monthly_amount": {"9"}}, http.StatusBadRequest,
			[]string{`id="monthly_amount-error">Monthly amount `}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			testkit.WantPage(t, "refused convert", b.Post(path, tc.form), tc.status, tc.want...)
			if n := plans(); n != 0 {
				t.Fatalf("a refused form wrote %d plans", n)
			}
		})
	}
	x := b.Post(path, url.Values{"csrf": {token}, "months": {"3"}, "kind": {"quoted"}, "monthly_amount": {"10.50"}, "interest_rate": {"5"},
		"first_installment_date": {"2025-03-12"}, "description": {""}})
	list, err := env.srv.Ledger().ListInstallmentPlans(context.Background(), u.ID, finance.PlanFilter{}, finance.ListParams{Page: 1, Limit: 10, SortBy: "created_at"})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("plans = %+v, %v", list.Items, err)
	}
	plan := list.Items[0]
	testkit.WantRedirect(t, "convert", x, web.InstallmentsPath+"/"+plan.ID+"?notice=plan-created")
	if plan.InterestType != finance.InterestAddOn || plan.MonthlyAmount == nil || *plan.MonthlyAmount != 1050 || plan.InterestRate != nil ||
		plan.TotalInterest != 150 || plan.Description != "Shoes" {
		t.Errorf("plan = %+v", plan)
	}
	planPath := web.InstallmentsPath + "/" + plan.ID
	testkit.WantPage(t, "plan", b.Get(x.Header.Get("Location")), http.StatusOK, "Purchase converted to an installment plan.", "<h1>Shoes</h1>",
		"<dt>Total</dt><dd>₱31.50</dd>", `<th scope="row">1</th>`, "<td>2025-03-12</td>", "<td>2025-05-12</td>", `<td class="num">₱10.50</td>`,
		`href="`+planPath+`/cancel"`)
	testkit.WantPage(t, "card with a plan", b.Get(web.CardsPath+"/"+cs.card.ID), http.StatusOK, `href="/installments/`+plan.ID+`">Shoes</a>`, "3 months · 0 billed, 3 to go")

	confirm := b.Get(planPath + "/cancel")
	testkit.WantPage(t, "cancel confirm", confirm, http.StatusOK, "Cancel the plan for Shoes?", "every row of the plan is voided", "₱30.00 goes back to unbilled")
	if x := b.Post(planPath+"/cancel", url.Values{}); x.Status != http.StatusForbidden {
		t.Errorf("cancel without a form token: %d", x.Status)
	}
	testkit.WantRedirect(t, "cancel", b.Post(planPath+"/cancel", url.Values{"csrf": {testkit.CSRF(t, confirm)}}), planPath+"?notice=plan-cancelled")
	got, err := env.srv.Ledger().GetInstallmentPlan(context.Background(), u.ID, plan.ID)
	if err != nil || got.Status != finance.PlanCancelled {
		t.Fatalf("after cancel: %+v, %v", got.InstallmentPlan, err)
	}
	if tx, _ := env.srv.Ledger().GetCardTransaction(context.Background(), u.ID, cs.unbilled.ID); tx.Status != finance.CardUnbilled {
		t.Errorf("the purchase is %s after the cancel, want unbilled", tx.Status)
	}
	testkit.WantPage(t, "cancel twice", b.Post(planPath+"/cancel", url.Values{"csrf": {token}}), http.StatusBadRequest, "Installment plan is cancelled; only an active plan can be cancelled")
	if x := b.Get(planPath); strings.Contains(string(x.Body), planPath+"/cancel") {
		t.Error("a cancelled plan offers cancel")
	}
	other := env.createUser(finance.PlanFree)
	ob := env.browser(t)
	ob.SignIn(other)
	for _, p := range []string{planPath, path, web.StatementsPath + "/" + cs.soa.ID, web.CardsPath + "/" + cs.card.ID} {
		if x := ob.Get(p); x.Status != http.StatusNotFound {
			t.Errorf("another user's GET %s: %d", p, x.Status)
		}
	}
	otherToken := testkit.CSRF(t, ob.Get(web.CardsPath))
	if x := ob.Post(path, url.Values{"csrf": {otherToken}, "months": {"1"}}); x.Status != http.StatusNotFound {
		t.Errorf("another user's convert: %d", x.Status)
	}
	if x := ob.Post(web.StatementsPath+"/"+cs.soa.ID+"/pay", url.Values{"csrf": {otherToken}, "amount": {"1"}}); x.Status != http.StatusNotFound {
		t.Errorf("another user's payment: %d", x.Status)
	}
	if got := getSOA(t, env, u, cs.soa.ID); got.PaidTotal != 0 || plans() != 1 {
		t.Errorf("another user's posts wrote: paid %s, %d plans", got.PaidTotal, plans())
	}
}
