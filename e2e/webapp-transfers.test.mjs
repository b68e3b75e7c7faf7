// Headless Chromium moves money between two accounts on a fresh server at
// phone size (390×844): two accounts are created, a transfer with a fee is
// refused with its problems beside the fields and then recorded from the
// first account's page; both accounts' lines say where the money went and
// came from and link to each other; the transfer is changed, then deleted,
// and both balances come back. At desktop width (1280×800) the same user
// records a transfer from the Accounts page. Every page is screenshotted in
// light and dark and checked by the accessibility linter (webapp-kit.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { desktop, launchBrowser, navLink, openContext, phone, refusedFormAt, setUp, shots, signIn, snap } from './webapp-kit.mjs';

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

/** Creates an account with an opening balance from the Accounts page; the page ends on the account. */
async function createAccount(page, name, type, opening) {
  await navLink(page, 'Accounts').click();
  await page.waitForURL('**/accounts');
  await page.getByText('Add an account').click();
  await page.locator('#new-name').fill(name);
  await page.locator('#new-type').selectOption(type);
  await page.locator('#new-opening').fill(opening);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/accounts/*?notice=account-created');
  return new URL(page.url()).pathname;
}

const balance = async (page) => (await page.textContent('.stats .stat dd')).trim();

test('on a phone, money moves from savings to an e-wallet with a fee, is changed, and is deleted', async () => {
  const { context, page, problems } = await openContext(browser, phone, refusedFormAt('/transfers'));
  await setUp(page, finance);
  const gcash = await createAccount(page, 'GCash', 'e_wallet', '50');
  const bpi = await createAccount(page, 'BPI Savings', 'savings', '10000');

  // From the account's page: the form comes with the account chosen.
  await page.getByRole('link', { name: 'Transfer', exact: true }).click();
  await page.waitForURL('**/transfers/new?from=*');
  assert.match(await page.locator('#t-from option:checked').textContent(), /BPI Savings/);
  await snap(page, 'transfers-1-new');
  await page.locator('#t-to').selectOption({ label: 'BPI Savings · ₱10,000.00' });
  await page.locator('#t-amount').fill('0');
  await page.getByRole('button', { name: 'Record transfer' }).click();
  await page.waitForSelector('#t-to-error');
  assert.equal(await page.textContent('#t-to-error'), 'To must be another account than from_account_id');
  assert.equal(await page.textContent('#t-amount-error'), 'Amount must be greater than 0');
  await snap(page, 'transfers-2-refused');

  await page.locator('#t-to').selectOption({ label: 'GCash · ₱50.00' });
  await page.locator('#t-amount').fill('2000');
  await page.locator('#t-description').fill('Top-up');
  await page.locator('#t-fee').fill('15');
  await page.getByRole('button', { name: 'Record transfer' }).click();
  await page.waitForURL(`**${bpi}?notice=transfer-recorded`);
  assert.equal(await balance(page), '₱7,985.00');
  const out = page.locator('li.item', { hasText: 'Transfer to GCash' });
  assert.match(await out.textContent(), /−₱2,000\.00/);
  await snap(page, 'transfers-3-from-account');

  // The other side links back.
  await out.getByRole('link', { name: 'GCash' }).click();
  await page.waitForURL(`**${gcash}`);
  assert.equal(await balance(page), '₱2,050.00');
  const inLine = page.locator('li.item', { hasText: 'Transfer from BPI Savings' });
  assert.match(await inLine.textContent(), /\+₱2,000\.00/);
  await snap(page, 'transfers-4-to-account');

  // Changed from there: the amount and no fee.
  await inLine.getByRole('link', { name: 'Edit transfer' }).click();
  await page.waitForURL(/\/transfers\/[0-9a-f-]+$/);
  assert.equal(await page.locator('#t-fee').inputValue(), '15.00');
  await snap(page, 'transfers-5-edit');
  await page.locator('#t-amount').fill('2500');
  await page.locator('#t-fee').fill('');
  await page.getByRole('button', { name: 'Save transfer' }).click();
  await page.waitForURL(`**${bpi}?notice=transfer-saved`);
  assert.equal(await balance(page), '₱7,500.00');

  // Deleted after the confirm step: both balances come back.
  await page.locator('li.item', { hasText: 'Transfer to GCash' }).getByRole('link', { name: 'Edit transfer' }).click();
  await page.waitForURL(/\/transfers\/[0-9a-f-]+$/);
  await page.locator('summary', { hasText: 'Delete transfer' }).click();
  await snap(page, 'transfers-6-delete');
  await page.getByRole('button', { name: 'Delete this transfer' }).click();
  await page.waitForURL(`**${bpi}?notice=transfer-deleted`);
  assert.equal(await balance(page), '₱10,000.00');
  await page.goto(`${finance.baseURL}${gcash}`);
  assert.equal(await balance(page), '₱50.00');

  assert.deepEqual(problems, []);
  await context.close();
});

test('at desktop width, a transfer is recorded from the Accounts page', async () => {
  const { context, page, problems } = await openContext(browser, desktop);
  await signIn(page, finance);
  await navLink(page, 'Accounts').click();
  await page.waitForURL('**/accounts');
  await snap(page, 'transfers-7-accounts', 'desktop');
  await page.getByRole('link', { name: 'Transfer', exact: true }).click();
  await page.waitForURL('**/transfers/new');
  await page.locator('#t-from').selectOption({ label: 'GCash · ₱50.00' });
  await page.locator('#t-to').selectOption({ label: 'BPI Savings · ₱10,000.00' });
  await page.locator('#t-amount').fill('20');
  await snap(page, 'transfers-8-new', 'desktop');
  await page.getByRole('button', { name: 'Record transfer' }).click();
  await page.waitForURL('**/accounts/*?notice=transfer-recorded');
  assert.equal(await balance(page), '₱30.00');
  await snap(page, 'transfers-9-from-account', 'desktop');
  await page.locator('li.item', { hasText: 'Transfer to BPI Savings' }).getByRole('link', { name: 'Edit transfer' }).click();
  await page.waitForURL(/\/transfers\/[0-9a-f-]+$/);
  await snap(page, 'transfers-10-edit', 'desktop');
  assert.deepEqual(problems, []);
  await context.close();
});
