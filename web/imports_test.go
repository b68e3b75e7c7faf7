package web_test

import (
	"bytes"
	"context"
	"html"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// statementCSV is a bank's CSV this app recognises by its header: a
// purchase, a salary, and a row whose date cannot be read.
const statementCSV = "Date,Description,Amount\n2025-03-01,GROCER MAKATI,-12.50\n2025-03-02,PAYROLL,1000.00\n2025-13-01,BROKEN,-1.00\n"

// importUpload is the Import form as a browser sends it: the token first,
// then the fields, then the file (none when name is "").
func importUpload(t *testing.T, b *testkit.Browser, token string, fields map[string]string, name, data string) testkit.Exchange {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if token != "" {
		w.WriteField("csrf", token)
	}
	for k, v := range fields {
		w.WriteField(k, v)
	}
	if name != "" {
		part, err := w.CreateFormFile("file", name)
		if err != nil {
			t.Fatal(err)
		}
		part.Write([]byte(data))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Send(http.MethodPost, web.ImportPath, buf.String(), w.FormDataContentType())
}

// importsOf lists the user's import batches, newest first, straight from the ledger.
func importsOf(t *testing.T, env *testEnv, u finance.User) []finance.ImportBatch {
	t.Helper()
	p, err := env.srv.Ledger().ListImports(context.Background(), u.ID, finance.ListParams{Page: 1, Limit: 100, SortBy: "created_at", Desc: true})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

// importRowsOf lists a batch's rows in file order, straight from the ledger.
func importRowsOf(t *testing.T, env *testEnv, u finance.User, id string) []finance.ImportRow {
	t.Helper()
	p, err := env.srv.Ledger().ListImportRows(context.Background(), u.ID, id, finance.ImportRowFilter{}, finance.ListParams{Page: 1, Limit: 100, SortBy: "line"})
	if err != nil {
		t.Fatal(err)
	}
	return p.Items
}

// previewed uploads statementCSV into account and returns the batch's id
// from the redirect to its page.
func previewed(t *testing.T, b *testkit.Browser, account finance.Account) string {
	t.Helper()
	token := testkit.CSRF(t, b.Get(web.ImportPath))
	x := importUpload(t, b, token, map[string]string{"target": "account:" + account.ID}, "march.csv", statementCSV)
	loc := x.Header.Get("Location")
	id, ok := strings.CutPrefix(strings.TrimSuffix(loc, "?notice=import-previewed"), web.ImportsPath+"/")
	if x.Status != http.StatusSeeOther || !ok || !finance.ValidID(id) {
		t.Fatalf("upload: %d to %q\n%s", x.Status, loc, x.Body)
	}
	return id
}

func TestImportPagesNeedSignIn(t *testing.T) {
	env := newTestEnv(t)
	b := env.browser(t)
	const id = "0190f1a2-0000-7000-8000-000000000000"
	for _, path := range []string{web.ImportPath, web.ImportsPath, web.ImportsPath + "/" + id, web.ImportsPath + "/" + id + "/undo"} {
		if x := b.Get(path); x.Status != http.StatusSeeOther || x.Header.Get("Location") != web.LoginPath+"?next="+url.QueryEscape(path) {
			t.Errorf("GET %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
}

// The journey: the form reached from the account, the upload previewed,
// a row's category changed, the rows filtered, the commit, and the undo,
// each checked on the page and in the ledger.
func TestImportPageJourney(t *testing.T) {
	env, u, b := webApp(t)
	acct := newAccount(t, env, u, "BPI Savings", 1000_00)

	testkit.WantPage(t, "settings", b.Get(web.SettingsPath), http.StatusOK, `<a href="/imports"><strong>Imports</strong>`)
	testkit.WantPage(t, "account", b.Get(web.AccountsPath+"/"+acct.ID), http.StatusOK, `href="/import?account=`+acct.ID+`">Import a statement</a>`)
	form := b.Get(web.ImportPath + "?account=" + acct.ID)
	testkit.WantPage(t, "import form", form, http.StatusOK, `enctype="multipart/form-data"`, `<input type="file" id="file" name="file"`,
		`<option value="account:`+acct.ID+`" selected>BPI Savings (account)</option>`, "<summary>Options</summary>",
		`<select id="date_format" name="date_format">`, `<select id="decimal_separator" name="decimal_separator">`, `<select id="encoding" name="encoding">`)

	id := previewed(t, b, acct)
	batches := importsOf(t, env, u)
	if len(batches) != 1 || batches[0].Status != finance.ImportPreview || batches[0].Summary.Rows != 3 || batches[0].Summary.New != 2 || batches[0].Summary.Errors != 1 {
		t.Fatalf("batches after the upload = %+v", batches)
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 {
		t.Errorf("a preview wrote %d expenses", n)
	}
	page := b.Get(web.ImportsPath + "/" + id + "?notice=import-previewed")
	testkit.WantPage(t, "batch", page, http.StatusOK, "Import of march.csv", "The file is read.", "<dt>To create</dt><dd>2</dd>",
		"<dt>Errors</dt>", "GROCER MAKATI", "−₱12.50", "+₱1,000.00", `date "2025-13-01" is not a date`, "Import 2 rows", "Discard",
		`<a href="/accounts/`+acct.ID+`">BPI Savings</a>`)
	token := testkit.CSRF(t, page)

	// A row's category: saved on the row, the page back where it was.
	back := web.ImportsPath + "/" + id
	x := b.Post(back+"/rows/2", url.Values{"csrf": {token}, "back": {back}, "action": {"create"}, "category": {"Food & Dining"}})
	testkit.WantRedirect(t, "row change", x, back+"?notice=import-row-saved#row-2")
	if rows := importRowsOf(t, env, u, id); deref(rows[0].Category) != "Food & Dining" || deref(rows[0].CategoryReason) != finance.ReasonSet {
		t.Errorf("row 2 after the change = %s (%s)", deref(rows[0].Category), deref(rows[0].CategoryReason))
	}
	// A category of another kind is refused beside the row, and nothing changes.
	x = b.Post(back+"/rows/2", url.Values{"csrf": {token}, "back": {back}, "category": {"Salary"}})
	testkit.WantPage(t, "a refused row change", x, http.StatusBadRequest, "Not changed.", `<tr id="row-2"`)
	if rows := importRowsOf(t, env, u, id); deref(rows[0].Category) != "Food & Dining" {
		t.Errorf("row 2 after a refused change = %s", deref(rows[0].Category))
	}

	errorsOnly := b.Get(back + "?show=errors")
	testkit.WantPage(t, "errors only", errorsOnly, http.StatusOK, `date "2025-13-01" is not a date`, `aria-current="page">Errors</a>`)
	if errorsOnly.Contains("GROCER") || errorsOnly.Contains("PAYROLL") {
		t.Error("the errors filter shows rows without an error")
	}
	if toCreate := b.Get(back + "?show=create"); toCreate.Contains("2025-13-01") || !toCreate.Contains("GROCER") {
		t.Errorf("the create filter:\n%s", toCreate.Body)
	}

	x = b.Post(back+"/commit", url.Values{"csrf": {token}, "back": {back}})
	testkit.WantRedirect(t, "commit", x, back+"?notice=import-committed")
	if a := getAccount(t, env, u, acct.ID); a.CurrentBalance != 1000_00-12_50+1000_00 {
		t.Errorf("balance after the commit = %s", a.CurrentBalance)
	}
	if ex := expensesOf(t, env, u, finance.StatusActive); len(ex) != 1 || deref(ex[0].Category) != "Food & Dining" || ex[0].Amount != 12_50 {
		t.Errorf("expenses after the commit = %+v", ex)
	}
	page = b.Get(back + "?notice=import-committed")
	testkit.WantPage(t, "committed batch", page, http.StatusOK, "Imported.", "2 records were created on", "Undo this import", "Created: <a href=")
	if page.Contains("Import 2 rows") || page.Contains(`name="action"`) {
		t.Error("a committed batch still offers to import or change its rows")
	}

	// The same file again: every readable row is already recorded, linked
	// to the lines of its day, and nothing is set to be created.
	again := previewed(t, b, acct)
	dup := b.Get(web.ImportsPath + "/" + again + "?show=duplicates")
	testkit.WantPage(t, "the same file again", dup, http.StatusOK, "<dt>Duplicates</dt><dd>2</dd>", "GROCER MAKATI", "PAYROLL",
		`Already recorded: <a href="/accounts/lines?accountId=`+acct.ID+`&dateFrom=2025-02-26&dateTo=2025-03-04">see it`,
		"No row is set to be created.", "disabled>Import 0 rows")
	if n := len(importsOf(t, env, u)); n != 2 {
		t.Errorf("%d batches after the second upload, want 2", n)
	}

	confirm := b.Get(back + "/undo")
	testkit.WantPage(t, "undo confirm", confirm, http.StatusOK, "Undo the import of march.csv?", "The 2 records this import created on BPI Savings are voided",
		`action="`+back+`/undo"`, "Keep it")
	x = b.Post(back+"/undo", url.Values{"csrf": {testkit.CSRF(t, confirm)}})
	testkit.WantRedirect(t, "undo", x, back+"?notice=import-reverted")
	if a := getAccount(t, env, u, acct.ID); a.CurrentBalance != 1000_00 {
		t.Errorf("balance after the undo = %s", a.CurrentBalance)
	}
	if ex := expensesOf(t, env, u, finance.StatusActive); len(ex) != 0 {
		t.Errorf("active expenses after the undo = %+v", ex)
	}
	testkit.WantPage(t, "imports", b.Get(web.ImportsPath), http.StatusOK, `<a href="/imports/`+id+`">march.csv</a>`, "Reverted", "into BPI Savings · 3 rows")
}

// A preview is discarded whole, and a file or target the upload lacks is
// named on the form with nothing stored.
func TestImportPageRefusals(t *testing.T) {
	env, u, b := webApp(t)
	acct := newAccount(t, env, u, "BPI Savings", 1000_00)
	token := testkit.CSRF(t, b.Get(web.ImportPath))

	for name, tok := range map[string]string{"no form token": "", "a wrong form token": "forged"} {
		if x := importUpload(t, b, tok, map[string]string{"target": "account:" + acct.ID}, "march.csv", statementCSV); x.Status != http.StatusForbidden {
			t.Errorf("upload with %s: %d", name, x.Status)
		}
	}
	// The token after the file: refused at the file, which is never read.
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	part, _ := mw.CreateFormFile("file", "march.csv")
	part.Write([]byte(statementCSV))
	mw.WriteField("csrf", token)
	mw.Close()
	if x := b.Send(http.MethodPost, web.ImportPath, buf.String(), mw.FormDataContentType()); x.Status != http.StatusForbidden {
		t.Errorf("token after the file: %d", x.Status)
	}
	x := importUpload(t, b, token, map[string]string{"target": "account:" + acct.ID}, "", "")
	testkit.WantPage(t, "no file", x, http.StatusBadRequest, "File is required: choose the statement or export to import")
	x = importUpload(t, b, token, nil, "march.csv", statementCSV)
	testkit.WantPage(t, "no target", x, http.StatusBadRequest, `<small class="field-error" id="target-error">Into: is required`)
	x = importUpload(t, b, token, map[string]string{"target": "account:" + acct.ID, "format": "xls"}, "march.csv", statementCSV)
	testkit.WantPage(t, "a format not read", x, http.StatusBadRequest, `id="format-error">Format: format "xls" is not one of`)
	x = importUpload(t, b, token, map[string]string{"target": "account:" + acct.ID}, "book.xlsx", "PK\x03\x04zip")
	testkit.WantPage(t, "a zip", x, http.StatusBadRequest, "File the file is a zip archive")
	if n := len(importsOf(t, env, u)); n != 0 {
		t.Fatalf("%d batches stored from refused uploads", n)
	}

	id := previewed(t, b, acct)
	back := web.ImportsPath + "/" + id
	x = b.Post(back+"/discard", url.Values{"csrf": {token}})
	testkit.WantRedirect(t, "discard", x, web.ImportsPath+"?notice=import-discarded")
	if n := len(importsOf(t, env, u)); n != 0 {
		t.Errorf("%d batches after the discard", n)
	}
	if x := b.Get(back); x.Status != http.StatusNotFound {
		t.Errorf("a discarded batch's page: %d", x.Status)
	}
}

// A commit the ledger refuses (the account archived since the preview)
// is shown on the batch in words and writes nothing; an undo after one of
// the import's records changed is refused naming it, and voids nothing.
func TestImportPageRefusedCommitAndUndo(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	acct := newAccount(t, env, u, "BPI Savings", 1000_00)
	id := previewed(t, b, acct)
	back := web.ImportsPath + "/" + id
	token := testkit.CSRF(t, b.Get(back))

	if _, err := env.srv.Ledger().ArchiveAccount(ctx, u.ID, acct.ID); err != nil {
		t.Fatal(err)
	}
	x := b.Post(back+"/commit", url.Values{"csrf": {token}, "back": {back}})
	testkit.WantPage(t, "a refused commit", x, http.StatusBadRequest, "Account is archived; unarchive it before committing the import", "Import 2 rows")
	if bt := importsOf(t, env, u); bt[0].Status != finance.ImportPreview || bt[0].Summary.Created != 0 {
		t.Errorf("batch after a refused commit = %s, %d created", bt[0].Status, bt[0].Summary.Created)
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 || getAccount(t, env, u, acct.ID).CurrentBalance != 1000_00 {
		t.Errorf("a refused commit wrote %d expenses", n)
	}

	if _, err := env.srv.Ledger().UnarchiveAccount(ctx, u.ID, acct.ID); err != nil {
		t.Fatal(err)
	}
	testkit.WantRedirect(t, "commit", b.Post(back+"/commit", url.Values{"csrf": {token}, "back": {back}}), back+"?notice=import-committed")
	ex := expensesOf(t, env, u, finance.StatusActive)
	if len(ex) != 1 {
		t.Fatalf("expenses after the commit = %+v", ex)
	}
	if _, err := env.srv.Ledger().UpdateExpense(ctx, u.ID, ex[0].ID, finance.ExpenseRequest{Description: finance.Of("Groceries for the week")}); err != nil {
		t.Fatal(err)
	}
	x = b.Post(back+"/undo", url.Values{"csrf": {token}})
	testkit.WantPage(t, "a refused undo", x, http.StatusBadRequest, "Import of march.csv", "changed since")
	if bt := importsOf(t, env, u); bt[0].Status != finance.ImportCommitted {
		t.Errorf("batch after a refused undo = %s", bt[0].Status)
	}
	if ex := expensesOf(t, env, u, finance.StatusActive); len(ex) != 1 || getAccount(t, env, u, acct.ID).CurrentBalance != 1000_00-12_50+1000_00 {
		t.Errorf("a refused undo voided records: %d expenses left", len(ex))
	}
}

// keptFile is the file the mapping step carries in its form.
var keptFile = regexp.MustCompile(`name="kept_file" value="([^"]*)"`)

// A CSV whose columns are not recognised goes to the mapping step with its
// columns; the mapping sent back reads the kept file into a preview. A
// person may ask for the step on a file that would read by itself.
func TestImportPageMapsCSVColumns(t *testing.T) {
	env, u, b := webApp(t)
	acct := newAccount(t, env, u, "BPI Savings", 1000_00)
	token := testkit.CSRF(t, b.Get(web.ImportPath))
	const odd = "When;What;How much\n01/03/2025;GROCER MAKATI;-12,50\n02/03/2025;PAYROLL;1.000,00\n"

	x := importUpload(t, b, token, map[string]string{"target": "account:" + acct.ID}, "odd.csv", odd)
	testkit.WantPage(t, "mapping step", x, http.StatusOK, "Map the columns", "The columns of <strong>odd.csv</strong> were not recognised.",
		`<select id="col_date" name="col_date">`, `<option value="How much">How much</option>`, `name="file_name" value="odd.csv"`,
		"Positive amounts are money out", "Read with these columns")
	m := keptFile.FindStringSubmatch(string(x.Body))
	if m == nil {
		t.Fatalf("the mapping step keeps no file:\n%s", x.Body)
	}
	if n := len(importsOf(t, env, u)); n != 0 {
		t.Fatalf("%d batches stored before the mapping", n)
	}
	mapped := map[string]string{"kept_file": html.UnescapeString(m[1]), "file_name": "odd.csv", "column": "When",
		"col_date": "When", "col_amount": "How much", "col_description": "What", "date_format": "DD/MM/YYYY", "decimal_separator": ","}
	// Refused on the step (no target): the step again, the file still kept.
	x = importUpload(t, b, token, mapped, "", "")
	testkit.WantPage(t, "a mapping without a target", x, http.StatusBadRequest, "Map the columns", `id="target-error">Into: is required`,
		`name="kept_file" value="`+m[1]+`"`, `<option value="When" selected>When</option>`)
	if n := len(importsOf(t, env, u)); n != 0 {
		t.Fatalf("%d batches stored without a target", n)
	}
	mapped["target"] = "account:" + acct.ID
	x = importUpload(t, b, token, mapped, "", "")
	if x.Status != http.StatusSeeOther {
		t.Fatalf("mapped upload: %d\n%s", x.Status, x.Body)
	}
	batches := importsOf(t, env, u)
	if len(batches) != 1 || batches[0].FileName != "odd.csv" || batches[0].Summary.New != 2 || batches[0].Summary.DebitTotal != 12_50 || batches[0].Summary.CreditTotal != 1000_00 {
		t.Fatalf("batch from the mapping = %+v", batches)
	}

	// A mapping naming no amount stays on the step with the problem.
	delete(mapped, "col_amount")
	x = importUpload(t, b, token, mapped, "", "")
	testkit.WantPage(t, "a mapping without an amount", x, http.StatusBadRequest, "Not read with these columns. Check them below.",
		"Map the columns", "the mapping names no amount column")

	// Asked for: the step with the columns it recognised chosen.
	x = importUpload(t, b, token, map[string]string{"target": "account:" + acct.ID, "map": "1"}, "march.csv", statementCSV)
	testkit.WantPage(t, "mapping asked for", x, http.StatusOK, "Map the columns", `<option value="Date" selected>Date</option>`,
		`<option value="Amount" selected>Amount</option>`)
	if n := len(importsOf(t, env, u)); n != 1 {
		t.Errorf("%d batches after the mapping step was asked for, want 1", n)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// A card's page leads to the form with the card chosen, and a card's
// preview offers what a card's rows may become.
func TestImportPageIntoACard(t *testing.T) {
	env, u, b := webApp(t)
	cs := newCardSetup(t, env, u)
	testkit.WantPage(t, "card", b.Get(web.CardsPath+"/"+cs.card.ID), http.StatusOK, `href="/import?card=`+cs.card.ID+`">Import a statement</a>`)
	form := b.Get(web.ImportPath + "?card=" + cs.card.ID)
	testkit.WantPage(t, "import form", form, http.StatusOK, `<option value="card:`+cs.card.ID+`" selected>Visa (card)</option>`,
		`<option value="account:`+cs.account.ID+`">Payroll (account)</option>`)
	x := importUpload(t, b, testkit.CSRF(t, form), map[string]string{"target": "card:" + cs.card.ID}, "visa.csv",
		"Date,Description,Amount\n2025-03-13,BOOKSTORE,-45.00\n")
	if x.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d\n%s", x.Status, x.Body)
	}
	batches := importsOf(t, env, u)
	if len(batches) != 1 || batches[0].Target.Kind != finance.TargetCard || batches[0].Target.ID != cs.card.ID || batches[0].Summary.New != 1 {
		t.Fatalf("batches = %+v", batches)
	}
	testkit.WantPage(t, "card batch", b.Get(x.Header.Get("Location")), http.StatusOK, `<a href="/cards/`+cs.card.ID+`">Visa</a>`,
		`<option value="expense" selected>Expense</option><option value="card_fee">Card fee</option>`)
}

// The Import form loads its upload-progress script beside app.js, the one
// page whose policy lets a script send requests: this origin's files only,
// no inline script. Every other page runs app.js alone and sends nothing.
// The script is served as JavaScript.
func TestImportPageLoadsItsScript(t *testing.T) {
	env, u, b := webApp(t)
	acct := newAccount(t, env, u, "BPI Savings", 1000_00)
	form := b.Get(web.ImportPath + "?account=" + acct.ID)
	testkit.WantPage(t, "import form", form, http.StatusOK, `<script src="/static/import.js" defer></script>`,
		`<form method="post" action="/import" enctype="multipart/form-data" class="stack import-form"`)
	testkit.CheckScriptPageHeaders(t, form)
	// The form refused (no file) is the same page, with its script.
	refused := importUpload(t, b, testkit.CSRF(t, form), map[string]string{"target": "account:" + acct.ID}, "", "")
	if refused.Status != http.StatusBadRequest || !strings.Contains(string(refused.Body), `<script src="/static/import.js"`) || !strings.Contains(refused.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("the refused form lost its script: %d %s", refused.Status, refused.Header.Get("Content-Security-Policy"))
	}
	for _, path := range []string{web.SettingsPath, web.ImportsPath, web.AccountsPath + "/" + acct.ID} {
		page := b.Get(path)
		testkit.CheckPageHeaders(t, page) // app.js only, and no requests of its own
		if scripts := strings.Count(string(page.Body), "<script"); scripts != 1 || strings.Contains(string(page.Body), "import.js") {
			t.Errorf("%s runs %d scripts, want app.js alone", path, scripts)
		}
	}
	js := b.Get("/static/import.js")
	if js.Status != http.StatusOK || !strings.HasPrefix(js.Header.Get("Content-Type"), "text/javascript") ||
		!strings.Contains(string(js.Body), "Reading the file…") {
		t.Errorf("GET /static/import.js: %d %s", js.Status, js.Header.Get("Content-Type"))
	}
}
