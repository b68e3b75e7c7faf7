package goclients

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// newestSDKVersion is the newest protocol version the Go SDK offers; a
// connection on any other one fell back.
var newestSDKVersion = mcp.SupportedProtocolVersions()[0]

// The official Go SDK connects with an API key set on its http.Client, lands
// on its newest protocol version through server/discover, and its tools'
// output schemas describe what their calls return.
func TestGoSDKAPIKey(t *testing.T) {
	ctx := t.Context()
	const email = "go-sdk@example.com"
	f := startFinance(t)
	f.createUser(email, "correct horse battery staple")
	key := f.createKey(email, "finance:read,expenses:write,mcp:connect")

	rec := &wire{header: http.Header{"Authorization": {"Bearer " + key}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "finance-e2e-go-sdk", Version: "1.0.0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: f.mcpURL(), HTTPClient: &http.Client{Transport: rec}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	init := cs.InitializeResult()
	if newestSDKVersion < "2025-11-25" || init.ProtocolVersion != newestSDKVersion {
		t.Fatalf("negotiated %s, want the SDK's newest, %s", init.ProtocolVersion, newestSDKVersion)
	}
	if init.ServerInfo == nil || init.ServerInfo.Name != "finance" || init.Capabilities.Tools == nil ||
		!strings.Contains(init.Instructions, "Ask the user to confirm before calling write tools") {
		t.Errorf("discovery result: %+v", init)
	}
	checkModern(t, rec.take(), []string{"server/discover"}, newestSDKVersion)

	tools, err := cs.ListTools(ctx, &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range tools.Tools {
		byName[tool.Name] = tool
	}
	for _, name := range []string{"list_expenses", "get_expense", "get_expense_form_options"} {
		if byName[name] == nil || byName[name].OutputSchema == nil {
			t.Fatalf("%s is not listed with an output schema", name)
		}
	}
	// A write advertises none: its reply is the record its read tool
	// describes, which the created expense is held to below.
	if byName["create_expense"] == nil || byName["create_expense"].OutputSchema != nil {
		t.Fatalf("create_expense is not listed, or listed with an output schema: %+v", byName["create_expense"])
	}
	if byName["create_income"] != nil {
		t.Error("create_income is listed, though the key lacks income:write")
	}

	created := callStructured(t, cs, "create_expense", map[string]any{
		"amount": "12.50", "date": "2026-11-21", "description": "Coffee (Go SDK)", "category": "Food & Dining", "payment_method": "Cash",
	}, byName["get_expense"].OutputSchema)
	id, _ := created["id"].(string)
	if id == "" || created["amount"] != 12.5 || created["description"] != "Coffee (Go SDK)" {
		t.Fatalf("create_expense: %v", created)
	}
	listed := callStructured(t, cs, "list_expenses", map[string]any{"search": "Go SDK"}, byName["list_expenses"].OutputSchema)
	if items, _ := listed["items"].([]any); len(items) != 1 || items[0].(map[string]any)["id"] != id {
		t.Fatalf("list_expenses: %v", listed)
	}
	var stored map[string]any
	f.getJSON("/api/v1/expenses/"+id, key, http.StatusOK, &stored)
	if stored["description"] != "Coffee (Go SDK)" || stored["amount"] != 12.5 {
		t.Errorf("the expense over REST: %v", stored)
	}

	// The schema is not a formality: a result of the wrong shape fails it.
	wrong := map[string]any{}
	for k, v := range created {
		wrong[k] = v
	}
	wrong["id"] = 42
	if err := resolve(t, byName["get_expense"].OutputSchema).Validate(wrong); err == nil {
		t.Error("get_expense's output schema accepts an expense whose id is a number")
	}

	// A refused call is a tool error whose text is the REST error object,
	// with no structuredContent to hold against the output schema.
	refused, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_expense", Arguments: map[string]any{
		"amount": "2845.60", "date": "2026-11-21", "description": "Meralco (Go SDK)", "category": "Utilities", "payment_method": "Account Debit",
	}})
	if err != nil {
		t.Fatalf("create_expense without account_id: %v", err)
	}
	var problem struct {
		Message, Code string
		Fields        map[string]string
	}
	if !refused.IsError || refused.StructuredContent != nil || len(refused.Content) != 1 {
		t.Fatalf("create_expense without account_id: %+v, want a tool error with one text and no structured content", refused)
	}
	if text, ok := refused.Content[0].(*mcp.TextContent); !ok || json.Unmarshal([]byte(text.Text), &problem) != nil ||
		problem.Code != "VALIDATION_ERROR" || problem.Fields["account_id"] != "is required when payment_method is Account Debit" ||
		!strings.Contains(problem.Message, "account_id is required when payment_method is Account Debit") {
		t.Errorf("the refusal's text: %+v, want the REST error", refused.Content[0])
	}
	checkModern(t, rec.take(), []string{"tools/list", "tools/call", "tools/call", "tools/call"}, newestSDKVersion)
}

// The Go SDK's own OAuth handler: on the first 401 it discovers the
// authorization server, registers, and has the person approve what the
// challenge asks (reading); a write tool outside that grant is answered with
// insufficient_scope, and the handler asks the person again for that one
// scope more (step-up) and retries the call, which then records the expense.
func TestGoSDKOAuthStepUp(t *testing.T) {
	ctx := t.Context()
	const email, password = "go-sdk-oauth@example.com", "correct horse battery staple"
	const redirectURI = "http://127.0.0.1:8978/oauth/callback"
	f := startFinance(t)
	f.createUser(email, password)

	rec := &wire{}
	httpClient := &http.Client{Transport: rec}
	person := newBrowser(f.baseURL, email, password)
	var mu sync.Mutex
	var asked []url.Values // the query of each authorization URL
	var consents []string
	keep := [][]string{{"finance:read"}, {"finance:read", "expenses:write"}}
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName:              "finance e2e (Go SDK)",
			RedirectURIs:            []string{redirectURI},
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}},
		AuthorizationCodeFetcher: func(_ context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			mu.Lock()
			defer mu.Unlock()
			u, err := url.Parse(args.URL)
			if err != nil {
				return nil, err
			}
			asked = append(asked, u.Query())
			consent, callback, err := person.approve(args.URL, keep[min(len(asked), len(keep))-1]...)
			if err != nil {
				return nil, err
			}
			consents = append(consents, consent)
			q := callback.Query()
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
		Client: httpClient,
	})
	if err != nil {
		t.Fatal(err)
	}

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "finance-e2e-go-sdk-oauth", Version: "1.0.0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: f.mcpURL(), HTTPClient: httpClient, OAuthHandler: handler}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != newestSDKVersion {
		t.Fatalf("negotiated %s, want the SDK's newest, %s", got, newestSDKVersion)
	}
	log := rec.take()
	if got, want := paths(log), []string{"/api/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server",
		"/api/oauth/register", "/api/oauth/token", "/api/mcp"}; !slices.Equal(got, want) {
		t.Fatalf("requests of the first connection: %v, want %v", got, want)
	}
	if log[0].Status != http.StatusUnauthorized {
		t.Errorf("the first server/discover got %d, want 401", log[0].Status)
	}
	checkModern(t, log[len(log)-1:], []string{"server/discover"}, newestSDKVersion)
	// The order of the scopes asked for is the SDK's: it varies between runs.
	if len(asked) != 1 || !sameScopes(asked[0].Get("scope"), "finance:read mcp:connect") || asked[0].Get("code_challenge_method") != "S256" ||
		asked[0].Get("resource") != f.mcpURL() || !strings.Contains(consents[0], "finance e2e (Go SDK)") {
		t.Fatalf("first authorization: %v", asked)
	}

	tools, err := cs.ListTools(ctx, &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, len(tools.Tools))
	for i, tool := range tools.Tools {
		names[i] = tool.Name
	}
	if !slices.Contains(names, "list_expenses") || slices.Contains(names, "create_expense") {
		t.Errorf("tools of a read-only grant: %v", names)
	}

	// Step-up: the write is refused with insufficient_scope, the person
	// approves expenses:write as well, and the SDK retries the call.
	rec.take()
	created, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_expense", Arguments: map[string]any{
		"amount": "80", "date": "2026-11-22", "description": "Taxi (Go SDK step-up)", "category": "Transportation", "payment_method": "Cash",
	}})
	if err != nil {
		t.Fatal(err)
	}
	content, _ := created.StructuredContent.(map[string]any)
	if created.IsError || content["description"] != "Taxi (Go SDK step-up)" {
		t.Fatalf("create_expense after step-up: %+v", created)
	}
	log = rec.take()
	if got, want := paths(log), []string{"/api/mcp", "/.well-known/oauth-protected-resource", "/.well-known/oauth-authorization-server",
		"/api/oauth/register", "/api/oauth/token", "/api/mcp"}; !slices.Equal(got, want) {
		t.Fatalf("requests of the step-up: %v, want %v", got, want)
	}
	if refused := log[0]; refused.Method != "tools/call" || refused.Version != newestSDKVersion || refused.Status != http.StatusForbidden {
		t.Errorf("the write without the scope: %+v, want tools/call at %s refused with 403", refused, newestSDKVersion)
	}
	checkModern(t, log[1:], []string{"tools/call"}, newestSDKVersion)
	if len(asked) != 2 || !sameScopes(asked[1].Get("scope"), "finance:read mcp:connect expenses:write") {
		t.Fatalf("step-up authorization asked for %v", asked)
	}
	token, err := handler.TokenSource(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := token.Token()
	if err != nil {
		t.Fatal(err)
	}
	var stored map[string]any
	f.getJSON("/api/v1/expenses/"+content["id"].(string), tok.AccessToken, http.StatusOK, &stored)
	if stored["description"] != "Taxi (Go SDK step-up)" || stored["category"] != "Transportation" {
		t.Errorf("the expense over REST: %v", stored)
	}
}

// callStructured calls a tool with the Go SDK, fails on a tool error, checks
// the structured content against the tool's output schema and returns it.
func callStructured(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any, schema any) map[string]any {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	content, ok := res.StructuredContent.(map[string]any)
	if res.IsError || !ok {
		t.Fatalf("%s: %+v", name, res)
	}
	if err := resolve(t, schema).Validate(content); err != nil {
		t.Errorf("%s: the structured content does not validate against the output schema: %v", name, err)
	}
	return content
}

// resolve turns a tool's output schema, as the SDK decoded it, into a
// validator.
func resolve(t *testing.T, schema any) *jsonschema.Resolved {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatalf("output schema: %v\n%s", err, raw)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("output schema: %v\n%s", err, raw)
	}
	return rs
}

// sameScopes reports whether two space-separated scope lists hold the same scopes.
func sameScopes(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}
