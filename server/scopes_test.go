package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/finance-app/finance/auth"
	"github.com/finance-app/finance/finance"
)

// TestScopeRules checks the five scope rules of the specification (section 5)
// through routes that declare each kind of requirement. A 403 names what is missing.
func TestScopeRules(t *testing.T) {
	env := newTestEnv(t)
	type route struct {
		method, path string
		access       auth.Requirement
	}
	var (
		readExpenses  = route{http.MethodGet, "/api/v1/test/expenses", auth.Read(auth.ScopeExpensesWrite)}
		writeExpenses = route{http.MethodPost, "/api/v1/test/expenses", auth.Write(auth.ScopeExpensesWrite)}
		readIncome    = route{http.MethodGet, "/api/v1/test/income", auth.Read(auth.ScopeIncomeWrite)}
		writeIncome   = route{http.MethodPost, "/api/v1/test/income", auth.Write(auth.ScopeIncomeWrite)}
		reports       = route{http.MethodGet, "/api/v1/test/reports", auth.ReportsRead}
		password      = route{http.MethodPut, "/api/v1/test/password", auth.FirstPartyOnly}
		picture       = route{http.MethodPut, "/api/v1/test/picture", auth.FirstPartyOrAll}
		mcp           = route{http.MethodPost, "/api/v1/test/mcp", auth.MCPConnect}
	)
	for _, r := range []route{readExpenses, writeExpenses, readIncome, writeIncome, reports, password, picture, mcp} {
		env.srv.handle(r.method, r.path, r.access, echoPrincipal)
	}
	health := route{http.MethodGet, "/api/v1/health", auth.Authenticated}

	const (
		ok             = ""
		needReadExp    = "This credential lacks the required scope finance:read (or expenses:write)"
		needReadInc    = "This credential lacks the required scope finance:read (or income:write)"
		needWriteExp   = "This credential lacks the required scope expenses:write"
		needWriteInc   = "This credential lacks the required scope income:write"
		needRead       = "This credential lacks the required scope finance:read"
		needMCP        = "This credential lacks the required scope mcp:connect"
		needPassword   = "This action requires signing in with your password; API keys and OAuth tokens cannot perform it"
		needPassOrAll  = "This action requires signing in with your password or an API key with scope all"
		jwtCannotOpenM = "This credential cannot open an MCP session; use an API key or OAuth token with scope mcp:connect"
	)
	everyWrite := []auth.Scope{auth.ScopeExpensesWrite, auth.ScopeIncomeWrite, auth.ScopeAccountsWrite, auth.ScopeBillsWrite,
		auth.ScopeLoansWrite, auth.ScopeCardsWrite, auth.ScopeSettingsWrite}

	u := env.createUser(finance.PlanPro)
	jwt := env.login(u)
	for _, cred := range []struct {
		name   string
		scopes []auth.Scope // nil: the first-party JWT
		want   map[route]string
	}{
		{
			name:   "finance:read reads every domain and reports, writes nothing",
			scopes: []auth.Scope{auth.ScopeRead},
			want: map[route]string{readExpenses: ok, writeExpenses: needWriteExp, readIncome: ok, writeIncome: needWriteInc,
				reports: ok, password: needPassword, picture: needPassOrAll, mcp: needMCP, health: ok},
		},
		{
			name:   "expenses:write reads and writes its own domain only",
			scopes: []auth.Scope{auth.ScopeExpensesWrite},
			want: map[route]string{readExpenses: ok, writeExpenses: ok, readIncome: needReadInc, writeIncome: needWriteInc,
				reports: needRead, password: needPassword, picture: needPassOrAll, mcp: needMCP, health: ok},
		},
		{
			name:   "income:write does not read expenses",
			scopes: []auth.Scope{auth.ScopeIncomeWrite},
			want: map[route]string{readExpenses: needReadExp, writeExpenses: needWriteExp, readIncome: ok, writeIncome: ok,
				reports: needRead, password: needPassword, picture: needPassOrAll, mcp: needMCP, health: ok},
		},
		{
			name:   "every write scope still does not imply reports",
			scopes: everyWrite,
			want: map[route]string{readExpenses: ok, writeExpenses: ok, readIncome: ok, writeIncome: ok,
				reports: needRead, password: needPassword, picture: needPassOrAll, mcp: needMCP, health: ok},
		},
		{
			name:   "mcp:connect alone grants no REST access but reaches health",
			scopes: []auth.Scope{auth.ScopeMCP},
			want: map[route]string{readExpenses: needReadExp, writeExpenses: needWriteExp, readIncome: needReadInc, writeIncome: needWriteInc,
				reports: needRead, password: needPassword, picture: needPassOrAll, mcp: ok, health: ok},
		},
		{
			name:   "all grants everything but the password-only route",
			scopes: []auth.Scope{auth.ScopeAll},
			want: map[route]string{readExpenses: ok, writeExpenses: ok, readIncome: ok, writeIncome: ok,
				reports: ok, password: needPassword, picture: ok, mcp: ok, health: ok},
		},
		{
			name:   "every scope selected is stored as all",
			scopes: append([]auth.Scope{auth.ScopeRead, auth.ScopeMCP}, everyWrite...),
			want: map[route]string{readExpenses: ok, writeExpenses: ok, readIncome: ok, writeIncome: ok,
				reports: ok, password: needPassword, picture: ok, mcp: ok, health: ok},
		},
		{
			name:   "first-party JWT is not scope-limited, except for MCP",
			scopes: nil,
			want: map[route]string{readExpenses: ok, writeExpenses: ok, readIncome: ok, writeIncome: ok,
				reports: ok, password: ok, picture: ok, mcp: jwtCannotOpenM, health: ok},
		},
	} {
		t.Run(cred.name, func(t *testing.T) {
			token, method := jwt, auth.MethodJWT
			if cred.scopes != nil {
				token, method = env.createKey(u.ID, cred.scopes...), auth.MethodAPIKey
			}
			for _, r := range []route{readExpenses, writeExpenses, readIncome, writeIncome, reports, password, picture, mcp, health} {
				want, listed := cred.want[r]
				if !listed {
					t.Fatalf("no expectation for %s %s", r.method, r.path)
				}
				sc := apiScenario{
					name: r.method + " " + r.path, method: r.method, url: r.path, headers: bearer(token),
					testRoute: r != health,
				}
				if r.method != http.MethodGet {
					sc.body = `{}`
				}
				if want == ok {
					sc.wantStatus = http.StatusOK
					if r != health {
						sc.check = func(t testing.TB, res apiResult) {
							var got struct{ UserID, Method string }
							res.decodeData(t, &got)
							if got.Method != string(method) {
								t.Errorf("%s %s: handler saw method %q, want %q", r.method, r.path, got.Method, method)
							}
						}
					}
				} else {
					sc.wantStatus, sc.wantCode, sc.wantMessage = http.StatusForbidden, CodeForbidden, want
					if strings.Contains(want, "lacks the required scope") {
						// A missing scope is a step-up challenge (RFC 6750
						// insufficient_scope) naming the scopes the request needs.
						sc.check = func(t testing.TB, res apiResult) {
							got := res.header.Get("WWW-Authenticate")
							if !strings.HasPrefix(got, `Bearer realm="finance", error="insufficient_scope", error_description="`+want+`", scope="`) {
								t.Errorf("%s %s: WWW-Authenticate = %q, want an insufficient_scope challenge", r.method, r.path, got)
							}
						}
					} else {
						sc.noHeaders = []string{"WWW-Authenticate"}
					}
				}
				sc.run(t, env)
			}
		})
	}
}

// TestScopeCheckedAfterAuthentication: a credential problem is 401 or 402 on
// a route whose scope the caller would lack as well; 403 is only for valid,
// paying callers.
func TestScopeCheckedAfterAuthentication(t *testing.T) {
	env := newTestEnv(t)
	env.srv.handle(http.MethodPost, "/api/v1/test/expenses", auth.Write(auth.ScopeExpensesWrite), echoPrincipal)
	free := env.createUser(finance.PlanFree)
	freeKey := env.createKey(free.ID, auth.ScopeMCP)
	runScenarios(t, env, []apiScenario{
		{
			name: "no credential", method: http.MethodPost, url: "/api/v1/test/expenses", body: `{}`, testRoute: true,
			wantStatus: http.StatusUnauthorized, wantCode: CodeUnauthorized,
		},
		{
			name: "free plan key without the scope", method: http.MethodPost, url: "/api/v1/test/expenses", body: `{}`,
			headers: bearer(freeKey), testRoute: true,
			wantStatus: http.StatusPaymentRequired, wantCode: CodeSubscriptionRequired,
		},
	})
}

// TestScopesStoredAsGranted checks what the database keeps for a new key,
// since the rules above depend on it.
func TestScopesStoredAsGranted(t *testing.T) {
	env := newTestEnv(t)
	u := env.createUser(finance.PlanPro)
	for _, tc := range []struct {
		give []auth.Scope
		want string
	}{
		{[]auth.Scope{auth.ScopeExpensesWrite, auth.ScopeRead, auth.ScopeExpensesWrite}, "finance:read expenses:write"},
		{[]auth.Scope{auth.ScopeMCP, auth.ScopeAll}, "all"},
		{auth.Scopes, "all"},
	} {
		k, _ := env.createKeyRecord(u.ID, tc.give...)
		stored, err := env.db.APIKeyByID(t.Context(), k.ID)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range stored.Scopes {
			got = append(got, string(s))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("scopes %v stored as %q, want %q", tc.give, strings.Join(got, " "), tc.want)
		}
	}
}
