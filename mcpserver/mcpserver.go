package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpgo "github.com/mark3labs/mcp-go/server"

	"github.com/finance-app/finance/auth"
	assets "github.com/finance-app/finance/embed"
)

// REST serves the REST API in process as an already authenticated principal
// (server.Server.ServeAs). Plan and scope are still checked per route.
type REST interface {
	ServeAs(p auth.Principal, w http.ResponseWriter, r *http.Request)
}

// Config holds what the MCP endpoint needs to know about the deployment.
type Config struct {
	// BaseURL is the service's external address; browser requests from its
	// origin are accepted, like those from loopback origins.
	BaseURL string
	// Version is reported as serverInfo.version.
	Version string
	// Logger receives tool failures; nil means slog.Default().
	Logger *slog.Logger
	// CORSOrigins are browser origins (scheme://host[:port], lower case)
	// that may call the endpoint besides the service's own and loopback
	// ones; the server adds the CORS headers for them.
	CORSOrigins []string
	// ResourceMetadataURL is the protected resource metadata (RFC 9728) that
	// the step-up challenge of an OAuth token lacking a tool's scope names.
	ResourceMetadataURL string
	// Settings gives the instructions the user's today, timezone and
	// currency; nil leaves them out.
	Settings Settings
	// Now is the clock of "today"; nil means time.Now.
	Now func() time.Time
	// ToolCalls is told of every tool call (the metrics); nil for none.
	ToolCalls ToolCallObserver
}

// ToolCallObserver is told of each tool call: the tool and the HTTP status
// of its REST route's answer (400 for arguments that formed no request, 500
// for a panic).
type ToolCallObserver interface {
	ToolCall(tool string, status int)
}

// ProtocolVersions are the MCP revisions this endpoint speaks, newest first.
// 2026-07-28 is served without a handshake (server/discover, the version in
// every request's _meta); the others through initialize, which answers a
// client asking for a version it does not know with 2025-11-25.
var ProtocolVersions = []string{
	mcp.ProtocolVersion20260728,
	mcp.ProtocolVersion20251125,
	mcp.ProtocolVersion20250618,
	mcp.ProtocolVersion20250326,
	mcp.ProtocolVersion20241105,
}

// How long a client may reuse a tools/list or server/discover result
// (ttlMs of 2026-07-28). Both depend on the caller (its scopes; the
// discover instructions also carry the user's today), so both are private.
const (
	ToolsListTTL = 5 * time.Minute
	DiscoverTTL  = 5 * time.Minute
)

// Instructions are sent to every client in the initialize result: the safety
// rules of the specification (section 4.6), and the rule that warnings are
// shown to the user.
const Instructions = `This server is the user's personal finance ledger: expenses, income, accounts and their transactions, credit cards and categories. Every tool reads or writes only the user's own records, through the same rules as the REST API. Amounts are decimal numbers with at most their currency's decimals (2; JPY and a few others none), greater than 0 unless described as signed; dates are YYYY-MM-DD and months YYYY-MM; a payment's or balance adjustment's date defaults to today; a day of the month is 1 to 31, 31 meaning its last day. A category argument names an active category of the tool's kind. null or "" leaves an optional field empty (in an update, clears it). List tools answer compact items (no null fields, nested lists or timestamps); pass detail=full for every field. They take page (from 1) and limit (1 to 100, default 20), and sortOrder asc or desc where they sort, and answer pagination: page, limit, total_items, total_pages.

Currencies are ISO 4217 codes in any case. Accounts, cards, loans and bill templates each have a currency: on create it defaults to the user's reporting currency, and it is fixed once money is recorded (CURRENCY_FIXED). An expense or income is in its account's or card's currency; a Cash expense, or income without an account, in its currency (default the reporting one). A card purchase abroad takes original_amount and original_currency; amount, what the card bills, then defaults to their conversion plus the card's foreign_fee_percent. A transfer's to_amount is what arrives in the destination's currency (default: amount converted at the date's rate). A record's amounts are in its currency (a transfer's in from_currency and to_currency); summaries and reports are in the reporting currency they name as currency: an amount without a rate is left out and named in missing_rates, never converted 1:1.

Safety rules:
1. Read first to identify accounts, cards, statements, bills, loan installments and categories (for example list_accounts, list_credit_cards, list_categories, get_expense_form_options) before writing.
2. Ask the user to confirm before calling write tools, especially payments, deletes, splits and balance adjustments.
3. Do not blindly retry payment or balance tools after a network failure; read the latest state first. Where a tool takes an idempotency_key, send a new one with each write and the same one when retrying it: a repeat within 24 hours returns the first result, marked as replayed, instead of writing twice. IDEMPOTENCY_CONFLICT means the key already did another write: read the state before anything else, and write again only if the user wants another write.
4. Payment methods are only Cash, Account Debit and Credit Card.
5. Account Debit needs an active account_id; Credit Card needs an active credit_card_id where supported.
6. Grant only the write scopes an integration needs.
7. A write's result may carry a "Warnings" text block: an account left below zero, a card over its limit, a likely duplicate, an expense that looks like a bill or loan payment (also in the result's warnings). The write was saved; show every warning to the user before going on, and let the user decide whether to correct it.`

// Handler is the MCP endpoint. It sits behind the server's middleware, which
// has already limited the body, authenticated the caller (401 with the OAuth
// challenge), checked the Pro plan (402), the rate limit (429) and mcp:connect
// (403). It adds what is MCP's own: the Origin check against DNS rebinding,
// the protocol version header, and the JSON-RPC exchange itself.
type Handler struct {
	rest      REST
	metadata  string
	cors      []string
	log       *slog.Logger
	baseURL   *url.URL
	tools     []tool
	byName    map[string]tool
	transport *mcpgo.StreamableHTTPServer
	settings  Settings
	now       func() time.Time
	calls     ToolCallObserver
}

// New builds the endpoint and its tools from the table and the contract.
// It fails when a tool names a route the contract does not have.
func New(rest REST, cfg Config) (*Handler, error) {
	h := &Handler{rest: rest, log: cfg.Logger, metadata: cfg.ResourceMetadataURL, cors: cfg.CORSOrigins, byName: map[string]tool{},
		settings: cfg.Settings, now: cfg.Now, calls: cfg.ToolCalls}
	if h.log == nil {
		h.log = slog.Default()
	}
	if h.now == nil {
		h.now = time.Now
	}
	if cfg.BaseURL != "" {
		u, err := url.Parse(cfg.BaseURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("mcpserver: base URL %q is not an absolute URL", cfg.BaseURL)
		}
		h.baseURL = u
	}
	c, err := parseContract(assets.OpenAPI)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	for _, spec := range toolTable {
		op, err := c.operation(spec.method, spec.path, spec.whole)
		if err != nil {
			return nil, fmt.Errorf("mcpserver: tool %s: %w", spec.name, err)
		}
		if _, dup := h.byName[spec.name]; dup {
			return nil, fmt.Errorf("mcpserver: tool %s is in the table twice", spec.name)
		}
		if spec.body != "" {
			if op, err = op.withFixedBody(spec.body); err != nil {
				return nil, fmt.Errorf("mcpserver: tool %s: %w", spec.name, err)
			}
		}
		if spec.unsorted {
			if op, err = op.withoutSorting(); err != nil {
				return nil, fmt.Errorf("mcpserver: tool %s: %w", spec.name, err)
			}
		}
		if spec.fileAsText != "" {
			if op, err = op.withTextFile(spec.fileAsText); err != nil {
				return nil, fmt.Errorf("mcpserver: tool %s: %w", spec.name, err)
			}
		}
		if spec.itemsOf != "" {
			if op, err = op.withItemsOf(h.byName[spec.itemsOf]); err != nil {
				return nil, fmt.Errorf("mcpserver: tool %s: %w", spec.name, err)
			}
		}
		t := tool{toolSpec: spec, operation: op}
		h.tools = append(h.tools, t)
		h.byName[spec.name] = t
	}
	if err := h.saidOnce(); err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}

	// mcp-go v1.2.1 answers initialize with any version it knows, up to
	// 2025-11-25 (mcp.NegotiateLegacyVersion); the hook caps the answer at
	// the versions this endpoint speaks.
	hooks := &mcpgo.Hooks{}
	hooks.AddAfterInitialize(func(ctx context.Context, _ any, req *mcp.InitializeRequest, res *mcp.InitializeResult) {
		res.ProtocolVersion = negotiate(req.Params.ProtocolVersion)
		res.Instructions = h.withContext(ctx)
	})
	hooks.AddAfterDiscover(func(ctx context.Context, _ any, _ *mcp.DiscoverRequest, res *mcp.DiscoverResult) {
		res.Instructions = h.withContext(ctx)
	})
	s := mcpgo.NewMCPServer("finance", cfg.Version,
		mcpgo.WithTitle("Finance"),
		mcpgo.WithToolCapabilities(false),
		mcpgo.WithInstructions(Instructions),
		mcpgo.WithHooks(hooks),
		mcpgo.WithToolFilter(h.visible),
		// Caching hints (2026-07-28). The tool list changes only when the
		// server is upgraded, but it depends on the caller's scopes, so it is
		// private; server/discover's instructions carry the caller's scopes
		// and today, so it is private too.
		mcpgo.WithMethodCacheHints(mcp.MethodToolsList, ToolsListTTL.Milliseconds(), mcp.CacheScopePrivate),
		mcpgo.WithMethodCacheHints(mcp.MethodServerDiscover, DiscoverTTL.Milliseconds(), mcp.CacheScopePrivate),
	)
	for _, t := range h.tools {
		s.AddTool(t.mcpTool(), h.call(t))
	}
	h.transport = mcpgo.NewStreamableHTTPServer(s,
		// Stateless: no Mcp-Session-Id is issued, and any replica can serve any request.
		mcpgo.WithStateLess(true),
		// No GET stream: the endpoint never pushes, and GET and DELETE are
		// answered 405 by the router before they get here.
		mcpgo.WithDisableStreaming(true),
		mcpgo.WithStreamableHTTPProtocolVersions(ProtocolVersions...),
		mcpgo.WithStreamableHTTPLogger(h.log),
	)
	return h, nil
}

// negotiate picks the protocol version of the initialize result: the one
// asked for when this endpoint speaks it, else the newest it can negotiate
// through initialize. 2026-07-28 and later have no initialize handshake (a
// client reaches them with server/discover), so initialize never answers one.
func negotiate(requested string) string {
	legacy := slices.DeleteFunc(slices.Clone(ProtocolVersions), mcp.IsModernProtocol)
	if slices.Contains(legacy, requested) {
		return requested
	}
	return legacy[0]
}

// saidOnce leaves out of each update_X tool's arguments the descriptions
// that create_X gives its argument of the same name word for word ("The
// name of an active expense category."): a model reads both tools in one
// list, and the list's every byte is paid by every conversation.
func (h *Handler) saidOnce() error {
	for i, t := range h.tools {
		rest, ok := strings.CutPrefix(t.name, "update_")
		create, found := h.byName["create_"+rest]
		if !ok || !found {
			continue
		}
		var upd, cre struct {
			Properties map[string]map[string]any `json:"properties"`
		}
		var whole map[string]any
		if err := errors.Join(json.Unmarshal(t.inputSchema, &upd), json.Unmarshal(create.inputSchema, &cre),
			json.Unmarshal(t.inputSchema, &whole)); err != nil {
			return err
		}
		props, _ := whole["properties"].(map[string]any)
		changed := false
		for name, p := range upd.Properties {
			if d, ok := p["description"]; ok && cre.Properties[name] != nil && cre.Properties[name]["description"] == d {
				delete(props[name].(map[string]any), "description")
				changed = true
			}
		}
		if !changed {
			continue
		}
		schema, err := json.Marshal(whole)
		if err != nil {
			return err
		}
		t.inputSchema = schema
		h.tools[i], h.byName[t.name] = t, t
	}
	return nil
}

// listedTitle is the title tools/list sends: none when it only spells out
// the name ("List income" for list_income), since a client shows the name
// where a tool has no title, and every conversation pays for the list. A
// title that says more ("Void income" for delete_income) is sent. The
// table keeps every title for the app's assistant.
func (t tool) listedTitle() string {
	words := func(s string) []string {
		return slices.DeleteFunc(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return r == ' ' || r == '_' || r == '\'' }),
			func(w string) bool { return w == "a" || w == "an" || w == "the" || w == "s" })
	}
	if slices.Equal(words(t.title), words(t.name)) {
		return ""
	}
	return t.title
}

func (t tool) mcpTool() mcp.Tool {
	out := mcp.Tool{
		Name:           t.name,
		Title:          t.listedTitle(),
		Description:    t.description,
		RawInputSchema: t.inputSchema,
		Annotations:    t.hints.annotations(),
	}
	// A read advertises the route's success data, where the contract defines
	// it as an object; the result's structuredContent is that data. A write
	// advertises none: its reply is the record it wrote, which the matching
	// read tool describes, and the schemas of every write would double the
	// list an agent reads before its first call. Its result still carries
	// structuredContent (MCP allows it without a schema), and the tests hold
	// it to the contract's schema all the same.
	if t.hints.readOnly {
		out.RawOutputSchema = t.outputSchema
	}
	return out
}

// visible keeps the tools whose route the caller may call. mcp-go applies it
// to tools/list and to tools/call, so a hidden tool cannot be called either.
func (h *Handler) visible(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return nil
	}
	return slices.DeleteFunc(tools, func(mt mcp.Tool) bool {
		t, ok := h.byName[mt.Name]
		return !ok || p.Allow(t.access) != nil
	})
}

// ServeHTTP answers one POST of the Streamable HTTP transport.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body) // bounded by the server's body limit
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, nil, rpcError{code: mcp.INVALID_REQUEST,
				message: fmt.Sprintf("Request body is larger than the %d byte limit", tooLarge.Limit)})
			return
		}
		writeRPCError(w, http.StatusBadRequest, nil, rpcError{code: mcp.PARSE_ERROR, message: "Could not read the request body"})
		return
	}
	// Every refusal below carries the request's id when the body has one.
	id := requestID(body)
	if origin := r.Header.Get("Origin"); origin != "" && !h.allowedOrigin(origin) {
		writeRPCError(w, http.StatusForbidden, id, rpcError{code: mcp.INVALID_REQUEST,
			message: "Origin " + origin + " may not call this endpoint: browser pages may call it only from " + h.ownOrigin() + ", a loopback address or an origin the server allows with --cors-origin"})
		return
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		// Checked here too so that the refusal is JSON like every other answer.
		writeRPCError(w, http.StatusBadRequest, id, rpcError{code: mcp.INVALID_REQUEST, message: "Content-Type must be application/json"})
		return
	}
	headerVersion := r.Header.Get(mcp.HeaderProtocolVersion)
	msg, problem := readMessage(body)
	modern := mcp.IsModernProtocol(headerVersion) || mcp.IsModernProtocol(msg.metaVersion)
	if problem != nil {
		writeRPCError(w, httpStatus(problem.code, modern), msg.id, *problem)
		return
	}
	// An unknown version in the header or in the request's _meta is refused
	// with the versions this endpoint speaks, so the client can retry with
	// one (initialize negotiates in its body, but a header it sends is
	// checked too). When a 2026-07-28 request's header and _meta disagree,
	// mcp-go answers with the header mismatch error instead.
	mismatch := modern && headerVersion != "" && msg.metaVersion != "" && headerVersion != msg.metaVersion
	for _, v := range []string{headerVersion, msg.metaVersion} {
		if v != "" && !mismatch && !slices.Contains(ProtocolVersions, v) {
			writeRPCError(w, http.StatusBadRequest, msg.id, *unsupportedVersion(v))
			return
		}
	}
	if h.stepUp(w, r, msg) || h.hiddenTool(w, r, msg) {
		return
	}
	// Handle rather than ServeHTTP: ServeHTTP adds mcp-go's own DNS rebinding
	// guard, which refuses any request on a loopback connection whose Host is
	// not localhost, and so every request from a reverse proxy on the same
	// host. The Origin check above is this endpoint's guard.
	h.transport.Handle(jsonOnly{w}, &mcpgo.HTTPRequest{
		Method:  r.Method,
		URL:     r.URL,
		Header:  r.Header,
		Body:    body,
		Context: r.Context(),
	})
}

// stepUp refuses a tools/call of an OAuth token that lacks the tool's scope
// with 403 and an insufficient_scope challenge naming the scopes the call
// needs (those granted and the missing one), and reports whether it did. The
// client can then ask the user to approve just that scope and call again
// (step-up authorization, MCP 2025-11-25), so it need not ask for every
// scope up front. API keys cannot be widened that way: for them the tool is
// hidden, and calling it is a tool error naming the scope (hiddenTool).
func (h *Handler) stepUp(w http.ResponseWriter, r *http.Request, msg message) bool {
	p, t, refused := h.refusedCall(r, msg)
	if refused == nil || p.Method != auth.MethodOAuth || len(refused.Needed) == 0 {
		return false
	}
	c := auth.Challenge{ResourceMetadata: h.metadata, Error: "insufficient_scope", Scopes: refused.Needed,
		Description: "Tool " + t.name + " needs a scope this token lacks: " + refused.Message}
	w.Header().Set("WWW-Authenticate", c.String())
	writeRPCError(w, http.StatusForbidden, msg.id, rpcError{code: mcp.INVALID_REQUEST, message: c.Description})
	return true
}

// allowedOrigin guards against DNS rebinding: a browser page may call the
// endpoint only from the service's own origin or from a loopback origin (the
// UI of a client on the user's machine). A rebound page keeps its own origin,
// which is neither. Requests without Origin pass: browsers send it on every
// POST, so those come from programs that a web page cannot drive.
func (h *Handler) allowedOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if h.baseURL != nil && strings.EqualFold(u.Scheme, h.baseURL.Scheme) && strings.EqualFold(u.Host, h.baseURL.Host) {
		return true
	}
	if slices.Contains(h.cors, strings.ToLower(u.Scheme+"://"+u.Host)) {
		return true
	}
	return isLoopback(u.Hostname())
}

func (h *Handler) ownOrigin() string {
	if h.baseURL == nil {
		return "this service"
	}
	return h.baseURL.Scheme + "://" + h.baseURL.Host
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.IsLoopback()
}

// jsonOnly hands mcp-go a writer that cannot stream, so every answer is one
// application/json document (mcp-go upgrades to text/event-stream only when
// it can flush). Clients that accept both get JSON, which the transport allows.
type jsonOnly struct{ w http.ResponseWriter }

func (j jsonOnly) Header() http.Header         { return j.w.Header() }
func (j jsonOnly) WriteHeader(status int)      { j.w.WriteHeader(status) }
func (j jsonOnly) Write(p []byte) (int, error) { return j.w.Write(p) }
func (j jsonOnly) Flush()                      {}
func (j jsonOnly) CanStream() bool             { return false }

var _ mcpgo.HTTPResponseWriter = jsonOnly{}
