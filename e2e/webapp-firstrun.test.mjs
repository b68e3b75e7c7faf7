// Headless Chromium walks a first run that fits the person, on a server
// whose own zone is UTC. At phone size (390×844) a browser in German in
// Berlin finds setup offering euros and Europe/Berlin (the page's script
// corrects the server's zone), keeps them, and follows Home's checklist:
// an account with an opening balance typed "50.000,00", a card with a
// limit of "100.000", an expense of "1.234,50"; each step ticks itself
// off and Home says what was recorded. At desktop size (1280×800) a browser
// in American English in New York gets dollars and New York on a second
// server, records "50,000" as $50,000.00, connects an agent with an API
// key, which ends the checklist, and App settings shows the same pickers.
// A third server's owner hides the checklist before it is done, and it
// stays hidden. Every page is screenshotted in light and dark and checked
// by the accessibility linter (see webapp-kit.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { desktop, launchBrowser, navLink, openContext, phone, setUp, shots, snap } from './webapp-kit.mjs';

let browser;
const servers = [];

before(async () => {
  process.env.TZ = 'UTC'; // the servers' own zone, which the browsers correct
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await Promise.all(servers.map((s) => s.stop()));
  console.log(`screenshots: ${shots}`);
});

async function server() {
  const s = await startFinance();
  servers.push(s);
  return s;
}

/** The checklist's steps as "label: done|todo", or [] when Home has none. */
async function checklist(page) {
  return page.locator('.checklist li').evaluateAll((items) =>
    items.map((li) => `${li.textContent.replace('(done)', '').replace('✓', '').trim()}: ${li.classList.contains('done') ? 'done' : 'todo'}`));
}

/** Follows the checklist's "Record an expense" and saves one, typed as a person would. */
async function recordFromChecklist(page, amount, description, category) {
  await page.locator('.checklist').getByRole('link', { name: 'Record an expense' }).click();
  await page.waitForURL('**/record');
  await page.locator('#amount').fill(amount);
  await page.getByLabel('Description').fill(description);
  await page.getByLabel('Category').selectOption(category);
  await page.getByRole('button', { name: 'Save expense' }).click();
}

test('a German browser in Berlin sets up in euros and follows the checklist on a phone', async () => {
  const finance = await server();
  const { context, page, problems } = await openContext(browser, phone, () => false, { locale: 'de-DE', timezoneId: 'Europe/Berlin' });
  await page.goto(finance.setupURL);
  assert.equal(await page.locator('select[name=currency]').inputValue(), 'EUR', 'the currency comes from Accept-Language');
  assert.equal(await page.locator('select[name=timezone]').inputValue(), 'Europe/Berlin', "the browser's zone corrects the server's");
  assert.equal(await page.locator('select[name=timezone] option[selected]').getAttribute('value'), 'UTC', "the server chose its own zone");
  await snap(page, 'firstrun-1-setup');
  await setUp(page, finance, { currency: null, timezone: null });

  assert.deepEqual(await checklist(page),
    ['Add an account: todo', 'Add a card: todo', 'Record an expense: todo', 'Connect an agent: todo']);
  await snap(page, 'firstrun-2-home-checklist');

  await page.getByRole('link', { name: 'Add an account' }).click();
  await page.waitForURL('**/accounts#new-heading');
  if (!(await page.locator('#new-name').isVisible())) await page.getByText('Add an account').click();
  await page.locator('#new-name').fill('Girokonto');
  await page.locator('#new-opening').fill('50.000,00');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/accounts/*?notice=account-created');
  assert.match(await page.textContent('main'), /€50,000\.00/, 'the opening balance as it was understood');

  await page.goto(finance.baseURL + '/');
  await page.getByRole('link', { name: 'Add a card' }).click();
  await page.waitForURL('**/cards#new-heading');
  if (!(await page.locator('#new-name').isVisible())) await page.getByText('Add a card').click();
  await page.locator('#new-name').fill('Visa');
  await page.locator('#new-limit').fill('100.000');
  await page.locator('#new-sday').fill('10');
  await page.locator('#new-dday').fill('5');
  await page.getByRole('button', { name: 'Create card' }).click();
  await page.waitForURL('**/cards/*?notice=card-created');
  assert.match(await page.textContent('main'), /€100,000\.00/, 'the credit limit as it was understood');

  await page.goto(finance.baseURL + '/');
  assert.deepEqual(await checklist(page),
    ['Add an account: done', 'Add a card: done', 'Record an expense: todo', 'Connect an agent: todo']);
  await recordFromChecklist(page, '1.234,50', 'Wocheneinkauf', 'Groceries');
  await page.waitForURL('**/?month=*&notice=expense-recorded&amount=1234.50');
  assert.match(await page.textContent('[role=status]'), /Expense recorded: €1,234\.50\./);
  assert.deepEqual(await checklist(page),
    ['Add an account: done', 'Add a card: done', 'Record an expense: done', 'Connect an agent: todo']);
  await snap(page, 'firstrun-3-home-ticked');
  assert.deepEqual(problems, []);
  await context.close();
});

test('an American browser in New York sets up in dollars at desktop width, records 50,000 and connects an agent', async () => {
  const finance = await server();
  const { context, page, problems } = await openContext(browser, desktop, () => false, { locale: 'en-US', timezoneId: 'America/New_York' });
  await page.goto(finance.setupURL);
  assert.equal(await page.locator('select[name=currency]').inputValue(), 'USD');
  assert.equal(await page.locator('select[name=timezone]').inputValue(), 'America/New_York');
  await snap(page, 'firstrun-4-setup', 'desktop');
  await setUp(page, finance, { currency: null, timezone: null });
  await snap(page, 'firstrun-5-home-checklist', 'desktop');

  await recordFromChecklist(page, '50,000', 'Rent', 'Rent & Housing');
  await page.waitForURL('**/?month=*&notice=expense-recorded&amount=50000.00');
  assert.match(await page.textContent('[role=status]'), /Expense recorded: \$50,000\.00\./);
  assert.deepEqual(await checklist(page),
    ['Add an account: todo', 'Add a card: todo', 'Record an expense: done', 'Connect an agent: todo']);

  await page.getByRole('link', { name: 'Connect an agent' }).click();
  await page.waitForURL('**/settings/api-keys');
  await page.locator('input[name=name]').fill('laptop agent');
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.locator('#new-key').waitFor();
  await page.goto(finance.baseURL + '/');
  assert.deepEqual(await checklist(page),
    ['Add an account: todo', 'Add a card: todo', 'Record an expense: done', 'Connect an agent: done']);

  await navLink(page, 'Settings').click();
  await page.getByRole('link', { name: /App settings/ }).click();
  await page.waitForURL('**/settings/app');
  assert.equal(await page.locator('select[name=currency]').inputValue(), 'USD');
  assert.equal(await page.locator('select[name=timezone]').inputValue(), 'America/New_York');
  await snap(page, 'firstrun-6-app-settings', 'desktop');
  assert.deepEqual(problems, []);
  await context.close();
});

test('a checklist hidden before it is done stays hidden', async () => {
  const finance = await server();
  const { context, page, problems } = await openContext(browser, phone, () => false, { locale: 'en-PH', timezoneId: 'Asia/Manila' });
  await page.goto(finance.setupURL);
  assert.equal(await page.locator('select[name=currency]').inputValue(), 'PHP');
  assert.equal(await page.locator('select[name=timezone]').inputValue(), 'Asia/Manila');
  await setUp(page, finance, { currency: null, timezone: null });
  await page.getByRole('button', { name: 'Hide this list' }).click();
  await page.waitForURL((u) => new URL(u).pathname === '/' && !new URL(u).search);
  assert.equal(await page.locator('.checklist').count(), 0);
  await page.reload();
  assert.equal(await page.locator('.checklist').count(), 0, 'the dismissal is stored, not kept by the page');
  assert.deepEqual(problems, []);
  await context.close();
});
