package finance

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestIncomeRequestShape(t *testing.T) {
	const acct = "01956a3e-7d2c-7b4e-9a1f-3c5d7e9f1a2b"
	d := NewDate(2025, 3, 15)
	current := Income{ID: "i", Amount: 1000, Date: d, Description: strp("pay"), CategoryID: "c", Category: "Salary",
		Notes: strp("n"), AccountID: strp(acct), AccountTransactionID: strp("l"), Status: StatusActive}
	tests := []struct {
		name       string
		body       string
		create     bool
		want       incomeChange
		wantFields map[string]string
	}{
		{name: "create without an account", create: true, body: `{"amount":"45000.05","date":"2025-03-15","category":" salary ","description":" ","notes":"x"}`,
			want: incomeChange{next: Income{Amount: 4500005, Date: d, Notes: strp("x")}, categoryName: "salary", amountSet: true}},
		{name: "create with an account", create: true, body: `{"amount":1,"date":"2025-03-15","category":"Bonus","account_id":" ` + acct + ` "}`,
			want: incomeChange{next: Income{Amount: 100, Date: d}, categoryName: "Bonus", accountID: acct, amountSet: true}},
		{name: "create: an empty account_id is none", create: true, body: `{"amount":1,"date":"2025-03-15","category":"Bonus","account_id":""}`,
			want: incomeChange{next: Income{Amount: 100, Date: d}, categoryName: "Bonus", amountSet: true}},
		{name: "create names a currency in any case", create: true, body: `{"amount":1,"date":"2025-03-15","category":"Bonus","currency":"usd"}`,
			want: incomeChange{next: Income{Amount: 100, Date: d}, categoryName: "Bonus", currency: "USD", amountSet: true}},
		{name: "a currency of 3 decimals is refused", create: true, body: `{"amount":1,"date":"2025-03-15","category":"Bonus","currency":"KWD"}`,
			wantFields: map[string]string{"currency": "KWD has 3 decimal places; records take currencies with at most 2"}},
		{name: "create needs amount, date and category", create: true, body: `{"account_id":null}`,
			wantFields: map[string]string{"amount": "is required", "date": "is required", "category": "is required"}},
		{name: "malformed account ids", create: true, body: `{"amount":1,"date":"2025-03-15","category":"Bonus","account_id":"BPI"}`,
			wantFields: map[string]string{"account_id": "must be the id of one of your active accounts"}},
		{name: "update keeps the account and the category", body: `{"notes":null}`,
			want: incomeChange{next: func() Income { in := current; in.Notes = nil; return in }(), accountID: acct}},
		{name: "update: null account_id is none", body: `{"account_id":null,"category":"Gifts"}`,
			want: incomeChange{next: current, categoryName: "Gifts"}},
		{name: "update refuses null required fields", body: `{"amount":null,"date":null,"category":null}`,
			wantFields: map[string]string{"amount": "is required", "date": "is required", "category": "is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cur := Income{}
			if !tt.create {
				cur = current
			}
			got, err := decodeRequest[IncomeRequest](t, tt.body).shape(cur, tt.create)
			if diff := cmp.Diff(tt.wantFields, fieldsOfErr(t, err)); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if err == nil {
				if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(incomeChange{}), cmpopts.EquateComparable(Date{})); diff != "" {
					t.Errorf("change (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestIncomeLineDescription(t *testing.T) {
	if got := incomeLineDescription(Income{Description: strp("March pay"), Category: "Salary"}); *got != "March pay" {
		t.Errorf("with a description: %q", *got)
	}
	if got := incomeLineDescription(Income{Category: "Salary"}); *got != "Salary" {
		t.Errorf("without a description: %q, want the category name", *got)
	}
	// The line gets its own copy: changing the income later does not alias it.
	in := Income{Description: strp("a")}
	got := incomeLineDescription(in)
	*in.Description = "b"
	if *got != "a" {
		t.Errorf("line description aliases the income's: %q", *got)
	}
}
