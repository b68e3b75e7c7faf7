package server

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
)

// form encodes fields as multipart/form-data and returns the body and its Content-Type.
func form(t testing.TB, fields [][2]string) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), w.FormDataContentType()
}

// Bodies may be multipart forms with the JSON field names (domain.md §1.2):
// plain values arrive as strings, nested values as JSON text.
func TestMultipartBodies(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeExpensesWrite)
	hdr := func(ct string) map[string]string {
		return map[string]string{"Authorization": "Bearer " + key, "Content-Type": ct}
	}

	body, ct := form(t, [][2]string{{"amount", "12.50"}, {"date", "2026-01-15"}, {"description", "Bus"},
		{"category", "Transportation"}, {"payment_method", "Cash"}})
	var e finance.Expense
	apiScenario{method: http.MethodPost, url: "/api/v1/expenses", body: body, headers: hdr(ct),
		wantStatus: http.StatusCreated}.run(t, env).decodeData(t, &e)
	if e.Amount != 12_50 || e.Description != "Bus" || e.Category == nil || *e.Category != "Transportation" {
		t.Errorf("created from a form: %+v", e)
	}

	items := `[{"amount":"1.10","date":"2026-01-16","description":"A","category":"Groceries","payment_method":"Cash"},
		{"amount":"2.20","date":"2026-01-16","description":"B","category":"Groceries","payment_method":"Cash"}]`
	body, ct = form(t, [][2]string{{"items", items}})
	var bulk finance.BulkExpenses
	apiScenario{method: http.MethodPost, url: "/api/v1/expenses/bulk", body: body, headers: hdr(ct),
		wantStatus: http.StatusCreated}.run(t, env).decodeData(t, &bulk)
	if bulk.Count != 2 || bulk.Items[1].Amount != 2_20 {
		t.Errorf("bulk from a form: %+v", bulk)
	}

	body, ct = form(t, [][2]string{{"items", "[{not json"}})
	apiScenario{method: http.MethodPost, url: "/api/v1/expenses/bulk", body: body, headers: hdr(ct), wantStatus: http.StatusBadRequest,
		wantCode: CodeValidation, wantFields: fieldsOf("items", "must be JSON text in a multipart form")}.run(t, env)

	body, ct = form(t, [][2]string{{"amount", "12.505"}, {"date", "2026-02-30"}, {"description", "X"},
		{"category", "Groceries"}, {"payment_method", "Cash"}})
	apiScenario{method: http.MethodPost, url: "/api/v1/expenses", body: body, headers: hdr(ct), wantStatus: http.StatusBadRequest,
		wantCode: CodeValidation, wantFields: fieldsOf("amount", problemMoney, "date", problemDate)}.run(t, env)

	page, err := env.srv.Ledger().ListExpenses(t.Context(), u.ID, finance.ExpenseFilter{Status: "active"},
		finance.ListParams{Page: 1, Limit: 10, SortBy: "date"})
	if err != nil || page.Pagination.TotalItems != 3 {
		t.Errorf("expenses stored: %d (%v), want 3", page.Pagination.TotalItems, err)
	}

	body, ct = form(t, [][2]string{{"email", u.Email}, {"password", testkit.Password}})
	apiScenario{method: http.MethodPost, url: "/api/v1/auth/login", body: body, headers: map[string]string{"Content-Type": ct},
		wantStatus: http.StatusOK}.run(t, env)
}
