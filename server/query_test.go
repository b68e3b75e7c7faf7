package server

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// awkwardTexts are search and filter values that SQL text, LIKE patterns or
// a placeholder parser could take for something other than literal text.
var awkwardTexts = []string{`?`, `\?`, `?1`, `$1`, `:name`, `@p`, `'`, `''`, `"`, `%`, `_`, `\`, `;`, `--`, `/*`,
	`日本`, `café`, `🍜`}

// TestListTextFiltersAreLiteral sends every awkward text as search (and as
// category, alone and together with search) to every list route that takes
// them, and checks that each matches exactly the records holding it
// literally, with total_items counting the same rows as the page.
func TestListTextFiltersAreLiteral(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	alice.key = env.createKey(alice.user.ID, auth.ScopeAll)
	acc := alice.createAccount(t, `{"name":"Wallet","type":"cash","opening_balance":1000}`)
	card := alice.createCard(t, visaBody)
	quote := func(s string) string { b, _ := json.Marshal(s); return string(b) }

	// texts[route] maps the id of each record made for the test to the text
	// that route's search reads; categories[route] maps it to its category.
	texts := map[string]map[string]string{}
	categories := map[string]map[string]string{}
	add := func(route, id, text, category string) {
		if texts[route] == nil {
			texts[route], categories[route] = map[string]string{}, map[string]string{}
		}
		texts[route][id], categories[route][id] = text, category
	}
	accountLines := "/api/v1/accounts/" + acc.ID + "/transactions"
	unbilled := "/api/v1/credit-cards/" + card.ID + "/unbilled-transactions"
	for _, s := range awkwardTexts {
		desc, cat := "d"+s+"d", "K"+s
		for _, kind := range []string{"expense", "income"} {
			c := send[finance.Category](t, alice, http.MethodPost, "/api/v1/categories", `{"name":`+quote(cat)+`,"kind":"`+kind+`"}`, http.StatusCreated)
			add("/api/v1/categories", c.ID, cat, "")
			add("/api/v1/user-settings/categories", c.ID, cat, "")
		}
		e := alice.createExpense(t, `{"amount":1,"date":"2025-03-01","payment_method":"Cash","description":`+quote(desc)+`,"category":`+quote(cat)+`}`)
		add("/api/v1/expenses", e.ID, desc, cat)
		in := send[finance.Income](t, alice, http.MethodPost, "/api/v1/income",
			`{"amount":1,"date":"2025-03-01","account_id":"`+acc.ID+`","description":`+quote(desc)+`,"category":`+quote(cat)+`}`, http.StatusCreated)
		add("/api/v1/income", in.ID, desc, cat)
		line := alice.addLine(t, acc.ID, `{"type":"debit","amount":1,"date":"2025-03-01","description":`+quote(desc)+`}`)
		add(accountLines, line.ID, desc, "")
		add("/api/v1/accounts/transactions", line.ID, desc, "")
		// A purchase also makes an expense; the expense list's check reads
		// only the records added to it here, so that one is not counted.
		row := alice.createCardRow(t, `{"credit_card_id":"`+card.ID+`","type":"purchase","amount":1,"date":"2025-03-01","description":`+
			quote(desc)+`,"category":`+quote(cat)+`}`)
		add("/api/v1/credit-cards/transactions", row.ID, desc, cat)
		add(unbilled, row.ID, desc, "")
		// An installment plan, converted from a purchase of its own, is found by its description.
		src := alice.createCardRow(t, `{"credit_card_id":"`+card.ID+`","type":"purchase","amount":2,"date":"2025-03-01","description":"Plan source","category":"Shopping"}`)
		plan := send[finance.InstallmentPlanDetail](t, alice, http.MethodPost, convertURL(src.ID), `{"months":2,"description":`+quote(desc)+`}`, http.StatusCreated)
		add(plansURL, plan.ID, desc, "")
		// A bill template, and the instances it materializes, are found by name and category.
		tmpl := send[finance.BillTemplate](t, alice, http.MethodPost, billTemplatesURL,
			`{"name":`+quote(desc)+`,"amount":1,"category":`+quote(cat)+`,"frequency":"monthly","start_date":"2025-03-01"}`, http.StatusCreated)
		add(billTemplatesURL, tmpl.ID, desc, cat)
		bills, _ := page[finance.Bill](t, alice, billsURL+"?templateId="+tmpl.ID)
		if len(bills) != 2 {
			t.Fatalf("template %q materialized %d bills, want 2 (March and April)", desc, len(bills))
		}
		for _, b := range bills {
			add(billsURL, b.ID, desc, cat)
		}
		// An income template is found by its name.
		itmpl := send[finance.IncomeTemplate](t, alice, http.MethodPost, incomeTemplatesURL,
			`{"name":`+quote(desc)+`,"amount":1,"category":`+quote(cat)+`,"frequency":"monthly","start_date":"2025-03-01"}`, http.StatusCreated)
		add(incomeTemplatesURL, itmpl.ID, desc, "")
		a := alice.createAccount(t, `{"name":`+quote("A"+s)+`,"type":"cash"}`)
		add("/api/v1/accounts", a.ID, "A"+s, "")
		c := alice.createCard(t, `{"name":`+quote("C"+s)+`,"credit_limit":1000,"statement_day":1,"due_day":20}`)
		add("/api/v1/credit-cards", c.ID, "C"+s, "")
		l := alice.createLoan(t, `{"name":`+quote("L"+s)+`,"principal":100,"interest_type":"none","term_months":1,"start_date":"2025-03-01"}`)
		add("/api/v1/loans", l.ID, "L"+s, "")
	}
	// The activity log's search reads each entry's message; the writes above
	// logged one for every card and card transaction they made.
	logs, _, err := env.db.Read().ListCardLogs(context.Background(), alice.user.ID, finance.CardLogFilter{},
		finance.ListParams{Page: 1, Limit: 1000, SortBy: "created_at"})
	if err != nil || len(logs) == 0 {
		t.Fatalf("ListCardLogs: %d entries, %v", len(logs), err)
	}
	for _, l := range logs {
		add("/api/v1/credit-cards/logs", l.ID, l.Message, "")
	}
	// Every list route that takes search is covered.
	for _, rt := range env.srv.Routes() {
		if rt.Method != http.MethodGet || !slices.Contains(rt.Query, "search") {
			continue
		}
		id := card.ID
		if strings.HasPrefix(rt.Path, "/api/v1/accounts/") {
			id = acc.ID
		}
		if texts[strings.Replace(rt.Path, ":id", id, 1)] == nil {
			t.Errorf("list route %s takes search but this test makes no records for it", rt.Path)
		}
	}

	// want lists the route's test records whose field (text or category)
	// matches: search is a substring, category a whole name.
	want := func(route string, match func(id string) bool) []string {
		var ids []string
		for id := range texts[route] {
			if match(id) {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
		return ids
	}
	for route := range texts {
		takesCategory := slices.ContainsFunc(slices.Collect(maps.Values(categories[route])), func(c string) bool { return c != "" })
		for _, s := range awkwardTexts {
			check := func(query url.Values, wantIDs []string) {
				t.Helper()
				query.Set("limit", "100")
				u := route + "?" + query.Encode()
				res := alice.do(t, http.MethodGet, u, "", http.StatusOK)
				var p finance.Page[map[string]any]
				res.decodeData(t, &p)
				var got []string
				for _, it := range p.Items {
					if id, _ := it["id"].(string); texts[route][id] != "" {
						got = append(got, id)
					}
				}
				slices.Sort(got)
				if diff := cmp.Diff(wantIDs, got); diff != "" {
					t.Errorf("GET %s: matched records (-want +got):\n%s", u, diff)
				}
				if p.Pagination.TotalItems != len(p.Items) {
					t.Errorf("GET %s: total_items = %d, but the page holds %d items", u, p.Pagination.TotalItems, len(p.Items))
				}
			}
			bySearch := want(route, func(id string) bool { return strings.Contains(texts[route][id], s) })
			check(url.Values{"search": {s}}, bySearch)
			if takesCategory {
				byCategory := want(route, func(id string) bool { return categories[route][id] == "K"+s })
				check(url.Values{"category": {"K" + s}}, byCategory)
				// The category filter takes its own query path on expenses;
				// together with search it is where "?" used to break.
				check(url.Values{"category": {"K" + s}, "search": {s}}, byCategory)
				check(url.Values{"category": {s}}, nil) // no category is named s itself
			}
		}
	}
}

// TestUnknownQueryParameters sends a parameter no route takes to every route
// of the REST API: each refuses it, naming it and the parameters it does
// take, before it reads the path ids or the body.
func TestUnknownQueryParameters(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	alice.key = env.createKey(alice.user.ID, auth.ScopeAll)
	jwt := env.login(alice.user)
	for _, rt := range env.srv.Routes() {
		if !strings.HasPrefix(rt.Path, APIPrefix) {
			continue
		}
		path := rt.Path
		for strings.Contains(path, ":") {
			i := strings.Index(path, ":")
			j := strings.IndexByte(path[i:], '/')
			if j < 0 {
				j = len(path) - i
			}
			path = path[:i] + finance.NewID() + path[i+j:]
		}
		sc := alice.sc(apiScenario{name: rt.Method + " " + rt.Path, method: rt.Method, url: path + "?date_from=2025-01-01",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("date_from", unknownParamProblem(rt.Query))})
		if rt.Access == auth.FirstPartyOnly {
			sc.headers = bearer(jwt) // no key may call it: the scope check comes first
		}
		sc.run(t, env)
	}

	// An agent that misspells a filter learns the right name instead of
	// reading an unfiltered list as filtered.
	alice.createExpense(t, expenseBody("5", `"Cash"`))
	alice.sc(apiScenario{method: http.MethodGet, url: "/api/v1/expenses?date_from=2025-03-01&date_to=2025-03-31",
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		wantMessage: "Validation failed",
		wantFields: fieldsOf(
			"date_from", "is not a query parameter of this route; it takes: page, limit, sortBy, sortOrder, status, dateFrom, dateTo, search, category, payment_method, cardId, accountId, amountMin, amountMax",
			"date_to", "is not a query parameter of this route; it takes: page, limit, sortBy, sortOrder, status, dateFrom, dateTo, search, category, payment_method, cardId, accountId, amountMin, amountMax"),
	}).run(t, env)

	// A write with an unknown parameter writes nothing.
	runRejectedSpending(t, env, []ledgerUser{alice}, []apiScenario{
		alice.sc(apiScenario{name: "a write", method: http.MethodPost, url: "/api/v1/expenses?dry_run=true", body: expenseBody("7", `"Cash"`),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("dry_run", "is not a query parameter of this route, which takes none")}),
	})
}

// TestQueryValues covers the values a route reads as sent or not at all:
// over-long text, repeated parameters, bytes that are not UTF-8 text, and
// a query string that does not parse.
func TestQueryValues(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	e := alice.createExpense(t, `{"amount":1,"date":"2025-03-01","payment_method":"Cash","category":"Groceries","description":"`+
		strings.Repeat("é", MaxQueryValueLen)+`"}`)
	const expenses = "/api/v1/expenses"
	long := fmt.Sprintf("must be at most %d characters", MaxQueryValueLen)
	runScenarios(t, env, []apiScenario{
		alice.sc(apiScenario{name: "a 50,000 character search", method: http.MethodGet, url: expenses + "?search=" + strings.Repeat("a", 50_000),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("search", long)}),
		alice.sc(apiScenario{name: "a 201 character category", method: http.MethodGet, url: expenses + "?category=" + strings.Repeat("%C3%A9", MaxQueryValueLen+1),
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("category", long)}),
		alice.sc(apiScenario{name: "a repeated filter", method: http.MethodGet, url: expenses + "?status=active&status=voided",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("status", "must be given once")}),
		alice.sc(apiScenario{name: "bytes that are not UTF-8", method: http.MethodGet, url: expenses + "?search=%FF%FE",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("search", "must be UTF-8 text without NUL characters")}),
		alice.sc(apiScenario{name: "a NUL character", method: http.MethodGet, url: expenses + "?search=a%00b",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("search", "must be UTF-8 text without NUL characters")}),
		alice.sc(apiScenario{name: "an unencoded semicolon", method: http.MethodGet, url: expenses + "?search=a;b",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantMessage: "The query string is malformed: encode each name and value (a ';' as %3B, a '%' as %25)"}),
		alice.sc(apiScenario{name: "a name that is markup is not repeated back", method: http.MethodGet, url: expenses + "?%3Cimg+src%3Dx%3E=1",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("query", unknownParamProblem(list("status", "dateFrom", "dateTo", "search", "category", "payment_method", "cardId", "accountId", "amountMin", "amountMax"))),
			check: func(t testing.TB, res apiResult) {
				if strings.Contains(string(res.raw), "img") {
					t.Errorf("the answer repeats the parameter's name: %s", res.raw)
				}
			}}),
	})
	// 200 characters, each two bytes in UTF-8, is within the limit.
	items, _ := page[finance.Expense](t, alice, expenses+"?search="+url.QueryEscape(strings.Repeat("é", MaxQueryValueLen)))
	if diff := cmp.Diff([]string{e.ID}, expenseIDs(items)); diff != "" {
		t.Errorf("a search of exactly %d characters (-want +got):\n%s", MaxQueryValueLen, diff)
	}
}

// TestPaymentMethodAnyCase: a payment method in any letter case is read as
// the method, and answered and stored in its canonical spelling.
func TestPaymentMethodAnyCase(t *testing.T) {
	_, alice, _ := newSpendingEnv(t)
	c := alice.createCard(t, visaBody)
	cash := alice.createExpense(t, expenseBody("5", `"cash"`))
	card := alice.createExpense(t, `{"amount":6,"date":"2025-03-01","description":"x","category":"Groceries","payment_method":" CREDIT card ","credit_card_id":"`+c.ID+`"}`)
	if cash.PaymentMethod != finance.MethodCash || card.PaymentMethod != finance.MethodCreditCard {
		t.Errorf("created with methods %q and %q, want the canonical spellings", cash.PaymentMethod, card.PaymentMethod)
	}
	if got := alice.getExpense(t, cash.ID).PaymentMethod; got != finance.MethodCash {
		t.Errorf("stored method %q, want Cash", got)
	}
	upd := send[finance.Expense](t, alice, http.MethodPut, "/api/v1/expenses/"+card.ID, `{"payment_method":"CASH","credit_card_id":null}`, http.StatusOK)
	if upd.PaymentMethod != finance.MethodCash {
		t.Errorf("updated method %q, want Cash", upd.PaymentMethod)
	}
	for _, q := range []string{"cash", "CASH", "Cash"} {
		items, _ := page[finance.Expense](t, alice, "/api/v1/expenses?payment_method="+q+"&sortBy=amount")
		if diff := cmp.Diff([]string{card.ID, cash.ID}, expenseIDs(items)); diff != "" {
			t.Errorf("payment_method=%s (-want +got):\n%s", q, diff)
		}
	}
}

// TestAnswersDoNotRepeatInput: an error never hands back text from the path
// or from a stored name (an agent or page may render it), and every answer
// tells browsers not to guess its type.
func TestAnswersDoNotRepeatInput(t *testing.T) {
	env, alice, _ := newSpendingEnv(t)
	markup := `<img src=x onerror=alert(1)>`
	acc := alice.createAccount(t, `{"name":"`+markup+`","type":"cash"}`)
	alice.archive(t, acc.ID)
	c := alice.createCard(t, `{"name":"`+markup+`","credit_limit":100,"statement_day":1,"due_day":20}`)
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/"+c.ID, "", http.StatusOK)
	cat := send[finance.Category](t, alice, http.MethodPost, "/api/v1/categories", `{"name":"`+markup+`","kind":"expense"}`, http.StatusCreated)
	alice.do(t, http.MethodDelete, "/api/v1/categories/"+cat.ID, "", http.StatusOK)

	noEcho := func(t testing.TB, res apiResult) {
		if strings.Contains(res.message(), "img") || strings.Contains(res.message(), "alert") {
			t.Errorf("the message repeats input: %q", res.message())
		}
	}
	nosniff := map[string]string{"X-Content-Type-Options": "nosniff"}
	runScenarios(t, env, []apiScenario{
		{name: "an unknown path", method: http.MethodGet, url: "/api/v1/" + url.PathEscape(markup),
			wantStatus: http.StatusNotFound, wantCode: CodeNotFound, wantHeaders: nosniff, check: noEcho,
			wantMessage: "No route for GET on this path; the routes are listed at /api/docs"},
		{name: "a path with another method", method: http.MethodDelete, url: "/api/v1/health",
			wantStatus: http.StatusMethodNotAllowed, wantCode: CodeValidation, wantHeaders: nosniff,
			wantMessage: "Method DELETE is not allowed on this path; allowed: GET, HEAD"},
		alice.sc(apiScenario{name: "an archived account's name", method: http.MethodPatch, url: "/api/v1/accounts/" + acc.ID + "/archive",
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, wantHeaders: nosniff, check: noEcho}),
		alice.sc(apiScenario{name: "an archived card's name", method: http.MethodPut, url: "/api/v1/credit-cards/" + c.ID, body: `{"notes":"x"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, check: noEcho}),
		alice.sc(apiScenario{name: "an archived category's name", method: http.MethodPut, url: "/api/v1/categories/" + cat.ID, body: `{"color":"#000000"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus, check: noEcho}),
		alice.sc(apiScenario{name: "a success", method: http.MethodGet, url: "/api/v1/health", wantStatus: http.StatusOK, wantHeaders: nosniff}),
		{name: "the contract", method: http.MethodGet, url: "/api/openapi.yaml", wantStatus: http.StatusOK, wantHeaders: nosniff},
		// A page, outside the contract.
		{name: "the docs page with a slash", method: http.MethodGet, url: "/api/docs/", testRoute: true,
			wantStatus: http.StatusMovedPermanently, wantHeaders: map[string]string{"Location": "/api/docs", "X-Content-Type-Options": "nosniff"}},
	})
}
