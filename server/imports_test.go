package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
)

// bankCSV is the bank file of domain.md's worked example, with a line the
// reader cannot read.
const bankCSV = "Date,Description,Amount\n" +
	"2026-11-02,STARBUCKS,-150.00\n" +
	"2026-11-02,STARBUCKS,-150.00\n" +
	"2026-11-06,MERALCO BILLS PAYMENT,-2500.00\n" +
	"2026-11-07,PAYROLL,30000.00\n" +
	"2026-13-01,BAD DATE,-1.00\n"

// importUpload encodes a POST /imports form: fields, then the file.
func importUpload(t testing.TB, fileName, content string, fields ...[2]string) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, f := range fields {
		if err := w.WriteField(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	if fileName != "" {
		fw, err := w.CreateFormFile("file", fileName)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(content))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), w.FormDataContentType()
}

// importEnv is a user on a server whose today is 2026-11-20, with an
// account holding domain.md's typed Coffee and Meralco, and a card.
type importEnv struct {
	*testEnv
	user       finance.User
	key        string // every scope an import needs
	acct, card string
	ctx        context.Context
}

func newImportEnv(t *testing.T, configure ...func(*Config)) *importEnv {
	t.Helper()
	e := &importEnv{testEnv: newTestEnv(t, configure...), ctx: finance.WithActor(context.Background(), finance.WebActor)}
	e.srv.Ledger().SetClock(func() time.Time { return time.Date(2026, 11, 20, 4, 0, 0, 0, time.UTC) })
	e.user = e.createUser(finance.PlanPro)
	e.key = e.createKey(e.user.ID, auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeAccountsWrite, auth.ScopeIncomeWrite, auth.ScopeCardsWrite)
	ledger := e.srv.Ledger()
	a, err := ledger.CreateAccount(e.ctx, e.user.ID, finance.AccountRequest{Name: finance.Of("BPI Savings"),
		Type: finance.Of("savings"), OpeningBalance: finance.Of(finance.Money(100000_00))})
	e.must(err)
	e.acct = a.ID
	for _, x := range []struct {
		amount finance.Money
		day    int
		desc   string
	}{{150_00, 2, "Coffee"}, {2500_00, 5, "Meralco"}} {
		_, err := ledger.CreateExpense(e.ctx, e.user.ID, finance.ExpenseRequest{Amount: finance.Of(x.amount),
			Date: finance.Of(finance.NewDate(2026, 11, x.day)), Description: finance.Of(x.desc), Category: finance.Of("Utilities"),
			PaymentMethod: finance.Of("Account Debit"), AccountID: finance.Of(a.ID)})
		e.must(err)
	}
	c, err := ledger.CreateCreditCard(e.ctx, e.user.ID, finance.CardRequest{Name: finance.Of("Visa"),
		CreditLimit: finance.Of(finance.Money(100000_00)), StatementDay: finance.Of(15), DueDay: finance.Of(5)})
	e.must(err)
	e.card = c.ID
	return e
}

func (e *importEnv) must(err error) {
	e.t.Helper()
	if err != nil {
		e.t.Fatal(err)
	}
}

// all is a page that takes every row of a test's ledger.
var all = finance.ListParams{Page: 1, Limit: 100, SortBy: "created_at"}

// expenses lists the user's expenses of status, as "source description".
func (e *importEnv) expenses(status string) []string {
	e.t.Helper()
	p, err := e.srv.Ledger().ListExpenses(e.ctx, e.user.ID, finance.ExpenseFilter{Status: status}, all)
	e.must(err)
	var out []string
	for _, x := range p.Items {
		out = append(out, x.Source+" "+x.Description)
	}
	return out
}

// income lists the user's active income by description.
func (e *importEnv) income() []string {
	e.t.Helper()
	p, err := e.srv.Ledger().ListIncome(e.ctx, e.user.ID, finance.IncomeFilter{Status: finance.StatusActive}, all)
	e.must(err)
	var out []string
	for _, x := range p.Items {
		out = append(out, *x.Description)
	}
	return out
}

// stored reads a batch and its rows from the database itself.
func (e *importEnv) stored(id string) (finance.ImportBatch, []finance.ImportRow, error) {
	e.t.Helper()
	b, err := e.db.Read().Import(e.ctx, e.user.ID, id)
	if err != nil {
		return b, nil, err
	}
	rows, _, err := e.db.Read().ImportRows(e.ctx, id, finance.ImportRowFilter{}, finance.ListParams{Page: 1, Limit: 100})
	e.must(err)
	return b, rows, nil
}

func (e *importEnv) batches() int {
	e.t.Helper()
	_, n, err := e.db.Read().ListImports(e.ctx, e.user.ID, all)
	e.must(err)
	return n
}

func (e *importEnv) postedLines() int {
	e.t.Helper()
	p, err := e.srv.Ledger().ListAccountTransactions(e.ctx, e.user.ID, finance.AccountTransactionFilter{AccountID: e.acct, Status: finance.LinePosted}, all)
	e.must(err)
	return p.Pagination.TotalItems
}

// preview uploads content to target with key and returns the result.
func (e *importEnv) preview(t *testing.T, key, targetField, target, content string, wantStatus int) apiResult {
	t.Helper()
	body, ct := importUpload(t, "bpi.csv", content, [2]string{targetField, target})
	return apiScenario{method: http.MethodPost, url: "/api/v1/imports", body: body,
		headers: map[string]string{"Authorization": "Bearer " + key, "Content-Type": ct}, wantStatus: wantStatus}.run(t, e.testEnv)
}

func (e *importEnv) call(t *testing.T, method, url, body string, wantStatus int) apiResult {
	t.Helper()
	return apiScenario{method: method, url: url, body: body, headers: bearer(e.key), wantStatus: wantStatus}.run(t, e.testEnv)
}

func TestImportPreviewEditCommitReimportRevert(t *testing.T) {
	e := newImportEnv(t)
	typed := e.expenses(finance.StatusActive)

	res := e.preview(t, e.key, "target_account_id", e.acct, bankCSV, http.StatusCreated)
	var b finance.ImportBatch
	res.decodeData(t, &b)
	want := []string{
		"2 skip expense exact Miscellaneous/default",
		"3 create expense Miscellaneous/default",
		"4 skip expense probable Miscellaneous/default",
		"5 create income Other Income/default",
		`6 skip  error: date "2026-13-01" is not a date in YYYY-MM-DD`,
	}
	if got := testkit.ImportRows(b.Items); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("preview rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s := b.Summary; b.Status != "preview" || b.Target.Name != "BPI Savings" || s.Rows != 5 || s.New != 2 ||
		s.Duplicates != 2 || s.Errors != 1 || s.DebitTotal != 2800_00 || s.CreditTotal != 30000_00 {
		t.Errorf("batch = %s %s %+v", b.Status, b.Target.Name, s)
	}
	if got := e.expenses(finance.StatusActive); len(got) != len(typed) {
		t.Errorf("a preview wrote expenses: %v", got)
	}
	if _, rows, err := e.stored(b.ID); err != nil || len(rows) != 5 {
		t.Errorf("stored rows = %d (%v), want 5", len(rows), err)
	}

	// The rows list filters by match.
	res = e.call(t, http.MethodGet, "/api/v1/imports/"+b.ID+"/rows?match=probable", "", http.StatusOK)
	var page finance.Page[finance.ImportRow]
	res.decodeData(t, &page)
	if len(page.Items) != 1 || page.Items[0].Line != 4 || page.Items[0].Match.RecordID == "" {
		t.Errorf("probable rows = %+v", page.Items)
	}

	// A row edit: the person's category, and a plain account line for the payroll.
	res = e.call(t, http.MethodPut, "/api/v1/imports/"+b.ID+"/rows/3", `{"category":"food & dining"}`, http.StatusOK)
	var row finance.ImportRow
	res.decodeData(t, &row)
	if *row.Category != "Food & Dining" || *row.CategoryReason != "set" {
		t.Errorf("row 3 = %s/%s", *row.Category, *row.CategoryReason)
	}
	if _, rows, _ := e.stored(b.ID); *rows[1].Category != "Food & Dining" || *rows[1].CategoryReason != "set" {
		t.Errorf("row 3 not stored with its category: %+v", rows[1])
	}
	apiScenario{method: http.MethodPut, url: "/api/v1/imports/" + b.ID + "/rows/6", body: `{"action":"create"}`, headers: bearer(e.key),
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation}.run(t, e.testEnv)
	apiScenario{method: http.MethodPut, url: "/api/v1/imports/" + b.ID + "/rows/5", body: `{"record":"card_refund"}`, headers: bearer(e.key),
		wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
		wantFields: map[string]string{"record": "must be one of: income, account_line"}}.run(t, e.testEnv)

	res = e.call(t, http.MethodPost, "/api/v1/imports/"+b.ID+"/commit", "", http.StatusOK)
	res.decodeData(t, &b)
	if b.Status != "committed" || b.Summary.Created != 2 || b.CommittedAt == nil {
		t.Errorf("commit: %s created %d", b.Status, b.Summary.Created)
	}
	if got := e.expenses(finance.StatusActive); !slices.Contains(got, "import STARBUCKS") || len(got) != len(typed)+1 {
		t.Errorf("expenses after commit = %v, want one imported STARBUCKS more", got)
	}
	if got := e.income(); len(got) != 1 || got[0] != "PAYROLL" {
		t.Errorf("income after commit = %v, want PAYROLL", got)
	}
	balance := func() finance.Money {
		a, err := e.srv.Ledger().GetAccount(e.ctx, e.user.ID, e.acct)
		e.must(err)
		return a.CurrentBalance
	}
	if got, want := balance(), finance.Money(100000_00-150_00-2500_00-150_00+30000_00); got != want {
		t.Errorf("balance after commit = %s, want %s", got, want)
	}
	named := 0
	for _, a := range testkit.ActivityOf(t, e.srv.Ledger(), e.user.ID, finance.ActivityFilter{}) {
		if strings.HasSuffix(a.Summary, "(import "+b.ID+` of "bpi.csv")`) {
			named++
		}
	}
	if named != 2 {
		t.Errorf("activity entries naming the batch = %d, want 2", named)
	}
	apiScenario{method: http.MethodPost, url: "/api/v1/imports/" + b.ID + "/commit", headers: bearer(e.key),
		wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}.run(t, e.testEnv)
	apiScenario{method: http.MethodDelete, url: "/api/v1/imports/" + b.ID, headers: bearer(e.key),
		wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus}.run(t, e.testEnv)

	// The same file again creates nothing; its preview can be deleted.
	res = e.preview(t, e.key, "target_account_id", e.acct, bankCSV, http.StatusCreated)
	var again finance.ImportBatch
	res.decodeData(t, &again)
	if again.Summary.New != 0 || again.Summary.Duplicates != 4 {
		t.Errorf("re-import: %+v, want nothing new", again.Summary)
	}
	e.call(t, http.MethodDelete, "/api/v1/imports/"+again.ID, "", http.StatusOK)
	if _, rows, err := e.stored(again.ID); !errors.Is(err, finance.ErrNotFound) || len(rows) != 0 {
		t.Errorf("a deleted preview left %d rows (%v)", len(rows), err)
	}
	e.call(t, http.MethodGet, "/api/v1/imports/"+again.ID, "", http.StatusNotFound)

	res = e.call(t, http.MethodPost, "/api/v1/imports/"+b.ID+"/revert", "", http.StatusOK)
	res.decodeData(t, &b)
	if b.Status != "reverted" {
		t.Errorf("revert: %s", b.Status)
	}
	if got, want := balance(), finance.Money(100000_00-150_00-2500_00); got != want {
		t.Errorf("balance after revert = %s, want %s", got, want)
	}
	if got, income := e.expenses(finance.StatusActive), e.income(); len(got) != len(typed) || len(income) != 0 {
		t.Errorf("active after revert: expenses %v, income %v", got, income)
	}
	if got := e.expenses(finance.StatusVoided); len(got) != 1 || got[0] != "import STARBUCKS" {
		t.Errorf("voided expenses after revert = %v", got)
	}
	res = e.call(t, http.MethodGet, "/api/v1/imports", "", http.StatusOK)
	var list finance.Page[finance.ImportBatch]
	res.decodeData(t, &list)
	if len(list.Items) != 1 || list.Items[0].Status != "reverted" || list.Items[0].Summary.Created != 2 {
		t.Errorf("batches = %+v, want the reverted one with its counts", list.Items)
	}
}

func TestImportRevertRefusedAfterAnEdit(t *testing.T) {
	e := newImportEnv(t)
	var b finance.ImportBatch
	e.preview(t, e.key, "target_account_id", e.acct, bankCSV, http.StatusCreated).decodeData(t, &b)
	e.call(t, http.MethodPost, "/api/v1/imports/"+b.ID+"/commit", "", http.StatusOK)
	_, rows, err := e.stored(b.ID)
	e.must(err)
	expenseID := *rows[1].CreatedID
	e.call(t, http.MethodPut, "/api/v1/expenses/"+expenseID, `{"description":"Starbucks Ayala"}`, http.StatusOK)
	posted := e.postedLines()

	apiScenario{method: http.MethodPost, url: "/api/v1/imports/" + b.ID + "/revert", headers: bearer(e.key),
		wantStatus: http.StatusBadRequest, wantCode: CodeInvalidStatus,
		wantFields: map[string]string{"rows[3]": "record " + expenseID + " changed since the commit"}}.run(t, e.testEnv)
	if n := e.postedLines(); n != posted {
		t.Errorf("a refused revert voided %d lines", posted-n)
	}
	if got, _, _ := e.stored(b.ID); got.Status != finance.ImportCommitted {
		t.Errorf("the batch after a refused revert is %s", got.Status)
	}
}

// domain.md's worked example of a card's history, through the API: one
// statement per past cycle, as the bank's.
func TestImportCardHistoryCommit(t *testing.T) {
	e := newImportEnv(t)
	const visa = "Date,Description,Amount\n" +
		"2026-09-03,SHELL,-1000.00\n" +
		"2026-09-20,GRAB,-200.00\n" +
		"2026-10-02,LAZADA,-300.00\n" +
		"2026-11-18,NETFLIX,-400.00\n" +
		"2026-10-05,PAYMENT - THANK YOU,5000.00\n"
	var b finance.ImportBatch
	e.preview(t, e.key, "target_credit_card_id", e.card, visa, http.StatusCreated).decodeData(t, &b)
	if r := b.Items[4]; r.Action != "skip" || r.Note == nil || r.Record != "card_refund" {
		t.Errorf("the payment's row = %+v, want skipped with a note", r)
	}
	e.call(t, http.MethodPost, "/api/v1/imports/"+b.ID+"/commit", "", http.StatusOK)
	soas, err := e.srv.Ledger().ListSOAs(e.ctx, e.user.ID, finance.SOAFilter{CardID: e.card},
		finance.ListParams{Page: 1, Limit: 10, SortBy: "statement_date"})
	e.must(err)
	var statements []string
	for _, a := range soas.Items {
		statements = append(statements, fmt.Sprintf("%s %d %s", a.StatementDate, a.TransactionCount, a.StatementBalance))
	}
	if want := []string{"2026-09-15 1 1000.00", "2026-10-15 2 500.00"}; strings.Join(statements, ",") != strings.Join(want, ",") {
		t.Errorf("statements = %v, want %v", statements, want)
	}
	card, err := e.srv.Ledger().GetCreditCard(e.ctx, e.user.ID, e.card)
	e.must(err)
	if card.CycleStartDate != finance.NewDate(2026, 8, 16) {
		t.Errorf("cycle_start_date = %s, want 2026-08-16", card.CycleStartDate)
	}
	refunds, err := e.srv.Ledger().ListCardTransactions(e.ctx, e.user.ID, finance.CardTransactionFilter{CardID: e.card, Type: "refund"}, all)
	e.must(err)
	if n := len(refunds.Items); n != 0 {
		t.Errorf("the card payment became %d refunds", n)
	}
}

func TestImportScopes(t *testing.T) {
	e := newImportEnv(t)
	expensesOnly := e.createKey(e.user.ID, auth.ScopeRead, auth.ScopeExpensesWrite)
	body, ct := importUpload(t, "bpi.csv", bankCSV, [2]string{"target_account_id", e.acct})
	apiScenario{method: http.MethodPost, url: "/api/v1/imports", body: body,
		headers: map[string]string{"Authorization": "Bearer " + expensesOnly, "Content-Type": ct}, wantStatus: http.StatusForbidden,
		wantCode: CodeForbidden, wantInMsg: []string{"accounts:write"}}.run(t, e.testEnv)
	if n := e.batches(); n != 0 {
		t.Errorf("a refused preview stored %d batches", n)
	}
	noIncome := e.createKey(e.user.ID, auth.ScopeRead, auth.ScopeExpensesWrite, auth.ScopeAccountsWrite)
	var b finance.ImportBatch
	e.preview(t, noIncome, "target_account_id", e.acct, bankCSV, http.StatusCreated).decodeData(t, &b)
	before := e.expenses(finance.StatusActive)
	apiScenario{method: http.MethodPost, url: "/api/v1/imports/" + b.ID + "/commit", headers: bearer(noIncome),
		wantStatus: http.StatusForbidden, wantCode: CodeForbidden, wantInMsg: []string{"income:write"}}.run(t, e.testEnv)
	if got := e.expenses(finance.StatusActive); len(got) != len(before) {
		t.Errorf("a refused commit wrote expenses: %v", got)
	}
	if got, _, _ := e.stored(b.ID); got.Status != finance.ImportPreview {
		t.Errorf("the batch after a refused commit is %s", got.Status)
	}
	// A read-only key reads batches but cannot write them.
	readOnly := e.createKey(e.user.ID, auth.ScopeRead)
	apiScenario{method: http.MethodGet, url: "/api/v1/imports/" + b.ID, headers: bearer(readOnly), wantStatus: http.StatusOK}.run(t, e.testEnv)
	apiScenario{method: http.MethodDelete, url: "/api/v1/imports/" + b.ID, headers: bearer(readOnly), wantStatus: http.StatusForbidden,
		wantCode: CodeForbidden, wantInMsg: []string{"expenses:write"}}.run(t, e.testEnv)
}

func TestImportBadFiles(t *testing.T) {
	e := newImportEnv(t, func(c *Config) { c.MaxImportBytes = 1000 })
	for _, tc := range []struct {
		name, fileName, content string
		fields                  [][2]string
		wantFields              map[string]string
	}{{
		name: "a zip file", fileName: "statement.zip", content: "PK\x03\x04rest",
		fields:     [][2]string{{"target_account_id", e.acct}},
		wantFields: map[string]string{"file": "the file is a zip archive (or an Excel .xlsx workbook); unzip it, or save the sheet as CSV, and upload the statement itself"},
	}, {
		name: "no file", fields: [][2]string{{"target_account_id", e.acct}},
		wantFields: map[string]string{"file": "is required: the statement or export to import"},
	}, {
		name: "a file over the limit", fileName: "big.csv", content: bankCSV + strings.Repeat("2026-11-08,X,-1.00\n", 60),
		fields:     [][2]string{{"target_account_id", e.acct}},
		wantFields: map[string]string{"file": "is larger than 1000 bytes (the server's import limit)"},
	}, {
		name: "no target", fileName: "bpi.csv", content: bankCSV,
		wantFields: map[string]string{"target_account_id": "is required (or target_credit_card_id)"},
	}, {
		name: "a bad mapping", fileName: "bpi.csv", content: bankCSV,
		fields:     [][2]string{{"target_account_id", e.acct}, {"mapping", `{"dates":"Date"}`}},
		wantFields: map[string]string{"mapping": `must be a JSON object of column names (json: unknown field "dates")`},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := importUpload(t, tc.fileName, tc.content, tc.fields...)
			apiScenario{method: http.MethodPost, url: "/api/v1/imports", body: body,
				headers:    map[string]string{"Authorization": "Bearer " + e.key, "Content-Type": ct},
				wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: tc.wantFields}.run(t, e.testEnv)
			if n := e.batches(); n != 0 {
				t.Errorf("a refused file stored %d batches", n)
			}
		})
	}
}

// A preview is not wrapped for Idempotency-Key: the same upload with the
// same key makes a second preview, answered as new, and changes no record.
func TestImportPreviewTakesNoIdempotencyKey(t *testing.T) {
	e := newImportEnv(t)
	body, ct := importUpload(t, "bpi.csv", bankCSV, [2]string{"target_account_id", e.acct})
	headers := map[string]string{"Authorization": "Bearer " + e.key, "Content-Type": ct, IdempotencyKeyHeader: "upload-1"}
	var ids []string
	for range 2 {
		var b finance.ImportBatch
		apiScenario{method: http.MethodPost, url: "/api/v1/imports", body: body, headers: headers, wantStatus: http.StatusCreated,
			noHeaders: []string{IdempotentReplayedHeader}}.run(t, e.testEnv).decodeData(t, &b)
		ids = append(ids, b.ID)
	}
	if ids[0] == ids[1] || e.batches() != 2 {
		t.Errorf("two uploads with one key: batches %v, %d stored; want two previews", ids, e.batches())
	}
}

// An import's preview, commit and revert answer however long they take:
// each extends its write deadline past the HTTP server's WriteTimeout
// (here a nanosecond, which cuts any other route's answer), so a commit
// that happened is never reported as a dropped connection. The web app's
// upload, commit and undo forms declare the same.
func TestImportRoutesOutlastWriteTimeout(t *testing.T) {
	e := newImportEnv(t)
	ts := httptest.NewUnstartedServer(e.srv.Handler())
	ts.Config.WriteTimeout = time.Nanosecond
	ts.Start()
	t.Cleanup(ts.Close)
	client := &http.Client{Timeout: time.Minute} // only catches a hang
	post := func(path, body, contentType string) (int, string, error) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+e.key)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw), err
	}

	body, ct := importUpload(t, "bpi.csv", bankCSV, [2]string{"target_account_id", e.acct})
	status, raw, err := post("/api/v1/imports", body, ct)
	if err != nil || status != http.StatusCreated {
		t.Fatalf("preview: %d %s %v", status, raw, err)
	}
	var preview struct {
		Data finance.ImportBatch `json:"data"`
	}
	if err := json.Unmarshal([]byte(raw), &preview); err != nil {
		t.Fatal(err)
	}
	id := preview.Data.ID

	// A route without the longer deadline is cut: the timeout is real.
	req, _ := http.NewRequest(http.MethodGet, ts.URL+"/api/v1/imports/"+id, nil)
	req.Header.Set("Authorization", "Bearer "+e.key)
	if resp, err := client.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("GET /imports/{id} answered %d past the write timeout; the test's timeout cuts nothing", resp.StatusCode)
	}

	status, raw, err = post("/api/v1/imports/"+id+"/commit", "", "")
	if err != nil || status != http.StatusOK || !strings.Contains(raw, `"status":"committed"`) {
		t.Fatalf("commit: %d %s %v", status, raw, err)
	}
	if b, _, err := e.stored(id); err != nil || b.Status != finance.ImportCommitted {
		t.Errorf("after the commit: %v %v", b.Status, err)
	}
	status, raw, err = post("/api/v1/imports/"+id+"/revert", "", "")
	if err != nil || status != http.StatusOK || !strings.Contains(raw, `"status":"reverted"`) {
		t.Fatalf("revert: %d %s %v", status, raw, err)
	}
	if b, _, err := e.stored(id); err != nil || b.Status != finance.ImportReverted {
		t.Errorf("after the revert: %v %v", b.Status, err)
	}

	long := map[string]bool{}
	for _, rt := range e.srv.Routes() {
		if rt.LongWrite {
			long[rt.Method+" "+rt.Path] = true
		}
	}
	for _, want := range []string{"POST /api/v1/imports", "POST /api/v1/imports/:id/commit", "POST /api/v1/imports/:id/revert",
		"POST /import", "POST /imports/:id/commit", "POST /imports/:id/undo"} {
		if !long[want] {
			t.Errorf("%s does not extend its write deadline", want)
		}
	}
}
