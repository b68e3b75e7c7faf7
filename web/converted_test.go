package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// fxHome is the worked example of docs/domain.md "Money in more than one
// currency" on the pages: reporting currency PHP, Checking ₱20,000.00,
// Savings $1,000.00 and Wallet ¥50,000, the rates of 2025-03-10 EUR → PHP
// 65.20, EUR → USD 1.0550 and (withJPY) EUR → JPY 162.40; ₱1,000.00 of
// groceries and a $25.00 taxi in cash, a ¥3,000 train from the Wallet,
// all on 2025-03-12. Dates read "12 Mar 2025".
func fxHome(t *testing.T, withJPY bool) (*testEnv, finance.User, *testkit.Browser) {
	t.Helper()
	env, u, b := webApp(t)
	ctx, l := context.Background(), env.srv.Ledger()
	if _, err := l.UpdateAppSettings(ctx, u.ID, finance.AppSettingsRequest{DateFormat: finance.Of("DD MMM YYYY")}); err != nil {
		t.Fatal(err)
	}
	accountOpened(t, env, u, "PHP", "Checking", 20000_00)
	accountOpened(t, env, u, "USD", "Savings", 1000_00)
	wallet := accountOpened(t, env, u, "JPY", "Wallet", 50000_00)
	manualRate(t, env, u, "EUR", "PHP", "65.20")
	manualRate(t, env, u, "EUR", "USD", "1.0550")
	if withJPY {
		manualRate(t, env, u, "EUR", "JPY", "162.40")
	}
	for _, e := range []finance.ExpenseRequest{
		{Amount: finance.Of(finance.Money(1000_00)), Description: finance.Of("Groceries"), Category: finance.Of("Groceries"),
			PaymentMethod: finance.Of("Cash")},
		{Amount: finance.Of(finance.Money(25_00)), Description: finance.Of("Taxi"), Category: finance.Of("Transportation"),
			PaymentMethod: finance.Of("Cash"), Currency: finance.Of("USD")},
		{Amount: finance.Of(finance.Money(3000_00)), Description: finance.Of("Train"), Category: finance.Of("Transportation"),
			PaymentMethod: finance.Of("Account Debit"), AccountID: finance.Of(wallet.ID)},
	} {
		e.Date = finance.Of(finance.NewDate(2025, 3, 12))
		if _, err := l.CreateExpense(ctx, u.ID, e); err != nil {
			t.Fatal(err)
		}
	}
	return env, u, b
}

func wantIn(t *testing.T, page, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("%s lacks %q", page, w)
		}
	}
}

func wantNotIn(t *testing.T, page, body string, unwanted ...string) {
	t.Helper()
	for _, w := range unwanted {
		if strings.Contains(body, w) {
			t.Errorf("%s shows %q", page, w)
		}
	}
}

// Home leads with net worth's lines per currency, the day of the rates,
// and each balance and entry in another currency with its value beside it:
// Savings $1,000.00 → 61,800.947867… and the wallet's ¥47,000 (after the
// train) → 18,869.458128…; net worth 20,000 + those = ₱100,670.41.
func TestHomeInSeveralCurrencies(t *testing.T) {
	_, _, b := fxHome(t, true)
	home := testkit.Unescaped(b.Get(web.HomePath))
	wantIn(t, "Home", home,
		`<li class="num">₱20,000.00</li>`, `<li class="num">$1,000.00 ≈ ₱61,800.95</li>`, `<li class="num">¥47,000 ≈ ₱18,869.46</li>`,
		`id="net-worth">₱100,670.41<`, "Rates as of 10 Mar 2025",
		`$1,000.00 <span class="converted">≈ ₱61,800.95</span>`,
		// The taxi at the rate of its day: 25 × 65.20 ÷ 1.0550 = 1,545.023696…
		`-$25.00 <span class="converted">≈ ₱1,545.02</span>`, `-¥3,000 <span class="converted">≈ ₱1,204.43</span>`)
	wantNotIn(t, "Home", home, "leaves out", `₱20,000.00 <span class="converted"`, `-₱1,000.00 <span class="converted"`)
}

// Without a JPY rate Home never counts yen 1:1: the wallet is left out of
// net worth (₱81,800.95) and the month's spending (₱2,545.02), named with
// a link to the rates, its line says "no rate" and the chart says which
// currency its months leave out.
func TestHomeNamesTheMissingRate(t *testing.T) {
	_, _, b := fxHome(t, false)
	home := testkit.Unescaped(b.Get(web.HomePath))
	wantIn(t, "Home", home,
		`<li class="num">¥47,000 · no rate</li>`, `id="net-worth">₱81,800.95<`,
		"Net worth leaves out ¥47,000 (no JPY rate on or before 15 Mar 2025).",
		"This month leaves out ¥3,000 (no JPY rate on or before 12 Mar 2025).",
		`<a href="/settings/exchange-rates">Add a rate in Settings → Exchange rates</a>`,
		`¥47,000 <span class="converted">no rate</span>`,
		"Some months leave out JPY, USD: no rate on or before the month's last day.")
	// Spending: ₱1,000.00 + the taxi's ₱1,545.02.
	wantIn(t, "Home", home, "<dt>Spending</dt><dd>₱2,545.02</dd>")
}

// The Accounts page totals the balances in the reporting currency, with the
// lines per currency and each foreign balance's value beside it.
func TestAccountsPageInSeveralCurrencies(t *testing.T) {
	_, _, b := fxHome(t, true)
	page := testkit.Unescaped(b.Get(web.AccountsPath))
	wantIn(t, "Accounts", page, "3 accounts · ₱100,670.41", `<li class="num">$1,000.00 ≈ ₱61,800.95</li>`,
		`$1,000.00 <span class="converted">≈ ₱61,800.95</span>`, `¥47,000 <span class="converted">≈ ₱18,869.46</span>`,
		"Rates as of 10 Mar 2025")
	_, _, b = fxHome(t, false)
	page = testkit.Unescaped(b.Get(web.AccountsPath))
	wantIn(t, "Accounts without a JPY rate", page, "3 accounts · ₱81,800.95", `<li class="num">¥47,000 · no rate</li>`,
		"The total leaves out ¥47,000 (no JPY rate on or before 15 Mar 2025).")
}

// The expense list's total converts each expense at its date's rate; each
// row in another currency shows its value beside it, or "no rate".
func TestExpenseListInSeveralCurrencies(t *testing.T) {
	_, _, b := fxHome(t, true)
	page := testkit.Unescaped(b.Get(web.ExpensesPath))
	// 1,000 + 1,545.023696… + 1,204.433497… = 3,749.457193…
	wantIn(t, "Expenses", page, "3 expenses · total ₱3,749.46", "Rates as of 10 Mar 2025",
		`$25.00 <span class="converted">≈ ₱1,545.02</span>`, `¥3,000 <span class="converted">≈ ₱1,204.43</span>`)
	wantNotIn(t, "Expenses", page, `₱1,000.00 <span class="converted"`)
	_, _, b = fxHome(t, false)
	page = testkit.Unescaped(b.Get(web.ExpensesPath))
	wantIn(t, "Expenses without a JPY rate", page, "3 expenses · total ₱2,545.02",
		"The total leaves out ¥3,000 (no JPY rate on or before 12 Mar 2025).", `¥3,000 <span class="converted">no rate</span>`)
}

// The Budgets page says what its spending left out for want of a rate.
func TestBudgetsPageNamesTheMissingRate(t *testing.T) {
	env, u, b := fxHome(t, false)
	if _, err := env.srv.Ledger().ReplaceBudgetThresholds(context.Background(), u.ID, finance.BudgetThresholdsRequest{
		Thresholds: finance.Of([]finance.BudgetThresholdInput{{Category: finance.Of("Transportation"), MonthlyLimit: finance.Of(finance.Money(5000_00))}})}); err != nil {
		t.Fatal(err)
	}
	page := testkit.Unescaped(b.Get(web.BudgetsPath))
	wantIn(t, "Budgets", page, "Spending leaves out ¥3,000 (no JPY rate on or before 12 Mar 2025).", "₱1,545.02")
}

// A household in one currency sees its pages as before: no lines per
// currency, no rates, nothing beside an amount.
func TestPagesInOneCurrencyConvertNothing(t *testing.T) {
	env, u, b := webApp(t)
	accountOpened(t, env, u, "PHP", "Checking", 20000_00)
	if _, err := env.srv.Ledger().CreateExpense(context.Background(), u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(250_00)),
		Date: finance.Of(finance.NewDate(2025, 3, 12)), Description: finance.Of("Lunch"), Category: finance.Of("Groceries"),
		PaymentMethod: finance.Of("Cash")}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{web.HomePath, web.AccountsPath, web.ExpensesPath, web.BudgetsPath} {
		wantNotIn(t, path, testkit.Unescaped(b.Get(path)), "currency-lines", "Rates as of", `class="converted"`, "leaves out")
	}
}

// The Bills and Loans pages show each bill and due in its own currency and
// their totals in the reporting one, naming what a missing rate left out:
// a ¥5,000 bill and a $1,200 loan over 12 months ($100.00 due in March)
// with no rate beside peso ones.
func TestBillsAndLoansPagesInTheirCurrencies(t *testing.T) {
	env, u, b := webApp(t)
	ctx, l := context.Background(), env.srv.Ledger()
	if _, err := l.UpdateAppSettings(ctx, u.ID, finance.AppSettingsRequest{DateFormat: finance.Of("DD MMM YYYY")}); err != nil {
		t.Fatal(err)
	}
	marchBill(t, env, u, `{"name":"Power","amount":1000,"category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":20,"default_payment_method":"Cash"}`)
	dorm := marchBill(t, env, u, `{"name":"Dorm","currency":"JPY","amount":5000,"category":"Rent & Housing","frequency":"monthly","start_date":"2025-03-01","due_day":25,"default_payment_method":"Cash"}`)
	for _, body := range []string{
		`{"name":"Car","principal":"12000","interest_type":"none","term_months":12,"start_date":"2025-02-20","first_due_date":"2025-03-20"}`,
		`{"name":"Tuition","currency":"USD","principal":"1200","interest_type":"none","term_months":12,"start_date":"2025-02-25","first_due_date":"2025-03-25"}`,
	} {
		var req finance.LoanRequest
		fromJSON(t, body, &req)
		if _, err := l.CreateLoan(ctx, u.ID, req); err != nil {
			t.Fatal(err)
		}
	}

	bills := testkit.Unescaped(b.Get(web.BillsPath))
	wantIn(t, "Bills", bills, `<span class="num">¥5,000</span>`, `<span class="num">₱1,000.00</span>`,
		"<dd>₱1,000.00</dd>", // the month's due, the yen left out, never ₱6,000.00
		"The summary leaves out ¥5,000 (no JPY rate on or before 15 Mar 2025).")
	wantNotIn(t, "Bills", bills, "₱6,000.00", "₱5,000.00")
	wantIn(t, "Bill", testkit.Unescaped(b.Get("/bills/"+dorm.ID)), "<dd>¥5,000</dd>")

	loans := testkit.Unescaped(b.Get(web.LoansPath))
	wantIn(t, "Loans", loans, `<span class="num">$100.00</span>`, `<span class="num">₱1,000.00</span>`,
		"The summary leaves out $100.00 (no USD rate on or before 15 Mar 2025).")
	wantNotIn(t, "Loans", loans, "₱1,100.00", "₱100.00")
	// Home's "Due soon" lists each in its own currency too.
	// Home's "Due soon" lists each in its own currency too, and "Loans owe"
	// counts the peso loan's ₱12,000.00 without the dollars (never
	// ₱13,200.00).
	home := testkit.Unescaped(b.Get(web.HomePath))
	wantIn(t, "Home", home, `<span class="num">¥5,000</span>`, `<span class="num">$100.00</span>`,
		`Loans owe</span><span class="num negative">-₱12,000.00</span>`)
	wantNotIn(t, "Home", home, "-₱13,200.00")

	// With the rates, the totals convert at today's: ¥5,000 × 0.38 = ₱1,900.00
	// and $100.00 × 56.50 = ₱5,650.00, and nothing is named.
	manualRate(t, env, u, "JPY", "PHP", "0.38")
	manualRate(t, env, u, "USD", "PHP", "56.50")
	wantIn(t, "Bills", testkit.Unescaped(b.Get(web.BillsPath)), "<dd>₱2,900.00</dd>", "Rates as of 10 Mar 2025")
	loans = testkit.Unescaped(b.Get(web.LoansPath))
	wantIn(t, "Loans", loans, "<dd>₱6,650.00</dd>")
	wantNotIn(t, "Loans", loans, "leave out")
	// 12,000 + 1,200 × 56.50 = ₱79,800.00 owed on loans.
	wantIn(t, "Home", testkit.Unescaped(b.Get(web.HomePath)), `Loans owe</span><span class="num negative">-₱79,800.00</span>`)
}
