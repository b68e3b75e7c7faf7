// Headless Chromium moves a bank's history in, at phone and at desktop
// size, each on a fresh server: from an account's page "Import a
// statement" uploads a CSV whose columns the app does not recognise (the
// upload's progress shown while it is sent and read), the person maps them, reviews the rows, changes one row's category, filters
// the rows, imports them and sees the account's balance change, then undoes
// the import after a confirm step and sees the balance back. Before the
// upload the person keeps two category rules (Settings, Category rules: one
// refused first, one moved up), and the review names the rule behind the
// coffee's category. Every page is
// screenshotted in light and dark and checked by the accessibility linter
// (see webapp-kit.mjs).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFinance } from './finance-server.mjs';
import { day, desktop, launchBrowser, navLink, openContext, phone, refusedFormAt, setUp, shots, snap } from './webapp-kit.mjs';

let browser;

before(async () => {
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  console.log(`screenshots: ${shots}`);
});

/** A bank's CSV with headers of its own: a purchase, the salary, a coffee. */
const statement = [
  'Booked on,Text,Sum',
  `${day(-3)},GROCER MAKATI,-250.50`,
  `${day(-2)},PAYROLL MARCH,1500.00`,
  `${day(-1)},COFFEE BEAN,-120.00`,
].join('\n');

for (const size of [phone, desktop]) {
  test(`import a statement: upload, map, review, import and undo at ${size.name} size`, async () => {
    const finance = await startFinance();
    const { context, page, problems } = await openContext(browser, size, refusedFormAt('/import', '/settings/category-rules'));
    try {
      await setUp(page, finance);

      // An account to import into, with a balance to watch.
      await navLink(page, 'Accounts').click();
      await page.waitForURL('**/accounts');
      await page.getByText('Add an account').click();
      await page.locator('#new-name').fill('Payroll');
      await page.locator('#new-opening').fill('10000');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.waitForURL('**/accounts/*?notice=account-created');
      const account = new URL(page.url()).pathname;

      // Two category rules, kept under Settings; a rule needs a condition.
      await navLink(page, 'Settings').click();
      await page.getByRole('link', { name: /^Category rules/ }).click();
      await page.waitForURL('**/settings/category-rules');
      await snap(page, 'import-rules-1-empty', size.name);
      await page.locator('#new-category').selectOption('expense:Food & Dining');
      await page.getByRole('button', { name: 'Add rule' }).click();
      assert.match(await page.textContent('#new-description-error'), /is required unless payee_equals/);
      await snap(page, 'import-rules-2-refused', size.name);
      await page.locator('#new-description').fill('COFFEE');
      await page.getByRole('button', { name: 'Add rule' }).click();
      await page.waitForURL('**/settings/category-rules?notice=rule-created');
      await page.locator('#new-description').fill('BEAN');
      await page.locator('#new-min').fill('100');
      await page.locator('#new-max').fill('500');
      await page.locator('#new-category').selectOption('expense:Entertainment');
      await page.getByRole('button', { name: 'Add rule' }).click();
      await page.waitForURL('**/settings/category-rules?notice=rule-created');
      await page.getByRole('button', { name: 'Move up rule 2' }).click();
      await page.waitForURL('**/settings/category-rules?notice=rule-moved');
      assert.match(await page.textContent('ol.rules li:first-child'), /Rule 1: description contains "BEAN", amount 100\.00 to 500\.00 → Entertainment/);
      await page.locator('ol.rules li:first-child summary').click();
      await snap(page, 'import-rules-3-list', size.name);
      // The coffee is the second rule's after all: moved back down.
      await page.getByRole('button', { name: 'Move down rule 1' }).click();
      await page.waitForURL('**/settings/category-rules?notice=rule-moved');
      await page.goto(finance.baseURL + account);

      // The form, reached from the account, with the account chosen.
      await page.getByRole('link', { name: 'Import a statement' }).click();
      await page.waitForURL('**/import?account=*');
      assert.equal(await page.locator('#target option:checked').textContent(), 'Payroll (account)');
      await snap(page, 'import-1-form', size.name);
      await page.getByLabel('Statement file').setInputFiles({ name: 'bank.csv', mimeType: 'text/csv', buffer: Buffer.from(statement) });

      // The upload shows its progress, then that the server reads the file
      // (the server's answer is held back here so that it can be seen).
      let answer;
      const held = new Promise((resolve) => { answer = resolve; });
      await page.route('**/import', async (route) => {
        await held;
        await route.continue();
      }, { times: 1 }); // the upload's post: the form's page is loaded already
      await page.getByRole('button', { name: 'Upload and review' }).click();
      const progress = page.locator('.upload-progress');
      await progress.locator('progress').waitFor();
      await page.getByRole('status').filter({ hasText: /Uploading…|Reading the file…/ }).waitFor();
      assert.equal(await page.getByRole('button', { name: 'Upload and review' }).isDisabled(), true);
      await snap(page, 'import-1b-uploading', size.name);
      answer();

      // Its columns are not recognised: the mapping step, the file kept.
      await page.waitForSelector('h1:text("Map the columns")');
      assert.match(await page.textContent('main'), /The columns of bank\.csv were not recognised/);
      await snap(page, 'import-2-map', size.name);
      await page.locator('#col_date').selectOption('Booked on');
      await page.locator('#col_amount').selectOption('Sum');
      await page.locator('#col_description').selectOption('Text');
      await page.getByRole('button', { name: 'Read with these columns' }).click();
      await page.waitForURL('**/imports/*?notice=import-previewed');
      const batch = new URL(page.url()).pathname;
      assert.match(await page.textContent('.import-stats'), /Rows\s*3/);
      assert.match(await page.textContent('#row-2'), /GROCER MAKATI/);
      assert.match(await page.textContent('#row-2'), /−₱250\.50/);
      assert.match(await page.textContent('#row-4'), /rule 1: description contains "COFFEE"/);
      assert.match(await page.textContent('#row-2'), /the default\s*Make a rule/);
      await snap(page, 'import-3-review', size.name);

      // One row's category changed: saved, and the page is back on that row.
      await page.locator('#row-2 select[name=category]').selectOption('Food & Dining');
      await page.locator('#row-2').getByRole('button', { name: 'Save' }).click();
      await page.waitForURL('**/imports/*?notice=import-row-saved#row-2');
      assert.equal(await page.locator('#row-2 select[name=category]').inputValue(), 'Food & Dining');
      assert.match(await page.textContent('#row-2'), /your choice/);

      // The filters.
      await page.getByRole('navigation', { name: 'Which rows' }).getByRole('link', { name: 'Errors' }).click();
      await page.waitForURL('**/imports/*?show=errors');
      assert.match(await page.textContent('main'), /No rows here/);
      await page.getByRole('navigation', { name: 'Which rows' }).getByRole('link', { name: 'To create' }).click();
      await page.waitForURL('**/imports/*?show=create');
      assert.equal(await page.locator('table.import-rows tbody tr').count(), 3);

      // Import: three records, and the account's balance moves by them.
      await page.getByRole('button', { name: 'Import 3 rows' }).click();
      await page.waitForURL('**/imports/*?notice=import-committed');
      assert.match(await page.textContent('main'), /3 records were created on Payroll/);
      await snap(page, 'import-4-committed', size.name);
      await page.goto(finance.baseURL + account);
      assert.match(await page.textContent('.stats'), /₱11,129\.50/);
      await snap(page, 'import-5-account', size.name);

      // Undo, after a confirm step: the balance is back.
      await page.goto(finance.baseURL + batch);
      await page.getByRole('link', { name: 'Undo this import' }).click();
      await page.waitForURL('**/imports/*/undo');
      await snap(page, 'import-6-undo', size.name);
      await page.getByRole('button', { name: 'Undo this import' }).click();
      await page.waitForURL('**/imports/*?notice=import-reverted');
      assert.match(await page.textContent('[role=status]'), /The import has been undone/);
      await page.goto(finance.baseURL + account);
      assert.match(await page.textContent('.stats'), /₱10,000\.00/);

      // The list, from Settings.
      await navLink(page, 'Settings').click();
      await page.getByRole('link', { name: /^Imports/ }).click();
      await page.waitForURL('**/imports');
      assert.match(await page.textContent('main .list'), /bank\.csv\s*Reverted/);
      await snap(page, 'import-7-list', size.name);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
      await finance.stop();
    }
  });
}
