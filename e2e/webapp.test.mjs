// Headless Chromium walks the web app's first journey on a fresh server
// at phone size (390×844): first-run setup, Home, recording an expense (a
// refused form first, then a valid one), seeing it in Home's spending chart
// and its figures table, and finding it in the expense list; then income
// and budgets (one over its limit) fill Home's widest tables, which must fit
// their cards. The same user signs in at desktop width, adds an account and
// a card, records with the two other methods and sees all three on Home
// with its budgets, then voids an expense after its confirm step and finds
// it under the Voided filter. An unknown address is a page, with the
// navigation when signed in and a way to sign in when not. Every page is
// screenshotted in light and dark and checked by the accessibility linter
// (see webapp-kit.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { addBudget, desktop, launchBrowser, navLink, openContext, overflowing, phone, refusedFormAt, setUp, shots, signIn, snap } from './webapp-kit.mjs';

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

  await navLink(page, 'Record').click();
  await page.waitForURL('**/record');
  const today = await page.getByLabel('Date').inputValue();
  assert.match(today, /^\d{4}-\d{2}-\d{2}$/, 'the date defaults to today');
  // Cash is the default method: the account and card pickers are hidden.
  assert.equal(await page.getByRole('radio', { name: 'Cash' }).isChecked(), true);
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
  await page.waitForURL('**/?month=*&notice=expense-recorded&amount=*');
  assert.match(await page.textContent('[role=status]'), /Expense recorded/);

  // The chart draws it, and its table holds the same figures.
  const chart = page.locator('#spending-heading ~ svg.chart[role=img]');
  assert.match(await chart.getAttribute('aria-label'), /Food & Dining ₱250\.50/);
  assert.deepEqual(await page.locator('#spending-table tbody tr').evaluateAll((rows) =>
    rows.map((r) => [...r.children].map((c) => c.textContent.trim()))), [['Food & Dining', '₱250.50']]);
  assert.match(await page.textContent('#recent-heading + ul'), /Lunch with Ana/);
  await snap(page, '4-home');

  await navLink(page, 'Expenses').click();
  await page.waitForURL('**/expenses');
  assert.equal(await page.textContent('#list-heading'), '1 expense · total ₱250.50');
  assert.match(await page.textContent('main'), /Lunch with Ana/);
  // On a phone the filters fold behind one line, so the count and the rows come first.
  const fold = page.locator('details.filter-fold');
  assert.equal(await fold.getAttribute('open'), null);
  assert.equal(await page.getByLabel('Amount from').isVisible(), false, 'the filters are folded on a phone');
  await snap(page, '5-expenses');
  await fold.locator('summary').click();
  assert.ok(await page.getByLabel('Amount from').isVisible(), 'the line opens the filters');
  await snap(page, '5-expenses-filters-open');

  // A salary and budgets give Home its widest tables: income and spending
  // in six-digit figures, and budgets with one over its limit. They fit
  // their cards at phone width, with no scrolling inside them either.
  await page.goto(`${finance.baseURL}/record?kind=income`);
  await page.locator('#amount').fill('150000');
  await page.getByLabel('Description').fill('November salary');
  await page.getByLabel('Category').selectOption('Salary');
  await page.getByRole('button', { name: 'Save income' }).click();
  await page.waitForURL('**/?month=*&notice=income-recorded&amount=*');
  await navLink(page, 'Budgets').click();
  await page.waitForURL('**/budgets');
  for (const [category, limit, warning] of [['Food & Dining', '200'], ['Groceries', '900'], ['Rent & Housing', '25000'],
    ['Shopping', '520', '90'], ['Transportation', '3000']]) {
    await addBudget(page, category, limit, warning);
  }
  await navLink(page, 'Home').click();
  await page.waitForURL((u) => new URL(u).pathname === '/');
  assert.deepEqual(await budgetRows(page), [['Food & Dining Over limit', '₱250.50', '₱200.00'], ['Groceries On track', '₱0.00', '₱900.00'],
    ['Rent & Housing On track', '₱0.00', '₱25,000.00'], ['Shopping On track', '₱0.00', '₱520.00'], ['Transportation On track', '₱0.00', '₱3,000.00']]);
  assert.match(await page.textContent('#income-spending-table tfoot'), /Total₱150,000\.00₱250\.50₱149,749\.50/);
  assert.deepEqual(await overflowing(page, { strict: true }), [], 'Home at phone width: these stick out of their cards');
  await snap(page, '4-home-budgets');

  assert.deepEqual(problems, [], 'no console errors (CSP violations show up here)');
  await context.close();
});


/** Home's budgets: each category with its state, what was spent and the limit. */
function budgetRows(page) {
  return page.locator('.budget-bars li').evaluateAll((items) => items.map((li) =>
    ['.what', '.spent', '.limit'].map((part) => li.querySelector(part).textContent.replace(/\s+/g, ' ').trim())));
}

/** Opens the collapsed section (a details element) that holds field. */
async function openSection(page, field) {
  if (!(await page.locator(field).isVisible())) await page.locator(`details:has(${field}) > summary`).click();
}

/** Records an expense of today through the Record page, paid with method. */
async function recordExpense(page, { amount, description, category, method }) {
  await navLink(page, 'Record').click();
  await page.waitForURL('**/record');
  await page.locator('#amount').fill(amount);
  await page.getByLabel('Description').fill(description);
  await page.getByLabel('Category').selectOption(category);
  await page.getByRole('radio', { name: method }).check();
  if (method === 'Account Debit') await page.locator('#account_id').selectOption({ index: 1 }); // the only account
  if (method === 'Credit Card') await page.locator('#credit_card_id').selectOption({ index: 1 }); // the only card
  await page.getByRole('button', { name: 'Save expense' }).click();
  await page.waitForURL('**/?month=*&notice=expense-recorded&amount=*');
}

test('at desktop width the same user adds an account and a card, records with each method and sees all three on Home', async () => {
  const { context, page, problems } = await openContext(browser, desktop, refusedFormAt('/expenses')); // the refused filter's 400 document
  await signIn(page, finance);
  assert.match(await page.locator('#spending-heading ~ svg.chart').getAttribute('aria-label'), /Food & Dining ₱250\.50/);
  await snap(page, '4-home', desktop.name);

  await navLink(page, 'Accounts').click();
  await page.waitForURL('**/accounts');
  await openSection(page, '#new-name');
  await page.locator('#new-name').fill('Payroll');
  await page.locator('#new-opening').fill('5000');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/accounts/*?notice=account-created');
  await navLink(page, 'Cards').click();
  await page.waitForURL('**/cards');
  await openSection(page, '#new-name');
  await page.locator('#new-name').fill('Visa');
  await page.locator('#new-limit').fill('50000');
  await page.locator('#new-sday').fill('28');
  await page.locator('#new-dday').fill('15');
  await page.getByRole('button', { name: 'Create card' }).click();
  await page.waitForURL('**/cards/*?notice=card-created');

  await recordExpense(page, { amount: '1000.25', description: 'Weekly groceries', category: 'Groceries', method: 'Account Debit' });
  await recordExpense(page, { amount: '499.25', description: 'Shoes', category: 'Shopping', method: 'Credit Card' });

  // Home: the three expenses (Cash on the phone, Account Debit and Credit
  // Card here) in the month's spending, the chart and its table.
  assert.equal(await page.textContent('.stat:has(dt:text-is("Spending")) dd'), '₱1,750.00');
  const label = await page.locator('#spending-heading ~ svg.chart').getAttribute('aria-label');
  for (const bar of ['Groceries ₱1,000.25', 'Shopping ₱499.25', 'Food & Dining ₱250.50']) assert.ok(label.includes(bar), `chart lacks ${bar}: ${label}`);
  assert.deepEqual(await page.locator('#spending-table tbody tr').evaluateAll((rows) =>
    rows.map((r) => [...r.children].map((c) => c.textContent.trim()))),
  [['Groceries', '₱1,000.25'], ['Shopping', '₱499.25'], ['Food & Dining', '₱250.50']]);
  assert.match(await page.textContent('#accounts-heading ~ *'), /PayrollSavings₱3,999\.75/); // the account's type in words
  assert.match(await page.textContent('#cards-heading ~ *'), /Outstanding balance₱499\.25/);
  // Groceries and Shopping now pass their limits; the chips sit inside the half-width card.
  assert.deepEqual(await budgetRows(page), [['Food & Dining Over limit', '₱250.50', '₱200.00'], ['Groceries Over limit', '₱1,000.25', '₱900.00'],
    ['Rent & Housing On track', '₱0.00', '₱25,000.00'], ['Shopping Near limit', '₱499.25', '₱520.00'],
    ['Transportation On track', '₱0.00', '₱3,000.00']]);
  assert.deepEqual(await overflowing(page, { strict: true }), [], 'Home at desktop width: these stick out of their cards');
  await snap(page, '6-home-three-methods', desktop.name);

  await navLink(page, 'Expenses').click();
  await page.waitForURL('**/expenses');
  const text = await page.textContent('main');
  for (const e of ['Lunch with Ana', 'Weekly groceries', 'Shoes']) assert.ok(text.includes(e), `the list lacks ${e}`);
  assert.equal(await page.textContent('#list-heading'), '3 expenses · total ₱1,750.00');
  // Each row names where the money came from: cash, the account, the card.
  assert.match(await page.textContent('main .list'), /Weekly groceries ₱1,000\.25[\s\S]*Groceries · Payroll[\s\S]*/);
  assert.match(await page.textContent('main .list'), /Shoes ₱499\.25[\s\S]*Shopping · Visa/);
  assert.ok(await page.getByLabel('Amount from').isVisible(), 'a wide screen shows the filters open');
  await snap(page, '5-expenses', desktop.name);

  // Filter by account and an amount typed with grouping: the count and total of what is selected, as a link.
  await page.locator('#f-account').selectOption({ label: 'Payroll' });
  await page.getByLabel('Amount from').fill('1,000');
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  await page.waitForURL('**/expenses?*accountId=*');
  assert.equal(await page.textContent('#list-heading'), '1 expense · total ₱1,000.25');
  assert.match(await page.textContent('details.filter-fold summary'), /^Filter · Payroll · at least ₱1,000\.00$/);
  assert.ok(!(await page.textContent('main .list')).includes('Shoes'));
  await snap(page, '5-expenses-filtered', desktop.name);
  // An amount it cannot read is named beside its field, in the page's words.
  await page.getByLabel('Amount from').fill('lots');
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  await page.waitForURL('**/expenses?*amountMin=lots*');
  assert.equal(await page.textContent('#amount-min-error'), 'Amount from must be a number with at most 2 decimal places');
  assert.equal(await page.textContent('#list-heading'), 'Expenses', 'a refused filter claims no count');
  await snap(page, '5-expenses-refused-filter', desktop.name);
  await page.getByRole('link', { name: 'Clear' }).click();
  await page.waitForURL('**/expenses');

  // Void asks first and says what else it reverses; the Voided filter finds the expense again.
  const row = page.locator('main .list li', { hasText: 'Weekly groceries' });
  await row.locator('summary', { hasText: 'Void' }).click();
  assert.match(await row.locator('.confirm-form p').textContent(), /^Void Weekly groceries of ₱1,000\.25 on .+\? Its debit from the account is reversed\. This cannot be undone/);
  await snap(page, '5-expenses-void-confirm', desktop.name);
  await row.getByRole('button', { name: 'Void this expense' }).click();
  await page.waitForURL('**/expenses?notice=expense-voided');
  assert.match(await page.textContent('[role=status]'), /The expense has been voided/);
  assert.equal(await page.textContent('#list-heading'), '2 expenses · total ₱749.75');
  await page.getByLabel('Status').selectOption('voided');
  await page.getByRole('button', { name: 'Filter', exact: true }).click();
  await page.waitForURL('**/expenses?*status=voided*');
  assert.match(await page.textContent('#list-heading'), /^1 voided expense · total ₱1,000\.25$/);
  assert.match(await page.textContent('main .list'), /Weekly groceries ₱1,000\.25[\s\S]*Groceries · Payroll · Voided/);
  assert.equal(await page.locator('main .list summary').count(), 0, 'a voided expense has no Void');
  await snap(page, '5-expenses-voided', desktop.name);
  await navLink(page, 'Record').click();
  await page.waitForURL('**/record');
  await snap(page, '2-record', desktop.name);
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});

test('an unknown address is a page: with the navigation when signed in, with a way to sign in when not', async () => {
  const notFound = refusedFormAt('/nope', '/settings/nope'); // Chromium logs the 404 document
  const { context, page, problems } = await openContext(browser, phone, notFound);
  await signIn(page, finance);
  const res = await page.goto(`${finance.baseURL}/nope`);
  assert.equal(res.status(), 404);
  assert.equal(await page.textContent('h1'), 'Page not found');
  assert.equal(await page.title(), 'Page not found · finance');
  await snap(page, '8-not-found');
  await navLink(page, 'Expenses').click();
  await page.waitForURL('**/expenses');
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();

  const visitor = await openContext(browser, desktop, notFound);
  const out = await visitor.page.goto(`${finance.baseURL}/settings/nope`);
  assert.equal(out.status(), 404);
  assert.equal(await visitor.page.getByRole('navigation', { name: 'Main' }).count(), 0);
  await snap(visitor.page, '8-not-found-signed-out', desktop.name);
  await visitor.page.getByRole('link', { name: 'Sign in' }).click();
  await visitor.page.waitForURL('**/login');
  assert.deepEqual(visitor.problems, [], 'no console errors');
  await visitor.context.close();

  // The API keeps its JSON answer.
  const api = await fetch(`${finance.baseURL}/api/v1/nope`);
  assert.equal(api.status, 404);
  assert.equal((await api.json()).error.code, 'NOT_FOUND');
});
