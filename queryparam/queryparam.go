// Package queryparam reads query parameters as the REST API reads them:
// dates, months, enums, ids, the list parameters and the reports' queries,
// each problem recorded on a finance.Validator under the parameter's name.
// The web pages read their filters with the same functions, so a page and
// the API refuse the same values in the same words.
package queryparam

import (
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/ascii"
)

// PlainName reports whether name is a parameter name or member path
// (items[2].amount) that an error may repeat back as it is: it cannot carry
// markup or control characters. Others are named by where they are
// ("query", "body").
func PlainName(name string) bool { return ascii.Only(name, 1, 200, "_.-[]") }

// Date reads an optional YYYY-MM-DD query parameter.
func Date(v *finance.Validator, q url.Values, name string) finance.Date {
	s := q.Get(name)
	if s == "" {
		return finance.Date{}
	}
	d, err := finance.ParseDate(s)
	if err != nil {
		v.Add(name, finance.DateProblem(err))
	}
	return d
}

// Month reads an optional YYYY-MM query parameter as the month's first day.
func Month(v *finance.Validator, q url.Values, name string) finance.Date {
	s := q.Get(name)
	if s == "" {
		return finance.Date{}
	}
	d, err := finance.ParseMonth(s)
	if err != nil {
		v.Add(name, finance.DateProblem(err))
	}
	return d
}

// Currency reads an optional ISO 4217 code in any case and returns it upper case.
func Currency(v *finance.Validator, q url.Values, name string) string {
	s := q.Get(name)
	if s == "" {
		return ""
	}
	c, ok := finance.LookupCurrency(s)
	if !ok {
		v.Add(name, "must be an ISO 4217 currency code, like PHP, USD or EUR")
	}
	return c.Code
}

// Bool reads an optional true/false query parameter.
func Bool(v *finance.Validator, q url.Values, name string) bool {
	switch q.Get(name) {
	case "", "false":
		return false
	case "true":
		return true
	}
	v.Add(name, "must be true or false")
	return false
}

// DateRange reads dateFrom and dateTo (inclusive); from after to is invalid.
func DateRange(v *finance.Validator, q url.Values) (from, to finance.Date) {
	from, to = Date(v, q, "dateFrom"), Date(v, q, "dateTo")
	if !from.IsZero() && !to.IsZero() && from.After(to) {
		v.Add("dateFrom", "must not be after dateTo")
	}
	return from, to
}

// AmountRange reads amountMin and amountMax (inclusive, nil when absent)
// as exact amounts; a negative bound or a min above the max is invalid.
func AmountRange(v *finance.Validator, q url.Values) (min, max *finance.Money) {
	read := func(name string) *finance.Money {
		s := q.Get(name)
		if s == "" {
			return nil
		}
		m, err := finance.ParseMoney(s)
		switch {
		case err != nil:
			v.Add(name, err.Error())
			return nil
		case m < 0:
			v.Add(name, "must not be negative")
			return nil
		}
		return &m
	}
	min, max = read("amountMin"), read("amountMax")
	if min != nil && max != nil && *min > *max {
		v.Add("amountMin", "must not be more than amountMax")
	}
	return min, max
}

// ID reads an optional UUID query parameter such as cardId.
func ID(v *finance.Validator, q url.Values, name string) string {
	s := q.Get(name)
	if s != "" && !finance.ValidID(s) {
		v.Add(name, "must be a UUID")
	}
	return s
}

// PaymentMethod reads the optional payment_method filter, in any letter case.
func PaymentMethod(v *finance.Validator, q url.Values) string {
	s := q.Get("payment_method")
	if s == "" {
		return ""
	}
	m, ok := finance.ParsePaymentMethod(s)
	if !ok {
		v.Add("payment_method", "must be one of: "+strings.Join(finance.PaymentMethods, ", "))
	}
	return m
}

// ExpenseFilter reads the filters of GET /expenses: the active expenses
// unless status says voided. The Expenses page reads its address with it,
// so the page and the API select the same rows.
func ExpenseFilter(v *finance.Validator, q url.Values) finance.ExpenseFilter {
	f := finance.ExpenseFilter{Status: Enum(v, q, "status", finance.ExpenseStatuses...), PaymentMethod: PaymentMethod(v, q),
		CardID: ID(v, q, "cardId"), AccountID: ID(v, q, "accountId"), Search: q.Get("search"), Category: q.Get("category")}
	if f.Status == "" {
		f.Status = finance.StatusActive
	}
	f.DateFrom, f.DateTo = DateRange(v, q)
	f.AmountMin, f.AmountMax = AmountRange(v, q)
	return f
}

// Enum reads an optional parameter that must be one of allowed.
func Enum(v *finance.Validator, q url.Values, name string, allowed ...string) string {
	s := q.Get(name)
	if s == "" {
		return ""
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	v.Add(name, "must be one of: "+joinQuoted(allowed))
	return ""
}

func joinQuoted(items []string) string {
	out := ""
	for i, it := range items {
		if i > 0 {
			out += ", "
		}
		out += it
	}
	return out
}

// LineFilter parses the filters shared by both line lists.
func LineFilter(v *finance.Validator, q url.Values) finance.AccountTransactionFilter {
	f := finance.AccountTransactionFilter{
		Status: Enum(v, q, "status", finance.LineStatuses...),
		Type:   Enum(v, q, "type", finance.LineTypes...),
		Source: Enum(v, q, "source", finance.LineSources...),
		Search: q.Get("search"),
		// cleared is the reconcile page's filter: the lines still to tick off.
		Cleared: Enum(v, q, "cleared", finance.ClearedStates...),
	}
	if f.Status == "" {
		f.Status = finance.LinePosted
	}
	f.DateFrom, f.DateTo = DateRange(v, q)
	return f
}

// ReportParams is every parameter of any report: the route declares
// them all, and the handler refuses those the named report does not take.
func ReportParams() []string {
	var out []string
	for _, r := range finance.Reports {
		for _, p := range r.Accepts() {
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Report reads the query of the named report: an unknown report is
// ErrNotFound, and a parameter the report does not take, or a bad value,
// a ValidationError. The web app's report pages read theirs with it too.
func Report(name string, q url.Values) (finance.ReportRequest, error) {
	spec, ok := finance.FindReport(name)
	if !ok {
		return finance.ReportRequest{}, finance.UnknownReport()
	}
	accepted := spec.Accepts()
	var v finance.Validator
	for _, p := range slices.Sorted(maps.Keys(q)) {
		if !slices.Contains(accepted, p) {
			v.Add(p, reportParamProblem(name, accepted))
		}
	}
	if err := v.Err(); err != nil {
		return finance.ReportRequest{}, err
	}
	req := finance.ReportRequest{Name: name}
	req.From, req.To = DateRange(&v, q)
	req.Month = Month(&v, q, "month")
	req.Granularity = Enum(&v, q, "granularity", finance.Granularities...)
	req.PaymentMethod = PaymentMethod(&v, q)
	req.CardID = ID(&v, q, "cardId")
	req.Category = q.Get("category")
	return req, v.Err()
}

func reportParamProblem(report string, accepted []string) string {
	return "is not a parameter of the " + report + " report; it takes: " + joinQuoted(accepted)
}
