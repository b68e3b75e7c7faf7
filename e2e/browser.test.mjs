// Headless Chromium (Debian's chromium package, driven by playwright-core)
// uses the web pages as a person would: first-run setup, an API key created
// from the MCP agent preset and shown once with its MCP client configuration
// (which then opens an MCP session), sign-out and sign-in, faulty
// authorization requests refused on a page without any redirect, a consent
// screen approved for an OAuth client, and the connected apps page. It takes
// a screenshot of each page at desktop and phone widths (SCREENSHOT_DIR,
// default a temporary directory) so that their look can be checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startFinance } from './finance-server.mjs';
import { navLink, signOut } from './webapp-kit.mjs';

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const shots = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'finance-screens-'));
mkdirSync(shots, { recursive: true });
const email = 'owner@example.com';
const password = 'correct horse battery staple';

let finance, browser, callbackServer, callbackURL;
const callbacks = [];
const refusedURLs = new Set(); // authorization requests the server is expected to refuse (400)

before(async () => {
  finance = await startFinance();
  browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  // The OAuth client's redirect target: a local listener, as native apps use.
  // It records only requests for the callback path: Chromium also asks this
  // origin for /favicon.ico once the page has loaded, at a moment of its own.
  // That gets an empty answer (a 404 would be logged as a console error).
  callbackServer = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname !== '/callback') {
      res.writeHead(204).end();
      return;
    }
    callbacks.push(url);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('Connected. You can close this window.');
  });
  await new Promise((r) => callbackServer.listen(0, '127.0.0.1', r));
  callbackURL = `http://127.0.0.1:${callbackServer.address().port}/callback`;
});

after(async () => {
  await browser?.close();
  callbackServer?.close();
  await finance?.stop();
  console.log(`screenshots: ${shots}`);
});

const sizes = { desktop: { width: 1280, height: 860 }, phone: { width: 390, height: 844 } };

/** Screenshots the current page at both widths. */
async function snap(page, name) {
  for (const [label, size] of Object.entries(sizes)) {
    await page.setViewportSize(size);
    await page.screenshot({ path: join(shots, `${name}-${label}.png`), fullPage: true });
  }
  await page.setViewportSize(sizes.desktop);
}

/** No horizontal scrolling on a phone. */
async function fitsPhone(page, name) {
  await page.setViewportSize(sizes.phone);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  await page.setViewportSize(sizes.desktop);
  assert.ok(overflow <= 0, `${name} scrolls sideways on a phone by ${overflow}px`);
}

/**
 * Opens a faulty authorization request and checks that the server answers
 * it with its error page (400) saying `reason`, with no redirect: the
 * browser stays on the server, and the client's listener got nothing.
 * Navigation follows redirects before goto resolves, so had there been one,
 * the listener would already have recorded it.
 */
async function refusedOnPage(page, url, reason) {
  refusedURLs.add(url.href);
  const before = callbacks.length;
  const res = await page.goto(url.href);
  assert.equal(res.status(), 400);
  assert.equal(res.request().redirectedFrom(), null, 'no redirect');
  assert.equal(page.url(), url.href);
  assert.match(await page.textContent('h1'), /This connection request cannot be completed/);
  assert.match(await page.textContent('main'), reason);
  assert.equal(callbacks.length, before, 'the client got no callback');
}

test('setup, API key, sign-in, consent and connected apps through the pages', async () => {
  const context = await browser.newContext({ viewport: sizes.desktop });
  // Playwright gives up on a wait after 30 seconds by default; on a busy
  // machine that is a flake, not a finding. Waits here end on their event,
  // and the test runner's timeout catches a hang.
  context.setDefaultTimeout(0);
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    // Chromium logs every 4xx document as an error; those of the refusals this test asks for are expected.
    const expected = m.text().startsWith('Failed to load resource') && refusedURLs.has(m.location().url);
    if (m.type() === 'error' && !expected) problems.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(String(e)));

  // First-run setup, from the link in the server log.
  await page.goto(finance.setupURL);
  assert.equal(await page.title(), 'Set up · finance');
  await snap(page, '1-setup');
  await fitsPhone(page, 'setup');
  await page.locator('input[name=name]').fill('Owner');
  await page.locator('input[name=email]').fill(email);
  await page.locator('input[name=password]').fill(password);
  await page.locator('input[name=password_confirm]').fill(password);
  await page.getByRole('button', { name: 'Create user and sign in' }).click();
  await page.waitForURL('**/?notice=welcome');
  assert.match(await page.textContent('main'), /Your user is ready/);
  await navLink(page, 'Settings').click();
  await page.waitForURL('**/settings');
  await page.getByRole('link', { name: /API keys/ }).click();
  await page.waitForURL('**/settings/api-keys');

  // The MCP agent preset fills the form; the user renames the key and
  // shortens its expiry before creating it. It is shown once, with the MCP
  // endpoint and client configurations.
  await page.getByRole('link', { name: /MCP agent/ }).click();
  await page.waitForURL('**/settings/api-keys?preset=mcp-agent#create');
  assert.equal(await page.locator('input[name=name]').inputValue(), 'MCP agent');
  const ticked = await page.locator('input[name=scopes]:checked').evaluateAll((boxes) => boxes.map((b) => b.value));
  assert.deepEqual(ticked, ['finance:read', 'expenses:write', 'mcp:connect']);
  await snap(page, '2-api-key-preset');
  await fitsPhone(page, 'API keys with the preset');
  await page.locator('input[name=name]').fill('laptop agent');
  await page.locator('select[name=expires_in]').selectOption('30d');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = await page.locator('#new-key').inputValue();
  assert.match(key, /^svk_[a-z2-7]+_[a-z2-7]+$/);
  const mcpURL = `${finance.baseURL}/api/mcp`;
  assert.equal(await page.locator('#mcp-url').inputValue(), mcpURL);
  assert.equal(await page.locator('#mcp-claude-code').inputValue(),
    `claude mcp add --transport http finance ${mcpURL} --header "Authorization: Bearer ${key}"`);
  const mcpJSON = JSON.parse(await page.locator('#mcp-json').inputValue());
  assert.deepEqual(mcpJSON, {
    mcpServers: { finance: { type: 'http', url: mcpURL, headers: { Authorization: 'Bearer ${FINANCE_API_KEY}' } } },
  });
  await snap(page, '2-api-key-created');
  await fitsPhone(page, 'API keys with a new key');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, '2-api-key-created-dark.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });

  // The configuration works as shown: its URL and header (with the key in
  // FINANCE_API_KEY) open an MCP session.
  const { url, headers } = mcpJSON.mcpServers.finance;
  const initialize = await fetch(url, {
    method: 'POST',
    headers: {
      authorization: headers.Authorization.replace('${FINANCE_API_KEY}', key),
      'content-type': 'application/json', accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser-e2e', version: '1' } } }),
  });
  assert.equal(initialize.status, 200, 'the key and configuration shown on the page open an MCP session');
  assert.equal((await initialize.json()).result.serverInfo.name, 'finance');
  await page.goto(`${finance.baseURL}/settings/api-keys`);
  assert.ok(!(await page.content()).includes(key), 'the key is shown only once');
  assert.match(await page.textContent('main'), /laptop agent/);

  // Sign out, then sign in again.
  await signOut(page);
  await snap(page, '3-sign-in');
  await fitsPhone(page, 'sign-in');

  // An OAuth client registers and sends the browser to the authorization endpoint.
  const reg = await fetch(`${finance.baseURL}/api/oauth/register`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Claude Desktop', redirect_uris: [callbackURL], token_endpoint_auth_method: 'none' }),
  }).then((r) => r.json());
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const authURL = new URL('/api/oauth/authorize', finance.baseURL);
  authURL.search = new URLSearchParams({
    response_type: 'code', client_id: reg.client_id, redirect_uri: callbackURL, state: 'xyz-state',
    code_challenge: challenge, code_challenge_method: 'S256', resource: `${finance.baseURL}/api/mcp`,
    scope: 'finance:read expenses:write income:write mcp:connect',
  });

  // A faulty request (here: plain PKCE) is refused on a page of the server,
  // signed out as well as signed in: the browser is never sent to the client.
  const faulty = new URL(authURL);
  faulty.searchParams.set('code_challenge_method', 'plain');
  await refusedOnPage(page, faulty, /plain is not supported/);

  await page.goto(authURL.href);
  await page.waitForURL('**/login?next=*');
  assert.match(await page.textContent('main'), /Sign in to review the app/);
  await page.locator('input[name=email]').fill(email);
  await page.locator('input[name=password]').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/api/oauth/authorize?*');
  assert.match(await page.textContent('h1'), /Claude Desktop wants to use your finance data/);
  await snap(page, '4-consent');
  await fitsPhone(page, 'consent');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, '4-consent-dark.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });

  await refusedOnPage(page, faulty, /plain is not supported/);
  await page.goto(authURL.href);

  // The user unticks income:write and approves.
  await page.locator('input[name=scope_grant][value="income:write"]').uncheck();
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.waitForURL(`${callbackURL}?*`);
  // The page's own URL is the redirect the browser followed. The listener
  // answered that request before the page could load, so it has recorded it:
  // exactly one callback, the same one.
  const cb = new URL(page.url());
  assert.deepEqual(callbacks.map((u) => u.search), [cb.search], 'the client got one callback, the one the browser shows');
  assert.equal(cb.searchParams.get('state'), 'xyz-state');
  assert.equal(cb.searchParams.get('iss'), finance.baseURL);
  const token = await fetch(`${finance.baseURL}/api/oauth/token`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: cb.searchParams.get('code'),
      code_verifier: verifier, redirect_uri: callbackURL, client_id: reg.client_id }),
  }).then((r) => r.json());
  assert.equal(token.scope, 'finance:read expenses:write mcp:connect');
  const withToken = await fetch(`${finance.baseURL}/api/v1/health`, { headers: { authorization: `Bearer ${token.access_token}` } });
  assert.equal(withToken.status, 200);

  // Connected apps lists it; disconnecting stops its token at once.
  await page.goto(`${finance.baseURL}/settings/connected-apps`);
  assert.match(await page.textContent('main'), /Claude Desktop/);
  assert.match(await page.textContent('main'), /finance:read, expenses:write, mcp:connect/);
  await snap(page, '5-connected-apps');
  await fitsPhone(page, 'connected apps');
  await page.getByRole('button', { name: 'Disconnect' }).click();
  await page.waitForURL('**/settings/connected-apps?notice=disconnected');
  const revoked = await fetch(`${finance.baseURL}/api/v1/health`, { headers: { authorization: `Bearer ${token.access_token}` } });
  assert.equal(revoked.status, 401);

  assert.deepEqual(problems, [], 'no console errors (CSP violations show up here)');

  // An error page (400), for a client the server does not know.
  await refusedOnPage(page, new URL(`${finance.baseURL}/api/oauth/authorize?client_id=unknown&response_type=code`), /unknown client_id/);
  await snap(page, '6-error');
  await fitsPhone(page, 'error page');
  await context.close();
});
