// Headless Chromium walks the web app's first journey on a fresh server
// at phone size (390×844): first-run setup, Home, recording an expense (a
// refused form first, then a valid one), seeing it in Home's spending chart
// and its figures table, and finding it in the expense list; then the same
// user signs in at desktop width and finds it there. Every page is
// screenshotted in light and dark and checked by the accessibility linter
// (see webapp-kit.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { desktop, launchBrowser, openContext, phone, refusedFormAt, setUp, shots, signIn, snap } from './webapp-kit.mjs';

let finance, browser;

before(async () => {
  finance = await startFinance();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await finance?.stop();
  console.log(`screenshots: ${shots}`);
});

test('a new user records an expense on a phone and sees it on the Home chart', async () => {
  const { context, page, problems } = await openContext(browser, phone, refusedFormAt('/record'));
  await setUp(page, finance);
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
  const chart = page.locator('#spending-heading ~ svg.chart[role=img]');
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

test('at desktop width the same user signs in and finds the expense on Home and in the list', async () => {
  const { context, page, problems } = await openContext(browser, desktop);
  await signIn(page, finance);
  assert.match(await page.locator('#spending-heading ~ svg.chart[role=img]').getAttribute('aria-label'), /Food & Dining ₱250\.50/);
  await snap(page, '4-home', desktop.name);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Expenses' }).click();
  await page.waitForURL('**/expenses');
  assert.match(await page.textContent('main'), /Lunch with Ana/);
  await snap(page, '5-expenses', desktop.name);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Record' }).click();
  await page.waitForURL('**/record');
  await snap(page, '2-record', desktop.name);
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});
