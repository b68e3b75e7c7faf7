// Headless Chromium at phone size (390×844) walks the web app's first
// journey on a fresh server: first-run setup, Home, recording an expense
// (a refused form first, then a valid one), seeing it in Home's spending
// chart and its figures table, and finding it in the expense list. It
// saves a screenshot of each page (SCREENSHOT_DIR, default a temporary
// directory), in light and dark, and checks nothing scrolls sideways.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startFinance } from './finance-server.mjs';

const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
const shots = process.env.SCREENSHOT_DIR ?? mkdtempSync(join(tmpdir(), 'finance-screens-'));
mkdirSync(shots, { recursive: true });
const phone = { width: 390, height: 844 };

let finance, browser;

before(async () => {
  finance = await startFinance();
  browser = await chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
});

after(async () => {
  await browser?.close();
  await finance?.stop();
  console.log(`screenshots: ${shots}`);
});

/** Screenshots the page in light and dark, and checks it fits the phone's width. */
async function snap(page, name) {
  await page.screenshot({ path: join(shots, `webapp-${name}-phone.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, `webapp-${name}-phone-dark.png`), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `${name} scrolls sideways on a phone by ${overflow}px`);
}

test('a new user records an expense on a phone and sees it on the Home chart', async () => {
  const context = await browser.newContext({ viewport: phone, isMobile: true, hasTouch: true });
  context.setDefaultTimeout(0); // waits end on their event; the runner's timeout catches a hang
  const page = await context.newPage();
  const problems = [];
  page.on('console', (m) => {
    // Chromium logs the refused form's 400 document as an error; that one is expected.
    const expected = m.text().startsWith('Failed to load resource') && new URL(m.location().url).pathname === '/record';
    if (m.type() === 'error' && !expected) problems.push(`${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => problems.push(String(e)));

  await page.goto(finance.setupURL);
  await page.locator('input[name=name]').fill('Owner');
  await page.locator('input[name=email]').fill('owner@example.com');
  await page.locator('input[name=password]').fill('correct horse battery staple');
  await page.locator('input[name=password_confirm]').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Create user and sign in' }).click();
  await page.waitForURL('**/?notice=welcome');
  assert.match(await page.textContent('[role=status]'), /Your user is ready/);
  assert.match(await page.textContent('#spending-heading + p'), /No spending recorded/);
  await snap(page, '1-home-empty');

  // Keyboard users can skip the navigation.
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.textContent), 'Skip to content');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Record' }).click();
  await page.waitForURL('**/record');
  const today = await page.getByLabel('Date').inputValue();
  assert.match(today, /^\d{4}-\d{2}-\d{2}$/, 'the date defaults to today');
  // Cash is the default method: the account and card pickers are hidden.
  assert.equal(await page.getByLabel('Cash').isChecked(), true);
  assert.equal(await page.locator('#account_id').isVisible(), false);
  await snap(page, '2-record');

  // A refused form keeps what was typed and says what is wrong beside the field.
  await page.getByLabel('Description').fill('Lunch with Ana');
  await page.getByLabel('Category').selectOption('Food & Dining');
  await page.getByRole('button', { name: 'Save expense' }).click();
  await page.waitForSelector('#amount-error');
  assert.equal(await page.textContent('#amount-error'), 'Amount is required');
  assert.equal(await page.locator('#amount').getAttribute('aria-invalid'), 'true');
  assert.equal(await page.getByLabel('Description').inputValue(), 'Lunch with Ana');
  await snap(page, '3-record-refused');

  await page.locator('#amount').fill('250.50');
  await page.getByRole('button', { name: 'Save expense' }).click();
  await page.waitForURL('**/?month=*&notice=expense-recorded');
  assert.match(await page.textContent('[role=status]'), /Expense recorded/);

  // The chart draws it, and its table holds the same figures.
  const chart = page.locator('svg.chart[role=img]');
  assert.match(await chart.getAttribute('aria-label'), /Food & Dining ₱250\.50/);
  assert.deepEqual(await page.locator('#spending-table tbody tr').evaluateAll((rows) =>
    rows.map((r) => [...r.children].map((c) => c.textContent.trim()))), [['Food & Dining', '₱250.50']]);
  assert.match(await page.textContent('#recent-heading + ul'), /Lunch with Ana/);
  await snap(page, '4-home');

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Expenses' }).click();
  await page.waitForURL('**/expenses');
  assert.match(await page.textContent('#list-heading'), /1 expense$/);
  assert.match(await page.textContent('main'), /Lunch with Ana/);
  await snap(page, '5-expenses');

  assert.deepEqual(problems, [], 'no console errors (CSP violations show up here)');
  await context.close();
});
