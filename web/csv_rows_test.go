package web

import (
	"errors"
	"testing"

	"github.com/finance-app/finance/finance"
)

// A download reads its list csvPageSize rows at a time, in order, and
// refuses a list longer than csvMaxRows, naming the date range.
func TestAllRows(t *testing.T) {
	list := func(total int, calls *int) func(finance.ListParams) (finance.Page[int], error) {
		return func(p finance.ListParams) (finance.Page[int], error) {
			*calls++
			var items []int
			for i := p.Offset(); i < min(total, p.Offset()+p.Limit); i++ {
				items = append(items, i)
			}
			return finance.NewPage(items, total, p), nil
		}
	}
	var calls int
	rows, err := allRows(finance.ListParams{Page: 3, Limit: 20}, list(2*csvPageSize+7, &calls))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2*csvPageSize+7 || rows[0] != 0 || rows[len(rows)-1] != 2*csvPageSize+6 || calls != 3 {
		t.Errorf("%d rows from %d..%d in %d reads, want %d rows in 3", len(rows), rows[0], rows[len(rows)-1], calls, 2*csvPageSize+7)
	}
	calls = 0
	_, err = allRows(finance.ListParams{Page: 1, Limit: 20}, list(csvMaxRows+1, &calls))
	var ve *finance.ValidationError
	if !errors.As(err, &ve) || ve.Fields["dateFrom"] == "" || calls != 1 {
		t.Errorf("a list of %d rows: %v after %d reads, want a dateFrom problem after 1", csvMaxRows+1, err, calls)
	}
}
