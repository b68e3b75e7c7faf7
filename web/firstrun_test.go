package web_test

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// TestChecklistTicksItselfOff: Home's first-run checklist ticks each step
// off from the user's data, goes once every step is done, and once put away
// stays away (stored with the settings, not in the browser).
func TestChecklistTicksItselfOff(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	steps := func() string {
		t.Helper()
		home := b.Get(web.HomePath)
		if home.Status != http.StatusOK {
			t.Fatalf("home: %d", home.Status)
		}
		list := regexp.MustCompile(`(?s)<section class="card checklist".*?</section>`).FindString(string(home.Body))
		var got []string
		for _, m := range regexp.MustCompile(`<li( class="done")?>.*?(Add an account|Add a card|Record an expense|Connect an agent)`).FindAllStringSubmatch(list, -1) {
			mark := "todo"
			if m[1] != "" {
				mark = "done"
			}
			got = append(got, m[2]+": "+mark)
		}
		return strings.Join(got, ", ")
	}
	if got, want := steps(), "Add an account: todo, Add a card: todo, Record an expense: todo, Connect an agent: todo"; got != want {
		t.Fatalf("a new user's checklist = %q, want %q", got, want)
	}
	token := testkit.CSRF(t, b.Get(web.HomePath))
	for path, f := range map[string]url.Values{
		web.AccountsPath: {"csrf": {token}, "name": {"Payroll"}, "type": {"savings"}},
		web.CardsPath: {"csrf": {token}, "name": {"Visa"}, "credit_limit": {"50,000"}, "statement_day": {"10"}, "due_day": {"5"},
			"cycle_start_date": {"2025-01-01"}},
	} {
		if x := b.Post(path, f); x.Status != http.StatusSeeOther {
			t.Fatalf("%s: %d\n%s", path, x.Status, x.Body)
		}
	}
	if got, want := steps(), "Add an account: done, Add a card: done, Record an expense: todo, Connect an agent: todo"; got != want {
		t.Fatalf("after an account and a card: %q, want %q", got, want)
	}
	if x := b.Post(web.RecordPath, url.Values{"csrf": {token}, "kind": {"expense"}, "amount": {"120"}, "date": {"2025-03-14"},
		"description": {"Market"}, "category": {"Groceries"}, "payment_method": {"Cash"}}); x.Status != http.StatusSeeOther {
		t.Fatalf("record: %d\n%s", x.Status, x.Body)
	}
	if got, want := steps(), "Add an account: done, Add a card: done, Record an expense: done, Connect an agent: todo"; got != want {
		t.Fatalf("after an expense: %q, want %q", got, want)
	}
	// A revoked key connects nothing.
	k, _ := env.createKeyRecord(u.ID, auth.ScopeRead)
	if _, err := env.auth.RevokeKey(ctx, u.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	if got := steps(); !strings.HasSuffix(got, "Connect an agent: todo") {
		t.Fatalf("with a revoked key only: %q", got)
	}
	env.createKey(u.ID, auth.ScopeRead)
	if got := steps(); got != "" {
		t.Fatalf("every step done, the checklist still shows: %q", got)
	}

	// Put away before it is done, it stays away.
	other := env.createUser(finance.PlanFree)
	ob := env.browser(t)
	ob.SignIn(other)
	if !ob.Get(web.HomePath).Contains("Getting started") {
		t.Fatal("a new user has no checklist")
	}
	if x := ob.Post(web.ChecklistDismissPath, url.Values{}); x.Status != http.StatusForbidden {
		t.Errorf("dismiss without a form token: %d", x.Status)
	}
	if fs, _ := env.srv.Ledger().FirstSteps(ctx, other.ID); fs.Dismissed {
		t.Fatal("a refused form put the checklist away")
	}
	testkit.WantRedirect(t, "dismiss", ob.Post(web.ChecklistDismissPath, url.Values{"csrf": {testkit.CSRF(t, ob.Get(web.HomePath))}}), web.HomePath)
	if ob.Get(web.HomePath).Contains("Getting started") {
		t.Error("the checklist shows after it was put away")
	}
	if fs, err := env.srv.Ledger().FirstSteps(ctx, other.ID); err != nil || fs != (finance.FirstSteps{Dismissed: true}) {
		t.Errorf("first steps after dismissing = %+v, %v", fs, err)
	}
	if st, _ := env.srv.Ledger().AppSettings(ctx, other.ID); st != finance.DefaultAppSettings() {
		t.Errorf("dismissing changed the settings: %+v", st)
	}
	// The first user's list is theirs: still gone because done, not because of the other's dismissal.
	if fs, _ := env.srv.Ledger().FirstSteps(ctx, u.ID); fs.Dismissed {
		t.Error("one user's dismissal reached another")
	}
}
