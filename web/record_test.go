package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/web"
)

// recordedCash records a cash expense straight through the ledger.
func recordedCash(t *testing.T, env *testEnv, u finance.User, amount finance.Money, desc, category string) finance.Expense {
	t.Helper()
	e, err := env.srv.Ledger().CreateExpense(context.Background(), u.ID, finance.ExpenseRequest{Amount: finance.Of(amount),
		Date: finance.Of(finance.NewDate(2025, 3, 10)), Description: finance.Of(desc), Category: finance.Of(category),
		PaymentMethod: finance.Of("Cash")})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func fmtInt(n int) string { return strconv.Itoa(n) }

// bulkForm is a bulk form of rows, each a map of field to value.
func bulkForm(token string, rows ...map[string]string) url.Values {
	f := url.Values{"csrf": {token}, "rows": {fmtInt(len(rows))}}
	for i, row := range rows {
		for k, v := range row {
			f.Set("items["+fmtInt(i)+"]."+k, v)
		}
	}
	return f
}

func TestRecordTypeIt(t *testing.T) {
	env, u, b := webApp(t, func(c *server.Config) { c.AIRateLimit = server.Rate{Count: 2, Window: time.Hour, Burst: 2} })
	page := b.Get(web.RecordPath)
	if !page.Contains(`action="/record/parse"`) || !page.Contains(`<textarea id="text" name="text"`) {
		t.Fatalf("record page lacks the Type it box:\n%s", page.Body)
	}
	token := testkit.CSRF(t, page)
	typed := "lunch 250 cash yesterday, grab 180 cash"

	if x := b.Post(web.RecordParsePath, url.Values{"text": {typed}}); x.Status != http.StatusForbidden {
		t.Errorf("parse without a form token: %d", x.Status)
	}
	blank := b.Post(web.RecordParsePath, url.Values{"csrf": {token}, "text": {"  "}})
	if blank.Status != http.StatusBadRequest || !blank.Contains(`id="text-error">Text is required<`) || !blank.Contains(`role="alert"`) {
		t.Errorf("blank text: %d\n%s", blank.Status, blank.Body)
	}

	x := b.Post(web.RecordParsePath, url.Values{"csrf": {token}, "text": {typed}})
	if x.Status != http.StatusOK {
		t.Fatalf("parse: %d\n%s", x.Status, x.Body)
	}
	testkit.CheckPageHeaders(t, x)
	body := testkit.Unescaped(x)
	for _, want := range []string{
		"<h1>Check the drafts</h1>", "2 drafts by the built-in parser", `<input type="hidden" name="rows" value="2">`,
		`name="items[0].amount" inputmode="decimal" autocomplete="off" value="250.00"`,
		`name="items[0].date" value="2025-03-14"`, // yesterday
		`name="items[1].amount" inputmode="decimal" autocomplete="off" value="180.00"`,
		`<option value="Cash" selected>Cash</option>`, "Save all", typed,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("review lacks %s", want)
		}
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 {
		t.Fatalf("parsing saved %d expenses", n)
	}

	// The person fixes a field (the first draft's category) and saves both.
	review := bulkForm(testkit.CSRF(t, x),
		map[string]string{"amount": "250.00", "date": "2025-03-14", "description": "lunch", "category": "Groceries", "payment_method": "Cash"},
		map[string]string{"amount": "180.00", "date": "2025-03-15", "description": "grab", "category": "Transportation", "payment_method": "Cash"})
	review.Set("parsed", "true")
	saved := b.Post(web.RecordBulkPath, review)
	if saved.Status != http.StatusSeeOther || saved.Header.Get("Location") != web.ExpensesPath+"?notice=expenses-recorded" {
		t.Fatalf("save all: %d to %q\n%s", saved.Status, saved.Header.Get("Location"), saved.Body)
	}
	got := expensesOf(t, env, u, "")
	if len(got) != 2 || got[0].Description != "grab" || got[0].Amount != 18000 || *got[0].Category != "Transportation" ||
		got[1].Description != "lunch" || got[1].Amount != 25000 || *got[1].Category != "Groceries" || got[1].Date != finance.NewDate(2025, 3, 14) {
		t.Errorf("saved = %+v", got)
	}
	if list := b.Get(saved.Header.Get("Location")); !list.Contains("The expenses have been recorded.") || !list.Contains("2 expenses") {
		t.Errorf("list after save:\n%s", list.Body)
	}

	// The AI budget (2 an hour here, one spent) runs out: the Record page
	// again with the text, the reason, and nothing parsed or saved.
	b.Post(web.RecordParsePath, url.Values{"csrf": {token}, "text": {"taxi 99"}})
	busy := b.Post(web.RecordParsePath, url.Values{"csrf": {token}, "text": {"taxi 99"}})
	if busy.Status != http.StatusTooManyRequests || !busy.Contains("You have used up AI parsing for now") ||
		!busy.Contains(">taxi 99</textarea>") || busy.Header.Get("Retry-After") == "" {
		t.Errorf("over the budget: %d\n%s", busy.Status, busy.Body)
	}
	if n := len(expensesOf(t, env, u, "")); n != 2 {
		t.Errorf("%d expenses after refused parses, want 2", n)
	}
}

// draftRowHTML is the fieldset of draft n on the review page.
func draftRowHTML(t *testing.T, body string, n int) string {
	t.Helper()
	_, rest, ok := strings.Cut(body, `<div class="bulk-row" id="r`+fmtInt(n)+`" role="group"`)
	if !ok {
		t.Fatalf("the review has no draft %d", n)
	}
	row, _, _ := strings.Cut(rest, `<div class="bulk-row"`)
	row, _, _ = strings.Cut(row, `<div class="actions">`)
	return row
}

// The review says which fields the text did not state, beside each one and
// in words above them, and shows the household's three cases as the route
// drafts them: a rough date read (not the line before's), a card the person
// lacks left to choose, a line without an amount on its own.
func TestRecordTypeItShowsGuesses(t *testing.T) {
	env, u, b := webApp(t)
	card, err := env.srv.Ledger().CreateCreditCard(context.Background(), u.ID, finance.CardRequest{Name: finance.Of("BDO Visa"),
		CreditLimit: finance.Of(finance.Money(5000000)), StatementDay: finance.Of(20), DueDay: finance.Of(5)})
	if err != nil {
		t.Fatal(err)
	}
	token := testkit.CSRF(t, b.Get(web.RecordPath))
	typed := "grab 180 yesterday\nmeralco 2,845.60 bdo last week\ngroceries 1,200 metrobank card\ncoffee at the mall"
	x := b.Post(web.RecordParsePath, url.Values{"csrf": {token}, "text": {typed}})
	if x.Status != http.StatusOK {
		t.Fatalf("parse: %d\n%s", x.Status, x.Body)
	}
	body := testkit.Unescaped(x)
	badge := `<span class="badge guess">guessed</span>`
	for _, tc := range []struct {
		n         int
		want, not []string
	}{
		{0, []string{`value="180.00"`, `name="items[0].date" value="2025-03-14"`,
			`<label for="r0-method" class="cell guessed"><span class="sr-only">Paid with</span> ` + badge,
			`<p class="guessed-note small">Your text did not state how it was paid, so it was filled in: check the fields marked ` + badge + `.</p>`},
			[]string{`<label for="r0-date" class="cell cell-date guessed">`}},
		{1, []string{`value="2845.60"`, `name="items[1].date" value="2025-03-08"`, // a week before today, not yesterday
			`<label for="r1-date" class="cell cell-date guessed"><span class="sr-only">Date</span> ` + badge,
			`<option value="` + card.ID + `" selected>BDO Visa</option>`,
			"Your text did not state the date, so it was filled in"},
			[]string{`<label for="r1-method" class="cell guessed">`, `<label for="r1-card" class="for-card guessed">`}},
		{2, []string{`value="1200.00"`, `<option value="Credit Card" selected>`,
			`<li>no active credit card is named like "metrobank"; choose the card it was charged to</li>`},
			[]string{`<option value="` + card.ID + `" selected>`}},
		{3, []string{`name="items[3].amount" inputmode="decimal" autocomplete="off" value=""`, `value="Coffee at the mall"`,
			"<li>no amount was found; fill it in</li>",
			"Your text did not state the date and how it was paid, so they were filled in"},
			nil},
	} {
		row := draftRowHTML(t, body, tc.n)
		for _, want := range tc.want {
			if !strings.Contains(row, want) {
				t.Errorf("draft %d lacks %s:\n%s", tc.n, want, row)
			}
		}
		for _, not := range tc.not {
			if strings.Contains(row, not) {
				t.Errorf("draft %d has %s:\n%s", tc.n, not, row)
			}
		}
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 {
		t.Fatalf("parsing saved %d expenses", n)
	}
}

func TestRecordBulk(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.RecordBulkPath)
	if page.Status != http.StatusOK {
		t.Fatalf("GET %s: %d\n%s", web.RecordBulkPath, page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)
	for _, want := range []string{`<h1>Record several expenses</h1>`, `name="rows" value="5"`, `name="items[4].amount"`,
		`name="items[0].date" value="2025-03-15"`, `aria-current="page">Record</a>`} {
		if !page.Contains(want) {
			t.Errorf("bulk page lacks %s", want)
		}
	}
	token := testkit.CSRF(t, page)
	row := func(amount, desc, category string) map[string]string {
		return map[string]string{"amount": amount, "description": desc, "category": category, "date": "2025-03-12", "payment_method": "Cash"}
	}
	good := []map[string]string{row("100", "bread", "Groceries"), row("", "", ""), row("45.50", "jeep", "Transportation"), row("60", "milk", "Groceries")}

	if x := b.Post(web.RecordBulkPath, bulkForm("forged", good...)); x.Status != http.StatusForbidden {
		t.Errorf("a wrong form token: %d", x.Status)
	}
	// More rows: the rows so far are kept, five blank ones added.
	more := bulkForm(token, good...)
	more.Set("action", "more")
	if x := b.Post(web.RecordBulkPath, more); x.Status != http.StatusOK || !x.Contains(`name="rows" value="9"`) ||
		!x.Contains(`name="items[2].description" maxlength="255" autocomplete="off" value="jeep"`) {
		t.Errorf("add rows: %d\n%s", x.Status, x.Body)
	}
	// One bad row among good ones: nothing is saved, the problem is beside
	// the row's field (row 3 is item 2, the blank row being skipped), and
	// every row keeps what was typed.
	bad := append([]map[string]string{}, good...)
	bad[3] = row("0", "milk", "Yachts")
	x := b.Post(web.RecordBulkPath, bulkForm(token, bad...))
	body := testkit.Unescaped(x)
	if x.Status != http.StatusBadRequest || !strings.Contains(body, `id="r3-amount-error">Row 4: Amount must be greater than 0<`) ||
		!strings.Contains(body, `value="jeep"`) || !strings.Contains(body, "Nothing saved. Check row 4 below.") || strings.Contains(body, `id="r2-amount-error"`) {
		t.Errorf("a bad row: %d\n%s", x.Status, x.Body)
	}
	bad[3] = row("60", "milk", "Yachts") // references are checked once the shape is right
	if x := b.Post(web.RecordBulkPath, bulkForm(token, bad...)); x.Status != http.StatusBadRequest || !x.Contains(`id="r3-category-error">Row 4: Category `) {
		t.Errorf("an unknown category: %d\n%s", x.Status, x.Body)
	}
	if x := b.Post(web.RecordBulkPath, bulkForm(token, row("", "", ""))); x.Status != http.StatusBadRequest ||
		!x.Contains("Expenses must hold 1 to 100 expenses (got 0)") {
		t.Errorf("all rows blank: %d\n%s", x.Status, x.Body)
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 {
		t.Fatalf("refused bulk forms wrote %d expenses", n)
	}
	x = b.Post(web.RecordBulkPath, bulkForm(token, good...))
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.ExpensesPath+"?notice=expenses-recorded" {
		t.Fatalf("save: %d\n%s", x.Status, x.Body)
	}
	var sum finance.Money
	for _, e := range expensesOf(t, env, u, "") {
		sum += e.Amount
	}
	if n := len(expensesOf(t, env, u, "")); n != 3 || sum != 20550 {
		t.Errorf("%d expenses summing to %s, want 3 summing to 205.50", n, sum)
	}
}

func TestExpenseSplitPage(t *testing.T) {
	env, u, b := webApp(t)
	e := recordedCash(t, env, u, 100000, "Mall run", "Groceries")
	path := web.ExpensesPath + "/" + e.ID + "/split"
	page := b.Get(path + "?back=" + url.QueryEscape(web.ExpensesPath+"?search=Mall"))
	if page.Status != http.StatusOK {
		t.Fatalf("GET split: %d\n%s", page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)
	for _, want := range []string{"<h1>Split expense</h1>", "must add up to ₱1,000.00", `name="rows" value="4"`,
		`<option value="Groceries" selected>`, `name="back" value="/expenses?search=Mall"`} {
		if !strings.Contains(testkit.Unescaped(page), want) {
			t.Errorf("split page lacks %s", want)
		}
	}
	token := testkit.CSRF(t, page)
	form := func(parts ...[3]string) url.Values {
		f := url.Values{"csrf": {token}, "rows": {fmtInt(len(parts))}, "back": {web.ExpensesPath + "?search=Mall"}}
		for i, p := range parts {
			f.Set("parts["+fmtInt(i)+"].amount", p[0])
			f.Set("parts["+fmtInt(i)+"].category", p[1])
			f.Set("parts["+fmtInt(i)+"].description", p[2])
		}
		return f
	}
	if x := b.Post(path, url.Values{"rows": {"2"}}); x.Status != http.StatusForbidden {
		t.Errorf("no form token: %d", x.Status)
	}
	x := b.Post(path, form([3]string{"700", "Groceries", "food"}, [3]string{"", "", ""}, [3]string{"200", "Shopping", "shirt"}))
	if x.Status != http.StatusBadRequest || !x.Contains(`id="parts-error">Parts must sum exactly to the expense amount 1000.00 (they sum to 900.00)<`) ||
		!x.Contains(`value="shirt"`) {
		t.Errorf("parts short of the total: %d\n%s", x.Status, x.Body)
	}
	x = b.Post(path, form([3]string{"700", "Groceries", ""}, [3]string{"", "", ""}, [3]string{"300", "", "shirt"}))
	if x.Status != http.StatusBadRequest || !x.Contains(`id="p2-category-error">Category is required<`) || !x.Contains("Not split. Check part 3 below.") {
		t.Errorf("a part without a category: %d\n%s", x.Status, x.Body)
	}
	if got, _ := env.srv.Ledger().GetExpense(context.Background(), u.ID, e.ID); got.IsSplit {
		t.Fatal("a refused split was written")
	}
	more := form([3]string{"700", "Groceries", ""}, [3]string{"300", "Shopping", ""})
	more.Set("action", "more")
	if x := b.Post(path, more); x.Status != http.StatusOK || !x.Contains(`name="rows" value="4"`) || !x.Contains(`name="parts[3].amount"`) {
		t.Errorf("add parts: %d\n%s", x.Status, x.Body)
	}
	x = b.Post(path, form([3]string{"700", "Groceries", "food"}, [3]string{"300", "Shopping", "shirt"}))
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.ExpensesPath+"?search=Mall&notice=expense-split" {
		t.Fatalf("split: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	got, _ := env.srv.Ledger().GetExpense(context.Background(), u.ID, e.ID)
	if !got.IsSplit || len(got.Splits) != 2 || got.Splits[1].Category != "Shopping" || got.Splits[1].Amount != 30000 || got.Category != nil {
		t.Errorf("after split: %+v", got)
	}
	// Home's chart table shows the parts under their categories.
	home := testkit.Unescaped(b.Get(web.HomePath))
	for _, want := range []string{`<th scope="row">Groceries</th><td class="num">₱700.00</td>`, `<th scope="row">Shopping</th><td class="num">₱300.00</td>`} {
		if !strings.Contains(home, want) {
			t.Errorf("home lacks %s", want)
		}
	}
	// Split again: the page starts from the current parts.
	if again := b.Get(path); !again.Contains(`name="parts[1].amount" inputmode="decimal" autocomplete="off" value="300.00"`) {
		t.Errorf("split page of a split expense:\n%s", again.Body)
	}
	// A voided expense is refused in the API's words.
	if _, err := env.srv.Ledger().VoidExpense(context.Background(), u.ID, e.ID); err != nil {
		t.Fatal(err)
	}
	if x := b.Post(path, form([3]string{"500", "Groceries", ""}, [3]string{"500", "Shopping", ""})); x.Status != http.StatusBadRequest ||
		!x.Contains("Expense is voided and cannot be split") {
		t.Errorf("split a voided expense: %d\n%s", x.Status, x.Body)
	}
	for _, p := range []string{web.ExpensesPath + "/0190f1a2-0000-7000-8000-000000000000/split", web.ExpensesPath + "/nope/split"} {
		if x := b.Get(p); x.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d", p, x.Status)
		}
	}
}

func TestRecordSaveAndSplit(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.RecordPath)
	x := b.Post(web.RecordPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "kind": {"expense"}, "amount": {"90"}, "date": {"2025-03-15"},
		"description": {"Market"}, "category": {"Groceries"}, "payment_method": {"Cash"}, "then": {"split"}})
	got := expensesOf(t, env, u, "")
	if len(got) != 1 || x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.ExpensesPath+"/"+got[0].ID+"/split?notice=expense-recorded" {
		t.Fatalf("save and split: %d to %q, %d expenses", x.Status, x.Header.Get("Location"), len(got))
	}
	if next := b.Get(x.Header.Get("Location")); !next.Contains("Expense recorded.") || !next.Contains("Market") {
		t.Errorf("split page after recording:\n%s", next.Body)
	}
}

func TestExpenseEdit(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	e := recordedCash(t, env, u, 25000, "Lunch", "Groceries")
	path := web.ExpensesPath + "/" + e.ID + "/edit"

	list := b.Get(web.ExpensesPath)
	for _, want := range []string{`href="/expenses/` + e.ID + `/edit?back=%2fexpenses"`, `href="/expenses/` + e.ID + `/split?back=%2fexpenses"`} {
		if !list.Contains(want) {
			t.Errorf("the list lacks %s\n%s", want, list.Body)
		}
	}
	page := b.Get(path + "?back=" + url.QueryEscape("/expenses?page=1"))
	if page.Status != http.StatusOK {
		t.Fatalf("GET edit: %d\n%s", page.Status, page.Body)
	}
	testkit.CheckPageHeaders(t, page)
	for _, want := range []string{"<h1>Edit expense</h1>", `action="/expenses/` + e.ID + `/edit"`, `value="250.00"`, `value="Lunch"`,
		`value="2025-03-10"`, `<option value="Groceries" selected>`, `value="Cash" checked`, "Save changes",
		`name="back" value="/expenses?page=1"`} {
		if !strings.Contains(testkit.Unescaped(page), want) {
			t.Errorf("edit page lacks %s", want)
		}
	}
	if page.Contains(`action="/record/parse"`) {
		t.Error("the edit page offers the Type it box")
	}
	token := testkit.CSRF(t, page)
	form := func() url.Values {
		return url.Values{"csrf": {token}, "back": {"/expenses?page=1"}, "amount": {"260"}, "date": {"2025-03-11"},
			"description": {"Lunch with Ana"}, "category": {"Food & Dining"}, "payment_method": {"Cash"}}
	}
	unchanged := func() {
		t.Helper()
		if got, _ := env.srv.Ledger().GetExpense(ctx, u.ID, e.ID); got.Description != "Lunch" || got.Amount != 25000 {
			t.Fatalf("a refused edit changed the expense: %+v", got)
		}
	}
	f := form()
	f.Del("csrf")
	if x := b.Post(path, f); x.Status != http.StatusForbidden {
		t.Errorf("no form token: %d", x.Status)
	}
	f = form()
	f.Set("description", "")
	f.Set("amount", "1.234")
	x := b.Post(path, f)
	if x.Status != http.StatusBadRequest || !x.Contains(`id="description-error">Description is required<`) ||
		!x.Contains(`id="amount-error">Amount must be a number with at most 2 decimal places`) || !x.Contains(`value="1.234"`) {
		t.Errorf("blank description: %d\n%s", x.Status, x.Body)
	}
	unchanged()

	x = b.Post(path, form())
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != "/expenses?page=1&notice=expense-updated" {
		t.Fatalf("save: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	got, _ := env.srv.Ledger().GetExpense(ctx, u.ID, e.ID)
	if got.Amount != 26000 || got.Description != "Lunch with Ana" || *got.Category != "Food & Dining" || got.Date != finance.NewDate(2025, 3, 11) {
		t.Errorf("after edit: %+v", got)
	}

	// A split expense keeps its parts when the category is left alone, and
	// refuses an amount change in the API's words.
	if _, err := env.srv.Ledger().SplitExpense(ctx, u.ID, e.ID, finance.SplitRequest{Parts: []finance.SplitPart{
		{Amount: finance.Of(finance.Money(16000)), Category: finance.Of("Groceries")},
		{Amount: finance.Of(finance.Money(10000)), Category: finance.Of("Transportation")}}}); err != nil {
		t.Fatal(err)
	}
	if p := b.Get(path); !p.Contains("Split into 2 parts") || !p.Contains(`<option value="">Keep the split</option>`) {
		t.Errorf("edit page of a split expense:\n%s", p.Body)
	}
	f = form()
	f.Set("category", "")
	f.Set("description", "Lunch, shared")
	if x := b.Post(path, f); x.Status != http.StatusSeeOther {
		t.Errorf("rename a split expense: %d\n%s", x.Status, x.Body)
	}
	if got, _ := env.srv.Ledger().GetExpense(ctx, u.ID, e.ID); !got.IsSplit || got.Description != "Lunch, shared" {
		t.Errorf("after renaming the split expense: %+v", got)
	}
	f.Set("amount", "300")
	if x := b.Post(path, f); x.Status != http.StatusBadRequest || !x.Contains("Expense is split; set category in the same request") {
		t.Errorf("change a split expense's amount: %d\n%s", x.Status, x.Body)
	}

	// A voided expense is refused in the API's words.
	if _, err := env.srv.Ledger().VoidExpense(ctx, u.ID, e.ID); err != nil {
		t.Fatal(err)
	}
	if p := b.Get(path); !p.Contains("is voided; it can no longer be changed") {
		t.Errorf("edit page of a voided expense:\n%s", p.Body)
	}
	if x := b.Post(path, form()); x.Status != http.StatusBadRequest || !x.Contains("Expense is voided and cannot be changed") {
		t.Errorf("edit a voided expense: %d\n%s", x.Status, x.Body)
	}
	if got, _ := env.srv.Ledger().GetExpense(ctx, u.ID, e.ID); got.Description != "Lunch, shared" {
		t.Errorf("a voided expense changed: %+v", got)
	}

	// Someone else's expense, or none, is not found.
	other := env.createUser(finance.PlanFree)
	theirs := recordedCash(t, env, other, 100, "theirs", "Groceries")
	for _, p := range []string{web.ExpensesPath + "/" + theirs.ID + "/edit", web.ExpensesPath + "/bad-id/edit"} {
		if x := b.Get(p); x.Status != http.StatusNotFound {
			t.Errorf("GET %s: %d", p, x.Status)
		}
	}
	if x := b.Post(web.ExpensesPath+"/"+theirs.ID+"/edit", form()); x.Status != http.StatusNotFound {
		t.Errorf("POST another user's expense: %d", x.Status)
	}
	if got, _ := env.srv.Ledger().GetExpense(ctx, other.ID, theirs.ID); got.Description != "theirs" {
		t.Errorf("another user's expense changed: %+v", got)
	}
}

func TestIncomeEdit(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	acct, err := env.srv.Ledger().CreateAccount(ctx, u.ID, finance.AccountRequest{
		Name: finance.Of("Payroll"), Type: finance.Of("savings"), OpeningBalance: finance.Of(finance.Money(0))})
	if err != nil {
		t.Fatal(err)
	}
	in, err := env.srv.Ledger().CreateIncome(ctx, u.ID, finance.IncomeRequest{Amount: finance.Of(finance.Money(5000000)),
		Date: finance.Of(finance.NewDate(2025, 3, 1)), Category: finance.Of("Salary"), Description: finance.Of("March pay"),
		AccountID: finance.Of(acct.ID)})
	if err != nil {
		t.Fatal(err)
	}
	path := "/income/" + in.ID + "/edit"
	page := b.Get(path)
	if page.Status != http.StatusOK {
		t.Fatalf("GET income edit: %d\n%s", page.Status, page.Body)
	}
	for _, want := range []string{"<h1>Edit income</h1>", `value="50000.00"`, `value="March pay"`, `<option value="Salary" selected>`,
		`<option value="` + acct.ID + `" selected>Payroll</option>`, `name="back" value="/income"`, `aria-current="page">Income</a>`} {
		if !strings.Contains(testkit.Unescaped(page), want) {
			t.Errorf("income edit lacks %s", want)
		}
	}
	if page.Contains(`name="payment_method"`) {
		t.Error("the income form asks for a payment method")
	}
	token := testkit.CSRF(t, page)
	form := url.Values{"csrf": {token}, "amount": {""}, "date": {"2025-03-02"}, "description": {""}, "category": {"Salary"}, "account_id": {""}}
	if x := b.Post(path, url.Values{"amount": {"1"}}); x.Status != http.StatusForbidden {
		t.Errorf("no form token: %d", x.Status)
	}
	if x := b.Post(path, form); x.Status != http.StatusBadRequest || !x.Contains(`id="amount-error">Amount is required<`) {
		t.Errorf("no amount: %d\n%s", x.Status, x.Body)
	}
	if a, _ := env.srv.Ledger().GetAccount(ctx, u.ID, acct.ID); a.CurrentBalance != 5000000 {
		t.Fatalf("a refused edit moved the balance to %s", a.CurrentBalance)
	}
	// A blank description and account clear them: the income leaves the account.
	form.Set("amount", "48000")
	x := b.Post(path, form)
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != "/income?notice=income-updated" {
		t.Fatalf("save: %d to %q\n%s", x.Status, x.Header.Get("Location"), x.Body)
	}
	got, _ := env.srv.Ledger().GetIncome(ctx, u.ID, in.ID)
	if got.Amount != 4800000 || got.Description != nil || got.AccountID != nil || got.Date != finance.NewDate(2025, 3, 2) {
		t.Errorf("after edit: %+v", got)
	}
	if a, _ := env.srv.Ledger().GetAccount(ctx, u.ID, acct.ID); a.CurrentBalance != 0 {
		t.Errorf("account balance %s after the income left it", a.CurrentBalance)
	}
	if list := b.Get(x.Header.Get("Location")); !list.Contains("The income has been saved.") || !list.Contains("Salary") {
		t.Errorf("the income list after the edit:\n%s", list.Body)
	}
	if _, err := env.srv.Ledger().VoidIncome(ctx, u.ID, in.ID); err != nil {
		t.Fatal(err)
	}
	if x := b.Post(path, form); x.Status != http.StatusBadRequest || !x.Contains("Income is voided and cannot be changed") {
		t.Errorf("edit voided income: %d\n%s", x.Status, x.Body)
	}
}

// The edit form refuses the money fields of a billed card purchase in the
// API's words, and keeps an archived account in its picker, so saving
// another field neither fails nor moves the expense.
func TestExpenseEditBilledAndArchived(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	card, err := env.srv.Ledger().CreateCreditCard(ctx, u.ID, finance.CardRequest{Name: finance.Of("Visa"),
		CreditLimit: finance.Of(finance.Money(5000000)), StatementDay: finance.Of(20), DueDay: finance.Of(5)})
	if err != nil {
		t.Fatal(err)
	}
	bought, err := env.srv.Ledger().CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(120000)),
		Date: finance.Of(finance.NewDate(2025, 3, 10)), Description: finance.Of("Shoes"), Category: finance.Of("Shopping"),
		PaymentMethod: finance.Of("Credit Card"), CreditCardID: finance.Of(card.ID)})
	if err != nil {
		t.Fatal(err)
	}
	testkit.SetCardRowStatus(t, env.db, u.ID, *bought.CardTransactionID, finance.CardBilled)
	path := web.ExpensesPath + "/" + bought.ID + "/edit"
	page := b.Get(path)
	if !page.Contains(`<option value="`+card.ID+`" selected>Visa`) || !page.Contains(`value="Credit Card" checked`) {
		t.Fatalf("edit page of a card purchase:\n%s", page.Body)
	}
	form := url.Values{"csrf": {testkit.CSRF(t, page)}, "amount": {"1300"}, "date": {"2025-03-10"}, "description": {"Running shoes"},
		"category": {"Shopping"}, "payment_method": {"Credit Card"}, "credit_card_id": {card.ID}}
	if x := b.Post(path, form); x.Status != http.StatusBadRequest ||
		!strings.Contains(testkit.Unescaped(x), "Expense's card transaction is billed; its amount, date and payment method can no longer change") {
		t.Errorf("change a billed purchase's amount: %d\n%s", x.Status, x.Body)
	}
	if got, _ := env.srv.Ledger().GetExpense(ctx, u.ID, bought.ID); got.Amount != 120000 || got.Description != "Shoes" {
		t.Fatalf("a refused edit changed the purchase: %+v", got)
	}
	form.Set("amount", "1200.00")
	if x := b.Post(path, form); x.Status != http.StatusSeeOther {
		t.Fatalf("rename a billed purchase: %d\n%s", x.Status, x.Body)
	}
	if got, _ := env.srv.Ledger().GetExpense(ctx, u.ID, bought.ID); got.Description != "Running shoes" || *got.CardTransactionStatus != finance.CardBilled {
		t.Errorf("after renaming: %+v", got)
	}

	acct, err := env.srv.Ledger().CreateAccount(ctx, u.ID, finance.AccountRequest{
		Name: finance.Of("Old bank"), Type: finance.Of("savings"), OpeningBalance: finance.Of(finance.Money(100000))})
	if err != nil {
		t.Fatal(err)
	}
	paid, err := env.srv.Ledger().CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(5000)),
		Date: finance.Of(finance.NewDate(2025, 3, 10)), Description: finance.Of("Fee"), Category: finance.Of("Miscellaneous"),
		PaymentMethod: finance.Of("Account Debit"), AccountID: finance.Of(acct.ID)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.srv.Ledger().ArchiveAccount(ctx, u.ID, acct.ID); err != nil {
		t.Fatal(err)
	}
	path = web.ExpensesPath + "/" + paid.ID + "/edit"
	page = b.Get(path)
	if !page.Contains(`<option value="` + acct.ID + `" selected>Old bank (archived)`) {
		t.Fatalf("the archived account is not in the picker:\n%s", page.Body)
	}
	x := b.Post(path, url.Values{"csrf": {testkit.CSRF(t, page)}, "amount": {"50.00"}, "date": {"2025-03-10"}, "description": {"Bank fee"},
		"category": {"Miscellaneous"}, "payment_method": {"Account Debit"}, "account_id": {acct.ID}})
	if x.Status != http.StatusSeeOther {
		t.Fatalf("rename an expense paid from an archived account: %d\n%s", x.Status, x.Body)
	}
	if got, _ := env.srv.Ledger().GetExpense(ctx, u.ID, paid.ID); got.Description != "Bank fee" || got.AccountID == nil || *got.AccountID != acct.ID {
		t.Errorf("after renaming: %+v", got)
	}
}

func TestRecordPagesNeedSignIn(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	e := recordedCash(t, env, u, 1000, "Tea", "Groceries")
	b := env.browser(t)
	for _, path := range []string{web.RecordBulkPath, web.ExpensesPath + "/" + e.ID + "/edit", web.ExpensesPath + "/" + e.ID + "/split", "/income/" + e.ID + "/edit"} {
		x := b.Get(path)
		if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath+"?next="+url.QueryEscape(path) {
			t.Errorf("GET %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
	form := url.Values{"rows": {"2"}, "items[0].amount": {"5"}, "items[0].description": {"x"}, "items[0].category": {"Groceries"},
		"items[0].payment_method": {"Cash"}, "items[0].date": {"2025-03-01"}, "text": {"tea 5"}, "amount": {"5"}, "description": {"x"},
		"parts[0].amount": {"5"}, "parts[0].category": {"Groceries"}, "parts[1].amount": {"5"}, "parts[1].category": {"Groceries"}}
	for _, path := range []string{web.RecordBulkPath, web.RecordParsePath, web.ExpensesPath + "/" + e.ID + "/edit", web.ExpensesPath + "/" + e.ID + "/split"} {
		if x := b.Post(path, form); x.Status != http.StatusSeeOther || !strings.HasPrefix(x.Header.Get("Location"), web.LoginPath) {
			t.Errorf("POST %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
	if got := expensesOf(t, env, u, ""); len(got) != 1 || got[0].Description != "Tea" || got[0].IsSplit {
		t.Errorf("signed-out posts changed the expenses: %+v", got)
	}
}

// The bulk grid: a blank date takes the nearest date above it (today for a
// first row without one), rows holding only the defaults (a date, a
// method) are skipped, and one refused row writes nothing, every typed
// value kept and its problem said once, with the row and field in words.
func TestRecordBulkGrid(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.RecordBulkPath)
	for _, want := range []string{`name="items[0].date" value="2025-03-15"`, `name="items[1].date" value=""`,
		"A date left empty takes the date of the row above.", `<button type="button" class="button secondary" data-add-row hidden>Add a row</button>`,
		`<div class="bulk-head" aria-hidden="true">`} {
		if !page.Contains(want) {
			t.Errorf("bulk grid lacks %s", want)
		}
	}
	token := testkit.CSRF(t, page)
	row := func(date, amount, desc, category string) map[string]string {
		return map[string]string{"date": date, "amount": amount, "description": desc, "category": category, "payment_method": "Cash"}
	}
	rows := []map[string]string{
		row("", "10", "first", "Groceries"),              // today
		row("2025-03-10", "20", "second", "Groceries"),   // its own
		row("", "30", "third", "Groceries"),              // the 10th, from above
		{"date": "2025-03-12", "payment_method": "Cash"}, // blank: a date and method alone
		row("", "1,200", "fifth", "Groceries"),           // the 12th, from the blank row above it
		row("", "", "", ""),
	}
	// A refused row: nothing written, every row as typed (a blank date
	// stays blank), the problem once beside its row.
	refused := append([]map[string]string{}, rows...)
	refused[4] = row("", "1,200", "fifth", "Yachts")
	x := b.Post(web.RecordBulkPath, bulkForm(token, refused...))
	body := testkit.Unescaped(x)
	for _, want := range []string{"Nothing saved. Check row 5 below.", `id="r4-category-error">Row 5: Category must be the name of an active expense category<`,
		`aria-invalid="true" aria-describedby="r4-category-error"`, `name="items[2].date" value=""`, `name="items[1].date" value="2025-03-10"`,
		`name="items[4].amount" inputmode="decimal" autocomplete="off" value="1200.00"`, `value="third"`} {
		if !strings.Contains(body, want) {
			t.Errorf("refused grid lacks %s", want)
		}
	}
	if x.Status != http.StatusBadRequest || strings.Count(body, "Category must be the name") != 1 {
		t.Errorf("refused grid: %d, the problem %d times\n%s", x.Status, strings.Count(body, "Category must be the name"), x.Body)
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 {
		t.Fatalf("a refused grid wrote %d expenses", n)
	}

	x = b.Post(web.RecordBulkPath, bulkForm(token, rows...))
	if x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.ExpensesPath+"?notice=expenses-recorded" {
		t.Fatalf("save: %d\n%s", x.Status, x.Body)
	}
	got := map[string]string{}
	for _, e := range expensesOf(t, env, u, "") {
		got[e.Description] = e.Date.String() + " " + e.Amount.String()
	}
	want := map[string]string{"first": "2025-03-15 10.00", "second": "2025-03-10 20.00", "third": "2025-03-10 30.00", "fifth": "2025-03-12 1200.00"}
	if len(got) != len(want) {
		t.Errorf("saved %v, want %v", got, want)
	}
	for desc, w := range want {
		if got[desc] != w {
			t.Errorf("%s saved as %q, want %q", desc, got[desc], w)
		}
	}
}

// Add 5 rows, without a script: the form comes back with every value
// typed and five blank rows (their dates blank, to take the one above),
// and nothing is saved.
func TestRecordBulkAddRows(t *testing.T) {
	env, u, b := webApp(t)
	token := testkit.CSRF(t, b.Get(web.RecordBulkPath))
	f := bulkForm(token, map[string]string{"date": "2025-03-11", "amount": "75", "description": "Tea", "category": "Groceries",
		"payment_method": "Cash"}, map[string]string{"payment_method": "Cash"})
	f.Set("action", "more")
	x := b.Post(web.RecordBulkPath, f)
	for _, want := range []string{`name="rows" value="7"`, `name="items[0].date" value="2025-03-11"`, `value="Tea"`,
		`name="items[0].amount" inputmode="decimal" autocomplete="off" value="75"`, `<option value="Groceries" selected>`,
		`name="items[6].date" value=""`, `id="r6-name"><span class="sr-only">Row </span>7</span>`} {
		if !x.Contains(want) {
			t.Errorf("add rows lacks %s", want)
		}
	}
	if x.Status != http.StatusOK || x.Contains(`name="items[7].`) || x.Contains(`role="alert"`) {
		t.Errorf("add rows: %d\n%s", x.Status, x.Body)
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 {
		t.Errorf("Add 5 rows saved %d expenses", n)
	}
}

// The split form's last part fills the remainder: a part left without an
// amount takes what the others leave; when they already come to the
// expense or more it is refused beside that part's amount, in words, and
// a part that takes the typed sum past the expense is refused beside its own.
func TestExpenseSplitRemainder(t *testing.T) {
	env, u, b := webApp(t)
	e := recordedCash(t, env, u, 100000, "Mall run", "Groceries")
	path := web.ExpensesPath + "/" + e.ID + "/split"
	page := b.Get(path)
	for _, want := range []string{"Leave one part's amount empty and it takes what the other parts leave.", `data-total="1000.00"`,
		`data-money-prefix="₱"`, `data-decimal-comma="false"`, `<p class="split-left" id="split-left" role="status" hidden></p>`} {
		if !strings.Contains(testkit.Unescaped(page), want) {
			t.Errorf("split page lacks %s", want)
		}
	}
	token := testkit.CSRF(t, page)
	form := func(parts ...[3]string) url.Values {
		f := url.Values{"csrf": {token}, "rows": {fmtInt(len(parts))}}
		for i, p := range parts {
			f.Set("parts["+fmtInt(i)+"].amount", p[0])
			f.Set("parts["+fmtInt(i)+"].category", p[1])
			f.Set("parts["+fmtInt(i)+"].description", p[2])
		}
		return f
	}
	unsplit := func(when string) {
		t.Helper()
		if got, _ := env.srv.Ledger().GetExpense(context.Background(), u.ID, e.ID); got.IsSplit {
			t.Fatalf("%s: the expense was split", when)
		}
	}
	for _, tc := range []struct {
		name  string
		parts [][3]string
		want  string
	}{
		{"nothing left", [][3]string{{"600", "Groceries", ""}, {"400", "Shopping", ""}, {"", "Entertainment", "movie"}},
			`id="p2-amount-error">Amount has nothing left to take: the other parts already come to ₱1,000.00<`},
		{"the others pass the total", [][3]string{{"700", "Groceries", ""}, {"", "Entertainment", ""}, {"1,200", "Shopping", ""}},
			`id="p1-amount-error">Amount has nothing left to take: the other parts already come to ₱1,900.00, ₱900.00 more than the expense (₱1,000.00)<`},
		{"typed parts pass the total", [][3]string{{"700", "Groceries", ""}, {"", "", ""}, {"400", "Shopping", ""}},
			`id="p2-amount-error">Amount takes the parts to ₱1,100.00, ₱100.00 more than the expense (₱1,000.00)<`},
	} {
		x := b.Post(path, form(tc.parts...))
		body := testkit.Unescaped(x)
		if x.Status != http.StatusBadRequest || !strings.Contains(body, tc.want) || !strings.Contains(body, "Not split. Check part") ||
			strings.Contains(body, "must sum exactly") {
			t.Errorf("%s: %d\n%s", tc.name, x.Status, body)
		}
		unsplit(tc.name)
	}
	// Two parts left without an amount: neither is guessed at.
	x := b.Post(path, form([3]string{"700", "Groceries", ""}, [3]string{"", "Shopping", ""}, [3]string{"", "Entertainment", ""}))
	if x.Status != http.StatusBadRequest || !x.Contains(`id="p1-amount-error">Amount is required<`) || !x.Contains(`id="p2-amount-error">Amount is required<`) {
		t.Errorf("two open parts: %d\n%s", x.Status, x.Body)
	}
	unsplit("two open parts")

	// The middle part left blank takes 1,000 - 600.50 - 100 = 299.50; the form keeps it blank until saved.
	x = b.Post(path, form([3]string{"600.50", "Groceries", ""}, [3]string{"", "Shopping", "shirt"}, [3]string{"", "", ""}, [3]string{"100", "Entertainment", ""}))
	if x.Status != http.StatusSeeOther {
		t.Fatalf("split with a remainder: %d\n%s", x.Status, x.Body)
	}
	got, _ := env.srv.Ledger().GetExpense(context.Background(), u.ID, e.ID)
	var parts []string
	for _, p := range got.Splits {
		parts = append(parts, p.Category+" "+p.Amount.String())
	}
	if want := []string{"Groceries 600.50", "Shopping 299.50", "Entertainment 100.00"}; strings.Join(parts, ", ") != strings.Join(want, ", ") {
		t.Errorf("parts %v, want %v", parts, want)
	}
}
