package auth

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/finance-app/finance/finance"
)

func TestParseScopes(t *testing.T) {
	const known = "; known scopes: all, finance:read, expenses:write, income:write, accounts:write, bills:write, loans:write, credit_cards:write, settings:write, mcp:connect"
	allNames := func(scopes []Scope) []string {
		out := make([]string, len(scopes))
		for i, s := range scopes {
			out[i] = string(s)
		}
		return out
	}
	reversed := allNames(Scopes)
	slices.Reverse(reversed)
	withoutMCP := allNames(Scopes[:len(Scopes)-1])

	tests := []struct {
		name      string
		in        []string
		want      []Scope
		wantField string // the fields.scopes problem; empty: no error
	}{
		{name: "one", in: []string{"finance:read"}, want: []Scope{ScopeRead}},
		{name: "display order", in: []string{"mcp:connect", "expenses:write", "finance:read"},
			want: []Scope{ScopeRead, ScopeExpensesWrite, ScopeMCP}},
		{name: "duplicates dropped", in: []string{"income:write", "income:write", "finance:read", "income:write"},
			want: []Scope{ScopeRead, ScopeIncomeWrite}},
		{name: "blanks trimmed and skipped", in: []string{" finance:read ", "", "  "}, want: []Scope{ScopeRead}},
		{name: "all alone", in: []string{"all"}, want: []Scope{ScopeAll}},
		{name: "all among others is stored alone", in: []string{"finance:read", "all", "mcp:connect"}, want: []Scope{ScopeAll}},
		{name: "every scope is stored as all", in: allNames(Scopes), want: []Scope{ScopeAll}},
		{name: "every scope in any order with duplicates", in: append(reversed, "finance:read"), want: []Scope{ScopeAll}},
		{name: "every scope but one is not all", in: withoutMCP, want: Scopes[:len(Scopes)-1]},
		{name: "unknown", in: []string{"finance:read", "finance:write"}, wantField: "has unknown scope finance:write" + known},
		{name: "case matters", in: []string{"Finance:Read"}, wantField: "has unknown scope Finance:Read" + known},
		{name: "unknown after all", in: []string{"all", "admin"}, wantField: "has unknown scope admin" + known},
		{name: "unknown before all", in: []string{"admin", "all"}, wantField: "has unknown scope admin" + known},
		{name: "none", in: nil, wantField: "must name at least one scope"},
		{name: "only blanks", in: []string{"", " "}, wantField: "must name at least one scope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseScopes(tt.in)
			if tt.wantField == "" {
				if err != nil {
					t.Fatalf("ParseScopes(%q) error: %v", tt.in, err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("ParseScopes(%q) mismatch (-want +got):\n%s", tt.in, diff)
				}
				return
			}
			var ve *finance.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("ParseScopes(%q) = %v, %v; want a *finance.ValidationError", tt.in, got, err)
			}
			if diff := cmp.Diff(map[string]string{"scopes": tt.wantField}, ve.Fields); diff != "" {
				t.Errorf("ParseScopes(%q) fields mismatch (-want +got):\n%s", tt.in, diff)
			}
			if got != nil {
				t.Errorf("ParseScopes(%q) returned scopes %v with its error", tt.in, got)
			}
		})
	}
}

func TestScopeDescriptions(t *testing.T) {
	for _, s := range append(slices.Clone(Scopes), ScopeAll) {
		if ScopeDescriptions[s] == "" {
			t.Errorf("scope %s has no description", s)
		}
	}
	if len(ScopeDescriptions) != len(Scopes)+1 {
		t.Errorf("%d descriptions for %d scopes", len(ScopeDescriptions), len(Scopes)+1)
	}
}

func TestRequirementString(t *testing.T) {
	tests := []struct {
		req        Requirement
		want       string
		valid      bool
		wantPublic bool
	}{
		{Public, "public", true, true},
		{Authenticated, "any", true, false},
		{Read(ScopeExpensesWrite), "finance:read | expenses:write", true, false},
		{Write(ScopeCardsWrite), "credit_cards:write", true, false},
		{ReportsRead, "finance:read", true, false},
		{FirstPartyOnly, "jwt", true, false},
		{FirstPartyOrAll, "jwt | all", true, false},
		{MCPConnect, "mcp:connect", true, false},
		{Requirement{}, "invalid", false, false},
	}
	for _, tt := range tests {
		if got := tt.req.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
		if got := tt.req.Valid(); got != tt.valid {
			t.Errorf("%s: Valid() = %v, want %v", tt.want, got, tt.valid)
		}
		if got := tt.req.IsPublic(); got != tt.wantPublic {
			t.Errorf("%s: IsPublic() = %v, want %v", tt.want, got, tt.wantPublic)
		}
	}
}

// TestAllow runs every kind of Requirement against credentials of every
// method and typical scope sets. "" means allowed; otherwise the 403 message.
func TestAllow(t *testing.T) {
	const (
		ok            = ""
		noScope       = "This route declares no scope"
		needReadExp   = "This credential lacks the required scope finance:read (or expenses:write)"
		needWriteExp  = "This credential lacks the required scope expenses:write"
		needRead      = "This credential lacks the required scope finance:read"
		needMCP       = "This credential lacks the required scope mcp:connect"
		needPassword  = "This action requires signing in with your password; API keys and OAuth tokens cannot perform it"
		needPassOrAll = "This action requires signing in with your password or an API key with scope all"
		jwtNoMCP      = "This credential cannot open an MCP session; use an API key or OAuth token with scope mcp:connect"
	)
	reqs := []struct {
		name string
		req  Requirement
	}{
		{"public", Public},
		{"any", Authenticated},
		{"read expenses", Read(ScopeExpensesWrite)},
		{"write expenses", Write(ScopeExpensesWrite)},
		{"reports", ReportsRead},
		{"first party only", FirstPartyOnly},
		{"first party or all", FirstPartyOrAll},
		{"mcp", MCPConnect},
		{"zero", Requirement{}},
	}
	key := func(m Method, scopes ...Scope) Principal {
		return Principal{User: finance.User{ID: "u1", Plan: finance.PlanPro}, Method: m, CredentialID: "k1", Scopes: scopes}
	}
	tests := []struct {
		name string
		p    Principal
		want []string // in the order of reqs
	}{
		{"jwt", key(MethodJWT),
			[]string{ok, ok, ok, ok, ok, ok, ok, jwtNoMCP, noScope}},
		{"jwt ignores scopes it should not have", key(MethodJWT, ScopeMCP),
			[]string{ok, ok, ok, ok, ok, ok, ok, jwtNoMCP, noScope}},
		{"key without scopes", key(MethodAPIKey),
			[]string{ok, ok, needReadExp, needWriteExp, needRead, needPassword, needPassOrAll, needMCP, noScope}},
		{"key finance:read", key(MethodAPIKey, ScopeRead),
			[]string{ok, ok, ok, needWriteExp, ok, needPassword, needPassOrAll, needMCP, noScope}},
		{"key expenses:write", key(MethodAPIKey, ScopeExpensesWrite),
			[]string{ok, ok, ok, ok, needRead, needPassword, needPassOrAll, needMCP, noScope}},
		{"key income:write", key(MethodAPIKey, ScopeIncomeWrite),
			[]string{ok, ok, needReadExp, needWriteExp, needRead, needPassword, needPassOrAll, needMCP, noScope}},
		{"key every write scope", key(MethodAPIKey, ScopeExpensesWrite, ScopeIncomeWrite, ScopeAccountsWrite, ScopeBillsWrite, ScopeLoansWrite, ScopeCardsWrite, ScopeSettingsWrite),
			[]string{ok, ok, ok, ok, needRead, needPassword, needPassOrAll, needMCP, noScope}},
		{"key mcp:connect", key(MethodAPIKey, ScopeMCP),
			[]string{ok, ok, needReadExp, needWriteExp, needRead, needPassword, needPassOrAll, ok, noScope}},
		{"key all", key(MethodAPIKey, ScopeAll),
			[]string{ok, ok, ok, ok, ok, needPassword, ok, ok, noScope}},
		{"oauth finance:read mcp:connect", key(MethodOAuth, ScopeRead, ScopeMCP),
			[]string{ok, ok, ok, needWriteExp, ok, needPassword, needPassOrAll, ok, noScope}},
		{"oauth all", key(MethodOAuth, ScopeAll),
			[]string{ok, ok, ok, ok, ok, needPassword, ok, ok, noScope}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(tt.want) != len(reqs) {
				t.Fatalf("%d expectations for %d requirements", len(tt.want), len(reqs))
			}
			for i, r := range reqs {
				err := tt.p.Allow(r.req)
				var got string
				if err != nil {
					got = err.Error()
					if !errors.Is(err, ErrForbidden) {
						t.Errorf("%s: error %v does not match ErrForbidden", r.name, err)
					}
				}
				if got != tt.want[i] {
					t.Errorf("%s: Allow = %q, want %q", r.name, got, tt.want[i])
				}
			}
		})
	}
}

// A refusal for a missing scope names what the request needs: the scopes
// held and the one lacking, in display order.
func TestMissingScopeNamesTheScopesNeeded(t *testing.T) {
	p := Principal{Method: MethodOAuth, Scopes: []Scope{ScopeMCP, ScopeExpensesWrite}}
	err := p.Allow(Write(ScopeIncomeWrite))
	var ae *Error
	if !errors.As(err, &ae) {
		t.Fatalf("Allow = %v, want an *Error", err)
	}
	want := []Scope{ScopeExpensesWrite, ScopeIncomeWrite, ScopeMCP}
	if diff := cmp.Diff(want, ae.Needed); diff != "" {
		t.Errorf("Needed (-want +got):\n%s", diff)
	}
	if err := (Principal{Method: MethodOAuth, Scopes: []Scope{ScopeRead}}).Allow(FirstPartyOnly); errors.As(err, &ae) && len(ae.Needed) > 0 {
		t.Errorf("a refusal no scope can lift names scopes: %v", ae.Needed)
	}
}

func TestChallenge(t *testing.T) {
	for _, tc := range []struct {
		c    Challenge
		want string
	}{
		{Challenge{ResourceMetadata: "https://f.example/.well-known/oauth-protected-resource", Scopes: AgentScopes},
			`Bearer realm="finance", scope="finance:read mcp:connect", resource_metadata="https://f.example/.well-known/oauth-protected-resource"`},
		{Challenge{Error: "invalid_token", Description: `The "token" is dead\ (é)`},
			`Bearer realm="finance", error="invalid_token", error_description="The token is dead ()"`},
	} {
		if got := tc.c.String(); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}
