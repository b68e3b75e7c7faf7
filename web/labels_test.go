package web_test

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/web"
)

// richUser gives u a record in every state a page can show, as of the web
// app tests' clock (15 March 2025): accounts of every type, an archived
// one, lines from every source and a voided one; a card with a statement
// partly paid, holding a fee, interest and a refund, a purchase in
// installments and a voided one; bills of every frequency and status, a
// paused template; loans of every interest type, a cancelled one, an
// installment waived and one partly paid; budgets on track, near and over
// their limits; split, voided and bill-payment expenses; income; API keys
// active, revoked and expired.
func richUser(t *testing.T, env *testEnv, u finance.User) {
	t.Helper()
	ctx := context.Background()
	l := env.srv.Ledger()
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	day := func(d int) finance.Date { return finance.NewDate(2025, 3, d) }

	c := newCardSetup(t, env, u) // Visa; Payroll (savings); a statement of 10 March; Shoes unbilled
	accounts := map[string]finance.Account{"savings": c.account}
	for i, typ := range []string{"checking", "e_wallet", "cash", "other"} {
		a, err := l.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of(fmt.Sprintf("Account %d", i+2)), Type: finance.Of(typ),
			OpeningBalance: finance.Of(finance.Money(500000))})
		must(a, err)
		accounts[typ] = a
	}
	old, err := l.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("Old bank"), Type: finance.Of("checking")})
	must(old, err)
	must(l.ArchiveAccount(ctx, u.ID, old.ID))
	wallet := accounts["e_wallet"].ID
	for _, typ := range []string{"credit", "debit"} {
		var r finance.AccountTransactionRequest
		fromJSON(t, `{"type":"`+typ+`","amount":"15","date":"2025-03-02","description":"Transfer `+typ+`"}`, &r)
		must(l.CreateAccountTransaction(ctx, u.ID, wallet, r))
	}
	var voidMe finance.AccountTransactionRequest
	fromJSON(t, `{"type":"debit","amount":"1","date":"2025-03-03","description":"Mistake"}`, &voidMe)
	line, err := l.CreateAccountTransaction(ctx, u.ID, wallet, voidMe)
	must(line, err)
	must(l.VoidAccountTransaction(ctx, u.ID, wallet, line.ID))
	var adjust finance.BalanceAdjustmentRequest
	fromJSON(t, `{"target_balance":"4900","date":"2025-03-04","reason":"Bank says so"}`, &adjust)
	must(l.AdjustBalance(ctx, u.ID, wallet, adjust))
	must(l.CreateIncome(ctx, u.ID, finance.IncomeRequest{Amount: finance.Of(finance.Money(3000000)), Date: finance.Of(day(1)),
		Category: finance.Of("Salary"), Description: finance.Of("March pay"), AccountID: finance.Of(wallet)}))
	must(l.CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(90000)), Date: finance.Of(day(6)),
		Description: finance.Of("Groceries run"), Category: finance.Of("Groceries"), PaymentMethod: finance.Of("Account Debit"),
		AccountID: finance.Of(wallet)}))

	// The statement: a fee, interest and a refund of its own, part paid.
	for _, line := range []string{`{"type":"fee","amount":"2","description":"Annual fee"}`, `{"type":"interest","amount":"1","description":"Finance charge"}`,
		`{"type":"refund","amount":"3","description":"Returned book","category":"Shopping"}`} {
		var r finance.SOALineRequest
		fromJSON(t, line, &r)
		must(l.AddSOALine(ctx, u.ID, c.soa.ID, r))
	}
	var pay finance.SOAPaymentRequest
	fromJSON(t, `{"amount":"5","account_id":"`+wallet+`","date":"2025-03-12"}`, &pay)
	must(l.PaySOA(ctx, u.ID, c.soa.ID, pay))
	// Installments from one purchase; another purchase voided.
	for _, p := range []struct {
		what   string
		amount finance.Money
	}{{"Phone", 12000}, {"Wrong charge", 500}} {
		must(l.CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(p.amount), Date: finance.Of(day(13)),
			Description: finance.Of(p.what), Category: finance.Of("Shopping"), PaymentMethod: finance.Of("Credit Card"),
			CreditCardID: finance.Of(c.card.ID)}))
	}
	unbilled, err := l.ListCardTransactions(ctx, u.ID, finance.CardTransactionFilter{CardID: c.card.ID, Status: finance.CardUnbilled},
		finance.ListParams{Page: 1, Limit: 10, SortBy: "date"})
	must(unbilled, err)
	for _, tx := range unbilled.Items {
		switch tx.Description {
		case "Phone":
			var conv finance.ConvertRequest
			fromJSON(t, `{"months":6,"interest_type":"add_on","interest_rate":"1"}`, &conv)
			must(l.ConvertToInstallment(ctx, u.ID, tx.ID, conv))
		case "Wrong charge":
			must(l.VoidCardTransaction(ctx, u.ID, tx.ID))
		}
	}
	var cancelled finance.ConvertRequest
	fromJSON(t, `{"months":3}`, &cancelled)
	plan, err := l.ConvertToInstallment(ctx, u.ID, c.unbilled.ID, cancelled)
	must(plan, err)
	must(l.CancelInstallmentPlan(ctx, u.ID, plan.ID))

	// Bills of every frequency; March's in every status; a paused template.
	var march []finance.Bill
	for i, freq := range finance.Frequencies {
		var r finance.BillTemplateRequest
		second := ""
		if freq == finance.FrequencySemimonthly {
			second = `"second_due_day":20,`
		}
		fromJSON(t, `{"name":"Bill `+freq+`","amount":"100","category":"Utilities","frequency":"`+freq+`","start_date":"2025-03-0`+
			string(rune('1'+i))+`",`+second+`"default_payment_method":"Account Debit","default_account_id":"`+wallet+`"}`, &r)
		tpl, err := l.CreateBillTemplate(ctx, u.ID, r)
		must(tpl, err)
		bills, err := l.ListBills(ctx, u.ID, finance.BillFilter{TemplateID: tpl.ID, DateFrom: day(1), DateTo: day(31)},
			finance.ListParams{Page: 1, Limit: 10, SortBy: "due_date"})
		must(bills, err)
		march = append(march, bills.Items[0])
	}
	must(l.PayBill(ctx, u.ID, march[0].ID, finance.BillPaymentRequest{Amount: finance.Of(finance.Money(4000)), PaymentMethod: finance.Of("Cash")}))
	must(l.PayBill(ctx, u.ID, march[1].ID, finance.BillPaymentRequest{Amount: finance.Of(finance.Money(10000)),
		PaymentMethod: finance.Of("Account Debit"), AccountID: finance.Of(wallet)}))
	must(l.SetBillStatus(ctx, u.ID, march[2].ID, finance.BillStatusRequest{Status: finance.Of("skipped")}))
	tpls, err := l.ListBillTemplates(ctx, u.ID, finance.BillTemplateFilter{}, finance.ListParams{Page: 1, Limit: 20, SortBy: "name"})
	must(tpls, err)
	var paused finance.BillTemplateRequest
	fromJSON(t, `{"status":"paused"}`, &paused)
	must(l.UpdateBillTemplate(ctx, u.ID, tpls.Items[0].ID, paused))

	// Recurring income twice a month, one entry received and one skipped.
	var salary finance.IncomeTemplateRequest
	fromJSON(t, `{"name":"Salary","amount":"25000","category":"Salary","frequency":"semimonthly","start_date":"2025-03-01",`+
		`"due_day":15,"second_due_day":31,"account_id":"`+wallet+`"}`, &salary)
	stpl, err := l.CreateIncomeTemplate(ctx, u.ID, salary)
	must(stpl, err)
	entries, err := l.ListExpectedIncome(ctx, u.ID, finance.ExpectedIncomeFilter{TemplateID: stpl.ID},
		finance.ListParams{Page: 1, Limit: 10, SortBy: "expected_date"})
	must(entries, err)
	must(l.ConfirmExpectedIncome(ctx, u.ID, entries.Items[0].ID, finance.ConfirmIncomeRequest{}))
	must(l.SkipExpectedIncome(ctx, u.ID, entries.Items[1].ID))

	// Loans of every interest type; one cancelled; installments waived and part paid.
	var loans []finance.LoanDetail
	for _, body := range []string{
		`{"name":"Car loan","lender":"Bank","principal":"100000","interest_type":"diminishing","interest_rate":"12","rate_period":"annual","term_months":12,"start_date":"2025-01-10"}`,
		`{"name":"Salary loan","principal":"12000","interest_type":"add_on","interest_rate":"1","term_months":6,"start_date":"2025-01-05"}`,
		`{"name":"From Mom","principal":"3000","interest_type":"none","term_months":3,"start_date":"2025-02-01"}`,
	} {
		var r finance.LoanRequest
		fromJSON(t, body, &r)
		d, err := l.CreateLoan(ctx, u.ID, r)
		must(d, err)
		loans = append(loans, d)
	}
	must(l.SetLoanInstanceStatus(ctx, u.ID, loans[0].Instances[0].ID, finance.LoanInstanceStatusRequest{Status: finance.Of("waived")}))
	must(l.PayLoanInstance(ctx, u.ID, loans[0].Instances[1].ID, finance.LoanPaymentRequest{Amount: finance.Of(finance.Money(50000)),
		AccountID: finance.Of(wallet)}))
	must(l.UpdateLoan(ctx, u.ID, loans[2].ID, finance.LoanUpdateRequest{Status: finance.Of("cancelled")}))

	// Budgets on track, near the limit and over it; a split and a voided expense.
	var budgets finance.BudgetThresholdsRequest
	fromJSON(t, `{"thresholds":[{"category":"Groceries","monthly_limit":"500"},{"category":"Shopping","monthly_limit":"150","warning_percent":50},
		{"category":"Travel","monthly_limit":"1000"}]}`, &budgets)
	must(l.ReplaceBudgetThresholds(ctx, u.ID, budgets))
	split := addExpense(t, env, u, 10000, day(7), "Food & Dining", "Dinner and gifts")
	var parts finance.SplitRequest
	fromJSON(t, `{"parts":[{"amount":"60","category":"Food & Dining"},{"amount":"40","category":"Gifts & Donations"}]}`, &parts)
	must(l.SplitExpense(ctx, u.ID, split.ID, parts))
	must(l.VoidExpense(ctx, u.ID, addExpense(t, env, u, 700, day(8), "Transportation", "Cancelled ride").ID))
	must(l.VoidIncome(ctx, u.ID, addIncome(t, env, u, 100, day(8), "Freelance", "Refunded gig").ID))

	// API keys in every state.
	env.createKey(u.ID, auth.ScopeRead)
	revoked, _ := env.createKeyRecord(u.ID, auth.ScopeRead)
	must(env.auth.RevokeKey(ctx, u.ID, revoked.ID))
	env.createExpiredKey(u.ID, auth.ScopeRead)
}

// rawEnums are the API's values a page must never show as they are: every
// status, type, source, frequency, kind and name that has words of its own.
func rawEnums() []string {
	var all []string
	for _, list := range [][]string{finance.LineTypes, finance.LineSources, finance.LineStatuses, finance.Frequencies,
		finance.BillTemplateStatuses, finance.BillStatusFilters, finance.CardTypeFilters, finance.CardStatuses, finance.InterestTypes,
		finance.LogEntityTypes, finance.LogActions, finance.PaymentStatuses, finance.ExpenseStatuses, finance.PlanStatuses,
		finance.LoanStatuses, finance.LoanInstanceStatusFilters, finance.LoanInterestTypes, finance.RatePeriods, finance.Granularities,
		finance.WeekStarts, finance.SOAStatusFilters, finance.ReportNames(),
		{finance.BudgetOK, finance.BudgetWarning, finance.BudgetExceeded, finance.MinimumDueComputed, finance.MinimumDueUser,
			finance.ExpenseManual, finance.ExpenseBillPayment, string(finance.KindExpense), string(finance.KindIncome),
			string(finance.PlanPro), string(finance.PlanFree), finance.StatusArchived, "revoked", "expired",
			finance.UtilizationLow, finance.UtilizationModerate, finance.UtilizationHigh, finance.UtilizationCritical}} {
		all = append(all, list...)
	}
	for _, t := range finance.AccountTypes {
		all = append(all, string(t))
	}
	slices.Sort(all)
	return slices.Compact(all)
}

var (
	headPart  = regexp.MustCompile(`(?s)<head>.*?</head>`)
	tagPart   = regexp.MustCompile(`(?s)<[^>]*>`)
	shownAttr = regexp.MustCompile(`\s(?:aria-label|alt|title|placeholder)="([^"]*)"`)
)

// shownText is what a person reads or hears on a page: its text nodes and
// the attributes a screen reader speaks, each unescaped (and not trimmed:
// a text that starts with one space goes on from the text before it).
func shownText(page []byte) []string {
	body := headPart.ReplaceAllString(string(page), "")
	var out []string
	for _, m := range shownAttr.FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	for _, s := range tagPart.Split(body, -1) {
		if s = html.UnescapeString(s); strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// rawEnumsShown lists where a page shows one of enums as it is: a value
// with an underscore or a hyphen anywhere in the text; a plain word when it
// stands alone: all of a text, or one of its " · " parts. A word that goes
// on from the text before it (" month" after "Previous") or sits in a
// sentence ("The bill is paid.") is English.
func rawEnumsShown(page []byte, enums []string) []string {
	var found []string
	for _, text := range shownText(page) {
		alone := strings.Split(text, " · ")
		if len(alone) == 1 && strings.HasPrefix(text, " ") && !strings.HasPrefix(text, "  ") {
			alone = nil // goes on from the text before it
		}
		for _, e := range enums {
			if strings.ContainsAny(e, "_-") {
				if regexp.MustCompile(`(^|[^\w-])` + regexp.QuoteMeta(e) + `($|[^\w-])`).MatchString(text) {
					found = append(found, e+" in "+strings.Join(strings.Fields(text), " "))
				}
			} else if slices.ContainsFunc(alone, func(p string) bool { return strings.TrimSpace(p) == e }) {
				found = append(found, e+" in "+strings.Join(strings.Fields(text), " "))
			}
		}
	}
	return found
}

// pageLinks are the addresses of a page's links to other pages of the web
// app (not downloads, the API or static files).
var pageLinkAttr = regexp.MustCompile(`href="(/[^"]*)"`)

func pageLinks(page []byte) []string {
	var out []string
	for _, m := range pageLinkAttr.FindAllSubmatch(page, -1) {
		target := html.UnescapeString(string(m[1]))
		path, _, _ := strings.Cut(target, "?")
		path, _, _ = strings.Cut(path, "#")
		if strings.HasPrefix(path, "/api") || strings.HasPrefix(path, "/static") || strings.HasPrefix(path, "/media") ||
			strings.HasSuffix(path, ".csv") || path == web.LogoutPath {
			continue
		}
		target, _, _ = strings.Cut(target, "#")
		out = append(out, target)
	}
	return out
}

var idSegment = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// pageShape is a page address with its ids and query values taken out:
// the crawl below opens one page of each shape.
func pageShape(target string) string {
	path, query, _ := strings.Cut(target, "?")
	q, _ := url.ParseQuery(query)
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range q {
			if !yield(k) {
				return
			}
		}
	})
	return idSegment.ReplaceAllString(path, ":id") + "?" + strings.Join(keys, "&")
}

// Every page a person can reach shows the API's values in words: the pages
// of a user with a record in every state, reached by following every link
// from Home (one page of each shape) and the lists' filters, show no
// status, type, source, frequency, kind or report name as the API spells it.
func TestPagesShowValuesInWords(t *testing.T) {
	env, u, b := webApp(t)
	richUser(t, env, u)
	enums := rawEnums()
	queue := []string{web.HomePath}
	// Filters whose rows show other values than the lists' first pages.
	for _, q := range []string{"status=voided", "status=billed", "status=converted", "status=unbilled", "type=refund", "type=installment"} {
		queue = append(queue, web.CardTransactionsPath+"?"+q)
	}
	for _, q := range []string{"status=voided", "source=soa_payment", "source=loan_payment", "source=adjustment", "type=credit"} {
		queue = append(queue, web.AccountLinesPath+"?"+q)
	}
	queue = append(queue, web.ExpensesPath+"?status=voided", web.IncomePath+"?status=voided", web.AccountsPath+"?status=all", web.CardsPath+"?status=all",
		web.BillsPath+"?month=2025-04", "/reports/spending-trend?granularity=week", "/reports/cash-flow?granularity=day")
	seen := map[string]bool{}
	visited := 0
	for len(queue) > 0 {
		target := queue[0]
		queue = queue[1:]
		if seen[pageShape(target)] && !strings.Contains(target, "=") {
			continue
		}
		seen[pageShape(target)] = true
		x := b.Get(target)
		if target == web.ConnectedAppPath && x.Status == http.StatusNotFound {
			continue // a server without OAuth, as here, has no connected apps
		}
		if x.Status != http.StatusOK {
			t.Errorf("GET %s: %d", target, x.Status)
			continue
		}
		visited++
		for _, f := range rawEnumsShown(x.Body, enums) {
			t.Errorf("%s shows the raw value %s", target, f)
		}
		for _, next := range pageLinks(x.Body) {
			if !seen[pageShape(next)] {
				queue = append(queue, next)
			}
		}
	}
	if visited < 60 {
		t.Errorf("the crawl reached %d pages; the fixture or the links are missing pages", visited)
	}
	t.Logf("%d pages", visited)
}

// The checker above finds what it must: a raw value as a whole text, as one
// " · " part, with an underscore inside a sentence, or spoken by a label;
// not a plain word inside a sentence.
func TestRawEnumsShown(t *testing.T) {
	enums := []string{"savings", "e_wallet", "paid", "spending-trend"}
	for _, tc := range []struct {
		page string
		want int
	}{
		{`<p><span class="sub">savings</span></p>`, 1},
		{`<p>2025-03-01 · e_wallet · ₱5.00</p>`, 1},
		{`<p>Paid to an e_wallet account</p>`, 1},
		{`<a aria-label="Status: paid">x</a>`, 0},
		{`<a aria-label="paid">x</a>`, 1},
		{`<option value="e_wallet">E-wallet</option>`, 0},
		{`<p>The bill is paid.</p><p>Savings</p>`, 0},
		{`<a href="/reports/spending-trend">Spending over time</a>`, 0},
		{`<h2>spending-trend</h2>`, 1},
		{`<head><title>paid</title></head><p>x</p>`, 0},
		{`<a>Next<span class="sr-only"> paid</span></a>`, 0},
		{`<td>
  paid
</td>`, 1},
	} {
		if got := rawEnumsShown([]byte(tc.page), enums); len(got) != tc.want {
			t.Errorf("%s: found %q, want %d", tc.page, got, tc.want)
		}
	}
}
