// Headless Chromium walks the Reports, Income and CSV screens of the web
// app on a fresh server: two expenses and an income recorded through the
// Record form (one description with a comma, quotes and a leading "=", to
// check the CSV's quoting and its formula guard), Home's twelve-month charts
// and their tables, a report whose range is refused and then changed, its
// CSV download byte for byte, that range carried to reports that do not use
// all of it (shown, with a note), the expense list's CSV, and the income
// list with its void confirm step. Every page is screenshotted in light and dark
// at phone and desktop size and checked by the accessibility linter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startFinance } from './finance-server.mjs';
import { desktop, launchBrowser, navLink, openContext, phone, refusedFormAt, setUp, shots, signIn, snap } from './webapp-kit.mjs';

let finance, browser;
let today; // the server's today, YYYY-MM-DD, from the Record form

before(async () => {
  finance = await startFinance();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await finance?.stop();
  console.log(`screenshots: ${shots}`);
});

const nav = (page, name) => navLink(page, name).click();

/** The cells of a table's body and foot rows, as text. */
const rows = (page, selector) => page.locator(`${selector} tbody tr, ${selector} tfoot tr`).evaluateAll((trs) =>
  trs.map((r) => [...r.children].map((c) => c.textContent.trim())));

async function record(page, kind, { amount, description, category }) {
  await page.goto(`${finance.baseURL}/record${kind === 'income' ? '?kind=income' : ''}`);
  await page.locator('#amount').fill(amount);
  await page.getByLabel('Description').fill(description);
  await page.getByLabel('Category').selectOption(category);
  await page.getByRole('button', { name: `Save ${kind}` }).click();
  await page.waitForURL(`**/?month=*&notice=${kind}-recorded&amount=*`);
}

/** Clicks a download link and returns the downloaded file's name and text. */
async function download(page, link) {
  const [file] = await Promise.all([page.waitForEvent('download'), link.click()]);
  return { name: file.suggestedFilename(), text: await readFile(await file.path(), 'utf8') };
}

test('on a phone: Home charts over twelve months, a report with its range and CSV, the lists', async () => {
  const { context, page, problems } = await openContext(browser, phone, refusedFormAt('/reports/income-vs-expenses'));
  await setUp(page, finance);
  await page.goto(`${finance.baseURL}/record`);
  today = await page.getByLabel('Date').inputValue();
  const month = today.slice(0, 7);
  await record(page, 'expense', { amount: '250.50', description: 'Lunch, "big" one', category: 'Food & Dining' });
  await record(page, 'expense', { amount: '49.50', description: '=SUM(A1)', category: 'Transportation' });
  await record(page, 'income', { amount: '30000', description: 'Salary', category: 'Salary' });

  // Home: the twelve months end at this month, whose figures the tables hold.
  const label = new Date(`${month}-01T00:00:00Z`).toLocaleString('en-US', { month: 'short', year: 'numeric', timeZone: 'UTC' });
  const trend = await rows(page, '#trend-table');
  assert.equal(trend.length, 14, 'twelve months, the total and the average');
  assert.deepEqual(trend[11], [label, '₱300.00']);
  assert.deepEqual(trend[12], ['Total', '₱300.00']);
  const versus = await rows(page, '#income-spending-table');
  assert.deepEqual(versus[11], [label, '₱30,000.00', '₱300.00', '₱29,700.00']);
  assert.match(await page.locator('#income-spending-heading ~ svg.chart').getAttribute('aria-label'),
    new RegExp(`${label}: Income ₱30,000\\.00, Spending ₱300\\.00`));
  await snap(page, 'r1-home-trends');

  await nav(page, 'Reports');
  await page.waitForURL('**/reports');
  assert.equal(await page.locator('.report-list li').count(), 10);
  await snap(page, 'r2-reports');

  await page.getByRole('link', { name: 'Income vs spending' }).click();
  await page.waitForURL('**/reports/income-vs-expenses');
  assert.equal(await page.locator('#r-from').inputValue(), `${month}-01`, 'the range defaults to this month, as the API');
  await snap(page, 'r3-report');

  // A refused range says why beside the field, in the API's words.
  await page.locator('#r-from').fill(`${month}-28`);
  await page.locator('#r-to').fill(`${month}-01`);
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForSelector('#from-error');
  assert.equal(await page.textContent('#from-error'), 'From must not be after dateTo');
  assert.equal(await page.locator('#r-from').getAttribute('aria-invalid'), 'true');
  await snap(page, 'r4-report-refused');

  // The range from the first of last month, by week... then by month.
  const first = new Date(`${month}-01T00:00:00Z`);
  first.setUTCMonth(first.getUTCMonth() - 1);
  const prev = first.toISOString().slice(0, 7);
  await page.locator('#r-from').fill(`${prev}-01`);
  await page.locator('#r-to').fill(today);
  await page.locator('#r-granularity').selectOption('month');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL(`**/reports/income-vs-expenses?dateFrom=${prev}-01&dateTo=${today}&granularity=month`);
  assert.equal((await rows(page, '#income-spending-table')).length, 3, 'two months and the total');
  await snap(page, 'r5-report-range');

  const csv = await download(page, page.getByRole('link', { name: 'Download CSV' }));
  assert.equal(csv.name, `income-vs-expenses-${prev}-01-to-${today}.csv`);
  assert.equal(csv.text, `period,income,spending,net\n${prev},0.00,0.00,0.00\n${month},30000.00,300.00,29700.00\nTotal,30000.00,300.00,29700.00\n`);

  // The same query on reports that do not use all of it: each shows, and says what it left out.
  const carried = `?dateFrom=${prev}-01&dateTo=${today}&granularity=month`;
  const methods = await page.goto(`${finance.baseURL}/reports/payment-methods${carried}`);
  assert.equal(methods.status(), 200);
  assert.equal(await page.textContent('main [role=status]'), 'Not used by this report, so left out: granularity.');
  assert.equal(await page.locator('#r-from').inputValue(), `${prev}-01`, 'the range it uses stays');
  assert.deepEqual((await rows(page, '#figures-table'))[0], ['Cash', '₱300.00', '2', '100.00%']);
  assert.equal(await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href'),
    `/reports/payment-methods.csv?dateFrom=${prev}-01&dateTo=${today}`);
  await snap(page, 'r9-report-unused');
  const worth = await page.goto(`${finance.baseURL}/reports/net-worth${carried}`);
  assert.equal(worth.status(), 200);
  assert.equal(await page.textContent('main [role=status]'),
    'Not used by this report, so left out: dateFrom, dateTo and granularity.');
  assert.match(await page.textContent('#report-range'), new RegExp(`^As of ${today} · PHP$`), 'balances as of today');

  // The expense list's CSV: quoted as RFC 4180 says, the formula neutralized.
  await nav(page, 'Expenses');
  await page.waitForURL('**/expenses');
  const expenses = await download(page, page.getByRole('link', { name: 'Download CSV' }));
  assert.equal(expenses.name, 'expenses.csv');
  const lines = expenses.text.split('\n');
  assert.equal(lines[0], 'date,description,category,payment_method,amount,split_parts,notes,id,account_or_card');
  assert.match(lines[1], new RegExp(`^${today},'=SUM\\(A1\\),Transportation,Cash,49\\.50,,,[0-9a-f-]{36},$`));
  assert.match(lines[2], new RegExp(`^${today},"Lunch, ""big"" one",Food & Dining,Cash,250\\.50,,,[0-9a-f-]{36},$`));

  await nav(page, 'Income');
  await page.waitForURL('**/income');
  assert.match(await page.textContent('#list-heading'), /1 income entry/);
  assert.match(await page.getByRole('link', { name: /^Edit Salary/ }).getAttribute('href'), /^\/income\/[0-9a-f-]{36}\/edit$/);
  await snap(page, 'r6-income');
  await page.locator('summary', { hasText: 'Void' }).click();
  await snap(page, 'r8-income-confirm');
  const income = await download(page, page.getByRole('link', { name: 'Download CSV' }));
  await page.goto(`${finance.baseURL}/reports/net-worth`);
  await snap(page, 'r7-net-worth');
  assert.match(income.text, new RegExp(`^date,description,category,amount,account_id,notes,id\n${today},Salary,Salary,30000\\.00,,,[0-9a-f-]{36}\n$`));

  assert.deepEqual(problems, [], 'no console errors (CSP violations show up here)');
  await context.close();
});

test('at desktop width: the same screens, then an income voided after its confirm step', async () => {
  const { context, page, problems } = await openContext(browser, desktop);
  await signIn(page, finance);
  assert.deepEqual((await rows(page, '#income-spending-table'))[12], ['Total', '₱30,000.00', '₱300.00', '₱29,700.00']);
  await snap(page, 'r1-home-trends', desktop.name);
  await nav(page, 'Reports');
  await page.waitForURL('**/reports');
  await snap(page, 'r2-reports', desktop.name);
  await page.getByRole('link', { name: 'Spending trend' }).click();
  await page.waitForURL('**/reports/spending-trend');
  await page.locator('#r-granularity').selectOption('day');
  await page.getByRole('button', { name: 'Show' }).click();
  await page.waitForURL('**/reports/spending-trend?*granularity=day*');
  assert.ok((await rows(page, '#trend-table')).some((r) => r[1] === '₱300.00'), 'today holds both expenses');
  await snap(page, 'r3-report', desktop.name);
  await page.goto(`${finance.baseURL}/reports/net-worth`);
  await snap(page, 'r7-net-worth', desktop.name);

  await nav(page, 'Income');
  await page.waitForURL('**/income');
  await snap(page, 'r6-income', desktop.name);
  // Void opens the confirm step; only its button voids.
  await page.locator('summary', { hasText: 'Void' }).click();
  const confirm = page.getByRole('button', { name: 'Void this income' });
  assert.equal(await confirm.isVisible(), true);
  assert.match(await page.textContent('.confirm-form p'), /Void Salary of ₱30,000\.00 on .*\? This cannot be undone\./);
  await snap(page, 'r8-income-confirm', desktop.name);
  await confirm.click();
  await page.waitForURL('**/income?notice=income-voided');
  assert.match(await page.textContent('[role=status]'), /The income has been voided/);
  assert.match(await page.textContent('#list-heading'), /No income entries/);
  await page.goto(`${finance.baseURL}/`);
  assert.deepEqual((await rows(page, '#income-spending-table'))[12], ['Total', '₱0.00', '₱300.00', '-₱300.00']);
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});
