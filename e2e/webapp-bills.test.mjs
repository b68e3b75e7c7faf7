// Headless Chromium walks the bills and loans screens on a fresh server at
// phone size (390×844): a monthly bill template is created, its bill shows
// on the month's calendar, is paid (the bill turns paid and the expense is
// on the expense list), the payment is deleted and the bill skipped; then a
// diminishing-balance loan's schedule is previewed before it is saved, its
// term edited while nothing is paid, and its first installment paid in two
// payments (partially paid, then paid); a loan released months ago has its
// past installments marked paid in one step. At desktop width the same user
// opens every one of these pages again, and previews, saves, edits and marks
// another loan. Every page is
// screenshotted in light and dark and checked by the accessibility linter
// (see webapp-kit.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { desktop, launchBrowser, openContext, phone, setUp, shots, signIn, snap, navLink } from './webapp-kit.mjs';

let finance, browser;
const pages = {}; // the addresses the phone journey reached, for the desktop one

before(async () => {
  finance = await startFinance();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await finance?.stop();
  console.log(`screenshots: ${shots}`);
});

/** Expected console errors: Chromium logs the 400 document of a refused bill or loan payment, or bill edit. */
const refusedPayment = (m) => m.text().startsWith('Failed to load resource') &&
  /^\/(bills|loans\/instances)\/[0-9a-f-]+(\/pay)?$/.test(new URL(m.location().url).pathname);

/** The rows of a table as arrays of their cells' text. */
const rows = (page, selector) => page.locator(`${selector} tbody tr`).evaluateAll((trs) =>
  trs.map((tr) => [...tr.children].map((c) => c.textContent.trim().replace(/\s+/g, ' '))));

/** An ISO date `months` months before today (the server's clock), on day 10. */
function monthsAgo(months) {
  const d = new Date();
  d.setUTCDate(10);
  d.setUTCMonth(d.getUTCMonth() - months);
  return d.toISOString().slice(0, 10);
}

/**
 * A loan released four months ago is previewed, saved, edited while nothing
 * is paid, and its past installments marked paid in one step; returns its page.
 */
async function pastLoanJourney(page, name, size) {
  await page.goto(`${finance.baseURL}/loans/new`);
  await page.getByLabel('Name', { exact: true }).fill(name);
  await page.getByLabel(/^Principal/).fill('12000');
  await page.getByLabel(/^Term in months/).fill('12');
  await page.getByRole('radio', { name: 'None' }).check();
  await page.getByLabel('Released on').fill(monthsAgo(4));
  await page.getByRole('button', { name: 'Preview schedule' }).click();
  await page.waitForURL('**/loans/new#preview');
  assert.deepEqual((await rows(page, '#preview table'))[0].slice(2), ['₱1,000.00']);
  await page.getByRole('button', { name: 'Save loan' }).click();
  await page.waitForURL('**?notice=loan-created');
  const url = page.url().replace(/\?.*/, '');
  await page.getByLabel(/^Principal/).fill('6000');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL('**?notice=loan-saved');
  assert.deepEqual((await rows(page, 'table.schedule'))[0].slice(4, 5), ['₱500.00']);
  const past = await page.locator('#past-through option').count();
  assert.ok(past >= 3 && past <= 4, `${past} past installments offered`);
  await snap(page, 'loans-7-past', size);
  await page.getByRole('button', { name: 'Mark paid', exact: true }).click();
  await page.waitForURL('**?notice=installments-marked');
  const statuses = (await rows(page, 'table.schedule')).map((r) => r[6]);
  assert.deepEqual(statuses.slice(0, past + 1), [...Array(past).fill('Paid'), 'Unpaid']);
  assert.equal(await page.locator('#past').count(), 0);
  await snap(page, 'loans-8-past-marked', size);
  return url;
}

test('a bill from a template is paid, unpaid and skipped; a loan is created and its first installment paid, on a phone', async () => {
  const { context, page, problems } = await openContext(browser, phone, refusedPayment);
  await setUp(page, finance);

  await navLink(page, 'Bills').click();
  await page.waitForURL('**/bills');
  assert.match(await page.textContent('main'), /No bills due in/);
  await snap(page, 'bills-1-empty');

  // A monthly template from today: its first bill is due today.
  await page.getByRole('link', { name: 'Bill templates' }).click();
  await page.waitForURL('**/bills/templates');
  await snap(page, 'bills-2-templates-empty');
  await page.getByRole('link', { name: 'New template' }).click();
  await page.waitForURL('**/bills/templates/new');
  assert.equal(await page.getByLabel('Repeats').inputValue(), 'monthly');
  await snap(page, 'bills-3-template-new');
  await page.getByLabel('Name').fill('Rent');
  await page.getByLabel('Amount').fill('12000');
  await page.getByLabel('Category').selectOption('Rent & Housing');
  await page.getByLabel('Payment method').selectOption('Cash');
  await page.getByRole('button', { name: 'Create template' }).click();
  await page.waitForURL('**/bills/templates?notice=template-created*');
  assert.deepEqual((await rows(page, 'table.stacked')).map((r) => r.slice(0, 2)), [['Rent', '₱12,000.00']]);
  pages.templates = page.url();
  await snap(page, 'bills-4-templates');
  await page.getByRole('link', { name: 'Rent' }).click();
  await page.waitForURL(/\/bills\/templates\/[0-9a-f-]+$/);
  // The due day was left empty: it is the start date's day.
  assert.equal(await page.getByRole('textbox', { name: /^Due day/ }).inputValue(), String(Number((await page.getByLabel('Starts').inputValue()).slice(8))));
  await snap(page, 'bills-11-template-edit');

  // The bill is on this month's calendar, on today.
  await page.goto(`${finance.baseURL}/bills`);
  const today = page.locator('.calendar td[aria-current=date]');
  assert.match(await today.textContent(), /Rent\s+₱12,000\.00\s+Unpaid/);
  assert.equal(await page.locator('.calendar td.has-bills').count(), 1);
  pages.bills = page.url();
  await snap(page, 'bills-5-calendar');

  // Its own page: a refused payment, then the whole amount.
  await today.getByRole('link', { name: /Rent/ }).click();
  await page.waitForURL(/\/bills\/[0-9a-f-]+$/);
  pages.bill = page.url();
  // The bill's own edit form has an Amount too: the payment's is #pay-amount.
  assert.equal(await page.locator('#pay-amount').inputValue(), '12000.00');
  await snap(page, 'bills-6-bill');
  await page.locator('#pay-amount').fill('12000.01');
  await page.getByRole('button', { name: 'Record payment' }).click();
  await page.waitForSelector('#pay-amount-error');
  assert.equal(await page.textContent('#pay-amount-error'), 'Amount must not exceed the remaining amount 12000.00');
  await snap(page, 'bills-7-bill-refused');
  await page.locator('#pay-amount').fill('12000');
  await page.getByRole('button', { name: 'Record payment' }).click();
  await page.waitForURL('**?notice=bill-paid');
  assert.equal(await page.textContent('.page-head .badge'), 'Paid');
  assert.deepEqual((await rows(page, 'table.stacked')).map((r) => r.slice(1, 4)), [['₱12,000.00', 'Cash', 'Posted']]);
  await snap(page, 'bills-8-bill-paid');

  // Editing this one bill: below what was paid is refused beside the field;
  // a note is kept.
  await page.getByText('Edit this bill').click();
  await page.locator('#e-amount').fill('100');
  await page.getByRole('button', { name: 'Save bill' }).click();
  await page.waitForSelector('#e-amount-error');
  assert.equal(await page.textContent('#e-amount-error'), 'Amount must be at least the amount already paid, 12000.00');
  await snap(page, 'bills-12-bill-edit-refused');
  await page.locator('#e-amount').fill('12000');
  await page.locator('#e-notes').fill('Paid on the first this time');
  await page.getByRole('button', { name: 'Save bill' }).click();
  await page.waitForURL('**?notice=bill-saved');
  assert.match(await page.textContent('main'), /Paid on the first this time/);

  // The payment is an expense.
  await navLink(page, 'Expenses').click();
  await page.waitForURL('**/expenses');
  assert.match(await page.textContent('main'), /Rent \(due \d{4}-\d{2}-\d{2}\)\s*₱12,000\.00/);
  await snap(page, 'bills-9-expenses');

  // Deleting the payment voids it and its expense; then the bill is skipped.
  await page.goto(pages.bill);
  await page.getByRole('button', { name: /Delete the payment of ₱12,000\.00/ }).click();
  await page.waitForURL('**?notice=bill-payment-deleted');
  assert.equal(await page.textContent('.page-head .badge'), 'Unpaid');
  assert.deepEqual((await rows(page, 'table.stacked')).map((r) => r[3]), ['Voided']);
  await page.getByRole('button', { name: 'Skip this bill' }).click();
  await page.waitForURL('**?notice=bill-skipped');
  assert.equal(await page.textContent('.page-head .badge'), 'Skipped');
  assert.equal(await page.getByRole('button', { name: 'Record payment' }).count(), 0);
  await snap(page, 'bills-10-bill-skipped');
  await page.goto(`${finance.baseURL}/expenses`);
  assert.match(await page.textContent('#list-heading'), /^No expenses$/);
  await page.goto(pages.bills);
  assert.match(await page.textContent('.calendar td[aria-current=date]'), /Rent\s+₱12,000\.00\s+Skipped/);

  // A diminishing loan: 100,000.00 at 12% a year over 12 months (domain.md §4.5).
  await navLink(page, 'Loans').click();
  await page.waitForURL('**/loans');
  await snap(page, 'loans-1-empty');
  await page.getByRole('link', { name: 'New loan' }).click();
  await page.waitForURL('**/loans/new');
  assert.equal(await page.getByRole('radio', { name: 'Diminishing' }).isChecked(), true);
  await snap(page, 'loans-2-new');
  await page.getByLabel('Name', { exact: true }).fill('Car loan');
  await page.getByLabel(/^Principal/).fill('100,000');
  await page.getByLabel(/^Term in months/).fill('24');
  await page.getByLabel(/^Interest rate/).fill('12');
  // The preview shows the schedule and keeps what was typed; nothing is saved yet.
  await page.getByRole('button', { name: 'Preview schedule' }).click();
  await page.waitForURL('**/loans/new#preview');
  assert.equal((await rows(page, '#preview table')).length, 24);
  assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Car loan');
  assert.equal(await page.getByLabel(/^Principal/).inputValue(), '100000.00');
  await snap(page, 'loans-2b-preview');
  await page.getByRole('button', { name: 'Save loan' }).click();
  await page.waitForURL('**?notice=loan-created');
  pages.loan = page.url().replace(/\?.*/, '');
  assert.equal((await rows(page, 'table.schedule')).length, 24);
  // Nothing is paid yet: the term changes and the schedule is written again.
  await page.getByLabel(/^Term in months/).fill('12');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL('**?notice=loan-saved');
  const schedule = await rows(page, 'table.schedule');
  assert.equal(schedule.length, 12);
  assert.deepEqual(schedule[0].slice(2, 7), ['₱7,884.88', '₱1,000.00', '₱8,884.88', '₱0.00', 'Unpaid']);
  assert.deepEqual(schedule[11].slice(2, 5), ['₱8,796.88', '₱87.97', '₱8,884.85']);
  assert.match(await page.textContent('#installment-heading'), /^Installment 1 · due /);
  await snap(page, 'loans-3-loan');

  // 600.00 pays only interest: partially paid. The rest settles it.
  await page.getByLabel('Amount', { exact: true }).fill('600');
  await page.getByRole('button', { name: 'Record payment' }).click();
  await page.waitForURL('**notice=loan-paid*');
  assert.equal(await page.textContent('#installment .badge'), 'Partially paid');
  assert.deepEqual((await rows(page, 'table.schedule'))[0].slice(5, 7), ['₱600.00', 'Partially paid']);
  assert.equal(await page.getByLabel('Amount', { exact: true }).inputValue(), '8284.88');
  await snap(page, 'loans-4-partially-paid');
  await page.getByRole('button', { name: 'Record payment' }).click();
  await page.waitForURL('**notice=loan-paid*');
  assert.deepEqual((await rows(page, 'table.schedule'))[0].slice(5, 7), ['₱8,884.88', 'Paid']);
  assert.deepEqual((await rows(page, '#loan-payments-heading + table')).map((r) => r.slice(2, 5)),
    [['₱600.00', '₱600.00', '₱0.00'], ['₱8,284.88', '₱400.00', '₱7,884.88']]);
  await snap(page, 'loans-5-paid');

  // With a payment, only the name, lender and notes stay editable.
  assert.equal(await page.getByLabel(/^Principal/).count(), 0);
  assert.match(await page.textContent('#edit'), /The amount, rate, term and dates stay as they are/);

  pages.pastLoan = await pastLoanJourney(page, 'Phone plan', 'phone');

  await page.goto(`${finance.baseURL}/loans`);
  assert.match(await page.textContent('#loans-heading + ul'), /Car loan/);
  await snap(page, 'loans-6-list');

  assert.deepEqual(problems, [], 'no console errors (CSP violations show up here)');
  await context.close();
});

test('at desktop width the bills calendar, bill, template and loan pages', async () => {
  const { context, page, problems } = await openContext(browser, desktop);
  await signIn(page, finance);
  await page.goto(pages.bills);
  assert.equal(await page.locator('.calendar thead th').count(), 7);
  await snap(page, 'bills-5-calendar', desktop.name);
  await page.goto(pages.bill);
  await snap(page, 'bills-10-bill-skipped', desktop.name);
  await page.goto(pages.templates);
  await snap(page, 'bills-4-templates', desktop.name);
  await page.getByRole('link', { name: 'Rent' }).click();
  await page.waitForURL(/\/bills\/templates\/[0-9a-f-]+$/);
  assert.equal(await page.getByLabel('Name').inputValue(), 'Rent');
  await snap(page, 'bills-11-template-edit', desktop.name);
  await page.goto(`${finance.baseURL}/bills/templates/new`);
  await snap(page, 'bills-3-template-new', desktop.name);
  await page.goto(`${finance.baseURL}/loans`);
  await snap(page, 'loans-6-list', desktop.name);
  await page.goto(pages.loan);
  await snap(page, 'loans-5-paid', desktop.name);
  await page.goto(`${finance.baseURL}/loans/new`);
  await snap(page, 'loans-2-new', desktop.name);
  await pastLoanJourney(page, 'Laptop plan', desktop.name);
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});
