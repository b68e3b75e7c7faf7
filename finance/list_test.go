package finance

import (
	"encoding/json"
	"testing"
)

func TestNewPage(t *testing.T) {
	tests := []struct {
		name      string
		items     []int
		total     int
		p         ListParams
		wantPages int
		wantJSON  string
	}{
		{"empty list has zero pages and an empty array", nil, 0, ListParams{Page: 1, Limit: 20}, 0,
			`{"items":[],"pagination":{"page":1,"limit":20,"total_items":0,"total_pages":0}}`},
		{"exact pages", []int{1, 2}, 40, ListParams{Page: 2, Limit: 20}, 2,
			`{"items":[1,2],"pagination":{"page":2,"limit":20,"total_items":40,"total_pages":2}}`},
		{"partial last page", []int{1}, 41, ListParams{Page: 3, Limit: 20}, 3,
			`{"items":[1],"pagination":{"page":3,"limit":20,"total_items":41,"total_pages":3}}`},
		{"page past the end", nil, 5, ListParams{Page: 9, Limit: 100}, 1,
			`{"items":[],"pagination":{"page":9,"limit":100,"total_items":5,"total_pages":1}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewPage(tt.items, tt.total, tt.p)
			if got.Pagination.TotalPages != tt.wantPages {
				t.Errorf("TotalPages = %d, want %d", got.Pagination.TotalPages, tt.wantPages)
			}
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.wantJSON {
				t.Errorf("JSON = %s\nwant   %s", b, tt.wantJSON)
			}
		})
	}
}

func TestListParamsOffset(t *testing.T) {
	for _, tt := range []struct{ page, limit, want int }{{1, 20, 0}, {2, 20, 20}, {5, 100, 400}} {
		if got := (ListParams{Page: tt.page, Limit: tt.limit}).Offset(); got != tt.want {
			t.Errorf("Offset(page %d, limit %d) = %d, want %d", tt.page, tt.limit, got, tt.want)
		}
	}
}
