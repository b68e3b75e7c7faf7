package web

import (
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/queryparam"
)

// maxPageValueLen bounds a web page's query and form values, in characters.
// It is far looser than the REST API's bound on a query value (200
// characters): a page's "back"
// parameter carries a list's whole address, and the domain's own limits
// (2,000 characters of text to parse, 1,000 of notes) must keep answering
// next to their fields. It only keeps a search (4 bytes a character at most,
// each escaped) below the 50,000 bytes SQLite's LIKE refuses.
const maxPageValueLen = 10000

// CheckPageValues checks a page's query or posted form: every name and value
// plain text, every value at most maxPageValueLen characters. Pages ignore
// parameters they do not take (a person's bookmarks outlive them), so unlike the
// API's query check nothing is refused for its name alone.
func CheckPageValues(values url.Values, where string) error {
	var v finance.Validator
	for _, name := range slices.Sorted(maps.Keys(values)) {
		field := name
		if !queryparam.PlainName(name) {
			field = where
		}
		for _, value := range values[name] {
			if problem := pageValueProblem(name, value); problem != "" {
				v.Add(field, problem) // once per name
				break
			}
		}
	}
	return v.Err()
}

func pageValueProblem(name, value string) string {
	switch {
	case !finance.PlainText(name) || !finance.PlainText(value):
		return finance.ProblemText
	case utf8.RuneCountInString(value) > maxPageValueLen:
		return "must be at most " + strconv.Itoa(maxPageValueLen) + " characters"
	}
	return ""
}

// pageMoneyFields are the names of the money fields of the pages' forms (a
// multi-row form's are "<row>.amount"), and the amount range of the expense
// list's filter (amountMin, amountMax, read by listRequest). Percents and
// counts are not money.
var pageMoneyFields = []string{"amount", "opening_balance", "credit_limit", "minimum_due", "minimum_due_floor",
	"monthly_amount", "monthly_limit", "principal", "target_balance", "amount_min", "amount_max", "fee", "statement_balance",
	"amountMin", "amountMax", "original_amount", "to_amount"}

func isPageMoneyField(name string) bool {
	return slices.Contains(pageMoneyFields, name[strings.LastIndex(name, ".")+1:])
}

// readPageAmounts rewrites a posted form's (or a list filter's) money fields, as a person types
// them ("50,000", "1.234,56"), into the API's exact decimal ("50000.00"),
// reading an ambiguous mark by the person's currency (finance.ReadAmount,
// domain.md "First run, currency and timezone"). Every page's form goes
// through it (signedInForm), so every money field reads alike. A value that
// does not read as an amount stays as typed, for the API to refuse in its own
// words beside the field. currency is asked for only when a value has a mark
// to read.
func readPageAmounts(form url.Values, currency func() (string, error)) error {
	decimalComma, asked := false, false
	for name, values := range form {
		if !isPageMoneyField(name) {
			continue
		}
		for i, v := range values {
			if strings.Trim(v, " -0123456789") == "" { // no mark: read alike in every currency
				continue
			}
			if !asked {
				code, err := currency()
				if err != nil {
					return err
				}
				c, _ := finance.LookupCurrency(code)
				decimalComma, asked = c.DecimalComma, true
			}
			if m, err := finance.ReadAmount(v, decimalComma); err == nil {
				values[i] = m.String()
			}
		}
	}
	return nil
}
