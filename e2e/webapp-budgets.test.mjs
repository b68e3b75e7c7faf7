// Headless Chromium walks the Budgets page on a fresh server. At phone size
// (390×844) a person reaches it through More, sees the empty page, adds
// two limits (one typed "1,000"), records this month's spending on Record
// (last month's came through the API), and reads each category's bars for
// this month and last in words: what is left or over, spent of limit. A
// limit is edited in place and the other one is kept; a refused limit is
// shown beside its field and changes nothing. At desktop size (1280×800)
// the top bar links Budgets, the page shows the same, a limit is removed,
// and the month before is a tap away. Settings' old address leads to the
// page. Every view goes through
// snap() (light and dark, no sideways scroll, axe).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { addBudget, day, desktop, launchBrowser, navLink, openContext, owner, phone, refusedFormAt, setUp, shots, signIn, snap } from './webapp-kit.mjs';

let finance, browser;

/** The fifth of the month before the server's today, as YYYY-MM-DD. */
function lastMonthDay() {
  const [y, m] = day(0).split('-').map(Number);
  const d = new Date(Date.UTC(y, m - 2, 5));
  return d.toISOString().slice(0, 10);
}

/** A month as the page names it: "March 2025". */
function monthName(date) {
  return new Date(`${date}T00:00:00Z`).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

before(async () => {
  finance = await startFinance();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await finance?.stop();
  console.log(`screenshots: ${shots}`);
});

/** Each budget card's name and months: [name, [when, left or over, spent, limit]...], as the page reads. */
async function budgetCards(page) {
  return page.locator('.budget-row').evaluateAll((rows) => rows.map((row) => [
    row.querySelector('.budget-name span').textContent.trim(),
    ...[...row.querySelectorAll('.budget-month')].map((m) =>
      ['.when', '.left', '.spent', '.limit'].map((part) => m.querySelector(part).textContent.trim())),
  ]));
}

/** Records an expense on the Record page, as a person does. */
async function record(page, amount, description, category) {
  await page.goto(`${finance.baseURL}/record`);
  await page.getByLabel('Amount').fill(amount);
  await page.getByLabel('Description').fill(description);
  await page.getByLabel('Category').selectOption(category);
  await page.getByRole('radio', { name: 'Cash' }).check();
  await page.getByRole('button', { name: 'Save expense' }).click();
  await page.waitForURL((u) => new URL(u).searchParams.get('notice') === 'expense-recorded');
}

test('budgets at phone size: add two limits, see this month and last, edit one in place', async () => {
  const { context, page, problems } = await openContext(browser, phone, refusedFormAt('/budgets'));
  await setUp(page, finance);

  // Last month's groceries, through the API.
  const key = finance.cli(['keys', 'create', '--user', owner.email, '--name', 'seed', '--scopes', 'all']).trim();
  const r = await fetch(`${finance.baseURL}/api/v1/expenses`, {
    method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ amount: '400', date: lastMonthDay(), description: 'Market', category: 'Groceries', payment_method: 'Cash' }),
  });
  assert.equal(r.status, 201, await r.text());

  // Reached through More; no budgets yet.
  await navLink(page, 'Budgets').click();
  await page.waitForURL('**/budgets');
  assert.equal(await page.locator('nav[aria-label=Main] a[href="/budgets"]').getAttribute('aria-current'), 'page');
  assert.match(await page.textContent('main'), /No budgets yet\./);
  await snap(page, 'budgets-1-empty');

  // Two limits, one added at a time; the first keeps its limit when the second is added.
  await page.getByLabel('Category').selectOption('Groceries');
  await page.getByLabel('Monthly limit').fill('1,000');
  await page.getByRole('button', { name: 'Add limit' }).click();
  await page.waitForURL('**/budgets?notice=budgets-saved');
  await addBudget(page, 'Transportation', '500', '50');
  assert.equal(await page.getByLabel('Monthly limit for Groceries').inputValue(), '1000.00');
  assert.equal(await page.getByLabel('Monthly limit for Transportation').inputValue(), '500.00');
  assert.equal(await page.getByLabel('Warning at % for Transportation').inputValue(), '50');

  // This month's spending, recorded on Record.
  await record(page, '1,199', 'Market', 'Groceries');
  await record(page, '260', 'Bus pass', 'Transportation');
  await page.goto(`${finance.baseURL}/budgets`);
  const [thisMonth, lastMonth] = [day(0), lastMonthDay()].map(monthName);
  assert.deepEqual(await budgetCards(page), [
    ['Groceries', [thisMonth, '₱199.00 over', '₱1,199.00', '₱1,000.00'], [lastMonth, '₱600.00 left', '₱400.00', '₱1,000.00']],
    ['Transportation', [thisMonth, '₱240.00 left', '₱260.00', '₱500.00'], [lastMonth, '₱500.00 left', '₱0.00', '₱500.00']],
  ]);
  assert.match(await page.locator('.budget-row').first().textContent(), /Over limit/);
  assert.match(await page.locator('.budget-row').nth(1).textContent(), /Near limit/);
  assert.match(await page.textContent('.budget-total'), /₱1,459\.00 spent of ₱1,500\.00/);
  await snap(page, 'budgets-2-bars');

  // Groceries' limit raised in place, with its own Save; Transportation's is kept.
  await page.getByLabel('Monthly limit for Groceries').fill('1,500');
  await page.locator('.budget-row').first().getByRole('button', { name: 'Save budgets' }).click();
  await page.waitForURL('**/budgets?notice=budgets-saved');
  assert.match(await page.textContent('.notice'), /Your budgets have been saved\./);
  const cards = await budgetCards(page);
  assert.deepEqual(cards[0][1], [thisMonth, '₱301.00 left', '₱1,199.00', '₱1,500.00']);
  assert.deepEqual(cards[1][1], [thisMonth, '₱240.00 left', '₱260.00', '₱500.00']);

  // A refused limit: said beside its field, what was typed kept, nothing saved.
  await page.getByLabel('Monthly limit for Transportation').fill('-5');
  await page.locator('.budget-row').nth(1).getByRole('button', { name: 'Save budgets' }).click();
  await page.waitForSelector('.alert');
  assert.match(await page.textContent('.alert'), /Not saved\. Please fix the fields marked below\./);
  assert.equal(await page.getByLabel('Monthly limit for Transportation').inputValue(), '-5');
  assert.match(await page.textContent('#budget-1-limit-error'), /^Monthly limit must/);
  await snap(page, 'budgets-3-refused');
  await page.goto(`${finance.baseURL}/budgets`);
  assert.equal(await page.getByLabel('Monthly limit for Transportation').inputValue(), '500.00');
  assert.equal(await page.getByLabel('Monthly limit for Groceries').inputValue(), '1500.00');

  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});

test('budgets at desktop size: in the top bar, bars this month and last', async () => {
  const { context, page, problems } = await openContext(browser, desktop);
  await signIn(page, finance);
  const link = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Budgets', exact: true });
  assert.ok(await link.isVisible(), 'Budgets is in the top bar');
  await link.click();
  await page.waitForURL('**/budgets');
  assert.deepEqual((await budgetCards(page)).map((c) => c[0]), ['Groceries', 'Transportation']);
  await snap(page, 'budgets-2-bars', desktop.name);
  // Removing Transportation leaves Groceries; it is offered again under Add a limit.
  await page.getByRole('button', { name: 'Remove the budget of Transportation' }).click();
  await page.waitForURL('**/budgets?notice=budget-removed');
  assert.deepEqual((await budgetCards(page)).map((c) => c[0]), ['Groceries']);
  assert.ok(await page.locator('#budget-new-category option', { hasText: 'Transportation' }).count() === 1);

  // The old address under Settings leads here.
  await page.goto(`${finance.baseURL}/settings/budgets`);
  assert.equal(new URL(page.url()).pathname, '/budgets');

  // The month before, with the month before it beside it.
  await page.getByRole('link', { name: 'Previous month' }).click();
  await page.waitForURL('**/budgets?month=*');
  const [card] = await budgetCards(page);
  assert.deepEqual(card[1], [monthName(lastMonthDay()), '₱1,100.00 left', '₱400.00', '₱1,500.00']);
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});
