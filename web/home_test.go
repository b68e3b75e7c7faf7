package web_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// homeLedger records, through the API, the worked example of "Net worth
// over time" (docs/domain.md), seen on 2025-03-15 (testkit.Now): BPI opened
// with 1,000.00; 5,000.00 of income on 2025-02-15; a 300.00 Account Debit
// expense on 2025-03-02; a 2,000.00 Visa purchase on 2025-01-20 whose
// statement (due 2025-02-20) is paid 1,500.00 on 2025-02-25; a 10,000.00
// loan from 2025-02-01 at 1% a month add-on over 10 months, its first
// installment (1,000.00 principal, 100.00 interest) paid on 2025-03-01.
// Beside it, budgets and an Internet bill due on 2025-03-16.
func homeLedger(t *testing.T) (*testEnv, *testkit.Browser) {
	t.Helper()
	env := newTestEnv(t)
	env.srv.Ledger().SetClock(func() time.Time { return testkit.Now })
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeAll)
	send := func(method, path, body string) map[string]any {
		t.Helper()
		x := env.api(t, method, "/api/v1"+path, key, body)
		var answer envelope
		x.JSON(t, &answer)
		if x.Status/100 != 2 || !answer.Success {
			t.Fatalf("%s %s: %d %s", method, path, x.Status, x.Body)
		}
		var out map[string]any
		if err := json.Unmarshal(answer.Data, &out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
		return out
	}
	bpi := send("POST", "/accounts", `{"name":"BPI","type":"savings","opening_balance":"1000"}`)["id"].(string)
	send("POST", "/income", `{"amount":"5000","date":"2025-02-15","category":"Salary","account_id":"`+bpi+`"}`)
	send("POST", "/expenses", `{"amount":"300","date":"2025-03-02","description":"Market","category":"Groceries",
		"payment_method":"Account Debit","account_id":"`+bpi+`"}`)
	visa := send("POST", "/credit-cards", `{"name":"Visa","credit_limit":"50000","statement_day":31,"due_day":20,
		"cycle_start_date":"2025-01-01"}`)["id"].(string)
	send("POST", "/expenses", `{"amount":"2000","date":"2025-01-20","description":"TV","category":"Shopping",
		"payment_method":"Credit Card","credit_card_id":"`+visa+`"}`)
	soas := send("GET", "/credit-cards/soa", "")["items"].([]any)
	if len(soas) != 1 {
		t.Fatalf("%d statements, want the one of 2025-01-31", len(soas))
	}
	soa := soas[0].(map[string]any)
	if soa["due_date"] != "2025-02-20" {
		t.Fatalf("statement %v, want one due 2025-02-20", soa)
	}
	send("POST", "/credit-cards/soa/"+soa["id"].(string)+"/payments", `{"amount":"1500","account_id":"`+bpi+`","date":"2025-02-25"}`)
	loan := send("POST", "/loans", `{"name":"Car","principal":"10000","interest_type":"add_on","interest_rate":"1",
		"rate_period":"monthly","term_months":10,"start_date":"2025-02-01","first_due_date":"2025-03-01"}`)["id"].(string)
	first := send("GET", "/loans/"+loan+"/instances", "")["items"].([]any)[0].(map[string]any)
	send("POST", "/loans/instances/"+first["id"].(string)+"/payments", `{"amount":"1100","account_id":"`+bpi+`","date":"2025-03-01"}`)
	send("POST", "/bills/templates", `{"name":"Internet","amount":"1699","category":"Utilities","frequency":"monthly",
		"start_date":"2025-03-01","due_day":16}`)
	send("PUT", "/user-settings/budget-thresholds", `{"thresholds":[{"category":"Groceries","monthly_limit":"200"},
		{"category":"Food & Dining","monthly_limit":"500"}]}`)
	b := env.browser(t)
	b.SignIn(u)
	return env, b
}

// Home's first screen: net worth, the month's spending and income, what
// is due soonest in words, budgets with what is left or over, and the way
// from the accounts' total down to net worth; and the net-worth chart of
// the worked example, its table and its y-axis.
func TestHomeFirstScreen(t *testing.T) {
	_, b := homeLedger(t)
	x := b.Get(web.HomePath)
	if x.Status != http.StatusOK {
		t.Fatalf("%d\n%s", x.Status, x.Body)
	}
	body := testkit.Unescaped(x)
	stats := regexp.MustCompile(`(?s)<dl class="stats home-stats">(.*?)</dl>`).FindStringSubmatch(body)
	if stats == nil {
		t.Fatalf("no headline figures:\n%s", body)
	}
	if diff := cmp.Diff([][]string{{"Net worth", "-₱6,400.00"}, {"Spending", "₱400.00"}, {"Income", "₱0.00"}, {"Net", "-₱400.00"}},
		pairs(stats[1], `<dt>(.*?)</dt><dd[^>]*>(.*?)</dd>`)); diff != "" {
		t.Errorf("headline figures (-want +got):\n%s", diff)
	}
	if !strings.Contains(body, `<a class="button" href="/record">Record expense</a>`) ||
		!strings.Contains(body, `<a class="button secondary" href="/record?kind=income">Record income</a>`) {
		t.Error("Home lacks Record expense beside Record income")
	}
	// Overdue first, in words; the loan's paid installment is not due, its
	// next (2025-04-01) is beyond the two weeks.
	due := regexp.MustCompile(`(?s)<ul class="rows due-list">(.*?)</ul>`).FindStringSubmatch(body)
	if due == nil {
		t.Fatalf("no due list:\n%s", body)
	}
	var items []string
	for _, li := range regexp.MustCompile(`(?s)<li( class="overdue")?>(.*?)</li>`).FindAllStringSubmatch(due[1], -1) {
		items = append(items, strings.Join(strings.Fields(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(li[2], " ")), " ")+
			map[bool]string{true: " (overdue)", false: ""}[li[1] != ""])
	}
	want := []string{"Visa statement ₱500.00 23 days overdue · 2025-02-20 (overdue)", "Internet ₱1,699.00 due tomorrow · 2025-03-16"}
	if diff := cmp.Diff(want, items); diff != "" {
		t.Errorf("due soon (-want +got):\n%s", diff)
	}
	if !strings.Contains(due[1], `href="/statements/`) || !strings.Contains(due[1], `href="/bills/`) {
		t.Errorf("due items link to their pages:\n%s", due[1])
	}
	budgets := regexp.MustCompile(`(?s)<ul class="budget-bars"[^>]*>(.*?)</ul>`).FindStringSubmatch(body)
	if budgets == nil {
		t.Fatalf("no budget bars:\n%s", body)
	}
	if diff := cmp.Diff([][]string{{"Food & Dining", "On track", "₱500.00 left", "₱0.00", "₱500.00"},
		{"Groceries", "Over limit", "₱100.00 over", "₱300.00", "₱200.00"}}, budgetItems(budgets[1])); diff != "" {
		t.Errorf("budgets (-want +got):\n%s", diff)
	}
	if !strings.Contains(budgets[1], `<rect class="fill budget-exceeded" width="100.00%"`) ||
		!strings.Contains(budgets[1], `<rect class="fill budget-ok" width="0.00%"`) {
		t.Errorf("budget bars: over the limit fills the bar, nothing spent fills none:\n%s", budgets[1])
	}
	worth := regexp.MustCompile(`(?s)<ul class="rows owed">(.*?)</ul>`).FindStringSubmatch(body)
	if worth == nil {
		t.Fatalf("no way down to net worth:\n%s", body)
	}
	if diff := cmp.Diff([][]string{{"Cards owe", "-₱500.00"}, {"Loans owe", "-₱9,000.00"}},
		pairs(worth[1], `<span class="what">(.*?)</span><span class="num[^"]*">(.*?)</span>`)); diff != "" {
		t.Errorf("from the accounts to net worth (-want +got):\n%s", diff)
	}

	// The net-worth chart: twelve month-ends, the opening balance before
	// anything happened, then the worked example's figures.
	wantRows := [][]string{}
	for _, m := range []string{"Apr 2024", "May 2024", "Jun 2024", "Jul 2024", "Aug 2024", "Sep 2024", "Oct 2024", "Nov 2024", "Dec 2024"} {
		wantRows = append(wantRows, []string{m, "₱1,000.00"})
	}
	wantRows = append(wantRows, []string{"Jan 2025", "-₱1,000.00"}, []string{"Feb 2025", "-₱6,000.00"}, []string{"Mar 2025", "-₱6,400.00"})
	if diff := cmp.Diff(wantRows, tableRows(t, x, "net-worth-table")); diff != "" {
		t.Errorf("net worth table (-want +got):\n%s", diff)
	}
	chart := regexp.MustCompile(`(?s)<h2 id="net-worth-heading">Net worth, April 2024 to March 2025</h2>\s*(<svg.*?</svg>)`).FindStringSubmatch(body)
	if chart == nil {
		t.Fatalf("no net worth chart:\n%s", body)
	}
	// -6,400.00 to 1,000.00 in at most four steps of 1, 2 or 5: 5k each.
	var ticks []string
	for _, m := range regexp.MustCompile(`<text class="tick y"[^>]*>(.*?)</text>`).FindAllStringSubmatch(chart[1], -1) {
		ticks = append(ticks, m[1])
	}
	if diff := cmp.Diff([]string{"-10k", "-5k", "0", "5k"}, ticks); diff != "" {
		t.Errorf("y-axis (-want +got):\n%s", diff)
	}
	if !strings.Contains(chart[1], "Feb 2025: Net worth -₱6,000.00; Mar 2025: Net worth -₱6,400.00") {
		t.Errorf("the chart's name lacks the figures:\n%.400s", chart[1])
	}
	// Each chart's table is folded under it.
	if n := strings.Count(body, `<details class="figures">`); n != 4 {
		t.Errorf("%d folded tables, want 4 (spending by category, net worth, spending, income and spending)", n)
	}
	if strings.Contains(body, `<details class="figures" open>`) {
		t.Error("a table of Home is open")
	}
}

// budgetItems reads Home's budget bars: category, state, what is left or
// over, spent and limit.
func budgetItems(list string) [][]string {
	var out [][]string
	re := regexp.MustCompile(`(?s)<span class="what">(.*?) <span class="badge[^"]*">(.*?)</span></span> <span class="num[^"]*">(.*?)</span>` +
		`.*?<span class="spent">(.*?)</span> spent of <span class="limit">(.*?)</span>`)
	for _, m := range re.FindAllStringSubmatch(list, -1) {
		out = append(out, m[1:])
	}
	return out
}

// pairs finds every match of re (two groups) in s.
func pairs(s, re string) [][]string {
	var out [][]string
	for _, m := range regexp.MustCompile(re).FindAllStringSubmatch(s, -1) {
		out = append(out, []string{m[1], m[2]})
	}
	return out
}
