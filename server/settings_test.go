package server

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

const (
	appURL        = "/api/v1/user-settings/app"
	thresholdsURL = "/api/v1/user-settings/budget-thresholds"
	accountURL    = "/api/v1/user-settings/account"
	pictureURL    = "/api/v1/user-settings/account/profile-picture"
	passwordURL   = "/api/v1/user-settings/account/password"
)

// settingsState is everything of one user that a settings route may
// change, read straight from the database, and the uploads on disk.
type settingsState struct {
	App        finance.AppSettings
	Account    finance.UserAccount
	Thresholds []finance.BudgetLimit
	Epoch      int64
	Hash       string
	Uploads    []string
}

func snapshotSettings(t testing.TB, env *testEnv, userID string) settingsState {
	t.Helper()
	ctx := context.Background()
	repo := env.db.Read()
	var st settingsState
	var err error
	if st.App, err = repo.AppSettings(ctx, userID); err != nil {
		t.Fatal(err)
	}
	if st.Account, err = repo.UserAccount(ctx, userID); err != nil {
		t.Fatal(err)
	}
	if st.Thresholds, err = repo.BudgetThresholds(ctx, userID); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(st.Thresholds, func(a, b finance.BudgetLimit) int { return strings.Compare(a.CategoryID, b.CategoryID) })
	cred, err := env.db.Credentials(ctx, userID)
	if err != nil {
		t.Fatal(err)
	}
	st.Epoch, st.Hash = cred.Epoch, cred.PasswordHash
	st.Uploads = env.uploads(t)
	return st
}

// uploads lists the stored profile pictures (of every user).
func (e *testEnv) uploads(t testing.TB) []string {
	t.Helper()
	names, err := e.db.PictureNames(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func runRejectedSettings(t *testing.T, env *testEnv, users []ledgerUser, scenarios []apiScenario) {
	t.Helper()
	runUnchanged(t, env, users, snapshotSettings, scenarios)
}

func TestAppSettings(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	reader := env.createKey(alice.user.ID, auth.ScopeRead)
	defaults := finance.AppSettings{Currency: "PHP", Timezone: "Asia/Manila", DateFormat: "YYYY-MM-DD", WeekStart: "monday",
		DefaultPaymentMethod: "Cash", BudgetWarningPercent: 80, DueSoonDays: 7}
	apiScenario{method: http.MethodGet, url: appURL, headers: bearer(reader), wantStatus: http.StatusOK,
		wantMessage: "App settings retrieved", wantData: defaults}.run(t, env)

	changed := defaults
	changed.Currency, changed.Timezone, changed.WeekStart, changed.DueSoonDays = "USD", "America/New_York", "sunday", 10
	alice.sc(apiScenario{method: http.MethodPut, url: appURL,
		// A code in any case is stored in capitals.
		body:       `{"currency":"usd","timezone":"America/New_York","week_start":"sunday","due_soon_days":"10","unknown":1}`,
		wantStatus: http.StatusOK, wantMessage: "App settings updated", wantData: changed}).run(t, env)
	if got := snapshotSettings(t, env, alice.user.ID).App; got != changed {
		t.Errorf("stored %+v, want %+v", got, changed)
	}
	// A partial update keeps the rest; null puts a field back to its default.
	changed.Currency, changed.DateFormat, changed.DefaultPaymentMethod, changed.BudgetWarningPercent = "PHP", "DD MMM YYYY", "Credit Card", 1
	alice.sc(apiScenario{method: http.MethodPut, url: appURL,
		body:       `{"currency":null,"date_format":"DD MMM YYYY","default_payment_method":"Credit Card","budget_warning_percent":1}`,
		wantStatus: http.StatusOK, wantData: changed}).run(t, env)
	apiScenario{method: http.MethodGet, url: appURL, headers: bearer(reader), wantStatus: http.StatusOK, wantData: changed}.run(t, env)
	bob.sc(apiScenario{method: http.MethodGet, url: appURL, wantStatus: http.StatusOK, wantData: defaults}).run(t, env)

	runRejectedSettings(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "every field wrong at once", method: http.MethodPut, url: appURL,
			body: `{"currency":"XYZ","timezone":"Mars/Olympus_Mons","date_format":"YYYY/MM/DD","week_start":"Monday",` +
				`"default_payment_method":"cash","budget_warning_percent":0,"due_soon_days":32}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf(
				"currency", "must be an ISO 4217 currency code, like PHP, USD or EUR",
				"timezone", "must be an IANA timezone name, like Asia/Manila or America/New_York",
				"date_format", "must be one of: YYYY-MM-DD, MM/DD/YYYY, DD/MM/YYYY, DD MMM YYYY",
				"week_start", "must be monday or sunday",
				"default_payment_method", "must be one of: Cash, Account Debit, Credit Card",
				"budget_warning_percent", "must be an integer from 1 to 100",
				"due_soon_days", "must be an integer from 1 to 31")}),
		alice.sc(apiScenario{name: "one bad field rejects the good ones", method: http.MethodPut, url: appURL,
			body:       `{"currency":"EUR","timezone":"Local"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("timezone", "must be an IANA timezone name, like Asia/Manila or America/New_York")}),
		alice.sc(apiScenario{name: "a path is not a timezone", method: http.MethodPut, url: appURL, body: `{"timezone":"../../etc/passwd"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("timezone", "must be an IANA timezone name, like Asia/Manila or America/New_York")}),
		alice.sc(apiScenario{name: "wrong types", method: http.MethodPut, url: appURL, body: `{"currency":1,"due_soon_days":"x"}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("currency", "must be a string", "due_soon_days", "must be an integer")}),
		{name: "a read key cannot write", method: http.MethodPut, url: appURL, headers: bearer(reader), body: `{"currency":"EUR"}`,
			wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		alice.sc(apiScenario{name: "query parameters are refused", method: http.MethodGet, url: appURL + "?currency=EUR",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("currency", "is not a query parameter of this route, which takes none")}),
	})
}

// The settings are real: the timezone decides today (here the default month
// of the expense summary and of the budget thresholds), the currency labels
// summaries, the payment method is the form's default and due_soon_days is
// the window of the statement counts.
func TestAppSettingsDriveTheLedger(t *testing.T) {
	env, alice, bob := newSpendingEnv(t)
	// 20:00 UTC on March 31 is already April 1 in Manila.
	env.srv.Ledger().SetClock(func() time.Time { return time.Date(2025, 3, 31, 20, 0, 0, 0, time.UTC) })
	summary := func(u ledgerUser) finance.ExpenseSummary {
		return send[finance.ExpenseSummary](t, u, http.MethodGet, "/api/v1/expenses/summary", "", http.StatusOK)
	}
	if s := summary(alice); s.DateFrom.String() != "2025-04-01" || s.DateTo.String() != "2025-04-30" || s.Currency != "PHP" {
		t.Fatalf("before: summary of %s..%s in %s, want April in PHP", s.DateFrom, s.DateTo, s.Currency)
	}
	alice.do(t, http.MethodPut, appURL, `{"timezone":"UTC","currency":"USD","default_payment_method":"Account Debit"}`, http.StatusOK)
	if s := summary(alice); s.DateFrom.String() != "2025-03-01" || s.DateTo.String() != "2025-03-31" || s.Currency != "USD" {
		t.Errorf("after: summary of %s..%s in %s, want March in USD", s.DateFrom, s.DateTo, s.Currency)
	}
	if p := send[finance.BudgetThresholdPage](t, alice, http.MethodGet, thresholdsURL, "", http.StatusOK); p.Month != "2025-03" || p.Currency != "USD" {
		t.Errorf("thresholds of %s in %s, want 2025-03 in USD", p.Month, p.Currency)
	}
	if o := send[finance.ExpenseFormOptions](t, alice, http.MethodGet, "/api/v1/expenses/form-options", "", http.StatusOK); o.DefaultPaymentMethod != "Account Debit" {
		t.Errorf("form default %q, want Account Debit", o.DefaultPaymentMethod)
	}
	// Bob's today has not moved.
	if s := summary(bob); s.DateFrom.String() != "2025-04-01" || s.Currency != "PHP" {
		t.Errorf("bob: summary from %s in %s", s.DateFrom, s.Currency)
	}
	if o := send[finance.ExpenseFormOptions](t, bob, http.MethodGet, "/api/v1/expenses/form-options", "", http.StatusOK); o.DefaultPaymentMethod != "Cash" {
		t.Errorf("bob's form default %q", o.DefaultPaymentMethod)
	}

	// due_soon_days: a statement due on April 10 is due soon on April 5 within 5 days, not within 4.
	setToday(env, "2025-03-01")
	card := bob.createCard(t, `{"name":"A","credit_limit":100000,"statement_day":1,"due_day":10}`)
	bob.purchase(t, card.ID, "10.00", "2025-03-15")
	setToday(env, "2025-04-05")
	dueSoon := func() int {
		return send[finance.SOACounts](t, bob, http.MethodGet, "/api/v1/credit-cards/soa/counts", "", http.StatusOK).DueSoon
	}
	if n := dueSoon(); n != 1 {
		t.Fatalf("due soon with the default 7 days: %d, want 1", n)
	}
	bob.do(t, http.MethodPut, appURL, `{"due_soon_days":4}`, http.StatusOK)
	if n := dueSoon(); n != 0 {
		t.Errorf("due soon within 4 days: %d, want 0", n)
	}
	bob.do(t, http.MethodPut, appURL, `{"due_soon_days":5}`, http.StatusOK)
	if n := dueSoon(); n != 1 {
		t.Errorf("due soon within 5 days: %d, want 1", n)
	}
}

// thresholdItem is a BudgetThreshold without its category id, to write expectations by name.
type thresholdItem struct {
	Category                string
	Limit, Spent, Remaining string
	WarningPercent          int
	PercentUsed             string
	State                   string
}

func thresholdItems(p finance.BudgetThresholdPage) []thresholdItem {
	out := []thresholdItem{}
	for _, it := range p.Items {
		out = append(out, thresholdItem{Category: it.Category, Limit: it.MonthlyLimit.String(), Spent: it.Spent.String(),
			Remaining: it.Remaining.String(), WarningPercent: it.WarningPercent, PercentUsed: it.PercentUsed.String(), State: it.State})
	}
	return out
}

func TestBudgetThresholds(t *testing.T) {
	env, alice, bob := newSpendingEnv(t) // today: 2025-03-11
	cash := func(u ledgerUser, amount, date, category string) finance.Expense {
		return u.createExpense(t, fmt.Sprintf(`{"amount":%q,"date":%q,"description":"x","category":%q,"payment_method":"Cash"}`, amount, date, category))
	}
	cash(alice, "500.00", "2025-03-05", "Groceries")
	split := cash(alice, "1000.00", "2025-03-06", "Food & Dining")
	alice.do(t, http.MethodPost, "/api/v1/expenses/"+split.ID+"/split",
		`{"parts":[{"amount":"300","category":"Groceries"},{"amount":"700","category":"Food & Dining"}]}`, http.StatusOK)
	voided := cash(alice, "999.00", "2025-03-07", "Groceries")
	alice.do(t, http.MethodDelete, "/api/v1/expenses/"+voided.ID, "", http.StatusOK)
	cash(alice, "400.00", "2025-02-20", "Groceries")
	cash(alice, "2.00", "2025-03-01", "Transportation")
	cash(alice, "77.00", "2025-04-01", "Groceries") // next month
	card := alice.createCard(t, visaBody)
	row := func(typ, amount, date, category string) {
		cat := ""
		if category != "" {
			cat = fmt.Sprintf(`,"category":%q`, category)
		}
		alice.createCardRow(t, fmt.Sprintf(`{"credit_card_id":%q,"type":%q,"amount":%q,"date":%q,"description":"x"%s}`, card.ID, typ, amount, date, cat))
	}
	row("fee", "50.00", "2025-03-08", "")
	row("interest", "25.00", "2025-03-09", "")
	row("refund", "100.00", "2025-03-10", "Groceries")
	// 1,200.00 over 3 months at 1% add-on: 12.00 interest per row, the first dated today.
	p := alice.purchase(t, card.ID, "1200.00", "2025-03-11")
	alice.convert(t, p.ID, `{"months":3,"interest_type":"add_on","interest_rate":1}`)
	cash(bob, "5000.00", "2025-03-05", "Groceries")

	put := `{"thresholds":[{"category":"groceries","monthly_limit":"1000"},` +
		`{"category":"Food & Dining","monthly_limit":700,"warning_percent":90},` +
		`{"category":"Card Fees & Interest","monthly_limit":"50.00","warning_percent":"50"},` +
		`{"category":"Shopping","monthly_limit":1000},` +
		`{"category":"Transportation","monthly_limit":"3.00"},{"category":"Travel","monthly_limit":100}]}`
	res := alice.sc(apiScenario{method: http.MethodPut, url: thresholdsURL, body: put, wantStatus: http.StatusOK,
		wantMessage: "Budget thresholds replaced"}).run(t, env)
	var got finance.BudgetThresholdPage
	res.decodeData(t, &got)
	march := []thresholdItem{
		// 50.00 fee + 25.00 interest + 12.00 installment interest.
		{"Card Fees & Interest", "50.00", "87.00", "-37.00", 50, "174.00", finance.BudgetExceeded},
		// 700.00 of the split; exactly the limit is a warning.
		{"Food & Dining", "700.00", "700.00", "0.00", 90, "100.00", finance.BudgetWarning},
		// 500.00 + 300.00 of the split - 100.00 refunded; not the voided expense, nor February's or April's.
		{"Groceries", "1000.00", "700.00", "300.00", 80, "70.00", finance.BudgetOK},
		// The converted purchase keeps counting through its expense.
		{"Shopping", "1000.00", "1200.00", "-200.00", 80, "120.00", finance.BudgetExceeded},
		// 2.00 / 3.00 = 66.666...% rounds half-up to 66.67.
		{"Transportation", "3.00", "2.00", "1.00", 80, "66.67", finance.BudgetOK},
		{"Travel", "100.00", "0.00", "100.00", 80, "0.00", finance.BudgetOK},
	}
	if diff := cmp.Diff(march, thresholdItems(got)); diff != "" {
		t.Errorf("PUT reply (-want +got):\n%s", diff)
	}
	if got.Month != "2025-03" || got.Currency != "PHP" || got.Pagination != (finance.Pagination{Page: 1, Limit: 100, TotalItems: 6, TotalPages: 1}) {
		t.Errorf("PUT reply month %s, currency %s, pagination %+v", got.Month, got.Currency, got.Pagination)
	}
	if raw := rawField(t, res, "items"); !strings.Contains(raw, `"percent_used":174.00`) || !strings.Contains(raw, `"remaining":-37.00`) {
		t.Errorf("amounts are not written with 2 decimals: %s", raw)
	}
	if n := len(snapshotSettings(t, env, alice.user.ID).Thresholds); n != 6 {
		t.Errorf("stored thresholds: %d, want 6", n)
	}

	// GET: the current month by default, paged and sorted by name.
	get := func(u ledgerUser, query string) finance.BudgetThresholdPage {
		return send[finance.BudgetThresholdPage](t, u, http.MethodGet, thresholdsURL+query, "", http.StatusOK)
	}
	if diff := cmp.Diff(got, get(alice, "?limit=100")); diff != "" {
		t.Errorf("GET differs from the PUT reply (-put +get):\n%s", diff)
	}
	second := get(alice, "?limit=2&page=2&sortOrder=desc&sortBy=category")
	if diff := cmp.Diff([]thresholdItem{march[3], march[2]}, thresholdItems(second)); diff != "" {
		t.Errorf("page 2 of 2, descending (-want +got):\n%s", diff)
	}
	if second.Pagination != (finance.Pagination{Page: 2, Limit: 2, TotalItems: 6, TotalPages: 3}) {
		t.Errorf("pagination %+v", second.Pagination)
	}
	feb := get(alice, "?month=2025-02")
	if feb.Month != "2025-02" || feb.Items[2].Category != "Groceries" || feb.Items[2].Spent != 400_00 || feb.Items[0].Spent != 0 {
		t.Errorf("February: %+v", thresholdItems(feb))
	}
	if b := get(bob, ""); len(b.Items) != 0 || b.Pagination.TotalItems != 0 {
		t.Errorf("bob sees thresholds: %+v", b)
	}

	// A warning percent of 70 turns 700.00 of 1,000.00 into a warning.
	got = send[finance.BudgetThresholdPage](t, alice, http.MethodPut, thresholdsURL,
		`{"thresholds":[{"category":"Groceries","monthly_limit":1000,"warning_percent":70}]}`, http.StatusOK)
	if diff := cmp.Diff([]thresholdItem{{"Groceries", "1000.00", "700.00", "300.00", 70, "70.00", finance.BudgetWarning}}, thresholdItems(got)); diff != "" {
		t.Errorf("replaced set (-want +got):\n%s", diff)
	}
	// The default warning percent follows the app setting.
	alice.do(t, http.MethodPut, appURL, `{"budget_warning_percent":65}`, http.StatusOK)
	got = send[finance.BudgetThresholdPage](t, alice, http.MethodPut, thresholdsURL,
		`{"thresholds":[{"category":"Groceries","monthly_limit":1000},{"category":"Travel","monthly_limit":5}]}`, http.StatusOK)
	if len(got.Items) != 2 || got.Items[0].WarningPercent != 65 || got.Items[0].State != finance.BudgetWarning {
		t.Errorf("with the 65%% default: %+v", thresholdItems(got))
	}

	// Archiving a category removes its threshold.
	alice.do(t, http.MethodDelete, "/api/v1/categories/"+categoryID(t, alice, "Travel"), "", http.StatusOK)
	if got := get(alice, ""); len(got.Items) != 1 || got.Items[0].Category != "Groceries" {
		t.Errorf("after archiving Travel: %+v", thresholdItems(got))
	}

	many := make([]string, 101)
	for i := range many {
		many[i] = `{"category":"Groceries","monthly_limit":1}`
	}
	runRejectedSettings(t, env, []ledgerUser{alice, bob}, []apiScenario{
		alice.sc(apiScenario{name: "bad entries", method: http.MethodPut, url: thresholdsURL,
			body: `{"thresholds":[{"category":"Salary","monthly_limit":1},{"category":"Travel","monthly_limit":1},` +
				`{"category":"Nope","monthly_limit":1},{"category":"Groceries","monthly_limit":0,"warning_percent":101},` +
				`{"category":" GROCERIES ","monthly_limit":"1.005"},{"monthly_limit":1,"warning_percent":0},{"category":"Shopping"}]}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf(
				"thresholds[0].category", problemCategory,
				"thresholds[1].category", problemCategory, // archived
				"thresholds[2].category", problemCategory,
				"thresholds[3].monthly_limit", problemPositive,
				"thresholds[3].warning_percent", "must be an integer from 1 to 100",
				"thresholds[4].category", "names the same category as thresholds[3]; name each category once",
				"thresholds[4].monthly_limit", problemMoney,
				"thresholds[5].category", problemRequired,
				"thresholds[5].warning_percent", "must be an integer from 1 to 100",
				"thresholds[6].monthly_limit", problemRequired)}),
		alice.sc(apiScenario{name: "no thresholds member", method: http.MethodPut, url: thresholdsURL, body: `{}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("thresholds", "is required: send the whole list of thresholds, or [] to remove them all")}),
		alice.sc(apiScenario{name: "not a list", method: http.MethodPut, url: thresholdsURL, body: `{"thresholds":{}}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("thresholds", "must be an array")}),
		alice.sc(apiScenario{name: "101 entries", method: http.MethodPut, url: thresholdsURL, body: `{"thresholds":[` + strings.Join(many, ",") + `]}`,
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("thresholds", "must have at most 100 entries")}),
		alice.sc(apiScenario{name: "month not YYYY-MM", method: http.MethodGet, url: thresholdsURL + "?month=2025-3",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation}),
		alice.sc(apiScenario{name: "unknown sort", method: http.MethodGet, url: thresholdsURL + "?sortBy=spent",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation, wantFields: fieldsOf("sortBy", "must be one of: category")}),
		alice.sc(apiScenario{name: "unknown parameter", method: http.MethodGet, url: thresholdsURL + "?dateFrom=2025-03-01",
			wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("dateFrom", "is not a query parameter of this route; it takes: page, limit, sortBy, sortOrder, month")}),
		{name: "a read key cannot replace", method: http.MethodPut, url: thresholdsURL, body: `{"thresholds":[]}`,
			headers: bearer(env.createKey(alice.user.ID, auth.ScopeRead)), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
	})

	// [] clears the set.
	got = send[finance.BudgetThresholdPage](t, alice, http.MethodPut, thresholdsURL, `{"thresholds":[]}`, http.StatusOK)
	if len(got.Items) != 0 || got.Pagination.TotalItems != 0 || len(snapshotSettings(t, env, alice.user.ID).Thresholds) != 0 {
		t.Errorf("after []: %+v", got)
	}
}

// pictureForm is a multipart body with one file part.
func pictureForm(t testing.TB, field, filename string, data []byte) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	part, err := w.CreateFormFile(field, filename)
	if err != nil {
		t.Fatal(err)
	}
	part.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), w.FormDataContentType()
}

func TestProfilePicture(t *testing.T) {
	env := newTestEnv(t)
	alice, bob := env.createUser(finance.PlanPro), env.createUser(finance.PlanPro)
	token := env.login(alice)
	allKey := env.createKey(alice.ID, auth.ScopeAll)
	settingsKey := env.createKey(alice.ID, auth.ScopeSettingsWrite, auth.ScopeRead)
	users := []ledgerUser{{env: env, user: alice}, {env: env, user: bob}}
	upload := func(cred string, data []byte, filename string) finance.UserAccount {
		t.Helper()
		body, ct := pictureForm(t, "file", filename, data)
		var a finance.UserAccount
		apiScenario{method: http.MethodPut, url: pictureURL, body: body,
			headers:    map[string]string{"Authorization": "Bearer " + cred, "Content-Type": ct},
			wantStatus: http.StatusOK, wantMessage: "Profile picture updated"}.run(t, env).decodeData(t, &a)
		return a
	}
	served := func(url string) apiResult {
		t.Helper()
		return apiScenario{method: http.MethodGet, url: strings.TrimPrefix(url, testkit.BaseURL)}.run(t, env)
	}
	missing := func(url string) {
		t.Helper()
		apiScenario{method: http.MethodGet, url: url, wantStatus: http.StatusNotFound}.run(t, env)
	}
	prefix := testkit.BaseURL + web.ProfilePicturesPath + "/"

	account := apiScenario{method: http.MethodGet, url: accountURL, headers: bearer(settingsKey), wantStatus: http.StatusOK,
		wantMessage: "Account retrieved"}.run(t, env)
	if got := rawField(t, account, "profile_picture_url"); got != "null" {
		t.Errorf("no picture yet: %s", got)
	}
	var a finance.UserAccount
	account.decodeData(t, &a)
	if a.ID != alice.ID || a.Email != alice.Email || a.Plan != finance.PlanPro {
		t.Errorf("account %+v", a)
	}

	// Exactly 2 MiB is accepted, under any file name; the type is sniffed.
	png := testkit.PNGBytes(finance.MaxPictureBytes)
	a = upload(token, png, "me.gif")
	first := strings.TrimPrefix(*a.ProfilePictureURL, prefix)
	if !strings.HasPrefix(*a.ProfilePictureURL, prefix) || !pictureName.MatchString(first) || !strings.HasSuffix(first, ".png") {
		t.Fatalf("picture URL %q", *a.ProfilePictureURL)
	}
	if diff := cmp.Diff([]string{first}, env.uploads(t)); diff != "" {
		t.Fatalf("stored pictures (-want +got):\n%s", diff)
	}
	res := served(*a.ProfilePictureURL)
	if res.status != http.StatusOK || res.header.Get("Content-Type") != "image/png" ||
		res.header.Get("X-Content-Type-Options") != "nosniff" || !bytes.Equal(res.raw, png) {
		t.Errorf("serving the upload: %d %q %q, %d bytes", res.status, res.header.Get("Content-Type"),
			res.header.Get("X-Content-Type-Options"), len(res.raw))
	}
	// A person's picture is kept by their browser, never by a shared cache
	// (a proxy or CDN in front of the server) that would hand it on.
	if got := res.header.Get("Cache-Control"); got != "private, max-age=31536000, immutable" {
		t.Errorf("Cache-Control of a picture = %q, want private, max-age=31536000, immutable", got)
	}

	// A new upload (a key with all may do it too) replaces the file.
	a = upload(allKey, testkit.JPEGBytes, "me.png")
	second := strings.TrimPrefix(*a.ProfilePictureURL, prefix)
	if !strings.HasSuffix(second, ".jpg") || slices.Contains(env.uploads(t), first) {
		t.Errorf("after replacing: %s, uploads %v", second, env.uploads(t))
	}
	missing(web.ProfilePicturesPath + "/" + first)
	if res := served(*a.ProfilePictureURL); res.header.Get("Content-Type") != "image/jpeg" {
		t.Errorf("JPEG served as %q", res.header.Get("Content-Type"))
	}
	a = upload(token, testkit.WebPBytes, "me.webp")
	third := strings.TrimPrefix(*a.ProfilePictureURL, prefix)
	if !strings.HasSuffix(third, ".webp") || served(*a.ProfilePictureURL).header.Get("Content-Type") != "image/webp" {
		t.Errorf("WebP: %s", third)
	}
	if diff := cmp.Diff([]string{third}, env.uploads(t)); diff != "" {
		t.Errorf("stored pictures (-want +got):\n%s", diff)
	}

	// A URL replaces the upload, whose file goes; null removes the picture.
	res = apiScenario{method: http.MethodPut, url: pictureURL, headers: bearer(token), body: `{"url":" https://example.com/me.png?s=2 "}`,
		wantStatus: http.StatusOK}.run(t, env)
	if got := rawField(t, res, "profile_picture_url"); got != `"https://example.com/me.png?s=2"` {
		t.Errorf("url set to %s", got)
	}
	if len(env.uploads(t)) != 0 {
		t.Errorf("the replaced upload is still stored: %v", env.uploads(t))
	}
	if got := snapshotSettings(t, env, alice.ID).Account; got.URL == nil || *got.URL != "https://example.com/me.png?s=2" || got.File != nil {
		t.Errorf("stored picture %+v", got.ProfilePicture)
	}
	res = apiScenario{method: http.MethodPut, url: pictureURL, headers: bearer(token), body: `{"url":null}`, wantStatus: http.StatusOK}.run(t, env)
	if got := rawField(t, res, "profile_picture_url"); got != "null" {
		t.Errorf("after removing: %s", got)
	}
	upload(token, png[:100], "again.png")

	form := func(name, field, filename string, data []byte, cred string) apiScenario {
		body, ct := pictureForm(t, field, filename, data)
		return apiScenario{name: name, method: http.MethodPut, url: pictureURL, body: body,
			headers: map[string]string{"Authorization": "Bearer " + cred, "Content-Type": ct}}
	}
	bad := func(sc apiScenario, field, problem string) apiScenario {
		sc.wantStatus, sc.wantCode, sc.wantFields = http.StatusBadRequest, CodeValidation, fieldsOf(field, problem)
		return sc
	}
	const notImage = "must be a PNG, JPEG or WebP image"
	tooLarge := form("10 MiB: the file's field, not a 413", "file", "big.png", testkit.PNGBytes(10<<20), token)
	runRejectedSettings(t, env, users, []apiScenario{
		bad(form("one byte over 2 MiB", "file", "me.png", testkit.PNGBytes(finance.MaxPictureBytes+1), token), "file", "must be at most 2 MiB (2097152 bytes)"),
		bad(tooLarge, "file", "must be at most 2 MiB (2097152 bytes)"),
		bad(form("GIF bytes named .png", "file", "me.png", testkit.GIFBytes, token), "file", notImage),
		bad(form("HTML named .png", "file", "me.png", []byte("<html><script>alert(1)</script></html>"), token), "file", notImage),
		bad(form("empty file", "file", "me.png", nil, token), "file", notImage),
		bad(form("no file field", "picture", "me.png", png[:100], token), "file", "is required: send a PNG, JPEG or WebP image, or a url"),
		bad(apiScenario{name: "http URL", method: http.MethodPut, url: pictureURL, headers: bearer(token), body: `{"url":"http://example.com/a.png"}`},
			"url", "must be an absolute https URL"),
		bad(apiScenario{name: "relative URL", method: http.MethodPut, url: pictureURL, headers: bearer(token), body: `{"url":"/a.png"}`},
			"url", "must be an absolute https URL"),
		bad(apiScenario{name: "URL too long", method: http.MethodPut, url: pictureURL, headers: bearer(token),
			body: `{"url":"https://example.com/` + strings.Repeat("a", 2029) + `"}`}, "url", "must be at most 2048 characters"),
		bad(apiScenario{name: "no url", method: http.MethodPut, url: pictureURL, headers: bearer(token), body: `{}`},
			"url", "is required: send an https URL, null to remove the picture, or a multipart file"),
		{name: "settings:write does not cover the picture", method: http.MethodPut, url: pictureURL, headers: bearer(settingsKey),
			body: `{"url":null}`, wantStatus: http.StatusForbidden, wantCode: CodeForbidden,
			wantMessage: "This action requires signing in with your password or an API key with scope all"},
	})
	// The URL limit is exactly 2048 characters.
	apiScenario{method: http.MethodPut, url: pictureURL, headers: bearer(token),
		body: `{"url":"https://example.com/` + strings.Repeat("a", 2028) + `"}`, wantStatus: http.StatusOK}.run(t, env)

	for _, path := range []string{web.ProfilePicturesPath + "/", web.ProfilePicturesPath + "/" + finance.NewID() + ".png",
		web.ProfilePicturesPath + "/..%2F..%2Ffinance.db", web.ProfilePicturesPath + "/" + finance.NewID() + ".gif", "/media/x.png", "/media/"} {
		missing(path)
	}
}

func TestPasswordChange(t *testing.T) {
	env := newOAuthEnv(t)
	u, other := env.createUser(finance.PlanPro), env.createUser(finance.PlanPro)
	token, otherToken := env.login(u), env.login(other)
	elsewhere := env.login(u)
	key := env.createKey(u.ID, auth.ScopeAll)
	_, connected := env.connect(t, u, string(auth.ScopeRead))
	b := env.browser(t)
	b.SignIn(u)
	users := []ledgerUser{{env: env.testEnv, user: u}, {env: env.testEnv, user: other}}
	body := func(current, next string) string {
		return fmt.Sprintf(`{"current_password":%q,"new_password":%q}`, current, next)
	}

	runRejectedSettings(t, env.testEnv, users, []apiScenario{
		{name: "an API key, even with all", method: http.MethodPut, url: passwordURL, headers: bearer(key),
			body: body(testkit.Password, testkit.NewPassword), wantStatus: http.StatusForbidden, wantCode: CodeForbidden,
			wantMessage: "This action requires signing in with your password; API keys and OAuth tokens cannot perform it"},
		{name: "an OAuth token", method: http.MethodPut, url: passwordURL, headers: bearer(connected.AccessToken),
			body: body(testkit.Password, testkit.NewPassword), wantStatus: http.StatusForbidden, wantCode: CodeForbidden},
		{name: "wrong current password", method: http.MethodPut, url: passwordURL, headers: bearer(token),
			body: body("not it at all", testkit.NewPassword), wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("current_password", "is not your current password")},
		{name: "too short, and missing current", method: http.MethodPut, url: passwordURL, headers: bearer(token),
			body: `{"new_password":"short"}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("current_password", "is required", "new_password", "must be 8 to 128 characters")},
		{name: "too long", method: http.MethodPut, url: passwordURL, headers: bearer(token),
			body: body(testkit.Password, strings.Repeat("x", 129)), wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("new_password", "must be 8 to 128 characters")},
		{name: "the same password", method: http.MethodPut, url: passwordURL, headers: bearer(token),
			body: body(testkit.Password, testkit.Password), wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("new_password", "must differ from the current password")},
		{name: "not strings", method: http.MethodPut, url: passwordURL, headers: bearer(token),
			body: `{"current_password":1,"new_password":null}`, wantStatus: http.StatusBadRequest, wantCode: CodeValidation,
			wantFields: fieldsOf("current_password", "must be a string", "new_password", "is required")},
	})
	if !signedIn(t, b) {
		t.Fatal("a rejected change signed the browser out")
	}

	res := apiScenario{method: http.MethodPut, url: passwordURL, headers: bearer(token), body: body(testkit.Password, testkit.NewPassword),
		wantStatus: http.StatusOK, wantMessage: "Password changed; every other sign-in has ended"}.run(t, env.testEnv)
	var changed PasswordChanged
	res.decodeData(t, &changed)
	if !changed.Updated || changed.TokenType != "Bearer" || changed.ExpiresIn <= 0 {
		t.Errorf("reply %+v", changed)
	}
	if got := env.epoch(t, u.ID); got != 1 {
		t.Errorf("credential epoch %d, want 1", got)
	}
	if signedIn(t, b) || env.sessionStored(t, b) {
		t.Error("the browser is still signed in")
	}
	ok := func(name, cred string) apiScenario {
		return apiScenario{name: name, method: http.MethodGet, url: "/api/v1/health", headers: bearer(cred),
			wantStatus: http.StatusOK, wantData: healthOK}
	}
	runScenarios(t, env.testEnv, []apiScenario{
		staleToken("the caller's own token", token),
		staleToken("another token of the user", elsewhere),
		ok("the fresh token", changed.AccessToken),
		ok("an API key", key),
		ok("an OAuth connection", connected.AccessToken),
		ok("another user's token", otherToken),
		{name: "the old password", method: http.MethodPost, url: "/api/v1/auth/login",
			body:       fmt.Sprintf(`{"email":%q,"password":%q}`, u.Email, testkit.Password),
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized},
		{name: "the new password", method: http.MethodPost, url: "/api/v1/auth/login",
			body:       fmt.Sprintf(`{"email":%q,"password":%q}`, u.Email, testkit.NewPassword),
			wantStatus: http.StatusOK},
	})
}
