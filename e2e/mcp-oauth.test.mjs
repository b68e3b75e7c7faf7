// The official MCP TypeScript SDK connects to the real binary with no
// configuration but the server URL: it discovers the authorization server,
// registers itself, and runs the authorization code flow with PKCE. The
// browser part (sign-in and consent) is done here with plain HTTP requests,
// cookies and form tokens, as a browser would submit the forms. Then the
// client calls a tool, refreshes its tokens (rotation), and a replayed
// refresh token is refused and revokes the connection.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { auth, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { startFinance, CookieJar, formToken, hiddenFields } from './finance-server.mjs';

const email = 'oauth-e2e@example.com';
const password = 'correct horse battery staple';
const redirectUrl = 'http://127.0.0.1:8976/oauth/callback';

let finance;
before(async () => {
  finance = await startFinance();
  finance.cli(['users', 'create', '--email', email, '--name', 'E2E', '--plan', 'pro', '--password-stdin'], password + '\n');
});
after(async () => finance?.stop());

/** An OAuthClientProvider that keeps everything in memory and records the browser redirect. */
class MemoryProvider {
  constructor() {
    this.saved = [];
  }
  get redirectUrl() { return redirectUrl; }
  get clientMetadata() {
    return {
      client_name: 'finance e2e (MCP TypeScript SDK)',
      redirect_uris: [redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() { return (this.lastState = randomBytes(12).toString('hex')); }
  clientInformation() { return this.client; }
  saveClientInformation(info) { this.client = info; }
  tokens() { return this.current; }
  saveTokens(tokens) { this.current = tokens; this.saved.push(tokens); }
  redirectToAuthorization(url) { this.authorizationUrl = url; }
  saveCodeVerifier(v) { this.verifier = v; }
  codeVerifier() { return this.verifier; }
}

/** Does what the user's browser does: sign in, then approve the consent screen. */
async function signInAndApprove(authorizationUrl, keepScopes) {
  const jar = new CookieJar();
  let res = await jar.fetch(authorizationUrl);
  assert.equal(res.status, 303, 'signed out, the authorization endpoint sends the browser to sign in');
  const loginURL = new URL(res.headers.get('location'), finance.baseURL);
  assert.equal(loginURL.pathname, '/login');

  res = await jar.fetch(loginURL);
  const loginPage = await res.text();
  assert.match(loginPage, /Sign in to review the app/);
  res = await jar.post(new URL('/login', finance.baseURL), {
    csrf: formToken(loginPage), email, password, next: loginURL.searchParams.get('next'),
  });
  assert.equal(res.status, 303, 'sign-in succeeds');
  const back = new URL(res.headers.get('location'), finance.baseURL);
  assert.equal(back.pathname, '/api/oauth/authorize');

  res = await jar.fetch(back);
  assert.equal(res.status, 200);
  const consent = await res.text();
  assert.match(consent, /finance e2e \(MCP TypeScript SDK\)/, 'the consent page names the client');
  assert.match(consent, /an app on this device \(127\.0\.0\.1:8976\)/, 'and where the code goes');
  assert.match(res.headers.get('content-security-policy'), /frame-ancestors 'none'/);

  res = await jar.post(new URL('/api/oauth/authorize', finance.baseURL), {
    ...hiddenFields(consent), decision: 'approve', scope_grant: keepScopes,
  });
  assert.equal(res.status, 303, 'approval redirects to the client');
  return new URL(res.headers.get('location'));
}

test('the SDK connects through the full OAuth flow, refreshes, and a replayed refresh token is refused', async () => {
  const serverUrl = new URL('/api/mcp', finance.baseURL);
  const provider = new MemoryProvider();

  // 1. No credentials: the SDK discovers, registers, and asks for the browser.
  let transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
  let client = new Client({ name: 'finance-oauth-e2e', version: '1.0.0' });
  await assert.rejects(client.connect(transport), UnauthorizedError);
  assert.ok(provider.client?.client_id, 'dynamic client registration gave a client_id');
  assert.equal(provider.client.token_endpoint_auth_method, 'none');
  const authURL = provider.authorizationUrl;
  assert.ok(authURL, 'the SDK asked to open the authorization URL');
  assert.equal(authURL.pathname, '/api/oauth/authorize');
  assert.equal(authURL.searchParams.get('code_challenge_method'), 'S256');
  assert.equal(authURL.searchParams.get('resource'), `${finance.baseURL}/api/mcp`);

  // 2. The user signs in and approves reading, but not writing expenses.
  const callback = await signInAndApprove(authURL, ['finance:read']);
  assert.equal(`${callback.origin}${callback.pathname}`, redirectUrl);
  assert.equal(callback.searchParams.get('state'), provider.lastState, 'state comes back');
  assert.equal(callback.searchParams.get('iss'), finance.baseURL, 'iss comes back (RFC 9207)');
  const code = callback.searchParams.get('code');
  assert.ok(code);

  // 3. The SDK redeems the code (PKCE) and connects.
  await transport.finishAuth(code);
  const first = provider.current;
  assert.match(first.access_token, /^fat_/);
  assert.match(first.refresh_token, /^frt_/);
  assert.equal(first.scope, 'finance:read mcp:connect');
  await client.close().catch(() => {});
  transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
  client = new Client({ name: 'finance-oauth-e2e', version: '1.0.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert.ok(names.includes('list_categories'), `read tools are listed: ${names.join(', ')}`);
  assert.ok(!names.includes('create_expense'), 'write tools outside the grant are hidden');
  const result = await client.callTool({ name: 'list_categories', arguments: {} });
  assert.ok(!result.isError, `list_categories: ${JSON.stringify(result)}`);
  await client.close();

  // 4. Refresh: the SDK trades the refresh token for new tokens (rotation).
  assert.equal(await auth(provider, { serverUrl }), 'AUTHORIZED');
  const second = provider.current;
  assert.notEqual(second.refresh_token, first.refresh_token, 'the refresh token rotated');
  assert.notEqual(second.access_token, first.access_token);
  transport = new StreamableHTTPClientTransport(serverUrl, { authProvider: provider });
  client = new Client({ name: 'finance-oauth-e2e', version: '1.0.0' });
  await client.connect(transport);
  assert.ok(!(await client.callTool({ name: 'list_categories', arguments: {} })).isError);
  await client.close();

  // 5. The spent refresh token, replayed, is refused and revokes the connection.
  const replay = await fetch(new URL('/api/oauth/token', finance.baseURL), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: provider.client.client_id }),
  });
  assert.equal(replay.status, 400);
  assert.equal((await replay.json()).error, 'invalid_grant');
  const after = await fetch(new URL('/api/v1/health', finance.baseURL), { headers: { authorization: `Bearer ${second.access_token}` } });
  assert.equal(after.status, 401, 'the whole grant is revoked, including the newest access token');
  const rotated = await fetch(new URL('/api/oauth/token', finance.baseURL), {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: second.refresh_token, client_id: provider.client.client_id }),
  });
  assert.equal(rotated.status, 400, 'and its newest refresh token');
});
