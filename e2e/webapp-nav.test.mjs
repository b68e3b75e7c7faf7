// Headless Chromium moves around the web app as a person on a phone does:
// the navigation is one bottom bar (Home, Record, Cards, Bills, More) on
// every page, Record is one tap from any of them and opens on the quick
// form, More holds the rest and Sign out; no page of the app scrolls
// sideways at 320 or 390 px wide; a new API key is copied with its Copy
// button (app.js, under the pages' strict policy, with no console error);
// an unpaid bill's chip is not in the brand's colour. Pages are
// screenshotted in light and dark and checked by the accessibility linter
// (see webapp-kit.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { appPages, desktop, launchBrowser, navLink, openContext, owner, phone, setUp, shots, snap } from './webapp-kit.mjs';

let browser, finance, ids;

before(async () => {
  browser = await launchBrowser();
  finance = await startFinance();
});

after(async () => {
  await browser?.close();
  await finance?.stop();
  console.log(`screenshots: ${shots}`);
});

/** Records through the API with a key the CLI made, for pages that need records. */
async function seed() {
  const key = finance.cli(['keys', 'create', '--user', owner.email, '--name', 'e2e seed', '--scopes', 'all']).trim();
  const post = async (path, body) => {
    const r = await fetch(`${finance.baseURL}/api/v1${path}`, {
      method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
    });
    const text = await r.text();
    assert.equal(r.status, 201, `POST ${path}: ${text}`);
    return JSON.parse(text).data;
  };
  const account = await post('/accounts', { name: 'BPI Savings', type: 'savings', opening_balance: '25000' });
  const card = await post('/credit-cards', { name: 'Visa Platinum', credit_limit: '50000', statement_day: 10, due_day: 5 });
  const today = new Date().toISOString().slice(0, 10);
  await post('/bills/templates', { name: 'Electricity', amount: '1500', category: 'Utilities', frequency: 'monthly',
    start_date: `${today.slice(0, 8)}01`, due_day: 28 });
  return { account: account.id, card: card.id };
}

/** The visible links of the main navigation, with their boxes. */
function navBoxes(page) {
  return page.evaluate(() => [...document.querySelectorAll('nav[aria-label=Main] a')]
    .filter((a) => a.getBoundingClientRect().width > 0)
    .map((a) => { const r = a.getBoundingClientRect(); return { name: a.textContent.trim(), top: Math.round(r.top), bottom: Math.round(r.bottom) }; }));
}

/** Checks the navigation is one row of the bar's destinations, at the bottom of a phone's screen. */
async function assertBottomBar(page, where) {
  const links = await navBoxes(page);
  assert.deepEqual(links.map((l) => l.name), ['Home', 'Record', 'Cards', 'Bills', 'More'], `${where}: the bar's destinations`);
  assert.equal(new Set(links.map((l) => l.top)).size, 1, `${where}: the bar is one row`);
  const height = page.viewportSize().height;
  assert.ok(links.every((l) => l.bottom <= height && l.bottom > height - 80), `${where}: the bar is at the bottom of the screen: ${JSON.stringify(links)}`);
}

test('the phone navigation: a bottom bar, Record one tap away, More, every page fits at 320 and 390 px', async () => {
  const { context, page, problems } = await openContext(browser, phone);
  try {
    await setUp(page, finance);
    ids = await seed();
    await page.reload();
    await assertBottomBar(page, 'Home');

    // Record is one tap from Bills and from More, and opens on the quick form.
    for (const from of ['/bills', '/more']) {
      await page.goto(finance.baseURL + from);
      await navLink(page, 'Record').click();
      await page.waitForURL('**/record');
      const amount = await page.getByLabel('Amount').boundingBox();
      const typeIt = await page.getByRole('heading', { name: 'Type it' }).boundingBox();
      assert.ok(amount.y + amount.height < phone.viewport.height - 80, `from ${from}: the amount is on the first screen (at ${amount.y})`);
      assert.ok(typeIt.y > amount.y, 'Type it comes after the quick form');
    }
    await snap(page, 'nav-1-record', 'phone');
    // Type it is one tap from the top of Record.
    await page.getByRole('link', { name: 'Type it' }).click();
    await page.waitForURL('**/record#type-it');
    assert.ok((await page.getByLabel('What did you spend?').boundingBox()).y < phone.viewport.height, 'Type it is on the screen after one tap');

    // More holds the rest and Sign out; Accounts opened from it keeps More marked.
    await navLink(page, 'More').click();
    await page.waitForURL('**/more');
    await assertBottomBar(page, 'More');
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).count(), 1);
    await snap(page, 'nav-2-more', 'phone');
    await navLink(page, 'Accounts').click();
    await page.waitForURL('**/accounts');
    assert.match(await page.locator('nav[aria-label=Main] a.nav-more').getAttribute('class'), /nav-within/);

    // An unpaid bill's chip is neutral, not the brand's colour.
    await navLink(page, 'Bills').click();
    await page.waitForURL('**/bills');
    const chip = await page.locator('.list .badge.status-unpaid').first().evaluate((el) => getComputedStyle(el).color);
    const brand = await page.evaluate(() => getComputedStyle(document.querySelector('.badge:not(.status-unpaid)') ?? document.body).color);
    assert.notEqual(chip, 'rgb(11, 93, 87)', 'Unpaid is not in the brand colour');
    assert.ok(brand, 'a chip for comparison');
    await snap(page, 'nav-3-bills', 'phone');

    // Every page of the app, at 320 and 390 px: nothing scrolls sideways and the bar is one row.
    await page.goto(`${finance.baseURL}/reports`);
    const reports = await page.locator('main a[href^="/reports/"]').evaluateAll((as) => [...new Set(as.map((a) => a.getAttribute('href')))]);
    assert.ok(reports.length >= 5, `reports listed: ${reports}`);
    const pages = [...appPages, ...reports, `/accounts/${ids.account}`, `/cards/${ids.card}`];
    for (const width of [320, 390]) {
      await page.setViewportSize({ width, height: 844 });
      for (const path of pages) {
        await page.goto(finance.baseURL + path);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        assert.ok(overflow <= 0, `${path} scrolls sideways by ${overflow}px at ${width}px`);
        await assertBottomBar(page, `${path} at ${width}px`);
      }
    }
    assert.deepEqual(problems, [], 'no console errors (a refused script or manifest would be one)');
  } finally {
    await context.close();
  }
});

test('a new API key is copied with its Copy button, and the desktop navigation is one row', async () => {
  const { context, page, problems } = await openContext(browser, desktop);
  try {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: finance.baseURL });
    await page.goto(`${finance.baseURL}/login`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: /Sign in/ }).click();
    await page.waitForURL((u) => new URL(u).pathname === '/');
    const links = await navBoxes(page);
    assert.deepEqual(links.map((l) => l.name),
      ['Home', 'Record', 'Expenses', 'Income', 'Accounts', 'Cards', 'Bills', 'Budgets', 'Loans', 'Reports', 'Settings']);
    assert.equal(new Set(links.map((l) => l.top)).size, 1, 'the top bar is one row at 1280 px');

    await navLink(page, 'Settings').click();
    await page.getByRole('link', { name: /API keys/ }).click();
    await page.waitForURL('**/settings/api-keys');
    await page.getByRole('link', { name: /MCP agent/ }).click();
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.locator('#new-key').inputValue();
    assert.match(key, /^svk_/);
    await page.getByRole('button', { name: 'Copy the key' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied.' }).first().waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), key, 'the clipboard holds the key');
    await snap(page, 'nav-4-new-key', 'desktop');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('without a script the pages work and show no Copy button', async () => {
  const context = await browser.newContext({ viewport: phone.viewport, isMobile: true, hasTouch: true, javaScriptEnabled: false });
  const page = await context.newPage();
  try {
    await page.goto(`${finance.baseURL}/login`);
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: /Sign in/ }).click();
    await page.waitForURL((u) => new URL(u).pathname === '/');
    await page.goto(`${finance.baseURL}/settings/api-keys?preset=mcp-agent`);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.locator('#new-key').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Copy the key' }).count(), 0, 'no Copy button without a script');
    await navLink(page, 'Record').click();
    await page.waitForURL('**/record');
    await page.getByLabel('Amount').fill('120');
    await page.getByLabel('Description').fill('Coffee');
    await page.getByLabel('Category').selectOption({ index: 1 });
    await page.getByRole('button', { name: 'Save expense' }).click();
    await page.waitForURL((u) => new URL(u).searchParams.get('notice') === 'expense-recorded');
  } finally {
    await context.close();
  }
});
