package web_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/ai"
	"github.com/finance-app/finance/ai/aitest"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/server"
	"github.com/finance-app/finance/web"
)

// imageWeight is what one photo weighs in the AI budget (five text parses).
const imageWeight = 5

// tesseractApp is the web app with OCR by tesseract, and an AI budget of
// two images an hour.
func tesseractApp(t *testing.T) (*testEnv, finance.User, *testkit.Browser) {
	t.Helper()
	aitest.RequireOCR(t)
	ocr, err := ai.FindOCR("", 0)
	if err != nil {
		t.Fatal(err)
	}
	return webApp(t, func(c *server.Config) {
		c.AI = ai.New(ai.Config{OCR: ocr})
		c.AIRateLimit = server.Rate{Count: 2 * imageWeight, Window: time.Hour, Burst: 2 * imageWeight}
	})
}

func TestRecordReceipt(t *testing.T) {
	env, u, b := tesseractApp(t)
	page := b.Get(web.RecordPath)
	testkit.WantPage(t, "record", page, http.StatusOK, `action="/record/receipt" enctype="multipart/form-data"`,
		`<input type="file" id="images" name="images" accept="image/png,image/jpeg,image/webp" multiple aria-describedby="images-hint">`,
		`<input type="text" id="note" name="note"`, "Read the receipt")
	if page.Contains("No engine on this server reads images") {
		t.Error("the page says no engine reads images, but tesseract does")
	}
	token := testkit.CSRF(t, page)
	receipt := aitest.ReceiptPNG(t, aitest.SampleReceipt)
	send := func(body, ct string) testkit.Exchange {
		t.Helper()
		return b.Send(http.MethodPost, web.RecordReceiptPath, body, ct)
	}
	nothingSaved := func(what string) {
		t.Helper()
		if n := len(expensesOf(t, env, u, "")); n != 0 {
			t.Fatalf("%s: %d expenses saved", what, n)
		}
	}

	// Forged: no token, a wrong one, or the token after the file. Each is
	// refused at its first part, before the file is read: a file that is
	// not an image is not reported.
	notImage := []byte("%PDF-1.7 not a receipt")
	for name, tok := range map[string]string{"no form token": "", "a wrong form token": "forged"} {
		if x := send(testkit.ReceiptForm(t, tok, "", notImage)); x.Status != http.StatusForbidden || x.Contains("must be a PNG") {
			t.Errorf("upload with %s: %d\n%s", name, x.Status, x.Body)
		}
	}
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, _ := w.CreateFormFile("images", "receipt.png")
	part.Write(notImage)
	w.WriteField("csrf", token)
	w.Close()
	if x := send(buf.String(), w.FormDataContentType()); x.Status != http.StatusForbidden || x.Contains("must be a PNG") {
		t.Errorf("token after the file: %d\n%s", x.Status, x.Body)
	}
	if x := b.Post(web.RecordReceiptPath, url.Values{"csrf": {token}}); x.Status != http.StatusForbidden {
		t.Errorf("a form that is not multipart: %d", x.Status)
	}

	// Refused beside the field, the note kept: not an image, no photo, a
	// long note. None of them spends the AI budget.
	testkit.WantPage(t, "not an image", send(testkit.ReceiptForm(t, token, "lunch out", receipt, notImage)), http.StatusBadRequest,
		`aria-invalid="true" aria-describedby="images-error">`,
		`id="images-error">Photo 2 must be a PNG, JPEG or WebP image.<`, `id="note" name="note" maxlength="255" value="lunch out"`,
		"Not read. Check the photo below.")
	testkit.WantPage(t, "no photo", send(testkit.ReceiptForm(t, token, "")), http.StatusBadRequest,
		`id="images-error">Choose a photo of a receipt: PNG, JPEG or WebP, up to 5 of at most 5 MiB each.<`)
	testkit.WantPage(t, "a long note", send(testkit.ReceiptForm(t, token, strings.Repeat("n", 256), receipt)), http.StatusBadRequest,
		`id="note-error">Note must be at most 255 characters<`, "Not read. Check the note below.")
	nothingSaved("refused uploads")

	// The receipt read by OCR: one draft for review, nothing saved.
	x := send(testkit.ReceiptForm(t, token, "team lunch", receipt))
	testkit.WantPage(t, "drafts of the receipt", x, http.StatusOK, "<h1>Check the drafts</h1>", "Read from your receipt",
		"Your note: team lunch", "1 draft by the receipt reader (OCR)",
		`<input type="hidden" name="receipt" value="true">`, `<input type="hidden" name="note" value="team lunch">`,
		`<input type="hidden" name="rows" value="1">`,
		`name="items[0].amount" inputmode="decimal" autocomplete="off" value="492.00"`,
		`name="items[0].description" maxlength="255" autocomplete="off" value="Jollibee Foods"`,
		`name="items[0].date" value="2025-11-08"`, `<option value="Food & Dining" selected>Food & Dining</option>`,
		`<option value="Cash" selected>Cash</option>`, "Save all", "Read another receipt",
		// The receipt shows no card or e-wallet: the method is the default, marked.
		`<label for="r0-method" class="cell guessed"><span class="sr-only">Paid with</span> <span class="badge guess">guessed</span>`,
		"The receipt did not show how it was paid, so it was filled in")
	if x.Contains(`<label for="r0-date" class="guessed">`) {
		t.Error("the receipt's printed date is marked as guessed")
	}
	nothingSaved("reading a receipt")

	// Save all writes what was reviewed (the date corrected), and the
	// list shows it.
	review := bulkForm(testkit.CSRF(t, x), map[string]string{"amount": "492.00", "date": "2025-11-09", "description": "Jollibee Foods",
		"category": "Food & Dining", "payment_method": "Cash"})
	review.Set("parsed", "true")
	review.Set("receipt", "true")
	review.Set("note", "team lunch")
	testkit.WantRedirect(t, "save all", b.Post(web.RecordBulkPath, review), web.ExpensesPath+"?notice=expenses-recorded")
	got := expensesOf(t, env, u, "")
	if len(got) != 1 || got[0].Amount != 49200 || got[0].Description != "Jollibee Foods" || *got[0].Category != "Food & Dining" ||
		got[0].Date != finance.NewDate(2025, 11, 9) || got[0].PaymentMethod != "Cash" {
		t.Fatalf("saved = %+v", got)
	}
	testkit.WantPage(t, "the list", b.Get(web.ExpensesPath+"?notice=expenses-recorded"), http.StatusOK, "Jollibee Foods", "1 expense")

	// A refused save keeps the receipt's review as it was.
	bad := bulkForm(testkit.CSRF(t, x), map[string]string{"amount": "-1", "date": "2025-11-09", "description": "Jollibee Foods",
		"category": "Food & Dining", "payment_method": "Cash"})
	bad.Set("parsed", "true")
	bad.Set("receipt", "true")
	bad.Set("note", "team lunch")
	testkit.WantPage(t, "a refused save", b.Post(web.RecordBulkPath, bad), http.StatusBadRequest, "Read from your receipt",
		"Your note: team lunch", `<input type="hidden" name="receipt" value="true">`, "Nothing saved. Check row 1 below.")
	if n := len(expensesOf(t, env, u, "")); n != 1 {
		t.Fatalf("%d expenses after a refused save, want 1", n)
	}

	// The budget (two images an hour; one spent) runs out: the Record
	// page again, saying when to try again, with the note kept.
	send(testkit.ReceiptForm(t, token, "", receipt))
	busy := send(testkit.ReceiptForm(t, token, "again", receipt))
	testkit.WantPage(t, "over the budget", busy, http.StatusTooManyRequests, "Not read. You have used up AI parsing for now",
		"try again in ", `value="again"`)
	if busy.Header.Get("Retry-After") == "" {
		t.Error("over the budget: no Retry-After")
	}
	if n := len(expensesOf(t, env, u, "")); n != 1 {
		t.Errorf("%d expenses after refused reads, want 1", n)
	}
}

// Without tesseract or a vision model, the Record page offers no receipt
// tool, and a photo sent from an older page is refused in the person's
// words: how to set an engine up is for the admin, not for this page.
func TestRecordReceiptWithoutEngine(t *testing.T) {
	env, u, b := webApp(t, func(c *server.Config) { c.AI = ai.New(ai.Config{}) })
	page := b.Get(web.RecordPath)
	testkit.WantPage(t, "record", page, http.StatusOK, `href="#type-it">Type it</a>`, "Type it")
	body, ct := testkit.ReceiptForm(t, testkit.CSRF(t, page), "", testkit.PNGStub)
	sent := b.Send(http.MethodPost, web.RecordReceiptPath, body, ct)
	testkit.WantPage(t, "a photo", sent, http.StatusBadRequest, "Not read. Reading receipts is not set up on this server.")
	for what, x := range map[string]testkit.Exchange{"record": page, "a photo": sent} {
		for _, unwanted := range []string{"Read a receipt", `id="receipt"`, `name="images"`, "tesseract", "--ai-", "engine"} {
			if x.Contains(unwanted) {
				t.Errorf("%s shows %q", what, unwanted)
			}
		}
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 {
		t.Errorf("%d expenses saved", n)
	}
}

func TestRecordReceiptNeedsSignIn(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	body, ct := testkit.ReceiptForm(t, "", "", testkit.PNGStub)
	x := env.browser(t).Send(http.MethodPost, web.RecordReceiptPath, body, ct)
	if x.Status != http.StatusSeeOther || !strings.HasPrefix(x.Header.Get("Location"), web.LoginPath) {
		t.Errorf("signed out: %d to %q", x.Status, x.Header.Get("Location"))
	}
	if n := len(expensesOf(t, env, u, "")); n != 0 {
		t.Errorf("%d expenses saved", n)
	}
}
