package server

import (
	"fmt"
	"net/http"
	"sort"
	"testing"

	"github.com/finance-app/finance/finance"
)

// allLines reads every line of url (a line list route) in its default order,
// page by page.
func allLines(t *testing.T, u ledgerUser, url string) []finance.AccountTransaction {
	t.Helper()
	var out []finance.AccountTransaction
	for p := 1; ; p++ {
		items, pg := page[finance.AccountTransaction](t, u, fmt.Sprintf("%s&limit=%d&page=%d", url, finance.MaxLimit, p))
		out = append(out, items...)
		if p >= pg.TotalPages {
			return out
		}
	}
}

// wantRunningBalances computes, apart from the server's query, the balance
// after each posted line of one account: the opening balance, then the lines
// in (date, created_at, id) order, a credit adding and a debit subtracting.
func wantRunningBalances(opening finance.Money, lines []finance.AccountTransaction) (map[string]finance.Money, finance.Money) {
	posted := make([]finance.AccountTransaction, 0, len(lines))
	for _, l := range lines {
		if l.Status == finance.LinePosted {
			posted = append(posted, l)
		}
	}
	sort.Slice(posted, func(i, j int) bool {
		a, b := posted[i], posted[j]
		if a.Date != b.Date {
			return a.Date.String() < b.Date.String()
		}
		if !a.CreatedAt.Equal(b.CreatedAt) {
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.ID < b.ID
	})
	want := make(map[string]finance.Money, len(posted))
	bal := opening
	for _, l := range posted {
		if l.Type == finance.LineCredit {
			bal += l.Amount
		} else {
			bal -= l.Amount
		}
		want[l.ID] = bal
	}
	return want, bal
}

// TestRunningBalancesEqualTheAccountBalance records many lines on two
// accounts, back-dated and out of order, with transfers both ways, a balance
// adjustment and voided lines, and checks every line's running_balance
// against a sum made here; the last one equals the account's balance. Filtered
// and paged lists, the voided list and every account's lines show the same
// figure on each line.
func TestRunningBalancesEqualTheAccountBalance(t *testing.T) {
	_, alice, bob := newLedgerEnv(t)
	bpi := alice.createAccount(t, `{"name":"BPI","type":"savings","opening_balance":"1000.00"}`)
	gcash := alice.createAccount(t, `{"name":"GCash","type":"e_wallet","opening_balance":"50.00"}`)
	bobs := bob.createAccount(t, `{"name":"Bob's","type":"savings","opening_balance":"7.00"}`)
	bob.addLine(t, bobs.ID, `{"type":"credit","amount":"1.00","date":"2025-01-01"}`)

	var voidable []finance.AccountTransaction
	for i := 0; i < 70; i++ {
		// Days jump around the first quarter so most lines are back-dated
		// before lines recorded earlier, and several share a date.
		date := fmt.Sprintf("2025-%02d-%02d", 1+(i*7)%3, 1+(i*11)%28)
		typ := "debit"
		if i%3 == 0 {
			typ = "credit"
		}
		acc := bpi.ID
		if i%4 == 0 {
			acc = gcash.ID
		}
		amount := fmt.Sprintf("%d.%02d", 1+(i*37)%400, (i*13)%100)
		line := alice.addLine(t, acc, `{"type":"`+typ+`","amount":"`+amount+`","date":"`+date+`"}`)
		if i%9 == 0 {
			voidable = append(voidable, line)
		}
		if i%10 == 5 {
			from, to := bpi.ID, gcash.ID
			if i%20 == 15 {
				from, to = to, from
			}
			alice.createTransfer(t, transferBody(from, to, `,"amount":"12.34","date":"`+date+`"`))
		}
	}
	for _, l := range voidable {
		alice.do(t, http.MethodDelete, "/api/v1/accounts/"+l.AccountID+"/transactions/"+l.ID, "", http.StatusOK)
	}
	alice.do(t, http.MethodPost, "/api/v1/accounts/"+bpi.ID+"/balance-adjustment", `{"target_balance":"500.00","date":"2025-02-10"}`, http.StatusCreated)

	for _, acc := range []finance.Account{bpi, gcash} {
		base := "/api/v1/accounts/" + acc.ID + "/transactions?sortBy=date"
		lines := allLines(t, alice, base)
		voided := allLines(t, alice, base+"&status=voided")
		want, last := wantRunningBalances(acc.OpeningBalance, lines)
		if len(want) < 20 {
			t.Fatalf("%s: only %d posted lines", acc.Name, len(want))
		}
		if bal := alice.account(t, acc.ID).CurrentBalance; last != bal {
			t.Errorf("%s: last line's balance by our sum %s, account's current_balance %s", acc.Name, last, bal)
		}
		check := func(what string, got []finance.AccountTransaction) {
			t.Helper()
			for _, l := range got {
				if l.RunningBalance == nil || *l.RunningBalance != want[l.ID] {
					t.Errorf("%s %s: line %s %s %s on %s: running_balance %v, want %s", acc.Name, what, l.ID, l.Type, l.Amount, l.Date, l.RunningBalance, want[l.ID])
				}
			}
		}
		check("list", lines)
		check("debits, second page of 7, by amount", page2(t, alice, "/api/v1/accounts/"+acc.ID+"/transactions?type=debit&sortBy=amount&limit=7&page=2"))
		check("February", page2(t, alice, "/api/v1/accounts/"+acc.ID+"/transactions?dateFrom=2025-02-01&dateTo=2025-02-28&limit=100"))
		var mine []finance.AccountTransaction
		for _, l := range allLines(t, alice, "/api/v1/accounts/transactions?sortBy=created_at") {
			if l.AccountID == acc.ID {
				mine = append(mine, l)
			}
		}
		check("every account's lines", mine)
		if len(voided) == 0 {
			t.Errorf("%s: no voided lines to check", acc.Name)
		}
		for _, l := range voided {
			if l.RunningBalance != nil {
				t.Errorf("%s: voided line %s has running_balance %s, want null", acc.Name, l.ID, *l.RunningBalance)
			}
		}
	}

	// Bob's line counts only Bob's account.
	bl := allLines(t, bob, "/api/v1/accounts/transactions?sortBy=date")
	if len(bl) != 1 || bl[0].RunningBalance == nil || *bl[0].RunningBalance != 800 {
		t.Errorf("Bob's lines: %+v, want one line with running_balance 8.00", bl)
	}
}

// page2 reads one page of a line list.
func page2(t *testing.T, u ledgerUser, url string) []finance.AccountTransaction {
	t.Helper()
	items, _ := page[finance.AccountTransaction](t, u, url)
	if len(items) == 0 {
		t.Fatalf("%s: no lines", url)
	}
	return items
}
