// Headless Chromium pays a credit card statement on a fresh server at phone
// size (390×844): it creates an account and a card whose statement day is
// five days ago, records two card purchases dated before it on Record,
// opens the card and its statement (the first purchase made the statement;
// the second, entered after it, joined it; un-linked, it is linked back
// with a checkbox), pays the statement in full from the account, sees it
// paid and the account's balance go down, then converts a later purchase
// into an installment plan and reads its schedule. A second card, new
// today, takes a purchase dated last period: the page after the save says
// its Statements from moved back, and the card shows the statement that
// bills it. Then the same user signs in at desktop width and sees every
// page again, and records a purchase on the paid card dated before its
// statements began: the page says which statement bills it, and why. Every page is screenshotted in light and dark and
// checked by the accessibility linter (see webapp-kit.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { day, desktop, launchBrowser, navLink, openContext, phone, refusedFormAt, setUp, shots, signIn, snap } from './webapp-kit.mjs';

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


// fillNewCard opens the Cards page's form and fills a card whose statement
// (and due) day is statementDate's; cycleStart empty keeps the form's
// Statements from, today.
async function fillNewCard(page, name, limit, cycleStart = '') {
  await navLink(page, 'Cards').click();
  await page.waitForURL('**/cards');
  await page.getByText('Add a card').click();
  await page.locator('#new-name').fill(name);
  await page.locator('#new-limit').fill(limit);
  await page.locator('#new-sday').fill(String(Number(statementDate.slice(8))));
  await page.locator('#new-dday').fill(String(Number(statementDate.slice(8))));
  if (cycleStart) await page.locator('#new-cycle').fill(cycleStart);
}

async function recordCardPurchase(page, amount, description, date, card = 'Visa') {
  await navLink(page, 'Record').click();
  await page.waitForURL('**/record');
  await page.locator('#amount').fill(amount);
  await page.getByLabel('Description').fill(description);
  await page.getByLabel('Category').selectOption('Shopping');
  await page.getByLabel('Date').fill(date);
  await page.getByRole('radio', { name: 'Credit Card' }).check();
  const option = page.locator('#credit_card_id option', { hasText: new RegExp(`^${card} `) });
  await page.locator('#credit_card_id').selectOption(await option.getAttribute('value'));
  await page.getByRole('button', { name: 'Save expense' }).click();
  await page.waitForURL('**/?month=*&notice=expense-recorded&amount=*');
}

test('on a phone, a new user pays a card statement from an account and converts a purchase to installments', async () => {
  const { context, page, problems } = await openContext(browser, phone, refusedFormAt('/accounts'));
  await setUp(page, finance);

  // Accounts: a refused form says why beside the field, then the account is created.
  await navLink(page, 'Accounts').click();
  await page.waitForURL('**/accounts');
  assert.match(await page.textContent('main'), /No accounts yet/);
  await snap(page, 'cards-1-accounts-empty');
  await page.getByText('Add an account').click();
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForSelector('#new-name-error');
  assert.equal(await page.textContent('#new-name-error'), 'Name is required');
  assert.equal(await page.locator('#new-name').getAttribute('aria-invalid'), 'true');
  await snap(page, 'cards-2-accounts-refused');
  await page.locator('#new-name').fill('Payroll');
  await page.locator('#new-opening').fill('10000');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL('**/accounts/*?notice=account-created');
  assert.match(await page.textContent('.stats'), /₱10,000\.00/);
  pages.account = new URL(page.url()).pathname;
  await snap(page, 'cards-3-account');

  // Cards: a card whose statement date was five days ago, due next month.
  await fillNewCard(page, 'Visa', '50000', day(-40));
  await snap(page, 'cards-4-cards-new');
  await page.getByRole('button', { name: 'Create card' }).click();
  await page.waitForURL('**/cards/*?notice=card-created');
  pages.card = new URL(page.url()).pathname;
  assert.match(await page.textContent('main'), /No statements yet/);

  // Two purchases dated before the statement date, and a later one.
  await recordCardPurchase(page, '1200', 'Running shoes', day(-7));
  await recordCardPurchase(page, '800.50', 'Headphones', day(-6));
  await recordCardPurchase(page, '3000', 'Phone', day(-1));

  await navLink(page, 'Cards').click();
  await page.waitForURL('**/cards');
  assert.match(await page.textContent('main'), /Owed\s*₱5,000\.50/);
  await snap(page, 'cards-5-cards');
  await page.getByRole('link', { name: 'Visa' }).click();
  await page.waitForURL(`**${pages.card}`);
  assert.match(await page.textContent('#statements-heading + h3'), /Open/);
  await snap(page, 'cards-6-card');

  // The statement: the first purchase made it; the second, entered after
  // it and dated in its period, joined it. Un-linked, it is linked back here.
  await page.getByRole('link', { name: /^Statement of / }).click();
  await page.waitForURL('**/statements/*');
  pages.statement = new URL(page.url()).pathname;
  assert.match(await page.textContent('#lines-heading'), /^2 lines$/);
  assert.equal(await page.textContent('#remaining'), '₱2,000.50');
  await page.getByRole('button', { name: /^Un-link Headphones/ }).click();
  await page.waitForURL('**/statements/*?notice=statement-line-removed');
  assert.match(await page.textContent('#lines-heading'), /^1 line$/);
  await page.getByLabel(/Headphones/).check();
  await snap(page, 'cards-7-statement');
  await page.getByRole('button', { name: 'Link to this statement' }).click();
  await page.waitForURL('**/statements/*?notice=statement-linked');
  assert.match(await page.textContent('#lines-heading'), /^2 lines$/);
  assert.equal(await page.textContent('#remaining'), '₱2,000.50');
  assert.equal(await page.getByLabel('Amount').inputValue(), '2000.50', 'the amount defaults to what is left to pay');

  // Void asks first and says it resets the statement; keep it.
  await page.getByRole('link', { name: 'Void statement…' }).click();
  await page.waitForURL('**/statements/*/void');
  assert.match(await page.textContent('main'), /Voiding resets the statement/);
  pages.voidConfirm = new URL(page.url()).pathname;
  await snap(page, 'cards-8-void-confirm');
  await page.getByRole('link', { name: 'Keep it' }).click();
  await page.waitForURL(`**${pages.statement}`);

  // Pay it in full from the account.
  await page.getByLabel('From account').selectOption({ index: 1 }); // the only account
  await page.getByRole('button', { name: 'Record payment' }).click();
  await page.waitForURL('**/statements/*?notice=statement-paid');
  assert.match(await page.textContent('[role=status]'), /Statement payment recorded/);
  assert.equal(await page.textContent('.page-head .badge'), 'Paid');
  assert.equal(await page.textContent('#remaining'), '₱0.00');
  assert.match(await page.textContent('#payments-heading + ul'), /from Payroll\s*₱2,000\.50/);
  await snap(page, 'cards-9-statement-paid');

  await page.getByRole('link', { name: 'Visa' }).click();
  assert.match(await page.textContent('#statements-heading ~ h3'), /Paid/);

  await navLink(page, 'Accounts').click();
  await page.waitForURL('**/accounts');
  assert.match(await page.textContent('main'), /Payroll\s*₱7,999\.50/);
  await page.getByRole('link', { name: 'Payroll' }).click();
  assert.match(await page.textContent('.stats'), /Balance\s*₱7,999\.50/);
  assert.match(await page.textContent('#lines-heading + details + ul'), /Statement payment/);
  await snap(page, 'cards-10-account-paid');

  // The later purchase, still unbilled, becomes three monthly installments.
  await page.goto(`${finance.baseURL}${pages.card}`);
  await page.getByRole('link', { name: /^Convert Phone/ }).click();
  await page.waitForURL('**/cards/transactions/*/convert');
  pages.convert = new URL(page.url()).pathname;
  await page.getByLabel('Months').fill('3');
  await page.getByLabel('No interest').check();
  await snap(page, 'cards-11-convert');
  await page.getByRole('button', { name: 'Convert to installments' }).click();
  await page.waitForURL('**/installments/*?notice=plan-created');
  pages.plan = new URL(page.url()).pathname;
  assert.deepEqual(await page.locator('#schedule tbody tr').evaluateAll((rows) =>
    rows.map((r) => [...r.children].map((c) => c.textContent.trim()).slice(2, 5))),
  [['₱1,000.00', '₱0.00', '₱1,000.00'], ['₱1,000.00', '₱0.00', '₱1,000.00'], ['₱1,000.00', '₱0.00', '₱1,000.00']]);
  await snap(page, 'cards-12-installments');

  await page.getByRole('link', { name: 'Cancel plan…' }).click();
  await page.waitForURL('**/installments/*/cancel');
  pages.cancelConfirm = new URL(page.url()).pathname;
  assert.match(await page.textContent('main'), /every row of the plan is voided/);
  await snap(page, 'cards-13-cancel-confirm');
  await page.getByRole('link', { name: 'Keep it' }).click();
  await page.waitForURL(`**${pages.plan}`);

  // A card new today, and a purchase dated in the last period: Statements
  // from moves back, said after the save in the statements box (not as a
  // mistake), and the card's link shows the statement that bills it.
  await fillNewCard(page, 'Mastercard', '20000');
  await page.getByRole('button', { name: 'Create card' }).click();
  await page.waitForURL('**/cards/*?notice=card-created');
  assert.match(await page.textContent('main'), /No statements yet/);
  await recordCardPurchase(page, '450', 'Concert tickets', day(-20), 'Mastercard');
  const note = page.locator('.notice.notes');
  assert.match(await note.textContent(), /^\s*Saved\. About your card's statements:/);
  assert.match(await note.textContent(), new RegExp(`Statements from on Mastercard moved back from ${day(0)} to \\d{4}-\\d{2}-\\d{2} so that its statements bill this purchase dated ${day(-20)}\\.`));
  assert.equal(await page.locator('.alert.warning').count(), 0, 'a back-dated purchase is not shown as a mistake');
  await snap(page, 'cards-14-backdated-note');
  await note.getByRole('link', { name: 'Open the card' }).click();
  await page.waitForURL('**/cards/*');
  assert.match(await page.textContent('main'), new RegExp(`Statement of ${statementDate}`));
  assert.match(await page.textContent('main'), /Due \S+ · (due in \d+ days|due today|due tomorrow|\d+ days? overdue) · ₱450\.00 left to pay/);

  assert.deepEqual(problems, [], 'no console errors (CSP violations show up here)');
  await context.close();
});

test('at desktop width the same user sees the accounts, cards, statement and plan', async () => {
  const { context, page, problems } = await openContext(browser, desktop);
  await signIn(page, finance);
  await navLink(page, 'Accounts').click();
  await page.waitForURL('**/accounts');
  await snap(page, 'cards-1-accounts', desktop.name);
  await navLink(page, 'Cards').click();
  await page.waitForURL('**/cards');
  await snap(page, 'cards-5-cards', desktop.name);
  for (const [name, path] of [['cards-3-account', pages.account], ['cards-6-card', pages.card], ['cards-9-statement-paid', pages.statement],
    ['cards-8-void-confirm', pages.voidConfirm], ['cards-11-convert', pages.convert], ['cards-12-installments', pages.plan],
    ['cards-13-cancel-confirm', pages.cancelConfirm]]) {
    assert.ok(path, `${name} was visited at phone size`);
    await page.goto(`${finance.baseURL}${path}`);
    await snap(page, name, desktop.name);
  }
  assert.match(await page.textContent('main'), /Cancel the plan for Phone/);

  // A purchase dated periods before Visa's statements began, now that a
  // statement is paid: Statements from stays put, and the first statement
  // generated after it (the one of the period Statements from falls in,
  // which had nothing to bill until now) bills it. The page says so.
  await recordCardPurchase(page, '99', 'Old subscription', day(-100));
  const note = page.locator('.notice.notes');
  assert.match(await note.textContent(), new RegExp(`This purchase dated ${day(-100)} on Visa is billed on the statement of \\d{4}-\\d{2}-\\d{2}: ` +
    `it is dated before Statements from \\(${day(-40)}\\) and a statement of the card has a payment\\.`));
  assert.equal(await note.getByRole('link', { name: 'Open the card' }).getAttribute('href'), pages.card);
  await snap(page, 'cards-15-backdated-note', desktop.name);
  assert.deepEqual(problems, [], 'no console errors');
  await context.close();
});
