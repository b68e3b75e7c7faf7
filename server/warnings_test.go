package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// Warnings of writes (docs/domain.md, Warnings): never a refusal, always
// beside the record written exactly as asked.

// newWarningEnv is a server whose clock is pinned (today 2025-03-11 in
// Manila) and a maker of users whose keys hold every scope a warning's
// routes need.
func newWarningEnv(t *testing.T) (*testEnv, func() ledgerUser) {
	t.Helper()
	env := newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return ledgerNow })
	return env, func() ledgerUser {
		u := env.createUser(finance.PlanPro)
		return ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeExpensesWrite, auth.ScopeAccountsWrite,
			auth.ScopeCardsWrite, auth.ScopeBillsWrite, auth.ScopeLoansWrite, auth.ScopeSettingsWrite)}
	}
}

// warningsOf returns data.warnings of an answer: nil when the member is
// absent, which is how an answer says there is nothing to warn about (an
// empty list is a defect).
func warningsOf(t testing.TB, res apiResult) []finance.Warning {
	t.Helper()
	var d struct {
		Warnings *[]finance.Warning `json:"warnings"`
	}
	res.decodeData(t, &d)
	if d.Warnings == nil {
		return nil
	}
	if len(*d.Warnings) == 0 {
		t.Errorf("data.warnings is present but empty: %s", res.raw)
	}
	return *d.Warnings
}

// ignoreMessage compares warnings by code and ids; messages are checked by
// the words they must hold.
var ignoreMessage = cmpopts.IgnoreFields(finance.Warning{}, "Message")

// checkWarnings compares an answer's warnings with want (nil: none), and
// checks that the i-th warning's message holds the words of words[i].
func checkWarnings(t testing.TB, res apiResult, want []finance.Warning, words ...[]string) {
	t.Helper()
	got := warningsOf(t, res)
	if diff := cmp.Diff(want, got, ignoreMessage, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s\nanswer: %s", diff, res.raw)
		return
	}
	for i, ws := range words {
		for _, w := range ws {
			if !strings.Contains(got[i].Message, w) {
				t.Errorf("warning %d's message lacks %q: %s", i, w, got[i].Message)
			}
		}
	}
}

// sameAsStored checks that the written record an answer carries is the
// record the ledger now holds, warnings apart: a warning changes nothing.
func sameAsStored(t testing.TB, u ledgerUser, res apiResult, readURL string) {
	t.Helper()
	var written map[string]any
	if err := json.Unmarshal(res.env.Data, &written); err != nil {
		t.Fatalf("answer: %v", err)
	}
	delete(written, "warnings")
	read := u.do(t, http.MethodGet, readURL, "", http.StatusOK)
	if diff := cmp.Diff(jsonValue(t, written), jsonValue(t, read.env.Data)); diff != "" {
		t.Errorf("the answer's record differs from the stored one (-answer +stored):\n%s", diff)
	}
	if strings.Contains(string(read.env.Data), `"warnings"`) {
		t.Errorf("a read carries warnings: %s", read.env.Data)
	}
}

func TestWarningAccountBelowZero(t *testing.T) {
	_, newUser := newWarningEnv(t)
	alice := newUser()
	acc := alice.createAccount(t, `{"name":"Savings","type":"savings","opening_balance":1000}`)
	below := func(words ...string) ([]finance.Warning, [][]string) {
		return []finance.Warning{{Code: finance.WarnAccountBelowZero, AccountID: acc.ID}}, [][]string{append([]string{`"Savings"`}, words...)}
	}
	debit := func(amount string) string {
		return `{"amount":` + amount + `,"date":"2025-03-10","description":"Laptop","category":"Shopping","payment_method":"Account Debit","account_id":"` + acc.ID + `"}`
	}
	balance := func(want finance.Money) {
		t.Helper()
		if got := alice.account(t, acc.ID).CurrentBalance; got != want {
			t.Errorf("balance %s, want %s", got, want)
		}
	}

	// Down to exactly zero: not below zero.
	res := alice.do(t, http.MethodPost, "/api/v1/expenses", debit("1000"), http.StatusCreated)
	checkWarnings(t, res, nil)
	balance(0)
	if strings.Contains(string(res.raw), "warnings") {
		t.Errorf("an answer with nothing to warn about names warnings: %s", res.raw)
	}

	// A debit of 30,000.00 from 0.00 is recorded as sent, and warned about.
	res = alice.do(t, http.MethodPost, "/api/v1/expenses", debit("30000"), http.StatusCreated)
	want, words := below("-30000.00")
	checkWarnings(t, res, want, words...)
	var e finance.Expense
	res.decodeData(t, &e)
	if e.Amount != 30000_00 || e.AccountID == nil || *e.AccountID != acc.ID || e.AccountTransactionID == nil {
		t.Errorf("expense written %+v", e)
	}
	balance(-30000_00)
	sameAsStored(t, alice, res, "/api/v1/expenses/"+e.ID)

	// Changing only the notes moves nothing: no warning, though the account is below zero.
	res = alice.do(t, http.MethodPut, "/api/v1/expenses/"+e.ID, `{"notes":"for work"}`, http.StatusOK)
	checkWarnings(t, res, nil)
	// Raising the amount takes it further down.
	res = alice.do(t, http.MethodPut, "/api/v1/expenses/"+e.ID, `{"amount":30100}`, http.StatusOK)
	want, words = below("-30100.00")
	checkWarnings(t, res, want, words...)
	balance(-30100_00)
	// Lowering it raises the balance: no warning.
	res = alice.do(t, http.MethodPut, "/api/v1/expenses/"+e.ID, `{"amount":30000}`, http.StatusOK)
	checkWarnings(t, res, nil)

	// Manual lines: a credit raises the balance (no warning), a debit takes it further down.
	lines := "/api/v1/accounts/" + acc.ID + "/transactions"
	res = alice.do(t, http.MethodPost, lines, `{"type":"credit","amount":500,"date":"2025-03-10"}`, http.StatusCreated)
	checkWarnings(t, res, nil)
	res = alice.do(t, http.MethodPost, lines, `{"type":"debit","amount":100,"date":"2025-03-10","description":"ATM"}`, http.StatusCreated)
	want, words = below("-29600.00")
	checkWarnings(t, res, want, words...)
	var line finance.AccountTransaction
	res.decodeData(t, &line)
	line.Warnings = nil
	if diff := cmp.Diff(alice.line(t, line.ID), line, equateDates); diff != "" {
		t.Errorf("the answer's line differs from the stored one (-stored +answer):\n%s", diff)
	}
	res = alice.do(t, http.MethodPut, lines+"/"+line.ID, `{"amount":50}`, http.StatusOK)
	checkWarnings(t, res, nil)
	res = alice.do(t, http.MethodPut, lines+"/"+line.ID, `{"amount":200}`, http.StatusOK)
	want, words = below("-29700.00")
	checkWarnings(t, res, want, words...)
	balance(-29700_00)

	// A balance adjustment states the balance: a negative target is not a mistake.
	res = alice.do(t, http.MethodPost, "/api/v1/accounts/"+acc.ID+"/balance-adjustment", `{"target_balance":-30000}`, http.StatusCreated)
	checkWarnings(t, res, nil)
}

// Payments from an account warn as expenses do: a bill paid by Account
// Debit, a statement payment and a loan payment.
func TestWarningPaymentsBelowZero(t *testing.T) {
	env, newUser := newWarningEnv(t)
	alice := newUser()
	acc := alice.createAccount(t, `{"name":"Wallet","type":"e_wallet","opening_balance":100}`)
	below := []finance.Warning{{Code: finance.WarnAccountBelowZero, AccountID: acc.ID}}

	tpl := alice.createTemplate(t, `{"name":"Water","amount":450,"category":"Utilities","frequency":"monthly","start_date":"2025-03-01","due_day":5}`)
	water := alice.billOn(t, tpl.ID, "2025-03-05")
	res := alice.do(t, http.MethodPost, billsURL+"/"+water.ID+"/payments",
		`{"amount":450,"date":"2025-03-05","payment_method":"Account Debit","account_id":"`+acc.ID+`"}`, http.StatusCreated)
	checkWarnings(t, res, below, []string{`"Wallet"`, "-350.00"})
	var paid finance.BillPaymentResult
	res.decodeData(t, &paid)
	if paid.Payment.Amount != 450_00 || paid.Bill.Status != finance.BillPaid {
		t.Errorf("bill payment %+v, bill %s", paid.Payment, paid.Bill.Status)
	}

	card := alice.createCard(t, `{"name":"Gold","credit_limit":100000,"statement_day":15,"due_day":5,"cycle_start_date":"2025-01-01"}`)
	alice.purchase(t, card.ID, "300", "2025-02-10")
	soa := alice.statementOn(t, card.ID, "2025-02-15")
	res = alice.do(t, http.MethodPost, "/api/v1/credit-cards/soa/"+soa.ID+"/payments",
		`{"amount":300,"account_id":"`+acc.ID+`","date":"2025-03-05"}`, http.StatusCreated)
	checkWarnings(t, res, below, []string{`"Wallet"`, "-650.00"})

	loan := alice.createLoan(t, `{"name":"Car","principal":1200,"interest_type":"none","term_months":12,"start_date":"2025-01-15"}`)
	res = alice.do(t, http.MethodPost, instanceURL(loan.Instances[0].ID, "payments"),
		`{"amount":100,"account_id":"`+acc.ID+`"}`, http.StatusCreated)
	checkWarnings(t, res, below, []string{`"Wallet"`, "-750.00"})
	// In cash, no account moves.
	res = alice.do(t, http.MethodPost, instanceURL(loan.Instances[1].ID, "payments"), `{"amount":100}`, http.StatusCreated)
	checkWarnings(t, res, nil)

	if got := alice.account(t, acc.ID).CurrentBalance; got != -750_00 {
		t.Errorf("balance %s, want -750.00: every payment is recorded", got)
	}
	_ = env
}

func TestWarningCardOverLimit(t *testing.T) {
	_, newUser := newWarningEnv(t)
	alice := newUser()
	card := alice.createCard(t, `{"name":"BPI Gold","credit_limit":10000,"statement_day":25,"due_day":15}`)
	over := func(words ...string) ([]finance.Warning, [][]string) {
		return []finance.Warning{{Code: finance.WarnCardOverLimit, CreditCardID: card.ID}}, [][]string{append([]string{`"BPI Gold"`}, words...)}
	}
	charge := func(amount, description string) string {
		return `{"amount":` + amount + `,"date":"2025-03-10","description":"` + description + `","category":"Shopping","payment_method":"Credit Card","credit_card_id":"` + card.ID + `"}`
	}
	owed := func(want finance.Money) {
		t.Helper()
		if got := alice.getCard(t, card.ID).OutstandingBalance; got != want {
			t.Errorf("outstanding %s, want %s", got, want)
		}
	}

	checkWarnings(t, alice.do(t, http.MethodPost, "/api/v1/expenses", charge("9000", "Phone"), http.StatusCreated), nil)
	// Exactly at the limit is not over it.
	checkWarnings(t, alice.do(t, http.MethodPost, "/api/v1/expenses", charge("1000", "Case"), http.StatusCreated), nil)
	owed(10000_00)

	// 422% of the limit: recorded, and warned about with the figures.
	res := alice.do(t, http.MethodPost, "/api/v1/expenses", charge("32200", "Laptop"), http.StatusCreated)
	want, words := over("42200.00", "10000.00", "422.00%")
	checkWarnings(t, res, want, words...)
	var laptop finance.Expense
	res.decodeData(t, &laptop)
	sameAsStored(t, alice, res, "/api/v1/expenses/"+laptop.ID)
	owed(42200_00)

	// Card transactions: a refund lowers what is owed (no warning); a fee raises it.
	rows := "/api/v1/credit-cards/transactions"
	res = alice.do(t, http.MethodPost, rows, `{"credit_card_id":"`+card.ID+`","type":"refund","amount":500,"date":"2025-03-10","description":"Case returned","category":"Shopping"}`, http.StatusCreated)
	checkWarnings(t, res, nil)
	res = alice.do(t, http.MethodPost, rows, `{"credit_card_id":"`+card.ID+`","type":"fee","amount":50,"date":"2025-03-10","description":"Over-limit fee"}`, http.StatusCreated)
	want, words = over("41750.00")
	checkWarnings(t, res, want, words...)
	var fee finance.CardTransaction
	res.decodeData(t, &fee)
	sameAsStored(t, alice, res, rows+"/"+fee.ID)
	res = alice.do(t, http.MethodPut, rows+"/"+fee.ID, `{"amount":40}`, http.StatusOK)
	checkWarnings(t, res, nil)
	res = alice.do(t, http.MethodPut, rows+"/"+fee.ID, `{"amount":60}`, http.StatusOK)
	want, words = over("41760.00")
	checkWarnings(t, res, want, words...)
	owed(41760_00)

	// A purchase through the card route warns for the card, as its expense would.
	res = alice.do(t, http.MethodPost, rows, `{"credit_card_id":"`+card.ID+`","type":"purchase","amount":10,"date":"2025-03-09","description":"Snack","category":"Food & Dining"}`, http.StatusCreated)
	want, _ = over()
	checkWarnings(t, res, want)
}

func TestWarningPossibleDuplicate(t *testing.T) {
	_, newUser := newWarningEnv(t)
	expense := func(description, amount, date, method string) string {
		return fmt.Sprintf(`{"amount":%s,"date":%q,"description":%q,"category":"Food & Dining","payment_method":%s}`,
			amount, date, description, method)
	}
	const cash = `"Cash"`
	for _, tc := range []struct {
		name      string
		first     func(card string) string
		voidFirst bool
		second    func(card string) string
		duplicate bool
	}{
		{"similar description a day later", func(string) string { return expense("Lunch", "350", "2025-03-01", cash) },
			false, func(string) string { return expense("lunch at Jollibee", "350", "2025-03-02", cash) }, true},
		{"two days apart", func(string) string { return expense("Lunch", "350", "2025-03-01", cash) },
			false, func(string) string { return expense("Lunch", "350", "2025-03-03", cash) }, false},
		{"another amount", func(string) string { return expense("Lunch", "350", "2025-03-01", cash) },
			false, func(string) string { return expense("Lunch", "351", "2025-03-01", cash) }, false},
		{"the same card, other words", func(c string) string {
			return expense("Shell", "2000", "2025-03-01", `"Credit Card","credit_card_id":"`+c+`"`)
		}, false, func(c string) string {
			return expense("Fuel", "2000", "2025-03-01", `"Credit Card","credit_card_id":"`+c+`"`)
		}, true},
		{"other words, not both on a card", func(c string) string {
			return expense("Shell", "2000", "2025-03-01", `"Credit Card","credit_card_id":"`+c+`"`)
		}, false, func(string) string { return expense("Fuel", "2000", "2025-03-01", cash) }, false},
		{"the earlier one voided", func(string) string { return expense("Lunch", "350", "2025-03-01", cash) },
			true, func(string) string { return expense("Lunch", "350", "2025-03-01", cash) }, false},
		{"words only separated differently", func(string) string { return expense("Grab-to office", "180", "2025-03-01", cash) },
			false, func(string) string { return expense("grab TO Office!", "180", "2025-02-28", cash) }, true},
		{"a shared word only", func(string) string { return expense("Grab to office", "180", "2025-03-01", cash) },
			false, func(string) string { return expense("Grab home", "180", "2025-03-01", cash) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUser()
			card := u.createCard(t, `{"name":"BPI","credit_limit":50000,"statement_day":25,"due_day":15}`)
			first := u.createExpense(t, tc.first(card.ID))
			if tc.voidFirst {
				u.do(t, http.MethodDelete, "/api/v1/expenses/"+first.ID, "", http.StatusOK)
			}
			res := u.do(t, http.MethodPost, "/api/v1/expenses", tc.second(card.ID), http.StatusCreated)
			var want []finance.Warning
			var words [][]string
			if tc.duplicate {
				want = []finance.Warning{{Code: finance.WarnPossibleDuplicate, ExpenseID: first.ID}}
				words = [][]string{{fmt.Sprintf("%q", first.Description), first.Amount.String(), first.Date.String(), "delete_expense"}}
			}
			checkWarnings(t, res, want, words...)
			var second finance.Expense
			res.decodeData(t, &second)
			sameAsStored(t, u, res, "/api/v1/expenses/"+second.ID)
		})
	}

	t.Run("updates", func(t *testing.T) {
		u := newUser()
		first := u.createExpense(t, expense("Lunch", "350", "2025-03-01", cash))
		second := u.createExpense(t, expense("Dinner", "350", "2025-03-01", cash))
		dup := []finance.Warning{{Code: finance.WarnPossibleDuplicate, ExpenseID: first.ID}}
		// Renaming it after the first makes it look like a duplicate.
		checkWarnings(t, u.do(t, http.MethodPut, "/api/v1/expenses/"+second.ID, `{"description":"lunch"}`, http.StatusOK), dup)
		// The notes alone change nothing the rule reads.
		checkWarnings(t, u.do(t, http.MethodPut, "/api/v1/expenses/"+second.ID, `{"notes":"with Ana"}`, http.StatusOK), nil)
		// A split moves no money and changes no amount, date or description.
		res := u.do(t, http.MethodPost, "/api/v1/expenses/"+second.ID+"/split",
			`{"parts":[{"amount":200,"category":"Food & Dining"},{"amount":150,"category":"Groceries"}]}`, http.StatusOK)
		checkWarnings(t, res, nil)
	})

	t.Run("a bill payment's expense", func(t *testing.T) {
		u := newUser()
		tpl := u.createTemplate(t, `{"name":"Rent","amount":15000,"category":"Rent & Housing","frequency":"monthly","start_date":"2025-03-01","due_day":5}`)
		rent := u.billOn(t, tpl.ID, "2025-04-05")
		paid := u.payBill(t, rent.ID, `{"amount":15000,"date":"2025-04-05","payment_method":"Cash"}`)
		if paid.Warnings != nil {
			t.Errorf("paying a bill with nothing like it warned: %+v", paid.Warnings)
		}
		res := u.do(t, http.MethodPost, "/api/v1/expenses", `{"amount":15000,"date":"2025-04-05","description":"rent","category":"Rent & Housing","payment_method":"Cash"}`, http.StatusCreated)
		// The paid bill no longer matches; its payment's expense is a duplicate.
		checkWarnings(t, res, []finance.Warning{{Code: finance.WarnPossibleDuplicate, ExpenseID: paid.Payment.ExpenseID}},
			[]string{`"Rent (due 2025-04-05)"`})
		// And paying a bill warns when the expense was recorded by hand first.
		mar := u.billOn(t, tpl.ID, "2025-05-05")
		byHand := u.createExpense(t, `{"amount":15000,"date":"2025-05-04","description":"Rent","category":"Rent & Housing","payment_method":"Cash"}`)
		res = u.do(t, http.MethodPost, billsURL+"/"+mar.ID+"/payments", `{"amount":15000,"date":"2025-05-05","payment_method":"Cash"}`, http.StatusCreated)
		checkWarnings(t, res, []finance.Warning{{Code: finance.WarnPossibleDuplicate, ExpenseID: byHand.ID}})
	})
}

func TestWarningMatchesBillOrLoan(t *testing.T) {
	env, newUser := newWarningEnv(t)
	alice := newUser()
	rentTpl := alice.createTemplate(t, `{"name":"Rent","amount":15000,"category":"Rent & Housing","frequency":"monthly","start_date":"2025-02-01","due_day":5}`)
	netTpl := alice.createTemplate(t, `{"name":"Internet","amount":1699,"category":"Utilities","frequency":"monthly","start_date":"2025-02-01","due_day":10}`)
	rent := alice.billOn(t, rentTpl.ID, "2025-03-05")
	net := alice.billOn(t, netTpl.ID, "2025-03-10")
	loan := alice.createLoan(t, `{"name":"Car loan","principal":12000,"interest_type":"none","term_months":12,"start_date":"2025-01-15"}`)
	second := loan.Instances[1] // 1,000.00 due 2025-03-15

	post := func(body string) apiResult {
		return alice.do(t, http.MethodPost, "/api/v1/expenses", body, http.StatusCreated)
	}
	body := func(description, amount, date, category string) string {
		return fmt.Sprintf(`{"amount":%s,"date":%q,"description":%q,"category":%q,"payment_method":"Cash"}`, amount, date, description, category)
	}
	billWarning := func(b finance.Bill) []finance.Warning {
		return []finance.Warning{{Code: finance.WarnMatchesBill, BillID: b.ID}}
	}

	res := post(body("rent", "15000", "2025-03-03", "Rent & Housing"))
	checkWarnings(t, res, billWarning(rent), []string{`"Rent"`, "15000.00 due 2025-03-05", "record_bill_payment", "/api/v1/bills/" + rent.ID + "/payments"})
	var e finance.Expense
	res.decodeData(t, &e)
	sameAsStored(t, alice, res, "/api/v1/expenses/"+e.ID)
	if b := alice.bill(t, rent.ID); b.Status != finance.BillUnpaid || b.PaidTotal != 0 {
		t.Errorf("the bill changed: %s, paid %s", b.Status, b.PaidTotal)
	}

	// The name is like the category; another amount, other words.
	checkWarnings(t, post(body("March", "14500", "2025-03-04", "Rent & Housing")), billWarning(rent))
	// The amount alone.
	checkWarnings(t, post(body("Groceries", "1699", "2025-03-08", "Groceries")), billWarning(net))
	// Eight days from the due date.
	checkWarnings(t, post(body("rent", "15000", "2025-03-13", "Rent & Housing")), nil)
	// Nothing alike.
	checkWarnings(t, post(body("Groceries", "1234", "2025-03-05", "Groceries")), nil)

	// A loan installment, by its amount and by the loan's name.
	res = post(body("car loan payment", "1000", "2025-03-15", "Transportation"))
	checkWarnings(t, res, []finance.Warning{{Code: finance.WarnMatchesLoanInstalment, LoanID: loan.ID, InstanceID: second.ID}},
		[]string{"installment 2", `"Car loan"`, "record_loan_payment", "/api/v1/loans/instances/" + second.ID + "/payments"})
	res.decodeData(t, &e)
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+e.ID, "", http.StatusOK) // not to be its duplicate below
	alice.patchLoan(t, loan.ID, `{"status":"cancelled"}`)
	checkWarnings(t, post(body("car loan payment", "1000", "2025-03-15", "Transportation")), nil)

	// A card purchase is an expense too.
	card := alice.createCard(t, visaBody)
	res = alice.do(t, http.MethodPost, "/api/v1/credit-cards/transactions",
		`{"credit_card_id":"`+card.ID+`","type":"purchase","amount":1699,"date":"2025-03-10","description":"PLDT","category":"Utilities"}`, http.StatusCreated)
	checkWarnings(t, res, billWarning(net))

	// Bills that no request has generated yet are generated first: on 2025-05-20 the
	// June instance (generated through April so far) is found.
	setToday(env, "2025-05-20")
	res = post(body("rent", "15000", "2025-06-03", "Rent & Housing"))
	june := alice.billOn(t, rentTpl.ID, "2025-06-05")
	checkWarnings(t, res, billWarning(june))
}

func TestWarningBulk(t *testing.T) {
	env, newUser := newWarningEnv(t)
	alice := newUser()
	acc := alice.createAccount(t, `{"name":"Savings","type":"savings","opening_balance":1000}`)
	item := func(description string) string {
		return `{"amount":600,"date":"2025-03-10","description":"` + description + `","category":"Groceries","payment_method":"Account Debit","account_id":"` + acc.ID + `"}`
	}
	before := snapshotSpending(t, env, alice.user.ID)
	res := alice.do(t, http.MethodPost, "/api/v1/expenses/bulk",
		`{"items":[`+item("Rice")+`,`+item("Oil")+`,`+item("Soap")+`,`+item("rice")+`]}`, http.StatusCreated)
	var out finance.BulkExpenses
	res.decodeData(t, &out)
	if out.Count != 4 || len(out.Items) != 4 {
		t.Fatalf("bulk answer %s", res.raw)
	}
	one, three := 1, 3
	// The account crosses zero with item 1 (400.00 to -200.00), once; item 3
	// repeats item 0, which was recorded before it in the same request.
	checkWarnings(t, res, []finance.Warning{
		{Code: finance.WarnAccountBelowZero, AccountID: acc.ID, Index: &one},
		{Code: finance.WarnPossibleDuplicate, ExpenseID: out.Items[0].ID, Index: &three},
	}, []string{"-200.00"})
	for i, e := range out.Items {
		if e.Warnings != nil {
			t.Errorf("item %d carries its own warnings; they belong in data.warnings", i)
		}
	}
	after := snapshotSpending(t, env, alice.user.ID)
	if len(after.Expenses) != len(before.Expenses)+4 {
		t.Errorf("%d expenses written, want 4", len(after.Expenses)-len(before.Expenses))
	}
	if got := alice.account(t, acc.ID).CurrentBalance; got != -1400_00 {
		t.Errorf("balance %s, want -1400.00: every item is written", got)
	}

	// Nothing to warn about: no warnings member.
	res = alice.do(t, http.MethodPost, "/api/v1/expenses/bulk",
		`{"items":[{"amount":5,"date":"2025-03-10","description":"Candy","category":"Groceries","payment_method":"Cash"}]}`, http.StatusCreated)
	checkWarnings(t, res, nil)
}
