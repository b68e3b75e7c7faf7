package server

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/finance-app/finance/finance"
)

// The expense summary reads kept daily totals; after each kind of write its
// expense figures over several ranges equal a recount of the rows.
func TestExpenseSummaryEqualsRecount(t *testing.T) {
	f := newReportFixture(t)
	alice := f.alice
	ranges := [][2]string{
		{"2025-03-01", "2025-03-31"}, {"2025-03-12", "2025-03-13"}, {"2025-03-16", "2025-03-16"},
		{"2024-03-01", "2025-03-31"}, {"2020-04-01", "2025-03-31"},
		// Whole months read from the month totals, the ends from the days.
		{"2024-02-15", "2025-03-20"}, {"2025-02-01", "2025-03-13"}, {"2025-02-20", "2025-03-13"}, {"2025-02-28", "2025-03-31"},
	}
	check := func(step string) {
		t.Helper()
		if drift, err := f.env.db.TotalsDrift(context.Background()); err != nil || len(drift) > 0 {
			t.Fatalf("after %s, the kept totals drift from the rows: %v %v", step, drift, err)
		}
		for _, r := range ranges {
			got := send[finance.ExpenseSummary](t, alice, http.MethodGet,
				"/api/v1/expenses/summary?dateFrom="+r[0]+"&dateTo="+r[1], "", http.StatusOK)
			from, _ := finance.ParseDate(r[0])
			to, _ := finance.ParseDate(r[1])
			rows, err := f.env.db.RecountExpenseTotals(context.Background(), alice.user.ID, from, to)
			if err != nil {
				t.Fatal(err)
			}
			want := finance.BuildExpenseSummary(from, to, got.Currency, rows, finance.ExpenseTotals{Total: got.PreviousPeriod.TotalExpenses},
				finance.CardSpending{FeesInterest: got.OtherSpending.CardFeesInterest, Refunds: got.OtherSpending.CardRefunds},
				got.OtherSpending.LoanInterest)
			// One currency: nothing converted, nothing left out.
			want.ConversionNote = finance.ConversionNote{MissingRates: []finance.MissingRate{}}
			wantJSON, _ := json.Marshal(want)
			gotJSON, _ := json.Marshal(got)
			if string(wantJSON) != string(gotJSON) {
				t.Fatalf("after %s, the summary of %s..%s differs from a recount of the rows:\nrecount %s\nsummary %s", step, r[0], r[1], wantJSON, gotJSON)
			}
			prevFrom, prevTo := finance.PreviousPeriod(from, to)
			prev, err := f.env.db.RecountExpenseTotals(context.Background(), alice.user.ID, prevFrom, prevTo)
			if err != nil {
				t.Fatal(err)
			}
			if prev.Total != got.PreviousPeriod.TotalExpenses {
				t.Fatalf("after %s, the previous period of %s..%s: %v, the rows sum %v", step, r[0], r[1], got.PreviousPeriod.TotalExpenses, prev.Total)
			}
		}
	}
	check("the fixture")
	exp := alice.createExpense(t, `{"amount":100,"date":"2025-03-12","description":"Taxi","category":"Transportation","payment_method":"Cash"}`)
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+exp.ID, `{"amount":120,"date":"2025-03-13","category":"Groceries"}`, http.StatusOK)
	check("an edit of amount, date and category")
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+exp.ID, `{"payment_method":"Account Debit","account_id":"`+f.savings.ID+`"}`, http.StatusOK)
	check("a change of payment method")
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+exp.ID+"/split", `{"parts":[{"amount":20,"category":"Shopping"},{"amount":100,"category":"Groceries"}]}`, http.StatusOK)
	check("a split")
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+exp.ID, `{"date":"2025-03-16"}`, http.StatusOK)
	check("a split expense moved to another day")
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+exp.ID, `{"date":"2025-02-27"}`, http.StatusOK)
	check("a split expense moved to another month")
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+exp.ID, `{"date":"2025-03-16"}`, http.StatusOK)
	check("and back")
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+exp.ID+"/split", `{"parts":[{"amount":60,"category":"Travel"},{"amount":60,"category":"Travel"}]}`, http.StatusOK)
	check("a re-split into two parts of one category")
	alice.do(t, http.MethodPut, "/api/v1/expenses/"+exp.ID, `{"category":"Health & Medical","amount":130}`, http.StatusOK)
	check("un-splitting with a new amount")
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+exp.ID, "", http.StatusOK)
	check("a void")

	card := `{"credit_card_id":"` + f.visa.ID + `",`
	refund := alice.createCardRow(t, card+`"type":"refund","amount":40,"date":"2025-03-16","description":"Refund","category":"Shopping"}`)
	buy := alice.createExpense(t, `{"amount":300,"date":"2025-03-16","description":"Headphones","category":"Shopping",`+
		`"payment_method":"Credit Card","credit_card_id":"`+f.visa.ID+`"}`)
	alice.createCardRow(t, card+`"type":"fee","amount":50,"date":"2025-03-16","description":"Late fee"}`)
	check("a card purchase beside a refund and a fee of the same day and card")
	alice.do(t, http.MethodDelete, "/api/v1/credit-cards/transactions/"+refund.ID, "", http.StatusOK)
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+buy.ID, "", http.StatusOK)
	check("the purchase and the refund voided")
}
