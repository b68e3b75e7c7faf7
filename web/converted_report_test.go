package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// A report page says what its figures are in and, when a rate is missing,
// names each amount it left out in its own currency with the way to add
// the rate; a loan or a card stays in its own currency on the page.
func TestReportPagesSayWhatTheyConverted(t *testing.T) {
	env, u, b := webApp(t)
	ctx, l := context.Background(), env.srv.Ledger()
	wallet := accountIn(t, env, u, "JPY", "Wallet")
	for _, e := range []finance.ExpenseRequest{
		{Amount: finance.Of(finance.Money(1000_00)), PaymentMethod: finance.Of("Cash"), Description: finance.Of("Market")},
		{Amount: finance.Of(finance.Money(3000_00)), PaymentMethod: finance.Of("Account Debit"), AccountID: finance.Of(wallet.ID),
			Description: finance.Of("Train")},
	} {
		e.Date, e.Category = finance.Of(finance.NewDate(2025, 3, 10)), finance.Of("Transportation")
		if _, err := l.CreateExpense(ctx, u.ID, e); err != nil {
			t.Fatal(err)
		}
	}
	const trend = "/reports/spending-trend?dateFrom=2025-03-01&dateTo=2025-03-31"
	page := testkit.Unescaped(b.Get(trend))
	for _, want := range []string{
		`<p class="small muted rates-as-of">Amounts in PHP</p>`,
		"This report leaves out ¥3,000 (no JPY rate on or before 2025-03-10).",
		`<a href="` + web.ExchangeRatesPath + `">Add a rate in Settings → Exchange rates</a>`,
		"₱1,000.00", // the market alone: the yen is never counted 1:1
	} {
		if !strings.Contains(page, want) {
			t.Errorf("without a JPY rate, the trend lacks %s", want)
		}
	}
	if strings.Contains(page, "₱4,000.00") {
		t.Error("the trend counts the yen 1:1")
	}

	// With the rates, 3,000 × 65.20 ÷ 162.40 = 1,204.433497… pesos: the
	// month is 2,204.433497… → ₱2,204.43, and the page names the rates' date.
	manualRate(t, env, u, "EUR", "PHP", "65.20")
	manualRate(t, env, u, "EUR", "JPY", "162.40")
	page = testkit.Unescaped(b.Get(trend))
	for _, want := range []string{`<p class="small muted rates-as-of">Amounts in PHP, rates as of 2025-03-10</p>`, "₱2,204.43"} {
		if !strings.Contains(page, want) {
			t.Errorf("with the rates, the trend lacks %s", want)
		}
	}
	if strings.Contains(page, "leaves out") {
		t.Error("with the rates, the trend still names a missing rate")
	}

	// A yen loan's row is in yen; the total converts it.
	if _, err := l.CreateLoan(ctx, u.ID, finance.LoanRequest{Name: finance.Of("Car"), Principal: finance.Of(finance.Money(100000_00)),
		InterestType: finance.Of(finance.InterestNone), TermMonths: finance.Of(3), StartDate: finance.Of(finance.NewDate(2025, 3, 1)),
		Currency: finance.Of("JPY")}); err != nil {
		t.Fatal(err)
	}
	page = testkit.Unescaped(b.Get("/reports/loans-overview"))
	// 100,000 × 65.20 ÷ 162.40 = 40,147.783251… → ₱40,147.78.
	for _, want := range []string{"<td class=\"num\">¥100,000</td>", "<td>JPY</td>", "₱40,147.78", "rates as of 2025-03-10"} {
		if !strings.Contains(page, want) {
			t.Errorf("the loans overview lacks %s", want)
		}
	}
}
