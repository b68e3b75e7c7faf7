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

// The transfer form: reached from Accounts and an account's page, refused
// with its problems beside the fields and nothing written, recorded with
// both accounts' lines linking to each other, edited and deleted from there.
func TestTransferPages(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	ledger := env.srv.Ledger()
	bpi, err := ledger.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("BPI"), Type: finance.Of("savings"),
		OpeningBalance: finance.Of(finance.Money(100000))})
	if err != nil {
		t.Fatal(err)
	}
	gcash, err := ledger.CreateAccount(ctx, u.ID, finance.AccountRequest{Name: finance.Of("GCash"), Type: finance.Of("e_wallet")})
	if err != nil {
		t.Fatal(err)
	}
	testkit.WantPage(t, "accounts", b.Get(web.AccountsPath), http.StatusOK, `href="/transfers/new">Transfer</a>`)
	testkit.WantPage(t, "account", b.Get(web.AccountsPath+"/"+bpi.ID), http.StatusOK, `href="/transfers/new?from=`+bpi.ID+`">Transfer</a>`)
	form := b.Get(web.TransfersPath + "/new?from=" + bpi.ID)
	testkit.WantPage(t, "form", form, http.StatusOK, "<h1>Transfer between accounts</h1>", `<option value="`+bpi.ID+`" selected>BPI · ₱1,000.00</option>`)
	token := testkit.CSRF(t, form)

	refused := b.Post(web.TransfersPath, url.Values{"csrf": {token}, "from_account_id": {bpi.ID}, "to_account_id": {bpi.ID},
		"amount": {"0"}, "date": {"2025-03-01"}, "fee": {"-1"}})
	testkit.WantPage(t, "refused", refused, http.StatusBadRequest, "Not recorded.",
		`id="t-to-error">To must be another account than from_account_id<`, `id="t-amount-error">Amount must be greater than 0<`,
		`id="t-fee-error">Fee must be 0 or more<`)
	if p, _ := ledger.ListTransfers(ctx, u.ID, finance.TransferFilter{Status: finance.LinePosted}, finance.ListParams{Page: 1, Limit: 10, SortBy: "date"}); len(p.Items) != 0 {
		t.Fatalf("a refused form wrote %d transfers", len(p.Items))
	}

	x := b.Post(web.TransfersPath, url.Values{"csrf": {token}, "from_account_id": {bpi.ID}, "to_account_id": {gcash.ID},
		"amount": {"250"}, "date": {"2025-03-01"}, "fee": {"15"}})
	testkit.WantRedirect(t, "create", x, web.AccountsPath+"/"+bpi.ID+"?notice=transfer-recorded")
	p, err := ledger.ListTransfers(ctx, u.ID, finance.TransferFilter{Status: finance.LinePosted}, finance.ListParams{Page: 1, Limit: 10, SortBy: "date"})
	if err != nil || len(p.Items) != 1 {
		t.Fatalf("transfers %+v, %v", p, err)
	}
	tr := p.Items[0]
	if getAccount(t, env, u, bpi.ID).CurrentBalance != 100000-25000-1500 || getAccount(t, env, u, gcash.ID).CurrentBalance != 25000 {
		t.Errorf("balances after the transfer")
	}
	testkit.WantPage(t, "from side", b.Get(web.AccountsPath+"/"+bpi.ID), http.StatusOK,
		`Transfer to <a href="/accounts/`+gcash.ID+`">GCash</a>`, `href="/transfers/`+tr.ID+`">Edit transfer</a>`)
	testkit.WantPage(t, "to side", b.Get(web.AccountsPath+"/"+gcash.ID), http.StatusOK,
		`Transfer from <a href="/accounts/`+bpi.ID+`">BPI</a>`, `href="/transfers/`+tr.ID+`">Edit transfer</a>`)

	edit := b.Get(web.TransfersPath + "/" + tr.ID)
	testkit.WantPage(t, "edit", edit, http.StatusOK, "<h1>Transfer from BPI to GCash</h1>", `value="250.00"`, `value="15.00"`, "Delete transfer")
	x = b.Post(web.TransfersPath+"/"+tr.ID, url.Values{"csrf": {testkit.CSRF(t, edit)}, "from_account_id": {bpi.ID}, "to_account_id": {gcash.ID},
		"amount": {"300"}, "date": {"2025-03-02"}, "fee": {""}, "fee_category": {"Miscellaneous"}})
	testkit.WantRedirect(t, "edit", x, web.AccountsPath+"/"+bpi.ID+"?notice=transfer-saved")
	if got, _ := ledger.GetTransfer(ctx, u.ID, tr.ID); got.Amount != 30000 || got.Fee != 0 || got.FeeExpenseID != nil {
		t.Errorf("edited %+v", got)
	}

	x = b.Post(web.TransfersPath+"/"+tr.ID+"/delete", url.Values{"csrf": {testkit.CSRF(t, edit)}})
	testkit.WantRedirect(t, "delete", x, web.AccountsPath+"/"+bpi.ID+"?notice=transfer-deleted")
	if getAccount(t, env, u, bpi.ID).CurrentBalance != 100000 || getAccount(t, env, u, gcash.ID).CurrentBalance != 0 {
		t.Errorf("balances after the delete")
	}
	if n := len(linesOf(t, env, u, gcash.ID, finance.LineVoided)); n != 1 {
		t.Errorf("%d voided lines on GCash", n)
	}
	testkit.WantPage(t, "deleted", b.Get(web.TransfersPath+"/"+tr.ID), http.StatusOK, "Deleted")
	// The activity names each write and links to the transfer.
	testkit.WantPage(t, "activity", b.Get(web.ActivityPath), http.StatusOK, `href="/transfers/`+tr.ID+`"`,
		`Transfer of 250.00 from "BPI" to "GCash" on 2025-03-01, fee 15.00`)
	testkit.WantPage(t, "another's", b.Get(web.TransfersPath+"/0190f1a2-0000-7000-8000-000000000000"), http.StatusNotFound)
}
