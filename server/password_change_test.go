package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
	"github.com/finance-app/finance/web"
)

// staleToken is the 401 of an access token from before a password change.
func staleToken(name, token string) apiScenario {
	return unauthorized(name, bearer(token), "The access token was issued before the password was changed; sign in again")
}

// signedIn reports whether the browser's session still opens the API keys page.
func signedIn(t *testing.T, b *testkit.Browser) bool {
	t.Helper()
	x := b.Get(web.APIKeysPath)
	switch {
	case x.Status == http.StatusOK:
		return true
	case x.Status == http.StatusSeeOther && x.Header.Get("Location") == web.LoginPath+"?next="+url.QueryEscape(web.APIKeysPath):
		return false
	}
	t.Fatalf("GET %s: %d to %q", web.APIKeysPath, x.Status, x.Header.Get("Location"))
	return false
}

// sessionStored reports whether the database still holds the session of the browser's cookie.
func (e *testEnv) sessionStored(t *testing.T, b *testkit.Browser) bool {
	t.Helper()
	c := b.Cookies["finance_session"]
	if c == nil {
		t.Fatal("the browser has no session cookie")
	}
	_, err := e.db.WebSession(context.Background(), auth.HashSecret(c.Value))
	if err != nil && !errors.Is(err, finance.ErrNotFound) {
		t.Fatal(err)
	}
	return err == nil
}

func (e *testEnv) epoch(t *testing.T, userID string) int64 {
	t.Helper()
	id, err := e.db.UserIdentity(context.Background(), userID)
	if err != nil {
		t.Fatal(err)
	}
	return id.Epoch
}

// TestPasswordChangeEndsSignIns changes a password the way the admin's
// finance users set-password does, then checks every credential through
// the real router: access tokens and browser sessions from before are
// refused, API keys and OAuth connections keep working, another user is
// untouched, and the new password signs in.
func TestPasswordChangeEndsSignIns(t *testing.T) {
	env := newOAuthEnv(t)
	ctx := context.Background()
	u := env.createUser(finance.PlanPro)
	other := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeAll)
	_, connected := env.connect(t, u, string(auth.ScopeRead))
	token := env.login(u)
	b := env.browser(t)
	b.SignIn(u)
	keysPage := b.Get(web.APIKeysPath)
	otherToken := env.login(other)
	ob := env.browser(t)
	ob.SignIn(other)

	ok := func(name, token string) apiScenario {
		return apiScenario{name: name, method: http.MethodGet, url: "/api/v1/health", headers: bearer(token),
			wantStatus: http.StatusOK, wantData: healthOK}
	}
	runScenarios(t, env.testEnv, []apiScenario{ok("JWT", token), ok("API key", key), ok("OAuth", connected.AccessToken)})
	if !signedIn(t, b) || env.epoch(t, u.ID) != 0 {
		t.Fatal("before the change: the browser is signed out or the epoch is not 0")
	}

	if err := env.auth.SetPassword(ctx, u.Email, testkit.NewPassword); err != nil {
		t.Fatal(err)
	}

	if got := env.epoch(t, u.ID); got != 1 {
		t.Errorf("credential epoch after the change = %d, want 1", got)
	}
	if env.sessionStored(t, b) {
		t.Error("the browser session is still in the database")
	}
	if signedIn(t, b) {
		t.Error("the browser is still signed in")
	}
	// The old session cannot mint a key any more.
	x := b.Post(web.APIKeysPath, url.Values{"csrf": {testkit.CSRF(t, keysPage)}, "name": {"after the change"}, "scopes": {"all"}, "expires_in": {"never"}})
	if x.Status != http.StatusSeeOther || x.Location(t).Path != web.LoginPath {
		t.Errorf("creating a key with the old session: %d to %q, want a redirect to sign in", x.Status, x.Header.Get("Location"))
	}
	if keys, err := env.auth.ListKeys(ctx, u.ID); err != nil || len(keys) != 1 {
		t.Errorf("keys after the refused create: %d, %v; want the 1 from before", len(keys), err)
	}

	runScenarios(t, env.testEnv, []apiScenario{
		staleToken("JWT from before the change", token),
		ok("API key", key),
		ok("OAuth connection", connected.AccessToken),
		ok("another user's JWT", otherToken),
		{
			name: "the old password", method: http.MethodPost, url: "/api/v1/auth/login",
			body:       fmt.Sprintf(`{"email":%q,"password":%q}`, u.Email, testkit.Password),
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized, wantMessage: "Invalid email or password",
		},
	})
	if !signedIn(t, ob) || !env.sessionStored(t, ob) {
		t.Error("another user's browser was signed out")
	}

	res := apiScenario{
		method: http.MethodPost, url: "/api/v1/auth/login",
		body:       fmt.Sprintf(`{"email":%q,"password":%q}`, u.Email, testkit.NewPassword),
		wantStatus: http.StatusOK, wantMessage: "Signed in",
	}.run(t, env.testEnv)
	var fresh LoginResponse
	res.decodeData(t, &fresh)
	ok("JWT from the new password", fresh.AccessToken).run(t, env.testEnv)
	if _, epoch, err := env.jwt.Verify(fresh.AccessToken); err != nil || epoch != 1 {
		t.Errorf("the new token carries epoch %d (%v), want 1", epoch, err)
	}
}

// TestPasswordChangeCanKeepTheCallersSession is the web settings case: the
// browser making the change stays signed in, every other sign-in ends.
func TestPasswordChangeCanKeepTheCallersSession(t *testing.T) {
	env := newOAuthEnv(t)
	ctx := context.Background()
	u := env.createUser(finance.PlanPro)
	token := env.login(u)
	caller, elsewhere := env.browser(t), env.browser(t)
	caller.SignIn(u)
	elsewhere.SignIn(u)

	who, err := env.auth.ChangePassword(ctx, u.ID, testkit.NewPassword, caller.Cookies["finance_session"].Value)
	if err != nil {
		t.Fatal(err)
	}
	if who.ID != u.ID || who.Epoch != 1 {
		t.Errorf("ChangePassword = %+v, want user %s at epoch 1", who, u.ID)
	}
	if !env.sessionStored(t, caller) || !signedIn(t, caller) {
		t.Error("the caller's own session ended")
	}
	if env.sessionStored(t, elsewhere) || signedIn(t, elsewhere) {
		t.Error("another browser is still signed in")
	}
	staleToken("JWT from before the change", token).run(t, env.testEnv)

	// A token issued from the returned Identity works: the route can hand
	// its JWT caller a fresh one.
	fresh, err := env.auth.IssueToken(who)
	if err != nil {
		t.Fatal(err)
	}
	apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(fresh), wantStatus: http.StatusOK, wantData: healthOK}.run(t, env.testEnv)
}

// TestSignInRacingAPasswordChange: a password checked just before a change
// commits must not yield a session or a token that outlives the change.
func TestSignInRacingAPasswordChange(t *testing.T) {
	env := newTestEnv(t)
	ctx := context.Background()
	u := env.createUser(finance.PlanPro)
	checked, err := env.auth.Login(ctx, u.Email, testkit.Password)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.auth.SetPassword(ctx, u.Email, testkit.NewPassword); err != nil {
		t.Fatal(err)
	}

	id, _, err := env.auth.StartSession(ctx, checked)
	if !errors.Is(err, auth.ErrUnauthenticated) || err.Error() != "The password has just been changed; sign in again" {
		t.Errorf("StartSession after the change = %v, want the password-changed refusal", err)
	}
	if id != "" {
		t.Errorf("StartSession returned a session id %q with its error", id)
	}
	token, err := env.auth.IssueToken(checked)
	if err != nil {
		t.Fatal(err)
	}
	staleToken("token issued from a check before the change", token).run(t, env)
}

// tokenFor is a first-party access token of u issued without the sign-in
// route, whose own per-IP limit the test leaves alone.
func (e *testEnv) tokenFor(t *testing.T, u finance.User) string {
	t.Helper()
	id, err := e.db.UserIdentity(context.Background(), u.ID)
	if err != nil {
		t.Fatal(err)
	}
	token, err := e.auth.IssueToken(id)
	if err != nil {
		t.Fatal(err)
	}
	return token
}

// TestPasswordChangeGuessesAreLimited: wrong current passwords count per
// user and per client IP, the API route and the settings page draw on the
// same count, and once it is spent even the right password changes nothing
// until it comes back. A request refused for its new password checks no
// password and costs nothing.
func TestPasswordChangeGuessesAreLimited(t *testing.T) {
	// Three wrong guesses an hour (the sign-in rate); one comes back every 20 minutes.
	env := newOAuthEnv(t, func(c *Config) { c.LoginRateLimit = Rate{Count: 3, Window: time.Hour, Burst: 3} })
	ctx := context.Background()
	u, other := env.createUser(finance.PlanPro), env.createUser(finance.PlanPro)
	token, otherToken := env.tokenFor(t, u), env.tokenFor(t, other)
	b := env.browser(t) // from 192.0.2.1, as the API calls below unless they say otherwise
	b.SignIn(u)
	page := b.Get(web.PasswordPath)
	const elsewhere, third = "198.51.100.7:4000", "198.51.100.8:4000"

	change := func(name, token, current, remoteAddr string) apiScenario {
		return apiScenario{name: name, method: http.MethodPut, url: passwordURL, headers: bearer(token), remoteAddr: remoteAddr,
			body: fmt.Sprintf(`{"current_password":%q,"new_password":%q}`, current, testkit.NewPassword)}
	}
	wrong := func(name, token, remoteAddr string) apiScenario {
		sc := change(name, token, "not my password", remoteAddr)
		sc.wantStatus, sc.wantCode = http.StatusBadRequest, CodeValidation
		sc.wantFields = fieldsOf("current_password", "is not your current password")
		return sc
	}
	limited := func(name string, sc apiScenario) apiScenario {
		sc.name, sc.wantStatus, sc.wantCode = name, http.StatusTooManyRequests, CodeRateLimitExceeded
		sc.wantMessage = "Too many wrong current passwords for this account or from this network; " +
			"retry after the number of seconds in the Retry-After header"
		sc.check = func(t testing.TB, res apiResult) {
			if s, err := strconv.Atoi(res.header.Get("Retry-After")); err != nil || s < 1 || s > 1200 {
				t.Errorf("%s: Retry-After %q, want 1 to 1200 seconds", name, res.header.Get("Retry-After"))
			}
		}
		return sc
	}
	pagePost := func(current string) testkit.Exchange {
		return b.Post(web.PasswordPath, url.Values{"csrf": {testkit.CSRF(t, page)}, "current_password": {current},
			"new_password": {testkit.NewPassword}, "new_password_confirm": {testkit.NewPassword}})
	}
	unchanged := func(name string, u finance.User) {
		t.Helper()
		if _, err := env.auth.Login(ctx, u.Email, testkit.Password); err != nil || env.epoch(t, u.ID) != 0 {
			t.Errorf("%s: the password of %s changed (%v, epoch %d)", name, u.Email, err, env.epoch(t, u.ID))
		}
	}

	short := change("a new password too short", token, "not my password", "")
	short.body = `{"current_password":"not my password","new_password":"short"}`
	short.wantStatus, short.wantCode = http.StatusBadRequest, CodeValidation
	short.wantFields = fieldsOf("new_password", "must be 8 to 128 characters")
	runScenarios(t, env.testEnv, []apiScenario{short, short, short, short,
		wrong("first wrong guess, by the API", token, "")})
	testkit.WantPage(t, "second wrong guess, on the page", pagePost("still not it"), http.StatusBadRequest,
		`id="current_password-error">Current password is not your current password<`)
	wrong("third wrong guess, by the API", token, "").run(t, env.testEnv)

	limited("the right password after three wrong ones", change("", token, testkit.Password, "")).run(t, env.testEnv)
	unchanged("after the refused API change", u)
	x := pagePost(testkit.Password)
	testkit.WantPage(t, "the right password on the page", x, http.StatusTooManyRequests,
		"Too many wrong current passwords for this account or from this network. Try again in ",
		"The password was not changed.")
	if s, err := strconv.Atoi(x.Header.Get("Retry-After")); err != nil || s < 1 || s > 1200 {
		t.Errorf("the page's Retry-After %q, want 1 to 1200 seconds", x.Header.Get("Retry-After"))
	}
	unchanged("after the refused page change", u)

	runScenarios(t, env.testEnv, []apiScenario{
		limited("the same user from another address", change("", token, testkit.Password, elsewhere)),
		limited("another user from the same address", change("", otherToken, testkit.Password, "")),
	})
	unchanged("another user", other)

	// Neither the user nor the address is spent: the guess is checked, and the right password changes it.
	wrong("another user from a third address", otherToken, third).run(t, env.testEnv)
	ok := change("another user's right password from a third address", otherToken, testkit.Password, third)
	ok.wantStatus, ok.wantMessage = http.StatusOK, "Password changed; every other sign-in has ended"
	ok.run(t, env.testEnv)
	if env.epoch(t, other.ID) != 1 {
		t.Error("the other user's password did not change")
	}
}
