// Headless Chromium (Debian's chromium package, driven by playwright-core)
// uses the web pages as a person would: first-run setup, an API key created
// and shown once, sign-out and sign-in, a consent screen approved for an
// OAuth client, and the connected apps page. It takes a screenshot of each
// page at desktop and phone widths (SCREENSHOT_DIR, default a temporary
// directory) so that their look can be checked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startFinance } from './finance-server.mjs';

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const shots = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'finance-screens-'));
mkdirSync(shots, { recursive: true });
const email = 'owner@example.com';
const password = 'correct horse battery staple';

let finance, browser, callbackServer, callbackURL;
const callbacks = [];

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

test('setup, API key, sign-in, consent and connected apps through the pages', async () => {
  const context = await browser.newContext({ viewport: sizes.desktop });
  // Playwright gives up on a wait after 30 seconds by default; on a busy
  // machine that is a flake, not a finding. Waits here end on their event,
  // and the test runner's timeout catches a hang.
  context.setDefaultTimeout(0);
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
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
  await page.waitForURL('**/settings/api-keys?notice=welcome');
  assert.match(await page.textContent('main'), /Your user is ready/);

  // An API key with chosen scopes and an expiry, shown once.
  await page.locator('input[name=name]').fill('laptop agent');
  await page.locator('input[name=scopes][value="expenses:write"]').check();
  await page.locator('select[name=expires_in]').selectOption('30d');
  await page.getByRole('button', { name: 'Create key' }).click();
  const key = await page.locator('#new-key').inputValue();
  assert.match(key, /^svk_[a-z2-7]+_[a-z2-7]+$/);
  await snap(page, '2-api-key-created');
  await fitsPhone(page, 'API keys');
  const health = await fetch(`${finance.baseURL}/api/v1/health`, { headers: { authorization: `Bearer ${key}` } });
  assert.equal(health.status, 200, 'the key created on the page works');
  await page.goto(`${finance.baseURL}/settings/api-keys`);
  assert.ok(!(await page.content()).includes(key), 'the key is shown only once');
  assert.match(await page.textContent('main'), /laptop agent/);

  // Sign out, then sign in again.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL('**/login');
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
  await page.goto(`${finance.baseURL}/api/oauth/authorize?client_id=unknown&response_type=code`);
  assert.match(await page.textContent('h1'), /cannot be completed/);
  await snap(page, '6-error');
  await context.close();
});
