package finance

import "context"

// Paging bounds shared by every list route.
const (
	DefaultLimit = 20
	MaxLimit     = 100
)

// ListSpec describes how a list may be sorted: the allowed sortBy values (the
// first is the default) and the default direction when sortOrder is absent.
type ListSpec struct {
	Sorts       []string
	DefaultDesc bool
}

// ListParams are the validated paging and sorting parameters of a list request.
type ListParams struct {
	Page   int
	Limit  int
	SortBy string
	Desc   bool
}

// Offset is the number of rows before the requested page.
func (p ListParams) Offset() int { return (p.Page - 1) * p.Limit }

// Pagination is the page description returned with every list.
type Pagination struct {
	Page       int `json:"page"`
	Limit      int `json:"limit"`
	TotalItems int `json:"total_items"`
	TotalPages int `json:"total_pages"`
}

// Page is one page of a list: the list envelope's data.
type Page[T any] struct {
	Items      []T        `json:"items"`
	Pagination Pagination `json:"pagination"`
}

// pageOf is the page a list use case returns from its store query's result:
// the query's error, or the page of its items.
func pageOf[T any](items []T, total int, err error, p ListParams) (Page[T], error) {
	if err != nil {
		return Page[T]{}, err
	}
	return NewPage(items, total, p), nil
}

// NewPage wraps items (never nil in the output) with the pagination for total rows.
func NewPage[T any](items []T, total int, p ListParams) Page[T] {
	if items == nil {
		items = []T{}
	}
	pages := 0
	if p.Limit > 0 {
		pages = (total + p.Limit - 1) / p.Limit
	}
	return Page[T]{Items: items, Pagination: Pagination{Page: p.Page, Limit: p.Limit, TotalItems: total, TotalPages: pages}}
}

// Summary is how many rows a list's filters select and what their amounts
// come to, over the whole filtered set rather than the page (domain.md
// "List summaries").
type Summary struct {
	Count int   `json:"count"`
	Total Money `json:"total"`
}

// ListTotals is what a store sums for a list whose rows may be in several
// currencies: Count rows, and their amounts by currency, the reporting
// currency's in one group and another's per date, to convert each at its
// date's rate.
type ListTotals struct {
	Count  int
	Groups []DatedAmount
}

// ConvertedSummary is the summary of a list of money: Total
// is in the reporting currency (Currency), each amount converted at the
// rate of its date and the sum rounded once, with what was left out for
// want of a rate named (domain.md "Converting for summaries").
type ConvertedSummary struct {
	Summary
	Currency string `json:"currency"`
	ConversionNote
}

// ConvertedPage is one page of a list of money in several currencies with
// its summary.
type ConvertedPage[T any] struct {
	Page[T]
	Summary ConvertedSummary `json:"summary"`
}

// convertedPageOf is pageOf for a list whose store query also sums it by
// currency: the summary's total converts to reporting (the reporting
// currency, or the one account's or card's a list is narrowed to).
func convertedPageOf[T any](ctx context.Context, s *Service, userID, reporting string, items []T, t ListTotals, err error,
	p ListParams) (ConvertedPage[T], error) {
	page, err := pageOf(items, t.Count, err, p)
	if err != nil {
		return ConvertedPage[T]{}, err
	}
	conv, err := s.sumConverter(ctx, userID, reporting, t.Groups)
	if err != nil {
		return ConvertedPage[T]{}, err
	}
	sum := ConvertedSummary{Summary: Summary{Count: t.Count}, Currency: reporting}
	sum.Total, _ = conv.Total(ctx, t.Groups)
	sum.ConversionNote = conv.NoteOf(ctx, t.Groups)
	return ConvertedPage[T]{Page: page, Summary: sum}, conv.Err()
}
