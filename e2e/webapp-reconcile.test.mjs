// Headless Chromium reconciles an account with a bank statement on a fresh
// server at phone size (390×844): an account with a salary and a grocery
// line; only the salary is ticked off, so a reconcile shows the difference
// and the grocery line still pending, and nothing is locked; a statement
// balance that is not an amount is refused beside its field; once the
// groceries are ticked off the same statement matches and both lines are
// reconciled, and marking one pending again unlocks it. At desktop width
// (1280×800) the same user reconciles again, which locks nothing new. Every
// page is screenshotted in light and dark and checked by the accessibility
// linter (webapp-kit.mjs); at both sizes each line's tick box sits beside its
// words, and on a 320 px phone the balances keep their digits on one line.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { desktop, launchBrowser, navLink, openContext, phone, setUp, shots, signIn, snap } from './webapp-kit.mjs';

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

/** Adds a manual line on the account's page the browser is on. */
async function addLine(page, type, amount, description) {
  await page.getByText('Add a line').click();
  await page.locator(`input[name=type][value=${type}]`).check();
  await page.locator('#line-amount').fill(amount);
  await page.locator('#line-description').fill(description);
  await page.getByRole('button', { name: 'Add line' }).click();
  await page.waitForURL('**/accounts/*?notice=*');
}

// The refused statement answers 400 on the account's own reconcile address.
const refusedReconcile = (m) => m.text().startsWith('Failed to load resource') && new URL(m.location().url).pathname.endsWith('/reconcile');

const cleared = async (page) => (await page.textContent('#cleared-balance')).trim();
const line = (page, text) => page.locator('li.item', { hasText: text });

/**
 * Where a line's tick box sits against its words: beside them on the left,
 * on the same line, and at least 24 px square (a fingertip's target).
 */
async function assertTickBoxBeside(page, text) {
  const box = await line(page, text).getByRole('checkbox').boundingBox();
  const words = await line(page, text).locator('label').boundingBox();
  assert.ok(box.x + box.width <= words.x, `${text}: the tick box [${box.x}, ${box.x + box.width}] is left of its words from ${words.x}`);
  assert.ok(box.y < words.y + words.height && words.y < box.y + box.height,
    `${text}: the tick box [${box.y}, ${box.y + box.height}] is on its words' line [${words.y}, ${words.y + words.height}]`);
  assert.ok(box.width >= 24 && box.height >= 24, `${text}: the tick box is ${box.width}×${box.height} px`);
}

test('on a phone, a statement is reconciled once the lines it shows are ticked off', async () => {
  const { context, page, problems } = await openContext(browser, phone, refusedReconcile);
  await setUp(page, finance);
  await navLink(page, 'Accounts').click();
  await page.waitForURL('**/accounts');
  await page.getByText('Add an account').click();
  await page.locator('#new-name').fill('BPI Savings');
  await page.locator('#new-opening').fill('1000');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/accounts/*?notice=account-created');
  await addLine(page, 'credit', '5000', 'Salary');
  await addLine(page, 'debit', '1,250.50', 'Groceries');

  await page.getByRole('link', { name: 'Reconcile', exact: true }).click();
  await page.waitForURL('**/accounts/*/reconcile');
  assert.equal(await cleared(page), '₱1,000.00');
  assert.match(await line(page, 'Salary').textContent(), /Pending/);
  for (const text of ['Salary', 'Groceries']) await assertTickBoxBeside(page, text);
  await snap(page, 'reconcile-1-page');

  // Only the salary is ticked off: the statement's balance differs by the groceries.
  await line(page, 'Salary').getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Mark cleared' }).click();
  await page.waitForURL('**/reconcile?date=*&notice=lines-marked');
  assert.equal(await cleared(page), '₱6,000.00');
  assert.match(await line(page, 'Salary').textContent(), /Cleared/);
  await page.locator('#r-balance').fill('4,749.50');
  await page.getByRole('button', { name: 'Reconcile', exact: true }).click();
  await page.waitForSelector('#reconcile-result');
  assert.match(await page.textContent('#result-heading'), /Off by .*1,250\.50/);
  assert.match(await page.textContent('#reconcile-result'), /Groceries/);
  assert.match(await line(page, 'Salary').last().textContent(), /Cleared/);
  await snap(page, 'reconcile-2-difference');

  // A balance that is not an amount is refused beside its field.
  await page.locator('#r-balance').fill('about 4700');
  await page.getByRole('button', { name: 'Reconcile', exact: true }).click();
  await page.waitForSelector('#r-balance-error');
  assert.match(await page.textContent('#r-balance-error'), /^Statement balance must be/);
  await snap(page, 'reconcile-3-refused');

  // The groceries ticked off too: the same statement matches and both lines are locked.
  await line(page, 'Groceries').getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Mark cleared' }).click();
  await page.waitForURL('**/reconcile?date=*&notice=lines-marked');
  assert.equal(await cleared(page), '₱4,749.50');
  await page.locator('#r-balance').fill('4,749.50');
  await page.getByRole('button', { name: 'Reconcile', exact: true }).click();
  await page.waitForSelector('#reconcile-result');
  assert.equal((await page.textContent('#result-heading')).trim(), 'Reconciled');
  assert.match(await page.textContent('#reconcile-result'), /2 lines are now reconciled/);
  assert.match(await line(page, 'Groceries').textContent(), /Reconciled/);
  await snap(page, 'reconcile-4-reconciled');

  // Marking a reconciled line pending unlocks it; the cleared balance follows.
  await line(page, 'Groceries').getByRole('checkbox').check();
  await page.getByRole('button', { name: 'Mark pending' }).click();
  await page.waitForURL('**/reconcile?date=*&notice=lines-marked');
  assert.match(await line(page, 'Groceries').textContent(), /Pending/);
  assert.equal(await cleared(page), '₱6,000.00');

  assert.deepEqual(problems, []);
  await context.close();
});

test('at desktop width, reconciling the same statement again locks nothing new', async () => {
  const { context, page, problems } = await openContext(browser, desktop);
  await signIn(page, finance);
  await navLink(page, 'Accounts').click();
  await page.waitForURL('**/accounts');
  await page.getByRole('link', { name: 'BPI Savings' }).first().click();
  await page.getByRole('link', { name: 'Reconcile', exact: true }).click();
  await page.waitForURL('**/accounts/*/reconcile');
  for (const text of ['Salary', 'Groceries']) await assertTickBoxBeside(page, text);
  await snap(page, 'reconcile-5-page', 'desktop');
  await page.locator('#r-balance').fill('6000');
  await page.getByRole('button', { name: 'Reconcile', exact: true }).click();
  await page.waitForSelector('#reconcile-result');
  assert.equal((await page.textContent('#result-heading')).trim(), 'Reconciled');
  assert.match(await page.textContent('#reconcile-result'), /Nothing new to reconcile/);
  assert.match(await page.textContent('#reconcile-result'), /Groceries/);
  await snap(page, 'reconcile-6-again', 'desktop');
  assert.deepEqual(problems, []);
  await context.close();
});

test('on the narrowest phone, the balances keep their digits on one line', async () => {
  const { context, page, problems } = await openContext(browser, { ...phone, viewport: { width: 320, height: 700 } });
  await signIn(page, finance);
  await navLink(page, 'Accounts').click();
  await page.waitForURL('**/accounts');
  await page.getByRole('link', { name: 'BPI Savings' }).first().click();
  await page.getByRole('link', { name: 'Reconcile', exact: true }).click();
  await page.waitForURL('**/accounts/*/reconcile');
  // The figure's name ("Cleared balance on …") wraps beside it instead of the figure breaking.
  const figures = await page.locator('.stat dd').evaluateAll((dds) => dds.map((dd) => {
    const range = document.createRange();
    range.selectNodeContents(dd);
    return { text: dd.textContent.trim(), lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size };
  }));
  assert.equal(figures.length, 2);
  for (const f of figures) assert.equal(f.lines, 1, `${f.text} takes ${f.lines} lines at 320 px`);
  assert.deepEqual(problems, []);
  await context.close();
});
