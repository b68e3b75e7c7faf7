package server

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Tests of docs/domain.md "Converting for summaries" on the card metrics,
// the month's loan dues and the bill summary: each record's figures in its
// own currency, the totals in the reporting currency at today's rate, a
// currency without a rate left out and named, never added 1:1.

// newSumsEnv is a server whose today is 2025-03-11 with a PHP user whose
// key writes cards, loans, bills, accounts and rates.
func newSumsEnv(t *testing.T) ledgerUser {
	t.Helper()
	env := newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	u := env.createUser(finance.PlanPro)
	return ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeCardsWrite, auth.ScopeLoansWrite,
		auth.ScopeBillsWrite, auth.ScopeAccountsWrite, auth.ScopeSettingsWrite)}
}

// reader is u with a key that reads everything (finance:read), for the
// summaries the write-scoped key of newSumsEnv may not read.
func (u ledgerUser) reader() ledgerUser {
	return ledgerUser{env: u.env, user: u.user, key: u.env.createKey(u.user.ID, auth.ScopeRead)}
}

// enterRate enters the person's own rate of 2025-03-10 and returns its id.
func (u ledgerUser) enterRate(t testing.TB, base, quote, rate string) string {
	t.Helper()
	var r struct {
		ID string `json:"id"`
	}
	u.do(t, http.MethodPost, ratesURL, `{"base":"`+base+`","quote":"`+quote+`","date":"2025-03-10","rate":"`+rate+`"}`,
		http.StatusCreated).decodeData(t, &r)
	return r.ID
}

// noteOf reads an answer's currency, rates_as_of and missing_rates.
func noteOf(t testing.TB, res apiResult) map[string]any {
	t.Helper()
	var data map[string]json.RawMessage
	res.decodeData(t, &data)
	out := map[string]any{}
	for _, k := range []string{"currency", "rates_as_of", "missing_rates"} {
		var v any
		dec := json.NewDecoder(bytes.NewReader(data[k]))
		dec.UseNumber() // amounts compared as written, never through float64
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v in %s", k, err, res.env.Data)
		}
		out[k] = v
	}
	return out
}

func missing(currency, amount string) map[string]any {
	return map[string]any{"currency": currency, "amount": jsonMoney(amount), "date_from": "2025-03-11", "date_to": "2025-03-11"}
}

func TestCardMetricsConvertEachCardAtTodaysRate(t *testing.T) {
	alice := newSumsEnv(t)
	visa := alice.createCard(t, `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5}`)
	amex := alice.createCard(t, `{"name":"Amex","currency":"USD","credit_limit":1000,"statement_day":15,"due_day":5}`)
	alice.purchase(t, visa.ID, "1000.00", "2025-03-02")
	alice.purchase(t, amex.ID, "100.00", "2025-03-02")
	usd := alice.enterRate(t, "USD", "PHP", "56.50")

	res := alice.do(t, http.MethodGet, "/api/v1/credit-cards/metrics", "", http.StatusOK)
	var m finance.CardMetrics
	res.decodeData(t, &m)
	// Each card keeps its own figures in its own currency.
	for _, c := range m.Cards {
		want := map[string]string{"Visa": "PHP", "Amex": "USD"}[c.Name]
		if c.Currency != want {
			t.Errorf("%s answers currency %q, want %q", c.Name, c.Currency, want)
		}
	}
	if got := m.Cards[0]; got.Name != "Amex" || got.CreditLimit != 1000_00 || got.OutstandingBalance != 100_00 || got.UtilizationPercent != 10_00 {
		t.Errorf("Amex in dollars: %+v", got)
	}
	// Limits 50,000 + 1,000 × 56.50 = 106,500.00; owed 1,000 + 100 × 56.50
	// = 6,650.00; available 99,850.00; 6,650 / 106,500 = 6.244…% → 6.24.
	want := finance.MetricFigures{CreditLimit: 106_500_00, OutstandingBalance: 6_650_00, AvailableCredit: 99_850_00,
		UtilizationPercent: 6_24, UnbilledTotal: 6_650_00}
	if diff := cmp.Diff(want, m.Totals); diff != "" {
		t.Errorf("totals with the dollar rate (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"currency": "PHP", "rates_as_of": "2025-03-10", "missing_rates": []any{}}, noteOf(t, res)); diff != "" {
		t.Errorf("note with the rate (-want +got):\n%s", diff)
	}

	// Without a dollar rate the Amex is left out of every amount, named by
	// its limit, never counted 1:1 (which would say 51,000.00 and 1,100.00).
	alice.do(t, http.MethodDelete, ratesURL+"/"+usd, "", http.StatusOK)
	res = alice.do(t, http.MethodGet, "/api/v1/credit-cards/metrics", "", http.StatusOK)
	res.decodeData(t, &m)
	want = finance.MetricFigures{CreditLimit: 50_000_00, OutstandingBalance: 1_000_00, AvailableCredit: 49_000_00,
		UtilizationPercent: 2_00, UnbilledTotal: 1_000_00}
	if diff := cmp.Diff(want, m.Totals); diff != "" {
		t.Errorf("totals without the dollar rate (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"currency": "PHP", "rates_as_of": nil, "missing_rates": []any{missing("USD", "1000.00")}},
		noteOf(t, res)); diff != "" {
		t.Errorf("note without the rate (-want +got):\n%s", diff)
	}
}

func TestLoanDuesConvertEachLoanAtTodaysRate(t *testing.T) {
	alice := newSumsEnv(t)
	alice.createLoan(t, `{"name":"Car","principal":12000,"interest_type":"none","term_months":12,"start_date":"2025-02-20","first_due_date":"2025-03-20"}`)
	alice.createLoan(t, `{"name":"Tuition","currency":"USD","principal":1200,"interest_type":"none","term_months":12,"start_date":"2025-02-25","first_due_date":"2025-03-25"}`)
	usd := alice.enterRate(t, "USD", "PHP", "56.50")

	res := alice.do(t, http.MethodGet, "/api/v1/loans/current-month-dues", "", http.StatusOK)
	var dues finance.LoanDues
	res.decodeData(t, &dues)
	currencies := map[string]string{}
	for _, in := range dues.Items {
		currencies[in.LoanName] = in.Currency
	}
	if diff := cmp.Diff(map[string]string{"Car": "PHP", "Tuition": "USD"}, currencies); diff != "" {
		t.Errorf("each instance in its loan's currency (-want +got):\n%s", diff)
	}
	// ₱1,000.00 + $100.00 × 56.50 = ₱6,650.00 due, nothing paid yet.
	want := finance.LoanDuesSummary{DueAmount: 6_650_00, RemainingAmount: 6_650_00, Count: 2}
	if diff := cmp.Diff(want, dues.Summary); diff != "" {
		t.Errorf("summary with the dollar rate (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"currency": "PHP", "rates_as_of": "2025-03-10", "missing_rates": []any{}}, noteOf(t, res)); diff != "" {
		t.Errorf("note with the rate (-want +got):\n%s", diff)
	}

	// Without the rate: ₱1,000.00 and the $100.00 named, not ₱1,100.00.
	alice.do(t, http.MethodDelete, ratesURL+"/"+usd, "", http.StatusOK)
	res = alice.do(t, http.MethodGet, "/api/v1/loans/current-month-dues", "", http.StatusOK)
	res.decodeData(t, &dues)
	want = finance.LoanDuesSummary{DueAmount: 1_000_00, RemainingAmount: 1_000_00, Count: 2}
	if diff := cmp.Diff(want, dues.Summary); diff != "" {
		t.Errorf("summary without the dollar rate (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"currency": "PHP", "rates_as_of": nil, "missing_rates": []any{missing("USD", "100.00")}},
		noteOf(t, res)); diff != "" {
		t.Errorf("note without the rate (-want +got):\n%s", diff)
	}
}

func TestBillSummaryConvertsEachBillAtTodaysRate(t *testing.T) {
	alice := newSumsEnv(t)
	alice.createTemplate(t, `{"name":"Power","amount":1000,"category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":20,"default_payment_method":"Cash"}`)
	alice.createTemplate(t, `{"name":"Dorm","currency":"JPY","amount":5000,"category":"Rent & Housing","frequency":"monthly","start_date":"2025-03-01","due_day":25,"default_payment_method":"Cash"}`)
	jpy := alice.enterRate(t, "JPY", "PHP", "0.38")

	res := alice.do(t, http.MethodGet, billsURL+"/summary", "", http.StatusOK)
	var sum finance.BillSummary
	res.decodeData(t, &sum)
	currencies := map[string]string{}
	for _, b := range sum.Upcoming {
		currencies[b.Name] = b.Currency
	}
	if diff := cmp.Diff(map[string]string{"Power": "PHP", "Dorm": "JPY"}, currencies); diff != "" {
		t.Errorf("each upcoming bill in its template's currency (-want +got):\n%s", diff)
	}
	// ₱1,000.00 + ¥5,000 × 0.38 = ₱2,900.00 due and unpaid.
	if sum.TotalCount != 2 || sum.TotalAmount != 2_900_00 || sum.RemainingAmount != 2_900_00 || sum.PaidAmount != 0 ||
		sum.ByStatus.Unpaid != (finance.CountAmount{Count: 2, Amount: 2_900_00}) {
		t.Errorf("summary with the yen rate: %+v", sum)
	}
	if diff := cmp.Diff(map[string]any{"currency": "PHP", "rates_as_of": "2025-03-10", "missing_rates": []any{}}, noteOf(t, res)); diff != "" {
		t.Errorf("note with the rate (-want +got):\n%s", diff)
	}

	// Without the rate: ₱1,000.00 and the ¥5,000 named, not ₱6,000.00.
	alice.do(t, http.MethodDelete, ratesURL+"/"+jpy, "", http.StatusOK)
	res = alice.do(t, http.MethodGet, billsURL+"/summary", "", http.StatusOK)
	res.decodeData(t, &sum)
	if sum.TotalCount != 2 || sum.TotalAmount != 1_000_00 || sum.RemainingAmount != 1_000_00 ||
		sum.ByStatus.Unpaid != (finance.CountAmount{Count: 2, Amount: 1_000_00}) {
		t.Errorf("summary without the yen rate: %+v", sum)
	}
	if diff := cmp.Diff(map[string]any{"currency": "PHP", "rates_as_of": nil, "missing_rates": []any{missing("JPY", "5000.00")}},
		noteOf(t, res)); diff != "" {
		t.Errorf("note without the rate (-want +got):\n%s", diff)
	}
}

// The dashboard's cards, loans and bills blocks are those three summaries'
// totals, converted the same way, and what they leave out joins the
// dashboard's one note: a dollar card and loan and a yen bill beside peso
// ones.
func TestDashboardCardsLoansAndBillsConvert(t *testing.T) {
	alice := newSumsEnv(t)
	visa := alice.createCard(t, `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5}`)
	amex := alice.createCard(t, `{"name":"Amex","currency":"USD","credit_limit":1000,"statement_day":15,"due_day":5}`)
	alice.purchase(t, visa.ID, "1000.00", "2025-03-02")
	alice.purchase(t, amex.ID, "100.00", "2025-03-02")
	alice.createLoan(t, `{"name":"Car","principal":12000,"interest_type":"none","term_months":12,"start_date":"2025-02-20","first_due_date":"2025-03-20"}`)
	alice.createLoan(t, `{"name":"Tuition","currency":"USD","principal":1200,"interest_type":"none","term_months":12,"start_date":"2025-02-25","first_due_date":"2025-03-25"}`)
	alice.createTemplate(t, `{"name":"Power","amount":1000,"category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":20,"default_payment_method":"Cash"}`)
	alice.createTemplate(t, `{"name":"Dorm","currency":"JPY","amount":5000,"category":"Rent & Housing","frequency":"monthly","start_date":"2025-03-01","due_day":25,"default_payment_method":"Cash"}`)
	usd := alice.enterRate(t, "USD", "PHP", "56.50")
	jpy := alice.enterRate(t, "JPY", "PHP", "0.38")

	reader := alice.reader()
	read := func() (finance.Dashboard, map[string]any) {
		res := reader.do(t, http.MethodGet, "/api/v1/dashboard", "", http.StatusOK)
		var d finance.Dashboard
		res.decodeData(t, &d)
		return d, noteOf(t, res)
	}
	// With the rates: owed ₱1,000.00 + $100.00 × 56.50 = ₱6,650.00 of
	// ₱106,500.00; loans ₱1,000.00 + $100.00 × 56.50 = ₱6,650.00 due;
	// bills ₱1,000.00 + ¥5,000 × 0.38 = ₱2,900.00 due.
	d, note := read()
	if d.CreditCards.OutstandingBalance != 6_650_00 || d.CreditCards.AvailableCredit != 99_850_00 ||
		d.CreditCards.UtilizationPercent != 6_24 {
		t.Errorf("cards with the rate: %+v", d.CreditCards)
	}
	if d.Loans.DueAmount != 6_650_00 || d.Bills.DueAmount != 2_900_00 {
		t.Errorf("loans due %s, bills due %s with the rates; want 6650.00 and 2900.00", d.Loans.DueAmount, d.Bills.DueAmount)
	}
	// The month's $100.00 purchase of 2025-03-02 converts at its own date,
	// before the rate of 2025-03-10: it alone is named.
	purchase := map[string]any{"currency": "USD", "amount": jsonMoney("100.00"), "date_from": "2025-03-02", "date_to": "2025-03-02"}
	if diff := cmp.Diff(map[string]any{"currency": "PHP", "rates_as_of": "2025-03-10", "missing_rates": []any{purchase}}, note); diff != "" {
		t.Errorf("note with the rates (-want +got):\n%s", diff)
	}

	// Without them the dollars and yen are left out and named once in the
	// dashboard's note, which adds each currency's left-out money over its
	// figures: the Amex's $1,000.00 limit, the loan's $100.00 due and the
	// month's $100.00 purchase of 2025-03-02 make $1,200.00; never 1:1.
	alice.do(t, http.MethodDelete, ratesURL+"/"+usd, "", http.StatusOK)
	alice.do(t, http.MethodDelete, ratesURL+"/"+jpy, "", http.StatusOK)
	d, note = read()
	if d.CreditCards.OutstandingBalance != 1_000_00 || d.CreditCards.AvailableCredit != 49_000_00 ||
		d.Loans.DueAmount != 1_000_00 || d.Bills.DueAmount != 1_000_00 {
		t.Errorf("without the rates: cards %+v, loans due %s, bills due %s", d.CreditCards, d.Loans.DueAmount, d.Bills.DueAmount)
	}
	if diff := cmp.Diff(map[string]any{"currency": "PHP", "rates_as_of": nil,
		"missing_rates": []any{missing("JPY", "5000.00"),
			map[string]any{"currency": "USD", "amount": jsonMoney("1200.00"), "date_from": "2025-03-02", "date_to": "2025-03-11"}}}, note); diff != "" {
		t.Errorf("note without the rates (-want +got):\n%s", diff)
	}
}

// Each record answers the currency its amounts are in, read from its
// account, card, loan or template: a household's dollar and yen records
// through REST.
func TestRecordsAnswerTheirCurrency(t *testing.T) {
	alice := newSumsEnv(t)
	alice.key = alice.env.createKey(alice.user.ID, auth.ScopeCardsWrite, auth.ScopeBillsWrite, auth.ScopeAccountsWrite,
		auth.ScopeIncomeWrite)
	savings := alice.createAccount(t, `{"name":"Savings","type":"savings","currency":"USD","opening_balance":"500.00"}`)
	wallet := alice.createAccount(t, `{"name":"Wallet","type":"cash","currency":"JPY","opening_balance":"20000"}`)
	alice.do(t, http.MethodPost, "/api/v1/accounts/"+savings.ID+"/transactions",
		`{"type":"credit","amount":"10.00","date":"2025-03-01","description":"interest"}`, http.StatusCreated)
	amex := alice.createCard(t, `{"name":"Amex","currency":"USD","credit_limit":1000,"statement_day":15,"due_day":5}`)
	tv := alice.purchase(t, amex.ID, "600.00", "2025-03-02")
	plan := alice.convert(t, tv.ID, `{"months":2,"interest_type":"none"}`)
	alice.purchase(t, amex.ID, "20.00", "2025-03-03")
	dorm := alice.createTemplate(t, `{"name":"Dorm","currency":"JPY","amount":5000,"category":"Rent & Housing","frequency":"monthly","start_date":"2025-03-01","due_day":25}`)
	bill := alice.billOn(t, dorm.ID, "2025-03-25")
	paid := alice.payBill(t, bill.ID, `{"amount":"1000","payment_method":"Account Debit","account_id":"`+wallet.ID+`"}`)
	salary := alice.createIncomeTemplate(t, `{"name":"Salary","amount":"2000.00","category":"Salary","frequency":"monthly","start_date":"2025-03-01","due_day":30,"account_id":"`+savings.ID+`"}`)

	lines, _ := page[finance.AccountTransaction](t, alice, "/api/v1/accounts/"+savings.ID+"/transactions")
	payments, _ := page[finance.BillPayment](t, alice, billsURL+"/"+bill.ID+"/payments")
	unbilled := send[finance.UnbilledPage](t, alice, http.MethodGet, "/api/v1/credit-cards/"+amex.ID+"/unbilled-transactions", "", http.StatusOK)
	cardOptions := send[finance.CardFormOptions](t, alice, http.MethodGet, "/api/v1/credit-cards/form-options", "", http.StatusOK)
	got := map[string]string{
		"account line":              lines[0].Currency,
		"bill":                      alice.bill(t, bill.ID).Currency,
		"bill payment, as written":  paid.Payment.Currency,
		"bill payment, as read":     payments[0].Currency,
		"installment plan, written": plan.Currency,
		"installment plan, read":    send[finance.InstallmentPlanDetail](t, alice, http.MethodGet, "/api/v1/credit-cards/installment-plans/"+plan.ID, "", http.StatusOK).Currency,
		"unbilled list":             unbilled.Currency,
		"expected income":           alice.expectedOn(t, salary.ID, "2025-03-30").Currency,
	}
	for _, a := range cardOptions.Accounts {
		got["account option "+a.Name] = a.Currency
	}
	for _, c := range cardOptions.CreditCards {
		got["card option "+c.Name] = c.Currency
	}
	want := map[string]string{
		"account line": "USD", "bill": "JPY", "bill payment, as written": "JPY", "bill payment, as read": "JPY",
		"installment plan, written": "USD", "installment plan, read": "USD", "unbilled list": "USD", "expected income": "USD",
		"account option Savings": "USD", "account option Wallet": "JPY", "card option Amex": "USD",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("currencies (-want +got):\n%s", diff)
	}
	// The unbilled list's total is in the card's dollars: the plan's two
	// $300.00 rows and the $20.00 purchase (the $600.00 one converted to
	// installments counts nothing).
	if unbilled.Summary.Total != 620_00 {
		t.Errorf("unbilled total %s, want 620.00", unbilled.Summary.Total)
	}
}

// A bill or loan installment is paid in its own currency: an account or card
// in another is a 400 naming it, with nothing written; a Cash payment is in
// the bill's currency. Before this rule a peso payment of a yen bill was
// added to what the bill had been paid as if it were yen.
func TestPaymentsAreInWhatTheyPay(t *testing.T) {
	alice := newSumsEnv(t)
	pesos := alice.createAccount(t, `{"name":"Checking","type":"savings","opening_balance":"50000"}`)
	yen := alice.accountIn(t, "JPY", `{"name":"Wallet","type":"savings","opening_balance":"100000"}`)
	visa := alice.createCard(t, `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5}`)
	tpl := alice.createTemplate(t, `{"name":"Dorm","currency":"JPY","amount":5000,"category":"Rent & Housing","frequency":"monthly","start_date":"2025-03-01","due_day":25,"default_payment_method":"Cash"}`)
	dorm := alice.billOn(t, tpl.ID, "2025-03-25")
	payURL := billsURL + "/" + dorm.ID + "/payments"

	alice.sc(apiScenario{name: "pay a yen bill from a peso account", method: http.MethodPost, url: payURL,
		body:       `{"amount":"5000","payment_method":"Account Debit","account_id":"` + pesos.ID + `"}`,
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		wantFields: map[string]string{"account_id": "must be an account in JPY, the currency of what it pays; this one is in PHP"}}).run(t, alice.env)
	alice.sc(apiScenario{name: "pay a yen bill with a peso card", method: http.MethodPost, url: payURL,
		body:       `{"amount":"5000","payment_method":"Credit Card","credit_card_id":"` + visa.ID + `"}`,
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		wantFields: map[string]string{"credit_card_id": "must be a card in JPY, the currency of what it pays; this one is in PHP"}}).run(t, alice.env)
	if b := alice.bill(t, dorm.ID); b.PaidTotal != 0 || b.Status != finance.BillUnpaid {
		t.Errorf("refused payments changed the bill: paid %s, %s", b.PaidTotal, b.Status)
	}
	if a := alice.account(t, pesos.ID); a.CurrentBalance != 50000_00 {
		t.Errorf("a refused payment moved the peso account to %s", a.CurrentBalance)
	}

	// From the yen wallet, and in cash: both in yen.
	paid := alice.payBill(t, dorm.ID, `{"amount":"2000","payment_method":"Account Debit","account_id":"`+yen.ID+`"}`)
	if paid.Payment.Currency != "JPY" {
		t.Errorf("the wallet's payment is in %q", paid.Payment.Currency)
	}
	cash := alice.payBill(t, dorm.ID, `{"amount":"3000","payment_method":"Cash"}`)
	if cash.Payment.Currency != "JPY" { // its expense's
		t.Errorf("a cash payment of a yen bill is in %q", cash.Payment.Currency)
	}
	if b := alice.bill(t, dorm.ID); b.PaidTotal != 5000_00 || b.Status != finance.BillPaid {
		t.Errorf("after ¥2,000 and ¥3,000: paid %s, %s", b.PaidTotal, b.Status)
	}

	// A dollar loan's installment from the peso account is refused too.
	loan := alice.createLoan(t, `{"name":"Tuition","currency":"USD","principal":1200,"interest_type":"none","term_months":12,"start_date":"2025-02-25","first_due_date":"2025-03-25"}`)
	alice.sc(apiScenario{name: "pay a dollar loan from a peso account", method: http.MethodPost,
		url:        "/api/v1/loans/instances/" + loan.Instances[0].ID + "/payments",
		body:       `{"amount":"100","account_id":"` + pesos.ID + `"}`,
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		wantFields: map[string]string{"account_id": "must be an account in USD, the currency of what it pays; this one is in PHP"}}).run(t, alice.env)
	if l := alice.loan(t, loan.ID); l.PaidTotal != 0 {
		t.Errorf("a refused payment paid the loan %s", l.PaidTotal)
	}
}

// The month's usage of each card stays in its currency; the totals convert
// at the rate of the month's last day (today for this month) and a card
// without a rate is left out, named by what it charged.
func TestCardUsageConvertsEachCard(t *testing.T) {
	alice := newSumsEnv(t)
	visa := alice.createCard(t, `{"name":"Visa","credit_limit":50000,"statement_day":15,"due_day":5}`)
	amex := alice.createCard(t, `{"name":"Amex","currency":"USD","credit_limit":1000,"statement_day":15,"due_day":5}`)
	alice.purchase(t, visa.ID, "1000.00", "2025-03-02")
	alice.purchase(t, amex.ID, "100.00", "2025-03-02")
	usd := alice.enterRate(t, "USD", "PHP", "56.50")

	reader := alice.reader()
	read := func() (finance.CardUsageSummary, map[string]any) {
		res := reader.do(t, http.MethodGet, "/api/v1/credit-cards/usage-summary?month=2025-03", "", http.StatusOK)
		var u finance.CardUsageSummary
		res.decodeData(t, &u)
		return u, noteOf(t, res)
	}
	u, note := read()
	currencies := map[string]string{}
	for _, c := range u.Cards {
		currencies[c.Name] = c.Currency
	}
	if diff := cmp.Diff(map[string]string{"Visa": "PHP", "Amex": "USD"}, currencies); diff != "" {
		t.Errorf("each card in its currency (-want +got):\n%s", diff)
	}
	// ₱1,000.00 + $100.00 × 56.50 = ₱6,650.00 of purchases, two of them.
	if u.Totals.PurchasesTotal != 6_650_00 || u.Totals.PurchasesCount != 2 {
		t.Errorf("totals with the rate: %+v", u.Totals)
	}
	if diff := cmp.Diff(map[string]any{"currency": "PHP", "rates_as_of": "2025-03-10", "missing_rates": []any{}}, note); diff != "" {
		t.Errorf("note with the rate (-want +got):\n%s", diff)
	}
	// Without it: ₱1,000.00, the $100.00 named, not ₱1,100.00; both counted.
	alice.do(t, http.MethodDelete, ratesURL+"/"+usd, "", http.StatusOK)
	u, note = read()
	if u.Totals.PurchasesTotal != 1_000_00 || u.Totals.PurchasesCount != 2 {
		t.Errorf("totals without the rate: %+v", u.Totals)
	}
	if diff := cmp.Diff(map[string]any{"currency": "PHP", "rates_as_of": nil, "missing_rates": []any{missing("USD", "100.00")}}, note); diff != "" {
		t.Errorf("note without the rate (-want +got):\n%s", diff)
	}
}

// A list's total over several accounts or cards converts each amount at
// its date's rate, as the expense list's does; narrowed to one account or
// card it is in that one's currency. Before, lines of a peso and a dollar
// account added 1:1.
func TestListTotalsAcrossCurrencies(t *testing.T) {
	alice := newSumsEnv(t)
	pesos := alice.createAccount(t, `{"name":"Checking","type":"savings"}`)
	dollars := alice.accountIn(t, "USD", `{"name":"Savings","type":"savings"}`)
	dollars2 := alice.accountIn(t, "USD", `{"name":"Brokerage","type":"savings"}`)
	alice.enterRate(t, "USD", "PHP", "56.50") // dated 2025-03-10
	alice.addLine(t, pesos.ID, `{"type":"credit","amount":"1000","date":"2025-03-10"}`)
	alice.addLine(t, dollars.ID, `{"type":"credit","amount":"100","date":"2025-03-10"}`)
	alice.createTransfer(t, transferBody(dollars.ID, dollars2.ID, `,"amount":"10.00","date":"2025-03-10"`))
	reader := alice.reader()
	summary := func(url string) map[string]any {
		var page struct {
			Summary map[string]any `json:"summary"`
		}
		res := reader.do(t, http.MethodGet, url, "", http.StatusOK)
		dec := json.NewDecoder(bytes.NewReader(res.env.Data))
		dec.UseNumber()
		if err := dec.Decode(&page); err != nil {
			t.Fatal(err)
		}
		return page.Summary
	}
	// ₱1,000.00 + $100.00 × 56.50 = ₱6,650.00, and the transfer's $10.00
	// out and in cancel: ₱6,650.00 over four lines (never 1,100.00).
	want := map[string]any{"count": json.Number("4"), "total": jsonMoney("6650.00"), "currency": "PHP",
		"rates_as_of": "2025-03-10", "missing_rates": []any{}}
	if diff := cmp.Diff(want, summary("/api/v1/accounts/transactions?limit=1")); diff != "" {
		t.Errorf("lines of every account (-want +got):\n%s", diff)
	}
	// One dollar account's lines total in dollars, converting nothing.
	want = map[string]any{"count": json.Number("2"), "total": jsonMoney("90.00"), "currency": "USD",
		"rates_as_of": nil, "missing_rates": []any{}}
	if diff := cmp.Diff(want, summary("/api/v1/accounts/transactions?accountId="+dollars.ID)); diff != "" {
		t.Errorf("the dollar account's lines (-want +got):\n%s", diff)
	}
	// Transfers total what left their source accounts: $10.00 → ₱565.00.
	want = map[string]any{"count": json.Number("1"), "total": jsonMoney("565.00"), "currency": "PHP",
		"rates_as_of": "2025-03-10", "missing_rates": []any{}}
	if diff := cmp.Diff(want, summary("/api/v1/transfers")); diff != "" {
		t.Errorf("transfers (-want +got):\n%s", diff)
	}
}
