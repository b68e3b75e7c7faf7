package finance

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// fieldsOfErr returns the field problems of a *ValidationError, or nil for nil.
func fieldsOfErr(t *testing.T, err error) map[string]string {
	t.Helper()
	if err == nil {
		return nil
	}
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("error %v is %T, want *ValidationError", err, err)
	}
	return ve.Fields
}

func decodeRequest[T any](t *testing.T, body string) T {
	t.Helper()
	var r T
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return r
}

func strp(s string) *string { return &s }

func TestParseAccountFilter(t *testing.T) {
	tests := []struct {
		status, typ string
		want        AccountFilter
		wantFields  map[string]string
	}{
		{"", "", AccountFilter{Status: StatusActive}, nil},
		{"archived", "e_wallet", AccountFilter{Status: StatusArchived, Type: AccountEWallet}, nil},
		{"all", "", AccountFilter{Status: StatusAll}, nil},
		{"voided", "bank", AccountFilter{}, map[string]string{
			"status": "must be active, archived or all",
			"type":   "must be one of: savings, checking, e_wallet, cash, other",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.status+"/"+tt.typ, func(t *testing.T) {
			f, err := ParseAccountFilter(tt.status, tt.typ, "")
			if diff := cmp.Diff(tt.wantFields, fieldsOfErr(t, err)); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if err == nil && f != tt.want {
				t.Errorf("filter = %+v, want %+v", f, tt.want)
			}
		})
	}
}

func TestAccountRequestApply(t *testing.T) {
	current := Account{Name: "BPI", Type: AccountSavings, Institution: strp("BPI"), AccountNumberLast4: strp("1234"),
		OpeningBalance: 500, Notes: strp("n")}
	tests := []struct {
		name       string
		body       string
		create     bool
		want       Account
		wantFields map[string]string
	}{
		{name: "create with everything", create: true,
			body: `{"name":" Cash ","type":"cash","institution":"","account_number_last4":"0001","opening_balance":"-1.5","notes":" x "}`,
			want: Account{Name: "Cash", Type: AccountCash, AccountNumberLast4: strp("0001"), OpeningBalance: -150, Notes: strp("x")}},
		{name: "create needs name and type", create: true, body: `{"opening_balance":1}`,
			wantFields: map[string]string{"name": "is required", "type": "is required"}},
		{name: "create with an ill-typed type", create: true, body: `{"name":"A","type":7}`,
			wantFields: map[string]string{"type": "must be a string"}},
		{name: "update keeps what is absent", body: `{"notes":"new"}`,
			want: Account{Name: "BPI", Type: AccountSavings, Institution: strp("BPI"), AccountNumberLast4: strp("1234"), OpeningBalance: 500, Notes: strp("new")}},
		{name: "update: null clears, and resets the opening balance", body: `{"institution":null,"account_number_last4":null,"notes":"","opening_balance":null}`,
			want: Account{Name: "BPI", Type: AccountSavings}},
		{name: "update refuses null name and type", body: `{"name":null,"type":null}`,
			wantFields: map[string]string{"name": "is required", "type": "is required"}},
		{name: "last4 must be digits", body: `{"account_number_last4":"abcd"}`,
			wantFields: map[string]string{"account_number_last4": "must be exactly 4 digits"}},
		{name: "last4 must be four", body: `{"account_number_last4":"123"}`,
			wantFields: map[string]string{"account_number_last4": "must be exactly 4 digits"}},
		{name: "opening balance is signed but exact", body: `{"opening_balance":"0.125"}`,
			wantFields: map[string]string{"opening_balance": "must be a number with at most 2 decimal places"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Account
			if !tt.create {
				a = current
			}
			var v Validator
			decodeRequest[AccountRequest](t, tt.body).apply(&v, &a, tt.create)
			if diff := cmp.Diff(tt.wantFields, fieldsOfErr(t, v.Err())); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if tt.wantFields == nil {
				if diff := cmp.Diff(tt.want, a); diff != "" {
					t.Errorf("account (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestAccountTransactionRequestApply(t *testing.T) {
	d := NewDate(2025, 3, 1)
	current := AccountTransaction{Type: LineDebit, Amount: 1000, Date: d, Description: strp("ATM")}
	tests := []struct {
		name       string
		body       string
		create     bool
		want       AccountTransaction
		wantFields map[string]string
	}{
		{name: "create", create: true, body: `{"type":"credit","amount":"0.10","date":"2025-03-01"}`,
			want: AccountTransaction{Type: LineCredit, Amount: 10, Date: d}},
		{name: "create needs type, amount and date", create: true, body: `{"description":"x"}`,
			wantFields: map[string]string{"type": "is required", "amount": "is required", "date": "is required"}},
		{name: "amounts are positive", create: true, body: `{"type":"debit","amount":"-0.01","date":"2025-03-01"}`,
			wantFields: map[string]string{"amount": "must be greater than 0"}},
		{name: "types are exact", create: true, body: `{"type":"DEBIT","amount":1,"date":"2025-03-01"}`,
			wantFields: map[string]string{"type": "must be one of: debit, credit"}},
		{name: "update keeps what is absent and clears the description", body: `{"amount":2,"description":null}`,
			want: AccountTransaction{Type: LineDebit, Amount: 200, Date: d}},
		{name: "update refuses null money fields", body: `{"amount":null,"date":null,"type":null}`,
			wantFields: map[string]string{"type": "is required", "amount": "is required", "date": "is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var line AccountTransaction
			if !tt.create {
				line = current
			}
			var v Validator
			decodeRequest[AccountTransactionRequest](t, tt.body).apply(&v, &line, tt.create)
			if diff := cmp.Diff(tt.wantFields, fieldsOfErr(t, v.Err())); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			if tt.wantFields == nil {
				if diff := cmp.Diff(tt.want, line, cmpopts.EquateComparable(Date{})); diff != "" {
					t.Errorf("line (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestCheckLineEditable(t *testing.T) {
	tests := []struct {
		source, status string
		want           string // "" when editable
	}{
		{SourceManual, LinePosted, ""},
		{SourceAdjustment, LinePosted, ""},
		{SourceManual, LineVoided, "account transaction is already voided"},
		{SourceExpense, LinePosted, "account transaction belongs to an expense; change or void it through that record"},
		{SourceIncome, LinePosted, "account transaction belongs to an income record; change or void it through that record"},
		{SourceSOAPayment, LinePosted, "account transaction belongs to a statement payment; change or void it through that record"},
		{SourceLoanPayment, LineVoided, "account transaction belongs to a loan payment; change or void it through that record"},
	}
	for _, tt := range tests {
		err := checkLineEditable(AccountTransaction{Source: tt.source, Status: tt.status})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %s: %v, want editable", tt.status, tt.source, err)
		case tt.want != "" && (err == nil || err.Error() != tt.want || !errors.Is(err, ErrInvalidStatus)):
			t.Errorf("%s %s: %v, want INVALID_STATUS %q", tt.status, tt.source, err, tt.want)
		}
	}
	// Every source that is not edited directly names its owner.
	for _, s := range LineSources {
		if s != SourceManual && s != SourceAdjustment && lineOwners[s] == "" {
			t.Errorf("source %s has no owner name", s)
		}
	}
}
