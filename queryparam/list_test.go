package queryparam

import (
	"errors"
	"net/url"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
)

func TestParseList(t *testing.T) {
	spec := finance.ListSpec{Sorts: []string{"date", "amount", "created_at"}, DefaultDesc: true}
	const (
		badPage  = "must be an integer from 1 to 10000000"
		badLimit = "must be an integer from 1 to 100"
		badSort  = "must be one of: date, amount, created_at"
		badOrder = "must be asc or desc"
	)
	defaults := finance.ListParams{Page: 1, Limit: 20, SortBy: "date", Desc: true}
	tests := []struct {
		name       string
		query      string
		spec       finance.ListSpec
		want       finance.ListParams
		wantFields map[string]string // nil: no error
	}{
		{name: "defaults", query: "", want: defaults},
		{name: "empty values are defaults", query: "page=&limit=&sortBy=&sortOrder=", want: defaults},
		{name: "unknown parameters are ignored", query: "status=voided&foo=bar", want: defaults},
		{name: "ascending default of another spec", query: "", spec: finance.ListSpec{Sorts: []string{"name", "created_at"}},
			want: finance.ListParams{Page: 1, Limit: 20, SortBy: "name", Desc: false}},
		{name: "all set", query: "page=3&limit=50&sortBy=amount&sortOrder=asc",
			want: finance.ListParams{Page: 3, Limit: 50, SortBy: "amount", Desc: false}},
		{name: "sortOrder desc", query: "sortOrder=desc", spec: finance.ListSpec{Sorts: []string{"name"}},
			want: finance.ListParams{Page: 1, Limit: 20, SortBy: "name", Desc: true}},
		{name: "bounds that are allowed", query: "page=10000000&limit=100",
			want: finance.ListParams{Page: 10_000_000, Limit: 100, SortBy: "date", Desc: true}},
		{name: "limit 1", query: "limit=1", want: finance.ListParams{Page: 1, Limit: 1, SortBy: "date", Desc: true}},

		{name: "page 0", query: "page=0", wantFields: map[string]string{"page": badPage}},
		{name: "negative page", query: "page=-1", wantFields: map[string]string{"page": badPage}},
		{name: "page too large", query: "page=10000001", wantFields: map[string]string{"page": badPage}},
		{name: "page overflows int", query: "page=99999999999999999999", wantFields: map[string]string{"page": badPage}},
		{name: "page not an integer", query: "page=two", wantFields: map[string]string{"page": badPage}},
		{name: "page fractional", query: "page=1.5", wantFields: map[string]string{"page": badPage}},
		{name: "page with a plus sign is still an integer", query: "page=%2B2",
			want: finance.ListParams{Page: 2, Limit: 20, SortBy: "date", Desc: true}},
		{name: "page with blanks", query: "page=%201", wantFields: map[string]string{"page": badPage}},
		{name: "limit 0", query: "limit=0", wantFields: map[string]string{"limit": badLimit}},
		{name: "limit 101", query: "limit=101", wantFields: map[string]string{"limit": badLimit}},
		{name: "limit not an integer", query: "limit=ten", wantFields: map[string]string{"limit": badLimit}},
		{name: "sortBy outside the list", query: "sortBy=user_id", wantFields: map[string]string{"sortBy": badSort}},
		{name: "sortBy is case-sensitive", query: "sortBy=Date", wantFields: map[string]string{"sortBy": badSort}},
		{name: "sortOrder bad", query: "sortOrder=up", wantFields: map[string]string{"sortOrder": badOrder}},
		{name: "sortOrder is case-sensitive", query: "sortOrder=DESC", wantFields: map[string]string{"sortOrder": badOrder}},
		{name: "every problem at once", query: "page=0&limit=101&sortBy=x&sortOrder=sideways",
			wantFields: map[string]string{"page": badPage, "limit": badLimit, "sortBy": badSort, "sortOrder": badOrder}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := url.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			s := spec
			if tt.spec.Sorts != nil {
				s = tt.spec
			}
			got, err := List(q, s)
			if tt.wantFields == nil {
				if err != nil {
					t.Fatalf("List(%q) error: %v", tt.query, err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("List(%q) mismatch (-want +got):\n%s", tt.query, diff)
				}
				return
			}
			var ve *finance.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("List(%q) error = %v, want a *finance.ValidationError", tt.query, err)
			}
			if diff := cmp.Diff(tt.wantFields, ve.Fields); diff != "" {
				t.Errorf("List(%q) fields mismatch (-want +got):\n%s", tt.query, diff)
			}
			// The renderer turns it into 400 VALIDATION_ERROR with the same fields.
			status, detail := httperr.Response(err, "id")
			if status != 400 || detail.Code != httperr.CodeValidation {
				t.Errorf("List(%q) error renders as %d %s, want 400 %s", tt.query, status, detail.Code, httperr.CodeValidation)
			}
		})
	}
}

func TestNewPage(t *testing.T) {
	tests := []struct {
		name  string
		items []int
		total int
		p     finance.ListParams
		want  finance.Pagination
	}{
		{"empty list has 0 pages", nil, 0, finance.ListParams{Page: 1, Limit: 20}, finance.Pagination{Page: 1, Limit: 20, TotalItems: 0, TotalPages: 0}},
		{"one item", []int{1}, 1, finance.ListParams{Page: 1, Limit: 20}, finance.Pagination{Page: 1, Limit: 20, TotalItems: 1, TotalPages: 1}},
		{"exactly one page", make([]int, 20), 20, finance.ListParams{Page: 1, Limit: 20}, finance.Pagination{Page: 1, Limit: 20, TotalItems: 20, TotalPages: 1}},
		{"one over a page", make([]int, 20), 21, finance.ListParams{Page: 1, Limit: 20}, finance.Pagination{Page: 1, Limit: 20, TotalItems: 21, TotalPages: 2}},
		{"limit 1", []int{1}, 7, finance.ListParams{Page: 7, Limit: 1}, finance.Pagination{Page: 7, Limit: 1, TotalItems: 7, TotalPages: 7}},
		{"page past the end", nil, 5, finance.ListParams{Page: 9, Limit: 2}, finance.Pagination{Page: 9, Limit: 2, TotalItems: 5, TotalPages: 3}},
		{"limit 100", make([]int, 100), 1001, finance.ListParams{Page: 1, Limit: 100}, finance.Pagination{Page: 1, Limit: 100, TotalItems: 1001, TotalPages: 11}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := finance.NewPage(tt.items, tt.total, tt.p)
			if diff := cmp.Diff(tt.want, got.Pagination); diff != "" {
				t.Errorf("pagination mismatch (-want +got):\n%s", diff)
			}
			if got.Items == nil {
				t.Error("items is nil; it must encode as [] not null")
			}
			if len(got.Items) != len(tt.items) {
				t.Errorf("len(items) = %d, want %d", len(got.Items), len(tt.items))
			}
		})
	}
}
