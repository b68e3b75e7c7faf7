package server

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// categoryBases are the two prefixes that serve categories identically.
var categoryBases = []string{"/api/v1/categories", "/api/v1/user-settings/categories"}

// newCategoryEnv returns two users whose keys hold settings:write.
func newCategoryEnv(t *testing.T) (env *testEnv, alice, bob ledgerUser) {
	t.Helper()
	env = newTestEnv(t)
	mk := func() ledgerUser {
		u := env.createUser(finance.PlanPro)
		return ledgerUser{env: env, user: u, key: env.createKey(u.ID, auth.ScopeSettingsWrite)}
	}
	return env, mk(), mk()
}

func (u ledgerUser) categories(t testing.TB, url string) ([]finance.Category, finance.Pagination) {
	t.Helper()
	return page[finance.Category](t, u, url)
}

func (u ledgerUser) categoryByName(t testing.TB, name string) finance.Category {
	t.Helper()
	items, _ := u.categories(t, "/api/v1/categories?status=all&limit=100")
	for _, c := range items {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no category %q", name)
	return finance.Category{}
}

// allCategories reads the user's categories straight from the database.
func allCategories(t testing.TB, env *testEnv, userID string) []finance.Category {
	t.Helper()
	items, _, err := env.db.Read().ListCategories(context.Background(), userID,
		finance.CategoryFilter{Status: finance.StatusAll}, finance.ListParams{Page: 1, Limit: 1000, SortBy: "created_at"})
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func names(cs []finance.Category) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

func TestCategoriesSeededForEveryUser(t *testing.T) {
	_, alice, _ := newCategoryEnv(t)
	expense, p := alice.categories(t, "/api/v1/categories?kind=expense&limit=100")
	if p.TotalItems != 17 {
		t.Errorf("expense categories: %d, want 17 (15 defaults and 2 system)", p.TotalItems)
	}
	income, _ := alice.categories(t, "/api/v1/categories?kind=income&limit=100")
	want := []string{"Bonus", "Business", "Freelance", "Gifts", "Interest & Dividends", "Other Income", "Salary"}
	if diff := cmp.Diff(want, names(income)); diff != "" {
		t.Errorf("income categories sorted by name (-want +got):\n%s", diff)
	}
	system := map[string]bool{}
	for _, c := range expense {
		if c.IsSystem {
			system[c.Name] = true
		}
	}
	if diff := cmp.Diff(map[string]bool{"Card Fees & Interest": true, "Loan Interest": true}, system); diff != "" {
		t.Errorf("system categories (-want +got):\n%s", diff)
	}
}

func TestCategoryLifecycleAtBothPrefixes(t *testing.T) {
	for _, base := range categoryBases {
		t.Run(base, func(t *testing.T) {
			env, alice, _ := newCategoryEnv(t)
			var c finance.Category
			alice.sc(apiScenario{method: http.MethodPost, url: base, body: `{"name":"  Pets ","kind":"expense","color":"#A1b2C3","icon":"paw"}`,
				wantStatus: http.StatusCreated, wantMessage: "Category created"}).run(t, env).decodeData(t, &c)
			if c.Name != "Pets" || c.Kind != finance.KindExpense || *c.Color != "#A1b2C3" || *c.Icon != "paw" || c.Status != "active" || c.IsSystem {
				t.Fatalf("created %+v", c)
			}
			// Partial update: only the name changes; null clears the icon.
			var u finance.Category
			alice.sc(apiScenario{method: http.MethodPut, url: base + "/" + c.ID, body: `{"name":"Pet Care","icon":null}`,
				wantStatus: http.StatusOK}).run(t, env).decodeData(t, &u)
			if u.Name != "Pet Care" || u.Color == nil || *u.Color != "#A1b2C3" || u.Icon != nil {
				t.Errorf("after PUT: %+v", u)
			}
			var a finance.Category
			alice.sc(apiScenario{method: http.MethodDelete, url: base + "/" + c.ID, wantStatus: http.StatusOK,
				wantMessage: "Category archived"}).run(t, env).decodeData(t, &a)
			if a.Status != "archived" || a.ArchivedAt == nil {
				t.Errorf("after DELETE: %+v", a)
			}
			// Archived: still readable by id, listed only when asked, name free again.
			alice.sc(apiScenario{method: http.MethodGet, url: base + "/" + c.ID, wantStatus: http.StatusOK}).run(t, env)
			active, _ := alice.categories(t, base+"?search=pet")
			archived, _ := alice.categories(t, base+"?search=pet&status=archived")
			if len(active) != 0 || len(archived) != 1 {
				t.Errorf("search pet: %d active, %d archived; want 0 and 1", len(active), len(archived))
			}
			alice.sc(apiScenario{method: http.MethodPost, url: base, body: `{"name":"pet care","kind":"expense"}`,
				wantStatus: http.StatusCreated}).run(t, env)
			stored := allCategories(t, env, alice.user.ID)
			if len(stored) != 24+2 {
				t.Errorf("categories in the database: %d, want 26", len(stored))
			}
		})
	}
}

func TestCategoryRejected(t *testing.T) {
	env, alice, bob := newCategoryEnv(t)
	groceries := alice.categoryByName(t, "Groceries")
	loan := alice.categoryByName(t, "Loan Interest")
	bobs := bob.categoryByName(t, "Groceries")
	var archived finance.Category
	alice.do(t, http.MethodPost, "/api/v1/categories", `{"name":"Old","kind":"income"}`, http.StatusCreated).decodeData(t, &archived)
	alice.do(t, http.MethodDelete, "/api/v1/categories/"+archived.ID, "", http.StatusOK)

	for _, base := range categoryBases {
		scenarios := []apiScenario{
			{name: "missing name and kind", method: http.MethodPost, url: base, body: `{}`, wantStatus: 400, wantCode: CodeValidation,
				wantFields: fieldsOf("name", problemRequired, "kind", "is required")},
			{name: "blank name", method: http.MethodPost, url: base, body: `{"name":"   ","kind":"expense"}`, wantStatus: 400,
				wantCode: CodeValidation, wantFields: fieldsOf("name", problemRequired)},
			{name: "unknown kind and bad color", method: http.MethodPost, url: base, body: `{"name":"X","kind":"asset","color":"blue"}`,
				wantStatus: 400, wantCode: CodeValidation, wantFields: fieldsOf("kind", "must be expense or income", "color", "must be a color like #1A2B3C")},
			{name: "wrong type", method: http.MethodPost, url: base, body: `{"name":5,"kind":"expense"}`, wantStatus: 400,
				wantCode: CodeValidation, wantFields: fieldsOf("name", "must be a string")},
			{name: "name too long", method: http.MethodPost, url: base, body: `{"name":"` + string(make101()) + `","kind":"expense"}`,
				wantStatus: 400, wantCode: CodeValidation, wantFields: fieldsOf("name", "must be at most 100 characters")},
			{name: "duplicate name in another case", method: http.MethodPost, url: base, body: `{"name":"GROCERIES","kind":"expense"}`,
				wantStatus: 400, wantCode: CodeValidation, wantFields: fieldsOf("name", "is already used by another active expense category")},
			{name: "kind cannot change", method: http.MethodPut, url: base + "/" + groceries.ID, body: `{"kind":"income"}`,
				wantStatus: 400, wantCode: CodeValidation, wantFields: fieldsOf("kind", "cannot change; create a new category instead")},
			{name: "system category cannot be renamed", method: http.MethodPut, url: base + "/" + loan.ID, body: `{"name":"Interest"}`,
				wantStatus: 400, wantCode: CodeInvalidStatus},
			{name: "system category cannot be archived", method: http.MethodDelete, url: base + "/" + loan.ID,
				wantStatus: 400, wantCode: CodeInvalidStatus},
			{name: "archived category cannot change", method: http.MethodPut, url: base + "/" + archived.ID, body: `{"name":"New"}`,
				wantStatus: 400, wantCode: CodeInvalidStatus},
			{name: "archiving twice", method: http.MethodDelete, url: base + "/" + archived.ID, wantStatus: 400, wantCode: CodeInvalidStatus},
			{name: "another user's category", method: http.MethodGet, url: base + "/" + bobs.ID, wantStatus: 404, wantCode: CodeNotFound},
			{name: "another user's category, malformed body: 404 first", method: http.MethodPut, url: base + "/" + bobs.ID, body: `{"name":`,
				wantStatus: 404, wantCode: CodeNotFound},
			{name: "another user's category deleted", method: http.MethodDelete, url: base + "/" + bobs.ID, wantStatus: 404, wantCode: CodeNotFound},
			{name: "malformed id", method: http.MethodGet, url: base + "/not-a-uuid", wantStatus: 404, wantCode: CodeNotFound},
			{name: "bad list parameters", method: http.MethodGet, url: base + "?kind=x&status=gone&sortBy=color", wantStatus: 400,
				wantCode: CodeValidation, wantFields: fieldsOf("kind", "must be expense or income", "status", "must be active, archived or all",
					"sortBy", "must be one of: name, created_at")},
		}
		for _, sc := range scenarios {
			sc.name = base + ": " + sc.name
			t.Run(sc.name, func(t *testing.T) {
				before := [][]finance.Category{allCategories(t, env, alice.user.ID), allCategories(t, env, bob.user.ID)}
				alice.sc(sc).run(t, env)
				after := [][]finance.Category{allCategories(t, env, alice.user.ID), allCategories(t, env, bob.user.ID)}
				if diff := cmp.Diff(before, after); diff != "" {
					t.Errorf("a rejected request changed categories (-before +after):\n%s", diff)
				}
			})
		}
	}
}

func make101() []byte {
	b := make([]byte, 101)
	for i := range b {
		b[i] = 'a'
	}
	return b
}

func TestCategorySystemColorCanChange(t *testing.T) {
	env, alice, _ := newCategoryEnv(t)
	loan := alice.categoryByName(t, "Loan Interest")
	var c finance.Category
	alice.sc(apiScenario{method: http.MethodPut, url: "/api/v1/categories/" + loan.ID, body: `{"color":"#000000","name":"loan interest"}`,
		wantStatus: http.StatusOK}).run(t, env).decodeData(t, &c)
	if c.Color == nil || *c.Color != "#000000" || !c.IsSystem {
		t.Errorf("system category after color change: %+v", c)
	}
}

func TestCategoryListSortAndPaging(t *testing.T) {
	_, alice, _ := newCategoryEnv(t)
	items, p := alice.categories(t, "/api/v1/categories?kind=income&sortBy=name&sortOrder=desc&limit=3&page=2")
	if diff := cmp.Diff([]string{"Gifts", "Freelance", "Business"}, names(items)); diff != "" {
		t.Errorf("page 2 of income by name desc (-want +got):\n%s", diff)
	}
	if p != (finance.Pagination{Page: 2, Limit: 3, TotalItems: 7, TotalPages: 3}) {
		t.Errorf("pagination %+v", p)
	}
	items, _ = alice.categories(t, "/api/v1/categories?search=INTEREST&limit=100")
	if diff := cmp.Diff([]string{"Card Fees & Interest", "Interest & Dividends", "Loan Interest"}, names(items)); diff != "" {
		t.Errorf("search is case-insensitive (-want +got):\n%s", diff)
	}
}

func TestCategoryScopes(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	read := env.createKey(u.ID, auth.ScopeRead)
	expenses := env.createKey(u.ID, auth.ScopeExpensesWrite)
	for _, base := range categoryBases {
		apiScenario{method: http.MethodGet, url: base, headers: bearer(read), wantStatus: http.StatusOK}.run(t, env)
		apiScenario{method: http.MethodPost, url: base, headers: bearer(read), body: `{"name":"X","kind":"expense"}`,
			wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantInMsg: []string{"settings:write"}}.run(t, env)
		apiScenario{method: http.MethodGet, url: base, headers: bearer(expenses),
			wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantInMsg: []string{"finance:read"}}.run(t, env)
	}
	if n := len(allCategories(t, env, u.ID)); n != 24 {
		t.Errorf("categories after refused writes: %d, want the 24 seeds", n)
	}
}
