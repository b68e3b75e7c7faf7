package server

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
	"github.com/finance-app/finance/internal/testkit"
)

// wwwAuthenticate is the challenge of a 401 to a request without a
// credential: it points OAuth clients at the protected resource metadata
// (RFC 9728) and names the scopes a typical agent needs.
var wwwAuthenticate = map[string]string{"WWW-Authenticate": `Bearer realm="finance", scope="finance:read mcp:connect", resource_metadata="` + testkit.BaseURL + `/.well-known/oauth-protected-resource"`}

// invalidTokenChallenge is the challenge of a 401 to a request whose
// credential was refused with message: error="invalid_token" tells an OAuth
// client to get a new token rather than retry this one.
func invalidTokenChallenge(message string) map[string]string {
	return map[string]string{"WWW-Authenticate": testkit.InvalidTokenChallenge(message)}
}

// retiredKeyMessage refuses a key in the retired <public>.<secret> form.
const retiredKeyMessage = "This API key uses the retired <public>.<secret> format, which no longer authenticates; create a new key (it starts with svk_)"

// healthOK is the answer of GET /api/v1/health to an accepted credential.
var healthOK = Health{Status: "ok", Version: "test-version", Database: "ok"}

// unauthorized is a 401 scenario for GET /api/v1/health with the given headers and message.
// The challenge has error="invalid_token" when a credential was sent: a
// Bearer token, or X-Service-API-Key without an Authorization header.
func unauthorized(name string, headers map[string]string, message string) apiScenario {
	challenge := wwwAuthenticate
	scheme, token, _ := strings.Cut(headers["Authorization"], " ")
	_, hasAuthorization := headers["Authorization"]
	if (strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) != "") || (!hasAuthorization && headers["X-Service-API-Key"] != "") {
		challenge = invalidTokenChallenge(message)
	}
	return apiScenario{
		name: name, method: http.MethodGet, url: "/api/v1/health", headers: headers,
		wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized, wantMessage: message,
		wantHeaders: challenge,
	}
}

// keyParts splits a full key svk_<public>_<secret>.
func keyParts(t testing.TB, key string) (public, secret string) {
	t.Helper()
	rest, ok := strings.CutPrefix(key, auth.KeyPrefix)
	public, secret, ok2 := strings.Cut(rest, "_")
	if !ok || !ok2 {
		t.Fatalf("key %q is not svk_<public>_<secret>", key)
	}
	return public, secret
}

func TestAPIKeyAuthentication(t *testing.T) {
	env := newTestEnv(t)
	ctx := context.Background()
	pro := env.createUser(finance.PlanPro)
	free := env.createUser(finance.PlanFree)
	key := env.createKey(pro.ID, auth.ScopeRead)
	other := env.createKey(pro.ID, auth.ScopeRead)
	public, secret := keyParts(t, key)
	_, otherSecret := keyParts(t, other)

	revoked, revokedKey := env.createKeyRecord(pro.ID, auth.ScopeRead)
	if _, err := env.auth.RevokeKey(ctx, pro.ID, revoked.ID); err != nil {
		t.Fatal(err)
	}
	expiredKey := env.createExpiredKey(pro.ID, auth.ScopeRead)
	freeKey := env.createKey(free.ID, auth.ScopeAll)

	const invalid = "Invalid API key"
	runScenarios(t, env, []apiScenario{
		{
			name: "Authorization Bearer", method: http.MethodGet, url: "/api/v1/health", headers: bearer(key),
			wantStatus: http.StatusOK, wantData: healthOK,
		},
		{
			name: "lowercase bearer scheme", method: http.MethodGet, url: "/api/v1/health",
			headers:    map[string]string{"Authorization": "bearer " + key},
			wantStatus: http.StatusOK, wantData: healthOK,
		},
		{
			name: "X-Service-API-Key", method: http.MethodGet, url: "/api/v1/health",
			headers:    map[string]string{"X-Service-API-Key": key},
			wantStatus: http.StatusOK, wantData: healthOK,
		},
		unauthorized("no credentials", nil, "Missing credentials: send Authorization: Bearer <API_KEY>"),
		unauthorized("empty bearer", map[string]string{"Authorization": "Bearer "}, "Missing credentials: send Authorization: Bearer <API_KEY>"),
		unauthorized("other scheme", map[string]string{"Authorization": "Basic " + key}, "Missing credentials: send Authorization: Bearer <API_KEY>"),
		unauthorized("X-Service-API-Key is ignored beside Authorization",
			map[string]string{"Authorization": "Basic dXNlcjpwYXNz", "X-Service-API-Key": key},
			"Missing credentials: send Authorization: Bearer <API_KEY>"),
		unauthorized("unknown public part", bearer(auth.KeyPrefix+"aaaaaaaaaaaaaaaa_"+secret), invalid),
		unauthorized("wrong secret", bearer(auth.KeyPrefix+public+"_"+otherSecret), invalid),
		unauthorized("truncated secret", bearer(key[:len(key)-1]), invalid),
		unauthorized("wrong secret in X-Service-API-Key", map[string]string{"X-Service-API-Key": auth.KeyPrefix + public + "_" + otherSecret}, invalid),
		unauthorized("prefix only", bearer("svk_"), invalid),
		unauthorized("no secret part", bearer("svk_"+public), invalid),
		unauthorized("empty public part", bearer("svk__"+secret), invalid),
		unauthorized("empty secret part", bearer("svk_"+public+"_"), invalid),
		unauthorized("extra part", bearer(key+"_x"), invalid),
		unauthorized("not a key at all", bearer("hello"), invalid),
		unauthorized("revoked key", bearer(revokedKey), "This API key has been revoked"),
		unauthorized("expired key", bearer(expiredKey), "This API key has expired"),
		{
			name: "retired public.secret format", method: http.MethodGet, url: "/api/v1/health",
			headers:    bearer(public + "." + secret),
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized, wantHeaders: invalidTokenChallenge(retiredKeyMessage),
			wantInMsg: []string{"retired", "create a new key", "svk_"},
		},
		{
			name: "retired format in X-Service-API-Key", method: http.MethodGet, url: "/api/v1/health",
			headers:    map[string]string{"X-Service-API-Key": "pk_live_abc.sk_live_def"},
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized, wantHeaders: invalidTokenChallenge(retiredKeyMessage),
			wantInMsg: []string{"create a new key"},
		},
		{
			name: "free plan key", method: http.MethodGet, url: "/api/v1/health", headers: bearer(freeKey),
			wantStatus: http.StatusPaymentRequired, wantCode: CodeSubscriptionRequired,
			wantInMsg: []string{"Pro plan", free.Email},
			noHeaders: []string{"WWW-Authenticate"},
		},
		{
			name: "wrong secret of a free plan key is 401, not 402", method: http.MethodGet, url: "/api/v1/health",
			headers:    bearer(strings.TrimSuffix(freeKey, freeKey[len(freeKey)-4:]) + "aaaa"),
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized, wantMessage: invalid,
		},
	})
}

func TestPlanChangeTakesEffectAtOnce(t *testing.T) {
	env := newTestEnv(t)
	ctx := context.Background()
	u := env.createUser(finance.PlanPro)
	key := env.createKey(u.ID, auth.ScopeAll)
	health := apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(key)}

	ok, required := health, health
	ok.wantStatus, ok.wantData = http.StatusOK, healthOK
	required.wantStatus, required.wantCode = http.StatusPaymentRequired, CodeSubscriptionRequired

	ok.run(t, env)
	if _, err := env.auth.SetPlan(ctx, u.Email, finance.PlanFree); err != nil {
		t.Fatal(err)
	}
	required.run(t, env)
	if _, err := env.auth.SetPlan(ctx, u.Email, finance.PlanPro); err != nil {
		t.Fatal(err)
	}
	ok.run(t, env)
}

// jwtWithSubject re-encodes token's payload with another subject and keeps the
// original signature, as an attacker who cannot sign would.
func jwtWithSubject(t testing.TB, token, subject string) string {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q is not a JWS", token)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims map[string]any
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	claims["sub"] = subject
	payload, _ = json.Marshal(claims)
	parts[1] = base64.RawURLEncoding.EncodeToString(payload)
	return strings.Join(parts, ".")
}

// flipMiddle changes one character in the middle of s (never the last
// base64 character, whose low bits may be ignored).
func flipMiddle(s string) string {
	i := len(s) / 2
	c := byte('A')
	if s[i] == 'A' {
		c = 'B'
	}
	return s[:i] + string(c) + s[i+1:]
}

func TestFirstPartyJWT(t *testing.T) {
	env := newTestEnv(t)
	free := env.createUser(finance.PlanFree)
	victim := env.createUser(finance.PlanPro)
	token := env.login(free)

	if sub, epoch, err := env.jwt.Verify(token); err != nil || sub != free.ID || epoch != 0 {
		t.Fatalf("login token verifies as (%q, %d, %v), want (%q, 0, nil)", sub, epoch, err, free.ID)
	}
	expiredIssuer, err := auth.NewJWT(env.jwtSecret, -time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	expired, _ := expiredIssuer.Issue(free.ID, 0)
	otherIssuer, _ := auth.NewJWT([]byte(strings.Repeat("k", 32)), time.Minute)
	foreign, _ := otherIssuer.Issue(free.ID, 0)
	ghost, _ := env.jwt.Issue(finance.NewID(), 0)
	parts := strings.Split(token, ".")

	const invalidToken = "The access token is invalid"
	runScenarios(t, env, []apiScenario{
		{
			name: "free plan JWT reaches health", method: http.MethodGet, url: "/api/v1/health", headers: bearer(token),
			wantStatus: http.StatusOK, wantData: healthOK,
		},
		{
			name: "JWT in X-Service-API-Key", method: http.MethodGet, url: "/api/v1/health",
			headers:    map[string]string{"X-Service-API-Key": token},
			wantStatus: http.StatusOK, wantData: healthOK,
		},
		unauthorized("subject swapped", bearer(jwtWithSubject(t, token, victim.ID)), invalidToken),
		unauthorized("signature altered", bearer(parts[0]+"."+parts[1]+"."+flipMiddle(parts[2])), invalidToken),
		unauthorized("signature removed", bearer(parts[0]+"."+parts[1]+"."), invalidToken),
		unauthorized("signed with another secret", bearer(foreign), invalidToken),
		unauthorized("expired", bearer(expired), "The access token has expired; sign in again"),
		unauthorized("user no longer exists", bearer(ghost), invalidToken),
	})
}

func TestLogin(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanFree)
	const badLogin = "Invalid email or password"

	t.Run("success", func(t *testing.T) {
		res := apiScenario{
			method: http.MethodPost, url: "/api/v1/auth/login",
			body:       `{"email":"  ` + strings.ToUpper(u.Email) + `  ","password":"` + testkit.Password + `"}`,
			wantStatus: http.StatusOK, wantMessage: "Signed in",
			noHeaders: []string{"Set-Cookie"},
		}.run(t, env)
		var data LoginResponse
		res.decodeData(t, &data)
		if data.TokenType != "Bearer" || data.ExpiresIn != int(auth.DefaultJWTTTL.Seconds()) {
			t.Errorf("token_type, expires_in = %q, %d; want Bearer, %d", data.TokenType, data.ExpiresIn, int(auth.DefaultJWTTTL.Seconds()))
		}
		if sub, _, err := env.jwt.Verify(data.AccessToken); err != nil || sub != u.ID {
			t.Errorf("access_token verifies as (%q, %v), want (%q, nil)", sub, err, u.ID)
		}
	})

	failed := func(name, email, password string) apiScenario {
		body, _ := json.Marshal(LoginRequest{Email: email, Password: password})
		return apiScenario{
			name: name, method: http.MethodPost, url: "/api/v1/auth/login", body: string(body),
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized, wantMessage: badLogin,
			wantHeaders: wwwAuthenticate,
		}
	}
	runScenarios(t, env, []apiScenario{
		failed("wrong password", u.Email, testkit.Password+"x"),
		failed("password of another case", u.Email, strings.ToUpper(testkit.Password)),
		failed("unknown email", "nobody@example.com", testkit.Password),
		failed("not an email", "nobody", testkit.Password),
	})
}

func TestLastUsedAt(t *testing.T) {
	env := newTestEnv(t)
	ctx := context.Background()
	u := env.createUser(finance.PlanPro)
	used, usedKey := env.createKeyRecord(u.ID, auth.ScopeRead)
	idle, idleKey := env.createKeyRecord(u.ID, auth.ScopeRead)
	idlePublic, _ := keyParts(t, idleKey)
	_, usedSecret := keyParts(t, usedKey)
	token := env.login(u)

	lastUsed := func(id string) *time.Time {
		t.Helper()
		k, err := env.db.APIKeyByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return k.LastUsedAt
	}
	if got := lastUsed(used.ID); got != nil {
		t.Fatalf("new key has last_used_at %v", got)
	}

	before := time.Now().UTC().Truncate(time.Microsecond) // the database keeps microseconds
	for range 3 {
		apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(usedKey), wantStatus: http.StatusOK}.run(t, env)
	}
	after := time.Now().UTC()
	// Requests that must not count as use of the idle key: a wrong secret for
	// it, and a JWT of its owner.
	apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(auth.KeyPrefix + idlePublic + "_" + usedSecret),
		wantStatus: http.StatusUnauthorized}.run(t, env)
	apiScenario{method: http.MethodGet, url: "/api/v1/health", headers: bearer(token), wantStatus: http.StatusOK}.run(t, env)

	if got := lastUsed(used.ID); got != nil {
		t.Errorf("last_used_at written before the flush: %v; the request path should not write", got)
	}
	if err := env.auth.FlushUsage(ctx); err != nil {
		t.Fatalf("FlushUsage: %v", err)
	}
	got := lastUsed(used.ID)
	if got == nil {
		t.Fatal("last_used_at is still null after FlushUsage")
	}
	if got.Before(before) || got.After(after) {
		t.Errorf("last_used_at = %v, want between %v and %v", got, before, after)
	}
	if got := lastUsed(idle.ID); got != nil {
		t.Errorf("idle key has last_used_at %v after failed and JWT requests", got)
	}
}
