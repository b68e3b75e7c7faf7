package goclients

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// The mcp-go client connects with OAuth as its documentation shows: it finds
// the authorization server from the protected resource metadata, registers
// itself, sends the person to the authorization URL with PKCE, and redeems
// the code. Then it reaches the newest protocol it knows with no fallback,
// lists and calls tools, refreshes its tokens when the access token has
// expired, and a replayed refresh token is refused and ends the connection.
func TestMCPGoClientOAuth(t *testing.T) {
	ctx := t.Context()
	const email, password = "mcp-go@example.com", "correct horse battery staple"
	const redirectURI = "http://127.0.0.1:8977/oauth/callback"
	f := startFinance(t)
	f.createUser(email, password)

	rec := &wire{}
	httpClient := &http.Client{Transport: rec}
	store := client.NewMemoryTokenStore()
	// What client.NewOAuthStreamableHttpClient builds, with one client option
	// more: the server/discover probe is given no time limit (its default of
	// five seconds guards against servers that never answer), so a slow
	// machine cannot turn a late answer into a fallback to initialize.
	trans, err := transport.NewStreamableHTTP(f.mcpURL(), transport.WithHTTPOAuth(client.OAuthConfig{
		RedirectURI: redirectURI,
		Scopes:      []string{"finance:read", "expenses:write", "mcp:connect"},
		TokenStore:  store,
		PKCEEnabled: true,
		HTTPClient:  httpClient,
	}), transport.WithHTTPBasicClient(httpClient))
	if err != nil {
		t.Fatal(err)
	}
	c := client.NewClient(trans, client.WithDiscoverTimeout(-1))
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	initialize := mcp.InitializeRequest{Params: mcp.InitializeParams{
		ClientInfo: mcp.Implementation{Name: "finance-e2e-mcp-go", Version: "1.0.0"},
	}}

	// 1. Without a token the client asks for authorization.
	_, err = c.Initialize(ctx, initialize)
	if !client.IsOAuthAuthorizationRequiredError(err) {
		t.Fatalf("initialize without a token: %v, want an OAuth authorization required error", err)
	}
	handler := client.GetOAuthHandler(err)

	// 2. Discovery: the protected resource metadata names this server as the
	// authorization server, whose metadata gives the endpoints.
	meta, err := handler.GetServerMetadata(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if meta.Issuer != f.baseURL || meta.AuthorizationEndpoint != f.baseURL+"/api/oauth/authorize" ||
		meta.TokenEndpoint != f.baseURL+"/api/oauth/token" || meta.RegistrationEndpoint != f.baseURL+"/api/oauth/register" {
		t.Fatalf("authorization server metadata: %+v", meta)
	}
	if !slices.Equal(meta.CodeChallengeMethodsSupported, []string{"S256"}) {
		t.Errorf("code_challenge_methods_supported = %v", meta.CodeChallengeMethodsSupported)
	}

	// 3. Dynamic client registration, as a public client.
	if err := handler.RegisterClient(ctx, "finance e2e (mcp-go)"); err != nil {
		t.Fatal(err)
	}
	clientID := handler.GetClientID()
	if clientID == "" || handler.GetTokenEndpointAuthMethod() != "none" {
		t.Fatalf("registration: client_id %q, token_endpoint_auth_method %q", clientID, handler.GetTokenEndpointAuthMethod())
	}
	wantPaths := []string{"/.well-known/oauth-protected-resource/api/mcp", "/.well-known/oauth-authorization-server", "/api/oauth/register"}
	if got := paths(rec.take()); !slices.Equal(got, wantPaths) {
		t.Errorf("discovery and registration requests: %v, want %v", got, wantPaths)
	}

	// 4. The authorization URL with PKCE; the person signs in and approves
	// reading and recording expenses.
	verifier, err := client.GenerateCodeVerifier()
	if err != nil {
		t.Fatal(err)
	}
	state, err := client.GenerateState()
	if err != nil {
		t.Fatal(err)
	}
	authURL, err := handler.GetAuthorizationURL(ctx, state, client.GenerateCodeChallenge(verifier))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"code_challenge_method=S256", "resource=" + url.QueryEscape(f.mcpURL())} {
		if !strings.Contains(authURL, want) {
			t.Errorf("authorization URL %s lacks %s", authURL, want)
		}
	}
	consent, callback, err := newBrowser(f.baseURL, email, password).approve(authURL, "finance:read", "expenses:write")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(consent, "finance e2e (mcp-go)") || !strings.Contains(consent, "127.0.0.1:8977") {
		t.Errorf("the consent page does not name the client and where the code goes:\n%s", consent)
	}
	q := callback.Query()
	if got := callback.Scheme + "://" + callback.Host + callback.Path; got != redirectURI || q.Get("state") != state || q.Get("iss") != f.baseURL {
		t.Fatalf("redirect to the app: %s (state %q, iss %q)", callback, q.Get("state"), q.Get("iss"))
	}

	// 5. The code exchange, with the PKCE verifier.
	if err := handler.ProcessAuthorizationResponse(ctx, q.Get("code"), state, verifier); err != nil {
		t.Fatal(err)
	}
	first, err := store.GetToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(first.AccessToken, "fat_") || !strings.HasPrefix(first.RefreshToken, "frt_") ||
		first.Scope != "finance:read expenses:write mcp:connect" || first.ExpiresIn != 3600 {
		t.Fatalf("token response: %+v", first)
	}
	rec.take()

	// 6. Connected: the client asks server/discover at the newest version it
	// knows and stays on it; initialize is never sent.
	res, err := c.Initialize(ctx, initialize)
	if err != nil {
		t.Fatal(err)
	}
	if c.ProtocolVersion() != mcp.LATEST_PROTOCOL_VERSION || res.ProtocolVersion != mcp.LATEST_PROTOCOL_VERSION {
		t.Fatalf("negotiated %q (result %q), want the client's newest, %s", c.ProtocolVersion(), res.ProtocolVersion, mcp.LATEST_PROTOCOL_VERSION)
	}
	if res.ServerInfo.Name != "finance" || res.Capabilities.Tools == nil {
		t.Errorf("discovery result: %+v", res)
	}
	checkModern(t, rec.take(), []string{"server/discover"}, mcp.LATEST_PROTOCOL_VERSION)

	// 7. Tools: list, record an expense, and find it again.
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]mcp.Tool{}
	for _, tool := range tools.Tools {
		byName[tool.Name] = tool
	}
	for _, name := range []string{"list_expenses", "create_expense", "get_expense_form_options"} {
		if _, ok := byName[name]; !ok {
			t.Errorf("%s is not listed", name)
		}
	}
	if _, ok := byName["create_income"]; ok {
		t.Error("create_income is listed, though income:write was not granted")
	}
	if byName["list_expenses"].OutputSchema.Type != "object" || byName["list_expenses"].OutputSchema.Properties["items"] == nil {
		t.Errorf("list_expenses outputSchema: %+v", byName["list_expenses"].OutputSchema)
	}
	// A write advertises no outputSchema: its reply is the record its read tool describes.
	if byName["create_expense"].OutputSchema.Type != "" || byName["create_expense"].RawOutputSchema != nil {
		t.Errorf("create_expense outputSchema: %+v", byName["create_expense"].OutputSchema)
	}
	created := callTool(t, c, "create_expense", map[string]any{
		"amount": "249.50", "date": "2026-11-21", "description": "Lunch (mcp-go)", "category": "Food & Dining", "payment_method": "Cash",
	})
	id, _ := created["id"].(string)
	if id == "" || created["amount"] != 249.5 || created["description"] != "Lunch (mcp-go)" {
		t.Fatalf("create_expense: %v", created)
	}
	listed := callTool(t, c, "list_expenses", map[string]any{"search": "mcp-go"})
	items, _ := listed["items"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["id"] != id {
		t.Fatalf("list_expenses: %v", listed)
	}
	var stored map[string]any
	f.getJSON("/api/v1/expenses/"+id, first.AccessToken, http.StatusOK, &stored)
	if stored["description"] != "Lunch (mcp-go)" || stored["payment_method"] != "Cash" || stored["amount"] != 249.5 {
		t.Errorf("the expense over REST: %v", stored)
	}
	checkModern(t, rec.take(), []string{"tools/list", "tools/call", "tools/call"}, mcp.LATEST_PROTOCOL_VERSION)

	// 8. An hour on, the access token has expired: the client refreshes it by
	// itself before its next request, and the refresh token rotates.
	expired := *first
	expired.ExpiresAt = time.Now().Add(-time.Minute)
	if err := store.SaveToken(ctx, &expired); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); err != nil {
		t.Fatal(err)
	}
	second, err := store.GetToken(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if second.AccessToken == first.AccessToken || second.RefreshToken == first.RefreshToken ||
		!strings.HasPrefix(second.RefreshToken, "frt_") || second.Scope != first.Scope {
		t.Fatalf("refresh: %+v after %+v", second, first)
	}
	if got := paths(rec.take()); !slices.Equal(got, []string{"/api/oauth/token", "/api/mcp"}) {
		t.Errorf("requests of the refresh: %v", got)
	}
	f.getJSON("/api/v1/expenses/"+id, second.AccessToken, http.StatusOK, nil)

	// 9. The spent refresh token, replayed, is refused with invalid_grant and
	// revokes the connection: the newest tokens stop working too.
	_, err = handler.RefreshToken(ctx, first.RefreshToken)
	var oauthErr transport.OAuthError
	if !errors.As(err, &oauthErr) || oauthErr.ErrorCode != "invalid_grant" {
		t.Fatalf("replayed refresh token: %v, want invalid_grant", err)
	}
	if _, err := c.ListTools(ctx, mcp.ListToolsRequest{}); !client.IsOAuthAuthorizationRequiredError(err) {
		t.Errorf("a call after the replay: %v, want an OAuth authorization required error", err)
	}
	f.getJSON("/api/v1/expenses/"+id, second.AccessToken, http.StatusUnauthorized, nil)
	_, err = handler.RefreshToken(ctx, second.RefreshToken)
	if !errors.As(err, &oauthErr) || oauthErr.ErrorCode != "invalid_grant" {
		t.Errorf("the newest refresh token after the replay: %v, want invalid_grant", err)
	}
}

// callTool calls a tool with mcp-go and returns its structured content,
// failing on a tool error.
func callTool(t *testing.T, c *client.Client, name string, args map[string]any) map[string]any {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(t.Context(), req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	content, ok := res.StructuredContent.(map[string]any)
	if res.IsError || !ok {
		t.Fatalf("%s: %+v", name, res)
	}
	return content
}

// checkModern fails unless the exchanges with the MCP endpoint were exactly
// want, each carrying the MCP-Protocol-Version header version and answered
// 200: a client that fell back would send initialize or an older version.
func checkModern(t *testing.T, log []exchange, want []string, version string) {
	t.Helper()
	if got := methods(log); !slices.Equal(got, want) {
		t.Errorf("MCP requests %v, want %v", got, want)
	}
	for _, ex := range log {
		if ex.Method != "" && (ex.Version != version || ex.Status != http.StatusOK) {
			t.Errorf("%s carried MCP-Protocol-Version %q and got %d, want %s and 200", ex.Method, ex.Version, ex.Status, version)
		}
	}
}

// paths lists the URL paths of the exchanges.
func paths(log []exchange) []string {
	out := make([]string, len(log))
	for i, ex := range log {
		out[i] = ex.Path
	}
	return out
}
