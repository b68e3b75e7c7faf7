package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// rulesOf lists the user's rules as "position:conditions→category", straight from the ledger.
func rulesOf(t *testing.T, env *testEnv, u finance.User) []string {
	t.Helper()
	rules, err := env.srv.Ledger().AllCategoryRules(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = fmt.Sprintf("%d:%s→%s", r.Position, r.Conditions(), r.Category)
	}
	return out
}

// The page: a rule added (a refusal first, shown beside its field), edited,
// moved and deleted, each checked on the page and in the ledger; then an
// import's rows say which rule chose their category, and offer to make one.
func TestCategoryRulesPage(t *testing.T) {
	env, u, b := webApp(t)
	testkit.WantPage(t, "settings", b.Get(web.SettingsPath), http.StatusOK, `<a href="/settings/category-rules"><strong>Category rules</strong>`)
	page := b.Get(web.CategoryRulesPath)
	testkit.WantPage(t, "no rules", page, http.StatusOK, "No rules yet.", `<option value="expense:Transportation">Transportation</option>`,
		`<option value="income:Salary">Salary</option>`)
	tok := testkit.CSRF(t, page)
	once := regexp.MustCompile(`name="once" value="([^"]+)"`)
	add := func(f url.Values) testkit.Exchange {
		m := once.FindStringSubmatch(string(b.Get(web.CategoryRulesPath).Body))
		f.Set("csrf", tok)
		f.Set("once", m[1])
		return b.Post(web.CategoryRulesPath, f)
	}
	for name, f := range forged(url.Values{"description_contains": {"GRAB"}, "category": {"expense:Transportation"}}) {
		if x := b.Post(web.CategoryRulesPath, f); x.Status != http.StatusForbidden {
			t.Errorf("create with %s: %d", name, x.Status)
		}
	}
	x := add(url.Values{"amount_min": {"500"}, "amount_max": {"100"}, "category": {"expense:Travel"}})
	testkit.WantPage(t, "upside-down range", x, http.StatusBadRequest, `id="new-max-error">Amount to must be at least amount_min (500.00)<`,
		`<option value="expense:Travel" selected>`)
	x = add(url.Values{"category": {"expense:Travel"}})
	testkit.WantPage(t, "no condition", x, http.StatusBadRequest, `id="new-description-error">Description is required unless`)
	if got := rulesOf(t, env, u); len(got) != 0 {
		t.Fatalf("refused forms wrote rules: %v", got)
	}
	testkit.WantRedirect(t, "add", add(url.Values{"description_contains": {"GRAB"}, "category": {"expense:Transportation"}}),
		web.CategoryRulesPath+"?notice=rule-created")
	testkit.WantRedirect(t, "add another", add(url.Values{"payee_equals": {"Meralco"}, "amount_max": {"5000"}, "category": {"expense:Utilities"}}),
		web.CategoryRulesPath+"?notice=rule-created")
	want := []string{`1:description contains "GRAB"→Transportation`, `2:payee is "Meralco", amount at most 5000.00→Utilities`}
	if diff := cmp.Diff(want, rulesOf(t, env, u)); diff != "" {
		t.Fatalf("rules (-want +got):\n%s", diff)
	}
	rules, _ := env.srv.Ledger().AllCategoryRules(context.Background(), u.ID)
	meralco := rules[1]
	page = b.Get(web.CategoryRulesPath + "?notice=rule-created")
	testkit.WantPage(t, "two rules", page, http.StatusOK, "The rule has been added.",
		`Rule 1: description contains "GRAB" → Transportation`, `Rule 2: payee is "Meralco", amount at most 5000.00 → Utilities`,
		`action="/settings/category-rules/`+meralco.ID+`/move"`)

	// Move the second up; edit it (clearing the amount); a refused edit shows beside the rule.
	testkit.WantRedirect(t, "move up", b.Post(web.CategoryRulesPath+"/"+meralco.ID+"/move", url.Values{"csrf": {tok}, "direction": {"up"}}),
		web.CategoryRulesPath+"?notice=rule-moved")
	x = b.Post(web.CategoryRulesPath+"/"+meralco.ID, url.Values{"csrf": {tok}, "payee_equals": {""}, "category": {"expense:Utilities"}})
	testkit.WantPage(t, "edit removing every condition", x, http.StatusBadRequest, `id="rule-`+meralco.ID+`-description-error">Description is required`)
	testkit.WantRedirect(t, "edit", b.Post(web.CategoryRulesPath+"/"+meralco.ID,
		url.Values{"csrf": {tok}, "payee_equals": {"MERALCO"}, "amount_max": {""}, "category": {"expense:Utilities"}}),
		web.CategoryRulesPath+"?notice=rule-saved")
	want = []string{`1:payee is "MERALCO"→Utilities`, `2:description contains "GRAB"→Transportation`}
	if diff := cmp.Diff(want, rulesOf(t, env, u)); diff != "" {
		t.Fatalf("after the move and edit (-want +got):\n%s", diff)
	}

	// An import: the GRAB row names its rule; another row offers "Make a rule".
	acct := newAccount(t, env, u, "BPI Savings", 1000_00)
	token := testkit.CSRF(t, b.Get(web.ImportPath))
	x = importUpload(t, b, token, map[string]string{"target": "account:" + acct.ID}, "march.csv",
		"Date,Description,Amount\n2025-03-01,GRAB A-1,-185.00\n2025-03-02,GROCER MAKATI,-12.50\n")
	if x.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d\n%s", x.Status, x.Body)
	}
	testkit.WantPage(t, "batch", b.Get(x.Header.Get("Location")), http.StatusOK,
		`<span class="sub">rule 2: description contains "GRAB"</span>`, `<a href="/settings/category-rules">category rules</a>`,
		`href="/settings/category-rules?category=expense%3AMiscellaneous&description=GROCER+MAKATI#new">Make a rule`)
	testkit.WantPage(t, "make a rule", b.Get(web.CategoryRulesPath+"?category=expense%3AMiscellaneous&description=GROCER+MAKATI"), http.StatusOK,
		`id="new-description" name="description_contains" maxlength="100" value="GROCER MAKATI"`, `<option value="expense:Miscellaneous" selected>`)

	// Delete: the rule after moves up.
	testkit.WantRedirect(t, "delete", b.Post(web.CategoryRulesPath+"/"+meralco.ID+"/delete", url.Values{"csrf": {tok}}),
		web.CategoryRulesPath+"?notice=rule-deleted")
	if diff := cmp.Diff([]string{`1:description contains "GRAB"→Transportation`}, rulesOf(t, env, u)); diff != "" {
		t.Errorf("after the delete (-want +got):\n%s", diff)
	}
	testkit.WantPage(t, "an unknown rule", b.Post(web.CategoryRulesPath+"/0190f1a2-0000-7000-8000-000000000000/delete", url.Values{"csrf": {tok}}),
		http.StatusNotFound)
}
