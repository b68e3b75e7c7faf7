package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
)

const rulesURL = "/api/v1/category-rules"

// storedRules reads the user's rules from the database as "position:conditions→category".
func storedRules(t testing.TB, env *testEnv, userID string) []string {
	t.Helper()
	rules, err := env.db.Read().CategoryRules(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = fmt.Sprintf("%d:%s→%s", r.Position, r.Conditions(), r.Category)
		if !r.Active {
			out[i] += " (inactive)"
		}
	}
	return out
}

func TestCategoryRulesOrderAndMoves(t *testing.T) {
	env, alice, bob := newCategoryEnv(t)
	var grab, meralco, big finance.CategoryRule
	alice.do(t, http.MethodPost, rulesURL, `{"description_contains":"  GRAB ","category":"transportation"}`, http.StatusCreated).decodeData(t, &grab)
	if grab.Position != 1 || *grab.DescriptionContains != "GRAB" || grab.Category != "Transportation" ||
		grab.CategoryKind != finance.KindExpense || !grab.Active {
		t.Errorf("created rule = %+v", grab)
	}
	alice.do(t, http.MethodPost, rulesURL, `{"payee_equals":"Meralco","category":"Utilities"}`, http.StatusCreated).decodeData(t, &meralco)
	// A rule placed first pushes the others down.
	alice.do(t, http.MethodPost, rulesURL, `{"description_contains":"GRAB","amount_min":"500","amount_max":1000.5,"category":"Travel","position":1}`,
		http.StatusCreated).decodeData(t, &big)
	if big.Position != 1 || big.AmountMin.String() != "500.00" || big.AmountMax.String() != "1000.50" {
		t.Errorf("placed rule = %+v", big)
	}
	want := []string{`1:description contains "GRAB", amount 500.00 to 1000.50→Travel`, `2:description contains "GRAB"→Transportation`,
		`3:payee is "Meralco"→Utilities`}
	if diff := cmp.Diff(want, storedRules(t, env, alice.user.ID)); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	items, p := page[finance.CategoryRule](t, alice, rulesURL+"?limit=2&page=2")
	if len(items) != 1 || items[0].ID != meralco.ID || p.TotalItems != 3 || p.TotalPages != 2 {
		t.Errorf("page 2 = %+v %+v", items, p)
	}

	// Moving the last rule first shifts the two before it.
	var moved finance.CategoryRule
	alice.do(t, http.MethodPut, rulesURL+"/"+meralco.ID, `{"position":1,"payee_equals":"MERALCO"}`, http.StatusOK).decodeData(t, &moved)
	if moved.Position != 1 || *moved.PayeeEquals != "MERALCO" {
		t.Errorf("moved = %+v", moved)
	}
	want = []string{`1:payee is "MERALCO"→Utilities`, `2:description contains "GRAB", amount 500.00 to 1000.50→Travel`,
		`3:description contains "GRAB"→Transportation`}
	if diff := cmp.Diff(want, storedRules(t, env, alice.user.ID)); diff != "" {
		t.Errorf("after the move (-want +got):\n%s", diff)
	}
	// And down again, removing a condition and changing the category.
	alice.do(t, http.MethodPut, rulesURL+"/"+big.ID, `{"position":3,"amount_max":null,"category":"Shopping"}`, http.StatusOK)
	want = []string{`1:payee is "MERALCO"→Utilities`, `2:description contains "GRAB"→Transportation`,
		`3:description contains "GRAB", amount at least 500.00→Shopping`}
	if diff := cmp.Diff(want, storedRules(t, env, alice.user.ID)); diff != "" {
		t.Errorf("after moving down (-want +got):\n%s", diff)
	}

	// Deleting closes the gap and answers the rule as it was.
	var gone finance.CategoryRule
	alice.do(t, http.MethodDelete, rulesURL+"/"+meralco.ID, "", http.StatusOK).decodeData(t, &gone)
	if gone.ID != meralco.ID || gone.Position != 1 {
		t.Errorf("deleted = %+v", gone)
	}
	want = []string{`1:description contains "GRAB"→Transportation`, `2:description contains "GRAB", amount at least 500.00→Shopping`}
	if diff := cmp.Diff(want, storedRules(t, env, alice.user.ID)); diff != "" {
		t.Errorf("after the delete (-want +got):\n%s", diff)
	}
	bob.do(t, http.MethodGet, rulesURL+"/"+grab.ID, "", http.StatusNotFound)
	bob.do(t, http.MethodDelete, rulesURL+"/"+grab.ID, "", http.StatusNotFound)
	if got := storedRules(t, env, bob.user.ID); len(got) != 0 {
		t.Errorf("bob's rules = %v", got)
	}

	// A rule of an archived category is listed inactive; unarchiving makes it active again.
	transport := alice.categoryByName(t, "Transportation")
	alice.do(t, http.MethodDelete, "/api/v1/categories/"+transport.ID, "", http.StatusOK)
	var r finance.CategoryRule
	alice.do(t, http.MethodGet, rulesURL+"/"+grab.ID, "", http.StatusOK).decodeData(t, &r)
	if r.Active || r.Category != "Transportation" {
		t.Errorf("rule of an archived category = %+v", r)
	}
	if _, err := env.srv.Ledger().UnarchiveCategory(context.Background(), alice.user.ID, transport.ID); err != nil {
		t.Fatal(err)
	}
	alice.do(t, http.MethodGet, rulesURL+"/"+grab.ID, "", http.StatusOK).decodeData(t, &r)
	if !r.Active {
		t.Errorf("rule after unarchiving = %+v", r)
	}
}

func TestCategoryRuleRejected(t *testing.T) {
	env, alice, _ := newCategoryEnv(t)
	var rule finance.CategoryRule
	alice.do(t, http.MethodPost, rulesURL, `{"description_contains":"GRAB","category":"Transportation"}`, http.StatusCreated).decodeData(t, &rule)
	// "Gifts" is an income category; an expense one of the same name makes the name ambiguous.
	alice.do(t, http.MethodPost, "/api/v1/categories", `{"name":"Gifts","kind":"expense"}`, http.StatusCreated)
	long := strings.Repeat("a", 101)
	one := rulesURL + "/" + rule.ID
	scenarios := []apiScenario{
		{name: "no condition", method: http.MethodPost, url: rulesURL, body: `{"category":"Transportation"}`,
			wantFields: fieldsOf("description_contains", "is required unless payee_equals, amount_min or amount_max is given (a rule needs a condition)")},
		{name: "blank conditions", method: http.MethodPost, url: rulesURL, body: `{"description_contains":"  ","payee_equals":"","category":"Transportation"}`,
			wantFields: fieldsOf("description_contains", "is required unless payee_equals, amount_min or amount_max is given (a rule needs a condition)")},
		{name: "no category", method: http.MethodPost, url: rulesURL, body: `{"description_contains":"GRAB"}`,
			wantFields: fieldsOf("category", problemRequired)},
		{name: "too long", method: http.MethodPost, url: rulesURL, body: `{"description_contains":"` + long + `","payee_equals":"` + long + `","category":"Travel"}`,
			wantFields: fieldsOf("description_contains", "must be at most 100 characters", "payee_equals", "must be at most 100 characters")},
		{name: "range upside down", method: http.MethodPost, url: rulesURL, body: `{"amount_min":"500","amount_max":"100","category":"Travel"}`,
			wantFields: fieldsOf("amount_max", "must be at least amount_min (500.00)")},
		{name: "amounts not positive or not exact", method: http.MethodPost, url: rulesURL, body: `{"amount_min":0,"amount_max":"1.005","category":"Travel"}`,
			wantFields: fieldsOf("amount_min", "must be greater than 0", "amount_max", "must be a number with at most 2 decimal places")},
		{name: "unknown category", method: http.MethodPost, url: rulesURL, body: `{"description_contains":"X","category":"Nope"}`,
			wantFields: fieldsOf("category", "must be the name of an active category")},
		{name: "category of the other kind", method: http.MethodPost, url: rulesURL, body: `{"description_contains":"X","category":"Salary","category_kind":"expense"}`,
			wantFields: fieldsOf("category", "must be the name of an active expense category")},
		{name: "ambiguous category", method: http.MethodPost, url: rulesURL, body: `{"description_contains":"X","category":"gifts"}`,
			wantFields: fieldsOf("category_kind", `is required: both an expense and an income category are named "gifts"`)},
		{name: "bad kind", method: http.MethodPost, url: rulesURL, body: `{"description_contains":"X","category":"Travel","category_kind":"asset"}`,
			wantFields: fieldsOf("category_kind", "must be expense or income")},
		{name: "position past the end", method: http.MethodPost, url: rulesURL, body: `{"description_contains":"X","category":"Travel","position":3}`,
			wantFields: fieldsOf("position", "must be from 1 to 2")},
		{name: "move past the end", method: http.MethodPut, url: one, body: `{"position":2}`, wantFields: fieldsOf("position", "must be from 1 to 1")},
		{name: "removing the last condition", method: http.MethodPut, url: one, body: `{"description_contains":null}`,
			wantFields: fieldsOf("description_contains", "is required unless payee_equals, amount_min or amount_max is given (a rule needs a condition)")},
		{name: "null category", method: http.MethodPut, url: one, body: `{"category":null}`, wantFields: fieldsOf("category", "cannot be null")},
		{name: "wrong type", method: http.MethodPut, url: one, body: `{"position":"first"}`, wantFields: fieldsOf("position", "must be an integer")},
	}
	for _, sc := range scenarios {
		sc.wantStatus, sc.wantCode = http.StatusBadRequest, CodeValidation
		t.Run(sc.name, func(t *testing.T) {
			before := storedRules(t, env, alice.user.ID)
			alice.sc(sc).run(t, env)
			if diff := cmp.Diff(before, storedRules(t, env, alice.user.ID)); diff != "" {
				t.Errorf("a rejected request changed the rules (-before +after):\n%s", diff)
			}
		})
	}
}

func TestCategoryRuleLimit(t *testing.T) {
	env, alice, _ := newCategoryEnv(t)
	ledger := env.srv.Ledger()
	for i := range finance.MaxCategoryRules {
		if _, err := ledger.CreateCategoryRule(context.Background(), alice.user.ID, finance.CategoryRuleRequest{
			DescriptionContains: finance.Of(fmt.Sprintf("SHOP %d", i)), Category: finance.Of("Shopping")}); err != nil {
			t.Fatal(err)
		}
	}
	alice.sc(apiScenario{method: http.MethodPost, url: rulesURL, body: `{"description_contains":"ONE MORE","category":"Shopping"}`,
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		wantFields: fieldsOf("category_rules", "at most 200 rules can be kept; delete one to add another")}).run(t, env)
	got := storedRules(t, env, alice.user.ID)
	if len(got) != 200 || got[199] != `200:description contains "SHOP 199"→Shopping` {
		t.Errorf("rules after the refused 201st: %d, last %q", len(got), got[len(got)-1])
	}
}

func TestCategoryRuleScopes(t *testing.T) {
	env, alice, _ := newCategoryEnv(t)
	var rule finance.CategoryRule
	alice.do(t, http.MethodPost, rulesURL, `{"description_contains":"GRAB","category":"Transportation"}`, http.StatusCreated).decodeData(t, &rule)
	read := env.createKey(alice.user.ID, auth.ScopeRead)
	expenses := env.createKey(alice.user.ID, auth.ScopeExpensesWrite)
	apiScenario{method: http.MethodGet, url: rulesURL, headers: bearer(read), wantStatus: http.StatusOK}.run(t, env)
	apiScenario{method: http.MethodGet, url: rulesURL + "/" + rule.ID, headers: bearer(read), wantStatus: http.StatusOK}.run(t, env)
	for _, sc := range []apiScenario{
		{method: http.MethodPost, url: rulesURL, body: `{"description_contains":"X","category":"Travel"}`},
		{method: http.MethodPut, url: rulesURL + "/" + rule.ID, body: `{"position":1}`},
		{method: http.MethodDelete, url: rulesURL + "/" + rule.ID},
	} {
		sc.headers, sc.wantStatus, sc.wantCode, sc.wantInMsg = bearer(read), http.StatusForbidden, CodeForbidden, []string{"settings:write"}
		sc.run(t, env)
	}
	apiScenario{method: http.MethodGet, url: rulesURL, headers: bearer(expenses),
		wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantInMsg: []string{"finance:read"}}.run(t, env)
	if got := storedRules(t, env, alice.user.ID); len(got) != 1 {
		t.Errorf("rules after refused writes: %v", got)
	}
}

// The worked example of domain.md "Category rules": a rule comes before the
// file's category and history, the first match wins, and a rule of an
// archived category is skipped.
func TestImportPreviewCategoryRules(t *testing.T) {
	e := newImportEnv(t)
	settings := e.createKey(e.user.ID, auth.ScopeSettingsWrite)
	rule := func(body string) finance.CategoryRule {
		var r finance.CategoryRule
		apiScenario{method: http.MethodPost, url: rulesURL, body: body, headers: bearer(settings), wantStatus: http.StatusCreated}.run(t, e.testEnv).decodeData(t, &r)
		return r
	}
	travel := rule(`{"description_contains":"GRAB","amount_min":"500.00","category":"Travel"}`)
	transport := rule(`{"description_contains":"grab","category":"Transportation"}`)
	rule(`{"payee_equals":"Meralco","category":"Utilities"}`)
	rule(`{"description_contains":"PAYROLL","category":"Bonus"}`)
	for range 12 {
		_, err := e.srv.Ledger().CreateExpense(e.ctx, e.user.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(900_00)),
			Date: finance.Of(finance.NewDate(2026, 10, 1)), Description: finance.Of("SM SUPERMARKET"), Category: finance.Of("Groceries"),
			PaymentMethod: finance.Of("Cash")})
		e.must(err)
	}
	file := "Date,Description,Payee,Category,Amount\n" +
		"2026-11-10,GRAB* A-123 MAKATI,,,-185.00\n" +
		"2026-11-11,GRABFOOD JOLLIBEE,,Food & Dining,-650.00\n" +
		"2026-11-12,MERALCO ONLINE, MERALCO ,,-2410.55\n" +
		"2026-11-13,SM SUPERMARKET,,,-1240.00\n" +
		"2026-11-14,FOOD PANDA,,Food & Dining,-300.00\n" +
		"2026-11-15,PAYROLL,,,30000.00\n"
	var b finance.ImportBatch
	e.preview(t, e.key, "target_account_id", e.acct, file, http.StatusCreated).decodeData(t, &b)
	want := []string{
		"2 create expense Transportation/rule 2",
		"3 create expense Travel/rule 1",
		"4 create expense Utilities/rule 3",
		"5 create expense Groceries/history",
		"6 create expense Food & Dining/file",
		"7 create income Bonus/rule 4",
	}
	if diff := cmp.Diff(want, testkit.ImportRows(b.Items)); diff != "" {
		t.Errorf("preview rows (-want +got):\n%s", diff)
	}
	if r := b.Items[0]; r.CategoryRule == nil || r.CategoryRule.ID != transport.ID || r.CategoryUses != 0 {
		t.Errorf("rule row = %+v", r)
	}
	if r := b.Items[3]; r.CategoryUses != 12 || r.CategoryRule != nil {
		t.Errorf("history row = %+v", r)
	}
	// What the database keeps is what the reply said.
	_, rows, err := e.stored(b.ID)
	e.must(err)
	if diff := cmp.Diff(want, testkit.ImportRows(rows)); diff != "" || rows[1].CategoryRule.ID != travel.ID {
		t.Errorf("stored rows (-want +got):\n%s", diff)
	}

	first := b.ID
	// Archiving Travel skips its rule: the second row falls to rule 2.
	travelCat, err := e.db.Read().ActiveCategoryByName(e.ctx, e.user.ID, finance.KindExpense, "Travel")
	e.must(err)
	_, err = e.srv.Ledger().ArchiveCategory(e.ctx, e.user.ID, travelCat.ID)
	e.must(err)
	e.preview(t, e.key, "target_account_id", e.acct, file, http.StatusCreated).decodeData(t, &b)
	if got := testkit.ImportRows(b.Items)[1]; got != "3 create expense Transportation/rule 2" {
		t.Errorf("row of an archived rule's category = %q", got)
	}
	// The earlier preview kept its categories.
	_, rows, err = e.stored(first)
	e.must(err)
	if diff := cmp.Diff(want, testkit.ImportRows(rows)); diff != "" {
		t.Errorf("earlier preview after the change (-want +got):\n%s", diff)
	}
}
