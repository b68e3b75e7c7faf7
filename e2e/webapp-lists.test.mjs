// Headless Chromium goes through the lists across accounts and cards on a
// fresh server at phone size (390×844): it creates two accounts, moves money
// with a manual line, corrects a balance with an adjustment (a refused one
// first, the API's words beside the field), reads every account's lines,
// filters them to one account and downloads them as CSV; it creates a card,
// records purchases before and after its statement date, reads every card
// transaction, filters the billed ones and follows one to its statement,
// adds a late fee there (refused first) and edits the statement's minimum
// due and notes. Then the same user signs in at desktop width and sees
// every page again. Every page is screenshotted in light and dark and
// checked by the accessibility linter (see webapp-kit.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { day, desktop, launchBrowser, navLink, openContext, phone, setUp, shots, signIn, snap } from './webapp-kit.mjs';

let finance, browser;
const pages = {}; // name -> path, visited again at desktop width

before(async () => {
  finance = await startFinance();
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await finance?.stop();
  console.log(`screenshots: ${shots}`);
});

const statementDate = day(-5);


// Chromium logs the 400 document of a refused adjustment or statement line.
const refused = (m) => m.text().startsWith('Failed to load resource') && /\/(adjust|lines)$/.test(new URL(m.location().url).pathname);

async function createAccount(page, name, opening) {
  await navLink(page, 'Accounts').click();
  await page.waitForURL('**/accounts');
  await page.getByText('Add an account').click();
  await page.locator('#new-name').fill(name);
  await page.locator('#new-opening').fill(opening);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/accounts/*?notice=account-created');
  return new URL(page.url()).pathname;
}

async function recordCardPurchase(page, amount, description, date) {
  await navLink(page, 'Record').click();
  await page.waitForURL('**/record');
  await page.locator('#amount').fill(amount);
  await page.getByLabel('Description').fill(description);
  await page.getByLabel('Category').selectOption('Shopping');
  await page.getByLabel('Date').fill(date);
  await page.getByRole('radio', { name: 'Credit Card' }).check();
  await page.locator('#credit_card_id').selectOption({ index: 1 }); // the only card
  await page.getByRole('button', { name: 'Save expense' }).click();
  await page.waitForURL('**/?month=*&notice=expense-recorded&amount=*');
}

test('on a phone, a user reads and downloads every account line and card transaction, adjusts a balance and adds a statement fee', async () => {
  const { context, page, problems } = await openContext(browser, phone, refused);
  await setUp(page, finance);

  // Two accounts and a manual line between them.
  await createAccount(page, 'Wallet', '500');
  pages.account = await createAccount(page, 'Payroll', '10000');
  await page.getByText('Add a line').click();
  await page.locator('#line-amount').fill('1200');
  await page.locator('#line-description').fill('Cash withdrawal');
  await page.getByRole('button', { name: 'Add line' }).click();
  await page.waitForURL('**/accounts/*?notice=line-added');
  assert.match(await page.textContent('.stats'), /Balance\s*₱8,800\.00/);

  // The bank says 8,750.25: the same balance is refused beside the field, then one adjustment line fixes it.
  await page.getByText('Adjust the balance').click();
  assert.equal(await page.locator('#adjust-target').inputValue(), '8800.00', 'the target starts at the current balance');
  await page.getByRole('button', { name: 'Adjust balance' }).click();
  await page.waitForSelector('#adjust-target-error');
  assert.equal(await page.textContent('#adjust-target-error'), 'Balance equals the current balance 8800.00; nothing to adjust');
  assert.equal(await page.locator('#adjust-target').getAttribute('aria-invalid'), 'true');
  await snap(page, 'lists-1-adjust-refused');
  await page.locator('#adjust-target').fill('8750.25');
  await page.locator('#adjust-reason').fill('Bank service charge');
  await page.getByRole('button', { name: 'Adjust balance' }).click();
  await page.waitForURL('**/accounts/*?notice=balance-adjusted');
  assert.match(await page.textContent('[role=status]'), /Balance adjusted/);
  assert.match(await page.textContent('.stats'), /Balance\s*₱8,750\.25/);
  assert.match(await page.textContent('#lines-heading + details + ul'), /Bank service charge\s*−₱49\.75/);
  await snap(page, 'lists-2-account-adjusted');

  // Every account's lines, each naming its account; then only the wallet's.
  await navLink(page, 'Accounts').click();
  await page.waitForURL('**/accounts');
  await page.getByRole('link', { name: 'All account lines' }).click();
  await page.waitForURL('**/accounts/lines');
  pages.lines = '/accounts/lines';
  assert.match(await page.textContent('#lines-heading'), /^2 lines$/);
  assert.match(await page.textContent('main'), /Cash withdrawal/);
  assert.equal(await page.getByRole('link', { name: 'Payroll' }).count(), 2);
  await snap(page, 'lists-3-account-lines');
  await page.getByText('Filter and sort').click();
  await page.locator('#f-account').selectOption({ label: 'Payroll' });
  await page.locator('#f-type').selectOption('debit');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL('**/accounts/lines?*');
  assert.match(await page.textContent('#lines-heading'), /^2 lines$/);
  await snap(page, 'lists-4-account-lines-filtered');
  const href = await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
  assert.match(href, /^\/accounts\/lines\.csv\?accountId=.*&type=debit$/);
  const download = await page.request.get(`${finance.baseURL}${href}`);
  assert.equal(download.status(), 200);
  const csv = (await download.text()).trim().split('\n');
  assert.equal(csv[0], 'date,account,description,type,amount,source,status,account_id,id');
  assert.equal(csv.length, 3);
  assert.ok(csv.some((l) => l.includes('Bank service charge,debit,-49.75,adjustment,posted')), csv.join('\n'));

  // A card whose statement date was five days ago, with purchases before and after it.
  await navLink(page, 'Cards').click();
  await page.waitForURL('**/cards');
  await page.getByText('Add a card').click();
  await page.locator('#new-name').fill('Visa');
  await page.locator('#new-limit').fill('50000');
  await page.locator('#new-sday').fill(String(Number(statementDate.slice(8))));
  await page.locator('#new-dday').fill(String(Number(statementDate.slice(8))));
  await page.locator('#new-cycle').fill(day(-40));
  await page.getByRole('button', { name: 'Create card' }).click();
  await page.waitForURL('**/cards/*?notice=card-created');
  await recordCardPurchase(page, '1500', 'Groceries', day(-7));
  await recordCardPurchase(page, '999.99', 'Headset', day(-1));

  // Every card transaction; the billed one leads to its statement.
  await navLink(page, 'Cards').click();
  await page.waitForURL('**/cards');
  await page.getByRole('link', { name: 'All card transactions' }).click();
  await page.waitForURL('**/cards/transactions');
  pages.cardTransactions = '/cards/transactions';
  assert.match(await page.textContent('#tx-heading'), /^2 transactions$/);
  await snap(page, 'lists-5-card-transactions');
  await page.getByText('Filter and sort').click();
  await page.locator('#f-status').selectOption('billed');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL('**/cards/transactions?*status=billed*');
  assert.match(await page.textContent('#tx-heading'), /^1 transaction$/);
  assert.doesNotMatch(await page.textContent('main'), /Headset/);
  await snap(page, 'lists-6-card-transactions-billed');
  const cardCSV = await page.request.get(`${finance.baseURL}${await page.getByRole('link', { name: 'Download CSV' }).getAttribute('href')}`);
  assert.match(await cardCSV.text(), /,Visa,Groceries,purchase,Shopping,1500\.00,billed,/);
  await page.getByRole('link', { name: 'Billed: open the statement' }).click();
  await page.waitForURL('**/statements/*');
  pages.statement = new URL(page.url()).pathname;
  assert.equal(await page.textContent('#remaining'), '₱1,500.00');

  // A late fee on the statement: refused without a description, then added.
  await page.getByText('Add a fee, interest or refund').click();
  await page.locator('#line-amount').fill('350');
  await page.getByRole('button', { name: 'Add to statement' }).click();
  await page.waitForSelector('#line-description-error');
  assert.equal(await page.textContent('#line-description-error'), 'Description is required');
  assert.equal(await page.locator('#line-amount').inputValue(), '350');
  await snap(page, 'lists-7-statement-line-refused');
  await page.locator('#line-description').fill('Late payment fee');
  await page.getByRole('button', { name: 'Add to statement' }).click();
  await page.waitForURL('**/statements/*?notice=statement-line-added');
  assert.match(await page.textContent('#lines-heading'), /^2 lines$/);
  assert.equal(await page.textContent('#remaining'), '₱1,850.00');

  // The fee was 300, not 350: the line's own edit page.
  await page.getByRole('link', { name: 'Edit Late payment fee, ₱350.00' }).click();
  await page.waitForURL('**/statements/*/lines/*/edit');
  pages['statement-line'] = new URL(page.url()).pathname;
  assert.equal(await page.locator('#edit-amount').inputValue(), '350.00');
  await snap(page, 'lists-9-statement-line-edit');
  await page.locator('#edit-amount').fill('300');
  await page.getByRole('button', { name: 'Save line' }).click();
  await page.waitForURL('**/statements/*?notice=statement-line-saved');
  assert.equal(await page.textContent('#remaining'), '₱1,800.00');

  // Edit the minimum due and notes.
  await page.getByText('Edit statement').click();
  await page.locator('#edit-minimum').fill('500');
  await page.locator('#edit-notes').fill('Asked the bank to waive the fee');
  await page.getByRole('button', { name: 'Save statement' }).click();
  await page.waitForURL('**/statements/*?notice=statement-saved');
  assert.match(await page.textContent('.card-meta'), /Minimum due\s*₱500\.00/);
  assert.match(await page.textContent('.card-meta'), /Asked the bank to waive the fee/);
  await snap(page, 'lists-8-statement-edited');

  assert.deepEqual(problems, []);
  await context.close();
});

test('at desktop width, the same lists and forms', async () => {
  const { context, page, problems } = await openContext(browser, desktop);
  await signIn(page, finance);
  for (const [name, path] of Object.entries(pages)) {
    await page.goto(`${finance.baseURL}${path}`);
    await snap(page, `lists-${name}`, 'desktop');
  }
  assert.deepEqual(problems, []);
  await context.close();
});
