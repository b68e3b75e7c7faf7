package finance

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

// SummedPage is one page of a list of money with its summary.
type SummedPage[T any] struct {
	Page[T]
	Summary Summary `json:"summary"`
}

// summedPageOf is pageOf for a list whose store query also sums it; the
// summary's count is the pagination's total.
func summedPageOf[T any](items []T, sum Summary, err error, p ListParams) (SummedPage[T], error) {
	page, err := pageOf(items, sum.Count, err, p)
	if err != nil {
		return SummedPage[T]{}, err
	}
	return SummedPage[T]{Page: page, Summary: sum}, nil
}
