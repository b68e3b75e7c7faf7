package auth

import (
	"slices"
	"strings"

	"github.com/finance-app/finance/finance"
)

// Scope is a permission carried by an API key or OAuth grant.
type Scope string

// The scopes of the specification. ScopeAll grants everything, mcp:connect included.
const (
	ScopeRead          Scope = "finance:read"
	ScopeExpensesWrite Scope = "expenses:write"
	ScopeIncomeWrite   Scope = "income:write"
	ScopeAccountsWrite Scope = "accounts:write"
	ScopeBillsWrite    Scope = "bills:write"
	ScopeLoansWrite    Scope = "loans:write"
	ScopeCardsWrite    Scope = "credit_cards:write"
	ScopeSettingsWrite Scope = "settings:write"
	ScopeMCP           Scope = "mcp:connect"
	ScopeAll           Scope = "all"
)

// Scopes lists every grantable scope except ScopeAll, in display order.
var Scopes = []Scope{
	ScopeRead, ScopeExpensesWrite, ScopeIncomeWrite, ScopeAccountsWrite, ScopeBillsWrite,
	ScopeLoansWrite, ScopeCardsWrite, ScopeSettingsWrite, ScopeMCP,
}

// ScopeDescriptions explain each scope in plain language, for people choosing them.
var ScopeDescriptions = map[Scope]string{
	ScopeRead:          "Read all your finance data: expenses, income, accounts, cards, bills, loans, dashboard and reports",
	ScopeExpensesWrite: "Create, change, split and void expenses",
	ScopeIncomeWrite:   "Create, change and void income",
	ScopeAccountsWrite: "Add account transactions and adjust account balances",
	ScopeBillsWrite:    "Manage bill templates, bill status and bill payments",
	ScopeLoansWrite:    "Record loan payments and change loan and installment status",
	ScopeCardsWrite:    "Manage credit cards, card transactions, statements, payments and installment plans",
	ScopeSettingsWrite: "Change categories, app settings and budget thresholds",
	ScopeMCP:           "Connect AI agents through the MCP endpoint",
	ScopeAll:           "Everything, including scopes added in the future",
}

// MessagingScopes are what a linked chat of a messaging platform may do:
// read, and the writes a person makes from a phone (record expenses, pay
// bills and loans), each only after a Confirm button. Not accounts (balance
// adjustments), cards and statements, income, or settings: a lost or
// borrowed phone with the chat open should not reach those.
var MessagingScopes = []Scope{ScopeRead, ScopeExpensesWrite, ScopeBillsWrite, ScopeLoansWrite}

// ParseScopes validates a list of scope names. Unknown names are rejected.
// "all", or every individual scope, is stored as the single value "all".
func ParseScopes(names []string) ([]Scope, error) {
	var out []Scope
	all := false
	for _, raw := range names {
		n := Scope(strings.TrimSpace(raw))
		if n == "" {
			continue
		}
		if n == ScopeAll {
			all = true // keep checking: an unknown name is refused wherever it appears
			continue
		}
		if !slices.Contains(Scopes, n) {
			return nil, finance.Invalid("scopes", "has unknown scope "+string(n)+"; known scopes: all, "+JoinScopes(Scopes))
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	if all || len(out) == len(Scopes) {
		return []Scope{ScopeAll}, nil
	}
	if len(out) == 0 {
		return nil, finance.Invalid("scopes", "must name at least one scope")
	}
	slices.SortFunc(out, func(a, b Scope) int { return slices.Index(Scopes, a) - slices.Index(Scopes, b) })
	return out, nil
}

// JoinScopes renders scopes separated by ", ".
func JoinScopes(s []Scope) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}

// Requirement is what a route demands of its caller. Every route is registered
// with exactly one; the zero Requirement is invalid so a forgotten one fails loudly.
type Requirement struct {
	kind  reqKind
	write Scope // the domain's write scope, for read and write requirements
}

type reqKind int

const (
	reqInvalid    reqKind = iota
	reqPublic             // no credential at all (login, docs, health probes)
	reqAny                // any valid credential, whatever its scopes (GET /health)
	reqRead               // finance:read, or the domain's write scope
	reqWrite              // the domain's write scope
	reqReadOnly           // finance:read only (dashboard, reports, activity)
	reqFirstParty         // only the first-party JWT (password change)
	reqFirstOrAll         // the first-party JWT or a key holding "all"
	reqMCP                // mcp:connect
	reqPlatform           // no user credential: the messaging platform's secret header, checked by the route
)

// Requirement constructors, one per rule of the specification's scope table.
var (
	Public          = Requirement{kind: reqPublic}
	Authenticated   = Requirement{kind: reqAny}
	ReportsRead     = Requirement{kind: reqReadOnly}
	FirstPartyOnly  = Requirement{kind: reqFirstParty}
	FirstPartyOrAll = Requirement{kind: reqFirstOrAll}
	MCPConnect      = Requirement{kind: reqMCP}
	// PlatformSecret is the messaging webhook's: no user credential, but the
	// platform's secret header, which the route itself checks (§5).
	PlatformSecret = Requirement{kind: reqPlatform}
)

// Read is satisfied by finance:read or by the domain's write scope
// (a domain write scope also grants GET on the same domain).
func Read(domainWrite Scope) Requirement { return Requirement{kind: reqRead, write: domainWrite} }

// Write is satisfied only by the domain's write scope.
func Write(domainWrite Scope) Requirement { return Requirement{kind: reqWrite, write: domainWrite} }

// Valid reports whether r was built by one of the constructors.
func (r Requirement) Valid() bool { return r.kind != reqInvalid }

// IsPublic reports whether the route needs no user credential (the
// messaging webhook checks its platform's secret itself).
func (r Requirement) IsPublic() bool { return r.kind == reqPublic || r.kind == reqPlatform }

// String describes the requirement as it appears in the contract (x-scope).
func (r Requirement) String() string {
	switch r.kind {
	case reqPublic:
		return "public"
	case reqPlatform:
		return "platform-secret"
	case reqAny:
		return "any"
	case reqRead:
		return string(ScopeRead) + " | " + string(r.write)
	case reqWrite:
		return string(r.write)
	case reqReadOnly:
		return string(ScopeRead)
	case reqFirstParty:
		return "jwt"
	case reqFirstOrAll:
		return "jwt | all"
	case reqMCP:
		return string(ScopeMCP)
	}
	return "invalid"
}

// Allow checks p against r. The error names the scope that is missing.
func (p Principal) Allow(r Requirement) error {
	switch r.kind {
	case reqPublic, reqAny, reqPlatform:
		return nil
	case reqInvalid:
		return &Error{Kind: ErrForbidden, Message: "This route declares no scope"}
	}
	if p.Method == MethodJWT {
		if r.kind == reqMCP {
			return forbidden("This credential cannot open an MCP session; use an API key or OAuth token with scope " + string(ScopeMCP))
		}
		return nil // first-party tokens are not scope-limited
	}
	has := func(s Scope) bool { return slices.Contains(p.Scopes, s) || slices.Contains(p.Scopes, ScopeAll) }
	switch r.kind {
	case reqRead:
		if has(ScopeRead) || has(r.write) {
			return nil
		}
		return p.missing(ScopeRead, r.write)
	case reqWrite:
		if has(r.write) {
			return nil
		}
		return p.missing(r.write)
	case reqReadOnly:
		if has(ScopeRead) {
			return nil
		}
		return p.missing(ScopeRead)
	case reqMCP:
		if has(ScopeMCP) {
			return nil
		}
		return p.missing(ScopeMCP)
	case reqFirstParty:
		return forbidden("This action requires signing in with your password; API keys and OAuth tokens cannot perform it")
	case reqFirstOrAll:
		if slices.Contains(p.Scopes, ScopeAll) {
			return nil
		}
		return forbidden("This action requires signing in with your password or an API key with scope all")
	}
	return forbidden("Forbidden")
}

// missing refuses p for lacking need (or one of alt). The scopes it needs
// are those it holds plus need, in display order.
func (p Principal) missing(need Scope, alt ...Scope) error {
	msg := "This credential lacks the required scope " + string(need)
	for _, a := range alt {
		msg += " (or " + string(a) + ")"
	}
	needed := []Scope{need}
	for _, s := range p.Scopes {
		if !slices.Contains(needed, s) {
			needed = append(needed, s)
		}
	}
	slices.SortFunc(needed, func(a, b Scope) int { return slices.Index(Scopes, a) - slices.Index(Scopes, b) })
	return &Error{Kind: ErrForbidden, Message: msg, Needed: needed}
}

// AgentScopes are what a typical AI agent needs: to read the ledger and to
// connect over MCP. The 401 challenge names them, so that an OAuth client
// asks for them rather than for every scope; a tool that needs more is
// answered with an insufficient_scope challenge naming what it needs.
var AgentScopes = []Scope{ScopeRead, ScopeMCP}

// Challenge is a Bearer WWW-Authenticate challenge (RFC 6750 §3, RFC 9728
// §5.1).
type Challenge struct {
	// ResourceMetadata is the address of the protected resource metadata.
	ResourceMetadata string
	// Error is "", "invalid_token" or "insufficient_scope".
	Error       string
	Description string
	Scopes      []Scope
}

// String renders the challenge. Quotes and backslashes are dropped from the
// description, which RFC 6750 limits to printable ASCII without them.
func (c Challenge) String() string {
	var b strings.Builder
	b.WriteString(`Bearer realm="finance"`)
	if c.Error != "" {
		b.WriteString(`, error="` + c.Error + `"`)
	}
	if d := strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return -1
		}
		return r
	}, c.Description); d != "" {
		b.WriteString(`, error_description="` + d + `"`)
	}
	if len(c.Scopes) > 0 {
		names := make([]string, len(c.Scopes))
		for i, s := range c.Scopes {
			names[i] = string(s)
		}
		b.WriteString(`, scope="` + strings.Join(names, " ") + `"`)
	}
	if c.ResourceMetadata != "" {
		b.WriteString(`, resource_metadata="` + c.ResourceMetadata + `"`)
	}
	return b.String()
}

func forbidden(msg string) error { return &Error{Kind: ErrForbidden, Message: msg} }
