package web

import (
	"net/url"

	"github.com/finance-app/finance/finance"
)

// payForm is a payment form's fields: their defaults, or what was sent.
// A bill payment uses all of them; a loan installment's and a statement's
// payment take no method or card (no account means cash).
type payForm struct {
	Amount, Date, PaymentMethod, AccountID, CreditCardID string
}

// postedPayForm reads a payment form's fields from a posted form.
func postedPayForm(f url.Values) payForm {
	return payForm{Amount: f.Get("amount"), Date: f.Get("date"), PaymentMethod: f.Get("payment_method"),
		AccountID: f.Get("account_id"), CreditCardID: f.Get("credit_card_id")}
}

// values are the fields as the API's body members, for formRequest. A form
// without a method (a loan installment's, a statement's) sends its account,
// none meaning cash; a bill's form has both pickers and sends on only the
// chosen method's.
func (f payForm) values() map[string]string {
	v := map[string]string{"amount": f.Amount, "date": f.Date}
	if f.PaymentMethod == "" {
		v["account_id"] = f.AccountID
		return v
	}
	v["payment_method"] = f.PaymentMethod
	switch m, _ := finance.ParsePaymentMethod(f.PaymentMethod); m {
	case finance.MethodAccountDebit:
		v["account_id"] = f.AccountID
	case finance.MethodCreditCard:
		v["credit_card_id"] = f.CreditCardID
	}
	return v
}

// payChoices are the pickers' choices, the same for every payment form of a
// page. Without Methods the form has no method or card picker and the
// account is optional (none means cash), unless AccountRequired (a
// statement is paid from an account).
type payChoices struct {
	Show            display
	Methods         []string
	Accounts        []finance.AccountOption
	Cards           []finance.CardOption
	AccountRequired bool
}

// payFieldsView is what the "pay-fields" partial shows: one form's fields.
type payFieldsView struct {
	ID     string // the prefix of the fields' element ids, unique on the page
	Form   payForm
	Fields map[string]string // the form's problems, by field
	payChoices
}

// payFields is the template function that hands one form to the partial:
// {{template "pay-fields" (payFields $id .Form .Fields $d.Pay)}}.
func payFields(id string, form payForm, fields map[string]string, c payChoices) payFieldsView {
	return payFieldsView{ID: id, Form: form, Fields: fields, payChoices: c}
}
