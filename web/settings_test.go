package web_test

import (
	"bytes"
	"context"
	"errors"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/httperr"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// forged are the two ways a form token is missing or wrong; every settings
// form must refuse both with 403.
func forged(f url.Values) map[string]url.Values {
	without, wrong := url.Values{}, url.Values{"csrf": {"forged"}}
	for k, v := range f {
		if k != "csrf" {
			without[k], wrong[k] = v, v
		}
	}
	return map[string]url.Values{"no form token": without, "a wrong form token": wrong}
}

func TestWebSettingsNeedSignIn(t *testing.T) {
	env := newTestEnv(t)
	env.createUser(finance.PlanFree)
	b := env.browser(t)
	for _, path := range []string{web.SettingsPath, web.ProfilePath, web.PasswordPath, web.AppSettingsPath, web.CategoriesPath, web.BudgetsPath} {
		x := b.Get(path)
		testkit.WantRedirect(t, "GET "+path+" signed out", x, web.LoginPath+"?next="+url.QueryEscape(path))
	}
	const id = "0190f1a2-0000-7000-8000-000000000000"
	for _, path := range []string{web.ProfilePath + "/picture", web.ProfilePath + "/picture-url", web.ProfilePath + "/picture-remove", web.PasswordPath,
		web.AppSettingsPath, web.CategoriesPath, web.CategoriesPath + "/" + id, web.CategoriesPath + "/" + id + "/archive",
		web.CategoriesPath + "/" + id + "/unarchive", web.BudgetsPath} {
		x := b.Post(path, url.Values{"name": {"x"}})
		if x.Status != http.StatusSeeOther || !strings.HasPrefix(x.Header.Get("Location"), web.LoginPath) {
			t.Errorf("POST %s signed out: %d to %q", path, x.Status, x.Header.Get("Location"))
		}
	}
}

func TestSettingsHubAndNavigation(t *testing.T) {
	_, _, b := webApp(t)
	hub := b.Get(web.SettingsPath)
	testkit.WantPage(t, "hub", hub, http.StatusOK, `<h1>Settings</h1>`, `aria-current="page">Settings</a>`)
	testkit.CheckPageHeaders(t, hub)
	for _, path := range []string{web.ProfilePath, web.PasswordPath, web.AppSettingsPath, web.CategoriesPath, web.BudgetsPath, web.APIKeysPath,
		web.ConnectedAppPath, "/settings/messaging"} {
		if !hub.Contains(`href="` + path + `"`) {
			t.Errorf("the hub does not link %s", path)
		}
	}
	// One Settings link in the navigation, current on every settings page.
	nav := regexp.MustCompile(`(?s)<nav class="nav".*?</nav>`).FindString(string(hub.Body))
	for _, gone := range []string{">API keys<", ">Connected apps<", ">Messaging<"} {
		if strings.Contains(nav, gone) {
			t.Errorf("the navigation still has %s", gone)
		}
	}
	for _, path := range []string{web.ProfilePath, web.PasswordPath, web.AppSettingsPath, web.CategoriesPath, web.APIKeysPath, "/settings/messaging"} {
		x := b.Get(path)
		testkit.WantPage(t, path, x, http.StatusOK, `<a href="/settings" aria-current="page">Settings</a>`)
		testkit.CheckPageHeaders(t, x)
	}
	if home := b.Get(web.HomePath); home.Contains(`aria-current="page">Settings`) {
		t.Error("Settings is current on Home")
	}
}

// pagePictureForm is the profile page's multipart form: its token, then the file.
func pagePictureForm(t *testing.T, token string, data []byte) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if token != "" {
		if err := w.WriteField("csrf", token); err != nil {
			t.Fatal(err)
		}
	}
	part, err := w.CreateFormFile("file", "me.png")
	if err != nil {
		t.Fatal(err)
	}
	part.Write(data)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String(), w.FormDataContentType()
}

func TestProfilePage(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	account := func() finance.UserAccount {
		t.Helper()
		a, err := env.srv.Ledger().UserAccount(ctx, u.ID)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	uploads := func() []string {
		t.Helper()
		names, err := env.db.PictureNames(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	page := b.Get(web.ProfilePath)
	testkit.WantPage(t, "profile", page, http.StatusOK, "<h1>Profile</h1>", u.Email, "Test User", `enctype="multipart/form-data"`)
	if page.Contains(`<img class="avatar"`) || page.Contains("Remove picture") {
		t.Error("a picture is shown before there is one")
	}
	token := testkit.CSRF(t, page)

	// The name: refused over 100 characters, nothing changed; then saved.
	for name, f := range forged(url.Values{"name": {"Ana"}}) {
		if x := b.Post(web.ProfilePath, f); x.Status != http.StatusForbidden {
			t.Errorf("name with %s: %d", name, x.Status)
		}
	}
	long := strings.Repeat("é", 101)
	testkit.WantPage(t, "a long name", b.Post(web.ProfilePath, url.Values{"csrf": {token}, "name": {long}}), http.StatusBadRequest,
		`id="name-error">Name must be at most 100 characters<`, `value="`+long+`"`)
	if a := account(); a.Name != "Test User" {
		t.Fatalf("a refused name was saved: %q", a.Name)
	}
	testkit.WantRedirect(t, "name", b.Post(web.ProfilePath, url.Values{"csrf": {token}, "name": {"  Ana Reyes "}}), web.ProfilePath+"?notice=profile-saved")
	if a := account(); a.Name != "Ana Reyes" {
		t.Errorf("after saving the name: %q", a.Name)
	}
	testkit.WantPage(t, "profile with the new name", b.Get(web.ProfilePath+"?notice=profile-saved"), http.StatusOK,
		"<dd>Ana Reyes</dd>", `name="name" maxlength="100" value="Ana Reyes"`, "Your profile has been saved.")

	upload := func(token string, data []byte) testkit.Exchange {
		body, ct := pagePictureForm(t, token, data)
		return b.Send(http.MethodPost, web.ProfilePath+"/picture", body, ct)
	}

	// Refused: no token, a wrong one, a file that is not an image, one too large. Nothing is stored.
	for name, tok := range map[string]string{"no form token": "", "a wrong form token": "forged"} {
		if x := upload(tok, testkit.PNGBytes(100)); x.Status != http.StatusForbidden {
			t.Errorf("upload with %s: %d, want 403", name, x.Status)
		}
	}
	testkit.WantPage(t, "a GIF", upload(token, testkit.GIFBytes), http.StatusBadRequest,
		`id="file-error">File must be a PNG, JPEG or WebP image<`, "The picture was not changed.")
	testkit.WantPage(t, "too large", upload(token, testkit.PNGBytes(finance.MaxPictureBytes+1)), http.StatusBadRequest,
		`id="file-error">File must be at most 2 MiB (2097152 bytes)<`)
	if a := account(); a.File != nil || a.URL != nil || len(uploads()) != 0 {
		t.Fatalf("a refused upload changed the picture: %+v, files %v", a.ProfilePicture, uploads())
	}

	png := testkit.PNGBytes(2048)
	testkit.WantRedirect(t, "upload", upload(token, png), web.ProfilePath+"?notice=picture-changed")
	a := account()
	if a.File == nil || !strings.HasSuffix(*a.File, ".png") || len(uploads()) != 1 {
		t.Fatalf("after the upload: %+v, files %v", a.ProfilePicture, uploads())
	}
	src := web.ProfilePicturesPath + "/" + *a.File
	shown := b.Get(web.ProfilePath + "?notice=picture-changed")
	testkit.WantPage(t, "profile with a picture", shown, http.StatusOK, `<img class="avatar" src="`+src+`"`,
		"Your profile picture has been changed.", "Remove picture")
	if img := b.Get(src); img.Status != http.StatusOK || img.Header.Get("Content-Type") != "image/png" || !bytes.Equal(img.Body, png) {
		t.Errorf("the picture is not served at %s: %d %s", src, img.Status, img.Header.Get("Content-Type"))
	}

	// An https URL replaces the upload, whose file is deleted; an http one is refused next to the field.
	for name, f := range forged(url.Values{"url": {"https://example.com/me.png"}}) {
		if x := b.Post(web.ProfilePath+"/picture-url", f); x.Status != http.StatusForbidden {
			t.Errorf("picture URL with %s: %d", name, x.Status)
		}
	}
	testkit.WantPage(t, "an http URL", b.Post(web.ProfilePath+"/picture-url", url.Values{"csrf": {token}, "url": {"http://example.com/me.png"}}),
		http.StatusBadRequest, `id="url-error">URL must be an absolute https URL<`, `value="http://example.com/me.png"`)
	if got := account(); got.File == nil || *got.File != *a.File {
		t.Fatalf("a refused URL changed the picture: %+v", got.ProfilePicture)
	}
	testkit.WantRedirect(t, "an https URL", b.Post(web.ProfilePath+"/picture-url", url.Values{"csrf": {token}, "url": {"https://example.com/me.png"}}),
		web.ProfilePath+"?notice=picture-changed")
	if got := account(); got.File != nil || got.URL == nil || *got.URL != "https://example.com/me.png" || len(uploads()) != 0 {
		t.Fatalf("after the URL: %+v, files %v", got.ProfilePicture, uploads())
	}
	linked := b.Get(web.ProfilePath)
	testkit.WantPage(t, "profile with an external picture", linked, http.StatusOK, `href="https://example.com/me.png"`)
	if linked.Contains("<img class=\"avatar\"") {
		t.Error("an external picture is loaded by the page")
	}

	for name, f := range forged(nil) {
		if x := b.Post(web.ProfilePath+"/picture-remove", f); x.Status != http.StatusForbidden {
			t.Errorf("remove with %s: %d", name, x.Status)
		}
	}
	testkit.WantRedirect(t, "remove", b.Post(web.ProfilePath+"/picture-remove", url.Values{"csrf": {token}}), web.ProfilePath+"?notice=picture-changed")
	if got := account(); got.File != nil || got.URL != nil {
		t.Errorf("after removing: %+v", got.ProfilePicture)
	}
}

func TestPasswordPage(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	elsewhere := env.browser(t)
	elsewhere.SignIn(u)
	token := env.login(u)
	page := b.Get(web.PasswordPath)
	testkit.WantPage(t, "password", page, http.StatusOK, "<h1>Password</h1>", `autocomplete="current-password"`, "You stay signed in here")
	tok := testkit.CSRF(t, page)
	valid := func() url.Values {
		return url.Values{"csrf": {tok}, "current_password": {testkit.Password}, "new_password": {testkit.NewPassword},
			"new_password_confirm": {testkit.NewPassword}}
	}
	passwordIs := func(name, pw string) {
		t.Helper()
		if _, err := env.auth.Login(ctx, u.Email, pw); err != nil {
			t.Errorf("%s: the password is not %q: %v", name, pw, err)
		}
	}
	for name, f := range forged(valid()) {
		if x := b.Post(web.PasswordPath, f); x.Status != http.StatusForbidden {
			t.Errorf("change with %s: %d", name, x.Status)
		}
	}
	refused := []struct {
		name string
		edit func(url.Values)
		want string
	}{
		{"a wrong current password", func(f url.Values) { f.Set("current_password", "not my password") },
			`id="current_password-error">Current password is not your current password<`},
		{"no current password", func(f url.Values) { f.Set("current_password", "") }, `id="current_password-error">Current password is required<`},
		{"too short", func(f url.Values) { f.Set("new_password", "short"); f.Set("new_password_confirm", "short") },
			`id="new_password-error">New password must be 8 to 128 characters<`},
		{"the same as before", func(f url.Values) {
			f.Set("new_password", testkit.Password)
			f.Set("new_password_confirm", testkit.Password)
		},
			`id="new_password-error">New password must differ from the current password<`},
		{"a different confirmation", func(f url.Values) { f.Set("new_password_confirm", testkit.NewPassword+"x") },
			`id="new_password_confirm-error">This must repeat the new password<`},
	}
	for _, tc := range refused {
		f := valid()
		tc.edit(f)
		x := b.Post(web.PasswordPath, f)
		testkit.WantPage(t, tc.name, x, http.StatusBadRequest, tc.want, "The password was not changed.")
		if x.Contains(testkit.NewPassword) || x.Contains(testkit.Password) {
			t.Errorf("%s: a password is put back into the page", tc.name)
		}
		passwordIs(tc.name, testkit.Password)
	}

	testkit.WantRedirect(t, "change", b.Post(web.PasswordPath, valid()), web.PasswordPath+"?notice=password-changed")
	passwordIs("after the change", testkit.NewPassword)
	if _, err := env.auth.Login(ctx, u.Email, testkit.Password); !errors.Is(err, auth.ErrUnauthenticated) {
		t.Errorf("the old password still signs in: %v", err)
	}
	// This browser stays signed in; the other one and the old access token are signed out.
	testkit.WantPage(t, "after the change", b.Get(web.PasswordPath+"?notice=password-changed"), http.StatusOK, "Your password has been changed.")
	if x := elsewhere.Get(web.PasswordPath); x.Status != http.StatusSeeOther {
		t.Errorf("another browser is still signed in: %d", x.Status)
	}
	const stale = "The access token was issued before the password was changed; sign in again"
	x := env.api(t, http.MethodGet, "/api/v1/health", token, "")
	wantAPIError(t, "JWT from before the change", x, http.StatusUnauthorized, httperr.CodeUnauthorized, stale)
	if got := x.Header.Get("WWW-Authenticate"); got != testkit.InvalidTokenChallenge(stale) {
		t.Errorf("JWT from before the change: WWW-Authenticate = %q, want %q", got, testkit.InvalidTokenChallenge(stale))
	}
}

func TestAppSettingsPage(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	page := b.Get(web.AppSettingsPath)
	testkit.WantPage(t, "app settings", page, http.StatusOK, `<option value="PHP" selected>PHP · Philippine Peso</option>`,
		`<option value="Asia/Manila" selected>Manila</option>`,
		`<option value="DD MMM YYYY">DD MMM YYYY (15 Mar 2025)</option>`, `name="due_soon_days" value="7"`)
	tok := testkit.CSRF(t, page)
	valid := func() url.Values {
		return url.Values{"csrf": {tok}, "currency": {"usd"}, "timezone": {"America/New_York"}, "date_format": {"MM/DD/YYYY"},
			"week_start": {"sunday"}, "default_payment_method": {"Cash"}, "due_soon_days": {"10"}, "budget_warning_percent": {"75"}}
	}
	unchanged := func(name string) {
		t.Helper()
		if st, _ := env.srv.Ledger().AppSettings(ctx, u.ID); st != finance.DefaultAppSettings() {
			t.Errorf("%s changed the settings: %+v", name, st)
		}
	}
	for name, f := range forged(valid()) {
		if x := b.Post(web.AppSettingsPath, f); x.Status != http.StatusForbidden {
			t.Errorf("save with %s: %d", name, x.Status)
		}
	}
	refused := []struct {
		name, field, value, want string
	}{
		{"an unknown currency", "currency", "XYZ", `id="currency-error">Currency must be an ISO 4217 currency code, like PHP, USD or EUR<`},
		{"an unknown timezone", "timezone", "Mars/Olympus", `id="timezone-error">Timezone must be an IANA timezone name`},
		{"due soon out of range", "due_soon_days", "40", `id="due_soon_days-error">Due soon days must be an integer from 1 to 31<`},
		{"a warning that is not a number", "budget_warning_percent", "lots", `id="budget_warning_percent-error">Budget warning percent `},
		{"an unknown date format", "date_format", "YY.M.D", `id="date_format-error">Date format must be one of: YYYY-MM-DD`},
	}
	for _, tc := range refused {
		f := valid()
		f.Set(tc.field, tc.value)
		x := b.Post(web.AppSettingsPath, f)
		testkit.WantPage(t, tc.name, x, http.StatusBadRequest, tc.want, "Not saved.")
		if tc.field != "date_format" && !x.Contains(`value="`+tc.value+`"`) { // a select cannot hold a value it does not offer
			t.Errorf("%s: the form does not keep what was sent", tc.name)
		}
		unchanged(tc.name)
	}

	testkit.WantRedirect(t, "save", b.Post(web.AppSettingsPath, valid()), web.AppSettingsPath+"?notice=settings-saved")
	want := finance.AppSettings{Currency: "USD", Timezone: "America/New_York", DateFormat: "MM/DD/YYYY", WeekStart: "sunday",
		DefaultPaymentMethod: "Cash", BudgetWarningPercent: 75, DueSoonDays: 10}
	if st, _ := env.srv.Ledger().AppSettings(ctx, u.ID); st != want {
		t.Errorf("settings = %+v, want %+v", st, want)
	}
	// Empty fields are not sent: they keep their values.
	testkit.WantRedirect(t, "save with blanks", b.Post(web.AppSettingsPath, url.Values{"csrf": {tok}, "currency": {""}, "due_soon_days": {"3"}}),
		web.AppSettingsPath+"?notice=settings-saved")
	want.DueSoonDays = 3
	if st, _ := env.srv.Ledger().AppSettings(ctx, u.ID); st != want {
		t.Errorf("settings = %+v, want %+v", st, want)
	}
	// Home speaks the new currency and date format.
	if _, err := env.srv.Ledger().CreateExpense(ctx, u.ID, finance.ExpenseRequest{Amount: finance.Of(finance.Money(123456)),
		Date: finance.Of(finance.NewDate(2025, 3, 9)), Description: finance.Of("Shoes"), Category: finance.Of("Shopping"),
		PaymentMethod: finance.Of("Cash")}); err != nil {
		t.Fatal(err)
	}
	testkit.WantPage(t, "home", b.Get(web.HomePath+"?month=2025-03"), http.StatusOK, "$1,234.56", "03/09/2025")
}

// categoryNamed finds the user's category of kind by name, archived ones included.
func categoryNamed(t *testing.T, env *testEnv, u finance.User, kind finance.CategoryKind, name string) (finance.Category, bool) {
	t.Helper()
	list, err := env.srv.Ledger().ListCategories(context.Background(), u.ID, finance.CategoryFilter{Kind: kind, Status: finance.StatusAll},
		finance.ListParams{Page: 1, Limit: 1000, SortBy: "name"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list.Items {
		if c.Name == name {
			return c, true
		}
	}
	return finance.Category{}, false
}

func TestCategoriesPage(t *testing.T) {
	env, u, b := webApp(t)
	page := b.Get(web.CategoriesPath)
	testkit.WantPage(t, "categories", page, http.StatusOK, "Expense categories", "Income categories", "Salary",
		`Card Fees & Interest <span class="badge">System</span>`)
	fees, _ := categoryNamed(t, env, u, finance.KindExpense, finance.CategoryCardFees)
	if page.Contains(web.CategoriesPath + "/" + fees.ID + "/archive") {
		t.Error("a system category offers Archive")
	}
	tok := testkit.CSRF(t, page)
	count := func() int {
		t.Helper()
		list, err := env.srv.Ledger().ListCategories(context.Background(), u.ID, finance.CategoryFilter{Status: finance.StatusAll},
			finance.ListParams{Page: 1, Limit: 1000, SortBy: "name"})
		if err != nil {
			t.Fatal(err)
		}
		return list.Pagination.TotalItems
	}
	before := count()

	// Create: refusals first, nothing written.
	for name, f := range forged(url.Values{"name": {"Pets"}, "kind": {"expense"}}) {
		if x := b.Post(web.CategoriesPath, f); x.Status != http.StatusForbidden {
			t.Errorf("create with %s: %d", name, x.Status)
		}
	}
	for _, tc := range []struct {
		name string
		form url.Values
		want []string
	}{
		{"a duplicate name", url.Values{"name": {"groceries"}, "kind": {"expense"}},
			[]string{`id="new-name-error">Name is already used by another active expense category<`, `value="groceries"`}},
		{"no name and a bad color", url.Values{"name": {" "}, "kind": {"income"}, "color": {"red"}},
			[]string{`id="new-name-error">Name is required<`, `id="new-color-error">Color must be a color like #1A2B3C<`,
				`value="income" checked`}},
		{"no kind", url.Values{"name": {"Pets"}}, []string{`id="new-kind-error">Kind is required<`}},
	} {
		tc.form.Set("csrf", tok)
		testkit.WantPage(t, tc.name, b.Post(web.CategoriesPath, tc.form), http.StatusBadRequest, tc.want...)
		if n := count(); n != before {
			t.Fatalf("%s: %d categories, want %d", tc.name, n, before)
		}
	}
	testkit.WantRedirect(t, "create", b.Post(web.CategoriesPath, url.Values{"csrf": {tok}, "name": {"Pets"}, "kind": {"expense"}, "color": {"#AA5500"}}),
		web.CategoriesPath+"?notice=category-created")
	pets, ok := categoryNamed(t, env, u, finance.KindExpense, "Pets")
	if !ok || pets.Color == nil || *pets.Color != "#AA5500" || pets.Status != finance.StatusActive {
		t.Fatalf("Pets = %+v", pets)
	}
	testkit.WantPage(t, "list with Pets", b.Get(web.CategoriesPath), http.StatusOK, `fill="#AA5500"`, "Pets")

	// Rename and recolor; the API's rules refuse renaming a system category and a duplicate name.
	edit := web.CategoriesPath + "/" + pets.ID
	for name, f := range forged(url.Values{"name": {"Pet care"}}) {
		if x := b.Post(edit, f); x.Status != http.StatusForbidden {
			t.Errorf("edit with %s: %d", name, x.Status)
		}
	}
	x := b.Post(edit, url.Values{"csrf": {tok}, "name": {"Groceries"}, "color": {"#AA5500"}})
	testkit.WantPage(t, "rename to a used name", x, http.StatusBadRequest,
		`id="cat-`+pets.ID+`-name-error">Name is already used by another active expense category<`, `value="Groceries"`)
	x = b.Post(web.CategoriesPath+"/"+fees.ID, url.Values{"csrf": {tok}, "name": {"Fees"}})
	testkit.WantPage(t, "rename a system category", x, http.StatusBadRequest, "System categories cannot be renamed; their color and icon can change")
	if got, _ := categoryNamed(t, env, u, finance.KindExpense, finance.CategoryCardFees); got.Name != finance.CategoryCardFees {
		t.Errorf("the system category was renamed: %+v", got)
	}
	testkit.WantRedirect(t, "recolor a system category", b.Post(web.CategoriesPath+"/"+fees.ID,
		url.Values{"csrf": {tok}, "name": {finance.CategoryCardFees}, "color": {"#112233"}}), web.CategoriesPath+"?notice=category-saved")
	testkit.WantRedirect(t, "rename", b.Post(edit, url.Values{"csrf": {tok}, "name": {"Pet care"}, "color": {"#00AA55"}}),
		web.CategoriesPath+"?notice=category-saved")
	if got, _ := env.srv.Ledger().GetCategory(context.Background(), u.ID, pets.ID); got.Name != "Pet care" || *got.Color != "#00AA55" {
		t.Errorf("after the edit: %+v", got)
	}
	testkit.WantPage(t, "an unknown category", b.Post(web.CategoriesPath+"/0190f1a2-0000-7000-8000-000000000000", url.Values{"csrf": {tok}, "name": {"X"}}),
		http.StatusNotFound)

	// Archive, then unarchive; a system category cannot be archived.
	for name, f := range forged(nil) {
		if x := b.Post(edit+"/archive", f); x.Status != http.StatusForbidden {
			t.Errorf("archive with %s: %d", name, x.Status)
		}
	}
	testkit.WantPage(t, "archive a system category", b.Post(web.CategoriesPath+"/"+fees.ID+"/archive", url.Values{"csrf": {tok}}),
		http.StatusBadRequest, "System categories cannot be archived")
	testkit.WantRedirect(t, "archive", b.Post(edit+"/archive", url.Values{"csrf": {tok}}), web.CategoriesPath+"?notice=category-archived")
	if got, _ := env.srv.Ledger().GetCategory(context.Background(), u.ID, pets.ID); got.Status != finance.StatusArchived {
		t.Errorf("after archiving: %+v", got)
	}
	listed := b.Get(web.CategoriesPath + "?notice=category-archived")
	testkit.WantPage(t, "list with an archived category", listed, http.StatusOK, `Pet care <span class="badge status-skipped">Archived</span>`,
		`action="`+edit+`/unarchive"`, "The category has been archived.")
	if rec := b.Get(web.RecordPath); rec.Contains("Pet care") {
		t.Error("an archived category is offered on Record")
	}
	testkit.WantPage(t, "archive twice", b.Post(edit+"/archive", url.Values{"csrf": {tok}}), http.StatusBadRequest, "Category is already archived")

	// A new active category took the name meanwhile: unarchiving is refused.
	testkit.WantRedirect(t, "create the same name", b.Post(web.CategoriesPath, url.Values{"csrf": {tok}, "name": {"pet care"}, "kind": {"expense"}}),
		web.CategoriesPath+"?notice=category-created")
	testkit.WantPage(t, "unarchive onto a used name", b.Post(edit+"/unarchive", url.Values{"csrf": {tok}}), http.StatusBadRequest,
		"is already used by another active expense category")
	if got, _ := env.srv.Ledger().GetCategory(context.Background(), u.ID, pets.ID); got.Status != finance.StatusArchived {
		t.Errorf("a refused unarchive changed it: %+v", got)
	}
	clash, _ := categoryNamed(t, env, u, finance.KindExpense, "pet care")
	testkit.WantRedirect(t, "archive the other", b.Post(web.CategoriesPath+"/"+clash.ID+"/archive", url.Values{"csrf": {tok}}),
		web.CategoriesPath+"?notice=category-archived")
	testkit.WantRedirect(t, "unarchive", b.Post(edit+"/unarchive", url.Values{"csrf": {tok}}), web.CategoriesPath+"?notice=category-unarchived")
	if got, _ := env.srv.Ledger().GetCategory(context.Background(), u.ID, pets.ID); got.Status != finance.StatusActive || got.ArchivedAt != nil {
		t.Errorf("after unarchiving: %+v", got)
	}
	testkit.WantPage(t, "unarchive an active one", b.Post(edit+"/unarchive", url.Values{"csrf": {tok}}), http.StatusBadRequest, "Category is not archived")
	if rec := b.Get(web.RecordPath); !rec.Contains(`<option value="Pet care">`) {
		t.Error("the unarchived category is not offered on Record")
	}
}

// The reminders page saves the preferences as the REST route does, keeps
// what was sent when it refuses (naming the field, writing nothing), and
// lists the reminders claimed; Home shows the newest.
func TestRemindersPage(t *testing.T) {
	env, u, b := webApp(t)
	ctx := context.Background()
	page := b.Get(web.RemindersPath)
	testkit.WantPage(t, "reminders", page, http.StatusOK, `name="bill_days" value="3"`, `name="quiet_start" value="22:00"`,
		`<option value="monday" selected>`, "No Telegram chat is linked", "No reminders yet.")
	if page.Contains(`name="enabled" checked`) {
		t.Error("reminders are on before the person turned them on")
	}
	tok := testkit.CSRF(t, page)
	valid := func() url.Values {
		return url.Values{"csrf": {tok}, "enabled": {"on"}, "bill_days": {"5"}, "statement_days": {"0"}, "loan_days": {"2"},
			"digest_day": {"friday"}, "digest_hour": {"18"}, "quiet_start": {"23:00"}, "quiet_end": {"06:30"}}
	}
	for name, f := range forged(valid()) {
		if x := b.Post(web.RemindersPath, f); x.Status != http.StatusForbidden {
			t.Errorf("save with %s: %d", name, x.Status)
		}
	}
	refused := []struct{ name, field, value, want string }{
		{"days out of range", "bill_days", "40", `id="bill_days-error">Bills must be an integer from 0 to 31<`},
		{"one end of the quiet hours", "quiet_end", "", `id="quiet_end-error">Quiet hours end is required with the other end`},
		{"an empty quiet window", "quiet_end", "23:00", `id="quiet_start-error">Quiet hours start must differ from quiet_end<`},
	}
	for _, tc := range refused {
		f := valid()
		f.Set(tc.field, tc.value)
		testkit.WantPage(t, tc.name, b.Post(web.RemindersPath, f), http.StatusBadRequest, tc.want, "Not saved.")
		if st, _ := env.srv.Ledger().ReminderSettings(ctx, u.ID); st.Enabled || st.BillDays != 3 {
			t.Errorf("%s changed the preferences: %+v", tc.name, st)
		}
	}
	testkit.WantRedirect(t, "save", b.Post(web.RemindersPath, valid()), web.RemindersPath+"?notice=settings-saved")
	st, err := env.srv.Ledger().ReminderSettings(ctx, u.ID)
	if err != nil || !st.Enabled || st.BudgetThreshold || st.BillDays != 5 || st.StatementDays != 0 || st.LoanDays != 2 ||
		st.DigestDay != "friday" || st.DigestHour != 18 || *st.QuietStart != "23:00" || *st.QuietEnd != "06:30" {
		t.Errorf("saved %+v, %v", st, err)
	}
	// Both quiet times emptied: no quiet hours.
	f := valid()
	f.Set("quiet_start", "")
	f.Set("quiet_end", "")
	testkit.WantRedirect(t, "no quiet hours", b.Post(web.RemindersPath, f), web.RemindersPath+"?notice=settings-saved")
	if st, _ := env.srv.Ledger().ReminderSettings(ctx, u.ID); st.QuietStart != nil || st.QuietEnd != nil {
		t.Errorf("quiet hours %v–%v, want none", st.QuietStart, st.QuietEnd)
	}

	// A reminder claimed (a digest: the last Friday's at 18:00 has come) is
	// listed on the page and on Home.
	if n, err := env.srv.Ledger().RunReminders(ctx, homeOnlySender{}); err != nil || n != 1 {
		t.Fatalf("pass claimed %d, %v; want the digest", n, err)
	}
	testkit.WantPage(t, "reminders after a pass", b.Get(web.RemindersPath), http.StatusOK, "Week digest: spent ", "shown here only")
	testkit.WantPage(t, "home", b.Get("/"), http.StatusOK, `id="reminders-heading"`, "Week digest: spent ")
}

// homeOnlySender stands in for a server without a bot.
type homeOnlySender struct{}

func (homeOnlySender) SendReminder(context.Context, string, string) (bool, error) { return false, nil }
