package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// The reconcile page: lines ticked off together, a statement that differs
// changes nothing and names the pending line, a refused balance is shown
// beside its field, a match reconciles, and another person's account is 404.
func TestReconcilePage(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	ledger := env.srv.Ledger()
	bpi, err := ledger.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("BPI"), Type: finance.Of("savings"),
		OpeningBalance: finance.Of(finance.Money(100000))})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, l := range []struct {
		typ    string
		amount finance.Money
		desc   string
	}{{"credit", 500000, "Salary"}, {"debit", 125050, "Groceries"}} {
		line, err := ledger.CreateAccountTransaction(ctx, u.ID, bpi.ID, finance.AccountTransactionRequest{Type: finance.Of(l.typ),
			Amount: finance.Of(l.amount), Date: finance.Of(finance.NewDate(2025, 3, 1)), Description: finance.Of(l.desc)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, line.ID)
	}
	path := web.AccountsPath + "/" + bpi.ID + "/reconcile"
	testkit.WantPage(t, "account", b.Get(web.AccountsPath+"/"+bpi.ID), http.StatusOK, `href="`+path+`">Reconcile</a>`)
	page := b.Get(path + "?date=2025-03-31")
	testkit.WantPage(t, "page", page, http.StatusOK, "<h1>Reconcile BPI</h1>", `id="cleared-balance" class="">₱1,000.00<`, `name="ids" value="`+ids[0]+`"`)
	token := testkit.CSRF(t, page)

	x := b.Post(path+"/cleared", url.Values{"csrf": {token}, "date": {"2025-03-31"}, "cleared": {"cleared"}, "ids": {ids[0]}})
	testkit.WantRedirect(t, "mark", x, path+"?date=2025-03-31&notice=lines-marked")
	testkit.WantPage(t, "marked", b.Get(path+"?date=2025-03-31"), http.StatusOK, `id="cleared-balance" class="">₱6,000.00<`)

	before := linesOf(t, env, u, bpi.ID, finance.LinePosted)
	testkit.WantPage(t, "differs", b.Post(path, url.Values{"csrf": {token}, "date": {"2025-03-31"}, "statement_balance": {"4,749.50"}}),
		http.StatusOK, "Off by -₱1,250.50", "Nothing was changed.", "Groceries")
	testkit.WantPage(t, "refused", b.Post(path, url.Values{"csrf": {token}, "date": {"2025-03-31"}, "statement_balance": {"lots"}}),
		http.StatusBadRequest, "Not reconciled.", `id="r-balance-error">Statement balance must be`)
	testkit.WantPage(t, "none ticked", b.Post(path+"/cleared", url.Values{"csrf": {token}, "date": {"2025-03-31"}, "cleared": {"cleared"}}),
		http.StatusBadRequest, "Not marked.", `id="r-ids-error">Tick at least one line`)
	if after := linesOf(t, env, u, bpi.ID, finance.LinePosted); len(after) != len(before) || after[0].Cleared != before[0].Cleared || after[1].Cleared != before[1].Cleared {
		t.Errorf("refused forms changed the lines: %+v", after)
	}

	testkit.WantPage(t, "matches", b.Post(path, url.Values{"csrf": {token}, "date": {"2025-03-31"}, "statement_balance": {"6000"}}),
		http.StatusOK, "<h2 id=\"result-heading\">Reconciled</h2>", "1 line is now reconciled")
	for _, l := range linesOf(t, env, u, bpi.ID, finance.LinePosted) {
		if want := map[string]string{ids[0]: "reconciled", ids[1]: "pending"}[l.ID]; l.Cleared != want {
			t.Errorf("%s is %s, want %s", *l.Description, l.Cleared, want)
		}
	}

	other := env.createUser(finance.PlanFree)
	theirs, err := ledger.CreateAccount(ctx, other.ID, finance.AccountRequest{Name: finance.Of("Theirs"), Type: finance.Of("cash")})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WantPage(t, "theirs", b.Get(web.AccountsPath+"/"+theirs.ID+"/reconcile"), http.StatusNotFound)
	testkit.WantPage(t, "theirs post", b.Post(web.AccountsPath+"/"+theirs.ID+"/reconcile",
		url.Values{"csrf": {token}, "date": {"2025-03-31"}, "statement_balance": {"0"}}), http.StatusNotFound)
}
