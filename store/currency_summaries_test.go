package store_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/store"
)

// The worked example of domain.md "Money in more than one currency":
// reporting currency PHP, a PHP checking account, USD savings and a JPY
// wallet, the ECB's rates of 2026-11-20 (EUR → PHP 65.20, EUR → USD 1.0550,
// EUR → JPY 162.40). Every figure below is the document's hand computation.
type fxHousehold struct {
	db                        *store.DB
	svc                       *finance.Service
	user                      finance.User
	checking, savings, wallet finance.Account
	card                      finance.CreditCard
}

var fixtureDay = mustDate("2026-11-20")

func mustDate(s string) finance.Date {
	d, err := finance.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return d
}

func money(t testing.TB, s string) finance.Money {
	t.Helper()
	m, err := finance.ParseMoney(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// newFXHousehold writes the household. The API does not take a currency on
// an account yet, so the accounts are created through the service and
// their currency set in SQL; their balances are stored in hundredths of
// their currency (¥50,000 is 5000000).
func newFXHousehold(t *testing.T, withJPYRate bool) fxHousehold {
	t.Helper()
	ctx := context.Background()
	db := openDB(t)
	h := fxHousehold{db: db, svc: finance.NewService(db), user: createUser(t, db, "fx@example.com")}
	// Noon in Manila on the rates' day.
	h.svc.SetClock(func() time.Time { return time.Date(2026, 11, 20, 4, 0, 0, 0, time.UTC) })
	exec := execer(t, db)
	account := func(name, typ, opening, currency string) finance.Account {
		a, err := h.svc.CreateAccount(ctx, h.user.ID, finance.AccountRequest{Name: finance.Of(name), Type: finance.Of(typ),
			OpeningBalance: finance.Of(money(t, opening))})
		if err != nil {
			t.Fatal(err)
		}
		exec(`UPDATE accounts SET currency = ? WHERE id = ?`, currency, a.ID)
		a.Currency = currency
		return a
	}
	h.checking = account("Checking", "checking", "20000", "PHP")
	h.savings = account("Savings", "savings", "1000", "USD")
	h.wallet = account("Wallet", "e_wallet", "50000", "JPY")
	card, err := h.svc.CreateCreditCard(ctx, h.user.ID, finance.CardRequest{Name: finance.Of("Visa"), Bank: finance.Of("BPI"),
		LastFour: finance.Of("4321"), CreditLimit: finance.Of(money(t, "100000")), StatementDay: finance.Of(5), DueDay: finance.Of(25)})
	if err != nil {
		t.Fatal(err)
	}
	h.card = card
	var rates []finance.ExchangeRate
	for quote, value := range map[string]string{"PHP": "65.20", "USD": "1.0550", "JPY": "162.40"} {
		if quote == "JPY" && !withJPYRate {
			continue
		}
		v, err := finance.ParseFXRate(value)
		if err != nil {
			t.Fatal(err)
		}
		rates = append(rates, finance.ExchangeRate{ID: finance.NewID(), Base: "EUR", Quote: quote, Date: fixtureDay, Rate: v,
			Source: finance.RateSourceECB, CreatedAt: time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)})
	}
	if _, err := h.svc.SaveFetchedRates(ctx, rates); err != nil {
		t.Fatal(err)
	}
	return h
}

// spend records the document's four expenses of 2026-11-20. A Cash expense
// takes no currency through the API yet, so the taxi's is set in SQL; the
// train fare takes the wallet's (JPY) and the ramen the card's (PHP).
func (h fxHousehold) spend(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	add := func(amount, description, category, method, account, card string) finance.Expense {
		r := finance.ExpenseRequest{Amount: finance.Of(money(t, amount)), Date: finance.Of(fixtureDay),
			Description: finance.Of(description), Category: finance.Of(category), PaymentMethod: finance.Of(method)}
		if account != "" {
			r.AccountID = finance.Of(account)
		}
		if card != "" {
			r.CreditCardID = finance.Of(card)
		}
		e, err := h.svc.CreateExpense(ctx, h.user.ID, r)
		if err != nil {
			t.Fatalf("%s: %v", description, err)
		}
		return e
	}
	add("1000", "Groceries", "Food & Dining", finance.MethodCash, "", "")
	taxi := add("25", "Taxi", "Transportation", finance.MethodCash, "", "")
	execer(t, h.db)(`UPDATE expenses SET currency = 'USD' WHERE id = ?`, taxi.ID)
	if train := add("3000", "Train", "Transportation", finance.MethodAccountDebit, h.wallet.ID, ""); train.Currency != "JPY" {
		t.Fatalf("the train fare is in %s, want the wallet's JPY", train.Currency)
	}
	add("5104.93", "Ramen", "Food & Dining", finance.MethodCreditCard, "", h.card.ID)
}

// jsonOf is v as generic JSON, for comparing an answer's fields as a client reads them.
func jsonOf(t testing.TB, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// pick is the named fields of m.
func pick(m map[string]any, names ...string) map[string]any {
	out := map[string]any{}
	for _, n := range names {
		out[n] = m[n]
	}
	return out
}

func netWorthOf(t *testing.T, h fxHousehold) map[string]any {
	t.Helper()
	r, err := h.svc.Report(context.Background(), h.user.ID, finance.ReportRequest{Name: finance.ReportNetWorth})
	if err != nil {
		t.Fatal(err)
	}
	return jsonOf(t, r)
}

func TestNetWorthInTheReportingCurrency(t *testing.T) {
	h := newFXHousehold(t, true)
	got := netWorthOf(t, h)
	want := map[string]any{
		"currency": "PHP", "as_of": "2026-11-20", "net_worth": 101874.84, "rates_as_of": "2026-11-20",
		"missing_rates": []any{},
		"by_currency": []any{
			map[string]any{"currency": "PHP", "total": 20000.0, "converted": 20000.0},
			map[string]any{"currency": "JPY", "total": 50000.0, "converted": 20073.89},
			map[string]any{"currency": "USD", "total": 1000.0, "converted": 61800.95},
		},
	}
	if d := cmp.Diff(want, pick(got, "currency", "as_of", "net_worth", "rates_as_of", "missing_rates", "by_currency")); d != "" {
		t.Errorf("net worth (-want +got):\n%s", d)
	}
	assets := got["assets"].(map[string]any)
	if assets["total"] != 101874.84 {
		t.Errorf("assets total %v, want 101874.84", assets["total"])
	}
	// Each account stays in its own currency.
	for _, a := range assets["accounts"].([]any) {
		a := a.(map[string]any)
		want := map[string]any{"Checking": []any{"PHP", 20000.0}, "Savings": []any{"USD", 1000.0}, "Wallet": []any{"JPY", 50000.0}}[a["name"].(string)]
		if d := cmp.Diff(want, []any{a["currency"], a["balance"]}); d != "" {
			t.Errorf("%s (-want +got):\n%s", a["name"], d)
		}
	}
}

// Without a JPY rate the wallet is left out of net worth and named, never
// counted 1:1.
func TestNetWorthNamesTheMissingRate(t *testing.T) {
	h := newFXHousehold(t, false)
	got := netWorthOf(t, h)
	want := map[string]any{
		"net_worth": 81800.95, "rates_as_of": "2026-11-20",
		"missing_rates": []any{map[string]any{"currency": "JPY", "amount": 50000.0, "date_from": "2026-11-20", "date_to": "2026-11-20"}},
		"by_currency": []any{
			map[string]any{"currency": "PHP", "total": 20000.0, "converted": 20000.0},
			map[string]any{"currency": "JPY", "total": 50000.0, "converted": nil},
			map[string]any{"currency": "USD", "total": 1000.0, "converted": 61800.95},
		},
	}
	if d := cmp.Diff(want, pick(got, "net_worth", "rates_as_of", "missing_rates", "by_currency")); d != "" {
		t.Errorf("net worth (-want +got):\n%s", d)
	}
}

func summaryOf(t *testing.T, h fxHousehold) map[string]any {
	t.Helper()
	s, err := h.svc.ExpenseSummary(context.Background(), h.user.ID, fixtureDay, fixtureDay)
	if err != nil {
		t.Fatal(err)
	}
	return jsonOf(t, s)
}

// The day's spending of the worked example: ₱1,000.00 + $25.00 + ¥3,000 +
// the card's billed ₱5,104.93 = 8,854.387194… → ₱8,854.39, each amount
// converted exactly at its date's rate and the total rounded once.
func TestExpenseSummaryInTheReportingCurrency(t *testing.T) {
	h := newFXHousehold(t, true)
	h.spend(t)
	got := summaryOf(t, h)
	want := map[string]any{
		"currency": "PHP", "total_expenses": 8854.39, "count": 4.0, "rates_as_of": "2026-11-20", "missing_rates": []any{},
		"by_payment_method": []any{
			// ₱1,000 + $25 → 1,545.023696… = 2,545.02
			map[string]any{"payment_method": "Cash", "amount": 2545.02, "count": 2.0},
			// ¥3,000 → 1,204.433497… = 1,204.43
			map[string]any{"payment_method": "Account Debit", "amount": 1204.43, "count": 1.0},
			map[string]any{"payment_method": "Credit Card", "amount": 5104.93, "count": 1.0},
		},
	}
	if d := cmp.Diff(want, pick(got, "currency", "total_expenses", "count", "rates_as_of", "missing_rates", "by_payment_method")); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
	var byCategory []any
	for _, c := range got["by_category"].([]any) {
		c := c.(map[string]any)
		byCategory = append(byCategory, []any{c["category"], c["amount"], c["count"]})
	}
	// Food: ₱1,000 + ₱5,104.93; Transportation: $25 + ¥3,000 → 2,749.457193… = 2,749.46.
	if d := cmp.Diff([]any{[]any{"Food & Dining", 6104.93, 2.0}, []any{"Transportation", 2749.46, 2.0}}, byCategory); d != "" {
		t.Errorf("by category (-want +got):\n%s", d)
	}
	if drift, err := h.db.TotalsDrift(context.Background()); err != nil || len(drift) > 0 {
		t.Errorf("TotalsDrift = %v, %v", drift, err)
	}
}

// Without a JPY rate the train fare is left out and named; the card
// purchase still counts: it was billed in pesos.
func TestExpenseSummaryNamesTheMissingRate(t *testing.T) {
	h := newFXHousehold(t, false)
	h.spend(t)
	got := summaryOf(t, h)
	want := map[string]any{
		"total_expenses": 7649.95, "count": 4.0, "rates_as_of": "2026-11-20",
		"missing_rates": []any{map[string]any{"currency": "JPY", "amount": 3000.0, "date_from": "2026-11-20", "date_to": "2026-11-20"}},
	}
	if d := cmp.Diff(want, pick(got, "total_expenses", "count", "rates_as_of", "missing_rates")); d != "" {
		t.Errorf("summary (-want +got):\n%s", d)
	}
}

// The spending-by-category report (and with it budgets and the dashboard,
// which read spending by category the same way) converts each category's
// lines at their dates' rates, and names what it left out.
func TestSpendingByCategoryInTheReportingCurrency(t *testing.T) {
	for _, tt := range []struct {
		withJPY bool
		want    map[string]any
	}{
		{true, map[string]any{"total": 8854.39, "rates_as_of": "2026-11-20", "missing_rates": []any{}}},
		// Transportation keeps the taxi's 1,545.02 only: 6,104.93 + 1,545.02.
		{false, map[string]any{"total": 7649.95, "rates_as_of": "2026-11-20", "missing_rates": []any{
			map[string]any{"currency": "JPY", "amount": 3000.0, "date_from": "2026-11-20", "date_to": "2026-11-20"}}}},
	} {
		h := newFXHousehold(t, tt.withJPY)
		h.spend(t)
		r, err := h.svc.Report(context.Background(), h.user.ID, finance.ReportRequest{Name: finance.ReportSpendingByCategory,
			From: fixtureDay, To: fixtureDay})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tt.want, pick(jsonOf(t, r), "total", "rates_as_of", "missing_rates")); d != "" {
			t.Errorf("with a JPY rate %v (-want +got):\n%s", tt.withJPY, d)
		}
	}
}

// The dashboard's account total converts each balance at today's rate, as
// net worth does: ₱101,874.84 for the fixture, never the 1:1 sum 71,000;
// without the JPY rate the wallet is left out (₱81,800.95).
func TestDashboardAccountTotalInTheReportingCurrency(t *testing.T) {
	for _, c := range []struct {
		withJPY bool
		want    string
	}{{true, "101874.84"}, {false, "81800.95"}} {
		h := newFXHousehold(t, c.withJPY)
		d, err := h.svc.Dashboard(context.Background(), h.user.ID, finance.Date{})
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Accounts.TotalBalance.String(); got != c.want {
			t.Errorf("with the JPY rate %v: total_balance %s, want %s", c.withJPY, got, c.want)
		}
	}
}

// earnPay records three incomes of 2026-11-20: ₱10,000.00 without an account,
// $500.00 into Savings and ¥10,000 into the Wallet.
func (h fxHousehold) earnPay(t *testing.T) {
	t.Helper()
	for _, in := range []struct{ amount, account string }{{"10000", ""}, {"500", h.savings.ID}, {"10000", h.wallet.ID}} {
		r := finance.IncomeRequest{Amount: finance.Of(money(t, in.amount)), Date: finance.Of(fixtureDay),
			Category: finance.Of("Salary"), Description: finance.Of("Pay")}
		if in.account != "" {
			r.AccountID = finance.Of(in.account)
		}
		if _, err := h.svc.CreateIncome(context.Background(), h.user.ID, r); err != nil {
			t.Fatal(err)
		}
	}
}

// addRates saves the ECB's rates of date, quote by quote.
func (h fxHousehold) addRates(t *testing.T, date finance.Date, rates map[string]string) {
	t.Helper()
	var out []finance.ExchangeRate
	for quote, value := range rates {
		v, err := finance.ParseFXRate(value)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, finance.ExchangeRate{ID: finance.NewID(), Base: "EUR", Quote: quote, Date: date, Rate: v,
			Source: finance.RateSourceECB, CreatedAt: time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)})
	}
	if _, err := h.svc.SaveFetchedRates(context.Background(), out); err != nil {
		t.Fatal(err)
	}
}

// The dashboard answers every total in the reporting currency with one
// note, and each account and recent entry in its own currency:
//
//   - income: ₱10,000 + $500 → 30,900.473933… + ¥10,000 → 4,014.778325…
//     = 44,915.252258… → ₱44,915.25 (never the 1:1 sum 20,500.00);
//   - spending: the worked example's ₱8,854.39; net 36,060.86;
//   - balances: Checking ₱20,000, Savings $1,500 → 92,701.421800…, Wallet
//     ¥57,000 (50,000 + 10,000 − 3,000) → 22,884.236453… = ₱135,585.66.
//
// Without a JPY rate each yen figure is left out and the note names the
// yen the dashboard left out: ¥3,000 of spending, ¥10,000 of income and
// the wallet's ¥57,000.
func TestDashboardInTheReportingCurrency(t *testing.T) {
	for _, c := range []struct {
		withJPY bool
		want    map[string]any
	}{
		{true, map[string]any{"currency": "PHP", "rates_as_of": "2026-11-20", "missing_rates": []any{},
			"totals":   map[string]any{"income": 44915.25, "spending": 8854.39, "net": 36060.86},
			"accounts": 135585.66}},
		// 10,000 + 30,900.473933… = 40,900.47; 20,000 + 92,701.421800… = 112,701.42.
		{false, map[string]any{"currency": "PHP", "rates_as_of": "2026-11-20", "missing_rates": missingJPY(70000, "2026-11-20", "2026-11-20"),
			"totals":   map[string]any{"income": 40900.47, "spending": 7649.95, "net": 33250.52},
			"accounts": 112701.42}},
	} {
		h := newFXHousehold(t, c.withJPY)
		h.spend(t)
		h.earnPay(t)
		d, err := h.svc.Dashboard(context.Background(), h.user.ID, finance.Date{})
		if err != nil {
			t.Fatal(err)
		}
		got := jsonOf(t, d)
		got["accounts"] = got["accounts"].(map[string]any)["total_balance"]
		if diff := cmp.Diff(c.want, pick(got, "currency", "rates_as_of", "missing_rates", "totals", "accounts")); diff != "" {
			t.Errorf("with a JPY rate %v (-want +got):\n%s", c.withJPY, diff)
		}
		// Each account and entry keeps its own amount, in its own currency.
		var items []any
		for _, a := range d.Accounts.Items {
			items = append(items, []any{a.Name, a.Currency, a.CurrentBalance.String()})
		}
		for _, r := range d.Recent {
			if r.Kind == "income" {
				items = append(items, []any{"income", r.Currency, r.Amount.String()})
			}
		}
		want := []any{[]any{"Checking", "PHP", "20000.00"}, []any{"Savings", "USD", "1500.00"}, []any{"Wallet", "JPY", "57000.00"},
			[]any{"income", "JPY", "10000.00"}, []any{"income", "USD", "500.00"}, []any{"income", "PHP", "10000.00"}}
		if diff := cmp.Diff(want, items); diff != "" {
			t.Errorf("with a JPY rate %v, accounts and income (-want +got):\n%s", c.withJPY, diff)
		}
	}
}

// listSummary is the summary of GET /expenses or GET /income through f.
func expenseListSummary(t *testing.T, h fxHousehold, f finance.ExpenseFilter) map[string]any {
	t.Helper()
	if f.Status == "" {
		f.Status = finance.StatusActive
	}
	p, err := h.svc.ListExpenses(context.Background(), h.user.ID, f, finance.ListParams{Page: 1, Limit: 2, SortBy: "date", Desc: true})
	if err != nil {
		t.Fatal(err)
	}
	return jsonOf(t, p)["summary"].(map[string]any)
}

// The expense list's total converts each expense at its date's rate, over
// the whole filtered set: unfiltered (read from the kept counts and daily
// totals), filtered (summed from the rows), voided; a missing rate leaves
// the yen out and names them. A list in the reporting currency alone
// converts nothing.
func TestExpenseListTotalInTheReportingCurrency(t *testing.T) {
	for _, withJPY := range []bool{true, false} {
		h := newFXHousehold(t, withJPY)
		h.spend(t)
		ok := func(total float64) map[string]any {
			return map[string]any{"count": 4.0, "total": total, "currency": "PHP", "rates_as_of": "2026-11-20", "missing_rates": []any{}}
		}
		cases := []struct {
			name string
			f    finance.ExpenseFilter
			want map[string]any
		}{
			// ₱1,000 + $25 + ¥3,000 + ₱5,104.93 = 8,854.387194… (the worked example).
			{"every expense", finance.ExpenseFilter{}, ok(8854.39)},
			// $25 → 1,545.023696… and ¥3,000 → 1,204.433497… = 2,749.457193…
			{"Transportation", finance.ExpenseFilter{Category: "Transportation"},
				map[string]any{"count": 2.0, "total": 2749.46, "currency": "PHP", "rates_as_of": "2026-11-20", "missing_rates": []any{}}},
			{"in pesos only", finance.ExpenseFilter{PaymentMethod: finance.MethodCreditCard},
				map[string]any{"count": 1.0, "total": 5104.93, "currency": "PHP", "rates_as_of": nil, "missing_rates": []any{}}},
		}
		if !withJPY {
			cases[0].want = map[string]any{"count": 4.0, "total": 7649.95, "currency": "PHP", "rates_as_of": "2026-11-20", "missing_rates": missingJPY(3000, "2026-11-20", "2026-11-20")}
			cases[1].want = map[string]any{"count": 2.0, "total": 1545.02, "currency": "PHP", "rates_as_of": "2026-11-20", "missing_rates": missingJPY(3000, "2026-11-20", "2026-11-20")}
		}
		for _, c := range cases {
			if d := cmp.Diff(c.want, expenseListSummary(t, h, c.f)); d != "" {
				t.Errorf("with a JPY rate %v, %s (-want +got):\n%s", withJPY, c.name, d)
			}
		}
	}
}

// Voided expenses in another currency convert as active ones do; the kept
// count and total of the voided still say how many and how much.
func TestVoidedExpenseListTotalInTheReportingCurrency(t *testing.T) {
	h := newFXHousehold(t, true)
	h.spend(t)
	execer(t, h.db)(`UPDATE expenses SET status = 'voided' WHERE description IN ('Taxi', 'Groceries')`)
	// $25 → 1,545.023696… + ₱1,000.
	want := map[string]any{"count": 2.0, "total": 2545.02, "currency": "PHP", "rates_as_of": "2026-11-20", "missing_rates": []any{}}
	if d := cmp.Diff(want, expenseListSummary(t, h, finance.ExpenseFilter{Status: finance.StatusVoided})); d != "" {
		t.Errorf("voided (-want +got):\n%s", d)
	}
	// ¥3,000 → 1,204.433497… + ₱5,104.93.
	want = map[string]any{"count": 2.0, "total": 6309.36, "currency": "PHP", "rates_as_of": "2026-11-20", "missing_rates": []any{}}
	if d := cmp.Diff(want, expenseListSummary(t, h, finance.ExpenseFilter{})); d != "" {
		t.Errorf("active (-want +got):\n%s", d)
	}
}

// The income list's total converts as the dashboard's income does.
func TestIncomeListTotalInTheReportingCurrency(t *testing.T) {
	for _, c := range []struct {
		withJPY bool
		want    map[string]any
	}{
		{true, map[string]any{"count": 3.0, "total": 44915.25, "currency": "PHP", "rates_as_of": "2026-11-20", "missing_rates": []any{}}},
		{false, map[string]any{"count": 3.0, "total": 40900.47, "currency": "PHP", "rates_as_of": "2026-11-20", "missing_rates": missingJPY(10000, "2026-11-20", "2026-11-20")}},
	} {
		h := newFXHousehold(t, c.withJPY)
		h.earnPay(t)
		p, err := h.svc.ListIncome(context.Background(), h.user.ID, finance.IncomeFilter{Status: finance.StatusActive},
			finance.ListParams{Page: 1, Limit: 1, SortBy: "date", Desc: true})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(c.want, jsonOf(t, p)["summary"]); d != "" {
			t.Errorf("with a JPY rate %v (-want +got):\n%s", c.withJPY, d)
		}
	}
}

// The accounts list answers each currency's balances over every account
// the filter selects, on every page, with its value at today's rate.
func TestAccountListByCurrency(t *testing.T) {
	for _, c := range []struct {
		withJPY bool
		jpy     any
	}{{true, 20073.89}, {false, nil}} {
		h := newFXHousehold(t, c.withJPY)
		// A second page of one account still answers every account's lines.
		p, err := h.svc.ListAccounts(context.Background(), h.user.ID, finance.AccountFilter{Status: finance.StatusActive},
			finance.ListParams{Page: 2, Limit: 1, SortBy: "name"})
		if err != nil {
			t.Fatal(err)
		}
		want := []any{
			map[string]any{"currency": "PHP", "total": 20000.0, "converted": 20000.0},
			map[string]any{"currency": "JPY", "total": 50000.0, "converted": c.jpy},
			map[string]any{"currency": "USD", "total": 1000.0, "converted": 61800.95},
		}
		got := jsonOf(t, p)
		if d := cmp.Diff(want, got["by_currency"]); d != "" || len(p.Items) != 1 {
			t.Errorf("with a JPY rate %v, %d items (-want +got):\n%s", c.withJPY, len(p.Items), d)
		}
		// A filter narrows the lines as it narrows the list.
		p, err = h.svc.ListAccounts(context.Background(), h.user.ID, finance.AccountFilter{Status: finance.StatusActive, Search: "Sav"},
			finance.ListParams{Page: 1, Limit: 20, SortBy: "name"})
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]any{want[2]}, jsonOf(t, p)["by_currency"]); d != "" {
			t.Errorf("with a JPY rate %v, Savings only (-want +got):\n%s", c.withJPY, d)
		}
	}
}

// Home's net worth chart converts each month's end at that day's rate.
// The ECB's rates of 2026-10-30 know PHP and USD only (EUR → PHP 64.00,
// EUR → USD 1.0800); the household earned $500 and ¥10,000 on 2026-11-20.
//
//   - November (today): 20,000 + $1,500 → 92,701.421800… + ¥60,000 →
//     24,088.669950… = ₱136,790.09, nothing left out;
//   - October 31: 20,000 + $1,000 at 64.00 ÷ 1.08 → 59,259.259259… =
//     ₱79,259.26, the yen left out (no JPY rate on or before the 31st);
//   - September 30: no rate at all: ₱20,000.00, yen and dollars left out.
func TestNetWorthHistoryConvertsEachMonthEnd(t *testing.T) {
	h := newFXHousehold(t, true)
	h.earnPay(t)
	h.addRates(t, mustDate("2026-10-30"), map[string]string{"PHP": "64.00", "USD": "1.0800"})
	_, points, err := h.svc.NetWorthHistory(context.Background(), h.user.ID, fixtureDay, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got []any
	for _, p := range points {
		got = append(got, []any{p.Month.String(), p.NetWorth.String(), p.Missing})
	}
	want := []any{
		[]any{"2026-09-01", "20000.00", []string{"JPY", "USD"}},
		[]any{"2026-10-01", "79259.26", []string{"JPY"}},
		[]any{"2026-11-01", "136790.09", []string(nil)},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("net worth by month (-want +got):\n%s", d)
	}
}
