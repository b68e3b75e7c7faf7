// What every web app journey shares: a headless Chromium, a fresh server
// with its first user signed in, the phone and desktop sizes, and snap(),
// which screenshots a page in light and dark, checks that nothing scrolls
// sideways or sticks out of its card and that no API value is shown as it
// is, and runs the accessibility linter (axe-core, pinned in package.json)
// over it: a serious or critical violation fails the test.
//
// Screenshots go to SCREENSHOT_DIR (CI keeps them as artifacts), by
// default a temporary directory that is printed at the end.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const shots = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'finance-screens-'));
mkdirSync(shots, { recursive: true });

export const phone = { name: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
export const desktop = { name: 'desktop', viewport: { width: 1280, height: 800 }, isMobile: false, hasTouch: false };

export const owner = { name: 'Owner', email: 'owner@example.com', password: 'correct horse battery staple' };

export function launchBrowser() {
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

// axe-core runs in the page through the DevTools protocol, which the page's
// CSP does not govern (a script tag would be refused, as it should be).
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Fails when axe-core finds a serious or critical violation on the page. */
export async function assertAccessible(page, name) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(axeSource);
  const result = await page.evaluate(() => window.axe.run(document, {
    runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  }));
  const bad = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), [],
    `${name}: accessibility violations`);
}

/**
 * What sticks out of the page's cards: each table, chip (.badge) and
 * scrolling region wider than the card (or stat, or main) that holds it,
 * as "what [left,right] in where [left,right]". A table may scroll inside
 * its region (.table-scroll, .table-wrap: a focusable, labelled box for a
 * table too wide for a phone) unless strict, where it must fit that region.
 */
export async function overflowing(page, { strict = false } = {}) {
  return page.evaluate((strict) => {
    const out = [];
    const name = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.classList.length ? `.${[...el.classList].join('.')}` : ''}`;
    for (const el of document.querySelectorAll('main table, main .badge, main .table-scroll, main .table-wrap')) {
      const r = el.getBoundingClientRect();
      if (!r.width) continue;
      const box = el.parentElement.closest('.card, .stat, main, .table-scroll, .table-wrap');
      if (!strict && box.matches('.table-scroll, .table-wrap')) continue;
      const b = box.getBoundingClientRect(), cs = getComputedStyle(box);
      const left = b.left + parseFloat(cs.borderLeftWidth), right = b.right - parseFloat(cs.borderRightWidth);
      if (r.left < left - 0.5 || r.right > right + 0.5) {
        out.push(`${name(el)} [${Math.round(r.left)},${Math.round(r.right)}] in ${name(box)} [${Math.round(left)},${Math.round(right)}]`);
      }
    }
    return out;
  }, strict);
}

// API values that have words of their own on the pages: shown as they are,
// they are the program's words, not the person's. A value with an
// underscore counts anywhere; a plain word when it is all of an element's
// text (an account's type under its name, say).
const rawValues = ['e_wallet', 'partially_paid', 'soa_payment', 'loan_payment', 'bill_payment', 'add_on', 'created_at',
  'credit_card', 'card_transaction', 'installment_plan'];
const rawWords = ['savings', 'checking', 'e_wallet', 'cash', 'other', 'unpaid', 'paid', 'skipped', 'waived', 'cancelled',
  'completed', 'active', 'paused', 'archived', 'posted', 'voided', 'unbilled', 'billed', 'converted', 'purchase', 'fee',
  'interest', 'refund', 'installment', 'weekly', 'biweekly', 'monthly', 'quarterly', 'semiannual', 'yearly', 'ok', 'warning',
  'exceeded', 'low', 'moderate', 'high', 'critical', 'revoked', 'expired', 'debit', 'credit', 'manual', 'adjustment',
  'diminishing', 'annual', 'day', 'week', 'month', 'expense', 'income'];

/** The API values the page shows as they are (see rawValues), as "value in text". */
export async function rawValuesShown(page) {
  return page.evaluate(({ rawValues, rawWords }) => {
    const out = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement.closest('script, style, code, pre, textarea')) continue;
      const text = n.nodeValue;
      for (const v of rawValues) if (new RegExp(`(^|[^\\w-])${v}($|[^\\w-])`).test(text)) out.push(`${v} in ${text.trim()}`);
      // A text that starts with one space goes on from the text before it: a word of a sentence.
      if (/^ \S/.test(text)) continue;
      if (rawWords.includes(text.trim()) && n.parentElement.textContent.trim() === text.trim()) out.push(`${text.trim()} in <${n.parentElement.tagName.toLowerCase()}>`);
    }
    return out;
  }, { rawValues, rawWords });
}

/**
 * Screenshots the page in light and dark at its context's size (named
 * webapp-<name>-<size>[-dark].png), checks it does not scroll sideways,
 * that nothing sticks out of its card (overflowing) and that no API value
 * is shown as it is (rawValuesShown), and runs the accessibility linter in
 * both color schemes.
 */
export async function snap(page, name, size = 'phone') {
  await page.screenshot({ path: join(shots, `webapp-${name}-${size}.png`), fullPage: true });
  await assertAccessible(page, `${name} (${size})`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, `webapp-${name}-${size}-dark.png`), fullPage: true });
  await assertAccessible(page, `${name} (${size}, dark)`);
  await page.emulateMedia({ colorScheme: 'light' });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `${name} scrolls sideways at ${size} width by ${overflow}px`);
  assert.deepEqual(await overflowing(page), [], `${name} at ${size} width: these stick out of their cards`);
  assert.deepEqual(await rawValuesShown(page), [], `${name} shows API values as they are`);
}

/**
 * A browser context of the given size whose console errors and page errors
 * (CSP violations among them) are collected in problems. expected(m) may
 * excuse a console message, for example the 400 document of a refused form.
 * options go to the context too (locale, timezoneId).
 */
export async function openContext(browser, size, expected = () => false, options = {}) {
  const context = await browser.newContext({ viewport: size.viewport, isMobile: size.isMobile, hasTouch: size.hasTouch, ...options });
  // Waits end on their event and the runner's timeout catches a hang; to
  // find what a hanging journey waits for, E2E_WAIT=20000 makes each wait
  // give up after 20 s, naming it.
  context.setDefaultTimeout(Number(process.env.E2E_WAIT ?? 0));
  const problems = [];
  const page = await context.newPage();
  page.on('console', (m) => {
    if (m.type() === 'error' && !expected(m)) problems.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(String(e)));
  return { context, page, problems };
}

/** Expected console errors: Chromium logs a refused form's 400 document. */
export function refusedFormAt(...paths) {
  return (m) => m.text().startsWith('Failed to load resource') && paths.includes(new URL(m.location().url).pathname);
}

/**
 * Creates the first user through the setup page; the page ends on Home,
 * signed in. The currency and timezone are chosen (pesos in Manila unless
 * told otherwise), not left to the browser's language and zone; null leaves
 * the page's own choice.
 */
export async function setUp(page, finance, { currency = 'PHP', timezone = 'Asia/Manila' } = {}) {
  await page.goto(finance.setupURL);
  await page.locator('input[name=name]').fill(owner.name);
  await page.locator('input[name=email]').fill(owner.email);
  await page.locator('input[name=password]').fill(owner.password);
  await page.locator('input[name=password_confirm]').fill(owner.password);
  if (currency) await page.locator('select[name=currency]').selectOption(currency);
  if (timezone) await page.locator('select[name=timezone]').selectOption(timezone);
  await page.getByRole('button', { name: 'Create user and sign in' }).click();
  await page.waitForURL('**/?notice=welcome');
}

/** Signs in as the owner in a fresh context; the page ends on Home. */
export async function signIn(page, finance) {
  await page.goto(`${finance.baseURL}/login`);
  await page.getByLabel('Email').fill(owner.email);
  await page.getByLabel('Password').fill(owner.password);
  await page.getByRole('button', { name: /Sign in/ }).click();
  await page.waitForURL((u) => new URL(u).pathname === '/');
}

/**
 * The link of the main navigation named name, to click. On a phone the
 * bottom bar holds Home, Record, Cards, Bills and More; another destination
 * is reached as a person reaches it there, through More.
 */
export function navLink(page, name) {
  const nav = page.getByRole('navigation', { name: 'Main' });
  const link = nav.getByRole('link', { name, exact: true });
  return {
    async click() {
      if (await link.isVisible()) return link.click();
      await nav.getByRole('link', { name: 'More', exact: true }).click();
      await page.waitForURL('**/more');
      await page.locator('main .more-links a', { has: page.locator('strong', { hasText: new RegExp(`^${name}$`) }) }).click();
    },
  };
}

/**
 * Every page of the web app a signed-in person reaches without a record's
 * id, for checks that go over all of them (nothing scrolls sideways, the
 * navigation is one row). Reports' pages are linked from /reports.
 */
export const appPages = ['/', '/record', '/record?kind=income', '/record/bulk', '/expenses', '/income', '/income/recurring',
  '/income/recurring/new', '/accounts', '/accounts/lines', '/transfers/new', '/cards', '/cards/transactions', '/bills',
  '/bills/templates', '/bills/templates/new', '/loans', '/loans/new', '/reports', '/more', '/settings', '/settings/profile',
  '/settings/password', '/settings/app', '/settings/categories', '/settings/category-rules', '/settings/exchange-rates', '/budgets',
  '/settings/reminders', '/settings/api-keys', '/settings/connected-apps', '/settings/messaging', '/imports', '/import',
  '/activity'];

/** Signs out as a person does: Sign out is on Settings (and on More). */
export async function signOut(page) {
  await navLink(page, 'Settings').click();
  await page.waitForURL('**/settings');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL('**/login');
}

// Dates as the server counts them: in the user's timezone, Asia/Manila by default.
const manilaToday = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Manila' }).format(new Date());

/** The date offset days from the server's today, as YYYY-MM-DD. */
export function day(offset) {
  const d = new Date(`${manilaToday}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + offset);
  return d.toISOString().slice(0, 10);
}

/**
 * Gives category a monthly limit (and a warning percent, else the default)
 * with the Budgets page's Add a limit, as a person does; the page ends on
 * Budgets, saved.
 */
export async function addBudget(page, category, limit, warning = '') {
  await page.locator('#budget-new-category').selectOption(category);
  await page.locator('#budget-new-limit').fill(limit);
  await page.locator('#budget-new-warning').fill(warning);
  await page.getByRole('button', { name: 'Add limit' }).click();
  await page.waitForURL('**/budgets?notice=budgets-saved');
}
