// Headless Chromium sets up a salary twice a month on a fresh server at
// phone size (390×844): from Income to Recurring income, a form refused
// without its second day, then the 15th and the last day from today; what
// it expects through next month is listed; the first payday is received
// with the amount typed with grouping (the income is on the Income list)
// and the next one skipped; the template is edited and deleted, what was
// received staying. At desktop width the same pages are opened again. Every
// page is screenshotted in light and dark and checked by the accessibility
// linter (see webapp-kit.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { day, desktop, launchBrowser, navLink, openContext, phone, refusedFormAt, setUp, shots, signIn, snap } from './webapp-kit.mjs';

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

/** The paydays through the end of next month on the 15th and the last day, from today. */
function paydays() {
  const today = day(0);
  const [y, m] = today.split('-').map(Number);
  const out = [];
  for (const [yy, mm] of [[y, m], [m === 12 ? y + 1 : y, m === 12 ? 1 : m + 1]]) {
    const last = new Date(Date.UTC(yy, mm, 0)).getUTCDate();
    for (const d of [15, last]) {
      const iso = `${yy}-${String(mm).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
      if (iso >= today) out.push(iso);
    }
  }
  return out;
}

test('a salary twice a month is set up, one payday received and one skipped, on a phone', async () => {
  const { context, page, problems } = await openContext(browser, phone, refusedFormAt('/income/recurring'));
  await setUp(page, finance);
  await navLink(page, 'Income').click();
  await page.waitForURL('**/income');
  await page.getByRole('link', { name: 'Recurring income' }).click();
  await page.waitForURL('**/income/recurring');
  assert.match(await page.textContent('main'), /Nothing expected/);
  await snap(page, 'recurring-1-empty');

  await page.getByRole('link', { name: 'New recurring income' }).click();
  await page.waitForURL('**/income/recurring/new');
  assert.equal(await page.getByLabel('Repeats').inputValue(), 'semimonthly');
  await snap(page, 'recurring-2-new');
  await page.getByLabel('Name').fill('Salary');
  await page.getByLabel('Amount').fill('25,000');
  await page.getByLabel('Category').selectOption('Salary');
  await page.getByLabel('Second day').fill('');
  await page.getByRole('button', { name: 'Create' }).click();
  await page.waitForLoadState();
  assert.match(await page.textContent('main'), /Second day is required/);
  await snap(page, 'recurring-3-refused');

  await page.getByLabel('Second day').fill('31');
  await page.getByRole('button', { name: 'Create' }).click();
  await page.waitForURL('**/income/recurring?notice=income-template-created');
  const expected = paydays();
  const items = page.locator('#expected-heading + ul.list > li');
  assert.equal(await items.count(), expected.length, `paydays ${expected.join(', ')}`);
  await snap(page, 'recurring-4-expected');

  // The first payday came with a little more; the second did not come.
  const first = items.first();
  await first.getByRole('textbox').fill('25,500.50');
  await first.getByRole('button', { name: 'Received' }).click();
  await page.waitForURL('**/income/recurring?notice=income-received');
  assert.match(await page.textContent('[role=status], .notice'), /Income recorded as received/);
  assert.equal(await items.count(), expected.length - 1);
  await items.first().getByRole('button', { name: /^Skip / }).click();
  await page.waitForURL('**/income/recurring?notice=income-skipped');
  assert.equal(await items.count(), expected.length - 2);
  await snap(page, 'recurring-5-after');

  await navLink(page, 'Income').click();
  await page.waitForURL('**/income');
  assert.match(await page.textContent('main'), /25,500\.50/);

  // Edit, then delete: the received income stays.
  await page.goto(`${finance.baseURL}/income/recurring`);
  await page.getByRole('link', { name: 'Salary' }).click();
  await page.waitForURL(/\/income\/recurring\/[0-9a-f-]+$/);
  assert.equal(await page.getByLabel('Second day').inputValue(), '31');
  await snap(page, 'recurring-6-edit');
  await page.getByLabel('Amount').fill('26000');
  await page.getByRole('button', { name: 'Save' }).click();
  await page.waitForURL('**/income/recurring?notice=income-template-saved');
  assert.match(await page.textContent('main'), /₱26,000\.00/);
  await page.getByRole('link', { name: 'Salary' }).click();
  await page.getByRole('button', { name: 'Delete Salary' }).click();
  await page.waitForURL('**/income/recurring?notice=income-template-deleted');
  assert.match(await page.textContent('main'), /Nothing expected/);
  await navLink(page, 'Income').click();
  assert.match(await page.textContent('main'), /25,500\.50/);
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});

test('at desktop width the recurring income pages', async () => {
  const { context, page, problems } = await openContext(browser, desktop);
  await signIn(page, finance);
  await page.goto(`${finance.baseURL}/income/recurring/new`);
  await snap(page, 'recurring-2-new', desktop.name);
  await page.getByLabel('Name').fill('Pension');
  await page.getByLabel('Amount').fill('8000');
  await page.getByLabel('Category').selectOption('Salary');
  await page.getByLabel('Repeats').selectOption('monthly');
  await page.getByLabel('Second day').fill('');
  await page.getByRole('button', { name: 'Create' }).click();
  await page.waitForURL('**/income/recurring?notice=income-template-created');
  await snap(page, 'recurring-4-expected', desktop.name);
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});
